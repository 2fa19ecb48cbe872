"""Query parameters of the index API: ``detail``, ``refs``, ``hasStop``, ``omitNonPickups``,
malformed values (400) and unknown ids (404), each with the service's JSON error body.

Atlanta for the forms; VVS bus 751 (Herrenberg) for ``omitNonPickups``: three of its
trips end at a stop with ``pickup_type`` 1.
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

from service.config import ServiceConfig
from service.server import start_in_thread
from tests.conftest import DATA_ROOT, require_data
from tests.fixtures.networks import built_network
from tests.otpa.index._gtfs_csv import CsvFeed, csv_feeds

pytestmark = pytest.mark.http

ATL = "atlanta-blue-green-line"
DAY = dt.date(2021, 10, 6)
VVS_DAY = dt.date(2020, 3, 4)
NO_BOARDING_STOP = "de:08115:7100:10:13"


@pytest.fixture(scope="module")
def svc() -> Iterator[Service]:
    require_data("tiny", "atlanta")
    require_data("tiny", "herrenberg-vvs")
    networks = {
        "atlanta": built_network(DATA_ROOT, "tiny/atlanta"),
        "vvs": built_network(DATA_ROOT, "tiny/herrenberg-vvs"),
    }
    url, stop = start_in_thread(ServiceConfig(port=0), networks)
    yield Service(url.removesuffix("/otp/routers/default"), url, None, stop)
    stop()


@pytest.fixture(scope="module")
def vvs() -> CsvFeed:
    return next(f for f in csv_feeds("tiny/herrenberg-vvs") if f.feed_id == "vvs-bus-751-only")


def q(value: str) -> str:
    return urllib.parse.quote(value, safe="")


def get(svc: Service, path: str, router: str = "atlanta", status: int = 200) -> Any:
    resp = svc.get(f"/otp/routers/{router}/index{path}")
    assert resp.status == status, resp.text
    body = resp.json()
    if status != 200:
        assert body["status"] == status
        assert body["error"] == {400: "Bad Request", 404: "Not Found"}[status]
        assert body["message"]
    return body


STOP = q(f"{ATL}:797")
ROUTE = q(f"{ATL}:15787")


def test_detail_gives_full_beans_in_lists(svc: Service) -> None:
    full_stop = {"id", "name", "lat", "lon", "locationType", "wheelchairBoarding", "vehicleType"}
    for path in ("/stops", f"/routes/{ROUTE}/stops", f"/patterns/{q(_pattern(svc))}/stops"):
        assert all(full_stop <= set(s) for s in get(svc, f"{path}?detail=true")), path
        assert all("locationType" not in s for s in get(svc, path)), path
    circle = get(svc, "/stops?lat=33.7538&lon=-84.3914&radius=300&detail=true")
    assert circle
    assert all(full_stop | {"dist"} <= set(s) for s in circle)
    for path in ("/routes", f"/agencies/{ATL}/MARTA/routes", f"/stops/{STOP}/routes"):
        routes = get(svc, f"{path}?detail=true")
        assert routes
        assert all({"agency", "type", "sortOrderSet"} <= set(r) for r in routes), path
    trips = get(svc, f"/routes/{ROUTE}/trips?detail=true")
    assert all({"route", "serviceId", "wheelchairAccessible"} <= set(t) for t in trips)
    patterns = get(svc, "/patterns?detail=true")
    assert all({"id", "desc", "routeId", "stops", "trips"} <= set(p) for p in patterns)
    assert [p["id"] for p in patterns] == [p["id"] for p in get(svc, "/patterns")]


def _pattern(svc: Service) -> str:
    return str(get(svc, f"/routes/{ROUTE}/patterns")[0]["id"])


def test_refs_add_the_ids_short_forms_refer_to(svc: Service) -> None:
    trips = get(svc, f"/routes/{ROUTE}/trips?refs=true")
    assert all(t["routeId"] == f"{ATL}:15787" for t in trips)
    assert all(t["patternId"].startswith(f"{ATL}:15787:") for t in trips)
    assert all("routeId" not in t for t in get(svc, f"/routes/{ROUTE}/trips"))
    for path in ("/patterns", f"/stops/{STOP}/patterns", f"/routes/{ROUTE}/patterns"):
        with_refs = get(svc, f"{path}?refs=true")
        assert all(p["routeId"] == p["id"].rsplit(":", 2)[0] for p in with_refs), path
    times = get(svc, f"/stops/{STOP}/stoptimes/{DAY:%Y%m%d}?refs=true")
    assert all("routeId" in p["pattern"] for p in times)
    # StopShort.parentStation: Atlanta has no stations, so (nulls omitted) nothing changes
    assert get(svc, "/stops?refs=true") == get(svc, "/stops")


def test_has_stop_is_repeatable_and_blank_means_absent(svc: Service) -> None:
    every = get(svc, "/routes")
    assert get(svc, "/routes?hasStop=") == every
    both = get(svc, f"/routes?hasStop={STOP}&hasStop=")
    assert sorted(r["shortName"] for r in both) == ["BLUE", "GREEN"]
    one = get(svc, f"/routes?hasStop={STOP}&hasStop={q(f'{ATL}:27')}")
    assert [r["shortName"] for r in one] == ["BLUE"]


@pytest.mark.parametrize(
    "path",
    [
        "/routes?detail=maybe",
        "/stops?refs=2",
        f"/routes/{ROUTE}/patterns?includeGeometry=yes-please",
        "/stops?lat=33.75&lon=-84.39&radius=100&includeStopTimes=perhaps",
        "/stops?lat=33.75&lon=-84.39&radius=100&includeRoutes=x",
        f"/stops/{STOP}/stoptimes?omitNonPickups=x",
        f"/stops/{STOP}/stoptimes/{DAY:%Y%m%d}?omitNonPickups=x",
        f"/stops/{STOP}/stoptimes?startTime=soon",
        f"/stops/{STOP}/stoptimes?startTime=-5",
        f"/stops/{STOP}/stoptimes?timeRange=1.5",
        f"/stops/{STOP}/stoptimes?numberOfDepartures=two",
        f"/stops/{STOP}/stoptimes/20210230",
        f"/stops/{STOP}/stoptimes/tomorrow",
        "/stops?lat=33.75&lon=-84.39&radius=inf",
        "/stops?lat=91&lon=-84.39&radius=10",
        "/stops?minLat=33.7&minLon=-84.4&maxLat=x&maxLon=-84.3",
    ],
)
def test_malformed_parameters_are_400(svc: Service, path: str) -> None:
    body = get(svc, path, status=400)
    name = urllib.parse.urlsplit(path).query.split("=")[0]
    if name and name not in {"lat", "minLat"}:
        assert name in body["message"]


@pytest.mark.parametrize(
    "path",
    [
        "/feeds/nope",
        "/agencies/nope",
        f"/agencies/{ATL}/nope",
        f"/agencies/{ATL}/nope/routes",
        "/routes/x:nope",
        "/routes/x:nope/patterns",
        "/routes/x:nope/stops",
        "/routes/x:nope/trips",
        "/routes?hasStop=x:nope",
        "/patterns/x:nope",
        "/patterns/x:nope/trips",
        "/patterns/x:nope/stops",
        "/patterns/x:nope/geometry",
        "/patterns/x:nope/semanticHash",
        "/trips/x:nope",
        "/trips/x:nope/stops",
        "/trips/x:nope/stoptimes",
        "/trips/x:nope/geometry",
        "/trips/x:nope/semanticHash",
        "/stops/x:nope",
        "/stops/x:nope/routes",
        "/stops/x:nope/patterns",
        "/stops/x:nope/transfers",
        "/stops/x:nope/stoptimes",
        "/stops/x:nope/stoptimes/20211006",
        "/clusters/x:nope",
        "/flexAreas/x:nope",
        "/services/x:nope",
    ],
)
def test_unknown_ids_are_404(svc: Service, path: str) -> None:
    body = get(svc, path, status=404)
    assert "nope" in body["message"]


def _calls(found: list[Any]) -> Counter[tuple[str, int, int]]:
    return Counter(
        (t["tripId"], t["scheduledArrival"], t["scheduledDeparture"])
        for p in found
        for t in p["times"]
    )


def test_omit_non_pickups_on_a_date(svc: Service, vvs: CsvFeed) -> None:
    path = f"/stops/{q(vvs.scoped(NO_BOARDING_STOP))}/stoptimes/{VVS_DAY:%Y%m%d}"
    every = get(svc, path, router="vvs")
    boarding = get(svc, f"{path}?omitNonPickups=true", router="vvs")
    assert _calls(every) == vvs.stop_calls(NO_BOARDING_STOP, VVS_DAY)
    assert _calls(boarding) == vvs.stop_calls(NO_BOARDING_STOP, VVS_DAY, pickups_only=True)
    assert sum(_calls(every).values()) > sum(_calls(boarding).values())
    assert [p["pattern"]["id"] for p in boarding] == [p["pattern"]["id"] for p in every]
    assert get(svc, f"{path}?omitNonPickups=false", router="vvs") == every


def test_omit_non_pickups_in_a_window(svc: Service, vvs: CsvFeed) -> None:
    start = vvs.service_day_start(VVS_DAY)
    path = (
        f"/stops/{q(vvs.scoped(NO_BOARDING_STOP))}/stoptimes"
        f"?startTime={start}&timeRange=86400&numberOfDepartures=50"
    )
    every = get(svc, path, router="vvs")
    boarding = get(svc, f"{path}&omitNonPickups=true", router="vvs")
    assert sum(_calls(every).values()) == sum(vvs.stop_calls(NO_BOARDING_STOP, VVS_DAY).values())
    assert sum(_calls(boarding).values()) == sum(
        vvs.stop_calls(NO_BOARDING_STOP, VVS_DAY, pickups_only=True).values()
    )


def test_graphql_omit_non_pickups(svc: Service, vvs: CsvFeed) -> None:
    query = """query ($id: String!, $date: String, $omit: Boolean) { stop(id: $id) {
      stoptimesForServiceDate(date: $date, omitNonPickups: $omit) {
        pattern { code } stoptimes { scheduledDeparture trip { gtfsId } } } } }"""
    counts = []
    for omit in (False, True):
        variables = {"id": vvs.scoped(NO_BOARDING_STOP), "date": f"{VVS_DAY:%Y%m%d}", "omit": omit}
        resp = svc.request(
            "POST",
            "/otp/routers/vvs/index/graphql",
            body=json.dumps({"query": query, "variables": variables}).encode(),
            headers={"Content-Type": "application/json"},
        )
        assert resp.status == 201, resp.text
        found = resp.json()["data"]["stop"]["stoptimesForServiceDate"]
        counts.append(sum(len(p["stoptimes"]) for p in found))
    assert counts == [
        sum(vvs.stop_calls(NO_BOARDING_STOP, VVS_DAY).values()),
        sum(vvs.stop_calls(NO_BOARDING_STOP, VVS_DAY, pickups_only=True).values()),
    ]
