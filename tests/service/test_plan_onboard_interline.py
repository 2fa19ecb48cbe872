"""Over HTTP: ``interlineWithPreviousLeg`` (GTFS blocks) and ``startTransitTripId`` (on board).

Real networks behind the real planner: the Beatty sample feed, whose block 1 runs AB1
(Beatty Airport 08:00 -> Bullfrog 08:10) and then BFC1 (Bullfrog 08:20 -> Furnace Creek
Resort 09:20), and MMRI case 2f, whose intercity runs 2f1 00:01 -> 2f3 00:04
(stop_times.txt of both feeds).
"""

from __future__ import annotations

import datetime as dt
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from _fakes import Service
from _plan_fakes import serve_plan

from otpa.network import BuildConfig, TransportNetwork, build_network
from tests.conftest import require_data
from tests.fixtures.networks import built_network

pytestmark = pytest.mark.http


def _feed(network: TransportNetwork, folder: Path) -> str:
    feeds = network.transit.feeds
    for feed_id, path in zip(feeds["feed_id"], feeds["path"], strict=True):
        if Path(str(path)).resolve() == folder.resolve():
            return str(feed_id)
    raise AssertionError(folder)


@pytest.fixture(scope="module")
def networks() -> dict[str, TransportNetwork]:
    data = require_data()
    return {
        "beatty": built_network(data, "tiny/beatty"),
        "mmri2f": build_network(
            data / "tiny" / "mmri" / "2f", config=BuildConfig(max_transfer_distance_m=0.0)
        ),
    }


@pytest.fixture(scope="module")
def service(networks: dict[str, TransportNetwork]) -> Iterator[Service]:
    yield from serve_plan(None, networks)


def _plan(service: Service, router: str, **query: str) -> dict[str, Any]:
    resp = service.get(f"/otp/routers/{router}/plan?{urllib.parse.urlencode(query)}")
    assert resp.status == 200
    body: dict[str, Any] = resp.json()
    assert "error" not in body, body["error"]
    return body


def _ms(when: dt.datetime) -> int:
    return int(when.timestamp() * 1000)


def test_interlined_leg(service: Service, networks: dict[str, TransportNetwork]) -> None:
    feed = _feed(networks["beatty"], require_data("tiny", "beatty", "sample-feed"))
    body = _plan(
        service,
        "beatty",
        fromPlace=f"{feed}:BEATTY_AIRPORT",
        toPlace=f"{feed}:FUR_CREEK_RES",
        date="2010-06-01",
        time="07:50",
        onlyTransitTrips="true",
    )
    it = body["plan"]["itineraries"][0]
    legs = [leg for leg in it["legs"] if leg["transitLeg"]]
    assert [leg["tripId"] for leg in legs] == [f"{feed}:AB1", f"{feed}:BFC1"]
    assert [leg["interlineWithPreviousLeg"] for leg in legs] == [False, True]
    assert [leg["tripBlockId"] for leg in legs] == ["1", "1"]
    la = ZoneInfo("America/Los_Angeles")
    assert legs[1]["startTime"] == _ms(dt.datetime(2010, 6, 1, 8, 20, tzinfo=la))
    assert it["transfers"] == 0
    assert it["waitingTime"] == 0


def test_depart_on_board(service: Service, networks: dict[str, TransportNetwork]) -> None:
    feed = _feed(networks["mmri2f"], require_data("tiny", "mmri", "2f"))
    body = _plan(
        service,
        "mmri2f",
        toPlace=f"{feed}:2f2",
        startTransitTripId=f"{feed}_2f|intercity",  # OTP's underscore form
        date="2014-01-01",
        time="00:02",
    )
    ams = ZoneInfo("Europe/Amsterdam")
    first, second = body["plan"]["itineraries"][0]["legs"]
    assert first["tripId"] == f"{feed}:2f|intercity"
    assert first["startTime"] == _ms(dt.datetime(2014, 1, 1, 0, 2, tzinfo=ams))
    assert first["endTime"] == _ms(dt.datetime(2014, 1, 1, 0, 4, tzinfo=ams))
    assert "stopId" not in first["from"]
    assert second["tripId"] == f"{feed}:2f|slt|2"
    assert body["plan"]["itineraries"][0]["transfers"] == 1


def test_unknown_on_board_trip_is_bogus_parameter(
    service: Service, networks: dict[str, TransportNetwork]
) -> None:
    feed = _feed(networks["mmri2f"], require_data("tiny", "mmri", "2f"))
    query = {"toPlace": f"{feed}:2f2", "startTransitTripId": f"{feed}_nope", "time": "00:02"}
    resp = service.get(f"/otp/routers/mmri2f/plan?{urllib.parse.urlencode(query)}&date=2014-01-01")
    assert resp.status == 200
    assert resp.json()["error"]["message"] == "BOGUS_PARAMETER"
