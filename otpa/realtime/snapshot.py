"""Immutable real-time timetable snapshots and their RAPTOR timetables.

A :class:`TimetableSnapshot` holds the real-time state of the trips the feeds
mention (:class:`TripRealtime`: new times, skipped stops, cancellation), per trip
and service day.  It never changes: an update builds a new snapshot and swaps it
in (:class:`~otpa.realtime.store.RealtimeStore`), so a search that took a snapshot
at its start sees one consistent timetable to its end.

:meth:`TimetableSnapshot.raptor_timetable` derives the RAPTOR timetable of a
search date from the scheduled one: only the routes (pattern, service day) whose
trips are updated are rebuilt; the others are copied through unchanged.  A
canceled trip is left out; an updated trip stays in its route when the route
still has no overtaking, otherwise (and always when it skips stops, whose
boarding and alighting it closes) it becomes a route of its own.

Trips a feed adds (GTFS-RT ``ADDED``, :class:`AddedTrip`) are routed as trips of
the snapshot only: added trip ``k`` (in :attr:`TimetableSnapshot.added_trips`
order) is trip index ``model.n_trips + k`` in the snapshot's RAPTOR timetables.  It
rides the route's scheduled pattern when that pattern has the same stops (and
lets riders board and alight everywhere), merged into the pattern's RAPTOR route
when no trip overtakes another; otherwise it rides a snapshot-local pattern
(index ``model.n_patterns + j``, :meth:`TimetableSnapshot.pattern_stops`).
"""

from __future__ import annotations

import datetime as dt
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from otpa.realtime.alerts import AlertSet
from otpa.transit.model import TransitModel
from otpa.transit.raptor.spi import RaptorTimetable
from otpa.transit.raptor_data import raptor_timetable
from otpa.types import BoolArray, Int32Array

__all__ = ["AddedTrip", "TimetableSnapshot", "TripRealtime"]


@dataclass(frozen=True, eq=False)
class TripRealtime:
    """The real-time state of one trip on one service day.

    Attributes
    ----------
    trip
        Model trip index.
    service_day
        Proleptic ordinal of the service date.
    canceled
        The whole trip is canceled.
    arrival_s, departure_s
        Updated times per stop of the trip's pattern, seconds after the start of the
        service day (as the model's scheduled times); empty when canceled.
    arrival_delay, departure_delay
        Updated minus scheduled times (seconds).
    skipped
        Stops the trip does not serve (GTFS-RT ``SKIPPED``).
    """

    trip: int
    service_day: int
    canceled: bool
    arrival_s: Int32Array
    departure_s: Int32Array
    arrival_delay: Int32Array
    departure_delay: Int32Array
    skipped: BoolArray

    @property
    def state(self) -> str:
        """OTP's ``RealTimeState``: ``CANCELED`` or ``UPDATED``."""
        return "CANCELED" if self.canceled else "UPDATED"


@dataclass(frozen=True, eq=False)
class AddedTrip:
    """A valid GTFS-RT ``ADDED`` trip: a trip the schedule does not have.

    Attributes
    ----------
    trip_id
        The new trip's id (raw, as in the feed).
    route
        Model route index (the trip descriptor's ``route_id``).
    service_day
        Proleptic ordinal of the service date (``start_date``).
    stops
        Model stop index per call, in order.
    arrival_s, departure_s
        Times per call, seconds after the start of the service day in the
        network's time zone (as the model's scheduled times).
    stop_sequence
        The calls' ``stop_sequence`` (the update's, else the position from 1).
    """

    trip_id: str
    route: int
    service_day: int
    stops: Int32Array
    arrival_s: Int32Array
    departure_s: Int32Array
    stop_sequence: Int32Array | None = None

    @property
    def state(self) -> str:
        """OTP's ``RealTimeState``: ``ADDED``."""
        return "ADDED"

    @property
    def sequence(self) -> Int32Array:
        """:attr:`stop_sequence`, or the positions from 1 when the feed gave none."""
        if self.stop_sequence is not None:
            return self.stop_sequence
        out: Int32Array = np.arange(1, self.stops.size + 1, dtype=np.int32)
        return out

    def scoped_id(self, model: TransitModel) -> str:
        """The feed-scoped trip id (``feedId:tripId``, as the model's trip ids)."""
        route_id = str(model.routes["route_id"].iat[self.route])
        feed = route_id.split(":", 1)[0] if ":" in route_id else ""
        return f"{feed}:{self.trip_id}" if feed else self.trip_id


@dataclass(frozen=True)
class _AddedLayout:
    """Where the added trips ride: a pattern per trip, the snapshot-local patterns."""

    trip_pattern: tuple[int, ...]
    local_stops: tuple[Int32Array, ...]  # pattern model.n_patterns + j
    local_route: tuple[int, ...]


def _added_layout(model: TransitModel, added: tuple[AddedTrip, ...]) -> _AddedLayout:
    """The pattern of every added trip: the route's own with the same stops (boarding
    and alighting everywhere), else a snapshot-local one (shared by equal stops)."""
    pattern_route = np.asarray(model.pattern_route)
    own: dict[tuple[int, tuple[int, ...]], int] = {}
    for route in sorted({a.route for a in added}):
        for p in np.flatnonzero(pattern_route == route).tolist():
            a, b = int(model.pattern_stop_offsets[p]), int(model.pattern_stop_offsets[p + 1])
            if (model.pattern_pickup[a:b] == 1).any() or (model.pattern_dropoff[a:b] == 1).any():
                continue
            own.setdefault((route, tuple(model.pattern_stops[a:b].tolist())), p)
    trip_pattern: list[int] = []
    local_stops: list[Int32Array] = []
    local_route: list[int] = []
    for trip in added:
        key = (trip.route, tuple(np.asarray(trip.stops).tolist()))
        if key not in own:
            own[key] = model.n_patterns + len(local_stops)
            local_stops.append(trip.stops)
            local_route.append(trip.route)
        trip_pattern.append(own[key])
    return _AddedLayout(tuple(trip_pattern), tuple(local_stops), tuple(local_route))


def _frozen(a: Any, dtype: Any) -> Any:
    out = np.ascontiguousarray(a, dtype=dtype)
    out.flags.writeable = False
    return out


@dataclass(frozen=True, eq=False)
class TimetableSnapshot:
    """One immutable real-time state of a network's timetable.

    Attributes
    ----------
    model
        The transit model the trip indices refer to.
    trips
        Real-time state by ``(trip, service_day)``.
    version
        Increases with every published snapshot of a store (0: nothing applied yet).
    created
        When the snapshot was published (UTC).
    alerts
        The service alerts of every alert source and the alert patches.
    added
        Trips the feeds add, by ``(trip_id, service_day)``.
    """

    model: TransitModel
    trips: Mapping[tuple[int, int], TripRealtime]
    version: int = 0
    alerts: AlertSet = field(default_factory=AlertSet)
    created: dt.datetime = field(default_factory=lambda: dt.datetime.now(dt.UTC))
    added: Mapping[tuple[str, int], AddedTrip] = field(default_factory=dict)
    _cache: OrderedDict[tuple[dt.date, str], RaptorTimetable] = field(
        default_factory=OrderedDict, repr=False
    )
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __len__(self) -> int:
        return len(self.trips) + len(self.added)

    def __iter__(self) -> Iterator[TripRealtime]:
        return iter(self.trips.values())

    def with_alerts(self, alerts: AlertSet, version: int) -> TimetableSnapshot:
        """This timetable with other alerts, as a new version (its RAPTOR cache is shared)."""
        return TimetableSnapshot(
            self.model,
            self.trips,
            version,
            alerts=alerts,
            added=self.added,
            _cache=self._cache,
            _lock=self._lock,
        )

    @cached_property
    def added_trips(self) -> tuple[AddedTrip, ...]:
        """The added trips in trip-index order: trip ``model.n_trips + k`` is the ``k``-th."""
        return tuple(self.added[key] for key in sorted(self.added))

    @cached_property
    def _layout(self) -> _AddedLayout:
        return _added_layout(self.model, self.added_trips)

    def added_trip(self, trip: int) -> AddedTrip | None:
        """The added trip of a trip index of the snapshot's timetables (None: a model trip)."""
        k = trip - self.model.n_trips
        return self.added_trips[k] if 0 <= k < len(self.added) else None

    def added_trip_pattern(self, trip: int) -> int:
        """The pattern an added trip (by trip index) rides: the model's, or snapshot-local."""
        return self._layout.trip_pattern[trip - self.model.n_trips]

    def pattern_stops(self, pattern: int) -> Int32Array:
        """Stops of a model pattern or of a snapshot-local one (see the module docstring)."""
        j = pattern - self.model.n_patterns
        if j < 0:
            return self.model.pattern_stop_indices(pattern)
        return self._layout.local_stops[j]

    def added_trip_ids(self) -> dict[str, int]:
        """Feed-scoped id -> trip index of the added trips (the ids plans show)."""
        n = self.model.n_trips
        return {a.scoped_id(self.model): n + k for k, a in enumerate(self.added_trips)}

    def added_on(self, service_date: dt.date) -> list[tuple[int, AddedTrip]]:
        """``(trip index, trip)`` of the trips added on a service date."""
        day = service_date.toordinal()
        n = self.model.n_trips
        return [(n + k, a) for k, a in enumerate(self.added_trips) if a.service_day == day]

    def trip(self, trip: int, service_date: dt.date) -> TripRealtime | None:
        """The real-time state of a trip on a service date, or None when it runs as planned."""
        return self.trips.get((trip, service_date.toordinal()))

    def raptor_timetable(self, date: dt.date, time_zone: str) -> RaptorTimetable:
        """The RAPTOR timetable of a search date with this snapshot applied (cached).

        Parameters
        ----------
        date
            The search date.
        time_zone
            The network's time zone.

        Returns
        -------
        RaptorTimetable
            Like :func:`otpa.transit.raptor_data.raptor_timetable`, with the updated
            trips' times, without the canceled trips.
        """
        key = (date, time_zone)
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                return hit
        base = raptor_timetable(self.model, date, time_zone)
        day0 = date.toordinal()
        touched = [rt for (_, day), rt in self.trips.items() if -1 <= day - day0 <= 1]
        out = base if not touched else _patched(self.model, base, touched, day0)
        picks = [k for k, a in enumerate(self.added_trips) if -1 <= a.service_day - day0 <= 1]
        if picks:
            out = _with_added(self, out, picks, date, time_zone)
        with self._lock:
            self._cache[key] = out
            while len(self._cache) > 4:
                self._cache.popitem(last=False)
        return out


@dataclass
class _Route:
    pattern: int
    day: int
    gtfs_route: int
    stops: Int32Array
    board: Any
    alight: Any
    trips: Any  # model trip index per trip
    arr: Any  # (n_trips, n_stops)
    dep: Any


def _route(base: RaptorTimetable, r: int) -> _Route:
    a, b = int(base.route_stop_offsets[r]), int(base.route_stop_offsets[r + 1])
    ta, tb = int(base.route_trip_offsets[r]), int(base.route_trip_offsets[r + 1])
    ns, nt = b - a, tb - ta
    t0 = int(base.route_time_offsets[r])
    return _Route(
        pattern=int(base.route_pattern[r]),
        day=int(base.route_day[r]),
        gtfs_route=int(base.route_gtfs_route[r]),
        stops=base.route_stops[a:b],
        board=base.route_board[a:b],
        alight=base.route_alight[a:b],
        trips=base.route_trip_ref[ta:tb],
        arr=base.arrival[t0 : t0 + ns * nt].reshape(nt, ns),
        dep=base.departure[t0 : t0 + ns * nt].reshape(nt, ns),
    )


def _fifo(arr: Any, dep: Any) -> bool:
    if arr.shape[0] < 2:
        return True
    return bool((np.diff(arr, axis=0) >= 0).all() and (np.diff(dep, axis=0) >= 0).all())


def _rebuild(model: TransitModel, route: _Route, updates: list[TripRealtime]) -> list[_Route]:
    """The routes replacing one scheduled route whose trips are updated."""
    by_trip = {rt.trip: rt for rt in updates}
    keep = np.asarray([int(t) not in by_trip for t in route.trips], dtype=bool)
    # the service-day shift of this route: scheduled model times -> timetable times
    pattern = route.pattern
    ptrips = np.asarray(model.pattern_trip_indices(pattern))
    sched_arr, _ = model.pattern_times(pattern)
    first_trip = int(route.trips[0])
    k = int(np.flatnonzero(ptrips == first_trip)[0])
    shift = int(route.arr[0, 0]) - int(sched_arr[k, 0])
    same: list[TripRealtime] = []
    alone: list[TripRealtime] = []
    for rt in updates:
        if rt.canceled:
            continue
        (alone if rt.skipped.any() else same).append(rt)
    trips = np.concatenate([route.trips[keep], np.asarray([rt.trip for rt in same], np.int32)])
    arr = np.concatenate(
        [
            route.arr[keep],
            np.asarray([rt.arrival_s for rt in same]).reshape(-1, route.stops.size) + shift,
        ]
    )
    dep = np.concatenate(
        [
            route.dep[keep],
            np.asarray([rt.departure_s for rt in same]).reshape(-1, route.stops.size) + shift,
        ]
    )
    order = np.argsort(dep[:, 0], kind="stable")
    trips, arr, dep = trips[order], arr[order], dep[order]
    out: list[_Route] = []
    if same and not _fifo(arr, dep):  # overtaking: each updated trip rides alone
        alone = same + alone
        trips, arr, dep = route.trips[keep], route.arr[keep], route.dep[keep]
    if len(trips):
        out.append(
            _Route(
                pattern,
                route.day,
                route.gtfs_route,
                route.stops,
                route.board,
                route.alight,
                trips,
                arr,
                dep,
            )
        )
    for rt in alone:
        board = np.where(rt.skipped, 0, route.board).astype(np.uint8)
        alight = np.where(rt.skipped, 0, route.alight).astype(np.uint8)
        out.append(
            _Route(
                pattern,
                route.day,
                route.gtfs_route,
                route.stops,
                board,
                alight,
                np.asarray([rt.trip], np.int32),
                (np.asarray(rt.arrival_s) + shift).reshape(1, -1),
                (np.asarray(rt.departure_s) + shift).reshape(1, -1),
            )
        )
    return out


def _patched(
    model: TransitModel, base: RaptorTimetable, touched: list[TripRealtime], day0: int
) -> RaptorTimetable:
    """``base`` with the updates of ``touched`` applied (see the module docstring)."""
    route_of = {
        (int(p), int(d)): r
        for r, (p, d) in enumerate(zip(base.route_pattern, base.route_day, strict=True))
    }
    pattern_of = model.trips["pattern_index"].to_numpy()
    per_route: dict[int, list[TripRealtime]] = {}
    for rt in touched:
        r = route_of.get((int(pattern_of[rt.trip]), rt.service_day - day0))
        if r is None:
            continue
        ta, tb = int(base.route_trip_offsets[r]), int(base.route_trip_offsets[r + 1])
        if rt.trip in base.route_trip_ref[ta:tb]:
            per_route.setdefault(r, []).append(rt)
    if not per_route:
        return base
    routes: list[_Route] = []
    for r in range(base.n_routes):
        if r in per_route:
            routes.extend(_rebuild(model, _route(base, r), per_route[r]))
        else:
            routes.append(_route(base, r))
    return _assemble(base, routes)


def _with_added(
    snap: TimetableSnapshot,
    base: RaptorTimetable,
    picks: list[int],
    date: dt.date,
    time_zone: str,
) -> RaptorTimetable:
    """``base`` with the added trips ``picks`` (indices into ``snap.added_trips``)."""
    model, layout = snap.model, snap._layout
    routes = [_route(base, r) for r in range(base.n_routes)]
    first_of: dict[tuple[int, int], int] = {}
    for r, route in enumerate(routes):
        if route.board.all() and route.alight.all():
            first_of.setdefault((route.pattern, route.day), r)
    groups: dict[tuple[int, int], list[tuple[int, Any, Any]]] = {}
    for k in picks:
        trip = snap.added_trips[k]
        start = model.service_day_start(dt.date.fromordinal(trip.service_day), time_zone)
        shift = start - base.epoch
        key = (layout.trip_pattern[k], trip.service_day - date.toordinal())
        groups.setdefault(key, []).append(
            (
                model.n_trips + k,
                np.asarray(trip.arrival_s, np.int64) + shift,
                np.asarray(trip.departure_s, np.int64) + shift,
            )
        )
    extra: list[_Route] = []
    for (pattern, day), items in sorted(groups.items()):
        items.sort(key=lambda x: (int(x[2][0]), x[0]))
        trips = np.asarray([t for t, _, _ in items], np.int32)
        arr = np.stack([a for _, a, _ in items])
        dep = np.stack([d for _, _, d in items])
        gtfs_route = snap.added_trips[int(trips[0]) - model.n_trips].route
        stops = np.asarray(snap.pattern_stops(pattern), np.int32)
        ones = np.ones(stops.size, np.uint8)
        into = first_of.get((pattern, day))
        if into is not None:  # into the pattern's route when no trip overtakes another
            old = routes[into]
            all_trips = np.concatenate([np.asarray(old.trips, np.int32), trips])
            all_arr = np.concatenate([old.arr, arr])
            all_dep = np.concatenate([old.dep, dep])
            order = np.argsort(all_dep[:, 0], kind="stable")
            if _fifo(all_arr[order], all_dep[order]):
                routes[into] = _Route(
                    pattern,
                    day,
                    old.gtfs_route,
                    old.stops,
                    old.board,
                    old.alight,
                    all_trips[order],
                    all_arr[order],
                    all_dep[order],
                )
                continue
        elif _fifo(arr, dep):
            extra.append(_Route(pattern, day, gtfs_route, stops, ones, ones, trips, arr, dep))
            continue
        for i in range(len(trips)):  # overtaking: each added trip rides alone
            extra.append(
                _Route(
                    pattern,
                    day,
                    gtfs_route,
                    stops,
                    ones,
                    ones,
                    trips[i : i + 1],
                    arr[i : i + 1],
                    dep[i : i + 1],
                )
            )
    return _assemble(base, routes + extra)


def _assemble(base: RaptorTimetable, routes: list[_Route]) -> RaptorTimetable:
    n_routes = len(routes)
    r_ns = np.asarray([r.stops.size for r in routes], dtype=np.int64)
    r_nt = np.asarray([len(r.trips) for r in routes], dtype=np.int64)
    sizes = r_ns * r_nt

    def cat(parts: list[Any], dtype: Any) -> Any:
        return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype)

    route_stops = cat([r.stops for r in routes], np.int32)
    route_of_pos = np.repeat(np.arange(n_routes, dtype=np.int32), r_ns)
    pos = (np.arange(int(r_ns.sum())) - np.repeat(np.cumsum(r_ns) - r_ns, r_ns)).astype(np.int32)
    order = np.lexsort((pos, route_of_pos, route_stops))
    counts = np.bincount(route_stops, minlength=base.n_stops)
    return RaptorTimetable(
        n_stops=base.n_stops,
        route_stop_offsets=_frozen(np.r_[0, np.cumsum(r_ns)], np.int64),
        route_stops=_frozen(route_stops, np.int32),
        route_board=_frozen(cat([r.board for r in routes], np.uint8), np.uint8),
        route_alight=_frozen(cat([r.alight for r in routes], np.uint8), np.uint8),
        route_trip_offsets=_frozen(np.r_[0, np.cumsum(r_nt)], np.int64),
        route_trip_ref=_frozen(cat([r.trips for r in routes], np.int32), np.int32),
        route_time_offsets=_frozen(np.cumsum(sizes) - sizes, np.int64),
        arrival=_frozen(cat([np.ravel(r.arr) for r in routes], np.int32), np.int32),
        departure=_frozen(cat([np.ravel(r.dep) for r in routes], np.int32), np.int32),
        route_pattern=_frozen(np.asarray([r.pattern for r in routes]), np.int32),
        route_day=_frozen(np.asarray([r.day for r in routes]), np.int32),
        stop_route_offsets=_frozen(np.r_[0, np.cumsum(counts)], np.int64),
        stop_routes=_frozen(route_of_pos[order], np.int32),
        stop_route_pos=_frozen(pos[order], np.int32),
        epoch=base.epoch,
        route_gtfs_route=_frozen(np.asarray([r.gtfs_route for r in routes]), np.int32),
    )
