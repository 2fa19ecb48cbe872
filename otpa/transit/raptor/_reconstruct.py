"""Journeys from the labels of a search: follow the back-pointers, then map to travel order.

Paths are first collected in search direction as small records, timed there (a
walking transfer ends when a transfers.txt rule lets the next ride be boarded,
:func:`_walk_times`), then mapped back: for an arrive-by search the legs are
reversed, times negated, positions and route-trips flipped and access/egress swapped.  Every journey
gets its generalized cost recomputed from its legs with the request's cost
parameters, so both criteria report comparable costs.
"""

from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple, TypeAlias, TypeVar

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
_T = TypeVar("_T")


def round_path(p: Prepared, lab: RoundLabels, k: int, stop: int) -> list[_Raw]:
    """Search-order legs (access .. last ride) of the ride label of round ``k`` at ``stop``."""
    tt = p.timetable
    stop_offsets, route_stops = tt.route_stop_offsets, tt.route_stops
    # ``item`` reads a label as a Python int (no numpy scalar in between)
    r_route, r_trip, r_bpos = lab.r_route.item, lab.r_trip.item, lab.r_bpos.item
    r_apos, r_round, r_src = lab.r_apos.item, lab.r_round.item, lab.r_src.item
    b_kind, b_ref, b_edge = lab.b_kind.item, lab.b_ref.item, lab.b_edge.item
    b_round = lab.b_round.item
    out: list[_Raw] = []
    row, s = k, stop
    for _ in range(2 * p.query.max_rounds + 2):
        r = r_route(row, s)
        bpos = r_bpos(row, s)
        out.append(_Ride(r, r_trip(row, s), bpos, r_apos(row, s)))
        b = route_stops.item(stop_offsets.item(r) + bpos)
        prev = r_round(row, s) - 1
        if r_src(row, s) == 1:
            row, s = prev, b
            continue
        kind = b_kind(prev, b)
        if kind == B_ACCESS:
            out.append(_Access(b_ref(prev, b)))
            out.reverse()
            return out
        if kind == B_RIDE:
            row, s = b_round(prev, b), b
            continue
        a = b_ref(prev, b)
        out.append(_Walk(a, b, b_edge(prev, b)))
        row, s = b_round(prev, b), a
    msg = "RAPTOR labels do not lead back to an access stop"
    raise RuntimeError(msg)


def mc_path(lab: McLabels, label: int) -> list[_Raw]:
    """Search-order legs (access .. last ride) ending with McRAPTOR label ``label``."""
    kinds, parents, refs, stops = lab.kind.item, lab.parent.item, lab.ref.item, lab.stop.item
    out: list[_Raw] = []
    li = label
    while li >= 0:
        kind = kinds(li)
        parent = parents(li)
        if kind == 0:
            out.append(_Access(refs(li)))
            break
        if kind == 1:
            out.append(
                _Ride(lab.route.item(li), lab.trip.item(li), lab.bpos.item(li), lab.apos.item(li))
            )
        else:
            out.append(_Walk(stops(parent), stops(li), refs(li)))
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
    # ``item`` reads an element as a Python int or float (no numpy scalar in between)
    stop_offsets, trip_offsets = tt.route_stop_offsets.item, tt.route_trip_offsets.item
    time_offsets, route_stops = tt.route_time_offsets.item, tt.route_stops.item
    departure, arrival = tt.departure.item, tt.arrival.item
    stop_cost, route_penalty = q.stop_cost.item, q.route_penalty.item
    trip_cost = q.trip_board_cost.item
    board_cost, wait_reluctance, alight_slack = q.board_cost, q.wait_reluctance, q.alight_slack
    times: list[tuple[int, int]] = []
    cost = 0.0
    free_at = 0  # passenger time at the current stop
    prev: _Ride | None = None
    walked_from = -1
    access_time = 0
    for i, leg in enumerate(raw):
        if isinstance(leg, _Ride):
            r = leg.route
            soff = stop_offsets(r)
            ns = stop_offsets(r + 1) - soff
            base = time_offsets(r) + (leg.trip - trip_offsets(r)) * ns
            dep = departure(base + leg.bpos)
            arr = arrival(base + leg.apos)
            b = route_stops(soff + leg.bpos)
            times.append((dep, arr))
            cost += board_cost + route_penalty(r) + (arr - dep)
            cost += trip_cost(leg.trip)
            cost += stop_cost(b)
            cost += stop_cost(route_stops(soff + leg.apos))
            if prev is None:
                ready = q.time + access_time
                cost += q.initial_wait_factor * wait_reluctance * (dep - ready)
            else:
                a = walked_from if walked_from >= 0 else b
                # never a negative wait (a rule may allow boarding before free_at), as
                # in the McRAPTOR kernel
                cost += q.transfer_penalty + wait_reluctance * max(dep - free_at, 0)
                if q.has_preferred and _rule(p, a, b, prev, leg)[0] not in (0, 1):
                    cost += q.nonpreferred_penalty
            free_at = arr + alight_slack
            prev = leg
            walked_from = -1
        elif isinstance(leg, _Walk):
            dur = q.tr_time.item(leg.edge)
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
            cost += q.tr_cost.item(leg.edge)
            walked_from = leg.from_stop
        else:
            access_time = q.access_time.item(leg.entry)
            first = next(x for x in raw if isinstance(x, _Ride))
            end = _departure(p, first) - q.board_slack
            times.append((end - access_time, end))
            cost += q.access_cost.item(leg.entry)
    times.append((free_at, free_at + q.egress_time.item(egress)))
    cost += q.egress_cost.item(egress)
    return times, cost


def path_cost(p: Prepared, raw: list[_Raw], egress: int) -> tuple[int, float]:
    """``(n_rides, cost)`` of the journey :func:`journey` builds, without building its legs."""
    _, cost = _timed(p, raw, egress)
    return sum(isinstance(leg, _Ride) for leg in raw), cost


_new = object.__new__


def _fields(cls: type[Any], names: tuple[str, ...]) -> tuple[str, ...]:
    """``names``, checked to be the fields of result class ``cls`` in order.

    The legs and journeys are built by filling the instance's dict (the dict the
    class's ``__init__`` fills, field by field, through ``object.__setattr__``: a
    journey has half a dozen of them, and that was a visible share of building it).
    That is only the same instance while the class sets nothing else.
    """
    if tuple(f.name for f in dataclasses.fields(cls)) != names or hasattr(cls, "__post_init__"):
        msg = f"{cls.__name__}: fields {names} expected, without __post_init__"
        raise TypeError(msg)
    return names


_ENDS = _fields(AccessLeg, ("stop", "index", "duration_s", "start", "end"))
_fields(EgressLeg, _ENDS)
_TRANSFER = _fields(TransferLeg, ("from_stop", "to_stop", "duration_s", "start", "end", "edge"))
_TRANSIT = _fields(
    TransitLeg,
    ("route", "trip", "board_pos", "alight_pos", "board_stop", "alight_stop", "start", "end",
     "interline", "onboard"),
)  # fmt: skip
_JOURNEY = _fields(RaptorJourney, ("legs", "departure", "arrival", "n_rides", "cost"))


def _built(cls: type[_T], names: tuple[str, ...], values: tuple[Any, ...]) -> _T:
    """``cls(*values)`` (``names``: its fields, :func:`_fields`), without its ``__init__``."""
    obj: _T = _new(cls)
    obj.__dict__.update(zip(names, values, strict=True))
    return obj


def journey(p: Prepared, raw: list[_Raw], egress: int, cost: float | None = None) -> RaptorJourney:
    """Build the travel-order journey of a search-order path ending with egress ``egress``.

    Its cost is the one recomputed from its legs, or ``cost`` where given (McRAPTOR's).
    """
    tt, q = p.timetable, p.query
    stop_offsets, route_stops = tt.route_stop_offsets.item, tt.route_stops.item
    times, leg_cost = _timed(p, raw, egress)
    legs: list[Leg] = []
    n_rides = 0
    rev = p.reverse
    for leg, (t_a, t_b) in zip([*raw, None], times, strict=True):
        start, end = (-t_b, -t_a) if rev else (t_a, t_b)
        if isinstance(leg, _Ride):
            n_rides += 1
            r = leg.route
            soff = stop_offsets(r)
            last = stop_offsets(r + 1) - soff - 1
            bpos, apos, trip = leg.bpos, leg.apos, leg.trip
            b_stop = route_stops(soff + bpos)
            a_stop = route_stops(soff + apos)
            if rev:
                t0, t1 = tt.route_trip_offsets.item(r), tt.route_trip_offsets.item(r + 1)
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
            ride = (r, trip, bpos, apos, b_stop, a_stop, start, end, False, False)
            legs.append(_built(TransitLeg, _TRANSIT, ride))
        elif isinstance(leg, _Walk):
            edge = leg.edge if p.edge_map is None else p.edge_map.item(leg.edge)
            a, b = (leg.to_stop, leg.from_stop) if rev else (leg.from_stop, leg.to_stop)
            legs.append(_built(TransferLeg, _TRANSFER, (a, b, end - start, start, end, edge)))
        elif leg is None or p.onboard is None:  # an on-board start has no access leg
            idx = egress if leg is None else leg.entry
            stops = q.egress_stops if leg is None else q.access_stops
            ends = (stops.item(idx), idx, end - start, start, end)
            cls: type[AccessLeg | EgressLeg] = EgressLeg if (leg is None) != rev else AccessLeg
            legs.append(_built(cls, _ENDS, ends))
    if rev:
        legs.reverse()
    fields = (tuple(legs), legs[0].start, legs[-1].end, n_rides, leg_cost if cost is None else cost)
    return _built(RaptorJourney, _JOURNEY, fields)
