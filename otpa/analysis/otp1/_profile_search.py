"""Finding profile options and following each one through every departure minute.

*Discovery*: RAPTOR (the planner's request mapping, earliest-arrival criteria) runs
at every departure minute of the window; each Pareto-optimal journey (arrival,
rides) names an option, the sequence of its rides as ``(route, boarding stop,
alighting stop)``.  More alternatives come from searches with one of the routes
found banned (every few minutes).

*Evaluation*: an option is then followed at every minute, vectorised over the
minutes: the earliest trip of the route that can be boarded at each of its stops
(any pattern of the route between the two stops), with the slacks and walking
transfers RAPTOR uses.  For a fixed sequence of rides, taking the earliest
arrival at each ride is optimal (trips of a pattern never overtake), so an
option's time at a minute where RAPTOR found it equals RAPTOR's.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from otpa.routing.engine import Access
from otpa.transit.raptor.api import RaptorRequest, TransitLeg, route
from otpa.transit.raptor.spi import RaptorTimetable
from otpa.types import FloatArray, IntArray

__all__ = ["Evaluation", "OptionKey", "Ride", "discover", "evaluate", "is_loop"]

#: A ride of an option: (model route row, boarding stop, alighting stop).
Ride = tuple[int, int, int]
#: An option: its rides in order.
OptionKey = tuple[Ride, ...]

#: Routes banned one at a time to find alternatives, at most.
MAX_BANNED_ROUTES = 6
#: Alternatives are searched every this many departure minutes.
BAN_STEP = 5


def journey_key(journey_legs: Sequence[object], timetable: RaptorTimetable) -> OptionKey:
    """The option a RAPTOR journey follows."""
    return tuple(
        (int(timetable.route_gtfs_route[leg.route]), int(leg.board_stop), int(leg.alight_stop))
        for leg in journey_legs
        if isinstance(leg, TransitLeg)
    )


def is_loop(key: OptionKey, place_of: Callable[[int], str]) -> bool:
    """Whether an option rides a route twice or comes back to a place it left.

    ``place_of`` names the place of a stop (its station or stop cluster): a transfer
    may stay at the place it arrived at, any other return is a detour (as OTP 1.x's
    profile router, which pruned rides repeating a route or a stop cluster).
    """
    routes = [g for g, _, _ in key]
    if len(set(routes)) < len(routes):
        return True
    places = [place_of(key[0][1])]
    for x, (_, board, alight) in enumerate(key):
        if x and place_of(board) != places[-1]:
            places.append(place_of(board))
        places.append(place_of(alight))
    return len(set(places)) < len(places)


def _keys_at(
    timetable: RaptorTimetable, request: RaptorRequest, times: IntArray, keys: set[OptionKey]
) -> None:
    for t in times.tolist():
        for journey in route(timetable, dataclasses.replace(request, time=int(t))):
            if journey.n_rides > 0:
                keys.add(journey_key(journey.legs, timetable))


def discover(
    timetable: RaptorTimetable, request: RaptorRequest, times: IntArray
) -> list[OptionKey]:
    """Options found at the departure ``times`` (timetable clock), sorted.

    Parameters
    ----------
    timetable
        The service day's timetable.
    request
        The search (``criteria="arrival"``); its ``time`` is replaced by each departure.
    times
        Departure times, seconds since the timetable's epoch.
    """
    keys: set[OptionKey] = set()
    if request.access_stops.size == 0 or request.egress_stops.size == 0:
        return []
    _keys_at(timetable, request, times, keys)
    counts: dict[int, int] = {}
    for key in keys:
        for g, _, _ in key:
            counts[g] = counts.get(g, 0) + 1
    banned = sorted(counts, key=lambda g: (-counts[g], g))[:MAX_BANNED_ROUTES]
    gtfs_route = np.asarray(timetable.route_gtfs_route)
    base = (
        np.ones(timetable.n_routes, dtype=np.uint8)
        if request.route_allowed is None
        else np.asarray(request.route_allowed, dtype=np.uint8)
    )
    for g in banned:
        allowed = (base & (gtfs_route != g)).astype(np.uint8)
        _keys_at(
            timetable, dataclasses.replace(request, route_allowed=allowed), times[::BAN_STEP], keys
        )
    return sorted(keys)


@dataclass(frozen=True, eq=False)
class _Candidate:
    """A pattern of the day (timetable route) serving a ride, with its boardable trips."""

    route: int
    board_pos: int
    alight_pos: int
    departure: FloatArray  # at the boarding position, allowed trips only, non-decreasing
    arrival: FloatArray  # at the alighting position
    trips: IntArray  # route-trip indices


def _candidates(timetable: RaptorTimetable, request: RaptorRequest, ride: Ride) -> list[_Candidate]:
    g, board, alight = ride
    tt = timetable
    out = []
    allowed_routes = request.route_allowed
    for r in np.flatnonzero(np.asarray(tt.route_gtfs_route) == g).tolist():
        if allowed_routes is not None and allowed_routes[r] == 0:
            continue
        soff = int(tt.route_stop_offsets[r])
        ns = int(tt.route_stop_offsets[r + 1]) - soff
        stops = np.asarray(tt.route_stops[soff : soff + ns])
        boards = np.flatnonzero((stops == board) & (tt.route_board[soff : soff + ns] != 0))
        alights = np.flatnonzero((stops == alight) & (tt.route_alight[soff : soff + ns] != 0))
        t0 = int(tt.route_trip_offsets[r])
        nt = int(tt.route_trip_offsets[r + 1]) - t0
        base = int(tt.route_time_offsets[r])
        k = np.arange(nt)
        if request.trip_allowed is not None:
            k = k[np.asarray(request.trip_allowed[t0 : t0 + nt]) != 0]
        for i in boards.tolist():
            later = alights[alights > i]
            if later.size == 0 or k.size == 0:
                continue
            j = int(later[0])
            out.append(
                _Candidate(
                    r,
                    i,
                    j,
                    np.asarray(tt.departure[base + k * ns + i], dtype=np.float64),
                    np.asarray(tt.arrival[base + k * ns + j], dtype=np.float64),
                    (t0 + k).astype(np.int64),
                )
            )
    return out


@dataclass(frozen=True, eq=False)
class Evaluation:
    """An option followed at every departure minute (``inf``/-1: not possible then).

    Arrays of rides are ``(n_rides, n_minutes)``.
    """

    total: FloatArray  # seconds from the departure to the arrival at the destination
    wait: FloatArray
    ride: FloatArray
    route: IntArray  # timetable route ridden
    trip: IntArray  # route-trip ridden
    board_pos: IntArray
    alight_pos: IntArray
    walk_s: tuple[int, ...]  # walking transfer before each ride (0 for the first)
    walk_m: tuple[float, ...]
    access_index: int  # into the access arrays
    egress_index: int  # into the egress arrays


def _transfer(
    request: RaptorRequest, distances: FloatArray, a: int, b: int
) -> tuple[int, float] | None:
    """Walking time and distance of the fastest transfer from stop ``a`` to ``b``."""
    if a == b:
        return 0, 0.0
    off = request.transfer_offsets
    if off.size == 0:
        return None
    lo, hi = int(off[a]), int(off[a + 1])
    hits = np.flatnonzero(request.transfer_to[lo:hi] == b)
    if hits.size == 0:
        return None
    e = lo + int(hits[np.argmin(request.transfer_time_s[lo + hits])])
    return int(request.transfer_time_s[e]), float(distances[e]) if distances.size else 0.0


def evaluate(
    timetable: RaptorTimetable,
    request: RaptorRequest,
    key: OptionKey,
    times: IntArray,
    *,
    access: Access,
    egress: Access,
    transfer_distance_m: FloatArray,
    max_duration_s: int,
) -> Evaluation | None:
    """Follow an option from every departure of ``times`` (None: it cannot be followed)."""
    first, last = key[0][1], key[-1][2]
    if first not in access.by_stop or last not in egress.by_stop:
        return None
    walks = [(0, 0.0)]
    for prev, nxt in itertools.pairwise(key):
        found = _transfer(request, transfer_distance_m, prev[2], nxt[1])
        if found is None:
            return None
        walks.append(found)
    n, m = len(key), times.shape[0]
    t = times.astype(np.float64)
    a_i, e_i = access.by_stop[first], egress.by_stop[last]
    at_stop = t + float(access.time_s[a_i])
    ready = at_stop + request.board_slack_s
    cap = t + request.search_window_s
    gap = max(request.transfer_slack_s, request.board_slack_s + request.alight_slack_s)
    wait, ride = np.full((n, m), np.inf), np.full((n, m), np.inf)
    used = {name: np.full((n, m), -1, dtype=np.int64) for name in ("route", "trip", "b", "a")}
    arrival = np.full(m, np.inf)
    for x, step in enumerate(key):
        best_arr, best_dep = np.full(m, np.inf), np.full(m, -np.inf)
        for c in _candidates(timetable, request, step):
            k = np.searchsorted(c.departure, ready, side="left")
            ok = k < c.departure.size
            kk = np.minimum(k, c.departure.size - 1)
            dep = np.where(ok, c.departure[kk], np.inf)
            arr = np.where(ok & (dep <= cap), c.arrival[kk], np.inf)
            better = (arr < best_arr) | ((arr == best_arr) & np.isfinite(arr) & (dep > best_dep))
            best_arr = np.where(better, arr, best_arr)
            best_dep = np.where(better, dep, best_dep)
            for name, value in (("route", c.route), ("b", c.board_pos), ("a", c.alight_pos)):
                used[name][x] = np.where(better, value, used[name][x])
            used["trip"][x] = np.where(better, c.trips[kk], used["trip"][x])
        reached = np.isfinite(best_arr)
        wait[x] = np.where(reached, best_dep - at_stop, np.inf)
        ride[x] = np.where(reached, best_arr - best_dep, np.inf)
        arrival = best_arr
        if x + 1 < n:
            walk = walks[x + 1][0]
            at_stop = arrival + request.alight_slack_s + walk
            ready = arrival + gap + walk
    total = arrival + request.alight_slack_s + float(egress.time_s[e_i]) - t
    total[~np.isfinite(total) | (total > max_duration_s)] = np.inf
    return Evaluation(
        total=total,
        wait=wait,
        ride=ride,
        route=used["route"],
        trip=used["trip"],
        board_pos=used["b"],
        alight_pos=used["a"],
        walk_s=tuple(w for w, _ in walks),
        walk_m=tuple(d for _, d in walks),
        access_index=a_i,
        egress_index=e_i,
    )
