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
* the scratch arrays are allocated once per call, not per departure.

Every label the kernel keeps takes the value the full kernel gives it, so the rows
are the same.  Other cases run :func:`~._round_kernel.run_rounds` per departure.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from otpa.transit.raptor._common import first_trip, first_trip_before
from otpa.transit.raptor._query import INF, SearchQuery
from otpa.transit.raptor._round_kernel import RoundLabels, run_rounds
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
) -> None:
    """:func:`range_rounds` without bans, impassable stops or on-board starts (see the module)."""
    n = tt.n_stops
    n_rounds = q.max_rounds
    any_arrival = not ride
    route_stop_offsets, route_stops = tt.route_stop_offsets, tt.route_stops
    route_board, route_alight = tt.route_board, tt.route_alight
    route_trip_offsets, route_time_offsets = tt.route_trip_offsets, tt.route_time_offsets
    arrival, departure = tt.arrival, tt.departure
    stop_route_offsets, stop_routes, stop_route_pos = (
        tt.stop_route_offsets,
        tt.stop_routes,
        tt.stop_route_pos,
    )
    route_allowed, trip_allowed, bans = q.route_allowed, q.trip_allowed, q.trip_stop_bans
    stop_board, stop_alight = q.stop_board, q.stop_alight
    tr_offsets, tr_to, tr_time = q.tr_offsets, q.tr_to, q.tr_time
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
    # per stop: are its walking transfers sorted by time (1), not (2), not looked at yet (0)
    tr_sorted = np.zeros(n, dtype=np.uint8)
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
            for r in np.sort(queue[:nq]):
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
                    s = route_stops[soff + j]
                    if stale and j > p1:
                        break
                    if cur >= 0 and not stale:
                        if trip_k[s] == t0 + cur and apos_k[s] == j:
                            stale = True
                        elif route_alight[soff + j] != 0 and stop_alight[s] != 0:
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
                    if route_board[soff + j] == 0 or stop_board[s] == 0 or mark[s] == 0:
                        continue
                    k_hi = cur if cur >= 0 else nt
                    if k_hi == 0:
                        continue
                    bt = b_km[s]
                    # nothing to do when the latest candidate trip leaves before the label is
                    # ready, or the label is past the cut (a label left by a later departure)
                    if bt > cut or bt >= INF32 or departure[base + (k_hi - 1) * ns + j] < bt:
                        continue
                    if cur >= 0:
                        # mostly the current trip or one just before it
                        kb = first_trip_before(
                            departure, base, ns, j, t0, k_hi, bt, INF, cap, trip_allowed, bans
                        )
                    else:
                        kb = first_trip(
                            departure, base, ns, j, t0, k_hi, bt, INF, cap, trip_allowed, bans
                        )
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
                ts = r_k[s]
                e0, e1 = tr_offsets[s], tr_offsets[s + 1]
                if tr_sorted[s] == 0:
                    tr_sorted[s] = 1
                    for e in range(e0 + 1, e1):
                        if tr_time[e] < tr_time[e - 1]:
                            tr_sorted[s] = 2
                            break
                # sorted by time: the walks after the first one past the cut are past it too
                stop_at_cut = tr_sorted[s] == 1
                if any_arrival:
                    o_k = o_time[k]
                    for e in range(e0, e1):
                        u = tr_to[e]
                        t = ts + tr_time[e]
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
                        u = tr_to[e]
                        t = tg + tr_time[e]
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


@njit(cache=True, nogil=True)  # type: ignore[misc]
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
        _times_rounds(tt, q, ridden, times, out, ride, limit)
        return
    last = q.max_rounds
    labels = lab.r_time if ride else lab.o_time
    n = labels.shape[1]
    for i in range(times.shape[0]):
        run_rounds(tt, q, lab, times[i], False, ridden)
        cut = times[i] + limit
        for s in range(n):
            v = labels[last, s]
            out[i, s] = np.inf if v >= INF or v > cut else np.float64(v)
