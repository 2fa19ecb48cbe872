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

from otpa.index.model import Pattern, Stop, StopTimesInPattern, Trip, TripTime
from otpa.transit.model import TransitModel
from otpa.types import Int32Array, IntArray

__all__ = ["Calls", "ServiceDayClock", "Timetable", "calls_on_day", "candidate_days"]

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
        Epoch seconds of the start of the service day of each call.
    """

    trips: IntArray
    arrival: Int32Array
    departure: Int32Array
    service_day: IntArray


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


def calls_on_day(
    transit: TransitModel,
    trip_service: IntArray,
    pattern: int,
    position: int,
    ordinal: int,
    service_day_s: int,
) -> Calls:
    """Trips of a model pattern calling at ``position`` on service day ``ordinal``.

    Parameters
    ----------
    transit
        The transit model.
    trip_service
        Service index of each model trip (-1: unknown service, never runs).
    pattern, position
        The model pattern and the stop position in it.
    ordinal
        The service day (proleptic ordinal).
    service_day_s
        Epoch seconds of that service day's start (in the pattern's time zone).
    """
    day = ordinal - transit.service_first_day
    trips = np.asarray(transit.pattern_trip_indices(pattern), dtype=np.int64)
    if day < 0 or day >= transit.service_active.shape[1] or trips.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return Calls(empty, empty.astype(np.int32), empty.astype(np.int32), empty)
    n_stops = int(transit.pattern_stop_offsets[pattern + 1] - transit.pattern_stop_offsets[pattern])
    rows = int(transit.pattern_time_offsets[pattern]) + np.arange(trips.size) * n_stops + position
    services = trip_service[trips]
    active = np.zeros(trips.size, dtype=bool)
    known = services >= 0
    active[known] = transit.service_active[services[known], day]
    return Calls(
        trips=trips[active],
        arrival=np.asarray(transit.arrival_s[rows[active]], dtype=np.int32),
        departure=np.asarray(transit.departure_s[rows[active]], dtype=np.int32),
        service_day=np.full(int(active.sum()), service_day_s, dtype=np.int64),
    )


_PICKUP_NONE = 1
_Found = list[tuple[int, str, TripTime]]


class Timetable:
    """Trip times of an index at stops and along trips, as :mod:`otpa.index.model` entities.

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
        self._trip_gtfs = trip_gtfs
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

    def in_window(
        self, stop: int, start_s: int, end_s: int, limit: int, omit_non_pickups: bool
    ) -> list[StopTimesInPattern]:
        """The first ``limit`` calls per pattern at a stop departing in ``[start_s, end_s]``."""
        out = []
        for g, occurrences in self._occurrences(stop, omit_non_pickups):
            found: _Found = []
            for p, pos in occurrences:
                tz = self._pattern_tz(p)
                for day in candidate_days(
                    self._transit, self._clock, tz, start_s, end_s, self._max_time_s
                ):
                    calls = self._calls(p, pos, day, tz)
                    t = calls.service_day + calls.departure
                    keep = np.flatnonzero((t >= start_s) & (t <= end_s))
                    found.extend(self._found(p, pos, calls, keep, t))
            found.sort(key=lambda f: (f[0], f[1]))
            if found and limit:
                out.append(
                    StopTimesInPattern(self._patterns[g], tuple(f[2] for f in found[:limit]))
                )
        return out

    def on_day(self, stop: int, date: dt.date, omit_non_pickups: bool) -> list[StopTimesInPattern]:
        """Every call at a stop on a service day, per pattern (every pattern listed)."""
        out = []
        for g, occurrences in self._occurrences(stop, omit_non_pickups):
            found: _Found = []
            for p, pos in occurrences:
                calls = self._calls(p, pos, date.toordinal(), self._pattern_tz(p))
                keep = np.arange(calls.trips.size)
                found.extend(self._found(p, pos, calls, keep, calls.departure))
            found.sort(key=lambda f: (f[0], f[1]))
            out.append(StopTimesInPattern(self._patterns[g], tuple(f[2] for f in found)))
        return out

    def of_trip(self, model_trip: int, date: dt.date | None) -> list[TripTime]:
        """A model trip's times at each of its stops (``service_day`` 0 without a date)."""
        p = int(self._trip_pattern[model_trip])
        if p < 0:
            return []
        service_day = 0
        if date is not None:
            day = date.toordinal() - self._transit.service_first_day
            service = int(self._trip_service[model_trip])
            active = self._transit.service_active
            if service < 0 or not 0 <= day < active.shape[1] or not active[service, day]:
                return []
            service_day = self._clock.start(date.toordinal(), int(self._trip_tz[model_trip]))
        arr, dep = self._transit.pattern_times(p)
        k = int(self._trip_position[model_trip])
        n = arr.shape[1]
        calls = Calls(
            trips=np.full(n, model_trip, dtype=np.int64),
            arrival=np.asarray(arr[k]),
            departure=np.asarray(dep[k]),
            service_day=np.full(n, service_day, dtype=np.int64),
        )
        return [self._trip_time(p, pos, calls, pos) for pos in range(n)]

    def _pattern_tz(self, pattern: int) -> int:
        """Time zone of a model pattern (its trips share a route, hence an agency)."""
        return int(self._trip_tz[self._transit.pattern_trip_indices(pattern)[0]])

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

    def _calls(self, pattern: int, position: int, ordinal: int, tz: int) -> Calls:
        start = self._clock.start(ordinal, tz)
        return calls_on_day(self._transit, self._trip_service, pattern, position, ordinal, start)

    def _found(
        self,
        pattern: int,
        position: int,
        calls: Calls,
        keep: Iterable[int],
        key: IntArray | Int32Array,
    ) -> _Found:
        out: _Found = []
        for k in keep:
            time = self._trip_time(pattern, position, calls, int(k))
            out.append((int(key[k]), time.trip_id, time))
        return out

    def _trip_time(self, pattern: int, position: int, calls: Calls, k: int) -> TripTime:
        t = self._transit
        offset = int(t.pattern_stop_offsets[pattern])
        n = int(t.pattern_stop_offsets[pattern + 1]) - offset
        trip = self._trips[int(self._trip_gtfs[int(calls.trips[k])])]
        return TripTime(
            stop_id=self._stops[int(t.pattern_stops[offset + position])].id,
            stop_index=position,
            stop_count=n,
            scheduled_arrival=int(calls.arrival[k]),
            scheduled_departure=int(calls.departure[k]),
            service_day=int(calls.service_day[k]),
            trip_id=trip.id,
            block_id=trip.block_id,
            headsign=trip.trip_headsign,
            pickup_type=int(t.pattern_pickup[offset + position]),
            drop_off_type=int(t.pattern_dropoff[offset + position]),
        )
