"""Benchmark: build the RNV network, measure time and peak memory, graph size and load time.

The build runs in a child process (``otpa build``) so its peak RSS is measured cleanly
(``resource.getrusage(RUSAGE_CHILDREN)``).  Load time is the median of several
``TransportNetwork.load`` calls in this process, with and without checksum verification.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _input_bytes(directory: Path) -> int:
    return sum(p.stat().st_size for p in directory.iterdir() if p.is_file())


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
        inputs = _input_bytes(source)
        record = {
            "set": args.set,
            "build_s": round(build_s, 2),
            "build_peak_rss_mb": round(peak_mb, 1),
            "graph_mb": round(graph_bytes / 1e6, 2),
            "inputs_mb": round(inputs / 1e6, 2),
            "size_ratio_graph_over_inputs": round(graph_bytes / inputs, 3),
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
