"""Profile of the windowed matrix: CPU per origin, split by stage (Porto Alegre hexgrid).

Usage::

    .venv/bin/python benchmarks/profile_window.py [--origins 100] [--window 3600]
        [--cprofile 25] [--json FILE]

Runs ``origin_times`` (what ``travel_time_matrix`` runs per origin) over ``--origins``
origins spread evenly over the hexgrid, in one thread, after a warm-up, and reports the
thread CPU time (``time.thread_time``) per origin of each stage: the origin's street end,
the street-only tree (``_direct``), the access search, range RAPTOR (split into the
request set-up and the round kernel) and the propagation to the points.  With
``--cprofile N`` it also prints the top ``N`` functions of a cProfile run over the same
origins.  To compare two trees, run it twice with ``PYTHONPATH`` set to each.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import datetime as dt
import functools
import json
import os
import pstats
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_analysis import cached_network  # noqa: E402

from otpa.analysis import AnalysisRequest, PointSet, _engine  # noqa: E402
from otpa.routing.errors import OutsideBoundsError  # noqa: E402
from otpa.transit.raptor import api as raptor_api  # noqa: E402

DEPARTURE = dt.datetime(2019, 5, 13, 14, 0)
CPU: dict[str, float] = defaultdict(float)


def _timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t = time.thread_time()
        try:
            return fn(*args, **kwargs)
        finally:
            CPU[name] += time.thread_time() - t

    return wrapper


def _instrument() -> None:
    """Wrap the stages (module attributes that ``origin_times`` looks up at call time)."""
    for name in ("_origin_end", "_direct", "_access", "_arrivals", "propagate"):
        setattr(_engine, name, _timed(name, getattr(_engine, name)))
    for name in ("range_rounds", "prepare"):
        if hasattr(raptor_api, name):
            setattr(raptor_api, name, _timed(f"raptor.{name}", getattr(raptor_api, name)))


def _run(prep: _engine.Prepared, points: PointSet, order: np.ndarray) -> float:
    t = time.thread_time()
    for i in order:
        with contextlib.suppress(OutsideBoundsError):
            _engine.origin_times(prep, float(points.lat[i]), float(points.lon[i]))
    return time.thread_time() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--origins", type=int, default=100)
    ap.add_argument("--window", type=int, default=3600)
    ap.add_argument("--cprofile", type=int, default=0, help="print the top N functions")
    ap.add_argument("--json", type=Path, default=None)
    default_data = Path(os.environ.get("OTPA_DATA", HERE.parents[1] / "shared" / "data"))
    ap.add_argument("--data", type=Path, default=default_data)
    args = ap.parse_args()
    net = cached_network(args.data, "porto-alegre")
    points = PointSet.from_csv(args.data / "small" / "porto-alegre" / "poa_hexgrid.csv")
    req = AnalysisRequest(departure=DEPARTURE, window_s=args.window)
    prep = _engine.prepare(net, req, points.lat, points.lon)
    n = len(points)
    order = np.unique(np.linspace(0, n - 1, args.origins).round().astype(np.int64))
    _run(prep, points, order[:3])  # warm-up: numba, caches, the shared RAPTOR request
    _instrument()
    CPU.clear()
    total = _run(prep, points, order)
    per = {k: 1000.0 * v / len(order) for k, v in CPU.items()}
    per["total"] = 1000.0 * total / len(order)
    staged = sum(v for k, v in per.items() if k in
                 ("_origin_end", "_direct", "_access", "_arrivals", "propagate"))  # fmt: skip
    per["other"] = per["total"] - staged
    print(f"{len(order)} origins, window {args.window} s, load {os.getloadavg()[0]:.1f}")
    for k in sorted(per, key=lambda k: -per[k]):
        print(f"  {k:22s} {per[k]:8.2f} ms/origin")
    if args.json is not None:
        args.json.write_text(json.dumps({"ms_per_origin": per, "n": len(order)}, indent=1))
    if args.cprofile:
        prof = cProfile.Profile(time.thread_time)
        prof.enable()
        _run(prep, points, order)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(args.cprofile)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
