"""Benchmark: bike rental and park & ride plan latency on RNV, against WALK,TRANSIT.

Usage::

    .venv/bin/python benchmarks/bench_mobility.py [--data DIR] [--pairs 60] [--seed 42]
        [--stations 400] [--rebuild] [--dump FILE]
    OTPA_TREE=/other/checkout .venv/bin/python benchmarks/bench_mobility.py --dump old.json

What it measures, all in one run, on the same random origin/destination pairs (random
vertices of the largest WALK component, weekday 08:00, as ``bench_plan.py``):

* ``WALK,TRANSIT`` -- the baseline;
* ``BICYCLE_RENT,TRANSIT`` -- with a generated docked bike-share system: ``--stations``
  stations at random street vertices of the WALK component (a fixed seed), each with
  0-8 bikes and 0-8 free docks (some empty: they must be skipped), published as a GBFS
  snapshot in the network's rental store (:func:`otpa.mobility.mobility_store_for`);
* ``BICYCLE_RENT`` -- the street-only rental trip (walk, ride, walk);
* ``CAR_PARK,TRANSIT`` -- park and ride at the OSM park-and-ride lots of RNV, and
  ``--lots`` generated ones (random vertices of the CAR component: RNV's OSM extract
  has none), added to the network's features before the first plan.

Latency p50/p95 per mode (in-process ``otpa.plan`` after a warm-up), in CPU time
(``time.process_time``, what a shared machine's load does not inflate) and wall time, and
the ratios to WALK,TRANSIT (target: rental and park & ride <= 3x, on CPU p50).  The modes
take turns pair by pair, so a change of load hits them alike.  A JSON record goes to
``benchmarks/results/mobility_<set>.json``.

``--dump FILE`` writes every plan's itineraries as the service's OTP 1.x JSON, to check
that a speed change leaves them identical: run it once with ``OTPA_TREE`` naming the
checkout before the change (its ``otpa`` is imported instead of this one's) and once
without, then compare the two files.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib
import json
import os
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: the checkout whose ``otpa`` is measured (``OTPA_TREE``: another one, e.g. before a change)
TREE = Path(os.environ.get("OTPA_TREE") or ROOT)
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(TREE))

# imported first: bench_plan puts this checkout first on sys.path
for _package in ("otpa", "service.otp1.plan_response"):
    importlib.import_module(_package)

import bench_plan  # noqa: E402

from otpa.mobility import (  # noqa: E402
    RentalSnapshot,
    RentalStations,
    SystemInformation,
    mobility_store_for,
)
from otpa.network import TransportNetwork  # noqa: E402
from otpa.routing import Location, PlanRequest  # noqa: E402
from otpa.routing.parse import parse_modes, rental_preferences  # noqa: E402
from otpa.routing.preferences import ItineraryPreferences  # noqa: E402
from service.otp1.plan_response import itinerary_json  # noqa: E402

MODES = ("WALK,TRANSIT", "BICYCLE_RENT,TRANSIT", "BICYCLE_RENT", "CAR_PARK,TRANSIT")
TARGET_RATIO = 3.0


def generated_stations(
    net: TransportNetwork, vertices: np.ndarray, n: int, rng: np.random.Generator
) -> RentalSnapshot:
    """``n`` docked stations at random street vertices with random availability."""
    assert net.street is not None
    chosen = rng.choice(vertices, size=min(n, vertices.size), replace=False)
    lat, lon = np.asarray(net.street.vertex_lat), np.asarray(net.street.vertex_lon)
    rows = [
        {
            "id": f"s{i}",
            "name": f"Station {i}",
            "network": "BenchBikes",
            "lat": float(lat[v]),
            "lon": float(lon[v]),
            "capacity": 16,
            "vehicles_available": int(rng.integers(0, 9)),
            "spaces_available": int(rng.integers(0, 9)),
        }
        for i, v in enumerate(chosen)
    ]
    return RentalSnapshot(
        network="BenchBikes",
        kind="bike-rental",
        system=SystemInformation(system_id="bench", name="Bench Bikes"),
        stations=RentalStations.from_rows(rows),
    )


def request(
    a: tuple[float, float], b: tuple[float, float], when: Any, modes_text: str
) -> PlanRequest:
    """A plan request as the service builds it for ``mode=modes_text``."""
    modes = parse_modes(modes_text)
    rental = rental_preferences(modes)
    req = PlanRequest(
        Location(lat=a[0], lon=a[1]),
        Location(lat=b[0], lon=b[1]),
        when,
        modes=modes,
        rental=rental,
        itineraries=ItineraryPreferences(num_itineraries=3 if modes.transit else 1),
    )
    if rental.park_and_ride:
        req = dataclasses.replace(
            req, transit=dataclasses.replace(req.transit, only_transit_trips=True)
        )
    if rental.bike_rental:  # OTP 1.x's bike-share speed
        req = dataclasses.replace(req, bike=dataclasses.replace(req.bike, speed_mps=4.3))
    return req


def _plan_json(net: TransportNetwork, req: PlanRequest, its: Any) -> list[Any]:
    from zoneinfo import ZoneInfo

    zone = ZoneInfo(net.time_zone)
    return [itinerary_json(it, req, zone) for it in its]


def interleaved(
    net: TransportNetwork,
    reqs: dict[str, list[PlanRequest]],
    *,
    dump: bool = False,
    warmup: int = bench_plan.WARMUP,
) -> tuple[dict[str, bench_plan.PlanRun], dict[str, list[float]], dict[str, list[Any]]]:
    """Time ``plan`` pair by pair, each mode in turn (after ``warmup`` untimed pairs).

    Returns the wall-time runs, the CPU seconds per plan and, with ``dump``, each
    plan's itineraries as OTP 1.x JSON (or its error).
    """
    from otpa.routing.errors import PlanningError
    from otpa.routing.planner import plan

    n = len(next(iter(reqs.values())))
    for i in range(min(warmup, n)):
        for mode_reqs in reqs.values():
            with contextlib.suppress(PlanningError):
                plan(net, mode_reqs[i])
    runs = {mode: bench_plan.PlanRun() for mode in reqs}
    cpu: dict[str, list[float]] = {mode: [] for mode in reqs}
    dumps: dict[str, list[Any]] = {mode: [] for mode in reqs}
    for i in range(n):
        for mode, mode_reqs in reqs.items():
            run, req = runs[mode], mode_reqs[i]
            its: tuple[Any, ...] = ()
            error = None
            t0, c0 = time.perf_counter(), time.process_time()
            try:
                its = plan(net, req).itineraries
            except PlanningError as exc:
                run.errors[type(exc).__name__] += 1
                error = f"{type(exc).__name__}: {exc}"
            except Exception as exc:  # a bug in the planner: count it, keep measuring
                run.errors[f"BUG {type(exc).__name__}: {str(exc)[:80]}"] += 1
                error = f"BUG {type(exc).__name__}: {exc}"
            cpu[mode].append(time.process_time() - c0)
            run.seconds.append(time.perf_counter() - t0)
            run.itineraries.append(len(its))
            run.transit.append(
                any(leg.mode not in bench_plan._STREET_LEG_MODES for it in its for leg in it.legs)
            )
            if dump:
                dumps[mode].append(error if error is not None else _plan_json(net, req, its))
    return runs, cpu, dumps


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print the table."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=bench_plan._default_data())
    p.add_argument("--set", default="small/rnv")
    p.add_argument("--pairs", type=int, default=60)
    p.add_argument("--stations", type=int, default=400)
    p.add_argument("--lots", type=int, default=40)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--date", default=None)
    p.add_argument("--time", default="08:00")
    p.add_argument("--rebuild", action="store_true")
    p.add_argument("--out", type=Path)
    p.add_argument("--dump", type=Path, help="write every plan's itineraries (JSON) here")
    args = p.parse_args(argv)
    # the plan benchmark's setup: network (cached graph), date, WALK-component pairs
    setup_args = argparse.Namespace(
        data=args.data, set=args.set, rebuild=args.rebuild, date=args.date, time=args.time,
        seed=args.seed, pairs=args.pairs,
    )  # fmt: skip
    record: dict[str, Any] = {"machine": platform.platform(), "python": platform.python_version()}
    s = bench_plan._setup(setup_args, record)
    rng = np.random.default_rng(args.seed + 1)
    walk_component = bench_plan.largest_component(s.graph, "WALK")
    snapshot = generated_stations(s.net, walk_component, args.stations, rng)
    mobility_store_for(s.net).publish("bench-stations", snapshot)
    osm_lots = len(s.net.features.get("park_and_ride", []))
    car_component = bench_plan.largest_component(s.graph, "CAR")
    lot_vertices = rng.choice(car_component, size=args.lots, replace=False)
    s.net.features.setdefault("park_and_ride", []).extend(
        {"osm_id": -(i + 1), "osm_type": "node", "name": f"Lot {i}", "tags": {},
         "lat": float(s.graph.vertex_lat[v]), "lon": float(s.graph.vertex_lon[v])}
        for i, v in enumerate(lot_vertices)
    )  # fmt: skip
    record["stations"] = {
        "generated": len(snapshot.stations),
        "empty": int(np.sum(snapshot.stations.vehicles_available == 0)),
        "full": int(np.sum(snapshot.stations.spaces_available == 0)),
        "park_and_ride_lots_osm": osm_lots,
        "park_and_ride_lots_generated": int(args.lots),
    }
    pairs = s.pairs["WALK,TRANSIT"]
    reqs = {
        mode: [request(bench_plan._coords(s, a), bench_plan._coords(s, b), s.when, mode)
               for a, b in pairs]
        for mode in MODES
    }  # fmt: skip
    bench_plan._log(f"plans: {len(pairs)} pairs x {len(MODES)} modes, in turns")
    runs, cpu, dumps = interleaved(s.net, reqs, dump=args.dump is not None)
    results: dict[str, Any] = {}
    for mode in MODES:
        results[mode] = runs[mode].summary()
        results[mode]["cpu_ms"] = bench_plan.stats_ms(cpu[mode])
    base, base_cpu = results["WALK,TRANSIT"]["latency_ms"], results["WALK,TRANSIT"]["cpu_ms"]
    for mode in MODES[1:]:
        lat, c = results[mode]["latency_ms"], results[mode]["cpu_ms"]
        for q in ("p50", "p95"):
            results[mode][f"ratio_{q}_over_walk_transit"] = bench_plan._ratio(lat[q], base[q])
            results[mode][f"cpu_ratio_{q}_over_walk_transit"] = bench_plan._ratio(
                c[q], base_cpu[q]
            )
        results[mode]["within_target"] = (
            results[mode]["cpu_ratio_p50_over_walk_transit"] or 0.0
        ) <= TARGET_RATIO
    if args.dump is not None:
        where = sys.modules["otpa"].__file__
        args.dump.write_text(json.dumps({"otpa": where, "plans": dumps}, indent=1))
        bench_plan._log(f"itineraries of {where}: {args.dump}")
    record["plan"] = results
    record["target_ratio"] = TARGET_RATIO
    out = args.out or bench_plan.RESULTS / f"mobility_{args.set.replace('/', '_')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=2, default=str))
    print(f"\nRNV mobility plan benchmark — {record['od']['date']} {args.time}, {len(pairs)} pairs")
    print(f"stations: {record['stations']}")
    print(f"{'':24} {'CPU time':^33} {'wall time':^33}")
    head = f"{'p50 ms':>8} {'p95 ms':>8} {'x p50':>7} {'x p95':>7} "
    print(f"{'mode':24} {head}{head}{'found':>6}")
    f = bench_plan._fmt
    for mode in MODES:
        r = results[mode]
        row = ""
        for key, pre in (("cpu_ms", "cpu_"), ("latency_ms", "")):
            q = r[key]
            row += (
                f"{f(q['p50']):>8} {f(q['p95']):>8} "
                f"{f(r.get(pre + 'ratio_p50_over_walk_transit')):>7} "
                f"{f(r.get(pre + 'ratio_p95_over_walk_transit')):>7} "
            )
        print(f"{mode:24} {row}{r['with_itineraries']:>6}")
    print(f"(record: {out})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
