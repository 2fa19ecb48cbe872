"""POST /otp/routers/{id}/index/graphql: the OTP 1.x index schema over Atlanta.

Answers are checked against the GTFS files (csv module) and the REST index.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import math
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from _fakes import Response, Service

from service.config import ServiceConfig
from service.graphql.limits import MAX_DEPTH, MAX_FIELDS, MAX_QUERY_LENGTH
from service.server import start_in_thread
from tests.conftest import DATA_ROOT, require_data
from tests.fixtures.networks import built_network, count_rows
from tests.otpa.index._gtfs_csv import CsvFeed, csv_feeds

pytestmark = pytest.mark.http

ATL = "atlanta-blue-green-line"
PATH = "/otp/routers/atlanta/index/graphql"
JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def svc() -> Iterator[Service]:
    require_data("tiny", "atlanta")
    url, stop = start_in_thread(
        ServiceConfig(port=0), {"atlanta": built_network(DATA_ROOT, "tiny/atlanta")}
    )
    yield Service(url.removesuffix("/otp/routers/default"), url, None, stop)
    stop()


@pytest.fixture(scope="module")
def atl() -> CsvFeed:
    return csv_feeds("tiny/atlanta")[0]


def post(svc: Service, query: str, variables: Any = None, **extra: Any) -> Response:
    body = {"query": query, **({"variables": variables} if variables is not None else {}), **extra}
    return svc.request("POST", PATH, body=json.dumps(body).encode(), headers=JSON)


def data(svc: Service, query: str, variables: Any = None, **extra: Any) -> Any:
    resp = post(svc, query, variables, **extra)
    assert resp.status == 201, resp.text
    body = resp.json()
    assert "errors" not in body, body
    return body["data"]


def test_agencies_routes_and_counts(svc: Service, atl: CsvFeed) -> None:
    got = data(svc, "{ agencies { gtfsId name timezone routes { gtfsId } } feeds { feedId } }")
    row = atl.rows("agency.txt")[0]
    assert got["feeds"] == [{"feedId": ATL}]
    [agency] = got["agencies"]
    assert (agency["gtfsId"], agency["name"], agency["timezone"]) == (
        atl.scoped(row["agency_id"]),
        row["agency_name"],
        row["agency_timezone"],
    )
    assert len(agency["routes"]) == count_rows(atl.files["routes.txt"])
    counts = data(svc, "{ stops { gtfsId } trips { gtfsId } routes { gtfsId } patterns { code } }")
    assert len(counts["stops"]) == count_rows(atl.files["stops.txt"])
    assert len(counts["trips"]) == count_rows(atl.files["trips.txt"])
    assert len(counts["patterns"]) == len(atl.stop_patterns())
    assert data(svc, '{ agency(id: "MARTA") { gtfsId } }') == {"agency": {"gtfsId": f"{ATL}:MARTA"}}


def test_route_and_nulls(svc: Service, atl: CsvFeed) -> None:
    row = next(r for r in atl.rows("routes.txt") if r["route_id"] == "15787")
    got = data(
        svc,
        "query R($id: String!) { route(id: $id) { gtfsId shortName longName mode type color "
        'desc agency { gtfsId } patterns { code } } missing: route(id: "nope") { gtfsId } }',
        {"id": atl.scoped("15787")},
    )
    route = got["route"]
    assert (route["shortName"], route["longName"], route["mode"], route["type"]) == (
        row["route_short_name"],
        row["route_long_name"],
        "SUBWAY",
        1,
    )
    assert route["color"] == row["route_color"]
    assert route["desc"] is None  # nulls are kept in GraphQL answers
    assert got["missing"] is None
    assert len(route["patterns"]) == sum(1 for k in atl.stop_patterns() if k[0] == "15787")


def test_stop_times_for_service_date(svc: Service, atl: CsvFeed) -> None:
    day = dt.date(2021, 10, 6)
    query = """query ($id: String!, $date: String) {
      stop(id: $id) { name routes { shortName }
        stoptimesForServiceDate(date: $date) {
          pattern { code } stoptimes { scheduledArrival scheduledDeparture serviceDay
            realtimeState trip { gtfsId } } } } }"""
    got = data(svc, query, json.dumps({"id": atl.scoped("797"), "date": f"{day:%Y%m%d}"}))
    stop = got["stop"]
    assert sorted(r["shortName"] for r in stop["routes"]) == ["BLUE", "GREEN"]
    calls = Counter(
        (t["trip"]["gtfsId"], t["scheduledArrival"], t["scheduledDeparture"])
        for p in stop["stoptimesForServiceDate"]
        for t in p["stoptimes"]
    )
    assert calls == atl.stop_calls("797", day)
    times = [t for p in stop["stoptimesForServiceDate"] for t in p["stoptimes"]]
    assert {t["serviceDay"] for t in times} == {atl.service_day_start(day)}
    assert {t["realtimeState"] for t in times} == {"SCHEDULED"}


def test_stop_times_for_patterns_and_without(svc: Service, atl: CsvFeed) -> None:
    day = dt.date(2021, 10, 6)
    start = atl.service_day_start(day) + 8 * 3600
    query = f"""{{ stop(id: "{atl.scoped("797")}") {{
      stoptimesForPatterns(startTime: {start}, timeRange: 3600, numberOfDepartures: 2) {{
        pattern {{ code }} stoptimes {{ scheduledDeparture serviceDay }} }}
      stoptimesWithoutPatterns(startTime: "{start}", timeRange: 3600, numberOfDepartures: 3) {{
        scheduledDeparture serviceDay }} }} }}"""
    stop = data(svc, query)["stop"]
    base = atl.service_day_start(day)
    expected = sorted(
        base + dep
        for (_, _, dep) in atl.stop_calls("797", day).elements()
        if start <= base + dep <= start + 3600
    )
    flat = [t["serviceDay"] + t["scheduledDeparture"] for t in stop["stoptimesWithoutPatterns"]]
    assert flat == expected[:3]
    for p in stop["stoptimesForPatterns"]:
        assert 1 <= len(p["stoptimes"]) <= 2


def test_trip_and_pattern(svc: Service, atl: CsvFeed) -> None:
    trip_id = atl.scoped("8049377")
    query = """query ($id: String!) { trip(id: $id) { gtfsId serviceId directionId
      wheelchairAccessible route { gtfsId } stops { gtfsId } semanticHash geometry
      stoptimes { scheduledDeparture stop { gtfsId } stopPositionInPattern pickupType
        dropoffType continuousPickup continuousDropOff serviceArea { length } }
      pattern { code directionId semanticHash geometry { lat lon } trips { gtfsId } } } }"""
    trip = data(svc, query, {"id": trip_id})["trip"]
    rows = atl.stop_times_by_trip()["8049377"]
    assert [s["gtfsId"] for s in trip["stops"]] == [atl.scoped(r.stop_id) for r in rows]
    assert trip["directionId"] == "1"
    assert trip["wheelchairAccessible"] == "POSSIBLE"
    assert [t["stop"]["gtfsId"] for t in trip["stoptimes"]] == [atl.scoped(r.stop_id) for r in rows]
    names = {"": "SCHEDULED", "0": "SCHEDULED", "1": "NONE", "2": "CALL_AGENCY"}
    assert [(t["pickupType"], t["dropoffType"]) for t in trip["stoptimes"]] == [
        (names[r.pickup], names[r.drop_off]) for r in rows
    ]
    assert [t["stopPositionInPattern"] for t in trip["stoptimes"]] == list(range(len(rows)))
    # the flex fields are null on a fixed-schedule trip
    assert {
        (t["continuousPickup"], t["continuousDropOff"], t["serviceArea"]) for t in trip["stoptimes"]
    } == {(None, None, None)}
    assert trip["semanticHash"].startswith(trip["pattern"]["semanticHash"] + ":")
    assert trip_id in [t["gtfsId"] for t in trip["pattern"]["trips"]]
    rest = svc.get(f"/otp/routers/atlanta/index/trips/{trip_id}/geometry").json()
    assert trip["geometry"] == rest["points"]
    shape = atl.shapes()[
        next(r for r in atl.rows("trips.txt") if r["trip_id"] == "8049377")["shape_id"]
    ]
    assert len(trip["pattern"]["geometry"]) in {len(s) for s in atl.shapes().values()}
    assert len(shape) > 2


def test_stops_by_radius_pages_and_bbox(svc: Service, atl: CsvFeed) -> None:
    lat, lon, radius = 33.7538, -84.3914, 800
    rows = atl.rows("stops.txt")

    def dist(r: dict[str, str]) -> float:
        p1, p2 = math.radians(lat), math.radians(float(r["stop_lat"]))
        dl = math.radians(float(r["stop_lon"]) - lon)
        a = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
        return 2 * 6_371_010.0 * math.asin(math.sqrt(a))

    expected = sorted((dist(r), atl.scoped(r["stop_id"])) for r in rows if dist(r) <= radius)
    query = """query ($after: String) { stopsByRadius(lat: 33.7538, lon: -84.3914, radius: 800,
      first: 3, after: $after) { edges { cursor node { distance stop { gtfsId } } }
      pageInfo { hasNextPage endCursor } } }"""
    seen: list[str] = []
    after = None
    while True:
        page = data(svc, query, {"after": after})["stopsByRadius"]
        seen += [e["node"]["stop"]["gtfsId"] for e in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert seen == [sid for _, sid in expected]
    assert len(seen) > 3
    box = data(
        svc,
        "{ stopsByBbox(minLat: 33.74, minLon: -84.40, maxLat: 33.76, maxLon: -84.38) { gtfsId } }",
    )["stopsByBbox"]
    assert {s["gtfsId"] for s in box} == {
        atl.scoped(r["stop_id"])
        for r in rows
        if 33.74 <= float(r["stop_lat"]) <= 33.76 and -84.40 <= float(r["stop_lon"]) <= -84.38
    }


def test_relay_node_and_clusters(svc: Service, atl: CsvFeed) -> None:
    query = (
        "query ($id: String!) { stop(id: $id) { id gtfsId cluster { gtfsId stops { gtfsId } } } }"
    )
    stop = data(svc, query, {"id": atl.scoped("27")})["stop"]
    assert base64.b64decode(stop["id"]).decode() == f"Stop:{atl.scoped('27')}"
    node = data(svc, f'{{ node(id: "{stop["id"]}") {{ id ... on Stop {{ gtfsId }} }} }}')["node"]
    assert node == {"id": stop["id"], "gtfsId": atl.scoped("27")}
    assert sorted(s["gtfsId"] for s in stop["cluster"]["stops"]) == [
        atl.scoped("27"),
        atl.scoped("40"),
    ]
    clusters = data(svc, "{ clusters { gtfsId } }")["clusters"]
    assert {"gtfsId": stop["cluster"]["gtfsId"]} in clusters
    assert data(svc, '{ node(id: "bm9wZTpub3Bl") { id } }') == {"node": None}


def test_application_graphql_and_operation_name(svc: Service) -> None:
    resp = svc.request(
        "POST",
        PATH,
        body=b"{ feeds { feedId } }",
        headers={"Content-Type": "application/graphql; charset=utf-8"},
    )
    assert resp.status == 201
    assert resp.json() == {"data": {"feeds": [{"feedId": ATL}]}}
    two = "query A { feeds { feedId } } query B { agencies { name } }"
    assert list(data(svc, two, operationName="B")) == ["agencies"]
    assert post(svc, two).status == 400  # which operation to run is ambiguous


def test_introspection_fits_the_limits(svc: Service) -> None:
    from graphql import get_introspection_query

    schema = data(svc, get_introspection_query())["__schema"]
    names = {t["name"] for t in schema["types"]}
    assert {"QueryType", "Stop", "Route", "Trip", "Pattern", "Agency", "Cluster"} <= names


def test_request_errors(svc: Service) -> None:
    def errors(resp: Response, status: int = 400) -> list[dict[str, Any]]:
        assert resp.status == status, resp.text
        body = resp.json()
        assert body["status"] == status
        assert body["errors"]
        assert all("message" in e for e in body["errors"])
        return body["errors"]

    errors(post(svc, "{ stop(id: 1 { name } }"))  # syntax
    unknown = errors(post(svc, '{ stop(id: "x") { nam } }'))
    assert "nam" in unknown[0]["message"]
    assert unknown[0]["locations"]
    errors(svc.request("POST", PATH, body=b"{not json", headers=JSON))
    errors(svc.request("POST", PATH, body=b'{"variables": {}}', headers=JSON))
    errors(post(svc, "query ($id: String!) { stop(id: $id) { name } }", "[1, 2]"))
    errors(post(svc, "query ($id: String!) { stop(id: $id) { name } }", {"id": 5}))
    errors(post(svc, "{ feeds { feedId } }", [1]))
    errors(
        svc.request(
            "POST", PATH, body=b"{ feeds { feedId } }", headers={"Content-Type": "text/plain"}
        ),
        415,
    )
    assert svc.get(PATH).status == 405
    fragment_cycle = "{ stops { ...A } } fragment A on Stop { cluster { stops { ...A } } }"
    errors(post(svc, fragment_cycle))


def test_depth_and_size_limits(svc: Service) -> None:
    deep = (
        "{ stops { "
        + "cluster { stops { " * (MAX_DEPTH // 2)
        + "gtfsId"
        + " } }" * (MAX_DEPTH // 2)
        + " } }"
    )
    resp = post(svc, deep)
    assert resp.status == 400
    assert "levels deep" in resp.json()["errors"][0]["message"]
    aliases = " ".join(f"a{i}: feeds {{ feedId }}" for i in range(MAX_FIELDS // 2 + 1))
    resp = post(svc, "{ " + aliases + " }")
    assert resp.status == 400
    assert "more than" in resp.json()["errors"][0]["message"]
    # a fragment fan-out (each level doubles the fields) is refused by the field count
    levels = 11
    fan = "{ ...F0 } " + " ".join(
        f"fragment F{i} on QueryType {{ a: viewer {{ ...F{i + 1} }} b: viewer {{ ...F{i + 1} }} }}"
        for i in range(levels)
    )
    fan += f" fragment F{levels} on QueryType {{ feeds {{ feedId }} }}"
    resp = post(svc, fan)
    assert resp.status == 400
    assert "more than" in resp.json()["errors"][0]["message"]
    assert post(svc, "{ feeds { feedId } }" + " " * MAX_QUERY_LENGTH).status == 400


def test_field_errors_keep_partial_data(svc: Service, atl: CsvFeed) -> None:
    query = """query ($id: String!) { stop(id: $id) { name
      stoptimesForServiceDate(date: "2021-10-06") { pattern { code } } } }"""
    resp = post(svc, query, {"id": atl.scoped("797")})
    assert resp.status == 201
    body = resp.json()
    assert body["data"]["stop"] == {"name": "FIVE POINTS STATION", "stoptimesForServiceDate": None}
    assert "YYYYMMDD" in body["errors"][0]["message"]
    assert body["errors"][0]["path"] == ["stop", "stoptimesForServiceDate"]


def test_fuzzy_trip(svc: Service, atl: CsvFeed) -> None:
    day = dt.date(2021, 10, 6)
    row = next(r for r in atl.rows("trips.txt") if r["trip_id"] == "8049377")
    first = atl.stop_times_by_trip()["8049377"][0]
    h, m, s = (int(v) for v in first.departure.strip().split(":"))
    query = """query ($route: String, $dir: Int, $date: String, $time: Int) {
      fuzzyTrip(route: $route, direction: $dir, date: $date, time: $time) { gtfsId } }"""
    variables = {
        "route": atl.scoped(row["route_id"]),
        "dir": int(row["direction_id"]),
        "date": f"{day:%Y%m%d}",
        "time": h * 3600 + m * 60 + s,
    }
    assert row["service_id"].strip() in atl.active_services(day)
    assert data(svc, query, variables) == {"fuzzyTrip": {"gtfsId": atl.scoped("8049377")}}
    # any direction when none is given; nothing at another time, direction or route
    assert data(svc, query, {**variables, "dir": None})["fuzzyTrip"] is not None
    assert data(svc, query, {**variables, "time": variables["time"] + 1})["fuzzyTrip"] is None
    assert data(svc, query, {**variables, "dir": 1 - variables["dir"]})["fuzzyTrip"] is None
    assert data(svc, query, {**variables, "route": "nope"})["fuzzyTrip"] is None
    assert data(svc, query, {**variables, "date": None})["fuzzyTrip"] is None
    bad = post(svc, query, {**variables, "date": "2021-10-06"}).json()
    assert "YYYYMMDD" in bad["errors"][0]["message"]


def test_no_alerts_without_real_time(svc: Service) -> None:
    # no alerts updater and no patches: the alerts field answers an empty list
    assert data(svc, "{ alerts { id } }") == {"alerts": []}
    names = data(svc, '{ __type(name: "QueryType") { fields { name } } }')["__type"]["fields"]
    assert "alerts" in {f["name"] for f in names}
    assert {"fuzzyTrip", "stopsByRadius", "viewer"} <= {f["name"] for f in names}
