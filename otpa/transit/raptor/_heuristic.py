"""Lower bounds on the cost and rides still needed from a stop to the destination.

McRAPTOR keeps every label that is not dominated; most of them cannot lead to a
journey better than one already found.  With, per stop, lower bounds on the
remaining generalized cost and number of rides, a label can be dropped when it
cannot end within ``max_rounds`` rides, or when a journey found so far arrives
no later than the label possibly could for no more than its least possible cost.
The bounds are admissible, so results stay exact.  (A static bound on the
remaining time prunes almost nothing beyond the earliest arrival that the
arrival search provides, so none is computed.)

The bounds come from backward Dijkstra searches over a static graph: egress
legs, walking transfers (chained freely) and rides on trip patterns whose hop
times are the minimum over all their trips; waits, slacks, filters and transfer
rules are ignored, which only lowers the bounds.  Stops from which the
destination cannot be reached get infinite bounds.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from otpa.transit.raptor._common import transpose_csr
from otpa.transit.raptor._query import SearchQuery
from otpa.transit.raptor.spi import RaptorTimetable
from otpa.types import FloatArray, Int32Array, IntArray

__all__ = ["StaticGraph", "lower_bounds", "static_graph"]

_LOCK = threading.Lock()
_CACHE: dict[int, tuple[weakref.ref[Any], StaticGraph]] = {}


class StaticGraph(NamedTuple):
    """The patterns of a timetable (routes of all days merged) with minimum hop times."""

    pat_offsets: IntArray  # CSR into pat_stops / pat_pref
    pat_stops: Int32Array
    pat_pref: IntArray  # sum of minimum hop times from the pattern's first stop
    stop_pat_offsets: IntArray  # CSR over stops
    stop_pats: IntArray
    stop_pat_pos: IntArray
    route_pat: IntArray  # pattern (0 .. n_patterns - 1) of every route


@njit(cache=True)  # type: ignore[misc]
def _min_hops(tt: RaptorTimetable) -> IntArray:
    """Per route position ``j``: least ``arrival[j + 1] - departure[j]`` over the route's trips."""
    offs = tt.route_stop_offsets
    hop = np.zeros(tt.route_stops.shape[0], dtype=np.int64)
    for r in range(offs.shape[0] - 1):
        soff = offs[r]
        ns = offs[r + 1] - soff
        nt = tt.route_trip_offsets[r + 1] - tt.route_trip_offsets[r]
        base = tt.route_time_offsets[r]
        for j in range(ns - 1):
            best = np.int64(1) << 40
            for k in range(nt):
                d = np.int64(tt.arrival[base + k * ns + j + 1]) - tt.departure[base + k * ns + j]
                best = min(best, d)
            hop[soff + j] = best if best > 0 else 0
    return hop


def _build(tt: RaptorTimetable) -> StaticGraph:
    offs = tt.route_stop_offsets
    ns = np.diff(offs)
    hop = _min_hops(tt)
    pats, first, route_pat = np.unique(tt.route_pattern, return_index=True, return_inverse=True)
    # minimum over the routes (days) of a pattern, position by position
    pat_ns = ns[first]
    pat_offsets = np.r_[0, np.cumsum(pat_ns)].astype(np.int64)
    pos = np.arange(int(ns.sum())) - np.repeat(offs[:-1], ns)
    target = np.repeat(pat_offsets[route_pat.ravel()], ns) + pos
    pat_hop = np.full(int(pat_offsets[-1]), np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(pat_hop, target, hop)
    cum = np.r_[0, np.cumsum(pat_hop)]
    pat_pref = cum[:-1] - np.repeat(cum[pat_offsets[:-1]], pat_ns)
    pat_stops = np.empty(int(pat_offsets[-1]), dtype=np.int32)
    pat_stops[target] = tt.route_stops
    pat_of_pos = np.repeat(np.arange(len(pats)), pat_ns)
    pat_pos = np.arange(len(pat_stops)) - np.repeat(pat_offsets[:-1], pat_ns)
    order = np.lexsort((pat_pos, pat_of_pos, pat_stops))
    counts = np.bincount(pat_stops, minlength=tt.n_stops)
    return StaticGraph(
        pat_offsets=pat_offsets,
        pat_stops=pat_stops,
        pat_pref=pat_pref.astype(np.int64),
        stop_pat_offsets=np.r_[0, np.cumsum(counts)].astype(np.int64),
        stop_pats=pat_of_pos[order].astype(np.int64),
        stop_pat_pos=pat_pos[order].astype(np.int64),
        route_pat=route_pat.ravel().astype(np.int64),
    )


def static_graph(tt: RaptorTimetable) -> StaticGraph:
    """The :class:`StaticGraph` of a timetable, cached while ``tt.arrival`` is alive."""
    key = id(tt.arrival)
    with _LOCK:
        hit = _CACHE.get(key)
        if hit is not None and hit[0]() is tt.arrival:
            return hit[1]
    graph = _build(tt)

    def _drop(_: weakref.ref[Any], key: int = key) -> None:
        with _LOCK:
            _CACHE.pop(key, None)

    with _LOCK:
        _CACHE[key] = (weakref.ref(tt.arrival, _drop), graph)
    return graph


@njit(cache=True)  # type: ignore[misc]
def _grow(hv: FloatArray, hi: IntArray, n: int, extra: int) -> tuple[FloatArray, IntArray]:
    """Heap arrays with room for ``extra`` more items."""
    if n + extra <= hv.shape[0]:
        return hv, hi
    size = max(2 * hv.shape[0], n + extra)
    hv2 = np.empty(size, np.float64)
    hi2 = np.empty(size, np.int64)
    hv2[:n] = hv[:n]
    hi2[:n] = hi[:n]
    return hv2, hi2


@njit(cache=True, inline="always")  # type: ignore[misc]
def _push(hv: FloatArray, hi: IntArray, n: int, v: float, item: int) -> int:
    i = n
    while i > 0:
        p = (i - 1) >> 1
        if hv[p] <= v:
            break
        hv[i] = hv[p]
        hi[i] = hi[p]
        i = p
    hv[i] = v
    hi[i] = item
    return n + 1


@njit(cache=True, inline="always")  # type: ignore[misc]
def _pop(hv: FloatArray, hi: IntArray, n: int) -> tuple[float, int, int]:
    v0, i0 = hv[0], hi[0]
    n -= 1
    if n > 0:
        v, item = hv[n], hi[n]
        i = 0
        while True:
            left = 2 * i + 1
            if left >= n:
                break
            m = left
            if left + 1 < n and hv[left + 1] < hv[left]:
                m = left + 1
            if hv[m] >= v:
                break
            hv[i] = hv[m]
            hi[i] = hi[m]
            i = m
        hv[i] = v
        hi[i] = item
    return v0, i0, n


@njit(cache=True)  # type: ignore[misc]
def _dijkstra(  # noqa: C901
    g: StaticGraph,
    q: SearchQuery,
    in_off: IntArray,
    in_from: Int32Array,
    in_edge: IntArray,
    pat_penalty: FloatArray,
    mode: int,
) -> FloatArray:
    """Bound per stop; ``mode`` 0: seconds, 1: generalized cost, 2: rides."""
    n = g.stop_pat_offsets.shape[0] - 1
    n_pats = g.pat_offsets.shape[0] - 1
    pat_offsets, pat_stops, pat_pref = g.pat_offsets, g.pat_stops, g.pat_pref
    stop_pat_offsets, stop_pats, stop_pat_pos = g.stop_pat_offsets, g.stop_pats, g.stop_pat_pos
    tr_time, tr_cost = q.tr_time, q.tr_cost
    board_cost = q.board_cost
    lb = np.full(n, np.inf)
    done = np.zeros(n, np.uint8)
    # per pattern: least (bound + prefix) scanned so far and from which position
    pat_key = np.full(n_pats, np.inf)
    pat_pos = np.full(n_pats, -1, np.int64)
    hv = np.empty(4 * n + 16 + q.egress_stops.shape[0], np.float64)
    hi = np.empty(hv.shape[0], np.int64)
    nh = 0
    for i in range(q.egress_stops.shape[0]):
        s = q.egress_stops[i]
        v = 0.0
        if mode == 0:
            v = float(q.egress_time[i])
        elif mode == 1:
            v = q.egress_cost[i]
        if v < lb[s]:
            lb[s] = v
            nh = _push(hv, hi, nh, v, s)
    while nh > 0:
        v, s, nh = _pop(hv, hi, nh)
        if done[s] != 0 or v > lb[s]:
            continue
        done[s] = 1
        if nh + in_off[s + 1] - in_off[s] > hv.shape[0]:
            hv, hi = _grow(hv, hi, nh, in_off[s + 1] - in_off[s])
        for x in range(in_off[s], in_off[s + 1]):
            u = in_from[x]
            c = v
            if mode == 0:
                c += tr_time[in_edge[x]]
            elif mode == 1:
                c += tr_cost[in_edge[x]]
            if c < lb[u]:
                lb[u] = c
                nh = _push(hv, hi, nh, c, u)
        for x in range(stop_pat_offsets[s], stop_pat_offsets[s + 1]):
            p = stop_pats[x]
            j = stop_pat_pos[x]
            soff = pat_offsets[p]
            # a scan from j reaches i < j with v + pref[j] - pref[i]: skip it when an
            # earlier scan from a later position offered no more
            key = v + (pat_pref[soff + j] if mode != 2 else 0)
            stop_at = 0  # positions below were reached at least as well by an earlier scan
            if key >= pat_key[p]:
                if j <= pat_pos[p]:
                    continue
                stop_at = pat_pos[p]
            else:
                pat_key[p] = key
                pat_pos[p] = j
            board = 1.0 if mode == 2 else (board_cost + pat_penalty[p] if mode == 1 else 0.0)
            if nh + j - stop_at > hv.shape[0]:
                hv, hi = _grow(hv, hi, nh, j - stop_at)
            for i in range(j - 1, stop_at - 1, -1):
                u = pat_stops[soff + i]
                c = key + board - (pat_pref[soff + i] if mode != 2 else 0)
                if c < lb[u]:
                    lb[u] = c
                    nh = _push(hv, hi, nh, c, u)
    return lb


def lower_bounds(tt: RaptorTimetable, q: SearchQuery) -> tuple[FloatArray, FloatArray]:
    """``(cost, rides)`` lower bounds from every stop to the destination.

    Parameters
    ----------
    tt
        The searched timetable.
    q
        The query (its egress, walking transfers and cost parameters are used).

    Returns
    -------
    tuple of numpy.ndarray
        Generalized cost and rides per stop (``inf``: destination unreachable).
    """
    g = static_graph(tt)
    in_off, in_from, in_edge = transpose_csr(q.tr_offsets, q.tr_to, tt.n_stops)
    n_pats = len(g.pat_offsets) - 1
    penalty = np.full(n_pats, np.inf)
    np.minimum.at(penalty, g.route_pat, q.route_penalty)
    penalty[~np.isfinite(penalty)] = 0.0
    lb_cost: FloatArray = _dijkstra(g, q, in_off, in_from, in_edge, penalty, 1)
    lb_rides: FloatArray = _dijkstra(g, q, in_off, in_from, in_edge, penalty, 2)
    return lb_cost, lb_rides
