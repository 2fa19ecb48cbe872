"""The entities a :class:`~otpa.index.TransitIndex` returns: plain frozen dataclasses.

Field names follow OpenTripPlanner 1.x's index beans (``short_name``,
``trip_headsign``...) in snake case, with unit suffixes where OTP had none
(``distance_m``).  Ids are feed-scoped (``"feedId:id"``) everywhere.  Optional
GTFS values that are absent are None.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

__all__ = [
    "Agency",
    "EncodedPolyline",
    "FeedInfo",
    "FlexArea",
    "FlexPolygon",
    "FlexRing",
    "Pattern",
    "Route",
    "ServiceCalendar",
    "Stop",
    "StopAtDistance",
    "StopCluster",
    "StopTimesInPattern",
    "Transfer",
    "Trip",
    "TripTime",
]


@dataclass(frozen=True)
class FeedInfo:
    """One GTFS feed of the network.

    Attributes
    ----------
    id
        The feed id (the prefix of every id of the feed).
    publisher_name, version
        From ``feed_info.txt`` when the feed has one.
    """

    id: str
    publisher_name: str | None = None
    version: str | None = None


@dataclass(frozen=True)
class Agency:
    """A transit agency (``agency.txt``)."""

    id: str
    feed_id: str
    name: str | None
    url: str | None
    timezone: str | None
    lang: str | None
    phone: str | None
    fare_url: str | None


@dataclass(frozen=True)
class Route:
    """A route (``routes.txt``).

    Attributes
    ----------
    type
        The GTFS ``route_type``.
    mode
        The OTP mode name (``BUS``, ``SUBWAY``...).
    sort_order
        ``route_sort_order``, or None when unset.
    """

    id: str
    agency_id: str | None
    short_name: str | None
    long_name: str | None
    desc: str | None
    type: int
    mode: str
    url: str | None
    color: str | None
    text_color: str | None
    sort_order: int | None


@dataclass(frozen=True)
class Stop:
    """A stop, station, entrance, generic node or boarding area (``stops.txt``).

    Attributes
    ----------
    location_type
        GTFS ``location_type`` (0 stop, 1 station, 2 entrance...).
    parent_station
        Id of the parent station, or None.
    wheelchair_boarding
        GTFS value (0 no information, 1 possible, 2 not possible).
    cluster
        Id of the stop cluster the stop belongs to, or None.
    """

    id: str
    code: str | None
    name: str | None
    desc: str | None
    lat: float
    lon: float
    zone_id: str | None
    url: str | None
    location_type: int
    parent_station: str | None
    wheelchair_boarding: int
    timezone: str | None
    platform_code: str | None
    cluster: str | None


@dataclass(frozen=True)
class Trip:
    """A GTFS trip.

    A trip defined in ``frequencies.txt`` is one trip here, as in the GTFS
    files, although the network runs it once per departure.

    Attributes
    ----------
    direction_id
        0 or 1, or None when the feed gives none.
    pattern_id
        The trip's pattern, or None for a trip without stop times (GTFS-Flex).
    frequency_based
        Whether the trip is expanded from ``frequencies.txt``.
    """

    id: str
    route_id: str
    service_id: str
    trip_short_name: str | None
    trip_headsign: str | None
    route_short_name: str | None
    direction_id: int | None
    block_id: str | None
    shape_id: str | None
    wheelchair_accessible: int
    bikes_allowed: int
    pattern_id: str | None
    frequency_based: bool = False


@dataclass(frozen=True)
class Pattern:
    """A trip pattern: the trips of one route calling at the same stops with the same rules.

    Attributes
    ----------
    id
        OTP's pattern code ``feedId:routeId:direction:NN`` (direction empty when
        the trips have none; ``NN`` counts the patterns of that route and
        direction from 01, the pattern with most trips first).
    desc
        A human-readable name (``"BLUE to INDIAN CREEK STATION"``).
    headsign
        The headsign of the pattern's first trip.
    stop_ids
        Stops in calling order (a stop may appear twice on a loop).
    trip_ids
        Trips sorted by their first departure.
    pickup_types, drop_off_types
        GTFS ``pickup_type`` / ``drop_off_type`` at each stop of the pattern.
    """

    id: str
    route_id: str
    direction_id: int | None
    desc: str
    headsign: str | None
    stop_ids: tuple[str, ...]
    trip_ids: tuple[str, ...]
    pickup_types: tuple[int, ...]
    drop_off_types: tuple[int, ...]


@dataclass(frozen=True)
class StopCluster:
    """Stops that are one place for a rider: a parent station's platforms, or
    stops with the same name a few metres apart.

    Attributes
    ----------
    id
        The parent station's id, or the id of the cluster's first stop.
    stop_ids
        The member stops (location type 0).
    """

    id: str
    name: str | None
    lat: float
    lon: float
    stop_ids: tuple[str, ...]


#: A closed ring of ``(lat, lon)`` pairs.
FlexRing = tuple[tuple[float, float], ...]
#: A polygon's rings: the exterior ring first, then its holes.
FlexPolygon = tuple[FlexRing, ...]


@dataclass(frozen=True)
class FlexArea:
    """A GTFS-Flex zone: a Polygon or MultiPolygon feature of ``locations.geojson``.

    Attributes
    ----------
    id
        ``feedId:locationId``.
    name
        The feature's ``stop_name`` property, if any.
    polygons
        The zone's polygons (one for a GeoJSON Polygon), each as its rings of
        ``(lat, lon)`` pairs: the exterior ring first, then any holes.
    """

    id: str
    name: str | None
    polygons: tuple[FlexPolygon, ...]

    @property
    def boundary(self) -> list[tuple[float, float]]:
        """Every ring, polygon by polygon, exterior ring first, as one list of ``(lat, lon)``.

        This is the line OTP 1.x encoded as an ``AreaShort``'s ``polygon`` (the
        points of the geometry's boundary, rings one after the other).
        """
        return [point for polygon in self.polygons for ring in polygon for point in ring]


@dataclass(frozen=True)
class TripTime:
    """One trip calling at one stop.

    Attributes
    ----------
    stop_index
        Position of the stop in the trip's pattern (0-based).
    stop_count
        Number of stops of the pattern.
    scheduled_arrival, scheduled_departure
        Seconds after the start of the service day (may exceed 24 h).
    service_day
        Epoch seconds of the start of the service day ("noon minus 12 h" in the
        agency's time zone), or 0 when the times are not tied to a date.
    pickup_type, drop_off_type
        GTFS values at this stop.
    realtime, realtime_state
        Whether a real-time update applies (``otpa.realtime``) and OTP's ``RealTimeState``
        (``SCHEDULED``, ``UPDATED``, ``CANCELED``).
    realtime_arrival, realtime_departure
        The updated times (service-day seconds); None: as scheduled.
    continuous_pickup, continuous_drop_off, service_area
        GTFS-Flex trips (no pattern): one time per row, at a stop or a zone; a zone's
        row is served during its window (``scheduled_arrival`` .. ``scheduled_departure``)
        and ``service_area`` is the zone's boundary.
    """

    stop_id: str
    stop_index: int
    stop_count: int
    scheduled_arrival: int
    scheduled_departure: int
    service_day: int
    trip_id: str
    block_id: str | None
    headsign: str | None
    pickup_type: int
    drop_off_type: int
    timepoint: bool = True
    realtime: bool = False
    realtime_state: str = "SCHEDULED"
    realtime_arrival: int | None = None
    realtime_departure: int | None = None
    #: GTFS-Flex rows (the ibi fork's fields): continuous pickup / drop-off, and the
    #: zone served as ``(lat, lon)`` boundary points (``stop_id`` is then the zone's id)
    continuous_pickup: int | None = None
    continuous_drop_off: int | None = None
    service_area: tuple[tuple[float, float], ...] | None = None


@dataclass(frozen=True)
class StopTimesInPattern:
    """The trip times of one pattern at one stop, sorted by departure."""

    pattern: Pattern
    times: tuple[TripTime, ...]


@dataclass(frozen=True)
class Transfer:
    """A precomputed walking transfer between two stops."""

    from_stop_id: str
    to_stop_id: str
    distance_m: float


@dataclass(frozen=True)
class StopAtDistance:
    """A stop found by a circle search, with its great-circle distance from the centre."""

    stop: Stop
    distance_m: float


@dataclass(frozen=True)
class ServiceCalendar:
    """The dates on which a GTFS service runs (``calendar.txt`` + ``calendar_dates.txt``).

    Attributes
    ----------
    start_date, end_date
        First and last date the service runs, or None if it never runs.
    dates
        Every date the service runs, in order.
    """

    id: str
    feed_id: str
    start_date: dt.date | None
    end_date: dt.date | None
    dates: tuple[dt.date, ...]


@dataclass(frozen=True)
class EncodedPolyline:
    """A Google encoded polyline (precision 5) and its number of points."""

    points: str
    length: int
