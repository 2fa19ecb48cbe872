"""Replacing a graph while clients keep reading it: zero failed reads."""

from __future__ import annotations

import dataclasses
import threading
import time

import pytest
from _fakes import ALICE, ALPHA, Service, SlowLoader, basic

pytestmark = pytest.mark.http

READERS = 8
MAX_READS_PER_READER = 400
LOAD_DELAY_S = 0.4


def test_reload_during_concurrent_reads(make_service) -> None:
    loader = SlowLoader()
    svc: Service = make_service(loader=loader)
    new_alpha = dataclasses.replace(ALPHA, build_time_ms=ALPHA.build_time_ms + 1)
    new_alpha.save(svc.graphs_dir / "alpha" / "graph")

    stop = threading.Event()
    lock = threading.Lock()
    failures: list[str] = []
    seen: set[int] = set()
    reads = [0]

    def reader() -> None:
        for _ in range(MAX_READS_PER_READER):
            if stop.is_set():
                return
            try:
                resp = svc.get("/otp/routers/alpha")
                info = resp.json() if resp.status == 200 else None
            except Exception as exc:  # any transport error is a failed read
                info, resp = None, exc
            with lock:
                reads[0] += 1
                if info is None:
                    failures.append(repr(resp))
                else:
                    seen.add(info["buildTime"])

    threads = [threading.Thread(target=reader) for _ in range(READERS)]
    for t in threads:
        t.start()
    time.sleep(0.05)
    loader.delay_s = LOAD_DELAY_S
    with lock:
        reads_before = reads[0]
    started = time.monotonic()
    resp = svc.request("PUT", "/otp/routers/alpha", headers=basic(*ALICE))
    elapsed = time.monotonic() - started
    with lock:
        reads_during = reads[0] - reads_before
    time.sleep(0.05)
    stop.set()
    for t in threads:
        t.join(timeout=10)

    assert (resp.status, resp.text) == (201, "graph already registered, reloaded.\n")
    assert elapsed >= LOAD_DELAY_S
    assert failures == []
    # The load ran off the event loop: reads kept being answered while it ran.
    assert reads_during >= READERS
    assert seen == {ALPHA.build_time_ms, new_alpha.build_time_ms}
    assert svc.get("/otp/routers/alpha").json()["buildTime"] == new_alpha.build_time_ms


def test_failed_reload_during_reads_keeps_old(make_service) -> None:
    svc: Service = make_service()
    (svc.graphs_dir / "alpha" / "graph").write_bytes(b"truncated")
    results: list[int] = []

    def reader() -> None:
        for _ in range(20):
            results.append(svc.get("/otp/routers/alpha").json()["buildTime"])

    threads = [threading.Thread(target=reader) for _ in range(4)]
    for t in threads:
        t.start()
    assert svc.request("PUT", "/otp/routers/alpha", headers=basic(*ALICE)).status == 404
    for t in threads:
        t.join(timeout=10)
    assert set(results) == {ALPHA.build_time_ms}
