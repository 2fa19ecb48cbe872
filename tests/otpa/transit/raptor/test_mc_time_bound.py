"""FEATURE UNDER TEST: McRAPTOR's time bound (every second until the earliest arrival costs).

A label at time ``t`` still has to fill the seconds until the earliest arrival at the
destination (``ea_min``), each at no less than the least cost rate of waiting, riding,
walking and egress (alight slacks aside): the kernel adds ``rho * (ea_min - t)`` to its
destination tests (:func:`otpa.transit.raptor._mc_kernel.time_rates`).  Late-evening
searches whose journeys run next morning are where it prunes.  The journeys must be
those found without it, for any wait reluctance, walk and egress rates below it,
alight slacks (uncharged seconds) and arrive-by searches; a bound a little too high
must lose journeys (the bound is tight, so these requests would show an unsafe one).
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from typing import Any

import numpy as np
import pytest

from otpa.testing.timetable import TestTimetable, parse_timetable
from otpa.transit.raptor import _heuristic, api
from otpa.transit.raptor.api import RaptorJourney, RaptorRequest, route


def _clock(t: int) -> str:
    return f"{t // 3600:02d}:{t // 60 % 60:02d}"


def _evening_and_morning(seed: int) -> tuple[TestTimetable, list[tuple[str, str, int]]]:
    """Random lines: 00:00-01:30 ("evening") among stops S0-S13 only, 07:00-08:30
    ("morning") among all: from S0-S13 to S14-S23 the journeys run next morning."""
    rng = random.Random(seed)
    stops = [f"S{i}" for i in range(24)]
    lines = []
    for r in range(16):
        evening = r % 2 == 0
        seq = rng.sample(stops[:14] if evening else stops, rng.randint(3, 7))
        hops = [rng.randint(2, 12) * 60 for _ in seq[1:]]
        for band in (0,) if evening else (7 * 3600,):
            for start in range(band + rng.randint(0, 9) * 60, band + 5400, rng.choice([900, 1500])):
                t, parts = start, []
                for s, h in zip(seq, [0, *hops], strict=True):
                    t += h
                    parts.append(f"{s} {_clock(t)}")
                lines.append(f"R{r} " + " ".join(parts))
    pairs = [(a, b) for a, b in itertools.permutations(stops, 2) if rng.random() < 0.04]
    walks = [(a, b, rng.randint(1, 8) * 60) for a, b in pairs]
    return parse_timetable("\n".join(lines), stops=stops), walks


@pytest.fixture(scope="module", params=range(3))
def network(request: pytest.FixtureRequest) -> tuple[TestTimetable, list[tuple[str, str, int]]]:
    return _evening_and_morning(request.param)


def _requests(tt: TestTimetable, walks: list[tuple[str, str, int]]) -> list[RaptorRequest]:
    """Evening departures (and morning arrive-by) with varied rates and slacks."""
    rng = random.Random(5)
    out = []
    for i in range(14):
        arrive_by = i % 4 == 3
        a = rng.choice(tt.stop_names[:14])
        b, c = rng.sample(tt.stop_names[14:], 2)
        # arriving early in the morning: the latest departures leave the evening before
        time = rng.randint(7 * 3600 + 600, 7 * 3600 + 2400) if arrive_by else rng.randint(0, 4800)
        walk_rate = (0.3, 1.0, 2.5)[i % 3]
        options: dict[str, Any] = {
            "arrive_by": arrive_by,
            "max_rounds": rng.choice([2, 3, 4]),
            "criteria": "cost",
            "wait_reluctance": (1.0, 0.4, 2.0, 0.0)[i % 4] if i < 12 else 1.0,
            "wait_at_beginning_factor": rng.choice([0.0, 0.4, 1.0]),
            "alight_slack_s": (0, 0, 180)[i % 3] if i < 12 else 600,
            "board_slack_s": rng.choice([0, 60]),
            "transfer_slack_s": rng.choice([0, 120]),
            "search_window_s": 12 * 3600,
        }
        req = tt.request({a: 30}, {b: 45, c: 300}, time, transfers=walks, **options)
        out.append(
            dataclasses.replace(
                req,
                transfer_cost=req.transfer_cost * walk_rate,
                egress_cost=req.egress_cost * (0.5 + walk_rate) / 2,
                access_cost=req.access_cost * walk_rate,
            )
        )
    return out


def _no_time_bound(q: Any, walk: float) -> tuple[float, float, int]:
    return 0.0, 0.0, 0


def _search(tt: TestTimetable, reqs: list[RaptorRequest]) -> list[list[RaptorJourney]]:
    _heuristic._BOUNDS.clear()
    return [route(tt.timetable, r) for r in reqs]


def _rates(tt: TestTimetable, req: RaptorRequest) -> tuple[float, float, int]:
    walk = api.walk_rate(req.transfer_time_s, req.transfer_cost)
    return api.time_rates(api.prepare(tt.timetable, req).query, walk)


def test_rates_are_the_least_rates_of_the_request() -> None:
    tt, _ = _evening_and_morning(0)
    req = tt.request({"S1": 30}, {"S2": 40}, 0, transfers=[("S1", "S3", 100)],
                     criteria="cost", wait_reluctance=0.8, alight_slack_s=30,
                     wait_at_beginning_factor=0.5)  # fmt: skip
    assert _rates(tt, req) == (0.8, 0.4, 30)
    assert _rates(tt, dataclasses.replace(req, transfer_cost=req.transfer_cost * 0.25)) == (
        0.25,
        0.25,
        30,
    )
    cheap = dataclasses.replace(req, egress_cost=np.asarray([10.0]))  # 10 for 40 s
    assert _rates(tt, cheap) == (0.25, 0.25, 30)
    assert _rates(tt, dataclasses.replace(req, arrive_by=True)) == (0.8, 0.4, 0)  # board slack
    assert _rates(tt, dataclasses.replace(req, wait_reluctance=0.0))[:2] == (0.0, 0.0)
    no_walks = tt.request({"S1": 30}, {"S2": 0}, 0, criteria="cost")
    assert api.walk_rate(no_walks.transfer_time_s, no_walks.transfer_cost) == np.inf
    assert _rates(tt, no_walks) == (1.0, 0.4, 0)
    # a NaN or negative rate (the request refuses both) switches the bound off, never ignored
    nan_walk = api.time_rates(api.prepare(tt.timetable, req).query, float("nan"))
    assert nan_walk == (0.0, 0.0, 0)
    assert api.time_rates(api.prepare(tt.timetable, req).query, -1.0) == (0.0, 0.0, 0)


def test_the_time_bound_keeps_every_journey(
    network: tuple[TestTimetable, list[tuple[str, str, int]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same journeys (legs and costs) with and without the time bound, and the
    bound prunes: fewer labels in the late-evening searches."""
    tt, walks = network
    reqs = _requests(tt, walks)
    counts: list[int] = []
    kernel = api.run_mc

    def counted(*args: Any) -> int:
        status: int = kernel(*args)
        counts.append(int(args[2].used[0]))
        return status

    monkeypatch.setattr(api, "run_mc", counted)
    bounded = _search(tt, reqs)
    with_bound = sum(counts)
    counts.clear()
    monkeypatch.setattr(api, "time_rates", _no_time_bound)
    unbounded = _search(tt, reqs)
    assert sum(len(js) for js in unbounded) >= 10
    assert any(j.arrival - j.departure > 5 * 3600 for js in unbounded for j in js)
    assert bounded == unbounded
    assert with_bound < sum(counts)


def test_a_bound_a_little_too_high_loses_journeys(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Rates 10 % above the least ones, or alight slacks charged, prune journeys the
    search must keep: these requests would catch a bound that is not admissible."""
    tests = [(tt, _requests(tt, walks)) for tt, walks in map(_evening_and_morning, range(3))]
    exact = [_search(tt, reqs) for tt, reqs in tests]
    true_rates = api.time_rates

    def too_high(q: Any, walk: float) -> tuple[float, float, int]:
        rho, rho_a, slack = true_rates(q, walk)
        return 1.1 * rho, 1.1 * rho_a, slack

    def slack_charged(q: Any, walk: float) -> tuple[float, float, int]:
        rho, rho_a, _ = true_rates(q, walk)
        return rho, rho_a, 0

    for wrong in (too_high, slack_charged):
        monkeypatch.setattr(api, "time_rates", wrong)
        assert [_search(tt, reqs) for tt, reqs in tests] != exact, wrong.__name__
