"""Benchmark: walking accessibility aggregation, otpa's street search vs pandana 0.8.

Usage::

    .venv/bin/python benchmarks/bench_pandana.py [--data DIR] [--graph PATH]
        [--radius 800] [--origins 300]

Both tools work on **the same street edges**: the WALK-permitted directed edges of our built
network (RNV by default, cached as ``results/graphs/analysis_rnv.graph``, shared with
``bench_analysis.py``; ``--graph`` for another saved network), weighted by their length in
metres.  The opportunities are the network's transit stops (1 each, at their linked street
vertex) and a seeded random "jobs" count on 10 % of the vertices.  Measured in one run:

* **pandana**: ``Network`` construction (contraction hierarchy), ``precompute(radius)``, and
  ``aggregate`` (``count`` of stops and ``sum`` of jobs within ``--radius`` metres, flat decay)
  for every vertex at once (pandana's own model: all nodes, OpenMP threads);
* **otpa**: ``otpa.street.one_to_many`` (WALK, the same lengths as costs, cut at the radius)
  from ``--origins`` random vertices, then the same count and sum over the reached vertices;
  one thread.

Reported: seconds per origin (pandana: aggregate time / vertices), the ratio ours / pandana,
the whole-network estimate (ours per origin x vertices vs pandana's setup + aggregate), and
the agreement of the counts and sums on the sampled origins (equal up to edges whose
distance ties the radius within float rounding).  Writes ``results/pandana.json``.
pandana is only a benchmark peer: ``otpa/`` never imports it.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_analysis import cached_network  # noqa: E402
from otpa.network import TransportNetwork  # noqa: E402
from otpa.street import mode_bit, one_to_many  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"


def _network(data: Path, graph: Path | None) -> TransportNetwork:
    if graph is not None:
        return TransportNetwork.load(graph)
    return cached_network(data, "rnv")  # the graph bench_analysis builds and keeps


def _opportunities(net: TransportNetwork, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """Stops per vertex and jobs per vertex (float arrays over the street vertices)."""
    n = net.street.vertex_lat.size
    sv = np.asarray(net.stop_vertex)
    sv = sv[sv >= 0]
    stops = np.bincount(sv, minlength=n).astype(np.float64)
    jobs = np.where(rng.random(n) < 0.1, rng.integers(1, 200, n), 0).astype(np.float64)
    return stops, jobs


def _pandana(g: Any, walk: np.ndarray, stops: np.ndarray, jobs: np.ndarray,
             radius: float) -> dict[str, Any]:  # fmt: skip
    import pandana

    n = g.vertex_lat.size
    nodes = pd.DataFrame({"x": g.vertex_lon, "y": g.vertex_lat}, index=np.arange(n))
    edges = pd.DataFrame({"from": g.edge_from[walk].astype(np.int64),
                          "to": g.edge_to[walk].astype(np.int64),
                          "length": g.edge_length_m[walk].astype(np.float64)})  # fmt: skip
    quiet = io.StringIO()
    out: dict[str, Any] = {"version": getattr(pandana, "__version__", "0.8")}
    with contextlib.redirect_stdout(quiet):
        t = time.perf_counter()
        pnet = pandana.Network(nodes.x, nodes.y, edges["from"], edges["to"], edges[["length"]],
                               twoway=False)  # fmt: skip
        out["network_s"] = time.perf_counter() - t
        t = time.perf_counter()
        pnet.precompute(radius)
        out["precompute_s"] = time.perf_counter() - t
        has_stop = np.flatnonzero(stops > 0)
        has_job = np.flatnonzero(jobs > 0)
        pnet.set(pd.Series(has_stop), variable=pd.Series(stops[has_stop]), name="stops")
        pnet.set(pd.Series(has_job), variable=pd.Series(jobs[has_job]), name="jobs")
        t = time.perf_counter()
        count = pnet.aggregate(radius, type="sum", decay="flat", name="stops")
        total = pnet.aggregate(radius, type="sum", decay="flat", name="jobs")
        out["aggregate_s"] = time.perf_counter() - t
    out["per_origin_s"] = out["aggregate_s"] / n
    out["whole_network_s"] = out["network_s"] + out["precompute_s"] + out["aggregate_s"]
    out["_stops"] = count.reindex(np.arange(n)).to_numpy()
    out["_jobs"] = total.reindex(np.arange(n)).to_numpy()
    return out


def _ours(g: Any, walk: np.ndarray, stops: np.ndarray, jobs: np.ndarray, radius: float,
          origins: np.ndarray) -> dict[str, Any]:  # fmt: skip
    cost = np.where(walk, g.edge_length_m, np.inf).astype(np.float64)
    one_to_many(g, [int(origins[0])], mode="WALK", edge_cost_s=cost, max_cost_s=radius,
                turn_restrictions=False)  # warm-up (numba)  # fmt: skip
    counts, sums, times = [], [], []
    for v in origins:
        t = time.perf_counter()
        res = one_to_many(g, [int(v)], mode="WALK", edge_cost_s=cost, max_cost_s=radius,
                          turn_restrictions=False)  # fmt: skip
        reached = np.asarray(res.cost_s) <= radius
        counts.append(float(stops[reached].sum()))
        sums.append(float(jobs[reached].sum()))
        times.append(time.perf_counter() - t)
    a = np.asarray(times)
    return {"per_origin_s": float(np.median(a)), "p95_s": float(np.percentile(a, 95)),
            "_stops": np.asarray(counts), "_jobs": np.asarray(sums)}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default_data = Path(os.environ.get("OTPA_DATA", ROOT.parent / "shared" / "data"))
    ap.add_argument("--data", type=Path, default=default_data)
    ap.add_argument("--graph", type=Path, default=None)
    ap.add_argument("--radius", type=float, default=800.0)
    ap.add_argument("--origins", type=int, default=300)
    args = ap.parse_args()
    record: dict[str, Any] = {"machine": platform.node(), "cpus": os.cpu_count(),
                              "load_start": os.getloadavg(), "radius_m": args.radius}  # fmt: skip
    net = _network(args.data, args.graph)
    g = net.street
    rng = np.random.default_rng(42)
    walk = (np.asarray(g.edge_perm) & mode_bit("WALK")) != 0
    stops, jobs = _opportunities(net, rng)
    n = int(g.vertex_lat.size)
    record["network"] = {"vertices": n, "walk_edges": int(walk.sum()),
                         "stops_linked": int(stops.sum()), "jobs": int(jobs.sum())}  # fmt: skip
    origins = rng.choice(n, args.origins, replace=False)
    ours = _ours(g, walk, stops, jobs, args.radius, origins)
    theirs = _pandana(g, walk, stops, jobs, args.radius)
    p_stops, p_jobs = theirs.pop("_stops")[origins], theirs.pop("_jobs")[origins]
    o_stops, o_jobs = ours.pop("_stops"), ours.pop("_jobs")
    ours["whole_network_estimate_s"] = ours["per_origin_s"] * n
    record["otpa"] = ours
    record["pandana"] = theirs
    record["ratio_per_origin_ours_vs_pandana"] = ours["per_origin_s"] / theirs["per_origin_s"]
    record["ratio_whole_network_ours_vs_pandana"] = (
        ours["whole_network_estimate_s"] / theirs["whole_network_s"]
    )
    record["agreement"] = {
        "origins": len(origins),
        "stop_counts_equal": int(np.sum(np.abs(o_stops - p_stops) < 0.5)),
        "job_sums_equal": int(np.sum(np.abs(o_jobs - p_jobs) < 0.5)),
        "max_stop_count_diff": float(np.max(np.abs(o_stops - p_stops))),
        "max_job_sum_rel_diff": float(np.max(np.abs(o_jobs - p_jobs) / np.maximum(p_jobs, 1))),
        "mean_stops_within_radius": float(o_stops.mean()),
    }
    record["load_end"] = os.getloadavg()
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "pandana.json").write_text(json.dumps(record, indent=2))
    print(json.dumps(record, indent=2))


if __name__ == "__main__":
    main()
