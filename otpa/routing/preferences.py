"""Per-concern preference objects of a plan request (all frozen, OTP 1.x defaults).

A :class:`~otpa.routing.request.PlanRequest` is assembled from these; change one
with :func:`dataclasses.replace`.  Every default is the OTP 1.x default, so an
empty request here plans like an OTP 1.x request without parameters.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum

from otpa.routing.errors import InvalidRequestError

__all__ = [
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
    "wheelchair_accessibility_config",
]

#: OTP 1.x replaces an unlimited ``maxWalkDistance`` by this for transit searches.
DEFAULT_MAX_WALK_M = 2000.0
#: OTP 1.x clamps ``maxWalkDistance`` to this.
MAX_WALK_CLAMP_M = 15000.0
#: Most itineraries one request may ask for (bounds the cost of a request).
MAX_ITINERARIES = 20


class Optimize(StrEnum):
    """What a bicycle route optimises (OTP ``OptimizeType``)."""

    QUICK = "QUICK"
    SAFE = "SAFE"
    FLAT = "FLAT"
    GREENWAYS = "GREENWAYS"
    TRIANGLE = "TRIANGLE"
    TRANSFERS = "TRANSFERS"


def _non_negative(name: str, value: float) -> None:
    if not math.isfinite(value) or value < 0:
        msg = f"{name} must be a finite number >= 0, got {value!r}"
        raise InvalidRequestError(msg, parameter=name)


def _positive(name: str, value: float) -> None:
    if not math.isfinite(value) or value <= 0:
        msg = f"{name} must be a finite number > 0, got {value!r}"
        raise InvalidRequestError(msg, parameter=name)


@dataclass(frozen=True)
class TriangleFactors:
    """Weights of ``optimize=TRIANGLE``: safety, slope and time, summing to 1."""

    safety: float
    slope: float
    time: float

    def __post_init__(self) -> None:
        for name in ("safety", "slope", "time"):
            value = getattr(self, name)
            if not math.isfinite(value) or not 0.0 <= value <= 1.0:
                msg = f"triangle{name.title()}Factor must be between 0 and 1, got {value!r}"
                raise InvalidRequestError(msg, parameter=f"triangle{name.title()}Factor")
        total = self.safety + self.slope + self.time
        if abs(total - 1.0) > 1e-9:
            msg = (
                "triangleSafetyFactor + triangleSlopeFactor + triangleTimeFactor must be 1, "
                f"got {total!r}"
            )
            raise InvalidRequestError(
                msg, parameter="triangleSafetyFactor", code="TRIANGLE_NOT_AFFINE"
            )


@dataclass(frozen=True)
class WalkPreferences:
    """Walking: speed, reluctance, board cost and the (soft) walk limit.

    ``soft_limit`` (OTP 1.x ``softWalkLimiting``, on by default): walking to and from
    transit beyond ``max_distance_m`` costs extra instead of being impossible; off, the
    limit is hard (the analysis functions' access limit).
    """

    speed_mps: float = 1.33
    reluctance: float = 2.0
    board_cost: float = 600.0
    max_distance_m: float | None = None
    stairs_reluctance: float = 2.0
    soft_limit: bool = True

    def __post_init__(self) -> None:
        _positive("walkSpeed", self.speed_mps)
        _non_negative("walkReluctance", self.reluctance)
        _non_negative("walkBoardCost", self.board_cost)
        if self.max_distance_m is not None:
            _non_negative("maxWalkDistance", self.max_distance_m)

    @property
    def effective_max_distance_m(self) -> float:
        """The limit OTP 1.x applies: 2 km when unlimited, at most 15 km."""
        if self.max_distance_m is None or self.max_distance_m >= 1e300:
            return DEFAULT_MAX_WALK_M
        return min(self.max_distance_m, MAX_WALK_CLAMP_M)


@dataclass(frozen=True)
class BikePreferences:
    """Cycling: speed, board cost, what to optimise."""

    speed_mps: float = 5.0
    board_cost: float = 600.0
    optimize: Optimize = Optimize.QUICK
    triangle: TriangleFactors | None = None
    switch_time_s: int = 0
    switch_cost: float = 0.0
    reluctance: float = 1.0

    def __post_init__(self) -> None:
        _positive("bikeSpeed", self.speed_mps)
        _non_negative("bikeBoardCost", self.board_cost)
        _non_negative("bikeSwitchTime", self.switch_time_s)
        _non_negative("bikeSwitchCost", self.switch_cost)
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
        _positive("carSpeed", self.speed_mps)
        _non_negative("maxPreTransitTime", self.max_pre_transit_time_s)


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
        _non_negative("unknownCost", self.unknown_cost)
        _non_negative("inaccessibleCost", self.inaccessible_cost)


def _default_elevator() -> AccessibilityPreferences:
    return AccessibilityPreferences(unknown_cost=20.0, inaccessible_cost=3600.0)


@dataclass(frozen=True)
class WheelchairPreferences:
    """Wheelchair accessibility: trips and stops, no steps, a slope limit.

    With ``enabled``, trips and stops not known to be accessible cost extra
    (``trip``, ``stop``: OTP 2's costs, 600 s unknown and 3600 s inaccessible per
    boarding, per boarding or alighting at a stop) rather than being forbidden, so a
    stop without accessibility data still gets a trip; ``only_consider_accessible``
    is the strict mode.  ``elevator`` holds OTP 2's elevator costs (20 s / 3600 s);
    the street graph has no elevator edges yet, so it changes nothing today.
    """

    enabled: bool = False
    max_slope: float = 0.0833333333333
    trip: AccessibilityPreferences = field(default_factory=AccessibilityPreferences)
    stop: AccessibilityPreferences = field(default_factory=AccessibilityPreferences)
    elevator: AccessibilityPreferences = field(default_factory=_default_elevator)

    def __post_init__(self) -> None:
        _non_negative("maxSlope", self.max_slope)


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
    ValueError
        For a value of the wrong type.

    Examples
    --------
    >>> trip = wheelchair_accessibility_config({"trip": {"onlyConsiderAccessible": True}})["trip"]
    >>> trip.only_consider_accessible, trip.unknown_cost, trip.inaccessible_cost
    (True, 600.0, 3600.0)
    """
    if not isinstance(config, dict):
        msg = "wheelchairAccessibility must be a JSON object"
        raise ValueError(msg)
    defaults = WheelchairPreferences()
    out: dict[str, AccessibilityPreferences] = {}
    for part in ("trip", "stop", "elevator"):
        given = config.get(part)
        if given is None:
            continue
        if not isinstance(given, dict):
            msg = f"wheelchairAccessibility.{part} must be a JSON object"
            raise ValueError(msg)
        base: AccessibilityPreferences = getattr(defaults, part)
        only = given.get("onlyConsiderAccessible", base.only_consider_accessible)
        if not isinstance(only, bool):
            msg = f"wheelchairAccessibility.{part}.onlyConsiderAccessible must be a boolean"
            raise ValueError(msg)
        costs = []
        for key, value in (
            ("unknownCost", given.get("unknownCost", base.unknown_cost)),
            ("inaccessibleCost", given.get("inaccessibleCost", base.inaccessible_cost)),
        ):
            if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
                msg = f"wheelchairAccessibility.{part}.{key} must be a non-negative number"
                raise ValueError(msg)
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
        _non_negative("maxTransfers", self.max_transfers)
        _non_negative("minTransferTime", self.min_transfer_time_s)
        _non_negative("boardSlack", self.board_slack_s)
        _non_negative("alightSlack", self.alight_slack_s)
        _non_negative("waitReluctance", self.wait_reluctance)
        _non_negative("waitAtBeginningFactor", self.wait_at_beginning_factor)
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
        _positive("watts", self.watts)
        _positive("weight", self.weight_kg)
        _positive("minimumMicromobilitySpeed", self.min_speed_mps)
        _positive("maximumMicromobilitySpeed", self.max_speed_mps)
        if self.min_speed_mps > self.max_speed_mps:
            msg = "minimumMicromobilitySpeed must not exceed maximumMicromobilitySpeed"
            raise InvalidRequestError(msg, parameter="minimumMicromobilitySpeed")


@dataclass(frozen=True)
class FlexPreferences:
    """GTFS-Flex options (routing flex services is a later feature)."""

    flag_stop_buffer_size: float = 0.0
    use_reservation_services: bool = True
    use_eligibility_services: bool = True
    ignore_drt_advance_book_min: bool = False


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
        if not 1 <= self.num_itineraries <= MAX_ITINERARIES:
            n = self.num_itineraries
            msg = f"numItineraries must be between 1 and {MAX_ITINERARIES}, got {n}"
            raise InvalidRequestError(msg, parameter="numItineraries")
        if self.max_hours is not None:
            _positive("maxHours", self.max_hours)
        if self.path_comparator not in (None, "duration"):
            msg = f"pathComparator must be 'duration' when given, got {self.path_comparator!r}"
            raise InvalidRequestError(msg, parameter="pathComparator")
        if self.min_transit_distance_pct is not None and not (
            0.0 <= self.min_transit_distance_pct <= 100.0
        ):
            msg = "minTransitDistance must be a percentage between 0% and 100%"
            raise InvalidRequestError(msg, parameter="minTransitDistance")
