"""Benchmark: time surfaces and travel-time matrices (Porto Alegre, RNV).

Usage::

    .venv/bin/python benchmarks/bench_analysis.py [--data DIR] [--origins 30]
        [--skip matrix] [--matrix-window 3600] [--chunks 64]

What it measures, in one run:

* Single-origin time surfaces (WALK,TRANSIT, 120 min limit) on Porto Alegre (its hexgrid and
  a 200 m grid over the network) and RNV (a 200 m grid): p50/p95 after a warm-up over
  ``--origins`` random origins, for one departure and for a 60-minute window at one-minute
  steps.  Baseline in the same run: the window computed as 60 independent single-departure
  surfaces (what a tool without range RAPTOR does); ratio = ours / baseline.
* The full Porto Alegre hexgrid matrix (1,227 x 1,227) with a 60-minute window, chunked
  with dask (``--chunks`` origins per task, the threaded scheduler on every core): wall
  time, origins per second, peak RSS; ``wall_s`` is the first matrix (it links the stops'
  egress table for the hexgrid), ``wall_linked_s`` a second one with that table cached
  (the search and propagation alone; both results must be equal).  For the record: r5r
  reports 128.5 s on 10 threads for this matrix (``test_full_poa.R``).

Writes ``benchmarks/results/analysis.json``.
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
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from otpa.analysis import AnalysisRequest, Grid, PointSet  # noqa: E402
from otpa.analysis._engine import origin_times, prepare  # noqa: E402
from otpa.analysis.matrix import travel_time_matrix  # noqa: E402
from otpa.network import TransportNetwork, build_network  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
SETS = {
    "porto-alegre": ("small/porto-alegre", dt.datetime(2019, 5, 13, 14, 0)),
    "rnv": ("small/rnv", dt.datetime(2016, 11, 3, 8, 0)),
}


def cached_network(data: Path, name: str) -> TransportNetwork:
    """The network of data set ``name`` (a key of ``SETS``), built once into ``results/graphs``."""
    cached = RESULTS / "graphs" / f"analysis_{name}.graph"
    if cached.exists():
        return TransportNetwork.load(cached)
    net = build_network(data / SETS[name][0])
    cached.parent.mkdir(parents=True, exist_ok=True)
    net.save(cached)
    return net


def _stats(values: list[float]) -> dict[str, float]:
    a = np.asarray(values) * 1000.0
    return {"p50_ms": float(np.median(a)), "p95_ms": float(np.percentile(a, 95)),
            "mean_ms": float(a.mean()), "n": len(values)}  # fmt: skip


def _surfaces(net: TransportNetwork, target_name: str, lat: np.ndarray, lon: np.ndarray,
              origins: np.ndarray, departure: dt.datetime) -> dict[str, object]:  # fmt: skip
    out: dict[str, object] = {"targets": target_name, "n_targets": int(lat.shape[0])}
    single = AnalysisRequest(departure=departure)
    window = single.replace(window_s=3600)
    t = time.perf_counter()
    prep1 = prepare(net, single, lat, lon)
    out["link_s"] = time.perf_counter() - t
    prep60 = prepare(net, window, lat, lon)
    for prep in (prep1, prep60):  # warm-up (numba, caches)
        origin_times(prep, float(origins[0, 0]), float(origins[0, 1]))
    times1, times60, naive = [], [], []
    for i, (o_lat, o_lon) in enumerate(origins[1:]):
        t = time.perf_counter()
        origin_times(prep1, float(o_lat), float(o_lon))
        times1.append(time.perf_counter() - t)
        t = time.perf_counter()
        origin_times(prep60, float(o_lat), float(o_lon))
        times60.append(time.perf_counter() - t)
        if i < 5:  # the baseline is 60x slower: a few origins suffice
            t = time.perf_counter()
            for k in range(60):
                one = prepare(net, single.replace(departure=departure + dt.timedelta(minutes=k)),
                              lat, lon)  # fmt: skip
                origin_times(one, float(o_lat), float(o_lon))
            naive.append(time.perf_counter() - t)
    out["single_departure"] = _stats(times1)
    out["window_60min"] = _stats(times60)
    out["baseline_60_single_searches"] = _stats(naive)
    out["ratio_window_vs_baseline"] = float(np.median(times60[:5]) / np.median(naive))
    out["n_links"] = prep1.links.egress.n_links
    return out


def _matrix(net: TransportNetwork, points: PointSet, departure: dt.datetime, window: int,
            chunks: int) -> dict[str, object]:  # fmt: skip
    import threading

    import dask

    proc = psutil.Process()
    rss0 = proc.memory_info().rss
    peak = [rss0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.2):
            peak.append(proc.memory_info().rss)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    t = time.perf_counter()
    ttm = travel_time_matrix(net, points, departure=departure, window=window, chunks=chunks)
    with dask.config.set(scheduler="threads", num_workers=os.cpu_count()):
        arr = ttm.compute().to_numpy()
    wall = time.perf_counter() - t
    # A second matrix over the same points: the stops' egress table is linked and cached by
    # now, so this is the search and propagation alone (since session 8 the surfaces above
    # link only the stops they reach, so the first call links the whole table on the clock).
    t = time.perf_counter()
    ttm = travel_time_matrix(net, points, departure=departure, window=window, chunks=chunks)
    with dask.config.set(scheduler="threads", num_workers=os.cpu_count()):
        again = ttm.compute().to_numpy()
    wall_linked = time.perf_counter() - t
    done.set()
    sampler.join()
    if not np.array_equal(arr, again, equal_nan=True):
        raise AssertionError("the second matrix differs from the first")
    return {"n_origins": len(points), "window_s": window, "chunks": chunks, "wall_s": wall,
            "wall_linked_s": wall_linked, "origins_per_s_linked": len(points) / wall_linked,
            "origins_per_s": len(points) / wall, "reached_share": float(np.isfinite(arr).mean()),
            "median_s": float(np.nanmedian(arr)), "rss_growth_mb": (max(peak) - rss0) / 1e6,
            "r5r_reference_s": 128.5}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default_data = Path(os.environ.get("OTPA_DATA", ROOT.parent / "shared" / "data"))
    ap.add_argument("--data", type=Path, default=default_data)
    ap.add_argument("--origins", type=int, default=30)
    ap.add_argument("--skip", default="")
    ap.add_argument("--matrix-window", type=int, default=3600)
    ap.add_argument("--chunks", type=int, default=64)
    args = ap.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    rng = np.random.default_rng(42)
    record: dict[str, object] = {"machine": platform.node(), "cpus": os.cpu_count(),
                                 "load_start": os.getloadavg()}  # fmt: skip
    hexgrid = PointSet.from_csv(args.data / "small" / "porto-alegre" / "poa_hexgrid.csv")
    for name in ("porto-alegre", "rnv"):
        if name in skip:
            continue
        net = cached_network(args.data, name)
        departure = SETS[name][1]
        if name == "porto-alegre":
            pick = rng.choice(len(hexgrid), args.origins + 1, replace=False)
            origins = np.column_stack([hexgrid.lat[pick], hexgrid.lon[pick]])
            record[f"{name}/hexgrid"] = _surfaces(net, "hexgrid", hexgrid.lat, hexgrid.lon,
                                                  origins, departure)  # fmt: skip
        else:
            stops = net.transit.stops
            pick = rng.choice(len(stops), args.origins + 1, replace=False)
            origins = np.column_stack([stops.lat.to_numpy()[pick], stops.lon.to_numpy()[pick]])
        grid = Grid.for_network(net, cell_size_m=200.0)
        g_lat, g_lon = grid.points()
        record[f"{name}/grid200"] = _surfaces(net, f"grid {grid.shape}", g_lat, g_lon, origins,
                                              departure)  # fmt: skip
        if name == "porto-alegre" and "matrix" not in skip:
            record["porto-alegre/matrix"] = _matrix(net, hexgrid, departure, args.matrix_window,
                                                    args.chunks)  # fmt: skip
    record["load_end"] = os.getloadavg()
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "analysis.json").write_text(json.dumps(record, indent=2, default=str))
    print(json.dumps(record, indent=2, default=str))


if __name__ == "__main__":
    main()
