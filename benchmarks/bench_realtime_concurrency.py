"""Benchmark: plans over HTTP while real-time updates are applied (snapshot consistency).

Usage::

    .venv/bin/python benchmarks/bench_realtime_concurrency.py [--data DIR] [--clients 8]
        [--seconds 60] [--every 1.0]

MMRI case 3b (``tiny/mmri/3b``: 3b|1 3b1 00:01 -> 3b2 00:02) is served by a real
Tornado server on loopback.  ``--clients`` threads plan 3b1 -> 3b2 without pause:

1. baseline: ``--seconds / 4`` seconds without updates;
2. updates: ``--seconds`` seconds while every ``--every`` seconds a trip update
   (3b|1 delayed by 60..540 s) or an alert (naming that delay) is applied, each a new
   snapshot.

Every response of phase 2 names its snapshot (``X-Otpa-Realtime-Snapshot``); its leg
must carry exactly that snapshot's times, delay and alert.  Reported: responses,
failures (non-200 or PlannerError), inconsistent responses (target 0 and 0), and the
plan latency p50 with updates vs the baseline (ratio).  A JSON record goes to
``benchmarks/results/realtime_concurrency.json``.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import sys
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from google.transit import gtfs_realtime_pb2  # noqa: E402

from otpa.network import BuildConfig, build_network  # noqa: E402
from otpa.realtime import alert_applier, trip_update_applier  # noqa: E402
from service.config import ServiceConfig  # noqa: E402
from service.server import build_registry, start_in_thread  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
EPOCH_MS = 1388530800 * 1000  # 2014-01-01 00:00 Europe/Amsterdam
QUERY = (
    "/otp/routers/rt/plan?fromPlace=3b:3b1&toPlace=3b:3b2&date=2014-01-01&time=00:01"
    "&numItineraries=1"
)


def _delay_feed(delay: int) -> bytes:
    msg = gtfs_realtime_pb2.FeedMessage()
    msg.header.gtfs_realtime_version = "1.0"
    tu = msg.entity.add(id="3b|1").trip_update
    tu.trip.trip_id, tu.trip.start_date = "3b|1", "20140101"
    tu.stop_time_update.add(stop_sequence=0).departure.delay = delay
    return msg.SerializeToString()


def _alert_feed(header: str) -> bytes:
    msg = gtfs_realtime_pb2.FeedMessage()
    msg.header.gtfs_realtime_version = "1.0"
    alert = msg.entity.add(id="a").alert
    alert.informed_entity.add(route_id="3b")
    alert.header_text.translation.add(text=header)
    return msg.SerializeToString()


def _phase(base: str, clients: int, seconds: float, updater: Any = None) -> dict[str, Any]:
    parsed = urllib.parse.urlsplit(base)
    done = threading.Event()
    lock = threading.Lock()
    seen: list[tuple[int, tuple[Any, ...]]] = []
    latencies: list[float] = []
    failures: list[str] = []

    def client() -> None:
        conn = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=30)
        while not done.is_set():
            t0 = time.perf_counter()
            try:
                conn.request("GET", QUERY)
                resp = conn.getresponse()
                body = json.loads(resp.read())
            except (OSError, http.client.HTTPException, ValueError) as exc:
                with lock:
                    failures.append(repr(exc))
                conn.close()
                conn = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=30)
                continue
            dt_s = time.perf_counter() - t0
            if resp.status != 200 or "error" in body:
                with lock:
                    failures.append(f"{resp.status}: {str(body)[:200]}")
                continue
            leg = body["plan"]["itineraries"][0]["legs"][0]
            answer = (
                (leg["startTime"] - EPOCH_MS) // 1000,
                (leg["endTime"] - EPOCH_MS) // 1000,
                leg["departureDelay"],
                "|".join(a["alertHeaderText"] for a in leg.get("alerts", [])),
            )
            with lock:
                latencies.append(dt_s)
                seen.append((int(resp.getheader("X-Otpa-Realtime-Snapshot") or -1), answer))
        conn.close()

    threads = [threading.Thread(target=client) for _ in range(clients)]
    if updater is not None:
        threads.append(threading.Thread(target=updater, args=(done,)))
    for t in threads:
        t.start()
    time.sleep(seconds)
    done.set()
    for t in threads:
        t.join(60)
    return {"seen": seen, "latencies": latencies, "failures": failures}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--every", type=float, default=1.0)
    args = p.parse_args()

    network = build_network(
        args.data / "tiny" / "mmri" / "3b", config=BuildConfig(max_transfer_distance_m=0.0)
    )
    trips = trip_update_applier(network, "3b", "bench")
    alerts = alert_applier(network, "3b", "bench-alerts")
    state = {"delay": 60, "alert": ""}
    expected: dict[int, tuple[int, str]] = {trips(_delay_feed(60)).snapshot: (60, "")}
    config = ServiceConfig(port=0, graphs_dir=None)
    url, stop = start_in_thread(config, registry=build_registry(config, {"rt": network}))
    base = url.removesuffix("/otp/routers/default")

    def updater(done: threading.Event) -> None:
        for k in itertools.count():
            if done.wait(args.every):
                return
            if k % 2:
                state["alert"] = f"delay {state['delay']} #{k}"
                version = alerts(_alert_feed(state["alert"])).snapshot
            else:
                state["delay"] = 60 * (1 + (k // 2 + 1) % 9)
                version = trips(_delay_feed(state["delay"])).snapshot
            expected[version] = (state["delay"], state["alert"])

    try:
        _phase(base, args.clients, 2.0)  # warm-up
        baseline = _phase(base, args.clients, max(args.seconds / 4, 2.0))
        updates = _phase(base, args.clients, args.seconds, updater)
    finally:
        stop()
    inconsistent = [
        (v, a)
        for v, a in updates["seen"]
        if v not in expected
        or a != (60 + expected[v][0], 120 + expected[v][0], expected[v][0], expected[v][1])
    ]
    p50_base = float(np.median(baseline["latencies"])) * 1000
    p50_upd = float(np.median(updates["latencies"])) * 1000
    record = {
        "clients": args.clients,
        "seconds": args.seconds,
        "every_s": args.every,
        "snapshots_published": len(expected),
        "snapshots_seen": len({v for v, _ in updates["seen"]}),
        "responses": len(updates["seen"]) + len(updates["failures"]),
        "failures": len(updates["failures"]) + len(baseline["failures"]),
        "inconsistent": len(inconsistent),
        "plan_p50_ms_baseline": round(p50_base, 2),
        "plan_p50_ms_with_updates": round(p50_upd, 2),
        "p50_ratio": round(p50_upd / p50_base, 3),
    }
    print(json.dumps(record, indent=2))
    if inconsistent[:3]:
        print("first inconsistent:", inconsistent[:3])
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "realtime_concurrency.json").write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()
