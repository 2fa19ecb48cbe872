"""Benchmark: applying GTFS-RT trip updates, and planning on a real-time snapshot.

Usage::

    .venv/bin/python benchmarks/bench_realtime.py [--data DIR] [--pairs 40] [--share 0.2]

What it measures, all in one run:

* **BART** (``extras/gtfs-rt``): the time to apply ``bart-tripupdates.pb``
  (``otpa.realtime.trip_updates``: parse, match, propagate; median of 20) against the
  protobuf parse alone (the baseline), and the RAPTOR timetable of the snapshot vs the
  scheduled one (build time, bytes).
* **RNV** (``small/rnv``, 2016-11-03 08:00): a synthetic feed delaying ``--share`` of
  the day's trips by 2 minutes from their second stop (built from the timetable), its
  apply time and snapshot memory (bytes of its trips and of its RAPTOR timetable), and
  ``plan`` p50 on ``--pairs`` random stop-to-stop pairs with the snapshot applied vs
  without (ratio; target <= 1.1) after a warm-up.  Memory per snapshot: the bytes
  ``tracemalloc`` sees retained by one more snapshot (another synthetic feed applied
  and its RAPTOR timetable built), besides the array bytes.

A JSON record goes to ``benchmarks/results/realtime.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import sys
import time
import tracemalloc
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from google.transit import gtfs_realtime_pb2  # noqa: E402

from otpa.errors import OtpaError  # noqa: E402
from otpa.network import TransportNetwork, build_network  # noqa: E402
from otpa.realtime import parse_feed, store_for, trip_update_applier, trip_updates  # noqa: E402
from otpa.routing import Location, PlanRequest  # noqa: E402
from otpa.routing.planner import plan  # noqa: E402
from otpa.transit.raptor_data import raptor_timetable  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"


def _median_s(fn: object, n: int) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def _nbytes(tt: object) -> int:
    return sum(int(getattr(v, "nbytes", 0)) for v in tt)  # type: ignore[attr-defined]


def bart(data: Path) -> dict[str, object]:
    folder = data / "extras" / "gtfs-rt"
    net = build_network(gtfs=[folder / "bart.zip"])
    raw = (folder / "bart-tripupdates.pb").read_bytes()
    model = net.transit
    parse_s = _median_s(lambda: parse_feed(raw), 20)
    apply_s = _median_s(lambda: trip_updates(model, parse_feed(raw), "bart", net.time_zone), 20)
    result = trip_updates(model, parse_feed(raw), "bart", net.time_zone)
    snap = store_for(net).publish("bench", result.trips)
    day = dt.date(2016, 12, 29)
    base = raptor_timetable(model, day, net.time_zone)
    t = time.perf_counter()
    tt = snap.raptor_timetable(day, net.time_zone)
    return {
        "entities": result.counts.get("trip_updates", 0),
        "applied": result.applied,
        "unmatched": result.unmatched,
        "invalid": result.invalid,
        "parse_ms": parse_s * 1000,
        "apply_ms": apply_s * 1000,
        "apply_vs_parse": apply_s / parse_s,
        "timetable_ms": (time.perf_counter() - t) * 1000,
        "timetable_bytes": _nbytes(tt),
        "scheduled_timetable_bytes": _nbytes(base),
    }


def _synthetic_feed(net: TransportNetwork, day: dt.date, share: float, seed: int) -> bytes:
    model = net.transit
    trips = model.trips
    running = model.services_on(day)[trips["service_index"].to_numpy()]
    running &= trips["template_trip_id"].isna().to_numpy()
    idx = np.flatnonzero(running)
    rng = np.random.default_rng(seed)
    chosen = rng.choice(idx, size=int(len(idx) * share), replace=False)
    msg = gtfs_realtime_pb2.FeedMessage()
    msg.header.gtfs_realtime_version = "1.0"
    msg.header.timestamp = int(dt.datetime(day.year, day.month, day.day, 8).timestamp())
    feeds = model.feeds["feed_id"].tolist()
    feed_of = trips["feed"].to_numpy()
    for trip in chosen:
        if feeds[int(feed_of[trip])] != feeds[0]:
            continue
        pattern = int(trips["pattern_index"].iat[int(trip)])
        ptrips = np.asarray(model.pattern_trip_indices(pattern))
        k = int(np.flatnonzero(ptrips == trip)[0])
        ns = int(model.pattern_stop_offsets[pattern + 1] - model.pattern_stop_offsets[pattern])
        if ns < 2:
            continue
        seq = int(model.stop_sequence[int(model.pattern_time_offsets[pattern]) + k * ns + 1])
        e = msg.entity.add(id=str(trips["raw_id"].iat[int(trip)]))
        e.trip_update.trip.trip_id = str(trips["raw_id"].iat[int(trip)])
        e.trip_update.trip.start_date = day.strftime("%Y%m%d")
        stu = e.trip_update.stop_time_update.add(stop_sequence=seq)
        stu.arrival.delay = 120
        stu.departure.delay = 120
    return msg.SerializeToString()


def rnv(data: Path, pairs: int, share: float, seed: int = 42) -> dict[str, object]:
    cached = RESULTS / "graphs" / "realtime_rnv.graph"
    if cached.exists():
        net = TransportNetwork.load(cached)
    else:
        net = build_network(data / "small" / "rnv")
        cached.parent.mkdir(parents=True, exist_ok=True)
        net.save(cached)
    when = dt.datetime(2016, 11, 3, 8, 0, tzinfo=ZoneInfo(net.time_zone))
    raw = _synthetic_feed(net, when.date(), share, seed)
    feed = str(net.transit.feeds["feed_id"].iat[0])
    apply = trip_update_applier(net, feed, "bench")
    t = time.perf_counter()
    report = apply(raw)
    apply_ms = (time.perf_counter() - t) * 1000
    snap = store_for(net).snapshot
    t = time.perf_counter()
    tt = snap.raptor_timetable(when.date(), net.time_zone)
    timetable_ms = (time.perf_counter() - t) * 1000
    trip_bytes = sum(rt.arrival_s.nbytes * 4 + rt.skipped.nbytes for rt in snap.trips.values())
    # memory per snapshot: what one more snapshot (another feed) keeps alive
    other = _synthetic_feed(net, when.date(), share, seed + 1)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    apply(other)
    store_for(net).snapshot.raptor_timetable(when.date(), net.time_zone)
    retained = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    apply(raw)  # back to the first feed's snapshot for the plans
    snap = store_for(net).snapshot
    tt = snap.raptor_timetable(when.date(), net.time_zone)
    stops = net.transit.stops
    served = np.unique(np.asarray(net.transit.pattern_stops))
    rng = np.random.default_rng(seed)
    ids = stops["stop_id"].to_numpy()[served]
    od = [tuple(rng.choice(ids, 2, replace=False)) for _ in range(pairs)]

    def run(ignore: bool) -> list[float]:
        out = []
        for a, b in od:
            req = PlanRequest(Location(label=str(a)), Location(label=str(b)), when)
            if ignore:
                req = _ignore(req)
            t = time.perf_counter()
            with contextlib.suppress(OtpaError):  # no path: timed all the same
                plan(net, req)
            out.append(time.perf_counter() - t)
        return out

    run(True)  # warm-up (numba, caches)
    run(False)
    sched, live = [], []
    for _ in range(2):  # interleaved, so both see the same machine load
        sched += run(True)
        live += run(False)
    p50_s, p50_l = float(np.median(sched)) * 1000, float(np.median(live)) * 1000
    return {
        "trips_updated": report.applied,
        "apply_ms": apply_ms,
        "timetable_ms": timetable_ms,
        "snapshot_trip_bytes": trip_bytes,
        "snapshot_retained_bytes": retained,
        "timetable_bytes": _nbytes(tt),
        "routes_scheduled": int(raptor_timetable(net.transit, when.date(), net.time_zone).n_routes),
        "routes_realtime": int(tt.n_routes),
        "plan_p50_scheduled_ms": p50_s,
        "plan_p50_realtime_ms": p50_l,
        "ratio": p50_l / p50_s,
    }


def _ignore(req: PlanRequest) -> PlanRequest:
    from dataclasses import replace

    return replace(req, itineraries=replace(req.itineraries, ignore_realtime_updates=True))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    p.add_argument("--pairs", type=int, default=40)
    p.add_argument("--share", type=float, default=0.2)
    p.add_argument("--skip", default="", help="comma-separated: bart,rnv")
    args = p.parse_args()
    skip = set(args.skip.split(","))
    record: dict[str, object] = {}
    if "bart" not in skip:
        record["bart"] = bart(args.data)
        print("BART:", json.dumps(record["bart"], indent=1))
    if "rnv" not in skip:
        record["rnv"] = rnv(args.data, args.pairs, args.share)
        print("RNV:", json.dumps(record["rnv"], indent=1))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "realtime.json").write_text(json.dumps(record, indent=1))


if __name__ == "__main__":
    main()
