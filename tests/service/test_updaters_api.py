"""Over HTTP: ``router-config.json`` updaters, ``/updaters`` and plans on the real-time timetable.

A real saved graph of MMRI case 3b (3b|1 3b1 00:01 -> 3b2 00:02, 3b|2 00:11 -> 00:12 on
2014-01-01, ``stop_times.txt``) is served with a ``gtfs-http`` ``stop-time-updater``
polling a real Tornado server on loopback every second.  The feed server first serves
``3b.pb`` (3b|1 leaves 600 s late, 3b|2 60 s late), then a feed delaying 3b|1 by 300 s
only; plans follow; when the feed server is gone ``/updaters`` shows the error and the
last good snapshot keeps serving.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import tornado.web
from _fakes import ALICE, Service, basic
from _plan_fakes import start_app
from google.transit import gtfs_realtime_pb2

from otpa.network import BuildConfig, build_network
from otpa.realtime import alert_applier, trip_update_applier
from service.graphql.execute import GRAPHQL_OK
from tests.conftest import require_data

pytestmark = pytest.mark.http

#: 2014-01-01 00:00 Europe/Amsterdam (OTP's MMRI epoch), in ms.
EPOCH_MS = 1388530800 * 1000


def _delay_feed(delays: dict[str, int]) -> bytes:
    msg = gtfs_realtime_pb2.FeedMessage()
    msg.header.gtfs_realtime_version = "1.0"
    msg.header.timestamp = 1388530800
    for trip_id, delay in delays.items():
        entity = msg.entity.add(id=trip_id)
        entity.trip_update.trip.trip_id = trip_id
        entity.trip_update.trip.start_date = "20140101"
        stu = entity.trip_update.stop_time_update.add(stop_sequence=0 if trip_id == "3b|1" else 1)
        stu.departure.delay = delay
    return msg.SerializeToString()


class _FeedHandler(tornado.web.RequestHandler):
    def initialize(self, feed: dict[str, bytes]) -> None:
        self.feed = feed

    def get(self) -> None:
        self.set_header("Content-Type", "application/x-protobuf")
        self.finish(self.feed["body"])


def _wait(predicate: Callable[[], bool], timeout_s: float = 20.0) -> None:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError("condition not reached in time")


def _plan_times(service: Service) -> tuple[int, int, bool, int]:
    query = urllib.parse.urlencode(
        {
            "fromPlace": "3b:3b1",
            "toPlace": "3b:3b2",
            "date": "2014-01-01",
            "time": "00:01",
            "mode": "TRANSIT,WALK",
            "numItineraries": "1",
        }
    )
    body: dict[str, Any] = service.get(f"/otp/routers/rt/plan?{query}").json()
    assert "error" not in body, body["error"]
    leg = body["plan"]["itineraries"][0]["legs"][0]
    return (
        (leg["startTime"] - EPOCH_MS) // 1000,
        (leg["endTime"] - EPOCH_MS) // 1000,
        leg["realTime"],
        leg["departureDelay"],
    )


def test_gtfs_http_updater_follows_the_feed(tmp_path: Path, make_service: Any) -> None:
    data = require_data("tiny", "mmri")
    feed = {"body": (data / "3b.pb").read_bytes()}
    feed_base, stop_feed = start_app(
        tornado.web.Application([(r"/rt", _FeedHandler, {"feed": feed})])
    )
    try:
        graphs = tmp_path / "rt-graphs"
        network = build_network(data / "3b", config=BuildConfig(max_transfer_distance_m=0.0))
        network.save(graphs / "rt" / "graph")
        config = {
            "updaters": [
                {
                    "type": "stop-time-updater",
                    "sourceType": "gtfs-http",
                    "url": f"{feed_base}/rt",
                    "frequencySec": 1,
                    "feedId": "3b",
                },
                {"type": "real-time-alerts", "url": f"{feed_base}/alerts", "feedId": "3b"},
            ]
        }
        (graphs / "rt" / "router-config.json").write_text(json.dumps(config))
        service = make_service(loader=None, graphs_dir=graphs)

        def status(n: int = 0) -> dict[str, Any]:
            resp = service.get(f"/otp/routers/rt/updaters/{n}")
            assert resp.status == 200, resp.text
            out: dict[str, Any] = resp.json()
            return out

        _wait(lambda: status()["successes"] >= 1)
        first = status()
        assert first["type"] == "stop-time-updater"
        assert first["sourceType"] == "gtfs-http"
        assert first["source"] == f"{feed_base}/rt"
        assert (first["applied"], first["unmatched"], first["invalid"]) == (2, 0, 0)
        assert "lastError" not in first  # null fields are omitted
        listing = service.get("/otp/routers/rt/updaters").json()
        assert list(listing) == ["0", "1"]
        assert listing["1"]["type"] == "real-time-alerts"
        assert listing["1"]["supported"] is True  # no feed at /alerts: it reports the error
        assert service.get("/otp/routers/rt/updaters/2").text == "No updater with that ID."
        # 3b.pb: 3b|1 leaves 3b1 at 00:11 (600 s late), reaches 3b2 at 00:12
        assert _plan_times(service) == (660, 720, True, 600)

        feed["body"] = _delay_feed({"3b|1": 300})
        _wait(lambda: status()["applied"] == 1)
        assert status()["snapshot"] == first["snapshot"] + 1  # the same feed publishes nothing
        assert _plan_times(service) == (360, 420, True, 300)
        # the index API's stop times show the same snapshot; a trip's stop times are
        # today's (OTP 1.x), and the update is for 2014-01-01
        trip = urllib.parse.quote("3b:3b|1", safe="")
        times = service.get(f"/otp/routers/rt/index/trips/{trip}/stoptimes").json()
        assert [
            (t["scheduledDeparture"], t["realtimeDeparture"], t["realtimeState"]) for t in times
        ] == [(60, 60, "SCHEDULED"), (120, 120, "SCHEDULED")]
        by_day = service.get("/otp/routers/rt/index/stops/3b:3b1/stoptimes/20140101").json()
        rows = {
            t["tripId"]: (t["realtimeDeparture"], t["realtimeState"])
            for p in by_day
            for t in p["times"]
        }
        assert rows == {"3b:3b|1": (360, "UPDATED"), "3b:3b|2": (660, "SCHEDULED")}
        (updated,) = [t for p in by_day for t in p["times"] if t["tripId"] == "3b:3b|1"]
        assert (updated["scheduledDeparture"], updated["departureDelay"]) == (60, 300)
        assert (updated["arrivalDelay"], updated["realtime"]) == (0, True)  # 3b1: first stop
        query = """{ stop(id: "3b:3b1") { stoptimesForServiceDate(date: "20140101") {
          stoptimes { realtimeDeparture departureDelay realtimeState trip { gtfsId } } } } }"""
        resp = service.request(
            "POST",
            "/otp/routers/rt/index/graphql",
            body=json.dumps({"query": query}).encode(),
            headers={"Content-Type": "application/json"},
        )
        assert resp.status == GRAPHQL_OK, resp.text
        gql = {
            t["trip"]["gtfsId"]: (t["realtimeDeparture"], t["departureDelay"], t["realtimeState"])
            for p in resp.json()["data"]["stop"]["stoptimesForServiceDate"]
            for t in p["stoptimes"]
        }
        assert gql == {"3b:3b|1": (360, 300, "UPDATED"), "3b:3b|2": (660, 0, "SCHEDULED")}
    finally:
        stop_feed()
    _wait(lambda: status()["consecutiveFailures"] >= 1)
    gone = status()
    assert gone["lastError"] is not None
    assert "URLError" in gone["lastError"] or "Connection" in gone["lastError"]
    assert gone["applied"] == 1  # the last good apply
    assert _plan_times(service) == (360, 420, True, 300)  # the last good snapshot serves
    # reload the graph: the new updaters re-apply the last good feed (the server is gone)
    resp = service.request("PUT", "/otp/routers/rt", headers=basic(*ALICE))
    assert resp.status == 201, resp.text
    assert _plan_times(service) == (360, 420, True, 300)
    assert status()["applied"] == 1


def test_no_updaters(make_service: Any) -> None:
    service = make_service()
    resp = service.get("/otp/routers/alpha/updaters")
    assert (resp.status, resp.text) == (404, "No updaters running.")
    assert service.get("/otp/routers/nope/updaters").status == 404


def _alert_feed(header: str) -> bytes:
    msg = gtfs_realtime_pb2.FeedMessage()
    msg.header.gtfs_realtime_version = "1.0"
    alert = msg.entity.add(id="a").alert
    alert.informed_entity.add(route_id="3b")  # routes.txt: route 3b runs 3b|1 and 3b|2
    alert.header_text.translation.add(text=header)
    return msg.SerializeToString()


def test_concurrent_plans_each_see_one_snapshot(make_service: Any) -> None:
    """8 plan clients racing with trip updates and alerts (each a new snapshot, every 50 ms):
    every response names its snapshot, and its times, delay and alert are that snapshot's."""
    data = require_data("tiny", "mmri")
    network = build_network(data / "3b", config=BuildConfig(max_transfer_distance_m=0.0))
    service = make_service(networks={"rt": network})
    trips = trip_update_applier(network, "3b", "concurrency")
    alerts = alert_applier(network, "3b", "alerts")
    state = {"delay": 60, "alert": "none"}
    expected: dict[int, tuple[int, str]] = {}
    expected[trips(_delay_feed({"3b|1": 60})).snapshot] = (60, "none")
    done = threading.Event()
    seen: list[tuple[int, tuple[int, int, bool, int, str]]] = []
    errors: list[str] = []

    def update() -> None:
        for k in itertools.count():
            if done.wait(0.05):
                return
            if k % 2:  # an alert naming the delay it is published with
                state["alert"] = f"delay {state['delay']} #{k}"
                version = alerts(_alert_feed(state["alert"])).snapshot
            else:
                state["delay"] = 60 * (1 + (k // 2 + 1) % 9)  # 60 .. 540 s: 3b|1 stays best
                version = trips(_delay_feed({"3b|1": state["delay"]})).snapshot
            expected[version] = (state["delay"], state["alert"])

    def client() -> None:
        while not done.is_set():
            query = "fromPlace=3b:3b1&toPlace=3b:3b2&date=2014-01-01&time=00:01&numItineraries=1"
            resp = service.get(f"/otp/routers/rt/plan?{query}")
            if resp.status != 200 or "error" in resp.json():
                errors.append(resp.text)
                continue
            leg = resp.json()["plan"]["itineraries"][0]["legs"][0]
            times = ((leg["startTime"] - EPOCH_MS) // 1000, (leg["endTime"] - EPOCH_MS) // 1000)
            shown = "|".join(a["alertHeaderText"] for a in leg.get("alerts", []))
            version = int(resp.header("X-Otpa-Realtime-Snapshot") or -1)
            seen.append((version, (*times, leg["realTime"], leg["departureDelay"], shown)))

    threads = [threading.Thread(target=update)] + [
        threading.Thread(target=client) for _ in range(8)
    ]
    for t in threads:
        t.start()
    time.sleep(4.0)
    done.set()
    for t in threads:
        t.join(30)
    assert errors == []
    assert len({version for version, _ in seen}) >= 3  # the plans saw several snapshots
    assert any(answer[-1] for _, answer in seen)  # and alerts on their legs
    for version, answer in seen:
        delay, alert = expected[version]
        shown = "" if alert == "none" else alert
        assert answer == (60 + delay, 120 + delay, True, delay, shown), (version, answer)
