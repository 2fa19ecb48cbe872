"""Over HTTP: GTFS-RT alerts on legs, alert patches, vehicle positions, per-router routingDefaults.

MMRI case 3i (trip 3i|1 3i1 00:01 -> 3i2 00:02 on 2014-01-01, ``stop_times.txt``) is
served as a real saved graph whose ``router-config.json`` names a ``real-time-alerts``
updater reading ``3i.pb`` (one alert on route 3i|1, header "Unknown effect").  Patches
are posted by a user with OTP 1.x's ``user`` role, persist in the router folder and
survive a reload and a restart.  King County Metro's GTFS with a ``vehicle-positions``
updater fills ``/index/routes/{id}/vehicles``.  Two copies of MMRI 3b (3b|1 00:01,
3b|2 00:11) with different ``routingDefaults`` answer the same query differently.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import time
import urllib.parse
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from _fakes import ALICE, BOB, TEST_SCRYPT_N, Service, basic
from google.transit import gtfs_realtime_pb2

from otpa.network import BuildConfig, build_network
from service.auth import ROLE_ROUTERS, UserEntry, hash_password
from service.graphql.execute import GRAPHQL_OK
from tests.conftest import require_data

pytestmark = pytest.mark.http

#: 2014-01-01 00:00 Europe/Amsterdam (OTP's MMRI epoch), in seconds.
EPOCH = 1388530800
CAROL = ("carol", "carol-pw")  # has OTP's "user" role (alert patches)
PLAN_3I = (
    "/otp/routers/rt/plan?fromPlace=3i:3i1&toPlace=3i:3i2&date=2014-01-01&time=00:01"
    "&mode=TRANSIT,WALK&numItineraries=1"
)


@pytest.fixture(scope="module")
def patch_users() -> Mapping[str, UserEntry]:
    """alice (ROUTERS), bob (no roles) and carol (user)."""
    return {
        ALICE[0]: UserEntry(
            ALICE[0], hash_password(ALICE[1], n=TEST_SCRYPT_N), frozenset({ROLE_ROUTERS})
        ),
        BOB[0]: UserEntry(BOB[0], hash_password(BOB[1], n=TEST_SCRYPT_N), frozenset()),
        CAROL[0]: UserEntry(
            CAROL[0], hash_password(CAROL[1], n=TEST_SCRYPT_N), frozenset({"user"})
        ),
    }


def _wait(predicate: Callable[[], bool], timeout_s: float = 20.0) -> None:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError("condition not reached in time")


def _graphs_3i(tmp_path: Path) -> Path:
    data = require_data("tiny", "mmri")
    graphs = tmp_path / "graphs"
    build_network(data / "3i").save(graphs / "rt" / "graph")
    vehicles = gtfs_realtime_pb2.FeedMessage()
    vehicles.header.gtfs_realtime_version = "2.0"
    bus = vehicles.entity.add(id="bus-7").vehicle
    bus.trip.trip_id = "3i|1"
    bus.vehicle.id, bus.vehicle.label = "7", "Bus 7"
    bus.position.latitude, bus.position.longitude, bus.position.bearing = 3.8015, 3.8, 0.0
    bus.current_stop_sequence, bus.timestamp = 2, EPOCH + 90
    (graphs / "rt" / "vehicles.pb").write_bytes(vehicles.SerializeToString())
    config = {
        "updaters": [
            {
                "type": "real-time-alerts",
                "sourceType": "gtfs-file",
                "file": str(data / "3i.pb"),
                "frequencySec": 0,
                "feedId": "3i",
            },
            {"type": "vehicle-positions", "sourceType": "gtfs-file", "file": "vehicles.pb"},
        ]
    }
    (graphs / "rt" / "router-config.json").write_text(json.dumps(config))
    return graphs


def _leg_alerts(service: Service, extra: str = "") -> list[dict[str, Any]]:
    body = service.get(PLAN_3I + extra).json()
    assert "error" not in body, body
    (leg,) = body["plan"]["itineraries"][0]["legs"]
    alerts: list[dict[str, Any]] = leg.get("alerts", [])
    return alerts


def _post(service: Service, body: Any, user: tuple[str, str] = CAROL, **kw: str) -> Any:
    path = kw.get("path", "/otp/routers/rt/patch/patch")
    media = kw.get("media", "application/json")
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return service.request("POST", path, body=data, headers={"Content-Type": media, **basic(*user)})


def _stop_patch(**fields: Any) -> dict[str, Any]:
    patch: dict[str, Any] = {
        "id": "lift",
        "alert": {"alertHeaderText": {"en": "Lift out of order", "nl": "Lift defect"}},
        "stop": "3i:3i2",
        "timePeriods": [{"startTime": EPOCH, "endTime": EPOCH + 3600}],
    }
    patch.update(fields)
    return patch


def test_alerts_and_patches_over_http(
    tmp_path: Path, make_service: Any, patch_users: Mapping[str, UserEntry]
) -> None:
    graphs = _graphs_3i(tmp_path)
    service = make_service(loader=None, graphs_dir=graphs, users=patch_users)

    def status() -> dict[str, Any]:
        out: dict[str, Any] = service.get("/otp/routers/rt/updaters/0").json()
        return out

    _wait(lambda: status()["successes"] >= 1)
    st = status()
    assert (st["type"], st["applied"], st["unmatched"], st["invalid"]) == (
        "real-time-alerts",
        1,
        0,
        0,
    )
    assert _leg_alerts(service) == [{"alertHeaderText": "Unknown effect"}]
    # the vehicle on trip 3i|1, heading for 3i2 (stop_sequence 2)
    (pattern,) = service.get("/otp/routers/rt/index/routes/3i:3i%7C1/patterns").json()
    quoted = urllib.parse.quote(pattern["id"], safe="")
    vehicles = service.get(f"/otp/routers/rt/index/patterns/{quoted}/vehicles").json()
    assert vehicles == [
        {
            "vehicleId": "7",
            "label": "Bus 7",
            "lat": pytest.approx(3.8015),
            "lon": pytest.approx(3.8),
            "heading": 0.0,
            "seconds": EPOCH + 90,
            "patternId": pattern["id"],
            "tripId": "3i:3i|1",
            "routeId": "3i:3i|1",
            "nextStopName": "Stop 3i2",
            "nextStopId": "3i:3i2",
            "nextStopSequenceId": 2,
        }
    ]

    # writes need the user role; refusals are OTP's statuses (HTTP 200), storing nothing
    assert _post(service, {"alertPatches": [_stop_patch()]}, user=("x", "y")).status == 401
    assert _post(service, {"alertPatches": [_stop_patch()]}, user=BOB).status == 403
    refused = _post(service, {"alertPatches": [_stop_patch(), _stop_patch(id=None)]})
    assert (refused.status, refused.json()) == (200, {"status": "Every patch must have an id"})
    refused = _post(service, {"alertPatches": [_stop_patch(id="r", stop=None, route="3i:")]})
    assert refused.json() == {"status": "Every route patch must have a route id"}
    assert "unknown stop" in _post(service, {"alertPatches": [_stop_patch(stop="3i:x")]}).text
    assert _post(service, {"patches": []}).status == 400
    assert _post(service, b"<oops", media="application/xml").status == 400
    assert _post(service, b"<a>" * 50 + b"</a>" * 50, media="application/xml").status == 400
    assert _post(service, b"[" * 100_000 + b"]" * 100_000).status == 400
    assert _post(service, b"{}", media="text/csv").status == 415
    assert service.get("/otp/routers/rt/index/routes/nocolon/vehicles").status == 404
    assert not (graphs / "rt" / "alert-patches.json").exists()
    assert service.get("/otp/routers/rt/patch/stopPatches?agency=3i&id=3i2").json() == {}

    # a stop patch (JSON) and a route patch (XML, out of the leg's time)
    ok = _post(service, {"alertPatches": [_stop_patch()]})
    assert (ok.status, ok.json()) == (200, {"status": "OK"})
    xml = (
        "<alertPatchSet><alertPatches><id>works</id><route>3i:3i|1</route>"
        "<alert><alertHeaderText>Works tomorrow</alertHeaderText></alert>"
        f"<timePeriods><startTime>{EPOCH + 86400}</startTime>"
        f"<endTime>{EPOCH + 90000}</endTime></timePeriods>"
        "</alertPatches></alertPatchSet>"
    ).encode()
    assert _post(service, xml, media="application/xml").json() == {"status": "OK"}
    (patch,) = service.get("/otp/routers/rt/patch/stopPatches?agency=3i&id=3i2").json()[
        "alertPatches"
    ]
    assert patch["id"] == "lift"
    assert patch["stop"] == "3i:3i2"
    assert patch["alert"]["effectiveStartDate"] == EPOCH * 1000
    assert patch["alert"]["effectiveEndDate"] == (EPOCH + 3600) * 1000
    routes = service.get("/otp/patch/routePatches?agency=3i&id=3i|1", Accept="application/xml").text
    assert "<id>works</id>" in routes  # /otp/patch/... is the default router's
    assert _leg_alerts(service) == [
        {"alertHeaderText": "Unknown effect"},
        {"alertHeaderText": "Lift out of order", "effectiveStartDate": EPOCH * 1000},
    ]
    assert [a["alertHeaderText"] for a in _leg_alerts(service, "&locale=nl")] == [
        "Unknown effect",
        "Lift defect",
    ]
    assert [a["alertHeaderText"] for a in _leg_alerts(service, "&disableAlertFiltering=true")] == [
        "Unknown effect",
        "Works tomorrow",
        "Lift out of order",
    ]
    # GraphQL: the same alerts by entity (OTP 2's Alert type) and the pattern's vehicle
    query = """{ route(id: "3i:3i|1") { alerts { alertId alertHeaderText routeIds } }
      stop(id: "3i:3i2") { alerts { alertId effectiveStartDate stopIds } }
      alerts { alertId }
      pattern(id: "%s") { vehiclePositions { vehicleId lastUpdated trip { gtfsId } } } }"""
    resp = service.request(
        "POST",
        "/otp/routers/rt/index/graphql",
        body=json.dumps({"query": query % pattern["id"]}).encode(),
        headers={"Content-Type": "application/json"},
    )
    assert resp.status == GRAPHQL_OK, resp.text
    gql = resp.json()["data"]
    assert gql["route"]["alerts"] == [
        {"alertId": "3i", "alertHeaderText": "Unknown effect", "routeIds": ["3i:3i|1"]},
        {"alertId": "works", "alertHeaderText": "Works tomorrow", "routeIds": ["3i:3i|1"]},
    ]
    assert gql["stop"]["alerts"] == [
        {"alertId": "lift", "effectiveStartDate": EPOCH * 1000, "stopIds": ["3i:3i2"]}
    ]
    assert sorted(a["alertId"] for a in gql["alerts"]) == ["3i", "lift", "works"]
    assert gql["pattern"]["vehiclePositions"] == [
        {"vehicleId": "7", "lastUpdated": EPOCH + 90, "trip": {"gtfsId": "3i:3i|1"}}
    ]
    stored = json.loads((graphs / "rt" / "alert-patches.json").read_text())
    assert [p["id"] for p in stored["alertPatches"]] == ["lift", "works"]

    # a reload keeps the feed's alerts and the patches; so does a restart
    assert service.request("PUT", "/otp/routers/rt", headers=basic(*ALICE)).status == 201
    _wait(lambda: status()["successes"] >= 1)
    assert len(_leg_alerts(service)) == 2
    service.stop()
    again = make_service(loader=None, graphs_dir=graphs, users=patch_users)
    _wait(lambda: again.get("/otp/routers/rt/updaters/0").json()["successes"] >= 1)
    assert [a["alertHeaderText"] for a in _leg_alerts(again)] == [
        "Unknown effect",
        "Lift out of order",
    ]


def test_kcm_vehicle_positions_endpoint(
    tmp_path: Path, make_service: Any, patch_users: Mapping[str, UserEntry]
) -> None:
    kcm = require_data("tiny", "transit-only") / "kcm_gtfs.zip"
    feed_path = require_data("extras", "gtfs-rt") / "kcm-vehiclepositions-1.pb"
    with zipfile.ZipFile(kcm) as zf:
        rows = csv.DictReader(io.StringIO(zf.read("routes.txt").decode("utf-8-sig")))
        route_ids = {r["route_id"] for r in rows}
        rows = csv.DictReader(io.StringIO(zf.read("trips.txt").decode("utf-8-sig")))
        (with_trips,) = {r["route_id"] for r in rows}  # the tiny feed keeps one route's trips
    raw = gtfs_realtime_pb2.FeedMessage()
    raw.ParseFromString(feed_path.read_bytes())
    on_route: dict[str, set[str]] = {}
    for e in raw.entity:
        if e.vehicle.trip.route_id in route_ids:
            on_route.setdefault(e.vehicle.trip.route_id, set()).add(e.vehicle.vehicle.id)
    busiest = max(on_route, key=lambda r: len(on_route[r]))
    graphs = tmp_path / "graphs"
    network = build_network(gtfs=[kcm])
    feed = str(network.transit.feeds["feed_id"].iat[0])
    network.save(graphs / "kcm" / "graph")
    shutil.copy(feed_path, graphs / "kcm" / "vehicles.pb")
    config = {
        "updaters": [
            {
                "type": "vehicle-positions",
                "sourceType": "gtfs-file",
                "file": "vehicles.pb",
                "frequencySec": 0,
                "feedId": feed,
            }
        ]
    }
    (graphs / "kcm" / "router-config.json").write_text(json.dumps(config))
    service = make_service(loader=None, graphs_dir=graphs, users=patch_users)
    _wait(lambda: service.get("/otp/routers/kcm/updaters/0").json()["successes"] >= 1)
    st = service.get("/otp/routers/kcm/updaters/0").json()
    matched = sum(len(v) for v in on_route.values())
    assert (st["applied"], st["unmatched"], st["invalid"]) == (
        matched,
        len(raw.entity) - matched,
        0,
    )
    route = urllib.parse.quote(f"{feed}:{busiest}", safe="")
    vehicles = service.get(f"/otp/routers/kcm/index/routes/{route}/vehicles").json()
    assert {v["vehicleId"] for v in vehicles} == on_route[busiest]
    assert all(v["routeId"] == f"{feed}:{busiest}" for v in vehicles)
    assert service.get("/otp/routers/kcm/index/routes/nope:1/vehicles").status == 404
    # the route with trips: its vehicles too; the feed's trips (2021) are not in the GTFS
    # (2016), so no vehicle is on a pattern's trip
    route = urllib.parse.quote(f"{feed}:{with_trips}", safe="")
    vehicles = service.get(f"/otp/routers/kcm/index/routes/{route}/vehicles").json()
    assert {v["vehicleId"] for v in vehicles} == on_route[with_trips]
    assert all("patternId" not in v for v in vehicles)
    pattern = service.get(f"/otp/routers/kcm/index/routes/{route}/patterns").json()[0]["id"]
    quoted = urllib.parse.quote(pattern, safe="")
    assert service.get(f"/otp/routers/kcm/index/patterns/{quoted}/vehicles").json() == []


def test_routing_defaults_apply_per_router(tmp_path: Path, make_service: Any) -> None:
    data = require_data("tiny", "mmri")
    graphs = tmp_path / "graphs"
    network = build_network(data / "3b", config=BuildConfig(max_transfer_distance_m=0.0))
    for name, defaults in (("one", {"numItineraries": 1}), ("two", {"numItineraries": 3})):
        network.save(graphs / name / "graph")
        config = {"routingDefaults": defaults}
        (graphs / name / "router-config.json").write_text(json.dumps(config))
    service = make_service(loader=None, graphs_dir=graphs)
    query = "plan?fromPlace=3b:3b1&toPlace=3b:3b2&date=2014-01-01&time=00:01&mode=TRANSIT,WALK"

    def departures(router: str, extra: str = "") -> list[int]:
        body = service.get(f"/otp/routers/{router}/{query}{extra}").json()
        return [
            (i["legs"][0]["startTime"] // 1000 - EPOCH) // 60 for i in body["plan"]["itineraries"]
        ]

    # stop_times.txt: 3b|1 leaves 3b1 at 00:01, 3b|2 at 00:11
    assert departures("one") == [1]
    assert departures("two") == [1, 11]
    assert departures("one", "&numItineraries=2") == [1, 11]  # the query wins
    bad = graphs / "one" / "router-config.json"
    bad.write_text(json.dumps({"routingDefaults": {"numItineraries": "many"}}))
    assert service.request("PUT", "/otp/routers/one", headers=basic(*ALICE)).status == 201
    assert departures("one") == [1, 11]  # refused defaults: the library's (3 itineraries)


def test_added_trips_over_http(tmp_path: Path, make_service: Any) -> None:
    """MMRI 3c (stop_times.txt: 3c|1 and 3c|2 run 3c1 -> 3c2 -> 3c3) and a feed adding
    ``new-2``: 3c3 00:02 -> 3c1 00:05 on 2014-01-01, which no scheduled trip runs."""
    data = require_data("tiny", "mmri")
    graphs = tmp_path / "graphs"
    build_network(data / "3c", config=BuildConfig(max_transfer_distance_m=0.0)).save(
        graphs / "rt" / "graph"
    )
    feed = gtfs_realtime_pb2.FeedMessage()
    feed.header.gtfs_realtime_version, feed.header.timestamp = "2.0", EPOCH
    tu = feed.entity.add(id="added").trip_update
    tu.trip.trip_id, tu.trip.route_id, tu.trip.start_date = "new-2", "3c", "20140101"
    tu.trip.schedule_relationship = gtfs_realtime_pb2.TripDescriptor.ADDED
    for stop_id, at in (("3c3", EPOCH + 120), ("3c1", EPOCH + 300)):
        stu = tu.stop_time_update.add(stop_id=stop_id)
        stu.arrival.time = stu.departure.time = at
    (graphs / "rt" / "added.pb").write_bytes(feed.SerializeToString())
    config = {
        "updaters": [
            {"type": "stop-time-updater", "sourceType": "gtfs-file", "file": "added.pb"},
        ]
    }
    (graphs / "rt" / "router-config.json").write_text(json.dumps(config))
    service = make_service(loader=None, graphs_dir=graphs)
    _wait(lambda: service.get("/otp/routers/rt/updaters/0").json()["successes"] >= 1)
    st = service.get("/otp/routers/rt/updaters/0").json()
    assert (st["applied"], st["unmatched"], st["invalid"]) == (1, 0, 0)
    query = (
        "/otp/routers/rt/plan?fromPlace=3c:3c3&toPlace=3c:3c1&date=2014-01-01&time=00:01"
        "&mode=TRANSIT,WALK&numItineraries=1"
    )
    body = service.get(query).json()
    assert "error" not in body, body
    (leg,) = [g for g in body["plan"]["itineraries"][0]["legs"] if g["transitLeg"]]
    assert (leg["tripId"], leg["routeId"], leg["realTime"]) == ("3c:new-2", "3c:3c", True)
    assert (leg["startTime"], leg["endTime"]) == ((EPOCH + 120) * 1000, (EPOCH + 300) * 1000)
    scheduled = service.get(query + "&ignoreRealtimeUpdates=true").json()
    assert scheduled["error"]["id"] == 404  # no scheduled trip runs 3c3 -> 3c1
    got = service.get(
        f"/otp/routers/rt/index/stops/3c:3c3/stoptimes?startTime={EPOCH}&timeRange=3600"
    ).json()
    added = [(p["pattern"]["id"], t) for p in got for t in p["times"] if t["tripId"] == "3c:new-2"]
    ((pattern, call),) = added
    assert pattern == "3c:3c::rt#1"
    assert (call["realtimeState"], call["realtime"]) == ("ADDED", True)
    assert (call["scheduledDeparture"], call["realtimeDeparture"]) == (120, 120)
    day = service.get("/otp/routers/rt/index/stops/3c:3c1/stoptimes/20140101").json()
    arrivals = sorted(
        (t["scheduledArrival"], t["tripId"], t["realtimeState"]) for p in day for t in p["times"]
    )
    assert arrivals == [
        (60, "3c:3c|1", "SCHEDULED"),
        (240, "3c:3c|2", "SCHEDULED"),
        (300, "3c:new-2", "ADDED"),
    ]
    gql = service.request(
        "POST",
        "/otp/routers/rt/index/graphql",
        body=json.dumps(
            {
                "query": '{ stop(id: "3c:3c1") { stoptimesForServiceDate(date: "20140101") '
                "{ pattern { code } stoptimes { scheduledArrival realtimeState } } } }"
            }
        ).encode(),
        headers={"Content-Type": "application/json"},
    ).json()
    states = sorted(
        (t["scheduledArrival"], t["realtimeState"])
        for p in gql["data"]["stop"]["stoptimesForServiceDate"]
        for t in p["stoptimes"]
    )
    assert states == [(60, "SCHEDULED"), (240, "SCHEDULED"), (300, "ADDED")]
    # the added trip itself, on the index and in GraphQL
    trip = service.get("/otp/routers/rt/index/trips/3c:new-2").json()
    assert (trip["id"], trip["route"]["id"]) == ("3c:new-2", "3c:3c")
    times = service.get("/otp/routers/rt/index/trips/3c:new-2/stoptimes").json()
    assert [(t["stopId"], t["scheduledArrival"], t["realtimeState"]) for t in times] == [
        ("3c:3c3", 120, "ADDED"),
        ("3c:3c1", 300, "ADDED"),
    ]
    gql = service.request(
        "POST",
        "/otp/routers/rt/index/graphql",
        body=json.dumps(
            {
                "query": '{ trip(id: "3c:new-2") { gtfsId route { gtfsId } '
                "stoptimes { scheduledDeparture realtimeState } } }"
            }
        ).encode(),
        headers={"Content-Type": "application/json"},
    ).json()
    assert gql["data"]["trip"] == {
        "gtfsId": "3c:new-2",
        "route": {"gtfsId": "3c:3c"},
        "stoptimes": [
            {"scheduledDeparture": 120, "realtimeState": "ADDED"},
            {"scheduledDeparture": 300, "realtimeState": "ADDED"},
        ],
    }
