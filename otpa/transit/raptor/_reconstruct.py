"""Journeys from the labels of a search: follow the back-pointers, then map to travel order.

Paths are first collected in search direction as small records, timed there (a
walking transfer ends when a transfers.txt rule lets the next ride be boarded,
:func:`_walk_times`), then mapped back: for an arrive-by search the legs are
reversed, times negated, positions and route-trips flipped and access/egress swapped.  Every journey
gets its generalized cost recomputed from its legs with the request's cost
parameters, so both criteria report comparable costs.
"""

from __future__ import annotations

from typing import NamedTuple, TypeAlias

import numpy as np

from otpa.transit.raptor._common import first_rule
from otpa.transit.raptor._mc_labels import McLabels
from otpa.transit.raptor._onboard import onboard_legs
from otpa.transit.raptor._prepare import Prepared
from otpa.transit.raptor._results import (
    AccessLeg,
    EgressLeg,
    Leg,
    RaptorJourney,
    TransferLeg,
    TransitLeg,
)
from otpa.transit.raptor._round_kernel import B_ACCESS, B_RIDE, RoundLabels
from otpa.transit.raptor._stay_seated import split_ride

__all__ = ["journey", "mc_path", "path_cost", "round_path"]


class _Access(NamedTuple):
    entry: int  # index into the search's access arrays


class _Ride(NamedTuple):
    route: int
    trip: int
    bpos: int
    apos: int


class _Walk(NamedTuple):
    from_stop: int
    to_stop: int
    edge: int


_Raw: TypeAlias = _Access | _Ride | _Walk


def round_path(p: Prepared, lab: RoundLabels, k: int, stop: int) -> list[_Raw]:
    """Search-order legs (access .. last ride) of the ride label of round ``k`` at ``stop``."""
    tt = p.timetable
    out: list[_Raw] = []
    row, s = k, stop
    for _ in range(2 * p.query.max_rounds + 2):
        r = int(lab.r_route[row, s])
        bpos = int(lab.r_bpos[row, s])
        out.append(_Ride(r, int(lab.r_trip[row, s]), bpos, int(lab.r_apos[row, s])))
        b = int(tt.route_stops[tt.route_stop_offsets[r] + bpos])
        prev = int(lab.r_round[row, s]) - 1
        if lab.r_src[row, s] == 1:
            row, s = prev, b
            continue
        kind = lab.b_kind[prev, b]
        if kind == B_ACCESS:
            out.append(_Access(int(lab.b_ref[prev, b])))
            out.reverse()
            return out
        if kind == B_RIDE:
            row, s = int(lab.b_round[prev, b]), b
            continue
        a = int(lab.b_ref[prev, b])
        out.append(_Walk(a, b, int(lab.b_edge[prev, b])))
        row, s = int(lab.b_round[prev, b]), a
    msg = "RAPTOR labels do not lead back to an access stop"
    raise RuntimeError(msg)


def mc_path(lab: McLabels, label: int) -> list[_Raw]:
    """Search-order legs (access .. last ride) ending with McRAPTOR label ``label``."""
    out: list[_Raw] = []
    li = label
    while li >= 0:
        kind = int(lab.kind[li])
        parent = int(lab.parent[li])
        if kind == 0:
            out.append(_Access(int(lab.ref[li])))
            break
        if kind == 1:
            out.append(
                _Ride(int(lab.route[li]), int(lab.trip[li]), int(lab.bpos[li]), int(lab.apos[li]))
            )
        else:
            out.append(_Walk(int(lab.stop[parent]), int(lab.stop[li]), int(lab.ref[li])))
        li = parent
    out.reverse()
    return out


def _rule(p: Prepared, a: int, b: int, prev: _Ride, ride: _Ride) -> tuple[int, int]:
    """``(kind, min_time)`` of the transfers.txt rule from ``prev`` at ``a`` to ``ride`` at ``b``.

    ``(-1, 0)`` when no rule applies; the kernels' choice (:func:`._common.first_rule`).
    """
    q, tt = p.query, p.timetable
    if not q.has_rules:
        return -1, 0
    key = a * tt.n_stops + b
    lo = int(np.searchsorted(q.r_key, key, side="left"))
    hi = int(np.searchsorted(q.r_key, key, side="right"))
    if lo == hi:
        return -1, 0
    kind, min_time = first_rule(
        q,
        lo,
        hi,
        int(tt.route_gtfs_route[prev.route]),
        int(tt.route_trip_ref[prev.trip]),
        int(tt.route_gtfs_route[ride.route]),
        int(tt.route_trip_ref[ride.trip]),
    )
    return int(kind), int(min_time)


def _walk_times(p: Prepared, kind: int, min_time: int, free_at: int, dur: int) -> tuple[int, int]:
    """Search-direction ``(start, end)`` of a walking transfer between two rides.

    ``free_at`` is when the walk may start (the vehicle's arrival plus the alight
    slack), ``dur`` the street walk, ``kind``/``min_time`` the transfers.txt rule
    between the two rides (:func:`_rule`).  Without a rule the walk takes ``dur``.
    A rule may let the next ride leave before the street walk ends
    (:func:`._common.first_trip_rules`); OpenTripPlanner 1.x reaches such a ride
    over an edge of its own, which is what its clients see: a timed transfer
    (kind 1, ``TimedTransferEdge``) takes no time and no slack, so the walk is at
    the vehicle's arrival; a minimum time (kind 2, the ``TransferEdge`` built from
    the transfers.txt row) takes ``min_time``, so the walk lasts
    ``min(dur, min_time)`` from ``free_at``.  The walk ends when the transfer is
    ready, ``min(street walk, rule)``, never after the next boarding (the kernels
    board at or after the vehicle's arrival, or after ``min_time`` and the slacks),
    so legs never overlap and the wait before the next ride counts from there.
    The journey's cost is not changed: it stays the search's (the street walk, and
    the wait from its end, never negative).
    """
    end = free_at + dur
    if kind == 1:
        end = min(end, free_at - p.query.alight_slack)
    elif kind == 2:
        end = min(end, free_at + min_time)
    return min(free_at, end), end


def _block(p: Prepared, ride: _Ride) -> tuple[int, int]:
    """Offset of the ride's trip in the time arrays, and the route's number of positions."""
    tt = p.timetable
    soff = int(tt.route_stop_offsets[ride.route])
    ns = int(tt.route_stop_offsets[ride.route + 1]) - soff
    k = ride.trip - int(tt.route_trip_offsets[ride.route])
    return int(tt.route_time_offsets[ride.route]) + k * ns, ns


def _departure(p: Prepared, ride: _Ride) -> int:
    base, _ = _block(p, ride)
    return int(p.timetable.departure[base + ride.bpos])


def _timed(p: Prepared, raw: list[_Raw], egress: int) -> tuple[list[tuple[int, int]], float]:
    """Search-direction ``(start, end)`` of every leg (egress last) and the journey cost."""
    tt, q = p.timetable, p.query
    stop_offsets, trip_offsets, time_offsets = (
        tt.route_stop_offsets,
        tt.route_trip_offsets,
        tt.route_time_offsets,
    )
    route_stops, departure, arrival, stop_cost = (
        tt.route_stops,
        tt.departure,
        tt.arrival,
        q.stop_cost,
    )
    times: list[tuple[int, int]] = []
    cost = 0.0
    free_at = 0  # passenger time at the current stop
    prev: _Ride | None = None
    walked_from = -1
    first = next(x for x in raw if isinstance(x, _Ride))
    access_time = 0
    for i, leg in enumerate(raw):
        if isinstance(leg, _Access):
            access_time = int(q.access_time[leg.entry])
            end = _departure(p, first) - q.board_slack
            times.append((end - access_time, end))
            cost += float(q.access_cost[leg.entry])
        elif isinstance(leg, _Walk):
            dur = int(q.tr_time[leg.edge])
            nxt = raw[i + 1]
            kind, min_time = (
                _rule(p, leg.from_stop, leg.to_stop, prev, nxt)
                if prev is not None and isinstance(nxt, _Ride)
                else (-1, 0)
            )
            times.append(_walk_times(p, kind, min_time, free_at, dur))
            # the cost is the search's: the street walk, and the wait from when it
            # ends (never negative, as in the kernels)
            free_at += dur
            cost += float(q.tr_cost[leg.edge])
            walked_from = leg.from_stop
        else:
            r = leg.route
            soff = int(stop_offsets[r])
            ns = int(stop_offsets[r + 1]) - soff
            base = int(time_offsets[r]) + (leg.trip - int(trip_offsets[r])) * ns
            dep = int(departure[base + leg.bpos])
            arr = int(arrival[base + leg.apos])
            b = int(route_stops[soff + leg.bpos])
            times.append((dep, arr))
            cost += q.board_cost + float(q.route_penalty[r]) + (arr - dep)
            cost += float(q.trip_board_cost[leg.trip])
            cost += float(stop_cost[b])
            cost += float(stop_cost[route_stops[soff + leg.apos]])
            if prev is None:
                ready = q.time + access_time
                cost += q.initial_wait_factor * q.wait_reluctance * (dep - ready)
            else:
                a = walked_from if walked_from >= 0 else b
                # never a negative wait (a rule may allow boarding before free_at), as
                # in the McRAPTOR kernel
                cost += q.transfer_penalty + q.wait_reluctance * max(dep - free_at, 0)
                if q.has_preferred and _rule(p, a, b, prev, leg)[0] not in (0, 1):
                    cost += q.nonpreferred_penalty
            free_at = arr + q.alight_slack
            prev = leg
            walked_from = -1
    times.append((free_at, free_at + int(q.egress_time[egress])))
    cost += float(q.egress_cost[egress])
    return times, cost


def path_cost(p: Prepared, raw: list[_Raw], egress: int) -> tuple[int, float]:
    """``(n_rides, cost)`` of the journey :func:`journey` builds, without building its legs."""
    _, cost = _timed(p, raw, egress)
    return sum(isinstance(leg, _Ride) for leg in raw), cost


def journey(p: Prepared, raw: list[_Raw], egress: int, cost: float | None = None) -> RaptorJourney:
    """Build the travel-order journey of a search-order path ending with egress ``egress``.

    Its cost is the one recomputed from its legs, or ``cost`` where given (McRAPTOR's).
    """
    tt, q = p.timetable, p.query
    times, leg_cost = _timed(p, raw, egress)
    legs: list[Leg] = []
    n_rides = 0
    rev = p.reverse
    for leg, (t_a, t_b) in zip([*raw, None], times, strict=True):
        start, end = (-t_b, -t_a) if rev else (t_a, t_b)
        if isinstance(leg, _Access) and p.onboard is not None:
            continue  # an on-board start has no access leg
        if leg is None or isinstance(leg, _Access):
            idx = egress if leg is None else leg.entry
            stops = q.egress_stops if leg is None else q.access_stops
            stop, dur = int(stops[idx]), end - start
            if (leg is None) != rev:
                legs.append(EgressLeg(stop, idx, dur, start, end))
            else:
                legs.append(AccessLeg(stop, idx, dur, start, end))
        elif isinstance(leg, _Walk):
            edge = leg.edge if p.edge_map is None else int(p.edge_map[leg.edge])
            a, b = (leg.to_stop, leg.from_stop) if rev else (leg.from_stop, leg.to_stop)
            legs.append(TransferLeg(a, b, end - start, start, end, edge))
        else:
            n_rides += 1
            r = leg.route
            soff = int(tt.route_stop_offsets[r])
            last = int(tt.route_stop_offsets[r + 1]) - soff - 1
            bpos, apos, trip = leg.bpos, leg.apos, leg.trip
            b_stop = int(tt.route_stops[soff + bpos])
            a_stop = int(tt.route_stops[soff + apos])
            if rev:
                t0, t1 = int(tt.route_trip_offsets[r]), int(tt.route_trip_offsets[r + 1])
                trip = t0 + t1 - 1 - trip
                bpos, apos = last - apos, last - bpos
                b_stop, a_stop = a_stop, b_stop
            if p.onboard is not None and r == p.onboard.route:
                legs.extend(onboard_legs(p.timetable, p.onboard, apos))
                continue
            if p.stay is not None and r >= p.stay.n_routes:
                # a ride through interlined trips: one leg per trip (reversed below if rev)
                parts = split_ride(p.stay, r, trip, bpos, apos)
                legs.extend(reversed(parts) if rev else parts)
                continue
            legs.append(TransitLeg(r, trip, bpos, apos, b_stop, a_stop, start, end))
    if rev:
        legs.reverse()
    return RaptorJourney(
        tuple(legs), legs[0].start, legs[-1].end, n_rides, leg_cost if cost is None else cost
    )
