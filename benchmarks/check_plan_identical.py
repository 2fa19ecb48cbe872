"""Identity check: ``/plan`` responses of two code trees over HTTP, compared byte for byte.

Usage::

    .venv/bin/python benchmarks/check_plan_identical.py --old /path/to/old/checkout
        [--pairs 30] [--seed 7] [--cpu-rounds 2] [--http-seconds 0] [--graph FILE]

Two ``python -m service`` processes serve the same saved RNV graph
(``results/small_rnv.graph``, built by ``bench_plan.py`` when missing): one imports the
code of ``--old`` (``PYTHONPATH=<old>``, e.g. a ``git worktree`` of the commit before a
speed change), the other this checkout.  Every request goes to both; the status and
``Content-Type`` must be equal and the bodies equal byte for byte, JSON and XML
(``debugOutput``'s timings, which measure the run, are the only values left out).

Requests: ``--pairs`` random origin/destination vertex pairs (seed ``--seed``) of the WALK
component in each *mix* of parameters (:data:`MIXES`): WALK,TRANSIT with the bench's 3
itineraries and with the server's defaults, ``arriveBy``, ``wheelchair``,
``showIntermediateStops`` with 5 itineraries, a short ``maxWalkDistance``,
``optimize=TRANSFERS``, BICYCLE,TRANSIT, and street-only WALK (short pairs), BICYCLE and
CAR; plus a few XML answers; plus refused and impossible requests in JSON and XML
(mix ``refusals``, :data:`REFUSALS`: unknown and unsupported modes, bad dates and times,
a missing ``toPlace``, a place outside the map, an unknown place name, an incomplete
triangle, ignored and unreadable values, an unknown router).

Then the cost: the server's CPU time (user + system of the process, from ``/proc``) for the
WALK,TRANSIT requests of the bench (``--cpu-rounds`` passes, one client, old and new
alternating), and, with ``--http-seconds``, plans/s with ``--http-clients`` clients for each
server in turn (old, new, old, new: ``--http-rounds``), with each server's CPU per answer
(whole process and event-loop thread) over those seconds.  Ratios are new / old,
measured in the same run.
Exit status 1 when any response differs.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

import bench_plan  # noqa: E402

#: Parameter mixes: name -> (pair kind, extra query parameters).
MIXES: dict[str, tuple[str, dict[str, str]]] = {
    "transit-3": ("transit", {"mode": "WALK,TRANSIT", "numItineraries": "3"}),
    "transit-defaults": ("transit", {"mode": "TRANSIT,WALK"}),
    "transit-arriveBy": (
        "transit",
        {"mode": "WALK,TRANSIT", "arriveBy": "true", "time": "09:00", "numItineraries": "3"},
    ),
    "transit-wheelchair": ("transit", {"mode": "WALK,TRANSIT", "wheelchair": "true"}),
    "transit-stops-5": (
        "transit",
        {"mode": "WALK,TRANSIT", "showIntermediateStops": "true", "numItineraries": "5"},
    ),
    "transit-walk500": ("transit", {"mode": "WALK,TRANSIT", "maxWalkDistance": "500"}),
    "transit-transfers": ("transit", {"mode": "WALK,TRANSIT", "optimize": "TRANSFERS"}),
    "bicycle-transit": ("transit", {"mode": "BICYCLE,TRANSIT", "numItineraries": "2"}),
    "walk": ("walk", {"mode": "WALK"}),
    "bicycle": ("transit", {"mode": "BICYCLE"}),
    "car": ("car", {"mode": "CAR"}),
}
#: Mixes also asked for as XML (the first few pairs).
XML_MIXES = ("transit-3", "walk")
XML_PAIRS = 3
#: Refused and impossible requests (mix ``refusals``, JSON and XML): the query of the
#: first transit pair with these changes (None removes the parameter), and an unknown router.
REFUSALS: tuple[dict[str, str | None], ...] = (
    {"mode": "FOO"},
    {"mode": "MICROMOBILITY"},
    {"date": "13-45-2016"},
    {"time": "99:99"},
    {"numItineraries": "abc"},
    {"toPlace": None},
    {"fromPlace": "0,0"},
    {"fromPlace": "Nowhere-At-All Strasse 999"},
    {"mode": "BICYCLE", "optimize": "TRIANGLE"},
    {"maxWalkDistance": "-5", "walkReluctance": "0"},
    {"bannedRoutes": "nope_1", "wheelchair": "maybe"},
)
#: ``debugOutput`` fields that time the run (differ between any two runs).
_TIMINGS = ("precalculationTime", "pathCalculationTime", "pathTimes", "renderingTime", "totalTime")
_XML_TIMINGS = re.compile(rb"<(%s)>[^<]*</\1>" % b"|".join(t.encode() for t in _TIMINGS))
_JSON_TIMINGS = re.compile(
    rb'"(?:%s)":(?:\[[^\]]*\]|[-+0-9.eE]+)' % b"|".join(t.encode() for t in _TIMINGS)
)


def _log(msg: str) -> None:
    print(f"[check_plan_identical {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def server_url(proc: subprocess.Popen[str], what: str) -> str:
    """The URL a started server prints on its first line of stdout."""
    assert proc.stdout is not None
    line = proc.stdout.readline()
    m = re.search(r"(http://\S+)", line)
    if m is None:
        msg = f"{what} did not start: {line!r}"
        raise RuntimeError(msg)
    return m.group(1)


@contextlib.contextmanager
def serve(tree: Path, graphs: Path) -> Iterator[tuple[str, int]]:
    """A ``python -m service`` of the code in ``tree``; yields (router URL, pid)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    cmd = [sys.executable, "-m", "service", "--graphs", str(graphs), "--router", "rnv"]
    cmd += ["--port", "0", "--log-level", "WARNING"]
    proc = subprocess.Popen(cmd, cwd=tree, env=env, stdout=subprocess.PIPE, text=True)
    try:
        yield server_url(proc, f"service of {tree}"), proc.pid
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _query(o: tuple[float, float], d: tuple[float, float], when: dt.datetime) -> dict[str, str]:
    return {
        "fromPlace": f"{o[0]:.6f},{o[1]:.6f}",
        "toPlace": f"{d[0]:.6f},{d[1]:.6f}",
        "date": when.strftime("%m-%d-%Y"),
        "time": when.strftime("%H:%M"),
    }


def requests(args: argparse.Namespace, net: Any, when: dt.datetime) -> list[tuple[str, str, bool]]:
    """``(mix, path and query, xml)`` of every request."""
    graph = net.street
    rng = np.random.default_rng(args.seed)
    comps = {m: bench_plan.largest_component(graph, m) for m in ("WALK", "CAR")}
    pairs = {
        "transit": bench_plan.random_pairs(graph, comps["WALK"], args.pairs, rng),
        "walk": bench_plan.random_pairs(
            graph, comps["WALK"], args.pairs, rng, max_m=bench_plan.WALK_MAX_M
        ),
        "car": bench_plan.random_pairs(graph, comps["CAR"], args.pairs, rng),
    }

    def xy(v: int) -> tuple[float, float]:
        return float(graph.vertex_lat[v]), float(graph.vertex_lon[v])

    out = []
    for mix, (kind, extra) in MIXES.items():
        for i, (a, b) in enumerate(pairs[kind]):
            q = {**_query(xy(a), xy(b), when), **extra}
            path = f"/otp/routers/rnv/plan?{urllib.parse.urlencode(q)}"
            out.append((mix, path, False))
            if mix in XML_MIXES and i < XML_PAIRS:
                out.append((mix, path, True))
    a, b = pairs["transit"][0]
    base: dict[str, str | None] = {**_query(xy(a), xy(b), when), "mode": "WALK,TRANSIT"}
    for change in REFUSALS:
        q = {k: v for k, v in {**base, **change}.items() if v is not None}
        path = f"/otp/routers/rnv/plan?{urllib.parse.urlencode(q)}"
        out += [("refusals", path, False), ("refusals", path, True)]
    unknown = f"/otp/routers/nope/plan?{urllib.parse.urlencode(_query(xy(a), xy(b), when))}"
    out += [("refusals", unknown, False), ("refusals", unknown, True)]
    return out


def _get(conn: http.client.HTTPConnection, path: str, xml: bool) -> tuple[int, bytes]:
    status, _, body = _get_typed(conn, path, xml)
    return status, body


def _get_typed(conn: http.client.HTTPConnection, path: str, xml: bool) -> tuple[int, str, bytes]:
    """Status, ``Content-Type`` and body."""
    accept = "application/xml" if xml else "application/json"
    conn.request("GET", path, headers={"Accept": accept})
    resp = conn.getresponse()
    return resp.status, resp.getheader("Content-Type", ""), resp.read()


def _conn(url: str) -> http.client.HTTPConnection:
    parts = urllib.parse.urlsplit(url)
    return http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=300)


def _normal(body: bytes, xml: bool) -> Any:
    if xml:
        return _XML_TIMINGS.sub(b"", body)
    doc = json.loads(body)
    debug = doc.get("debugOutput")
    if isinstance(debug, dict):
        for key in _TIMINGS:
            debug.pop(key, None)
    return doc


def _first_difference(a: Any, b: Any, where: str = "") -> str:
    if type(a) is not type(b):
        return f"{where or '/'}: {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{where}/{k}: only in {'new' if k not in a else 'old'}"
            if a[k] != b[k]:
                return _first_difference(a[k], b[k], f"{where}/{k}")
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{where}: {len(a)} vs {len(b)} items"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return _first_difference(x, y, f"{where}/{i}")
    return f"{where}: {str(a)[:120]!r} vs {str(b)[:120]!r}"


def compare(
    old_url: str, new_url: str, reqs: Sequence[tuple[str, str, bool]]
) -> dict[str, dict[str, Any]]:
    """Send every request to both servers; per mix: identical, different, examples."""
    old, new = _conn(old_url), _conn(new_url)
    per_mix: dict[str, dict[str, Any]] = {}
    for mix, path, xml in reqs:
        rec = per_mix.setdefault(
            mix, {"identical": 0, "different": 0, "itineraries": 0, "errors": 0, "examples": []}
        )
        s_old, t_old, b_old = _get_typed(old, path, xml)
        s_new, t_new, b_new = _get_typed(new, path, xml)
        a, b = _normal(b_old, xml), _normal(b_new, xml)
        # byte for byte, the timings masked (the parsed documents compare key order too)
        same_bytes = xml or _JSON_TIMINGS.sub(b"", b_old) == _JSON_TIMINGS.sub(b"", b_new)
        if s_old == s_new and t_old == t_new and a == b and same_bytes:
            rec["identical"] += 1
            if not xml and isinstance(a, dict):
                rec["itineraries"] += len((a.get("plan") or {}).get("itineraries") or [])
                rec["errors"] += "error" in a
            continue
        rec["different"] += 1
        if len(rec["examples"]) < 3:
            why = f"HTTP {s_old} vs {s_new}" if s_old != s_new else _first_difference(a, b)
            if xml and s_old == s_new:
                why = "XML bodies differ"
            elif s_old == s_new and t_old != t_new:
                why = f"Content-Type {t_old!r} vs {t_new!r}"
            elif s_old == s_new and a == b:
                why = "JSON bytes differ (same document: key order or number format)"
            rec["examples"].append({"path": path, "xml": xml, "difference": why})
    old.close()
    new.close()
    return per_mix


def cpu_per_plan(url: str, pid: int, paths: Sequence[str]) -> float:
    """Server CPU seconds per request, one client, requests sent one after the other."""
    conn = _conn(url)
    before = cpu_s(pid)
    for p in paths:
        status, _ = _get(conn, p, False)
        assert status == 200, status
    used = cpu_s(pid) - before
    conn.close()
    return used / len(paths)


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--old", type=Path, required=True, help="checkout of the code to compare with")
    p.add_argument("--new", type=Path, default=ROOT, help="checkout of the new code (this one)")
    p.add_argument("--graph", type=Path, help="saved RNV graph (default results/small_rnv.graph)")
    p.add_argument("--data", type=Path, default=bench_plan._default_data())
    p.add_argument("--pairs", type=int, default=30, help="pairs per mix")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--date", default="2016-11-03", help="a weekday of the RNV feed")
    p.add_argument("--cpu-rounds", type=int, default=2, help="passes of the CPU measurement")
    p.add_argument("--cpu-pairs", type=int, default=100, help="WALK,TRANSIT pairs it uses")
    p.add_argument("--http-seconds", type=float, default=0.0, help="per server and pass")
    p.add_argument("--http-clients", type=int, default=8)
    p.add_argument("--http-rounds", type=int, default=2, help="old, new passes of the load")
    p.add_argument("--out", type=Path, help="JSON record (default results/plan_identical.json)")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    graph_file = args.graph or bench_plan.RESULTS / "small_rnv.graph"
    net, _ = bench_plan.load_network(args.data / "small" / "rnv", graph_file, rebuild=False)
    when = dt.datetime.combine(dt.date.fromisoformat(args.date), dt.time(8, 0))
    reqs = requests(args, net, when)
    graph = net.street
    assert graph is not None
    cpu_paths = bench_plan.random_plan_paths(graph, args.cpu_pairs, 42, when)
    record: dict[str, Any] = {"old": str(args.old), "new": str(args.new), "requests": len(reqs)}
    with tempfile.TemporaryDirectory(prefix="plan-identical-") as tmp:
        graphs = Path(tmp)
        (graphs / "rnv").mkdir()
        shutil.copyfile(graph_file, graphs / "rnv" / "graph")
        with serve(args.old, graphs) as (old_url, old_pid), serve(args.new, graphs) as (
            new_url,
            new_pid,
        ):
            _log(f"old {old_url} (pid {old_pid}), new {new_url} (pid {new_pid})")
            for url in (old_url, new_url):  # warm-up (numba, caches), not compared
                bench_plan._warm(*_host_port(url), cpu_paths[0])
            t0 = time.perf_counter()
            per_mix = compare(old_url, new_url, reqs)
            record["compare_s"] = round(time.perf_counter() - t0, 1)
            record["mixes"] = per_mix
            for mix, rec in per_mix.items():
                _log(
                    f"{mix:20s} identical {rec['identical']:4d}  different {rec['different']:3d}"
                    f"  (itineraries {rec['itineraries']}, planner errors {rec['errors']})"
                )
                for ex in rec["examples"]:
                    _log(f"    {ex['difference']}  {ex['path']}")
            cpu: dict[str, list[float]] = {"old": [], "new": []}
            for _ in range(args.cpu_rounds):
                cpu["old"].append(cpu_per_plan(old_url, old_pid, cpu_paths))
                cpu["new"].append(cpu_per_plan(new_url, new_pid, cpu_paths))
            if cpu["old"]:
                o, n = min(cpu["old"]), min(cpu["new"])
                record["server_cpu_ms_per_plan"] = {
                    "old": round(o * 1000, 2),
                    "new": round(n * 1000, 2),
                    "ratio": round(n / o, 3),
                    "passes": {k: [round(x * 1000, 2) for x in v] for k, v in cpu.items()},
                }
                _log(f"server CPU per WALK,TRANSIT plan: {record['server_cpu_ms_per_plan']}")
            if args.http_seconds > 0:
                http: dict[str, list[dict[str, Any]]] = {"old": [], "new": []}
                for _ in range(args.http_rounds):
                    for name, url, pid in (("old", old_url, old_pid), ("new", new_url, new_pid)):
                        res = bench_plan.http_load(
                            url,
                            cpu_paths,
                            clients=args.http_clients,
                            seconds=args.http_seconds,
                            server_pid=pid,
                        )
                        http[name].append(res)
                        _log(
                            f"HTTP {name}: {res.get('plans_per_s')} plans/s, "
                            f"p50 {res.get('latency_ms', {}).get('p50')} ms, "
                            f"p95 {res.get('latency_ms', {}).get('p95')} ms, server CPU "
                            f"{res.get('server_cpu_ms_per_plan')} ms/plan (event loop "
                            f"{res.get('loop_cpu_ms_per_plan')})"
                        )
                record["http"] = http
    out = args.out or bench_plan.RESULTS / "plan_identical.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=2))
    different = sum(rec["different"] for rec in record["mixes"].values())
    identical = sum(rec["identical"] for rec in record["mixes"].values())
    _log(f"{identical} identical, {different} different; record in {out}")
    return 1 if different else 0


def _host_port(url: str) -> tuple[str, int]:
    parts = urllib.parse.urlsplit(url)
    return parts.hostname or "127.0.0.1", parts.port or 80


if __name__ == "__main__":
    raise SystemExit(main())
