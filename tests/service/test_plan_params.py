"""Plan query parameters: each reaches the PlanRequest; bad ones are PlannerErrors in a 200."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote

import pytest
from _fakes import Service
from _plan_fakes import TZ, RecordingPlanner, serve_plan

from otpa.routing.errors import InvalidRequestError
from otpa.routing.preferences import (
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
)
from otpa.routing.request import Location, PlanRequest, RequestModes, RouteSpec, TransitFilters
from service.otp1.plan_params import (
    PARAMETERS,
    PARAMETERS_BY_NAME,
    RoutingDefaults,
    plan_request_from_query,
)

http = pytest.mark.http
NOW = dt.datetime(2026, 3, 4, 8, 30, 15, tzinfo=TZ)

#: OTP 1.x RoutingResource's 72 query parameters (reference section 1.1).
OTP_PARAMETERS = [
    "fromPlace",
    "toPlace",
    "intermediatePlaces",
    "date",
    "time",
    "arriveBy",
    "wheelchair",
    "maxSlope",
    "maxWalkDistance",
    "maxPreTransitTime",
    "walkReluctance",
    "waitReluctance",
    "driveDistanceReluctance",
    "driveTimeReluctance",
    "waitAtBeginningFactor",
    "walkSpeed",
    "bikeSpeed",
    "bikeSwitchTime",
    "bikeSwitchCost",
    "triangleSafetyFactor",
    "triangleSlopeFactor",
    "triangleTimeFactor",
    "optimize",
    "mode",
    "minTransferTime",
    "numItineraries",
    "preferredRoutes",
    "otherThanPreferredRoutesPenalty",
    "preferredAgencies",
    "unpreferredRoutes",
    "unpreferredAgencies",
    "showIntermediateStops",
    "walkBoardCost",
    "bikeBoardCost",
    "bannedRoutes",
    "whiteListedRoutes",
    "bannedAgencies",
    "whiteListedAgencies",
    "bannedTrips",
    "bannedStops",
    "bannedStopsHard",
    "transferPenalty",
    "nonpreferredTransferPenalty",
    "maxTransfers",
    "batch",
    "startTransitStopId",
    "startTransitTripId",
    "clampInitialWait",
    "reverseOptimizeOnTheFly",
    "boardSlack",
    "alightSlack",
    "locale",
    "ignoreRealtimeUpdates",
    "disableRemainingWeightHeuristic",
    "flexFlagStopBufferSize",
    "flexUseReservationServices",
    "flexUseEligibilityServices",
    "flexIgnoreDrtAdvanceBookMin",
    "maxHours",
    "useRequestedDateTimeInMaxHours",
    "disableAlertFiltering",
    "geoidElevation",
    "companies",
    "invalidDateStrategy",
    "minTransitDistance",
    "searchTimeout",
    "pathComparator",
    "onlyTransitTrips",
    "watts",
    "weight",
    "minimumMicromobilitySpeed",
    "maximumMicromobilitySpeed",
]

TRIANGLE = {"optimize": "TRIANGLE", "triangleSafetyFactor": "0.5"}
TRIANGLE |= {"triangleSlopeFactor": "0.25", "triangleTimeFactor": "0.25"}


def build(**params: str | list[str]) -> PlanRequest:
    return build_with(None, **params)


def build_with(defaults: RoutingDefaults | None, **params: str | list[str]) -> PlanRequest:
    query = {k: v if isinstance(v, list) else [v] for k, v in params.items()}
    return plan_request_from_query(query, time_zone="Europe/Amsterdam", now=NOW, defaults=defaults)


def local(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> dt.datetime:
    return dt.datetime(year, month, day, hour, minute, tzinfo=TZ)


def triangle(req: PlanRequest) -> TriangleFactors:
    assert req.bike.triangle is not None
    return req.bike.triangle


Getter = Callable[[PlanRequest], Any]
# (parameter, raw value, other parameters it needs, where it lands, expected value)
ROUND_TRIP: list[tuple[str, str, dict[str, str], Getter, Any]] = [
    ("fromPlace", "53.3,4.2", {}, lambda r: r.from_place, Location(lat=53.3, lon=4.2)),
    ("toPlace", "Dest::demo:S1", {}, lambda r: r.to_place, Location(label="demo:S1", name="Dest")),
    (
        "intermediatePlaces",
        "53.31,4.21",
        {},
        lambda r: r.intermediate_places,
        (Location(lat=53.31, lon=4.21),),
    ),
    ("date", "2026-03-05", {"time": "9:00"}, lambda r: r.date_time, local(2026, 3, 5, 9)),
    ("time", "2026-03-05T09:00:00", {}, lambda r: r.date_time, local(2026, 3, 5, 9)),
    ("arriveBy", "true", {}, lambda r: r.arrive_by, True),
    ("wheelchair", "true", {}, lambda r: r.wheelchair.enabled, True),
    ("maxSlope", "0.1", {}, lambda r: r.wheelchair.max_slope, 0.1),
    ("maxWalkDistance", "1500", {}, lambda r: r.walk.max_distance_m, 1500.0),
    ("maxPreTransitTime", "600", {}, lambda r: r.car.max_pre_transit_time_s, 600),
    ("walkReluctance", "5", {}, lambda r: r.walk.reluctance, 5.0),
    ("waitReluctance", "0.8", {}, lambda r: r.transit.wait_reluctance, 0.8),
    ("driveDistanceReluctance", "1.5", {}, lambda r: r.car.drive_distance_reluctance, 1.5),
    ("driveTimeReluctance", "2.5", {}, lambda r: r.car.drive_time_reluctance, 2.5),
    ("waitAtBeginningFactor", "0.5", {}, lambda r: r.transit.wait_at_beginning_factor, 0.5),
    ("walkSpeed", "1.2", {}, lambda r: r.walk.speed_mps, 1.2),
    ("bikeSpeed", "6", {}, lambda r: r.bike.speed_mps, 6.0),
    ("bikeSwitchTime", "30", {}, lambda r: r.bike.switch_time_s, 30),
    ("bikeSwitchCost", "45", {}, lambda r: r.bike.switch_cost, 45.0),
    ("triangleSafetyFactor", "0.5", TRIANGLE, lambda r: triangle(r).safety, 0.5),
    ("triangleSlopeFactor", "0.25", TRIANGLE, lambda r: triangle(r).slope, 0.25),
    ("triangleTimeFactor", "0.25", TRIANGLE, lambda r: triangle(r).time, 0.25),
    ("optimize", "SAFE", {}, lambda r: r.bike.optimize, Optimize.SAFE),
    (
        "mode",
        "BUS,WALK",
        {},
        lambda r: (r.modes.street, r.modes.transit_modes),
        ({"WALK"}, {"BUS"}),
    ),
    ("minTransferTime", "120", {}, lambda r: r.transit.min_transfer_time_s, 120),
    ("numItineraries", "5", {}, lambda r: r.itineraries.num_itineraries, 5),
    (
        "preferredRoutes",
        "DT_1",
        {},
        lambda r: r.filters.preferred_routes,
        (RouteSpec("DT", None, "1"),),
    ),
    (
        "otherThanPreferredRoutesPenalty",
        "120",
        {},
        lambda r: r.transit.other_than_preferred_routes_penalty,
        120.0,
    ),
    ("preferredAgencies", "DT,X", {}, lambda r: r.filters.preferred_agencies, {"DT", "X"}),
    ("unpreferredRoutes", "_2", {}, lambda r: r.filters.unpreferred_routes, (RouteSpec(name="2"),)),
    ("unpreferredAgencies", "Y", {}, lambda r: r.filters.unpreferred_agencies, {"Y"}),
    ("showIntermediateStops", "true", {}, lambda r: r.itineraries.show_intermediate_stops, True),
    ("walkBoardCost", "300", {}, lambda r: r.walk.board_cost, 300.0),
    ("bikeBoardCost", "900", {}, lambda r: r.bike.board_cost, 900.0),
    ("bannedRoutes", "DT__r1", {}, lambda r: r.filters.banned_routes, (RouteSpec("DT", "r1"),)),
    ("whiteListedRoutes", "_1", {}, lambda r: r.filters.whitelisted_routes, (RouteSpec(name="1"),)),
    ("bannedAgencies", "A", {}, lambda r: r.filters.banned_agencies, {"A"}),
    ("whiteListedAgencies", "B", {}, lambda r: r.filters.whitelisted_agencies, {"B"}),
    ("bannedTrips", "demo:t1:0:2", {}, lambda r: r.filters.banned_trips, {"demo:t1": (0, 2)}),
    ("bannedStops", "demo:S1", {}, lambda r: r.filters.banned_stops, {"demo:S1"}),
    ("bannedStopsHard", "demo:S2", {}, lambda r: r.filters.banned_stops_hard, {"demo:S2"}),
    ("transferPenalty", "60", {}, lambda r: r.transit.transfer_penalty, 60.0),
    (
        "nonpreferredTransferPenalty",
        "90",
        {},
        lambda r: r.transit.nonpreferred_transfer_penalty,
        90.0,
    ),
    ("maxTransfers", "2", {}, lambda r: r.transit.max_transfers, 2),
    ("batch", "true", {}, lambda r: r.itineraries.batch, True),
    ("startTransitStopId", "demo_S1", {}, lambda r: r.start_transit_stop_id, "demo:S1"),
    ("startTransitTripId", "demo_t1", {}, lambda r: r.start_transit_trip_id, "demo:t1"),
    ("clampInitialWait", "600", {}, lambda r: r.transit.clamp_initial_wait_s, 600),
    (
        "reverseOptimizeOnTheFly",
        "true",
        {},
        lambda r: r.itineraries.reverse_optimize_on_the_fly,
        True,
    ),
    ("boardSlack", "30", {}, lambda r: r.transit.board_slack_s, 30),
    ("alightSlack", "20", {}, lambda r: r.transit.alight_slack_s, 20),
    ("locale", "de_DE", {}, lambda r: r.itineraries.locale, "de"),
    ("ignoreRealtimeUpdates", "true", {}, lambda r: r.itineraries.ignore_realtime_updates, True),
    (
        "disableRemainingWeightHeuristic",
        "true",
        {},
        lambda r: r.itineraries.disable_remaining_weight_heuristic,
        True,
    ),
    ("flexFlagStopBufferSize", "50", {}, lambda r: r.flex.flag_stop_buffer_size, 50.0),
    ("flexUseReservationServices", "false", {}, lambda r: r.flex.use_reservation_services, False),
    ("flexUseEligibilityServices", "false", {}, lambda r: r.flex.use_eligibility_services, False),
    ("flexIgnoreDrtAdvanceBookMin", "true", {}, lambda r: r.flex.ignore_drt_advance_book_min, True),
    ("maxHours", "2.5", {}, lambda r: r.itineraries.max_hours, 2.5),
    (
        "useRequestedDateTimeInMaxHours",
        "true",
        {},
        lambda r: r.itineraries.use_requested_date_time_in_max_hours,
        True,
    ),
    ("disableAlertFiltering", "true", {}, lambda r: r.itineraries.disable_alert_filtering, True),
    ("geoidElevation", "true", {}, lambda r: r.itineraries.geoid_elevation, True),
    (
        "companies",
        "UBER,LYFT",
        {"mode": "CAR_HAIL,TRANSIT"},
        lambda r: r.rental.companies,
        ("UBER", "LYFT"),
    ),
    (
        "invalidDateStrategy",
        "USE_CURRENT",
        {},
        lambda r: r.itineraries.invalid_date_strategy,
        "USE_CURRENT",
    ),
    ("minTransitDistance", "40%", {}, lambda r: r.itineraries.min_transit_distance_pct, 40.0),
    ("searchTimeout", "2500", {}, lambda r: r.itineraries.search_timeout_ms, 2500),
    ("pathComparator", "duration", {}, lambda r: r.itineraries.path_comparator, "duration"),
    ("onlyTransitTrips", "true", {}, lambda r: r.transit.only_transit_trips, True),
    ("watts", "500", {}, lambda r: r.micromobility.watts, 500.0),
    ("weight", "90", {}, lambda r: r.micromobility.weight_kg, 90.0),
    ("minimumMicromobilitySpeed", "1", {}, lambda r: r.micromobility.min_speed_mps, 1.0),
    ("maximumMicromobilitySpeed", "7", {}, lambda r: r.micromobility.max_speed_mps, 7.0),
    ("aerodynamicDrag", "0.4", {}, lambda r: r.itineraries.extra, {"aerodynamicDrag": "0.4"}),
]


def test_the_table_has_every_otp_parameter() -> None:
    assert len(OTP_PARAMETERS) == 72
    query_names = [p.name for p in PARAMETERS if p.query]
    assert set(OTP_PARAMETERS) <= set(query_names)
    assert set(query_names) - set(OTP_PARAMETERS) == {"aerodynamicDrag"}
    assert len(set(query_names)) == len(query_names)
    assert all(p.default is None for p in PARAMETERS)  # defaults live in the library


def test_every_parameter_is_round_tripped() -> None:
    tested = [row[0] for row in ROUND_TRIP]
    assert sorted(tested) == sorted(p.name for p in PARAMETERS if p.query)


@pytest.mark.parametrize(("name", "raw", "extra", "get", "expected"), ROUND_TRIP)
def test_round_trip(name: str, raw: str, extra: dict[str, str], get: Getter, expected: Any) -> None:
    assert get(build(**{**extra, name: raw})) == expected
    assert PARAMETERS_BY_NAME[name].target  # documented target


def test_no_parameters_means_library_defaults() -> None:
    req = build()
    assert (req.from_place, req.to_place, req.intermediate_places) == (None, None, ())
    assert req.date_time == NOW
    assert req.arrive_by is False
    assert req.modes == RequestModes()
    assert req.walk == WalkPreferences()
    assert req.bike == BikePreferences()
    assert req.car == CarPreferences()
    assert req.wheelchair == WheelchairPreferences()
    assert req.transit == TransitPreferences()
    assert req.transit.max_transfers == 4
    assert req.filters == TransitFilters()
    assert req.itineraries == ItineraryPreferences()
    assert req.rental == RentalPreferences()
    assert req.micromobility == MicromobilityPreferences()
    assert req.flex == FlexPreferences()
    assert (req.start_transit_stop_id, req.start_transit_trip_id) == (None, None)


def test_empty_values_count_as_absent() -> None:
    assert build(walkSpeed="", bannedRoutes="", mode="", date="") == build()


def test_first_value_wins_but_every_intermediate_place_is_used() -> None:
    req = build(walkSpeed=["1.1", "9"], intermediatePlaces=["53.3,4.2", "", "Via::demo:S2"])
    assert req.walk.speed_mps == 1.1
    assert req.intermediate_places == (
        Location(lat=53.3, lon=4.2),
        Location(label="demo:S2", name="Via"),
    )


# -- OTP 1.x rules ------------------------------------------------------------------------------


def test_optimize_transfers_is_quick_plus_transfer_penalty() -> None:
    req = build(optimize="TRANSFERS")
    assert (req.bike.optimize, req.transit.transfer_penalty) == (Optimize.QUICK, 1800.0)
    assert build(optimize="TRANSFERS", transferPenalty="60").transit.transfer_penalty == 1860.0


@pytest.mark.parametrize(
    ("name", "get"),
    [
        ("walkBoardCost", lambda r: r.walk.board_cost),
        ("bikeBoardCost", lambda r: r.bike.board_cost),
        (
            "otherThanPreferredRoutesPenalty",
            lambda r: r.transit.other_than_preferred_routes_penalty,
        ),
    ],
)
def test_negative_costs_become_zero(name: str, get: Getter) -> None:
    assert get(build(**{name: "-100"})) == 0.0


@pytest.mark.parametrize(
    ("name", "raw", "get"),
    [
        ("walkReluctance", "0", lambda r: r.walk.reluctance),
        ("walkReluctance", "-1", lambda r: r.walk.reluctance),
        ("waitReluctance", "0", lambda r: r.transit.wait_reluctance),
        ("waitAtBeginningFactor", "-0.5", lambda r: r.transit.wait_at_beginning_factor),
        ("maxPreTransitTime", "0", lambda r: r.car.max_pre_transit_time_s),
        ("maxWalkDistance", "-1", lambda r: r.walk.max_distance_m),
        ("searchTimeout", "-1", lambda r: r.itineraries.search_timeout_ms),
        ("pathComparator", "arrivalTime", lambda r: r.itineraries.path_comparator),
    ],
)
def test_values_otp_ignored_keep_the_default(name: str, raw: str, get: Getter) -> None:
    assert get(build(**{name: raw})) == get(build())


def test_bike_rental_speed() -> None:
    assert build(mode="BICYCLE_RENT").bike.speed_mps == 4.3
    assert build(mode="BICYCLE_RENT", bikeSpeed="5.5").bike.speed_mps == 5.5
    assert build(mode="BICYCLE").bike.speed_mps == 5.0
    # OTP looked at the query only: a router default bike speed does not stop the 4.3
    defaults = RoutingDefaults.from_router_config({"bikeSpeed": 6})
    assert build_with(defaults, mode="BICYCLE_RENT").bike.speed_mps == 4.3


def test_street_only_requests_ask_for_one_itinerary() -> None:
    assert build(mode="WALK", numItineraries="5").itineraries.num_itineraries == 1
    assert build(mode="BICYCLE").itineraries.num_itineraries == 1
    assert build(mode="WALK,BUS", numItineraries="5").itineraries.num_itineraries == 5


def test_drive_to_transit_takes_only_transit_trips() -> None:
    assert build(mode="CAR,TRANSIT").transit.only_transit_trips is True
    assert build(mode="CAR_PARK,TRANSIT").rental.park_and_ride is True
    assert build(mode="CAR_PARK,TRANSIT").transit.only_transit_trips is True
    assert build(mode="CAR,TRANSIT", onlyTransitTrips="false").transit.only_transit_trips is False
    assert build(mode="CAR").transit.only_transit_trips is False


def test_companies_default_for_ride_hailing() -> None:
    assert build(mode="CAR_HAIL,TRANSIT").rental.companies == ("NOAPI",)
    assert build(mode="WALK,TRANSIT", companies="UBER").rental.companies == ()


def test_triangle_is_read_only_with_optimize_triangle() -> None:
    assert build(**TRIANGLE).bike.triangle == TriangleFactors(0.5, 0.25, 0.25)
    assert build(triangleSafetyFactor="0.9").bike.triangle is None


@pytest.mark.parametrize(
    ("raw", "expected"), [("fr", "fr"), ("en_US", "en"), ("sr_RS_Latn", "sr"), ("a_b_c_d", "en")]
)
def test_locale_language(raw: str, expected: str) -> None:
    assert build(locale=raw).itineraries.locale == expected


def test_start_transit_ids_take_both_forms() -> None:
    req = build(startTransitStopId="demo:S1", startTransitTripId="demo_trip_1")
    assert (req.start_transit_stop_id, req.start_transit_trip_id) == ("demo:S1", "demo:trip_1")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("true", True), ("TRUE", True), ("1", True), ("no", False), ("False", False)],
)
def test_booleans(raw: str, expected: bool) -> None:
    assert build(arriveBy=raw).arrive_by is expected


# -- errors (the library function) --------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "parameter", "code"),
    [
        ({"numItineraries": "abc"}, "numItineraries", None),
        ({"numItineraries": "99999999999"}, "numItineraries", None),
        ({"numItineraries": "0"}, "numItineraries", None),
        ({"maxTransfers": "1.5"}, "maxTransfers", None),
        ({"maxTransfers": "-1"}, "maxTransfers", None),
        ({"clampInitialWait": "1e3"}, "clampInitialWait", None),
        ({"walkSpeed": "fast"}, "walkSpeed", None),
        ({"walkSpeed": "NaN"}, "walkSpeed", None),
        ({"walkSpeed": "Infinity"}, "walkSpeed", None),
        ({"walkSpeed": "-1"}, "walkSpeed", None),
        ({"bikeSpeed": "0"}, "bikeSpeed", None),
        ({"arriveBy": "maybe"}, "arriveBy", None),
        ({"optimize": "quick"}, "optimize", None),
        ({"mode": "FOO"}, "mode", None),
        ({"minTransitDistance": "40"}, "minTransitDistance", None),
        ({"minTransitDistance": "150%"}, "minTransitDistance", None),
        ({"maxHours": "0"}, "maxHours", None),
        ({"bannedTrips": "demo:t1:x"}, "bannedTrips", None),
        ({"minimumMicromobilitySpeed": "9"}, "minimumMicromobilitySpeed", None),
        ({"aerodynamicDrag": "-1"}, "aerodynamicDrag", None),
        ({"fromPlace": "45,4 edgeId=99999999999"}, "fromPlace", None),
        (
            {"boardSlack": "100", "alightSlack": "50", "minTransferTime": "120"},
            "minTransferTime",
            None,
        ),
        ({"startTransitTripId": "demo_t1", "arriveBy": "true"}, "startTransitTripId", None),
        (
            {"optimize": "TRIANGLE", "triangleSafetyFactor": "0.5"},
            "triangleSlopeFactor",
            "UNDERSPECIFIED_TRIANGLE",
        ),
        ({**TRIANGLE, "triangleTimeFactor": "0.5"}, "triangleSafetyFactor", "TRIANGLE_NOT_AFFINE"),
        # OTP 1.x's BOGUS_PARAMETER cases
        ({"date": "garbage"}, "date", "BOGUS_PARAMETER"),
        ({"time": "1:02pm"}, "time", "BOGUS_PARAMETER"),
        ({"bannedRoutes": "100"}, "bannedRoutes", "BOGUS_PARAMETER"),
        ({"preferredRoutes": "a_b_c"}, "preferredRoutes", "BOGUS_PARAMETER"),
        ({"bannedStops": "S1"}, "bannedStops", "BOGUS_PARAMETER"),
        ({"startTransitStopId": "S1"}, "startTransitStopId", "BOGUS_PARAMETER"),
        ({"fromPlace": "95,4"}, "fromPlace", "OUTSIDE_BOUNDS"),
    ],
)
def test_invalid_parameters(params: dict[str, str], parameter: str, code: str | None) -> None:
    with pytest.raises(InvalidRequestError) as info:
        build(**params)
    assert (info.value.parameter, info.value.code) == (parameter, code)
    assert parameter in str(info.value)


# -- router-level defaults ----------------------------------------------------------------------


def test_routing_defaults_sit_between_library_and_query() -> None:
    defaults = RoutingDefaults.from_router_config(
        {"walkSpeed": 1.1, "transferSlack": 90, "modes": "WALK,BUS", "wheelchairAccessible": True}
    )
    req = build_with(defaults)
    assert req.walk.speed_mps == 1.1
    assert req.transit.min_transfer_time_s == 90
    assert req.modes.transit_modes == {"BUS"}
    assert req.wheelchair.enabled is True
    assert build_with(defaults, walkSpeed="1.5").walk.speed_mps == 1.5


def test_routing_defaults_config_only_keys() -> None:
    defaults = RoutingDefaults.from_router_config(
        {"carSpeed": 30, "stairsReluctance": 3.0, "useUnpreferredRoutesPenalty": 600}
    )
    req = build_with(defaults)
    assert (req.car.speed_mps, req.walk.stairs_reluctance) == (30.0, 3.0)
    assert req.transit.unpreferred_routes_penalty == 600.0
    assert build(carSpeed="10").car.speed_mps == 40.0  # not a query parameter


def test_routing_defaults_ignore_unknown_and_per_request_keys() -> None:
    defaults = RoutingDefaults.from_router_config({"fromPlace": "1,1", "turnReluctance": 1.0})
    assert defaults.values == {}
    assert defaults.ignored == ("fromPlace", "turnReluctance")


def test_routing_defaults_are_validated() -> None:
    with pytest.raises(ValueError, match="walkSpeed"):
        RoutingDefaults.from_router_config({"walkSpeed": "fast"})


# -- over HTTP ----------------------------------------------------------------------------------


@pytest.fixture
def planner() -> RecordingPlanner:
    return RecordingPlanner()


@pytest.fixture
def plan_service(planner: RecordingPlanner) -> Iterator[Service]:
    yield from serve_plan(planner)


@http
def test_request_reaches_the_planner(plan_service: Service, planner: RecordingPlanner) -> None:
    resp = plan_service.get(
        "/otp/routers/default/plan?fromPlace=53.3,4.2&toPlace=53.31,4.22"
        "&date=2026-03-05&time=9:00am&mode=BUS,WALK&numItineraries=2&walkSpeed=1.2"
    )
    assert resp.status == 200
    req = planner.last
    assert req.from_place == Location(lat=53.3, lon=4.2)
    assert req.date_time == local(2026, 3, 5, 9)
    assert req.modes.transit_modes == {"BUS"}
    assert (req.itineraries.num_itineraries, req.walk.speed_mps) == (2, 1.2)


_BOGUS_MSG = "The request has errors that the server is not willing or able to process."


@http
@pytest.mark.parametrize(
    ("query", "parameter", "code"),
    [
        ("numItineraries=abc", "numItineraries", "BOGUS_PARAMETER"),
        ("optimize=FASTEST", "optimize", "BOGUS_PARAMETER"),
        ("mode=WALK,HOVERCRAFT", "mode", "BOGUS_PARAMETER"),
        ("walkSpeed=-3", "walkSpeed", "BOGUS_PARAMETER"),
        ("walkReluctance=1e19", "walkReluctance", "BOGUS_PARAMETER"),
        ("maxTransfers=2147483647", "maxTransfers", "BOGUS_PARAMETER"),
        ("transferPenalty=-1", "transferPenalty", "BOGUS_PARAMETER"),
        ("arriveBy=perhaps", "arriveBy", "BOGUS_PARAMETER"),
        (
            "optimize=TRIANGLE&triangleSafetyFactor=1",
            "triangleSlopeFactor",
            "UNDERSPECIFIED_TRIANGLE",
        ),
        (
            "optimize=TRIANGLE&triangleSafetyFactor=0.5&triangleSlopeFactor=0.5&triangleTimeFactor=0.5",
            "triangleSafetyFactor",
            "TRIANGLE_NOT_AFFINE",
        ),
        ("boardSlack=60&alightSlack=60&minTransferTime=90", "minTransferTime", "BOGUS_PARAMETER"),
        ("bannedTrips=demo:t1:first", "bannedTrips", "BOGUS_PARAMETER"),
    ],
)
def test_refused_parameters_are_planner_errors(
    plan_service: Service, planner: RecordingPlanner, query: str, parameter: str, code: str
) -> None:
    """OTP 1.x clients read errors only from 200 bodies: every refusal is a PlannerError."""
    resp = plan_service.get(f"/otp/routers/demo/plan?fromPlace=1,1&toPlace=2,2&{query}")
    assert resp.status == 200
    assert resp.header("Content-Type") == "application/json"
    error = resp.json()["error"]
    assert error["message"] == code
    assert error["id"] == {"BOGUS_PARAMETER": 413, "UNDERSPECIFIED_TRIANGLE": 370}.get(code, 371)
    assert error["noPath"] is True
    assert error["details"]["parameter"] == parameter
    assert parameter in error["details"]["reason"]
    assert planner.requests == []


@http
def test_web_client_triangle_is_accepted(plan_service: Service, planner: RecordingPlanner) -> None:
    """OTP 1.x's web client rounds its bike triangle: factors summing to 0.9958 plan."""
    query = "optimize=TRIANGLE&triangleSafetyFactor=0.3333&triangleSlopeFactor=0.3333"
    resp = plan_service.get(
        f"/otp/routers/demo/plan?fromPlace=1,1&toPlace=2,2&{query}&triangleTimeFactor=0.3292"
    )
    assert resp.status == 200
    assert "error" not in resp.json()
    triangle = planner.last.bike.triangle
    assert triangle is not None
    assert triangle.safety == pytest.approx(0.3333 / 0.9958)
    assert triangle.safety + triangle.slope + triangle.time == pytest.approx(1.0, abs=1e-12)


@http
@pytest.mark.parametrize(
    "query",
    [
        "date=someday",
        "time=" + quote("1:02pm"),
        "bannedRoutes=100",
        "whiteListedRoutes=" + quote("a_b_c"),
        "bannedStopsHard=S1",
        "startTransitStopId=S1",
        "startTransitTripId=T1",
    ],
)
def test_bogus_parameters_are_planner_errors(
    plan_service: Service, planner: RecordingPlanner, query: str
) -> None:
    resp = plan_service.get(f"/otp/routers/demo/plan?fromPlace=1,1&toPlace=2,2&{query}")
    assert resp.status == 200
    body = resp.json()
    assert list(body) == ["requestParameters", "error"]  # no plan, debugOutput, elevationMetadata
    name, _, value = query.partition("=")
    details = body["error"].pop("details")
    assert details["parameter"] == name
    assert body["error"] == {
        "id": 413,
        "msg": _BOGUS_MSG,
        "message": "BOGUS_PARAMETER",
        "noPath": True,
    }
    assert body["requestParameters"][name] == value.replace("%3A", ":").replace("%3a", ":")
    assert planner.requests == []


@http
def test_unusable_place_is_outside_bounds(plan_service: Service, planner: RecordingPlanner) -> None:
    body = plan_service.get("/otp/routers/demo/plan?fromPlace=1,1&toPlace=95,4").json()
    assert body["error"]["message"] == "OUTSIDE_BOUNDS"
    assert (body["error"]["id"], body["error"]["missing"]) == (400, ["to"])
    assert planner.requests == []


@http
def test_unknown_router_is_404(plan_service: Service, planner: RecordingPlanner) -> None:
    resp = plan_service.get("/otp/routers/nowhere/plan?fromPlace=1,1&toPlace=2,2&numItineraries=x")
    assert resp.status == 404
    assert resp.json() == {
        "status": 404,
        "error": "Not Found",
        "message": "Graph id 'nowhere' not registered.",
    }
    assert plan_service.get("/otp/routers/bad%20id/plan").status == 400
    assert planner.requests == []


@http
def test_routing_defaults_injected_per_router(planner: RecordingPlanner) -> None:
    defaults = {"demo": RoutingDefaults.from_router_config({"walkSpeed": 1.1})}
    for service in serve_plan(planner, routing_defaults=defaults):
        assert service.get("/otp/routers/demo/plan?fromPlace=1,1&toPlace=2,2").status == 200
        assert planner.last.walk.speed_mps == 1.1
        service.get("/otp/routers/default/plan?fromPlace=1,1&toPlace=2,2&walkSpeed=1.4")
        assert planner.last.walk.speed_mps == 1.4
