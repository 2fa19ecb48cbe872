"""Interlining ("stay seated") as extra routes of the timetable.

OpenTripPlanner 1.x lets a rider stay on board when the vehicle of one trip
continues as the next trip of its block (``PatternInterlineDwell``): no
alighting and boarding, no slack, no board cost, the dwell counted as riding
time, no transfer.  Here every maximal *chain* of interlined trips (A -> B ->
C ...) becomes one extra route-trip laid out as in :mod:`._extra_routes`;
chains with the same routes form extra routes, split so that their trips never
overtake.  The kernels need no change: riding an extra route through a
junction is one ride, one boarding.  Journeys are split back into one leg per
trip (:func:`split_ride`), the later ones marked ``interline``.

Extra routes are scanned after the ordinary ones and only strict improvements
change labels, so a ride that stays within one trip of a chain (a copy of an
ordinary ride) never replaces the ordinary one.

Request filters are extended to the extra routes (:func:`extend_filters`): an
extra route is allowed when one of its routes is, costs the largest of their
route penalties (so copies of ordinary rides are never cheaper), and boarding
or alighting is banned on the part of a trip whose own trip or route is not
allowed, like OTP, which checks bans when boarding.  transfers.txt rules that
name a route or trip do not match rides on extra routes (they have no single
route or trip); rules between stops do.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict, defaultdict
from typing import Any, NamedTuple

import numpy as np

from otpa.transit.raptor._extra_routes import (
    NO_REF,
    ExtraRoute,
    append_routes,
    chain_layout,
    chain_times,
    route_of_trip,
    trip_times,
)
from otpa.transit.raptor._results import TransitLeg
from otpa.transit.raptor._reverse import normalized
from otpa.transit.raptor.spi import RaptorTimetable, StaySeated
from otpa.types import FloatArray, IntArray, UInt8Array

__all__ = ["StaySeatedView", "chains", "extend_filters", "split_ride", "stay_seated_view"]

_LOCK = threading.RLock()  # reentrant: a weak-reference callback may run while it is held
_CACHE_SIZE = 16
_CACHE: OrderedDict[
    tuple[int, int], tuple[weakref.ref[Any], weakref.ref[Any], StaySeatedView | None]
] = OrderedDict()


class StaySeatedView(NamedTuple):
    """A timetable with its interline chains as extra routes, and how to map them back.

    Extra route ``n_routes + i`` consists of the parts ``part_offsets[i]:part_offsets[i+1]``
    (base route ``part_route``, first position ``part_start`` in the extra route); extra
    route-trip ``n_trips + i`` rides the base route-trips
    ``tp_base[tp_offsets[i]:tp_offsets[i + 1]]``, one per part.
    """

    timetable: RaptorTimetable  # base routes and route-trips keep their indices
    n_routes: int
    n_trips: int
    part_offsets: IntArray
    part_route: IntArray
    part_start: IntArray
    part_len: IntArray  # positions of the part's base route
    tp_offsets: IntArray  # CSR per extra route-trip into tp_*
    tp_trip: IntArray  # the extra route-trip (global index) of each entry
    tp_base: IntArray  # the base route-trip it rides
    tp_part: IntArray  # the part (row of part_route / part_start)
    next_trip: IntArray  # per base route-trip: the one its vehicle continues as (-1: none)


def chains(tt: RaptorTimetable, stay: StaySeated, route_of: IntArray) -> list[list[int]]:
    """Maximal chains of route-trips linked by valid stay-seated pairs."""
    n = tt.n_route_trips
    nxt: dict[int, int] = {}
    has_prev: set[int] = set()
    for a_, b_ in zip(stay.from_trip.tolist(), stay.to_trip.tolist(), strict=True):
        a, b = int(a_), int(b_)
        if not (0 <= a < n and 0 <= b < n) or a == b or a in nxt or b in has_prev:
            continue
        arr_a, _ = trip_times(tt, a, int(route_of[a]))
        _, dep_b = trip_times(tt, b, int(route_of[b]))
        if dep_b[0] < arr_a[-1]:  # the next trip leaves before this one arrives
            continue
        nxt[a] = b
        has_prev.add(b)
    out = []
    for a in sorted(nxt):
        if a in has_prev:
            continue
        chain, seen = [a], {a}
        while chain[-1] in nxt and nxt[chain[-1]] not in seen:
            chain.append(nxt[chain[-1]])
            seen.add(chain[-1])
        out.append(chain)
    return out


class _Route(NamedTuple):
    parts: tuple[int, ...]  # base routes
    starts: IntArray
    chains: list[list[int]]
    route: ExtraRoute


def _non_overtaking(
    tt: RaptorTimetable, routes: tuple[int, ...], group: list[list[int]], route_of: IntArray
) -> list[_Route]:
    """The chains of one route sequence as routes whose trips never overtake."""
    layout = chain_layout(tt, routes)
    rows = [(c, *chain_times(tt, c, route_of, layout)) for c in group]
    rows.sort(key=lambda x: (int(x[2][0]), int(x[1][-1])))
    groups: list[list[tuple[list[int], IntArray, IntArray]]] = []
    for row in rows:
        for grp in groups:
            last = grp[-1]
            if np.all(row[1] >= last[1]) and np.all(row[2] >= last[2]):
                grp.append(row)
                break
        else:
            groups.append([row])
    out = []
    for grp in groups:
        route = ExtraRoute(
            layout.stops,
            layout.board,
            layout.alight,
            np.vstack([a for _, a, _ in grp]),
            np.vstack([d for _, _, d in grp]),
            int(tt.route_day[routes[0]]),
            NO_REF,
            np.full(len(grp), NO_REF, np.int64),
        )
        out.append(_Route(routes, layout.starts, [c for c, _, _ in grp], route))
    return out


def _build(timetable: RaptorTimetable, stay: StaySeated) -> StaySeatedView | None:
    tt = normalized(timetable)
    route_of = route_of_trip(tt)
    found = chains(tt, stay, route_of)
    if not found:
        return None
    by_routes: dict[tuple[int, ...], list[list[int]]] = defaultdict(list)
    for c in found:
        by_routes[tuple(int(route_of[g]) for g in c)].append(c)
    extra = [
        r for key in sorted(by_routes) for r in _non_overtaking(tt, key, by_routes[key], route_of)
    ]
    n_trips = tt.n_route_trips
    counts = np.array([len(r.chains) for r in extra], np.int64)
    n_parts = np.array([len(r.parts) for r in extra], np.int64)
    part_offsets = np.r_[0, np.cumsum(n_parts)].astype(np.int64)
    part_route = np.concatenate([np.asarray(r.parts, np.int64) for r in extra])
    tp_trip, tp_base, tp_part = [], [], []
    g = n_trips
    for i, r in enumerate(extra):
        rows = np.arange(part_offsets[i], part_offsets[i + 1], dtype=np.int64)
        for c in r.chains:
            tp_trip.append(np.full(len(c), g, np.int64))
            tp_base.append(np.asarray(c, np.int64))
            tp_part.append(rows)
            g += 1
    next_trip = np.full(n_trips, -1, np.int64)
    for c in found:
        next_trip[c[:-1]] = c[1:]
    return StaySeatedView(
        timetable=append_routes(tt, [r.route for r in extra]),
        n_routes=tt.n_routes,
        n_trips=n_trips,
        part_offsets=part_offsets,
        part_route=part_route,
        part_start=np.concatenate([r.starts for r in extra]),
        part_len=np.diff(tt.route_stop_offsets)[part_route],
        tp_offsets=np.r_[0, np.cumsum(np.repeat(n_parts, counts))].astype(np.int64),
        tp_trip=np.concatenate(tp_trip),
        tp_base=np.concatenate(tp_base),
        tp_part=np.concatenate(tp_part),
        next_trip=next_trip,
    )


def stay_seated_view(timetable: RaptorTimetable, stay: StaySeated) -> StaySeatedView | None:
    """The timetable with the chains of ``stay`` as extra routes (None: no valid pair).

    Cached while ``timetable.arrival`` and ``stay`` are alive.
    """
    key = (id(timetable.arrival), id(stay))
    with _LOCK:
        hit = _CACHE.get(key)
        if hit is not None and hit[0]() is timetable.arrival and hit[1]() is stay:
            _CACHE.move_to_end(key)
            return hit[2]
    view = _build(timetable, stay)

    def _drop(
        _: weakref.ref[Any],
        key: tuple[int, int] = key,
        lock: threading.RLock = _LOCK,
        cache: OrderedDict[tuple[int, int], Any] = _CACHE,
    ) -> None:
        # the lock and cache are bound here: at interpreter exit the module's globals may
        # already be gone when the last arrays die and call this
        with lock:
            entry = cache.pop(key, None)
        # freed outside the lock: freeing it may run this callback again (its arrays)
        del entry

    with _LOCK:
        _CACHE[key] = (weakref.ref(timetable.arrival, _drop), weakref.ref(stay, _drop), view)
        evicted = [_CACHE.popitem(last=False) for _ in range(len(_CACHE) - _CACHE_SIZE)]
    del evicted  # freed outside the lock
    return view


def extend_filters(
    view: StaySeatedView,
    route_allowed: UInt8Array | None,
    trip_allowed: UInt8Array | None,
    bans: IntArray | None,
    penalty: FloatArray | None,
) -> tuple[UInt8Array, UInt8Array, IntArray, FloatArray]:
    """Request filters over the base timetable extended to the extra routes and trips."""
    n_r, n_t = view.n_routes, view.n_trips
    ra = np.ones(n_r, np.uint8) if route_allowed is None else np.asarray(route_allowed, np.uint8)
    ta = np.ones(n_t, np.uint8) if trip_allowed is None else np.asarray(trip_allowed, np.uint8)
    pen = np.zeros(n_r) if penalty is None else np.asarray(penalty, np.float64)
    starts = view.part_offsets[:-1]
    x_route = np.maximum.reduceat(ra[view.part_route], starts).astype(np.uint8)
    x_pen = np.maximum.reduceat(pen[view.part_route], starts)
    ok = (ta[view.tp_base] != 0) & (ra[view.part_route[view.tp_part]] != 0)
    x_trip = np.maximum.reduceat(ok.astype(np.uint8), view.tp_offsets[:-1]).astype(np.uint8)
    # boarding and alighting are banned on the parts of trips that may not be ridden
    bad = np.flatnonzero(~ok)
    lens = view.part_len[view.tp_part[bad]]
    first = view.part_start[view.tp_part[bad]]
    within = np.arange(int(lens.sum()), dtype=np.int64) - np.repeat(np.cumsum(lens) - lens, lens)
    keys = [np.repeat(view.tp_trip[bad] * 65536 + first, lens) + within]
    if bans is not None and bans.shape[0]:
        b_trip, b_pos = bans >> 16, bans & 0xFFFF
        hit = np.flatnonzero(np.isin(view.tp_base, b_trip))
        for e in hit:
            pos = b_pos[b_trip == view.tp_base[e]]
            keys.append(view.tp_trip[e] * 65536 + view.part_start[view.tp_part[e]] + pos)
        keys.append(np.asarray(bans, np.int64))
    all_bans = np.unique(np.concatenate(keys)) if keys else np.zeros(0, np.int64)
    return (
        np.r_[ra, x_route].astype(np.uint8),
        np.r_[ta, x_trip].astype(np.uint8),
        all_bans.astype(np.int64),
        np.r_[pen, x_pen].astype(np.float64),
    )


def split_ride(
    view: StaySeatedView, route: int, trip: int, bpos: int, apos: int
) -> list[TransitLeg]:
    """The legs (one per trip, travel order) of a forward ride on an extra route."""
    i = route - view.n_routes
    rows = np.arange(view.part_offsets[i], view.part_offsets[i + 1])
    starts = view.part_start[rows]
    ends = starts + view.part_len[rows] - 1
    x = trip - view.n_trips
    bases = view.tp_base[view.tp_offsets[x] : view.tp_offsets[x + 1]]
    cb = int(np.searchsorted(starts, bpos, side="right")) - 1
    ca = int(np.searchsorted(ends, apos, side="left"))
    tt = view.timetable
    legs = []
    for c in range(cb, ca + 1):
        r, g = int(view.part_route[rows[c]]), int(bases[c])
        bp = bpos - int(starts[c]) if c == cb else 0
        ap = apos - int(starts[c]) if c == ca else int(view.part_len[rows[c]]) - 1
        arr, dep = trip_times(tt, g, r)
        soff = int(tt.route_stop_offsets[r])
        legs.append(
            TransitLeg(
                r,
                g,
                bp,
                ap,
                int(tt.route_stops[soff + bp]),
                int(tt.route_stops[soff + ap]),
                int(dep[bp]),
                int(arr[ap]),
                interline=c > cb,
            )
        )
    return legs
