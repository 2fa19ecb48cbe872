"""What itinerary assembly reuses instead of recomputing gives what recomputing gives.

Snaps per coordinate, walking-transfer geometry per stop pair, an access search's leg
geometry per stop, the walk-step builder's shortcut over edges that only lengthen a step,
a trip's cached leg attributes and a ride's geometry per stops ridden: each is compared
with the value computed afresh (tiny Atlanta: MARTA rail and buses with OSM streets).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

import numpy as np
import pytest

from otpa.network import TransportNetwork
from otpa.routing import Location, PlanRequest
from otpa.routing import _walk_steps as walk_steps_module
from otpa.routing._access import find_access, leg_geometry, street_end, transfer_geometry
from otpa.routing._legs import (
    _RIDE_GEOMETRY,
    StreetLegGeometry,
    _ride_attributes,
    _ride_geometry,
    _trip_attributes,
)
from otpa.routing._places import Endpoint
from otpa.routing._snap import snap, snap_many
from otpa.routing._tables import row as table_row
from otpa.routing.planner import plan
from otpa.routing.street_router import StreetOptions, snap_point, street_path, walk_steps
from tests.conftest import require_data
from tests.fixtures.networks import built_network

WALK_OPTS = StreetOptions(mode="WALK", speed_mps=1.33, reluctance=2.0)


@pytest.fixture(scope="module")
def atlanta() -> TransportNetwork:
    return built_network(require_data(), "tiny/atlanta")


def _same_geometry(a: StreetLegGeometry, b: StreetLegGeometry) -> None:
    assert np.array_equal(np.asarray(a.lat), np.asarray(b.lat))
    assert np.array_equal(np.asarray(a.lon), np.asarray(b.lon))
    assert a.distance_m == b.distance_m
    assert a.steps == b.steps
    assert (a.elevation_gained, a.elevation_lost) == (b.elevation_gained, b.elevation_lost)


def _stop_xy(net: TransportNetwork, stop: int) -> tuple[float, float]:
    row = table_row(net.transit, "stops", stop)
    return float(row["lat"]), float(row["lon"])


def test_snap_is_cached_per_coordinate_and_mode(atlanta: TransportNetwork) -> None:
    graph = atlanta.street
    assert graph is not None
    lat, lon = float(graph.vertex_lat[100]) + 1e-4, float(graph.vertex_lon[100]) + 1e-4
    first = snap_point(atlanta, lat, lon, mode="WALK")
    assert first is not None
    assert snap_point(atlanta, lat, lon, mode="WALK") is first  # the cached snap
    fresh = snap(graph, lat, lon, "WALK", 500.0)
    assert fresh is not None
    assert (first.edge, first.fraction, first.snap_lat, first.snap_lon, first.distance_m) == fresh
    car = snap_point(atlanta, lat, lon, mode="CAR")
    assert car is not None
    assert car == snap_point(atlanta, lat, lon, mode="CAR")
    assert snap(graph, lat, lon, "CAR", 500.0) == (
        car.edge, car.fraction, car.snap_lat, car.snap_lon, car.distance_m,
    )  # fmt: skip
    # nothing in reach is cached too, and stays nothing
    assert snap_point(atlanta, 0.0, 0.0, mode="WALK") is None
    assert snap_point(atlanta, 0.0, 0.0, mode="WALK") is None


def test_snap_of_one_point_is_snap_many_of_it(atlanta: TransportNetwork) -> None:
    """The scalar single-point snap gives exactly what the vectorised one gives."""
    graph = atlanta.street
    assert graph is not None
    rng = np.random.default_rng(3)
    lat0, lat1 = float(np.min(graph.vertex_lat)), float(np.max(graph.vertex_lat))
    lon0, lon1 = float(np.min(graph.vertex_lon)), float(np.max(graph.vertex_lon))
    lat = rng.uniform(lat0 - 0.01, lat1 + 0.01, 400)
    lon = rng.uniform(lon0 - 0.01, lon1 + 0.01, 400)
    # and points on vertices and at geometry points (snaps at an end of a piece)
    lat = np.r_[lat, graph.vertex_lat[:50], graph.geom_lat[::997][:50]]
    lon = np.r_[lon, graph.vertex_lon[:50], graph.geom_lon[::997][:50]]
    found = 0
    for mode in ("WALK", "BICYCLE", "CAR"):
        for max_d in (30.0, 500.0):
            many = snap_many(graph, lat, lon, mode, max_d)
            for i in range(lat.size):
                one = snap(graph, float(lat[i]), float(lon[i]), mode, max_d)
                if many.edge[i] < 0:
                    assert one is None
                    continue
                found += 1
                assert one == (
                    int(many.edge[i]), float(many.fraction[i]), float(many.snap_lat[i]),
                    float(many.snap_lon[i]), float(many.distance_m[i]),
                )  # fmt: skip
    assert found > 1000


def test_transfer_geometry_is_the_street_path_between_the_stops(atlanta: TransportNetwork) -> None:
    offsets = np.asarray(atlanta.transfer_offsets)
    to = np.asarray(atlanta.transfer_to)
    sv = np.asarray(atlanta.stop_vertex)
    pairs = [
        (a, int(to[k]))
        for a in range(offsets.size - 1)
        for k in range(int(offsets[a]), int(offsets[a + 1]))
        if sv[a] >= 0 and sv[int(to[k])] >= 0 and sv[a] != sv[int(to[k])]
    ]
    assert pairs, "tiny/atlanta has walking transfers between linked stops"
    for a, b in pairs[:5]:
        coords = (*_stop_xy(atlanta, a), *_stop_xy(atlanta, b))
        geometry, sloped = transfer_geometry(atlanta, a, b, WALK_OPTS, coords)
        assert transfer_geometry(atlanta, a, b, WALK_OPTS, coords)[0] is geometry  # cached
        fresh, fresh_sloped = leg_geometry(atlanta, a, b, WALK_OPTS, coords)
        _same_geometry(geometry, fresh)
        assert sloped == fresh_sloped
        path = street_path(atlanta, int(sv[a]), int(sv[b]), WALK_OPTS)
        assert path is not None
        assert geometry.distance_m == path.distance_m
        assert geometry.steps == walk_steps(atlanta, path)


def test_access_leg_geometry_is_built_once_per_stop(atlanta: TransportNetwork) -> None:
    graph = atlanta.street
    assert graph is not None
    lat, lon = float(graph.vertex_lat[500]) + 2e-4, float(graph.vertex_lon[500])
    end = street_end(atlanta, Endpoint(lat, lon, "Origin", ""), "WALK", "from")
    access = find_access(atlanta, end, WALK_OPTS, max_distance_m=2000.0, reverse=False)
    assert access.stops.size > 0
    again = find_access(atlanta, end, WALK_OPTS, max_distance_m=2000.0, reverse=False)
    for stop in access.stops[:5].tolist():
        coords = (lat, lon, *_stop_xy(atlanta, stop))
        built = leg_geometry(atlanta, end, stop, WALK_OPTS, coords, access.paths)
        assert leg_geometry(atlanta, end, stop, WALK_OPTS, coords, access.paths) is built
        fresh = leg_geometry(atlanta, end, stop, WALK_OPTS, coords, again.paths)
        _same_geometry(built[0], fresh[0])
        assert built[1] == fresh[1]


def test_walk_steps_shortcut_gives_the_edge_by_edge_steps(
    atlanta: TransportNetwork, monkeypatch: pytest.MonkeyPatch
) -> None:
    graph = atlanta.street
    assert graph is not None
    rng = np.random.default_rng(5)
    paths = []
    for opts in (WALK_OPTS, StreetOptions(mode="CAR", speed_mps=40.0, reluctance=1.0)):
        for a, b in rng.integers(0, graph.n_vertices, size=(25, 2)).tolist():
            path = street_path(atlanta, a, b, opts)
            if path is not None and path.edges.size > 3:
                paths.append(path)
    assert len(paths) > 10
    fast = [walk_steps(atlanta, p) for p in paths]
    columns = walk_steps_module._edges
    plain = sum(sum(columns(graph, p, None).plain) for p in paths)
    assert plain > 0  # the shortcut is taken

    kernel_columns = walk_steps_module._edge_columns

    def all_edges_full(*args: Any) -> Any:  # no edge marked plain: every edge in full
        cols = columns(*args)
        return dataclasses.replace(cols, plain=[False] * len(cols.plain))

    def all_kernel_edges_full(*args: Any) -> Any:
        *cols, plain = kernel_columns(*args)
        return (*cols, np.zeros_like(plain))

    monkeypatch.setattr(walk_steps_module, "_edges", all_edges_full)
    monkeypatch.setattr(walk_steps_module, "_edge_columns", all_kernel_edges_full)
    assert [walk_steps(atlanta, p) for p in paths] == fast  # the compiled builder
    python = [walk_steps_module._python_steps(graph, p, None, None) for p in paths]
    assert python == fast


def test_trip_leg_attributes_are_read_once(atlanta: TransportNetwork) -> None:
    model = atlanta.transit
    for trip in (0, 7, len(model.trips) - 1):
        cached = _trip_attributes(model, trip)
        assert _trip_attributes(model, trip) is cached
        assert cached == _ride_attributes(model, table_row(model, "trips", trip))


def test_repeated_plan_is_identical(atlanta: TransportNetwork) -> None:
    """A plan asked twice (every cache warm the second time) answers the same."""
    request = PlanRequest(
        from_place=Location(lat=33.758491, lon=-84.404276),  # near Vine City
        to_place=Location(lat=33.748114, lon=-84.375885),  # near King Memorial
        date_time=dt.datetime(2021, 9, 15, 8, 0),
    )
    first = plan(atlanta, request)
    second = plan(atlanta, request)
    assert any(leg.transit_leg for it in first.itineraries for leg in it.legs)
    assert first.itineraries == second.itineraries


def test_ride_geometry_is_cached_per_shape_and_stops(atlanta: TransportNetwork) -> None:
    """Each cached ride geometry is the one computed afresh, and the legs carry it."""
    _RIDE_GEOMETRY.clear()
    request = PlanRequest(
        from_place=Location(lat=33.758491, lon=-84.404276),
        to_place=Location(lat=33.748114, lon=-84.375885),
        date_time=dt.datetime(2021, 9, 15, 8, 0),
    )
    legs = [leg for it in plan(atlanta, request).itineraries for leg in it.legs if leg.transit_leg]
    assert legs
    entries = _RIDE_GEOMETRY._entries(atlanta.transit)
    assert entries
    for (shape_id, stops), value in entries.items():
        fresh = _ride_geometry(atlanta, shape_id, np.asarray(stops, dtype=np.int32))
        assert value == fresh
        assert value[1].length >= 2
    cached = set(entries.values())
    assert all((leg.distance, leg.leg_geometry) in cached for leg in legs)
