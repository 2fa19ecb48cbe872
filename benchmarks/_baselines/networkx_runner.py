"""networkx baseline: point-to-point Dijkstra on the same street graph, timed per pair.

Run with an interpreter that has networkx and numpy (``benchmarks/results/baselines-venv``)::

    results/baselines-venv/bin/python _baselines/networkx_runner.py --graph G.npz --out OUT.json

``G.npz`` (written by ``bench_plan.py``) holds ``edge_from``, ``edge_to`` (int32) and, per
mode ``M``, ``cost_M`` (seconds per edge, ``inf`` where the mode may not use the edge) and
``pairs_M`` (``n x 2`` vertex ids).  For each mode a ``networkx.DiGraph`` is built from the
usable edges (parallel edges keep the cheapest), then
``nx.shortest_path_length(G, s, t, weight="weight")`` (Dijkstra that stops at the target) is
timed per pair.  The graph build is reported separately.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any


def main(argv: list[str] | None = None) -> int:
    """Build one DiGraph per mode and time one shortest-path query per pair."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--graph", type=Path, required=True)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    import networkx as nx
    import numpy as np

    data = np.load(args.graph)
    src = data["edge_from"].tolist()
    dst = data["edge_to"].tolist()
    modes = sorted(k[len("cost_") :] for k in data.files if k.startswith("cost_"))
    out: dict[str, Any] = {"networkx": nx.__version__, "python": sys.version.split()[0]}
    for mode in modes:
        cost = data[f"cost_{mode}"]
        pairs = data[f"pairs_{mode}"].tolist()
        t0 = time.perf_counter()
        best: dict[tuple[int, int], float] = {}
        for i in np.flatnonzero(np.isfinite(cost)).tolist():
            key = (src[i], dst[i])
            w = float(cost[i])
            if w < best.get(key, float("inf")):
                best[key] = w
        g = nx.DiGraph()
        g.add_weighted_edges_from((a, b, w) for (a, b), w in best.items())
        build_s = time.perf_counter() - t0
        seconds: list[float] = []
        lengths: list[float | None] = []
        for s, t in pairs:
            t1 = time.perf_counter()
            try:
                length: float | None = nx.shortest_path_length(g, s, t, weight="weight")
            except (nx.NetworkXNoPath, nx.NodeNotFound):
                length = None
            seconds.append(time.perf_counter() - t1)
            lengths.append(length)
        out[mode] = {
            "build_s": build_s,
            "nodes": g.number_of_nodes(),
            "edges": g.number_of_edges(),
            "seconds": seconds,
            "cost_s": lengths,
        }
    args.out.write_text(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
