"""FEATURE UNDER TEST: the McRAPTOR lower bounds stop at a limit and stay admissible.

Below the limit the bounds equal those of the full backward search, elsewhere they
lie between the limit and the full bound; a search asked for a higher limit goes on
from where it stopped; and McRAPTOR finds the same journeys as with full bounds.
"""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest
from _raptor_net import cost_requests, random_lines, random_walks

from otpa.testing.timetable import TestRule, TestTimetable, parse_timetable
from otpa.transit.raptor import _heuristic, api
from otpa.transit.raptor._extra_routes import ExtraRoute, append_routes, base_of, trip_times
from otpa.transit.raptor._onboard import OnBoard, add_onboard
from otpa.transit.raptor._prepare import prepare
from otpa.transit.raptor.api import RaptorRequest, route
from otpa.transit.raptor.spi import RaptorTimetable


def _network(seed: int) -> tuple[TestTimetable, list[tuple[str, str, int]]]:
    rng = random.Random(seed)
    stops = [f"S{i}" for i in range(30)]
    lines = random_lines(rng, stops, 16, (4, 9), (2, 12), 3, [900, 1200])
    walks = random_walks(rng, stops, 0.03, 8)
    return parse_timetable("\n".join(lines), stops=stops), walks


@pytest.fixture(scope="module", params=range(3))
def network(request: pytest.FixtureRequest) -> tuple[TestTimetable, list[tuple[str, str, int]]]:
    return _network(request.param)


def _requests(tt: TestTimetable, walks: list[tuple[str, str, int]]) -> list[RaptorRequest]:
    return cost_requests(tt, walks, seed=7, n=8)


def test_bounds_are_exact_below_the_limit_and_admissible_above(
    network: tuple[TestTimetable, list[tuple[str, str, int]]],
) -> None:
    tt, walks = network
    checked = 0
    for req in _requests(tt, walks):
        p = prepare(tt.timetable, req)
        _heuristic._BOUNDS.clear()
        full_cost, full_rides = _heuristic.lower_bounds(p, req)
        if np.isfinite(full_cost).sum() <= 4:
            continue
        checked += 1
        finite = full_cost[np.isfinite(full_cost)]
        rides_limit = req.max_rounds + 1
        for limit in np.quantile(finite, [0.0, 0.3, 0.7]):
            _heuristic._BOUNDS.clear()
            cost, rides = _heuristic.lower_bounds(p, req, float(limit))
            below = full_cost < limit
            assert np.array_equal(cost[below], full_cost[below])
            assert (cost[~below] >= limit).all()
            assert (cost <= full_cost).all()
            # rides: exact up to max_rounds + 1, which still prunes what the full bound does
            exact = full_rides <= rides_limit
            assert np.array_equal(rides[exact], full_rides[exact])
            assert (rides[~exact] > req.max_rounds).all()
            assert (rides <= full_rides).all()
    assert checked >= 4


def test_a_search_goes_on_to_a_higher_limit(
    network: tuple[TestTimetable, list[tuple[str, str, int]]],
) -> None:
    tt, walks = network
    for req in _requests(tt, walks):
        p = prepare(tt.timetable, req)
        _heuristic._BOUNDS.clear()
        full_cost, _ = _heuristic.lower_bounds(p, req)
        low, high = np.quantile(full_cost[np.isfinite(full_cost)], [0.2, 0.6])
        _heuristic._BOUNDS.clear()
        fresh, _ = _heuristic.lower_bounds(p, req, float(high))
        _heuristic._BOUNDS.clear()
        first, _ = _heuristic.lower_bounds(p, req, float(low))
        again, _ = _heuristic.lower_bounds(p, req, float(low) / 2)  # kept: no higher limit
        assert again is first
        resumed, _ = _heuristic.lower_bounds(p, req, float(high))
        assert np.array_equal(resumed, fresh)
        assert len(_heuristic._BOUNDS) == 1


def test_mcraptor_finds_the_same_journeys_as_with_full_bounds(
    network: tuple[TestTimetable, list[tuple[str, str, int]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tt, walks = network
    reqs = _requests(tt, walks)
    _heuristic._BOUNDS.clear()
    limited = [route(tt.timetable, r) for r in reqs]
    full_bounds = _heuristic.lower_bounds

    def without_limit(
        p: _heuristic.Prepared, req: RaptorRequest, cost_limit: float = np.inf
    ) -> tuple[np.ndarray, np.ndarray]:
        _heuristic._BOUNDS.clear()
        return full_bounds(p, req)

    monkeypatch.setattr(api, "lower_bounds", without_limit)
    full = [route(tt.timetable, r) for r in reqs]
    assert sum(len(js) for js in full) >= 3
    assert limited == full


def test_rides_by_levels_equal_the_heap_search_at_every_limit(
    network: tuple[TestTimetable, list[tuple[str, str, int]]],
) -> None:
    """The breadth-first rides bounds are the weighted search's, value for value."""
    tt, walks = network
    compared = 0
    for req in _requests(tt, walks):
        p = prepare(tt.timetable, req)
        g = _heuristic.static_graph(p.timetable)
        n, n_pats = p.timetable.n_stops, len(g.pat_offsets) - 1
        off, to = req.transfer_offsets, req.transfer_to
        walk_w = _heuristic.readonly(req.transfer_cost, np.float64)
        if p.reverse:
            in_off, in_from = off, to
        else:
            in_off, in_from, in_edge = _heuristic.transposed_transfers(off, to, n)
            walk_w = _heuristic._incoming_costs(walk_w, in_edge)
        ones = _heuristic.readonly(np.ones(n_pats), np.float64)
        egress = p.query.egress_stops
        for limit in range(req.max_rounds + 3):
            heap = _heuristic._search(n, n_pats, egress, np.zeros(len(egress)))
            args = (in_off, in_from, walk_w, ones, False, float(limit))
            expected = _heuristic._dijkstra(g, *heap, *args)
            got = _heuristic._rides_bfs(g, n, egress, in_off, in_from, limit)
            assert np.array_equal(got, expected), limit
            compared += int(np.isfinite(expected).sum())
    assert compared > 100


def test_incoming_walk_costs_follow_the_reversed_transfers_and_are_kept() -> None:
    """The Dijkstra search's walking costs, in the order of the reversed transfers."""
    off = np.array([0, 2, 3, 3], np.int64)  # 0 -> 1, 0 -> 2, 1 -> 2
    to = np.array([1, 2, 2], np.int32)
    cost = np.array([10.0, 20.0, 30.0])
    for a in (off, to, cost):
        a.flags.writeable = False
    in_off, in_from, in_edge = _heuristic.transposed_transfers(off, to, 3)
    assert in_off.tolist() == [0, 0, 1, 3]
    got = _heuristic._incoming_costs(cost, in_edge)
    assert in_from.tolist() == [0, 0, 1]  # into 1 from 0; into 2 from 0, from 1
    assert got.tolist() == [10.0, 20.0, 30.0]
    assert _heuristic._incoming_costs(cost, in_edge) is got  # kept: the arrays cannot change
    changing = cost.copy()
    first = _heuristic._incoming_costs(changing, in_edge)
    changing[0] = 99.0
    assert _heuristic._incoming_costs(changing, in_edge).tolist() == [99.0, 20.0, 30.0]
    assert first.tolist() == [10.0, 20.0, 30.0]
    assert _heuristic._incoming_costs(cost, None) is cost  # reversed search: as given


def test_route_prefix_bounds_every_ride_of_every_trip(
    network: tuple[TestTimetable, list[tuple[str, str, int]]],
) -> None:
    """``pref[i] - pref[j]`` is at most the ride from ``j`` to ``i`` on any trip, and
    the least hop of each route is attained (the bound is the tightest of its kind)."""
    tt, _ = network
    t = tt.timetable
    pref = _heuristic.route_prefix(t)
    assert _heuristic.route_prefix(t) is pref  # kept per timetable
    for r in range(t.n_routes):
        soff, ns = int(t.route_stop_offsets[r]), int(np.diff(t.route_stop_offsets)[r])
        nt = int(t.route_trip_offsets[r + 1] - t.route_trip_offsets[r])
        base = int(t.route_time_offsets[r])
        arr = np.asarray(t.arrival[base : base + nt * ns]).reshape(nt, ns).astype(np.int64)
        dep = np.asarray(t.departure[base : base + nt * ns]).reshape(nt, ns).astype(np.int64)
        p = pref[soff : soff + ns]
        for j in range(ns):
            for i in range(j + 1, ns):
                assert (arr[:, i] - dep[:, j]).min() >= p[i] - p[j]
            if j + 1 < ns:
                assert (arr[:, j + 1] - dep[:, j]).min() == p[j + 1] - p[j]


def _zero_bounds(
    p: _heuristic.Prepared, req: RaptorRequest, cost_limit: float = np.inf
) -> _heuristic.LowerBounds:
    n = p.timetable.n_stops
    return _heuristic.LowerBounds(np.zeros(n), np.zeros(n))


def _zero_prefix(t: RaptorTimetable) -> np.ndarray:
    return np.zeros(len(t.route_stops), np.int64)


def _weakest_pruning(monkeypatch: pytest.MonkeyPatch) -> None:
    """McRAPTOR from here on with zero bounds and no ride prefix (almost no pruning)."""
    monkeypatch.setattr(api, "lower_bounds", _zero_bounds)
    monkeypatch.setattr(api, "route_prefix", _zero_prefix)


def test_mcraptor_finds_the_same_journeys_with_the_weakest_pruning(
    network: tuple[TestTimetable, list[tuple[str, str, int]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The boarding and walking tests of McRAPTOR only skip what the alighting tests
    would drop: with zero bounds and no ride prefix (almost no pruning) the journeys
    are the same, legs and costs included."""
    tt, walks = network
    reqs = _requests(tt, walks)
    _heuristic._BOUNDS.clear()
    pruned = [route(tt.timetable, r) for r in reqs]

    _weakest_pruning(monkeypatch)
    weakest = [route(tt.timetable, r) for r in reqs]
    assert sum(len(js) for js in weakest) >= 3
    assert pruned == weakest


# A walk B -> C of 10 minutes, but a minimum-time transfers.txt rule B -> C (0 s) lets R2
# be boarded at 00:22, before the walk label is at C (00:30): the kernels then charge a
# negative wait, so a bound that assumes waits of at least 0 must not prune that boarding.
_RULED_LINES = """
    R1 A 00:10 B 00:20
    R2 C 00:22 D 00:30
    R4 C 02:00 D 02:01
"""


@pytest.mark.parametrize(
    ("faster", "wait_reluctance"),
    [("R3 A 00:10 D 00:25", 1.0), ("", 0.5)],
    ids=["cheaper-of-two", "only-journey"],
)
def test_boarding_prune_keeps_rides_a_transfer_rule_boards_early(
    faster: str, wait_reluctance: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The journeys through the rule are those of the weakest pruning (the review's
    cases: the boarding bound dropped the cheaper of two journeys, or the only one)."""
    tt = parse_timetable(_RULED_LINES + "    " + faster + "\n")
    rp = np.zeros(tt.timetable.n_routes)
    if faster:
        rp[tt.route("R3")] = 1500.0  # the direct ride arrives first but costs more
    req = tt.request(
        "A", "D", "00:10", transfers=[("B", "C", 600)],
        rules=tt.rules(TestRule("B", "C", 2, min_time_s=0)), criteria="cost",
        route_penalty=rp, max_rounds=3, wait_reluctance=wait_reluctance,
    )  # fmt: skip
    _heuristic._BOUNDS.clear()
    pruned = route(tt.timetable, req)

    _weakest_pruning(monkeypatch)
    weakest = route(tt.timetable, req)
    ruled = [j for j in weakest if "Walk" in tt.path(j)]
    assert len(ruled) == 1
    assert tt.path(ruled[0]).endswith("~ C ~ R2 00:22 00:30 ~ D")
    assert len(weakest) == (2 if faster else 1)
    assert pruned == weakest


@pytest.mark.parametrize("kind", [1, 2])
def test_a_transfer_rule_boarding_before_the_label_is_ready_waits_nothing(kind: int) -> None:
    """A rule that lets a ride be boarded before the label is ready (a timed transfer after
    the alight slack, a minimum time shorter than the walk) costs no wait, never a negative
    one: the journey's cost does not depend on the wait reluctance, and the Pareto set is
    that of the weakest pruning (the bounds assume waits of at least 0)."""
    if kind == 1:  # same stop, alight slack 120 s: ready 00:22, R2 leaves 00:21
        tt = parse_timetable("R1 A 00:10 B 00:20\nR2 B 00:21 D 00:30\nR4 B 02:00 D 02:01\n")
        extra: dict[str, object] = {"rules": tt.rules(TestRule("B", "B", 1)), "alight_slack_s": 120}
        via = "~ B ~ R2 00:21 00:30 ~ D"
    else:  # walk B -> C 600 s, rule of 0 s: R2 leaves C at 00:22, the walk ends 00:30
        tt = parse_timetable(_RULED_LINES)
        extra = {"rules": tt.rules(TestRule("B", "C", 2, min_time_s=0)),
                 "transfers": [("B", "C", 600)]}  # fmt: skip
        via = "~ C ~ R2 00:22 00:30 ~ D"
    costs = []
    for w in (0.5, 1.0):
        req = tt.request("A", "D", "00:10", criteria="cost", max_rounds=3,
                         wait_reluctance=w, **extra)  # type: ignore[arg-type]  # fmt: skip
        journeys = route(tt.timetable, req)
        assert [tt.path(j).endswith(via) for j in journeys] == [True]
        costs.append(journeys[0].cost)
    assert costs[0] == costs[1]


@pytest.mark.parametrize("scale", [1e12, 1e15])
def test_huge_costs_keep_the_earliest_journey(
    network: tuple[TestTimetable, list[tuple[str, str, int]]], scale: float
) -> None:
    """Costs may reach 1e15 (route penalties, board costs), where a unit in the last place
    is 0.125: the rounding margins of the bounds and of the journeys seeded from the
    arrival search are relative, so the search adding the same costs in another order
    does not prune the journey it was seeded with (the earliest arrival stays in the set)."""
    tt, walks = network
    rng = random.Random(11)
    checked = 0
    for _ in range(8):
        a, b = rng.sample(tt.stop_names, 2)
        arrive_by = rng.random() < 0.3
        time = rng.randint(0, 3600) + (5400 if arrive_by else 0)
        options = {
            "transfers": walks, "arrive_by": arrive_by, "wait_reluctance": 0.83,
            "route_penalty": np.asarray([rng.random() for _ in range(tt.timetable.n_routes)])
            * scale,
            "board_cost": 0.37 * scale + 0.3, "transfer_penalty": 0.11 * scale + 0.7,
        }  # fmt: skip
        fast = route(tt.timetable, tt.request({a: 30}, {b: 45}, time, **options))
        best = route(tt.timetable, tt.request({a: 30}, {b: 45}, time, criteria="cost", **options))
        key = (lambda j: -j.departure) if arrive_by else (lambda j: j.arrival)
        assert min(map(key, best), default=None) == min(map(key, fast), default=None)
        checked += bool(fast)
    assert checked >= 3


def test_an_appended_timetable_reuses_the_route_prefix_of_its_base(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An on-board search appends one route to the timetable: the ride prefix of the
    routes before it is the base timetable's (computed once), only the new route's is
    computed, and the whole equals the prefix computed from scratch."""
    tt = parse_timetable(
        """
        R1 A 00:01 B 00:03 C 00:08
        R1 A 00:11 B 00:12 C 00:20
        R2 C 00:09 D 00:15 E 00:16
        """
    )
    base = tt.timetable
    calls: list[int] = []
    real = _heuristic._route_prefix

    def counted(t: RaptorTimetable, r0: int) -> np.ndarray:
        calls.append(r0)
        return real(t, r0)

    monkeypatch.setattr(_heuristic, "_route_prefix", counted)
    _heuristic._PREFIX.clear()
    for trip, next_pos, time in ((tt.trip("R1", 0), 1, 60), (tt.trip("R1", 1), 2, 700)):
        ext, onboard = add_onboard(base, OnBoard(trip, next_pos), time, None)
        assert onboard.route == base.n_routes
        got = _heuristic.route_prefix(ext)
        assert got.tolist() == real(ext, 0).tolist()
        # R1: least hops 60 (00:11 -> 00:12) then 300 (00:03 -> 00:08); R2: 360, 60
        assert got[: len(base.route_stops)].tolist() == [0, 60, 360, 0, 360, 420]
    assert calls == [0, base.n_routes, base.n_routes]


def test_an_appended_timetable_extends_the_pattern_graph_of_its_base() -> None:
    """The lower bounds' pattern graph of an on-board search's timetable is its base's
    with the appended route's pattern added: the same arrays as built from scratch."""
    tt = parse_timetable(
        """
        R1 A 00:01 B 00:03 C 00:08
        R1 A 00:11 B 00:12 C 00:20
        R2 C 00:09 D 00:15 E 00:16
        R3 E 00:20 B 00:30
        """
    )
    base = tt.timetable
    _heuristic._CACHE.clear()

    def copy_of(route: str) -> ExtraRoute:  # a route's first trip as a route of its own
        r = tt.route(route)
        lo, hi = base.route_stop_offsets[r], base.route_stop_offsets[r + 1]
        arr, dep = trip_times(base, tt.trip(route, 0), r)
        return ExtraRoute(
            base.route_stops[lo:hi].astype(np.int64), base.route_board[lo:hi],
            base.route_alight[lo:hi], arr[None, :], dep[None, :], 0, -2, np.array([-2]),
        )  # fmt: skip

    two = append_routes(base, [copy_of("R3"), copy_of("R1")])  # as interlining does
    onboard = [
        add_onboard(t, OnBoard(trip, next_pos), time, None)[0]
        for t, trip, next_pos, time in (
            (base, tt.trip("R1", 0), 1, 60), (base, tt.trip("R2", 0), 2, 700),
            (two, tt.trip("R2", 0), 1, 500),
        )
    ]  # fmt: skip
    for ext in (two, *onboard):
        assert base_of(ext) is (two if ext is onboard[-1] else base)
        got, want = _heuristic.static_graph(ext), _heuristic._build(ext)
        assert got._fields == want._fields
        for name, a, b in zip(got._fields, got, want, strict=True):
            assert a.dtype == b.dtype, name
            assert a.tolist() == b.tolist(), name
        n_new = ext.n_routes - base.n_routes
        assert len(got.pat_offsets) == len(_heuristic.static_graph(base).pat_offsets) + n_new


def _frozen(a: np.ndarray) -> np.ndarray:
    out = np.array(a)
    out.flags.writeable = False
    return out


def test_rides_by_walk_groups_equal_the_level_search_where_walks_are_symmetric(
    network: tuple[TestTimetable, list[tuple[str, str, int]]],
) -> None:
    """Joining whole groups of stops (connected over symmetric walks) gives the rides
    bounds of the level search that follows every walk, value for value; asymmetric
    walks get no groups, and grouping them anyway would be wrong."""
    tt, walks = network
    both = walks + [(b, a, s) for a, b, s in walks]
    compared = differs = 0
    for symmetric in (True, False):
        for req in _requests(tt, both if symmetric else walks):
            p = prepare(tt.timetable, req)
            g = _heuristic.static_graph(p.timetable)
            n = p.timetable.n_stops
            off, to = req.transfer_offsets, req.transfer_to
            if p.reverse:
                in_off, in_from = off, to
            else:
                in_off, in_from, _ = _heuristic.transposed_transfers(off, to, n)
            groups = _heuristic._build_walk_groups(in_off, in_from, n)
            assert (groups is not None) == symmetric
            if groups is None:  # the components of asymmetric walks, as a broken guard would
                comp = _heuristic._components(n, in_off, in_from)
                order = np.argsort(comp, kind="stable").astype(np.int32)
                sizes = np.bincount(comp)
                groups = _heuristic.WalkGroups(comp, np.r_[0, np.cumsum(sizes)], order)
            egress = p.query.egress_stops
            between = _heuristic._build_group_rides(g, groups)
            assert between is not None
            for limit in range(req.max_rounds + 3):
                expected = _heuristic._rides_bfs(g, n, egress, in_off, in_from, limit)
                got = _heuristic._rides_bfs_groups(g, n, egress, *groups, limit)
                by_groups = _heuristic._rides_bfs_group_graph(
                    n, egress, groups.group_of, *between, limit
                )
                if symmetric:
                    assert np.array_equal(got, expected), limit
                    assert np.array_equal(by_groups, expected), limit
                    compared += int(np.isfinite(expected).sum())
                else:
                    differs += not np.array_equal(got, expected)
    assert compared > 100
    assert differs > 0


def test_walk_groups_are_kept_for_unchanging_walks_only() -> None:
    """Grouping costs more than a rides search: only walks that cannot change get groups
    (kept by identity), and ``lower_bounds`` gives the same bounds either way."""
    tt, walks = _network(1)
    both = walks + [(b, a, s) for a, b, s in walks]
    req = _requests(tt, both)[0]
    n = tt.timetable.n_stops
    off, to = req.transfer_offsets, req.transfer_to
    assert _heuristic.walk_groups(off, to, n) is None  # writeable
    f_off, f_to = _frozen(off), _frozen(to)
    kept = _heuristic.walk_groups(f_off, f_to, n)
    assert kept is not None
    assert _heuristic.walk_groups(f_off, f_to, n) is kept
    frozen_req = RaptorRequest(
        **{
            **{f.name: getattr(req, f.name) for f in dataclasses.fields(req)},
            "transfer_offsets": f_off,
            "transfer_to": f_to,
            "transfer_time_s": _frozen(req.transfer_time_s),
            "transfer_cost": _frozen(req.transfer_cost),
        }
    )
    for r in (req, frozen_req, dataclasses.replace(req, arrive_by=True, time=req.time + 5400)):
        p = prepare(tt.timetable, r)
        _heuristic._BOUNDS.clear()
        got = _heuristic.lower_bounds(p, r)
        _heuristic._BOUNDS.clear()
        with pytest.MonkeyPatch.context() as m:
            m.setattr(_heuristic, "walk_groups", lambda *a: None)
            expected = _heuristic.lower_bounds(p, r)
        assert np.array_equal(got.rides, expected.rides)
        assert np.array_equal(got.cost, expected.cost)


def test_group_rides_pair_every_two_groups_a_pattern_passes_in_order() -> None:
    """The group graph has an edge ``a -> b`` exactly when some pattern stops in ``a``
    before it stops in ``b``; without one of its edges the rides bounds change."""
    tt, walks = _network(2)
    both = walks + [(b, a, s) for a, b, s in walks]
    req = _requests(tt, both)[0]
    g = _heuristic.static_graph(tt.timetable)
    n = tt.timetable.n_stops
    in_off, in_from, _ = _heuristic.transposed_transfers(req.transfer_offsets, req.transfer_to, n)
    groups = _heuristic._build_walk_groups(in_off, in_from, n)
    assert groups is not None
    between = _heuristic._build_group_rides(g, groups)
    assert between is not None
    n_groups = len(groups.offsets) - 1
    expected = set()
    for p in range(len(g.pat_offsets) - 1):
        seq = [
            int(groups.group_of[s]) for s in g.pat_stops[g.pat_offsets[p] : g.pat_offsets[p + 1]]
        ]
        expected |= {(a, b) for i, a in enumerate(seq) for b in seq[i + 1 :] if a != b}
    got = {
        (int(a), b)
        for b in range(n_groups)
        for a in between.into_from[between.into_offsets[b] : between.into_offsets[b + 1]]
    }
    assert got == expected
    # an edge less: some destination gets other bounds
    x = len(between.into_from) // 2
    b = int(np.searchsorted(between.into_offsets, x, side="right") - 1)
    fewer = _heuristic.GroupRides(
        np.r_[between.into_offsets[: b + 1], between.into_offsets[b + 1 :] - 1],
        np.delete(between.into_from, x),
    )
    changed = 0
    for s in range(n):
        egress = np.array([s], np.int32)
        full = _heuristic._rides_bfs_group_graph(n, egress, groups.group_of, *between, 6)
        cut = _heuristic._rides_bfs_group_graph(n, egress, groups.group_of, *fewer, 6)
        changed += not np.array_equal(full, cut)
    assert changed > 0


def test_long_patterns_search_stop_by_stop(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the pair limit there is no group graph, and the bounds stay the same."""
    tt, walks = _network(0)
    both = walks + [(b, a, s) for a, b, s in walks]
    for req in _requests(tt, both)[:4]:
        p = prepare(tt.timetable, req)
        _heuristic._BOUNDS.clear()
        expected = _heuristic.lower_bounds(p, req)
        _heuristic._BOUNDS.clear()
        with monkeypatch.context() as m:
            m.setattr(_heuristic, "_MAX_GROUP_PAIRS", 0)
            m.setattr(_heuristic, "_GROUP_RIDES", {})
            assert (
                _heuristic.group_rides(
                    _heuristic.static_graph(p.timetable),
                    _heuristic.WalkGroups(
                        np.zeros(p.timetable.n_stops, np.int64),
                        np.array([0, p.timetable.n_stops]),
                        np.arange(p.timetable.n_stops, dtype=np.int32),
                    ),
                )
                is None
            )
            got = _heuristic.lower_bounds(p, req)
        assert np.array_equal(got.rides, expected.rides)
        assert np.array_equal(got.cost, expected.cost)
