"""Earliest and latest departures of a route from each position on: scans that board nothing.

The arrival search scans a route from its first stop marked in the previous round.
Nothing is on board there, so the scan only does something once it boards; it boards
only at marked stops, a trip that departs no earlier than the stop's board-ready label,
before the target (the best arrival at the destination so far) and no later than the
search window's cap (:func:`._common.first_trip`).  For position ``p`` of a route,
``floor[p]`` is the least and ``ceil[p]`` the greatest departure of any of its trips
from ``p`` or any later position.  When ``floor[first marked position]`` is at or past
the target, or past the cap, or ``ceil[first marked position]`` is before every marked
stop's board-ready label, the scan boards nothing, alights nothing and changes no
label, so :func:`._round_kernel.run_rounds` skips it (once the destination is reached,
the next day's routes; the previous day's routes and today's that have left).  Both
are taken over every trip and later position, so they hold whatever the timetable's
order of trips or of times along a trip.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from otpa.transit.raptor._memo import remembered
from otpa.transit.raptor._reverse import readonly
from otpa.transit.raptor.spi import RaptorTimetable
from otpa.types import Int32Array

__all__ = ["departure_bounds"]


@njit(cache=True, nogil=True)  # type: ignore[misc]
def _departure_bounds(tt: RaptorTimetable) -> tuple[Int32Array, Int32Array]:
    """Per route position: the least and the greatest departure of the route's trips
    there or later."""
    offs = tt.route_stop_offsets
    floor = np.empty(tt.route_stops.shape[0], np.int32)
    ceil = np.empty(tt.route_stops.shape[0], np.int32)
    for r in range(offs.shape[0] - 1):
        soff = offs[r]
        ns = offs[r + 1] - soff
        nt = tt.route_trip_offsets[r + 1] - tt.route_trip_offsets[r]
        base = tt.route_time_offsets[r]
        lo = np.int32(np.iinfo(np.int32).max)
        hi = np.int32(np.iinfo(np.int32).min)
        for j in range(ns - 1, -1, -1):
            for k in range(nt):
                d = tt.departure[base + k * ns + j]
                lo = min(lo, d)
                hi = max(hi, d)
            floor[soff + j] = lo
            ceil[soff + j] = hi
    return floor, ceil


def departure_bounds(tt: RaptorTimetable) -> tuple[Int32Array, Int32Array]:
    """:func:`_departure_bounds` of ``tt``, read-only.

    Kept (:func:`._memo.remembered`) while the arrays they are computed from -- the
    departure times and the three route offsets -- are alive and unchanging; computed
    for this call alone otherwise (a timetable built with writable arrays).
    """

    def build() -> tuple[Int32Array, Int32Array]:
        floor, ceil = _departure_bounds(tt)
        return readonly(floor, np.int32), readonly(ceil, np.int32)

    arrays = (tt.departure, tt.route_time_offsets, tt.route_stop_offsets, tt.route_trip_offsets)
    return remembered(arrays, "departure_bounds", build)
