"""SIGTERM drains: the server stops accepting, answers the requests in flight, then exits."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import urllib.parse
from pathlib import Path

import pytest

pytestmark = [pytest.mark.http, pytest.mark.skipif(os.name != "posix", reason="POSIX signals")]

# a server whose planner takes SLOW_S (the plan is in flight when SIGTERM arrives)
SLOW_S = 1.5
SERVER = textwrap.dedent(
    f"""
    import time
    import otpa
    from otpa.routing.errors import PathNotFoundError
    from otpa.testing.demo import demo_network
    from service.config import ServiceConfig
    from service.server import serve

    def slow_plan(network, request):
        time.sleep({SLOW_S})
        raise PathNotFoundError("none")

    otpa.plan = slow_plan
    url = serve(
        ServiceConfig(port=0),
        networks={{"demo": demo_network()}},
        ready=lambda url: print("READY", url, flush=True),
    )
    print("STOPPED", flush=True)
    """
)


def _get(netloc: str, path: str, timeout: float = 10.0) -> tuple[int, bytes]:
    host, _, port = netloc.rpartition(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def test_sigterm_answers_the_request_in_flight_then_exits(tmp_path: Path) -> None:
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    proc = subprocess.Popen(
        [sys.executable, str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("READY"), (line, proc.stderr.read() if proc.stderr else "")
        netloc = urllib.parse.urlsplit(line.split()[1]).netloc
        answers: list[tuple[int, bytes]] = []
        plan = "/otp/routers/demo/plan?fromPlace=1,1&toPlace=2,2"
        client = threading.Thread(target=lambda: answers.append(_get(netloc, plan)))
        client.start()
        deadline = time.monotonic() + 10
        while json.loads(_get(netloc, "/otp/health")[1])["work"]["heavy"]["pending"] < 1:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        signalled = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        client.join(15)
        out, err = proc.communicate(timeout=30)
        # the plan in flight got its whole answer (OTP's PATH_NOT_FOUND in a 200)
        assert len(answers) == 1
        status, body = answers[0]
        assert status == 200
        assert json.loads(body)["error"]["message"] == "PATH_NOT_FOUND"
        assert proc.returncode == 0, err
        assert "STOPPED" in out
        assert time.monotonic() - signalled < 15
        # nothing listens any more
        with pytest.raises(ConnectionRefusedError):
            _get(netloc, "/otp/health", timeout=2)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
