"""serve / start_in_thread / build_registry / python -m service."""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from logging.handlers import QueueHandler
from pathlib import Path

import pytest
from _fakes import ALPHA, BETA, FakeNetwork

from service.config import ServiceConfig
from service.server import (
    ServiceStartError,
    build_registry,
    log_to_stderr,
    service_url,
    start_in_thread,
    stop_logging,
)

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
        assert url.endswith("/")  # the landing page, for people
        with urllib.request.urlopen(url, timeout=5) as resp:
            assert resp.headers["Content-Type"].startswith("text/html")
        with urllib.request.urlopen(url + "otp", timeout=5) as resp:
            assert "serverVersion" in json.load(resp)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# -- one serve entry: `otpa serve` and `python -m service` -----------------------------------

_ENTRIES = {
    "python -m service": [sys.executable, "-m", "service"],
    "otpa serve": [sys.executable, "-m", "otpa.cli", "serve"],
}


def _run_entry(entry: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run(
        [*_ENTRIES[entry], *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _run_entries(
    *calls: tuple[str, ...],
) -> list[subprocess.CompletedProcess[str]]:
    """Run several ``(entry, *args)`` at once (each is mostly Python start-up)."""
    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        return list(pool.map(lambda call: _run_entry(*call), calls))


def test_bad_config_is_one_line_and_exit_2_for_both_entries(tmp_path: Path) -> None:
    # (wrong types are config errors too: test_config.py covers them without subprocesses)
    content, needle = "port: [1, 2\n", "config"  # not YAML
    bad = tmp_path / "service.yml"
    bad.write_text(content)
    procs = _run_entries(*((entry, "--config", str(bad)) for entry in _ENTRIES))
    answers = dict(zip(_ENTRIES, procs, strict=True))
    for entry, proc in answers.items():
        assert proc.returncode == 2, (entry, proc.stderr)
        assert "Traceback" not in proc.stderr, entry
        lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1, (entry, proc.stderr)
        assert lines[0].startswith("error: "), (entry, lines)
        assert needle in lines[0].lower(), (entry, lines)
    assert len({proc.stderr for proc in answers.values()}) == 1  # the same behaviour


def test_missing_router_and_bad_port_exit_2(tmp_path: Path) -> None:
    # one entry each: both share serve_from_args (the parity is checked above)
    (tmp_path / "graphs").mkdir()
    graphs = str(tmp_path / "graphs")
    proc, bad_port = _run_entries(
        ("python -m service", "--graphs", graphs, "--router", "nothere"),
        ("otpa serve", "--graphs", graphs, "--port", "70000"),
    )
    last = proc.stderr.strip().splitlines()[-1]  # after the registry's log line
    assert proc.returncode == 2
    assert last.startswith("error: ")
    assert "nothere" in last
    assert "Traceback" not in proc.stderr
    assert bad_port.returncode == 2
    assert "--port" in bad_port.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_otpa_serve_repeatable_router_and_free_port(graphs_base: Path) -> None:
    # same options as python -m service: --router repeatable (or comma-separated), --port 0
    import argparse

    from service.server import add_serve_arguments, config_from_args

    parser = argparse.ArgumentParser()
    add_serve_arguments(parser)
    args = parser.parse_args(
        ["--graphs", str(graphs_base), "--router", "beta", "--router", "alpha,gamma", "--port", "0"]
    )
    config = config_from_args(args)
    assert config.routers == ("beta", "alpha", "gamma")
    assert config.port == 0
    assert config.graphs_dir == graphs_base


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_otpa_serve_without_graphs_serves_the_demo_city_and_greets_a_person() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    proc = subprocess.Popen(
        [*_ENTRIES["otpa serve"], "--port", "0"],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        assert line.startswith("otpa service ready: http://127.0.0.1:"), proc.stderr.read()
        root = line.split(": ", 1)[1].strip()
        with urllib.request.urlopen(root, timeout=10) as resp:
            page = resp.read().decode("utf-8")
        assert "<strong>demo</strong>" in page
        start = page.index('href="/otp/routers/demo/plan?') + len('href="')
        sample = page[start : page.index('"', start)].replace("&amp;", "&")
        with urllib.request.urlopen(root.rstrip("/") + sample, timeout=300) as resp:
            answer = json.load(resp)
        assert "error" not in answer, answer.get("error")
        assert answer["plan"]["itineraries"], answer
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_log_lines_go_to_stderr_through_a_queue(capsys: pytest.CaptureFixture[str]) -> None:
    # the event loop only queues its records; a listener thread writes them, same format
    root = logging.getLogger()
    saved_handlers, saved_level = root.handlers[:], root.level
    root.handlers.clear()
    try:
        listener = log_to_stderr("INFO")
        assert listener is not None
        assert [type(h) for h in root.handlers] == [QueueHandler]
        logging.getLogger("otpa.access").info("status=%d path=%s", 200, "/otp")
        logging.getLogger("otpa.test").debug("below the level")
        try:
            raise ValueError("boom")
        except ValueError:
            logging.getLogger("otpa.test").exception("request failed")
        stop_logging(listener)  # writes what is queued, then logs directly
        assert [type(h) for h in root.handlers] == [logging.StreamHandler]
        logging.getLogger("otpa.test").warning("after the listener")
    finally:
        root.handlers[:] = saved_handlers
        root.setLevel(saved_level)
    lines = capsys.readouterr().err.splitlines()
    assert re.fullmatch(r".* WARNING otpa.test: after the listener", lines.pop())
    stamp = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}"
    assert re.fullmatch(stamp + " INFO otpa.access: status=200 path=/otp", lines[0])
    assert re.fullmatch(stamp + " ERROR otpa.test: request failed", lines[1])
    assert lines[2] == "Traceback (most recent call last):"
    assert lines[-1] == "ValueError: boom"
    assert not any("below the level" in line for line in lines)
    assert log_to_stderr("INFO") is None  # logging configured already: left alone
