"""FEATURE UNDER TEST: McRAPTOR ("cost" criteria): the (arrival, rides, cost) Pareto set.

Generalized cost: access and egress cost, per boarding ``board_cost`` and the
route's penalty, ``transfer_penalty`` and ``wait_reluctance`` per second of
waiting before every boarding after the first, the wait at the origin at
``wait_at_beginning_factor * wait_reluctance``, one per second in the vehicle
and the cost of walking transfers.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from otpa.testing.timetable import TestTimetable, parse_timetable
from otpa.transit.raptor.api import (
    AccessLeg,
    EgressLeg,
    RaptorJourney,
    RaptorRequest,
    TransferLeg,
    route,
)

TWO_LINES = parse_timetable(
    """
    R1  A 00:00  C 00:10
    R2  A 00:00  C 00:12
    """
)


def summary(tt: TestTimetable, req: RaptorRequest) -> list[tuple[str, float]]:
    return [(tt.path(j), j.cost) for j in route(tt.timetable, req)]


def test_cheaper_but_later_journey_is_kept() -> None:
    penalty = np.asarray([600.0, 0.0])
    req = TWO_LINES.request("A", "C", "00:00", route_penalty=penalty, criteria="cost")
    # R1: board 600 + penalty 600 + 10 min; R2: board 600 + 12 min
    assert summary(TWO_LINES, req) == [
        ("A ~ R1 00:00 00:10 ~ C", 1800.0),
        ("A ~ R2 00:00 00:12 ~ C", 1320.0),
    ]
    req = TWO_LINES.request("A", "C", "00:00", route_penalty=penalty)
    assert summary(TWO_LINES, req) == [("A ~ R1 00:00 00:10 ~ C", 1800.0)]


WALK_OR_WAIT = parse_timetable(
    """
    R1  A 00:00  B 00:10
    R2  B 00:20  D 00:30
    R3  E 00:14  D 00:31
    """
)


def test_walking_instead_of_waiting() -> None:
    req = WALK_OR_WAIT.request(
        "A", "D", "00:00", transfers=[("B", "E", 120)], wait_reluctance=2.0, criteria="cost"
    )
    # waiting 10 min at B costs 1200; walking 2 min (120) and waiting 2 min (240) is cheaper
    assert summary(WALK_OR_WAIT, req) == [
        ("A ~ R1 00:00 00:10 ~ B ~ R2 00:20 00:30 ~ D", 600 + 600 + 600 + 1200 + 600.0),
        ("A ~ R1 00:00 00:10 ~ B ~ Walk 2m ~ E ~ R3 00:14 00:31 ~ D", 1200 + 120 + 240 + 1620.0),
    ]
    # with waiting at reluctance 1 the walk is later and dearer
    req = WALK_OR_WAIT.request("A", "D", "00:00", transfers=[("B", "E", 120)], criteria="cost")
    assert summary(WALK_OR_WAIT, req) == [("A ~ R1 00:00 00:10 ~ B ~ R2 00:20 00:30 ~ D", 3000.0)]


FEWER_RIDES = parse_timetable(
    """
    R1  A 00:00  B 00:05
    R2  B 00:06  C 00:10
    R3  A 00:00  C 00:20
    """
)


def test_fewer_rides_is_a_criterion() -> None:
    req = FEWER_RIDES.request("A", "C", "00:00", criteria="cost")
    assert [(j.n_rides, j.arrival, j.cost) for j in route(FEWER_RIDES.timetable, req)] == [
        (2, 600, 600 + 300 + 600 + 60 + 240.0),
        (1, 1200, 600 + 1200.0),
    ]
    req = FEWER_RIDES.request("A", "C", "00:00", criteria="cost", max_rounds=1)
    assert [(j.n_rides, j.arrival) for j in route(FEWER_RIDES.timetable, req)] == [(1, 1200)]


ONE = parse_timetable("R1  A 00:10  B 00:20")


@pytest.mark.parametrize("criteria", ["arrival", "cost"])
def test_wait_at_the_origin(criteria: str) -> None:
    req = ONE.request("A", "B", "00:00", criteria=criteria)
    assert [j.cost for j in route(ONE.timetable, req)] == [0.4 * 600 + 600 + 600]
    req = ONE.request("A", "B", "00:00", criteria=criteria, wait_at_beginning_factor=0.0)
    assert [j.cost for j in route(ONE.timetable, req)] == [1200.0]
    # arrive-by: the wait at the destination counts instead
    req = ONE.request("A", "B", "00:30", criteria=criteria, arrive_by=True)
    assert [j.cost for j in route(ONE.timetable, req)] == [0.4 * 600 + 600 + 600]


def test_access_and_egress_costs_count() -> None:
    req = ONE.request({"A": 60}, {"B": 30}, "00:09", criteria="cost")
    [j] = route(ONE.timetable, req)
    assert j.cost == 60 + 600 + 600 + 30


def _random_timetable(seed: int) -> tuple[TestTimetable, list[tuple[str, str, int]]]:
    rng = random.Random(seed)
    stops = [f"S{i}" for i in range(12)]
    lines = []
    for r in range(7):
        seq = rng.sample(stops, rng.randint(3, 6))
        hops = [rng.randint(2, 9) * 60 for _ in seq[1:]]
        for start in range(rng.randint(0, 9) * 60, 3 * 3600, rng.choice([600, 900, 1200])):
            t, parts = start, []
            for s, h in zip(seq, [0, *hops], strict=True):
                t += h
                parts.append(f"{s} {t // 3600:02d}:{t // 60 % 60:02d}")
            lines.append(f"R{r} " + " ".join(parts))
    pairs = [(a, b) for a, b in itertools.permutations(stops, 2) if rng.random() < 0.08]
    walks = [(a, b, rng.randint(1, 8) * 60) for a, b in pairs]
    return parse_timetable("\n".join(lines), stops=stops), walks


def _cost(req: RaptorRequest, j: RaptorJourney) -> float:
    """The generalized cost of a journey, computed independently from its legs (no slacks)."""
    w = req.wait_reluctance
    cost = 0.0
    free_at = None
    rides = 0
    for leg in j.legs:
        if isinstance(leg, AccessLeg):
            cost += float(req.access_cost[leg.index])
        elif isinstance(leg, EgressLeg):
            cost += float(req.egress_cost[leg.index])
        elif isinstance(leg, TransferLeg):
            cost += float(req.transfer_cost[leg.edge])
            free_at = free_at + leg.duration_s
        else:
            cost += req.board_cost + (leg.end - leg.start)
            if rides:
                cost += req.transfer_penalty + w * (leg.start - free_at)
            rides += 1
            free_at = leg.end
    first, last = j.transit_legs[0], j.transit_legs[-1]
    if req.arrive_by:
        egress_time = j.legs[-1].duration_s
        cost += req.wait_at_beginning_factor * w * (req.time - last.end - egress_time)
    else:
        access_time = j.legs[0].duration_s
        cost += req.wait_at_beginning_factor * w * (first.start - req.time - access_time)
    return cost


@pytest.mark.parametrize("seed", range(6))
def test_pareto_set_on_random_timetables(seed: int) -> None:
    tt, walks = _random_timetable(seed)
    rng = random.Random(100 + seed)
    for _ in range(12):
        a, b = rng.sample(tt.stop_names, 2)
        arrive_by = rng.random() < 0.3
        time = rng.randint(0, 3600) + (5400 if arrive_by else 0)
        kw = {"transfers": walks, "arrive_by": arrive_by, "wait_reluctance": rng.choice([1.0, 2.0])}
        cost_req = tt.request({a: 30}, {b: 45}, time, criteria="cost", **kw)
        arr_req = tt.request({a: 30}, {b: 45}, time, **kw)
        mc = route(tt.timetable, cost_req)
        fast = route(tt.timetable, arr_req)
        # the earliest (latest for arrive-by) journey of each number of rides is in the set
        key = (lambda j: -j.departure) if arrive_by else (lambda j: j.arrival)
        assert min(map(key, mc), default=None) == min(map(key, fast), default=None)
        for j in mc:
            assert j.cost == pytest.approx(_cost(cost_req, j))
        for j in fast:
            assert j.cost == pytest.approx(_cost(arr_req, j))
        # no journey of the set dominates another
        for x, y in itertools.permutations(mc, 2):
            assert not (key(x) <= key(y) and x.n_rides <= y.n_rides and x.cost <= y.cost)
        # and no journey of the arrival search dominates one of the set
        for x, y in itertools.product(fast, mc):
            assert not (key(x) <= key(y) and x.n_rides <= y.n_rides and x.cost < y.cost)
