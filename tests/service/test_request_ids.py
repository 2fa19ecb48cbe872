"""Request ids: echoed in a header, written in the access log, and in the body of server errors."""

from __future__ import annotations

import json
import logging
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator

import pytest
from _fakes import ALPHA, FakeNetwork

from service.config import ServiceConfig
from service.handlers.base import _RequestIds
from service.server import start_in_thread

pytestmark = pytest.mark.http


class _BrokenNetwork(FakeNetwork):
    """A network whose RouterInfo computation fails: an unexpected server-side bug."""

    def __getattribute__(self, name: str) -> object:
        if name == "transit_modes":
            msg = "secret internal detail /srv/graphs/x"
            raise RuntimeError(msg)
        return super().__getattribute__(name)


@pytest.fixture(scope="module")
def root() -> Iterator[str]:
    url, stop = start_in_thread(
        ServiceConfig(port=0), {"alpha": ALPHA, "broken": _BrokenNetwork()}, builder=None
    )
    try:
        yield url.removesuffix("routers/default")
    finally:
        stop()


def _fetch(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


def test_every_answer_carries_a_request_id_and_a_good_client_id_is_echoed(root: str) -> None:
    status, headers, _ = _fetch(root + "routers/alpha")
    assert status == 200
    assert len(headers["X-Request-Id"]) == 32
    _, again, _ = _fetch(root + "routers/alpha")
    assert again["X-Request-Id"] != headers["X-Request-Id"]
    _, echoed, _ = _fetch(root + "routers/alpha", {"X-Request-Id": "client-42.a"})
    assert echoed["X-Request-Id"] == "client-42.a"
    _, refused, _ = _fetch(root + "routers/alpha", {"X-Request-Id": "<script>" * 3})
    assert refused["X-Request-Id"] != "<script>" * 3
    status, headers, _ = _fetch(root + "nothing/here")
    assert status == 404
    assert "X-Request-Id" in headers


def test_unexpected_error_is_a_500_with_the_id_and_no_detail(
    root: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO):
        status, headers, body = _fetch(root + "routers/broken")
        # the server thread writes its access line just after the answer is sent
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not _access_lines(caplog):
            time.sleep(0.02)
    assert status == 500
    answer = json.loads(body)
    assert answer == {
        "status": 500,
        "error": "Internal Server Error",
        "message": "Internal server error.",
        "requestId": headers["X-Request-Id"],
    }
    assert b"secret" not in body
    assert b"Traceback" not in body
    rid = headers["X-Request-Id"]
    failed = [r for r in caplog.records if r.name == "service.handlers.base"]
    assert any(rid in r.getMessage() and r.exc_info for r in failed)
    assert "status=500 method=GET path=/otp/routers/broken" in _access_lines(caplog)[0]
    assert _access_lines(caplog)[0].endswith(f" id={rid}")


def _access_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    # only this test's request (an earlier test's line may arrive late, under load)
    lines = [r.getMessage() for r in caplog.records if r.name == "otpa.access"]
    return [line for line in lines if "path=/otp/routers/broken" in line]


def test_client_errors_carry_no_request_id_in_the_body(root: str) -> None:
    status, _, body = _fetch(root + "routers/nothere")
    assert status == 404
    assert "requestId" not in json.loads(body)


def test_new_ids_are_distinct_version_4_uuids_across_batches() -> None:
    ids = _RequestIds(batch=2)  # the random bytes of 2 ids per os.urandom call
    drawn = [ids.new() for _ in range(7)]
    assert len(set(drawn)) == 7
    for rid in drawn:
        parsed = uuid.UUID(rid)
        assert (parsed.hex, parsed.version, parsed.variant) == (rid, 4, uuid.RFC_4122)
