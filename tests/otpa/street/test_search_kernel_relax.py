"""The edge search's relaxation: its early skip (before the turn cost) loses no improvement.

The kernel skips an edge before computing the turn cost when the weight without it
already fails (``c + w > label`` or ``> max_w``), but only where the turn cost is
known to be a number >= 0 (no turn costs, driving, a free-flowing vertex, or a positive
turn speed of the turn's outgoing edge).  Every final label must then still satisfy
Bellman's condition over every allowed turn, negative turn speeds (negative turn costs)
included: a skip that ignored the turn speed's sign would leave some edge above what a
negative turn cost gives it.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from _builders import random_osm

from otpa.osm.model import WALK
from otpa.street import StreetGraph, build_street_graph, edge_costs
from otpa.street._search_kernel import turn_cost
from otpa.street.edge_search import SearchInputs, SearchResult, Seeds, run_search
from otpa.street.search import _edge_inputs

#: Search limits: the time limit cuts some paths (the distance limit others).
_MAX_T = 30000.0
_MAX_D = 45000.0


@pytest.fixture(scope="module")
def graph() -> StreetGraph:
    return build_street_graph(random_osm(5, n_vertices=300, n_segments=900), prune_islands=False)


def _inputs(graph: StreetGraph, turn_speed: np.ndarray) -> SearchInputs:
    """WALK inputs with U-turn bans, OTP's non-driving turn costs at the given speeds."""
    base = _edge_inputs(graph, edge_costs(graph, WALK), int(WALK), True)
    rng = np.random.default_rng(11)
    n_e, n_v = graph.n_edges, graph.n_vertices
    return replace(
        base,
        edge_reverse=np.asarray(graph.edge_reverse, dtype=np.int32),
        free_flowing=rng.random(n_v) < 0.1,
        in_deg=rng.integers(0, 360, n_e).astype(np.int16),
        out_deg=rng.integers(0, 360, n_e).astype(np.int16),
        car_speed=np.full(n_e, 1.0),
        turn_speed=turn_speed,
        turn_costs=True,
    )


def _speeds(graph: StreetGraph, kind: str) -> np.ndarray:
    n_e = graph.n_edges
    if kind == "positive":
        return np.full(n_e, 1.3)
    # negative speeds on a third of the edges: turn costs down to -0.3 x the least edge
    # weight (no cycle of negative weight: every edge adds at least 0.7 x the least)
    w = edge_costs(graph, WALK)
    least = float(np.min(w[np.isfinite(w) & (w > 0)]))
    neg = -(180.0 / 20.0) / (0.3 * least)
    rng = np.random.default_rng(3)
    return np.where(rng.random(n_e) < 1 / 3, neg, 1.3)


def _assert_bellman(
    graph: StreetGraph, inputs: SearchInputs, res: SearchResult, reverse: bool
) -> int:
    """Every allowed turn out of a labelled state gives no smaller label; the number checked."""
    checked = 0
    lab, tim, dist = res.label, res.time_s, res.distance_m
    for e in np.flatnonzero(np.isfinite(lab)):
        v = int(graph.edge_from[e] if reverse else graph.edge_to[e])
        if inputs.blocked[v]:
            continue
        if reverse:
            nxt = graph.in_edges[graph.in_indptr[v] : graph.in_indptr[v + 1]]
        else:
            nxt = np.arange(graph.out_indptr[v], graph.out_indptr[v + 1])
        for f in nxt:
            if not math.isfinite(inputs.weight[f]) or f == inputs.edge_reverse[e]:
                continue
            a, b = (f, e) if reverse else (e, f)
            tc = turn_cost(
                a, b, v, False, True, inputs.free_flowing, inputs.in_deg, inputs.out_deg,
                inputs.car_speed, inputs.turn_speed,
            )  # fmt: skip
            nc = lab[e] + inputs.weight[f] + tc
            nt = tim[e] + inputs.time_ceil_s[f] + math.ceil(tc)
            nd = dist[e] + inputs.length_m[f]
            if nt > _MAX_T or nd > _MAX_D:
                continue
            assert lab[f] <= nc, (int(e), int(f), float(lab[f]), float(nc))
            checked += 1
    return checked


@pytest.mark.parametrize("kind", ["positive", "negative"])
@pytest.mark.parametrize("reverse", [False, True])
def test_no_improvement_is_skipped(graph: StreetGraph, kind: str, reverse: bool) -> None:
    inputs = _inputs(graph, _speeds(graph, kind))
    w = inputs.weight
    checked = 0
    for v in range(0, 60, 7):
        if reverse:
            edges = graph.in_edges[graph.in_indptr[v] : graph.in_indptr[v + 1]]
        else:
            edges = np.arange(graph.out_indptr[v], graph.out_indptr[v + 1])
        edges = edges[np.isfinite(w[edges])]
        seeds = Seeds(
            edges.astype(np.int32), w[edges], np.ceil(w[edges]), graph.edge_length_m[edges]
        )
        res = run_search(
            inputs, seeds, n_vertices=graph.n_vertices, reverse=reverse, max_time_s=_MAX_T,
            max_distance_m=_MAX_D, vertex_labels=True,
        )  # fmt: skip
        checked += _assert_bellman(graph, inputs, res, reverse)
    assert checked > 500
