"""FEATURE UNDER TEST: the arrival search skips labels that cannot reach the destination.

``run_rounds_to`` records a label at a stop only in rounds up to ``max_rounds`` less
the rides bound of the stop (:func:`_heuristic.last_rounds`, kept with the McRAPTOR
bounds of the destination).  On random timetables the journeys it finds, their
paths and the planner's results are those of the unpruned search; it does skip
labels; and the kept rounds belong to their own destination and ``max_rounds``.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from otpa.testing.timetable import TestTimetable, parse_timetable
from otpa.transit.raptor import _heuristic, api
from otpa.transit.raptor._label_pools import give_round_labels
from otpa.transit.raptor._prepare import prepare
from otpa.transit.raptor._reconstruct import round_path
from otpa.transit.raptor._round_kernel import EVERY_ROUND
from otpa.transit.raptor.api import RaptorRequest, route


def _network(seed: int) -> tuple[TestTimetable, list[tuple[str, str, int]]]:
    rng = random.Random(seed)
    stops = [f"S{i}" for i in range(40)]
    lines = []
    for r in range(14):
        seq = rng.sample(stops, rng.randint(3, 7))
        hops = [rng.randint(2, 12) * 60 for _ in seq[1:]]
        for start in range(rng.randint(0, 9) * 60, 3 * 3600, rng.choice([900, 1200])):
            t, parts = start, []
            for s, h in zip(seq, [0, *hops], strict=True):
                t += h
                parts.append(f"{s} {t // 3600:02d}:{t // 60 % 60:02d}")
            lines.append(f"R{r} " + " ".join(parts))
    pairs = [(a, b) for a, b in itertools.permutations(stops, 2) if rng.random() < 0.02]
    walks = [(a, b, rng.randint(1, 8) * 60) for a, b in pairs]
    return parse_timetable("\n".join(lines), stops=stops), walks


@pytest.fixture(scope="module", params=range(4))
def network(request: pytest.FixtureRequest) -> tuple[TestTimetable, list[tuple[str, str, int]]]:
    return _network(request.param)


def _requests(tt: TestTimetable, walks: list[tuple[str, str, int]]) -> list[RaptorRequest]:
    rng = random.Random(11)
    out = []
    for _ in range(12):
        a, b, c = rng.sample(tt.stop_names, 3)
        arrive_by = rng.random() < 0.3
        time = rng.randint(0, 3600) + (5400 if arrive_by else 0)
        options = {"arrive_by": arrive_by, "max_rounds": rng.choice([1, 2, 3]), "criteria": "cost"}
        out.append(tt.request({a: 30}, {b: 45, c: 300}, time, transfers=walks, **options))
    return out


def test_pruned_search_finds_the_same_journeys_and_paths(
    network: tuple[TestTimetable, list[tuple[str, str, int]]],
) -> None:
    tt, walks = network
    found_any = skipped = 0
    for req in _requests(tt, walks):
        p = prepare(tt.timetable, req)
        last = _heuristic.last_rounds(p, req)
        lab, found = api._round_search(p, EVERY_ROUND)
        paths = [round_path(p, lab, k, int(p.query.egress_stops[i])) for k, i, _ in found]
        plain_r = lab.r_time.copy()
        give_round_labels(lab)
        lab, found_pruned = api._round_search(p, last)
        assert found_pruned == found
        assert [
            round_path(p, lab, k, int(p.query.egress_stops[i])) for k, i, _ in found_pruned
        ] == paths
        # the search did leave labels out: rides that cannot reach the destination in time
        rounds = np.arange(plain_r.shape[0])[:, None]
        skipped += int(((rounds > last[None, :]) & (plain_r < lab.r_time)).sum())
        give_round_labels(lab)
        found_any += len(found) > 0
    assert found_any >= 3
    assert skipped > 0


def test_plans_are_those_of_the_unpruned_search(
    network: tuple[TestTimetable, list[tuple[str, str, int]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tt, walks = network
    reqs = _requests(tt, walks)
    _heuristic._BOUNDS.clear()
    first = [route(tt.timetable, r) for r in reqs]  # keeps the destinations' bounds
    used = []
    kept_last_rounds = api.kept_last_rounds

    def recorded(p: _heuristic.Prepared, req: RaptorRequest) -> np.ndarray:
        used.append(kept_last_rounds(p, req))
        return used[-1]

    monkeypatch.setattr(api, "kept_last_rounds", recorded)
    pruned = [route(tt.timetable, r) for r in reqs]
    assert any(u.shape[0] > 0 for u in used)  # the second searches were bounded
    monkeypatch.setattr(api, "kept_last_rounds", lambda p, req: EVERY_ROUND)
    plain = [route(tt.timetable, r) for r in reqs]
    assert sum(len(js) for js in plain) >= 3
    assert pruned == plain == first


def test_kept_last_rounds_only_once_the_rides_bounds_are_kept() -> None:
    tt, walks = _network(1)
    req = tt.request({"S1": 30}, {"S2": 0}, 600, transfers=walks, max_rounds=3, criteria="cost")
    p = prepare(tt.timetable, req)
    _heuristic._BOUNDS.clear()
    assert _heuristic.kept_last_rounds(p, req).shape == (0,)
    assert not _heuristic._BOUNDS  # looking creates nothing
    _heuristic.lower_bounds(p, req, 0.0)
    assert np.array_equal(_heuristic.kept_last_rounds(p, req), _heuristic.last_rounds(p, req))
    more = tt.request({"S1": 30}, {"S2": 0}, 600, transfers=walks, max_rounds=5, criteria="cost")
    # rides kept up to 4 only: not enough for 5 rounds
    assert _heuristic.kept_last_rounds(prepare(tt.timetable, more), more).shape == (0,)


def test_last_rounds_are_max_rounds_less_the_rides_bound(
    network: tuple[TestTimetable, list[tuple[str, str, int]]],
) -> None:
    tt, walks = network
    for req in _requests(tt, walks)[:4]:
        p = prepare(tt.timetable, req)
        _heuristic._BOUNDS.clear()
        rides = _heuristic.lower_bounds(p, req).rides
        last = _heuristic.last_rounds(p, req)
        n = req.max_rounds
        expect = np.where(rides <= n, n - np.minimum(rides, n), -1)
        assert np.array_equal(last, expect)
        assert (last[p.query.egress_stops] == n).all()
        assert not last.flags.writeable


def test_kept_rounds_belong_to_their_destination_and_max_rounds() -> None:
    tt, walks = _network(0)
    base = tt.request({"S1": 30}, {"S2": 0}, 600, transfers=walks, max_rounds=3, criteria="cost")
    other_dest = tt.request({"S1": 30}, {"S5": 0}, 600, transfers=walks, max_rounds=3,
                            criteria="cost")  # fmt: skip
    fewer = tt.request({"S1": 30}, {"S2": 0}, 600, transfers=walks, max_rounds=1,
                       criteria="cost")  # fmt: skip
    _heuristic._BOUNDS.clear()
    got = [_heuristic.last_rounds(prepare(tt.timetable, r), r) for r in (base, other_dest, fewer)]
    for r, kept in zip((base, other_dest, fewer), got, strict=True):
        _heuristic._BOUNDS.clear()
        fresh = _heuristic.last_rounds(prepare(tt.timetable, r), r)
        assert np.array_equal(kept, fresh)
    assert not np.array_equal(got[0], got[1])
    assert np.array_equal(got[2], np.maximum(got[0] - 2, -1))
