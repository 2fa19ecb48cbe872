"""Benchmark: ``otpa.gtfs.read_gtfs`` vs ``gtfs_kit.read_feed`` on the RNV feed.

Usage::

    .venv/bin/python benchmarks/bench_gtfs_parse.py [--data DIR] [--repeat 5]

Both readers run in the same process, alternately, after one warm-up each; the median of
``--repeat`` runs is reported.  Note the work differs: gtfs-kit only reads the text into
frames, while ``read_gtfs`` also parses times to seconds, validates references, sorts,
interpolates and indexes.  A JSON record goes to ``benchmarks/results/gtfs_parse.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from otpa.gtfs import read_gtfs  # noqa: E402


def _default_data() -> Path:
    env = os.environ.get("OTPA_DATA")
    return Path(env) if env else HERE.parent.parent / "shared" / "data"


def _time(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=_default_data(), help="shared data folder")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per reader")
    parser.add_argument(
        "--out", type=Path, default=HERE / "results" / "gtfs_parse.json", help="JSON output"
    )
    args = parser.parse_args()
    path = args.data / "small" / "rnv" / "rnv.zip"
    if not path.exists():
        print(f"RNV feed not found: {path}", file=sys.stderr)
        return 2
    import gtfs_kit

    def ours() -> object:
        return read_gtfs(path)

    def theirs() -> object:
        return gtfs_kit.read_feed(path, dist_units="km")

    feed = read_gtfs(path)  # warm-up
    theirs()
    n_rows = len(feed.stop_times)
    t_ours: list[float] = []
    t_theirs: list[float] = []
    for _ in range(args.repeat):
        t_ours.append(_time(ours))
        t_theirs.append(_time(theirs))
    med_ours, med_theirs = statistics.median(t_ours), statistics.median(t_theirs)
    ratio = med_ours / med_theirs
    print(f"feed: {path} ({n_rows} stop_times, {len(feed.trips)} trips, {len(feed.stops)} stops)")
    print(
        f"otpa.read_gtfs      median {med_ours:.3f} s  ({n_rows / med_ours:,.0f} stop_times/s)"
        f"  runs {[round(t, 3) for t in t_ours]}"
    )
    print(
        f"gtfs_kit.read_feed  median {med_theirs:.3f} s  ({n_rows / med_theirs:,.0f} "
        f"stop_times/s)  runs {[round(t, 3) for t in t_theirs]}"
    )
    print(f"ratio ours/gtfs-kit: {ratio:.2f}")
    record = {
        "benchmark": "gtfs_parse",
        "feed": str(path),
        "stop_times": n_rows,
        "repeat": args.repeat,
        "otpa_read_gtfs_s": {"median": med_ours, "runs": t_ours},
        "gtfs_kit_read_feed_s": {"median": med_theirs, "runs": t_theirs},
        "otpa_rows_per_s": n_rows / med_ours,
        "gtfs_kit_rows_per_s": n_rows / med_theirs,
        "ratio": ratio,
        "gtfs_kit_version": getattr(gtfs_kit, "__version__", "unknown"),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
