"""Points whose nearest street position is a vertex are linked to that vertex (OTP 1.x).

FEATURE UNDER TEST: a coordinate projecting onto an intersection (or onto the end of a
dead end) projects onto *one* of the segments meeting there.  OTP 1.x's
``SimpleStreetSplitter`` links such a point to the existing vertex instead of splitting
the edge, so every edge of the vertex is usable.  Routing from the snapped point must
therefore cost exactly what routing from the vertex costs, whichever segment the snap
happened to pick.

Regression (issue 3): BICYCLE from (49.5236362, 8.6697909) to (49.4818785, 8.5998393)
on RNV found no path: the destination snapped onto a one-way edge whose start vertex
only cars can reach, although the point lies on a vertex with usable bicycle edges.
"""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import pytest

from otpa.network import TransportNetwork
from otpa.routing import Location, PlanRequest
from otpa.routing._street_costs import edge_costs
from otpa.routing.planner import plan
from otpa.routing.request import RequestModes
from otpa.routing.street_router import (
    StreetOptions,
    access_stops,
    snap_point,
    street_path,
)
from otpa.street import StreetGraph
from tests.conftest import require_data
from tests.fixtures.networks import built_network

OPTIONS = {
    "WALK": StreetOptions(mode="WALK", speed_mps=1.33, reluctance=2.0),
    "BICYCLE": StreetOptions(mode="BICYCLE", speed_mps=5.0, reluctance=2.0),
    "CAR": StreetOptions(mode="CAR", speed_mps=40.0, reluctance=2.0),
}
RNV_FROM = (49.5236362, 8.6697909)
RNV_TO = (49.4818785, 8.5998393)


def _street(net: TransportNetwork) -> StreetGraph:
    assert net.street is not None
    return net.street


def _nearest_vertex(g: StreetGraph, lat: float, lon: float) -> tuple[int, float]:
    """Nearest vertex by brute force and its distance (metres, equirectangular)."""
    c = math.cos(math.radians(lat))
    d = np.hypot(g.vertex_lat - lat, (g.vertex_lon - lon) * c) * 111_195.0
    v = int(np.argmin(d))
    return v, float(d[v])


def _lonely_vertices(g: StreetGraph) -> np.ndarray:
    """Vertices no other vertex shares a position with (so a snap is unambiguous)."""
    key = np.round(g.vertex_lat, 9) * 1e3 + np.round(g.vertex_lon, 9)
    _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    return np.flatnonzero(counts[inverse] == 1)


@pytest.mark.parametrize("mode", ["WALK", "BICYCLE", "CAR"])
def test_snap_at_a_vertex_routes_like_the_vertex(mode: str) -> None:
    net = built_network(require_data(), "tiny/atlanta")
    g = _street(net)
    opts = OPTIONS[mode]
    usable = np.isfinite(edge_costs(g, opts).weight)
    has_edge = np.zeros(g.n_vertices, dtype=bool)
    has_edge[g.edge_from[usable]] = True
    has_edge[g.edge_to[usable]] = True
    candidates = np.intersect1d(_lonely_vertices(g), np.flatnonzero(has_edge))
    rng = np.random.default_rng(2024)
    compared = found = 0
    for a, b in rng.choice(candidates, size=(40, 2)):
        if a == b:
            continue
        sa = snap_point(net, float(g.vertex_lat[a]), float(g.vertex_lon[a]), mode=mode)
        sb = snap_point(net, float(g.vertex_lat[b]), float(g.vertex_lon[b]), mode=mode)
        assert sa is not None
        assert sb is not None
        assert sa.distance_m < 1e-3
        assert sb.distance_m < 1e-3
        expected = street_path(net, int(a), int(b), opts)
        got = street_path(net, sa, sb, opts)
        compared += 1
        if expected is None:
            assert got is None
            continue
        assert got is not None
        found += 1
        assert got.cost == pytest.approx(expected.cost, rel=1e-12)
        assert got.duration_s == expected.duration_s
        assert got.edges.tolist() == expected.edges.tolist()
        assert (got.lat[0], got.lon[0]) == (sa.lat, sa.lon)
        assert (got.lat[-1], got.lon[-1]) == (sb.lat, sb.lon)
    assert compared >= 35
    assert found >= 20


@pytest.mark.parametrize("reverse", [False, True])
def test_access_from_a_snap_at_a_vertex_is_the_vertex_access(reverse: bool) -> None:
    net = built_network(require_data(), "tiny/atlanta")
    g = _street(net)
    opts = OPTIONS["WALK"]
    stop_v = np.asarray(net.stop_vertex)
    v = int(stop_v[stop_v >= 0][0])
    # a vertex of a street edge next to the stop's own vertex
    v = int(g.edge_to[g.out_indptr[v]])
    s = snap_point(net, float(g.vertex_lat[v]), float(g.vertex_lon[v]), mode="WALK")
    assert s is not None
    assert s.distance_m < 1e-3
    by_vertex = access_stops(net, v, opts, max_time_s=900.0, reverse=reverse)
    by_snap = access_stops(net, s, opts, max_time_s=900.0, reverse=reverse)
    assert by_snap.stops.tolist() == by_vertex.stops.tolist()
    assert by_snap.time_s.tolist() == by_vertex.time_s.tolist()
    np.testing.assert_allclose(by_snap.cost, by_vertex.cost, rtol=1e-12)


@pytest.mark.slow
def test_rnv_bicycle_between_snapped_vertices_regression() -> None:
    net = built_network(require_data(), "small/rnv")
    g = _street(net)
    opts = OPTIONS["BICYCLE"]
    a = snap_point(net, *RNV_FROM, mode="BICYCLE")
    b = snap_point(net, *RNV_TO, mode="BICYCLE")
    assert a is not None
    assert b is not None
    va, da = _nearest_vertex(g, *RNV_FROM)
    vb, db = _nearest_vertex(g, *RNV_TO)
    # both points lie on street vertices
    assert da < 0.01
    assert db < 0.01
    expected = street_path(net, va, vb, opts)
    assert expected is not None
    path = street_path(net, a, b, opts)
    assert path is not None
    assert path.cost == pytest.approx(expected.cost, rel=1e-12)
    assert path.duration_s == expected.duration_s
    assert path.edges.tolist() == expected.edges.tolist()
    # and through the planner (the benchmark's PathNotFound)
    req = PlanRequest(
        from_place=Location(lat=RNV_FROM[0], lon=RNV_FROM[1]),
        to_place=Location(lat=RNV_TO[0], lon=RNV_TO[1]),
        date_time=dt.datetime(2016, 11, 8, 8, 0),
        modes=RequestModes(frozenset({"BICYCLE"}), frozenset()),
    )
    (it,) = plan(net, req).itineraries
    assert [leg.mode for leg in it.legs] == ["BICYCLE"]
    assert it.duration == expected.duration_s
