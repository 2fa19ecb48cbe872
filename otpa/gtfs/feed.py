"""The in-memory GTFS feed: typed pandas tables plus the validation report."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from otpa.errors import UnknownIdError
from otpa.gtfs.calendar import ServiceCalendar
from otpa.gtfs.flex import FlexData
from otpa.gtfs.ids import scoped_id
from otpa.gtfs.report import ValidationReport

__all__ = ["GtfsFeed"]


@dataclass(frozen=True, eq=False)
class GtfsFeed:
    """A GTFS feed read by :func:`otpa.gtfs.read_gtfs`.

    Ids are the raw GTFS ids; :meth:`scoped` gives the network-wide ``"{feed_id}:{id}"``.
    Every table is a pandas frame with fixed columns and dtypes (see ``otpa/gtfs/README.md``),
    empty when the file is absent.  ``trips`` is sorted by ``trip_id``; ``stop_times`` by
    (``trip_id``, ``stop_sequence``), with ``trip_index`` / ``stop_index`` giving the row
    position of the trip in ``trips`` and of the stop in ``stops``.

    Attributes
    ----------
    feed_id
        Feed id (argument, ``feed_info.feed_id`` or the file name).
    path
        The zip file or folder read.
    report
        Problems found while reading.
    flex_stop_times
        Rows of GTFS-Flex trips (trips with a row served by a zone or a time window); such
        trips are in ``trips`` but have no rows in ``stop_times``.
    locations
        ``locations.geojson`` parsed, or ``None``.
    booking_rules, location_groups
        Those GTFS-Flex files as text columns, or ``None``.
    flex
        The GTFS-Flex data validated and normalised (:func:`otpa.gtfs.flex.read_flex`):
        zones, location groups, booking rules and the usable flex trips.
    """

    feed_id: str
    path: str
    report: ValidationReport
    agency: pd.DataFrame
    stops: pd.DataFrame
    routes: pd.DataFrame
    trips: pd.DataFrame
    stop_times: pd.DataFrame
    calendar: pd.DataFrame
    calendar_dates: pd.DataFrame
    frequencies: pd.DataFrame
    transfers: pd.DataFrame
    shapes: pd.DataFrame
    fare_attributes: pd.DataFrame
    fare_rules: pd.DataFrame
    feed_info: pd.DataFrame
    flex_stop_times: pd.DataFrame
    locations: dict[str, Any] | None = None
    booking_rules: pd.DataFrame | None = None
    location_groups: pd.DataFrame | None = None
    flex: FlexData = field(default_factory=FlexData)
    _cache: dict[str, Any] = field(default_factory=dict, init=False, repr=False)

    def __repr__(self) -> str:
        return (
            f"GtfsFeed({self.feed_id!r}, agencies={len(self.agency)}, stops={len(self.stops)}, "
            f"routes={len(self.routes)}, trips={len(self.trips)}, "
            f"stop_times={len(self.stop_times)}, issues={len(self.report)})"
        )

    def scoped(self, entity_id: str) -> str:
        """The network-wide id ``"{feed_id}:{entity_id}"``."""
        return scoped_id(self.feed_id, entity_id)

    def service_calendar(self) -> ServiceCalendar:
        """Services per date, resolved from calendar.txt and calendar_dates.txt (cached)."""
        cal = self._cache.get("service_calendar")
        if cal is None:
            cal = ServiceCalendar.from_tables(self.calendar, self.calendar_dates)
            self._cache["service_calendar"] = cal
        return cal  # type: ignore[no-any-return]

    def expand_frequencies(self) -> GtfsFeed:
        """A new feed where frequency-based trips are replaced by one trip per departure.

        See :func:`otpa.gtfs.frequencies.expand_frequencies`.
        """
        from otpa.gtfs.frequencies import expand_frequencies

        return expand_frequencies(self)

    @property
    def default_timezone(self) -> str:
        """Timezone of the first agency (the feed's timezone for times of day)."""
        return str(self.agency["agency_timezone"].iloc[0])

    def agency_timezone(self, agency_id: str | None = None) -> str:
        """Timezone of agency ``agency_id`` (the first agency when ``None``).

        Raises
        ------
        UnknownIdError
            If no agency has this id.
        """
        if agency_id is None:
            return self.default_timezone
        match = self.agency.loc[self.agency["agency_id"] == agency_id, "agency_timezone"]
        if match.empty:
            msg = f"unknown agency_id {agency_id!r} in feed {self.feed_id!r}"
            raise UnknownIdError(msg)
        return str(match.iloc[0])

    def stations(self) -> dict[str, list[str]]:
        """Each station (location_type 1) -> ids of its child stops / platforms
        (location_type 0), in stops.txt order; stations without children map to ``[]``."""
        stops = self.stops
        stations = stops.loc[stops["location_type"] == 1, "stop_id"]
        result: dict[str, list[str]] = {str(s): [] for s in stations}
        children = stops.loc[
            (stops["location_type"] == 0) & stops["parent_station"].isin(stations),
            ["stop_id", "parent_station"],
        ]
        for parent, group in children.groupby("parent_station", sort=False):
            result[str(parent)] = [str(s) for s in group["stop_id"]]
        return result
