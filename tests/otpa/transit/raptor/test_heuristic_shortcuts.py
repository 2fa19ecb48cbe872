"""FEATURE UNDER TEST: the lower bounds' shortcuts give what the plain computation gives.

The boarding weights (least route penalty per pattern) equal ``np.minimum.at``'s,
zero signs and ``nan`` included; a search asked for a limit at which no stop settles
answers without its kernel, as the kernel would; and the searches on the 4-ary heap,
continued over any sequence of limits, give the bounds of one search per limit.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from _raptor_net import cost_requests, random_lines, random_walks

from otpa.testing.timetable import TestTimetable, parse_timetable
from otpa.transit.raptor import _heuristic
from otpa.transit.raptor._prepare import prepare
from otpa.transit.raptor.api import RaptorRequest


def _network(seed: int) -> tuple[TestTimetable, list[tuple[str, str, int]]]:
    rng = random.Random(seed)
    stops = [f"S{i}" for i in range(40)]
    lines = random_lines(rng, stops, 20, (3, 10), (1, 12), 2, [600, 1200])
    walks = random_walks(rng, stops, 0.04, 8)
    return parse_timetable("\n".join(lines), stops=stops), walks


def _requests(tt: TestTimetable, walks: list[tuple[str, str, int]]) -> list[RaptorRequest]:
    return cost_requests(tt, walks, seed=11, n=6)


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, np.float64).view(np.int64)


@pytest.mark.parametrize("seed", range(3))
def test_least_penalty_equals_minimum_at(seed: int) -> None:
    tt, _ = _network(seed)
    g = _heuristic.static_graph(tt.timetable)
    rng = np.random.default_rng(seed)
    n_routes = len(g.route_pat)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5.0])
    for _ in range(20):
        penalty = rng.integers(0, 4, n_routes).astype(np.float64) * 60.0
        mask = rng.random(n_routes) < 0.4
        penalty[mask] = rng.choice(special, int(mask.sum()))
        expected = np.full(len(g.pat_offsets) - 1, np.inf)
        with np.errstate(invalid="ignore"):  # nan
            np.minimum.at(expected, g.route_pat, penalty)
            got = _heuristic._least_penalty(g, penalty)
        expected[~np.isfinite(expected)] = 0.0
        assert np.array_equal(_bits(got), _bits(expected))


def test_least_by_pattern_takes_minimum_at_route_by_route() -> None:
    rng = np.random.default_rng(5)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5.0, 7.0])
    for n_pats in (1, 3, 40):
        for _ in range(200):
            route_pat = rng.integers(0, n_pats, rng.integers(0, 30)).astype(np.int64)
            penalty = rng.choice(special, len(route_pat))
            expected = np.full(n_pats, np.inf)
            with np.errstate(invalid="ignore"):
                np.minimum.at(expected, route_pat, penalty)
            expected[~np.isfinite(expected)] = 0.0
            got = _heuristic._least_by_pattern(route_pat, n_pats, penalty)
            assert np.array_equal(_bits(got), _bits(expected)), (route_pat, penalty)


@pytest.mark.parametrize("seed", range(3))
def test_no_stop_settled_answers_as_the_kernel(seed: int) -> None:
    tt, walks = _network(seed)
    for req in _requests(tt, walks):
        p = prepare(tt.timetable, req)
        _heuristic._BOUNDS.clear()
        kept_cost, _ = _heuristic.lower_bounds(p, req, -np.inf)
        kept = next(iter(_heuristic._BOUNDS.values()))
        assert kept.weights is None  # nothing searched: no weights derived
        full_cost, _ = _heuristic.lower_bounds(p, req)
        for limit in (-np.inf, *np.quantile(full_cost[np.isfinite(full_cost)], [0.0, 0.5])):
            q = p.query
            g = _heuristic.static_graph(p.timetable)  # reversed for arrive-by searches
            search = _heuristic._search(
                p.timetable.n_stops, len(g.pat_offsets) - 1, q.egress_stops,
                np.asarray(q.egress_cost, np.float64),
            )  # fmt: skip
            _heuristic._BOUNDS.clear()
            got, _ = _heuristic.lower_bounds(p, req, float(limit))
            kept = next(iter(_heuristic._BOUNDS.values()))
            walks_in = _heuristic._reversed_walks(p, req)
            in_w = _heuristic._incoming_costs(
                np.asarray(req.transfer_cost, np.float64), walks_in.in_edge
            )
            board = q.board_cost + _heuristic._least_penalty(g, q.route_penalty)
            expected = _heuristic._dijkstra(
                g, *search, walks_in.in_off, walks_in.in_from, in_w, board, True, float(limit)
            )
            assert np.array_equal(got, expected)
            # and at a limit no higher, once stops settled: the kernel's answer again
            again = _heuristic._settled_so_far(kept.cost)
            expected_again = _heuristic._dijkstra(
                g, *kept.cost, walks_in.in_off, walks_in.in_from, in_w, board, True, float(limit)
            )
            assert np.array_equal(again, expected_again)
        assert np.array_equal(kept_cost, np.full_like(kept_cost, kept_cost.min()))


@pytest.mark.parametrize("seed", range(3))
def test_any_sequence_of_limits_gives_the_bounds_of_one_search(seed: int) -> None:
    tt, walks = _network(seed)
    rng = random.Random(seed)
    for req in _requests(tt, walks):
        p = prepare(tt.timetable, req)
        _heuristic._BOUNDS.clear()
        full_cost, _ = _heuristic.lower_bounds(p, req)
        finite = full_cost[np.isfinite(full_cost)]
        limits = [-np.inf, np.inf, *np.quantile(finite, [0.0, 0.25, 0.5, 0.75, 1.0])]
        for _ in range(4):
            seq = rng.sample(limits, 4)
            _heuristic._BOUNDS.clear()
            for i, limit in enumerate(seq):
                got, _ = _heuristic.lower_bounds(p, req, float(limit))
                reached = max(seq[: i + 1])
                _heuristic._BOUNDS.clear()
                one, _ = _heuristic.lower_bounds(p, req, float(reached))
                assert np.array_equal(got, one), (seq, i)
                # back to the continued search
                _heuristic._BOUNDS.clear()
                for earlier in seq[: i + 1]:
                    _heuristic.lower_bounds(p, req, float(earlier))
