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

The searches stop at a limit, so that their cost follows the search's reach rather
than the network's size: once the least queued weight reaches the limit, every stop
not yet settled gets that weight, a lower bound of its own (Dijkstra settles stops in
order).  The cost search stops at the dearest journey the arrival search found, less
what every label tested already costs (the cheapest access and one boarding): any
label whose cost plus bound reaches that is beaten by a journey found, on cost,
whether the bound is exact or not; the rides search at ``max_rounds + 1`` (a label there is
dropped either way); pruning, and hence the journeys, stay the same.  Rides weigh 0
(walks) or 1 (boardings), so that search goes level by level without a heap
(:func:`_rides_bfs`, the same bounds as the heap search, five times faster); where
walks are symmetric and unchanging (a network's), the stops walks join are grouped once
(:func:`walk_groups`) and a level takes in whole groups instead of following every walk
(:func:`_rides_bfs_groups`, the same values again); since every stop of a group then
gets the same bound, the levels go over the groups themselves, along rides between
groups found once per pattern graph and groups (:func:`group_rides`,
:func:`_rides_bfs_group_graph`: ~3 us against ~190 us stop by stop on RNV).

The cost search queues stops in an indexed 4-ary heap (shallower than a binary one; any
heap settles the same stops with the same weights, and the floor is the least queued
weight either way).  What it reads besides the graph (the walks reversed, their costs,
the boarding weights) follows from the search's key, so a kept search derives it once;
and a call at which no stop would settle (a search's first, at ``-inf``, which wants the
rides bounds) is answered without the kernel, as the kernel would answer.
"""

from __future__ import annotations

import threading
import weakref
import zlib
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from numba import njit

from otpa.transit.raptor._extra_routes import base_of
from otpa.transit.raptor._memo import frozen, remembered
from otpa.transit.raptor._prepare import Prepared
from otpa.transit.raptor._reverse import readonly, transposed_transfers
from otpa.transit.raptor._weak_drop import pop_when_dead
from otpa.transit.raptor.spi import RaptorTimetable
from otpa.types import FloatArray, Int32Array, IntArray

if TYPE_CHECKING:
    from otpa.transit.raptor.api import RaptorRequest

__all__ = ["LowerBounds", "StaticGraph", "lower_bounds", "route_prefix", "static_graph"]

_LOCK = threading.RLock()  # a weak-reference callback may take it while this thread holds it
_CACHE: dict[int, tuple[weakref.ref[Any], StaticGraph]] = {}
_BOUNDS_SIZE = 16
_BOUNDS: OrderedDict[tuple[Any, ...], _Kept] = OrderedDict()
_DIGESTS: OrderedDict[int, tuple[weakref.ref[Any], tuple[int, int, float]]] = OrderedDict()
_PREFIX: dict[int, tuple[weakref.ref[Any], IntArray]] = {}
_GROUP_RIDES: dict[
    tuple[int, int], tuple[weakref.ref[Any], weakref.ref[Any], GroupRides | None]
] = {}


class LowerBounds(NamedTuple):
    """Per stop, lower bounds of the rest of a journey to the destination."""

    cost: FloatArray  # generalized cost
    rides: FloatArray


class StaticGraph(NamedTuple):
    """The patterns of a timetable (routes of all days merged) with minimum hop times."""

    pat_offsets: IntArray  # CSR into pat_stops / pat_pref
    pat_stops: Int32Array
    pat_pref: IntArray  # sum of minimum hop times from the pattern's first stop
    stop_pat_offsets: IntArray  # CSR over stops
    stop_pats: IntArray
    stop_pat_pos: IntArray
    route_pat: IntArray  # pattern (0 .. n_patterns - 1) of every route


@njit(cache=True, nogil=True)  # type: ignore[misc]
def _min_hops(tt: RaptorTimetable, r0: int) -> IntArray:
    """Per route position ``j`` of routes ``r0`` on: least ``arrival[j + 1] -
    departure[j]`` over the route's trips (the array starts at route ``r0``)."""
    offs = tt.route_stop_offsets
    off0 = offs[r0]
    hop = np.zeros(tt.route_stops.shape[0] - off0, dtype=np.int64)
    for r in range(r0, offs.shape[0] - 1):
        soff = offs[r]
        ns = offs[r + 1] - soff
        nt = tt.route_trip_offsets[r + 1] - tt.route_trip_offsets[r]
        base = tt.route_time_offsets[r]
        for j in range(ns - 1):
            best = np.int64(1) << 40
            for k in range(nt):
                d = np.int64(tt.arrival[base + k * ns + j + 1]) - tt.departure[base + k * ns + j]
                best = min(best, d)
            hop[soff - off0 + j] = best if best > 0 else 0
    return hop


@njit(cache=True, nogil=True)  # type: ignore[misc]
def _route_prefix(tt: RaptorTimetable, r0: int) -> IntArray:
    """Per route position ``i`` of routes ``r0`` on: a sum ``pref[i]`` with
    ``arrival[i] - departure[j] >= pref[i] - pref[j]`` for every trip of the route and
    ``j < i`` (the array starts at the first position of route ``r0``).

    The least hop times over the trips, plus the least dwell times where one is negative
    (never in valid data), so it holds whatever the timetable.
    """
    offs = tt.route_stop_offsets
    off0 = offs[r0]
    pref = np.zeros(tt.route_stops.shape[0] - off0, dtype=np.int64)
    for r in range(r0, offs.shape[0] - 1):
        soff = offs[r]
        ns = offs[r + 1] - soff
        nt = tt.route_trip_offsets[r + 1] - tt.route_trip_offsets[r]
        base = tt.route_time_offsets[r]
        acc = np.int64(0)
        for j in range(ns - 1):
            hop = np.int64(1) << 40
            dwell = np.int64(0)
            for k in range(nt):
                x = base + k * ns + j
                hop = min(hop, np.int64(tt.arrival[x + 1]) - tt.departure[x])
                if j > 0:
                    dwell = min(dwell, np.int64(tt.departure[x]) - tt.arrival[x])
            acc += hop + dwell
            pref[soff - off0 + j + 1] = acc
    return pref


def route_prefix(tt: RaptorTimetable) -> IntArray:
    """:func:`_route_prefix` of a timetable, cached while ``tt.arrival`` is alive.

    McRAPTOR bounds the ride of a trip boarded at position ``j`` and left at ``i`` from
    below by ``pref[i] - pref[j]`` (its in-vehicle cost, one unit per second).  A
    timetable with routes appended for one search (an on-board start, interlined trips:
    :func:`._extra_routes.base_of`) reuses the prefix of the timetable it extends and
    computes only that of its own routes.
    """
    key = id(tt.arrival)
    with _LOCK:
        hit = _PREFIX.get(key)
        if hit is not None and hit[0]() is tt.arrival:
            return hit[1]
    base = base_of(tt)
    if base is None:
        pref: IntArray = readonly(_route_prefix(tt, 0), np.int64)
    else:
        head = route_prefix(base)
        tail = _route_prefix(tt, int(base.n_routes))
        pref = readonly(np.concatenate([head, tail]), np.int64)

    _drop = pop_when_dead(_LOCK, _PREFIX, key)

    with _LOCK:
        _PREFIX[key] = (weakref.ref(tt.arrival, _drop), pref)
    return pref


def _owned(a: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """``a`` read-only, in memory of its own (so :func:`._memo.frozen`: what is derived
    from a graph can be kept by :func:`._memo.remembered`)."""
    out = np.array(a, dtype=a.dtype, order="C", copy=True)
    out.flags.writeable = False
    return out


def _build(tt: RaptorTimetable) -> StaticGraph:
    offs = tt.route_stop_offsets
    ns = np.diff(offs)
    hop = _min_hops(tt, 0)
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
    graph = StaticGraph(
        pat_offsets=pat_offsets,
        pat_stops=pat_stops,
        pat_pref=pat_pref.astype(np.int64),
        stop_pat_offsets=np.r_[0, np.cumsum(counts)].astype(np.int64),
        stop_pats=pat_of_pos[order].astype(np.int64),
        stop_pat_pos=pat_pos[order].astype(np.int64),
        route_pat=route_pat.ravel().astype(np.int64),
    )
    return StaticGraph(*(_owned(a) for a in graph))


def _extend(g: StaticGraph, base: RaptorTimetable, tt: RaptorTimetable) -> StaticGraph:
    """The graph of ``tt``, ``base`` with routes appended, from ``g``, that of ``base``.

    :func:`._extra_routes.append_routes` gives each appended route a pattern of its
    own, numbered after every pattern of ``base``: :func:`_build` would put those
    patterns last, and their entries last at each stop, which is what this does
    without going over ``base`` again (the same arrays).  Falls back to
    :func:`_build` for any other numbering.
    """
    r0 = base.n_routes
    new_pat = np.asarray(tt.route_pattern[r0:], np.int64)
    if (
        new_pat.size == 0
        or np.any(np.diff(new_pat) <= 0)
        or new_pat[0] <= np.max(base.route_pattern, initial=-1)
    ):
        return _build(tt)
    offs = tt.route_stop_offsets
    ns = np.diff(offs[r0:])
    n_pats = len(g.pat_offsets) - 1
    hop = _min_hops(tt, int(r0))
    cum = np.r_[0, np.cumsum(hop)]
    starts = np.r_[0, np.cumsum(ns)[:-1]]
    pref = cum[:-1] - np.repeat(cum[starts], ns)  # sums of the least hops before
    stops = np.asarray(tt.route_stops[offs[r0] :], np.int64)
    pats = np.repeat(np.arange(n_pats, n_pats + ns.size, dtype=np.int64), ns)
    pos = np.arange(stops.size, dtype=np.int64) - np.repeat(starts, ns)
    old_stop = np.repeat(np.arange(tt.n_stops, dtype=np.int64), np.diff(g.stop_pat_offsets))
    order = np.argsort(np.r_[old_stop, stops], kind="stable")  # the new ones last per stop
    counts = np.bincount(g.pat_stops, minlength=tt.n_stops) + np.bincount(
        stops, minlength=tt.n_stops
    )
    graph = StaticGraph(
        pat_offsets=np.r_[g.pat_offsets, g.pat_offsets[-1] + np.cumsum(ns)].astype(np.int64),
        pat_stops=np.r_[g.pat_stops, stops].astype(np.int32),
        pat_pref=np.r_[g.pat_pref, pref].astype(np.int64),
        stop_pat_offsets=np.r_[0, np.cumsum(counts)].astype(np.int64),
        stop_pats=np.r_[g.stop_pats, pats][order].astype(np.int64),
        stop_pat_pos=np.r_[g.stop_pat_pos, pos][order].astype(np.int64),
        route_pat=np.r_[g.route_pat, n_pats + np.arange(ns.size)].astype(np.int64),
    )
    return StaticGraph(*(_owned(a) for a in graph))


def static_graph(tt: RaptorTimetable) -> StaticGraph:
    """The :class:`StaticGraph` of a timetable, cached while ``tt.arrival`` is alive.

    A timetable with routes appended for one search (an on-board start:
    :func:`._extra_routes.base_of`) extends its base's graph (:func:`_extend`).
    """
    key = id(tt.arrival)
    with _LOCK:
        hit = _CACHE.get(key)
        if hit is not None and hit[0]() is tt.arrival:
            return hit[1]
    base = base_of(tt)
    graph = _build(tt) if base is None else _extend(static_graph(base), base, tt)

    _drop = pop_when_dead(_LOCK, _CACHE, key)

    with _LOCK:
        _CACHE[key] = (weakref.ref(tt.arrival, _drop), graph)
    return graph


#: Children per node of the search's heap: a 4-ary heap is half as deep as a binary
#: one, so a stop leaves it (the dearer step) in fewer, cache-near steps.
_ARITY = 4


@njit(cache=True, inline="always")  # type: ignore[misc]
def _sift_up(heap: IntArray, pos: IntArray, key: FloatArray, i: int) -> None:
    item = heap[i]
    v = key[item]
    while i > 0:
        p = (i - 1) // _ARITY
        above = heap[p]
        if key[above] <= v:
            break
        heap[i] = above
        pos[above] = i
        i = p
    heap[i] = item
    pos[item] = i


@njit(cache=True, inline="always")  # type: ignore[misc]
def _sift_down(heap: IntArray, pos: IntArray, key: FloatArray, n: int, i: int) -> None:
    item = heap[i]
    v = key[item]
    while True:
        first = _ARITY * i + 1
        if first >= n:
            break
        m = first
        km = key[heap[first]]
        for c in range(first + 1, min(first + _ARITY, n)):
            kc = key[heap[c]]
            if kc < km:
                m, km = c, kc
        if km >= v:
            break
        heap[i] = heap[m]
        pos[heap[i]] = i
        i = m
    heap[i] = item
    pos[item] = i


class _Search(NamedTuple):
    """A backward search that can go on to a higher limit (indexed 4-ary heap)."""

    lb: FloatArray  # least weight found per stop
    pos: IntArray  # heap position; -1 never queued, -2 settled
    heap: IntArray
    size: IntArray  # [number of queued stops]
    pat_key: FloatArray  # per pattern: least (bound + prefix) scanned so far ...
    pat_pos: IntArray  # ... and from which position


def _search(n_stops: int, n_pats: int, egress_stops: Int32Array, egress_w: FloatArray) -> _Search:
    """A search queued with the egress stops, none settled."""
    out = _Search(
        lb=np.full(n_stops, np.inf),
        pos=np.full(n_stops, -1, np.int64),
        heap=np.empty(n_stops, np.int64),
        size=np.zeros(1, np.int64),
        pat_key=np.full(n_pats, np.inf),
        pat_pos=np.full(n_pats, -1, np.int64),
    )
    _seed(out.lb, out.pos, out.heap, out.size, egress_stops, egress_w)
    return out


@njit(cache=True, nogil=True)  # type: ignore[misc]
def _seed(
    lb: FloatArray,
    pos: IntArray,
    heap: IntArray,
    size: IntArray,
    egress_stops: Int32Array,
    egress_w: FloatArray,
) -> None:
    nh = size[0]
    for i in range(egress_stops.shape[0]):
        s = egress_stops[i]
        if egress_w[i] < lb[s]:
            lb[s] = egress_w[i]
            if pos[s] < 0:
                heap[nh] = s
                pos[s] = nh
                nh += 1
            _sift_up(heap, pos, lb, pos[s])
    size[0] = nh


@njit(cache=True, nogil=True)  # type: ignore[misc]
def _dijkstra(  # noqa: C901
    g: StaticGraph,
    lb: FloatArray,
    pos: IntArray,
    heap: IntArray,
    size: IntArray,
    pat_key: FloatArray,
    pat_pos: IntArray,
    in_off: IntArray,
    in_from: Int32Array,
    in_w: FloatArray,
    board_w: FloatArray,
    weighted: bool,
    limit: float,
) -> FloatArray:
    """Go on with a search (:class:`_Search`) until the least queued weight reaches ``limit``.

    Returns the least weight from every stop to an egress stop where it is below
    ``limit``, that least queued weight elsewhere (no more than the least weight:
    stops settle in order of weight), ``inf`` where no egress stop can be reached.
    Weights: per egress entry (seeded), ``board_w`` per pattern boarding and, when
    ``weighted``, ``in_w[x]`` per incoming walking transfer ``x`` plus the
    minimum hop times (else walks and rides weigh nothing).
    """
    n = lb.shape[0]
    pat_offsets, pat_stops, pat_pref = g.pat_offsets, g.pat_stops, g.pat_pref
    stop_pat_offsets, stop_pats, stop_pat_pos = g.stop_pat_offsets, g.stop_pats, g.stop_pat_pos
    nh = size[0]
    while nh > 0:
        s = heap[0]
        v = lb[s]
        if v >= limit:
            break
        nh -= 1
        pos[s] = -2
        if nh > 0:
            heap[0] = heap[nh]
            pos[heap[0]] = 0
            _sift_down(heap, pos, lb, nh, 0)
        for x in range(in_off[s], in_off[s + 1]):
            u = in_from[x]
            c = v + in_w[x] if weighted else v
            if c < lb[u] and pos[u] != -2:
                lb[u] = c
                if pos[u] < 0:
                    heap[nh] = u
                    pos[u] = nh
                    nh += 1
                _sift_up(heap, pos, lb, pos[u])
        for x in range(stop_pat_offsets[s], stop_pat_offsets[s + 1]):
            p = stop_pats[x]
            j = stop_pat_pos[x]
            soff = pat_offsets[p]
            # a scan from j reaches i < j with v + pref[j] - pref[i]: skip it when an
            # earlier scan from a later position offered no more
            key = v + (pat_pref[soff + j] if weighted else 0)
            stop_at = 0
            if key >= pat_key[p]:
                if j <= pat_pos[p]:
                    continue
                stop_at = pat_pos[p]
            else:
                pat_key[p] = key
                pat_pos[p] = j
            for i in range(j - 1, stop_at - 1, -1):
                u = pat_stops[soff + i]
                c = key + board_w[p] - (pat_pref[soff + i] if weighted else 0)
                if c < lb[u] and pos[u] != -2:
                    lb[u] = c
                    if pos[u] < 0:
                        heap[nh] = u
                        pos[u] = nh
                        nh += 1
                    _sift_up(heap, pos, lb, pos[u])
    size[0] = nh
    out = lb.copy()
    if nh > 0:
        floor = lb[heap[0]]
        for u in range(n):
            if pos[u] != -2:
                out[u] = floor
    return out


@njit(cache=True, inline="always")  # type: ignore[misc]
def _egress_level(egress_stops: Int32Array, dist: FloatArray, level: IntArray) -> int:
    """The rides searches' level 0: each egress stop once, at 0 rides (returns its size)."""
    n_level = 0
    for i in range(egress_stops.shape[0]):
        s = egress_stops[i]
        if dist[s] != 0.0:
            dist[s] = 0.0
            level[n_level] = s
            n_level += 1
    return n_level


@njit(cache=True, inline="always")  # type: ignore[misc]
def _board_once_more(
    g: StaticGraph,
    level: IntArray,
    n_level: int,
    pat_pos: IntArray,
    dist: FloatArray,
    d: int,
    nxt: IntArray,
) -> int:
    """The rides searches' step from level ``d`` to ``d + 1``: every stop before a stop of
    the level on a pattern through it, not reached yet, joins ``nxt`` (returns its size).

    ``pat_pos[p]`` is the latest position of pattern ``p`` scanned from so far: the stops
    before it were all reached then, so a later scan stops there.
    """
    pat_offsets, pat_stops = g.pat_offsets, g.pat_stops
    stop_pat_offsets, stop_pats, stop_pat_pos = g.stop_pat_offsets, g.stop_pats, g.stop_pat_pos
    n_nxt = 0
    for ii in range(n_level):
        s = level[ii]
        for x in range(stop_pat_offsets[s], stop_pat_offsets[s + 1]):
            p = stop_pats[x]
            j = stop_pat_pos[x]
            if j <= pat_pos[p]:
                continue  # an earlier scan from a later position reached them all
            stop_at = max(pat_pos[p], 0)
            pat_pos[p] = j
            soff = pat_offsets[p]
            for k in range(j - 1, stop_at - 1, -1):
                u = pat_stops[soff + k]
                if dist[u] > d + 1:
                    dist[u] = d + 1
                    nxt[n_nxt] = u
                    n_nxt += 1
    return n_nxt


@njit(cache=True, inline="always")  # type: ignore[misc]
def _floor_at(dist: FloatArray, limit: int) -> None:
    """Stops at ``limit`` rides or more (or unreached) get ``limit``: the floor of the
    stops the search did not finish."""
    for u in range(dist.shape[0]):
        if dist[u] >= limit:
            dist[u] = limit


@njit(cache=True, nogil=True)  # type: ignore[misc]
def _rides_bfs(
    g: StaticGraph,
    n: int,
    egress_stops: Int32Array,
    in_off: IntArray,
    in_from: Int32Array,
    limit: int,
) -> FloatArray:
    """The rides bounds of :func:`_dijkstra` (walks weigh 0, boardings 1), level by level.

    The same array as the Dijkstra search stopped at ``limit`` gives: exact rides where
    below ``limit``; elsewhere ``limit`` when some stop needs exactly ``limit`` rides
    (the least queued weight there), else ``inf``.  A breadth-first search needs no heap.
    """
    dist = np.full(n, np.inf)
    pat_pos = np.full(g.pat_offsets.shape[0] - 1, -1, np.int64)
    level = np.empty(n, np.int64)
    nxt = np.empty(n, np.int64)
    n_level = _egress_level(egress_stops, dist, level)
    d = 0
    while n_level > 0 and d < limit:
        # walks weigh nothing: the level grows by everything walking reaches
        i = 0
        while i < n_level:
            s = level[i]
            i += 1
            for x in range(in_off[s], in_off[s + 1]):
                u = in_from[x]
                if dist[u] > d:
                    dist[u] = d
                    level[n_level] = u
                    n_level += 1
        # one boarding more: every earlier stop of the patterns through the level
        n_nxt = _board_once_more(g, level, n_level, pat_pos, dist, d, nxt)
        level, nxt = nxt, level
        n_level = n_nxt
        d += 1
    if n_level > 0:  # stops at ``limit`` rides: the floor of all the others
        _floor_at(dist, limit)
    return dist


class WalkGroups(NamedTuple):
    """Stops grouped by walking: the stops that walks chained freely join, as CSR."""

    group_of: IntArray  # per stop, its group
    offsets: IntArray  # CSR into members
    members: Int32Array


@njit(cache=True, nogil=True)  # type: ignore[misc]
def _components(n: int, in_off: IntArray, in_from: Int32Array) -> IntArray:
    """Per stop, the number of its connected component over the walks (any direction
    taken as both; meant for symmetric walks), numbered in order of their least stop."""
    comp = np.full(n, -1, np.int64)
    stack = np.empty(n, np.int64)
    n_comp = 0
    for s0 in range(n):
        if comp[s0] >= 0:
            continue
        comp[s0] = n_comp
        stack[0] = s0
        top = 1
        while top > 0:
            top -= 1
            s = stack[top]
            for x in range(in_off[s], in_off[s + 1]):
                u = in_from[x]
                if comp[u] < 0:
                    comp[u] = n_comp
                    stack[top] = u
                    top += 1
        n_comp += 1
    return comp


def _build_walk_groups(in_off: IntArray, in_from: Int32Array, n: int) -> WalkGroups | None:
    """:class:`WalkGroups` of symmetric walks (each one's reverse is a walk too), else ``None``.

    With symmetric walks, a stop reaches another by walks chained freely exactly when
    both lie in one connected component; with others a component may hold stops that
    do not reach each other, so there are no groups.
    """
    off = np.asarray(in_off, np.int64)
    counts = off[1:] - off[:-1]
    to = np.repeat(np.arange(n, dtype=np.int64), counts)
    frm = np.asarray(in_from, np.int64)
    if not np.array_equal(np.unique(frm * n + to), np.unique(to * n + frm)):
        return None
    comp = _components(n, readonly(in_off, np.int64), readonly(in_from, np.int32))
    order = np.argsort(comp, kind="stable")
    sizes = np.bincount(comp, minlength=int(comp.max(initial=-1)) + 1)
    return WalkGroups(
        group_of=readonly(comp, np.int64),
        offsets=readonly(np.r_[0, np.cumsum(sizes)].astype(np.int64), np.int64),
        members=readonly(order.astype(np.int32), np.int32),
    )


def walk_groups(in_off: IntArray, in_from: Int32Array, n: int) -> WalkGroups | None:
    """:func:`_build_walk_groups`, kept for unchanging walks; ``None`` for others too
    (grouping costs more than one rides search, so it pays only when kept)."""
    if not (frozen(in_off) and frozen(in_from)):
        return None
    return remembered(
        (in_off, in_from),
        f"walk_groups_{n}",
        lambda: _build_walk_groups(in_off, in_from, n),
        network=True,
    )


@njit(cache=True, nogil=True)  # type: ignore[misc]
def _rides_bfs_groups(
    g: StaticGraph,
    n: int,
    egress_stops: Int32Array,
    group_of: IntArray,
    group_offsets: IntArray,
    group_members: Int32Array,
    limit: int,
) -> FloatArray:
    """:func:`_rides_bfs` with the walks' closure read from :class:`WalkGroups`.

    Walks weigh nothing and chain freely, so the stops a level reaches on foot are the
    members of the groups of its stops.  A stop enters a level only when first reached,
    so its group was not joined before (every member would have been reached then): each
    group is joined once, over its members instead of all their walks.  The same values
    as :func:`_rides_bfs` (the exact level of every stop below ``limit``; the order in
    which a level's stops are visited changes no level).
    """
    dist = np.full(n, np.inf)
    pat_pos = np.full(g.pat_offsets.shape[0] - 1, -1, np.int64)
    joined = np.zeros(group_offsets.shape[0] - 1, np.uint8)
    level = np.empty(n, np.int64)
    nxt = np.empty(n, np.int64)
    n_level = _egress_level(egress_stops, dist, level)
    d = 0
    while n_level > 0 and d < limit:
        # walks weigh nothing: the level grows by the groups of its stops
        i = 0
        while i < n_level:
            s = level[i]
            i += 1
            c = group_of[s]
            if joined[c]:
                continue
            joined[c] = 1
            for x in range(group_offsets[c], group_offsets[c + 1]):
                u = group_members[x]
                if dist[u] > d:
                    dist[u] = d
                    level[n_level] = u
                    n_level += 1
        # one boarding more: every earlier stop of the patterns through the level
        n_nxt = _board_once_more(g, level, n_level, pat_pos, dist, d, nxt)
        level, nxt = nxt, level
        n_level = n_nxt
        d += 1
    if n_level > 0:  # stops at ``limit`` rides: the floor of all the others
        _floor_at(dist, limit)
    return dist


class GroupRides(NamedTuple):
    """Rides between walk groups: CSR over the group alighted in, of the groups boarded in."""

    into_offsets: IntArray
    into_from: IntArray


#: Most (boarding, alighting) position pairs over all patterns for which
#: :func:`group_rides` builds the group graph (larger graphs search stop by stop).
_MAX_GROUP_PAIRS = 1 << 22


@njit(cache=True, nogil=True)  # type: ignore[misc]
def _group_pairs(g: StaticGraph, group_of: IntArray, n_groups: int) -> IntArray:
    """``a * n_groups + b`` for every pattern with a stop of group ``a`` before one of
    group ``b != a`` (with repeats)."""
    pat_offsets, pat_stops = g.pat_offsets, g.pat_stops
    seen = np.full(n_groups, -1, np.int64)
    before = np.empty(n_groups, np.int64)
    total = 0
    for p in range(pat_offsets.shape[0] - 1):
        ns = pat_offsets[p + 1] - pat_offsets[p]
        total += ns * ns
    out = np.empty(total, np.int64)
    m = 0
    for p in range(pat_offsets.shape[0] - 1):
        nb = 0
        for x in range(pat_offsets[p], pat_offsets[p + 1]):
            b = group_of[pat_stops[x]]
            for i in range(nb):
                if before[i] != b:
                    out[m] = before[i] * n_groups + b
                    m += 1
            if seen[b] != p:
                seen[b] = p
                before[nb] = b
                nb += 1
    return out[:m]


def _build_group_rides(g: StaticGraph, groups: WalkGroups) -> GroupRides | None:
    n_groups = len(groups.offsets) - 1
    pat_off = np.asarray(g.pat_offsets, np.int64)
    sizes = pat_off[1:] - pat_off[:-1]
    if int((sizes * sizes).sum()) > _MAX_GROUP_PAIRS:
        return None
    pairs = np.unique(_group_pairs(g, groups.group_of, n_groups))
    to = pairs % n_groups
    counts = np.bincount(to, minlength=n_groups)
    return GroupRides(
        into_offsets=readonly(np.r_[0, np.cumsum(counts)].astype(np.int64), np.int64),
        into_from=readonly((pairs // n_groups)[np.argsort(to, kind="stable")], np.int64),
    )


def group_rides(g: StaticGraph, groups: WalkGroups) -> GroupRides | None:
    """:class:`GroupRides` of a pattern graph and walk groups, kept while both live
    (both are built here, read-only, and kept themselves: :func:`static_graph`,
    :func:`walk_groups`); ``None`` where patterns are too long to pair up every two
    positions."""
    key = (id(g.pat_stops), id(groups.group_of))
    with _LOCK:
        hit = _GROUP_RIDES.get(key)
        if hit is not None and hit[0]() is g.pat_stops and hit[1]() is groups.group_of:
            return hit[2]
    out = _build_group_rides(g, groups)

    _drop = pop_when_dead(_LOCK, _GROUP_RIDES, key)

    with _LOCK:
        _GROUP_RIDES[key] = (
            weakref.ref(g.pat_stops, _drop),
            weakref.ref(groups.group_of, _drop),
            out,
        )
    return out


@njit(cache=True, nogil=True)  # type: ignore[misc]
def _rides_bfs_group_graph(
    n: int,
    egress_stops: Int32Array,
    group_of: IntArray,
    into_offsets: IntArray,
    into_from: IntArray,
    limit: int,
) -> FloatArray:
    """:func:`_rides_bfs_groups` level by level over whole groups.

    A level of that search takes in whole groups, so every stop of a group gets the
    same bound; a group is one ride from another when some pattern stops in the first
    before it stops in the second (:class:`GroupRides`), which is what the pattern step
    there follows stop by stop.  Levels of groups give the same values, as does the
    floor at ``limit`` (a level of stops is empty exactly when its level of groups is).
    """
    n_groups = into_offsets.shape[0] - 1
    gdist = np.full(n_groups, np.inf)
    level = np.empty(n_groups, np.int64)
    nxt = np.empty(n_groups, np.int64)
    n_level = 0
    for i in range(egress_stops.shape[0]):
        c = group_of[egress_stops[i]]
        if gdist[c] != 0.0:
            gdist[c] = 0.0
            level[n_level] = c
            n_level += 1
    d = 0
    while n_level > 0 and d < limit:
        n_nxt = 0
        for ii in range(n_level):
            b = level[ii]
            for x in range(into_offsets[b], into_offsets[b + 1]):
                a = into_from[x]
                if gdist[a] > d + 1:
                    gdist[a] = d + 1
                    nxt[n_nxt] = a
                    n_nxt += 1
        level, nxt = nxt, level
        n_level = n_nxt
        d += 1
    if n_level > 0:  # groups at ``limit`` rides: the floor of all the others
        for c in range(n_groups):
            if gdist[c] >= limit:
                gdist[c] = limit
    dist = np.empty(n, np.float64)
    for u in range(n):
        dist[u] = gdist[group_of[u]]
    return dist


def _digest(a: np.ndarray[Any, Any]) -> tuple[int, int, float]:
    """A value digest of an array; remembered for read-only arrays (callers reuse them)."""
    key = id(a)
    if not a.flags.writeable:
        with _LOCK:
            hit = _DIGESTS.get(key)
        if hit is not None and hit[0]() is a:
            return hit[1]
    c = np.ascontiguousarray(a, dtype=np.float64)
    out = (zlib.crc32(c.data), len(c), float(c.sum()))
    if not a.flags.writeable:
        with _LOCK:
            _DIGESTS[key] = (weakref.ref(a), out)
            while len(_DIGESTS) > _BOUNDS_SIZE:
                _DIGESTS.popitem(last=False)
    return out


def _bounds_key(p: Prepared, req: RaptorRequest) -> tuple[Any, ...]:
    """What the bounds depend on: network arrays by identity, small arrays by value."""
    q = p.query
    return (
        id(p.timetable.arrival),
        id(req.transfer_offsets),
        id(req.transfer_to),
        p.reverse,
        q.egress_stops.tobytes(),
        q.egress_cost.tobytes(),
        _digest(req.transfer_cost),
        q.board_cost,
        zlib.crc32(np.ascontiguousarray(q.route_penalty).data),
    )


class _Walks(NamedTuple):
    """The walks a backward search follows into each stop (CSR), as :func:`_dijkstra`
    and the rides searches read them."""

    in_off: IntArray
    in_from: Int32Array
    in_edge: IntArray | None  # the request's transfer of each (``None``: in order)


class _Kept:
    """The cost search for one key, the limits reached and the bounds there.

    What the searches read besides (the walks reversed, their costs and the boarding
    weights) depends on the key alone, so it is derived once, when first needed; a
    reversed search's walks and costs are the request's own arrays, read at each call
    (held, they would outlive the request).
    """

    def __init__(self, refs: tuple[Any, ...], cost: _Search, egress_stops: Int32Array) -> None:
        self.refs = tuple(weakref.ref(a) for a in refs)
        self.lock = threading.Lock()  # one thread goes on with the searches at a time
        self.cost, self.egress_stops = cost, egress_stops
        self.limits = (-np.inf, -np.inf)
        self.bounds: LowerBounds | None = None
        self.walks: _Walks | None = None
        # walk costs along the reversed walks (None: the request's own), boardings
        self.weights: tuple[FloatArray | None, FloatArray] | None = None

    def serves(self, refs: tuple[Any, ...]) -> bool:
        return all(r() is a for r, a in zip(self.refs, refs, strict=True))


def lower_bounds(p: Prepared, req: RaptorRequest, cost_limit: float = np.inf) -> LowerBounds:
    """``(cost, rides)`` lower bounds from every stop to the destination.

    The searches of the last few keys are kept (searches repeated with other trip
    filters, as when planners ban the trips of itineraries found, need the same
    bounds), and go on from where they stopped when a higher limit is asked for.

    Parameters
    ----------
    p
        The prepared search (its timetable, egress, cost parameters and
        ``max_rounds`` are used).
    req
        The request, whose walking transfers are reversed for the backward search.
    cost_limit
        Cost bounds are exact below this; the others are at least this (and no
        more than their exact value).  McRAPTOR prunes alike with any bounds that
        reach the greatest cost of the journeys it starts with, so that cost is the
        limit it passes.  Rides bounds are exact up to ``max_rounds + 1``, which
        prunes alike for the same reason.

    Returns
    -------
    LowerBounds
        Generalized cost and rides per stop (``inf``: destination unreachable).
    """
    key = _bounds_key(p, req)
    refs = (p.timetable.arrival, req.transfer_offsets, req.transfer_to)
    want = (float(cost_limit), float(p.query.max_rounds + 1))
    with _LOCK:
        kept = _BOUNDS.get(key)
    if kept is None or not kept.serves(refs):
        n_stops, n_pats = p.timetable.n_stops, len(static_graph(p.timetable).pat_offsets) - 1
        q = p.query
        kept = _Kept(
            refs,
            _search(n_stops, n_pats, q.egress_stops, readonly(q.egress_cost, np.float64)),
            q.egress_stops,
        )
        with _LOCK:
            other = _BOUNDS.get(key)
            if other is not None and other.serves(refs):
                kept = other  # another thread kept one meanwhile
            else:
                _BOUNDS[key] = kept
    with _LOCK:
        if key in _BOUNDS:
            _BOUNDS.move_to_end(key)
        while len(_BOUNDS) > _BOUNDS_SIZE:
            _BOUNDS.popitem(last=False)
    with kept.lock:
        if kept.bounds is None or kept.limits[0] < want[0] or kept.limits[1] < want[1]:
            limits = (max(kept.limits[0], want[0]), max(kept.limits[1], want[1]))
            kept.bounds = _go_on(p, req, kept, limits)
            kept.limits = limits
        return kept.bounds


def _go_on(
    p: Prepared, req: RaptorRequest, kept: _Kept, limits: tuple[float, float]
) -> LowerBounds:
    """The cost search continued to ``limits[0]``, the rides searched again if
    ``limits[1]`` is higher than before; their bounds."""
    tt = p.timetable
    g = static_graph(tt)
    # derived arrays are kept; a reversed search reads the request's own walks and costs
    # (views, taken again per call: a kept search holds no array of a request's)
    walks = kept.walks
    if walks is None:
        walks = _reversed_walks(p, req)
        if walks.in_edge is not None:
            kept.walks = walks
    search = kept.cost
    if search.size[0] > 0 and not search.lb[search.heap[0]] >= limits[0]:  # as the kernel
        walk_cost = readonly(req.transfer_cost, np.float64)
        if kept.weights is None:
            board = readonly(
                p.query.board_cost + _least_penalty(g, p.query.route_penalty), np.float64
            )
            gathered = None if walks.in_edge is None else _incoming_costs(walk_cost, walks.in_edge)
            kept.weights = (gathered, board)
        in_w, board = kept.weights
        if in_w is None:
            in_w = walk_cost
        lb_cost: FloatArray = _dijkstra(
            g, *search, walks.in_off, walks.in_from, in_w, board, True, limits[0]
        )
    else:
        lb_cost = _settled_so_far(search)
    if kept.bounds is not None and kept.limits[1] >= limits[1]:
        return LowerBounds(readonly(lb_cost, np.float64), kept.bounds.rides)
    in_off, in_from = walks.in_off, walks.in_from
    groups = walk_groups(in_off, in_from, tt.n_stops)
    rides_limit = int(limits[1])
    if groups is None:
        lb_rides = _rides_bfs(g, tt.n_stops, kept.egress_stops, in_off, in_from, rides_limit)
    else:
        between = group_rides(g, groups)
        if between is None:
            lb_rides = _rides_bfs_groups(g, tt.n_stops, kept.egress_stops, *groups, rides_limit)
        else:
            lb_rides = _rides_bfs_group_graph(
                tt.n_stops, kept.egress_stops, groups.group_of, *between, rides_limit
            )
    return LowerBounds(readonly(lb_cost, np.float64), readonly(lb_rides, np.float64))


def _reversed_walks(p: Prepared, req: RaptorRequest) -> _Walks:
    """The request's walking transfers into each stop, for the backward searches."""
    off, to = req.transfer_offsets, req.transfer_to
    if len(off) == 0:
        off = np.zeros(p.timetable.n_stops + 1, np.int64)
    if p.reverse:
        # backwards on the reversed search is forwards on the request's transfers
        return _Walks(readonly(off, np.int64), readonly(to, np.int32), None)
    return _Walks(*transposed_transfers(off, to, p.timetable.n_stops))


def _settled_so_far(search: _Search) -> FloatArray:
    """What :func:`_dijkstra` returns when no stop is queued below its limit: the
    weights of the stops settled, the least queued weight elsewhere (``inf`` where
    nothing is queued) — without a kernel call (the first call of a search, at
    ``-inf``, settles none)."""
    out = search.lb.copy()
    if search.size[0] > 0:
        out[search.pos != -2] = search.lb[search.heap[0]]
    return out


@njit(cache=True, nogil=True)  # type: ignore[misc]
def _least_by_pattern(route_pat: IntArray, n_pats: int, route_penalty: FloatArray) -> FloatArray:
    """``np.minimum.at(full(n_pats, inf), route_pat, route_penalty)``, route by route as
    it goes (each step ``np.minimum``'s: the first operand where less or ``nan``, else
    the second), then ``0`` where not finite."""
    penalty = np.full(n_pats, np.inf)
    for r in range(route_pat.shape[0]):
        p = route_pat[r]
        a, b = penalty[p], route_penalty[r]
        penalty[p] = a if (a < b or np.isnan(a)) else b
    for p in range(n_pats):
        if not np.isfinite(penalty[p]):
            penalty[p] = 0.0
    return penalty


def _least_penalty(g: StaticGraph, route_penalty: FloatArray) -> FloatArray:
    """Per pattern, the least route penalty of its routes (boarding weights)."""
    penalty = _least_by_pattern(
        g.route_pat, len(g.pat_offsets) - 1, readonly(route_penalty, np.float64)
    )
    return readonly(penalty, np.float64)


def _incoming_costs(walk_cost: FloatArray, in_edge: IntArray | None) -> FloatArray:
    """``walk_cost`` along the incoming walking transfers (``in_edge``; ``None``: as is).

    The Dijkstra search reads them in order instead of through ``in_edge`` (a gather
    over the whole transfer array per settled stop).  Kept for unchanging arrays.
    """
    if in_edge is None:
        return walk_cost
    return remembered(
        (walk_cost, in_edge),
        "incoming_costs",
        lambda: readonly(walk_cost[in_edge], np.float64),
        network=True,
    )
