"""The time-reversed view of a timetable, for arrive-by searches.

Reversing time turns "arrive by T" into "depart at -T": every time is negated,
arrival and departure swap, each route's stops are visited in reverse order
(boarding and alighting flags swap) and its trips are reversed, so the trips
of a route are again sorted by (negated) departure.  A route's block of times
is trip-major, so reversing both axes is reversing the flat block.

Route indices are unchanged; route-trip ``g`` of route ``r`` becomes
``off[r] + off[r + 1] - 1 - g`` and position ``j`` becomes ``n_positions - 1 - j``
(both maps are their own inverse).
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

import numpy as np

from otpa.transit.raptor._common import transpose_csr
from otpa.transit.raptor._weak_drop import pop_when_dead
from otpa.transit.raptor.spi import RaptorTimetable
from otpa.types import Int32Array, IntArray

__all__ = [
    "flip_positions",
    "flip_route_trips",
    "normalized",
    "readonly",
    "reversed_timetable",
    "transposed_transfers",
]

_LOCK = threading.RLock()  # a weak-reference callback may take it while this thread holds it
# id(timetable.arrival) -> (weak reference to that array, reversed timetable)
_CACHE: dict[int, tuple[weakref.ref[Any], RaptorTimetable]] = {}
_TRANSPOSED: dict[
    tuple[str, int, int],
    tuple[weakref.ref[Any], weakref.ref[Any], tuple[IntArray, Int32Array, IntArray]],
] = {}


def readonly(a: np.ndarray[Any, Any], dtype: Any) -> np.ndarray[Any, Any]:
    """A read-only, C-contiguous view of ``a`` with ``dtype`` (copied only if needed).

    The kernels are compiled once for read-only arrays; passing writable ones would
    compile a second specialisation.
    """
    out = np.ascontiguousarray(a, dtype=dtype)
    if out.flags.writeable:
        out = out.view()
        out.flags.writeable = False
    return out


def _owned(a: np.ndarray[Any, Any], dtype: Any) -> np.ndarray[Any, Any]:
    """A read-only copy of ``a`` that owns its memory."""
    out = np.array(a, dtype=dtype, order="C", copy=True)
    out.flags.writeable = False
    return out


def normalized(tt: RaptorTimetable) -> RaptorTimetable:
    """``tt`` with every array read-only and of the dtype the kernels are compiled for."""
    dtypes = {
        "route_stop_offsets": np.int64,
        "route_stops": np.int32,
        "route_board": np.uint8,
        "route_alight": np.uint8,
        "route_trip_offsets": np.int64,
        "route_trip_ref": np.int32,
        "route_time_offsets": np.int64,
        "arrival": np.int32,
        "departure": np.int32,
        "route_pattern": np.int32,
        "route_day": np.int32,
        "stop_route_offsets": np.int64,
        "stop_routes": np.int32,
        "stop_route_pos": np.int32,
        "route_gtfs_route": np.int32,
    }
    values: dict[str, Any] = {k: readonly(getattr(tt, k), t) for k, t in dtypes.items()}
    return tt._replace(n_stops=int(tt.n_stops), epoch=int(tt.epoch), **values)


def _flip_index(offsets: IntArray) -> IntArray:
    """For CSR ``offsets``, the index each element moves to when every block is reversed."""
    lengths = np.diff(offsets)
    idx: IntArray = np.repeat(offsets[:-1] + offsets[1:] - 1, lengths) - np.arange(
        int(offsets[-1]), dtype=np.int64
    )
    return idx


def flip_route_trips(tt: RaptorTimetable) -> IntArray:
    """Route-trip index map between a timetable and its reversed view."""
    return _flip_index(tt.route_trip_offsets)


def flip_positions(tt: RaptorTimetable, routes: IntArray, positions: IntArray) -> IntArray:
    """Stop positions of ``routes`` in the reversed view (and back)."""
    ns = tt.route_stop_offsets[routes + 1] - tt.route_stop_offsets[routes]
    out: IntArray = ns - 1 - positions
    return out


def _build(tt: RaptorTimetable) -> RaptorTimetable:
    stop_idx = _flip_index(tt.route_stop_offsets)
    trip_idx = _flip_index(tt.route_trip_offsets)
    ns = np.diff(tt.route_stop_offsets)
    sizes = ns * np.diff(tt.route_trip_offsets)
    within = np.arange(int(sizes.sum()), dtype=np.int64) - np.repeat(
        np.cumsum(sizes) - sizes, sizes
    )
    pos = np.repeat(tt.route_time_offsets, sizes) + within
    new_pos = np.repeat(tt.route_time_offsets + sizes - 1, sizes) - within
    arrival = tt.arrival.copy()
    departure = tt.departure.copy()
    arrival[new_pos] = -tt.departure[pos]
    departure[new_pos] = -tt.arrival[pos]
    route_stops = np.empty_like(tt.route_stops)
    route_stops[stop_idx] = tt.route_stops
    board = np.empty_like(tt.route_board)
    board[stop_idx] = tt.route_alight
    alight = np.empty_like(tt.route_alight)
    alight[stop_idx] = tt.route_board
    trip_ref = np.empty_like(tt.route_trip_ref)
    trip_ref[trip_idx] = tt.route_trip_ref
    pos_rev = (ns[tt.stop_routes] - 1 - tt.stop_route_pos).astype(np.int32)
    return RaptorTimetable(
        n_stops=tt.n_stops,
        route_stop_offsets=tt.route_stop_offsets,
        route_stops=route_stops,
        route_board=board,
        route_alight=alight,
        route_trip_offsets=tt.route_trip_offsets,
        route_trip_ref=trip_ref,
        route_time_offsets=tt.route_time_offsets,
        arrival=arrival,
        departure=departure,
        route_pattern=tt.route_pattern,
        route_day=tt.route_day,
        stop_route_offsets=tt.stop_route_offsets,
        stop_routes=tt.stop_routes,
        stop_route_pos=pos_rev,
        epoch=tt.epoch,
        route_gtfs_route=tt.route_gtfs_route,
    )


def reversed_timetable(tt: RaptorTimetable) -> RaptorTimetable:
    """The reversed, normalised view of ``tt`` (cached while ``tt.arrival`` is alive)."""
    key = id(tt.arrival)
    with _LOCK:
        hit = _CACHE.get(key)
        if hit is not None and hit[0]() is tt.arrival:
            return hit[1]
    rev = normalized(_build(normalized(tt)))

    _drop = pop_when_dead(_LOCK, _CACHE, key)

    with _LOCK:
        _CACHE[key] = (weakref.ref(tt.arrival, _drop), rev)
    return rev


def transposed_transfers(
    offsets: IntArray, to: Int32Array, n: int
) -> tuple[IntArray, Int32Array, IntArray]:
    """Walking transfers reversed: ``(offsets, from, edge)``, read-only.

    Cached while ``to`` is alive: callers pass the same network arrays every time.
    """
    key = ("in", id(to), id(offsets))
    with _LOCK:
        hit = _TRANSPOSED.get(key)
        if hit is not None and hit[0]() is to and hit[1]() is offsets:
            return hit[2]
    out: tuple[IntArray, Int32Array, IntArray] = transpose_csr(
        readonly(offsets, np.int64), readonly(to, np.int32), n
    )
    # copies that own their memory: read-only all the way down (``_memo.frozen``), so
    # what is derived from them can be kept too
    out = (_owned(out[0], np.int64), _owned(out[1], np.int32), _owned(out[2], np.int64))

    _drop = pop_when_dead(_LOCK, _TRANSPOSED, key)

    with _LOCK:
        _TRANSPOSED[key] = (weakref.ref(to, _drop), weakref.ref(offsets), out)
    return out
