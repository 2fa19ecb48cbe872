"""The calls OTP 1.x's web client makes at start-up and when browsing routes, answered in
the shapes it reads (``src/client/js/otp/core/Map.js`` and ``IndexApi.js`` of OTP 1.x).

FEATURE UNDER TEST: with Atlanta as the default router, the client's sequence -
``GET /otp/routers/default`` (map bounds), ``GET .../index/routes`` (the route list),
then a route's bean, patterns, a pattern, a stop's departures on a date, stops in the
visible rectangle, a stop's routes and a trip's semantic hash - gets every field the
client dereferences, with the types it expects.
"""

from __future__ import annotations

import datetime as dt
import urllib.parse
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

ORIGIN = "http://client.example"


@pytest.fixture(scope="module")
def svc() -> Iterator[Service]:
    """Atlanta as the only, hence default, router."""
    require_data("tiny", "atlanta")
    url, stop = start_in_thread(
        ServiceConfig(port=0), {"atlanta": built_network(DATA_ROOT, "tiny/atlanta")}
    )
    yield Service(url.removesuffix("/otp/routers/default"), url, None, stop)
    stop()


@pytest.fixture(scope="module")
def atl() -> CsvFeed:
    return csv_feeds("tiny/atlanta")[0]


def call(svc: Service, path: str) -> Any:
    """A GET as the client's ``$.ajax`` sends it (cross-origin), answered 200 with JSON."""
    resp = svc.get(path, Origin=ORIGIN)
    assert resp.status == 200, resp.text
    assert resp.header("Access-Control-Allow-Origin") == ORIGIN
    assert resp.header("Content-Type").startswith("application/json")
    return resp.json()


def test_router_info_gives_the_map_bounds(svc: Service, atl: CsvFeed) -> None:
    info = call(svc, "/otp/routers/default")
    corners = ("lowerLeftLatitude", "lowerLeftLongitude", "upperRightLatitude")
    bounds = [info[k] for k in (*corners, "upperRightLongitude")]
    assert all(isinstance(v, float) for v in bounds)
    south, west, north, east = bounds
    for row in atl.rows("stops.txt"):  # the map fits every stop
        assert south <= float(row["stop_lat"]) <= north
        assert west <= float(row["stop_lon"]) <= east
    assert south <= info["centerLatitude"] <= north
    assert west <= info["centerLongitude"] <= east
    assert "SUBWAY" in info["transitModes"]
    assert all(set(o) == {"value", "name"} for o in info["travelOptions"])


def test_route_list_and_route_browsing(svc: Service, atl: CsvFeed) -> None:
    routes = call(svc, "/otp/routers/default/index/routes")
    assert len(routes) == len(atl.rows("routes.txt"))
    for route in routes:
        # IndexApi.loadRoutes sorts by shortName || longName and keys routes by id
        assert isinstance(route["shortName"] or route["longName"], str)
        assert route["id"].startswith(f"{atl.feed_id}:")
        assert route["mode"] in {"SUBWAY", "BUS"}
        assert route["agencyName"] == atl.rows("agency.txt")[0]["agency_name"]
    # loadVariants: the route's bean, then its patterns, then each pattern in detail
    route_id = urllib.parse.quote(routes[0]["id"], safe="")
    bean = call(svc, f"/otp/routers/default/index/routes/{route_id}")
    assert bean["id"] == routes[0]["id"]
    patterns = call(svc, f"/otp/routers/default/index/routes/{route_id}/patterns")
    assert patterns
    for short in patterns:
        assert isinstance(short["id"], str)
        assert isinstance(short["desc"], str)
        detail = call(
            svc, f"/otp/routers/default/index/patterns/{urllib.parse.quote(short['id'], safe='')}"
        )
        # readVariantForTrip plucks the trips' ids; the client draws the stops
        assert [t["id"] for t in detail["trips"]]
        assert all({"id", "name", "lat", "lon"} <= set(s) for s in detail["stops"])


def test_stop_viewer_calls(svc: Service, atl: CsvFeed) -> None:
    stop = atl.scoped("797")
    quoted = urllib.parse.quote(stop, safe="")
    date = dt.date(2021, 10, 6)
    # runStopTimesQuery: /stops/{id}/stoptimes/YYYYMMDD
    departures = call(svc, f"/otp/routers/default/index/stops/{quoted}/stoptimes/{date:%Y%m%d}")
    assert departures
    for entry in departures:
        assert {"id", "desc"} <= set(entry["pattern"])
        for t in entry["times"]:
            assert isinstance(t["scheduledDeparture"], int)
            assert isinstance(t["serviceDay"], int)
            assert isinstance(t["tripId"], str)
    # loadStopsInRectangle: the box parameters as the client names them
    box = call(
        svc,
        "/otp/routers/default/index/stops?maxLat=33.76&minLon=-84.40&minLat=33.74&maxLon=-84.38",
    )
    assert stop in {s["id"] for s in box}
    assert all({"id", "name", "lat", "lon"} <= set(s) for s in box)
    # loadRoutesForStop
    routes = call(svc, f"/otp/routers/default/index/stops/{quoted}/routes")
    assert sorted(r["shortName"] for r in routes) == ["BLUE", "GREEN"]
    # loadStopById
    assert call(svc, f"/otp/routers/default/index/stops/{quoted}")["name"] == (
        "FIVE POINTS STATION"
    )


def test_trip_hash_is_plain_text(svc: Service, atl: CsvFeed) -> None:
    # getTripHash asks with dataType "text" for agency:trip
    trip = atl.rows("trips.txt")[0]["trip_id"].strip()
    resp = svc.get(f"/otp/routers/default/index/trips/{atl.feed_id}:{trip}/semanticHash")
    assert resp.status == 200
    assert resp.header("Content-Type").startswith("text/plain")
    prefix, _, times = resp.text.partition(":")
    assert prefix
    assert times
