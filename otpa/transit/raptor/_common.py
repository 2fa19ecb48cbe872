"""Numba helpers shared by the RAPTOR kernels: trip search, bans and transfers.txt rules.

Conventions: ``tt`` is a :class:`~otpa.transit.raptor.spi.RaptorTimetable` and ``q``
a :class:`~otpa.transit.raptor._query.SearchQuery`, both in search direction.
Trip indices ``k`` are local to a route (0 = earliest); ``t0 + k`` is the global
route-trip index.
"""

from __future__ import annotations

from typing import Any, TypeAlias

import numpy as np
from numba import njit

from otpa.transit.raptor._query import SearchQuery
from otpa.transit.raptor.spi import RaptorTimetable
from otpa.types import Int32Array, IntArray, UInt8Array

#: Integer arguments: call sites pass numpy int64 so that one specialisation is compiled.
IntLike: TypeAlias = int | np.integer[Any]

__all__ = [
    "first_rule",
    "first_trip",
    "first_trip_before",
    "first_trip_rules",
    "is_banned",
    "rule_range",
    "transpose_csr",
]

_NO_RULE = -1


@njit(cache=True, inline="always")  # type: ignore[misc]
def _first_departure(
    dep: Int32Array, base: IntLike, ns: IntLike, j: IntLike, lo: IntLike, hi: IntLike, thr: IntLike
) -> int:
    """First local trip ``k`` in ``[lo, hi)`` departing position ``j`` at or after ``thr``."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if dep[base + mid * ns + j] < thr:
            lo = mid + 1
        else:
            hi = mid
    return int(lo)


@njit(cache=True, inline="always")  # type: ignore[misc]
def is_banned(bans: IntArray, route_trip: IntLike, pos: IntLike) -> bool:
    """True when boarding/alighting route-trip ``route_trip`` at position ``pos`` is banned."""
    if bans.shape[0] == 0:
        return False
    key = route_trip * 65536 + pos
    i = np.searchsorted(bans, key)
    return bool(i < bans.shape[0] and bans[i] == key)


@njit(cache=True)  # type: ignore[misc]
def first_rule(
    q: SearchQuery,
    lo: IntLike,
    hi: IntLike,
    from_route: IntLike,
    from_trip: IntLike,
    to_route: IntLike,
    to_trip: IntLike,
) -> tuple[int, int]:
    """``(kind, min_time)`` of the rule used for a transfer, ``(-1, 0)`` when none matches.

    Rows ``lo:hi`` share the stop pair and are ordered by level, then decreasing
    specificity, so the first matching row is OpenTripPlanner 1.x's choice.
    """
    for i in range(lo, hi):
        ft = q.r_from_trip[i]
        if ft >= 0:
            if ft != from_trip:
                continue
        elif q.r_from_route[i] >= 0 and q.r_from_route[i] != from_route:
            continue
        tt_ = q.r_to_trip[i]
        if tt_ >= 0:
            if tt_ != to_trip:
                continue
        elif q.r_to_route[i] >= 0 and q.r_to_route[i] != to_route:
            continue
        return int(q.r_kind[i]), int(q.r_min[i])
    return _NO_RULE, 0


@njit(cache=True, inline="always")  # type: ignore[misc]
def rule_range(r_key: IntArray, key: int) -> tuple[int, int]:
    """Rows ``lo:hi`` of the rules for one stop pair (empty when none)."""
    if r_key.shape[0] == 0:
        return 0, 0
    lo = int(np.searchsorted(r_key, key, side="left"))
    if lo == r_key.shape[0] or r_key[lo] != key:
        return 0, 0
    return lo, int(np.searchsorted(r_key, key, side="right"))


@njit(cache=True, inline="always")  # type: ignore[misc]
def first_trip(
    dep: Int32Array,
    base: int,
    ns: int,
    j: int,
    t0: int,
    k_hi: int,
    thr: int,
    limit: int,
    cap: int,
    trip_allowed: UInt8Array,
    bans: IntArray,
) -> int:
    """Earliest allowed local trip ``k < k_hi`` departing position ``j`` at or after ``thr``.

    ``limit`` (target pruning) and ``cap`` (search window) bound the departure;
    returns -1 when there is no such trip.
    """
    k = _first_departure(dep, base, ns, j, 0, k_hi, thr)
    return _first_allowed(dep, base, ns, j, t0, k, k_hi, limit, cap, trip_allowed, bans)


@njit(cache=True, inline="always")  # type: ignore[misc]
def first_trip_before(
    dep: Int32Array,
    base: int,
    ns: int,
    j: int,
    t0: int,
    k_hi: int,
    thr: int,
    limit: int,
    cap: int,
    trip_allowed: UInt8Array,
    bans: IntArray,
) -> int:
    """:func:`first_trip`, searching back from ``k_hi`` (galloping, then bisecting).

    The same trip as :func:`first_trip` (trips of a route never overtake, so their
    departures at ``j`` do not decrease), found in fewer probes when it is close
    below ``k_hi``: range RAPTOR mostly boards the trip it already rides, or one
    just before it.
    """
    hi = k_hi  # every trip in [hi, k_hi) departs at or after thr
    step = 1
    while True:
        lo = hi - step
        if lo < 0:
            lo = 0
            break
        if dep[base + lo * ns + j] < thr:
            lo += 1
            break
        hi = lo
        step *= 2
    k = _first_departure(dep, base, ns, j, lo, hi, thr)
    return _first_allowed(dep, base, ns, j, t0, k, k_hi, limit, cap, trip_allowed, bans)


@njit(cache=True, inline="always")  # type: ignore[misc]
def _first_allowed(
    dep: Int32Array,
    base: int,
    ns: int,
    j: int,
    t0: int,
    k: int,
    k_hi: int,
    limit: int,
    cap: int,
    trip_allowed: UInt8Array,
    bans: IntArray,
) -> int:
    """First allowed trip in ``[k, k_hi)`` within ``limit`` and ``cap`` (-1: none)."""
    while k < k_hi:
        d = dep[base + k * ns + j]
        if d > cap or d >= limit:
            return -1
        if trip_allowed[t0 + k] != 0 and not is_banned(bans, t0 + k, j):
            return k
        k += 1
    return -1


@njit(cache=True)  # type: ignore[misc]
def first_trip_rules(
    tt: RaptorTimetable,
    q: SearchQuery,
    r: IntLike,
    j: IntLike,
    k_hi: IntLike,
    thr: IntLike,
    limit: IntLike,
    lo_rule: IntLike,
    hi_rule: IntLike,
    prev_trip: IntLike,
    prev_route: IntLike,
    raw_arrival: IntLike,
    walk_s: IntLike,
) -> tuple[int, int]:
    """Like :func:`first_trip` for a transfer covered by transfers.txt rows ``lo_rule:hi_rule``.

    Parameters
    ----------
    tt, q
        Timetable and query (search direction).
    r, j, k_hi
        Route, stop position, and the first local trip index not considered.
    thr
        Earliest departure allowed by the label and the slacks (no rule).
    limit
        Departures at or after ``limit`` cannot improve anything.
    lo_rule, hi_rule
        The rule rows of the (alight stop, board stop) pair.
    prev_trip, prev_route
        Model trip and GTFS route of the ride before.
    raw_arrival
        Vehicle arrival of that ride at its alighting stop.
    walk_s
        Walking time between the stops (0 for an in-station transfer).

    Returns
    -------
    tuple of int
        ``(k, rule_kind)``, ``k = -1`` when no trip can be boarded; ``rule_kind`` is -1
        when no rule matched.
    """
    soff = tt.route_stop_offsets[r]
    ns = tt.route_stop_offsets[r + 1] - soff
    t0 = tt.route_trip_offsets[r]
    base = tt.route_time_offsets[r]
    to_route = tt.route_gtfs_route[r]
    k = _first_departure(tt.departure, base, ns, j, 0, k_hi, min(thr, raw_arrival))
    while k < k_hi:
        d = tt.departure[base + k * ns + j]
        if d > q.cap or d >= limit:
            break
        g = t0 + k
        if q.trip_allowed[g] != 0 and not is_banned(q.trip_stop_bans, g, j):
            kind, min_time = first_rule(
                q,
                np.int64(lo_rule),
                np.int64(hi_rule),
                np.int64(prev_route),
                np.int64(prev_trip),
                np.int64(to_route),
                np.int64(tt.route_trip_ref[g]),
            )
            need = thr
            if kind == 1:
                need = raw_arrival
            elif kind == 2:
                # OTP 1.x: the street walk + slack, but at least min_time; or the
                # transfers.txt edge itself (min_time long) + slack, whichever is shorter
                need = raw_arrival + min(max(walk_s + q.gap, min_time), min_time + q.gap)
            if kind != 3 and d >= need:
                return k, kind
        k += 1
    return -1, _NO_RULE


@njit(cache=True, nogil=True)  # type: ignore[misc]
def transpose_csr(
    offsets: IntArray, to: Int32Array, n: int
) -> tuple[IntArray, Int32Array, IntArray]:
    """Reverse the edges of a CSR graph over ``n`` nodes.

    Returns ``(offsets, to, edge)`` of the transposed graph, where ``edge`` is the
    index of each reversed edge in the original arrays (stable within a node).
    """
    m = to.shape[0]
    counts = np.zeros(n + 1, dtype=np.int64)
    for e in range(m):
        counts[to[e] + 1] += 1
    for i in range(n):
        counts[i + 1] += counts[i]
    out_to = np.empty(m, dtype=np.int32)
    out_edge = np.empty(m, dtype=np.int64)
    fill = counts[:-1].copy()
    for u in range(n):
        for e in range(offsets[u], offsets[u + 1]):
            v = to[e]
            out_to[fill[v]] = u
            out_edge[fill[v]] = e
            fill[v] += 1
    return counts, out_to, out_edge
