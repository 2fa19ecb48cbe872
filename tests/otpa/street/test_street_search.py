"""Street searches against an independent oracle and hand-computed answers."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest
from _builders import (
    NE,
    NW,
    WAY_JN,
    WAY_JW,
    A,
    E,
    J,
    N,
    Seg,
    W,
    grid_osm,
    junction_osm,
    make_osm,
    random_osm,
    restriction,
    transposed,
)
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from otpa.errors import UnknownIdError
from otpa.osm.model import CAR, WALK, OsmStreetData
from otpa.street import (
    StreetGraph,
    build_street_graph,
    edge_costs,
    one_to_many,
    shortest_path,
)


def _oracle_matrix(osm: OsmStreetData, mode: int, speed: float | None) -> csr_matrix:
    """Scipy matrix of the cheapest direct edge between each vertex pair for ``mode``."""
    n = osm.n_vertices
    dense = np.full((n, n), np.inf)
    for i in range(osm.n_segments):
        a, b = int(osm.seg_from[i]), int(osm.seg_to[i])
        v = speed if speed is not None else float(osm.seg_car_speed_mps[i])
        c = float(osm.seg_length_m[i]) / v
        if osm.seg_perm_fwd[i] & mode:
            dense[a, b] = min(dense[a, b], c)
        if osm.seg_perm_back[i] & mode:
            dense[b, a] = min(dense[b, a], c)
    np.fill_diagonal(dense, np.inf)
    rows, cols = np.nonzero(np.isfinite(dense))
    return csr_matrix((dense[rows, cols], (rows, cols)), shape=(n, n))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize(("mode", "speed"), [(WALK, 1.33), (CAR, None)])
@pytest.mark.parametrize("edge_based", [False, True])
def test_matches_scipy_dijkstra(
    seed: int, mode: int, speed: float | None, edge_based: bool
) -> None:
    osm = random_osm(seed)
    g = build_street_graph(osm, prune_islands=False)
    matrix = _oracle_matrix(osm, mode, speed)
    origins = np.array([0, 7, 42])
    expected = dijkstra(matrix, directed=True, indices=origins)
    for i, o in enumerate(origins):
        res = one_to_many(g, [o], mode=mode, speed_mps=speed, edge_based=edge_based)
        np.testing.assert_allclose(res.cost_s, expected[i], rtol=1e-9, atol=1e-9)
        reached = np.isfinite(res.cost_s)
        # the predecessor edge leads into the vertex and accounts for its cost
        pe = res.pred_edge[reached]
        has = pe >= 0
        assert np.all(g.edge_to[pe[has]] == np.flatnonzero(reached)[has])
        if mode == WALK:
            np.testing.assert_allclose(res.distance_m[reached], res.cost_s[reached] * 1.33)
    # multi-source with initial costs equals the minimum over sources
    costs = np.array([5.0, 0.0, 30.0])
    res = one_to_many(g, origins, costs, mode=mode, speed_mps=speed, edge_based=edge_based)
    np.testing.assert_allclose(res.cost_s, np.min(expected + costs[:, None], axis=0), rtol=1e-9)


@pytest.mark.parametrize("edge_based", [False, True])
def test_max_cost_cutoff(edge_based: bool) -> None:
    g = build_street_graph(random_osm(5), prune_islands=False)
    full = one_to_many(g, [3], edge_based=edge_based).cost_s
    cut = one_to_many(g, [3], max_cost_s=600.0, edge_based=edge_based).cost_s
    inside = full <= 600.0
    np.testing.assert_array_equal(cut[inside], full[inside])
    assert np.all(np.isinf(cut[~inside]))


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("edge_based", [False, True])
def test_reverse_equals_forward_on_transposed(seed: int, edge_based: bool) -> None:
    osm = random_osm(seed)
    g = build_street_graph(osm, prune_islands=False)
    gt = build_street_graph(transposed(osm), prune_islands=False)
    for mode in (WALK, CAR):
        rev = one_to_many(g, [11, 12], [0.0, 3.0], mode=mode, reverse=True, edge_based=edge_based)
        fwd = one_to_many(gt, [11, 12], [0.0, 3.0], mode=mode, edge_based=edge_based)
        np.testing.assert_allclose(rev.cost_s, fwd.cost_s, rtol=1e-12)
        reached = np.isfinite(rev.cost_s)
        np.testing.assert_allclose(rev.distance_m[reached], fwd.distance_m[reached], rtol=1e-12)
        # reverse predecessors are the first edge of the path, leaving the vertex
        pe = rev.pred_edge
        has = pe >= 0
        assert np.all(g.edge_from[pe[has]] == np.flatnonzero(has))


def test_barrier_blocks_car_not_walk() -> None:
    # 0 - 1 - 2 with a bollard (blocks CAR) at 1
    osm = make_osm([(0, 0), (100, 0), (200, 0)], [Seg(0, 1), Seg(1, 2)], barriers={1: int(CAR)})
    g = build_street_graph(osm, prune_islands=False)
    for edge_based in (False, True):
        car = one_to_many(g, [0], mode=CAR, edge_based=edge_based)
        assert np.isfinite(car.cost_s[1])  # the barrier vertex itself can be reached
        assert car.cost_s[2] == np.inf
        walk = one_to_many(g, [0], mode=WALK, edge_based=edge_based)
        assert np.isfinite(walk.cost_s[2])
        car_rev = one_to_many(g, [2], mode=CAR, reverse=True, edge_based=edge_based)
        assert car_rev.cost_s[0] == np.inf
        assert np.isfinite(car_rev.cost_s[1])
        from_barrier = one_to_many(g, [1], mode=CAR, edge_based=edge_based)
        assert np.isfinite(from_barrier.cost_s).all()  # leaving a barrier origin is fine
    assert shortest_path(g, 0, 2, mode=CAR) is None


def _car_costs(g: StreetGraph, origin: int = A) -> np.ndarray:
    return one_to_many(g, [origin], mode=CAR).cost_s


@pytest.mark.parametrize("flip", [False, True])
def test_no_left_turn_forces_detour(flip: bool) -> None:
    free = build_street_graph(junction_osm(None, WAY_JW, flip=flip), prune_islands=False)
    np.testing.assert_allclose(_car_costs(free)[W], 20.0, rtol=1e-6)
    g = build_street_graph(junction_osm("no_left_turn", WAY_JW, flip=flip), prune_islands=False)
    assert g.report.restrictions_resolved == 1
    assert g.has_turn_bans(int(CAR))
    assert not g.has_turn_bans(int(WALK))
    cost = _car_costs(g)
    np.testing.assert_allclose(cost[[J, W, E, N]], [10.0, 40.0, 20.0, 20.0], rtol=1e-6)
    ignored = one_to_many(g, [A], mode=CAR, turn_restrictions=False).cost_s
    np.testing.assert_allclose(ignored[W], 20.0, rtol=1e-6)
    walk = one_to_many(g, [A], mode=WALK, speed_mps=1.0).cost_s  # the ban is CAR-only
    np.testing.assert_allclose(walk[W], 200.0, rtol=1e-6)
    path = shortest_path(g, A, W, mode=CAR)
    assert path is not None
    assert [int(g.edge_to[e]) for e in path] == [J, N, NW, W]
    # reverse search: cost from A to W with the ban
    rev = one_to_many(g, [W], mode=CAR, reverse=True).cost_s
    np.testing.assert_allclose(rev[A], 40.0, rtol=1e-6)


@pytest.mark.parametrize("flip", [False, True])
def test_only_straight_on(flip: bool) -> None:
    g = build_street_graph(junction_osm("only_straight_on", WAY_JN, flip=flip), prune_islands=False)
    cost = _car_costs(g)
    np.testing.assert_allclose(cost[[J, N, W, E]], [10.0, 20.0, 40.0, 40.0], rtol=1e-6)
    rev_e = one_to_many(g, [E], mode=CAR, reverse=True).cost_s
    np.testing.assert_allclose(rev_e[A], 40.0, rtol=1e-6)
    path = shortest_path(g, A, E, mode=CAR)
    assert path is not None
    assert [int(g.edge_to[e]) for e in path] == [J, N, NE, E]
    # starting at J (not coming from A) is unrestricted
    np.testing.assert_allclose(_car_costs(g, J)[E], 10.0, rtol=1e-6)


def test_no_u_turn_on_same_way() -> None:
    # dead-end-free line 0 - 1 - 2 on one way (id 9), plus a loop 2 - 3 - 0
    xy = [(0, 0), (100, 0), (200, 0), (100, -100)]
    segs = [Seg(0, 1, way=9), Seg(1, 2, way=9), Seg(2, 3, way=10), Seg(3, 0, way=11)]
    osm = make_osm(xy, segs, restrictions=[restriction(9, 1, 9, "no_u_turn")])
    g = build_street_graph(osm, prune_islands=False)
    f, t, _ = g.turn_bans()
    assert f.size == 2
    assert np.all(g.edge_reverse[f] == t)  # only the U-turns are banned
    assert np.isfinite(_car_costs(g, 0)[2])


def test_shortest_path_matches_tree() -> None:
    g = build_street_graph(grid_osm(6, 5), prune_islands=False)
    res = one_to_many(g, [0])
    path = shortest_path(g, 0, 29)
    assert path is not None
    assert int(g.edge_from[path[0]]) == 0
    assert int(g.edge_to[path[-1]]) == 29
    assert all(g.edge_to[a] == g.edge_from[b] for a, b in itertools.pairwise(path))
    cost = edge_costs(g, WALK)
    np.testing.assert_allclose(cost[path].sum(), res.cost_s[29])
    assert shortest_path(g, 3, 3) == []


def test_custom_edge_costs_and_errors() -> None:
    g = build_street_graph(grid_osm(3, 3), prune_islands=False)
    res = one_to_many(g, [0], edge_cost_s=np.ones(g.n_edges))
    assert res.cost_s[8] == 4.0
    with pytest.raises(UnknownIdError):
        one_to_many(g, [99])
    with pytest.raises(ValueError, match="non-negative"):
        one_to_many(g, [0], edge_cost_s=-np.ones(g.n_edges))
    with pytest.raises(ValueError, match="mode"):
        one_to_many(g, [0], mode="PLANE")


def _line_graph_oracle(
    g: StreetGraph, cost: np.ndarray, mode: int, *, with_bans: bool = True
) -> csr_matrix:
    """Edge-expanded graph: start(u) -> e -> f -> ... -> end(v), bans and barriers applied.

    Nodes: edges ``0..E-1``, ``start(u) = E + u``, ``end(v) = E + V + v``.
    """
    n_e, n_v = g.n_edges, g.n_vertices
    ok = np.isfinite(cost) & ((g.edge_perm & mode) != 0)
    banned = set()
    for f, t, m in zip(*g.turn_bans(), strict=True):
        if m & mode and with_bans:
            banned.add((int(f), int(t)))
    rows, cols, vals = [], [], []
    for e in np.flatnonzero(ok):
        rows.append(n_e + int(g.edge_from[e]))
        cols.append(int(e))
        vals.append(cost[e])
        v = int(g.edge_to[e])
        rows.append(int(e))
        cols.append(n_e + n_v + v)
        vals.append(0.0)
        if g.vertex_barrier[v] & mode:
            continue
        for f in g.out_edges(v):
            if ok[f] and (int(e), int(f)) not in banned:
                rows.append(int(e))
                cols.append(int(f))
                vals.append(cost[f])
    n = n_e + 2 * n_v
    # tiny offset so zero-weight arcs are kept as explicit entries
    return csr_matrix((np.array(vals) + 1e-300, (rows, cols)), shape=(n, n))


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("mode", [WALK, CAR])
@pytest.mark.parametrize("with_bans", [True, False])
def test_turn_bans_and_barriers_match_line_graph_oracle(
    seed: int, mode: int, with_bans: bool
) -> None:
    osm = random_osm(seed, n_vertices=120, n_segments=400)
    rng = np.random.default_rng(seed + 100)
    rs = []
    for k in rng.choice(osm.n_segments, 80, replace=False):
        v = int(osm.seg_to[k])
        others = np.flatnonzero((osm.seg_from == v) | (osm.seg_to == v))
        others = others[others != k]
        if others.size:
            to = int(rng.choice(others))
            value = str(rng.choice(["no_left_turn", "only_right_turn"]))
            rs.append(restriction(int(osm.seg_way_id[k]), v, int(osm.seg_way_id[to]), value, 5))
    barriers = np.zeros(osm.n_vertices, np.uint8)
    barriers[rng.choice(osm.n_vertices, 10, replace=False)] = rng.choice([1, 4, 5], 10)
    osm = replace(osm, restrictions=rs, vertex_barrier=barriers)
    g = build_street_graph(osm, prune_islands=False)
    assert g.n_turn_bans > 50
    cost = edge_costs(g, mode, speed_mps=1.4)
    h = _line_graph_oracle(g, cost, mode, with_bans=with_bans)
    kw = {"mode": mode, "speed_mps": 1.4, "turn_restrictions": with_bans}
    n_e, n_v = g.n_edges, g.n_vertices
    origins = [0, 17, 55]
    fwd = dijkstra(h, directed=True, indices=[n_e + o for o in origins])
    rev = dijkstra(h.T.tocsr(), directed=True, indices=[n_e + n_v + o for o in origins])
    for i, o in enumerate(origins):
        exp_fwd = fwd[i, n_e + n_v :].copy()
        exp_fwd[o] = 0.0
        got = one_to_many(g, [o], **kw)  # type: ignore[arg-type]
        np.testing.assert_allclose(got.cost_s, exp_fwd, rtol=1e-9, atol=1e-9)
        exp_rev = rev[i, n_e : n_e + n_v].copy()
        exp_rev[o] = 0.0
        got_rev = one_to_many(g, [o], reverse=True, **kw)  # type: ignore[arg-type]
        np.testing.assert_allclose(got_rev.cost_s, exp_rev, rtol=1e-9, atol=1e-9)
        # shortest paths obey the bans and cost what the search says
        banned = set(zip(*(a.tolist() for a in g.turn_bans()[:2]), strict=True))
        for dest in np.flatnonzero(np.isfinite(exp_fwd))[::7]:
            path = shortest_path(g, o, int(dest), **kw)  # type: ignore[arg-type]
            assert path is not None
            np.testing.assert_allclose(cost[path].sum(), exp_fwd[dest], rtol=1e-9, atol=1e-9)
            if with_bans:
                assert not any(p in banned for p in itertools.pairwise(path))


@pytest.mark.parametrize("edge_based", [False, True])
def test_barrier_seed_can_be_left_at_its_own_cost(edge_based: bool) -> None:
    # 0 - 1 - 2 with a car barrier at 1; seeds 0 (cost 0) and 1 (cost 100)
    osm = make_osm(
        [(0, 0), (100, 0), (200, 0)],
        [Seg(0, 1, length=100.0), Seg(1, 2, length=100.0)],
        barriers={1: int(CAR)},
    )
    g = build_street_graph(osm, prune_islands=False)
    res = one_to_many(g, [0, 1], [0.0, 100.0], mode=CAR, edge_based=edge_based)
    np.testing.assert_allclose(res.cost_s, [0.0, 10.0, 110.0])
    assert res.pred_edge[2] >= 0
    rev = one_to_many(g, [2, 1], [0.0, 100.0], mode=CAR, reverse=True, edge_based=edge_based)
    np.testing.assert_allclose(rev.cost_s, [110.0, 10.0, 0.0])
