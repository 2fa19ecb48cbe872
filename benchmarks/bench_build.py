"""Benchmark: build the RNV network, measure time and peak memory, graph size and load time.

The build runs in a child process (``otpa build``) so its peak RSS is measured cleanly
(``resource.getrusage(RUSAGE_CHILDREN)``).  Load time is the median of several
``TransportNetwork.load`` calls in this process, with and without checksum verification.
The size ratio compares the graph with the input files the build read (GTFS zips, ``.pbf``,
``.tif``: ``meta["inputs"]``), target <= 2; the largest members of the file are listed.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


SIZE_TARGET_RATIO = 2.0


def _input_bytes(directory: Path, meta: dict[str, Any]) -> int:
    """Bytes of the files the build read (all files of the folder for old graphs)."""
    inputs = meta.get("inputs")
    if inputs:
        return sum(int(i["size"]) for i in inputs)
    return sum(p.stat().st_size for p in directory.iterdir() if p.is_file())


def _format_version(path: Path) -> int:
    with zipfile.ZipFile(path) as zf:
        return int(json.loads(zf.read("manifest.json"))["format_version"])


def _largest_members(path: Path, n: int = 8) -> dict[str, int]:
    """Compressed bytes of the ``n`` largest members of a graph file."""
    with zipfile.ZipFile(path) as zf:
        infos = sorted(zf.infolist(), key=lambda i: -i.compress_size)[:n]
    return {i.filename: i.compress_size for i in infos}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--set", default="small/rnv", help="data set folder under --data")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    source = Path(args.data) / args.set
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "graph"
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "otpa.cli", "build", str(source), "--out", str(out), "--quiet"],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        build_s = time.perf_counter() - t0
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0

        from otpa.network import TransportNetwork

        TransportNetwork.load(out)  # warm the page cache
        loads, loads_noverify = [], []
        for _ in range(args.repeat):
            t = time.perf_counter()
            net = TransportNetwork.load(out)
            loads.append(time.perf_counter() - t)
            t = time.perf_counter()
            TransportNetwork.load(out, verify=False)
            loads_noverify.append(time.perf_counter() - t)
        graph_bytes = out.stat().st_size
        inputs = _input_bytes(source, net.meta)
        record = {
            "set": args.set,
            "build_s": round(build_s, 2),
            "build_peak_rss_mb": round(peak_mb, 1),
            "graph_mb": round(graph_bytes / 1e6, 2),
            "inputs_mb": round(inputs / 1e6, 2),
            "size_ratio_graph_over_inputs": round(graph_bytes / inputs, 3),
            "size_target_ratio": SIZE_TARGET_RATIO,
            "size_ok": graph_bytes <= SIZE_TARGET_RATIO * inputs,
            "graph_format_version": _format_version(out),
            "largest_members": _largest_members(out),
            "load_s_median": round(statistics.median(loads), 4),
            "load_s_median_noverify": round(statistics.median(loads_noverify), 4),
            "build_over_load_ratio": round(build_s / statistics.median(loads), 1),
            "summary": net.summary(),
        }
    print(json.dumps(record, indent=2))
    results = ROOT / "benchmarks" / "results"
    results.mkdir(parents=True, exist_ok=True)
    (results / f"build_{args.set.replace('/', '_')}.json").write_text(json.dumps(record, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
