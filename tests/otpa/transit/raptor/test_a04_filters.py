"""FEATURE UNDER TEST: request filters.

Routes and trips excluded by the caller (modes, banned routes/agencies/trips,
wheelchair), stops where boarding or alighting is not allowed (OTP
``bannedStops``), stops a vehicle may not even pass (OTP ``bannedStopsHard``),
and single (trip, stop) boardings/alightings.
"""

from __future__ import annotations

import numpy as np

from otpa.testing.timetable import parse_timetable
from otpa.transit.raptor.api import earliest_arrivals, route

TT = parse_timetable(
    """
    R1  A 00:00  B 00:10  C 00:20  D 00:30
    R1  A 00:10  B 00:20  C 00:30  D 00:40
    R2  A 00:05  X 00:15  D 00:25
    """
)
N = TT.timetable.n_stops
R1_FIRST = "A ~ R1 00:00 00:30 ~ D"
R2 = "A ~ R2 00:05 00:25 ~ D"


def best(origin: str = "A", destination: str = "D", **kw: object) -> list[str]:
    req = TT.request(origin, destination, "00:00", **kw)
    return [TT.path(j) for j in route(TT.timetable, req)]


def stop_mask(*names: str) -> np.ndarray:
    mask = np.ones(N, np.uint8)
    mask[[TT.stop(n) for n in names]] = 0
    return mask


def test_unfiltered() -> None:
    assert best() == [R2]


def test_route_filter() -> None:
    allowed = np.ones(TT.timetable.n_routes, np.uint8)
    allowed[TT.route("R2")] = 0
    assert best(route_allowed=allowed) == [R1_FIRST]


def test_trip_filter() -> None:
    allowed = np.ones(TT.timetable.n_route_trips, np.uint8)
    allowed[[TT.trip("R2", 0), TT.trip("R1", 0)]] = 0
    assert best(trip_allowed=allowed) == ["A ~ R1 00:10 00:40 ~ D"]


def test_soft_banned_stop_can_be_passed() -> None:
    assert best(stop_board_allowed=stop_mask("X"), stop_alight_allowed=stop_mask("X")) == [R2]
    assert best("A", "X", stop_alight_allowed=stop_mask("X")) == []
    assert best("X", "D", stop_board_allowed=stop_mask("X")) == []


def test_hard_banned_stop_cannot_be_passed() -> None:
    assert best(stop_pass_allowed=stop_mask("X")) == [R1_FIRST]
    assert best("A", "C", stop_pass_allowed=stop_mask("B")) == []
    assert best("C", "D", stop_pass_allowed=stop_mask("B")) == ["C ~ R1 00:20 00:30 ~ D"]


def test_banned_boarding_or_alighting_of_one_trip_at_one_stop() -> None:
    # R2's first (only) trip may not be left at D (position 2)
    bans = np.asarray([TT.trip("R2", 0) * 65536 + 2], np.int64)
    assert best(trip_stop_bans=bans) == [R1_FIRST]
    # R1's first trip may not be boarded at A (position 0)
    bans = np.asarray([TT.trip("R2", 0) * 65536 + 2, TT.trip("R1", 0) * 65536 + 0])
    assert best(trip_stop_bans=bans) == ["A ~ R1 00:10 00:40 ~ D"]


def test_earliest_arrivals_honour_the_filters() -> None:
    req = TT.request("A", "D", "00:00", stop_pass_allowed=stop_mask("X"))
    got = earliest_arrivals(TT.timetable, req)
    assert got[TT.stop("D")] == 30 * 60
    assert got[TT.stop("X")] == np.inf


def test_filters_in_arrive_by_searches() -> None:
    def by(**kw: object) -> list[str]:
        req = TT.request("A", "D", "00:40", arrive_by=True, **kw)
        return [TT.path(j) for j in route(TT.timetable, req)]

    assert by() == ["A ~ R1 00:10 00:40 ~ D"]
    bans = np.asarray([TT.trip("R1", 1) * 65536 + 0], np.int64)  # no boarding at A
    assert by(trip_stop_bans=bans) == [R2]
    bans = np.asarray([TT.trip("R1", 1) * 65536 + 3], np.int64)  # no alighting at D
    assert by(trip_stop_bans=bans) == [R2]
    allowed = np.ones(TT.timetable.n_route_trips, np.uint8)
    allowed[[TT.trip("R1", 1), TT.trip("R2", 0)]] = 0
    assert by(trip_allowed=allowed) == [R1_FIRST]
    assert by(stop_pass_allowed=stop_mask("C"), trip_allowed=allowed) == []
