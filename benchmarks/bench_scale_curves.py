"""Benchmark: how each cost grows with network size (synthetic regions, 1x to ~24x RNV).

Usage::

    .venv/bin/python benchmarks/bench_scale_curves.py run --scales 1,4,16,24
    .venv/bin/python benchmarks/bench_scale_curves.py run --scales 24 --skip surface,matrix
    .venv/bin/python benchmarks/bench_scale_curves.py run --scales 16,24 --reuse-build
    .venv/bin/python benchmarks/bench_scale_curves.py run --scales 1,4,16,24 --skip build \
        --work /other/checkout/benchmarks/results/scale_curves   # graphs built elsewhere
    .venv/bin/python benchmarks/bench_scale_curves.py report

``run`` generates each region with :func:`otpa.testing.scale.generate_scale_city` (``scale``
x RNV: 1 ~ 0.41 M stop times, 24 ~ 10 M) into ``benchmarks/results/scale_curves/x<scale>/``
and measures, per size:

* **build**: ``build_network`` + ``save`` in a child process: wall time, the build steps'
  timings, peak RSS (the child's ``VmHWM``; ``os.wait4``'s ``ru_maxrss`` where there is none);
* **graph**: saved-graph size; **load**: ``TransportNetwork.load`` in a fresh child process
  (best of 2, import time excluded);
* **plan** p50/p95 in this process for WALK,TRANSIT (3 itineraries), BICYCLE and CAR, on
  ``--plans`` pairs of random points in a random town and the same or a neighbouring town
  (the same trip mix at every size), departing 08:00 on the sample Wednesday;
* **surface**: single-origin time surface and 60-minute-window surface (WALK,TRANSIT,
  120 min) to a 1 km grid over the whole region, p50 over ``--origins`` town points;
* **matrix**: ``travel_time_matrix`` (one departure) from ``--matrix-origins`` town points
  to the same grid, dask threads on every core: origins per second, per CPU second, and per
  CPU second of the compute alone (without building the dask graph, a per-call cost).

Each size writes ``x<scale>.json``; ``report`` fits, for each cost, the exponent ``k`` of
``cost ~ stop_times^k`` (least squares on log-log) over the sizes present, and writes
``benchmarks/results/scale_curves.json`` and ``scale_curves.md`` (the table that
``docs/performance.md`` quotes) and, with matplotlib, the log-log figures
``docs/img/scale_{build,queries,analysis}.png``.  The machine is shared: each record holds
the load average, and plans, surfaces, linking and the matrix are timed in CPU seconds
(``time.process_time``, all threads) as well as wall seconds; fit exponents on the CPU rows.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import math
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from otpa.network import TransportNetwork  # noqa: E402
from otpa.testing.scale import ScaleCity, generate_scale_city  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
WORK = RESULTS / "scale_curves"
_M_PER_DEG = 111_320.0

#: The child's own peak RSS: ``VmHWM`` of its address space after ``exec``.  The child's
#: ``ru_maxrss`` also counts the parent's RSS at the fork (Linux keeps the pre-exec
#: high-water mark), i.e. a freshly generated region's arrays.
_HWM = """
def hwm():
    try:
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return None
"""
_BUILD = _HWM + """
import json, sys, time
t0 = time.perf_counter()
from otpa.network import build_network
t1, c1 = time.perf_counter(), time.process_time()
net = build_network(sys.argv[1])
t2, c2 = time.perf_counter(), time.process_time()
net.save(sys.argv[2])
t3, c3 = time.perf_counter(), time.process_time()
print(json.dumps({"import_s": t1 - t0, "build_s": t2 - t1, "save_s": t3 - t2,
                  "build_cpu_s": c2 - c1, "save_cpu_s": c3 - c2,
                  "steps_s": net.meta["timings_s"], "counts": net.meta["gtfs_counts"],
                  "street_vertices": int(net.street.vertex_lat.size),
                  "street_edges": int(net.street.edge_from.size), "vm_hwm_mb": hwm()}))
"""
_LOAD = _HWM + """
import json, sys, time
from otpa.network import TransportNetwork
t, c = time.perf_counter(), time.process_time()
net = TransportNetwork.load(sys.argv[1])
s, cpu = time.perf_counter() - t, time.process_time() - c
print(json.dumps({"load_s": s, "load_cpu_s": cpu, "vm_hwm_mb": hwm()}))
"""


def _child(code: str, *args: str) -> tuple[dict[str, Any], float, float]:
    """Run ``code`` in a fresh interpreter: its JSON line, wall seconds, peak RSS (MB)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args], stdout=subprocess.PIPE, env=env, cwd=ROOT
    )
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t
    if proc.returncode:
        msg = f"child failed ({proc.returncode})"
        raise RuntimeError(msg)
    info = json.loads(out.decode().strip().splitlines()[-1])
    rss = info.get("vm_hwm_mb") or usage.ru_maxrss / 1024.0
    return info, wall, rss


def _stats(seconds: list[float]) -> dict[str, float]:
    a = np.asarray(seconds) * 1000.0
    return {"p50_ms": float(np.median(a)), "p95_ms": float(np.percentile(a, 95)), "n": len(a)}


def _town_points(city: ScaleCity, n: int, rng: np.random.Generator,
                 near: bool) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """``n`` random points in random towns, and (``near``) partners in the same or a
    neighbouring town; ``(n, 2)`` lat/lon arrays."""
    towns = np.asarray(city.towns)
    half = city.town_blocks * 100.0 * 0.4
    a = rng.integers(0, len(towns), n)
    if near:
        cols = math.ceil(math.sqrt(len(towns)))
        step = rng.choice([-cols, -1, 0, 1, cols], n)
        b = a + step
        bad = (b < 0) | (b >= len(towns)) | ((np.abs(step) == 1) & (b // cols != a // cols))
        b[bad] = a[bad]
    else:
        b = a

    def jitter(idx: np.ndarray) -> np.ndarray:
        lat0 = towns[idx, 0]
        dx, dy = rng.uniform(-half, half, (2, idx.size))
        lon = towns[idx, 1] + dx / (_M_PER_DEG * np.cos(np.radians(lat0)))
        return np.column_stack([lat0 + dy / _M_PER_DEG, lon])

    return jitter(a), jitter(b)


def _plans(net: TransportNetwork, city: ScaleCity, n: int, rng: np.random.Generator
           ) -> dict[str, Any]:  # fmt: skip
    from otpa.routing import Location, PlanRequest
    from otpa.routing.errors import PlanningError
    from otpa.routing.planner import plan
    from otpa.routing.preferences import ItineraryPreferences
    from otpa.routing.request import RequestModes

    when = dt.datetime.combine(city.sample_date, dt.time(8, 0))
    src, dst = _town_points(city, n + 3, rng, near=True)
    out: dict[str, Any] = {}
    modes = {
        "WALK,TRANSIT": RequestModes(street=frozenset({"WALK"})),
        "BICYCLE": RequestModes(frozenset({"BICYCLE"}), frozenset()),
        "CAR": RequestModes(frozenset({"CAR"}), frozenset()),
    }
    for name, mode in modes.items():
        reqs = [
            PlanRequest(from_place=Location(lat=float(a[0]), lon=float(a[1])),
                        to_place=Location(lat=float(b[0]), lon=float(b[1])), date_time=when,
                        modes=mode, itineraries=ItineraryPreferences(num_itineraries=3))
            for a, b in zip(src, dst, strict=True)
        ]  # fmt: skip
        times, cpus, found, rail = [], [], 0, 0
        for i, req in enumerate(reqs):
            t, c = time.perf_counter(), time.process_time()
            try:
                res = plan(net, req)
            except PlanningError:
                res = None
            dt_s, dc_s = time.perf_counter() - t, time.process_time() - c
            if i < 3:  # warm-up
                continue
            times.append(dt_s)
            cpus.append(dc_s)
            if res is not None and res.itineraries:
                found += 1
                rail += any(leg.mode == "RAIL" for leg in res.itineraries[0].legs)
        out[name] = {**_stats(times), "cpu": _stats(cpus), "found": found,
                     "first_uses_rail": rail}  # fmt: skip
    return out


def _surfaces(net: TransportNetwork, city: ScaleCity, n: int, rng: np.random.Generator,
              skip: set[str], matrix_origins: int) -> dict[str, Any]:  # fmt: skip
    from otpa.analysis import AnalysisRequest, Grid, PointSet
    from otpa.analysis._engine import origin_times, prepare

    when = dt.datetime.combine(city.sample_date, dt.time(8, 0))
    grid = Grid.for_network(net, cell_size_m=1000.0)
    g_lat, g_lon = grid.points()
    out: dict[str, Any] = {"targets": int(g_lat.size)}
    single = AnalysisRequest(departure=when)
    if "surface" not in skip:
        t, c = time.perf_counter(), time.process_time()
        prep1 = prepare(net, single, g_lat, g_lon)
        out["link_targets_s"] = time.perf_counter() - t
        out["link_targets_cpu_s"] = time.process_time() - c  # all threads
        out["egress_links"] = prep1.links.egress.n_links
        prep60 = prepare(net, single.replace(window_s=3600), g_lat, g_lon)
        origins, _ = _town_points(city, n + 1, rng, near=False)
        for prep in (prep1, prep60):
            origin_times(prep, float(origins[0, 0]), float(origins[0, 1]))
        t1, t60, c1, c60 = [], [], [], []
        for o_lat, o_lon in origins[1:]:
            for prep, wall, cpu in ((prep1, t1, c1), (prep60, t60, c60)):
                t, c = time.perf_counter(), time.process_time()
                origin_times(prep, float(o_lat), float(o_lon))
                wall.append(time.perf_counter() - t)
                cpu.append(time.process_time() - c)
        out["surface_single"] = {**_stats(t1), "cpu": _stats(c1)}
        out["surface_window60"] = {**_stats(t60), "cpu": _stats(c60)}
    if "matrix" not in skip:
        import dask

        from otpa.analysis.matrix import travel_time_matrix

        # own generator: the same origins whether or not the surfaces ran first
        origins, _ = _town_points(city, matrix_origins, np.random.default_rng(43), near=False)
        o_ps = PointSet(ids=np.array([f"o{i}" for i in range(len(origins))]),
                        lat=origins[:, 0], lon=origins[:, 1])  # fmt: skip
        d_ps = PointSet.from_grid(grid)
        warm = travel_time_matrix(net, o_ps.subset(["o0"]), d_ps, departure=when)  # numba
        with dask.config.set(scheduler="sync"):
            warm.compute()
        t, c = time.perf_counter(), time.process_time()
        ttm = travel_time_matrix(net, o_ps, d_ps, departure=when,
                                 chunks=max(1, matrix_origins // 4))  # fmt: skip
        graph_cpu = time.process_time() - c  # building the dask graph (wraps the network)
        with dask.config.set(scheduler="threads", num_workers=os.cpu_count()):
            arr = ttm.compute().to_numpy()
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        reached = int(np.isfinite(arr).sum())  # origin-target pairs within the time limit
        out["matrix"] = {"origins": len(o_ps), "destinations": len(d_ps), "wall_s": wall,
                         "cpu_s": cpu, "graph_cpu_s": graph_cpu,
                         "compute_cpu_s": cpu - graph_cpu,
                         "origins_per_s": len(o_ps) / wall,
                         "origins_per_cpu_s": len(o_ps) / cpu,
                         "origins_per_compute_cpu_s": len(o_ps) / (cpu - graph_cpu),
                         "reached_share": reached / arr.size,
                         # per-origin work grows with the targets in reach: normalise by them
                         "compute_cpu_ms_per_1k_reached":
                             1e6 * (cpu - graph_cpu) / max(reached, 1)}  # fmt: skip
    return out


def _generated(folder: Path, scale: float, seed: int, blocks: int) -> tuple[ScaleCity, float]:
    """The region in ``folder``: generated, or reused when its stamp matches the arguments."""
    stamp = folder / "scale-city.json"
    want = {"scale": scale, "seed": seed, "town_blocks": blocks}
    if stamp.is_file():
        saved = json.loads(stamp.read_text())
        if saved["args"] == want:
            fields = saved["city"]
            for key in ("directory", "osm_path", "gtfs_path"):
                fields[key] = Path(fields[key])
            fields["towns"] = tuple(tuple(t) for t in fields["towns"])
            fields["stations"] = tuple(fields["stations"])
            fields["sample_date"] = dt.date.fromisoformat(fields["sample_date"])
            return ScaleCity(**fields), saved["generate_s"]
    t = time.perf_counter()
    city = generate_scale_city(folder, scale=scale, seed=seed, town_blocks=blocks)
    took = time.perf_counter() - t
    stamp.write_text(json.dumps({"args": want, "generate_s": took,
                                 "city": dataclasses.asdict(city)}, default=str))  # fmt: skip
    return city, took


def run_one(scale: float, seed: int, args: argparse.Namespace) -> dict[str, Any]:
    """Generate, build, load and query the ``scale`` region; return its record."""
    skip = set(filter(None, args.skip.split(",")))
    folder = WORK / f"x{scale:g}"
    record: dict[str, Any] = {"scale": scale, "seed": seed, "machine": platform.node(),
                              "cpus": os.cpu_count(), "load_start": os.getloadavg()}  # fmt: skip
    city, record["generate_s"] = _generated(folder / "input", scale, seed, args.town_blocks)
    record["size"] = {"towns": city.n_towns, "stops": city.n_stops, "routes": city.n_routes,
                      "trips": city.n_trips, "stop_times": city.n_stop_times,
                      "osm_nodes": city.n_nodes, "osm_ways": city.n_ways,
                      "input_mb": (city.osm_path.stat().st_size
                                   + city.gtfs_path.stat().st_size) / 1e6}  # fmt: skip
    print(f"x{scale:g}: generated {record['size']} in {record['generate_s']:.1f} s", flush=True)
    graph = folder / "graph"
    if (args.reuse_build or "build" in skip) and graph.is_file():  # measure queries only
        return _queries(scale, city, graph, record, skip, args)
    if "build" in skip:
        msg = f"--skip build: no saved graph at {graph}"
        raise SystemExit(msg)
    info, wall, rss = _child(_BUILD, str(folder / "input"), str(graph))
    record["build"] = {**info, "wall_s": wall, "peak_rss_mb": rss,
                       "load_avg_start": record["load_start"]}  # fmt: skip
    record["graph_mb"] = graph.stat().st_size / 1e6
    print(f"x{scale:g}: built in {wall:.1f} s, peak {rss:.0f} MB, "
          f"graph {record['graph_mb']:.1f} MB", flush=True)  # fmt: skip
    loads = [_child(_LOAD, str(graph)) for _ in range(2)]
    record["load_s"] = min(x[0]["load_s"] for x in loads)
    record["load_cpu_s"] = min(x[0]["load_cpu_s"] for x in loads)
    record["load_peak_rss_mb"] = min(x[2] for x in loads)
    record["build"]["load_avg_end"] = os.getloadavg()
    print(f"x{scale:g}: load {record['load_s']:.2f} s", flush=True)
    return _queries(scale, city, graph, record, skip, args)


def _queries(scale: float, city: ScaleCity, graph: Path, record: dict[str, Any], skip: set[str],
             args: argparse.Namespace) -> dict[str, Any]:  # fmt: skip
    rng = np.random.default_rng(42)
    if {"plan", "surface", "matrix"} <= skip:
        record["load_end"] = os.getloadavg()
        return _save(scale, record)
    net = TransportNetwork.load(graph)
    if "plan" not in skip:
        record["plan"] = _plans(net, city, args.plans, rng)
        print(f"x{scale:g}: plan {json.dumps(record['plan'])}", flush=True)
    if not {"surface", "matrix"} <= skip:
        record["analysis"] = _surfaces(net, city, args.origins, rng, skip, args.matrix_origins)
        print(f"x{scale:g}: analysis {json.dumps(record['analysis'])}", flush=True)
    record["load_end"] = os.getloadavg()
    return _save(scale, record)


def _save(scale: float, record: dict[str, Any]) -> dict[str, Any]:
    path = WORK / f"x{scale:g}.json"
    if path.is_file():  # a partial re-run (--skip) keeps the earlier measurements
        old = json.loads(path.read_text())
        for key in ("plan", "analysis"):  # e.g. --skip surface keeps the surface numbers
            if isinstance(old.get(key), dict) and key in record:
                record[key] = {**old[key], **record[key]}
        record = {**old, **record}
    path.write_text(json.dumps(record, indent=2))
    return record


# ------------------------------------------------------------------------------ report

#: (label, path in the record, unit, plot); costs fitted against stop times.  ``plot``
#: names the figure (``docs/img/scale_<plot>.png``) that shows the cost, "" none.
#: CPU-time rows are the ones to read on a shared machine (wall times carry its load).
COSTS: tuple[tuple[str, tuple[str, ...], str, str], ...] = (
    ("build (in the child)", ("build", "build_s"), "s", ""),
    ("build CPU (in the child)", ("build", "build_cpu_s"), "s", "build"),
    ("build + save, child wall", ("build", "wall_s"), "s", ""),
    ("build peak RSS", ("build", "peak_rss_mb"), "MB", "build"),
    ("saved graph", ("graph_mb",), "MB", "build"),
    ("load", ("load_s",), "s", ""),
    ("load CPU", ("load_cpu_s",), "s", "build"),
    ("load peak RSS", ("load_peak_rss_mb",), "MB", ""),
    ("plan WALK,TRANSIT p50", ("plan", "WALK,TRANSIT", "p50_ms"), "ms", ""),
    ("plan WALK,TRANSIT p95", ("plan", "WALK,TRANSIT", "p95_ms"), "ms", ""),
    ("plan WALK,TRANSIT CPU p50", ("plan", "WALK,TRANSIT", "cpu", "p50_ms"), "ms", "queries"),
    ("plan WALK,TRANSIT CPU p95", ("plan", "WALK,TRANSIT", "cpu", "p95_ms"), "ms", ""),
    ("plan BICYCLE p50", ("plan", "BICYCLE", "p50_ms"), "ms", ""),
    ("plan BICYCLE CPU p50", ("plan", "BICYCLE", "cpu", "p50_ms"), "ms", "queries"),
    ("plan BICYCLE CPU p95", ("plan", "BICYCLE", "cpu", "p95_ms"), "ms", ""),
    ("plan CAR p50", ("plan", "CAR", "p50_ms"), "ms", ""),
    ("plan CAR CPU p50", ("plan", "CAR", "cpu", "p50_ms"), "ms", "queries"),
    ("plan CAR CPU p95", ("plan", "CAR", "cpu", "p95_ms"), "ms", ""),
    ("link grid targets (first prepare), CPU", ("analysis", "link_targets_cpu_s"), "s", "analysis"),
    ("surface, 1 departure p50", ("analysis", "surface_single", "p50_ms"), "ms", ""),
    ("surface, 1 departure CPU p50", ("analysis", "surface_single", "cpu", "p50_ms"), "ms",
     "analysis"),
    ("surface, 60-min window p50", ("analysis", "surface_window60", "p50_ms"), "ms", ""),
    ("surface, 60-min window CPU p50", ("analysis", "surface_window60", "cpu", "p50_ms"), "ms",
     "analysis"),
    ("matrix origins/s (dask threads)", ("analysis", "matrix", "origins_per_s"), "1/s", ""),
    ("matrix origins per CPU s", ("analysis", "matrix", "origins_per_cpu_s"), "1/s", ""),
    ("matrix: dask graph CPU (wrapping the network)", ("analysis", "matrix", "graph_cpu_s"), "s",
     ""),
    ("matrix origins per compute CPU s", ("analysis", "matrix", "origins_per_compute_cpu_s"),
     "1/s", "analysis"),
)


def _get(record: dict[str, Any], path: tuple[str, ...]) -> float | None:
    cur: Any = record
    for key in path:
        if not isinstance(cur, dict) or key not in cur:
            return None
        cur = cur[key]
    return float(cur)


def fit_exponent(x: list[float], y: list[float]) -> float | None:
    """Least-squares slope of ``log y`` on ``log x`` (``None`` with fewer than 2 points)."""
    if len(x) < 2:
        return None
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def report(fit_scales: set[float] | None) -> dict[str, Any]:
    """Fit exponents over the recorded sizes; write the JSON summary and the markdown table."""
    records = sorted((json.loads(p.read_text()) for p in WORK.glob("x*.json")),
                     key=lambda r: r["scale"])  # fmt: skip
    if not records:
        msg = f"no records in {WORK}: run `run` first"
        raise SystemExit(msg)
    scales = [r["scale"] for r in records]
    head = "| cost | " + " | ".join(f"{s:g}x" for s in scales) + " | exponent |"
    lines = [head, "|" + "---|" * (len(scales) + 2)]
    sizes = ["stop times", "stops", "OSM nodes"]
    for label, key in zip(sizes, ("stop_times", "stops", "osm_nodes"), strict=True):
        lines.append(f"| {label} | " + " | ".join(f"{r['size'][key]:,}" for r in records) + " | |")
    fits: dict[str, float | None] = {}
    for label, path, unit, _ in COSTS:
        vals = [_get(r, path) for r in records]
        pts = [(r["size"]["stop_times"], v) for r, v in zip(records, vals, strict=True)
               if v is not None and v > 0 and (fit_scales is None or r["scale"] in fit_scales)]
        k = fit_exponent([p[0] for p in pts], [p[1] for p in pts])
        fits[label] = k
        cells = " | ".join("" if v is None else f"{v:,.3g}" for v in vals)
        lines.append(f"| {label} ({unit}) | {cells} | {'' if k is None else f'{k:.2f}'} |")
    def span(rec: dict[str, Any], start: str, end: str) -> str:
        return f"{rec[start][0]:.1f}-{rec[end][0]:.1f}" if start in rec and end in rec else ""

    loads = " | ".join(span(r.get("build", {}), "load_avg_start", "load_avg_end") for r in records)
    lines.append(f"| load average (1 min), build + load run | {loads} | |")
    loads = " | ".join(span(r, "load_start", "load_end") for r in records)
    lines.append(f"| load average (1 min), last query run | {loads} | |")
    summary = {"records": records, "exponents_vs_stop_times": fits,
               "fit_scales": sorted(fit_scales) if fit_scales else scales}  # fmt: skip
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "scale_curves.json").write_text(json.dumps(summary, indent=2))
    (RESULTS / "scale_curves.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    _plot(records, fits)
    return summary


#: Figure titles of the plot groups of :data:`COSTS`.
PLOTS = {
    "build": "Build, graph and load (CPU time, memory, size)",
    "queries": "Plan, CPU time p50 per request (same local trip mix at every size)",
    "analysis": "Analysis: linking a 1 km grid, surfaces per origin, matrix throughput",
}


def _plot(records: list[dict[str, Any]], fits: dict[str, float | None]) -> None:
    """One log-log figure per group: each cost relative to its smallest size, with its
    fitted exponent, and the linear reference (``k = 1``)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    except ImportError:
        print("(matplotlib not installed: no plots; `pip install .[benchmarks]`)")
        return
    out = ROOT / "docs" / "img"
    out.mkdir(parents=True, exist_ok=True)
    for group, title in PLOTS.items():
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        x_all: list[float] = []
        for label, path, unit, plot in COSTS:
            if plot != group:
                continue
            pts = [(r["size"]["stop_times"], v) for r in records
                   if (v := _get(r, path)) is not None and v > 0]  # fmt: skip
            if len(pts) < 2:
                continue
            x = np.array([p[0] for p in pts], dtype=float)
            y = np.array([p[1] for p in pts], dtype=float)
            x_all.extend(x)
            k = fits.get(label)
            name = f"{label} [{unit}], k = {k:.2f}" if k is not None else label
            ax.loglog(x, y / y[0], "o-", label=name)
        if not x_all:
            plt.close(fig)
            continue
        lo, hi = min(x_all), max(x_all)
        ax.loglog([lo, hi], [1.0, hi / lo], "k--", lw=0.8, label="linear (k = 1)")
        ax.set_xlabel("stop times (synthetic regions 1x, 4x, 16x, 24x RNV)")
        ax.set_ylabel("cost relative to the smallest size")
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_title(title, fontsize=9)
        ax.grid(True, which="both", lw=0.3)
        ax.legend(fontsize=7)
        fig.tight_layout()
        path = out / f"scale_{group}.png"
        fig.savefig(path, dpi=90)
        plt.close(fig)
        print(f"wrote {path.relative_to(ROOT)}")


def main() -> None:
    global WORK
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="generate, build and measure regions")
    r.add_argument("--scales", default="1,4,16")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--plans", type=int, default=40)
    r.add_argument("--origins", type=int, default=8)
    r.add_argument("--matrix-origins", type=int, default=16)
    r.add_argument("--skip", default="",
                   help="comma list of: build (reuse the saved graph), plan, surface, matrix")
    r.add_argument("--town-blocks", type=int, default=64, help="smaller: a quick smoke run")
    r.add_argument("--work", type=Path, default=WORK, help="where regions and records go")
    r.add_argument("--reuse-build", action="store_true", help="keep the saved graph's numbers")
    r.add_argument("--generate-only", action="store_true", help="write the inputs, measure nothing")
    p = sub.add_parser("report", help="fit exponents over the recorded sizes")
    p.add_argument("--fit-scales", default="", help="fit over these scales only (default all)")
    p.add_argument("--work", type=Path, default=WORK)
    args = ap.parse_args()
    WORK = args.work
    if args.cmd == "run":
        WORK.mkdir(parents=True, exist_ok=True)
        for s in args.scales.split(","):
            if args.generate_only:
                folder = WORK / f"x{float(s):g}" / "input"
                print(_generated(folder, float(s), args.seed, args.town_blocks))
            else:
                run_one(float(s), args.seed, args)
        if not args.generate_only:
            report(None)
    else:
        chosen = {float(s) for s in args.fit_scales.split(",") if s}
        report(chosen or None)


if __name__ == "__main__":
    main()
