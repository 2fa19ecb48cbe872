"""GET /otp/routers/{id}/index/...: every endpoint over HTTP, on Atlanta and Porto Alegre.

Expected values come from the GTFS files read with the csv module.
"""

from __future__ import annotations

import datetime as dt
import math
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
from tests.fixtures.networks import built_network, count_rows
from tests.otpa.index._gtfs_csv import CsvFeed, csv_feeds

pytestmark = pytest.mark.http

ATL = "atlanta-blue-green-line"
DAY = dt.date(2021, 10, 6)


@pytest.fixture(scope="module")
def svc() -> Iterator[Service]:
    """A server with Atlanta (default) and Porto Alegre, built once."""
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


def get(svc: Service, path: str, router: str = "atlanta", status: int = 200) -> Any:
    resp = svc.get(f"/otp/routers/{router}/index{path}")
    assert resp.status == status, resp.text
    if status == 200 and resp.header("Content-Type") == "application/json":
        return resp.json()
    if status != 200:
        body = resp.json()
        assert body["status"] == status
        assert body["message"]
        return body
    return resp.text


def q(value: str) -> str:
    return urllib.parse.quote(value, safe="")


# -- feeds and agencies -------------------------------------------------------------------------


def test_feeds_and_agencies(svc: Service, atl: CsvFeed) -> None:
    assert get(svc, "/feeds") == [ATL]
    assert get(svc, f"/feeds/{ATL}") == {"id": ATL}
    row = atl.rows("agency.txt")[0]
    expected = {
        "id": f"{ATL}:MARTA",
        "name": row["agency_name"],
        "url": row["agency_url"],
        "timezone": row["agency_timezone"],
        "lang": row["agency_lang"],
        "phone": row["agency_phone"],
    }
    assert get(svc, f"/agencies/{ATL}") == [expected]
    assert get(svc, f"/agencies/{ATL}/MARTA") == expected
    routes = get(svc, f"/agencies/{ATL}/MARTA/routes")
    assert len(routes) == count_rows(atl.files["routes.txt"])
    get(svc, "/feeds/nope", status=404)
    get(svc, "/agencies/nope", status=404)
    get(svc, f"/agencies/{ATL}/nope", status=404)
    get(svc, "/agencies/nope/MARTA/routes", status=404)


def test_porto_alegre_feeds_through_the_api(svc: Service) -> None:
    assert sorted(get(svc, "/feeds", router="poa")) == ["poa_eptc", "poa_trensurb"]
    for feed in csv_feeds("small/porto-alegre"):
        agencies = get(svc, f"/agencies/{feed.feed_id}", router="poa")
        assert [a["id"] for a in agencies] == [
            feed.scoped(r["agency_id"]) for r in feed.rows("agency.txt")
        ]
        raw = feed.rows("agency.txt")[0]["agency_id"].strip()
        routes = get(svc, f"/agencies/{feed.feed_id}/{raw}/routes", router="poa")
        assert sorted(r["id"] for r in routes) == sorted(
            feed.scoped(r["route_id"]) for r in feed.rows("routes.txt")
        )
        stop = feed.rows("stops.txt")[0]
        got = get(svc, f"/stops/{q(feed.scoped(stop['stop_id']))}", router="poa")
        assert (got["name"], got["lat"]) == (stop["stop_name"].strip(), float(stop["stop_lat"]))


# -- routes -------------------------------------------------------------------------------------


def test_routes_short_and_full(svc: Service, atl: CsvFeed) -> None:
    routes = get(svc, "/routes")
    rows = {atl.scoped(r["route_id"]): r for r in atl.rows("routes.txt")}
    assert sorted(r["id"] for r in routes) == sorted(rows)
    for r in routes:
        row = rows[r["id"]]
        assert r == {
            "id": r["id"],
            "shortName": row["route_short_name"],
            "longName": row["route_long_name"],
            "mode": {"1": "SUBWAY", "3": "BUS"}[row["route_type"]],
            "color": row["route_color"],
            "agencyId": f"{ATL}:MARTA",
            "agencyName": atl.rows("agency.txt")[0]["agency_name"],
            "sortOrder": -999,
        }
    full = get(svc, f"/routes/{ATL}:15787")
    assert full["agency"]["id"] == f"{ATL}:MARTA"
    assert (full["type"], full["url"], full["sortOrderSet"]) == (
        1,
        rows[f"{ATL}:15787"]["route_url"],
        False,
    )
    detailed = get(svc, "/routes?detail=true")
    assert [d["id"] for d in detailed] == [r["id"] for r in routes]
    assert all("agency" in d for d in detailed)
    get(svc, "/routes/nope", status=404)


def test_routes_with_stops(svc: Service, atl: CsvFeed) -> None:
    trips = {r["trip_id"].strip(): r["route_id"].strip() for r in atl.rows("trips.txt")}
    serving: dict[str, set[str]] = {}
    for trip, rows in atl.stop_times_by_trip().items():
        for r in rows:
            serving.setdefault(r.stop_id, set()).add(atl.scoped(trips[trip]))
    for stops in (["797"], ["797", "27"], ["27", "102274"]):
        expected = set.intersection(*(serving.get(s, set()) for s in stops))
        query = "&".join(f"hasStop={q(atl.scoped(s))}" for s in stops)
        assert {r["id"] for r in get(svc, f"/routes?{query}")} == expected
    get(svc, f"/routes?hasStop={q(atl.scoped('797'))}&hasStop=nope", status=404)


def test_route_patterns_stops_trips(svc: Service, atl: CsvFeed) -> None:
    route = f"{ATL}:15787"
    patterns = get(svc, f"/routes/{q(route)}/patterns")
    expected = [k for k in atl.stop_patterns() if k[0] == "15787"]
    assert len(patterns) == len(expected)
    assert all(set(p) == {"id", "desc"} for p in patterns)
    with_geometry = get(svc, f"/routes/{q(route)}/patterns?includeGeometry=true")
    for p in with_geometry:
        assert p["geometry"]["length"] == len(decode_polyline(p["geometry"]["points"])[0])
    route_trips = sorted(
        atl.scoped(r["trip_id"]) for r in atl.rows("trips.txt") if r["route_id"] == "15787"
    )
    trips = get(svc, f"/routes/{q(route)}/trips")
    assert sorted(t["id"] for t in trips) == route_trips
    assert set(trips[0]) == {"id", "tripHeadsign", "serviceId", "shapeId", "direction"}
    stops = {atl.scoped(s) for k in expected for s in k[1]}
    assert {s["id"] for s in get(svc, f"/routes/{q(route)}/stops")} == stops


# -- patterns and trips -------------------------------------------------------------------------


def test_pattern_endpoints(svc: Service, atl: CsvFeed) -> None:
    patterns = get(svc, "/patterns")
    assert len(patterns) == len(atl.stop_patterns())
    by_key = {
        (k[0], k[1]): sorted(atl.scoped(t) for t in trips)
        for k, trips in atl.stop_patterns().items()
    }
    shapes = atl.shapes()
    for short in patterns:
        pid = q(short["id"])
        detail = get(svc, f"/patterns/{pid}")
        route = detail["routeId"].split(":", 1)[1]
        stops = tuple(s["id"].split(":", 1)[1] for s in detail["stops"])
        assert sorted(t["id"] for t in detail["trips"]) == by_key[(route, stops)]
        assert get(svc, f"/patterns/{pid}/trips") == detail["trips"]
        assert get(svc, f"/patterns/{pid}/stops") == detail["stops"]
        line = get(svc, f"/patterns/{pid}/geometry")
        lats, _ = decode_polyline(line["points"])
        shape_ids = {t["shapeId"] for t in detail["trips"]}
        assert any(len(shapes[s]) == len(lats) for s in shape_ids)
        resp = svc.get(f"/otp/routers/atlanta/index/patterns/{pid}/semanticHash")
        assert resp.status == 200
        assert resp.header("Content-Type").startswith("text/plain")
        assert len(resp.text) == 6
    get(svc, "/patterns/nope", status=404)
    get(svc, "/patterns/nope/geometry", status=404)


def test_trip_endpoints(svc: Service, atl: CsvFeed) -> None:
    row = next(r for r in atl.rows("trips.txt") if r["trip_id"] == "8049377")
    trip_id = q(atl.scoped("8049377"))
    trip = get(svc, f"/trips/{trip_id}")
    assert trip["route"]["id"] == atl.scoped(row["route_id"])
    assert (trip["serviceId"], trip["tripHeadsign"], trip["directionId"]) == (
        atl.scoped(row["service_id"]),
        row["trip_headsign"],
        row["direction_id"],
    )
    assert (trip["blockId"], trip["shapeId"]) == (row["block_id"], atl.scoped(row["shape_id"]))
    rows = atl.stop_times_by_trip()["8049377"]
    stops = get(svc, f"/trips/{trip_id}/stops")
    assert [s["id"] for s in stops] == [atl.scoped(r.stop_id) for r in rows]
    times = get(svc, f"/trips/{trip_id}/stoptimes")
    assert [(t["stopId"], t["scheduledDeparture"]) for t in times] == [
        (atl.scoped(r.stop_id), _seconds(r.departure)) for r in rows
    ]
    assert {t["serviceDay"] for t in times} == {0}
    assert all("tripId" not in t for t in times)
    line = get(svc, f"/trips/{trip_id}/geometry")
    lats, lons = decode_polyline(line["points"])
    shape = atl.shapes()[row["shape_id"]]
    assert len(lats) == line["length"] == len(shape)
    assert all(
        abs(a - b[0]) < 1.1e-5 and abs(o - b[1]) < 1.1e-5
        for a, o, b in zip(lats, lons, shape, strict=True)
    )
    # refs=true: short forms carry the ids they refer to
    refs = get(svc, f"/routes/{q(trip['route']['id'])}/trips?refs=true")
    short = next(t for t in refs if t["id"] == atl.scoped("8049377"))
    assert short["routeId"] == trip["route"]["id"]
    pattern_hash = get(svc, f"/patterns/{q(short['patternId'])}/semanticHash")
    assert get(svc, f"/trips/{trip_id}/semanticHash").startswith(pattern_hash + ":")
    get(svc, "/trips/nope", status=404)
    get(svc, "/trips/nope/stoptimes", status=404)


# -- stops --------------------------------------------------------------------------------------


def test_all_stops_and_one_stop(svc: Service, atl: CsvFeed) -> None:
    stops = get(svc, "/stops")
    assert len(stops) == count_rows(atl.files["stops.txt"])
    row = atl.rows("stops.txt")[1]
    short = next(s for s in stops if s["id"] == atl.scoped(row["stop_id"]))
    assert short == {
        "id": atl.scoped(row["stop_id"]),
        "code": row["stop_code"],
        "name": row["stop_name"],
        "lat": float(row["stop_lat"]),
        "lon": float(row["stop_lon"]),
        "cluster": short["cluster"],
    }
    full = get(svc, f"/stops/{q(short['id'])}")
    assert (full["locationType"], full["wheelchairBoarding"], full["vehicleType"]) == (
        0,
        int(row["wheelchair_boarding"]),
        -999,
    )
    get(svc, "/stops/nope", status=404)


def _distance(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    a = (
        math.sin((p2 - p1) / 2) ** 2
        + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lon2 - lon1) / 2) ** 2
    )
    return 2 * 6_371_010.0 * math.asin(math.sqrt(a))


def test_stops_in_circle_and_box(svc: Service, atl: CsvFeed) -> None:
    rows = atl.rows("stops.txt")
    lat, lon = 33.7538, -84.3914  # Five Points
    for radius in (100, 1000, 20_000):
        found = get(svc, f"/stops?lat={lat}&lon={lon}&radius={radius}")
        capped = min(radius, 5000)
        expected = {
            atl.scoped(r["stop_id"]): round(d)
            for r in rows
            if (d := _distance(lat, lon, float(r["stop_lat"]), float(r["stop_lon"]))) <= capped
        }
        assert {s["id"]: s["dist"] for s in found} == expected
    box = get(svc, "/stops?minLat=33.74&minLon=-84.40&maxLat=33.76&maxLon=-84.38")
    expected_box = {
        atl.scoped(r["stop_id"])
        for r in rows
        if 33.74 <= float(r["stop_lat"]) <= 33.76 and -84.40 <= float(r["stop_lon"]) <= -84.38
    }
    assert {s["id"] for s in box} == expected_box
    with_routes = get(
        svc, f"/stops?lat={lat}&lon={lon}&radius=50&includeRoutes=true&includeStopTimes=true"
    )
    assert with_routes
    assert all("routes" in s and "stopTimes" in s for s in with_routes)
    for bad in (
        "lat=33.7",
        "lat=33.7&lon=-84.3",
        "lat=33.7&lon=-84.3&radius=-1",
        "lat=abc&lon=-84.3&radius=10",
        "lat=nan&lon=-84.3&radius=10",
        "minLat=33&minLon=-84",
        "minLat=34&minLon=-84&maxLat=33&maxLon=-83",
    ):
        get(svc, f"/stops?{bad}", status=400)


def test_stop_routes_patterns_transfers(svc: Service, atl: CsvFeed) -> None:
    stop = q(atl.scoped("797"))
    assert sorted(r["shortName"] for r in get(svc, f"/stops/{stop}/routes")) == ["BLUE", "GREEN"]
    patterns = get(svc, f"/stops/{stop}/patterns")
    expected = [k for k in atl.stop_patterns() if "797" in k[1]]
    assert len(patterns) == len(expected)
    net = built_network(DATA_ROOT, "tiny/atlanta")
    ids = net.transit.stops.stop_id.astype(str).tolist()
    row = ids.index(atl.scoped("102274"))
    a, b = int(net.transfer_offsets[row]), int(net.transfer_offsets[row + 1])
    transfers = get(svc, f"/stops/{q(atl.scoped('102274'))}/transfers")
    assert transfers == [
        {"toStopId": ids[int(t)], "distance": float(d)}
        for t, d in zip(net.transfer_to[a:b], net.transfer_distance_m[a:b], strict=True)
    ]
    assert len(transfers) > 0


def test_stop_times_of_a_day_and_a_window(svc: Service, atl: CsvFeed) -> None:
    stop = "797"
    expected = atl.stop_calls(stop, DAY)
    found = get(svc, f"/stops/{q(atl.scoped(stop))}/stoptimes/{DAY:%Y%m%d}")
    got = Counter(
        (t["tripId"], t["scheduledArrival"], t["scheduledDeparture"])
        for p in found
        for t in p["times"]
    )
    assert got == expected
    t0 = found[0]["times"][0]
    assert t0["serviceDay"] == atl.service_day_start(DAY)
    assert (t0["realtime"], t0["realtimeState"], t0["departureDelay"]) == (False, "SCHEDULED", 0)
    assert t0["realtimeDeparture"] == t0["scheduledDeparture"]
    start = atl.service_day_start(DAY) + 8 * 3600
    window = get(
        svc,
        f"/stops/{q(atl.scoped(stop))}/stoptimes?startTime={start}&timeRange=3600&numberOfDepartures=3",
    )
    base = atl.service_day_start(DAY)
    for p in window:
        assert 1 <= len(p["times"]) <= 3
        for t in p["times"]:
            assert start <= t["serviceDay"] + t["scheduledDeparture"] <= start + 3600
    in_window = sorted(
        base + dep for (_, _, dep) in expected.elements() if start <= base + dep <= start + 3600
    )
    assert in_window
    listed = sorted(t["serviceDay"] + t["scheduledDeparture"] for p in window for t in p["times"])
    assert listed[0] == in_window[0]
    get(svc, f"/stops/{q(atl.scoped(stop))}/stoptimes/2021-10-06", status=400)
    get(svc, f"/stops/{q(atl.scoped(stop))}/stoptimes/20211306", status=400)
    get(svc, f"/stops/{q(atl.scoped(stop))}/stoptimes?numberOfDepartures=-1", status=400)
    get(svc, f"/stops/{q(atl.scoped(stop))}/stoptimes?timeRange=x", status=400)
    get(svc, f"/stops/nope/stoptimes/{DAY:%Y%m%d}", status=404)


# -- clusters, flex areas, services, errors -----------------------------------------------------


def test_clusters_flex_areas_services(svc: Service, atl: CsvFeed) -> None:
    clusters = get(svc, "/clusters")
    assert clusters
    assert all("stops" not in c for c in clusters)
    detailed = get(svc, "/clusters?detail=true")
    assert sum(len(c["stops"]) for c in detailed) == count_rows(atl.files["stops.txt"])
    one = get(svc, f"/clusters/{q(clusters[0]['id'])}")
    assert one["stops"] == detailed[0]["stops"]
    get(svc, "/clusters/nope", status=404)
    assert get(svc, "/flexAreas") == []
    get(svc, "/flexAreas/nope", status=404)
    services = get(svc, "/services")
    assert sorted(s["serviceId"] for s in services) == sorted(
        atl.scoped(r["service_id"]) for r in atl.rows("calendar.txt")
    )
    weekday = get(svc, f"/services/{q(atl.scoped('5'))}")
    assert weekday["startDate"] == "20210816"
    assert "20210906" not in weekday["dates"]  # removed by calendar_dates.txt (Labor Day)
    assert len(weekday["dates"]) == weekday["dayCount"]
    get(svc, "/services/nope", status=404)


def test_errors_and_routing(svc: Service) -> None:
    resp = svc.get("/otp/routers/nope/index/feeds")
    assert resp.status == 404
    assert resp.json()["error"] == "Not Found"
    assert svc.get("/otp/routers/default/index/feeds").json() == [ATL]
    assert svc.get("/otp/routers/atlanta/index/nothing-here").status == 404
    resp = svc.request("POST", "/otp/routers/atlanta/index/feeds", body=b"")
    assert resp.status == 405
    get(svc, "/routes?detail=maybe", status=400)


def _seconds(text: str) -> int:
    h, m, s = text.strip().split(":")
    return int(h) * 3600 + int(m) * 60 + int(s)
