"""FEATURE UNDER TEST: transfers.txt rules, with OpenTripPlanner 1.x semantics.

Forbidden (3), timed (1: no slack needed), minimum time (2: at least that long,
never less than the slack), recommended/preferred (0: no non-preferred penalty);
trip-to-trip beats route-to-route beats stop-to-stop; rules of a lower level
(the stops themselves before their parent stations) win.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from otpa.testing.timetable import TestRule, TestTimetable, parse_timetable
from otpa.transit.raptor.api import RaptorJourney, route
from otpa.transit.raptor.spi import TransferRules

TT = parse_timetable(
    """
    R1  A 00:00  B 00:10  C 00:20
    R2  B 00:10  D 00:30
    R2  B 00:14  D 00:34
    R2  B 00:20  D 00:40
    R3  C 00:21  D 00:45
    R4  E 00:12  D 00:29
    R4  E 00:16  D 00:33
    """
)

VIA_B_0010 = "A ~ R1 00:00 00:10 ~ B ~ R2 00:10 00:30 ~ D"
VIA_B_0014 = "A ~ R1 00:00 00:10 ~ B ~ R2 00:14 00:34 ~ D"
VIA_B_0020 = "A ~ R1 00:00 00:10 ~ B ~ R2 00:20 00:40 ~ D"
VIA_C = "A ~ R1 00:00 00:20 ~ C ~ R3 00:21 00:45 ~ D"


def best(*rules: TestRule, slack: int = 0, **kw: object) -> str:
    req = TT.request("A", "D", "00:00", transfer_slack_s=slack, rules=TT.rules(*rules), **kw)
    journeys = route(TT.timetable, req)
    return TT.path(journeys[0]) if journeys else ""


def test_without_rules_the_slack_applies() -> None:
    assert best(slack=120) == VIA_B_0014
    assert best() == VIA_B_0010


def test_timed_transfer_needs_no_slack() -> None:
    assert best(TestRule("B", "B", 1), slack=120) == VIA_B_0010


def test_minimum_transfer_time() -> None:
    assert best(TestRule("B", "B", 2, min_time_s=300), slack=120) == VIA_B_0020
    assert best(TestRule("B", "B", 2, min_time_s=240)) == VIA_B_0014


def test_minimum_transfer_time_never_undercuts_the_slack() -> None:
    # OTP 1.x adjustTimeForTransfer takes the later of the two
    assert best(TestRule("B", "B", 2, min_time_s=60), slack=120) == VIA_B_0014


def test_preferred_transfer_changes_no_time() -> None:
    assert best(TestRule("B", "B", 0), slack=120) == VIA_B_0014


def test_forbidden_transfer() -> None:
    assert best(TestRule("B", "B", 3)) == VIA_C


def test_route_to_route_rules_apply_to_their_routes_only() -> None:
    assert best(TestRule("B", "B", 3, from_route="R3", to_route="R2")) == VIA_B_0010
    assert best(TestRule("B", "B", 3, from_route="R1", to_route="R2")) == VIA_C
    assert best(TestRule("B", "B", 3, to_route="R2")) == VIA_C


def test_route_rule_beats_stop_rule() -> None:
    rules = (TestRule("B", "B", 3), TestRule("B", "B", 1, from_route="R1", to_route="R2"))
    assert best(*rules, slack=120) == VIA_B_0010


def test_trip_rule_beats_stop_rule() -> None:
    rules = (
        TestRule("B", "B", 3),
        TestRule("B", "B", 0, from_trip=("R1", 0), to_trip=("R2", 2)),
    )
    assert best(*rules) == VIA_B_0020


def test_rule_on_a_walking_transfer() -> None:
    walk = [("B", "E", 60)]
    no_wait = "A ~ R1 00:00 00:10 ~ B ~ Walk 1m ~ E ~ R4 00:12 00:29 ~ D"
    assert best(TestRule("B", "B", 3), transfers=walk) == no_wait
    # the minimum time counts from the vehicle's arrival and replaces the walk
    with_min = "A ~ R1 00:00 00:10 ~ B ~ Walk 1m ~ E ~ R4 00:16 00:33 ~ D"
    rules = (TestRule("B", "B", 3), TestRule("B", "E", 2, min_time_s=300))
    assert best(*rules, transfers=walk) == with_min
    rules = (TestRule("B", "B", 3), TestRule("B", "E", 3))
    assert best(*rules, transfers=walk) == VIA_C


def test_lower_level_wins_over_a_more_specific_parent_rule() -> None:
    n, b = TT.timetable.n_stops, TT.stop("B")
    key = np.asarray([b * n + b] * 2, np.int64)

    def rules(first_route: int) -> TransferRules:
        # level 0: the stops themselves; level 1: inherited from the from-stop's station
        return TransferRules(
            key=key,
            from_route=np.asarray([first_route, TT.route("R1")], np.int32),
            to_route=np.asarray([-1, TT.route("R2")], np.int32),
            from_trip=np.asarray([-1, -1], np.int32),
            to_trip=np.asarray([-1, -1], np.int32),
            kind=np.asarray([1, 3], np.uint8),
            min_time_s=np.asarray([0, 0], np.int32),
            level=np.asarray([0, 1], np.uint8),
            n_stops=n,
        )

    req = TT.request("A", "D", "00:00", transfer_slack_s=120, rules=rules(TT.route("R1")))
    assert TT.path(route(TT.timetable, req)[0]) == VIA_B_0010
    # the level-0 rule does not match R1: the station's forbidden rule applies
    req = TT.request("A", "D", "00:00", rules=rules(TT.route("R3")))
    assert TT.path(route(TT.timetable, req)[0]) == VIA_C


def test_rules_in_arrive_by_searches() -> None:
    def latest(*rules: TestRule) -> list[str]:
        req = TT.request(
            "A", "D", "00:30", arrive_by=True, transfer_slack_s=120, rules=TT.rules(*rules)
        )
        return [TT.path(j) for j in route(TT.timetable, req)]

    assert latest() == []
    assert latest(TestRule("B", "B", 1)) == [VIA_B_0010]
    assert latest(TestRule("B", "B", 1, from_route="R1", to_route="R3")) == []


PREF = parse_timetable(
    """
    T1  A 00:01  C 00:02  D 00:03  E 00:04
    T2  B 00:02  C 00:03  D 00:04  F 00:05
    """
)
AT_C = "A ~ T1 00:01 00:02 ~ C ~ T2 00:03 00:05 ~ F"
AT_D = "A ~ T1 00:01 00:03 ~ D ~ T2 00:04 00:05 ~ F"


def transfers(*rules: TestRule, **kw: object) -> list[tuple[str, float]]:
    req = PREF.request("A", "F", "00:01", rules=PREF.rules(*rules), **kw)
    return [(PREF.path(j), j.cost) for j in route(PREF.timetable, req)]


def test_non_preferred_transfers_are_penalised_once_a_rule_prefers_one() -> None:
    # 600 per boarding, 1 per second riding or waiting: 1440 either way, + 180 when not preferred
    assert transfers(TestRule("D", "D", 1), criteria="cost") == [(AT_D, 1440.0)]
    assert transfers(TestRule("D", "D", 0), criteria="cost") == [(AT_D, 1440.0)]
    assert transfers(TestRule("C", "C", 0), criteria="cost") == [(AT_C, 1440.0)]
    # the arrival search boards as early as possible; its cost is reported with the penalty
    assert transfers(TestRule("D", "D", 1)) == [(AT_C, 1620.0)]


def test_no_penalty_without_preferred_rules() -> None:
    [(_, cost)] = transfers(TestRule("D", "D", 2), criteria="cost")
    assert cost == 1440.0
    assert transfers(TestRule("D", "D", 2)) == [(AT_C, 1440.0)]


def test_transfer_penalty_and_penalty_parameter() -> None:
    got = transfers(
        TestRule("D", "D", 1),
        criteria="cost",
        transfer_penalty=100.0,
        nonpreferred_transfer_penalty=0.0,
    )
    # without the non-preferred penalty both transfers cost the same: 1440 + 100
    assert [cost for _, cost in got] == [1540.0]


def _chronological(journey: RaptorJourney) -> bool:
    """No leg ends before it starts, none starts before the one before it ends."""
    legs = journey.legs
    return all(leg.start <= leg.end for leg in legs) and all(
        x.end <= y.start for x, y in itertools.pairwise(legs)
    )


# A walk B -> C of 10 minutes; a rule B -> C lets R2 (C 00:22) be boarded before it ends
EARLY = parse_timetable(
    """
    R1  A 00:10  B 00:20
    R2  C 00:22  D 00:30
    R4  C 02:00  D 02:01
    """
)


def early_legs(rule: TestRule, *, arrive_by: bool, criteria: str, **kw: object) -> list[str]:
    """``kind start-end`` of the legs (seconds after midnight) of the one journey A -> D."""
    req = EARLY.request(
        "A", "D", "00:40" if arrive_by else "00:05", transfers=[("B", "C", 600)],
        rules=EARLY.rules(rule), criteria=criteria, arrive_by=arrive_by, **kw,
    )  # fmt: skip
    [journey] = route(EARLY.timetable, req)
    legs = journey.legs
    assert _chronological(journey)
    return [f"{type(leg).__name__[:-3]} {leg.start}-{leg.end}" for leg in legs]


@pytest.mark.parametrize("criteria", ["arrival", "cost"])
@pytest.mark.parametrize("arrive_by", [False, True])
def test_a_walk_before_an_early_boarding_ends_when_the_rule_lets_the_rider_board(
    criteria: str, arrive_by: bool
) -> None:
    # minimum time 0 s (OTP 1.x: the transfers.txt edge of 0 s): the walk takes no time,
    # from R1's arrival (00:20 = 1200); R2 leaves at 1320.  Arrive-by searches keep their
    # walks next to the later ride (as late as possible).
    walk = "Transfer 1320-1320" if arrive_by else "Transfer 1200-1200"
    rides = ["Transit 600-1200", walk, "Transit 1320-1800"]
    got = early_legs(TestRule("B", "C", 2, min_time_s=0), arrive_by=arrive_by, criteria=criteria)
    assert got[1:-1] == rides
    # timed (OTP 1.x TimedTransferEdge: no time, no slack) with an alight slack of 60 s:
    # the walk is at the vehicle's arrival, the egress after the slack
    got = early_legs(
        TestRule("B", "C", 1), arrive_by=arrive_by, criteria=criteria, alight_slack_s=60
    )
    assert got[1:] == [*rides, "Egress 1860-1860"]
    # minimum time 60 s with slacks of 30 s: the walk starts after the alight slack and
    # lasts the minimum time (1230-1290); the board slack passes before R2 leaves
    got = early_legs(
        TestRule("B", "C", 2, min_time_s=60),
        arrive_by=arrive_by, criteria=criteria, board_slack_s=30, alight_slack_s=30,
    )  # fmt: skip
    assert got == [
        "Access 570-570", "Transit 600-1200", "Transfer 1230-1290", "Transit 1320-1800",
        "Egress 1830-1830",
    ]  # fmt: skip


@pytest.mark.parametrize("criteria", ["arrival", "cost"])
def test_a_walk_shorter_than_the_rule_keeps_its_time(criteria: str) -> None:
    # minimum time 900 s: R2 (00:22) is missed, the 10-minute walk takes 10 minutes
    got = early_legs(TestRule("B", "C", 2, min_time_s=900), arrive_by=False, criteria=criteria)
    assert got[1:-1] == ["Transit 600-1200", "Transfer 1200-1800", "Transit 7200-7260"]


def _random_ruled(seed: int) -> tuple[TestTimetable, list[tuple[str, str, int]], TransferRules]:
    """A random timetable, walks, and rules of every kind on half the walks and some stops."""
    rng = random.Random(seed)
    stops = [f"S{i}" for i in range(10)]
    lines = []
    for r in range(6):
        seq = rng.sample(stops, rng.randint(3, 5))
        hops = [rng.randint(2, 9) * 60 for _ in seq[1:]]
        for start in range(rng.randint(0, 9) * 60, 2 * 3600, rng.choice([300, 600, 900])):
            t, parts = start, []
            for s, h in zip(seq, [0, *hops], strict=True):
                t += h
                parts.append(f"{s} {t // 3600:02d}:{t // 60 % 60:02d}")
            lines.append(f"R{r} " + " ".join(parts))
    pairs = [(a, b) for a, b in itertools.permutations(stops, 2) if rng.random() < 0.15]
    walks = [(a, b, rng.randint(1, 12) * 60) for a, b in pairs]
    rows = []
    for a, b, _ in walks:
        if rng.random() < 0.5:
            k = rng.choice([0, 1, 2, 2, 3])
            rows.append(TestRule(a, b, k, min_time_s=rng.randint(0, 10) * 60 if k == 2 else 0))
    rows += [TestRule(s, s, rng.choice([1, 2]), min_time_s=60) for s in rng.sample(stops, 3)]
    tt = parse_timetable("\n".join(lines), stops=stops)
    return tt, walks, tt.rules(*rows)


@pytest.mark.parametrize("seed", range(24))  # main failed seeds 7, 17, 19, 23
def test_legs_are_chronological_under_random_rules(seed: int) -> None:
    tt, walks, rules = _random_ruled(seed)
    rng = random.Random(1000 + seed)
    n = 0
    for _ in range(10):
        a, b = rng.sample(tt.stop_names, 2)
        arrive_by = rng.random() < 0.4
        kw = {
            "transfers": walks, "rules": rules, "arrive_by": arrive_by,
            "board_slack_s": rng.choice([0, 30]), "alight_slack_s": rng.choice([0, 60, 120]),
            "transfer_slack_s": rng.choice([0, 120]),
        }  # fmt: skip
        time = rng.randint(0, 3600) + (5400 if arrive_by else 0)
        for criteria in ("arrival", "cost"):
            req = tt.request({a: 30}, {b: 45}, time, criteria=criteria, **kw)
            for j in route(tt.timetable, req):
                n += 1
                assert _chronological(j), [(leg.start, leg.end) for leg in j.legs]
    assert n > 0
