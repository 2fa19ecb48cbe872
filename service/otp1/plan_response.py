"""Plan results as OTP 1.x's ``/plan`` response: TripPlan, Itinerary, Leg... and PlannerError.

The JSON is what OTP 1.x's Jackson mapper wrote: camelCase names, ``from``
and ``to`` for places, times as epoch milliseconds, null fields left out, the
fields OTP always wrote always present.  The plan's objects are built without
their ``None`` entries (:func:`_present`), so the JSON encoder has nothing to drop
(:func:`service.otp1.serialize.dumps_json`; non-finite floats, which JSON cannot
carry, stay in the dicts: the XML writes them, the JSON encoder leaves them out).  The envelope is
``{requestParameters, plan | error, debugOutput, elevationMetadata}``.

Planning failures are not HTTP errors in OTP 1.x: the answer is a 200 whose
``error`` is a PlannerError ``{id, msg, message, missing, noPath}``.  So is
every refused parameter (plus ``details: {parameter, reason}``), so OTP 1.x
clients, which read errors only from 200 bodies, show it.
:data:`MESSAGES` holds OTP's ids and English texts (``Message.properties``);
:data:`PLANNER_ERRORS` maps library exceptions to them.

:func:`response_xml` renames the few elements that OTP's JAXB (XML) output
named differently from its JSON (``itinerary``, ``stop``, ``walkSteps``, maps
as ``entry``/``key``/``value``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any
from zoneinfo import ZoneInfo

from otpa.errors import InternalError
from otpa.routing.errors import (
    InvalidRequestError,
    LocationNotAccessibleError,
    NoPathsAfterFilteringError,
    NoTransitTimesError,
    OutsideBoundsError,
    PathNotFoundError,
    PlanningError,
    SearchTimeoutError,
    TncConfigInvalidError,
    TncUnavailableError,
    TrivialPathError,
)
from otpa.routing.model import (
    DebugOutput,
    ElevationMetadata,
    EncodedPolyline,
    Fare,
    FareComponent,
    Itinerary,
    Leg,
    LocalizedAlert,
    Money,
    Place,
    RentalInfo,
    TncData,
    TripPlan,
    WalkStep,
)
from otpa.routing.request import PlanRequest

__all__ = [
    "BODY_ERROR_CODES",
    "MESSAGES",
    "PLANNER_ERRORS",
    "error_response",
    "itinerary_json",
    "leg_json",
    "place_json",
    "plan_response",
    "planner_error",
    "planner_error_for",
    "request_parameters",
    "response_xml",
    "trip_plan_json",
    "walk_step_json",
]

_SORRY = "We're sorry. The trip planner is temporarily unavailable. Please try again later."
#: OTP 1.x (ibi) ``Message``: id and English text (``Message.properties``) per code.
MESSAGES: Mapping[str, tuple[int, str]] = {
    "PLAN_OK": (200, "Success"),
    "SYSTEM_ERROR": (500, _SORRY),
    "GRAPH_UNAVAILABLE": (503, _SORRY),
    "OUTSIDE_BOUNDS": (
        400,
        "Trip is not possible.  You might be trying to plan a trip outside the map data boundary.",
    ),
    "TRANSPORTATION_NETWORK_COMPANY_UNAVAILABLE": (
        480,
        "No available Transportation Network Company service at from location",
    ),
    "TRANSPORTATION_NETWORK_COMPANY_REQUEST_INVALID": (
        481,
        "Invalid Transportation Network Company request",
    ),
    "TRANSPORTATION_NETWORK_COMPANY_CONFIG_INVALID": (
        482,
        "Transportation Network Company configuration is invalid or missing",
    ),
    "PATH_NOT_FOUND": (
        404,
        "No trip found. There may be no transit service within the maximum specified distance "
        "or at the specified time, or your start or end point might not be safely accessible. "
        "An itinerary may be found if you adjust some Transit Options & Preferences above.",
    ),
    "NO_PATHS_AFTER_FILTERING": (
        405,
        "No trips found that satisfy the defined trip plan filters.",
    ),
    "NO_TRANSIT_TIMES": (
        406,
        "No transit times available. The date may be past or too far in the future or there "
        "may not be transit service for your trip at the time you chose.",
    ),
    "REQUEST_TIMEOUT": (
        408,
        "The trip planner is taking way too long to process your request. Please try again later.",
    ),
    "BOGUS_PARAMETER": (
        413,
        "The request has errors that the server is not willing or able to process.",
    ),
    "TOO_CLOSE": (409, "Origin is within a trivial distance of the destination."),
    # geocoded fromPlace/toPlace (service/otp1/geocode_places.py)
    "GEOCODE_FROM_NOT_FOUND": (440, "Origin is unknown. Can you be a bit more descriptive?"),
    "GEOCODE_TO_NOT_FOUND": (450, "Destination is unknown.  Can you be a bit more descriptive?"),
    "GEOCODE_FROM_TO_NOT_FOUND": (
        460,
        "Both origin and destination are unknown. Can you be a bit more descriptive?",
    ),
    "GEOCODE_FROM_AMBIGUOUS": (
        340,
        "The trip planner is unsure of the location you want to start from. "
        "Please select from the following options, or be more specific.",
    ),
    "GEOCODE_TO_AMBIGUOUS": (
        350,
        "The trip planner is unsure of the destination you want to go to. "
        "Please select from the following options, or be more specific.",
    ),
    "GEOCODE_FROM_TO_AMBIGUOUS": (
        360,
        "Both origin and destination are ambiguous. "
        "Please select from the following options, or be more specific.",
    ),
    # OTP 1.x mapped this code but had no text for it (and never raised it)
    "LOCATION_NOT_ACCESSIBLE": (
        470,
        "The origin or destination cannot be reached in the requested way "
        "(for example by wheelchair).",
    ),
    "UNDERSPECIFIED_TRIANGLE": (
        370,
        "All of triangleSafetyFactor, triangleSlopeFactor, and triangleTimeFactor must be set "
        "if any are",
    ),
    "TRIANGLE_NOT_AFFINE": (
        371,
        "The values of triangleSafetyFactor, triangleSlopeFactor, and triangleTimeFactor must "
        "sum to 1",
    ),
}

#: Library exception -> OTP ``Message`` code, most specific first.
PLANNER_ERRORS: tuple[tuple[type[BaseException], str], ...] = (
    (OutsideBoundsError, "OUTSIDE_BOUNDS"),
    (NoPathsAfterFilteringError, "NO_PATHS_AFTER_FILTERING"),
    (NoTransitTimesError, "NO_TRANSIT_TIMES"),
    (TrivialPathError, "TOO_CLOSE"),
    (LocationNotAccessibleError, "LOCATION_NOT_ACCESSIBLE"),
    (TncUnavailableError, "TRANSPORTATION_NETWORK_COMPANY_UNAVAILABLE"),
    (TncConfigInvalidError, "TRANSPORTATION_NETWORK_COMPANY_CONFIG_INVALID"),
    (PathNotFoundError, "PATH_NOT_FOUND"),
    (SearchTimeoutError, "REQUEST_TIMEOUT"),
    (PlanningError, "PATH_NOT_FOUND"),
    # a failed internal invariant (a bug): OTP 1.x answered an unexpected failure of a plan
    # with SYSTEM_ERROR; the plan handler logs the traceback under the request id
    (InternalError, "SYSTEM_ERROR"),
)

#: ``InvalidRequestError`` codes answered with their own PlannerError (the geocoder's
#: ``GEOCODE_*`` codes included); every other invalid parameter is a ``BOGUS_PARAMETER``.
BODY_ERROR_CODES = frozenset(
    {"BOGUS_PARAMETER", "OUTSIDE_BOUNDS", "UNDERSPECIFIED_TRIANGLE", "TRIANGLE_NOT_AFFINE"}
) | frozenset(code for code in MESSAGES if code.startswith("GEOCODE_"))
# ibi's NO_PATHS_AFTER_FILTERING error carried no ``message`` enum name
_NO_MESSAGE_NAME = frozenset({"NO_PATHS_AFTER_FILTERING"})
_MISSING_BY_PARAMETER = {"fromPlace": "from", "toPlace": "to", "intermediatePlaces": "intermediate"}
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_EPOCH_DAY = _EPOCH.toordinal()
_MS = dt.timedelta(milliseconds=1)


def _present(fields: dict[str, Any]) -> dict[str, Any]:
    """``fields`` without its ``None``-valued entries (Jackson's ``NON_NULL``), in order."""
    return {key: value for key, value in fields.items() if value is not None}


# -- errors -------------------------------------------------------------------------------------


def planner_error(code: str, missing: Sequence[str] | None = None) -> dict[str, Any]:
    """Return OTP 1.x's PlannerError object for a ``Message`` code.

    Examples
    --------
    >>> planner_error("OUTSIDE_BOUNDS", ["from"])["id"]
    400
    """
    error_id, text = MESSAGES[code]
    return {
        "id": error_id,
        "msg": text,
        "message": None if code in _NO_MESSAGE_NAME else code,
        "missing": list(missing) if missing else None,
        "noPath": True,
    }


def planner_error_for(exc: BaseException) -> dict[str, Any] | None:
    """Return the PlannerError answering an exception, or None when it is no planning outcome.

    Planning errors map through :data:`PLANNER_ERRORS`.  Every
    :class:`InvalidRequestError` is a PlannerError too: its own code when it is
    in :data:`BODY_ERROR_CODES`, else ``BOGUS_PARAMETER``, with ``details``
    naming the parameter and the reason (an otpa addition; OTP 1.x clients
    read ``id``, ``msg`` and ``message``).

    Examples
    --------
    >>> planner_error_for(PathNotFoundError("none"))["message"]
    'PATH_NOT_FOUND'
    >>> e = planner_error_for(InvalidRequestError("too many", parameter="numItineraries"))
    >>> e["id"], e["message"], e["details"]
    (413, 'BOGUS_PARAMETER', {'parameter': 'numItineraries', 'reason': 'too many'})
    """
    if isinstance(exc, InvalidRequestError):
        code = exc.code if exc.code in BODY_ERROR_CODES else "BOGUS_PARAMETER"
        assert code is not None
        missing = _MISSING_BY_PARAMETER.get(exc.parameter)
        is_place = code == "OUTSIDE_BOUNDS"
        error = planner_error(code, [missing] if is_place and missing else None)
        error["details"] = {"parameter": exc.parameter, "reason": str(exc)}
        return error
    for exc_type, code in PLANNER_ERRORS:
        if isinstance(exc, exc_type):
            if not isinstance(exc, OutsideBoundsError):
                return planner_error(code)
            error = planner_error(code, list(exc.missing))
            # a place that is not in the network is a refused parameter too: name it
            names = {v: k for k, v in _MISSING_BY_PARAMETER.items()}
            parameter = names.get(exc.missing[0], "fromPlace") if exc.missing else "fromPlace"
            error["details"] = {"parameter": parameter, "reason": str(exc)}
            return error
    return None


# -- envelope -----------------------------------------------------------------------------------


def request_parameters(query: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """OTP's ``requestParameters``: the first value of every query parameter.

    Examples
    --------
    >>> request_parameters({"mode": ["WALK", "BUS"], "x": [""]})
    {'mode': 'WALK', 'x': ''}
    """
    return {name: values[0] for name, values in query.items() if values}


def plan_response(
    plan: TripPlan,
    *,
    request: PlanRequest,
    parameters: Mapping[str, str],
    time_zone: str,
) -> dict[str, Any]:
    """The response to a successful plan.

    Parameters
    ----------
    plan
        The planner's result.
    request
        The request it answers (flags such as ``showIntermediateStops``).
    parameters
        ``requestParameters`` (:func:`request_parameters`).
    time_zone
        The network's time zone, for naive datetimes.
    """
    zone = ZoneInfo(time_zone)
    body: dict[str, Any] = {
        "requestParameters": dict(parameters),
        "plan": trip_plan_json(plan, request, zone),
        "debugOutput": _debug_output(plan.debug_output),
        "elevationMetadata": _elevation_metadata(plan.elevation_metadata, request),
    }
    if plan.notices:  # what the plan could not include, and why (a failed ride-hail provider)
        body["notices"] = list(plan.notices)
    # the ibi fork's bikeRentalInfo / carRentalInfo / vehicleRentalInfo maps
    for kind, infos in plan.rental_info.items():
        body[f"{kind}RentalInfo"] = {name: _rental_info(i) for name, i in infos.items()}
    return body


def _rental_info(info: RentalInfo) -> dict[str, Any]:
    return {
        "errors": [{"message": m, "severity": s} for m, s in info.errors],
        "systemInformationData": {k: v for k, v in info.system_information.items() if v},
    }


def error_response(
    error: Mapping[str, Any],
    *,
    parameters: Mapping[str, str],
    debug_output: DebugOutput | None = None,
) -> dict[str, Any]:
    """The response carrying a PlannerError (no ``plan``, no ``elevationMetadata``).

    ``debug_output`` is given once planning started (OTP wrote its timings
    whenever a routing context existed).
    """
    return {
        "requestParameters": dict(parameters),
        "error": dict(error),
        "debugOutput": _debug_output(debug_output) if debug_output is not None else None,
    }


def _debug_output(debug: DebugOutput) -> dict[str, Any]:
    return _present(
        {
            "precalculationTime": debug.precalculation_time,
            "pathCalculationTime": debug.path_calculation_time,
            "pathTimes": list(debug.path_times),
            "renderingTime": debug.rendering_time,
            "totalTime": debug.total_time,
            "timedOut": debug.timed_out,
        }
    )


def _elevation_metadata(meta: ElevationMetadata, request: PlanRequest) -> dict[str, Any]:
    return _present(
        {
            "ellipsoidToGeoidDifference": meta.ellipsoid_to_geoid_difference,
            "geoidElevation": meta.geoid_elevation or request.itineraries.geoid_elevation,
        }
    )


# -- plan objects -------------------------------------------------------------------------------


def _ms(when: dt.datetime | None, zone: ZoneInfo) -> int | None:
    """Epoch milliseconds of ``when``; a naive ``when`` is local time in ``zone``.

    The value of ``(when - _EPOCH) // _MS`` (``when.replace(tzinfo=zone)`` when naive),
    in integers: an aware subtraction asks the time zone for its offset through a slow
    method lookup (~2 µs a call; an answer has ~60 times).
    """
    if when is None:
        return None
    offset = (when.tzinfo or zone).utcoffset(when)  # what the subtraction would use
    if offset is None:  # (a time zone without offsets: as the subtraction does it)
        return ((when if when.tzinfo is not None else when.replace(tzinfo=zone)) - _EPOCH) // _MS
    days = when.toordinal() - _EPOCH_DAY - offset.days
    seconds = when.hour * 3_600 + when.minute * 60 + when.second - offset.seconds
    micro = when.microsecond - offset.microseconds  # (seconds * 10**6 + micro) // 1000:
    return (days * 86_400 + seconds) * 1_000 + micro // 1_000


def trip_plan_json(plan: TripPlan, request: PlanRequest, zone: ZoneInfo) -> dict[str, Any]:
    """OTP's TripPlan: ``date``, ``from``, ``to``, ``itineraries``."""
    return _present(
        {
            "date": _ms(plan.date, zone),
            # ``orig`` always a string on the plan's own places
            "from": place_json(plan.from_place, zone, orig=plan.from_place.orig or ""),
            "to": place_json(plan.to_place, zone, orig=plan.to_place.orig or ""),
            "itineraries": [itinerary_json(i, request, zone) for i in plan.itineraries],
        }
    )


def itinerary_json(itinerary: Itinerary, request: PlanRequest, zone: ZoneInfo) -> dict[str, Any]:
    """OTP's Itinerary (``duration`` in whole seconds)."""
    return _present(
        {
            "duration": itinerary.duration,
            "startTime": _ms(itinerary.start_time, zone),
            "endTime": _ms(itinerary.end_time, zone),
            "walkTime": int(itinerary.walk_time),
            "transitTime": int(itinerary.transit_time),
            "waitingTime": int(itinerary.waiting_time),
            "walkDistance": float(itinerary.walk_distance),
            "walkLimitExceeded": itinerary.walk_limit_exceeded,
            "elevationLost": float(itinerary.elevation_lost),
            "elevationGained": float(itinerary.elevation_gained),
            "transfers": int(itinerary.transfers),
            "fare": _fare(itinerary.fare) if itinerary.fare is not None else None,
            "legs": [leg_json(leg, request, zone) for leg in itinerary.legs],
            "tooSloped": itinerary.too_sloped,
            "accessibilityScore": (
                itinerary.accessibility_score if request.wheelchair.enabled else None
            ),
        }
    )


def leg_json(  # noqa: C901 (a flat test per optional field, in OTP's order)
    leg: Leg, request: PlanRequest, zone: ZoneInfo
) -> dict[str, Any]:
    """OTP's Leg (``duration`` in seconds as a double; ``intermediateStops`` on request).

    Built entry by entry in OTP's order, leaving out what is ``None`` (as :func:`_present`
    does, without building the entries first: a plan answer has ~10 legs of 55 fields).
    """
    out: dict[str, Any] = {
        "startTime": _ms(leg.start_time, zone),
        "endTime": _ms(leg.end_time, zone),
        "departureDelay": leg.departure_delay,
        "arrivalDelay": leg.arrival_delay,
        "realTime": leg.real_time,
        "distance": float(leg.distance),
        "pathway": leg.pathway,
        "mode": leg.mode,
        "route": leg.route,
    }
    if leg.agency_name is not None:
        out["agencyName"] = leg.agency_name
    if leg.agency_url is not None:
        out["agencyUrl"] = leg.agency_url
    if leg.agency_branding_url is not None:
        out["agencyBrandingUrl"] = leg.agency_branding_url
    out["agencyTimeZoneOffset"] = leg.agency_time_zone_offset
    if leg.route_color is not None:
        out["routeColor"] = leg.route_color
    if leg.route_type is not None:
        out["routeType"] = leg.route_type
    if leg.route_id is not None:
        out["routeId"] = leg.route_id
    if leg.route_text_color is not None:
        out["routeTextColor"] = leg.route_text_color
    out["interlineWithPreviousLeg"] = leg.interline_with_previous_leg
    if leg.trip_short_name is not None:
        out["tripShortName"] = leg.trip_short_name
    if leg.trip_block_id is not None:
        out["tripBlockId"] = leg.trip_block_id
    if leg.headsign is not None:
        out["headsign"] = leg.headsign
    if leg.agency_id is not None:
        out["agencyId"] = leg.agency_id
    if leg.trip_id is not None:
        out["tripId"] = leg.trip_id
    if leg.service_date is not None:
        out["serviceDate"] = leg.service_date
    if leg.route_branding_url is not None:
        out["routeBrandingUrl"] = leg.route_branding_url
    out["from"] = place_json(leg.from_place, zone)
    out["to"] = place_json(leg.to_place, zone)
    out["legGeometry"] = _polyline(leg.leg_geometry)
    if leg.inter_stop_geometry is not None:
        out["interStopGeometry"] = [_polyline(p) for p in leg.inter_stop_geometry]
    if leg.alerts:
        out["alerts"] = [_alert(a, zone) for a in leg.alerts]
    if leg.route_short_name is not None:
        out["routeShortName"] = leg.route_short_name
    if leg.route_long_name is not None:
        out["routeLongName"] = leg.route_long_name
    if leg.board_rule is not None:
        out["boardRule"] = leg.board_rule
    if leg.alight_rule is not None:
        out["alightRule"] = leg.alight_rule
    out["rentedBike"] = leg.rented_bike
    out["rentedCar"] = leg.rented_car
    out["rentedVehicle"] = leg.rented_vehicle
    out["hailedCar"] = leg.hailed_car
    if leg.tnc_data is not None:
        out["tncData"] = _tnc_data(leg.tnc_data)
    out["flexDrtAdvanceBookMin"] = float(leg.flex_drt_advance_book_min)
    if leg.call_and_ride is not None:
        out["callAndRide"] = leg.call_and_ride
    if leg.flex_call_and_ride_max_start_time is not None:
        out["flexCallAndRideMaxStartTime"] = _ms(leg.flex_call_and_ride_max_start_time, zone)
    if leg.flex_call_and_ride_min_end_time is not None:
        out["flexCallAndRideMinEndTime"] = _ms(leg.flex_call_and_ride_min_end_time, zone)
    if leg.flex_drt_pickup_message is not None:
        out["flexDrtPickupMessage"] = leg.flex_drt_pickup_message
    if leg.flex_drt_drop_off_message is not None:
        out["flexDrtDropOffMessage"] = leg.flex_drt_drop_off_message
    if leg.flex_flag_stop_pickup_message is not None:
        out["flexFlagStopPickupMessage"] = leg.flex_flag_stop_pickup_message
    if leg.flex_flag_stop_drop_off_message is not None:
        out["flexFlagStopDropOffMessage"] = leg.flex_flag_stop_drop_off_message
    if request.wheelchair.enabled and leg.accessibility_score is not None:
        out["accessibilityScore"] = leg.accessibility_score
    out["transitLeg"] = leg.transit_leg
    out["duration"] = float(leg.duration)
    if request.itineraries.show_intermediate_stops:
        out["intermediateStops"] = [place_json(p, zone) for p in leg.intermediate_stops or ()]
    out["steps"] = [walk_step_json(s, zone) for s in leg.steps]
    return out


def _tnc_data(tnc: TncData | None) -> dict[str, Any] | None:
    if tnc is None:
        return None
    return _present(
        {
            "company": tnc.company,
            "currency": tnc.currency,
            "travelDuration": tnc.travel_duration,
            "maxCost": tnc.max_cost,
            "minCost": tnc.min_cost,
            "productId": tnc.product_id,
            "displayName": tnc.display_name,
            "estimatedArrival": tnc.estimated_arrival,
        }
    )


def place_json(  # noqa: C901 (a flat test per optional field, in OTP's order)
    place: Place, zone: ZoneInfo, *, orig: str | None = None
) -> dict[str, Any]:
    """OTP's Place (``wheelchairBoarding`` and ``vertexType`` always present).

    ``orig``, when given, replaces the place's own ``orig``.  Entries that are ``None``
    are left out (see :func:`leg_json`).
    """
    out: dict[str, Any] = {} if place.name is None else {"name": place.name}
    if place.stop_id is not None:
        out["stopId"] = place.stop_id
    if place.stop_code is not None:
        out["stopCode"] = place.stop_code
    if place.platform_code is not None:
        out["platformCode"] = place.platform_code
    out["lon"] = float(place.lon)
    out["lat"] = float(place.lat)
    if place.arrival is not None:
        out["arrival"] = _ms(place.arrival, zone)
    if place.departure is not None:
        out["departure"] = _ms(place.departure, zone)
    if orig is None:
        orig = place.orig
    if orig is not None:
        out["orig"] = orig
    if place.zone_id is not None:
        out["zoneId"] = place.zone_id
    if place.stop_index is not None:
        out["stopIndex"] = place.stop_index
    if place.stop_sequence is not None:
        out["stopSequence"] = place.stop_sequence
    out["vertexType"] = str(place.vertex_type)
    if place.bike_share_id is not None:
        out["bikeShareId"] = place.bike_share_id
    if place.networks is not None:
        out["networks"] = list(place.networks)
    if place.address is not None:
        out["address"] = place.address
    if place.board_alight_type is not None:
        out["boardAlightType"] = place.board_alight_type
    if place.flag_stop_area:
        out["flagStopArea"] = _polyline(place.flag_stop_area)
    if place.wheelchair_boarding is not None:
        out["wheelchairBoarding"] = place.wheelchair_boarding
    return out


def walk_step_json(step: WalkStep, zone: ZoneInfo) -> dict[str, Any]:
    """OTP's WalkStep (``elevation`` as ``[{first, second}]`` pairs; ``None`` left out)."""
    out: dict[str, Any] = {
        "distance": float(step.distance),
        "relativeDirection": str(step.relative_direction),
    }
    if step.street_name is not None:
        out["streetName"] = step.street_name
    if step.absolute_direction is not None:
        out["absoluteDirection"] = str(step.absolute_direction)
    if step.exit is not None:
        out["exit"] = step.exit
    out["stayOn"] = step.stay_on
    out["area"] = step.area
    out["bogusName"] = step.bogus_name
    out["lon"] = float(step.lon)
    out["lat"] = float(step.lat)
    out["elevation"] = [{"first": float(d), "second": float(e)} for d, e in step.elevation]
    if step.alerts:
        out["alerts"] = [_alert(a, zone) for a in step.alerts]
    return out


def _polyline(polyline: EncodedPolyline) -> dict[str, Any]:
    if polyline.levels is None:  # always, in OTP 1.x
        return {"points": polyline.points, "length": polyline.length}
    return {"points": polyline.points, "levels": polyline.levels, "length": polyline.length}


def _alert(alert: LocalizedAlert, zone: ZoneInfo) -> dict[str, Any]:
    return _present(
        {
            "alertHeaderText": alert.alert_header_text,
            "alertDescriptionText": alert.alert_description_text,
            "alertUrl": alert.alert_url,
            "effectiveStartDate": _ms(alert.effective_start_date, zone),
        }
    )


def _money(money: Money) -> dict[str, Any]:
    currency = money.currency
    return _present(
        {
            "cents": money.cents,
            "currency": _present(
                {
                    "currency": currency.currency,
                    "currencyCode": currency.currency_code,
                    "symbol": currency.symbol,
                    "defaultFractionDigits": currency.default_fraction_digits,
                }
            ),
        }
    )


def _fare_component(component: FareComponent) -> dict[str, Any]:
    return _present(
        {
            "fareId": component.fare_id,
            "price": _money(component.price),
            "routes": list(component.routes),
            "legIndex": component.leg_index,
            "isTransfer": component.is_transfer,
        }
    )


def _fare(fare: Fare) -> dict[str, Any]:
    return {
        "fare": {kind: _money(m) for kind, m in fare.fare.items()},
        "details": {kind: [_fare_component(c) for c in cs] for kind, cs in fare.details.items()},
    }


# -- XML ----------------------------------------------------------------------------------------


def _entries(mapping: Mapping[str, Any]) -> dict[str, Any]:
    """A Java map as JAXB wrote it: ``<entry><key/><value/></entry>`` elements."""
    return {"entry": [{"key": key, "value": value} for key, value in mapping.items()]}


def _leg_xml(leg: Mapping[str, Any]) -> dict[str, Any]:
    renamed = {"intermediateStops": "stop", "steps": "walkSteps"}
    return {renamed.get(key, key): value for key, value in leg.items()}


def _itinerary_xml(itinerary: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(itinerary)
    fare = itinerary.get("fare")
    if fare is not None:
        out["fare"] = {"fare": _entries(fare["fare"]), "details": _entries(fare["details"])}
    out["legs"] = [_leg_xml(leg) for leg in itinerary.get("legs", ())]
    return out


def response_xml(body: Mapping[str, Any]) -> dict[str, Any]:
    """The XML variant of a plan response (root element ``response``), JAXB's names.

    Examples
    --------
    >>> response_xml({"requestParameters": {"mode": "WALK"}})["requestParameters"]
    {'entry': [{'key': 'mode', 'value': 'WALK'}]}
    """
    out = dict(body)
    out["requestParameters"] = _entries(body.get("requestParameters", {}))
    for key in ("bikeRentalInfo", "carRentalInfo", "vehicleRentalInfo"):
        if key in body:  # maps are JAXB entry lists
            out[key] = _entries(body[key])
    plan = body.get("plan")
    if plan is not None:
        out["plan"] = {
            "date": plan.get("date"),
            "from": plan["from"],
            "to": plan["to"],
            "itinerary": [_itinerary_xml(i) for i in plan["itineraries"]],
        }
    return out
