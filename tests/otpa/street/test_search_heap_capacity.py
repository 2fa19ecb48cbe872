"""The edge search's bounded heap: a search that fills it runs again, as if unbounded.

:func:`otpa.street._search_kernel.edge_search` gives its core a heap of fixed capacity
(no array is rebound in the search loop); a run that would overflow it is undone and run
again with twice the capacity.  The labels, the touched lists (in order) and ``best`` must
be exactly those of one run with a heap too large to fill.
"""

from __future__ import annotations

import numpy as np
import pytest
from _builders import random_osm

from otpa.osm.model import WALK
from otpa.street import StreetGraph, build_street_graph, edge_costs
from otpa.street._search_kernel import _edge_search_core, _first_capacity, edge_search
from otpa.street.edge_search import SearchInputs
from otpa.street.search import _edge_inputs


@pytest.fixture(scope="module")
def graph() -> StreetGraph:
    return build_street_graph(random_osm(3, n_vertices=300, n_segments=900), prune_islands=False)


def _inputs(graph: StreetGraph) -> SearchInputs:
    return _edge_inputs(graph, edge_costs(graph, WALK), int(WALK), True)


def _labels(n_e: int, n_v: int) -> list[np.ndarray]:
    f = np.full
    return [f(n_e, np.inf), f(n_e, np.inf), f(n_e, np.inf), f(n_e, -1, np.int32),
            f(n_v, np.inf), f(n_v, np.inf), f(n_v, np.inf), f(n_v, -1, np.int32)]  # fmt: skip


def _args(inp: SearchInputs, seeds: tuple[np.ndarray, ...], reverse: bool) -> list[object]:
    seed_e, seed_w, seed_t, seed_d = seeds
    no_f, no_e = np.zeros(0), np.zeros(0, np.int32)
    return [
        inp.out_indptr, inp.in_indptr, inp.in_edges, inp.edge_from, inp.edge_to,
        inp.edge_reverse, inp.weight, inp.time_ceil_s, inp.length_m, inp.ban_bit,
        inp.ban_indptr, inp.ban_to, inp.ban_modes, inp.use_bans, inp.blocked,
        inp.free_flowing, inp.in_deg, inp.out_deg, inp.car_speed, inp.turn_speed,
        inp.driving, inp.drive_on_right, inp.turn_costs, reverse,
        np.zeros(0, np.int64), no_f, seed_e, seed_w, seed_t, seed_d,
        -1, no_e, no_f, no_f, no_f, np.inf, 3000.0, 4000.0,
        inp.vertex_lat, inp.vertex_lon, 0.0, 0.0, 0.0,
    ]  # fmt: skip


@pytest.mark.parametrize("reverse", [False, True])
def test_overflowing_heap_runs_again_as_if_unbounded(graph: StreetGraph, reverse: bool) -> None:
    inp = _inputs(graph)
    n_e, n_v = graph.n_edges, graph.n_vertices
    usable = np.flatnonzero(np.isfinite(inp.weight)).astype(np.int32)
    rng = np.random.default_rng(5)
    # every usable edge seeded three times, each at a lower weight: three pushes per
    # edge before any pop, more than the first capacity holds
    e = np.concatenate([usable, usable, usable])
    base = rng.random(usable.size) * 50.0
    w = np.concatenate([base + 20.0, base + 10.0, base])
    seeds = (e, w, np.ceil(w), w * 1.3)
    assert e.size > _first_capacity(n_e)
    args = _args(inp, seeds, reverse)

    got = _labels(n_e, n_v)
    best = np.array([np.inf, np.inf, np.inf, -1.0, -1.0])
    tv, te = np.empty(n_v, np.int64), np.empty(n_e, np.int64)
    out = edge_search(*args, False, *got, best, tv, te)

    want = _labels(n_e, n_v)
    best_w = np.array([np.inf, np.inf, np.inf, -1.0, -1.0])
    tv_w, te_w = np.empty(n_v, np.int64), np.empty(n_e, np.int64)
    big = 8 * e.size + n_e
    out_w = _edge_search_core(
        *args, np.zeros((0, 0), np.float32), np.zeros(0, np.int64), np.zeros(0), 0.0, 0.0,
        False, False, *want, best_w, tv_w, te_w, np.empty(big), np.empty(big, np.int64),
    )  # fmt: skip

    assert out_w[0] > 0
    assert tuple(out) == tuple(out_w)
    for a, b in zip(got, want, strict=True):
        assert a.tobytes() == b.tobytes()
    assert best.tobytes() == best_w.tobytes()
    assert np.array_equal(tv[: out[1]], tv_w[: out_w[1]])
    assert np.array_equal(te[: out[2]], te_w[: out_w[2]])
