"""The plan request: where, when, how, assembled from per-concern preferences.

Examples
--------
>>> import datetime as dt
>>> from otpa.routing import PlanRequest, Location
>>> req = PlanRequest(
...     from_place=Location(lat=53.30, lon=4.20),
...     to_place=Location(lat=53.31, lon=4.22),
...     date_time=dt.datetime(2026, 3, 4, 8, 0),
... )
>>> req.modes.transit
True
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from dataclasses import dataclass, field
from typing import Any

from otpa.errors import InvalidArgumentError
from otpa.routing.errors import InvalidRequestError
from otpa.routing.preferences import (
    BikePreferences,
    CarPreferences,
    FlexPreferences,
    ItineraryPreferences,
    MicromobilityPreferences,
    RentalPreferences,
    TransitPreferences,
    WalkPreferences,
    WheelchairPreferences,
)
from otpa.transit.modes import TRANSIT_MODES

__all__ = [
    "Location",
    "PlanRequest",
    "RequestModes",
    "RouteSpec",
    "RoutingPreferences",
    "TransitFilters",
]

STREET_MODES = frozenset({"WALK", "BICYCLE", "CAR", "MICROMOBILITY"})


@dataclass(frozen=True)
class Location:
    """An origin, destination or via point.

    Either a coordinate (``lat``, ``lon``) or a ``label``: a transit stop id
    (``"feedId:stopId"``) or a street vertex label (``"osm:node:123"``).

    Attributes
    ----------
    lat, lon
        WGS84 degrees.
    label
        Stop id or vertex label when no coordinate is given.
    name
        A display name (OTP's ``orig``), from ``"name::lat,lon"``.
    heading
        Optional heading in degrees.
    edge_id
        Optional street edge id.
    """

    lat: float | None = None
    lon: float | None = None
    label: str | None = None
    name: str = ""
    heading: float | None = None
    edge_id: int | None = None

    def __post_init__(self) -> None:
        has_coord = self.lat is not None and self.lon is not None
        if not has_coord and not self.label:
            msg = "a Location needs lat and lon, or a label (stop id or vertex label)"
            raise InvalidArgumentError(msg)
        if has_coord:
            assert self.lat is not None
            assert self.lon is not None
            if not (math.isfinite(self.lat) and -90.0 <= self.lat <= 90.0):
                msg = f"latitude out of range: {self.lat!r}"
                raise InvalidArgumentError(msg)
            if not (math.isfinite(self.lon) and -180.0 <= self.lon <= 180.0):
                msg = f"longitude out of range: {self.lon!r}"
                raise InvalidArgumentError(msg)

    @property
    def has_coordinate(self) -> bool:
        """True when the location is a coordinate."""
        return self.lat is not None and self.lon is not None


@dataclass(frozen=True)
class RequestModes:
    """The modes a request may use (OTP's ``QualifiedModeSet`` after processing).

    Attributes
    ----------
    street
        Street modes: a subset of WALK, BICYCLE, CAR, MICROMOBILITY.
    transit_modes
        Allowed transit modes (TRAM, SUBWAY, RAIL, BUS, FERRY, CABLE_CAR,
        GONDOLA, FUNICULAR, AIRPLANE); empty for a street-only request.
    qualifiers
        The qualified modes as given (``"BICYCLE_RENT"``, ``"CAR_PARK"``).
    """

    street: frozenset[str] = frozenset({"WALK"})
    transit_modes: frozenset[str] = frozenset(TRANSIT_MODES)
    qualifiers: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        bad = set(self.street) - STREET_MODES
        if bad:
            msg = f"unknown street mode(s): {sorted(bad)}"
            raise InvalidRequestError(msg, parameter="mode")
        bad = set(self.transit_modes) - set(TRANSIT_MODES)
        if bad:
            msg = f"unknown transit mode(s): {sorted(bad)}"
            raise InvalidRequestError(msg, parameter="mode")

    @property
    def transit(self) -> bool:
        """True when any transit mode is allowed."""
        return bool(self.transit_modes)

    @property
    def access_mode(self) -> str:
        """The street mode used to reach transit (and for street-only trips)."""
        if "BICYCLE" in self.street and "BICYCLE_PARK" not in self.qualifiers:
            return "BICYCLE"
        if "CAR" in self.street and not self.transit:
            return "CAR"
        if "WALK" in self.street or self.transit:
            return "WALK"
        return sorted(self.street)[0] if self.street else "WALK"


@dataclass(frozen=True)
class RouteSpec:
    """Matches routes as OTP 1.x route specs do: agency + id, agency + name, or name.

    ``name`` matches the route's short name, else its long name (underscores
    read as spaces).
    """

    agency: str | None = None
    route_id: str | None = None
    name: str | None = None


@dataclass(frozen=True)
class TransitFilters:
    """Banned, whitelisted, preferred and unpreferred transit entities.

    Stop and trip ids are feed-scoped (``"feed:id"``); agency ids are plain
    GTFS ``agency_id`` values (or feed-scoped).  ``banned_trips`` maps a trip
    id to the pattern stop indexes where boarding and alighting are banned; an
    empty tuple bans the whole trip.
    """

    banned_routes: tuple[RouteSpec, ...] = ()
    whitelisted_routes: tuple[RouteSpec, ...] = ()
    preferred_routes: tuple[RouteSpec, ...] = ()
    unpreferred_routes: tuple[RouteSpec, ...] = ()
    banned_agencies: frozenset[str] = frozenset()
    whitelisted_agencies: frozenset[str] = frozenset()
    preferred_agencies: frozenset[str] = frozenset()
    unpreferred_agencies: frozenset[str] = frozenset()
    banned_stops: frozenset[str] = frozenset()
    banned_stops_hard: frozenset[str] = frozenset()
    banned_trips: dict[str, tuple[int, ...]] = field(default_factory=dict)

    @property
    def is_empty(self) -> bool:
        """True when nothing is banned, whitelisted or preferred."""
        return not any(
            (
                self.banned_routes,
                self.whitelisted_routes,
                self.preferred_routes,
                self.unpreferred_routes,
                self.banned_agencies,
                self.whitelisted_agencies,
                self.preferred_agencies,
                self.unpreferred_agencies,
                self.banned_stops,
                self.banned_stops_hard,
                self.banned_trips,
            )
        )


@dataclass(frozen=True)
class RoutingPreferences:
    """How the traveller moves: what a trip plan and a travel-time analysis share.

    A :class:`PlanRequest` has these as its fields of the same names
    (:attr:`PlanRequest.preferences`, :meth:`PlanRequest.with_preferences`); an
    :class:`~otpa.analysis.AnalysisRequest` is these plus its window, step,
    percentiles and limits, so every preference means the same for both.

    Attributes
    ----------
    walk, bike, car
        Speeds, reluctances, board costs, walk limit, optimisation and triangle.
    wheelchair
        Accessibility needs and costs, ``maxSlope``.
    transit
        Slacks, minimum transfer time, penalties, waiting, most transfers.
    filters
        Banned, whitelisted, preferred and unpreferred routes, agencies, stops, trips.
    """

    walk: WalkPreferences = field(default_factory=WalkPreferences)
    bike: BikePreferences = field(default_factory=BikePreferences)
    car: CarPreferences = field(default_factory=CarPreferences)
    wheelchair: WheelchairPreferences = field(default_factory=WheelchairPreferences)
    transit: TransitPreferences = field(default_factory=TransitPreferences)
    filters: TransitFilters = field(default_factory=TransitFilters)

    def as_fields(self) -> dict[str, Any]:
        """The preferences as keyword arguments (of :class:`PlanRequest` or ``replace``)."""
        return {name: getattr(self, name) for name in PREFERENCE_FIELDS}

    def replace(self, **changes: Any) -> RoutingPreferences:
        """A copy with some preferences replaced."""
        return dataclasses.replace(self, **changes)


#: The fields of :class:`RoutingPreferences` (also fields of :class:`PlanRequest`).
PREFERENCE_FIELDS = tuple(f.name for f in dataclasses.fields(RoutingPreferences))


@dataclass(frozen=True)
class PlanRequest:
    """A trip-planning request (immutable; change with :func:`dataclasses.replace`).

    Attributes
    ----------
    from_place, to_place
        Origin and destination.
    date_time
        Departure time, or arrival time when ``arrive_by``.  A naive datetime
        is read in the network's time zone.
    arrive_by
        Plan to arrive by ``date_time`` instead of departing at it.
    intermediate_places
        Places to visit in order.
    modes
        Allowed modes.
    walk, bike, car, wheelchair, transit, filters
        How the traveller moves (:class:`RoutingPreferences`, the part a plan
        shares with an analysis: :attr:`preferences`).
    itineraries, rental, micromobility, flex
        What a plan returns, and the rental, micromobility and flex options.
    start_transit_stop_id, start_transit_trip_id
        Start the search at a stop, or on board a trip (``"feed:id"``).
    """

    from_place: Location | None
    to_place: Location | None
    date_time: dt.datetime
    arrive_by: bool = False
    intermediate_places: tuple[Location, ...] = ()
    modes: RequestModes = field(default_factory=RequestModes)
    walk: WalkPreferences = field(default_factory=WalkPreferences)
    bike: BikePreferences = field(default_factory=BikePreferences)
    car: CarPreferences = field(default_factory=CarPreferences)
    wheelchair: WheelchairPreferences = field(default_factory=WheelchairPreferences)
    transit: TransitPreferences = field(default_factory=TransitPreferences)
    filters: TransitFilters = field(default_factory=TransitFilters)
    itineraries: ItineraryPreferences = field(default_factory=ItineraryPreferences)
    rental: RentalPreferences = field(default_factory=RentalPreferences)
    micromobility: MicromobilityPreferences = field(default_factory=MicromobilityPreferences)
    flex: FlexPreferences = field(default_factory=FlexPreferences)
    start_transit_stop_id: str | None = None
    start_transit_trip_id: str | None = None

    def __post_init__(self) -> None:
        if self.start_transit_trip_id is not None and self.arrive_by:
            msg = "startTransitTripId (depart on board) cannot be combined with arriveBy"
            raise InvalidRequestError(msg, parameter="startTransitTripId")

    @property
    def preferences(self) -> RoutingPreferences:
        """The request's walk, bike, car, wheelchair, transit and filter preferences."""
        return RoutingPreferences(**{name: getattr(self, name) for name in PREFERENCE_FIELDS})

    def with_preferences(self, preferences: RoutingPreferences) -> PlanRequest:
        """A copy with all of :class:`RoutingPreferences` taken from ``preferences``."""
        return dataclasses.replace(self, **preferences.as_fields())
