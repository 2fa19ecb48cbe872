"""FEATURE UNDER TEST: arrive-by searches (latest departure that still arrives in time).

They run backwards on a reversed view of the timetable; legs come back in
travel order, the egress ends at its earliest, walking transfers keep their
direction and slacks mean what they mean forward.
"""

from __future__ import annotations

import numpy as np

from otpa.testing.timetable import parse_timetable
from otpa.transit.raptor.api import EgressLeg, TransferLeg, earliest_arrivals, route

TT = parse_timetable(
    """
    R1  A 00:10  B 00:20  C 00:30
    R1  A 00:20  B 00:30  C 00:40
    R1  A 00:30  B 00:40  C 00:50
    R2  C 00:35  D 00:45
    R2  C 00:45  D 00:55
    R3  E 00:25  F 00:35
    """
)


def by(
    origin: str | dict[str, int], destination: str | dict[str, int], time: str, **kw: object
) -> list[str]:
    req = TT.request(origin, destination, time, arrive_by=True, **kw)
    return [TT.path(j) for j in route(TT.timetable, req)]


def test_latest_departure_that_arrives_in_time() -> None:
    assert by("A", "C", "00:45") == ["A ~ R1 00:20 00:40 ~ C"]
    assert by("A", "C", "00:40") == ["A ~ R1 00:20 00:40 ~ C"]
    assert by("A", "C", "00:39:59") == ["A ~ R1 00:10 00:30 ~ C"]
    assert by("A", "C", "00:29") == []


def test_journey_times_and_leg_order() -> None:
    [j] = route(TT.timetable, TT.request({"A": 120}, {"C": 60}, "00:45", arrive_by=True))
    assert TT.path(j) == "Access 2m ~ A ~ R1 00:20 00:40 ~ C ~ Egress 1m"
    assert (j.departure, j.arrival) == (18 * 60, 41 * 60)  # the egress ends at its earliest
    assert j.legs[-1] == EgressLeg(stop=TT.stop("C"), index=0, duration_s=60, start=2400, end=2460)


def test_transfer_with_slack() -> None:
    assert by("A", "D", "00:55") == ["A ~ R1 00:20 00:40 ~ C ~ R2 00:45 00:55 ~ D"]
    assert by("A", "D", "00:55", transfer_slack_s=600) == [
        "A ~ R1 00:10 00:30 ~ C ~ R2 00:45 00:55 ~ D"
    ]


def test_alight_and_board_slack() -> None:
    [j] = route(TT.timetable, TT.request("A", "C", "00:41", arrive_by=True, alight_slack_s=120))
    assert TT.path(j) == "A ~ R1 00:10 00:30 ~ C"
    assert j.arrival == 32 * 60
    [j] = route(TT.timetable, TT.request("A", "C", "00:45", arrive_by=True, board_slack_s=60))
    assert j.departure == 19 * 60


def test_walking_transfers_keep_their_direction() -> None:
    assert by("A", "F", "00:40", transfers=[("E", "B", 60)]) == []
    [j] = route(
        TT.timetable, TT.request("A", "F", "00:40", arrive_by=True, transfers=[("B", "E", 60)])
    )
    assert TT.path(j) == "A ~ R1 00:10 00:20 ~ B ~ Walk 1m ~ E ~ R3 00:25 00:35 ~ F"
    walk = j.legs[2]
    assert isinstance(walk, TransferLeg)
    # searched backwards, the walk happens as late as possible
    assert (walk.from_stop, walk.to_stop, walk.start, walk.end) == (
        TT.stop("B"),
        TT.stop("E"),
        24 * 60,
        25 * 60,
    )


def test_search_window_backwards() -> None:
    assert by("A", "C", "00:45", search_window_s=300) == ["A ~ R1 00:20 00:40 ~ C"]
    assert by("A", "C", "00:45", search_window_s=299) == []


def test_latest_departures_per_stop() -> None:
    got = earliest_arrivals(TT.timetable, TT.request("A", "C", "00:45", arrive_by=True))
    expected = {"A": 20 * 60, "B": 30 * 60, "C": 45 * 60, "D": -np.inf, "E": -np.inf}
    assert {name: got[TT.stop(name)] for name in expected} == expected


def test_forward_and_backward_agree() -> None:
    [back] = route(TT.timetable, TT.request("A", "D", "00:55", arrive_by=True))
    [fwd] = route(TT.timetable, TT.request("A", "D", back.departure))
    assert fwd.arrival <= 55 * 60
    later = route(TT.timetable, TT.request("A", "D", back.departure + 1))
    assert all(j.arrival > 55 * 60 for j in later)
