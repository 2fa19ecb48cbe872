"""Results of trip planning: trip plans, itineraries, legs, places, walk steps, fares.

The classes mirror the objects of OpenTripPlanner 1.x's plan response field for
field, with snake_case names (``walk_distance`` is OTP's ``walkDistance``), so
the HTTP layer can map them generically.  Times are timezone-aware
:class:`datetime.datetime` objects, durations are seconds and distances metres.
A field left ``None`` has no value (OTP omits it from its JSON).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeVar

from otpa.errors import ArgumentTypeError

__all__ = [
    "AbsoluteDirection",
    "DebugOutput",
    "ElevationMetadata",
    "EncodedPolyline",
    "Fare",
    "FareComponent",
    "Itinerary",
    "Leg",
    "LocalizedAlert",
    "Money",
    "Place",
    "RelativeDirection",
    "RentalInfo",
    "TncData",
    "TripPlan",
    "VertexType",
    "WalkStep",
    "WrappedCurrency",
]


_T = TypeVar("_T")


def _direct_init(cls: type[_T]) -> type[_T]:
    """Give a frozen dataclass an ``__init__`` that fills the instance's dict directly.

    The ``__init__`` ``dataclass(frozen=True)`` writes sets every field through
    ``object.__setattr__``; a plan builds dozens of walk steps, places and legs of
    12 to 53 fields each, and that was a visible share of its time.  This one has the
    same signature and defaults and makes the same instance (the fields in their
    order, nothing else set); the class stays frozen.  Only for classes without
    default factories, ``__post_init__`` or init-only fields.
    """
    params: list[str] = []
    defaults: dict[str, object] = {}
    names = []
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.default_factory is not dataclasses.MISSING or not f.init or f.kw_only:
            msg = f"{cls.__name__}.{f.name}: a field _direct_init cannot build"
            raise ArgumentTypeError(msg)
        names.append(f.name)
        if f.default is dataclasses.MISSING:
            params.append(f.name)
        else:
            defaults[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
    if hasattr(cls, "__post_init__"):
        msg = f"{cls.__name__} has a __post_init__: _direct_init cannot build it"
        raise ArgumentTypeError(msg)
    values = ", ".join(f"{n!r}: {n}" for n in names)
    source = f"def __init__(self, {', '.join(params)}):\n    self.__dict__.update({{{values}}})\n"
    space: dict[str, Any] = {}
    exec(source, defaults, space)  # generated from the field names, as dataclasses does
    init = space["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init  # type: ignore[method-assign]
    return cls


def field_template(cls: type[Any]) -> dict[str, Any]:
    """Every field of a model class in order, with its default (None for the required).

    :func:`from_template` fills an instance from such a template, as the class's
    ``__init__`` (:func:`_direct_init`: the fields' values in the instance dict, in
    order) would, without binding dozens of keyword arguments per leg and place.
    """
    if hasattr(cls, "__post_init__"):  # (the model's classes have none: see _direct_init)
        msg = f"{cls.__name__} has a __post_init__"
        raise ArgumentTypeError(msg)
    return {
        f.name: None if f.default is dataclasses.MISSING else f.default
        for f in dataclasses.fields(cls)
    }


_new = object.__new__


def from_template(cls: type[_T], template: dict[str, Any], values: dict[str, Any]) -> _T:
    """An instance of a model class: ``template`` (all its fields, in order) with ``values``.

    The same instance as ``cls(**{**template, **values})``: the dict keeps the fields'
    order, an update replaces values in place.
    """
    obj = _new(cls)
    state = obj.__dict__
    state.update(template)
    state.update(values)
    return obj


class VertexType(StrEnum):
    """Kind of place a leg starts or ends at (OTP ``VertexType``)."""

    NORMAL = "NORMAL"
    BIKESHARE = "BIKESHARE"
    BIKEPARK = "BIKEPARK"
    TRANSIT = "TRANSIT"
    CARSHARE = "CARSHARE"
    VEHICLERENTAL = "VEHICLERENTAL"


class RelativeDirection(StrEnum):
    """Turn instruction of a walk step (OTP ``RelativeDirection``)."""

    DEPART = "DEPART"
    HARD_LEFT = "HARD_LEFT"
    LEFT = "LEFT"
    SLIGHTLY_LEFT = "SLIGHTLY_LEFT"
    CONTINUE = "CONTINUE"
    SLIGHTLY_RIGHT = "SLIGHTLY_RIGHT"
    RIGHT = "RIGHT"
    HARD_RIGHT = "HARD_RIGHT"
    CIRCLE_CLOCKWISE = "CIRCLE_CLOCKWISE"
    CIRCLE_COUNTERCLOCKWISE = "CIRCLE_COUNTERCLOCKWISE"
    ELEVATOR = "ELEVATOR"
    UTURN_LEFT = "UTURN_LEFT"
    UTURN_RIGHT = "UTURN_RIGHT"


class AbsoluteDirection(StrEnum):
    """Compass direction of a walk step (OTP ``AbsoluteDirection``)."""

    NORTH = "NORTH"
    NORTHEAST = "NORTHEAST"
    EAST = "EAST"
    SOUTHEAST = "SOUTHEAST"
    SOUTH = "SOUTH"
    SOUTHWEST = "SOUTHWEST"
    WEST = "WEST"
    NORTHWEST = "NORTHWEST"


@dataclass(frozen=True)
class EncodedPolyline:
    """A Google encoded polyline (OTP ``EncodedPolylineBean``).

    Attributes
    ----------
    points
        The encoded string (lat then lon, 1e-5 degrees).
    length
        Number of points.
    levels
        Unused by OTP 1.x (always ``None``).
    """

    points: str
    length: int
    levels: str | None = None


@dataclass(frozen=True)
class LocalizedAlert:
    """A service alert attached to a leg or a walk step."""

    alert_header_text: str | None = None
    alert_description_text: str | None = None
    alert_url: str | None = None
    effective_start_date: dt.datetime | None = None


@_direct_init
@dataclass(frozen=True)
class Place:
    """Where a leg starts or ends, or a stop it passes (OTP ``Place``).

    ``arrival`` is ``None`` on a leg's ``from_place`` and ``departure`` on its
    ``to_place``, as in OTP.
    """

    name: str | None
    lon: float
    lat: float
    vertex_type: VertexType = VertexType.NORMAL
    stop_id: str | None = None
    stop_code: str | None = None
    platform_code: str | None = None
    zone_id: str | None = None
    stop_index: int | None = None
    stop_sequence: int | None = None
    arrival: dt.datetime | None = None
    departure: dt.datetime | None = None
    orig: str | None = None
    wheelchair_boarding: str = "UNKNOWN"
    bike_share_id: str | None = None
    networks: tuple[str, ...] | None = None
    address: str | None = None
    board_alight_type: str | None = None
    flag_stop_area: EncodedPolyline | None = None


@_direct_init
@dataclass(frozen=True)
class WalkStep:
    """One instruction of a street leg (OTP ``WalkStep``).

    ``elevation`` holds ``(distance from the step start, elevation)`` pairs in
    metres.  ``exit`` is the roundabout exit number as a string.
    """

    distance: float
    relative_direction: RelativeDirection
    street_name: str
    absolute_direction: AbsoluteDirection | None
    lon: float
    lat: float
    stay_on: bool = False
    area: bool = False
    bogus_name: bool = False
    exit: str | None = None
    elevation: tuple[tuple[float, float], ...] = ()
    alerts: tuple[LocalizedAlert, ...] | None = None


@dataclass(frozen=True)
class WrappedCurrency:
    """A currency as OTP 1.x serialises it."""

    currency: str
    currency_code: str
    symbol: str
    default_fraction_digits: int


@dataclass(frozen=True)
class Money:
    """An amount in minor units (cents) of a currency."""

    cents: int
    currency: WrappedCurrency


@dataclass(frozen=True)
class FareComponent:
    """The part of a fare paid for one GTFS fare (``fare_id``) over some routes."""

    fare_id: str
    price: Money
    routes: tuple[str, ...]
    leg_index: int | None = None
    is_transfer: bool = False


@dataclass(frozen=True)
class Fare:
    """Fares of an itinerary per fare type (``"regular"``, ``"student"``...)."""

    fare: dict[str, Money] = field(default_factory=dict)
    details: dict[str, tuple[FareComponent, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class TncData:
    """A hailed ride's estimate (the ibi fork's leg ``tncData``).

    ``estimated_arrival`` is the pick-up wait in seconds, ``travel_duration`` the ride's.
    """

    company: str
    currency: str
    travel_duration: int
    max_cost: float
    min_cost: float
    product_id: str
    display_name: str
    estimated_arrival: int


@_direct_init
@dataclass(frozen=True)
class Leg:
    """One part of an itinerary travelled in one mode (OTP ``Leg``)."""

    mode: str
    start_time: dt.datetime
    end_time: dt.datetime
    from_place: Place
    to_place: Place
    distance: float
    leg_geometry: EncodedPolyline
    agency_time_zone_offset: int
    route: str = ""
    transit_leg: bool = False
    steps: tuple[WalkStep, ...] = ()
    intermediate_stops: tuple[Place, ...] | None = None
    inter_stop_geometry: tuple[EncodedPolyline, ...] | None = None
    departure_delay: int = 0
    arrival_delay: int = 0
    real_time: bool = False
    pathway: bool = False
    interline_with_previous_leg: bool = False
    agency_name: str | None = None
    agency_url: str | None = None
    agency_branding_url: str | None = None
    agency_id: str | None = None
    route_color: str | None = None
    route_text_color: str | None = None
    route_type: int | None = None
    route_id: str | None = None
    route_short_name: str | None = None
    route_long_name: str | None = None
    route_branding_url: str | None = None
    trip_short_name: str | None = None
    trip_block_id: str | None = None
    trip_id: str | None = None
    headsign: str | None = None
    service_date: str | None = None
    board_rule: str | None = None
    alight_rule: str | None = None
    alerts: tuple[LocalizedAlert, ...] | None = None
    rented_bike: bool = False
    rented_car: bool = False
    rented_vehicle: bool = False
    hailed_car: bool = False
    tnc_data: TncData | None = None
    flex_drt_advance_book_min: float = 0.0
    #: GTFS-Flex (the ibi fork's leg fields): an on-demand (zone) ride; the booking
    #: rule's messages; the window the vehicle may pick up / drop off in (deviated routes)
    call_and_ride: bool | None = None
    flex_drt_pickup_message: str | None = None
    flex_drt_drop_off_message: str | None = None
    flex_flag_stop_pickup_message: str | None = None
    flex_flag_stop_drop_off_message: str | None = None
    flex_call_and_ride_max_start_time: dt.datetime | None = None
    flex_call_and_ride_min_end_time: dt.datetime | None = None
    accessibility_score: float | None = None
    elevation_gained: float = 0.0
    elevation_lost: float = 0.0

    @property
    def duration(self) -> float:
        """Seconds from start to end."""
        return (self.end_time - self.start_time).total_seconds()


@_direct_init
@dataclass(frozen=True)
class Itinerary:
    """One way of making the trip (OTP ``Itinerary``)."""

    legs: tuple[Leg, ...]
    start_time: dt.datetime
    end_time: dt.datetime
    walk_time: int
    transit_time: int
    waiting_time: int
    walk_distance: float
    transfers: int
    walk_limit_exceeded: bool = False
    elevation_lost: float = 0.0
    elevation_gained: float = 0.0
    too_sloped: bool = False
    fare: Fare | None = None
    generalized_cost: float | None = None
    accessibility_score: float | None = None

    @property
    def duration(self) -> int:
        """Whole seconds from start to end."""
        return round((self.end_time - self.start_time).total_seconds())

    def legs_frame(self) -> Any:
        """The legs as a :class:`pandas.DataFrame` (one row per leg)."""
        import pandas as pd

        rows = [
            {
                "mode": leg.mode,
                "route": leg.route_short_name or leg.route_long_name or "",
                "from": leg.from_place.name,
                "to": leg.to_place.name,
                "start": leg.start_time,
                "end": leg.end_time,
                "duration_s": leg.duration,
                "distance_m": round(leg.distance, 1),
                "trip_id": leg.trip_id,
                "headsign": leg.headsign,
            }
            for leg in self.legs
        ]
        return pd.DataFrame(rows)


@dataclass(frozen=True)
class ElevationMetadata:
    """How elevations are referenced (OTP ``ElevationMetadata``)."""

    ellipsoid_to_geoid_difference: float = 0.0
    geoid_elevation: bool = False


@dataclass(frozen=True)
class DebugOutput:
    """Timings of a plan request in milliseconds (OTP ``DebugOutput``)."""

    precalculation_time: int = 0
    path_calculation_time: int = 0
    path_times: tuple[int, ...] = ()
    rendering_time: int = 0
    total_time: int = 0
    timed_out: bool = False


@dataclass(frozen=True)
class RentalInfo:
    """The state of one rental network as a plan saw it (the ibi fork's ``RentalInfo``).

    Attributes
    ----------
    errors
        ``(message, severity)`` pairs; severity one of FEED_WIDE, SYSTEM_INFORMATION,
        ALL_STATIONS, ALL_FLOATING_VEHICLES, ALL_REGIONS, INDIVIDUAL_DOCKING_STATION,
        INDIVIDUAL_VEHICLE.
    system_information
        GBFS ``system_information`` fields (``system_id``, ``name``, ``operator``...).
    """

    errors: tuple[tuple[str, str], ...] = ()
    system_information: dict[str, str | None] = field(default_factory=dict)


@dataclass(frozen=True)
class TripPlan:
    """The answer to a plan request (OTP ``TripPlan`` plus envelope extras).

    Attributes
    ----------
    date
        The requested date and time.
    from_place, to_place
        Origin and destination (``orig`` holds the name given in the request).
    itineraries
        The itineraries, sorted as OTP 1.x sorts them.
    debug_output
        Timings of the search.
    elevation_metadata
        How elevations in the itineraries are referenced.
    realtime_snapshot
        Version of the real-time timetable snapshot the plan searched (``otpa.realtime``);
        None: the scheduled timetable.
    rental_info
        By rental kind (``"bike"``, ``"car"``, ``"vehicle"``), the state of each rental
        network, for the kinds the request allows and the router has.
    """

    date: dt.datetime
    from_place: Place
    to_place: Place
    itineraries: tuple[Itinerary, ...]
    debug_output: DebugOutput = field(default_factory=DebugOutput)
    elevation_metadata: ElevationMetadata = field(default_factory=ElevationMetadata)
    realtime_snapshot: int | None = None
    rental_info: dict[str, dict[str, RentalInfo]] = field(default_factory=dict)
    #: why an option the request asked for is missing (a ride-hail provider that failed)
    notices: tuple[str, ...] = ()
