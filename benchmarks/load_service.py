"""Load test of the HTTP service on loopback: mixed traffic while graphs are reloaded.

Usage::

    .venv/bin/python benchmarks/load_service.py [--graph FILE] [--clients 32] [--seconds 300]
        [--reload-every 10] [--realtime-every 5] [--plans-only] [--date 2026-03-04]
        [--mix plan=4,index=3,graphql=2,isochrone=1] [--isochrone-modes "WALK,TRANSIT;WALK"]

A server process (``python -m service``) serves one graph (``--graph``; default the RNV
graph cached by ``bench_plan.py``, ``benchmarks/results/small_rnv.graph``) from a
temporary graphs folder.  ``--clients`` threads, each with a keep-alive connection,
send a mix of requests for ``--seconds``:

* ``plan`` (42 %): WALK,TRANSIT between two random stops (``numItineraries=3``);
* ``index`` (32 %): the stops within 500 m of a point, a stop's routes;
* ``graphql`` (24 %): ``stopsByRadius`` around a point with each stop's routes;
* ``isochrone`` (2 %): 10 and 20-minute isochrones from a random stop, half of them
  WALK,TRANSIT, half walking (``--isochrone-modes``; see below).

``--mix plan=4,index=3,graphql=2,isochrone=1`` gives other shares (the suite's smoke run
uses 10 % isochrones on the demo city).

Meanwhile the graph is reloaded from disk (``PUT /otp/routers/{id}``) every
``--reload-every`` seconds, a GTFS-RT trip-updates feed (a ``stop-time-updater`` of the
router's ``router-config.json``, polling a file) is rewritten with new delays for random
trips every ``--realtime-every`` seconds, and the server's RSS is sampled every second.
It reports throughput, latency percentiles per kind, errors (transport failures and
unexpected statuses), shed requests (503 with ``Retry-After``, counted apart), RSS
min/max and its trend (least-squares slope over the run, MB per minute) and the
real-time updater's status at the end.
``--plans-only`` sends only plans (the throughput goal: >= 100 plans/s with 8 clients).

Why isochrones are 2 % of the mix: a WALK,TRANSIT isochrone on RNV covers most of the
network (a ~47,000-cell grid).  Until session 8 every stop was linked to that grid
(~3.4-5 CPU-s, over 100 plans' worth; a walking one ~0.2-1 CPU-s); now only the stops
the origin's transit search reaches are (~0.5 CPU-s, a walking one ~0.02 CPU-s; see
``docs/performance.md``).  At load 15 with the old cost, the two analysis threads served
only a few a minute, so one request in ten (of ~4 answered a second) queued the clients
behind them (shed 503s by design, 504s at the 120-s limit).
``--mix plan=4,index=3,graphql=2,isochrone=1`` reproduces that mix.

:func:`run_load` is also the suite's smoke run (``tests/service/test_load_smoke.py``).
A JSON record goes to ``benchmarks/results/load_service.json``.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import dataclasses
import http.client
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import psutil

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
USER, PASSWORD = "loadtest", "load-test-password"
#: The request kinds and their shares (the smoke run's mix).
MIX = (("plan", 0.4), ("index", 0.3), ("graphql", 0.2), ("isochrone", 0.1))
#: The 5-minute run's default mix: isochrones sized to the two analysis threads (see above).
RUN_MIX = (("plan", 0.42), ("index", 0.32), ("graphql", 0.24), ("isochrone", 0.02))
GRAPHQL = (
    "query ($lat: Float!, $lon: Float!) { stopsByRadius(lat: $lat, lon: $lon, radius: 500, "
    "first: 10) { edges { node { distance stop { gtfsId name routes { shortName } } } } } }"
)
#: Statuses that are a correct answer to the generated requests.
EXPECTED = frozenset({200, 201})  # GraphQL answers 201, as OTP 1.x did


@dataclasses.dataclass
class LoadResult:
    """What a load run measured."""

    seconds: float
    clients: int
    counts: dict[str, int]
    latency_ms: dict[str, dict[str, float]]
    errors: int
    error_samples: list[str]
    shed: int
    server_errors: int
    reloads: int
    reload_failures: int
    rss_mb: dict[str, float]
    #: (seconds since the start, MB) samples
    rss_series: list[tuple[float, float]] = dataclasses.field(default_factory=list)
    #: feed rewrites, and the updater's status at the end (None: no real-time updates)
    realtime: dict[str, Any] | None = None
    #: reloaded networks still in memory (health's ``memory.retiredAlive``): max and last
    retired_networks: dict[str, int] = dataclasses.field(default_factory=dict)

    @property
    def rss_slope_mb_per_min(self) -> float:
        """Least-squares slope of the RSS samples (after the first 10 %), MB per minute."""
        if len(self.rss_series) < 3:
            return float("nan")
        t, mb = np.asarray(self.rss_series).T
        keep = t >= 0.1 * t[-1]  # the first seconds fill caches
        return float(np.polyfit(t[keep], mb[keep], 1)[0] * 60.0)

    @property
    def throughput(self) -> float:
        """Answered requests per second (all kinds)."""
        return sum(self.counts.values()) / self.seconds

    def table(self) -> str:
        """A plain-text table of the numbers."""
        lines = [f"{'kind':<10}{'n':>8}{'req/s':>9}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}"]
        for kind, stats in self.latency_ms.items():
            n = self.counts.get(kind, 0)
            lines.append(
                f"{kind:<10}{n:>8}{n / self.seconds:>9.1f}{stats['p50']:>9.1f}"
                f"{stats['p95']:>9.1f}{stats['p99']:>9.1f}"
            )
        lines.append(
            f"total {sum(self.counts.values())} requests in {self.seconds:.0f} s "
            f"({self.throughput:.1f}/s), {self.clients} clients; errors {self.errors}, "
            f"5xx {self.server_errors}, shed {self.shed}; reloads {self.reloads} "
            f"({self.reload_failures} failed); RSS {self.rss_mb['min']:.0f}-"
            f"{self.rss_mb['max']:.0f} MB (first {self.rss_mb['first']:.0f}, last "
            f"{self.rss_mb['last']:.0f}, trend {self.rss_slope_mb_per_min:+.2f} MB/min)"
        )
        if self.retired_networks:
            lines.append(
                f"reloaded networks still alive (requests running on them): max "
                f"{self.retired_networks['max']}, at the end {self.retired_networks['last']}"
            )
        if self.realtime is not None:
            rt = self.realtime
            lines.append(
                f"real-time: {rt['writes']} feed rewrites; updater at the end: "
                f"{rt.get('polls', 0)} polls, {rt.get('successes', 0)} applied, "
                f"{rt.get('failures', 0)} failed, last feed {rt.get('applied', 0)} trips "
                f"(snapshot {rt.get('snapshot')})"
            )
        return "\n".join(lines)


class Server:
    """``python -m service`` serving one graph, with a user allowed to reload it."""

    def __init__(
        self,
        graph: Path,
        router: str,
        workdir: Path,
        *,
        heavy_workers: int,
        realtime_every: float | None = None,
    ) -> None:
        sys.path.insert(0, str(ROOT))
        from service.auth import hash_password

        target = workdir / "graphs" / router / "graph"
        target.parent.mkdir(parents=True)
        #: the trip-updates file the router's stop-time-updater polls (None: no updater)
        self.realtime_feed: Path | None = None
        if realtime_every is not None:
            self.realtime_feed = target.parent / "rt" / "trip-updates.pb"
            self.realtime_feed.parent.mkdir()
            write_feed(self.realtime_feed, [])
            updater = {
                "type": "stop-time-updater",
                "sourceType": "gtfs-file",
                "file": "rt/trip-updates.pb",
                "frequencySec": realtime_every,
            }
            (target.parent / "router-config.json").write_text(json.dumps({"updaters": [updater]}))
        try:
            os.link(graph, target)
        except OSError:
            shutil.copyfile(graph, target)
        config = workdir / "service.json"
        config.write_text(
            json.dumps(
                {
                    "graphs_dir": str(workdir / "graphs"),
                    "routers": [router],
                    "port": 0,
                    "heavy_workers": heavy_workers,
                    "users": {
                        USER: {
                            "password_hash": hash_password(PASSWORD, n=2**10),
                            "roles": ["ROUTERS"],
                        }
                    },
                }
            )
        )
        cmd = [sys.executable, "-m", "service", "--config", str(config), "--log-level", "ERROR"]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True, env=env)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        found = re.search(r"http://([^/\s]+)/", line)
        if found is None:
            self.proc.kill()
            msg = f"service did not start: {line!r}"
            raise RuntimeError(msg)
        host, _, port = found.group(1).rpartition(":")
        self.host, self.port, self.router = host, int(port), router

    def connection(self, timeout: float = 180.0) -> http.client.HTTPConnection:
        """A new keep-alive connection to the server (waiting longer than its 120-s limit)."""
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def rss_mb(self) -> float:
        """The server process's resident memory."""
        return psutil.Process(self.proc.pid).memory_info().rss / 1024**2

    def stop(self) -> None:
        """SIGTERM (drains), then wait."""
        self.proc.terminate()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def write_feed(path: Path, delays: list[tuple[str, str, str, int]]) -> None:
    """Write a GTFS-RT trip-updates feed atomically: ``(trip, start date, first stop, delay s)``."""
    from google.transit import gtfs_realtime_pb2

    msg = gtfs_realtime_pb2.FeedMessage()
    msg.header.gtfs_realtime_version = "2.0"
    msg.header.timestamp = int(time.time())
    for i, (trip, day, stop, delay) in enumerate(delays):
        entity = msg.entity.add(id=str(i))
        entity.trip_update.trip.trip_id = trip
        entity.trip_update.trip.start_date = day.replace("-", "")
        update = entity.trip_update.stop_time_update.add(stop_id=stop)
        update.arrival.delay = delay
        update.departure.delay = delay
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(msg.SerializeToString())
    os.replace(tmp, path)


def _local(scoped: str) -> str:
    return scoped.split(":", 1)[1] if ":" in scoped else scoped


def realtime_trips(server: Server, *, routes: int = 12) -> list[tuple[str, str]]:
    """(GTFS trip id, GTFS id of its first stop) of trips of some routes, for the feed."""
    conn = server.connection()
    base = f"/otp/routers/{server.router}/index"
    _, _, body = _call(conn, "GET", f"{base}/routes")
    found: list[tuple[str, str]] = []
    for route in json.loads(body)[:routes]:
        rid = urllib.parse.quote(route["id"])
        _, _, body = _call(conn, "GET", f"{base}/routes/{rid}/trips")
        for trip in json.loads(body)[:5]:
            tid = urllib.parse.quote(trip["id"])
            status, _, body = _call(conn, "GET", f"{base}/trips/{tid}/stoptimes")
            times = json.loads(body) if status == 200 else []
            if times:
                found.append((_local(trip["id"]), _local(times[0]["stopId"])))
    conn.close()
    return found


def _call(conn: http.client.HTTPConnection, method: str, path: str, **kw: Any) -> Any:
    conn.request(method, path, **kw)
    resp = conn.getresponse()
    return resp.status, resp.getheader("Retry-After"), resp.read()


class Workload:
    """Random requests over the stops of the served router."""

    def __init__(
        self,
        server: Server,
        date: str,
        *,
        plans_only: bool,
        seed: int,
        mix: tuple[tuple[str, float], ...] = MIX,
        isochrone_modes: tuple[str, ...] = ("WALK,TRANSIT", "WALK"),
    ) -> None:
        conn = server.connection()
        status, _, body = _call(conn, "GET", f"/otp/routers/{server.router}/index/stops")
        conn.close()
        if status != 200:
            msg = f"cannot list stops: {status}"
            raise RuntimeError(msg)
        stops = json.loads(body)
        self.stops = [(s["id"], s["lat"], s["lon"]) for s in stops]
        self.base = f"/otp/routers/{server.router}"
        self.date = date
        self.plans_only = plans_only
        self.seed = seed
        self.mix = tuple((k, w) for k, w in mix if w > 0)
        self.isochrone_modes = isochrone_modes

    def request(self, rng: random.Random) -> tuple[str, str, str, dict[str, Any]]:
        """(kind, method, path, extra http.client arguments) of one random request."""
        kind = "plan"
        if not self.plans_only:
            kind = rng.choices([k for k, _ in self.mix], weights=[w for _, w in self.mix])[0]
        sid, lat, lon = rng.choice(self.stops)
        if kind == "plan":
            _, lat2, lon2 = rng.choice(self.stops)
            query = {
                "fromPlace": f"{lat:.6f},{lon:.6f}",
                "toPlace": f"{lat2:.6f},{lon2:.6f}",
                "date": self.date,
                "time": f"{rng.randint(7, 18)}:{rng.randint(0, 59):02d}",
                "mode": "WALK,TRANSIT",
                "numItineraries": "3",
            }
            return kind, "GET", f"{self.base}/plan?{urllib.parse.urlencode(query)}", {}
        if kind == "index":
            if rng.random() < 0.5:
                query = urllib.parse.urlencode({"lat": lat, "lon": lon, "radius": 500})
                return kind, "GET", f"{self.base}/index/stops?{query}", {}
            return kind, "GET", f"{self.base}/index/stops/{urllib.parse.quote(sid)}/routes", {}
        if kind == "graphql":
            body = json.dumps({"query": GRAPHQL, "variables": {"lat": lat, "lon": lon}})
            headers = {"Content-Type": "application/json"}
            return kind, "POST", f"{self.base}/index/graphql", {"body": body, "headers": headers}
        query = urllib.parse.urlencode(
            [
                ("fromPlace", f"{lat:.6f},{lon:.6f}"),
                ("date", self.date),
                ("time", "8:00am"),
                ("mode", rng.choice(self.isochrone_modes)),
                ("cutoffSec", 600),
                ("cutoffSec", 1200),
            ]
        )
        return kind, "GET", f"{self.base}/isochrone?{query}", {}


def _percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"p50": float("nan"), "p95": float("nan"), "p99": float("nan")}
    arr = np.asarray(values) * 1000.0
    p50, p95, p99 = np.percentile(arr, [50, 95, 99])
    return {"p50": float(p50), "p95": float(p95), "p99": float(p99)}


def warm_up(server: Server, workload: Workload, *, rounds: int = 3) -> None:
    """Send a few requests of every kind first (JIT compilation, caches), unmeasured."""
    rng = random.Random(workload.seed)
    conn = server.connection(timeout=600)
    wanted = {"plan"} if workload.plans_only else {k for k, _ in workload.mix}
    seen: dict[str, int] = dict.fromkeys(wanted, 0)
    while min(seen.values()) < rounds:
        kind, method, path, extra = workload.request(rng)
        if seen[kind] < rounds:
            _call(conn, method, path, **extra)
            seen[kind] += 1
    conn.close()


def run_load(
    server: Server,
    workload: Workload,
    *,
    clients: int,
    seconds: float,
    reload_every: float | None,
    realtime_every: float | None = None,
) -> LoadResult:
    """Send the workload from ``clients`` threads for ``seconds``; reload the graph meanwhile.

    With ``realtime_every`` (and a server made with it), the trip-updates feed is rewritten
    that often with new delays for random trips.
    """
    stop = threading.Event()
    lock = threading.Lock()
    latencies: dict[str, list[float]] = {k: [] for k, _ in MIX}
    errors: list[str] = []
    shed = [0]
    server_errors = [0]
    reloads = [0, 0]
    rss: list[float] = []
    rss_series: list[tuple[float, float]] = []
    writes = [0]
    retired: list[int] = []

    def client(index: int) -> None:
        rng = random.Random(workload.seed * 1000 + index)
        conn = server.connection()
        while not stop.is_set():
            kind, method, path, extra = workload.request(rng)
            started = time.perf_counter()
            try:
                status, retry_after, body = _call(conn, method, path, **extra)
            except (OSError, http.client.HTTPException) as exc:
                conn.close()
                conn = server.connection()
                with lock:
                    errors.append(f"{kind}: {type(exc).__name__}: {exc}")
                continue
            elapsed = time.perf_counter() - started
            with lock:
                if status == 503 and retry_after is not None:
                    shed[0] += 1
                elif status in EXPECTED:
                    latencies[kind].append(elapsed)
                else:
                    server_errors[0] += status >= 500
                    errors.append(f"{kind} {path[:120]} -> {status}: {body[:160]!r}")
        conn.close()

    def reloader() -> None:
        auth = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
        headers = {"Authorization": f"Basic {auth}"}
        while reload_every is not None and not stop.wait(reload_every):
            conn = server.connection(timeout=600)
            try:
                status, _, _ = _call(conn, "PUT", f"/otp/routers/{server.router}", headers=headers)
            except (OSError, http.client.HTTPException):
                status = -1
            finally:
                conn.close()
            with lock:
                reloads[0] += 1
                reloads[1] += status != 201

    def sampler() -> None:
        conn = server.connection()
        while not stop.wait(1.0):
            with contextlib.suppress(psutil.Error):
                mb = server.rss_mb()
                rss.append(mb)
                rss_series.append((time.perf_counter() - started, mb))
            retired.extend(_retired_alive(conn))
        conn.close()

    def realtime() -> None:
        _rewrite_feed(server, workload, realtime_every, stop, writes, trips)

    warm_up(server, workload)
    trips = realtime_trips(server) if server.realtime_feed is not None else []
    rss.append(server.rss_mb())
    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
    threads += [
        threading.Thread(target=reloader, daemon=True),
        threading.Thread(target=sampler, daemon=True),
        threading.Thread(target=realtime, daemon=True),
    ]
    started = time.perf_counter()
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join(600)
    elapsed = time.perf_counter() - started
    rss.append(server.rss_mb())
    return LoadResult(
        seconds=elapsed,
        clients=clients,
        counts={k: len(v) for k, v in latencies.items() if v or not workload.plans_only},
        latency_ms={
            k: _percentiles(v) for k, v in latencies.items() if v or not workload.plans_only
        },
        errors=len(errors),
        error_samples=errors[:20],
        shed=shed[0],
        server_errors=server_errors[0],
        reloads=reloads[0],
        reload_failures=reloads[1],
        rss_mb={"min": min(rss), "max": max(rss), "first": rss[0], "last": rss[-1]},
        rss_series=rss_series,
        realtime=_realtime_report(server, writes[0]),
        retired_networks=_max_and_last(retired),
    )


def _max_and_last(values: list[int]) -> dict[str, int]:
    return {"max": max(values), "last": values[-1]} if values else {}


def _retired_alive(conn: http.client.HTTPConnection) -> list[int]:
    """``[n]``: health's count of reloaded networks still in memory; ``[]`` when unreadable."""
    try:
        status, _, body = _call(conn, "GET", "/otp/health")
    except (OSError, http.client.HTTPException):
        conn.close()  # reconnects on the next request
        return []
    if status != 200:
        return []
    return [int(json.loads(body).get("memory", {}).get("retiredAlive", 0))]


def _rewrite_feed(
    server: Server,
    workload: Workload,
    every: float | None,
    stop: threading.Event,
    writes: list[int],
    trips: list[tuple[str, str]],
) -> None:
    """Rewrite the server's trip-updates feed every ``every`` s (delays of ``trips``)."""
    feed = server.realtime_feed
    if feed is None or every is None or not trips:
        return
    rng = random.Random(workload.seed)
    while not stop.wait(every):
        chosen = rng.sample(trips, min(len(trips), 20))
        write_feed(feed, [(t, workload.date, s, 60 * rng.randint(1, 10)) for t, s in chosen])
        writes[0] += 1


def _realtime_report(server: Server, writes: int) -> dict[str, Any] | None:
    """Feed rewrites and the updater's status; None for a server without an updater."""
    if server.realtime_feed is None:
        return None
    return {"writes": writes, **_updater_status(server)}


def _updater_status(server: Server) -> dict[str, Any]:
    """The router's first updater's status (``GET .../updaters``), {} when it has none."""
    conn = server.connection()
    status, _, body = _call(conn, "GET", f"/otp/routers/{server.router}/updaters")
    conn.close()
    if status != 200:
        return {}
    found = json.loads(body)
    first = found.get("0") if isinstance(found, dict) else found[0] if found else None
    return dict(first) if isinstance(first, dict) else {}


@contextlib.contextmanager
def serving(
    graph: Path, router: str, *, heavy_workers: int = 4, realtime_every: float | None = None
) -> Iterator[Server]:
    """A :class:`Server` over ``graph`` in a temporary folder, stopped afterwards."""
    with tempfile.TemporaryDirectory(prefix="otpa-load-") as tmp:
        server = Server(
            graph, router, Path(tmp), heavy_workers=heavy_workers, realtime_every=realtime_every
        )
        try:
            yield server
        finally:
            server.stop()


def main(argv: list[str] | None = None) -> int:
    """Run the load test and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graph", type=Path, default=HERE / "results" / "small_rnv.graph")
    parser.add_argument("--router", default="rnv")
    parser.add_argument("--date", default=None, help="service day (YYYY-MM-DD)")
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--reload-every", type=float, default=10.0)
    parser.add_argument(
        "--realtime-every", type=float, default=5.0, help="seconds; 0: no real-time updates"
    )
    parser.add_argument("--heavy-workers", type=int, default=4)
    parser.add_argument("--plans-only", action="store_true")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--isochrone-modes",
        default="WALK,TRANSIT;WALK",
        help="the isochrones' modes, one of these at random (';' between choices)",
    )
    parser.add_argument(
        "--mix", default=None, help="weights, e.g. plan=4,index=3,graphql=2,isochrone=1"
    )
    args = parser.parse_args(argv)
    if not args.graph.exists():
        parser.error(f"{args.graph} missing: run benchmarks/bench_plan.py once to build it")
    realtime_every = None if args.plans_only or args.realtime_every <= 0 else args.realtime_every
    with serving(
        args.graph, args.router, heavy_workers=args.heavy_workers, realtime_every=realtime_every
    ) as server:
        date = args.date or _service_day(server)
        mix = RUN_MIX
        if args.mix:
            weights = dict(part.split("=") for part in args.mix.split(","))
            mix = tuple((k, float(weights.get(k, 0))) for k, _ in MIX)
        workload = Workload(
            server,
            date,
            plans_only=args.plans_only,
            seed=args.seed,
            mix=mix,
            isochrone_modes=tuple(args.isochrone_modes.split(";")),
        )
        result = run_load(
            server,
            workload,
            clients=args.clients,
            seconds=args.seconds,
            reload_every=None if args.plans_only else args.reload_every,
            realtime_every=realtime_every,
        )
    print(result.table())
    for sample in result.error_samples[:5]:
        print("  error:", sample)
    out = HERE / "results" / ("load_service_plans.json" if args.plans_only else "load_service.json")
    out.parent.mkdir(exist_ok=True)
    record = dataclasses.asdict(result) | {
        "throughput": result.throughput,
        "rss_slope_mb_per_min": result.rss_slope_mb_per_min,
        "date": date,
        "isochrone_modes": args.isochrone_modes,
        "load_average": os.getloadavg(),
    }
    out.write_text(json.dumps(record, indent=1))
    return 0 if result.errors == 0 else 1


def _service_day(server: Server) -> str:
    """A weekday inside the router's service period (from its RouterInfo)."""
    conn = server.connection()
    _, _, body = _call(conn, "GET", f"/otp/routers/{server.router}")
    conn.close()
    info = json.loads(body)
    start = float(info.get("transitServiceStarts") or time.time())
    seconds = start / 1000 if start > 1e11 else start  # seconds (OTP), or milliseconds
    day = time.gmtime(seconds + 86400)
    while day.tm_wday >= 5:  # a weekday
        day = time.gmtime(time.mktime(day) + 86400)
    return time.strftime("%Y-%m-%d", day)


if __name__ == "__main__":
    sys.exit(main())
