"""ALT landmark bounds of point-to-point street paths (central Atlanta's real streets).

The tables are checked against scipy's Dijkstra on the same undirected metric, the
bound against the exact remaining weight of a plain (bound-free) search, and the
paths with landmarks against the paths without them (the same edges, exactly) and
against the canonical tie rule computed from a plain search's labels.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import types
from functools import cache
from typing import Any

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from otpa.osm import read_osm
from otpa.routing import PlanRequest, street_router
from otpa.routing._street_core import search_inputs, start_states
from otpa.routing._street_costs import edge_costs
from otpa.routing._street_search import run_search
from otpa.routing.preferences import Optimize, TriangleFactors
from otpa.routing.street_router import StreetOptions, snap_point, street_path
from otpa.street import StreetGraph, build_street_graph
from otpa.street.landmarks import (
    DEFAULT_LANDMARKS,
    bound_ratio,
    build_landmarks,
    edge_metric,
    graph_landmarks,
    landmarks_if_ready,
    min_ratio,
    vertex_cost,
)
from tests.conftest import require_data
from tests.otpa.street._builders import grid_osm

MODES = ("WALK", "BICYCLE", "CAR")
_REQ = PlanRequest(None, None, dt.datetime(2026, 1, 1))


@cache
def _graph() -> StreetGraph:
    osm = read_osm(require_data("tiny", "atlanta", "central-atlanta-filtered.osm.pbf"))
    return build_street_graph(osm)


def _net() -> Any:
    return types.SimpleNamespace(street=_graph())


def _options(mode: str) -> StreetOptions:
    return StreetOptions.from_request(_REQ, mode)


def _pairs(mode: str, n: int, seed: int) -> list[tuple[int, int]]:
    g = _graph()
    metric = edge_metric(g, mode)
    ends = np.unique(np.asarray(g.edge_from)[np.isfinite(metric)])
    rng = np.random.default_rng(seed)
    return [(int(a), int(b)) for a, b in rng.choice(ends, size=(n, 2)) if a != b]


def _plain_weight(mode: str, a: int, b: int) -> float:
    """The least weight from vertex a to b by a search without any lower bound."""
    g = _graph()
    costs = edge_costs(g, _options(mode))
    seeds, _ = start_states(g, costs, a, reverse=False)
    res = run_search(search_inputs(g, _options(mode), costs), seeds, n_vertices=g.n_vertices,
                     target_vertex=b)  # fmt: skip
    return res.best_weight


@pytest.mark.parametrize("mode", MODES)
def test_tables_are_the_metric_distances(mode: str) -> None:
    g = _graph()
    lms = graph_landmarks(g, mode)
    assert lms.count == DEFAULT_LANDMARKS
    assert len(set(lms.vertex.tolist())) == lms.count  # far apart: all different
    # the metric's edges, each with half of both end vertices' costs (CAR turns)
    frm_all, to_all = np.asarray(g.edge_from), np.asarray(g.edge_to)
    vc = vertex_cost(g, mode)
    metric = edge_metric(g, mode) + 0.5 * (vc[frm_all] + vc[to_all])
    keep = np.isfinite(metric)
    frm, to = frm_all[keep], to_all[keep]
    n = g.n_vertices
    # scipy keeps the smallest of duplicate entries only via minimum: build it by hand
    dense = {}
    for a, b, w in zip(frm.tolist(), to.tolist(), metric[keep].tolist(), strict=True):
        for key in ((a, b), (b, a)):
            dense[key] = min(dense.get(key, np.inf), w)
    rows, cols = zip(*dense, strict=True)
    m = csr_matrix((list(dense.values()), (rows, cols)), shape=(n, n))
    want = dijkstra(m, directed=True, indices=lms.vertex)
    np.testing.assert_allclose(lms.distance.T, want, rtol=1e-6)
    # every landmark is the farthest vertex from the ones before it
    for k in range(1, lms.count):
        nearest = np.min(want[:k], axis=0)
        reach = np.where(np.isfinite(nearest), nearest, -1.0)
        assert reach[lms.vertex[k]] == pytest.approx(reach.max(), rel=1e-9)


@pytest.mark.parametrize("mode", MODES)
def test_bound_never_exceeds_the_remaining_weight(mode: str) -> None:
    g = _graph()
    lms = graph_landmarks(g, mode)
    ratio = bound_ratio(g, mode, edge_costs(g, _options(mode)).weight, turn_costs=True)
    assert ratio > 0
    vc = vertex_cost(g, mode)
    checked = 0
    tight = 0.0
    for a, b in _pairs(mode, 60, seed=1):
        exact = _plain_weight(mode, a, b)
        if not np.isfinite(exact):
            continue
        da, db = lms.to_vertex(a), lms.to_vertex(b)
        gap = np.abs(da - db)
        bound = ratio * (float(gap[np.isfinite(gap)].max()) - lms.eps - 0.5 * vc[b])
        assert bound <= exact
        checked += 1
        tight = max(tight, bound / exact)
    assert checked >= 40
    assert tight > 0.5  # the bound is not trivially small


def test_min_ratio_refuses_edges_outside_the_metric() -> None:
    metric = np.array([10.0, np.inf, 5.0])
    assert min_ratio(np.array([20.0, np.inf, 15.0]), metric) == 2.0
    assert min_ratio(np.array([20.0, 3.0, 15.0]), metric) == 0.0  # edge 1 usable, not in it


def _row(p: Any) -> tuple[Any, ...] | None:
    if p is None:
        return None
    return (p.edges.tolist(), p.start_fraction, p.end_fraction, p.cost, p.duration_s,
            p.distance_m)  # fmt: skip


@pytest.mark.parametrize("mode", MODES)
def test_paths_are_the_same_with_and_without_landmarks(
    mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    g, net, opts = _graph(), _net(), _options(mode)
    rng = np.random.default_rng(5)
    ends: list[tuple[Any, Any]] = list(_pairs(mode, 80, seed=2))
    lat, lon = np.asarray(g.vertex_lat), np.asarray(g.vertex_lon)
    for a, b in _pairs(mode, 80, seed=3):  # points inside edges
        pa = snap_point(net, lat[a] + rng.normal(0, 2e-4), lon[a] + rng.normal(0, 2e-4), mode=mode)
        pb = snap_point(net, lat[b] + rng.normal(0, 2e-4), lon[b] + rng.normal(0, 2e-4), mode=mode)
        if pa is not None and pb is not None:
            ends.append((pa, pb))
    monkeypatch.setattr(street_router, "LANDMARK_COLUMNS", 0)
    without = [_row(street_path(net, a, b, opts)) for a, b in ends]
    assert landmarks_if_ready(g, mode) is graph_landmarks(g, mode)  # built: used below
    monkeypatch.setattr(street_router, "LANDMARK_COLUMNS", DEFAULT_LANDMARKS)
    with_lm = [_row(street_path(net, a, b, opts)) for a, b in ends]
    assert with_lm == without
    assert sum(r is not None for r in with_lm) >= 0.8 * len(ends)
    for (a, b), row in list(zip(ends, with_lm, strict=True))[:40]:
        if row is not None and isinstance(a, int):
            assert row[3] == pytest.approx(_plain_weight(mode, a, b), rel=1e-12)


_VARIANTS = {
    "wheelchair": ("WALK", {"wheelchair": True}),
    "slow-walk": ("WALK", {"speed_mps": 0.7, "reluctance": 4.0}),
    "bike-safe": ("BICYCLE", {"optimize": Optimize.SAFE}),
    "bike-triangle": ("BICYCLE", {"optimize": Optimize.TRIANGLE,
                                  "triangle": TriangleFactors(0.5, 0.3, 0.2)}),
    "bike-fast-walker": ("BICYCLE", {"walk_speed_mps": 2.5, "walk_reluctance": 1.0}),
    "car-capped": ("CAR", {"speed_mps": 12.0, "drive_distance_reluctance": 0.01}),
    "car-no-turn-costs": ("CAR", {"turn_costs": False, "drive_time_reluctance": 0.5}),
}  # fmt: skip


@pytest.mark.parametrize("variant", sorted(_VARIANTS))
def test_other_cost_models_give_the_same_paths(
    variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Landmark bounds hold for every cost model (reluctances, caps, safety, wheelchair)."""
    mode, changes = _VARIANTS[variant]
    g, net = _graph(), _net()
    opts = dataclasses.replace(_options(mode), **changes)
    graph_landmarks(g, mode)
    ratio = bound_ratio(g, mode, edge_costs(g, opts).weight, turn_costs=opts.turn_costs)
    assert (ratio > 0) == opts.turn_costs  # ALT in use (CAR bounds need the turn costs)
    ends = _pairs(mode, 50, seed=11)
    monkeypatch.setattr(street_router, "LANDMARK_COLUMNS", 0)
    without = [_row(street_path(net, a, b, opts)) for a, b in ends]
    monkeypatch.setattr(street_router, "LANDMARK_COLUMNS", DEFAULT_LANDMARKS)
    with_lm = [_row(street_path(net, a, b, opts)) for a, b in ends]
    assert with_lm == without
    assert sum(r is not None for r in with_lm) >= 0.5 * len(ends)


def test_equal_weights_take_the_smallest_predecessor(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a grid of equal blocks (many equal paths) the path is the canonical one.

    Canonical: from the destination back, each state's predecessor is the smallest
    state id among those giving it its least weight (a plain search's labels; a seed
    before any).
    """
    g = build_street_graph(grid_osm(7, 6, 80.0))
    net = types.SimpleNamespace(street=g)
    opts = dataclasses.replace(_options("WALK"), turn_costs=False)
    costs = edge_costs(g, opts)
    w = costs.weight
    frm, to, rev = np.asarray(g.edge_from), np.asarray(g.edge_to), np.asarray(g.edge_reverse)
    a, b = 0, g.n_vertices - 1
    seeds, _ = start_states(g, costs, a, reverse=False)
    seed_w = dict(zip(seeds.edge.tolist(), seeds.weight.tolist(), strict=True))
    lab = run_search(search_inputs(g, opts, costs), seeds, n_vertices=g.n_vertices).label
    into = np.flatnonzero(to == b)
    want = [int(into[lab[into] == lab[into].min()].min())]
    while seed_w.get(want[-1]) != lab[want[-1]]:
        f = want[-1]
        preds = [int(e) for e in np.flatnonzero(to == frm[f])
                 if e != rev[f] and lab[e] + w[f] == lab[f]]  # fmt: skip
        want.append(min(preds))
    want.reverse()
    assert len(want) == 11  # 6 blocks east, 5 north
    graph_landmarks(g, "WALK")
    for columns in (0, DEFAULT_LANDMARKS):
        monkeypatch.setattr(street_router, "LANDMARK_COLUMNS", columns)
        path = street_path(net, a, b, opts)
        assert path is not None
        assert path.edges.tolist() == want


@pytest.mark.parametrize("columns", [0, DEFAULT_LANDMARKS])
def test_weightless_steps_make_no_predecessor_cycle(
    columns: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With reluctance 0 every step weighs nothing: ties there must not link states in a loop.

    (Adopting a tie across a step of no weight made two states of one label each other's
    predecessors, and reading the path back raised.)  Every pair still gets a path of
    weight 0 that runs from the origin to the destination.
    """
    g = build_street_graph(grid_osm(5, 4, 80.0))
    net = types.SimpleNamespace(street=g)
    opts = dataclasses.replace(
        _options("WALK"), turn_costs=False, reluctance=0.0, stairs_reluctance=0.0
    )
    graph_landmarks(g, "WALK")
    monkeypatch.setattr(street_router, "LANDMARK_COLUMNS", columns)
    frm, to = np.asarray(g.edge_from), np.asarray(g.edge_to)
    found = 0
    for a in range(g.n_vertices):
        for b in range(g.n_vertices):
            if a == b:
                continue
            path = street_path(net, a, b, opts)
            assert path is not None
            assert path.cost == 0.0
            edges = path.edges
            assert frm[edges[0]] == a
            assert to[edges[-1]] == b
            assert (to[edges[:-1]] == frm[edges[1:]]).all()  # one connected walk
            found += 1
    assert found == g.n_vertices * (g.n_vertices - 1)


def test_a_graph_without_landmarks_still_plans(monkeypatch: pytest.MonkeyPatch) -> None:
    g = build_street_graph(grid_osm(4, 3))
    net = types.SimpleNamespace(street=g)
    assert landmarks_if_ready(g, "CAR") is None  # a new graph: built in the background
    built = graph_landmarks(g, "CAR")
    assert landmarks_if_ready(g, "CAR") is built
    assert build_landmarks(g, "WALK", count=0).count == 0
    lms = build_landmarks(g, "WALK", count=4)
    assert lms.count == 4
    assert np.isfinite(lms.distance).all()
    want = street_path(net, 0, g.n_vertices - 1, _options("WALK"))
    monkeypatch.setattr(street_router, "landmarks_if_ready",
                        lambda graph, mode: build_landmarks(graph, mode, count=0))  # fmt: skip
    got = street_path(net, 0, g.n_vertices - 1, _options("WALK"))
    assert want is not None
    assert got is not None
    assert _row(got) == _row(want)
