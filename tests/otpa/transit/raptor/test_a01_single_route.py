"""FEATURE UNDER TEST: riding one route.

The earliest trip that leaves at or after the passenger is ready is boarded;
access legs leave as late as possible; board/alight slack; pick-up and drop-off
restrictions; the search window.
"""

from __future__ import annotations

import numpy as np
import pytest

from otpa.testing.timetable import parse_timetable
from otpa.transit.raptor.api import AccessLeg, EgressLeg, earliest_arrivals, route

TT = parse_timetable(
    """
    R1  A 00:10  B 00:20  C 00:30
    R1  A 00:20  B 00:30  C 00:40
    R1  A 00:30  B 00:40  C 00:50
    R2  A 00:12  E(no-alight) 00:15  F(no-board) 00:18  G 00:21
    """
)


def paths(
    origin: str | dict[str, int], destination: str | dict[str, int], time: str, **kw: object
) -> list[str]:
    return [TT.path(j) for j in route(TT.timetable, TT.request(origin, destination, time, **kw))]


def test_boards_the_trip_leaving_exactly_at_the_time() -> None:
    assert paths("A", "C", "00:10") == ["A ~ R1 00:10 00:30 ~ C"]


def test_a_second_late_takes_the_next_trip() -> None:
    assert paths("A", "C", "00:10:01") == ["A ~ R1 00:20 00:40 ~ C"]


def test_board_later_on_the_route() -> None:
    assert paths("B", "C", "00:25") == ["B ~ R1 00:30 00:40 ~ C"]


def test_after_the_last_trip_there_is_no_journey() -> None:
    assert paths("A", "C", "00:30:01") == []


def test_access_leaves_as_late_as_possible_and_egress_right_after_alighting() -> None:
    [j] = route(TT.timetable, TT.request({"A": 120}, {"C": 60}, "00:05"))
    assert TT.path(j) == "Access 2m ~ A ~ R1 00:10 00:30 ~ C ~ Egress 1m"
    assert j.legs[0] == AccessLeg(stop=TT.stop("A"), index=0, duration_s=120, start=480, end=600)
    assert j.legs[-1] == EgressLeg(stop=TT.stop("C"), index=0, duration_s=60, start=1800, end=1860)
    assert (j.departure, j.arrival, j.n_rides) == (480, 1860, 1)


def test_access_that_arrives_too_late_for_a_trip_takes_the_next() -> None:
    # ready at A at 00:09 + 2 min = 00:11
    assert paths({"A": 120}, "C", "00:09") == ["Access 2m ~ A ~ R1 00:20 00:40 ~ C"]


def test_board_slack_is_needed_before_the_first_boarding() -> None:
    [j] = route(TT.timetable, TT.request("A", "C", "00:09:30", board_slack_s=60))
    assert TT.path(j) == "A ~ R1 00:20 00:40 ~ C"
    # the access leg ends board_slack before the departure
    assert (j.legs[0].start, j.legs[0].end) == (19 * 60, 19 * 60)
    [j] = route(TT.timetable, TT.request("A", "C", "00:09", board_slack_s=60))
    assert TT.path(j) == "A ~ R1 00:10 00:30 ~ C"


def test_alight_slack_delays_the_egress() -> None:
    [j] = route(TT.timetable, TT.request("A", {"C": 60}, "00:10", alight_slack_s=30))
    assert j.legs[-1].start == 30 * 60 + 30
    assert j.arrival == 31 * 60 + 30


def test_no_alight_and_no_board_stops() -> None:
    assert paths("A", "E", "00:00") == []
    assert paths("F", "G", "00:00") == []
    assert paths("A", "F", "00:00") == ["A ~ R2 00:12 00:18 ~ F"]
    assert paths("E", "G", "00:00") == ["E ~ R2 00:15 00:21 ~ G"]


def test_search_window_limits_the_departure() -> None:
    assert paths("A", "C", "00:11", search_window_s=540) == ["A ~ R1 00:20 00:40 ~ C"]
    assert paths("A", "C", "00:11", search_window_s=539) == []


def test_earliest_arrivals_on_one_route() -> None:
    got = earliest_arrivals(TT.timetable, TT.request("A", "C", "00:15"))
    expected = {"A": 15 * 60, "B": 30 * 60, "C": 40 * 60, "E": np.inf, "F": np.inf, "G": np.inf}
    assert {name: got[TT.stop(name)] for name in expected} == expected


def test_several_egress_stops_pick_the_earliest_arrival() -> None:
    [j] = route(TT.timetable, TT.request("A", {"B": 900, "C": 0}, "00:10"))
    # B 00:20 + 15 min = 00:35 is later than C 00:30
    assert TT.path(j) == "A ~ R1 00:10 00:30 ~ C"


@pytest.mark.parametrize("criteria", ["arrival", "cost"])
def test_both_criteria_agree_on_a_single_route(criteria: str) -> None:
    assert paths("A", "C", "00:10", criteria=criteria) == ["A ~ R1 00:10 00:30 ~ C"]
