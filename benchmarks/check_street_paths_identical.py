"""Street paths of two source trees, compared path by path, with their CPU time.

Each tree runs in its own subprocess (``PYTHONPATH=<tree>``, so each imports its own
``otpa``) and computes :func:`otpa.routing.street_router.street_path` for the same
pairs per mode (WALK, BICYCLE, CAR with a default plan request's options): random
vertex pairs of the mode's largest strongly connected component, and as many random
points (snapped, so paths start and end inside edges).  A path is compared by its edge
sequence, its start and end fractions, cost, duration and distance (exactly).

``--columns N`` sets ``street_router.LANDMARK_COLUMNS`` in a tree that has it (0: the
straight-line A* only), so one tree can be compared with itself.

Examples
--------
::

    python benchmarks/check_street_paths_identical.py --old /work/main --new . \\
        --graph rnv=benchmarks/results/small_rnv.graph --pairs 2000
    python benchmarks/check_street_paths_identical.py --old . --new . --old-columns 0 \\
        --osm herrenberg=../shared/data/tiny/herrenberg-vvs/herrenberg.osm.pbf --pairs 500
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

_CHILD = r"""
import hashlib, json, sys, time, types
import otpa
spec = json.load(open(sys.argv[1]))
from otpa.routing import PlanRequest
from otpa.routing import street_router
from otpa.routing.street_router import StreetOptions, snap_point, street_path
if spec["columns"] is not None and hasattr(street_router, "LANDMARK_COLUMNS"):
    street_router.LANDMARK_COLUMNS = spec["columns"]
if spec["graph"]:
    from otpa.network import TransportNetwork
    net = TransportNetwork.load(spec["graph"])
else:
    from otpa.osm import read_osm
    from otpa.street import build_street_graph
    net = types.SimpleNamespace(street=build_street_graph(read_osm(spec["osm"])))
import datetime as dt
req = PlanRequest(None, None, dt.datetime(2026, 1, 1))
out = {"otpa": otpa.__file__, "modes": {}}
for mode, pairs in spec["pairs"].items():
    opts = StreetOptions.from_request(req, mode)
    ends = []
    for a, b in pairs:
        if isinstance(a, list):
            a = snap_point(net, a[0], a[1], mode=mode)
            b = snap_point(net, b[0], b[1], mode=mode)
        ends.append((a, b))
    for a, b in ends[:5]:  # compile and build caches untimed
        if a is not None and b is not None:
            street_path(net, a, b, opts)
    import threading  # background builds (street landmarks) done before timing
    for th in threading.enumerate():
        if th.name.startswith("otpa-landmarks"):
            th.join()
    rows, cpu = [], []
    for a, b in ends:
        t0 = time.process_time()
        p = None if a is None or b is None else street_path(net, a, b, opts)
        cpu.append(time.process_time() - t0)
        if p is None:
            rows.append(None)
            continue
        h = hashlib.sha1(p.edges.astype("int64").tobytes()).hexdigest()
        rows.append([h, p.start_fraction, p.end_fraction, p.cost, p.duration_s, p.distance_m])
    out["modes"][mode] = {"rows": rows, "cpu": cpu}
json.dump(out, open(sys.argv[2], "w"))
"""


def _pairs(graph_file: str | None, osm: str | None, n: int, seed: int) -> dict[str, list[Any]]:
    sys.path.insert(0, str(Path(__file__).parent))
    from bench_plan import largest_component, random_pairs

    if graph_file:
        from otpa.network import TransportNetwork

        graph = TransportNetwork.load(graph_file).street
    else:
        from otpa.osm import read_osm
        from otpa.street import build_street_graph

        assert osm is not None
        graph = build_street_graph(read_osm(osm))
    assert graph is not None
    rng = np.random.default_rng(seed)
    lat, lon = np.asarray(graph.vertex_lat), np.asarray(graph.vertex_lon)
    out: dict[str, list[Any]] = {}
    for mode in ("WALK", "BICYCLE", "CAR"):
        comp = largest_component(graph, mode)
        vx: list[Any] = [list(p) for p in random_pairs(graph, comp, n, rng)]
        # points near component vertices (a few tens of metres off): snapped inside edges
        pick = rng.choice(comp, size=(n, 2))
        jl = rng.normal(0.0, 2e-4, size=(n, 2))
        jo = rng.normal(0.0, 3e-4, size=(n, 2))
        pts = [
            [[float(lat[a] + jl[i, 0]), float(lon[a] + jo[i, 0])],
             [float(lat[b] + jl[i, 1]), float(lon[b] + jo[i, 1])]]
            for i, (a, b) in enumerate(pick)
        ]  # fmt: skip
        out[mode] = vx + pts
    return out


def _run(tree: Path, spec: dict[str, Any], columns: int | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        sp, op = Path(tmp) / "spec.json", Path(tmp) / "out.json"
        sp.write_text(json.dumps({**spec, "columns": columns}))
        env = {**os.environ, "PYTHONPATH": str(tree)}
        subprocess.run([sys.executable, "-c", _CHILD, str(sp), str(op)], env=env, check=True,
                       cwd=tree)  # fmt: skip
        result: dict[str, Any] = json.loads(op.read_text())
    if not result["otpa"].startswith(str(tree.resolve())):
        msg = f"{tree}: imported {result['otpa']}"
        raise SystemExit(msg)
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--old", type=Path, required=True)
    ap.add_argument("--new", type=Path, required=True)
    ap.add_argument("--graph", action="append", default=[], help="name=saved network file")
    ap.add_argument("--osm", action="append", default=[], help="name=OSM file (streets only)")
    ap.add_argument("--pairs", type=int, default=500, help="vertex pairs and point pairs per mode")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--old-columns", type=int, default=None)
    ap.add_argument("--new-columns", type=int, default=None)
    ap.add_argument("--out", type=Path, default=None, help="write the report (JSON) here")
    args = ap.parse_args()
    sets = [(s.split("=", 1), "graph") for s in args.graph] + [
        (s.split("=", 1), "osm") for s in args.osm
    ]
    report: dict[str, Any] = {}
    failed = False
    for (name, path), kind in sets:
        spec = {
            "graph": path if kind == "graph" else None,
            "osm": path if kind == "osm" else None,
            "pairs": _pairs(path if kind == "graph" else None,
                            path if kind == "osm" else None, args.pairs, args.seed),
        }  # fmt: skip
        old = _run(args.old, spec, args.old_columns)
        new = _run(args.new, spec, args.new_columns)
        for mode in spec["pairs"]:
            o, w = old["modes"][mode], new["modes"][mode]
            diff = [i for i, (a, b) in enumerate(zip(o["rows"], w["rows"], strict=True)) if a != b]
            same_cost = all(
                o["rows"][i] is not None and w["rows"][i] is not None
                and o["rows"][i][3:] == w["rows"][i][3:]
                for i in diff
            )  # fmt: skip
            co, cn = np.asarray(o["cpu"]), np.asarray(w["cpu"])
            found = sum(r is not None for r in o["rows"])
            entry = {
                "pairs": len(o["rows"]),
                "found": found,
                "different": len(diff),
                "different_all_same_cost_duration_distance": same_cost,
                "cpu_old_s": round(float(co.sum()), 4),
                "cpu_new_s": round(float(cn.sum()), 4),
                "cpu_ratio_new_old": round(float(cn.sum() / co.sum()), 3),
                "p50_ms_old": round(float(np.median(co)) * 1e3, 3),
                "p50_ms_new": round(float(np.median(cn)) * 1e3, 3),
                "first_differences": [[i, o["rows"][i], w["rows"][i]] for i in diff[:3]],
            }
            report[f"{name}/{mode}"] = entry
            failed |= bool(diff)
            print(
                f"{name}/{mode}: {found}/{len(o['rows'])} found, {len(diff)} different "
                f"(same cost, duration, distance: {same_cost}); "
                f"CPU new/old {entry['cpu_ratio_new_old']} "
                f"(p50 {entry['p50_ms_old']} -> {entry['p50_ms_new']} ms)",
                flush=True,
            )
    if args.out is not None:
        args.out.write_text(json.dumps(report, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
