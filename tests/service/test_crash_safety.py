"""``kill -9`` during a graph save, a scenario save and a point-set upload loses nothing.

One server process is frozen in the middle of all three: the graph upload and the
scenario save stop just before their rename (the new file is complete in its
temporary name, the moment a non-atomic writer would have half-overwritten the old
file), the point-set upload has sent half its body.  Then the process is killed
with SIGKILL; the previous files must be byte-identical, loadable, and served by a
restarted server (started in the test process: one server process less to import).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import http.client
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _fakes import Service

from otpa.analysis.scenario import RemoveRoutes, Scenario, ScenarioStore
from otpa.network import TransportNetwork
from otpa.testing.demo import demo_city_dir, demo_network
from service.auth import hash_password

pytestmark = [pytest.mark.http, pytest.mark.skipif(os.name != "posix", reason="POSIX signals")]

USER, PASSWORD = "alice", "secret-password"
SERVER = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    from service.auth import UserEntry
    from service.config import ServiceConfig
    from service.server import serve

    base = Path(sys.argv[1])
    hang = tuple(s for s in sys.argv[3:])
    real_replace = os.replace

    def frozen_replace(src, dst, *args, **kwargs):
        # freeze just before the rename of a file whose name ends as asked
        if any(str(dst).endswith(s) for s in hang):
            print("FROZEN", dst, flush=True)
            time.sleep(3600)
        return real_replace(src, dst, *args, **kwargs)

    os.replace = frozen_replace
    user = UserEntry("alice", sys.argv[2], frozenset({"ROUTERS"}))
    config = ServiceConfig(
        graphs_dir=base / "graphs",
        scenarios_dir=base / "scenarios",
        pointsets_dir=base / "pointsets",
        port=0,
        users={"alice": user},
    )
    serve(config, ready=lambda url: print("READY", url, flush=True))
    """
)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Server:
    def __init__(self, base: Path, password_hash: str, *hang: str) -> None:
        script = base / "server.py"
        script.write_text(SERVER)
        self.proc = subprocess.Popen(
            [sys.executable, str(script), str(base), password_hash, *hang],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        line = self.readline()
        assert line.startswith("READY"), line
        self.netloc = urllib.parse.urlsplit(line.split()[1]).netloc
        self.host, _, port = self.netloc.rpartition(":")
        self.port = int(port)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def readline(self) -> str:
        """The next line the server printed (a writer that never renames never freezes)."""
        try:
            return self.lines.get(timeout=120)
        except queue.Empty:
            return "<nothing printed>"

    def request(self, method: str, path: str, body: bytes | None = None, **headers: str) -> Any:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            conn.request(method, path, body=body, headers=headers)
            resp = conn.getresponse()
            return resp.status, resp.read()
        finally:
            conn.close()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)


def _auth() -> dict[str, str]:
    token = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


def test_kill_9_during_saves_keeps_the_previous_files(
    tmp_path: Path, make_service: Callable[..., Service]
) -> None:
    network = demo_network()
    graph = tmp_path / "graphs" / "demo" / "graph"
    graph.parent.mkdir(parents=True)
    graph.write_bytes((demo_city_dir() / "graph").read_bytes())
    route = str(network.transit.routes["route_id"].iloc[0])
    store = ScenarioStore(tmp_path / "scenarios")
    old_scenario = Scenario(name="old", modifications=(RemoveRoutes(routes=(route,)),), id="s1")
    store.save("demo", old_scenario)
    scenario_file = tmp_path / "scenarios" / "demo" / "s1.json"
    (tmp_path / "pointsets").mkdir()
    points = tmp_path / "pointsets" / "stations.csv"
    points.write_text("id,lat,lon,jobs\na,0.001,0.001,3\n")
    before = {p: _digest(p) for p in (graph, scenario_file, points)}
    new_graph = tmp_path / "new.graph"
    network.save(new_graph, compress=False)  # other bytes, the same network
    password_hash = hash_password(PASSWORD, n=2**4)

    server = Server(tmp_path, password_hash, "/graph", "s2.json")
    try:
        octet = {**_auth(), "Content-Type": "application/octet-stream"}
        json_type = {**_auth(), "Content-Type": "application/json"}
        remove = {"type": "remove-routes", "routes": [route]}
        new_scenario = {"name": "new", "id": "s2", "modifications": [remove]}
        calls = [
            ("POST", "/otp/routers/demo", new_graph.read_bytes(), octet),
            ("POST", "/otp/routers/demo/scenarios", json.dumps(new_scenario).encode(), json_type),
        ]
        def send(method: str, path: str, body: bytes, headers: dict[str, str]) -> None:
            with contextlib.suppress(OSError, http.client.HTTPException):  # killed under it
                server.request(method, path, body, **headers)

        for call in calls:
            threading.Thread(target=send, args=call, daemon=True).start()
        frozen = {server.readline().split()[0] for _ in calls}
        assert frozen == {"FROZEN"}
        # a point-set upload with half its body sent
        upload = socket.create_connection((server.host, server.port))
        body = b"id,lat,lon,jobs\n" + b"b,0.002,0.002,4\n" * 1000
        auth = _auth()["Authorization"]
        upload.sendall(
            f"POST /otp/pointsets?id=stations2 HTTP/1.1\r\nHost: x\r\nAuthorization: {auth}\r\n"
            f"Content-Type: text/csv\r\nContent-Length: {len(body)}\r\n\r\n".encode()
            + body[: len(body) // 2]
        )
        time.sleep(0.2)
    finally:
        server.kill()
    upload.close()

    assert {p: _digest(p) for p in before} == before  # byte for byte the previous files
    assert TransportNetwork.load(graph).summary() == network.summary()
    assert store.get("demo", "s1").name == "old"

    # the restarted server (in this process: it reads the same folders as the killed one)
    restarted = make_service(
        loader=None,
        graphs_dir=tmp_path / "graphs",
        scenarios_dir=tmp_path / "scenarios",
        pointsets_dir=tmp_path / "pointsets",
    )
    info = restarted.get("/otp/routers/demo")
    assert info.status == 200
    assert info.json()["routerId"] == "demo"
    doc = restarted.get("/otp/routers/demo/scenarios/s1")
    assert (doc.status, doc.json()["name"]) == (200, "old")
    listed = restarted.get("/otp/routers/demo/scenarios")
    assert (listed.status, listed.json()) == (200, {"s1": "old"})  # s2 never landed
    pointset = restarted.get("/otp/pointsets/stations")
    assert pointset.status == 200
    assert len(pointset.json()["features"]) == 1
