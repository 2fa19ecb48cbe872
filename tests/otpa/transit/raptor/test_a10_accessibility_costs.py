"""FEATURE UNDER TEST: per-trip boarding costs and per-stop costs (wheelchair accessibility).

``trip_board_cost`` is added to every boarding of a route-trip, ``stop_cost`` to
every boarding and every alighting at a stop; forward and arrive-by searches
and the reported journey costs agree.
"""

from __future__ import annotations

import numpy as np
import pytest

from otpa.testing.timetable import TestTimetable, parse_timetable
from otpa.transit.raptor.api import RaptorRequest, route

# routes and trips are numbered in order: R1's trip is route-trip 0, R2's is 1
TWO_LINES = parse_timetable(
    """
    R1  A 00:00  C 00:10
    R2  B 00:00  C 00:12
    """
)


def summary(tt: TestTimetable, req: RaptorRequest) -> list[tuple[str, float]]:
    return [(tt.path(j), j.cost) for j in route(tt.timetable, req)]


@pytest.mark.parametrize("arrive_by", [False, True])
def test_trip_board_cost_is_paid_per_boarding(arrive_by: bool) -> None:
    time = "00:12" if arrive_by else "00:00"
    options = {"arrive_by": arrive_by, "criteria": "cost", "board_cost": 0.0}
    origin = {"A": 0, "B": 0}
    free = TWO_LINES.request(origin, "C", time, **options)
    # arrive-by 00:12: R1 waits 2 min at C (at 0.4 x the wait reluctance)
    r1 = 600.0 + (48.0 if arrive_by else 0.0)
    assert summary(TWO_LINES, free) == [("A ~ R1 00:00 00:10 ~ C", r1)]
    costly = TWO_LINES.request(origin, "C", time, trip_board_cost=np.array([600.0, 0.0]), **options)
    if arrive_by:  # both leave at 00:00: the cheaper R2 alone
        assert summary(TWO_LINES, costly) == [("B ~ R2 00:00 00:12 ~ C", 720.0)]
    else:  # R1: 10 min + 600; R2: 12 min, later but cheaper, so both are kept
        assert summary(TWO_LINES, costly) == [
            ("A ~ R1 00:00 00:10 ~ C", 1200.0),
            ("B ~ R2 00:00 00:12 ~ C", 720.0),
        ]


@pytest.mark.parametrize("arrive_by", [False, True])
def test_stop_cost_is_paid_at_boarding_and_alighting(arrive_by: bool) -> None:
    time = "00:12" if arrive_by else "00:00"
    options = {"arrive_by": arrive_by, "criteria": "cost", "board_cost": 0.0}
    n = TWO_LINES.timetable.n_stops
    cost = np.zeros(n)
    cost[TWO_LINES.stop("A")] = 600.0
    cost[TWO_LINES.stop("C")] = 20.0  # both rides alight at C
    req = TWO_LINES.request({"A": 0, "B": 0}, "C", time, stop_cost=cost, **options)
    if arrive_by:
        assert summary(TWO_LINES, req) == [("B ~ R2 00:00 00:12 ~ C", 720.0 + 20.0)]
    else:
        assert summary(TWO_LINES, req) == [
            ("A ~ R1 00:00 00:10 ~ C", 600.0 + 600.0 + 20.0),
            ("B ~ R2 00:00 00:12 ~ C", 720.0 + 20.0),
        ]


def test_costs_must_match_the_timetable() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        TWO_LINES.request("A", "C", "00:00", trip_board_cost=np.array([-1.0, 0.0]))
    req = TWO_LINES.request("A", "C", "00:00", stop_cost=np.zeros(1))
    with pytest.raises(ValueError, match="stop_cost"):
        route(TWO_LINES.timetable, req)


ONE_ROUTE = parse_timetable(
    """
    R1  A 00:00  C 00:10
    R1  A 00:05  C 00:15
    """
)


def test_a_later_cheaper_trip_of_the_same_route_is_boarded() -> None:
    # RAPTOR boards the first trip it can catch; with per-trip costs the later trip
    # (no extra cost) is a Pareto-optimal journey too
    options = {"criteria": "cost", "board_cost": 0.0}
    costly = ONE_ROUTE.request("A", "C", "00:00", trip_board_cost=np.array([600.0, 0.0]), **options)
    assert summary(ONE_ROUTE, costly) == [
        ("A ~ R1 00:00 00:10 ~ C", 600.0 + 600.0),
        # 5 min waiting at the start (0.4 x wait reluctance 1) + 10 min riding
        ("A ~ R1 00:05 00:15 ~ C", 120.0 + 600.0),
    ]
    plain = ONE_ROUTE.request("A", "C", "00:00", **options)
    assert summary(ONE_ROUTE, plain) == [("A ~ R1 00:00 00:10 ~ C", 600.0)]
