"""Range RAPTOR: earliest arrivals for many departure times, latest first, reusing labels.

A journey that departs at ``t2`` can also be made by someone ready at ``t1 < t2``
(they wait at the origin), so the labels of a later departure are upper bounds
for an earlier one.  The round kernel keeps per-round labels (at most ``k``
rides) and rescans only what improves, which makes every row of the result
equal to a fresh search from that departure time, provided the boarding window
is the same: it is anchored at the latest departure (see
:func:`otpa.transit.raptor.api.range_raptor`).

Range RAPTOR returns times only, so in the common case (no trip-stop bans, every
stop passable, no on-board start; transfers.txt rules never reach here) it runs
:func:`_times_rounds`, the round kernel of :mod:`._round_kernel` reduced to what
decides a time:

* no provenance (ride, boarding position, transfer edge...): only the ride and
  board-ready times, and the ride's trip and alighting position that the pruning
  of recorded rides reads, are kept;
* a stop's change is noted when its label improves (no pass over every stop per
  round), and the walking transfers of a round are relaxed in the order their
  stops improved: a minimum does not depend on the order;
* the board-ready labels of the last round are never read (no later round boards
  from them, and copying forward reads rounds before the last only), so the last
  round's walking transfers only set the "any" arrivals, and are skipped when the
  rows are ride arrivals;
* the scratch arrays are allocated once per call, not per departure;
* with ``max_duration_s`` (:func:`range_rounds`' ``limit``) no label past the
  departure plus the limit is written.

The kernel is bound by memory traffic (a city's walking transfers and timetable do
not fit in the second-level cache), so it reads compact copies: each walking transfer
as one integer (time and target stop packed), relaxed stop after stop with the next
stop's transfers prefetched, and stopped at the cut where a stop's transfers are
sorted by time; each route's departures position-major, so the boarding search over
a route's trips at one stop reads contiguous memory (both built once per transfer
table and timetable and cached, :func:`_layout`); and each route position as one
integer (stop id with "may board" and "may alight" bits, per call: the request's
stop flags go into it).

Every label the kernel keeps takes the value the full kernel gives it, so the rows
are the same.  Other cases run :func:`~._round_kernel.run_rounds` per departure.
"""

from __future__ import annotations

import threading
from typing import Any, NamedTuple

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.core.cgutils import ir  # type: ignore[attr-defined]  # (llvmlite's, through numba)
from numba.extending import intrinsic

from otpa.transit.raptor._common import first_trip, first_trip_before
from otpa.transit.raptor._memo import frozen
from otpa.transit.raptor._query import INF, SearchQuery
from otpa.transit.raptor._round_kernel import NO_LAST, RoundLabels, run_rounds
from otpa.transit.raptor.spi import RaptorTimetable
from otpa.types import FloatArray, Int32Array, IntArray, UInt8Array

__all__ = ["range_rounds"]


@njit(cache=True, inline="always")  # type: ignore[misc]
def _push(flags: UInt8Array, items: Int32Array, n: int, s: int) -> int:
    if flags[s] == 0:
        flags[s] = 1
        items[n] = s
        n += 1
    return n


#: "Unreached" in the int32 labels of :func:`_times_rounds` (times stay far below it).
INF32 = 1 << 30

#: Flags of a route position in :func:`_positions` (the stop id is above them).
_ALIGHT = 1
_BOARD = 2


class _Layout(NamedTuple):
    """Compact copies of what the hot loops of :func:`_times_rounds` read (cached)."""

    dep_t: Int32Array  # departures per route position over the trips (transposed)
    walks: np.ndarray  # walking transfers: (time << walk_shift) | target stop, int32/int64
    walks_sorted: UInt8Array  # per stop: are its walks sorted by time
    walk_shift: int


@intrinsic  # type: ignore[misc]
def _prefetch(typingctx: Any, arr: Any, idx: Any) -> Any:
    """Hint the CPU to load ``arr[idx]``'s cache line (``llvm.prefetch``, no effect on results)."""
    sig = types.void(arr, idx)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]], wraparound=False)
        i8p, i32 = cgutils.voidptr_t, cgutils.int32_t
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0i8")
        # read, high locality, data cache
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, nogil=True)  # type: ignore[misc]
def _positions(tt: RaptorTimetable, q: SearchQuery) -> IntArray:
    """Per route position: ``stop << 2`` with :data:`_ALIGHT`/:data:`_BOARD` when allowed there."""
    rs = tt.route_stops
    out = np.empty(rs.shape[0], dtype=np.int64)
    for x in range(rs.shape[0]):
        s = rs[x]
        v = np.int64(s) << 2
        if tt.route_alight[x] != 0 and q.stop_alight[s] != 0:
            v |= _ALIGHT
        if tt.route_board[x] != 0 and q.stop_board[s] != 0:
            v |= _BOARD
        out[x] = v
    return out


@njit(cache=True, nogil=True)  # type: ignore[misc]
def _transposed(tt: RaptorTimetable) -> Int32Array:
    """Each route's departures position-major (``base + j * n_trips + k``)."""
    dep = tt.departure
    out = np.empty_like(dep)
    for r in range(tt.route_stop_offsets.shape[0] - 1):
        ns = tt.route_stop_offsets[r + 1] - tt.route_stop_offsets[r]
        nt = tt.route_trip_offsets[r + 1] - tt.route_trip_offsets[r]
        base = tt.route_time_offsets[r]
        for k in range(nt):
            for j in range(ns):
                out[base + j * nt + k] = dep[base + k * ns + j]
    return out


@njit(cache=True, nogil=True)  # type: ignore[misc]
def _sorted_walks(offsets: IntArray, time: Int32Array) -> UInt8Array:
    out = np.ones(offsets.shape[0] - 1, dtype=np.uint8)
    for s in range(out.shape[0]):
        for e in range(offsets[s] + 1, offsets[s + 1]):
            if time[e] < time[e - 1]:
                out[s] = 0
                break
    return out


def _key(*arrays: np.ndarray) -> tuple[int, ...]:
    return tuple(x for a in arrays for x in (a.__array_interface__["data"][0], a.size))


_LAYOUTS: dict[tuple[int, ...], tuple[tuple[np.ndarray, ...], Any]] = {}
_LAYOUT_LOCK = threading.Lock()
_MAX_LAYOUTS = 8


def _cached(arrays: tuple[np.ndarray, ...], build: Any) -> Any:
    """``build()``, cached while ``arrays`` (kept alive by the cache) are the inputs.

    Only arrays whose values cannot change (:func:`._memo.frozen`: a network's, or a
    saved graph's memory map) are cached by address; for others (a caller's writable
    arrays, which may change in place) the layout is built for this call alone.
    """
    if not all(frozen(a) for a in arrays):
        return build()
    key = _key(*arrays)
    with _LAYOUT_LOCK:
        hit = _LAYOUTS.get(key)
    if hit is not None:
        return hit[1]
    value = build()
    with _LAYOUT_LOCK:
        if len(_LAYOUTS) >= _MAX_LAYOUTS:
            del _LAYOUTS[next(iter(_LAYOUTS))]
        _LAYOUTS[key] = (arrays, value)
    return value


def _pack_walks(q: SearchQuery) -> tuple[np.ndarray, UInt8Array, int]:
    n = q.tr_offsets.shape[0] - 1
    to = q.tr_to.astype(np.int64)
    time = q.tr_time.astype(np.int64)
    shift = max(1, int(n - 1).bit_length())
    hi = int(time.max()) if time.size else 0
    lo = int(time.min()) if time.size else 0
    if lo >= 0 and shift + hi.bit_length() <= 31:
        walks: np.ndarray = ((time << shift) | to).astype(np.int32)
    else:  # an arithmetic shift gives the time back, negative or not
        shift = 32
        walks = (time << shift) + to
    return walks, _sorted_walks(q.tr_offsets, q.tr_time), shift


def _layout(tt: RaptorTimetable, q: SearchQuery) -> _Layout:
    """The compact copies for ``tt`` and ``q``'s walking transfers (cached by their arrays)."""
    dep_t = _cached((tt.departure, tt.route_time_offsets), lambda: _transposed(tt))
    walks, walks_sorted, shift = _cached(
        (q.tr_offsets, q.tr_to, q.tr_time), lambda: _pack_walks(q)
    )
    return _Layout(dep_t, walks, walks_sorted, shift)


@njit(cache=True)  # type: ignore[misc]
def _copy_times(
    o_time: Int32Array,
    r_time: Int32Array,
    r_trip: Int32Array,
    r_apos: Int32Array,
    b_time: Int32Array,
    changed: UInt8Array,
    changed_list: Int32Array,
    n_changed: IntArray,
    k: int,
    any_arrival: bool,
) -> None:
    """Start row ``k`` from the labels of row ``k - 1`` that changed in this search."""
    km = k - 1
    for ii in range(n_changed[km]):
        s = changed_list[km, ii]
        changed[km, s] = 0
        upd = False
        if any_arrival and o_time[km, s] < o_time[k, s]:
            o_time[k, s] = o_time[km, s]
            upd = True
        if r_time[km, s] < r_time[k, s]:
            r_time[k, s] = r_time[km, s]
            r_trip[k, s] = r_trip[km, s]
            r_apos[k, s] = r_apos[km, s]
            upd = True
        if b_time[km, s] < b_time[k, s]:
            b_time[k, s] = b_time[km, s]
            upd = True
        if upd and changed[k, s] == 0:
            changed[k, s] = 1
            changed_list[k, n_changed[k]] = s
            n_changed[k] += 1
    n_changed[km] = 0


@njit(cache=True, nogil=True)  # type: ignore[misc]
def _times_rounds(  # noqa: C901 (one loop nest: calls in the hot loop cost refcounting)
    tt: RaptorTimetable,
    q: SearchQuery,
    ridden: Int32Array,
    times: IntArray,
    out: FloatArray,
    ride: bool,
    limit: int,
    lay: _Layout,
) -> None:
    """:func:`range_rounds` without bans, impassable stops or on-board starts (see the module)."""
    n = tt.n_stops
    n_rounds = q.max_rounds
    any_arrival = not ride
    route_stop_offsets = tt.route_stop_offsets
    route_trip_offsets, route_time_offsets = tt.route_trip_offsets, tt.route_time_offsets
    arrival, dep_t = tt.arrival, lay.dep_t
    pos = _positions(tt, q)
    stop_route_offsets, stop_routes, stop_route_pos = (
        tt.stop_route_offsets,
        tt.stop_routes,
        tt.stop_route_pos,
    )
    route_allowed, trip_allowed, bans = q.route_allowed, q.trip_allowed, q.trip_stop_bans
    tr_offsets, walks, tr_sorted = q.tr_offsets, lay.walks, lay.walks_sorted
    shift = lay.walk_shift
    to_mask = (1 << shift) - 1
    cap, alight_slack = q.cap, q.alight_slack
    g = np.int32(q.gap - q.alight_slack)
    n_routes = route_stop_offsets.shape[0] - 1
    shape = (n_rounds + 1, n)
    # labels as int32 seconds (half the memory of RoundLabels' int64: the walking-transfer
    # loop gathers from a row that then stays in the first-level cache)
    o_time = np.full(shape if any_arrival else (1, 1), INF32, dtype=np.int32)
    r_time = np.full(shape, INF32, dtype=np.int32)
    b_time = np.full(shape, INF32, dtype=np.int32)
    r_trip = np.full(shape, -1, dtype=np.int32)
    r_apos = np.full(shape, -1, dtype=np.int32)
    changed = np.zeros(shape, dtype=np.uint8)
    changed_list = np.empty(shape, dtype=np.int32)
    n_changed = np.zeros(n_rounds + 1, dtype=np.int64)
    mark = np.zeros(n, dtype=np.uint8)
    mark_list = np.empty(n, dtype=np.int32)
    nxt = np.zeros(n, dtype=np.uint8)
    nxt_list = np.empty(n, dtype=np.int32)
    rimp = np.zeros(n, dtype=np.uint8)
    rimp_list = np.empty(n, dtype=np.int32)
    first_pos = np.full(n_routes, -1, dtype=np.int32)
    last_pos = np.full(n_routes, -1, dtype=np.int32)
    queue = np.empty(n_routes, dtype=np.int32)
    labels = r_time if ride else o_time
    for i in range(times.shape[0]):
        time = times[i]
        # no label later than the cut is written (see range_rounds)
        cut = np.int32(min(int(time) + limit, INF32))
        n_mark = 0
        for a in range(q.access_stops.shape[0]):
            s = q.access_stops[a]
            t = np.int32(time + q.access_time[a])
            if any_arrival and t < o_time[0, s] and t <= cut:
                o_time[0, s] = t
                n_changed[0] = _push(changed[0], changed_list[0], n_changed[0], s)
            tb = np.int32(t + q.board_slack)
            if tb < b_time[0, s] and tb <= cut:
                b_time[0, s] = tb
                n_changed[0] = _push(changed[0], changed_list[0], n_changed[0], s)
                n_mark = _push(mark, mark_list, n_mark, s)
        for k in range(1, n_rounds + 1):
            km = k - 1
            last = k == n_rounds
            _copy_times(
                o_time, r_time, r_trip, r_apos, b_time, changed, changed_list, n_changed, k,
                any_arrival,
            )  # fmt: skip
            if n_mark == 0:
                continue
            nq = 0
            for ii in range(n_mark):
                s = mark_list[ii]
                for x in range(stop_route_offsets[s], stop_route_offsets[s + 1]):
                    r = stop_routes[x]
                    if route_allowed[r] == 0:
                        continue
                    p = stop_route_pos[x]
                    if first_pos[r] < 0:
                        queue[nq] = r
                        nq += 1
                        first_pos[r] = p
                        last_pos[r] = p
                    elif p < first_pos[r]:
                        first_pos[r] = p
                    elif p > last_pos[r]:
                        last_pos[r] = p
            n_next = 0
            n_rimp = 0
            ch_k, chl_k = changed[k], changed_list[k]
            r_k, b_k, b_km = r_time[k], b_time[k], b_time[km]
            trip_k, apos_k = r_trip[k], r_apos[k]
            queue[:nq].sort()
            for qi in range(nq):
                r = queue[qi]
                p0 = first_pos[r]
                p1 = last_pos[r]
                first_pos[r] = -1
                last_pos[r] = -1
                soff = route_stop_offsets[r]
                ns = route_stop_offsets[r + 1] - soff
                t0 = route_trip_offsets[r]
                nt = route_trip_offsets[r + 1] - t0
                base = route_time_offsets[r]
                cur = -1
                stale = False  # the ride on `cur` from here on is already in the labels
                for j in range(p0, ns):
                    # past the last marked stop nothing is boarded: without a trip, or with
                    # one whose ride is already recorded, the rest of the route changes nothing
                    if j > p1 and (stale or cur < 0):
                        break
                    x = pos[soff + j]
                    s = x >> 2
                    if cur >= 0 and not stale:
                        if trip_k[s] == t0 + cur and apos_k[s] == j:
                            stale = True
                        elif x & _ALIGHT:
                            t = np.int32(arrival[base + cur * ns + j] + alight_slack)
                            if t < r_k[s] and t <= cut:
                                r_k[s] = t
                                trip_k[s] = t0 + cur
                                apos_k[s] = j
                                n_changed[k] = _push(ch_k, chl_k, n_changed[k], s)
                                if any_arrival or not last:
                                    n_rimp = _push(rimp, rimp_list, n_rimp, s)
                                if any_arrival and t < o_time[k, s]:
                                    o_time[k, s] = t
                                if t + g < b_k[s] and t + g <= cut:
                                    b_k[s] = t + g
                                    n_next = _push(nxt, nxt_list, n_next, s)
                    if x & _BOARD == 0 or mark[s] == 0:
                        continue
                    k_hi = cur if cur >= 0 else nt
                    if k_hi == 0:
                        continue
                    bt = b_km[s]
                    # the departures at j of the route's trips, contiguous (no bans here,
                    # so the searches' position argument is only an offset)
                    dj = base + j * nt
                    # nothing to do when the latest candidate trip leaves before the label is
                    # ready, or the label is past the cut (a label left by a later departure)
                    if bt > cut or bt >= INF32 or dep_t[dj + k_hi - 1] < bt:
                        continue
                    if cur >= 0:
                        # mostly the current trip or one just before it
                        kb = first_trip_before(
                            dep_t, dj, 1, 0, t0, k_hi, bt, INF, cap, trip_allowed, bans
                        )
                    else:
                        kb = first_trip(dep_t, dj, 1, 0, t0, k_hi, bt, INF, cap, trip_allowed, bans)
                    if kb >= 0:
                        cur = kb
                        stale = ridden[k, t0 + kb] <= j
                        if not stale:
                            ridden[k, t0 + kb] = j
            for ii in range(n_mark):
                mark[mark_list[ii]] = 0
            # walking transfers, only right after a ride (last round: "any" arrivals only)
            for ii in range(n_rimp):
                s = rimp_list[ii]
                rimp[s] = 0
                if ii + 1 < n_rimp:
                    # the next stop's walks: one stream per stop is too short for the
                    # hardware prefetcher, and the walks of a city do not fit in L2
                    nx = rimp_list[ii + 1]
                    for e in range(tr_offsets[nx], tr_offsets[nx + 1], 16):
                        _prefetch(walks, e)  # type: ignore[call-arg]
                ts = r_k[s]
                e0, e1 = tr_offsets[s], tr_offsets[s + 1]
                # sorted by time: the walks after the first one past the cut are past it too
                stop_at_cut = tr_sorted[s] != 0
                if any_arrival:
                    o_k = o_time[k]
                    for e in range(e0, e1):
                        w = walks[e]
                        u = w & to_mask
                        t = ts + (w >> shift)
                        if t > cut:
                            if stop_at_cut:
                                break
                            continue
                        if t < o_k[u]:
                            o_k[u] = t
                            n_changed[k] = _push(ch_k, chl_k, n_changed[k], u)
                if not last:
                    tg = ts + g
                    for e in range(e0, e1):
                        w = walks[e]
                        u = w & to_mask
                        t = tg + (w >> shift)
                        if t > cut:
                            if stop_at_cut:
                                break
                            continue
                        if t < b_k[u]:
                            b_k[u] = t
                            n_changed[k] = _push(ch_k, chl_k, n_changed[k], u)
                            n_next = _push(nxt, nxt_list, n_next, u)
            mark, nxt = nxt, mark
            mark_list, nxt_list = nxt_list, mark_list
            n_mark = n_next
        for ii in range(n_mark):
            mark[mark_list[ii]] = 0
        for ii in range(n_changed[n_rounds]):
            changed[n_rounds, changed_list[n_rounds, ii]] = 0
        n_changed[n_rounds] = 0
        for s in range(n):
            v = labels[n_rounds, s]
            out[i, s] = np.inf if v >= INF32 or v > cut else np.float64(v)


def range_rounds(
    tt: RaptorTimetable,
    q: SearchQuery,
    lab: RoundLabels,
    ridden: Int32Array,
    times: IntArray,
    out: FloatArray,
    ride: bool,
    limit: int,
) -> None:
    """Fill ``out[i]`` with the earliest arrivals from departure ``times[i]``.

    ``times`` must be sorted in decreasing order; ``lab`` must start unreached and
    ``ridden`` (:func:`~._round_kernel.new_ridden`) fresh.  With
    ``ride`` the arrivals are those whose last leg is a ride (where egress may start).
    Arrivals later than ``times[i] + limit`` are reported as unreached (``inf``).

    The cut also prunes the search: a label later than the cut is never written, and
    a board-ready label left by an earlier search (a later departure) that is past the
    cut boards nothing.  Every label at or before the cut keeps its value, because a
    journey's labels never decrease along it, so all the labels it is built from are at
    or before the cut too; the labels past it are useless to this departure and to every
    later-searched (earlier) one, whose cuts are earlier.  The "ride already recorded"
    marks stay sound: an alighting they let a later scan skip was either written or past
    a cut at least as late as the current one.
    The loop over departures is compiled too: a call from Python unboxes the named
    tuples of arrays, which costs about as much as a search of a later departure.
    """
    simple = (
        not q.has_rules
        and q.first_route < 0
        and q.trip_stop_bans.shape[0] == 0
        and (q.stop_pass.shape[0] == 0 or q.stop_pass.min() == 1)
        and ridden.shape[1] > 0
    )
    if simple:
        # (the cut relies on labels never decreasing along a journey: walking times are
        # never negative, RaptorRequest refuses them)
        _times_rounds(tt, q, ridden, times, out, ride, limit, _layout(tt, q))
    else:
        _full_rounds(tt, q, lab, ridden, times, out, ride, limit)


@njit(cache=True, nogil=True)  # type: ignore[misc]
def _full_rounds(
    tt: RaptorTimetable,
    q: SearchQuery,
    lab: RoundLabels,
    ridden: Int32Array,
    times: IntArray,
    out: FloatArray,
    ride: bool,
    limit: int,
) -> None:
    """:func:`range_rounds` by :func:`~._round_kernel.run_rounds`, one call per departure."""
    last = q.max_rounds
    labels = lab.r_time if ride else lab.o_time
    n = labels.shape[1]
    for i in range(times.shape[0]):
        run_rounds(tt, q, lab, times[i], False, ridden, NO_LAST)
        cut = times[i] + limit
        for s in range(n):
            v = labels[last, s]
            out[i, s] = np.inf if v >= INF or v > cut else np.float64(v)
