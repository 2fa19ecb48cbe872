"""FEATURE UNDER TEST: transfers between rides.

In-station and walking transfers, OTP 1.x slack semantics (``minTransferTime``
between alighting and boarding), walking only right after a ride, the rides
limit, and the (arrival, rides) Pareto set.
"""

from __future__ import annotations

import pytest

from otpa.testing.timetable import parse_timetable
from otpa.transit.raptor.api import TransferLeg, earliest_arrivals, route

TT = parse_timetable(
    """
    R1  A 00:00  B 00:10  C 00:20
    R2  B 00:12  D 00:30
    R2  B 00:15  D 00:33
    R3  E 00:13  D 00:25
    R4  C 00:21  D 00:40
    R5  Y 00:20  Z 00:30
    R6  A 00:01  D 00:50
    """,
    stops=["X"],
)


def paths(origin: str, destination: str, time: str, **kw: object) -> list[str]:
    return [TT.path(j) for j in route(TT.timetable, TT.request(origin, destination, time, **kw))]


def test_in_station_transfer() -> None:
    assert paths("A", "D", "00:00") == [
        "A ~ R1 00:00 00:10 ~ B ~ R2 00:12 00:30 ~ D",
        "A ~ R6 00:01 00:50 ~ D",
    ]


def test_walking_transfer() -> None:
    [fast, direct] = route(TT.timetable, TT.request("A", "D", "00:00", transfers=[("B", "E", 120)]))
    assert TT.path(fast) == "A ~ R1 00:00 00:10 ~ B ~ Walk 2m ~ E ~ R3 00:13 00:25 ~ D"
    walk = fast.legs[2]
    assert isinstance(walk, TransferLeg)
    assert (walk.start, walk.end, walk.edge) == (600, 720, 0)
    assert TT.path(direct) == "A ~ R6 00:01 00:50 ~ D"


def test_transfer_slack_between_alighting_and_boarding() -> None:
    # B at 00:10: boarding needs 00:13, the walk to E arrives 00:15 > 00:13, C at 00:20 needs 00:23
    assert paths("A", "D", "00:00", transfer_slack_s=180, transfers=[("B", "E", 120)]) == [
        "A ~ R1 00:00 00:10 ~ B ~ R2 00:15 00:33 ~ D",
        "A ~ R6 00:01 00:50 ~ D",
    ]


SLACK = parse_timetable(
    """
    R1  A 00:10  B 00:20
    R2  B 00:22  C 00:30
    R2  B 00:25  C 00:33
    """
)


def slack_path(**kw: object) -> tuple[str, int, int]:
    [j] = route(SLACK.timetable, SLACK.request("A", "C", "00:08", **kw))
    return SLACK.path(j), j.departure, j.arrival


def test_board_slack_alone_applies_to_transfers_too() -> None:
    # OTP 1.x: alight + board slack <= minTransferTime, the gap is their maximum
    assert slack_path(board_slack_s=120) == (
        "A ~ R1 00:10 00:20 ~ B ~ R2 00:22 00:30 ~ C",
        480,
        1800,
    )


def test_board_and_alight_slack_add_up_at_a_transfer() -> None:
    assert slack_path(board_slack_s=120, alight_slack_s=60) == (
        "A ~ R1 00:10 00:20 ~ B ~ R2 00:25 00:33 ~ C",
        480,
        33 * 60 + 60,
    )


def test_min_transfer_time_is_the_whole_gap() -> None:
    # 120 s board + 60 s alight slack are included in the 300 s minimum transfer time
    path, _, arrival = slack_path(board_slack_s=120, alight_slack_s=60, transfer_slack_s=300)
    assert path == "A ~ R1 00:10 00:20 ~ B ~ R2 00:25 00:33 ~ C"
    assert arrival == 33 * 60 + 60
    assert slack_path(transfer_slack_s=121)[0] == "A ~ R1 00:10 00:20 ~ B ~ R2 00:25 00:33 ~ C"


def test_walking_transfers_are_not_chained() -> None:
    chained = [("B", "X", 60), ("X", "Y", 60)]
    assert paths("A", "Z", "00:00", transfers=chained) == []
    assert paths("A", "Z", "00:00", transfers=[("B", "Y", 120)]) == [
        "A ~ R1 00:00 00:10 ~ B ~ Walk 2m ~ Y ~ R5 00:20 00:30 ~ Z"
    ]


def test_no_walking_transfer_from_the_access_stop() -> None:
    # walks to reach the first stop belong to the access the caller computes
    assert paths("A", "Z", "00:00", transfers=[("A", "Y", 60)]) == []


def test_egress_only_right_after_a_ride() -> None:
    # E is reached by walking only; egress from E would need a walk after a walk
    assert paths("A", "E", "00:00", transfers=[("B", "E", 120)]) == []


def test_rides_limit() -> None:
    assert paths("A", "D", "00:00", max_rounds=1) == ["A ~ R6 00:01 00:50 ~ D"]
    assert paths("A", "Z", "00:00", max_rounds=1, transfers=[("B", "Y", 120)]) == []


def test_pareto_set_has_one_journey_per_number_of_rides() -> None:
    # at 00:01:30 R6 is gone: only the two-ride journey remains
    assert paths("A", "D", "00:00:30") == ["A ~ R6 00:01 00:50 ~ D"]
    journeys = route(TT.timetable, TT.request("A", "D", "00:00"))
    assert [(j.n_rides, j.arrival) for j in journeys] == [(2, 30 * 60), (1, 50 * 60)]


def test_earliest_arrivals_include_walks_and_every_round() -> None:
    req = TT.request("A", "D", "00:00", transfers=[("B", "E", 120), ("C", "Y", 30)])
    got = earliest_arrivals(TT.timetable, req)
    expected = {
        "A": 0,
        "B": 10 * 60,
        "C": 20 * 60,
        "D": 25 * 60,  # two rides via the walk to E
        "E": 12 * 60,
        "Y": 20 * 60 + 30,
        "Z": float("inf"),  # R5 leaves Y at 00:20, before the walk from C arrives
    }
    assert {name: got[TT.stop(name)] for name in expected} == expected


def test_ride_arrivals_leave_out_stops_reached_on_foot() -> None:
    req = TT.request("A", "D", "00:00", transfers=[("B", "E", 120), ("C", "Y", 30)])
    got = earliest_arrivals(TT.timetable, req, arrivals="ride")
    assert got[TT.stop("E")] == float("inf")  # walked to from B only
    assert got[TT.stop("Y")] == float("inf")
    assert got[TT.stop("B")] == 10 * 60
    assert got[TT.stop("D")] == 25 * 60
    assert got[TT.stop("A")] == float("inf")  # the origin is not arrived at by a ride
    with pytest.raises(ValueError, match="arrivals"):
        earliest_arrivals(TT.timetable, req, arrivals="walk")  # type: ignore[arg-type]
