"""Benchmark: travel-time matrices on a dask.distributed cluster of worker processes.

Usage::

    .venv/bin/python benchmarks/bench_scale.py [--data DIR] [--origins 48] [--chunks 6]

What it measures, in one run (Porto Alegre, hexgrid destinations, 60-minute window):

* the same matrix rows on a ``LocalCluster`` of 1 and of 2 single-threaded worker
  processes (each opens the saved graph once, warmed off the clock): wall time, efficiency
  ``t1 / (2 * t2)``; the baseline is the 1-worker run of the same code;
* the per-task overhead: the 1-worker run with one origin per task against the same
  run with ``--chunks`` origins per task, per extra task;
* CPU seconds per origin in this process (no dask), for reference;
* the workers' own CPU seconds during each timed run (``resource.getrusage`` in every
  worker, before and after): on a shared machine the wall-time efficiency measures the
  other jobs as much as dask, while ``cpu_1 / cpu_2`` (the work the same matrix costs on
  1 and on 2 workers) and ``t1 / (2 * t2)`` taken together tell overhead from contention.

Results are exact copies of each other (checked).  Prints the efficiencies and writes
``benchmarks/results/scale.json``.  On an idle machine run it as is (about a minute);
``--origins 96`` gives steadier numbers.  The cost curves against network size are in
``benchmarks/bench_scale_curves.py``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_analysis import cached_network  # noqa: E402
from otpa.analysis import PointSet  # noqa: E402
from otpa.analysis.matrix import travel_time_matrix  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
DEPARTURE = dt.datetime(2019, 5, 13, 14, 0)


def _worker_cpu_s() -> float:
    """CPU seconds (user + system) of the calling process: run on each worker."""
    import resource

    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def _on_cluster(net: str, origins: PointSet, dest: PointSet, workers: int,
                chunks: int) -> tuple[float, float, np.ndarray]:  # fmt: skip
    """Wall seconds, the workers' CPU seconds and the result of one timed matrix."""
    from distributed import Client, LocalCluster

    with (
        LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                     dashboard_address=None) as cluster,  # fmt: skip
        Client(cluster) as client,
    ):
        lazy = travel_time_matrix(net, origins, dest,
                                  departure=DEPARTURE, window=3600, chunks=chunks)  # fmt: skip
        # warm every worker (numba caches, the network, destination links) off the clock:
        # one task pinned to each, else both may land on one and the other links the
        # destinations on the clock
        warm = travel_time_matrix(net, origins, dest, departure=DEPARTURE, window=3600,
                                  chunks=1)  # fmt: skip
        addresses = sorted(client.scheduler_info()["workers"])
        client.gather([client.compute(warm.data[i : i + 1], workers=[a],
                                      allow_other_workers=False)
                       for i, a in enumerate(addresses)])  # fmt: skip
        cpu0 = client.run(_worker_cpu_s)
        t = time.perf_counter()
        arr = lazy.compute().to_numpy()
        wall = time.perf_counter() - t
        cpu1 = client.run(_worker_cpu_s)
        return wall, sum(cpu1[w] - cpu0[w] for w in cpu1), arr


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default_data = Path(os.environ.get("OTPA_DATA", ROOT.parent / "shared" / "data"))
    ap.add_argument("--data", type=Path, default=default_data)
    ap.add_argument("--origins", type=int, default=48)
    ap.add_argument("--chunks", type=int, default=6)
    args = ap.parse_args()
    net = cached_network(args.data, "porto-alegre")
    # the cluster runs pass the saved graph's path: each worker opens it once per process
    # and keeps it (and its destination links) from the warm-up to the timed run; a
    # network object would be shipped and linked again by every ``compute``
    graph = str(RESULTS / "graphs" / "analysis_porto-alegre.graph")
    hexgrid = PointSet.from_csv(args.data / "small" / "porto-alegre" / "poa_hexgrid.csv")
    rng = np.random.default_rng(7)
    pick = np.sort(rng.choice(len(hexgrid), args.origins, replace=False))
    origins = PointSet(ids=hexgrid.ids[pick], lat=hexgrid.lat[pick], lon=hexgrid.lon[pick])
    record: dict[str, object] = {"machine": platform.node(), "cpus": os.cpu_count(),
                                 "load_start": os.getloadavg(), "n_origins": len(origins),
                                 "n_destinations": len(hexgrid), "chunks": args.chunks}  # fmt: skip
    t = time.process_time()
    ref = travel_time_matrix(net, origins, hexgrid, departure=DEPARTURE, window=3600,
                             n_threads=1).to_numpy()  # fmt: skip
    record["in_process_cpu_s_per_origin"] = (time.process_time() - t) / len(origins)
    t1, c1, a1 = _on_cluster(graph, origins, hexgrid, 1, args.chunks)
    t2, c2, a2 = _on_cluster(graph, origins, hexgrid, 2, args.chunks)
    t1_fine, c1_fine, a3 = _on_cluster(graph, origins, hexgrid, 1, 1)
    for a in (a1, a2, a3):
        if a.tobytes() != ref.tobytes():
            raise SystemExit("cluster result differs from the in-process matrix")
    n_tasks = -(-len(origins) // args.chunks)
    record.update({
        "wall_1_worker_s": t1, "wall_2_workers_s": t2, "efficiency_2_workers": t1 / (2 * t2),
        "workers_cpu_1_worker_s": c1, "workers_cpu_2_workers_s": c2,
        "cpu_efficiency_2_workers": c1 / c2,
        "wall_1_worker_1_origin_per_task_s": t1_fine, "workers_cpu_1_origin_per_task_s": c1_fine,
        "per_task_overhead_ms": (t1_fine - t1) / (len(origins) - n_tasks) * 1000,
        "per_task_overhead_cpu_ms": (c1_fine - c1) / (len(origins) - n_tasks) * 1000,
        "load_end": os.getloadavg(),
    })  # fmt: skip
    print(json.dumps(record, indent=2))
    print(f"efficiency, 2 vs 1 worker processes: wall {record['efficiency_2_workers']:.2f} "
          f"(t1 {t1:.2f} s, t2 {t2:.2f} s), CPU-normalised {c1 / c2:.2f} "
          f"(workers' CPU {c1:.2f} s vs {c2:.2f} s); per-task overhead "
          f"{record['per_task_overhead_ms']:.1f} ms wall, "
          f"{record['per_task_overhead_cpu_ms']:.1f} ms CPU; load average "
          f"{record['load_start'][0]:.1f} -> {record['load_end'][0]:.1f}")  # fmt: skip
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "scale.json").write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()
