"""GraphQL and REST give the same answers for the same entities (Atlanta, Porto Alegre).

Every test asks both APIs of one running service about the same entities and
compares field by field, mapping only the documented differences of form
(GraphQL enums for GTFS integers, ``null`` for OTP's -999 "unset", whole metres).
"""

from __future__ import annotations

import datetime as dt
import json
import urllib.parse
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from _fakes import Service

from otpa.util.polyline import decode_polyline
from service.config import ServiceConfig
from service.server import start_in_thread
from tests.conftest import DATA_ROOT, require_data
from tests.fixtures.networks import built_network
from tests.otpa.index._gtfs_csv import CsvFeed, csv_feeds

pytestmark = pytest.mark.http

DAY = dt.date(2021, 10, 6)
LOCATION_TYPES = ["STOP", "STATION", "ENTRANCE", "GENERIC_NODE", "BOARDING_AREA"]
ACCESS = ["NO_INFORMATION", "POSSIBLE", "NOT_POSSIBLE"]


@pytest.fixture(scope="module")
def svc() -> Iterator[Service]:
    require_data("tiny", "atlanta")
    require_data("small", "porto-alegre")
    networks = {
        "atlanta": built_network(DATA_ROOT, "tiny/atlanta"),
        "poa": built_network(DATA_ROOT, "small/porto-alegre"),
    }
    url, stop = start_in_thread(ServiceConfig(port=0), networks)
    yield Service(url.removesuffix("/otp/routers/default"), url, None, stop)
    stop()


@pytest.fixture(scope="module")
def atl() -> CsvFeed:
    return csv_feeds("tiny/atlanta")[0]


def rest(svc: Service, path: str, router: str = "atlanta") -> Any:
    resp = svc.get(f"/otp/routers/{router}/index{path}")
    assert resp.status == 200, resp.text
    return resp.json() if resp.header("Content-Type") == "application/json" else resp.text


def gql(svc: Service, query: str, variables: Any = None, router: str = "atlanta") -> Any:
    body = json.dumps({"query": query, "variables": variables}).encode()
    resp = svc.request(
        "POST",
        f"/otp/routers/{router}/index/graphql",
        body=body,
        headers={"Content-Type": "application/json"},
    )
    assert resp.status == 201, resp.text
    answer = resp.json()
    assert "errors" not in answer, answer
    return answer["data"]


def q(value: str) -> str:
    return urllib.parse.quote(value, safe="")


def busiest_stop(feed: CsvFeed) -> str:
    counts = Counter(r.stop_id for rows in feed.stop_times_by_trip().values() for r in rows)
    return feed.scoped(min(counts, key=lambda s: (-counts[s], s)))


def test_feeds_and_agencies_of_two_feeds(svc: Service) -> None:
    got = gql(
        svc,
        "{ feeds { feedId agencies { gtfsId name url timezone lang phone fareUrl } } }",
        router="poa",
    )["feeds"]
    assert [f["feedId"] for f in got] == rest(svc, "/feeds", router="poa")
    for feed in got:
        agencies = rest(svc, f"/agencies/{feed['feedId']}", router="poa")
        assert len(feed["agencies"]) == len(agencies) >= 1
        for g, r in zip(feed["agencies"], agencies, strict=True):
            assert g["gtfsId"] == r["id"]
            for key in ("name", "url", "timezone", "lang", "phone", "fareUrl"):
                assert g[key] == r.get(key), key


@pytest.mark.parametrize("router", ["atlanta", "poa"])
def test_routes(svc: Service, router: str) -> None:
    query = """{ routes { gtfsId shortName longName desc type mode url color textColor
      sortOrder agency { gtfsId } } }"""
    got = gql(svc, query, router=router)["routes"]
    full = rest(svc, "/routes?detail=true", router=router)
    short = {r["id"]: r for r in rest(svc, "/routes", router=router)}
    assert [g["gtfsId"] for g in got] == [r["id"] for r in full]
    for g, r in zip(got, full, strict=True):
        for key in ("shortName", "longName", "desc", "type", "url", "color", "textColor"):
            assert g[key] == r.get(key), key
        assert g["mode"] == short[r["id"]]["mode"]
        assert g["agency"]["gtfsId"] == r["agency"]["id"]
        assert (g["sortOrder"] is None) == (r["sortOrder"] == -999)


def test_stops(svc: Service) -> None:
    query = """{ stops { gtfsId name lat lon code desc zoneId url locationType
      parentStation { gtfsId } wheelchairBoarding platformCode cluster { gtfsId } } }"""
    got = gql(svc, query)["stops"]
    full = rest(svc, "/stops?detail=true")
    short = rest(svc, "/stops")
    assert [g["gtfsId"] for g in got] == [r["id"] for r in full] == [s["id"] for s in short]
    for g, r, s in zip(got, full, short, strict=True):
        for key in ("name", "lat", "lon", "code", "desc", "zoneId", "url", "platformCode"):
            assert g[key] == r.get(key), key
        assert g["locationType"] == LOCATION_TYPES[r["locationType"]]
        assert g["wheelchairBoarding"] == ACCESS[r["wheelchairBoarding"]]
        assert (g["parentStation"] or {}).get("gtfsId") == r.get("parentStation")
        assert g["cluster"]["gtfsId"] == s["cluster"]


def test_trips_of_every_route(svc: Service) -> None:
    query = """{ routes { gtfsId trips { gtfsId serviceId tripShortName tripHeadsign
      routeShortName directionId blockId shapeId wheelchairAccessible } } }"""
    for route in gql(svc, query)["routes"]:
        full = rest(svc, f"/routes/{q(route['gtfsId'])}/trips?detail=true")
        assert [t["gtfsId"] for t in route["trips"]] == [t["id"] for t in full]
        for g, r in zip(route["trips"], full, strict=True):
            for key in ("serviceId", "tripShortName", "tripHeadsign", "routeShortName"):
                assert g[key] == r.get(key), key
            for key in ("directionId", "blockId", "shapeId"):
                assert g[key] == r.get(key), key
            assert g["wheelchairAccessible"] == ACCESS[r["wheelchairAccessible"]]


def test_patterns_and_their_geometry(svc: Service) -> None:
    query = """{ patterns { code name headsign directionId route { gtfsId }
      stops { gtfsId } trips { gtfsId } semanticHash geometry { lat lon } } }"""
    got = gql(svc, query)["patterns"]
    assert [p["code"] for p in got] == [p["id"] for p in rest(svc, "/patterns")]
    for g in got:
        pid = q(g["code"])
        detail = rest(svc, f"/patterns/{pid}")
        assert (g["name"], g["route"]["gtfsId"]) == (detail["desc"], detail["routeId"])
        assert [s["gtfsId"] for s in g["stops"]] == [s["id"] for s in detail["stops"]]
        assert [t["gtfsId"] for t in g["trips"]] == [t["id"] for t in detail["trips"]]
        assert g["semanticHash"] == rest(svc, f"/patterns/{pid}/semanticHash")
        lats, lons = decode_polyline(rest(svc, f"/patterns/{pid}/geometry")["points"])
        assert len(g["geometry"]) == len(lats)
        for c, la, lo in zip(g["geometry"], lats, lons, strict=True):
            assert abs(c["lat"] - la) <= 1.000001e-5
            assert abs(c["lon"] - lo) <= 1.000001e-5


def test_trip_times_hash_and_geometry(svc: Service, atl: CsvFeed) -> None:
    trip_id = atl.scoped("8049377")
    query = """query ($id: String!) { trip(id: $id) { semanticHash geometry
      stops { gtfsId } stoptimes { scheduledArrival scheduledDeparture realtimeArrival
        realtimeDeparture arrivalDelay departureDelay timepoint realtime realtimeState
        serviceDay headsign stop { gtfsId } } } }"""
    trip = gql(svc, query, {"id": trip_id})["trip"]
    times = rest(svc, f"/trips/{q(trip_id)}/stoptimes")
    assert len(trip["stoptimes"]) == len(times) > 2
    for g, r in zip(trip["stoptimes"], times, strict=True):
        assert g["stop"]["gtfsId"] == r["stopId"]
        for key in g.keys() - {"stop"}:
            assert g[key] == r[key], key
    assert trip["semanticHash"] == rest(svc, f"/trips/{q(trip_id)}/semanticHash")
    assert trip["geometry"] == rest(svc, f"/trips/{q(trip_id)}/geometry")["points"]
    assert [s["gtfsId"] for s in trip["stops"]] == [
        s["id"] for s in rest(svc, f"/trips/{q(trip_id)}/stops")
    ]


_STOPTIMES = """pattern { code } stoptimes { scheduledArrival scheduledDeparture
  realtimeArrival realtimeDeparture arrivalDelay departureDelay timepoint realtime
  realtimeState serviceDay headsign trip { gtfsId } }"""


def _same_stop_times(got: list[Any], want: list[Any]) -> None:
    assert [p["pattern"]["code"] for p in got] == [p["pattern"]["id"] for p in want]
    for g, r in zip(got, want, strict=True):
        assert len(g["stoptimes"]) == len(r["times"])
        for gt, rt in zip(g["stoptimes"], r["times"], strict=True):
            assert gt["trip"]["gtfsId"] == rt["tripId"]
            for key in gt.keys() - {"trip"}:
                assert gt[key] == rt[key], key


def test_stop_times_of_a_service_day(svc: Service, atl: CsvFeed) -> None:
    stop = busiest_stop(atl)
    query = f"""query ($id: String!, $date: String) {{ stop(id: $id) {{
      stoptimesForServiceDate(date: $date) {{ {_STOPTIMES} }} }} }}"""
    got = gql(svc, query, {"id": stop, "date": f"{DAY:%Y%m%d}"})["stop"]
    want = rest(svc, f"/stops/{q(stop)}/stoptimes/{DAY:%Y%m%d}")
    assert sum(len(p["times"]) for p in want) > 20
    _same_stop_times(got["stoptimesForServiceDate"], want)


def test_stop_times_in_a_window(svc: Service, atl: CsvFeed) -> None:
    stop = busiest_stop(atl)
    start = atl.service_day_start(DAY) + 7 * 3600
    query = f"""query ($id: String!, $start: Long) {{ stop(id: $id) {{
      stoptimesForPatterns(startTime: $start, timeRange: 7200, numberOfDepartures: 3) {{
        {_STOPTIMES} }} }} }}"""
    got = gql(svc, query, {"id": stop, "start": start})["stop"]["stoptimesForPatterns"]
    want = rest(
        svc,
        f"/stops/{q(stop)}/stoptimes?startTime={start}&timeRange=7200&numberOfDepartures=3",
    )
    assert want
    _same_stop_times(got, want)


def test_stops_by_radius_and_box(svc: Service) -> None:
    lat, lon = 33.7538, -84.3914
    circle = rest(svc, f"/stops?lat={lat}&lon={lon}&radius=1500")
    got = gql(
        svc,
        f"{{ stopsByRadius(lat: {lat}, lon: {lon}, radius: 1500) "
        "{ edges { node { distance stop { gtfsId } } } } }",
    )["stopsByRadius"]["edges"]
    assert len(circle) > 3
    assert [(e["node"]["stop"]["gtfsId"], e["node"]["distance"]) for e in got] == [
        (s["id"], s["dist"]) for s in circle
    ]
    box = rest(svc, "/stops?minLat=33.70&minLon=-84.45&maxLat=33.80&maxLon=-84.35")
    got_box = gql(
        svc,
        "{ stopsByBbox(minLat: 33.70, minLon: -84.45, maxLat: 33.80, maxLon: -84.35) { gtfsId } }",
    )["stopsByBbox"]
    assert len(box) > 3
    assert [s["gtfsId"] for s in got_box] == [s["id"] for s in box]


def test_stop_routes_patterns_and_transfers(svc: Service, atl: CsvFeed) -> None:
    query = """query ($id: String!) { stop(id: $id) { routes { gtfsId } patterns { code }
      transfers { distance stop { gtfsId } } } }"""
    for stop in (busiest_stop(atl), atl.scoped("102274"), atl.scoped("27")):
        got = gql(svc, query, {"id": stop})["stop"]
        assert [r["gtfsId"] for r in got["routes"]] == [
            r["id"] for r in rest(svc, f"/stops/{q(stop)}/routes")
        ]
        assert [p["code"] for p in got["patterns"]] == [
            p["id"] for p in rest(svc, f"/stops/{q(stop)}/patterns")
        ]
        transfers = rest(svc, f"/stops/{q(stop)}/transfers")
        assert [(t["stop"]["gtfsId"], t["distance"]) for t in got["transfers"]] == [
            (t["toStopId"], round(t["distance"])) for t in transfers
        ]


def test_clusters(svc: Service) -> None:
    got = gql(svc, "{ clusters { gtfsId name lat lon stops { gtfsId } } }")["clusters"]
    want = rest(svc, "/clusters?detail=true")
    assert len(got) == len(want) > 0
    for g, r in zip(got, want, strict=True):
        assert (g["gtfsId"], g["name"], g["lat"], g["lon"]) == (
            r["id"],
            r["name"],
            r["lat"],
            r["lon"],
        )
        assert [s["gtfsId"] for s in g["stops"]] == [s["id"] for s in r["stops"]]
