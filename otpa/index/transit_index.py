"""``TransitIndex``: look up the transit entities of a network by id, place and time.

Method names follow one convention: ``get_*`` returns one entity and raises
:class:`otpa.errors.UnknownIdError` for an unknown id, ``find_*`` returns a list
(possibly empty) and ``list_*`` returns every entity of a kind.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, ClassVar, Literal

import numpy as np

from otpa.errors import InvalidArgumentError, UnknownIdError
from otpa.index import _entities, _geometry, _hash
from otpa.index._clusters import build_clusters
from otpa.index._flex import flex_areas_from_geojson
from otpa.index._patterns import PatternGroup, group_patterns
from otpa.index._spatial import StopSpatialIndex
from otpa.index._stoptimes import Timetable
from otpa.index.model import (
    Agency,
    EncodedPolyline,
    FeedInfo,
    FlexArea,
    Pattern,
    Route,
    ServiceCalendar,
    Stop,
    StopAtDistance,
    StopCluster,
    StopTimesInPattern,
    Transfer,
    Trip,
    TripTime,
)
from otpa.types import IntArray
from otpa.util.cache import OwnerCache

if TYPE_CHECKING:
    from otpa.network import TransportNetwork

__all__ = ["TransitIndex"]

_Kind = Literal[
    "feed", "agency", "route", "pattern", "trip", "stop", "cluster", "flex area", "service"
]


def _lookup(table: dict[str, int], kind: _Kind, entity_id: str) -> int:
    row = table.get(entity_id)
    if row is None:
        msg = f"Unknown {kind} id {entity_id!r}."
        raise UnknownIdError(msg)
    return row


def _rows(ids: Iterable[str]) -> dict[str, int]:
    return _entities.row_lookup(list(ids))


class TransitIndex:
    """Feeds, agencies, routes, patterns, trips, stops and timetables of a network, indexed.

    Build it with :meth:`of`, which keeps one index per network.  Entities are
    the frozen dataclasses of :mod:`otpa.index.model`; ids are feed-scoped
    (``"feedId:id"``).  The index is read-only and safe to share between threads.

    Parameters
    ----------
    network
        The network to index (the index keeps its transit model, not the network).

    Examples
    --------
    >>> index = TransitIndex.of(network)  # doctest: +SKIP
    >>> five_points = "atlanta-blue-green-line:797"
    >>> [r.short_name for r in index.find_routes(stop_ids=[five_points])]  # doctest: +SKIP
    ['BLUE', 'GREEN']
    """

    _cache: ClassVar[OwnerCache[str, TransitIndex]] = OwnerCache()

    def __init__(self, network: TransportNetwork) -> None:
        transit = _entities.complete_tables(network.transit)
        self._transit = transit
        self._transfer_offsets = np.asarray(network.transfer_offsets, dtype=np.int64)
        self._transfer_to = np.asarray(network.transfer_to, dtype=np.int64)
        self._transfer_distance = np.asarray(network.transfer_distance_m, dtype=np.float64)
        self._lock = threading.Lock()
        self._spatial: StopSpatialIndex | None = None
        self._flex: list[FlexArea] | None = None
        self._flex_row: dict[str, int] = {}
        self._calendars: list[ServiceCalendar] | None = None

        self._feeds = _entities.feeds_of(transit)
        self._agencies = _entities.agencies_of(transit)
        self._routes = _entities.routes_of(transit, self._agencies)
        self._clusters, stop_cluster = build_clusters(transit.stops)
        self._stops = _entities.stops_of(transit, stop_cluster)
        gtfs_ids, self._trip_gtfs = _entities.gtfs_trip_keys(transit)
        self._groups, gtfs_pattern = group_patterns(transit, self._trip_gtfs, len(gtfs_ids))
        _, first = np.unique(self._trip_gtfs, return_index=True)
        self._representative: IntArray = first.astype(np.int64)
        pattern_ids = [None if p < 0 else self._groups[p].id for p in gtfs_pattern.tolist()]
        self._trips = _entities.trips_of(
            transit, gtfs_ids, self._representative, pattern_ids, self._routes
        )
        self._patterns = [self._pattern_of(g) for g in self._groups]
        self._model_group = np.full(transit.n_patterns, -1, dtype=np.int64)
        for i, g in enumerate(self._groups):
            self._model_group[list(g.model_patterns)] = i

        self._feed_row = _rows(f.id for f in self._feeds)
        self._agency_row = _rows(a.id for a in self._agencies)
        self._route_row = _rows(r.id for r in self._routes)
        self._stop_row = _rows(s.id for s in self._stops)
        self._trip_row = _rows(t.id for t in self._trips)
        model_ids = transit.trips.trip_id.astype(str).to_list()
        for t, g in enumerate(self._trip_gtfs.tolist()):  # frequency departures: aliases
            self._trip_row.setdefault(model_ids[t], g)
        self._pattern_row = _rows(p.id for p in self._patterns)
        self._cluster_row = _rows(c.id for c in self._clusters)
        self._shape_row = _rows(transit.shape_ids)
        self._raw_stop_ids = transit.stops.raw_id.astype(str).to_list()
        self._service_row = _rows(transit.service_ids)
        self._route_groups: list[list[int]] = [[] for _ in self._routes]
        for i, group in enumerate(self._groups):
            self._route_groups[group.route].append(i)
        self._route_trips: list[list[int]] = [[] for _ in self._routes]
        for i, trip in enumerate(self._trips):
            route_row = self._route_row.get(trip.route_id)
            if route_row is not None:
                self._route_trips[route_row].append(i)

        self._timetable = Timetable(
            transit,
            model_group=self._model_group,
            trip_gtfs=self._trip_gtfs,
            patterns=self._patterns,
            trips=self._trips,
            stops=self._stops,
        )

    @classmethod
    def of(cls, network: TransportNetwork) -> TransitIndex:
        """The index of ``network``, built on first use and kept as long as the network lives."""
        # built outside the cache's lock: other networks stay available meanwhile
        return cls._cache.get_or_build(network, "index", lambda: cls(network))

    # -- construction helpers ---------------------------------------------------------------
    def _pattern_of(self, g: PatternGroup) -> Pattern:
        transit = self._transit
        p = g.model_patterns[0]
        a, b = int(transit.pattern_stop_offsets[p]), int(transit.pattern_stop_offsets[p + 1])
        trips = [self._trips[t] for t in g.gtfs_trips]
        return Pattern(
            id=g.id,
            route_id=self._routes[g.route].id,
            direction_id=None if g.direction < 0 else g.direction,
            desc=g.desc,
            headsign=trips[0].trip_headsign if trips else None,
            stop_ids=tuple(self._stops[s].id for s in g.stops),
            trip_ids=tuple(t.id for t in trips),
            pickup_types=tuple(int(v) for v in transit.pattern_pickup[a:b]),
            drop_off_types=tuple(int(v) for v in transit.pattern_dropoff[a:b]),
        )

    # -- feeds and agencies -------------------------------------------------------------------
    def list_feeds(self) -> list[FeedInfo]:
        """Every feed, in build order."""
        return list(self._feeds)

    def get_feed(self, feed_id: str) -> FeedInfo:
        """One feed by id."""
        return self._feeds[_lookup(self._feed_row, "feed", feed_id)]

    def list_agencies(self) -> list[Agency]:
        """Every agency."""
        return list(self._agencies)

    def get_agency(self, agency_id: str) -> Agency:
        """One agency by feed-scoped id."""
        return self._agencies[_lookup(self._agency_row, "agency", agency_id)]

    def find_agencies(self, *, feed_id: str) -> list[Agency]:
        """The agencies of a feed (raises for an unknown feed)."""
        self.get_feed(feed_id)
        return [a for a in self._agencies if a.feed_id == feed_id]

    # -- routes -------------------------------------------------------------------------------
    def list_routes(self) -> list[Route]:
        """Every route, in feed order."""
        return list(self._routes)

    def get_route(self, route_id: str) -> Route:
        """One route by id."""
        return self._routes[_lookup(self._route_row, "route", route_id)]

    def find_routes(
        self, *, agency_id: str | None = None, stop_ids: Sequence[str] = ()
    ) -> list[Route]:
        """Routes of an agency and/or serving *every* one of some stops.

        Raises
        ------
        otpa.errors.UnknownIdError
            If the agency or one of the stops is unknown.
        """
        keep = set(range(len(self._routes)))
        if agency_id is not None:
            aid = self.get_agency(agency_id).id
            keep &= {i for i, r in enumerate(self._routes) if r.agency_id == aid}
        for stop_id in stop_ids:
            row = _lookup(self._stop_row, "stop", stop_id)
            keep &= {self._groups[g].route for g in self._groups_at(row)}
        return [self._routes[i] for i in sorted(keep)]

    # -- patterns -----------------------------------------------------------------------------
    def list_patterns(self) -> list[Pattern]:
        """Every pattern, by route then code."""
        return list(self._patterns)

    def get_pattern(self, pattern_id: str) -> Pattern:
        """One pattern by code (``feedId:routeId:direction:NN``)."""
        return self._patterns[_lookup(self._pattern_row, "pattern", pattern_id)]

    def find_patterns(
        self, *, route_id: str | None = None, stop_id: str | None = None
    ) -> list[Pattern]:
        """The patterns of a route, or those calling at a stop."""
        rows: Sequence[int] = range(len(self._patterns))
        if route_id is not None:
            rows = self._route_groups[_lookup(self._route_row, "route", route_id)]
        if stop_id is not None:
            at_stop = set(self._groups_at(_lookup(self._stop_row, "stop", stop_id)))
            rows = [g for g in rows if g in at_stop]
        return [self._patterns[g] for g in rows]

    def _groups_at(self, stop_row: int) -> list[int]:
        t = self._transit
        a, b = int(t.stop_pattern_offsets[stop_row]), int(t.stop_pattern_offsets[stop_row + 1])
        groups = self._model_group[np.asarray(t.stop_patterns[a:b], dtype=np.int64)]
        return sorted(set(groups.tolist()) - {-1})

    # -- trips --------------------------------------------------------------------------------
    def list_trips(self) -> list[Trip]:
        """Every GTFS trip (a frequency-based trip once)."""
        return list(self._trips)

    def get_trip(self, trip_id: str) -> Trip:
        """One trip by id; a frequency departure's id (``trip@HH:MM:SS``) gives its trip."""
        return self._trips[_lookup(self._trip_row, "trip", trip_id)]

    def find_trips(
        self, *, route_id: str | None = None, pattern_id: str | None = None
    ) -> list[Trip]:
        """The trips of a route (in id order) or of a pattern (by first departure)."""
        if pattern_id is not None:
            group = self._groups[_lookup(self._pattern_row, "pattern", pattern_id)]
            trips = [self._trips[t] for t in group.gtfs_trips]
            return [t for t in trips if route_id is None or t.route_id == route_id]
        if route_id is not None:
            route = _lookup(self._route_row, "route", route_id)
            return [self._trips[t] for t in self._route_trips[route]]
        return self.list_trips()

    def find_trips_departing(
        self,
        route_id: str,
        date: dt.date,
        departure_s: int,
        *,
        direction_id: int | None = None,
    ) -> list[Trip]:
        """Trips of a route that run on a service day and leave their first stop at a time.

        OTP's "fuzzy trip" match (GraphQL ``fuzzyTrip``): a trip known by its
        route, direction and scheduled start rather than by its id.  A
        frequency-based trip matches at any of its departures (OTP 1.x matched
        only its template times).

        Parameters
        ----------
        route_id
            The route.
        date
            The service day.
        departure_s
            Scheduled departure from the first stop, in seconds after the start
            of the service day (may exceed 24 h).
        direction_id
            Only trips of this ``direction_id`` (-1: trips without one); None: any.

        Returns
        -------
        list of Trip
            The matching GTFS trips (usually one), pattern by pattern.
        """
        route = _lookup(self._route_row, "route", route_id)
        groups = [self._groups[g] for g in self._route_groups[route]]
        model_patterns = [
            p
            for g in groups
            if direction_id is None or g.direction == direction_id
            for p in g.model_patterns
        ]
        rows = self._trip_gtfs[self._timetable.departing(model_patterns, date, departure_s)]
        return [self._trips[int(g)] for g in dict.fromkeys(rows.tolist())]

    # -- stops --------------------------------------------------------------------------------
    def list_stops(self) -> list[Stop]:
        """Every row of the feeds' ``stops.txt`` (all location types)."""
        return list(self._stops)

    def get_stop(self, stop_id: str) -> Stop:
        """One stop (or station, entrance...) by id."""
        return self._stops[_lookup(self._stop_row, "stop", stop_id)]

    def find_stops(
        self,
        *,
        route_id: str | None = None,
        pattern_id: str | None = None,
        trip_id: str | None = None,
    ) -> list[Stop]:
        """The stops of a pattern or trip (calling order) or a route (first call order)."""
        if trip_id is not None:
            pattern_id = self.get_trip(trip_id).pattern_id
            if pattern_id is None:
                return []
        if pattern_id is not None:
            group = self._groups[_lookup(self._pattern_row, "pattern", pattern_id)]
            return [self._stops[s] for s in group.stops]
        if route_id is not None:
            route = _lookup(self._route_row, "route", route_id)
            seen: dict[int, None] = {}
            for g in self._route_groups[route]:
                seen.update(dict.fromkeys(self._groups[g].stops))
            return [self._stops[s] for s in seen]
        return self.list_stops()

    def find_stops_in_circle(self, lat: float, lon: float, radius_m: float) -> list[StopAtDistance]:
        """Stops within ``radius_m`` metres (great-circle) of a point, nearest first."""
        rows, dist = self._spatial_index().within_circle(lat, lon, radius_m)
        return [
            StopAtDistance(self._stops[r], d)
            for r, d in zip(rows.tolist(), dist.tolist(), strict=True)
        ]

    def find_stops_in_box(
        self, min_lat: float, min_lon: float, max_lat: float, max_lon: float
    ) -> list[Stop]:
        """Stops inside a latitude/longitude box (edges included), in stop order."""
        rows = self._spatial_index().within_box(min_lat, min_lon, max_lat, max_lon)
        return [self._stops[r] for r in rows.tolist()]

    def _spatial_index(self) -> StopSpatialIndex:
        with self._lock:
            if self._spatial is None:
                stops = self._transit.stops
                self._spatial = StopSpatialIndex(
                    stops.lat.to_numpy(float), stops.lon.to_numpy(float)
                )
            return self._spatial

    def find_transfers(self, stop_id: str) -> list[Transfer]:
        """Precomputed walking transfers from a stop, as built with the network."""
        row = _lookup(self._stop_row, "stop", stop_id)
        a, b = int(self._transfer_offsets[row]), int(self._transfer_offsets[row + 1])
        return [
            Transfer(self._stops[row].id, self._stops[to].id, float(d))
            for to, d in zip(
                self._transfer_to[a:b].tolist(), self._transfer_distance[a:b].tolist(), strict=True
            )
        ]

    # -- clusters, flex areas, service calendars ----------------------------------------------
    def list_clusters(self) -> list[StopCluster]:
        """Every stop cluster."""
        return list(self._clusters)

    def get_cluster(self, cluster_id: str) -> StopCluster:
        """One stop cluster by id."""
        return self._clusters[_lookup(self._cluster_row, "cluster", cluster_id)]

    def list_flex_areas(self) -> list[FlexArea]:
        """GTFS-Flex zones: the polygons of the feeds' ``locations.geojson``, in feed order."""
        with self._lock:
            if self._flex is None:
                self._flex = flex_areas_from_geojson(self._transit.flex_locations)
                self._flex_row = _rows(a.id for a in self._flex)
            return list(self._flex)

    def get_flex_area(self, area_id: str) -> FlexArea:
        """One GTFS-Flex zone by id."""
        areas = self.list_flex_areas()
        return areas[_lookup(self._flex_row, "flex area", area_id)]

    def list_service_calendars(self) -> list[ServiceCalendar]:
        """The dates of every service."""
        with self._lock:
            if self._calendars is None:
                self._calendars = _entities.service_calendars_of(self._transit)
            return list(self._calendars)

    def get_service_calendar(self, service_id: str) -> ServiceCalendar:
        """The dates of one service."""
        calendars = self.list_service_calendars()
        return calendars[_lookup(self._service_row, "service", service_id)]

    # -- stop times ---------------------------------------------------------------------------
    def find_stop_times(
        self,
        stop_id: str,
        *,
        start_time: int,
        time_range_s: int = 86_400,
        number_of_departures: int = 2,
        omit_non_pickups: bool = False,
    ) -> list[StopTimesInPattern]:
        """The next departures at a stop, per pattern (OTP's ``stopTimesForStop``).

        Parameters
        ----------
        stop_id
            The stop.
        start_time
            Epoch seconds; departures from then on count.
        time_range_s
            Departures up to ``start_time + time_range_s`` (inclusive) count.
        number_of_departures
            At most this many departures per pattern, the earliest.
        omit_non_pickups
            Leave out calls where boarding is not allowed (``pickup_type`` 1).

        Returns
        -------
        list of StopTimesInPattern
            Patterns with at least one departure, in pattern order.
        """
        if time_range_s < 0 or number_of_departures < 0:
            msg = "time_range_s and number_of_departures must not be negative"
            raise InvalidArgumentError(msg)
        row = _lookup(self._stop_row, "stop", stop_id)
        end = start_time + time_range_s
        return self._timetable.in_window(
            row, start_time, end, number_of_departures, omit_non_pickups
        )

    def find_stop_times_for_date(
        self, stop_id: str, date: dt.date, *, omit_non_pickups: bool = False
    ) -> list[StopTimesInPattern]:
        """Every call at a stop on one service day, per pattern (sorted by departure).

        Every pattern of the stop is listed, even one without calls that day, as OTP did.
        """
        row = _lookup(self._stop_row, "stop", stop_id)
        return self._timetable.on_day(row, date, omit_non_pickups)

    def find_trip_times(self, trip_id: str, *, date: dt.date | None = None) -> list[TripTime]:
        """A trip's scheduled times at each stop (a frequency trip: its first departure).

        Parameters
        ----------
        trip_id
            The trip.
        date
            A service day: times carry its start as ``service_day``, and the list
            is empty when the trip does not run that day.  None: ``service_day`` 0.
        """
        g = _lookup(self._trip_row, "trip", trip_id)
        return self._timetable.of_trip(int(self._representative[g]), date)

    # -- geometry and hashes ------------------------------------------------------------------
    def get_pattern_coordinates(self, pattern_id: str) -> list[tuple[float, float]]:
        """``(lat, lon)`` of a pattern's line: its trips' most common shape, else its stops."""
        lat, lon = self._pattern_line(_lookup(self._pattern_row, "pattern", pattern_id))
        return list(zip(lat.tolist(), lon.tolist(), strict=True))

    def get_pattern_geometry(self, pattern_id: str) -> EncodedPolyline:
        """A pattern's line as an encoded polyline (see :meth:`get_pattern_coordinates`)."""
        return _geometry.encode(
            *self._pattern_line(_lookup(self._pattern_row, "pattern", pattern_id))
        )

    def get_trip_coordinates(self, trip_id: str) -> list[tuple[float, float]]:
        """``(lat, lon)`` of a trip's line: its own shape, else its pattern's line."""
        lat, lon = self._trip_line(_lookup(self._trip_row, "trip", trip_id))
        return list(zip(lat.tolist(), lon.tolist(), strict=True))

    def get_trip_geometry(self, trip_id: str) -> EncodedPolyline:
        """A trip's line as an encoded polyline (see :meth:`get_trip_coordinates`)."""
        return _geometry.encode(*self._trip_line(_lookup(self._trip_row, "trip", trip_id)))

    def _shape_of(self, trip: Trip) -> int:
        return -1 if trip.shape_id is None else self._shape_row.get(trip.shape_id, -1)

    def _pattern_line(self, g: int) -> tuple[np.ndarray, np.ndarray]:
        group = self._groups[g]
        shape = _geometry.representative_shape(
            [self._shape_of(self._trips[t]) for t in group.gtfs_trips]
        )
        if shape >= 0:
            return _geometry.shape_coordinates(self._transit, shape)
        return _geometry.stop_coordinates(self._transit, group.stops)

    def _trip_line(self, g: int) -> tuple[np.ndarray, np.ndarray]:
        trip = self._trips[g]
        shape = self._shape_of(trip)
        if shape >= 0:
            return _geometry.shape_coordinates(self._transit, shape)
        if trip.pattern_id is None:
            return np.zeros(0), np.zeros(0)
        return self._pattern_line(self._pattern_row[trip.pattern_id])

    def get_pattern_semantic_hash(self, pattern_id: str) -> str:
        """A hash of the pattern's stops and rules, stable across builds (see ``_hash``)."""
        return self._pattern_hash(_lookup(self._pattern_row, "pattern", pattern_id))

    def _pattern_hash(self, g: int) -> str:
        group, pattern = self._groups[g], self._patterns[g]
        return _hash.pattern_hash(
            [self._raw_stop_ids[s] for s in group.stops],
            pattern.pickup_types,
            pattern.drop_off_types,
        )

    def get_trip_semantic_hash(self, trip_id: str) -> str | None:
        """``"<pattern hash>:<times hash>"`` of a trip; None for a trip without stop times."""
        trip = self.get_trip(trip_id)
        if trip.pattern_id is None:
            return None
        times = self.find_trip_times(trip.id)
        return _hash.trip_hash(
            self._pattern_hash(self._pattern_row[trip.pattern_id]),
            [t.scheduled_arrival for t in times],
            [t.scheduled_departure for t in times],
        )
