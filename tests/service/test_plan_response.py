"""The /plan response: OTP 1.x JSON of a hand-built TripPlan, PlannerError bodies, XML.

Expected values are written out from the plan in ``_plan_fakes`` (times in
epoch milliseconds: 2026-01-05 08:00 Amsterdam = 1767596400000) and the OTP 1.x
reference, sections 2.1-2.11.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _fakes import Service
from _plan_fakes import (
    PLAN,
    T0_MS,
    TZ,
    RecordingPlanner,
    ms,
    serve_plan,
)

from otpa.errors import InternalError
from otpa.routing.errors import (
    InvalidRequestError,
    LocationNotAccessibleError,
    NoPathsAfterFilteringError,
    NoTransitTimesError,
    OutsideBoundsError,
    PathNotFoundError,
    PlanningError,
    TrivialPathError,
)
from otpa.routing.model import Place
from otpa.routing.request import PlanRequest
from service.otp1.plan_response import (
    MESSAGES,
    planner_error,
    planner_error_for,
    trip_plan_json,
)

http = pytest.mark.http
QUERY = "/otp/routers/demo/plan?fromPlace=Home%3A%3A53.295,4.19&toPlace=53.305,4.21&mode=BUS,WALK"

PLACE_KEYS = ["name", "lon", "lat", "orig", "vertexType", "wheelchairBoarding"]
LEG_ALWAYS = [
    "startTime",
    "endTime",
    "departureDelay",
    "arrivalDelay",
    "realTime",
    "distance",
    "pathway",
    "mode",
    "route",
    "agencyTimeZoneOffset",
    "interlineWithPreviousLeg",
    "from",
    "to",
    "legGeometry",
    "rentedBike",
    "rentedCar",
    "rentedVehicle",
    "hailedCar",
    "flexDrtAdvanceBookMin",
    "transitLeg",
    "duration",
    "steps",
]
LINE = {"points": "_p~iF~ps|U_ulLnnqC", "length": 2}
USD = {"currency": "USD", "currencyCode": "USD", "symbol": "$", "defaultFractionDigits": 2}
STEP = {
    "distance": 120.5,
    "relativeDirection": "DEPART",
    "streetName": "Main Street",
    "absoluteDirection": "NORTH",
    "stayOn": False,
    "area": False,
    "bogusName": False,
    "lon": 4.19,
    "lat": 53.295,
    "elevation": [{"first": 0.0, "second": 1.5}, {"first": 120.5, "second": 2.0}],
}
STOP_B = {
    "name": "Stop B",
    "stopId": "demo:B",
    "lon": 4.2,
    "lat": 53.3,
    "arrival": ms(12),
    "departure": ms(12.5),
    "stopIndex": 1,
    "stopSequence": 2,
    "vertexType": "TRANSIT",
    "wheelchairBoarding": "UNKNOWN",
}


@pytest.fixture
def planner() -> RecordingPlanner:
    return RecordingPlanner()


@pytest.fixture
def plan_service(planner: RecordingPlanner) -> Iterator[Service]:
    yield from serve_plan(planner)


def get_plan(service: Service, extra: str = "", **headers: str) -> dict[str, Any]:
    resp = service.get(QUERY + extra, **headers)
    assert resp.status == 200
    assert resp.header("Content-Type") == "application/json"
    body: dict[str, Any] = resp.json()
    return body


# -- success ------------------------------------------------------------------------------------


@http
def test_envelope(plan_service: Service) -> None:
    body = get_plan(plan_service, "&walkSpeed=1.2&walkSpeed=9&flag=")
    assert list(body) == ["requestParameters", "plan", "debugOutput", "elevationMetadata"]
    assert body["requestParameters"] == {  # first value of every parameter, unknown ones too
        "fromPlace": "Home::53.295,4.19",
        "toPlace": "53.305,4.21",
        "mode": "BUS,WALK",
        "walkSpeed": "1.2",
        "flag": "",
    }
    assert body["debugOutput"] == {
        "precalculationTime": 1,
        "pathCalculationTime": 20,
        "pathTimes": [15, 5],
        "renderingTime": 3,
        "totalTime": 24,
        "timedOut": False,
    }
    assert body["elevationMetadata"] == {"ellipsoidToGeoidDifference": 0.0, "geoidElevation": False}
    geoid = get_plan(plan_service, "&geoidElevation=true")["elevationMetadata"]
    assert geoid["geoidElevation"] is True


@http
def test_trip_plan(plan_service: Service) -> None:
    plan = get_plan(plan_service)["plan"]
    assert list(plan) == ["date", "from", "to", "itineraries"]
    assert plan["date"] == T0_MS
    assert plan["from"] == {
        "name": "Origin",
        "lon": 4.19,
        "lat": 53.295,
        "orig": "Home",
        "vertexType": "NORMAL",
        "wheelchairBoarding": "UNKNOWN",
    }
    assert plan["to"]["orig"] == ""  # always a string on the plan's places
    assert list(plan["to"]) == PLACE_KEYS


@http
def test_itinerary(plan_service: Service) -> None:
    itinerary = get_plan(plan_service)["plan"]["itineraries"][0]
    legs = itinerary.pop("legs")
    assert itinerary == {
        "duration": 1200,
        "startTime": T0_MS,
        "endTime": ms(20),
        "walkTime": 450,
        "transitTime": 630,
        "waitingTime": 120,
        "walkDistance": 700.5,
        "walkLimitExceeded": False,
        "elevationLost": 0.0,
        "elevationGained": 1.0,
        "transfers": 0,
        "fare": {
            "fare": {"regular": {"cents": 250, "currency": USD}},
            "details": {
                "regular": [
                    {
                        "fareId": "demo:F1",
                        "price": {"cents": 250, "currency": USD},
                        "routes": ["demo:r1"],
                        "legIndex": 1,
                        "isTransfer": False,
                    }
                ]
            },
        },
        "tooSloped": False,
    }
    assert [leg["mode"] for leg in legs] == ["WALK", "BUS", "WALK"]


@http
def test_street_leg(plan_service: Service) -> None:
    leg = get_plan(plan_service)["plan"]["itineraries"][0]["legs"][0]
    assert list(leg) == LEG_ALWAYS
    assert leg == {
        "startTime": T0_MS,
        "endTime": ms(5),
        "departureDelay": 0,
        "arrivalDelay": 0,
        "realTime": False,
        "distance": 350.25,
        "pathway": False,
        "mode": "WALK",
        "route": "",
        "agencyTimeZoneOffset": 3600000,
        "interlineWithPreviousLeg": False,
        "from": {
            "name": "Origin",
            "lon": 4.19,
            "lat": 53.295,
            "departure": T0_MS,
            "vertexType": "NORMAL",
            "wheelchairBoarding": "UNKNOWN",
        },
        "to": {
            "name": "Stop A",
            "lon": 4.195,
            "lat": 53.297,
            "arrival": ms(5),
            "vertexType": "NORMAL",
            "wheelchairBoarding": "UNKNOWN",
        },
        "legGeometry": LINE,
        "rentedBike": False,
        "rentedCar": False,
        "rentedVehicle": False,
        "hailedCar": False,
        "flexDrtAdvanceBookMin": 0.0,
        "transitLeg": False,
        "duration": 300.0,
        "steps": [STEP],
    }


@http
def test_transit_leg(plan_service: Service) -> None:
    leg = get_plan(plan_service)["plan"]["itineraries"][0]["legs"][1]
    assert leg.pop("from") == {
        "name": "Stop A",
        "stopId": "demo:A",
        "stopCode": "1001",
        "lon": 4.195,
        "lat": 53.297,
        "arrival": ms(6),
        "departure": ms(7),
        "zoneId": "z1",
        "stopIndex": 0,
        "stopSequence": 1,
        "vertexType": "TRANSIT",
        "wheelchairBoarding": "UNKNOWN",
    }
    assert leg.pop("to")["stopId"] == "demo:C"
    assert leg == {
        "startTime": ms(7),
        "endTime": ms(17.5),
        "departureDelay": 0,
        "arrivalDelay": 0,
        "realTime": False,
        "distance": 2500.0,
        "pathway": False,
        "mode": "BUS",
        "route": "1",
        "agencyName": "Demo Transit",
        "agencyUrl": "https://demo.example",
        "agencyTimeZoneOffset": 3600000,
        "routeColor": "FF0000",
        "routeType": 3,
        "routeId": "demo:r1",
        "routeTextColor": "FFFFFF",
        "interlineWithPreviousLeg": False,
        "tripShortName": "101",
        "headsign": "Centre",
        "agencyId": "DT",
        "tripId": "demo:t1",
        "serviceDate": "20260105",
        "legGeometry": LINE,
        "interStopGeometry": [LINE, LINE],
        "alerts": [{"alertHeaderText": "Detour", "effectiveStartDate": ms(-60)}],
        "routeShortName": "1",
        "routeLongName": "Harbour - Centre",
        "boardRule": "mustPhone",
        "rentedBike": False,
        "rentedCar": False,
        "rentedVehicle": False,
        "hailedCar": False,
        "flexDrtAdvanceBookMin": 0.0,
        "transitLeg": True,
        "duration": 630.0,
        "steps": [],
    }


@http
def test_number_types_on_the_wire(plan_service: Service) -> None:
    text = plan_service.get(QUERY).text
    assert '"duration":1200,' in text  # itinerary: long
    assert '"duration":300.0,' in text  # leg: double
    assert '"distance":2500.0,' in text


@http
def test_intermediate_stops_only_on_request(plan_service: Service) -> None:
    legs = get_plan(plan_service)["plan"]["itineraries"][0]["legs"]
    assert all("intermediateStops" not in leg for leg in legs)
    legs = get_plan(plan_service, "&showIntermediateStops=true")["plan"]["itineraries"][0]["legs"]
    assert [leg["intermediateStops"] for leg in legs] == [[], [STOP_B], []]


@http
def test_accessibility_score_only_for_wheelchair_requests(plan_service: Service) -> None:
    legs = get_plan(plan_service)["plan"]["itineraries"][0]["legs"]
    assert "accessibilityScore" not in legs[1]
    legs = get_plan(plan_service, "&wheelchair=true")["plan"]["itineraries"][0]["legs"]
    assert legs[1]["accessibilityScore"] == 0.5


def test_naive_times_are_read_in_the_network_zone() -> None:
    naive = Place(name="x", lon=1.0, lat=2.0, arrival=dt.datetime(2026, 1, 5, 8, 0))
    plan = type(PLAN)(
        date=dt.datetime(2026, 1, 5, 8, 0), from_place=naive, to_place=naive, itineraries=()
    )
    request = PlanRequest(from_place=None, to_place=None, date_time=dt.datetime(2026, 1, 5))
    out = trip_plan_json(plan, request, TZ)
    assert out["date"] == T0_MS
    assert out["from"]["arrival"] == T0_MS
    assert out["itineraries"] == []


# -- planner errors -----------------------------------------------------------------------------

PATH_NOT_FOUND_MSG = (
    "No trip found. There may be no transit service within the maximum specified distance or at "
    "the specified time, or your start or end point might not be safely accessible. An itinerary "
    "may be found if you adjust some Transit Options & Preferences above."
)


@http
@pytest.mark.parametrize(
    ("error", "expected", "debug"),
    [
        (
            OutsideBoundsError("x", missing=("from", "to")),
            {
                "id": 400,
                "msg": "Trip is not possible.  You might be trying to plan a trip outside the "
                "map data boundary.",
                "message": "OUTSIDE_BOUNDS",
                "missing": ["from", "to"],
                "noPath": True,
                "details": {"parameter": "fromPlace", "reason": "x"},
            },
            False,
        ),
        (
            PathNotFoundError("x"),
            {"id": 404, "msg": PATH_NOT_FOUND_MSG, "message": "PATH_NOT_FOUND", "noPath": True},
            True,
        ),
        (
            NoPathsAfterFilteringError("x"),
            {
                "id": 405,
                "msg": "No trips found that satisfy the defined trip plan filters.",
                "noPath": True,
            },
            True,
        ),
        (
            NoTransitTimesError("x"),
            {
                "id": 406,
                "msg": "No transit times available. The date may be past or too far in the future "
                "or there may not be transit service for your trip at the time you chose.",
                "message": "NO_TRANSIT_TIMES",
                "noPath": True,
            },
            True,
        ),
        (
            TrivialPathError("x"),
            {
                "id": 409,
                "msg": "Origin is within a trivial distance of the destination.",
                "message": "TOO_CLOSE",
                "noPath": True,
            },
            True,
        ),
        (
            LocationNotAccessibleError("x"),
            {
                "id": 470,
                "msg": MESSAGES["LOCATION_NOT_ACCESSIBLE"][1],
                "message": "LOCATION_NOT_ACCESSIBLE",
                "noPath": True,
            },
            True,
        ),
        (
            PlanningError("x"),
            {"id": 404, "msg": PATH_NOT_FOUND_MSG, "message": "PATH_NOT_FOUND", "noPath": True},
            True,
        ),
        (
            InvalidRequestError("x", parameter="startTransitStopId", code="BOGUS_PARAMETER"),
            {
                "id": 413,
                "msg": "The request has errors that the server is not willing or able to process.",
                "message": "BOGUS_PARAMETER",
                "noPath": True,
                "details": {"parameter": "startTransitStopId", "reason": "x"},
            },
            True,
        ),
    ],
)
def test_planning_errors_are_200_with_planner_error(
    plan_service: Service,
    planner: RecordingPlanner,
    error: Exception,
    expected: dict[str, Any],
    debug: bool,
) -> None:
    planner.error = error
    body = get_plan(plan_service)
    assert body["error"] == expected
    keys = (
        ["requestParameters", "error", "debugOutput"] if debug else ["requestParameters", "error"]
    )
    assert list(body) == keys  # neither plan nor elevationMetadata
    if debug:
        assert body["debugOutput"]["pathTimes"] == []


@http
def test_invalid_request_from_the_planner_is_bogus_parameter(
    plan_service: Service, planner: RecordingPlanner
) -> None:
    planner.error = InvalidRequestError("maxSlope: too steep", parameter="maxSlope")
    resp = plan_service.get(QUERY)
    assert resp.status == 200
    error = resp.json()["error"]
    assert (error["id"], error["message"]) == (413, "BOGUS_PARAMETER")
    assert error["details"] == {"parameter": "maxSlope", "reason": "maxSlope: too steep"}


@http
def test_unexpected_planner_failure_is_500_without_details(
    plan_service: Service, planner: RecordingPlanner
) -> None:
    planner.error = RuntimeError("secret internals")
    resp = plan_service.get(QUERY)
    assert resp.status == 500
    assert resp.json() == {
        "status": 500,
        "error": "Internal Server Error",
        "message": "Internal server error.",
        "requestId": resp.headers["X-Request-Id"],
    }


@http
def test_internal_error_is_200_system_error_and_logged(
    plan_service: Service, planner: RecordingPlanner, caplog: pytest.LogCaptureFixture
) -> None:
    # a failed invariant inside the planner (pred_chain's InternalError) is no bad request
    planner.error = InternalError("pred_chain: the predecessors form a cycle")
    with caplog.at_level(logging.ERROR, logger="service.handlers.plan"):
        resp = plan_service.get(QUERY)
    assert resp.status == 200
    error = resp.json()["error"]
    assert (error["id"], error["message"], error["noPath"]) == (500, "SYSTEM_ERROR", True)
    assert "pred_chain" not in resp.body.decode()  # the text stays in the log
    logged = [r for r in caplog.records if r.name == "service.handlers.plan"]
    assert [r.exc_info[1] for r in logged if r.exc_info] == [planner.error]
    assert resp.headers["X-Request-Id"] in logged[0].getMessage()


def test_message_table() -> None:
    ids = {code: error_id for code, (error_id, _) in MESSAGES.items()}
    assert ids == {
        "PLAN_OK": 200,
        "SYSTEM_ERROR": 500,
        "GRAPH_UNAVAILABLE": 503,
        "OUTSIDE_BOUNDS": 400,
        "PATH_NOT_FOUND": 404,
        "NO_PATHS_AFTER_FILTERING": 405,
        "NO_TRANSIT_TIMES": 406,
        "REQUEST_TIMEOUT": 408,
        "BOGUS_PARAMETER": 413,
        "TOO_CLOSE": 409,
        "LOCATION_NOT_ACCESSIBLE": 470,
        "UNDERSPECIFIED_TRIANGLE": 370,
        "TRIANGLE_NOT_AFFINE": 371,
        "GEOCODE_FROM_NOT_FOUND": 440,
        "GEOCODE_TO_NOT_FOUND": 450,
        "GEOCODE_FROM_TO_NOT_FOUND": 460,
        "GEOCODE_FROM_AMBIGUOUS": 340,
        "GEOCODE_TO_AMBIGUOUS": 350,
        "GEOCODE_FROM_TO_AMBIGUOUS": 360,
        "TRANSPORTATION_NETWORK_COMPANY_UNAVAILABLE": 480,
        "TRANSPORTATION_NETWORK_COMPANY_REQUEST_INVALID": 481,
        "TRANSPORTATION_NETWORK_COMPANY_CONFIG_INVALID": 482,
    }
    assert planner_error("SYSTEM_ERROR")["msg"] == (
        "We're sorry. The trip planner is temporarily unavailable. Please try again later."
    )
    assert planner_error_for(ValueError("x")) is None
    outside = InvalidRequestError("x", parameter="intermediatePlaces", code="OUTSIDE_BOUNDS")
    error = planner_error_for(outside)
    assert error is not None
    assert error["missing"] == ["intermediate"]
    triangle = InvalidRequestError("x", parameter="optimize", code="TRIANGLE_NOT_AFFINE")
    assert planner_error_for(triangle) == {
        "id": 371,
        "msg": MESSAGES["TRIANGLE_NOT_AFFINE"][1],
        "message": "TRIANGLE_NOT_AFFINE",
        "missing": None,
        "noPath": True,
        "details": {"parameter": "optimize", "reason": "x"},
    }


# -- XML ----------------------------------------------------------------------------------------


@http
@pytest.mark.parametrize("accept", ["application/xml", "text/xml"])
def test_xml(plan_service: Service, accept: str) -> None:
    resp = plan_service.get(QUERY + "&showIntermediateStops=true", Accept=accept)
    assert resp.status == 200
    assert resp.header("Content-Type") == accept  # the type asked for, as JAX-RS answered
    root = ET.fromstring(resp.body)
    assert root.tag == "response"
    entries = {e.findtext("key"): e.findtext("value") for e in root.iter("entry")}
    assert entries["mode"] == "BUS,WALK"
    plan = root.find("plan")
    assert plan is not None
    assert plan.findtext("date") == str(T0_MS)
    assert plan.findtext("from/orig") == "Home"
    itineraries = plan.findall("itinerary")  # JAXB's name; JSON says "itineraries"
    assert len(itineraries) == 1
    legs = itineraries[0].findall("legs")
    assert [leg.findtext("mode") for leg in legs] == ["WALK", "BUS", "WALK"]
    assert legs[0].findtext("walkSteps/streetName") == "Main Street"
    assert [s.findtext("name") for s in legs[1].findall("stop")] == ["Stop B"]
    assert legs[1].findtext("duration") == "630.0"
    assert itineraries[0].findtext("fare/fare/entry/key") == "regular"
    assert itineraries[0].findtext("fare/fare/entry/value/cents") == "250"
    assert root.findtext("debugOutput/totalTime") == "24"
    assert [e.text for e in root.findall("debugOutput/pathTimes")] == ["15", "5"]


@http
def test_xml_planner_error(plan_service: Service, planner: RecordingPlanner) -> None:
    planner.error = OutsideBoundsError("x", missing=("from",))
    resp = plan_service.get(QUERY + "&odd%20name=1", Accept="application/xml")
    root = ET.fromstring(resp.body)
    assert [child.tag for child in root] == ["requestParameters", "error"]
    assert root.findtext("error/id") == "400"
    assert root.findtext("error/message") == "OUTSIDE_BOUNDS"
    assert [m.text for m in root.findall("error/missing")] == ["from"]
    keys = [e.findtext("key") for e in root.iter("entry")]
    assert "odd name" in keys  # parameter names that are no XML names still fit


@http
def test_json_stays_the_default(plan_service: Service) -> None:
    for accept in ("*/*", "application/json", "application/json, application/xml;q=0.9"):
        assert plan_service.get(QUERY, Accept=accept).header("Content-Type") == "application/json"


@http
def test_etag_is_the_hash_of_the_body_written(plan_service: Service) -> None:
    # the answer is encoded and hashed in the worker thread; the Etag must still be
    # Tornado's (SHA-1 of the body sent), per representation, and If-None-Match works
    resp = plan_service.get(QUERY)
    etag = resp.header("Etag")
    assert etag == f'"{hashlib.sha1(resp.body).hexdigest()}"'
    xml = plan_service.get(QUERY, Accept="application/xml")
    assert xml.header("Etag") == f'"{hashlib.sha1(xml.body).hexdigest()}"' != etag
    again = plan_service.get(QUERY, If_None_Match=str(etag))
    assert (again.status, again.body) == (304, b"")
    refused = plan_service.get(QUERY + "&numItineraries=abc")  # a PlannerError body too
    assert refused.header("Etag") == f'"{hashlib.sha1(refused.body).hexdigest()}"'


@http
def test_the_query_is_read_in_the_heavy_pool(plan_service: Service) -> None:
    # parsing, planning and encoding are one job of the heavy pool (the event loop only
    # moves bytes): a parameter refused while parsing is answered by a heavy job too
    def heavy_jobs() -> int:
        work: dict[str, Any] = plan_service.get("/otp/health").json()["work"]["heavy"]
        return int(work["completed"])

    before = heavy_jobs()
    body = plan_service.get(QUERY + "&numItineraries=abc").json()
    assert body["error"]["message"] == "BOGUS_PARAMETER"
    assert body["error"]["details"]["parameter"] == "numItineraries"
    assert "debugOutput" not in body  # refused before planning started, as before
    assert heavy_jobs() == before + 1


# -- the real planner on the demo city ----------------------------------------------------------


@pytest.fixture(scope="module")
def demo_network(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from otpa.network import build_network
    from otpa.testing.demo import write_demo_city

    city = write_demo_city(Path(tmp_path_factory.mktemp("plan-demo")))
    return build_network(city.directory)


@http
def test_real_planner_on_the_demo_city(demo_network: Any) -> None:
    lat, lon = demo_network.center
    start, _ = demo_network.transit_service_range
    day = (dt.datetime.fromtimestamp(start, TZ) + dt.timedelta(days=7)).strftime("%Y-%m-%d")
    query = (
        f"/otp/routers/default/plan?fromPlace={lat - 0.004},{lon - 0.006}"
        f"&toPlace=Dest%3A%3A{lat + 0.004},{lon + 0.006}&date={day}&time=8:00am"
    )
    for service in serve_plan(None, networks={"demo": demo_network}):
        resp = service.get(query)
        assert resp.status == 200
        body = resp.json()
        assert "error" not in body, body.get("error")
        plan = body["plan"]
        assert plan["to"]["orig"] == "Dest"
        assert plan["itineraries"]
        for itinerary in plan["itineraries"]:
            assert itinerary["startTime"] <= itinerary["endTime"]
            assert itinerary["duration"] == round(
                (itinerary["endTime"] - itinerary["startTime"]) / 1000
            )
            for leg in itinerary["legs"]:
                assert set(LEG_ALWAYS) <= set(leg)
                assert isinstance(leg["startTime"], int)
        far = service.get("/otp/routers/demo/plan?fromPlace=0,0&toPlace=0.1,0.1").json()
        assert far["error"]["message"] == "OUTSIDE_BOUNDS"
        assert far["error"]["missing"] == ["from", "to"]
