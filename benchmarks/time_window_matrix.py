"""Time the full Porto Alegre hexgrid matrix with a 60-minute window, first and again.

Usage::

    .venv/bin/python benchmarks/time_window_matrix.py [--data DIR] [--runs 2] [--chunks 64]

One process computes ``--runs`` matrices (1,227 × 1,227 hexagons, WALK,TRANSIT, 2019-05-13
14:00, ``window=3600``, dask's threaded scheduler on every core) and prints, for each, the
wall time, the process's CPU seconds, the load average and the first 16 hex digits of the
SHA-256 of the matrix's bytes.  The first matrix links the destinations (and loads the
numba kernels from their on-disk cache); later ones reuse the linked table, so the first
is what a user sees in a new process and the rest the search and propagation alone.
Identity checks compare the SHA between trees (run a tree with ``PYTHONPATH=<tree>``);
speed comparisons alternate trees in one window (see ``docs/performance.md``).  The
network is built once into ``results/graphs`` (shared with ``bench_analysis.py``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import os
import sys
import time
from pathlib import Path

import dask

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_analysis import cached_network  # noqa: E402

from otpa.analysis import PointSet  # noqa: E402
from otpa.analysis.matrix import travel_time_matrix  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default_data = Path(os.environ.get("OTPA_DATA", HERE.parent.parent / "shared" / "data"))
    ap.add_argument("--data", type=Path, default=default_data)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--chunks", type=int, default=64)
    args = ap.parse_args()
    net = cached_network(args.data, "porto-alegre")
    points = PointSet.from_csv(args.data / "small" / "porto-alegre" / "poa_hexgrid.csv")
    departure = dt.datetime(2019, 5, 13, 14, 0)
    for k in range(args.runs):
        wall, cpu = time.perf_counter(), time.process_time()
        ttm = travel_time_matrix(net, points, departure=departure, window=3600, chunks=args.chunks)
        with dask.config.set(scheduler="threads", num_workers=os.cpu_count()):
            matrix = ttm.compute().to_numpy()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        sha = hashlib.sha256(matrix.tobytes()).hexdigest()[:16]
        print(f"matrix {k}: wall {wall:.2f} s, CPU {cpu:.1f} s, "
              f"load {os.getloadavg()[0]:.1f}, sha256 {sha}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
