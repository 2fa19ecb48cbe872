"""FEATURE UNDER TEST: range RAPTOR.

Earliest arrivals for many departure times, computed latest first with labels
reused, equal those of separate searches (with the boarding window anchored at
the latest departure).
"""

from __future__ import annotations

import dataclasses
import itertools
import random

import numpy as np
import pytest

from otpa.testing.timetable import TestRule, TestTimetable, parse_timetable
from otpa.transit.raptor._common import first_trip, first_trip_before
from otpa.transit.raptor.api import RaptorRequest, earliest_arrivals, range_raptor


def _random_timetable(seed: int) -> tuple[TestTimetable, list[tuple[str, str, int]]]:
    rng = random.Random(seed)
    stops = [f"S{i}" for i in range(15)]
    lines = []
    for r in range(8):
        seq = rng.sample(stops, rng.randint(3, 7))
        hops = [rng.randint(1, 8) * 60 for _ in seq[1:]]
        for start in range(rng.randint(0, 9) * 60, 4 * 3600, rng.choice([300, 600, 1200])):
            t, parts = start, []
            for s, h in zip(seq, [0, *hops], strict=True):
                t += h
                parts.append(f"{s} {t // 3600:02d}:{t // 60 % 60:02d}")
            lines.append(f"R{r} " + " ".join(parts))
    pairs = [(a, b) for a, b in itertools.permutations(stops, 2) if rng.random() < 0.06]
    walks = [(a, b, rng.randint(1, 6) * 60) for a, b in pairs]
    return parse_timetable("\n".join(lines), stops=stops), walks


def _repeated(
    tt: TestTimetable, req: RaptorRequest, times: list[int], arrivals: str = "any"
) -> np.ndarray:
    last = max(times)
    rows = [
        earliest_arrivals(
            tt.timetable,
            dataclasses.replace(req, time=t, search_window_s=last + req.search_window_s - t),
            arrivals=arrivals,  # type: ignore[arg-type]
        )
        for t in times
    ]
    return np.vstack(rows)


@pytest.mark.parametrize("seed", range(8))
def test_range_equals_repeated_searches(seed: int) -> None:
    tt, walks = _random_timetable(seed)
    rng = random.Random(seed)
    origin = rng.choice(tt.stop_names)
    times = sorted(rng.sample(range(0, 3 * 3600, 60), 25))
    rng.shuffle(times)
    req = tt.request(
        {origin: 0},
        {origin: 0},
        0,
        transfers=walks,
        max_rounds=rng.choice([2, 3, 5]),
        transfer_slack_s=rng.choice([0, 60]),
        board_slack_s=rng.choice([0, 30]),
        alight_slack_s=rng.choice([0, 30]),
    )
    got = range_raptor(tt.timetable, req, np.asarray(times))
    np.testing.assert_array_equal(got, _repeated(tt, req, times))
    rides = range_raptor(tt.timetable, req, np.asarray(times), arrivals="ride")
    np.testing.assert_array_equal(rides, _repeated(tt, req, times, "ride"))
    assert np.all(rides >= got)


@pytest.mark.parametrize("seed", range(8))
def test_max_duration_clips_rows_and_keeps_the_rest(seed: int) -> None:
    # the cut prunes the search itself: every arrival within departure + limit must be
    # the unlimited search's, every later one inf
    tt, walks = _random_timetable(100 + seed)
    rng = random.Random(seed)
    times = np.asarray(rng.sample(range(0, 3 * 3600, 60), 30))
    kw = {
        "transfers": walks,
        "max_rounds": rng.choice([2, 3, 4]),
        "transfer_slack_s": rng.choice([0, 60]),
        "board_slack_s": rng.choice([0, 30]),
    }
    access = rng.choice([0, 90])
    # the origin that reaches most stops (a random one may have no route)
    req = max(
        (tt.request({o: access}, {o: 0}, 0, **kw) for o in tt.stop_names),
        key=lambda r: int(np.isfinite(range_raptor(tt.timetable, r, times)).sum()),
    )
    if seed % 2:  # each stop's walks by time (the relaxation then stops at the cut)
        off = req.transfer_offsets
        order = np.lexsort((req.transfer_time_s, np.repeat(np.arange(off.size - 1), np.diff(off))))
        assert (order != np.arange(order.size)).any()
        req = dataclasses.replace(
            req,
            transfer_to=req.transfer_to[order],
            transfer_time_s=req.transfer_time_s[order],
            transfer_cost=req.transfer_cost[order],
        )
    partly_cut = 0
    for arrivals in ("any", "ride"):
        full = range_raptor(tt.timetable, req, times, arrivals=arrivals)  # type: ignore[arg-type]
        for limit in (0, 300, 1200, 2400, 5400):
            got = range_raptor(
                tt.timetable, req, times, arrivals=arrivals, max_duration_s=limit  # type: ignore[arg-type]
            )
            want = np.where(full <= times[:, None] + limit, full, np.inf)
            np.testing.assert_array_equal(got, want)
            kept, finite = np.isfinite(want).sum(), np.isfinite(full).sum()
            partly_cut += int(0 < kept < finite)
    assert partly_cut >= 4  # the limits do cut, and leave something


def test_max_duration_with_transfer_rules_clips_separate_searches() -> None:
    tt = parse_timetable(
        """
        R1  A 00:00  B 00:10
        R1  A 00:20  B 00:30
        R2  B 00:10  C 00:20
        R2  B 00:40  C 00:50
        """
    )
    req = tt.request("A", "C", 0, rules=tt.rules(TestRule("B", "B", 1)), transfer_slack_s=300)
    got = range_raptor(tt.timetable, req, np.asarray([0, 60, 1200]), max_duration_s=1800)
    c = tt.stop("C")
    # 00:20 from 00:00 is in time; 00:50 from 00:01 is not; 00:50 from 00:20 is
    assert got[:, c].tolist() == [20 * 60, np.inf, 50 * 60]
    with pytest.raises(ValueError, match="max_duration_s"):
        range_raptor(tt.timetable, req, np.asarray([0]), max_duration_s=-1)


def test_window_is_anchored_at_the_latest_departure() -> None:
    tt = parse_timetable(
        """
        R1  A 00:15  B 00:25
        R1  A 00:30  B 00:40
        """
    )
    req = tt.request("A", "B", 0, search_window_s=600)
    got = range_raptor(tt.timetable, req, np.asarray([0, 1200]))
    b = tt.stop("B")
    # from 00:20 the 00:30 trip is within 10 min; from 00:00 the window also ends at 00:30
    assert got[:, b].tolist() == [25 * 60, 40 * 60]
    # a separate search from 00:00 ends its window at 00:10
    assert earliest_arrivals(tt.timetable, req)[b] == np.inf


def test_range_with_transfer_rules() -> None:
    tt = parse_timetable(
        """
        R1  A 00:00  B 00:10
        R1  A 00:20  B 00:30
        R2  B 00:10  C 00:20
        R2  B 00:40  C 00:50
        """
    )
    req = tt.request("A", "C", 0, rules=tt.rules(TestRule("B", "B", 1)), transfer_slack_s=300)
    times = [0, 60, 1200]
    got = range_raptor(tt.timetable, req, np.asarray(times))
    c = tt.stop("C")
    assert got[:, c].tolist() == [20 * 60, 50 * 60, 50 * 60]
    np.testing.assert_array_equal(got, _repeated(tt, req, times))


def test_range_rejects_arrive_by_and_cost() -> None:
    tt = parse_timetable("R1 A 00:00 B 00:10")
    for kw in ({"arrive_by": True}, {"criteria": "cost"}):
        with pytest.raises(ValueError, match="range_raptor"):
            range_raptor(tt.timetable, tt.request("A", "B", 0, **kw), np.asarray([0]))
    assert range_raptor(tt.timetable, tt.request("A", "B", 0), np.zeros(0)).shape == (0, 2)


@pytest.mark.parametrize("seed", range(4))
def test_searching_back_from_the_ridden_trip_finds_the_first_trip(seed: int) -> None:
    # the boarding search of range RAPTOR gallops back from the current trip: on FIFO
    # departures it must find exactly the trip the bisecting search finds
    rng = np.random.default_rng(seed)
    ns, nt = 3, 40
    dep = np.sort(rng.integers(0, 4000, size=(nt, ns)), axis=0).astype(np.int32).ravel()
    allowed = (rng.random(nt + 5) < 0.8).astype(np.uint8)
    no_bans = np.zeros(0, np.int64)
    for _ in range(300):
        j, k_hi = int(rng.integers(ns)), int(rng.integers(0, nt + 1))
        thr, cap = int(rng.integers(-10, 4100)), int(rng.integers(2000, 5000))
        args = (dep, 0, ns, j, 5, k_hi, thr, 1 << 40, cap, allowed, no_bans)
        assert first_trip_before(*args) == first_trip(*args)


@pytest.mark.parametrize(
    ("n_stops", "max_time", "dtype"),
    [(15, 360, np.int32), (70_000, 2000, np.int32), (4000, 1 << 28, np.int64)],
)
def test_packed_walks_give_back_target_and_time(n_stops: int, max_time: int, dtype: type) -> None:
    # the range kernel reads each walk as one integer: int32 when stop ids and times fit
    # in 31 bits, int64 otherwise
    from types import SimpleNamespace

    from otpa.transit.raptor._range import _pack_walks

    rng = np.random.default_rng(n_stops)
    counts = rng.integers(0, 5, size=n_stops)
    off = np.r_[0, np.cumsum(counts)].astype(np.int64)
    to = rng.integers(0, n_stops, size=off[-1]).astype(np.int32)
    time = rng.integers(0, max_time + 1, size=off[-1]).astype(np.int32)
    time[-1] = max_time
    q = SimpleNamespace(tr_offsets=off, tr_to=to, tr_time=time)
    walks, walks_sorted, shift = _pack_walks(q)  # type: ignore[arg-type]
    assert walks.dtype == dtype
    np.testing.assert_array_equal(walks & ((1 << shift) - 1), to)
    np.testing.assert_array_equal(walks >> shift, time)
    for s in range(n_stops):
        seg = time[off[s] : off[s + 1]]
        assert walks_sorted[s] == int(bool(np.all(seg[1:] >= seg[:-1])))


def test_changed_walking_transfers_are_not_read_from_a_stale_layout() -> None:
    # the kernel's compact copies are cached only for arrays that cannot change: a
    # caller's writable transfer times changed in place give new arrivals
    tt, walks = _random_timetable(3)
    times = np.asarray(range(0, 3600, 300))
    req = max(
        (tt.request({o: 0}, {o: 0}, 0, transfers=walks) for o in tt.stop_names),
        key=lambda r: int(np.isfinite(range_raptor(tt.timetable, r, times)).sum()),
    )
    slow = req.transfer_time_s
    assert slow.flags.writeable
    before = range_raptor(tt.timetable, req, times)
    slow[:] = slow * 10  # in place: same array, same address
    after = range_raptor(tt.timetable, req, times)
    np.testing.assert_array_equal(after, _repeated(tt, req, list(times)))
    assert not np.array_equal(after, before)


def test_a_huge_max_duration_is_no_cut() -> None:
    tt, walks = _random_timetable(5)
    req = tt.request({"S1": 0}, {"S1": 0}, 0, transfers=walks)
    times = np.asarray([0, 600, 1800])
    np.testing.assert_array_equal(
        range_raptor(tt.timetable, req, times, max_duration_s=(1 << 63) - 1),
        range_raptor(tt.timetable, req, times),
    )



def test_negative_walking_times_are_refused() -> None:
    # the range kernel's cut at max_duration_s relies on labels never decreasing along
    # a journey: a negative walking time never reaches it
    tt, walks = _random_timetable(6)
    with pytest.raises(ValueError, match="transfer_time_s must be non-negative"):
        tt.request({"S1": 0}, {"S1": 0}, 0, transfers=[(a, b, -60) for a, b, _ in walks])
