"""Exactness check for speed work: results must stay byte-identical.

Usage::

    .venv/bin/python benchmarks/check_identical.py save  [--ref FILE] [--matrix all|N]
    .venv/bin/python benchmarks/check_identical.py check [--ref FILE] [--matrix all|N]

``save`` records, from the code under test, fingerprints of

* the Porto Alegre hexgrid matrix (1,227 x 1,227, 60-minute window at one-minute
  steps, WALK,TRANSIT, as ``travel_time_matrix`` computes it origin by origin):
  a SHA-256 of every origin's row (``ndarray.tobytes()``) and of the whole matrix
  (``--matrix N``: only the first ``N`` origins, spread evenly over the grid);
* the range-RAPTOR rows (60 departures x 4,010 stops) of 40 origins: the ride
  arrivals the analysis uses (those past departure + ``max_time`` as ``inf``: the
  analysis cuts them since its search skips them), and the ``arrivals="any"`` and
  ``"ride"`` rows of ``range_raptor`` without a cut;
* the repr of the itineraries of 30 RNV WALK,TRANSIT plans (the pairs of
  ``bench_plan.py``, seed 42, on the busiest weekday at 08:00);

``check`` recomputes them and reports every difference (exit status 1 when any).
The reference goes to ``benchmarks/results/identical_ref.json`` by default.  CPU
times (``time.process_time``) of each part are printed for information.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from bench_plan import largest_component, make_request, random_pairs  # noqa: E402

from otpa.analysis import AnalysisRequest, PointSet  # noqa: E402
from otpa.analysis._engine import (  # noqa: E402
    _access,
    _arrivals,
    _origin_end,
    origin_times,
    prepare,
)
from otpa.network import TransportNetwork, build_network  # noqa: E402
from otpa.routing.errors import OutsideBoundsError, PlanningError  # noqa: E402
from otpa.routing.planner import plan  # noqa: E402

POA_DEPARTURE = dt.datetime(2019, 5, 13, 14, 0)
RNV_WHEN = dt.datetime(2016, 11, 3, 8, 0)
N_RAPTOR_ORIGINS = 40
N_PLANS = 30


def _sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def _network(data: Path, folder: str, cache: Path) -> TransportNetwork:
    if cache.exists():
        return TransportNetwork.load(cache)
    net = build_network(data / folder)
    cache.parent.mkdir(parents=True, exist_ok=True)
    net.save(cache)
    return net


def _origin_order(n: int, count: int | None) -> np.ndarray:
    if count is None or count >= n:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, count).round().astype(np.int64))


def matrix_part(net: TransportNetwork, points: PointSet, count: int | None) -> dict[str, Any]:
    """Per-origin row hashes of the 60-minute-window hexgrid matrix."""
    req = AnalysisRequest(departure=POA_DEPARTURE, window_s=3600)
    prep = prepare(net, req, points.lat, points.lon)
    rows: dict[str, str] = {}
    whole = hashlib.sha256()
    cpu = time.process_time()
    for i in _origin_order(len(points), count):
        try:
            t = origin_times(prep, float(points.lat[i]), float(points.lon[i])).times.T
        except OutsideBoundsError:
            t = np.full((len(points), 1), np.nan, dtype=np.float32)
        b = np.ascontiguousarray(t).tobytes()
        rows[str(int(i))] = _sha(b)
        whole.update(b)
    cpu = time.process_time() - cpu
    return {"rows": rows, "whole": whole.hexdigest(), "cpu_s": cpu, "n": len(rows)}


def raptor_part(net: TransportNetwork, points: PointSet) -> dict[str, Any]:
    """Range-RAPTOR rows of 40 origins (ride arrivals and any arrivals)."""
    from otpa.routing.engine import transit_request
    from otpa.transit.raptor.api import range_raptor
    from otpa.transit.raptor_data import raptor_timetable

    req = AnalysisRequest(departure=POA_DEPARTURE, window_s=3600)
    prep = prepare(net, req, points.lat[:1], points.lon[:1])
    out: dict[str, str] = {}
    cpu = time.process_time()
    for i in _origin_order(len(points), N_RAPTOR_ORIGINS):
        lat, lon = float(points.lat[i]), float(points.lon[i])
        try:
            origin = _origin_end(prep, lat, lon)
        except OutsideBoundsError:
            continue
        access = _access(prep, origin, None)
        got = _arrivals(prep, origin, access)
        if got is None:
            out[str(int(i))] = "none"
            continue
        rows, deps = got
        # arrivals over the limit are unreachable to the analysis (newer code cuts them)
        rows = np.where(rows <= deps[:, None] + req.max_time_s, rows, np.inf)
        first = dt.datetime.fromtimestamp(int(prep.departures[0]), prep.tz)
        tt = raptor_timetable(net.transit, first.date(), prep.tz.key)
        plan_req = dataclasses.replace(prep.plan_request, date_time=first)
        rreq = transit_request(net, plan_req, tt, origin, prep.options, access, criteria="arrival")
        rreq = dataclasses.replace(rreq, search_window_s=req.max_time_s)
        anyrows = range_raptor(tt, rreq, deps, arrivals="any")
        riderows = range_raptor(tt, rreq, deps, arrivals="ride")
        out[str(int(i))] = _sha(
            rows.tobytes() + deps.tobytes() + anyrows.tobytes() + riderows.tobytes()
        )
    return {"rows": out, "cpu_s": time.process_time() - cpu}


def plan_part(net: TransportNetwork) -> dict[str, Any]:
    """repr of the itineraries of 30 RNV WALK,TRANSIT plans."""
    assert net.street is not None
    rng = np.random.default_rng(42)
    comp = largest_component(net.street, "WALK")
    pairs = random_pairs(net.street, comp, N_PLANS, rng)
    lat, lon = np.asarray(net.street.vertex_lat), np.asarray(net.street.vertex_lon)
    out: list[str] = []
    cpu = time.process_time()
    for a, b in pairs:
        req = make_request(
            (float(lat[a]), float(lon[a])), (float(lat[b]), float(lon[b])), RNV_WHEN,
            "WALK,TRANSIT",
        )  # fmt: skip
        try:
            text = repr(plan(net, req).itineraries)
        except PlanningError as exc:
            text = f"{type(exc).__name__}: {exc}"
        out.append(_sha(text.encode()))
    return {"plans": out, "whole": _sha("".join(out).encode()), "cpu_s": time.process_time() - cpu}


def _compare(ref: dict[str, Any], new: dict[str, Any]) -> list[str]:
    bad: list[str] = []
    for part in ("matrix", "raptor"):
        if part not in ref or part not in new:
            continue
        for k, v in new[part]["rows"].items():
            if k in ref[part]["rows"] and ref[part]["rows"][k] != v:
                bad.append(f"{part}: origin {k} differs")
        missing = set(new[part]["rows"]) - set(ref[part]["rows"])
        if missing:
            bad.append(f"{part}: {len(missing)} origins not in the reference")
    both = "matrix" in ref and "matrix" in new and ref["matrix"]["n"] == new["matrix"]["n"]
    if both and ref["matrix"]["whole"] != new["matrix"]["whole"]:
        bad.append("matrix: whole-matrix hash differs")
    if "plans" in ref and "plans" in new:
        for i, (a, b) in enumerate(zip(ref["plans"]["plans"], new["plans"]["plans"], strict=True)):
            if a != b:
                bad.append(f"plans: plan {i} differs")
    return bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("action", choices=("save", "check"))
    ap.add_argument("--ref", type=Path, default=HERE / "results" / "identical_ref.json")
    ap.add_argument("--matrix", default="all", help="'all' or a number of origins")
    ap.add_argument("--skip", default="", help="comma list of: matrix,raptor,plans")
    default_data = Path(os.environ.get("OTPA_DATA", ROOT.parent / "shared" / "data"))
    ap.add_argument("--data", type=Path, default=default_data)
    ap.add_argument("--graphs", type=Path, default=HERE / "results" / "graphs")
    args = ap.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    count = None if args.matrix == "all" else int(args.matrix)
    new: dict[str, Any] = {"load": os.getloadavg()}
    if not {"matrix", "raptor"} <= skip:
        poa = _network(args.data, "small/porto-alegre", args.graphs / "analysis_porto-alegre.graph")
        points = PointSet.from_csv(args.data / "small" / "porto-alegre" / "poa_hexgrid.csv")
        if "raptor" not in skip:
            new["raptor"] = raptor_part(poa, points)
            print(f"raptor: {new['raptor']['cpu_s']:.1f} s CPU", flush=True)
        if "matrix" not in skip:
            new["matrix"] = matrix_part(poa, points, count)
            m = new["matrix"]
            print(f"matrix: {m['n']} origins, {m['cpu_s']:.1f} s CPU "
                  f"({1000 * m['cpu_s'] / m['n']:.1f} ms per origin)", flush=True)  # fmt: skip
    if "plans" not in skip:
        rnv = _network(args.data, "small/rnv", args.graphs / "analysis_rnv.graph")
        new["plans"] = plan_part(rnv)
        print(f"plans: {new['plans']['cpu_s']:.1f} s CPU", flush=True)
    if args.action == "save":
        args.ref.parent.mkdir(parents=True, exist_ok=True)
        args.ref.write_text(json.dumps(new, indent=1))
        print(f"saved {args.ref}")
        return 0
    ref = json.loads(args.ref.read_text())
    bad = _compare(ref, new)
    for line in bad:
        print("DIFF", line)
    print("IDENTICAL" if not bad else f"{len(bad)} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
