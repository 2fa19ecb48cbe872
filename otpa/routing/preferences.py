"""Per-concern preference objects of a plan request (all frozen, OTP 1.x defaults).

A :class:`~otpa.routing.request.PlanRequest` is assembled from these; change one
with :func:`dataclasses.replace`.  Every default is the OTP 1.x default, so an
empty request here plans like an OTP 1.x request without parameters.  Every
numeric field is checked against its documented range (:data:`PARAMETER_RANGES`)
when the object is made: out of range raises
:class:`~otpa.routing.errors.InvalidRequestError` (a ``ValueError``) naming the
OTP parameter, so no search ever sees a value it cannot hold safely.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field
from enum import StrEnum

from otpa.errors import InvalidArgumentError
from otpa.routing.errors import InvalidRequestError
from otpa.street import BIKE_SPEED_MPS, WALK_SPEED_MPS

__all__ = [
    "MAX_COST",
    "MAX_FACTOR",
    "MAX_ITINERARIES",
    "MAX_SLACK_S",
    "MAX_SLOPE",
    "MAX_TRANSFERS",
    "PARAMETER_RANGES",
    "STAIRS_RELUCTANCE",
    "TRIANGLE_TOLERANCE",
    "WALK_RELUCTANCE",
    "AccessibilityPreferences",
    "BikePreferences",
    "CarPreferences",
    "FlexPreferences",
    "ItineraryPreferences",
    "MicromobilityPreferences",
    "Optimize",
    "RentalPreferences",
    "TransitPreferences",
    "TriangleFactors",
    "WalkPreferences",
    "WheelchairPreferences",
    "check_range",
    "default_elevator",
    "wheelchair_accessibility_config",
]

#: OTP 1.x defaults shared by the request and the street router (the speeds are the
#: street layer's, :data:`otpa.street.WALK_SPEED_MPS` and :data:`otpa.street.BIKE_SPEED_MPS`).
WALK_RELUCTANCE = 2.0
STAIRS_RELUCTANCE = 2.0
#: OTP 1.x ``maxSlope`` (8.33 %, the ADA ramp limit).
MAX_SLOPE = 0.0833333333333
#: OTP 1.x replaces an unlimited ``maxWalkDistance`` by this for transit searches.
DEFAULT_MAX_WALK_M = 2000.0
#: OTP 1.x clamps ``maxWalkDistance`` to this.
MAX_WALK_CLAMP_M = 15000.0


class Optimize(StrEnum):
    """What a bicycle route optimises (OTP ``OptimizeType``)."""

    QUICK = "QUICK"
    SAFE = "SAFE"
    FLAT = "FLAT"
    GREENWAYS = "GREENWAYS"
    TRIANGLE = "TRIANGLE"
    TRANSFERS = "TRANSFERS"


#: Most transfers one search may make (OTP 1.x forced 4 on every plan search).  The
#: searches' memory and time grow with the number of rounds, so it is capped.
MAX_TRANSFERS = 7
#: Largest generalized cost of one penalty (board costs, transfer penalties...): 10^7
#: "seconds", far above any deliberate use, far below what float costs can hold exactly.
MAX_COST = 10_000_000.0
#: Largest reluctance or cost factor.
MAX_FACTOR = 1000.0
#: Largest slack, minimum transfer time or switch time, seconds.
MAX_SLACK_S = 3600

#: The valid range of every numeric preference, by OTP 1.x query-parameter name:
#: ``(lowest, highest, lowest excluded)``.  OTP 1.x had ranges only for the triangle
#: factors, ``numItineraries`` and the clamped ``maxWalkDistance``; the others are
#: otpa's, wide enough for any deliberate use and narrow enough that every cost and
#: time the searches compute stays far from overflowing.  The preference objects
#: below check their fields against this table (:func:`check_range`), so library
#: users and the HTTP service are held to the same ranges.
PARAMETER_RANGES: dict[str, tuple[float, float, bool]] = {
    "walkSpeed": (0.1, 10.0, False),
    "bikeSpeed": (0.1, 30.0, False),
    "carSpeed": (0.1, 100.0, False),
    "walkReluctance": (0.0, MAX_FACTOR, False),
    "stairsReluctance": (0.0, MAX_FACTOR, False),
    "bikeReluctance": (0.0, MAX_FACTOR, False),
    "carReluctance": (0.0, MAX_FACTOR, False),
    "waitReluctance": (0.0, MAX_FACTOR, False),
    "waitAtBeginningFactor": (0.0, MAX_FACTOR, False),
    "driveDistanceReluctance": (-MAX_FACTOR, MAX_FACTOR, False),
    "driveTimeReluctance": (-MAX_FACTOR, MAX_FACTOR, False),
    "walkBoardCost": (0.0, MAX_COST, False),
    "bikeBoardCost": (0.0, MAX_COST, False),
    "bikeSwitchCost": (0.0, MAX_COST, False),
    "transferPenalty": (0.0, MAX_COST, False),
    "nonpreferredTransferPenalty": (0.0, MAX_COST, False),
    "otherThanPreferredRoutesPenalty": (0.0, MAX_COST, False),
    "useUnpreferredRoutesPenalty": (0.0, MAX_COST, False),
    "bikeSwitchTime": (0, MAX_SLACK_S, False),
    "minTransferTime": (0, MAX_SLACK_S, False),
    "boardSlack": (0, MAX_SLACK_S, False),
    "alightSlack": (0, MAX_SLACK_S, False),
    "maxTransfers": (0, MAX_TRANSFERS, False),
    "maxPreTransitTime": (0, 86_400, False),
    "clampInitialWait": (-1, 86_400, False),
    "maxWalkDistance": (0.0, math.inf, False),
    "maxSlope": (0.0, 1.0, False),
    "triangleSafetyFactor": (0.0, 1.0, False),
    "triangleSlopeFactor": (0.0, 1.0, False),
    "triangleTimeFactor": (0.0, 1.0, False),
    "numItineraries": (1, 20, False),
    "maxHours": (0.0, 24.0 * 365, True),
    "searchTimeout": (0, 3_600_000, False),
    "minTransitDistance": (0.0, 100.0, False),
    "flexFlagStopBufferSize": (0.0, 10_000.0, False),
    "watts": (0.0, 10_000.0, True),
    "weight": (0.0, 1000.0, True),
    "minimumMicromobilitySpeed": (0.0, 30.0, True),
    "maximumMicromobilitySpeed": (0.0, 30.0, True),
    "aerodynamicDrag": (0.0, 10.0, True),
}
#: How far the triangle factors' sum may be from 1 (they are then scaled to sum to 1).
TRIANGLE_TOLERANCE = 0.01
#: Most itineraries one request may ask for (bounds the cost of a request).
MAX_ITINERARIES = int(PARAMETER_RANGES["numItineraries"][1])


def _shown(value: float) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def check_range(parameter: str, value: float) -> None:
    """Raise unless ``value`` lies in the valid range of an OTP parameter.

    Parameters
    ----------
    parameter
        The OTP 1.x query-parameter name (a key of :data:`PARAMETER_RANGES`).
    value
        The value to check.

    Raises
    ------
    InvalidRequestError
        Naming ``parameter`` when ``value`` is NaN, infinite (where the range is
        finite) or out of range.

    Examples
    --------
    >>> check_range("walkSpeed", 1.33)
    >>> check_range("walkReluctance", 1e19)
    Traceback (most recent call last):
    ...
    otpa.routing.errors.InvalidRequestError: walkReluctance must be between 0 and 1000, got 1e+19
    """
    lo, hi, lo_open = PARAMETER_RANGES[parameter]
    v = float(value)
    ok = (lo < v if lo_open else lo <= v) and v <= hi and not math.isnan(v)
    if not ok:
        low = f"more than {_shown(lo)} and at most" if lo_open else f"between {_shown(lo)} and"
        msg = f"{parameter} must be {low} {_shown(hi)}, got {_shown(v)}"
        raise InvalidRequestError(msg, parameter=parameter)


def _check_all(checks: dict[str, float]) -> None:
    for parameter, value in checks.items():
        check_range(parameter, value)


@dataclass(frozen=True)
class TriangleFactors:
    """Weights of ``optimize=TRIANGLE``: safety, slope and time, summing to 1.

    Factors whose sum is within :data:`TRIANGLE_TOLERANCE` of 1 are accepted and
    scaled to sum to 1: OTP 1.x's web client rounds the factors of its bike
    triangle (``0.3333, 0.3333, 0.3292`` sums to 0.9958), while OTP 1.x's own
    check (3 ulp) refused them with a server error.

    Examples
    --------
    >>> t = TriangleFactors(0.5, 0.25, 0.2458)
    >>> round(t.safety + t.slope + t.time, 12), round(t.safety, 4)
    (1.0, 0.5021)
    """

    safety: float
    slope: float
    time: float

    def __post_init__(self) -> None:
        for name in ("safety", "slope", "time"):
            check_range(f"triangle{name.title()}Factor", getattr(self, name))
        total = self.safety + self.slope + self.time
        if abs(total - 1.0) > TRIANGLE_TOLERANCE:
            msg = (
                "triangleSafetyFactor + triangleSlopeFactor + triangleTimeFactor must be 1 "
                f"(within {TRIANGLE_TOLERANCE:g}), got {total!r}"
            )
            raise InvalidRequestError(
                msg, parameter="triangleSafetyFactor", code="TRIANGLE_NOT_AFFINE"
            )
        if abs(total - 1.0) > 1e-9:
            for name in ("safety", "slope", "time"):
                object.__setattr__(self, name, getattr(self, name) / total)


@dataclass(frozen=True)
class WalkPreferences:
    """Walking: speed, reluctance, board cost and the (soft) walk limit.

    ``soft_limit`` (OTP 1.x ``softWalkLimiting``, on by default): walking to and from
    transit beyond ``max_distance_m`` costs extra instead of being impossible; off, the
    limit is hard (the analysis functions' access limit).
    """

    speed_mps: float = WALK_SPEED_MPS
    reluctance: float = WALK_RELUCTANCE
    board_cost: float = 600.0
    max_distance_m: float | None = None
    stairs_reluctance: float = STAIRS_RELUCTANCE
    soft_limit: bool = True

    def __post_init__(self) -> None:
        _check_all(
            {
                "walkSpeed": self.speed_mps,
                "walkReluctance": self.reluctance,
                "walkBoardCost": self.board_cost,
                "stairsReluctance": self.stairs_reluctance,
            }
        )
        if self.max_distance_m is not None:
            check_range("maxWalkDistance", self.max_distance_m)

    @property
    def effective_max_distance_m(self) -> float:
        """The limit OTP 1.x applies: 2 km when unlimited, at most 15 km."""
        if self.max_distance_m is None or self.max_distance_m >= 1e300:
            return DEFAULT_MAX_WALK_M
        return min(self.max_distance_m, MAX_WALK_CLAMP_M)


@dataclass(frozen=True)
class BikePreferences:
    """Cycling: speed, board cost, what to optimise."""

    speed_mps: float = BIKE_SPEED_MPS
    board_cost: float = 600.0
    optimize: Optimize = Optimize.QUICK
    triangle: TriangleFactors | None = None
    switch_time_s: int = 0
    switch_cost: float = 0.0
    reluctance: float = 1.0

    def __post_init__(self) -> None:
        _check_all(
            {
                "bikeSpeed": self.speed_mps,
                "bikeBoardCost": self.board_cost,
                "bikeSwitchTime": self.switch_time_s,
                "bikeSwitchCost": self.switch_cost,
                "bikeReluctance": self.reluctance,
            }
        )
        if self.optimize is Optimize.TRIANGLE and self.triangle is None:
            msg = (
                "optimize=TRIANGLE needs triangleSafetyFactor, triangleSlopeFactor and "
                "triangleTimeFactor"
            )
            raise InvalidRequestError(
                msg, parameter="triangleSafetyFactor", code="UNDERSPECIFIED_TRIANGLE"
            )


@dataclass(frozen=True)
class CarPreferences:
    """Driving: speed and the drive-to-transit time limit."""

    speed_mps: float = 40.0
    reluctance: float = 1.0
    max_pre_transit_time_s: int = 1800
    drive_distance_reluctance: float = -1.0
    drive_time_reluctance: float = -1.0

    def __post_init__(self) -> None:
        _check_all(
            {
                "carSpeed": self.speed_mps,
                "carReluctance": self.reluctance,
                "maxPreTransitTime": self.max_pre_transit_time_s,
                "driveDistanceReluctance": self.drive_distance_reluctance,
                "driveTimeReluctance": self.drive_time_reluctance,
            }
        )


@dataclass(frozen=True)
class AccessibilityPreferences:
    """How a wheelchair user treats trips (or stops) not known to be accessible (OTP 2).

    Attributes
    ----------
    only_consider_accessible
        Strict mode: use only those marked accessible (GTFS value 1).
    unknown_cost
        Otherwise, the extra generalized cost (seconds) of using one without
        information (GTFS value 0 or absent)...
    inaccessible_cost
        ...and of using one marked inaccessible (GTFS value 2).
    """

    only_consider_accessible: bool = False
    unknown_cost: float = 600.0
    inaccessible_cost: float = 3600.0

    def __post_init__(self) -> None:
        # router-config keys (wheelchairAccessibility), not query parameters: same cost bounds
        for name, value in (
            ("unknownCost", self.unknown_cost),
            ("inaccessibleCost", self.inaccessible_cost),
        ):
            if not 0.0 <= value <= MAX_COST:
                msg = f"{name} must be between 0 and {MAX_COST:g}, not {value!r}"
                raise InvalidRequestError(msg, parameter=name)


def default_elevator() -> AccessibilityPreferences:
    """OTP 2's elevator costs: 20 s unknown, 3600 s inaccessible."""
    return AccessibilityPreferences(unknown_cost=20.0, inaccessible_cost=3600.0)


@dataclass(frozen=True)
class WheelchairPreferences:
    """Wheelchair accessibility: trips and stops, no steps, a slope limit.

    With ``enabled``, trips and stops not known to be accessible cost extra
    (``trip``, ``stop``: OTP 2's costs, 600 s unknown and 3600 s inaccessible per
    boarding, per boarding or alighting at a stop) rather than being forbidden, so a
    stop without accessibility data still gets a trip; ``only_consider_accessible``
    is the strict mode.  ``elevator``: OTP 2's costs (20 s unknown, 3600 s
    inaccessible) of passing through an OSM ``highway=elevator`` node by its
    ``wheelchair`` tag, on wheelchair walks.
    """

    enabled: bool = False
    max_slope: float = MAX_SLOPE
    trip: AccessibilityPreferences = field(default_factory=AccessibilityPreferences)
    stop: AccessibilityPreferences = field(default_factory=AccessibilityPreferences)
    elevator: AccessibilityPreferences = field(default_factory=default_elevator)

    def __post_init__(self) -> None:
        check_range("maxSlope", self.max_slope)


def wheelchair_accessibility_config(config: object) -> dict[str, AccessibilityPreferences]:
    """Read router-config ``routingDefaults.wheelchairAccessibility`` (OTP 2's layout).

    ``{"trip": {...}, "stop": {...}, "elevator": {...}}``, each with
    ``onlyConsiderAccessible`` (bool), ``unknownCost`` and ``inaccessibleCost``
    (non-negative numbers); what is left out keeps its default.  Other keys of
    OTP 2's object (``maxSlope``...) are not read here.

    Returns
    -------
    dict
        Keyword arguments of :class:`WheelchairPreferences` (``trip``, ``stop``, ``elevator``).

    Raises
    ------
    otpa.errors.InvalidArgumentError
        For a value of the wrong type.

    Examples
    --------
    >>> trip = wheelchair_accessibility_config({"trip": {"onlyConsiderAccessible": True}})["trip"]
    >>> trip.only_consider_accessible, trip.unknown_cost, trip.inaccessible_cost
    (True, 600.0, 3600.0)
    """
    if not isinstance(config, dict):
        msg = "wheelchairAccessibility must be a JSON object"
        raise InvalidArgumentError(msg)
    defaults = WheelchairPreferences()
    out: dict[str, AccessibilityPreferences] = {}
    for part in ("trip", "stop", "elevator"):
        given = config.get(part)
        if given is None:
            continue
        if not isinstance(given, dict):
            msg = f"wheelchairAccessibility.{part} must be a JSON object"
            raise InvalidArgumentError(msg)
        base: AccessibilityPreferences = getattr(defaults, part)
        only = given.get("onlyConsiderAccessible", base.only_consider_accessible)
        if not isinstance(only, bool):
            msg = f"wheelchairAccessibility.{part}.onlyConsiderAccessible must be a boolean"
            raise InvalidArgumentError(msg)
        costs = []
        for key, value in (
            ("unknownCost", given.get("unknownCost", base.unknown_cost)),
            ("inaccessibleCost", given.get("inaccessibleCost", base.inaccessible_cost)),
        ):
            if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
                msg = f"wheelchairAccessibility.{part}.{key} must be a non-negative number"
                raise InvalidArgumentError(msg)
            costs.append(float(value))
        out[part] = AccessibilityPreferences(only, costs[0], costs[1])
    return out


@dataclass(frozen=True)
class TransitPreferences:
    """Boarding, waiting and transferring (OTP 1.x defaults)."""

    max_transfers: int = 4
    min_transfer_time_s: int = 0
    board_slack_s: int = 0
    alight_slack_s: int = 0
    transfer_penalty: float = 0.0
    nonpreferred_transfer_penalty: float = 180.0
    wait_reluctance: float = 1.0
    wait_at_beginning_factor: float = 0.4
    clamp_initial_wait_s: int = -1
    other_than_preferred_routes_penalty: float = 300.0
    unpreferred_routes_penalty: float = 300.0
    only_transit_trips: bool = False

    def __post_init__(self) -> None:
        _check_all(
            {
                "maxTransfers": self.max_transfers,
                "minTransferTime": self.min_transfer_time_s,
                "boardSlack": self.board_slack_s,
                "alightSlack": self.alight_slack_s,
                "transferPenalty": self.transfer_penalty,
                "nonpreferredTransferPenalty": self.nonpreferred_transfer_penalty,
                "waitReluctance": self.wait_reluctance,
                "waitAtBeginningFactor": self.wait_at_beginning_factor,
                "clampInitialWait": self.clamp_initial_wait_s,
                "otherThanPreferredRoutesPenalty": self.other_than_preferred_routes_penalty,
                "useUnpreferredRoutesPenalty": self.unpreferred_routes_penalty,
            }
        )
        if self.min_transfer_time_s and (
            self.board_slack_s + self.alight_slack_s > self.min_transfer_time_s
        ):
            msg = (
                f"boardSlack + alightSlack ({self.board_slack_s + self.alight_slack_s} s) "
                f"must not exceed minTransferTime ({self.min_transfer_time_s} s)"
            )
            raise InvalidRequestError(msg, parameter="minTransferTime")


@dataclass(frozen=True)
class RentalPreferences:
    """Rental, park-and-ride and ride-hail options (routing them is a later feature)."""

    bike_rental: bool = False
    car_rental: bool = False
    vehicle_rental: bool = False
    bike_park: bool = False
    park_and_ride: bool = False
    kiss_and_ride: bool = False
    ride_hail: bool = False
    companies: tuple[str, ...] = ()


@dataclass(frozen=True)
class MicromobilityPreferences:
    """Micromobility vehicle physics (OTP ibi defaults)."""

    watts: float = 250.0
    weight_kg: float = 105.0
    min_speed_mps: float = 0.8
    max_speed_mps: float = 5.0

    def __post_init__(self) -> None:
        _check_all(
            {
                "watts": self.watts,
                "weight": self.weight_kg,
                "minimumMicromobilitySpeed": self.min_speed_mps,
                "maximumMicromobilitySpeed": self.max_speed_mps,
            }
        )
        if self.min_speed_mps > self.max_speed_mps:
            msg = "minimumMicromobilitySpeed must not exceed maximumMicromobilitySpeed"
            raise InvalidRequestError(msg, parameter="minimumMicromobilitySpeed")


@dataclass(frozen=True)
class FlexPreferences:
    """GTFS-Flex options (the ibi fork's ``flex*`` parameters).

    ``enabled``: ride flex services (on-demand zones, deviated routes) as access,
    egress and direct trips when the network has them.  ``booking_time``: when
    the ride is booked (default: the moment of planning), for the booking rules'
    prior notice, which ``ignore_drt_advance_book_min`` lifts.
    ``use_reservation_services`` / ``use_eligibility_services``: whether services
    that must be booked / that are restricted to eligible riders may be used.
    ``flag_stop_buffer_size``: how far (metres) from a route with continuous pickup
    or drop-off a rider may be picked up or set down; flag stops are not routed, so
    :func:`otpa.plan` refuses a value above 0 on a network with flex services.
    """

    flag_stop_buffer_size: float = 0.0
    use_reservation_services: bool = True
    use_eligibility_services: bool = True
    ignore_drt_advance_book_min: bool = False
    enabled: bool = True
    booking_time: dt.datetime | None = None

    def __post_init__(self) -> None:
        check_range("flexFlagStopBufferSize", self.flag_stop_buffer_size)


@dataclass(frozen=True)
class ItineraryPreferences:
    """How many itineraries, how they are filtered, sorted and decorated."""

    num_itineraries: int = 3
    max_hours: float | None = None
    use_requested_date_time_in_max_hours: bool = False
    search_timeout_ms: int | None = None
    path_comparator: str | None = None
    min_transit_distance_pct: float | None = None
    show_intermediate_stops: bool = False
    locale: str = "en"
    batch: bool = False
    ignore_realtime_updates: bool = False
    disable_alert_filtering: bool = False
    geoid_elevation: bool = False
    reverse_optimize_on_the_fly: bool = False
    disable_remaining_weight_heuristic: bool = False
    invalid_date_strategy: str | None = None
    extra: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_range("numItineraries", self.num_itineraries)
        if self.max_hours is not None:
            check_range("maxHours", self.max_hours)
        if self.search_timeout_ms is not None:
            check_range("searchTimeout", self.search_timeout_ms)
        if self.path_comparator not in (None, "duration"):
            msg = f"pathComparator must be 'duration' when given, got {self.path_comparator!r}"
            raise InvalidRequestError(msg, parameter="pathComparator")
        if self.min_transit_distance_pct is not None:
            check_range("minTransitDistance", self.min_transit_distance_pct)
