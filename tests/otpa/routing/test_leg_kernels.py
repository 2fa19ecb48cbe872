"""The fused leg kernels give what the separate steps gave (session 14).

The walk steps of a path without elevation come from one compiled call
(``_walk_steps._step_table``: edge columns, the step state machine and the per-step
values); each is compared with the Python builder and with the builder without its
*plain*-edge shortcut, and the steps' instance dicts with the dataclass's own.  An
access or egress leg read off the search tree (``_walk_steps.tree_leg``: path, steps,
stop link and encoded polyline at once) is compared with the path, geometry, link and
polyline made one by one.  A shapeless ride's geometry from its route's hops is
compared with the one of its stops' points (tiny Atlanta: MARTA rail and buses with
OSM streets).
"""

from __future__ import annotations

import dataclasses
import datetime as dt

import numpy as np
import pytest

from otpa.network import TransportNetwork
from otpa.routing import _walk_steps as walk_steps_module
from otpa.routing._access import (
    StreetEnd,
    _tree_leg,
    find_access,
    path_geometry,
    street_end,
    with_stop_link,
)
from otpa.routing._legs import StreetLegGeometry, _ride_geometry, _stops_ride_geometry, polyline
from otpa.routing._places import Endpoint
from otpa.routing.model import WalkStep
from otpa.routing.street_router import (
    Snap,
    StreetOptions,
    access_stops,
    snap_point,
    street_path,
    walk_steps,
)
from otpa.transit.raptor_data import raptor_timetable
from tests.conftest import require_data
from tests.fixtures.networks import built_network

WALK_OPTS = StreetOptions(mode="WALK", speed_mps=1.33, reluctance=2.0)
OPTIONS = (
    WALK_OPTS,
    StreetOptions(mode="BICYCLE", speed_mps=5.0, reluctance=1.0),
    StreetOptions(mode="CAR", speed_mps=40.0, reluctance=1.0),
)


@pytest.fixture(scope="module")
def atlanta() -> TransportNetwork:
    return built_network(require_data(), "tiny/atlanta")


def test_step_table_steps_are_the_python_and_unshortened_steps(atlanta: TransportNetwork) -> None:
    graph = atlanta.street
    assert graph is not None
    rng = np.random.default_rng(14)
    n_steps = 0
    for opts in OPTIONS:
        for a, b in rng.integers(0, graph.n_vertices, size=(25, 2)).tolist():
            path = street_path(atlanta, a, b, opts)
            if path is None:
                continue
            for angle in (None, 0.7, 1.1, -0.4, -2.9):
                steps = walk_steps_module._compiled_steps(graph, path, angle)
                python = walk_steps_module._python_steps(graph, path, None, angle)
                assert repr(steps) == repr(python)
                assert steps == python
                full = walk_steps_module._compiled_steps(graph, path, angle, shortcut=False)
                assert repr(full) == repr(steps)
                for step, other in zip(steps, python, strict=True):
                    # the same instance dict as the dataclass's __init__ makes, in order
                    assert list(vars(step).items()) == list(vars(other).items())
                    for name, value in vars(step).items():
                        assert type(value) is type(getattr(other, name))
                n_steps += len(steps)
    assert n_steps > 100


def test_step_dict_is_the_dataclass_fields() -> None:
    names = [f.name for f in dataclasses.fields(WalkStep)]
    assert list(walk_steps_module._STEP_FIELDS) == names


def _one_by_one(
    net: TransportNetwork, end: StreetEnd, stop: int, paths: object, reverse: bool
) -> tuple[StreetLegGeometry, bool]:
    path = paths.path(int(net.stop_vertex[stop]))  # type: ignore[attr-defined]
    assert path is not None
    a, b = (stop, end) if reverse else (end, stop)
    return with_stop_link(net, path_geometry(net, path), a, b), path.too_sloped


def _same_leg(got: StreetLegGeometry, want: StreetLegGeometry) -> None:
    for mine, theirs in ((got.lat, want.lat), (got.lon, want.lon)):
        assert mine.dtype == theirs.dtype
        assert np.array_equal(mine, theirs)
    assert got.distance_m == want.distance_m
    assert type(got.distance_m) is type(want.distance_m)
    assert repr(got.steps) == repr(want.steps)
    assert got.steps == want.steps
    assert (got.elevation_gained, got.elevation_lost) == (
        want.elevation_gained,
        want.elevation_lost,
    )
    assert got.encoded == polyline(want.lat, want.lon)


@pytest.mark.parametrize("opts", OPTIONS[:2], ids=["walk", "bicycle"])
def test_tree_leg_is_the_path_geometry_and_link(
    atlanta: TransportNetwork, opts: StreetOptions
) -> None:
    graph = atlanta.street
    assert graph is not None
    rng = np.random.default_rng(41)
    legs = linked = 0
    for k, v in enumerate(rng.integers(0, graph.n_vertices, size=12).tolist()):
        lat, lon = float(graph.vertex_lat[v]), float(graph.vertex_lon[v])
        if k % 2:  # a snapped point (a partial first or last edge), else the vertex itself
            lat, lon = lat + 1.5e-4, lon - 1e-4
        end = street_end(atlanta, Endpoint(lat, lon, "Place", ""), opts.mode, "from")
        if k % 2 == 0:
            end = StreetEnd(end.endpoint, v)
        for reverse in (False, True):
            access = find_access(atlanta, end, opts, max_distance_m=1500.0, reverse=reverse)
            if access.paths is None:
                continue
            for stop in access.stops.tolist():
                sv = int(atlanta.stop_vertex[stop])
                got = _tree_leg(atlanta, access.paths, sv, stop, not reverse)
                if got is None:  # the start vertex itself: the path of no edges
                    assert end.where == sv
                    continue
                want = _one_by_one(atlanta, end, stop, access.paths, reverse)
                _same_leg(got[0], want[0])
                assert got[1] == want[1]
                legs += 1
                path = access.paths.path(sv)
                assert path is not None
                linked += got[0].lat.size == path.lat.size + 1  # the stop's link added
    assert legs > 100
    assert linked > 10


def test_stops_ride_geometry_is_the_ride_geometry(atlanta: TransportNetwork) -> None:
    """A shapeless ride's length and polyline from its route's hops are the ones of its
    stops' points, bit for bit, for rides of every length and position on their route."""
    timetable = raptor_timetable(atlanta.transit, dt.date(2021, 9, 15), atlanta.time_zone)
    offsets = np.asarray(timetable.route_stop_offsets)
    route_stops = np.asarray(timetable.route_stops)
    rng = np.random.default_rng(3)
    rides = 0
    for route in range(offsets.size - 1):
        lo, hi = int(offsets[route]), int(offsets[route + 1])
        stops = route_stops[lo:hi]
        pairs = [(0, stops.size - 1)] + [
            tuple(sorted(rng.choice(stops.size, 2, replace=False).tolist())) for _ in range(8)
        ]
        for board, alight in pairs:
            sel = stops[board : alight + 1]
            got = _stops_ride_geometry(atlanta, timetable, lo, stops, board, alight)
            want = _ride_geometry(atlanta, None, sel)
            assert got == want
            assert type(got[0]) is type(want[0])
            rides += 1
    assert rides > 200


@pytest.mark.parametrize("opts", OPTIONS, ids=["walk", "bicycle", "car"])
def test_tree_leg_of_any_reached_vertex_is_its_path(
    atlanta: TransportNetwork, opts: StreetOptions
) -> None:
    """Every part of ``AccessPaths.leg`` against ``AccessPaths.path`` and the functions
    applied to it, for vertices all over search trees (driving: with turn costs)."""
    graph = atlanta.street
    assert graph is not None
    rng = np.random.default_rng(77)
    compared = 0
    for k, v in enumerate(rng.integers(0, graph.n_vertices, size=6).tolist()):
        origin: Snap | int = v
        if k % 2:
            y, x = float(graph.vertex_lat[v]) + 1e-4, float(graph.vertex_lon[v]) + 1e-4
            snapped = snap_point(atlanta, y, x, mode=opts.mode, max_distance_m=500.0)
            assert snapped is not None
            origin = snapped
        for reverse in (False, True):
            paths = access_stops(atlanta, origin, opts, max_time_s=900.0, reverse=reverse).paths
            assert paths is not None
            reached = np.flatnonzero(np.asarray(paths.result.edge_v) >= 0)
            for u in rng.choice(reached, size=min(40, reached.size), replace=False).tolist():
                path = paths.path(u)
                assert path is not None
                link = rng.uniform(-1.0, 1.0, 2) * 1e-3 + (33.75, -84.39)
                for point in (np.zeros(0), link):
                    table = paths.leg(u, point, not reverse)
                    assert table is not None
                    ints, floats, lat, lon, totals, code = table
                    want_lat, want_lon = path.lat, path.lon
                    if point.size:
                        at = want_lat.size if not reverse else 0
                        want_lat = np.insert(want_lat, at, point[0])
                        want_lon = np.insert(want_lon, at, point[1])
                    assert np.array_equal(lat, want_lat)
                    assert np.array_equal(lon, want_lon)
                    assert totals.tolist() == [
                        path.start_fraction, path.end_fraction, path.duration_s, path.cost,
                        path.distance_m, path.elevation_gained_m, path.elevation_lost_m,
                    ]  # fmt: skip
                    assert not path.too_sloped
                    steps = walk_steps_module.steps_of_table(graph, ints, floats)
                    assert repr(steps) == repr(walk_steps(atlanta, path))
                    assert code.tobytes().decode("ascii") == polyline(lat, lon).points
                    compared += 1
    assert compared > 300
