"""FEATURE UNDER TEST: the target arrival search boards only where the rides left can still
reach the destination.

``run_rounds(..., last_round)`` marks a stop for boarding in the next round only up to
round ``last_round[s]`` (``max_rounds`` less the lower bound of the rides still needed
from the stop, :func:`otpa.transit.raptor._heuristic.lower_bounds`; ``-1``: never), and
walks on from a ride only up to that round.  A label beyond it cannot be part of a
journey within ``max_rounds``, so the journeys the search reports (round, egress entry,
arrival) and their legs are those of the search that marks everything.  One round too
few per stop loses journeys.
"""

from __future__ import annotations

import random

import numpy as np
from _raptor_net import random_walks, trip_line

from otpa.testing.timetable import TestTimetable, parse_timetable
from otpa.transit.raptor._heuristic import lower_bounds
from otpa.transit.raptor._prepare import Prepared, prepare
from otpa.transit.raptor._reconstruct import round_path
from otpa.transit.raptor._round_kernel import (
    NO_LAST,
    NO_RIDDEN,
    improving_rounds,
    new_round_labels,
    run_rounds,
)
from otpa.transit.raptor.api import RaptorRequest, route


def _network(seed: int) -> tuple[TestTimetable, list[tuple[str, str, int]]]:
    """Lines over 40 stops in a few clusters: journeys need several rides."""
    rng = random.Random(seed)
    stops = [f"S{i}" for i in range(40)]
    lines = []
    for r in range(24):
        # mostly within a cluster of 10 stops, sometimes on to the next one
        c = rng.randrange(4)
        pool = stops[10 * c : 10 * c + 10] + rng.sample(stops[10 * ((c + 1) % 4) :][:10], 2)
        seq = rng.sample(pool, rng.randint(4, 7))
        hops = [rng.randint(2, 10) * 60 for _ in seq[1:]]
        first = rng.randint(0, 9) * 60
        for start in range(first, first + 3 * 3600, rng.choice([600, 900, 1200])):
            lines.append(trip_line(f"R{r}", seq, start, hops))
    walks = random_walks(rng, stops, 0.04, 6)
    return parse_timetable("\n".join(lines), stops=stops), walks


def _requests(tt: TestTimetable, walks: list[tuple[str, str, int]]) -> list[RaptorRequest]:
    rng = random.Random(7)
    out = []
    for _ in range(15):
        a, b, c = rng.sample(tt.stop_names, 3)
        arrive_by = rng.random() < 0.3
        time = rng.randint(0, 3600) + (2 * 3600 if arrive_by else 0)
        options = {
            "arrive_by": arrive_by,
            "max_rounds": rng.choice([1, 2, 3, 4]),
            "criteria": rng.choice(["cost", "arrival"]),
        }
        out.append(tt.request({a: 30}, {b: 45, c: 240}, time, transfers=walks, **options))
    return out


def _last_round(p: Prepared, req: RaptorRequest, less: int = 0) -> np.ndarray:
    rides = lower_bounds(p, req, -np.inf).rides
    last = np.where(np.isfinite(rides), p.query.max_rounds - rides - less, -1.0)
    return last.astype(np.int32)


def _found(p: Prepared, last: np.ndarray) -> list[tuple[int, int, int, str]]:
    """The reported journeys of the round search with ``last_round`` = ``last``: round,
    egress entry, arrival and the legs' repr."""
    q = p.query
    lab = new_round_labels(q.max_rounds + 1, p.timetable.n_stops)
    run_rounds(p.timetable, q, lab, q.time, True, NO_RIDDEN, last)
    rows = improving_rounds(lab.r_time, q.egress_stops, q.egress_time, q.max_rounds)
    return [
        (int(k), int(i), int(t), repr(round_path(p, lab, int(k), int(q.egress_stops[i]))))
        for k, i, t in rows
    ]


def test_marking_by_the_rides_left_reports_the_same_journeys() -> None:
    compared = pruned = lost = found = 0
    for seed in range(5):
        tt, walks = _network(seed)
        for req in _requests(tt, walks):
            p = prepare(tt.timetable, req)
            plain = _found(p, NO_LAST)
            last = _last_round(p, req)
            assert _found(p, last) == plain
            compared += 1
            found += len(plain)
            pruned += int((last < p.query.max_rounds).sum() > 0)
            # one round too few: the last ride of some journey is never boarded
            lost += _found(p, _last_round(p, req, less=1)) != plain
    assert compared == 75
    assert found >= 50
    assert pruned >= 60  # the bounds cut marks in most searches ...
    assert lost >= 5  # ... and are tight: one round less loses journeys


def test_a_stop_that_cannot_reach_the_destination_is_never_boarded_from() -> None:
    # S1 lies on the way to S2 only by R1, which leaves S1 before R0 arrives; from S1 only R2
    # goes on, away from S2: the bound is infinite at S3, and the journey S0 -> S2 is R0+R1'
    tt = parse_timetable(
        "R0 S0 08:00 S1 08:10\nR1 S1 08:20 S2 08:30\nR2 S1 08:15 S3 08:25",
        stops=["S0", "S1", "S2", "S3"],
    )
    req = tt.request({"S0": 0}, {"S2": 0}, "08:00", max_rounds=3)
    p = prepare(tt.timetable, req)
    last = _last_round(p, req)
    assert last.tolist() == [1, 2, 3, -1]  # S0: 2 rides left, S1: 1, S2: 0, S3: never
    assert _found(p, last) == _found(p, NO_LAST)
    journeys = route(tt.timetable, req)
    assert [(j.n_rides, j.arrival) for j in journeys] == [(2, 8 * 3600 + 30 * 60)]
