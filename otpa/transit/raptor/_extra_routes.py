"""Routes added to a timetable for one kind of search: trips chained into one ride.

Interlined trips (:mod:`._stay_seated`) and a journey starting on board a trip
(:mod:`._onboard`) are searched as extra routes appended to the timetable: the
kernels scan them like any other route.  A *chain* of route-trips (the vehicle
of one continues as the next) is laid out position after position; where the
last stop of one trip is the first of the next they share one position
(arrival of the first trip, departure of the next); at a junction between two
different stops nobody boards at the first stop or alights at the second, as in
OpenTripPlanner 1.x, whose pattern vertices for them do not exist.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, NamedTuple

import numpy as np

from otpa.transit.raptor._reverse import normalized
from otpa.transit.raptor._weak_drop import pop_when_dead
from otpa.transit.raptor.spi import RaptorTimetable
from otpa.types import Int32Array, IntArray, UInt8Array

__all__ = [
    "NO_REF",
    "ExtraRoute",
    "Layout",
    "append_routes",
    "base_of",
    "chain_layout",
    "chain_times",
    "route_of_trip",
    "trip_times",
]

#: Route and trip reference of a route without a single GTFS route or trip: it matches no
#: route- or trip-specific transfers.txt rule.
NO_REF = -2

_LOCK = threading.RLock()  # a weak-reference callback may take it while this thread holds it
#: id(arrival) of a timetable made by append_routes -> (weak reference to that array, the
#: timetable it was made from); dropped with the array
_BASE: dict[int, tuple[weakref.ref[Any], RaptorTimetable]] = {}


def route_of_trip(tt: RaptorTimetable) -> IntArray:
    """The route of every route-trip."""
    out: IntArray = np.repeat(
        np.arange(tt.n_routes, dtype=np.int64), np.diff(tt.route_trip_offsets)
    )
    return out


def trip_times(tt: RaptorTimetable, trip: int, route: int) -> tuple[IntArray, IntArray]:
    """Arrival and departure row of route-trip ``trip`` (of ``route``)."""
    soff = int(tt.route_stop_offsets[route])
    ns = int(tt.route_stop_offsets[route + 1]) - soff
    base = int(tt.route_time_offsets[route]) + (trip - int(tt.route_trip_offsets[route])) * ns
    return (
        np.asarray(tt.arrival[base : base + ns], np.int64),
        np.asarray(tt.departure[base : base + ns], np.int64),
    )


class Layout(NamedTuple):
    """Positions of a chain: stops, flags, and where each trip's positions start."""

    stops: IntArray
    board: UInt8Array
    alight: UInt8Array
    starts: IntArray


def chain_layout(tt: RaptorTimetable, routes: tuple[int, ...]) -> Layout:
    """The positions of a chain of trips of ``routes``."""
    stops: list[int] = []
    board: list[int] = []
    alight: list[int] = []
    starts: list[int] = []
    for i, r in enumerate(routes):
        lo, hi = int(tt.route_stop_offsets[r]), int(tt.route_stop_offsets[r + 1])
        s = tt.route_stops[lo:hi].tolist()
        b = tt.route_board[lo:hi].tolist()
        a = tt.route_alight[lo:hi].tolist()
        if i and stops[-1] == s[0]:  # one position: arrive on the trip before, leave on this
            starts.append(len(stops) - 1)
            board[-1] = b[0]
            stops.extend(s[1:])
            board.extend(b[1:])
            alight.extend(a[1:])
            continue
        if i:  # a junction of two stops: no boarding / alighting at its ends
            board[-1] = 0
            a = [0, *a[1:]]
        starts.append(len(stops))
        stops.extend(s)
        board.extend(b)
        alight.extend(a)
    return Layout(
        np.asarray(stops, np.int64),
        np.asarray(board, np.uint8),
        np.asarray(alight, np.uint8),
        np.asarray(starts, np.int64),
    )


def chain_times(
    tt: RaptorTimetable, chain: list[int], route_of: IntArray, layout: Layout
) -> tuple[IntArray, IntArray]:
    """Arrival and departure rows of a chain laid out as ``layout``."""
    n = layout.stops.shape[0]
    arr = np.empty(n, np.int64)
    dep = np.empty(n, np.int64)
    prev_end = -1
    for i, g in enumerate(chain):
        a, d = trip_times(tt, g, int(route_of[g]))
        ns = a.shape[0]
        s0 = int(layout.starts[i])
        if s0 == prev_end:  # shared position: arrive on the trip before, leave on this one
            dep[s0] = d[0]
            arr[s0 + 1 : s0 + ns] = a[1:]
            dep[s0 + 1 : s0 + ns] = d[1:]
        else:
            arr[s0 : s0 + ns] = a
            dep[s0 : s0 + ns] = d
        prev_end = s0 + ns - 1
    return arr, dep


class ExtraRoute(NamedTuple):
    """A route to append: positions, flags, trips (rows of times) and references."""

    stops: IntArray
    board: UInt8Array
    alight: UInt8Array
    arr: IntArray  # (n_trips, n_positions), trips in departure order, never overtaking
    dep: IntArray
    day: int
    gtfs_route: int
    trip_refs: IntArray


def _stop_routes(
    tt: RaptorTimetable, extra_stops: IntArray, extra_route: IntArray, extra_pos: IntArray
) -> tuple[IntArray, Int32Array, Int32Array]:
    """The stop -> (route, position) CSR with the extra routes after the base ones."""
    base_stop = np.repeat(np.arange(tt.n_stops, dtype=np.int64), np.diff(tt.stop_route_offsets))
    stop = np.concatenate([base_stop, extra_stops])
    order = np.argsort(stop, kind="stable")
    routes = np.concatenate([np.asarray(tt.stop_routes, np.int64), extra_route])[order]
    pos = np.concatenate([np.asarray(tt.stop_route_pos, np.int64), extra_pos])[order]
    counts = np.bincount(stop, minlength=tt.n_stops)
    offsets: IntArray = np.r_[0, np.cumsum(counts)].astype(np.int64)
    return offsets, routes.astype(np.int32), pos.astype(np.int32)


def append_routes(tt: RaptorTimetable, extra: list[ExtraRoute]) -> RaptorTimetable:
    """``tt`` (normalised) with ``extra`` appended; existing indices are unchanged.

    Each extra route gets a pattern of its own (after the largest one used).
    """
    lengths = np.array([r.stops.shape[0] for r in extra], np.int64)
    counts = np.array([r.arr.shape[0] for r in extra], np.int64)
    sizes = lengths * counts
    ids = np.arange(tt.n_routes, tt.n_routes + len(extra), dtype=np.int64)
    extra_stops = np.concatenate([r.stops for r in extra])
    extra_pos = np.concatenate([np.arange(n, dtype=np.int64) for n in lengths])
    stop_off, stop_routes, stop_pos = _stop_routes(
        tt, extra_stops, np.repeat(ids, lengths), extra_pos
    )
    first_pattern = int(np.max(tt.route_pattern, initial=-1)) + 1
    out = RaptorTimetable(
        n_stops=tt.n_stops,
        route_stop_offsets=np.r_[
            tt.route_stop_offsets, tt.route_stop_offsets[-1] + np.cumsum(lengths)
        ],
        route_stops=np.concatenate([tt.route_stops, extra_stops]),
        route_board=np.concatenate([tt.route_board, *[r.board for r in extra]]),
        route_alight=np.concatenate([tt.route_alight, *[r.alight for r in extra]]),
        route_trip_offsets=np.r_[tt.route_trip_offsets, tt.n_route_trips + np.cumsum(counts)],
        route_trip_ref=np.concatenate([tt.route_trip_ref, *[r.trip_refs for r in extra]]),
        route_time_offsets=np.r_[
            tt.route_time_offsets, tt.arrival.shape[0] + np.cumsum(sizes) - sizes
        ],
        arrival=np.concatenate([tt.arrival, *[r.arr.ravel() for r in extra]]),
        departure=np.concatenate([tt.departure, *[r.dep.ravel() for r in extra]]),
        route_pattern=np.r_[tt.route_pattern, first_pattern + np.arange(len(extra))],
        route_day=np.r_[tt.route_day, [r.day for r in extra]],
        stop_route_offsets=stop_off,
        stop_routes=stop_routes,
        stop_route_pos=stop_pos,
        epoch=tt.epoch,
        route_gtfs_route=np.r_[tt.route_gtfs_route, [r.gtfs_route for r in extra]],
    )
    out = normalized(out)
    key = id(out.arrival)

    _drop = pop_when_dead(_LOCK, _BASE, key)

    with _LOCK:
        _BASE[key] = (weakref.ref(out.arrival, _drop), tt)
    return out


def base_of(tt: RaptorTimetable) -> RaptorTimetable | None:
    """The timetable :func:`append_routes` made ``tt`` from, while ``tt`` lives (else None).

    Its routes are the first routes of ``tt``, with the same positions and times, so
    per-route arrays computed for it hold for them (:func:`._heuristic.route_prefix`).
    """
    with _LOCK:
        hit = _BASE.get(id(tt.arrival))
    if hit is not None and hit[0]() is tt.arrival:
        return hit[1]
    return None
