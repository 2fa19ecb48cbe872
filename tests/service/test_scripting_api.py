"""``POST /otp/scripting/run``: opt-in, role-protected, sandboxed (time, memory, no network)."""

from __future__ import annotations

import csv
import datetime as dt
import io
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from _fakes import ALICE, BOB, Response, Service, basic

import otpa
from otpa.network import TransportNetwork
from service.handlers.scripting import DISABLED_MESSAGE
from service.scripting.runner import network_isolation_available
from tests.conftest import require_data
from tests.fixtures.networks import built_network

pytestmark = [pytest.mark.http]

needs_sandbox = pytest.mark.skipif(
    not network_isolation_available(), reason="unshare -n is not available here"
)

PLAN_100 = """
out = otp.create_csv_output()
out.set_header(["i", "duration_s", "walk_m"])
for i in range(100):
    plan = otp.plan(33.749 + 0.0004 * (i % 10), -84.388, 33.749, -84.388 + 0.0005 * (i // 10 + 1),
                    modes="WALK", when="2021-11-15T12:00")
    it = plan.itineraries[0]
    out.add_row([i, it.duration, round(it.walk_distance, 3)])
otp.set_retval(out)
"""

SOCKET_RAW = """
import _socket
s = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
s.connect(("93.184.216.34", 80))
retval = "connected"
"""

SOCKET_CTYPES = """
import ctypes, ctypes.util, os, struct
libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
fd = libc.socket(2, 1, 0)
addr = struct.pack("=H", 2) + struct.pack("!H4s8x", 80, bytes([93, 184, 216, 34]))
if libc.connect(fd, ctypes.c_char_p(addr), 16) != 0:
    err = ctypes.get_errno()
    raise OSError(err, "ctypes connect: " + os.strerror(err))
retval = "connected"
"""


def multipart(filename: str, content: str, field: str = "scriptfile") -> tuple[bytes, str]:
    boundary = "otpa-test-boundary"
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; '
        f'filename="{filename}"\r\nContent-Type: text/x-python\r\n\r\n{content}\r\n'
        f"--{boundary}--\r\n"
    ).encode()
    return body, f"multipart/form-data; boundary={boundary}"


def run(
    svc: Service, script: str, *, user: tuple[str, str] | None = ALICE, filename: str = "s.py"
) -> Response:
    body, content_type = multipart(filename, script)
    headers = {"Content-Type": content_type, **(basic(*user) if user else {})}
    return svc.request("POST", "/otp/scripting/run", body=body, headers=headers, timeout=300)


@pytest.fixture(scope="module")
def atlanta() -> TransportNetwork:
    return built_network(require_data(), "tiny/atlanta")


@pytest.fixture(scope="module")
def graphs(atlanta: TransportNetwork, tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("script-graphs") / "graphs"
    atlanta.save(base / "atlanta" / "graph")
    return base


@pytest.fixture
def scripting(make_service: Any, graphs: Path, tmp_path: Path) -> Service:
    copy = shutil.copytree(graphs, tmp_path / "script-graphs")
    return make_service(
        loader=None,
        graphs_dir=copy,
        scripting_enabled=True,
        script_time_limit_s=120.0,
        script_memory_limit_bytes=3 * 1024**3,
    )


def test_disabled_by_default_403(service: Service) -> None:
    resp = run(service, "retval = 1")
    assert resp.status == 403
    assert resp.json()["message"] == DISABLED_MESSAGE


def test_enabled_needs_the_routers_role(make_service: Any) -> None:
    svc = make_service(scripting_enabled=True)
    resp = run(svc, "retval = 1", user=None)
    assert resp.status == 401
    assert resp.header("WWW-Authenticate") == 'Basic realm="OpenTripPlanner"'
    assert run(svc, "retval = 1", user=BOB).status == 403


def test_bad_uploads_400(make_service: Any) -> None:
    svc = make_service(scripting_enabled=True)
    assert "Only Python" in run(svc, "retval = 1", filename="s.groovy").json()["message"]
    body, content_type = multipart("s.py", "retval = 1", field="other")
    resp = svc.request(
        "POST",
        "/otp/scripting/run",
        body=body,
        headers={"Content-Type": content_type, **basic(*ALICE)},
    )
    assert resp.status == 400
    assert "scriptfile" in resp.json()["message"]


@needs_sandbox
def test_script_plans_100_trips_and_returns_csv(scripting: Service, graphs: Path) -> None:
    resp = run(scripting, PLAN_100)
    assert resp.status == 200, resp.text
    assert resp.header("Content-Type").startswith("text/csv")
    rows = list(csv.reader(io.StringIO(resp.text)))
    assert rows[0] == ["i", "duration_s", "walk_m"]
    assert len(rows) == 101
    # the sandboxed plans are the library's plans on the same saved graph
    atlanta = TransportNetwork.load(graphs / "atlanta" / "graph")
    for i in (0, 57, 99):
        request = otpa.PlanRequest(
            from_place=otpa.Location(lat=33.749 + 0.0004 * (i % 10), lon=-84.388),
            to_place=otpa.Location(lat=33.749, lon=-84.388 + 0.0005 * (i // 10 + 1)),
            date_time=dt.datetime(2021, 11, 15, 12),
            modes=otpa.parse_modes("WALK"),
        )
        it = otpa.plan(atlanta, request).itineraries[0]
        assert rows[i + 1] == [str(i), str(it.duration), str(round(it.walk_distance, 3))]


@needs_sandbox
def test_script_error_is_a_400_with_its_message(scripting: Service) -> None:
    resp = run(scripting, "x = 1\ny = x / 0\n")
    assert resp.status == 400
    assert resp.json()["message"] == "Script failed: ZeroDivisionError: division by zero (line 2)"


@needs_sandbox
def test_json_return_value(scripting: Service) -> None:
    resp = run(scripting, "retval = {'routers': otp.routers}")
    assert resp.status == 200
    assert resp.json() == {"routers": ["atlanta"]}


@needs_sandbox
def test_infinite_loop_stopped_while_server_answers_plans(make_service: Any, graphs: Path) -> None:
    svc = make_service(
        loader=None, graphs_dir=graphs, scripting_enabled=True, script_time_limit_s=3
    )
    answer: dict[str, Response] = {}
    worker = threading.Thread(target=lambda: answer.update(r=run(svc, "while True:\n    pass\n")))
    worker.start()
    time.sleep(0.5)
    plan = svc.request(
        "GET",
        "/otp/routers/default/plan?fromPlace=33.749,-84.388&toPlace=33.751,-84.386&mode=WALK",
        timeout=120,
    )
    assert plan.status == 200
    assert plan.json()["plan"]["itineraries"]
    assert worker.is_alive()  # the plan was answered while the script ran
    worker.join(120)
    assert answer["r"].status == 400
    assert answer["r"].json()["message"] == "Script stopped: time limit of 3 s exceeded."


@needs_sandbox
@pytest.mark.parametrize(
    ("script", "message"),
    [
        ("x = bytearray(10 * 1024**3)\n", "Script stopped: memory limit of 3072 MiB exceeded"),
        (SOCKET_RAW, "Script failed: OSError: [Errno 101] Network is unreachable"),
        (
            SOCKET_CTYPES,
            "Script failed: OSError: [Errno 101] ctypes connect: Network is unreachable",
        ),
        (
            "open('/etc/otpa-script-was-here', 'w')\n",
            "Script failed: OSError: [Errno 30] Read-only file system",
        ),
    ],
)
def test_limits_and_no_network(scripting: Service, script: str, message: str) -> None:
    resp = run(scripting, script)
    assert resp.status == 400
    assert resp.json()["message"].startswith(message)
    assert not Path("/etc/otpa-script-was-here").exists()
