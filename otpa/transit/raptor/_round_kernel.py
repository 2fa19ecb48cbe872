"""Round-based RAPTOR on earliest arrival ("arrival" criteria), as one numba kernel.

Labels are kept per round ``k`` (at most ``k`` rides) and per stop, in three kinds:

* ``o``: the best arrival at the stop by any means (the answer of
  :func:`~otpa.transit.raptor.api.earliest_arrivals`);
* ``r``: the best arrival whose last leg is a ride (passenger time, alight slack
  included), with the ride that produced it; walking transfers and egress start
  from these only;
* ``b``: the earliest *board-ready* time (arrival plus the slack needed before the
  next boarding), from an access, a ride or a walking transfer, with its origin.

A row starts as a copy of the previous one (only stops changed there are copied),
so ``row k`` always holds the best labels with at most ``k`` rides.  In a single
search this is exactly RAPTOR's pruning by the best arrival of earlier rounds; it
also makes the labels valid upper bounds when the same arrays are reused for an
earlier departure (range RAPTOR, :mod:`._range`).  Routes of a round are scanned
in increasing index and labels only change on strict improvement, so ties are
resolved deterministically.

These prunings leave every label (times and provenance) as the plain scan would
(without transfers.txt rules and on-board starts, where they are off):

* a route is boarded only at stops *marked* in the previous round.  The label of an
  unmarked stop was set in an earlier round (or, in range RAPTOR, an earlier
  search) whose scan of the same route boarded there already, so the trip found
  now arrives nowhere earlier than the labels do;
* a scan is skipped when no trip of the route departs from its first marked stop or
  later before the target, or within the search window, or once any marked stop's
  label is board-ready (``SearchQuery.dep_floor``, ``dep_ceil``, see :mod:`._floor`):
  nothing would board, so nothing would change;
* the target search (``last_round``) marks a stop for boarding in round ``k + 1`` and
  walks on from its ride label of round ``k`` only while ``k <= last_round[s]``:
  ``max_rounds`` less a lower bound of the rides still needed from the stop to the
  destination (walks free, :mod:`._heuristic`; ``-1`` where none leads there).  A
  label beyond it is on no journey within ``max_rounds``, and labels only block
  labels of the same stop and later rounds, all beyond it too: the journeys found
  (and every label on them) are those of the search that marks everything.  With
  transfers.txt rules (where a queued route boards at unmarked stops too) a boarding
  at a stop beyond its last round makes labels only at stops beyond theirs (a ride
  adds one to the bound at most), so the same holds;
* when the current trip already holds a stop's ride label at this position, that
  earlier scan recorded the rest of the ride too: the scan stops alighting until it
  boards an earlier trip, and ends after the last marked stop.  In range RAPTOR
  this skips most of each route, since a departure one minute earlier mostly
  catches the same trips.  A scan with no trip on board also ends after the last
  marked stop (nothing alights, nothing boards);
* range RAPTOR also remembers, per round and trip, the earliest position from
  which the trip's ride was tried (``ridden``).  Boarding the trip at or after
  that position tries nothing new: at every later position an alighting from this
  trip, or from an earlier one of the same route that replaced it and arrives no
  later (trips never overtake), was tried, and labels only improve afterwards.
  The scan treats the ride as already recorded.  Off with trip-stop bans, stops
  that cannot be passed through, and target pruning (an alighting beyond the
  target was not recorded).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from otpa.transit.raptor._common import (
    first_trip,
    first_trip_before,
    first_trip_rules,
    is_banned,
    rule_range,
)
from otpa.transit.raptor._query import INF, SearchQuery
from otpa.transit.raptor.spi import RaptorTimetable
from otpa.types import Int32Array, IntArray, UInt8Array

__all__ = [
    "B_ACCESS",
    "B_RIDE",
    "B_WALK",
    "NO_LAST",
    "NO_RIDDEN",
    "RoundLabels",
    "clear_round_labels",
    "improving_rounds",
    "new_ridden",
    "new_round_labels",
    "run_rounds",
]

B_ACCESS = 0
B_RIDE = 1
B_WALK = 2


class RoundLabels(NamedTuple):
    """Label arrays of shape ``(max_rounds + 1, n_stops)`` (``n_changed``: per round)."""

    o_time: IntArray
    r_time: IntArray
    r_route: Int32Array
    r_trip: Int32Array  # route-trip index
    r_bpos: Int32Array
    r_apos: Int32Array
    r_round: Int32Array  # round of the ride (rows hold copies of older rides)
    r_src: UInt8Array  # 0: boarded from the b label, 1: from the r label (transfer rules)
    b_time: IntArray
    b_kind: UInt8Array  # B_ACCESS, B_RIDE, B_WALK
    b_ref: Int32Array  # access index, or the stop walked from
    b_edge: IntArray  # walking transfer used (index into the transfer arrays)
    b_round: Int32Array  # round whose r label the b label derives from
    changed: UInt8Array
    changed_list: Int32Array
    n_changed: IntArray


def new_round_labels(n_rounds: int, n_stops: int) -> RoundLabels:
    """Fresh (unreached) labels for rounds ``0 .. n_rounds - 1``."""
    shape = (n_rounds, n_stops)
    lab = RoundLabels(
        o_time=np.empty(shape, dtype=np.int64),
        r_time=np.empty(shape, dtype=np.int64),
        r_route=np.empty(shape, dtype=np.int32),
        r_trip=np.empty(shape, dtype=np.int32),
        r_bpos=np.empty(shape, dtype=np.int32),
        r_apos=np.empty(shape, dtype=np.int32),
        r_round=np.empty(shape, dtype=np.int32),
        r_src=np.empty(shape, dtype=np.uint8),
        b_time=np.empty(shape, dtype=np.int64),
        b_kind=np.empty(shape, dtype=np.uint8),
        b_ref=np.empty(shape, dtype=np.int32),
        b_edge=np.empty(shape, dtype=np.int64),
        b_round=np.empty(shape, dtype=np.int32),
        changed=np.empty(shape, dtype=np.uint8),
        changed_list=np.empty(shape, dtype=np.int32),
        n_changed=np.empty(n_rounds, dtype=np.int64),
    )
    clear_round_labels(lab)
    return lab


@njit(cache=True, nogil=True)  # type: ignore[misc]
def clear_round_labels(lab: RoundLabels) -> None:
    """Make ``lab`` fresh (unreached) again, in place (``changed_list`` aside, which is
    never read before it is written): what :func:`new_round_labels` returns.

    Every array is written whole: a plan's search sets most cells of most rows, and
    plain fills cost less than testing each cell (~65 against ~100 us on RNV).
    """
    lab.o_time[:] = INF
    lab.r_time[:] = INF
    lab.r_route[:] = -1
    lab.r_trip[:] = -1
    lab.r_bpos[:] = -1
    lab.r_apos[:] = -1
    lab.r_round[:] = -1
    lab.r_src[:] = 0
    lab.b_time[:] = INF
    lab.b_kind[:] = 0
    lab.b_ref[:] = -1
    lab.b_edge[:] = -1
    lab.b_round[:] = -1
    lab.changed[:] = 0
    lab.n_changed[:] = 0


def new_ridden(n_rounds: int, n_route_trips: int) -> Int32Array:
    """Fresh ``ridden`` positions for the range-RAPTOR searches of one label set."""
    return np.full((n_rounds, n_route_trips), NOT_RIDDEN, dtype=np.int32)


#: ``ridden`` where the trip was never boarded in that round.
NOT_RIDDEN = np.iinfo(np.int32).max
#: ``ridden`` of single searches: no memory between searches.
NO_RIDDEN: Int32Array = np.zeros((0, 0), dtype=np.int32)
#: ``last_round`` of searches that mark every stop they reach.
NO_LAST: Int32Array = np.zeros(0, dtype=np.int32)


@njit(cache=True, inline="always")  # type: ignore[misc]
def _push(flags: UInt8Array, items: Int32Array, n: int, s: int) -> int:
    if flags[s] == 0:
        flags[s] = 1
        items[n] = s
        n += 1
    return n


@njit(cache=True)  # type: ignore[misc]
def _copy_forward(lab: RoundLabels, k: int) -> None:
    """Start row ``k`` from the labels of row ``k - 1`` that changed in this search."""
    km = k - 1
    changed, changed_list, n_changed = lab.changed, lab.changed_list, lab.n_changed
    o_time, r_time, b_time = lab.o_time, lab.r_time, lab.b_time
    for ii in range(n_changed[km]):
        s = changed_list[km, ii]
        changed[km, s] = 0
        upd = False
        if o_time[km, s] < o_time[k, s]:
            o_time[k, s] = o_time[km, s]
            upd = True
        if r_time[km, s] < r_time[k, s]:
            r_time[k, s] = r_time[km, s]
            lab.r_route[k, s] = lab.r_route[km, s]
            lab.r_trip[k, s] = lab.r_trip[km, s]
            lab.r_bpos[k, s] = lab.r_bpos[km, s]
            lab.r_apos[k, s] = lab.r_apos[km, s]
            lab.r_round[k, s] = lab.r_round[km, s]
            lab.r_src[k, s] = lab.r_src[km, s]
            upd = True
        if b_time[km, s] < b_time[k, s]:
            b_time[k, s] = b_time[km, s]
            lab.b_kind[k, s] = lab.b_kind[km, s]
            lab.b_ref[k, s] = lab.b_ref[km, s]
            lab.b_edge[k, s] = lab.b_edge[km, s]
            lab.b_round[k, s] = lab.b_round[km, s]
            upd = True
        if upd and changed[k, s] == 0:
            changed[k, s] = 1
            changed_list[k, n_changed[k]] = s
            n_changed[k] += 1
    n_changed[km] = 0


@njit(cache=True)  # type: ignore[misc]
def _board(
    tt: RaptorTimetable,
    q: SearchQuery,
    lab: RoundLabels,
    km: int,
    r: int,
    j: int,
    s: int,
    k_hi: int,
    target: int,
) -> tuple[int, int]:
    """Boarding with transfers.txt rules: ``(k, src)`` of the earliest trip before ``k_hi``."""
    best, src = -1, 0
    kind = lab.b_kind[km, s]
    if lab.b_time[km, s] < target:
        if kind == B_ACCESS:
            soff = tt.route_stop_offsets[r]
            ns = tt.route_stop_offsets[r + 1] - soff
            best = first_trip(
                tt.departure,
                tt.route_time_offsets[r],
                ns,
                j,
                tt.route_trip_offsets[r],
                k_hi,
                lab.b_time[km, s],
                target,
                q.cap,
                q.trip_allowed,
                q.trip_stop_bans,
            )
        else:
            a = s if kind == B_RIDE else lab.b_ref[km, s]
            rr = lab.b_round[km, s]
            walk = q.tr_time[lab.b_edge[km, s]] if kind == B_WALK else 0
            lo, hi = rule_range(q.r_key, a * tt.n_stops + s)
            best, _ = first_trip_rules(
                tt,
                q,
                np.int64(r),
                np.int64(j),
                np.int64(k_hi),
                np.int64(lab.b_time[km, s]),
                np.int64(target),
                np.int64(lo),
                np.int64(hi),
                np.int64(tt.route_trip_ref[lab.r_trip[rr, a]]),
                np.int64(tt.route_gtfs_route[lab.r_route[rr, a]]),
                np.int64(lab.r_time[rr, a] - q.alight_slack),
                np.int64(walk),
            )
    # the ride label may allow a transfer the better walk/access label does not
    rt = lab.r_time[km, s]
    if kind != B_RIDE and rt < target:
        lo, hi = rule_range(q.r_key, s * tt.n_stops + s)
        kb, _ = first_trip_rules(
            tt,
            q,
            np.int64(r),
            np.int64(j),
            np.int64(best if best >= 0 else k_hi),
            np.int64(rt + q.gap - q.alight_slack),
            np.int64(target),
            np.int64(lo),
            np.int64(hi),
            np.int64(tt.route_trip_ref[lab.r_trip[km, s]]),
            np.int64(tt.route_gtfs_route[lab.r_route[km, s]]),
            np.int64(rt - q.alight_slack),
            np.int64(0),
        )
        if kb >= 0:
            best, src = kb, 1
    return best, src


@njit(cache=True, nogil=True)  # type: ignore[misc]
def run_rounds(  # noqa: C901 (one loop nest: calls in the hot loop cost refcounting)
    tt: RaptorTimetable,
    q: SearchQuery,
    lab: RoundLabels,
    time: int,
    use_target: bool,
    ridden: Int32Array,
    last_round: Int32Array,
) -> int:
    """Run RAPTOR rounds ``1 .. q.max_rounds`` from departure ``time`` into ``lab``.

    ``lab`` may hold the labels of a later departure (range RAPTOR); they are kept
    where still better.  With ``use_target`` labels that cannot beat the best
    egress arrival found so far are not recorded.  ``ridden`` is ``(0, 0)`` or,
    in range RAPTOR, ``(max_rounds + 1, n_route_trips)`` kept across the searches
    of one ``lab`` (:func:`new_ridden`).  ``last_round`` is :data:`NO_LAST` or, per
    stop, the last round whose labels there are marked for boarding (see the module
    docstring; target searches only).  Returns that arrival (INF: none).
    """
    # arrays are bound to locals once: attribute access in the loops costs reference counting
    n = tt.n_stops
    n_rounds = q.max_rounds
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
    stop_board, stop_alight, stop_pass = q.stop_board, q.stop_alight, q.stop_pass
    tr_offsets, tr_to, tr_time = q.tr_offsets, q.tr_to, q.tr_time
    o_time, r_time, b_time = lab.o_time, lab.r_time, lab.b_time
    r_route, r_trip, r_bpos, r_apos = lab.r_route, lab.r_trip, lab.r_bpos, lab.r_apos
    r_round, r_src = lab.r_round, lab.r_src
    b_kind, b_ref, b_edge, b_round = lab.b_kind, lab.b_ref, lab.b_edge, lab.b_round
    changed, changed_list, n_changed = lab.changed, lab.changed_list, lab.n_changed
    cap, alight_slack, has_rules = q.cap, q.alight_slack, q.has_rules
    first_route = q.first_route
    g = q.gap - q.alight_slack
    n_routes = route_stop_offsets.shape[0] - 1
    e_time = np.full(n, INF, dtype=np.int64)
    if use_target:
        for i in range(q.egress_stops.shape[0]):
            s = q.egress_stops[i]
            e_time[s] = min(e_time[s], np.int64(q.egress_time[i]))
    target = INF
    mark = np.zeros(n, dtype=np.uint8)
    mark_list = np.empty(n, dtype=np.int32)
    nxt = np.zeros(n, dtype=np.uint8)
    nxt_list = np.empty(n, dtype=np.int32)
    rimp = np.zeros(n, dtype=np.uint8)
    rimp_list = np.empty(n, dtype=np.int32)
    touched = np.zeros(n, dtype=np.uint8)
    first_pos = np.full(n_routes, -1, dtype=np.int32)
    last_pos = np.full(n_routes, -1, dtype=np.int32)
    queue = np.empty(n_routes, dtype=np.int32)
    # pruning (see the module docstring): boarding only at stops marked in the previous
    # round, and a ride already recorded downstream is not scanned again
    prune = not has_rules and first_route < 0
    # a scan that starts where every trip of the route, there or later, departs at or
    # past the target or past the cap, or before every marked stop's board-ready label,
    # boards nothing and changes no label (_floor)
    dep_floor, dep_ceil = q.dep_floor, q.dep_ceil
    use_floor = (
        prune
        and dep_floor.shape[0] == route_stops.shape[0]
        and dep_ceil.shape[0] == route_stops.shape[0]
    )
    # range RAPTOR: ridden[k, trip] is the earliest position from which the trip's ride
    # was tried in round k of this or an earlier search (see the module docstring)
    skip_ridden = (
        prune
        and not use_target
        and ridden.shape[1] > 0
        and bans.shape[0] == 0
        and (stop_pass.shape[0] == 0 or stop_pass.min() == 1)
    )
    use_last = last_round.shape[0] == n
    n_mark = 0
    for i in range(q.access_stops.shape[0]):
        s = q.access_stops[i]
        t = np.int64(time) + q.access_time[i]
        if t < o_time[0, s]:
            o_time[0, s] = t
            touched[s] = 1
        if t + q.board_slack < b_time[0, s]:
            b_time[0, s] = t + q.board_slack
            b_kind[0, s] = B_ACCESS
            b_ref[0, s] = i
            b_edge[0, s] = -1
            b_round[0, s] = 0
            touched[s] = 1
            if use_last and last_round[s] < 0:
                continue
            n_mark = _push(mark, mark_list, n_mark, s)
    for s in np.flatnonzero(touched):
        if changed[0, s] == 0:
            changed[0, s] = 1
            changed_list[0, n_changed[0]] = s
            n_changed[0] += 1
    for k in range(1, n_rounds + 1):
        km = k - 1
        _copy_forward(lab, k)
        if n_mark == 0:
            continue
        nq = 0
        t_ready = INF  # no boarding before it: the least board-ready label of a marked stop
        for ii in range(n_mark):
            s = mark_list[ii]
            t_ready = min(t_ready, b_time[km, s])
            for x in range(stop_route_offsets[s], stop_route_offsets[s + 1]):
                r = stop_routes[x]
                if route_allowed[r] == 0 or (first_route >= 0 and (k == 1) != (r == first_route)):
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
        for r in np.sort(queue[:nq]):
            p0 = first_pos[r]
            p1 = last_pos[r]
            first_pos[r] = -1
            last_pos[r] = -1
            soff = route_stop_offsets[r]
            if use_floor and (
                dep_floor[soff + p0] >= target
                or dep_floor[soff + p0] > cap
                or dep_ceil[soff + p0] < t_ready
            ):
                continue
            ns = route_stop_offsets[r + 1] - soff
            t0 = route_trip_offsets[r]
            nt = route_trip_offsets[r + 1] - t0
            base = route_time_offsets[r]
            cur = -1
            cur_bpos = -1
            cur_src = 0
            stale = False  # the ride on `cur` from here on is already in the labels
            for j in range(p0, ns):
                s = route_stops[soff + j]
                if stop_pass[s] == 0:
                    cur = -1
                    stale = False
                    continue
                if j > p1 and (stale or (prune and cur < 0)):
                    break  # the rest is recorded, or nothing is on board and none boards
                if (
                    cur >= 0
                    and prune
                    and not stale
                    and r_trip[k, s] == t0 + cur
                    and r_apos[k, s] == j
                ):
                    stale = True
                if cur >= 0 and not stale and route_alight[soff + j] != 0 and stop_alight[s] != 0:
                    t = np.int64(arrival[base + cur * ns + j]) + alight_slack
                    if t < r_time[k, s] and t < target and not is_banned(bans, t0 + cur, j):
                        r_time[k, s] = t
                        r_route[k, s] = r
                        r_trip[k, s] = t0 + cur
                        r_bpos[k, s] = cur_bpos
                        r_apos[k, s] = j
                        r_round[k, s] = k
                        r_src[k, s] = cur_src
                        n_rimp = _push(rimp, rimp_list, n_rimp, s)
                        touched[s] = 1
                        if t < o_time[k, s]:
                            o_time[k, s] = t
                        if t + g < b_time[k, s]:
                            b_time[k, s] = t + g
                            b_kind[k, s] = B_RIDE
                            b_ref[k, s] = -1
                            b_edge[k, s] = -1
                            b_round[k, s] = k
                            if not use_last or k <= last_round[s]:
                                n_next = _push(nxt, nxt_list, n_next, s)
                        elif has_rules and (not use_last or k <= last_round[s]):
                            n_next = _push(nxt, nxt_list, n_next, s)
                        if e_time[s] < INF and t + e_time[s] < target:
                            target = t + e_time[s]
                if route_board[soff + j] == 0 or stop_board[s] == 0 or (prune and mark[s] == 0):
                    continue
                k_hi = cur if cur >= 0 else nt
                if k_hi == 0:
                    continue
                if has_rules:
                    kb, src = _board(tt, q, lab, km, r, j, s, k_hi, target)
                    if kb >= 0:
                        cur, cur_bpos, cur_src = kb, j, src
                    continue
                bt = b_time[km, s]
                # nothing to do when the latest candidate trip leaves before the label is ready
                if bt >= target or departure[base + (k_hi - 1) * ns + j] < bt:
                    continue
                if cur >= 0:
                    # mostly the current trip or one just before it (range RAPTOR)
                    kb = first_trip_before(
                        departure, base, ns, j, t0, k_hi, bt, target, cap, trip_allowed, bans
                    )
                else:
                    kb = first_trip(
                        departure, base, ns, j, t0, k_hi, bt, target, cap, trip_allowed, bans
                    )
                if kb >= 0:
                    cur, cur_bpos, cur_src = kb, j, 0
                    stale = False
                    if skip_ridden:
                        if ridden[k, t0 + kb] <= j:
                            stale = True
                        else:
                            ridden[k, t0 + kb] = j
        for ii in range(n_mark):
            mark[mark_list[ii]] = 0
        # walking transfers, only right after a ride
        for s in np.sort(rimp_list[:n_rimp]):
            rimp[s] = 0
            if use_last and k > last_round[s]:
                continue  # no walk from here can lead to the destination in the rides left
            ts = r_time[k, s]
            for e in range(tr_offsets[s], tr_offsets[s + 1]):
                u = tr_to[e]
                t = ts + tr_time[e]
                if t >= target:
                    continue
                if t < o_time[k, u]:
                    o_time[k, u] = t
                    touched[u] = 1
                if t + g < b_time[k, u]:
                    b_time[k, u] = t + g
                    b_kind[k, u] = B_WALK
                    b_ref[k, u] = s
                    b_edge[k, u] = e
                    b_round[k, u] = k
                    touched[u] = 1
                    if not use_last or k <= last_round[u]:
                        n_next = _push(nxt, nxt_list, n_next, u)
        for s in np.flatnonzero(touched):
            touched[s] = 0
            if changed[k, s] == 0:
                changed[k, s] = 1
                changed_list[k, n_changed[k]] = s
                n_changed[k] += 1
        mark, nxt = nxt, mark
        mark_list, nxt_list = nxt_list, mark_list
        n_mark = n_next
    for ii in range(n_changed[n_rounds]):
        changed[n_rounds, changed_list[n_rounds, ii]] = 0
    n_changed[n_rounds] = 0
    return target


@njit(cache=True, nogil=True)  # type: ignore[misc]
def improving_rounds(
    r_time: IntArray, egress_stops: Int32Array, egress_time: Int32Array, n_rounds: int
) -> IntArray:
    """Rows ``(round, egress entry, arrival)``, one per round ``1 .. n_rounds`` whose
    best arrival over the egress entries (``r_time[round, stop] + egress_time``; the
    first entry among equals) is earlier than every round's before it."""
    out = np.empty((n_rounds, 3), np.int64)
    m = 0
    best = INF
    for k in range(1, n_rounds + 1):
        i_best = -1
        t_best = INF
        for i in range(egress_stops.shape[0]):
            t = r_time[k, egress_stops[i]] + egress_time[i]
            if i_best < 0 or t < t_best:
                i_best, t_best = i, t
        if i_best >= 0 and t_best < best:
            best = t_best
            out[m, 0], out[m, 1], out[m, 2] = k, i_best, t_best
            m += 1
    return out[:m]
