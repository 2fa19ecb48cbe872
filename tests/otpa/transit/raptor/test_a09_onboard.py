"""FEATURE UNDER TEST: journeys that start on board a trip (depart on board).

The rider is on a vehicle at the request time, before it reaches position
``next_pos``: the journey starts with that trip (``TransitLeg.onboard``, starting
at the request time), which cannot be left before ``next_pos``; nothing else can
be boarded before the rider gets off.  The start is no boarding: no board cost,
slack or wait, and it does not count against ``max_rounds``.  ``delay_s`` shifts
the rest of the trip; the vehicle may continue as an interlined trip.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from otpa.testing.timetable import format_time, parse_timetable
from otpa.transit.raptor.api import OnBoard, RaptorJourney, RaptorRequest, TransitLeg, route
from otpa.transit.raptor.spi import StaySeated

TT = parse_timetable(
    """
    IC  A 00:01  C 00:04  E 00:10
    S1  A 00:01  B 00:03  C 00:05
    S2  C 00:06  B 00:09  A 00:11
    X   C 00:03  B 00:07
    L   E 00:12  F 00:20
    """
)
IC = TT.trip("IC", 0)


def legs(j: RaptorJourney) -> str:
    """Rides as ``*IC C 00:02-00:04`` (``*``: on board, ``=``: stayed seated)."""
    out = []
    for leg in j.legs:
        if isinstance(leg, TransitLeg):
            mark = "*" if leg.onboard else "=" if leg.interline else ""
            out.append(
                f"{mark}{TT.route_names[leg.route]} {TT.stop_names[leg.alight_stop]} "
                f"{format_time(leg.start)}-{format_time(leg.end)}"
            )
    return " ".join(out)


def request(destination: str, time: str, onboard: OnBoard, **kw: Any) -> RaptorRequest:
    return TT.request({}, destination, time, onboard=onboard, **kw)


def paths(destination: str, time: str, onboard: OnBoard, **kw: Any) -> list[str]:
    return [legs(j) for j in route(TT.timetable, request(destination, time, onboard, **kw))]


def test_ride_on_to_a_later_stop() -> None:
    for criteria in ("arrival", "cost"):
        [j] = route(TT.timetable, request("C", "00:02", OnBoard(IC, 1), criteria=criteria))
        assert legs(j) == "*IC C 00:02-00:04"
        (leg,) = j.legs[:-1]
        assert isinstance(leg, TransitLeg)
        assert (leg.board_pos, leg.alight_pos, TT.stop_names[leg.board_stop]) == (0, 1, "A")
        assert j.n_rides == 1
        assert (j.departure, j.arrival) == (120, 240)
        # riding time only: no board cost, no wait
        assert j.cost == 240 - 120


def test_nothing_is_boarded_before_getting_off() -> None:
    # X leaves C at 00:03, before the IC gets there (00:04); S1 left A without the rider
    assert paths("B", "00:02", OnBoard(IC, 1)) == ["*IC C 00:02-00:04 S2 B 00:06-00:09"]


def test_slack_applies_to_the_transfer_only() -> None:
    # a 2 min board slack neither delays the start nor is charged; S2 leaves C at 00:06,
    # just in time after the IC's arrival at 00:04; 3 min would miss it
    [j] = route(TT.timetable, request("B", "00:02", OnBoard(IC, 1), board_slack_s=120))
    assert legs(j) == "*IC C 00:02-00:04 S2 B 00:06-00:09"
    assert j.cost == (240 - 120) + 600 + (360 - 240) + (540 - 360)
    assert paths("B", "00:02", OnBoard(IC, 1), board_slack_s=180) == []


def test_on_board_start_does_not_count_as_a_ride() -> None:
    assert paths("B", "00:02", OnBoard(IC, 1), max_rounds=1) == [
        "*IC C 00:02-00:04 S2 B 00:06-00:09"
    ]


def test_later_next_stop() -> None:
    # past C: the rider can only leave at E
    assert paths("F", "00:05", OnBoard(IC, 2)) == ["*IC E 00:05-00:10 L F 00:12-00:20"]
    assert paths("B", "00:05", OnBoard(IC, 2)) == []


def test_delay_shifts_the_rest_of_the_trip() -> None:
    # 90 s late: the IC reaches E at 00:11:30, still in time for L at 00:12
    [j] = route(TT.timetable, request("F", "00:05", OnBoard(IC, 2, delay_s=90)))
    first = j.legs[0]
    assert isinstance(first, TransitLeg)
    assert (first.start, first.end) == (300, 690)
    assert legs(j).endswith("L F 00:12-00:20")
    # 3 min late: L is missed
    assert paths("F", "00:05", OnBoard(IC, 2, delay_s=180)) == []


def test_vehicle_continuing_as_another_trip() -> None:
    stay = StaySeated(np.array([IC], np.int32), np.array([TT.trip("L", 0)], np.int32))
    assert paths("F", "00:05", OnBoard(IC, 2), stay_seated=stay) == [
        "*IC E 00:05-00:10 =L F 00:12-00:20"
    ]


def test_invalid_on_board_starts() -> None:
    with pytest.raises(ValueError, match="arrive_by"):
        request("C", "00:02", OnBoard(IC, 1), arrive_by=True)
    with pytest.raises(ValueError, match="next_pos"):
        route(TT.timetable, request("C", "00:02", OnBoard(IC, 0)))
    with pytest.raises(ValueError, match="after the on-board trip reaches"):
        route(TT.timetable, request("C", "00:05", OnBoard(IC, 1)))
