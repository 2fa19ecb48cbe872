"""Street router on real data against independent oracles (scipy Dijkstra, brute force)."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from otpa.network import TransportNetwork
from otpa.osm.model import CAR, FLAG_STAIRS, FLAG_WHEELCHAIR_NO, WALK
from otpa.routing import PlanRequest
from otpa.routing._street_access import no_stop_within
from otpa.routing._street_costs import edge_costs
from otpa.routing._street_geometry import edge_part_points, graph_geometry
from otpa.routing.preferences import (
    BikePreferences,
    Optimize,
    TriangleFactors,
    WalkPreferences,
    WheelchairPreferences,
)
from otpa.routing.street_router import (
    Snap,
    StreetOptions,
    StreetPath,
    access_stops,
    snap_point,
    stops_near,
    street_path,
)
from otpa.street import StreetGraph
from otpa.util.geo import EARTH_RADIUS_M
from tests.conftest import require_data
from tests.fixtures.networks import built_network

WALK_OPTS = StreetOptions(mode="WALK", speed_mps=1.33, reluctance=2.0)
BIKE_OPTS = StreetOptions(mode="BICYCLE", speed_mps=5.0, reluctance=2.0)
CAR_OPTS = StreetOptions(mode="CAR", speed_mps=40.0, reluctance=2.0)
M_PER_DEG = EARTH_RADIUS_M * math.pi / 180.0


@pytest.fixture(scope="module")
def atlanta() -> TransportNetwork:
    return built_network(require_data(), "tiny/atlanta")


@pytest.fixture(scope="module")
def porto() -> TransportNetwork:
    return built_network(require_data(), "small/porto-alegre")


def _street(net: TransportNetwork) -> StreetGraph:
    assert net.street is not None
    return net.street


# ------------------------------------------------------------------ oracles
def _turn_costs(g: StreetGraph, opts: StreetOptions, e: np.ndarray, f: np.ndarray) -> np.ndarray:
    """OTP 1.x turn cost of entering ``f`` from ``e`` (written out again, vectorised)."""
    geo = graph_geometry(g)
    costs = edge_costs(g, opts)
    v = g.edge_to[e]
    indeg = np.diff(g.in_indptr)
    outdeg = np.diff(g.out_indptr)
    free = (indeg[v] == 1) & (outdeg[v] == 1)
    in_deg = geo.in_deg.astype(np.int64)
    out_deg = geo.out_deg.astype(np.int64)
    if opts.mode == "CAR":
        angle = (in_deg[f] - out_deg[e]) % 360
        cost = np.where(
            ((angle >= 45) & (angle < 135)) | ((angle >= 225) & (angle < 315)), 8.0, 5.0
        )
        speed = g.edge_car_speed_mps.astype(np.float64)
        cost = np.where((speed[e] > 25) & (speed[f] > 25), 0.0, cost)
    else:
        d = np.abs(out_deg[f] - in_deg[e])
        d = np.where(d > 180, 360 - d, d)
        cost = d / 20.0 / costs.turn_speed[f]
    return np.where(free, 0.0, cost)


def _line_graph(g: StreetGraph, opts: StreetOptions) -> csr_matrix:
    """Edge-to-edge graph (plus a spare source node) with OTP's turn rules."""
    costs = edge_costs(g, opts)
    w = costs.weight
    n_e = g.n_edges
    outdeg = np.diff(g.out_indptr)
    e = np.flatnonzero(np.isfinite(w) & ~costs.blocked[g.edge_to])
    counts = outdeg[g.edge_to[e]]
    src = np.repeat(e, counts)
    start = np.repeat(g.out_indptr[g.edge_to[e]], counts)
    offset = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    dst = start + offset
    keep = np.isfinite(w[dst]) & (dst != g.edge_reverse[src])
    src, dst = src[keep], dst[keep]
    ban_from = np.repeat(np.arange(n_e), np.diff(g.ban_indptr))
    bans = (
        ban_from[(g.ban_modes & costs.ban_bit[g.ban_to]) != 0] * n_e
        + g.ban_to[(g.ban_modes & costs.ban_bit[g.ban_to]) != 0]
    )
    keep = ~np.isin(src * n_e + dst, bans)
    src, dst = src[keep], dst[keep]
    cost = w[dst] + _turn_costs(g, opts, src, dst)
    # scipy drops explicit zeros: nudge them
    cost = np.maximum(cost, 1e-12)
    return csr_matrix((cost, (src, dst)), shape=(n_e + 1, n_e + 1))


def _oracle_cost(g: StreetGraph, opts: StreetOptions, lg: csr_matrix, o: int, t: int) -> float:
    costs = edge_costs(g, opts)
    w = costs.weight
    first = np.arange(g.out_indptr[o], g.out_indptr[o + 1])
    first = first[np.isfinite(w[first])]
    rows = np.full(first.size, g.n_edges)
    src = csr_matrix((np.maximum(w[first], 1e-12), (rows, first)), shape=lg.shape)
    dist = dijkstra(lg + src, indices=g.n_edges)
    into = g.in_edges[g.in_indptr[t] : g.in_indptr[t + 1]]
    return float(dist[into].min()) if into.size else math.inf


def _min_matrix(rows: np.ndarray, cols: np.ndarray, w: np.ndarray, n: int) -> csr_matrix:
    """Sparse matrix keeping the cheapest of parallel arcs (scipy would sum them)."""
    order = np.lexsort((w, cols, rows))
    rows, cols, w = rows[order], cols[order], w[order]
    first = np.ones(rows.size, dtype=bool)
    first[1:] = (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])
    return csr_matrix((np.maximum(w[first], 1e-12), (rows[first], cols[first])), shape=(n, n))


def _check_contiguous(g: StreetGraph, path: StreetPath) -> None:
    e = path.edges
    assert np.all(g.edge_to[e[:-1]] == g.edge_from[e[1:]])


@pytest.mark.parametrize("opts", [WALK_OPTS, BIKE_OPTS, CAR_OPTS], ids=lambda o: o.mode)
def test_street_path_costs_match_line_graph_oracle(
    atlanta: TransportNetwork, opts: StreetOptions
) -> None:
    g = _street(atlanta)
    lg = _line_graph(g, opts)
    rng = np.random.default_rng(7)
    checked = 0
    for o, t in rng.integers(0, g.n_vertices, size=(60, 2)):
        expected = _oracle_cost(g, opts, lg, int(o), int(t))
        path = street_path(atlanta, int(o), int(t), opts)
        if o == t:
            continue
        if not math.isfinite(expected):
            assert path is None
            continue
        assert path is not None
        assert path.cost == pytest.approx(expected, rel=1e-9, abs=1e-6)
        _check_contiguous(g, path)
        assert g.edge_from[path.edges[0]] == o
        assert g.edge_to[path.edges[-1]] == t
        # OTP's time: every traversal rounded up, turn costs rounded up too
        costs = edge_costs(g, opts)
        turns = _turn_costs(g, opts, path.edges[:-1], path.edges[1:])
        time = np.ceil(costs.time_s[path.edges]).sum() + np.ceil(turns).sum()
        assert path.duration_s == pytest.approx(time)
        assert path.distance_m == pytest.approx(float(g.edge_length_m[path.edges].sum()))
        checked += 1
    assert checked >= 10


def test_walk_without_turn_costs_matches_vertex_dijkstra(atlanta: TransportNetwork) -> None:
    g = _street(atlanta)
    opts = dataclasses.replace(WALK_OPTS, turn_costs=False)
    ok = (g.edge_perm & WALK) != 0
    w = g.edge_length_m / 1.33 * 2.0
    barrier = (g.vertex_barrier & WALK) != 0
    rng = np.random.default_rng(3)
    for o in rng.integers(0, g.n_vertices, 8):
        # a barrier vertex can be reached and left, not passed through
        use = ok & (~barrier[g.edge_from] | (g.edge_from == o))
        mat = _min_matrix(g.edge_from[use], g.edge_to[use], w[use], g.n_vertices)
        dist = dijkstra(mat, indices=int(o))
        for t in rng.integers(0, g.n_vertices, 6):
            path = street_path(atlanta, int(o), int(t), opts)
            if not np.isfinite(dist[t]):
                assert path is None
            elif o != t:
                assert path is not None
                assert path.cost == pytest.approx(dist[t], rel=1e-9)


# ------------------------------------------------------------------- snapping
def _brute_nearest(g: StreetGraph, lat: float, lon: float, bits: int) -> float:
    """Distance to the nearest geometry piece of a segment usable by ``bits``."""
    usable = np.zeros(g.n_segments, dtype=bool)
    usable[g.edge_segment[(g.edge_perm & bits) != 0]] = True
    seg_of_point = np.repeat(np.arange(g.n_segments), np.diff(g.seg_geom_offsets))
    k = np.arange(g.geom_lat.size - 1)
    k = k[(seg_of_point[k] == seg_of_point[k + 1]) & usable[seg_of_point[k]]]
    c = math.cos(math.radians(lat)) * M_PER_DEG
    ax, ay = (g.geom_lon[k] - lon) * c, (g.geom_lat[k] - lat) * M_PER_DEG
    bx, by = (g.geom_lon[k + 1] - lon) * c, (g.geom_lat[k + 1] - lat) * M_PER_DEG
    dx, dy = bx - ax, by - ay
    den = dx * dx + dy * dy
    t = np.clip(np.where(den > 0, -(ax * dx + ay * dy) / np.where(den > 0, den, 1), 0), 0, 1)
    return float(np.hypot(ax + t * dx, ay + t * dy).min())


@pytest.mark.parametrize(("mode", "bits"), [("WALK", 1), ("CAR", 4), ("BICYCLE", 3)])
def test_snap_point_is_nearest_usable_edge(atlanta: TransportNetwork, mode: str, bits: int) -> None:
    g = _street(atlanta)
    rng = np.random.default_rng(11)
    for v in rng.integers(0, g.n_vertices, 15):
        lat = float(g.vertex_lat[v]) + rng.normal(0, 3e-4)
        lon = float(g.vertex_lon[v]) + rng.normal(0, 3e-4)
        snap = snap_point(atlanta, lat, lon, mode=mode, max_distance_m=500)
        expected = _brute_nearest(g, lat, lon, bits)
        if expected > 500:
            assert snap is None
            continue
        assert snap is not None
        assert snap.distance_m == pytest.approx(expected, abs=0.05)
        assert g.edge_perm[snap.edge] & bits
        assert 0.0 <= snap.fraction <= 1.0
        p_lat, p_lon = edge_part_points(g, snap.edge, 0.0, snap.fraction)
        assert p_lat[-1] == pytest.approx(snap.snap_lat, abs=1e-7)
        assert p_lon[-1] == pytest.approx(snap.snap_lon, abs=1e-7)
    far = snap_point(atlanta, float(g.vertex_lat.max()) + 0.1, 0.0 - 84.4, mode=mode)
    assert far is None


def test_snapped_paths_match_partial_edge_brute_force(atlanta: TransportNetwork) -> None:
    """Walking between snapped points = min over both directions of both partial edges."""
    g = _street(atlanta)
    opts = dataclasses.replace(WALK_OPTS, turn_costs=False)
    costs = edge_costs(g, opts)
    w = costs.weight
    ok = np.isfinite(w)
    blocked = (g.vertex_barrier & WALK) != 0
    use = ok & ~blocked[g.edge_from]  # nothing passes through a barrier vertex
    mat = _min_matrix(g.edge_from[use], g.edge_to[use], w[use], g.n_vertices)
    rng = np.random.default_rng(5)
    tested = 0
    for a, b in rng.integers(0, g.n_edges, size=(20, 2)):
        if not (ok[a] and ok[b]):
            continue
        fa, fb = rng.uniform(0.05, 0.95, 2)
        sa = _snap_on(g, int(a), float(fa))
        sb = _snap_on(g, int(b), float(fb))
        starts = _directions(g, int(a), float(fa))
        ends = _directions(g, int(b), float(fb))
        dist = dijkstra(mat, indices=[g.edge_to[e] for e, _ in starts])
        best = math.inf
        for i, (e, f) in enumerate(starts):
            for h, s in ends:
                if not blocked[g.edge_from[h]]:
                    best = min(best, (1 - f) * w[e] + dist[i, g.edge_from[h]] + s * w[h])
                if h == e and s >= f:
                    best = min(best, (s - f) * w[e])
        path = street_path(atlanta, sa, sb, opts)
        if not math.isfinite(best):
            assert path is None
            continue
        assert path is not None
        assert path.cost == pytest.approx(best, rel=1e-9)
        assert (path.lat[0], path.lon[0]) == (sa.lat, sa.lon)
        assert (path.lat[-1], path.lon[-1]) == (sb.lat, sb.lon)
        tested += 1
    assert tested >= 10


def _directions(g: StreetGraph, edge: int, fraction: float) -> list[tuple[int, float]]:
    out = [(edge, fraction)]
    if g.edge_reverse[edge] >= 0:
        out.append((int(g.edge_reverse[edge]), 1.0 - fraction))
    return out


def _snap_on(g: StreetGraph, edge: int, fraction: float) -> Snap:
    lat, lon = edge_part_points(g, edge, fraction, fraction)
    return Snap(
        float(lat[0]) + 1e-5, float(lon[0]), edge, fraction, float(lat[0]), float(lon[0]), 1.1
    )


def test_same_edge_paths(atlanta: TransportNetwork) -> None:
    g = _street(atlanta)
    costs = edge_costs(g, WALK_OPTS)
    e = int(np.flatnonzero(np.isfinite(costs.weight) & (g.edge_length_m > 50))[0])
    forward = street_path(atlanta, _snap_on(g, e, 0.2), _snap_on(g, e, 0.7), WALK_OPTS)
    assert forward is not None
    assert forward.edges.tolist() == [e]
    assert (forward.start_fraction, forward.end_fraction) == (0.2, 0.7)
    assert forward.distance_m == pytest.approx(0.5 * g.edge_length_m[e])
    assert forward.duration_s == math.ceil(0.5 * costs.time_s[e])
    back = street_path(atlanta, _snap_on(g, e, 0.7), _snap_on(g, e, 0.2), WALK_OPTS)
    assert back is not None
    assert back.edges.tolist() == [int(g.edge_reverse[e])]
    assert back.cost == pytest.approx(forward.cost)
    # a vertex and a point on one of its edges
    v = int(g.edge_from[e])
    part = street_path(atlanta, v, _snap_on(g, e, 0.4), WALK_OPTS)
    assert part is not None
    assert part.edges.tolist() == [e]
    assert part.distance_m == pytest.approx(0.4 * g.edge_length_m[e])
    same = street_path(atlanta, v, v, WALK_OPTS)
    assert same is not None
    assert same.edges.size == 0
    assert same.duration_s == 0


# --------------------------------------------------------------------- access
@pytest.mark.parametrize("reverse", [False, True])
def test_access_stops_match_street_paths(atlanta: TransportNetwork, reverse: bool) -> None:
    g = _street(atlanta)
    stops = np.flatnonzero(atlanta.stop_vertex >= 0)
    centre = int(atlanta.stop_vertex[stops[len(stops) // 2]])
    origin = snap_point(
        atlanta, float(g.vertex_lat[centre]) + 4e-4, float(g.vertex_lon[centre]), mode="WALK"
    )
    assert origin is not None
    max_t = 1500.0
    res = access_stops(atlanta, origin, WALK_OPTS, max_time_s=max_t, reverse=reverse)
    assert np.all(np.diff(res.stops) > 0)
    expected = {}
    for s in stops:
        v = int(atlanta.stop_vertex[s])
        path = (
            street_path(atlanta, v, origin, WALK_OPTS)
            if reverse
            else street_path(atlanta, origin, v, WALK_OPTS)
        )
        if path is None:
            continue
        link = float(atlanta.stop_link_distance_m[s])
        t = path.duration_s + math.ceil(link / 1.33)
        if t <= max_t:
            expected[int(s)] = (t, path.cost + link / 1.33 * 2.0, path.distance_m + link)
    assert len(expected) >= 3
    assert set(res.stops.tolist()) == set(expected)
    for s, t, c, d in zip(res.stops, res.time_s, res.cost, res.distance_m, strict=True):
        et, ec, ed = expected[int(s)]
        assert c == pytest.approx(ec, rel=1e-9)
        assert t == et
        assert d == pytest.approx(ed)
    limited = access_stops(
        atlanta, origin, WALK_OPTS, max_time_s=max_t, max_distance_m=800.0, reverse=reverse
    )
    assert set(limited.stops.tolist()) == {s for s, v in expected.items() if v[2] <= 800.0}


@pytest.mark.parametrize("reverse", [False, True])
def test_no_stop_within_only_where_the_search_finds_none(
    atlanta: TransportNetwork, reverse: bool
) -> None:
    """The crow-fly bound that lets a plan skip an access search never hides a stop."""
    g = _street(atlanta)
    rng = np.random.default_rng(7)
    stop_v = atlanta.stop_vertex[atlanta.stop_vertex >= 0]
    origins: list[Snap | int] = [int(v) for v in rng.choice(stop_v, 3)]
    origins += [int(v) for v in rng.integers(0, g.n_vertices, 6)]
    for v in rng.integers(0, g.n_vertices, 12):
        snap = snap_point(
            atlanta, float(g.vertex_lat[v]) + 3e-4, float(g.vertex_lon[v]), mode="WALK"
        )
        assert snap is not None
        origins.append(snap)
    # next to a stop over one edge, where the bound is nearly the walk: an over-estimate shows
    for v in stop_v[:40]:
        out = g.edge_to[g.edge_from == v]
        origins.extend(int(w) for w in out[:1] if w != v)
    skipped = searched = 0
    for origin in origins:
        nearest = access_stops(atlanta, origin, WALK_OPTS, max_time_s=1e9, reverse=reverse)
        closest = float(nearest.distance_m.min()) if nearest.stops.size else math.inf
        if nearest.stops.size:  # the nearest stop, exactly at the limit, is never hidden
            assert not no_stop_within(atlanta, origin, closest)
        for limit in (0.0, 50.0, 200.0, 600.0, 1500.0, 4000.0):
            found = access_stops(
                atlanta, origin, WALK_OPTS, max_time_s=1e9, max_distance_m=limit,
                reverse=reverse,
            )  # fmt: skip
            assert bool(found.stops.size) == (closest <= limit)
            if no_stop_within(atlanta, origin, limit):
                skipped += 1
                assert found.stops.size == 0
            elif found.stops.size:
                searched += 1
        assert not no_stop_within(atlanta, origin, None)
    assert skipped >= 10
    assert searched >= 10


def test_access_from_a_vertex_includes_its_own_stop(atlanta: TransportNetwork) -> None:
    stop = int(np.flatnonzero(atlanta.stop_vertex >= 0)[0])
    v = int(atlanta.stop_vertex[stop])
    res = access_stops(atlanta, v, CAR_OPTS, max_time_s=600)
    i = res.stops.tolist().index(stop)
    link = float(atlanta.stop_link_distance_m[stop])
    assert res.time_s[i] == math.ceil(link / 1.33)  # the link is walked for CAR


def test_stops_near_is_great_circle_walk() -> None:
    net = built_network(require_data(), "tiny/transit-only")
    assert net.street is None
    stops = net.transit.stops
    lat0, lon0 = float(stops.lat.iloc[0]), float(stops.lon.iloc[0])
    res = stops_near(net, lat0, lon0, max_distance_m=3000, speed_mps=1.25, reluctance=2.0)
    la = np.radians(stops.lat.to_numpy(float))
    lo = np.radians(stops.lon.to_numpy(float))
    h = (
        np.sin((la - math.radians(lat0)) / 2) ** 2
        + np.cos(la) * math.cos(math.radians(lat0)) * np.sin((lo - math.radians(lon0)) / 2) ** 2
    )
    d = 2 * EARTH_RADIUS_M * np.arcsin(np.sqrt(h))
    assert res.stops.tolist() == np.flatnonzero(d <= 3000).tolist()
    assert np.allclose(res.distance_m, d[res.stops])
    assert np.allclose(res.cost, d[res.stops] / 1.25 * 2.0)
    assert np.array_equal(res.time_s, np.ceil(d[res.stops] / 1.25).astype(int))


# ----------------------------------------------------------------- wheelchair
def test_wheelchair_avoids_steps_and_slopes_and_retries(porto: TransportNetwork) -> None:
    g = _street(porto)
    assert g.edge_max_slope is not None
    wheel = dataclasses.replace(WALK_OPTS, wheelchair=True)
    costs = edge_costs(g, WALK_OPTS)
    rng = np.random.default_rng(2)
    found = 0
    for o, t in rng.integers(0, g.n_vertices, size=(60, 2)):
        path = street_path(porto, int(o), int(t), wheel)
        if path is None or path.too_sloped:
            continue
        found += 1
        assert not np.any(g.edge_flags[path.edges] & (FLAG_STAIRS | FLAG_WHEELCHAIR_NO))
        assert np.all(g.edge_max_slope[path.edges] <= wheel.max_slope)
    assert found >= 3
    # a point on a steep street: no path within the limit, so the limit is dropped
    steep = np.flatnonzero(
        np.isfinite(costs.weight)
        & (g.edge_max_slope > 0.15)
        & ((g.edge_flags & (FLAG_STAIRS | FLAG_WHEELCHAIR_NO)) == 0)
        & (g.edge_length_m > 40)
    )
    assert steep.size
    e = int(steep[0])
    start = _snap_on(g, e, 0.5)
    target = int(g.edge_to[e])
    sloped = street_path(porto, start, target, wheel)
    assert sloped is not None
    assert sloped.too_sloped
    normal = street_path(porto, start, target, WALK_OPTS)
    assert normal is not None
    assert not normal.too_sloped


# ------------------------------------------------------------ bike optimizing
def _cost_under(g: StreetGraph, path: StreetPath, opts: StreetOptions) -> float:
    costs = edge_costs(g, opts)
    e = path.edges
    return float(costs.weight[e].sum() + _turn_costs(g, opts, e[:-1], e[1:]).sum())


def test_bike_optimize_variants(porto: TransportNetwork) -> None:
    g = _street(porto)
    variants = {
        name: dataclasses.replace(BIKE_OPTS, optimize=opt, triangle=tri)
        for name, opt, tri in [
            ("QUICK", Optimize.QUICK, None),
            ("SAFE", Optimize.SAFE, None),
            ("FLAT", Optimize.FLAT, None),
            ("GREENWAYS", Optimize.GREENWAYS, None),
            ("TRIANGLE", Optimize.TRIANGLE, TriangleFactors(safety=0.5, slope=0.3, time=0.2)),
        ]
    }
    rng = np.random.default_rng(4)
    differs: dict[str, int] = dict.fromkeys(variants, 0)
    pairs = 0
    for o, t in rng.integers(0, g.n_vertices, size=(12, 2)):
        paths = {k: street_path(porto, int(o), int(t), v) for k, v in variants.items()}
        if any(p is None or p.edges.size == 0 for p in paths.values()):
            continue
        pairs += 1
        for k, p in paths.items():
            assert p is not None
            differs[k] += p.edges.tolist() != paths["QUICK"].edges.tolist()
            # each variant's path is the cheapest under its own cost model
            for other in paths.values():
                assert other is not None
                assert p.cost <= _cost_under(g, other, variants[k]) * (1 + 1e-9) + 1e-9
    assert pairs >= 5
    assert differs["SAFE"]
    assert differs["FLAT"]
    assert differs["TRIANGLE"]


def test_options_from_request() -> None:
    import datetime as dt

    req = PlanRequest(
        None,
        None,
        dt.datetime(2026, 1, 1),
        walk=WalkPreferences(speed_mps=1.2, reluctance=3.0, stairs_reluctance=4.0),
        bike=BikePreferences(speed_mps=6.0, optimize=Optimize.TRANSFERS),
        wheelchair=WheelchairPreferences(enabled=True, max_slope=0.05),
    )
    walk = StreetOptions.from_request(req, "WALK")
    assert (walk.speed_mps, walk.reluctance, walk.stairs_reluctance) == (1.2, 3.0, 4.0)
    assert walk.wheelchair
    assert walk.max_slope == 0.05
    bike = StreetOptions.from_request(req, "BICYCLE")
    assert (bike.speed_mps, bike.reluctance, bike.optimize) == (6.0, 3.0, Optimize.QUICK)
    assert (bike.walk_speed_mps, bike.walk_reluctance) == (1.2, 3.0)
    car = StreetOptions.from_request(req, "CAR")
    assert (car.speed_mps, car.reluctance) == (40.0, 3.0)
    with pytest.raises(ValueError, match="MICROMOBILITY"):
        StreetOptions.from_request(req, "MICROMOBILITY")
    with pytest.raises(ValueError, match="speed_mps"):
        StreetOptions(mode="WALK", speed_mps=0.0, reluctance=1.0)


def test_car_paths_only_use_car_edges_and_bikes_walk_where_they_must(
    atlanta: TransportNetwork,
) -> None:
    g = _street(atlanta)
    rng = np.random.default_rng(9)
    walked = 0
    for o, t in rng.integers(0, g.n_vertices, size=(20, 2)):
        car = street_path(atlanta, int(o), int(t), CAR_OPTS)
        if car is not None:
            assert np.all(g.edge_perm[car.edges] & CAR)
        bike = street_path(atlanta, int(o), int(t), BIKE_OPTS)
        if bike is not None:
            no_bike = (g.edge_perm[bike.edges] & 2) == 0
            assert np.all(bike.walking[no_bike])
            walked += int(bike.walking.any())
    assert walked >= 1


def test_max_cost_and_bad_input(atlanta: TransportNetwork) -> None:
    g = _street(atlanta)
    path = street_path(atlanta, 0, int(g.edge_to[g.out_indptr[0]]), WALK_OPTS)
    assert path is not None
    assert street_path(atlanta, 0, 5000, WALK_OPTS, max_cost_s=1.0) is None
    with pytest.raises(ValueError, match="out of range"):
        street_path(atlanta, -1, 5, WALK_OPTS)
    network: Any = dataclasses.replace(atlanta, street=None)
    with pytest.raises(ValueError, match="no street graph"):
        street_path(network, 0, 1, WALK_OPTS)
    assert snap_point(network, 33.75, -84.39, mode="WALK") is None


def test_turn_costs_raise_car_durations(atlanta: TransportNetwork) -> None:
    """OTP 1.x charges 5-8 s per car intersection; without them the time is the drive only."""
    g = _street(atlanta)
    rng = np.random.default_rng(1)
    for o, t in rng.integers(0, g.n_vertices, size=(10, 2)):
        with_turns = street_path(atlanta, int(o), int(t), CAR_OPTS)
        plain = street_path(
            atlanta, int(o), int(t), dataclasses.replace(CAR_OPTS, turn_costs=False)
        )
        assert (with_turns is None) == (plain is None)
        if with_turns is not None and plain is not None and plain.edges.size > 3:
            assert with_turns.duration_s > plain.duration_s
            costs = edge_costs(g, CAR_OPTS)
            assert plain.duration_s == np.ceil(costs.time_s[plain.edges]).sum()


def test_unused_path_arrays_are_consistent(atlanta: TransportNetwork) -> None:
    g = _street(atlanta)
    a = snap_point(atlanta, float(g.vertex_lat[10]), float(g.vertex_lon[10]) + 3e-4, mode="WALK")
    b = snap_point(atlanta, float(g.vertex_lat[900]) + 3e-4, float(g.vertex_lon[900]), mode="WALK")
    assert a is not None
    assert b is not None
    path = street_path(atlanta, a, b, WALK_OPTS)
    assert path is not None
    assert path.edge_time_s.sum() == path.duration_s
    assert path.edge_cost.sum() == pytest.approx(path.cost)
    assert path.edge_distance_m.sum() == pytest.approx(path.distance_m)
    start, end = path.used_fractions()
    assert start[0] == path.start_fraction
    assert end[-1] == path.end_fraction


# ------------------------------------------------------------------ elevation
def test_elevation_profile_and_step_elevations(porto: TransportNetwork) -> None:
    from otpa.elevation import edge_elevation_profiles
    from otpa.osm import read_osm
    from otpa.osm.model import FLAG_SLOPE_OVERRIDE
    from otpa.routing.street_router import elevation_profile, walk_steps

    folder = require_data("small", "porto-alegre")
    osm = read_osm(folder / "poa_osm.pbf")
    profiles = edge_elevation_profiles(
        [folder / "poa_elevation.tif"],
        osm.seg_geom_offsets,
        osm.geom_lat,
        osm.geom_lon,
        osm.seg_length_m,
        slope_limit=((osm.seg_perm_fwd | osm.seg_perm_back) & CAR) != 0,
        slope_override=(osm.seg_flags & FLAG_SLOPE_OVERRIDE) != 0,
    )
    g = _street(porto)
    assert g.seg_source.max() < osm.n_segments
    rng = np.random.default_rng(8)
    checked = 0
    for o, t in rng.integers(0, g.n_vertices, size=(10, 2)):
        path = street_path(porto, int(o), int(t), WALK_OPTS)
        if path is None or path.edges.size < 3:
            continue
        prof = elevation_profile(porto, path, profiles)
        assert np.all(np.diff(prof.distance_m) > 0)
        # edges without a profile (bridges, nodata) leave gaps
        assert prof.distance_m[0] >= 0.0
        assert prof.distance_m[-1] <= path.distance_m * (1 + 1e-9)
        change = np.diff(prof.elevation_m)
        assert change[change > 0].sum() == pytest.approx(path.elevation_gained_m, abs=1.0, rel=0.05)
        assert -change[change < 0].sum() == pytest.approx(path.elevation_lost_m, abs=1.0, rel=0.05)
        steps = walk_steps(porto, path, profiles=profiles)
        assert any(s.elevation for s in steps)
        for s in steps:
            d = np.array([p[0] for p in s.elevation])
            assert np.all(np.diff(d) >= -1e-6)
            assert np.all((d >= 0.0) & (d <= s.distance + 0.01))
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("opts", [WALK_OPTS, BIKE_OPTS, CAR_OPTS], ids=["walk", "bike", "car"])
def test_a_bounded_path_skips_only_searches_that_find_nothing(
    atlanta: TransportNetwork, opts: StreetOptions, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cost bound of ``street_path(max_cost_s=...)`` (``_costs_more_than``) gives the
    path the search would give: at bounds just below, at and just above a path's cost, for
    snapped points and vertices, near and far apart; and it does skip searches."""
    from otpa.routing import street_router

    g = _street(atlanta)
    rng = np.random.default_rng(11)
    real = street_router._costs_more_than
    skipped: list[bool] = []

    def counted(*args: Any) -> bool:
        out = bool(real(*args))
        skipped.append(out)
        return out

    ends: list[tuple[Snap | int, Snap | int]] = []
    for _ in range(16):
        a, b = (int(v) for v in rng.integers(0, g.n_vertices, 2))
        near = int(g.edge_to[int(g.out_indptr[a])]) if g.out_indptr[a + 1] > g.out_indptr[a] else b
        sa = snap_point(
            atlanta, float(g.vertex_lat[a]) + 2e-4, float(g.vertex_lon[a]), mode=opts.mode
        )
        sb = snap_point(
            atlanta, float(g.vertex_lat[b]), float(g.vertex_lon[b]) - 2e-4, mode=opts.mode
        )
        ends += [(a, b), (a, near)]
        ends += [(x, y) for x, y in ((sa, sb), (sa, b), (a, sb)) if x is not None and y is not None]
    compared = 0
    for o, d in ends:
        full = street_path(atlanta, o, d, opts)
        if full is None:
            continue
        for f in (0.2, 0.9, 0.999999, 1.0, 1.000001, 2.0):
            monkeypatch.setattr(street_router, "_costs_more_than", counted)
            got = street_path(atlanta, o, d, opts, max_cost_s=full.cost * f)
            monkeypatch.setattr(street_router, "_costs_more_than", lambda *a: False)
            want = street_path(atlanta, o, d, opts, max_cost_s=full.cost * f)
            assert (got is None) == (want is None), (o, d, f)
            if got is not None and want is not None:
                assert got.cost == want.cost
                assert got.edges.tolist() == want.edges.tolist()
            compared += 1
    assert compared >= 60
    assert sum(skipped) >= 10
