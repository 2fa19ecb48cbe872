"""Benchmark: the built-in geocoder on RNV (autocomplete and full queries), index build and size.

Usage::

    .venv/bin/python benchmarks/bench_geocode.py [--data DIR] [--queries 300] [--seed 42]

What it measures, all in one run, on ``small/rnv`` (built once and cached as
``results/small_rnv_geocode.graph``, rebuilt with ``--rebuild``):

* index build: ``build_geocode_index`` from the network's parts (stops, clusters, street
  corners, places), its entries per kind and its size in the saved graph (the members'
  ``.npy`` and JSON bytes, raw and DEFLATE-compressed as the container stores them);
  the first search's lookup build (folding every name) is timed separately;
* queries drawn from real stop and corner names with a fixed seed: *autocomplete* (the
  first 3-8 characters, ``autocomplete=true``) and *full* (the whole name with one
  character dropped: a typo); p50/p95/mean latency and recall (the intended name in the
  first result / the first 10);
* baseline, same queries and names: the standard library's ``difflib.get_close_matches``
  over the folded unique names (n=10, cutoff 0.6): latency ratio ours / difflib (< 1: we
  are faster) and its recall.

A JSON record goes to ``benchmarks/results/geocode_rnv.json``.
"""

from __future__ import annotations

import argparse
import difflib
import io
import json
import sys
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from otpa.geocode import GeocodeIndex, fold  # noqa: E402
from otpa.network import TransportNetwork, build_geocode_index, build_network  # noqa: E402

RESULTS = HERE / "results"


def _network(data: Path, rebuild: bool) -> TransportNetwork:
    cached = RESULTS / "small_rnv_geocode.graph"
    if cached.is_file() and not rebuild:
        return TransportNetwork.load(cached)
    net = build_network(data / "small" / "rnv")
    RESULTS.mkdir(exist_ok=True)
    net.save(cached)
    return net


def _size(index: GeocodeIndex) -> dict[str, int]:
    arrays, docs = index.to_members()
    raw = compressed = 0
    for array in arrays.values():
        buf = io.BytesIO()
        np.save(buf, array, allow_pickle=False)
        raw += len(buf.getvalue())
        compressed += len(zlib.compress(buf.getvalue(), 6))
    text = json.dumps(docs).encode()
    return {
        "raw_bytes": raw + len(text),
        "deflated_bytes": compressed + len(zlib.compress(text, 6)),
    }


def _queries(
    index: GeocodeIndex, n: int, seed: int
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    rng = np.random.default_rng(seed)
    kinds = np.asarray(index.kind)
    rows = np.flatnonzero((kinds == 0) | (kinds == 2))
    picks = rng.choice(rows, size=min(n, len(rows)), replace=False)
    auto, full = [], []
    for row in picks.tolist():
        name = index.names[row]
        k = int(rng.integers(3, 9))
        auto.append((name[:k], name))
        cut = int(rng.integers(1, max(2, len(name) - 1)))
        full.append((name[:cut] + name[cut + 1 :], name))
    return auto, full


def _stats(times: list[float]) -> dict[str, float]:
    ms = np.asarray(times) * 1000.0
    return {
        "p50_ms": round(float(np.percentile(ms, 50)), 3),
        "p95_ms": round(float(np.percentile(ms, 95)), 3),
        "mean_ms": round(float(ms.mean()), 3),
    }


def _run_ours(
    index: GeocodeIndex, queries: list[tuple[str, str]], *, autocomplete: bool
) -> dict[str, Any]:
    times, top1, top10 = [], 0, 0
    for query, expected in queries:
        t = time.perf_counter()
        found = index.search(query, autocomplete=autocomplete)
        times.append(time.perf_counter() - t)
        names = [r.name for r in found]
        top1 += bool(names) and fold(names[0]) == fold(expected)
        top10 += fold(expected) in {fold(x) for x in names}
    n = len(queries)
    return {**_stats(times), "recall_top1": round(top1 / n, 3), "recall_top10": round(top10 / n, 3)}


def _run_difflib(keys: list[str], queries: list[tuple[str, str]]) -> dict[str, Any]:
    times, top1, top10 = [], 0, 0
    for query, expected in queries:
        t = time.perf_counter()
        found = difflib.get_close_matches(fold(query), keys, n=10, cutoff=0.6)
        times.append(time.perf_counter() - t)
        top1 += bool(found) and found[0] == fold(expected)
        top10 += fold(expected) in found
    n = len(queries)
    return {**_stats(times), "recall_top1": round(top1 / n, 3), "recall_top10": round(top10 / n, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--baseline-queries", type=int, default=40)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--rebuild", action="store_true")
    args = parser.parse_args()

    net = _network(args.data, args.rebuild)
    t = time.perf_counter()
    index = build_geocode_index(net.transit, net.street, net.features.get("places", []))
    build_s = time.perf_counter() - t
    t = time.perf_counter()
    index.search("warm up")
    lookup_s = time.perf_counter() - t
    auto, full = _queries(index, args.queries, args.seed)
    for query, _ in auto[:20]:  # warm caches
        index.search(query, autocomplete=True)
    record: dict[str, Any] = {
        "set": "small/rnv",
        "entries": index.counts(),
        "build_s": round(build_s, 3),
        "lookup_build_s": round(lookup_s, 3),
        "size": _size(index),
        "autocomplete": _run_ours(index, auto, autocomplete=True),
        "full": _run_ours(index, full, autocomplete=False),
    }
    keys = sorted({fold(n) for n in index.names})
    nb = args.baseline_queries
    ours_subset = _run_ours(index, full[:nb], autocomplete=False)
    base = _run_difflib(keys, full[:nb])
    record["baseline_difflib_full"] = {
        "queries": nb,
        "ours": ours_subset,
        "difflib": base,
        "p50_ratio_ours_over_difflib": round(ours_subset["p50_ms"] / base["p50_ms"], 4),
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "geocode_rnv.json").write_text(json.dumps(record, indent=2))
    print(json.dumps(record, indent=2))


if __name__ == "__main__":
    main()
