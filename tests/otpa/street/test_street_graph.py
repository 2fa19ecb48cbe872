"""Building the street graph: CSR layout, permissions, islands, serialisation."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from _builders import Seg, elevation_for, grid_osm, make_osm, random_osm, restriction, to_latlon

from otpa.errors import GraphFormatError, NetworkBuildError
from otpa.osm.model import CAR, WALK, OsmStreetData
from otpa.street import StreetGraph, build_street_graph, one_to_many, prune_graph_islands


@pytest.mark.parametrize("seed", [0, 1])
def test_csr_consistency(seed: int) -> None:
    osm = random_osm(seed)
    g = build_street_graph(osm, prune_islands=False)
    n_expected = int(np.count_nonzero(osm.seg_perm_fwd) + np.count_nonzero(osm.seg_perm_back))
    assert g.n_edges == n_expected
    assert g.n_vertices == osm.n_vertices
    # out CSR: edges sorted by from vertex
    assert np.all(np.diff(g.edge_from) >= 0)
    assert g.out_indptr[-1] == g.n_edges
    for v in range(0, g.n_vertices, 17):
        assert np.all(g.edge_from[g.out_edges(v)] == v)
    assert np.array_equal(np.repeat(np.arange(g.n_vertices), np.diff(g.out_indptr)), g.edge_from)
    # in CSR: every edge once, grouped by to vertex
    assert np.array_equal(np.sort(g.in_edges), np.arange(g.n_edges))
    assert np.array_equal(
        np.repeat(np.arange(g.n_vertices), np.diff(g.in_indptr)), g.edge_to[g.in_edges]
    )
    # reverse edges pair up
    has_rev = g.edge_reverse >= 0
    rev = g.edge_reverse[has_rev]
    assert np.array_equal(g.edge_reverse[rev], np.flatnonzero(has_rev))
    assert np.array_equal(g.edge_from[rev], g.edge_to[has_rev])
    assert np.array_equal(g.edge_segment[rev], g.edge_segment[has_rev])
    # segment back-reference and direction
    seg = g.edge_segment
    fwd = g.edge_backward == 0
    assert np.array_equal(g.edge_from[fwd], g.seg_from[seg[fwd]])
    assert np.array_equal(g.edge_from[~fwd], g.seg_to[seg[~fwd]])
    assert np.array_equal(g.edge_length_m, g.seg_length_m[seg])
    # permissions and per-direction bike safety come from the right direction
    back = ~fwd
    assert np.array_equal(g.edge_perm[fwd], osm.seg_perm_fwd[seg[fwd]])
    assert np.array_equal(g.edge_perm[back], osm.seg_perm_back[seg[back]])
    assert np.all(g.edge_perm != 0)


def test_geometry_reversed_for_backward_edges() -> None:
    osm = make_osm([(0, 0), (100, 0)], [Seg(0, 1, via=[(50, 20)])])
    g = build_street_graph(osm, prune_islands=False)
    (e_fwd,) = g.out_edges(0)
    (e_back,) = g.out_edges(1)
    lat_f, lon_f = g.edge_geometry(int(e_fwd))
    lat_b, lon_b = g.edge_geometry(int(e_back))
    assert lat_f.size == 3
    np.testing.assert_array_equal(lat_f, lat_b[::-1])
    np.testing.assert_array_equal(lon_f, lon_b[::-1])
    assert lat_f[0] == g.vertex_lat[0]
    assert lat_b[0] == g.vertex_lat[1]


def test_oneway_permissions() -> None:
    # 0 -> 1 one-way for cars, walkable both ways; 1 - 2 two-way
    osm = make_osm([(0, 0), (100, 0), (200, 0)], [Seg(0, 1, fwd=7, back=int(WALK)), Seg(1, 2)])
    g = build_street_graph(osm, prune_islands=False)
    assert g.n_edges == 4
    car_from_2 = one_to_many(g, [2], mode=CAR)
    assert np.isfinite(car_from_2.cost_s[1])
    assert car_from_2.cost_s[0] == np.inf
    car_from_0 = one_to_many(g, [0], mode=CAR)
    np.testing.assert_allclose(car_from_0.cost_s[2], osm.seg_length_m.sum() / 10.0, rtol=1e-6)
    walk_from_2 = one_to_many(g, [2], mode=WALK)
    np.testing.assert_allclose(walk_from_2.distance_m[0], osm.seg_length_m.sum())


def test_untraversable_segment_dropped() -> None:
    osm = make_osm([(0, 0), (100, 0), (200, 0)], [Seg(0, 1), Seg(1, 2, fwd=0, back=0)])
    g = build_street_graph(osm, prune_islands=False)
    assert g.n_segments == 1
    assert g.n_edges == 2


def test_empty_raises() -> None:
    osm = make_osm([(0, 0), (100, 0)], [Seg(0, 1, fwd=0, back=0)])
    with pytest.raises(NetworkBuildError):
        build_street_graph(osm)


def test_bad_vertex_index_raises() -> None:
    osm = make_osm([(0, 0), (100, 0)], [Seg(0, 1)])
    bad = replace(osm, seg_to=np.array([5], dtype=np.int32))
    with pytest.raises(NetworkBuildError):
        build_street_graph(bad)


def _grid_with_islands() -> tuple[OsmStreetData, int, int]:
    # a 7 x 7 grid (49 vertices), a 3-vertex path and a 6-vertex path far east
    pts = [(i * 100.0, j * 100.0) for j in range(7) for i in range(7)]
    segs = []
    for j in range(7):
        for i in range(7):
            v = j * 7 + i
            if i + 1 < 7:
                segs.append(Seg(v, v + 1))
            if j + 1 < 7:
                segs.append(Seg(v, v + 7))
    small = len(pts)
    pts += [(2000.0 + 100 * i, 0.0) for i in range(3)]
    segs += [Seg(small, small + 1), Seg(small + 1, small + 2)]
    medium = len(pts)
    pts += [(3000.0 + 100 * i, 0.0) for i in range(6)]
    segs += [Seg(medium + i, medium + i + 1) for i in range(5)]
    return make_osm(pts, segs), small, medium


def test_island_pruning() -> None:
    osm, small, medium = _grid_with_islands()
    g = build_street_graph(osm)
    assert g.n_vertices == 49
    r = g.report
    assert (r.islands_walk, r.islands_bicycle, r.islands_car) == (2, 2, 2)
    assert r.vertices_removed == 9
    assert r.segments_removed == 7
    assert r.segments_restricted == 0
    # a kept vertex protects a component of at least 5 vertices, not a smaller one
    g2 = build_street_graph(osm, keep_vertices=[small, medium + 2])
    assert g2.n_vertices == 49 + 6
    assert g2.report.islands_walk == 1
    assert np.array_equal(g2.vertex_osm_id[49:], osm.vertex_osm_id[medium : medium + 6])
    # the largest component is kept even when small
    g3 = build_street_graph(osm, island_min_vertices=100)
    assert g3.n_vertices == 49
    g4 = build_street_graph(osm, prune_islands=False)
    assert g4.n_vertices == osm.n_vertices


def test_walk_island_reached_only_by_car_loses_walk() -> None:
    # a 7 x 7 grid; vertex 6 -> X1 is a car-only road; X1 - X2 - X3 allow everyone
    pts = [(i * 100.0, j * 100.0) for j in range(7) for i in range(7)]
    segs = [Seg(v, v + 1) for v in range(49) if v % 7 != 6]
    segs += [Seg(v, v + 7) for v in range(42)]
    x1 = len(pts)
    pts += [(800.0, 0.0), (900.0, 0.0), (1000.0, 0.0)]
    car = int(CAR)
    segs += [Seg(6, x1, car, car), Seg(x1, x1 + 1), Seg(x1 + 1, x1 + 2)]
    g = build_street_graph(make_osm(pts, segs))
    assert g.n_vertices == 52
    r = g.report
    assert (r.islands_walk, r.islands_bicycle, r.islands_car) == (1, 1, 0)
    assert r.segments_restricted == 2
    assert r.segments_removed == 0
    on_island = g.edge_from >= x1
    assert np.all(g.edge_perm[on_island] == car)
    assert np.isfinite(one_to_many(g, [0], mode=CAR).cost_s[x1 + 2])
    # walkers are linked to the grid, not to the island
    lat, lon = to_latlon(np.array([1000.0]), np.array([0.5]))
    _, v, d = g.link_points(lat, lon, modes=int(WALK))
    assert v.tolist() == [6]
    np.testing.assert_allclose(d, [400.0], rtol=1e-3)


def test_pruning_keeps_restrictions_consistent() -> None:
    osm, small, _ = _grid_with_islands()
    # restriction in the main grid at vertex 8: from way (7-8) to way (8-9)
    way = {
        (int(a), int(b)): int(w)
        for a, b, w in zip(osm.seg_from, osm.seg_to, osm.seg_way_id, strict=True)
    }
    r = restriction(way[(7, 8)], 8, way[(8, 9)], "no_straight_on")
    r_island = restriction(way[(small, small + 1)], small + 1, way[(small + 1, small + 2)], "no_x")
    osm = replace(osm, restrictions=[r, r_island])
    g = build_street_graph(osm)
    assert g.report.restrictions_resolved == 1
    assert g.report.restrictions_unresolved == 1
    f, t, m = g.turn_bans()
    assert f.size == 1
    assert (g.edge_from[f[0]], g.edge_to[f[0]], g.edge_to[t[0]]) == (7, 8, 9)
    assert m[0] == CAR


def test_via_way_restriction_without_path_is_unresolved() -> None:
    osm = grid_osm(3, 3)
    r = replace(restriction(1, -1, 2, "no_u_turn"), via_vertex=-1, via_ways=(3,))
    g = build_street_graph(replace(osm, restrictions=[r]), prune_islands=False)
    assert (g.report.restrictions_unresolved, g.report.restrictions_via_way) == (1, 0)
    assert g.report.restrictions_via_way_skipped == 0
    assert g.n_turn_bans == 0


def test_elevation_copied_to_edges() -> None:
    osm = grid_osm(3, 2)
    elev = elevation_for(osm.n_segments)
    g = build_street_graph(osm, elevation=elev, prune_islands=False)
    assert g.has_elevation
    seg = g.edge_segment
    fwd = g.edge_backward == 0
    back = ~fwd
    expected = {
        "max_slope": (elev.max_slope, elev.max_slope),
        "rise_m": (elev.rise_m, elev.fall_m),
        "fall_m": (elev.fall_m, elev.rise_m),
        "slope_speed_effective_length_m": (
            elev.slope_speed_effective_length_fwd_m,
            elev.slope_speed_effective_length_back_m,
        ),
        "slope_work_cost": (elev.slope_work_cost_fwd, elev.slope_work_cost_back),
        "slope_safety_cost_m": (elev.slope_safety_cost_fwd_m, elev.slope_safety_cost_back_m),
        "effective_walk_length_m": (
            elev.effective_walk_length_fwd_m,
            elev.effective_walk_length_back_m,
        ),
    }
    for name, (f, b) in expected.items():
        got = getattr(g, f"edge_{name}")
        assert got is not None
        np.testing.assert_array_equal(got[fwd], f[seg[fwd]], err_msg=name)
        np.testing.assert_array_equal(got[back], b[seg[back]], err_msg=name)


def test_bad_elevation_shape_raises() -> None:
    osm = grid_osm(3, 2)
    elev = replace(elevation_for(osm.n_segments), rise_m=np.zeros(2))
    with pytest.raises(NetworkBuildError, match="rise_m"):
        build_street_graph(osm, elevation=elev)


@pytest.mark.parametrize("with_elevation", [False, True])
def test_arrays_round_trip(with_elevation: bool) -> None:
    osm = random_osm(3)
    osm = replace(osm, restrictions=[])
    elev = elevation_for(osm.n_segments) if with_elevation else None
    g = build_street_graph(osm, elevation=elev)
    arrays = g.to_arrays()
    meta = g.meta()
    assert all(a.dtype != object for a in arrays.values())
    g2 = StreetGraph.from_arrays(arrays, meta)
    for name, arr in arrays.items():
        assert arr.size == 0 or np.shares_memory(getattr(g2, name), arr), name
        np.testing.assert_array_equal(getattr(g2, name), getattr(g, name))
    assert g2.names == g.names
    assert g2.report == g.report
    assert g2.has_elevation == with_elevation
    r1 = one_to_many(g, [0])
    r2 = one_to_many(g2, [0])
    np.testing.assert_array_equal(r1.cost_s, r2.cost_s)


def test_round_trip_via_npy_memmap(tmp_path: Path) -> None:
    g = build_street_graph(grid_osm(4, 4))
    d = tmp_path
    for name, arr in g.to_arrays().items():
        np.save(d / f"{name}.npy", arr)
    (d / "meta.json").write_text(json.dumps(g.meta()))
    loaded = {p.stem: np.load(p, mmap_mode="r") for p in d.glob("*.npy")}
    g2 = StreetGraph.from_arrays(loaded, json.loads((d / "meta.json").read_text()))
    assert np.shares_memory(g2.edge_from, loaded["edge_from"])
    np.testing.assert_array_equal(one_to_many(g2, [0]).cost_s, one_to_many(g, [0]).cost_s)


def test_from_arrays_rejects_bad_input() -> None:
    g = build_street_graph(grid_osm(3, 3))
    arrays = g.to_arrays()
    meta = g.meta()
    missing = dict(arrays)
    del missing["edge_to"]
    with pytest.raises(GraphFormatError):
        StreetGraph.from_arrays(missing, meta)
    wrong = dict(arrays)
    wrong["edge_to"] = arrays["edge_to"].astype(np.int64)
    with pytest.raises(GraphFormatError):
        StreetGraph.from_arrays(wrong, meta)
    short = dict(arrays)
    short["edge_length_m"] = arrays["edge_length_m"][:-1]
    with pytest.raises(GraphFormatError):
        StreetGraph.from_arrays(short, meta)
    with pytest.raises(GraphFormatError):
        StreetGraph.from_arrays(arrays, {**meta, "version": 99})


def test_graph_is_read_only() -> None:
    g = build_street_graph(grid_osm(3, 3))
    with pytest.raises(ValueError, match="read-only"):
        g.edge_length_m[0] = 5.0
    with pytest.raises(AttributeError):
        g.names = ("x",)  # type: ignore[misc]


def test_members_round_trip() -> None:
    g = build_street_graph(grid_osm(3, 3))
    arrays, docs = g.to_members()
    assert all(k.startswith("street.") for k in arrays)
    other = {"transit.x": np.zeros(3), **arrays}
    g2 = StreetGraph.from_members(other, docs)
    np.testing.assert_array_equal(g2.edge_to, g.edge_to)
    with pytest.raises(GraphFormatError):
        StreetGraph.from_members(arrays, {})


def test_prune_after_linking_keeps_stop_islands() -> None:
    osm, _, _ = _grid_with_islands()
    # with turn bans in the main grid
    way = {
        (int(a), int(b)): int(w)
        for a, b, w in zip(osm.seg_from, osm.seg_to, osm.seg_way_id, strict=True)
    }
    osm = replace(osm, restrictions=[restriction(way[(7, 8)], 8, way[(8, 9)], "no_straight_on")])
    g = build_street_graph(osm, prune_islands=False)
    # stops: one in the grid, one on the 6-vertex island, one on the 3-vertex island
    lat, lon = to_latlon(np.array([250.0, 3250.0, 2150.0]), np.array([3.0, 3.0, 3.0]))
    g1, stop_v, _ = g.link_points(lat, lon)
    g2, old_to_new = prune_graph_islands(g1, keep_vertices=stop_v)
    new_v = old_to_new[stop_v]
    assert np.all(new_v[:2] >= 0)
    assert new_v[2] == -1
    assert g2.n_vertices == g1.n_vertices - 4  # the 3-vertex island plus its stop vertex
    assert g2.n_original_vertices == g1.n_original_vertices - 3
    np.testing.assert_array_equal(g2.vertex_lat[new_v[:2]], g1.vertex_lat[stop_v[:2]])
    assert g2.n_turn_bans == 1
    f, t, _ = g2.turn_bans()
    assert (g2.edge_from[f[0]], g2.edge_to[f[0]], g2.edge_to[t[0]]) == tuple(old_to_new[[7, 8, 9]])
    assert g2.report.islands_walk == 1
    same, ident = prune_graph_islands(g2, keep_vertices=new_v[:2])
    assert same is g2
    assert np.array_equal(ident, np.arange(g2.n_vertices))
