"""Journeys that start on board a trip (OpenTripPlanner 1.x depart-on-board).

The rider is on the vehicle of route-trip ``trip`` at the request's time, heading
for position ``next_pos``: the trip cannot be left before it.  The search adds one
route with one trip, *R\\**: the rest of the trip (and of the trips its vehicle
continues as, :class:`~otpa.transit.raptor.spi.StaySeated`), preceded by a
boarding position at the stop before ``next_pos`` that departs at the request
time.  The only access is that stop, reached the board slack before the
request time, and R\\* is boarded in the first round only, where nothing else is
(``SearchQuery.first_route``): every journey starts by riding it.  Like OTP, the
on-board start is no boarding: the board cost and the initial wait (the slack)
that the kernels charge for boarding R\\* are the same for every journey and are
taken off the reported costs (:func:`onboard_cost_offset`).  OTP does not count it as a boarding for
``maxTransfers`` either, so the search allows one more round.

OTP estimates the position from a point when one is given and then keeps the
trip's running times from that moment: ``delay_s`` shifts the rest of the trip.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from otpa.transit.raptor._extra_routes import (
    NO_REF,
    ExtraRoute,
    append_routes,
    chain_layout,
    chain_times,
    route_of_trip,
    trip_times,
)
from otpa.transit.raptor._results import TransitLeg
from otpa.transit.raptor.spi import RaptorTimetable
from otpa.types import IntArray

__all__ = ["OnBoard", "OnBoardRoute", "add_onboard", "onboard_cost_offset", "onboard_legs"]


@dataclass(frozen=True)
class OnBoard:
    """Start on board route-trip ``trip``, before it reaches position ``next_pos``.

    Attributes
    ----------
    trip
        Route-trip index (of the request's timetable).
    next_pos
        The first position the rider may alight at (``>= 1``).
    delay_s
        Seconds the vehicle runs behind (or, negative, ahead of) the timetable from
        ``next_pos`` on.
    """

    trip: int
    next_pos: int
    delay_s: int = 0


class OnBoardRoute(NamedTuple):
    """Route R\\* of an on-board search and how its positions map back to trips."""

    route: int  # R*'s route index in the searched timetable
    trip: int  # its route-trip index
    chain: IntArray  # the route-trips it rides, in order
    routes: IntArray  # their routes
    starts: IntArray  # R* position of each trip's first position (the first is negative)
    lens: IntArray  # positions of each trip's route
    time: int  # the on-board moment
    delay_s: int


def add_onboard(
    tt: RaptorTimetable, onboard: OnBoard, time: int, next_trip: IntArray | None
) -> tuple[RaptorTimetable, OnBoardRoute]:
    """``tt`` with R\\* appended (see the module docstring).

    ``next_trip`` maps route-trips to the ones their vehicles continue as (-1: none).
    """
    route_of = route_of_trip(tt)
    g = int(onboard.trip)
    if not 0 <= g < tt.n_route_trips:
        msg = f"OnBoard.trip {g} is not a route-trip of the timetable"
        raise ValueError(msg)
    r = int(route_of[g])
    ns = int(tt.route_stop_offsets[r + 1] - tt.route_stop_offsets[r])
    nxt = int(onboard.next_pos)
    if not 1 <= nxt < ns:
        msg = f"OnBoard.next_pos must be in 1..{ns - 1} for that trip, got {nxt}"
        raise ValueError(msg)
    arr, _ = trip_times(tt, g, r)
    if time > int(arr[nxt]) + onboard.delay_s:
        msg = "the request time is after the on-board trip reaches OnBoard.next_pos"
        raise ValueError(msg)
    chain = [g]
    while next_trip is not None and next_trip[chain[-1]] >= 0 and len(chain) <= tt.n_route_trips:
        chain.append(int(next_trip[chain[-1]]))
    routes = tuple(int(route_of[x]) for x in chain)
    layout = chain_layout(tt, routes)
    a, d = chain_times(tt, chain, route_of, layout)
    cut = nxt - 1  # R* position 0 is the stop before next_pos: the boarding position
    stops = layout.stops[cut:]
    board = np.zeros(stops.shape[0], np.uint8)
    board[0] = 1
    alight = layout.alight[cut:].copy()
    alight[0] = 0
    a, d = a[cut:] + onboard.delay_s, d[cut:] + onboard.delay_s
    a[0] = d[0] = time
    one = len(chain) == 1
    extra = ExtraRoute(
        stops=stops,
        board=board,
        alight=alight,
        arr=a[None, :],
        dep=d[None, :],
        day=int(tt.route_day[r]),
        gtfs_route=int(tt.route_gtfs_route[r]) if one else NO_REF,
        trip_refs=np.array([int(tt.route_trip_ref[g]) if one else NO_REF], np.int64),
    )
    out = append_routes(tt, [extra])
    return out, OnBoardRoute(
        route=tt.n_routes,
        trip=tt.n_route_trips,
        chain=np.asarray(chain, np.int64),
        routes=np.asarray(routes, np.int64),
        starts=layout.starts - cut,
        lens=np.diff(tt.route_stop_offsets)[np.asarray(routes, np.int64)],
        time=int(time),
        delay_s=int(onboard.delay_s),
    )


def onboard_cost_offset(board_cost: float, wait_factor: float, board_slack: int) -> float:
    """What the kernels charge for boarding R\\* beyond its riding time (the same for all).

    The board cost and the initial wait: the access arrives the slack before R\\* leaves,
    charged at the wait-at-beginning factor (``wait_factor``, per second).
    """
    return board_cost + wait_factor * board_slack


def onboard_legs(tt: RaptorTimetable, ob: OnBoardRoute, apos: int) -> list[TransitLeg]:
    """The legs of riding R\\* from its start to position ``apos`` (travel order)."""
    ends = ob.starts + ob.lens - 1
    last = int(np.searchsorted(ends, apos, side="left"))
    legs = []
    for c in range(last + 1):
        r, g = int(ob.routes[c]), int(ob.chain[c])
        bp = -int(ob.starts[0]) if c == 0 else 0  # first leg: the stop before next_pos
        ap = apos - int(ob.starts[c]) if c == last else int(ob.lens[c]) - 1
        arr, dep = trip_times(tt, g, r)
        soff = int(tt.route_stop_offsets[r])
        start = ob.time if c == 0 else int(dep[bp]) + ob.delay_s
        legs.append(
            TransitLeg(
                r,
                g,
                bp,
                ap,
                int(tt.route_stops[soff + bp]),
                int(tt.route_stops[soff + ap]),
                start,
                int(arr[ap]) + ob.delay_s,
                interline=c > 0,
                onboard=c == 0,
            )
        )
    return legs
