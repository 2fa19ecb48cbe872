"""Label arrays reused by a thread's searches (``_label_pools``): same journeys as fresh ones.

The pools change where the labels live, never what a search finds: a McRAPTOR search
that overflows its pool runs again with a larger one, round labels go back to
"unreached" after each search, and threads never share their pools.
"""

from __future__ import annotations

import random
import threading
from typing import Any

import numpy as np
import pytest

from otpa.testing.timetable import TestTimetable, parse_timetable
from otpa.transit.raptor import _label_pools, api
from otpa.transit.raptor._mc_labels import OVERFLOW_DEST, OVERFLOW_LABELS, OVERFLOW_ROUTE_BAG
from otpa.transit.raptor._round_kernel import new_round_labels
from otpa.transit.raptor.api import earliest_arrivals, route


def _timetable() -> tuple[TestTimetable, list[tuple[str, str, int]]]:
    rng = random.Random(7)
    stops = [f"S{i}" for i in range(14)]
    lines = []
    for r in range(8):
        seq = rng.sample(stops, rng.randint(3, 7))
        hops = [rng.randint(2, 9) * 60 for _ in seq[1:]]
        for start in range(rng.randint(0, 9) * 60, 4 * 3600, rng.choice([300, 600, 900])):
            t, parts = start, []
            for s, h in zip(seq, [0, *hops], strict=True):
                t += h
                parts.append(f"{s} {t // 3600:02d}:{t // 60 % 60:02d}")
            lines.append(f"R{r} " + " ".join(parts))
    pairs = [(a, b) for a in stops for b in stops if a != b and rng.random() < 0.1]
    walks = [(a, b, rng.randint(1, 8) * 60) for a, b in pairs]
    return parse_timetable("\n".join(lines), stops=stops), walks


TT, WALKS = _timetable()


def _searches() -> list[Any]:
    rng = random.Random(3)
    out = []
    for _ in range(16):
        a, b = rng.sample(TT.stop_names, 2)
        arrive_by = rng.random() < 0.3
        time = rng.randint(0, 3600) + (7200 if arrive_by else 0)
        for criteria in ("cost", "arrival"):
            out.append(TT.request({a: 30}, {b: 45}, time, criteria=criteria,
                                  transfers=WALKS, arrive_by=arrive_by))  # fmt: skip
    return out


def _answers() -> list[Any]:
    reqs = _searches()
    return [route(TT.timetable, r) for r in reqs] + [
        earliest_arrivals(TT.timetable, r).tolist() for r in reqs
    ]


def _in_new_thread() -> list[Any]:
    """The answers in a thread of their own (fresh pools)."""
    out: list[Any] = []
    worker = threading.Thread(target=lambda: out.append(_answers()))
    worker.start()
    worker.join()
    return out[0]


def test_reused_pools_find_what_fresh_ones_do() -> None:
    fresh = _in_new_thread()
    assert any(journeys for journeys in fresh[:32])
    # this thread's pools, reused by every search (and by each of the three passes)
    assert _answers() == _answers() == fresh


def test_overflowing_pools_grow_and_find_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    want = _in_new_thread()
    grown: list[int] = []
    statuses: list[int] = []
    take, run_mc = _label_pools.take_mc_labels, api.run_mc

    def tiny_first(n_rounds: int, n_stops: int, cap: int, dest_cap: int, rb_cap: int) -> Any:
        lab = take(n_rounds, n_stops, cap, dest_cap, rb_cap)
        grown.append(lab.time.shape[0])
        return lab

    def counted(*args: Any) -> int:
        status = int(run_mc(*args))
        statuses.append(status)
        return status

    # every McRAPTOR search starts with room for 2 labels, 1 journey and route bags of 1
    monkeypatch.setattr(_label_pools, "FIRST_LABELS", 2)
    monkeypatch.setattr(_label_pools, "_FIRST_DEST", 1)
    monkeypatch.setattr(_label_pools, "KEEP_LABELS", 2)
    monkeypatch.setattr(api, "_LEAST_LABELS", 2)
    monkeypatch.setattr(api, "_LABELS_PER_STOP", 0)
    monkeypatch.setattr(api, "_LEAST_DEST", 0)
    monkeypatch.setattr(api, "_FIRST_ROUTE_BAG", 1)
    monkeypatch.setattr(api, "take_mc_labels", tiny_first)
    monkeypatch.setattr(api, "run_mc", counted)
    assert _in_new_thread() == want
    assert min(grown) == 2
    assert max(grown) > 2  # searches overflowed and ran again
    # labels, route bags and journeys all overflowed
    assert {OVERFLOW_LABELS, OVERFLOW_ROUTE_BAG, OVERFLOW_DEST} <= set(statuses)


def test_round_labels_come_back_unreached() -> None:
    req = _searches()[1]
    earliest_arrivals(TT.timetable, req)  # a search in this thread, its labels given back
    n_rounds = req.max_rounds + 1
    lab = _label_pools.take_round_labels(n_rounds, TT.timetable.n_stops)
    fresh = new_round_labels(n_rounds, TT.timetable.n_stops)
    for name in lab._fields:
        if name != "changed_list":  # never read before it is written
            assert np.array_equal(getattr(lab, name), getattr(fresh, name)), name
    _label_pools.give_round_labels(lab)


def test_threads_search_at_the_same_time_with_their_own_pools() -> None:
    want = _in_new_thread()
    results: list[list[Any]] = []
    lock = threading.Lock()
    start = threading.Barrier(4)

    def work() -> None:
        start.wait()
        got = [_answers() for _ in range(3)]
        with lock:
            results.extend(got)

    workers = [threading.Thread(target=work) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert len(results) == 12
    assert all(r == want for r in results)


def test_large_round_labels_are_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    n_rounds, n_stops = 3, TT.timetable.n_stops
    lab = _label_pools.take_round_labels(n_rounds, n_stops)
    _label_pools.give_round_labels(lab)
    assert _label_pools.take_round_labels(n_rounds, n_stops) is lab  # kept, lent again
    monkeypatch.setattr(_label_pools, "KEEP_ROUND_CELLS", n_rounds * n_stops - 1)
    _label_pools.give_round_labels(lab)
    assert _label_pools.take_round_labels(n_rounds, n_stops) is not lab
