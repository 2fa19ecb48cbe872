"""FEATURE UNDER TEST: the arrival search skips route scans that cannot board.

``SearchQuery.dep_floor`` and ``dep_ceil`` hold, per route position, the least and the
greatest departure of the route's trips there or later; a scan whose first marked
position's floor is at or past the target (or past the search window's cap), or whose
ceiling is before every marked stop's board-ready label, boards nothing, so skipping it
leaves every label as it was.  A floor that claims later departures than the
timetable's, or a ceiling that claims earlier ones, loses labels.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from _raptor_net import random_walks, trip_line

from otpa.testing.timetable import TestTimetable, parse_timetable
from otpa.transit.raptor import _prepare
from otpa.transit.raptor._floor import _departure_bounds, departure_bounds
from otpa.transit.raptor._prepare import Prepared, prepare
from otpa.transit.raptor._round_kernel import NO_LAST, NO_RIDDEN, new_round_labels, run_rounds
from otpa.transit.raptor.api import RaptorRequest, route


def _network(seed: int) -> tuple[TestTimetable, list[tuple[str, str, int]]]:
    rng = random.Random(seed)
    stops = [f"S{i}" for i in range(30)]
    lines = []
    for r in range(16):
        seq = rng.sample(stops, rng.randint(4, 9))
        hops = [rng.randint(2, 12) * 60 for _ in seq[1:]]
        first = rng.randint(0, 9) * 60 + rng.choice([0, 0, 3600, 7200])
        for start in range(first, first + rng.randint(1, 3) * 3600, rng.choice([900, 1200])):
            lines.append(trip_line(f"R{r}", seq, start, hops))
    walks = random_walks(rng, stops, 0.03, 8)
    return parse_timetable("\n".join(lines), stops=stops), walks


def _requests(tt: TestTimetable, walks: list[tuple[str, str, int]]) -> list[RaptorRequest]:
    rng = random.Random(11)
    out = []
    for _ in range(12):
        a, b, c = rng.sample(tt.stop_names, 3)
        arrive_by = rng.random() < 0.3
        time = rng.randint(0, 3 * 3600) + (3600 if arrive_by else 0)
        options = {
            "arrive_by": arrive_by,
            "max_rounds": rng.choice([2, 3, 5]),
            "search_window_s": rng.choice([24 * 3600, 1800]),
            "criteria": "cost",
        }
        out.append(tt.request({a: 30}, {b: 45, c: 300}, time, transfers=walks, **options))
    return out


def _labels(
    p: Prepared, use_target: bool, floor: np.ndarray, ceil: np.ndarray
) -> tuple[int, list[np.ndarray]]:
    q = p.query._replace(dep_floor=floor, dep_ceil=ceil)
    lab = new_round_labels(q.max_rounds + 1, p.timetable.n_stops)
    target = run_rounds(p.timetable, q, lab, q.time, use_target, NO_RIDDEN, NO_LAST)
    # every label array (``changed_list`` is scratch space, never read before written)
    arrays = [np.asarray(getattr(lab, f)) for f in lab._fields if f != "changed_list"]
    return int(target), arrays


def test_the_bounds_are_the_least_and_greatest_departure_there_or_later() -> None:
    tt, _ = _network(0)
    t = tt.timetable
    floor, ceil = _departure_bounds(t)
    offs, toffs = t.route_stop_offsets, t.route_time_offsets
    for r in range(t.n_routes):
        ns = offs[r + 1] - offs[r]
        nt = t.route_trip_offsets[r + 1] - t.route_trip_offsets[r]
        dep = np.asarray(t.departure[toffs[r] : toffs[r] + nt * ns]).reshape(nt, ns)
        least = np.minimum.accumulate(dep.min(axis=0)[::-1])[::-1]
        greatest = np.maximum.accumulate(dep.max(axis=0)[::-1])[::-1]
        assert floor[offs[r] : offs[r + 1]].tolist() == least.tolist()
        assert ceil[offs[r] : offs[r + 1]].tolist() == greatest.tolist()
    assert not any(a.flags.writeable for a in departure_bounds(t))


def test_the_bounds_are_kept_only_for_unchanging_timetables() -> None:
    t = _network(0)[0].timetable
    names = ("departure", "route_time_offsets", "route_stop_offsets", "route_trip_offsets")
    fixed = {}
    for name in names:
        a = np.array(getattr(t, name))
        a.flags.writeable = False
        fixed[name] = a
    frozen_t = t._replace(**fixed)
    assert departure_bounds(frozen_t) is departure_bounds(frozen_t)  # kept
    # a writable timetable's bounds follow its times (computed per call, never stale)
    before = departure_bounds(t)
    assert departure_bounds(t) is not before
    t.departure[:] += 3600
    assert departure_bounds(t)[0].tolist() == (before[0] + 3600).tolist()


def test_skipped_scans_change_no_label_and_wrong_bounds_lose_labels() -> None:
    compared = late_floor = early_ceil = 0
    for seed in range(4):
        tt, walks = _network(seed)
        for req in _requests(tt, walks):
            p = prepare(tt.timetable, req)
            floor, ceil = p.query.dep_floor, p.query.dep_ceil
            assert floor.shape[0] == ceil.shape[0] == p.timetable.route_stops.shape[0]
            none = np.zeros(0, np.int32)
            for use_target in (True, False):
                t0, plain = _labels(p, use_target, none, none)
                t1, skipped = _labels(p, use_target, floor, ceil)
                assert t1 == t0
                for a, b in zip(plain, skipped, strict=True):
                    assert np.array_equal(a, b)
                compared += 1
                for wrong in ((floor + 300, ceil), (floor, ceil - 300)):
                    t2, got = _labels(p, use_target, *(w.astype(np.int32) for w in wrong))
                    lost = t2 != t0 or any(
                        not np.array_equal(a, b) for a, b in zip(plain, got, strict=True)
                    )
                    late_floor += lost and wrong[1] is ceil
                    early_ceil += lost and wrong[0] is floor
    assert compared >= 80
    assert late_floor > 0
    assert early_ceil > 0


def test_route_finds_the_journeys_of_the_unskipped_search(monkeypatch: pytest.MonkeyPatch) -> None:
    tt, walks = _network(5)
    reqs = _requests(tt, walks)
    with_floor = [route(tt.timetable, r) for r in reqs]
    empty = np.zeros(0, np.int32)
    monkeypatch.setattr(_prepare, "departure_bounds", lambda t: (empty, empty))
    without = [route(tt.timetable, r) for r in reqs]
    assert sum(len(js) for js in without) >= 5
    assert with_floor == without


def _arrivals_and_journeys(tt: TestTimetable, req: RaptorRequest) -> tuple[list[float], int]:
    from otpa.transit.raptor.api import earliest_arrivals

    arrivals = [float(t) for t in earliest_arrivals(tt.timetable, req)]
    return arrivals, len(route(tt.timetable, req))


def test_a_trip_leaving_exactly_when_the_stop_is_ready_is_boarded() -> None:
    # R1 leaves S1 at 08:10, the moment R0 makes S1 ready (no slack): its ceiling equals
    # the least board-ready label, so the scan must run (a ``<=`` skip loses S2)
    tt = parse_timetable("R0 S0 08:00 S1 08:10\nR1 S1 08:10 S2 08:10", stops=["S0", "S1", "S2"])
    arrivals, journeys = _arrivals_and_journeys(tt, tt.request({"S0": 0}, {"S2": 0}, "08:00"))
    assert arrivals == [8 * 3600, 8 * 3600 + 600, 8 * 3600 + 600]
    assert journeys == 1


@pytest.mark.parametrize(("window_s", "reached"), [(599, False), (600, True), (601, True)])
def test_a_trip_leaving_exactly_at_the_window_cap_is_boarded(window_s: int, reached: bool) -> None:
    # from 07:50 with a 600-s window the cap is 08:00, R0's departure: still boardable
    # (a ``>=`` skip loses S1); one second less and it is not
    tt = parse_timetable("R0 S0 08:00 S1 08:10", stops=["S0", "S1"])
    req = tt.request({"S0": 0}, {"S1": 0}, "07:50", search_window_s=window_s)
    arrivals, journeys = _arrivals_and_journeys(tt, req)
    assert arrivals[0] == 7 * 3600 + 50 * 60
    assert (arrivals[1] == 8 * 3600 + 600) is reached
    assert journeys == int(reached)
