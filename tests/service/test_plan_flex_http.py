"""GET /plan with GTFS-Flex services: the ibi fork's leg fields over HTTP (OTP 1.x JSON).

The service loads a saved Cobb County graph; the expected itinerary is the library's
plan for the same request on the same network (the library's own times are checked
against the feed's windows and the street time in tests/otpa/routing/test_plan_flex.py).
"""

from __future__ import annotations

import datetime as dt
import json
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from _fakes import Service

from otpa import plan
from otpa.network import TransportNetwork, build_network
from otpa.routing import Location, PlanRequest
from otpa.routing.preferences import FlexPreferences
from service.config import ServiceConfig
from service.server import start_in_thread
from tests.conftest import DATA_ROOT, require_data
from tests.fixtures.flag_feed import write_flag_feed
from tests.fixtures.networks import built_network

pytestmark = pytest.mark.http

IN_ZONE = "33.86456,-84.62386"  # inside CobbLinc's Flex Zone 1
MARTA_STOP = "MARTA:78002"


@pytest.fixture(scope="module")
def cobb() -> TransportNetwork:
    require_data("tiny", "cobb-flex")
    return built_network(DATA_ROOT, "tiny/cobb-flex")


@pytest.fixture(scope="module")
def svc(cobb: TransportNetwork, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    graphs = tmp_path_factory.mktemp("graphs")
    cobb.save(graphs / "cobb" / "graph")
    url, stop = start_in_thread(ServiceConfig(port=0, graphs_dir=Path(graphs)))
    yield Service(url.removesuffix("/otp/routers/default"), url, None, stop)
    stop()


def _plan(svc: Service, **extra: str) -> dict[str, object]:
    # 05:00 in the router's time zone (America/Denver, the first feed's) is 07:00 in Atlanta
    query = {"fromPlace": IN_ZONE, "toPlace": MARTA_STOP, "date": "2021-12-14", "time": "05:00"}
    resp = svc.get(f"/otp/routers/cobb/plan?{urllib.parse.urlencode({**query, **extra})}")
    assert resp.status == 200, resp.text
    body = resp.json()
    assert isinstance(body, dict)
    return body


def _ms(when: dt.datetime) -> int:
    return int(when.timestamp() * 1000)


def test_flex_leg_fields_over_http(svc: Service, cobb: TransportNetwork) -> None:
    body = _plan(svc, flexIgnoreDrtAdvanceBookMin="true")
    plan_json = body["plan"]
    assert isinstance(plan_json, dict)
    legs = plan_json["itineraries"][0]["legs"]
    ride, bus = legs[0], legs[1]
    when = dt.datetime(2021, 12, 14, 7, tzinfo=ZoneInfo("America/New_York"))
    lib = plan(
        cobb,
        PlanRequest(
            Location(33.86456, -84.62386),
            Location(label=MARTA_STOP),
            when,
            flex=FlexPreferences(ignore_drt_advance_book_min=True),
        ),
    )
    expected = lib.itineraries[0].legs[0]
    assert (ride["startTime"], ride["endTime"]) == (
        _ms(expected.start_time),
        _ms(expected.end_time),
    )
    assert ride["tripId"] == expected.trip_id
    assert ride["tripId"].startswith("cobblinc-scheduled-deviated-flex:")
    assert ride["mode"] == "BUS"
    assert ride["transitLeg"] is True
    assert ride["flexDrtAdvanceBookMin"] == 120.0
    assert ride["flexDrtPickupMessage"] == "Call reservationist to schedule."
    assert ride["flexDrtDropOffMessage"] == "Call reservationist to schedule."
    assert ride["boardRule"] == "mustPhone"
    assert "callAndRide" not in ride  # a deviated route, not call-and-ride
    assert ride["from"]["boardAlightType"] == "DEVIATED"
    assert "flagStopArea" in ride["from"]  # the zone's boundary
    assert ride["flexCallAndRideMaxStartTime"] >= ride["startTime"]
    assert bus["route"] == "30"
    assert bus["from"]["boardAlightType"] == "DEFAULT"
    assert bus["startTime"] == ride["endTime"]
    assert legs[-1]["to"]["stopId"] == MARTA_STOP


def test_booking_now_for_a_past_day_gets_no_flex_leg(svc: Service) -> None:
    # the booking time is the moment of the request: a 2021 ride can no longer be booked
    body = _plan(svc)
    assert "plan" not in body or not body.get("plan")
    error = body["error"]
    assert isinstance(error, dict)
    assert error["id"] == 404  # PATH_NOT_FOUND: without the ride, nothing reaches the bus


def test_flag_stop_buffer_without_flag_routes_changes_nothing(svc: Service) -> None:
    # ibi's clients send flexFlagStopBufferSize with every request: on a network whose
    # routes have no continuous pickup there is simply no flag stop within the buffer
    plain = _plan(svc, flexIgnoreDrtAdvanceBookMin="true")
    buffered = _plan(svc, flexIgnoreDrtAdvanceBookMin="true", flexFlagStopBufferSize="50")
    assert "error" not in buffered
    assert buffered["plan"] == plain["plan"]


@pytest.fixture(scope="module")
def flag_svc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    graphs = tmp_path_factory.mktemp("flag-graphs")
    build_network(write_flag_feed(tmp_path_factory.mktemp("flag"))).save(graphs / "flag" / "graph")
    url, stop = start_in_thread(ServiceConfig(port=0, graphs_dir=Path(graphs)))
    yield Service(url.removesuffix("/otp/routers/default"), url, None, stop)
    stop()


def test_flag_stops_over_http(flag_svc: Service) -> None:
    """Board 55.6 m off route F a quarter of the way S1 -> S2 (T1 passes at 08:02:30),
    leave it half way S3 -> S4 (08:25:00): one BUS leg between two flag stops."""
    query = {
        "fromPlace": "48.0005,9.005",
        "toPlace": "47.9995,9.05",
        "date": "2024-03-05",
        "time": "07:55",
        "flexFlagStopBufferSize": "100",
    }
    resp = flag_svc.get(f"/otp/routers/flag/plan?{urllib.parse.urlencode(query)}")
    assert resp.status == 200, resp.text
    itineraries = resp.json()["plan"]["itineraries"]
    berlin = ZoneInfo("Europe/Berlin")
    flagged = [
        it for it in itineraries if any(leg["from"].get("boardAlightType") == "FLAG_STOP"
                                        for leg in it["legs"])
    ]  # fmt: skip
    walk_in, bus, walk_out = flagged[0]["legs"]
    assert (walk_in["mode"], bus["mode"], walk_out["mode"]) == ("WALK", "BUS", "WALK")
    assert bus["tripId"] == "flag:T1"
    assert bus["startTime"] == _ms(dt.datetime(2024, 3, 5, 8, 2, 30, tzinfo=berlin))
    assert bus["endTime"] == _ms(dt.datetime(2024, 3, 5, 8, 25, tzinfo=berlin))
    for place in (bus["from"], bus["to"]):
        assert place["boardAlightType"] == "FLAG_STOP"
        assert place["vertexType"] == "NORMAL"
        assert place["name"] == "F flag stop"
        assert "stopId" not in place
    assert (round(bus["from"]["lat"], 6), round(bus["from"]["lon"], 6)) == (48.0, 9.005)
    assert (round(bus["to"]["lat"], 6), round(bus["to"]["lon"], 6)) == (48.0, 9.05)
    assert bus["flexFlagStopPickupMessage"] == "Wave to the driver"
    assert walk_in["endTime"] == bus["startTime"]
    assert walk_out["startTime"] == bus["endTime"]


def test_flex_trip_stoptimes_in_the_index(svc: Service) -> None:
    trip = "cobblinc-scheduled-deviated-flex:4d838cf4-d44d-4e08-a364-f22c34a8c89e"
    resp = svc.get(f"/otp/routers/cobb/index/trips/{urllib.parse.quote(trip)}/stoptimes")
    assert resp.status == 200, resp.text
    times = resp.json()
    feed = "cobblinc-scheduled-deviated-flex"
    # the feed's rows: yz85 07:30, zone_1 07:30-08:00 twice, cujv 08:00
    assert [t["stopId"] for t in times] == [
        f"{feed}:yz85",
        f"{feed}:zone_1",
        f"{feed}:zone_1",
        f"{feed}:cujv",
    ]
    assert [(t["scheduledArrival"], t["scheduledDeparture"]) for t in times] == [
        (27000, 27000),
        (27000, 28800),
        (27000, 28800),
        (28800, 28800),
    ]
    assert [t["timepoint"] for t in times] == [True, False, False, True]
    assert "serviceArea" not in times[0]
    assert times[1]["serviceArea"]["length"] > 3  # the zone's boundary
    assert all(t["stopCount"] == 4 for t in times)
    # the rows leave continuous pickup / drop-off empty: the route's 2 (phone) applies
    assert {(t["continuousPickup"], t["continuousDropOff"]) for t in times} == {(2, 2)}


def test_flex_trip_stoptimes_over_graphql(svc: Service) -> None:
    trip = "cobblinc-scheduled-deviated-flex:4d838cf4-d44d-4e08-a364-f22c34a8c89e"
    query = (
        "query($id: String!) { trip(id: $id) { stoptimes { stop { gtfsId } scheduledArrival "
        "scheduledDeparture timepoint stopPositionInPattern pickupType dropoffType "
        "continuousPickup continuousDropOff serviceArea { length points } } } }"
    )
    payload = json.dumps({"query": query, "variables": {"id": trip}}).encode()
    resp = svc.request(
        "POST",
        "/otp/routers/cobb/index/graphql",
        body=payload,
        headers={"Content-Type": "application/json"},
    )
    assert resp.status == 201, resp.text
    body = resp.json()
    assert "errors" not in body, body
    times = body["data"]["trip"]["stoptimes"]
    feed = "cobblinc-scheduled-deviated-flex"
    # the feed's rows: stop yz85 at 07:30, zone_1 (window 07:30-08:00, pickup and drop-off
    # by phone) twice, stop cujv at 08:00; the zone is no stop, its boundary the service area
    assert [t["stop"] and t["stop"]["gtfsId"] for t in times] == [
        f"{feed}:yz85",
        None,
        None,
        f"{feed}:cujv",
    ]
    assert [(t["scheduledArrival"], t["scheduledDeparture"]) for t in times] == [
        (27000, 27000),
        (27000, 28800),
        (27000, 28800),
        (28800, 28800),
    ]
    assert [t["stopPositionInPattern"] for t in times] == [0, 1, 2, 3]
    assert [(t["pickupType"], t["dropoffType"]) for t in times] == [
        ("SCHEDULED", "SCHEDULED"),
        ("CALL_AGENCY", "CALL_AGENCY"),
        ("CALL_AGENCY", "CALL_AGENCY"),
        ("SCHEDULED", "SCHEDULED"),
    ]
    # rows leave continuous_pickup / continuous_drop_off empty: route 090z's 2 (phone) applies
    assert [(t["continuousPickup"], t["continuousDropOff"]) for t in times] == [(2, 2)] * 4
    assert times[0]["serviceArea"] is None
    area = times[1]["serviceArea"]
    rest = svc.get(f"/otp/routers/cobb/index/trips/{urllib.parse.quote(trip)}/stoptimes").json()
    assert area == rest[1]["serviceArea"]
    assert area["length"] > 3
