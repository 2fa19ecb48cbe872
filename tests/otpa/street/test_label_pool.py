"""Street searches reuse pooled label arrays: results stay valid while held, equal fresh ones."""

from __future__ import annotations

import gc
import itertools
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from _builders import random_osm

from otpa.osm.model import WALK
from otpa.street import StreetGraph, build_street_graph, edge_costs
from otpa.street import _label_pool as label_pool
from otpa.street.edge_search import SearchInputs, SearchResult, Seeds, run_search
from otpa.street.search import _edge_inputs


@pytest.fixture(scope="module")
def graph() -> StreetGraph:
    return build_street_graph(random_osm(3, n_vertices=300, n_segments=900), prune_islands=False)


@pytest.fixture(scope="module")
def inputs(graph: StreetGraph) -> SearchInputs:
    return _edge_inputs(graph, edge_costs(graph, WALK), int(WALK), True)


@pytest.fixture(autouse=True)
def _check_clean(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(label_pool, "CHECK_CLEAN", True)
    yield
    gc.collect()


def _from_vertex(graph: StreetGraph, v: int, *, reverse: bool = False) -> Seeds:
    """The seeds of a search from (``reverse``: to) vertex ``v``: its edges, whole."""
    if reverse:
        edges = graph.in_edges[graph.in_indptr[v] : graph.in_indptr[v + 1]]
    else:
        edges = np.arange(graph.out_indptr[v], graph.out_indptr[v + 1])
    cost = edge_costs(graph, WALK)
    edges = edges[np.isfinite(cost[edges])]
    return Seeds(
        edges.astype(np.int32), cost[edges], np.ceil(cost[edges]), graph.edge_length_m[edges]
    )


def _search(
    graph: StreetGraph,
    inputs: SearchInputs,
    v: int,
    *,
    fresh: bool,
    reverse: bool = False,
    max_time_s: float = 3000.0,
) -> SearchResult:
    return run_search(
        inputs,
        _from_vertex(graph, v, reverse=reverse),
        n_vertices=graph.n_vertices,
        reverse=reverse,
        max_time_s=max_time_s,
        vertex_labels=True,
        fresh=fresh,
    )


def _same(a: SearchResult, b: SearchResult) -> None:
    for name in ("label", "time_s", "distance_m", "pred", "cost_v", "time_v", "dist_v", "edge_v"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert (a.best_weight, a.best_state) == (b.best_weight, b.best_state)


def test_held_results_stay_valid_and_equal_fresh_searches(
    graph: StreetGraph, inputs: SearchInputs
) -> None:
    held = [_search(graph, inputs, v, fresh=False, reverse=v % 2 == 1) for v in range(0, 40, 3)]
    assert held[0].cost_v is not held[1].cost_v  # each live result has its own arrays
    assert 30 < np.isfinite(held[0].cost_v).sum() < graph.n_vertices - 30  # a part
    for v, res in zip(range(0, 40, 3), held, strict=True):
        _same(res, _search(graph, inputs, v, fresh=True, reverse=v % 2 == 1))


def test_a_dropped_result_gives_its_arrays_to_the_next_search(
    graph: StreetGraph, inputs: SearchInputs
) -> None:
    from otpa.street.edge_search import _EDGE_LABELS

    gc.collect()
    first = _search(graph, inputs, 5, fresh=False)
    view = first.label[10:]  # a view keeps the set in use
    address = first.label.ctypes.data
    del first
    second = _search(graph, inputs, 6, fresh=False)
    assert second.label.ctypes.data != address
    del second
    sets = len(_EDGE_LABELS._sets[graph.n_edges])
    for v in range(30, 40):  # one after the other: no new arrays
        _same(_search(graph, inputs, v, fresh=False), _search(graph, inputs, v, fresh=True))
    assert len(_EDGE_LABELS._sets[graph.n_edges]) == sets
    assert view.ctypes.data == address + 10 * 8


def test_start_vertex_writes_are_reset(graph: StreetGraph, inputs: SearchInputs) -> None:
    # as access_stops and street_tree do: the start vertex is set to 0 after the search
    for v in (11, 12):
        res = _search(graph, inputs, v, fresh=False)
        res.cost_v[v] = res.time_v[v] = res.dist_v[v] = 0.0
        del res
    # the clean check of every hand-out passes, and the labels equal a fresh search's
    _same(_search(graph, inputs, 13, fresh=False), _search(graph, inputs, 13, fresh=True))


def test_a_write_elsewhere_is_caught(graph: StreetGraph, inputs: SearchInputs) -> None:
    # a short search (a large one's set is refilled in full: any write is undone)
    res = _search(graph, inputs, 20, fresh=False, max_time_s=900.0)
    assert 0 < np.isfinite(res.cost_v).sum() < 30
    far = int(np.flatnonzero(np.isinf(res.cost_v))[0])
    res.cost_v[far] = 1.0  # outside what the search touched: not allowed
    del res
    with pytest.raises(AssertionError, match="written outside"):
        [_search(graph, inputs, 21, fresh=False) for _ in range(8)]  # every free set in turn


def test_a_search_without_seeds_is_reset_in_full(
    graph: StreetGraph, inputs: SearchInputs
) -> None:
    res = run_search(inputs, Seeds.empty(), n_vertices=graph.n_vertices, vertex_labels=True)
    assert not np.isfinite(res.cost_v).any()
    res.cost_v[3] = 0.0  # a caller may set its start even when no edge leaves it
    del res
    _same(_search(graph, inputs, 3, fresh=False), _search(graph, inputs, 3, fresh=True))


def test_threads_searching_at_once_get_the_same_labels(
    graph: StreetGraph, inputs: SearchInputs
) -> None:
    vertices = list(range(0, 200, 5))
    expected = {v: _search(graph, inputs, v, fresh=True) for v in vertices}

    def run(v: int) -> bool:
        res = _search(graph, inputs, v, fresh=False)
        _same(res, expected[v])
        return True

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(run, vertices * 3))


def test_as_many_vertex_labels_as_edges(graph: StreetGraph, inputs: SearchInputs) -> None:
    # the edge and vertex touched lists of one search are separate arrays even when
    # both have one length (a graph with as many vertices as edges)
    for v in range(0, 40, 3):
        pooled, fresh = (
            run_search(
                inputs,
                _from_vertex(graph, v),
                n_vertices=graph.n_edges,
                max_time_s=3000.0,
                vertex_labels=True,
                fresh=f,
            )
            for f in (False, True)
        )
        _same(pooled, fresh)


def test_a_street_tree_cannot_be_written(graph: StreetGraph) -> None:
    # a public tree's labels are pooled: a write by its user would corrupt later searches
    from otpa.routing.street_tree import _read_only

    res = run_search(
        _edge_inputs(graph, edge_costs(graph, WALK), int(WALK), True),
        _from_vertex(graph, 4),
        n_vertices=graph.n_vertices,
        vertex_labels=True,
    )
    view = _read_only(res.cost_v)
    with pytest.raises(ValueError, match="read-only"):
        view[np.isinf(view)] = 1e9
    assert np.shares_memory(view, res.cost_v)


def test_free_sets_are_let_go_and_held_ones_kept(graph: StreetGraph, inputs: SearchInputs) -> None:
    from otpa.street.edge_search import _EDGE_LABELS, release_free_labels

    held = _search(graph, inputs, 7, fresh=False)
    for v in (8, 9):
        _search(graph, inputs, v, fresh=False)  # dropped at once: a free set
    assert release_free_labels() >= 1
    assert len(_EDGE_LABELS._sets[graph.n_edges]) == 1  # the held result's set only
    _same(held, _search(graph, inputs, 7, fresh=True))
    _same(_search(graph, inputs, 10, fresh=False), _search(graph, inputs, 10, fresh=True))


def test_chain_follows_the_predecessors_from_a_seed(
    graph: StreetGraph, inputs: SearchInputs
) -> None:
    """``SearchResult.chain``: the states from a seed to the state, each the previous one's
    successor (``pred``), every one a state the search labelled."""
    res = _search(graph, inputs, 0, fresh=True)
    reached = np.flatnonzero(np.isfinite(res.label))
    assert reached.size > 20
    seeds = set(_from_vertex(graph, 0).edge.tolist())
    for state in reached[:: max(reached.size // 25, 1)].tolist():
        path = res.chain(state)
        assert path.dtype == np.int32
        assert int(path[-1]) == state
        assert int(path[0]) in seeds
        assert int(res.pred[path[0]]) == -1
        assert all(int(res.pred[b]) == int(a) for a, b in itertools.pairwise(path.tolist()))
        # consecutive edges meet at a vertex
        assert np.array_equal(graph.edge_to[path[:-1]], graph.edge_from[path[1:]])
    assert res.chain(-1).size == 0
