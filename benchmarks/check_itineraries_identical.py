"""Exactness and CPU check for trip-planning speed work: old code against new, same run.

Usage::

    .venv/bin/python benchmarks/check_itineraries_identical.py --old /work/main --graph rnv=GRAPH \\
        [--graph x16=GRAPH ...] [--pairs 100] [--rounds 2] [--out FILE]

Each ``--graph NAME=PATH`` is a saved graph: ``rnv`` gets the WALK,TRANSIT pairs of
``bench_plan.py`` (seed 42, random vertices of the largest walkable component, the
busiest weekday of the feed at 08:00); any other name is a synthetic region of
:func:`otpa.testing.scale.generate_scale_city` whose ``input/scale-city.json`` stamp
lies beside the graph (``bench_scale_curves.py``), with its town pairs (a random point
in a town and one in the same or a neighbouring town, the sample Wednesday at 08:00).

Both trees plan the same requests in fresh interpreters (``PYTHONPATH`` = the tree,
so each imports its own ``otpa``), ``--rounds`` times each, alternating old and new.
Every plan's itineraries are compared by their ``repr`` (every field of every leg,
the generalized cost included; errors by type and message): any difference is
printed and makes the exit status 1.  CPU time (``time.process_time``) is measured
per plan and, separately, for the transit search (``_transit_plan._search_journeys``,
the McRAPTOR searches of a plan); the per-request minimum over the rounds gives the
p50/mean, and the new/old ratios of the same run are the numbers to report (the
machine is shared: wall times are noise).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

#: Runs in a fresh interpreter with PYTHONPATH set to one tree: plans the requests of
#: argv[2] (JSON) on the graph argv[1], writes reprs and CPU times to argv[3].
_WORKER = r"""
import datetime as dt, hashlib, json, sys, time
from dataclasses import replace
import otpa
from otpa.network import TransportNetwork
from otpa.routing import Location, PlanRequest
from otpa.routing import _transit_plan
from otpa.routing.errors import PlanningError
from otpa.routing.planner import plan
from otpa.routing.preferences import ItineraryPreferences

net = TransportNetwork.load(sys.argv[1])
spec = json.loads(open(sys.argv[2]).read())
when = dt.datetime.fromisoformat(spec["when"])
reqs = [
    PlanRequest(from_place=Location(lat=a[0], lon=a[1]), to_place=Location(lat=b[0], lon=b[1]),
                date_time=when, itineraries=replace(ItineraryPreferences(), num_itineraries=3))
    for a, b in spec["pairs"]
]
search_cpu = [0.0]
inner = _transit_plan._search_journeys
def timed(*args, **kwargs):
    t = time.process_time()
    try:
        return inner(*args, **kwargs)
    finally:
        search_cpu[0] += time.process_time() - t
_transit_plan._search_journeys = timed

def one(req):
    try:
        return repr(plan(net, req).itineraries)
    except PlanningError as exc:
        return f"{type(exc).__name__}: {exc}"

for req in reqs[: spec["warmup"]]:
    one(req)
import threading  # background builds the warm-up started (street landmarks): not timed
for th in threading.enumerate():
    if th.name.startswith("otpa-landmarks"):
        th.join()
texts, cpu, search = [], [], []
for req in reqs:
    search_cpu[0] = 0.0
    t = time.process_time()
    texts.append(one(req))
    cpu.append(time.process_time() - t)
    search.append(search_cpu[0])
json.dump({"otpa": otpa.__file__, "texts": texts, "cpu": cpu, "search": search},
          open(sys.argv[3], "w"))
"""


def _rnv_pairs(graph: Path, n: int) -> tuple[list[Any], str]:
    sys.path.insert(0, str(HERE))
    from _baselines import pyraptor_adapter
    from bench_plan import largest_component, random_pairs

    from otpa.network import TransportNetwork

    net = TransportNetwork.load(graph)
    assert net.street is not None
    rng = np.random.default_rng(42)
    pairs = random_pairs(net.street, largest_component(net.street, "WALK"), n, rng)
    lat, lon = np.asarray(net.street.vertex_lat), np.asarray(net.street.vertex_lon)
    zips = sorted((ROOT.parent / "shared" / "data" / "small" / "rnv").glob("*.zip"))
    env_data = os.environ.get("OTPA_DATA")
    if env_data:
        zips = sorted((Path(env_data) / "small" / "rnv").glob("*.zip"))
    day = pyraptor_adapter.busiest_weekday(zips[0])
    date = dt.date.fromisoformat(day if "-" in day else f"{day[:4]}-{day[4:6]}-{day[6:]}")
    out = [
        [[float(lat[a]), float(lon[a])], [float(lat[b]), float(lon[b])]] for a, b in pairs
    ]
    return out, dt.datetime.combine(date, dt.time(8, 0)).isoformat()


def _scale_pairs(graph: Path, n: int) -> tuple[list[Any], str]:
    sys.path.insert(0, str(HERE))
    from bench_scale_curves import _town_points

    from otpa.testing.scale import ScaleCity

    stamp = json.loads((graph.parent / "input" / "scale-city.json").read_text())
    fields = stamp["city"]
    for key in ("directory", "osm_path", "gtfs_path"):
        fields[key] = Path(fields[key])
    fields["towns"] = tuple(tuple(t) for t in fields["towns"])
    fields["stations"] = tuple(fields["stations"])
    fields["sample_date"] = dt.date.fromisoformat(fields["sample_date"])
    city = ScaleCity(**fields)
    src, dst = _town_points(city, n, np.random.default_rng(42), near=True)
    pairs = [
        [[float(a[0]), float(a[1])], [float(b[0]), float(b[1])]]
        for a, b in zip(src, dst, strict=True)
    ]
    return pairs, dt.datetime.combine(city.sample_date, dt.time(8, 0)).isoformat()


def _run(tree: Path, graph: Path, spec: Path, out: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    cmd = [sys.executable, "-c", _WORKER, str(graph), str(spec), str(out)]
    subprocess.run(cmd, env=env, cwd=tree, check=True)
    result: dict[str, Any] = json.loads(out.read_text())
    if not result["otpa"].startswith(str(tree)):
        msg = f"{tree}: imported {result['otpa']}"
        raise RuntimeError(msg)
    return result


def _stats(per_plan: np.ndarray) -> dict[str, float]:
    ms = per_plan * 1000.0
    return {"p50_ms": float(np.median(ms)), "p95_ms": float(np.percentile(ms, 95)),
            "mean_ms": float(ms.mean())}  # fmt: skip


def check(name: str, graph: Path, old: Path, new: Path, n: int, rounds: int,
          warmup: int) -> dict[str, Any]:  # fmt: skip
    """Plan ``n`` pairs on ``graph`` with both trees; differences and CPU statistics."""
    pairs, when = (_rnv_pairs if name == "rnv" else _scale_pairs)(graph, n)
    runs: dict[str, list[dict[str, Any]]] = {"old": [], "new": []}
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "spec.json"
        spec.write_text(json.dumps({"pairs": pairs, "when": when, "warmup": warmup}))
        for r in range(rounds):
            for label, tree in (("old", old), ("new", new)):
                res = _run(tree, graph, spec, Path(tmp) / f"{label}{r}.json")
                runs[label].append(res)
                print(f"{name} {label} round {r}: {1000 * float(np.median(res['cpu'])):.2f} ms "
                      f"plan p50 CPU", flush=True)  # fmt: skip
    texts = {k: v[0]["texts"] for k, v in runs.items()}
    diffs = [i for i, (a, b) in enumerate(zip(texts["old"], texts["new"], strict=True)) if a != b]
    for k, v in runs.items():  # a tree must also agree with itself
        for other in v[1:]:
            if other["texts"] != texts[k]:
                diffs.append(-1)
    record: dict[str, Any] = {"pairs": n, "rounds": rounds, "differences": diffs,
                              "with_transit": sum("TransitLeg" in t or "route_id" in t
                                                  for t in texts["new"])}  # fmt: skip
    for part in ("cpu", "search"):
        for k, v in runs.items():
            per = np.min(np.asarray([x[part] for x in v]), axis=0)
            record[f"{k}_{part}"] = _stats(per)
        record[f"{part}_ratio_p50"] = (
            record[f"new_{part}"]["p50_ms"] / record[f"old_{part}"]["p50_ms"]
        )
        record[f"{part}_ratio_mean"] = (
            record[f"new_{part}"]["mean_ms"] / record[f"old_{part}"]["mean_ms"]
        )
    return record


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", type=Path, required=True, help="tree with the reference code")
    ap.add_argument("--new", type=Path, default=ROOT, help="tree under test (this one)")
    ap.add_argument("--graph", action="append", required=True, help="NAME=PATH (rnv or xN)")
    ap.add_argument("--pairs", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    records: dict[str, Any] = {"load": os.getloadavg()}
    bad = 0
    for item in args.graph:
        name, path = item.split("=", 1)
        rec = check(name, Path(path), args.old.resolve(), args.new.resolve(), args.pairs,
                    args.rounds, args.warmup)  # fmt: skip
        records[name] = rec
        bad += len(rec["differences"])
        print(f"{name}: {rec['pairs']} plans, {len(rec['differences'])} differences "
              f"{rec['differences'][:10]}", flush=True)  # fmt: skip
        for part in ("cpu", "search"):
            o, w = rec[f"old_{part}"], rec[f"new_{part}"]
            print(f"  {part:6s} p50 {o['p50_ms']:.2f} -> {w['p50_ms']:.2f} ms "
                  f"(x{rec[f'{part}_ratio_p50']:.3f}), mean {o['mean_ms']:.2f} -> "
                  f"{w['mean_ms']:.2f} ms (x{rec[f'{part}_ratio_mean']:.3f})")  # fmt: skip
    if args.out:
        args.out.write_text(json.dumps(records, indent=1))
    print("IDENTICAL" if not bad else f"{bad} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
