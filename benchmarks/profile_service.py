"""Where a ``/plan`` request's server CPU goes: the job's phases, the event loop, the pool.

Usage::

    .venv/bin/python benchmarks/profile_service.py [--tree PATH[@opt=value,...]]...
        [--clients 8] [--seconds 15] [--rounds 1] [--one] [--pairs 100] [--graph FILE]

Each ``--tree`` (default: this checkout) runs an instrumented ``python -m service``
(``PYTHONPATH=<tree>``) over the saved RNV graph (``results/small_rnv.graph``, built by
``bench_plan.py`` when missing).  The instrumentation is applied from outside, so any
tree can be measured: the phases of the heavy pool's job
(:func:`service.handlers.plan.plan_answer`: ``geocode_places``,
``plan_request_from_query``, the planner, ``plan_response``, ``_encode``) are wrapped to
add up their thread CPU time; cyclic garbage collections are timed (``gc.callbacks``);
and ``/proc`` gives each thread's user and system CPU and context switches.  The client
(``bench_plan.http_load``: the bench's 100 WALK,TRANSIT pairs, ``--clients`` keep-alive
connections) runs in this process; each pass reports, per answered request:

* ``process`` -- the server's CPU (what ``bench_plan.py`` calls server CPU per plan);
* ``loop`` / ``loop_sys`` -- the event-loop thread (Tornado: parse, route, hand over, write);
* ``heavy`` / ``heavy_sys`` -- the heavy pool's threads; ``job`` the job's own thread CPU
  and its phases, ``plan`` the planner (``otpa.plan``);
* ``gc`` -- cyclic collections; ``cs_heavy`` / ``cs_loop`` -- voluntary + involuntary
  context switches;
* ``client`` -- this process's CPU (the load generator, which shares the cores).

``--one`` adds a pass with one client sending the pairs one after the other (no
contention: the service's own cost).  Options after ``@`` tune a tree's server:
``heavy=N`` (heavy pool threads), ``switch=S`` (``sys.setswitchinterval``),
``gc=A:B:C`` (``gc.set_threshold``), e.g. ``--tree .@heavy=2 --tree .@heavy=4``.
Trees and options alternate within each round, so compare them in one run (CPU
times on a shared machine are only comparable within a run).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import gc
import json
import os
import runpy
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

#: The job's phases: names in :mod:`service.handlers.plan` wrapped to add up thread CPU.
PHASES = ("plan_answer", "geocode_places", "plan_request_from_query", "plan_response", "_encode")


# ----------------------------------------------------------------------------- server side


def _instrumented_server(argv: Sequence[str]) -> None:
    """Run ``python -m service`` with counters; SIGUSR1 writes them to ``$PROFILE_OUT``."""
    import otpa
    import service.handlers.plan as plan_handler

    lock = threading.Lock()
    cpu: defaultdict[str, float] = defaultdict(float)

    def wrap(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                took = time.thread_time() - t0
                with lock:
                    cpu[name] += took

        return timed

    for name in PHASES:
        setattr(plan_handler, name, wrap(name, getattr(plan_handler, name)))
    otpa.plan = wrap("plan", otpa.plan)  # the handler's default planner, read per request

    started: dict[int, float] = {}

    def on_gc(phase: str, info: dict[str, int]) -> None:
        me = threading.get_ident()
        if phase == "start":
            started[me] = time.thread_time()
        elif me in started:
            cpu["gc"] += time.thread_time() - started.pop(me)

    gc.callbacks.append(on_gc)
    if os.environ.get("PROFILE_SWITCH"):
        sys.setswitchinterval(float(os.environ["PROFILE_SWITCH"]))
    if os.environ.get("PROFILE_GC"):
        gc.set_threshold(*(int(x) for x in os.environ["PROFILE_GC"].split(":")))

    def dump(*_: Any) -> None:
        with lock:
            record = {"cpu": dict(cpu), "threads": _thread_counters()}
        tmp = os.environ["PROFILE_OUT"] + ".tmp"
        Path(tmp).write_text(json.dumps(record))
        os.replace(tmp, os.environ["PROFILE_OUT"])

    signal.signal(signal.SIGUSR1, dump)
    sys.argv = ["service", *argv]
    runpy.run_module("service", run_name="__main__")


def _thread_counters() -> dict[str, float]:
    """CPU seconds (user, sys) and context switches of this process's threads, by group."""
    names = {t.native_id: t.name for t in threading.enumerate()}
    tick = os.sysconf("SC_CLK_TCK")
    out: defaultdict[str, float] = defaultdict(float)
    pid = os.getpid()
    for tid in os.listdir(f"/proc/{pid}/task"):
        name = names.get(int(tid), "")
        group = "loop" if name == "MainThread" else "heavy" if "heavy" in name else "other"
        try:
            fields = Path(f"/proc/{pid}/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()
            status = Path(f"/proc/{pid}/task/{tid}/status").read_text()
        except OSError:  # the thread ended
            continue
        out[group] += int(fields[11]) / tick
        out[group + "_sys"] += int(fields[12]) / tick
        out["process"] += (int(fields[11]) + int(fields[12])) / tick
        for line in status.splitlines():
            if "ctxt_switches:" in line:
                out["cs_" + group] += int(line.split()[1])
    return dict(out)


# ----------------------------------------------------------------------------- client side


def _log(msg: str) -> None:
    print(f"[profile_service {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


@contextlib.contextmanager
def _serve(spec: str, graphs: Path, index: int, tmp: Path) -> Iterator[tuple[str, int, Path]]:
    """An instrumented server of ``tree[@options]``; yields (URL, pid, counters file)."""
    from check_plan_identical import server_url  # (on sys.path: main puts it there)

    tree, _, options = spec.partition("@")
    out = tmp / f"counters_{index}.json"
    env = {**os.environ, "PYTHONPATH": str(Path(tree).resolve()), "PROFILE_OUT": str(out)}
    extra: list[str] = []
    for option in filter(None, options.split(",")):
        key, _, value = option.partition("=")
        if key == "heavy":
            config = tmp / f"config_{index}.json"
            config.write_text(json.dumps({"heavy_workers": int(value)}))
            extra += ["--config", str(config)]
        elif key in ("switch", "gc"):
            env[f"PROFILE_{key.upper()}"] = value
        else:
            msg = f"unknown option {key!r} (heavy, switch, gc)"
            raise SystemExit(msg)
    cmd = [sys.executable, str(Path(__file__).resolve()), "--serve", "--graphs", str(graphs)]
    cmd += ["--router", "rnv", "--port", "0", "--log-level", "WARNING", *extra]
    proc = subprocess.Popen(cmd, cwd=tree, env=env, stdout=subprocess.PIPE, text=True)
    try:
        yield server_url(proc, f"server of {spec}"), proc.pid, out
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _counters(pid: int, out: Path) -> dict[str, Any]:
    out.unlink(missing_ok=True)
    os.kill(pid, signal.SIGUSR1)
    for _ in range(200):
        time.sleep(0.05)
        with contextlib.suppress(FileNotFoundError, json.JSONDecodeError):
            record: dict[str, Any] = json.loads(out.read_text())
            return record
    msg = "the server wrote no counters"
    raise RuntimeError(msg)


def _per_request(before: dict[str, Any], after: dict[str, Any], n: int) -> dict[str, float]:
    """Milliseconds (context switches: count) per request between two snapshots."""
    res: dict[str, float] = {}
    for kind in ("cpu", "threads"):
        for key, value in after[kind].items():
            scale = 1.0 if key.startswith("cs_") else 1000.0
            res[key] = round(scale * (value - before[kind].get(key, 0.0)) / n, 3)
    res["job"] = res.pop("plan_answer", 0.0)
    return res


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tree", action="append", help="checkout[@heavy=N,switch=S,gc=A:B:C]")
    p.add_argument("--graph", type=Path, help="saved RNV graph (default results/small_rnv.graph)")
    p.add_argument("--pairs", type=int, default=100, help="WALK,TRANSIT pairs (bench seed 42)")
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--seconds", type=float, default=15.0, help="per tree and round")
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--one", action="store_true", help="also one client, requests in sequence")
    p.add_argument("--out", type=Path, help="JSON record (default results/profile_service.json)")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    sys.path.insert(0, str(HERE))
    import bench_plan
    import check_plan_identical

    graph_file = args.graph or bench_plan.RESULTS / "small_rnv.graph"
    data = bench_plan._default_data() / "small" / "rnv"
    net, _ = bench_plan.load_network(data, graph_file, rebuild=False)
    graph = net.street
    assert graph is not None
    when = dt.datetime(2016, 11, 3, 8, 0)
    paths = bench_plan.random_plan_paths(graph, args.pairs, 42, when)
    trees = args.tree or [str(ROOT)]
    record: dict[str, Any] = {"trees": trees, "passes": []}
    with tempfile.TemporaryDirectory(prefix="profile-service-") as tmp_name:
        tmp = Path(tmp_name)
        (tmp / "graphs" / "rnv").mkdir(parents=True)
        shutil.copyfile(graph_file, tmp / "graphs" / "rnv" / "graph")
        with contextlib.ExitStack() as stack:
            servers = [
                stack.enter_context(_serve(spec, tmp / "graphs", i, tmp))
                for i, spec in enumerate(trees)
            ]
            for url, _, _ in servers:  # warm-up: numba, caches, the first collections
                conn = check_plan_identical._conn(url)
                for path in paths[:20]:
                    check_plan_identical._get(conn, path, False)
                conn.close()
            for round_no in range(args.rounds):
                for spec, (url, pid, out) in zip(trees, servers, strict=True):
                    if args.one:
                        before = _counters(pid, out)
                        check_plan_identical.cpu_per_plan(url, pid, paths)
                        res = _per_request(before, _counters(pid, out), len(paths))
                        record["passes"].append({"tree": spec, "clients": 1, **res})
                        _log(f"{spec} 1 client (sequential): {res}")
                    before = _counters(pid, out)
                    client0 = time.process_time()
                    load = bench_plan.http_load(
                        url, paths, clients=args.clients, seconds=args.seconds, server_pid=pid
                    )
                    client_s = time.process_time() - client0
                    answered = load["responses"] + args.clients  # the warm-up requests too
                    res = _per_request(before, _counters(pid, out), answered)
                    res["client"] = round(1000 * client_s / answered, 3)
                    summary = {
                        "plans_per_s": load.get("plans_per_s"),
                        "p50_ms": load.get("latency_ms", {}).get("p50"),
                        "p95_ms": load.get("latency_ms", {}).get("p95"),
                        "load_average": round(os.getloadavg()[0], 1),
                    }
                    record["passes"].append(
                        {"tree": spec, "round": round_no, "clients": args.clients, **summary, **res}
                    )
                    _log(f"{spec} {args.clients} clients: {summary} {res}")
    out_file = args.out or bench_plan.RESULTS / "profile_service.json"
    out_file.parent.mkdir(parents=True, exist_ok=True)
    out_file.write_text(json.dumps(record, indent=2))
    _log(f"record in {out_file}")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        _instrumented_server(sys.argv[2:])
    else:
        raise SystemExit(main())
