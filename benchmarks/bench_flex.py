"""Benchmark: trip planning with GTFS-Flex services on and off (Cobb County).

Usage::

    .venv/bin/python benchmarks/bench_flex.py [--data DIR] [--pairs 30]

The Cobb County set (``tiny/cobb-flex``: CobbLinc's deviated flex routes, CobbLinc
bus 30, MARTA bus 856, Aspen's and Lincoln County's on-demand services) is built
once.  ``--pairs`` origins are random street vertices inside the CobbLinc flex
zones (seed 7); destinations random MARTA 856 / bus 30 stops.  Each pair is
planned (Tuesday 2021-12-14, 07:00 to 10:00 in Atlanta, advance booking ignored)
with ``FlexPreferences(enabled=True)`` and ``enabled=False``, alternating, after a
warm-up; the same queries in the same run.  Printed: p50 / p95 of both, the
ratio of the p50s, and how many plans found an itinerary / rode a flex leg.

A JSON record goes to ``benchmarks/results/flex.json``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import time
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from otpa.errors import OtpaError  # noqa: E402
from otpa.network import TransportNetwork, build_network  # noqa: E402
from otpa.routing import Location, PlanRequest  # noqa: E402
from otpa.routing.planner import plan  # noqa: E402
from otpa.routing.preferences import FlexPreferences  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
NY = ZoneInfo("America/New_York")


def _zone_points(
    net: TransportNetwork, n: int, rng: np.random.Generator
) -> list[tuple[float, float]]:
    """Random street vertices inside the CobbLinc zones (point-in-polygon on the GeoJSON)."""
    import shapely  # an independent point-in-polygon

    assert net.street is not None
    lat = np.asarray(net.street.vertex_lat)
    lon = np.asarray(net.street.vertex_lon)
    inside = np.zeros(lat.shape, dtype=bool)
    for feature in net.transit.flex_locations.get("features", []):
        if not str(feature["id"]).startswith("cobblinc-scheduled-deviated-flex:"):
            continue
        inside |= shapely.contains_xy(shapely.geometry.shape(feature["geometry"]), lon, lat)
    idx = rng.choice(np.flatnonzero(inside), size=n, replace=False)
    return [(float(lat[i]), float(lon[i])) for i in idx]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--pairs", type=int, default=30)
    args = parser.parse_args()
    t0 = time.perf_counter()
    net = build_network(args.data / "tiny" / "cobb-flex")
    build_s = time.perf_counter() - t0
    rng = np.random.default_rng(7)
    origins = _zone_points(net, args.pairs, rng)
    stops = net.transit.stops
    served = np.flatnonzero(np.diff(np.asarray(net.transit.stop_pattern_offsets)) > 0)
    ids = stops["stop_id"].astype(str).to_numpy()
    targets = [str(x) for x in ids[served] if x.startswith(("MARTA:", "cobblinc-bus-30-only:"))]
    dests = [str(x) for x in rng.choice(targets, size=args.pairs)]
    times = [dt.datetime(2021, 12, 14, 7, tzinfo=NY) + dt.timedelta(minutes=int(m))
             for m in rng.integers(0, 180, args.pairs)]  # fmt: skip

    def request(k: int, flex: bool) -> PlanRequest:
        prefs = FlexPreferences(enabled=flex, ignore_drt_advance_book_min=True)
        return PlanRequest(Location(*origins[k]), Location(label=dests[k]), times[k], flex=prefs)

    def run(k: int, flex: bool) -> tuple[float, bool, bool]:
        t = time.perf_counter()
        try:
            result = plan(net, request(k, flex))
        except OtpaError:
            return time.perf_counter() - t, False, False
        took = time.perf_counter() - t
        rode = any(
            leg.trip_id and leg.trip_id.startswith("cobblinc-scheduled-deviated-flex:")
            for it in result.itineraries
            for leg in it.legs
        )
        return took, True, rode

    for k in range(min(3, args.pairs)):  # warm-up: numba, caches
        run(k, True)
        run(k, False)
    on: list[float] = []
    off: list[float] = []
    found = {"on": 0, "off": 0, "flex_leg": 0}
    for k in range(args.pairs):
        t_on, ok_on, rode = run(k, True)
        t_off, ok_off, _ = run(k, False)
        on.append(t_on)
        off.append(t_off)
        found["on"] += ok_on
        found["off"] += ok_off
        found["flex_leg"] += rode
    record = {
        "network": "tiny/cobb-flex",
        "build_s": round(build_s, 2),
        "pairs": args.pairs,
        "flex_on_p50_ms": round(1000 * float(np.median(on)), 1),
        "flex_on_p95_ms": round(1000 * float(np.percentile(on, 95)), 1),
        "flex_off_p50_ms": round(1000 * float(np.median(off)), 1),
        "flex_off_p95_ms": round(1000 * float(np.percentile(off, 95)), 1),
        "ratio_p50": round(float(np.median(on) / np.median(off)), 2),
        "found": found,
    }
    print(json.dumps(record, indent=2))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "flex.json").write_text(json.dumps(record, indent=2))


if __name__ == "__main__":
    main()
