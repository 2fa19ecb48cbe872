"""serve / start_in_thread / build_registry / python -m service."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from _fakes import ALPHA, BETA, FakeNetwork

from service.config import ServiceConfig
from service.server import ServiceStartError, build_registry, service_url, start_in_thread

pytestmark = pytest.mark.http

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_build_registry_scans_graphs_dir(graphs_base: Path) -> None:
    reg = build_registry(ServiceConfig(graphs_dir=graphs_base), loader=FakeNetwork.load)
    assert reg.ids() == ["alpha", "beta"]
    assert reg.default_id == "alpha"


def test_build_registry_networks_first(graphs_base: Path) -> None:
    mem = FakeNetwork(name="mem")
    config = ServiceConfig(graphs_dir=graphs_base)
    reg = build_registry(config, {"zulu": mem, "alpha": BETA}, loader=FakeNetwork.load)
    assert reg.ids() == ["zulu", "alpha", "beta"]
    assert reg.get("default") == mem
    assert reg.get("alpha") == BETA  # in-memory networks are not replaced from disk


def test_build_registry_configured_routers_must_load(graphs_base: Path) -> None:
    (graphs_base / "beta" / "graph").write_bytes(b"junk")
    config = ServiceConfig(graphs_dir=graphs_base, routers=("alpha", "beta"))
    with pytest.raises(ServiceStartError, match="beta"):
        build_registry(config, loader=FakeNetwork.load)
    config = ServiceConfig(graphs_dir=graphs_base, routers=("alpha", "nothere"))
    with pytest.raises(ServiceStartError, match="nothere"):
        build_registry(config, loader=FakeNetwork.load)


def test_start_in_thread_with_networks() -> None:
    url, stop = start_in_thread(ServiceConfig(port=0), {"demo": ALPHA}, builder=None)
    try:
        assert url.startswith("http://127.0.0.1:")
        assert url.endswith("/otp/routers/default")
        with urllib.request.urlopen(url, timeout=5) as resp:
            assert json.load(resp)["routerId"] == "demo"
    finally:
        stop()
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url, timeout=2)


def test_start_in_thread_reports_bind_failure() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ServiceStartError):
            start_in_thread(ServiceConfig(port=port), {"demo": ALPHA}, builder=None)


@pytest.mark.parametrize(
    ("host", "url"),
    [
        ("127.0.0.1", "http://127.0.0.1:80/otp/routers/default"),
        ("::", "http://[::1]:80/otp/routers/default"),
        ("localhost", "http://localhost:80/otp/routers/default"),
    ],
)
def test_service_url(host: str, url: str) -> None:
    assert service_url(host, 80) == url


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_module_entry_point_stops_on_sigint(tmp_path: Path) -> None:
    (tmp_path / "graphs").mkdir()
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "service", "--graphs", str(tmp_path / "graphs"), "--port", "0"],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        assert line.startswith("otpa service ready: http://127.0.0.1:"), proc.stderr.read()
        url = line.split(": ", 1)[1].strip()
        base = url.removesuffix("/routers/default")
        with urllib.request.urlopen(base, timeout=5) as resp:
            assert "serverVersion" in json.load(resp)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
