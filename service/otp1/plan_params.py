"""The query parameters of ``GET /otp/routers/{routerId}/plan``: one table, one builder.

:data:`PARAMETERS` lists OTP 1.x's 72 plan parameters (``RoutingResource``)
with their OTP type, the :class:`~otpa.routing.PlanRequest` field they fill
and the converter that reads them.  :func:`plan_request_from_query` turns a
query string into the frozen request.  Defaults live in the library: a row's
``default`` of None means "the library's default"; router-level defaults
(router-config ``routingDefaults``) come in as :class:`RoutingDefaults` and go
through the same converters as query values.

Unreadable values raise :class:`~otpa.routing.errors.InvalidRequestError`
naming the parameter, and so do values out of their documented range (the
preference objects check :data:`otpa.routing.preferences.PARAMETER_RANGES`).
The ``/plan`` handler answers every one with OTP's PlannerError in a 200
(``BOGUS_PARAMETER``, or the error's own code such as ``TRIANGLE_NOT_AFFINE``),
where OTP 1.x often failed with a 500; the analysis endpoints answer 400.

OTP 1.x rules applied here: ``optimize=TRANSFERS`` is ``QUICK`` plus 1800 s
of transfer penalty; negative ``walkBoardCost``, ``bikeBoardCost`` and
``otherThanPreferredRoutesPenalty`` become 0; a non-positive ``walkReluctance``,
``waitReluctance``, ``waitAtBeginningFactor`` or ``maxPreTransitTime`` and a
negative ``maxWalkDistance`` are ignored (OTP's setters skipped them);
renting a bicycle without ``bikeSpeed`` rides at 4.3 m/s; a request without
transit asks for one itinerary; kiss-and-ride and park-and-ride only take
transit trips.  An empty value (``bannedRoutes=``) counts as absent.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from otpa.errors import InvalidArgumentError
from otpa.routing.errors import InvalidRequestError
from otpa.routing.parse import (
    parse_agency_ids,
    parse_banned_trips,
    parse_date_time,
    parse_feed_scoped_id,
    parse_location,
    parse_modes,
    parse_route_specs,
    parse_stop_ids,
    rental_preferences,
)
from otpa.routing.preferences import (
    AccessibilityPreferences,
    BikePreferences,
    CarPreferences,
    FlexPreferences,
    ItineraryPreferences,
    MicromobilityPreferences,
    Optimize,
    RentalPreferences,
    TransitPreferences,
    TriangleFactors,
    WalkPreferences,
    WheelchairPreferences,
    check_range,
    wheelchair_accessibility_config,
)
from otpa.routing.request import PlanRequest, RequestModes, TransitFilters

__all__ = [
    "PARAMETERS",
    "PARAMETERS_BY_NAME",
    "PlanParam",
    "RoutingDefaults",
    "plan_request_from_query",
]

Converter = Callable[[str, str], Any]


class _Ignore:
    """A value OTP 1.x's setters silently skipped (the default stays)."""


IGNORE = _Ignore()
_INT_RANGE = (-(2**31), 2**31 - 1)
_LONG_RANGE = (-(2**63), 2**63 - 1)
_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_MAX_DIGITS = 19
_TRUE = frozenset({"true", "1", "yes"})
_FALSE = frozenset({"false", "0", "no"})
_BIKE_RENTAL_SPEED_MPS = 4.3  # OTP 1.x: "slower bike speed for bike sharing"
_TRANSFERS_PENALTY = 1800.0  # OTP 1.x: optimize=TRANSFERS adds this to transferPenalty
_TRIANGLE = ("triangleSafetyFactor", "triangleSlopeFactor", "triangleTimeFactor")


def _bad(parameter: str, raw: str, expected: str) -> InvalidRequestError:
    shown = raw if len(raw) <= 80 else raw[:77] + "..."
    msg = f"Query parameter {parameter}={shown!r} is not {expected}."
    return InvalidRequestError(msg, parameter=parameter)


# -- converters: (parameter name, raw text) -> value --------------------------------------------


def _string(parameter: str, raw: str) -> str:
    return raw


def _bounded_int(parameter: str, raw: str, bounds: tuple[int, int], kind: str) -> int:
    text = raw.strip()
    # a Java int or long has at most 19 digits: longer ones are out of range (and Python
    # refuses to convert more than 4300 digits), whatever their leading zeros
    digits = text.lstrip("+-").lstrip("0")
    if not _INTEGER.fullmatch(text) or len(digits) > _MAX_DIGITS:
        raise _bad(parameter, raw, kind)
    value = -int(digits or "0") if text.startswith("-") else int(digits or "0")
    if not bounds[0] <= value <= bounds[1]:
        raise _bad(parameter, raw, kind)
    return value


def _int(parameter: str, raw: str) -> int:
    return _bounded_int(parameter, raw, _INT_RANGE, "an integer (32-bit)")


def _long(parameter: str, raw: str) -> int:
    return _bounded_int(parameter, raw, _LONG_RANGE, "an integer (64-bit)")


def _double(parameter: str, raw: str) -> float:
    text = raw.strip()
    value = float(text) if _DECIMAL.fullmatch(text) else math.nan
    if not math.isfinite(value):
        raise _bad(parameter, raw, "a finite decimal number")
    return value


def _int_cost(parameter: str, raw: str) -> float:
    return float(_int(parameter, raw))


def _int_cost_min0(parameter: str, raw: str) -> float:
    return float(max(0, _int(parameter, raw)))


def _double_if_positive(parameter: str, raw: str) -> float | _Ignore:
    value = _double(parameter, raw)
    return value if value > 0 else IGNORE


def _double_if_non_negative(parameter: str, raw: str) -> float | _Ignore:
    value = _double(parameter, raw)
    return value if value >= 0 else IGNORE


def _int_if_positive(parameter: str, raw: str) -> int | _Ignore:
    value = _int(parameter, raw)
    return value if value > 0 else IGNORE


def _bool(parameter: str, raw: str) -> bool:
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise _bad(parameter, raw, "a boolean (true or false)")


def _optimize(parameter: str, raw: str) -> Optimize:
    try:
        return Optimize(raw)
    except ValueError:
        raise _bad(parameter, raw, "one of " + ", ".join(o.value for o in Optimize)) from None


def _place(parameter: str, raw: str) -> Any:
    return parse_location(raw, parameter=parameter)


def _route_specs(parameter: str, raw: str) -> Any:
    return parse_route_specs(raw, parameter)


def _agencies(parameter: str, raw: str) -> frozenset[str]:
    return parse_agency_ids(raw)


def _stops(parameter: str, raw: str) -> frozenset[str]:
    return parse_stop_ids(raw, parameter)


def _banned_trips(parameter: str, raw: str) -> dict[str, tuple[int, ...]]:
    return parse_banned_trips(raw)


def _modes(parameter: str, raw: str) -> RequestModes:
    return parse_modes(raw)


def _feed_scoped_id(parameter: str, raw: str) -> str:
    return parse_feed_scoped_id(raw, parameter)


def _companies(parameter: str, raw: str) -> tuple[str, ...]:
    return tuple(c for c in raw.split(",") if c)


def _locale(parameter: str, raw: str) -> str:
    """OTP's ``xx``, ``xx_YY``, ``xx_YY_v``: only the language counts; else ``en``."""
    parts = raw.split("_")
    return parts[0].lower() if 1 <= len(parts) <= 3 and parts[0] else "en"


def _percentage(parameter: str, raw: str) -> float:
    text = raw.strip()
    if not text.endswith("%"):
        raise _bad(parameter, raw, "a percentage such as 50%")
    return _double(parameter, text[:-1])


def _search_timeout(parameter: str, raw: str) -> int | _Ignore:
    value = _long(parameter, raw)
    return value if value >= 0 else IGNORE  # OTP: -1 = use the router's timeouts


def _path_comparator(parameter: str, raw: str) -> str | _Ignore:
    return "duration" if raw == "duration" else IGNORE  # OTP: anything else = default order


def _ranged_double(parameter: str, raw: str) -> float:
    """A decimal within its range (:data:`otpa.routing.preferences.PARAMETER_RANGES`)."""
    value = _double(parameter, raw)
    check_range(parameter, value)
    return value


def _long_if_non_negative(parameter: str, raw: str) -> int | _Ignore:
    value = _long(parameter, raw)
    return value if value >= 0 else IGNORE  # OTP: negative = the router's default


# -- the table ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlanParam:
    """One plan query parameter.

    Attributes
    ----------
    name
        The OTP 1.x query parameter.
    otp_type
        Its Java type in OTP 1.x (for documentation and error wording).
    target
        The :class:`~otpa.routing.PlanRequest` field it fills: a top-level
        field (``arrive_by``) or ``group.field`` (``walk.speed_mps``).
    convert
        Reads the raw text (raises :class:`InvalidRequestError`).
    default
        None: the library default applies.
    query
        False for router-config keys that are not query parameters.
    """

    name: str
    otp_type: str
    target: str
    convert: Converter
    default: Any = None
    query: bool = True


P = PlanParam
#: Every plan parameter, in OTP 1.x's ``RoutingResource`` order (72), then the
#: ibi extension ``aerodynamicDrag`` and three router-config-only defaults.
PARAMETERS: tuple[PlanParam, ...] = (
    P("fromPlace", "String", "from_place", _place),
    P("toPlace", "String", "to_place", _place),
    P("intermediatePlaces", "List<String>", "intermediate_places", _place),
    P("date", "String", "date_time", _string),
    P("time", "String", "date_time", _string),
    P("arriveBy", "Boolean", "arrive_by", _bool),
    P("wheelchair", "Boolean", "wheelchair.enabled", _bool),
    P("maxSlope", "Double", "wheelchair.max_slope", _double),
    P("maxWalkDistance", "Double", "walk.max_distance_m", _double_if_non_negative),
    P("maxPreTransitTime", "Integer", "car.max_pre_transit_time_s", _int_if_positive),
    P("walkReluctance", "Double", "walk.reluctance", _double_if_positive),
    P("waitReluctance", "Double", "transit.wait_reluctance", _double_if_positive),
    P("driveDistanceReluctance", "Double", "car.drive_distance_reluctance", _double),
    P("driveTimeReluctance", "Double", "car.drive_time_reluctance", _double),
    P("waitAtBeginningFactor", "Double", "transit.wait_at_beginning_factor", _double_if_positive),
    P("walkSpeed", "Double", "walk.speed_mps", _double),
    P("bikeSpeed", "Double", "bike.speed_mps", _double),
    P("bikeSwitchTime", "Integer", "bike.switch_time_s", _int),
    P("bikeSwitchCost", "Integer", "bike.switch_cost", _int_cost),
    P("triangleSafetyFactor", "Double", "bike.triangle.safety", _double),
    P("triangleSlopeFactor", "Double", "bike.triangle.slope", _double),
    P("triangleTimeFactor", "Double", "bike.triangle.time", _double),
    P("optimize", "OptimizeType", "bike.optimize", _optimize),
    P("mode", "QualifiedModeSet", "modes", _modes),
    P("minTransferTime", "Integer", "transit.min_transfer_time_s", _int),
    P("numItineraries", "Integer", "itineraries.num_itineraries", _int),
    P("preferredRoutes", "String", "filters.preferred_routes", _route_specs),
    P(
        "otherThanPreferredRoutesPenalty",
        "Integer",
        "transit.other_than_preferred_routes_penalty",
        _int_cost_min0,
    ),
    P("preferredAgencies", "String", "filters.preferred_agencies", _agencies),
    P("unpreferredRoutes", "String", "filters.unpreferred_routes", _route_specs),
    P("unpreferredAgencies", "String", "filters.unpreferred_agencies", _agencies),
    P("showIntermediateStops", "Boolean", "itineraries.show_intermediate_stops", _bool),
    P("walkBoardCost", "Integer", "walk.board_cost", _int_cost_min0),
    P("bikeBoardCost", "Integer", "bike.board_cost", _int_cost_min0),
    P("bannedRoutes", "String", "filters.banned_routes", _route_specs),
    P("whiteListedRoutes", "String", "filters.whitelisted_routes", _route_specs),
    P("bannedAgencies", "String", "filters.banned_agencies", _agencies),
    P("whiteListedAgencies", "String", "filters.whitelisted_agencies", _agencies),
    P("bannedTrips", "String", "filters.banned_trips", _banned_trips),
    P("bannedStops", "String", "filters.banned_stops", _stops),
    P("bannedStopsHard", "String", "filters.banned_stops_hard", _stops),
    P("transferPenalty", "Integer", "transit.transfer_penalty", _int_cost),
    P("nonpreferredTransferPenalty", "Integer", "transit.nonpreferred_transfer_penalty", _int_cost),
    P("maxTransfers", "Integer", "transit.max_transfers", _int),
    P("batch", "Boolean", "itineraries.batch", _bool),
    P("startTransitStopId", "String", "start_transit_stop_id", _feed_scoped_id),
    P("startTransitTripId", "String", "start_transit_trip_id", _feed_scoped_id),
    P("clampInitialWait", "Long", "transit.clamp_initial_wait_s", _long_if_non_negative),
    P("reverseOptimizeOnTheFly", "Boolean", "itineraries.reverse_optimize_on_the_fly", _bool),
    P("boardSlack", "Integer", "transit.board_slack_s", _int),
    P("alightSlack", "Integer", "transit.alight_slack_s", _int),
    P("locale", "String", "itineraries.locale", _locale),
    P("ignoreRealtimeUpdates", "Boolean", "itineraries.ignore_realtime_updates", _bool),
    P(
        "disableRemainingWeightHeuristic",
        "Boolean",
        "itineraries.disable_remaining_weight_heuristic",
        _bool,
    ),
    P("flexFlagStopBufferSize", "Double", "flex.flag_stop_buffer_size", _double),
    P("flexUseReservationServices", "Boolean", "flex.use_reservation_services", _bool),
    P("flexUseEligibilityServices", "Boolean", "flex.use_eligibility_services", _bool),
    P("flexIgnoreDrtAdvanceBookMin", "Boolean", "flex.ignore_drt_advance_book_min", _bool),
    P("maxHours", "Double", "itineraries.max_hours", _double),
    P(
        "useRequestedDateTimeInMaxHours",
        "Boolean",
        "itineraries.use_requested_date_time_in_max_hours",
        _bool,
    ),
    P("disableAlertFiltering", "Boolean", "itineraries.disable_alert_filtering", _bool),
    P("geoidElevation", "Boolean", "itineraries.geoid_elevation", _bool),
    P("companies", "String", "rental.companies", _companies),
    P("invalidDateStrategy", "String", "itineraries.invalid_date_strategy", _string),
    P("minTransitDistance", "String", "itineraries.min_transit_distance_pct", _percentage),
    P("searchTimeout", "Long", "itineraries.search_timeout_ms", _search_timeout),
    P("pathComparator", "String", "itineraries.path_comparator", _path_comparator),
    P("onlyTransitTrips", "Boolean", "transit.only_transit_trips", _bool),
    P("watts", "Double", "micromobility.watts", _double),
    P("weight", "Double", "micromobility.weight_kg", _double),
    P("minimumMicromobilitySpeed", "Double", "micromobility.min_speed_mps", _double),
    P("maximumMicromobilitySpeed", "Double", "micromobility.max_speed_mps", _double),
    # ibi extension (micromobility drag, CdA), kept for the planner in ``itineraries.extra``
    P("aerodynamicDrag", "Double", "itineraries.extra.aerodynamicDrag", _ranged_double),
    # router-config ``routingDefaults`` keys that are not query parameters
    P("carSpeed", "double", "car.speed_mps", _double, query=False),
    P("stairsReluctance", "double", "walk.stairs_reluctance", _double, query=False),
    P(
        "useUnpreferredRoutesPenalty",
        "int",
        "transit.unpreferred_routes_penalty",
        _int_cost,
        query=False,
    ),
)
del P

PARAMETERS_BY_NAME: Mapping[str, PlanParam] = {p.name: p for p in PARAMETERS}
#: Where each parameter read from the query's first value stands in :data:`PARAMETERS`:
#: values are read (and refused) in that order.
_QUERY_ORDER: Mapping[str, int] = {
    p.name: i for i, p in enumerate(PARAMETERS) if p.query and p.name != "intermediatePlaces"
}

# Parameters combined by hand below rather than copied to their target.
_COMBINED = frozenset(
    {"date", "time", "mode", "companies", "optimize", *_TRIANGLE, "aerodynamicDrag"}
)
_GROUPS: Mapping[str, type] = {
    "walk": WalkPreferences,
    "bike": BikePreferences,
    "car": CarPreferences,
    "wheelchair": WheelchairPreferences,
    "transit": TransitPreferences,
    "filters": TransitFilters,
    "itineraries": ItineraryPreferences,
    "rental": RentalPreferences,
    "micromobility": MicromobilityPreferences,
    "flex": FlexPreferences,
}
_DEFAULT_PREFERENCES: Mapping[str, Any] = {name: cls() for name, cls in _GROUPS.items()}
# router-config (RoutingRequest field) names that differ from the query parameter names
_CONFIG_ALIASES = {
    "transferSlack": "minTransferTime",
    "modes": "mode",
    "wheelchairAccessible": "wheelchair",
}
_NOT_DEFAULTABLE = frozenset({"fromPlace", "toPlace", "intermediatePlaces", "date", "time"})


@dataclass(frozen=True)
class RoutingDefaults:
    """Router-level defaults: router-config ``routingDefaults``, as query-style text.

    They sit between the library's defaults and the query: a value applies
    when the query does not give the parameter, and is read by the same
    converter.  Build it with :meth:`from_router_config`.

    Attributes
    ----------
    values
        Raw text by query parameter name.
    ignored
        Keys of the router config that have no effect here.
    """

    values: Mapping[str, str] = field(default_factory=dict)
    ignored: tuple[str, ...] = ()
    wheelchair_accessibility: Mapping[str, AccessibilityPreferences] = field(default_factory=dict)

    @classmethod
    def from_router_config(cls, routing_defaults: Mapping[str, Any]) -> RoutingDefaults:
        """Read router-config ``routingDefaults`` (OTP ``RoutingRequest`` field names).

        Parameters
        ----------
        routing_defaults
            The JSON object, e.g. ``{"walkSpeed": 1.2, "transferSlack": 120}``.

        Returns
        -------
        RoutingDefaults

        Raises
        ------
        ValueError
            If a value is of the wrong type or out of range.

        Examples
        --------
        >>> d = RoutingDefaults.from_router_config({"walkSpeed": 1.2, "transferSlack": 120, "x": 1})
        >>> dict(d.values), d.ignored
        ({'walkSpeed': '1.2', 'minTransferTime': '120'}, ('x',))
        """
        values: dict[str, str] = {}
        ignored: list[str] = []
        wheelchair: dict[str, AccessibilityPreferences] = {}
        for key, value in routing_defaults.items():
            if key == "wheelchairAccessibility":  # OTP 2's trip/stop/elevator costs
                try:
                    wheelchair = wheelchair_accessibility_config(value)
                except (InvalidArgumentError, InvalidRequestError) as exc:
                    msg = f"routingDefaults: {exc}"
                    raise InvalidArgumentError(msg) from None
                continue
            name = _CONFIG_ALIASES.get(key, key)
            if name not in PARAMETERS_BY_NAME or name in _NOT_DEFAULTABLE or value is None:
                ignored.append(key)
                continue
            values[name] = _config_text(value)
        defaults = cls(values, tuple(ignored), wheelchair)
        try:
            now = dt.datetime(2000, 1, 1, tzinfo=dt.UTC)
            plan_request_from_query({}, time_zone="UTC", now=now, defaults=defaults)
        except InvalidRequestError as exc:
            msg = f"routingDefaults: {exc}"
            raise InvalidArgumentError(msg) from None
        return defaults


def _config_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ",".join(_config_text(v) for v in value)
    return str(value)


# -- the builder --------------------------------------------------------------------------------


def _raw_values(
    query: Mapping[str, Sequence[str]], defaults: RoutingDefaults | None
) -> tuple[dict[str, str], list[str]]:
    """First non-empty value of each known parameter (query over defaults), and the vias."""
    raw: dict[str, str] = {}
    if defaults is not None:
        raw.update({k: v for k, v in defaults.values.items() if v != ""})
    # the query's own parameters (a few of the 72), in the table's order
    for name in sorted(filter(_QUERY_ORDER.__contains__, query), key=_QUERY_ORDER.__getitem__):
        values = query[name]
        if values and values[0] != "":
            raw[name] = values[0]
    vias = [v for v in query.get("intermediatePlaces", ()) if v != ""]
    return raw, vias


def _convert_all(raw: Mapping[str, str], feed_ids: Collection[str] = ()) -> dict[str, Any]:
    converted: dict[str, Any] = {}
    for name, text in raw.items():
        convert = PARAMETERS_BY_NAME[name].convert
        value: Any
        if convert is _route_specs:  # OTP's feed_route syntax, read against the feed ids
            value = parse_route_specs(text, name, feed_ids=feed_ids)
        else:
            value = convert(name, text)
        if value is not IGNORE:
            converted[name] = value
    return converted


def _triangle(values: Mapping[str, Any]) -> TriangleFactors:
    missing = [name for name in _TRIANGLE if name not in values]
    if missing:
        msg = (
            "optimize=TRIANGLE needs triangleSafetyFactor, triangleSlopeFactor and "
            f"triangleTimeFactor (missing: {', '.join(missing)})"
        )
        raise InvalidRequestError(msg, parameter=missing[0], code="UNDERSPECIFIED_TRIANGLE")
    return TriangleFactors(*(values[name] for name in _TRIANGLE))


def _combine(
    values: dict[str, Any], groups: dict[str, dict[str, Any]], query_has: frozenset[str]
) -> tuple[RequestModes, RentalPreferences]:
    """OTP 1.x's rules that involve several parameters: the modes and the rental options."""
    modes: RequestModes = values.get("mode", RequestModes())
    rental = rental_preferences(modes, values.get("companies", ()))
    transit, bike = groups["transit"], groups["bike"]
    if (rental.kiss_and_ride or rental.park_and_ride) and "onlyTransitTrips" not in values:
        transit["only_transit_trips"] = True
    if rental.bike_rental and "bikeSpeed" not in query_has:
        bike["speed_mps"] = _BIKE_RENTAL_SPEED_MPS
    optimize = values.get("optimize")
    if optimize is Optimize.TRANSFERS:
        base = transit.get("transfer_penalty", TransitPreferences().transfer_penalty)
        transit["transfer_penalty"] = base + _TRANSFERS_PENALTY
        optimize = Optimize.QUICK
    if optimize is Optimize.TRIANGLE:
        bike["triangle"] = _triangle(values)
    if optimize is not None:
        bike["optimize"] = optimize
    if not modes.transit:
        groups["itineraries"]["num_itineraries"] = 1
    if "aerodynamicDrag" in values:
        groups["itineraries"]["extra"] = {"aerodynamicDrag": repr(values["aerodynamicDrag"])}
    return modes, rental


def plan_request_from_query(
    query: Mapping[str, Sequence[str]],
    *,
    time_zone: str,
    now: dt.datetime,
    defaults: RoutingDefaults | None = None,
    feed_ids: Collection[str] = (),
) -> PlanRequest:
    """Build the plan request of an OTP 1.x ``/plan`` query.

    Parameters
    ----------
    query
        Query parameters, each with all its values in order (repeated
        ``intermediatePlaces`` are all used; other parameters use the first).
    time_zone
        The network's time zone, for ``date`` and ``time``.
    now
        The current time.
    defaults
        Router-level defaults, or None.
    feed_ids
        The network's feed ids (``TransportNetwork.feed_ids``): route specs such as
        ``bannedRoutes=poa_eptc_T1`` are read against them, so a feed id with
        underscores works in OTP's ``feed_route`` syntax.

    Returns
    -------
    PlanRequest

    Raises
    ------
    InvalidRequestError
        Naming the parameter; ``code`` tells OTP 1.x's planner error, if any.

    Examples
    --------
    >>> import datetime as dt
    >>> now = dt.datetime(2026, 3, 4, 8, 0, tzinfo=dt.UTC)
    >>> q = {"fromPlace": ["53.30,4.20"], "toPlace": ["53.31,4.22"], "mode": ["WALK"]}
    >>> req = plan_request_from_query(q, time_zone="UTC", now=now)
    >>> req.to_place.lat, req.modes.transit, req.itineraries.num_itineraries
    (53.31, False, 1)
    """
    raw, vias = _raw_values(query, defaults)
    values = _convert_all(raw, feed_ids)
    groups: dict[str, dict[str, Any]] = {name: {} for name in _GROUPS}
    top: dict[str, Any] = {}
    for name, value in values.items():
        if name in _COMBINED:
            continue
        group, _, attr = PARAMETERS_BY_NAME[name].target.partition(".")
        (groups[group] if attr else top)[attr or group] = value
    query_has = frozenset(k for k, v in query.items() if v and v[0] != "")
    modes, rental = _combine(values, groups, query_has)
    date_time = parse_date_time(
        raw.get("date"),
        raw.get("time"),
        time_zone,
        now=now,
        invalid_date_strategy=values.get("invalidDateStrategy"),
    )
    if defaults is not None:
        groups["wheelchair"] = {**defaults.wheelchair_accessibility, **groups["wheelchair"]}
    # (the preference objects are frozen: one default object serves every request)
    prefs = {
        name: cls(**groups[name]) if groups[name] else _DEFAULT_PREFERENCES[name]
        for name, cls in _GROUPS.items()
        if name != "rental"
    }
    prefs["rental"] = rental
    top["intermediate_places"] = tuple(_place("intermediatePlaces", v) for v in vias)
    top.setdefault("from_place", None)
    top.setdefault("to_place", None)
    return PlanRequest(date_time=date_time, modes=modes, **top, **prefs)
