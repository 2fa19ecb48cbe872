"""FEATURE UNDER TEST: staying seated through interlined trips (GTFS blocks).

When the vehicle of a trip continues as another trip (``StaySeated`` pairs), a rider
stays on board: no alighting and boarding, so no slack, no board cost, no transfer
penalty and no extra round; the dwell is riding time.  Journeys get one leg per trip,
the later ones marked ``interline``.  Chains of several trips, junctions between two
different stops (no boarding at the first trip's last stop, no alighting at the next
trip's first stop), pairs whose next trip leaves too early, trip bans and arrive-by.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from otpa.testing.timetable import parse_timetable
from otpa.transit.raptor.api import (
    RaptorJourney,
    TransitLeg,
    earliest_arrivals,
    route,
)
from otpa.transit.raptor.spi import StaySeated

TT = parse_timetable(
    """
    R1  A 00:00  B 00:10  C 00:20
    R2  C 00:25  D 00:35  E 00:45
    R3  A 00:01  E 01:00
    R4  E 00:50  F 01:00
    R5  G 00:00  H 00:10
    R6  K 00:12  L 00:20
    R7  M 00:00  N 00:10
    R8  N 00:05  P 00:15
    """
)
# R1 -> R2 -> R4 is one vehicle; R5 ends at H and continues as R6 from K (two stops);
# R8 leaves N before R7 arrives there: not a valid pair
STAY = StaySeated(
    np.array([TT.trip("R1", 0), TT.trip("R2", 0), TT.trip("R5", 0), TT.trip("R7", 0)], np.int32),
    np.array([TT.trip("R2", 0), TT.trip("R4", 0), TT.trip("R6", 0), TT.trip("R8", 0)], np.int32),
)


def legs(j: RaptorJourney) -> str:
    """Rides as ``R1 A-C 00:00-00:20 =R2 C-E ...`` (``=``: stayed seated)."""
    out = []
    for leg in j.legs:
        if isinstance(leg, TransitLeg):
            mark = "=" if leg.interline else ""
            out.append(
                f"{mark}{TT.route_names[leg.route]} {TT.stop_names[leg.board_stop]}"
                f"-{TT.stop_names[leg.alight_stop]} {leg.start // 60}-{leg.end // 60}"
            )
    return " ".join(out)


def paths(origin: str, destination: str, time: str, **kw: Any) -> list[str]:
    req = TT.request(origin, destination, time, stay_seated=STAY, **kw)
    return [legs(j) for j in route(TT.timetable, req)]


def test_stay_seated_is_one_ride() -> None:
    [j] = route(TT.timetable, TT.request("A", "D", "00:00", stay_seated=STAY))
    assert legs(j) == "R1 A-C 0-20 =R2 C-D 25-35"
    assert j.n_rides == 1
    r1, r2 = j.transit_legs
    assert (r1.trip, r2.trip) == (TT.trip("R1", 0), TT.trip("R2", 0))
    assert (r1.board_pos, r1.alight_pos, r2.board_pos, r2.alight_pos) == (0, 2, 0, 1)
    # one board cost, riding time including the 5 min dwell
    assert j.cost == 600 + 35 * 60


def test_without_stay_seated_it_is_a_transfer() -> None:
    [j] = route(TT.timetable, TT.request("A", "D", "00:00"))
    assert legs(j) == "R1 A-C 0-20 R2 C-D 25-35"
    assert j.n_rides == 2
    assert j.cost == 2 * 600 + 30 * 60 + 5 * 60


def test_no_slack_and_no_round_needed() -> None:
    # a 10 min transfer slack would miss R2; seated, it is not a transfer; one round suffices
    assert paths("A", "D", "00:00", transfer_slack_s=600, max_rounds=1) == [
        "R1 A-C 0-20 =R2 C-D 25-35"
    ]
    assert [legs(j) for j in route(TT.timetable, TT.request("A", "D", "00:00", max_rounds=1))] == []


def test_chain_of_three_trips_beats_a_direct_ride() -> None:
    assert paths("A", "F", "00:00") == ["R1 A-C 0-20 =R2 C-E 25-45 =R4 E-F 50-60"]
    # to E the chain (00:45) beats the direct R3 (01:00)
    for criteria in ("arrival", "cost"):
        assert paths("A", "E", "00:00", criteria=criteria) == ["R1 A-C 0-20 =R2 C-E 25-45"]


def test_boarding_mid_chain() -> None:
    assert paths("B", "F", "00:00") == ["R1 B-C 10-20 =R2 C-E 25-45 =R4 E-F 50-60"]
    assert paths("D", "F", "00:00") == ["R2 D-E 35-45 =R4 E-F 50-60"]


def test_riding_within_one_trip_is_an_ordinary_leg() -> None:
    assert paths("A", "B", "00:00") == ["R1 A-B 0-10"]
    assert paths("C", "E", "00:00") == ["R2 C-E 25-45"]


def test_junction_between_two_stops() -> None:
    assert paths("G", "L", "00:00") == ["R5 G-H 0-10 =R6 K-L 12-20"]
    # nobody boards R5 at its last stop or leaves R6 at its first through the junction
    assert paths("H", "L", "00:00") == []
    assert paths("G", "K", "00:00") == []


def test_next_trip_leaving_too_early_is_ignored() -> None:
    assert paths("M", "P", "00:00") == []


def test_banned_next_trip_is_not_ridden() -> None:
    allowed = np.ones(TT.timetable.n_route_trips, np.uint8)
    allowed[TT.trip("R2", 0)] = 0
    got = paths("A", "E", "00:00", trip_allowed=allowed)
    assert got == ["R3 A-E 1-60"]
    # the first trip alone is still allowed
    assert paths("A", "C", "00:00", trip_allowed=allowed) == ["R1 A-C 0-20"]


def test_arrive_by() -> None:
    for criteria in ("arrival", "cost"):
        assert paths("A", "F", "01:10", arrive_by=True, criteria=criteria) == [
            "R1 A-C 0-20 =R2 C-E 25-45 =R4 E-F 50-60"
        ]
        assert paths("B", "D", "00:40", arrive_by=True, criteria=criteria) == [
            "R1 B-C 10-20 =R2 C-D 25-35"
        ]


def test_earliest_arrivals_ride_through() -> None:
    req = TT.request("A", "F", "00:00", stay_seated=STAY, max_rounds=1)
    got = earliest_arrivals(TT.timetable, req)
    assert got[TT.stop("D")] == 35 * 60
    assert got[TT.stop("F")] == 60 * 60
    plain = earliest_arrivals(TT.timetable, TT.request("A", "F", "00:00", max_rounds=1))
    assert plain[TT.stop("D")] == np.inf
