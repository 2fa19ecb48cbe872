"""The transit side of a transport network, as flat arrays ready for RAPTOR.

Entities (feeds, agencies, stops, routes, trips) are pandas tables with
feed-scoped ids (``"feedId:id"``).  The timetable is organised by *trip
pattern*: trips of one route that call at the same stops with the same
pick-up/drop-off rules and never overtake each other.  For pattern ``p``:

* its stops are ``pattern_stops[pattern_stop_offsets[p]:pattern_stop_offsets[p+1]]``;
* its trips, sorted by departure, are
  ``pattern_trips[pattern_trip_offsets[p]:pattern_trip_offsets[p+1]]``;
* the time of trip ``k`` (0-based within the pattern) at stop position ``j`` is
  ``arrival_s[pattern_time_offsets[p] + k * n_stops + j]`` (and ``departure_s``),
  in seconds after the start of the trip's service day in its agency's time
  zone (may exceed 24 h).

Service days: ``service_active[s, d]`` tells whether service ``s`` runs on day
``service_first_day + d``.  A query converts service-day times to absolute
times per time zone (see :meth:`TransitModel.service_day_start`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np
import numpy.typing as npt
import pandas as pd

from otpa.types import BoolArray, Int32Array, IntArray, UInt8Array
from otpa.util.tables import frame_from_members, frame_to_members

__all__ = ["TransitModel"]

_TABLES = (
    "feeds",
    "agencies",
    "stops",
    "routes",
    "trips",
    "transfer_rules",
    "fare_attributes",
    "fare_rules",
)


@dataclass(frozen=True, eq=False)
class TransitModel:
    """Stops, routes, trips and timetables of every feed in a network.

    See the module docstring for the layout of the pattern arrays.
    """

    feeds: pd.DataFrame
    agencies: pd.DataFrame
    stops: pd.DataFrame
    routes: pd.DataFrame
    trips: pd.DataFrame
    transfer_rules: pd.DataFrame
    fare_attributes: pd.DataFrame
    fare_rules: pd.DataFrame
    timezones: list[str]
    service_ids: list[str]
    service_first_day: int  # proleptic ordinal of the first calendar day
    service_active: BoolArray  # (n_services, n_days)
    pattern_route: Int32Array
    pattern_stop_offsets: IntArray
    pattern_stops: Int32Array
    pattern_pickup: UInt8Array  # GTFS pickup_type per pattern stop
    pattern_dropoff: UInt8Array  # GTFS drop_off_type per pattern stop
    pattern_trip_offsets: IntArray
    pattern_trips: Int32Array
    pattern_time_offsets: IntArray
    arrival_s: Int32Array
    departure_s: Int32Array
    stop_sequence: Int32Array  # GTFS stop_sequence aligned with arrival_s
    stop_pattern_offsets: IntArray  # CSR: patterns calling at each stop
    stop_patterns: Int32Array
    stop_pattern_pos: Int32Array  # position of the stop within that pattern
    shape_ids: list[str]
    shape_offsets: IntArray
    shape_lat: npt.NDArray[np.float64]
    shape_lon: npt.NDArray[np.float64]
    shape_dist_m: npt.NDArray[np.float64]  # shape_dist_traveled as given (NaN if absent)
    #: GTFS-Flex zones of every feed (``locations.geojson``) as one GeoJSON FeatureCollection
    #: whose feature ids are feed-scoped (``feedId:locationId``); saved as a JSON member.
    flex_locations: dict[str, Any] = field(default_factory=dict)
    #: GTFS-Flex services per feed id: :meth:`otpa.gtfs.flex.FlexData.to_json` with raw ids,
    #: plus ``"routes"`` (route id -> continuous pickup/drop-off, eligibility_restricted);
    #: saved as a JSON member.
    flex: dict[str, Any] = field(default_factory=dict)

    # -- sizes ------------------------------------------------------------------------
    @property
    def n_stops(self) -> int:
        """Number of stops (all location types)."""
        return len(self.stops)

    @property
    def n_patterns(self) -> int:
        """Number of trip patterns."""
        return int(self.pattern_route.shape[0])

    @property
    def n_trips(self) -> int:
        """Number of trips after frequency expansion."""
        return len(self.trips)

    @property
    def is_empty(self) -> bool:
        """True when the network has no transit."""
        return self.n_trips == 0

    # -- service days -----------------------------------------------------------------
    @property
    def service_dates(self) -> tuple[dt.date, dt.date] | None:
        """First and last date on which any service runs, or None."""
        if self.service_active.size == 0:
            return None
        days = np.flatnonzero(self.service_active.any(axis=0))
        if len(days) == 0:
            return None
        first = dt.date.fromordinal(self.service_first_day + int(days[0]))
        last = dt.date.fromordinal(self.service_first_day + int(days[-1]))
        return first, last

    def services_on(self, date: dt.date) -> BoolArray:
        """Boolean mask over services running on ``date``."""
        day = date.toordinal() - self.service_first_day
        if day < 0 or day >= self.service_active.shape[1]:
            return np.zeros(len(self.service_ids), dtype=bool)
        return np.asarray(self.service_active[:, day])

    def service_day_start(self, date: dt.date, timezone: str) -> int:
        """Epoch seconds of the start of ``date``'s service day in ``timezone``.

        GTFS defines times relative to "noon minus 12 hours", which differs from
        midnight on days when daylight-saving time changes.
        """
        noon = dt.datetime(date.year, date.month, date.day, 12, tzinfo=ZoneInfo(timezone))
        return int(noon.timestamp()) - 12 * 3600

    # -- pattern accessors ------------------------------------------------------------
    def pattern_stop_indices(self, pattern: int) -> Int32Array:
        """Stop indices of a pattern, in calling order."""
        a, b = self.pattern_stop_offsets[pattern], self.pattern_stop_offsets[pattern + 1]
        return self.pattern_stops[a:b]

    def pattern_trip_indices(self, pattern: int) -> Int32Array:
        """Trip indices of a pattern, sorted by departure."""
        a, b = self.pattern_trip_offsets[pattern], self.pattern_trip_offsets[pattern + 1]
        return self.pattern_trips[a:b]

    def pattern_times(self, pattern: int) -> tuple[Int32Array, Int32Array]:
        """``(arrival, departure)`` arrays of shape ``(n_trips, n_stops)`` for a pattern."""
        n_stops = int(self.pattern_stop_offsets[pattern + 1] - self.pattern_stop_offsets[pattern])
        n_trips = int(self.pattern_trip_offsets[pattern + 1] - self.pattern_trip_offsets[pattern])
        a = int(self.pattern_time_offsets[pattern])
        b = a + n_stops * n_trips
        return (
            self.arrival_s[a:b].reshape(n_trips, n_stops),
            self.departure_s[a:b].reshape(n_trips, n_stops),
        )

    # -- persistence ------------------------------------------------------------------
    def to_members(self) -> tuple[dict[str, npt.NDArray[Any]], dict[str, Any]]:
        """Arrays and JSON documents for the saved-graph container."""
        arrays: dict[str, npt.NDArray[Any]] = {}
        docs: dict[str, Any] = {
            "transit.lists": {
                "timezones": self.timezones,
                "service_ids": self.service_ids,
                "shape_ids": self.shape_ids,
                "service_first_day": self.service_first_day,
            }
        }
        if self.flex_locations:
            docs["transit.flex_locations"] = self.flex_locations
        if self.flex:
            docs["transit.flex"] = self.flex
        for name in _TABLES:
            a, d = frame_to_members(f"transit.{name}", getattr(self, name))
            arrays.update(a)
            docs.update(d)
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, np.ndarray):
                arrays[f"transit.{f.name}"] = value
        return arrays, docs

    @classmethod
    def from_members(
        cls, arrays: Mapping[str, npt.NDArray[Any]], documents: Mapping[str, Any]
    ) -> TransitModel:
        """Rebuild from :meth:`to_members` output (arrays are used without copying)."""
        lists = documents["transit.lists"]
        kwargs: dict[str, Any] = {
            "timezones": list(lists["timezones"]),
            "service_ids": list(lists["service_ids"]),
            "shape_ids": list(lists["shape_ids"]),
            "service_first_day": int(lists["service_first_day"]),
        }
        flex = documents.get("transit.flex_locations", {})  # absent from older graphs
        kwargs["flex_locations"] = flex if isinstance(flex, dict) else {}
        services = documents.get("transit.flex", {})  # absent from older graphs
        kwargs["flex"] = services if isinstance(services, dict) else {}
        for name in _TABLES:
            kwargs[name] = frame_from_members(f"transit.{name}", arrays, documents)
        for f in fields(cls):
            if f.name not in kwargs:
                kwargs[f.name] = arrays[f"transit.{f.name}"]
        return cls(**kwargs)
