"""McRAPTOR on (arrival, rides, generalized cost) ("cost" criteria), as one numba kernel.

Round by round, every route serving a stop whose bag got new labels is scanned
with a *route bag* (boarded trips with their cost); alighting creates ride
labels, walking transfers follow rides.  Labels are dropped when dominated at
their stop (see :mod:`._mc_labels`) and by target pruning: when a journey found
so far (or known from the arrival search) arrives no later than the label ever
could, with no more rides and for no more than its cost plus a lower bound of
the rest (:mod:`._heuristic`).  Continuing only adds time, rides and cost.

Target pruning is also tested before a label boards: a ride from stop position
``j`` costs at least the label's cost, the boarding's fixed costs (board cost,
route penalty, stop cost, transfer penalty) and, for the alighting at ``i > j``,
``pref[i] - pref[j]`` in-vehicle seconds (least hop times of the route,
:func:`._heuristic.route_prefix`) plus the stop cost and cost bound there; when a
journey found beats the least of these over the rest of the route (with ``ea_min``
as the time and the least rides bound), every alighting of that ride would be
dropped by the test above, so the label is not offered (no trip search); not
across a transfers.txt rule, which may board a trip before the label is ready (a
negative wait, so the least of these is no bound there).  Likewise
the walking transfers of a ride label are skipped together when the least of their
tests (per stop: least walk cost plus bound, least walk time, least rides) fails.
Both only skip work whose labels the per-alighting and per-walk tests drop (a
skipped boarding that would have been the first offer of a trip may change the
order of the route bag's slots: only a tie of two trips of one route at the same
stop, second and cost, would resolve otherwise).  A
label whose boarding time is after the route's last departure at the position
searches no trip, and a route whose last trip leaves every boarding position before
the earliest label of the round before is ready is not scanned (without
transfers.txt rules, which may allow an earlier boarding).

Every test also charges the time left until the earliest arrival: a label at time
``t`` has to fill the seconds until ``ea_min`` waiting, riding, walking or in egress,
each at no less than the least of their cost rates ``rho`` (alight slacks, which the
label's time includes but its cost does not, aside), so its journeys cost at least its
cost plus ``rho * (ea_min - t - m * alight_slack)`` (``m`` alightings left at most; see
:func:`time_rates`, which proves it), and the larger of this and the cost bound is
tested.  Late-evening searches whose journeys run next morning keep the evening's
labels without it (nothing else charges them the night's wait).

A route scan skips what cannot make a label, so the labels are those of a full
scan: it boards only at stops marked in the previous round (the bags of round
``k - 1`` of the others are empty) and never at or after the last position where
alighting passes the rides bound, it ends there, and earlier when nothing is on
board and no marked stop is left; at a position whose rides bound fails, no trip
on board is tried.

The caller allocates the pool; a kernel that runs out of room returns a status
code and is run again with larger arrays (see :func:`run_mc`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from otpa.transit.raptor._common import (
    IntLike,
    first_trip,
    first_trip_rules,
    is_banned,
    rule_range,
)
from otpa.transit.raptor._heuristic import LowerBounds
from otpa.transit.raptor._mc_labels import (
    KIND_ACCESS,
    KIND_RIDE,
    KIND_WALK,
    OVERFLOW_DEST,
    OVERFLOW_LABELS,
    OVERFLOW_ROUTE_BAG,
    McLabels,
    beats,
    dest_beats,
    dominated,
    egress_index,
    unlink_beaten,
)
from otpa.transit.raptor._memo import remembered
from otpa.transit.raptor._query import INF, SearchQuery
from otpa.transit.raptor.spi import RaptorTimetable
from otpa.types import FloatArray, IntArray

__all__ = ["MARGIN", "REL_MARGIN", "run_mc", "seed_cost", "time_rates", "walk_rate"]

#: Boarding and walking bounds are lowered by ``MARGIN`` plus ``REL_MARGIN`` of their
#: value against float rounding (they add the same terms in another order than the
#: label's cost and the bound at alighting do), seeded journeys cost ten times that more
#: than their own (:func:`seed_cost`).  Costs may reach 1e15, where one unit in the last
#: place is 0.125: an absolute margin alone is lost there (the sums of a few terms differ
#: by a few units in the last place, about 1e-15 of the value).
MARGIN = 1e-7
REL_MARGIN = 1e-12


@njit(cache=True, inline="always")  # type: ignore[misc]
def _lowered(c: float) -> float:
    """A bound ``c`` lowered by the rounding margin."""
    return float(c - (MARGIN + REL_MARGIN * abs(c)))


def seed_cost(c: float) -> float:
    """The cost a journey known before the search is seeded with: a little above ``c``.

    Labels that reach the same journey then survive the pruning by it, whatever the
    order the search adds their costs in.
    """
    return c + 10.0 * (MARGIN + REL_MARGIN * abs(c))


@njit(cache=True)  # type: ignore[misc]
def _least_rate(time: np.ndarray[Any, Any], cost: FloatArray) -> float:
    """The least ``cost / time`` over the entries with ``time > 0`` (inf without any)."""
    rate = np.inf
    for e in range(time.shape[0]):
        if time[e] > 0:
            rate = min(rate, cost[e] / time[e])
    return float(rate)


def walk_rate(time: np.ndarray[Any, Any], cost: FloatArray) -> float:
    """The least cost per second of the walking transfers ``(time, cost)`` (inf without any).

    Remembered for arrays whose values cannot change (:func:`._memo.remembered`: a
    planner passes the network's transfer arrays, the same ones with every search).
    """
    return remembered((time, cost), "walk_rate", lambda: float(_least_rate(time, cost)))


def time_rates(q: SearchQuery, walk: float) -> tuple[float, float, int]:
    """Least cost per second of a journey's rest: ``(rho, rho_access, slack)``.

    Between a label's time ``t`` and the journey's arrival ``T`` at the destination
    every second is spent waiting for a boarding (``wait_reluctance`` per second after
    a ride or walk, ``wait_at_beginning_factor`` times that after the access), riding
    (1 per second, ``arrival - departure``), walking a transfer (``tr_cost`` for
    ``tr_time``) or egress (``egress_cost`` for ``egress_time``), except the alight
    slack after each alighting: the label's time includes it, its cost does not.
    Every other cost (board cost, transfer and route penalties, trip and stop costs) is
    per event and non-negative.  So a journey whose rest has at most ``m`` more
    alightings costs at least ``c + rho * (T - t - m * slack)`` with ``rho`` the least
    of these rates (``rho_access`` with the initial wait's, for an access label), and
    ``T`` is at least ``ea_min``, the earliest arrival.  A transfers.txt rule may board
    before the label is ready: that negative "wait" is free, and ``rho`` times a
    negative span is at most 0, so the sum still holds (it holds segment by segment,
    the spans add up to ``T - t``).  Zero-second walks and egress take no time (their
    cost, never negative, covers no span); a zero rate gives ``rho = 0``, no bound.
    ``walk`` is the least rate of the walking transfers (:func:`walk_rate`; of the
    request's, which the query's are, in another order for an arrive-by search).
    """
    rates = (q.wait_reluctance, walk, float(_least_rate(q.egress_time, q.egress_cost)))
    initial = q.initial_wait_factor * q.wait_reluctance
    if not all(r >= 0.0 for r in (*rates, initial)):  # False for NaN too
        return 0.0, 0.0, 0  # a negative or NaN rate (refused by the request today): no bound
    rho = min(1.0, *rates)
    return rho, min(rho, initial), max(int(q.alight_slack), 0)


@njit(cache=True, inline="always")  # type: ignore[misc]
def _offer(
    rb_trip: IntArray,
    rb_bpos: IntArray,
    rb_parent: IntArray,
    rb_cost: FloatArray,
    rb_dep: IntArray,
    rb_n: int,
    trip: IntLike,
    pos: IntLike,
    parent: IntLike,
    cost: float,
    dep: IntLike,
) -> int:
    """Offer boarding ``trip`` at ``pos`` (from label ``parent``) to the route bag.

    The trip's slot keeps the cheaper boarding (on one trip the cheaper boarding stays
    cheaper at every later stop); a new slot is always filled, whatever the cost, so no
    slot is left unset.  Returns the new number of slots, -1 when the bag is full.
    """
    found = -1
    for i in range(rb_n):
        if rb_trip[i] == trip:
            found = i
            break
    fresh = found < 0
    if fresh:
        if rb_n >= rb_trip.shape[0]:
            return -1
        found = rb_n
        rb_n += 1
    if fresh or cost - dep < rb_cost[found] - rb_dep[found]:
        rb_trip[found], rb_bpos[found], rb_parent[found] = trip, pos, parent
        rb_cost[found], rb_dep[found] = cost, dep
    return rb_n


@njit(cache=True, nogil=True)  # type: ignore[misc]
def run_mc(  # noqa: C901
    tt: RaptorTimetable,
    q: SearchQuery,
    lab: McLabels,
    bounds: LowerBounds,
    ea_min: float,
    route_pref: IntArray,
    rho: float,
    rho_a: float,
    slack_left: int,
) -> int:
    """Run McRAPTOR from ``q.time``; returns 0 or an ``OVERFLOW_*`` status.

    ``bounds`` are admissible lower bounds of the cost and rides of the rest of the
    journey per stop (:mod:`._heuristic`), ``route_pref`` the route prefix of
    :func:`._heuristic.route_prefix` and no journey arrives before ``ea_min``;
    labels that cannot end within ``max_rounds`` rides or beat a journey already
    found are dropped.  The destination set may start with journeys known to exist
    (``d_label = -1``, found by the arrival search) that only serve this pruning.
    ``rho``, ``rho_a`` and ``slack_left`` are the least cost rates of a journey's rest
    after a ride or walk label and after an access label, and the seconds it may
    spend uncharged per alighting (:func:`time_rates`; zeros: no time bound).
    """
    n = tt.n_stops
    n_rounds = q.max_rounds
    lb_cost, lb_rides = bounds.cost, bounds.rides
    w = q.wait_reluctance
    f = q.initial_wait_factor * w
    g = q.gap - q.alight_slack
    # arrays are bound to locals once: attribute access in the loops costs reference counting
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
    tr_offsets, tr_to, tr_time, tr_cost = q.tr_offsets, q.tr_to, q.tr_time, q.tr_cost
    egress_time, egress_cost, r_key = q.egress_time, q.egress_cost, q.r_key
    route_penalty, first_route = q.route_penalty, q.first_route
    trip_board_cost, stop_cost = q.trip_board_cost, q.stop_cost
    has_trip_cost = trip_board_cost.shape[0] > 0 and trip_board_cost.max() > 0.0
    head, nxt, alive, kind_of = lab.head, lab.nxt, lab.alive, lab.kind
    l_time, l_cost, l_stop, l_parent, l_rnd = lab.time, lab.cost, lab.stop, lab.parent, lab.rnd
    l_route, l_trip, l_bpos, l_apos, l_ref = lab.route, lab.trip, lab.bpos, lab.apos, lab.ref
    d_alive, d_time, d_cost, d_round = lab.d_alive, lab.d_time, lab.d_cost, lab.d_round
    d_label, d_egress, used = lab.d_label, lab.d_egress, lab.used
    cap = l_time.shape[0]
    e_off, e_idx = egress_index(q, n)
    rb_cap = lab.rb_size[0]
    rb_trip = np.empty(rb_cap, np.int64)
    rb_bpos = np.empty(rb_cap, np.int64)
    rb_parent = np.empty(rb_cap, np.int64)
    rb_cost = np.empty(rb_cap, np.float64)
    rb_dep = np.empty(rb_cap, np.int64)
    mark = np.zeros(n, np.uint8)
    mark_list = np.empty(n, np.int32)
    n_mark = 0
    # the earliest label of the round before: no boarding before it (plus the board
    # slack, the least slack of any boarding without transfers.txt rules)
    t_ready = INF
    no_rules = r_key.shape[0] == 0
    first_pos = np.full(route_stop_offsets.shape[0] - 1, -1, np.int32)
    last_pos = np.full(route_stop_offsets.shape[0] - 1, -1, np.int32)
    queue = np.empty(route_stop_offsets.shape[0] - 1, np.int32)
    longest = 1
    for r in range(route_stop_offsets.shape[0] - 1):
        longest = max(longest, route_stop_offsets[r + 1] - route_stop_offsets[r])
    suf_c = np.empty(longest, np.float64)
    suf_r = np.empty(longest, np.float64)
    walk_c = np.full(n, np.nan)
    walk_r = np.empty(n, np.float64)
    walk_t = np.empty(n, np.int64)
    for i in range(q.access_stops.shape[0]):
        s = q.access_stops[i]
        t = np.int64(q.time) + q.access_time[i]
        c = q.access_cost[i]
        if max(lb_rides[s], 1.0) > n_rounds:
            continue
        x = head[0, s]
        beaten = False
        while x >= 0:
            beaten = beaten or beats(l_time[x], l_cost[x], t, c, f)
            x = nxt[x]
        if beaten:
            continue
        li = used[0]
        if li >= cap:
            return OVERFLOW_LABELS
        used[0] = li + 1
        l_time[li], l_cost[li], l_stop[li], kind_of[li] = t, c, s, KIND_ACCESS
        l_parent[li], l_rnd[li], alive[li], l_ref[li] = -1, 0, 1, i
        t_ready = min(t_ready, t)
        nxt[li] = head[0, s]
        head[0, s] = li
        if mark[s] == 0:
            mark[s] = 1
            mark_list[n_mark] = s
            n_mark += 1
    for k in range(1, n_rounds + 1):
        if n_mark == 0:
            break
        nq = 0
        for ii in range(n_mark):
            s = mark_list[ii]
            mark[s] = 0
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
        round_start = used[0]
        for r in np.sort(queue[:nq]):
            p0 = first_pos[r]
            p_last = last_pos[r]
            first_pos[r] = -1
            last_pos[r] = -1
            soff = route_stop_offsets[r]
            ns = route_stop_offsets[r + 1] - soff
            # the last position where alighting can make a label: beyond it the rides
            # bound drops every alighting (no side effect), so the scan ends there
            j_end = ns - 1
            while j_end > p0 and (
                route_alight[soff + j_end] == 0
                or k + lb_rides[route_stops[soff + j_end]] > n_rounds
            ):
                j_end -= 1
            # boarding happens only at marked stops (the bags of round k - 1 of the others
            # are empty) and before j_end (no alighting follows)
            p1 = min(p_last, j_end - 1)
            if p1 < p0:
                continue
            t0 = route_trip_offsets[r]
            nt = route_trip_offsets[r + 1] - t0
            base = route_time_offsets[r]
            if nt == 0:
                continue
            if no_rules:
                # the last trip leaves every boarding position before any label is ready
                latest = -INF
                for j in range(p0, p1 + 1):
                    latest = max(latest, int(departure[base + (nt - 1) * ns + j]))
                if latest < t_ready + q.board_slack:
                    continue
            # for a boarding at j: the least bound of an alighting after j, cost (plus
            # the prefix at j) and rides
            best_c, best_r = np.inf, np.inf
            for j in range(j_end, p0, -1):
                s = route_stops[soff + j]
                if route_alight[soff + j] != 0 and stop_alight[s] != 0:
                    best_c = min(best_c, route_pref[soff + j] + stop_cost[s] + lb_cost[s])
                    best_r = min(best_r, lb_rides[s])
                suf_c[j - 1 - p0] = best_c
                suf_r[j - 1 - p0] = best_r
            rb_n = 0
            for j in range(p0, j_end + 1):
                if rb_n == 0 and j > p1:
                    break  # nothing on board and nothing left to board
                s = route_stops[soff + j]
                if stop_pass[s] == 0:
                    rb_n = 0
                    continue
                rides = k + lb_rides[s]  # the same for every trip on board
                if (
                    rb_n > 0
                    and route_alight[soff + j] != 0
                    and stop_alight[s] != 0
                    and rides <= n_rounds
                ):
                    for i in range(rb_n):
                        if is_banned(bans, t0 + rb_trip[i], j):
                            continue
                        a = np.int64(arrival[base + rb_trip[i] * ns + j])
                        t = a + q.alight_slack
                        c = rb_cost[i] + (a - rb_dep[i]) + stop_cost[s]
                        if dest_beats(
                            d_alive,
                            d_time,
                            d_cost,
                            d_round,
                            used[1],
                            max(float(t), ea_min),
                            max(
                                c + lb_cost[s],
                                _lowered(c + rho * (ea_min - t - slack_left * (n_rounds - k))),
                            ),
                            rides,
                        ):
                            continue
                        if dominated(
                            head, nxt, alive, kind_of, l_time, l_cost, k, s, t, c, True, w, w
                        ):
                            continue
                        li = used[0]
                        if li >= cap:
                            return OVERFLOW_LABELS
                        used[0] = li + 1
                        unlink_beaten(
                            head, nxt, alive, kind_of, l_time, l_cost, k, s, t, c, True, w
                        )
                        l_time[li], l_cost[li], l_stop[li], kind_of[li] = t, c, s, KIND_RIDE
                        l_parent[li], l_rnd[li], alive[li], l_ref[li] = rb_parent[i], k, 1, -1
                        l_route[li], l_trip[li], l_bpos[li], l_apos[li] = (
                            r,
                            t0 + rb_trip[i],
                            rb_bpos[i],
                            j,
                        )
                        nxt[li] = head[k, s]
                        head[k, s] = li
                        for x in range(e_off[s], e_off[s + 1]):
                            ei = e_idx[x]
                            te = t + egress_time[ei]
                            ce = c + egress_cost[ei]
                            nd = used[1]
                            if dest_beats(d_alive, d_time, d_cost, d_round, nd, te, ce, k):
                                continue
                            for y in range(nd):
                                if (
                                    d_alive[y] != 0
                                    and d_round[y] == k
                                    and te <= d_time[y]
                                    and ce <= d_cost[y]
                                ):
                                    d_alive[y] = 0
                            if nd >= d_time.shape[0]:
                                return OVERFLOW_DEST
                            d_label[nd], d_egress[nd], d_time[nd] = li, ei, te
                            d_cost[nd], d_round[nd], d_alive[nd] = ce, k, 1
                            used[1] = nd + 1
                if j > p1 or route_board[soff + j] == 0 or stop_board[s] == 0:
                    continue
                rest_c = suf_c[j - p0] - route_pref[soff + j]
                rest_r = k + suf_r[j - p0]
                last_dep = np.int64(departure[base + (nt - 1) * ns + j]) if nt > 0 else -INF
                li = head[k - 1, s]
                while li >= 0:
                    if alive[li] == 0:
                        li = nxt[li]
                        continue
                    kind = kind_of[li]
                    lt = l_time[li]
                    # what any ride from here costs at least (waits, trip costs and the
                    # nonpreferred penalty aside) plus the bound of its alighting
                    c_lo = l_cost[li] + q.board_cost + route_penalty[r] + stop_cost[s]
                    ruled = False
                    rate = rho_a
                    if kind != KIND_ACCESS:
                        c_lo += q.transfer_penalty
                        pl0 = li if kind == KIND_RIDE else l_parent[li]
                        lo0, hi0 = rule_range(r_key, l_stop[pl0] * n + s)
                        ruled = lo0 != hi0  # a rule may board before lt: negative wait
                        rate = rho
                    c_time = c_lo + rate * (ea_min - lt - slack_left * (n_rounds - k + 1))
                    if not ruled and dest_beats(
                        d_alive,
                        d_time,
                        d_cost,
                        d_round,
                        used[1],
                        ea_min,
                        _lowered(max(c_lo + rest_c, c_time)),
                        rest_r,
                    ):
                        li = nxt[li]
                        continue
                    rule = -1
                    lo = hi = 0
                    if kind == KIND_ACCESS:
                        kb = -1 if last_dep < lt + q.board_slack else first_trip(
                            departure, base, ns, j, t0, nt, int(lt + q.board_slack), INF, q.cap,
                            trip_allowed, bans,
                        )  # fmt: skip
                    else:
                        pl = li if kind == KIND_RIDE else l_parent[li]
                        lo, hi = rule_range(r_key, l_stop[pl] * n + s)
                        if lo == hi and last_dep < lt + g:
                            kb = -1  # the last trip leaves before the label is ready
                        elif lo == hi:
                            kb = first_trip(
                                departure,
                                base,
                                ns,
                                j,
                                t0,
                                nt,
                                lt + g,
                                INF,
                                q.cap,
                                trip_allowed,
                                bans,
                            )
                        else:
                            kb, rule = first_trip_rules(
                                tt,
                                q,
                                np.int64(r),
                                np.int64(j),
                                np.int64(nt),
                                np.int64(lt + g),
                                np.int64(INF),
                                np.int64(lo),
                                np.int64(hi),
                                np.int64(tt.route_trip_ref[l_trip[pl]]),
                                np.int64(tt.route_gtfs_route[l_route[pl]]),
                                np.int64(l_time[pl] - q.alight_slack),
                                np.int64(tr_time[l_ref[li]] if kind == KIND_WALK else 0),
                            )
                    if kb >= 0:
                        d = np.int64(departure[base + kb * ns + j])
                        c = l_cost[li] + q.board_cost + route_penalty[r] + stop_cost[s]
                        c += trip_board_cost[t0 + kb]
                        if kind == KIND_ACCESS:
                            c += f * (d - lt)
                        else:
                            # a transfers.txt rule may board before the label is ready
                            # (a timed transfer, a minimum time shorter than the walk):
                            # no wait then, never a negative one (bounds assume >= 0)
                            c += q.transfer_penalty + w * max(d - lt, np.int64(0))
                            if q.has_preferred and rule != 0 and rule != 1:
                                c += q.nonpreferred_penalty
                        rb_n = _offer(
                            rb_trip, rb_bpos, rb_parent, rb_cost, rb_dep, rb_n, kb, j, li, c, d
                        )
                        if rb_n < 0:
                            return OVERFLOW_ROUTE_BAG
                        # with per-trip costs a later trip may be cheaper than the first one:
                        # board each later trip that costs less than all before it (no
                        # transfers.txt rule between the two rides: those pick one trip)
                        best = trip_board_cost[t0 + kb]
                        wf = f if kind == KIND_ACCESS else w
                        kk = kb + 1
                        while has_trip_cost and best > 0.0 and lo == hi and kk < nt:
                            dk = np.int64(departure[base + kk * ns + j])
                            if dk > q.cap:
                                break
                            pk = trip_board_cost[t0 + kk]
                            if (
                                pk < best
                                and trip_allowed[t0 + kk] != 0
                                and not is_banned(bans, t0 + kk, j)
                            ):
                                ck = c - trip_board_cost[t0 + kb] + pk + wf * (dk - d)
                                best = pk
                                rb_n = _offer(
                                    rb_trip, rb_bpos, rb_parent, rb_cost, rb_dep, rb_n,
                                    kk, j, li, ck, dk,
                                )  # fmt: skip
                                if rb_n < 0:
                                    return OVERFLOW_ROUTE_BAG
                            kk += 1
                    li = nxt[li]
        rides_end = used[0] if k < n_rounds else round_start
        for li in range(round_start, rides_end):
            if alive[li] == 0:
                continue
            s = l_stop[li]
            if np.isnan(walk_c[s]):  # the least of the tests below over the stop's walks
                mc, mr, mt = np.inf, np.inf, INF
                for e in range(tr_offsets[s], tr_offsets[s + 1]):
                    mc = min(mc, tr_cost[e] + lb_cost[tr_to[e]])
                    mr = min(mr, max(lb_rides[tr_to[e]], 1.0))
                    mt = min(mt, int(tr_time[e]))
                walk_c[s], walk_r[s], walk_t[s] = mc, mr, mt
            # no walk passes when their least bounds do not
            if k + walk_r[s] > n_rounds or dest_beats(
                d_alive,
                d_time,
                d_cost,
                d_round,
                used[1],
                max(float(l_time[li] + walk_t[s]), ea_min),
                _lowered(
                    l_cost[li]
                    + max(walk_c[s], rho * (ea_min - l_time[li] - slack_left * (n_rounds - k)))
                ),
                k + walk_r[s],
            ):
                continue
            for e in range(tr_offsets[s], tr_offsets[s + 1]):
                u = tr_to[e]
                t = l_time[li] + tr_time[e]
                c = l_cost[li] + tr_cost[e]
                rides = k + max(lb_rides[u], 1.0)
                if rides > n_rounds or dest_beats(
                    d_alive,
                    d_time,
                    d_cost,
                    d_round,
                    used[1],
                    max(float(t), ea_min),
                    max(
                        c + lb_cost[u],
                        _lowered(c + rho * (ea_min - t - slack_left * (n_rounds - k))),
                    ),
                    rides,
                ):
                    continue
                if dominated(head, nxt, alive, kind_of, l_time, l_cost, k, u, t, c, False, w, f):
                    continue
                wi = used[0]
                if wi >= cap:
                    return OVERFLOW_LABELS
                used[0] = wi + 1
                unlink_beaten(head, nxt, alive, kind_of, l_time, l_cost, k, u, t, c, False, w)
                l_time[wi], l_cost[wi], l_stop[wi], kind_of[wi] = t, c, u, KIND_WALK
                l_parent[wi], l_rnd[wi], alive[wi], l_ref[wi] = li, k, 1, e
                nxt[wi] = head[k, u]
                head[k, u] = wi
        n_mark = 0
        t_ready = INF
        for li in range(round_start, used[0]):
            if alive[li] != 0:
                t_ready = min(t_ready, l_time[li])
                s = l_stop[li]
                if mark[s] == 0:
                    mark[s] = 1
                    mark_list[n_mark] = s
                    n_mark += 1
    return 0
