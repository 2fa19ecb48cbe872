"""Trips calling at a stop on given service days, from the pattern timetables.

A *call* is one trip at one position of a pattern on one service day.  Times in
the timetable are seconds after the start of the service day ("noon minus
12 h" in the agency's time zone); a call's absolute time adds that start.
"""

from __future__ import annotations

import datetime as dt
import math
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from zoneinfo import ZoneInfo

import numpy as np

from otpa.gtfs.flex import FlexData
from otpa.index.model import Pattern, Stop, StopTimesInPattern, Trip, TripTime
from otpa.transit.model import TransitModel
from otpa.types import BoolArray, Int32Array, IntArray

__all__ = ["Calls", "ServiceDayClock", "Timetable", "candidate_days"]

_DAY_S = 86_400


@dataclass(frozen=True)
class Calls:
    """Calls of one pattern position on one service day (parallel arrays).

    Attributes
    ----------
    trips
        Model trip indices, in the pattern's (departure) order.
    arrival, departure
        Seconds after the start of the service day.
    service_day
        Epoch seconds of the start of the service day.
    """

    trips: IntArray
    arrival: Int32Array
    departure: Int32Array
    service_day: int


@dataclass(frozen=True)
class _PatternTrips:
    """A model pattern's trips and timetable, laid out for lookups by service day.

    Attributes
    ----------
    trips
        Model trips in departure order.
    services, known
        Service index of each trip (0 where unknown) and whether it is known.
    arrival, departure
        Views of the timetable, shape ``(n_trips, n_stops)``.
    tz
        Time zone index of the pattern's agency.
    monotone
        Whether departures never decrease from trip to trip at every stop (the
        model splits patterns so that trips do not overtake), so that a time
        window is a contiguous run of trips.
    """

    trips: IntArray
    services: IntArray
    known: BoolArray
    arrival: Int32Array
    departure: Int32Array
    tz: int
    monotone: bool


class ServiceDayClock:
    """Start of service days per date and time zone, cached (thread-safe)."""

    def __init__(self, transit: TransitModel) -> None:
        self._transit = transit
        self._zones = [ZoneInfo(tz) for tz in transit.timezones]
        self._cache: dict[tuple[int, int], int] = {}
        self._lock = threading.Lock()

    def zone(self, tz_index: int) -> ZoneInfo:
        """The time zone of a trip's agency (UTC when unknown)."""
        if 0 <= tz_index < len(self._zones):
            return self._zones[tz_index]
        return ZoneInfo("UTC")

    def start(self, ordinal: int, tz_index: int) -> int:
        """Epoch seconds at which the service day ``ordinal`` starts in zone ``tz_index``."""
        key = (ordinal, tz_index)
        with self._lock:
            cached = self._cache.get(key)
        if cached is None:
            zone = self.zone(tz_index)
            date = dt.date.fromordinal(ordinal)
            cached = self._transit.service_day_start(date, zone.key)
            with self._lock:
                self._cache[key] = cached
        return cached

    def local_ordinal(self, epoch_s: int, tz_index: int) -> int:
        """Proleptic ordinal of the local date of an instant in zone ``tz_index``."""
        return dt.datetime.fromtimestamp(epoch_s, self.zone(tz_index)).date().toordinal()


def candidate_days(
    transit: TransitModel,
    clock: ServiceDayClock,
    tz_index: int,
    start_s: int,
    end_s: int,
    max_time_s: int,
) -> range:
    """Service days (ordinals) whose calls may fall in ``[start_s, end_s]``.

    A service day's calls run from its start to ``max_time_s`` later (beyond
    24 h for trips after midnight), so the days before ``start_s``'s local date
    count too.  Days outside the network's calendar are left out.
    """
    back = max(1, math.ceil(max_time_s / _DAY_S))
    first = clock.local_ordinal(start_s, tz_index) - back
    last = clock.local_ordinal(end_s, tz_index)
    lo = max(first, transit.service_first_day)
    hi = min(last, transit.service_first_day + transit.service_active.shape[1] - 1)
    return range(lo, hi + 1)


_PICKUP_NONE = 1


def _or(value: int | None, default: int) -> int:
    return default if value is None else value


#: A call before it becomes a TripTime: (sort time, trip id, model pattern, position,
#: model trip, arrival, departure, service day start).
_Call = tuple[int, str, int, int, int, int, int, int]


class Timetable:
    """Trip times of an index at stops and along trips, as :mod:`otpa.index.model` entities.

    Calls are gathered as plain tuples, sorted and cut to size first; only the
    calls returned become :class:`~otpa.index.model.TripTime` objects.

    Parameters
    ----------
    transit
        The transit model.
    model_group
        Index pattern of each model pattern.
    trip_gtfs
        GTFS trip (position in ``trips``) of each model trip.
    patterns, trips, stops
        The index's entities, in index order.
    """

    def __init__(
        self,
        transit: TransitModel,
        *,
        model_group: IntArray,
        trip_gtfs: IntArray,
        patterns: Sequence[Pattern],
        trips: Sequence[Trip],
        stops: Sequence[Stop],
    ) -> None:
        self._transit = transit
        self._model_group = model_group
        self._trip_gtfs: list[int] = np.asarray(trip_gtfs).tolist()
        self._patterns, self._trips, self._stops = patterns, trips, stops
        table = transit.trips
        self._trip_service: IntArray = table.service_index.to_numpy(np.int64)
        self._trip_tz: IntArray = table.tz_index.to_numpy(np.int64)
        self._trip_pattern: IntArray = table.pattern_index.to_numpy(np.int64)
        counts = np.diff(transit.pattern_trip_offsets)
        self._trip_position = np.zeros(transit.n_trips, dtype=np.int64)
        self._trip_position[np.asarray(transit.pattern_trips, dtype=np.int64)] = np.arange(
            len(transit.pattern_trips)
        ) - np.repeat(transit.pattern_trip_offsets[:-1], counts)
        self._clock = ServiceDayClock(transit)
        self._max_time_s = int(transit.departure_s.max()) if transit.departure_s.size else 0
        self._n_days = int(transit.service_active.shape[1])
        self._layouts: dict[int, _PatternTrips] = {}  # filled lazily; values never change

    def in_window(
        self, stop: int, start_s: int, end_s: int, limit: int, omit_non_pickups: bool
    ) -> list[StopTimesInPattern]:
        """The first ``limit`` calls per pattern at a stop departing in ``[start_s, end_s]``."""
        out = []
        days: dict[int, range] = {}  # per time zone
        for g, occurrences in self._occurrences(stop, omit_non_pickups):
            found: list[_Call] = []
            for p, pos in occurrences:
                tz = self._layout(p).tz
                if tz not in days:
                    days[tz] = candidate_days(
                        self._transit, self._clock, tz, start_s, end_s, self._max_time_s
                    )
                for day in days[tz]:
                    if not self._may_reach(p, pos, day, start_s, end_s):
                        continue
                    calls = self._calls(p, pos, day)
                    keep = self._window(p, calls, start_s, end_s, limit)
                    found.extend(self._gather(p, pos, calls, keep))
            found.sort(key=lambda c: (c[0], c[1]))
            if found and limit:
                out.append(StopTimesInPattern(self._patterns[g], self._made(found[:limit])))
        return out

    def on_day(self, stop: int, date: dt.date, omit_non_pickups: bool) -> list[StopTimesInPattern]:
        """Every call at a stop on a service day, per pattern (every pattern listed)."""
        out = []
        for g, occurrences in self._occurrences(stop, omit_non_pickups):
            found: list[_Call] = []
            for p, pos in occurrences:
                found.extend(self._gather(p, pos, self._calls(p, pos, date.toordinal()), None))
            found.sort(key=lambda c: (c[6], c[1]))
            out.append(StopTimesInPattern(self._patterns[g], self._made(found)))
        return out

    def of_trip(self, model_trip: int, date: dt.date | None) -> list[TripTime]:
        """A model trip's times at each of its stops (``service_day`` 0 without a date)."""
        p = int(self._trip_pattern[model_trip])
        service_day = 0
        if date is not None:
            day = date.toordinal() - self._transit.service_first_day
            service = int(self._trip_service[model_trip])
            active = self._transit.service_active
            if service < 0 or not 0 <= day < self._n_days or not active[service, day]:
                return []
            service_day = self._clock.start(date.toordinal(), int(self._trip_tz[model_trip]))
        if p < 0:  # a GTFS-Flex trip (or none): its rows
            return self._flex_times(model_trip, service_day)
        layout = self._layout(p)
        k = int(self._trip_position[model_trip])
        trip_id = self._trips[self._trip_gtfs[model_trip]].id
        calls = [
            (0, trip_id, p, pos, model_trip, a, d, service_day)
            for pos, (a, d) in enumerate(
                zip(layout.arrival[k].tolist(), layout.departure[k].tolist(), strict=True)
            )
        ]
        return list(self._made(calls))

    def _flex_times(self, model_trip: int, service_day: int) -> list[TripTime]:
        """A flex trip's rows as trip times (windows for zones), [] for other trips."""
        row = self._transit.trips.iloc[model_trip]
        feed = str(self._transit.feeds["feed_id"].iloc[int(row["feed"])])
        raw = str(row["raw_id"])
        doc = self._transit.flex.get(feed)
        if doc is None or raw not in (doc.get("trips") or {}):
            return []
        data = FlexData.from_json({"zones": doc.get("zones"), "trips": {raw: doc["trips"][raw]}})
        trip = self._trips[self._trip_gtfs[model_trip]]
        rows = data.trips[raw]
        # an empty continuous_pickup / continuous_drop_off is the route's (1: none)
        route_raw = str(self._transit.routes["raw_id"].iloc[int(row["route_index"])])
        route = (doc.get("routes") or {}).get(route_raw) or {}
        pickup = int(route.get("continuous_pickup", 1))
        drop_off = int(route.get("continuous_drop_off", 1))
        out = []
        for k, r in enumerate(rows):
            place = r.stop_id or r.location_id or r.group_id
            zone = data.zones.get(r.location_id) if r.location_id else None
            area = None
            if zone is not None:
                area = tuple(
                    (float(y), float(x))
                    for poly in zone["polygons"]
                    for ring in poly
                    for x, y in ring
                )
            out.append(
                TripTime(
                    stop_id=f"{feed}:{place}",
                    stop_index=k,
                    stop_count=len(rows),
                    scheduled_arrival=r.start_s,
                    scheduled_departure=r.end_s,
                    service_day=service_day,
                    trip_id=trip.id,
                    block_id=trip.block_id,
                    headsign=r.stop_headsign or trip.trip_headsign,
                    pickup_type=r.pickup_type,
                    drop_off_type=r.drop_off_type,
                    timepoint=r.timed,
                    continuous_pickup=_or(r.continuous_pickup, pickup),
                    continuous_drop_off=_or(r.continuous_drop_off, drop_off),
                    service_area=area,
                )
            )
        return out

    def departing(self, patterns: Iterable[int], date: dt.date, departure_s: int) -> list[int]:
        """Model trips of some model patterns running on a service day that leave their first
        stop ``departure_s`` seconds after the day's start, pattern by pattern."""
        out: list[int] = []
        for p in patterns:
            calls = self._calls(p, 0, date.toordinal())
            out.extend(calls.trips[calls.departure == departure_s].tolist())
        return out

    def _layout(self, pattern: int) -> _PatternTrips:
        layout = self._layouts.get(pattern)
        if layout is None:
            t = self._transit
            trips = np.asarray(t.pattern_trip_indices(pattern), dtype=np.int64)
            services = self._trip_service[trips]
            arrival, departure = t.pattern_times(pattern)
            layout = _PatternTrips(
                trips=trips,
                services=np.maximum(services, 0),
                known=services >= 0,
                arrival=arrival,
                departure=departure,
                tz=int(self._trip_tz[trips[0]]) if trips.size else -1,
                monotone=bool(np.all(np.diff(departure, axis=0) >= 0)),
            )
            layout = self._layouts.setdefault(pattern, layout)
        return layout

    def _occurrences(
        self, stop_row: int, omit_non_pickups: bool
    ) -> list[tuple[int, list[tuple[int, int]]]]:
        """``(index pattern, [(model pattern, position)...])`` calling at a stop."""
        t = self._transit
        a, b = int(t.stop_pattern_offsets[stop_row]), int(t.stop_pattern_offsets[stop_row + 1])
        by_group: dict[int, list[tuple[int, int]]] = {}
        for p, pos in zip(
            t.stop_patterns[a:b].tolist(), t.stop_pattern_pos[a:b].tolist(), strict=True
        ):
            g = int(self._model_group[p])
            by_group.setdefault(g, [])
            pickup = int(t.pattern_pickup[int(t.pattern_stop_offsets[p]) + pos])
            if not (omit_non_pickups and pickup == _PICKUP_NONE):
                by_group[g].append((p, pos))
        return sorted(by_group.items())

    def _calls(self, pattern: int, position: int, ordinal: int) -> Calls:
        """Trips of a model pattern calling at ``position`` on service day ``ordinal``."""
        layout = self._layout(pattern)
        day = ordinal - self._transit.service_first_day
        if not 0 <= day < self._n_days or layout.trips.size == 0:
            empty = np.zeros(0, dtype=np.int64)
            return Calls(empty, empty.astype(np.int32), empty.astype(np.int32), 0)
        active = self._transit.service_active[layout.services, day] & layout.known
        rows = np.flatnonzero(active)
        return Calls(
            trips=layout.trips[rows],
            arrival=layout.arrival[rows, position],
            departure=layout.departure[rows, position],
            service_day=self._clock.start(ordinal, layout.tz),
        )

    def _may_reach(
        self, pattern: int, position: int, ordinal: int, start_s: int, end_s: int
    ) -> bool:
        """False when no trip of the pattern can depart at ``position`` within the window on
        that service day (checked on the first and last trip when departures are ordered)."""
        layout = self._layout(pattern)
        if not layout.monotone:
            return True
        if layout.trips.size == 0:
            return False
        day_start = self._clock.start(ordinal, layout.tz)
        first = day_start + int(layout.departure[0, position])
        last = day_start + int(layout.departure[-1, position])
        return last >= start_s and first <= end_s

    def _window(
        self, pattern: int, calls: Calls, start_s: int, end_s: int, limit: int
    ) -> BoolArray | slice:
        """The calls departing in ``[start_s, end_s]``: with ordered departures, only the
        first ``limit`` of them (and any tied with the last), else all, as a mask."""
        dep = calls.departure
        lo, hi = start_s - calls.service_day, end_s - calls.service_day
        if not self._layout(pattern).monotone:
            return (dep >= lo) & (dep <= hi)
        a = int(np.searchsorted(dep, lo, side="left"))
        b = int(np.searchsorted(dep, hi, side="right"))
        if b - a > limit:  # ties with the last one kept still compete on trip id
            b = a if limit == 0 else int(np.searchsorted(dep, dep[a + limit - 1], side="right"))
        return slice(a, b)

    def _gather(
        self, pattern: int, position: int, calls: Calls, keep: BoolArray | slice | None
    ) -> list[_Call]:
        """Calls as sortable tuples (sort time: absolute departure), those in ``keep``."""
        trips, arr, dep = calls.trips, calls.arrival, calls.departure
        if keep is not None:
            trips, arr, dep = trips[keep], arr[keep], dep[keep]
        day, gtfs, entities = calls.service_day, self._trip_gtfs, self._trips
        return [
            (day + d, entities[gtfs[m]].id, pattern, position, m, a, d, day)
            for m, a, d in zip(trips.tolist(), arr.tolist(), dep.tolist(), strict=True)
        ]

    def _made(self, calls: Sequence[_Call]) -> tuple[TripTime, ...]:
        """TripTimes of gathered calls, in the given order."""
        t, stops, gtfs, entities = self._transit, self._stops, self._trip_gtfs, self._trips
        slots: dict[tuple[int, int], tuple[str, int, int, int]] = {}
        out = []
        for _, _, p, pos, m, arr, dep, day in calls:
            slot = slots.get((p, pos))
            if slot is None:
                offset = int(t.pattern_stop_offsets[p])
                slot = slots[(p, pos)] = (
                    stops[int(t.pattern_stops[offset + pos])].id,
                    int(t.pattern_stop_offsets[p + 1]) - offset,
                    int(t.pattern_pickup[offset + pos]),
                    int(t.pattern_dropoff[offset + pos]),
                )
            trip = entities[gtfs[m]]
            out.append(
                TripTime(
                    stop_id=slot[0],
                    stop_index=pos,
                    stop_count=slot[1],
                    scheduled_arrival=arr,
                    scheduled_departure=dep,
                    service_day=day,
                    trip_id=trip.id,
                    block_id=trip.block_id,
                    headsign=trip.trip_headsign,
                    pickup_type=slot[2],
                    drop_off_type=slot[3],
                )
            )
        return tuple(out)
