"""Linking points to the street graph by splitting edges."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from _builders import (
    NW,
    WAY_JW,
    A,
    E,
    J,
    N,
    Seg,
    W,
    elevation_for,
    grid_osm,
    junction_osm,
    make_osm,
    random_osm,
    to_latlon,
)

from otpa.osm.model import CAR, WALK
from otpa.street import StreetGraph, build_street_graph, one_to_many
from otpa.street.linking import (
    _nearest_piece_tree,
    _sample_grid,
    link_index,
    nearest_piece,
    nearest_pieces,
)
from otpa.util.geo import haversine_m


def _line(length: float = 100.0, **kw: object) -> StreetGraph:
    osm = make_osm([(0, 0), (length, 0)], [Seg(0, 1, **kw)])  # type: ignore[arg-type]
    return build_street_graph(osm, prune_islands=False)


def _check_csr(g: StreetGraph) -> None:
    assert np.all(np.diff(g.edge_from) >= 0)
    assert np.array_equal(np.repeat(np.arange(g.n_vertices), np.diff(g.out_indptr)), g.edge_from)
    assert np.array_equal(np.sort(g.in_edges), np.arange(g.n_edges))
    assert np.array_equal(g.edge_length_m, g.seg_length_m[g.edge_segment])
    # geometry ends are the segment vertices
    off = g.seg_geom_offsets
    np.testing.assert_array_equal(g.geom_lat[off[:-1]], g.vertex_lat[g.seg_from])
    np.testing.assert_array_equal(g.geom_lat[off[1:] - 1], g.vertex_lat[g.seg_to])
    np.testing.assert_array_equal(g.geom_lon[off[1:] - 1], g.vertex_lon[g.seg_to])


def test_split_at_projection() -> None:
    g = _line()
    lat, lon = to_latlon(30.0, 10.0)
    g2, v, d = g.link_points(lat, lon)
    assert v.tolist() == [2]
    assert g2.n_vertices == 3
    assert g2.n_original_vertices == 2
    assert g2.vertex_osm_id[2] == -1
    np.testing.assert_allclose(d, [10.0], rtol=1e-3)
    plat, plon = to_latlon(30.0, 0.0)
    np.testing.assert_allclose(
        haversine_m(g2.vertex_lat[2], g2.vertex_lon[2], plat, plon), 0, atol=1e-3
    )
    assert g2.n_segments == 2
    assert g2.n_edges == 4
    np.testing.assert_allclose(sorted(g2.seg_length_m), [30.0, 70.0], rtol=1e-4)
    np.testing.assert_allclose(g2.seg_length_m.sum(), g.seg_length_m.sum(), rtol=1e-12)
    _check_csr(g2)
    res = one_to_many(g2, [2], speed_mps=1.0)
    np.testing.assert_allclose(res.cost_s[:2], [30.0, 70.0], rtol=1e-4)
    # the original graph is unchanged
    assert g.n_vertices == 2


def test_two_points_on_one_edge_and_snapping() -> None:
    g = _line()
    lat, lon = to_latlon(
        np.array([60.0, 30.0, 0.5, 99.4, 30.4]), np.array([-5.0, 3.0, 2.0, 1.0, 4.0])
    )
    g2, v, _ = g.link_points(lat, lon)
    # sorted along the segment: 30 -> vertex 2, 60 -> vertex 3; 30.4 shares 30's vertex
    assert v.tolist() == [3, 2, 0, 1, 2]
    np.testing.assert_allclose(sorted(g2.seg_length_m), [30.0, 30.0, 40.0], rtol=1e-4)
    np.testing.assert_allclose(g2.seg_length_m.sum(), 100.0, rtol=1e-9)
    _check_csr(g2)
    res = one_to_many(g2, [0], speed_mps=1.0)
    np.testing.assert_allclose(res.cost_s, [0.0, 100.0, 30.0, 60.0], rtol=1e-4)


def test_far_points_not_linked() -> None:
    g = _line()
    lat, lon = to_latlon(np.array([50.0, 50.0]), np.array([2000.0, 999.0]))
    _, v, d = g.link_points(lat, lon, max_distance_m=1000.0)
    assert v.tolist() == [-1, 2]
    assert d[0] == np.inf
    np.testing.assert_allclose(d[1], 999.0, rtol=1e-3)
    g3, v3, _ = g.link_points([np.nan], [np.nan])
    assert v3.tolist() == [-1]
    assert g3 is g


def test_bent_geometry_split() -> None:
    # 0 -> (100, 0) -> (100, 100) -> 1 at (200, 100): an L with 300 m of street
    osm = make_osm([(0, 0), (200, 100)], [Seg(0, 1, via=[(100, 0), (100, 100)])])
    g = build_street_graph(osm, prune_islands=False)
    lat, lon = to_latlon(np.array([110.0, 150.0]), np.array([50.0, 95.0]))
    g2, v, d = g.link_points(lat, lon)
    np.testing.assert_allclose(d, [10.0, 5.0], rtol=1e-3)
    _check_csr(g2)
    res = one_to_many(g2, [0], speed_mps=1.0)
    np.testing.assert_allclose(res.cost_s[v], [150.0, 250.0], rtol=1e-3)
    # piece geometries: 0 -> corner -> p1 ; p1 -> corner -> p2 ; p2 -> 1
    counts = np.diff(g2.seg_geom_offsets)
    assert sorted(counts.tolist()) == [2, 3, 3]
    np.testing.assert_allclose(g2.seg_length_m.sum(), g.seg_length_m.sum(), rtol=1e-12)


def test_split_at_shape_point() -> None:
    osm = make_osm([(0, 0), (200, 0)], [Seg(0, 1, via=[(100, 0)])])
    g = build_street_graph(osm, prune_islands=False)
    lat, lon = to_latlon(100.0, 20.0)
    g2, v, _ = g.link_points(lat, lon)
    assert v.tolist() == [2]
    assert np.diff(g2.seg_geom_offsets).tolist() == [2, 2]
    _check_csr(g2)


def test_mode_filter() -> None:
    # a car-only road close to the point and a footway farther away
    osm = make_osm(
        [(0, 0), (100, 0), (0, 50), (100, 50)],
        [Seg(0, 1, fwd=int(CAR), back=int(CAR)), Seg(2, 3, fwd=int(WALK), back=int(WALK))],
    )
    g = build_street_graph(osm, prune_islands=False)
    lat, lon = to_latlon(50.0, 10.0)
    g_walk, v_walk, d_walk = g.link_points(lat, lon, modes=int(WALK))
    on_footway_lat, _ = to_latlon(50.0, 50.0)
    np.testing.assert_allclose(g_walk.vertex_lat[v_walk[0]], on_footway_lat, rtol=1e-12)
    np.testing.assert_allclose(d_walk, [40.0], rtol=1e-3)
    _, _, d_car = g.link_points(lat, lon, modes=int(CAR))
    np.testing.assert_allclose(d_car, [10.0], rtol=1e-3)


def test_oneway_split_keeps_direction_and_attributes() -> None:
    g = _line(fwd=7, back=int(WALK), car_speed=5.0, name=1)
    lat, lon = to_latlon(40.0, 1.0)
    g2, _, _ = g.link_points(lat, lon)
    car = one_to_many(g2, [0], mode=CAR)
    np.testing.assert_allclose(car.cost_s[[2, 1]], [8.0, 20.0], rtol=1e-3)
    assert one_to_many(g2, [1], mode=CAR).cost_s[2] == np.inf
    assert set(g2.edge_name.tolist()) == {1}
    assert set(g2.edge_car_speed_mps.tolist()) == {5.0}


def test_restriction_repointed_after_split() -> None:
    # the junction of test_street_search, with every arm linked in its middle
    for flip in (False, True):
        g = build_street_graph(junction_osm("no_left_turn", WAY_JW, flip=flip), prune_islands=False)
        x = np.array([3.0, -50.0, 50.0, 3.0, -50.0])
        y = np.array([-50.0, 3.0, 3.0, 50.0, 103.0])
        lat, lon = to_latlon(x, y)
        g2, v, _ = g.link_points(lat, lon)
        assert g2.n_turn_bans == g.n_turn_bans == 1
        f, t, _ = g2.turn_bans()
        assert int(g2.edge_to[f[0]]) == J
        assert int(g2.edge_from[t[0]]) == J
        cost = one_to_many(g2, [A], mode=CAR).cost_s
        np.testing.assert_allclose(
            cost[[J, W, E, N, NW]], [10.0, 40.0, 20.0, 20.0, 30.0], rtol=1e-6
        )
        # from the point on A-J (5 s before J) to W still needs the detour
        from_p = one_to_many(g2, [int(v[0])], mode=CAR).cost_s
        np.testing.assert_allclose(from_p[W], 35.0, rtol=1e-6)
        np.testing.assert_allclose(from_p[int(v[1])], 40.0, rtol=1e-6)  # via N, NW, W, back


def test_many_points_on_grid() -> None:
    osm = grid_osm(20, 20, 50.0)
    g = build_street_graph(osm)
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 950, 500)
    y = rng.uniform(0, 950, 500)
    lat, lon = to_latlon(x, y)
    g2, v, d = g.link_points(lat, lon)
    assert np.all(v >= 0)
    # distance to the nearest grid line, computed directly
    dx = np.abs(x - np.round(x / 50.0) * 50.0)
    dy = np.abs(y - np.round(y / 50.0) * 50.0)
    expected = np.minimum(dx, dy)
    snapped = d > expected + 0.01  # reused vertices are up to snap_m away along the street
    np.testing.assert_allclose(d[~snapped], expected[~snapped], rtol=2e-3, atol=2e-3)
    assert np.all(d[snapped] <= np.hypot(expected[snapped], 1.0) + 0.01)
    _check_csr(g2)
    np.testing.assert_allclose(g2.seg_length_m.sum(), g.seg_length_m.sum(), rtol=1e-9)
    # every linked vertex is reachable from vertex 0
    assert np.all(np.isfinite(one_to_many(g2, [0]).cost_s[v]))


@pytest.mark.parametrize("n", [1, 3])
def test_relinking_a_linked_graph(n: int) -> None:
    g = _line()
    lat, lon = to_latlon(np.linspace(20, 80, n), np.full(n, 5.0))
    g2, v, _ = g.link_points(lat, lon)
    g3, v3, _ = g2.link_points(lat, lon)
    assert v3.tolist() == v.tolist()  # the points now sit on vertices
    assert g3.n_vertices == g2.n_vertices


def test_split_scales_elevation_and_tracks_source() -> None:
    osm = make_osm([(0, 0), (100, 0)], [Seg(0, 1, length=100.0)])
    elev = elevation_for(1)  # rise 1, fall 0, speed length 100 / 110 ...
    elev = replace(elev, max_slope=np.array([0.05]), fall_m=np.array([3.0]))
    g = build_street_graph(osm, elevation=elev, prune_islands=False)
    lat, lon = to_latlon(np.array([25.0, 75.0]), np.array([2.0, 2.0]))
    g2, v, _ = g.link_points(lat, lon)
    assert v.tolist() == [2, 3]
    assert g2.edge_rise_m is not None
    assert g2.edge_fall_m is not None
    assert g2.edge_slope_speed_effective_length_m is not None
    assert g2.edge_effective_walk_length_m is not None
    assert g2.edge_max_slope is not None
    fwd = g2.edge_backward == 0
    first = fwd & (g2.edge_from == 0)
    np.testing.assert_allclose(g2.edge_length_m[first], [25.0], rtol=1e-3)
    np.testing.assert_allclose(g2.edge_rise_m[first], [0.25], rtol=1e-3)
    np.testing.assert_allclose(g2.edge_slope_speed_effective_length_m[first], [25.0], rtol=1e-3)
    np.testing.assert_allclose(g2.edge_effective_walk_length_m[first], [100.0], rtol=1e-3)
    np.testing.assert_allclose(g2.edge_max_slope, 0.05)
    np.testing.assert_allclose(g2.edge_rise_m[fwd].sum(), 1.0)
    np.testing.assert_allclose(g2.edge_rise_m[~fwd].sum(), 3.0)  # backward rise = forward fall
    np.testing.assert_allclose(g2.edge_effective_walk_length_m[~fwd].sum(), 440.0)
    # pieces map back to the OSM segment (and its elevation profile)
    assert np.all(g2.seg_source == 0)
    order = np.argsort(g2.seg_source_start)
    np.testing.assert_allclose(g2.seg_source_start[order], [0.0, 0.25, 0.75], atol=1e-3)
    np.testing.assert_allclose(g2.seg_source_end[order], [0.25, 0.75, 1.0], atol=1e-3)
    # splitting a piece again keeps fractions of the original segment
    lat, lon = to_latlon(np.array([50.0]), np.array([2.0]))
    g3, _, _ = g2.link_points(lat, lon)
    order = np.argsort(g3.seg_source_start)
    np.testing.assert_allclose(g3.seg_source_start[order], [0.0, 0.25, 0.5, 0.75], atol=1e-3)
    np.testing.assert_allclose(g3.seg_source_end[order], [0.25, 0.5, 0.75, 1.0], atol=1e-3)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("modes", [1, 4])
def test_nearest_piece_is_nearest_pieces_of_one_point(seed: int, modes: int) -> None:
    """The compiled projection of one point gives exactly the vectorised numpy answer.

    Grid crossings and points on the lines tie between pieces (the smallest piece index
    wins in both); far points are out of reach in both.
    """
    rng = np.random.default_rng(seed)
    graphs = [build_street_graph(random_osm(seed)), build_street_graph(grid_osm(8, 8, 50.0))]
    for g in graphs:
        idx = link_index(g, modes)
        xs = np.r_[rng.uniform(-300, 2300, 300), np.arange(0, 400, 25.0)]
        ys = np.r_[rng.uniform(-300, 2300, 300), np.arange(0, 400, 25.0)[::-1]]
        lat, lon = to_latlon(xs, ys)
        for max_d in (1000.0, 30.0):
            many = nearest_pieces(g, idx, lat, lon, max_d)
            at = dict(zip(many.point.tolist(), range(many.point.size), strict=True))
            for i in range(lat.size):
                one = nearest_piece(g, idx, float(lat[i]), float(lon[i]), max_d)
                j = at.get(i)
                want = (
                    None
                    if j is None
                    else (int(many.sub[j]), float(many.t[j]), float(many.dist_m[j]))
                )
                assert one == want, (i, max_d)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_nearest_piece_grid_is_the_trees(seed: int) -> None:
    """The cells' candidates give what the k-d tree's two queries give, point by point.

    Points near the streets, on their geometry points (ties), and far outside the
    samples' cells on every side (the cell ranges are clipped), for several limits.
    """
    rng = np.random.default_rng(seed)
    graphs = [
        build_street_graph(random_osm(seed)),
        build_street_graph(grid_osm(8, 8, 50.0)),
        build_street_graph(grid_osm(1, 6, 40.0)),  # one street: a single row of cells
    ]
    for g in graphs:
        for modes in (1, 4):
            idx = link_index(g, modes)
            if idx.sub.size == 0:
                continue
            grid = _sample_grid(idx)
            assert grid.offsets[-1] == grid.x.size == idx.sample_sub.size
            xs = np.r_[rng.uniform(-3000, 5000, 200), rng.uniform(-50, 450, 200)]
            ys = np.r_[rng.uniform(-3000, 5000, 200), rng.uniform(-50, 450, 200)]
            lat, lon = to_latlon(xs, ys)
            lat = np.r_[lat, np.asarray(g.geom_lat)]
            lon = np.r_[lon, np.asarray(g.geom_lon)]
            for max_d in (2000.0, 300.0, 25.0, 0.0):
                for a, b in zip(lat.tolist(), lon.tolist(), strict=True):
                    want = _nearest_piece_tree(g, idx, a, b, max_d)
                    assert nearest_piece(g, idx, a, b, max_d) == want, (a, b, max_d)
