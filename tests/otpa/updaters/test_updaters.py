"""Updater configuration (OTP 1.x's router-config ``updaters``), polling, back-off and status."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from otpa.updaters import (
    ApplyReport,
    PollingUpdater,
    UpdaterConfig,
    UpdaterConfigError,
    parse_updaters,
)


def test_parse_updaters_otp1_format(tmp_path: Path) -> None:
    config = {
        "updaters": [
            {
                "type": "stop-time-updater",
                "sourceType": "gtfs-file",
                "file": "rt/trips.pb",
                "frequencySec": 30,
                "feedId": "bart",
            },
            {
                "type": "stop-time-updater",
                "sourceType": "gtfs-http",
                "url": "http://127.0.0.1:9/rt",
                "feedId": "bart",
            },
            {"type": "real-time-alerts", "url": "http://127.0.0.1:9/alerts", "frequencySec": 5},
            {"type": "bike-rental", "sourceType": "gbfs", "url": "http://x/gbfs", "network": "n"},
        ]
    }
    a, b, c, d = parse_updaters(config, tmp_path)
    assert (a.index, a.type, a.source_type, a.file, a.frequency_s, a.feed_id) == (
        0,
        "stop-time-updater",
        "gtfs-file",
        tmp_path / "rt" / "trips.pb",
        30.0,
        "bart",
    )
    assert (b.url, b.frequency_s, b.supported) == ("http://127.0.0.1:9/rt", 60.0, True)
    assert (c.source_type, c.supported) == ("gtfs-http", True)
    assert (d.network, d.source_type) == ("n", "gbfs")
    assert parse_updaters({}, tmp_path) == []


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"type": "nope", "url": "http://x"}, "unknown type 'nope'"),
        ({"type": "stop-time-updater", "sourceType": "gtfs-http"}, "exactly one of"),
        ({"type": "stop-time-updater", "sourceType": "gtfs-http", "file": "a.pb"}, "needs a 'url'"),
        ({"type": "stop-time-updater", "sourceType": "gbfs", "url": "http://x"}, "sourceType"),
        ({"type": "stop-time-updater", "url": "ftp://x", "sourceType": "gtfs-http"}, "http"),
        (
            {
                "type": "stop-time-updater",
                "file": "a",
                "sourceType": "gtfs-file",
                "frequencySec": "1",
            },
            "frequencySec",
        ),
        ("stop-time-updater", "JSON object"),
    ],
)
def test_parse_updaters_refuses(tmp_path: Path, entry: object, message: str) -> None:
    with pytest.raises(UpdaterConfigError, match=message) as info:
        parse_updaters({"updaters": [entry]}, tmp_path)
    assert "updaters[0]" in str(info.value)


def _config(freq: float = 10.0) -> UpdaterConfig:
    return UpdaterConfig(0, "stop-time-updater", "gtfs-http", "http://x", None, freq, "f")


def test_backoff_and_status() -> None:
    outcomes: list[bytes | Exception] = [OSError("down"), OSError("down"), b"ok", OSError("x")]

    def fetch(_: UpdaterConfig) -> bytes:
        item = outcomes.pop(0)
        if isinstance(item, Exception):
            raise item
        return item

    applied: list[bytes] = []

    def apply(data: bytes) -> ApplyReport:
        applied.append(data)
        return ApplyReport(applied=3, unmatched=1, details={"updated": 3}, snapshot=7)

    updater = PollingUpdater(_config(10.0), apply, fetch)
    assert updater.next_wait_s() == 10.0
    assert not updater.poll_once()
    assert updater.next_wait_s() == 20.0
    assert not updater.poll_once()
    assert updater.next_wait_s() == 40.0
    status = updater.status()
    assert (status.failures, status.consecutive_failures, status.last_error) == (
        2,
        2,
        "OSError: down",
    )
    assert status.last_success is None
    assert applied == []
    assert updater.poll_once()
    assert updater.next_wait_s() == 10.0
    assert not updater.poll_once()  # fails again: the last report stays
    body = updater.status().to_json()
    assert (body["successes"], body["failures"], body["applied"], body["unmatched"]) == (1, 3, 3, 1)
    assert (body["snapshot"], body["counts"], body["lastError"]) == (
        7,
        {"updated": 3},
        "OSError: x",
    )
    assert body["lastSuccess"].endswith("Z")
    assert applied == [b"ok"]


def test_thread_polls_until_stopped() -> None:
    polled = threading.Event()
    count = {"n": 0}

    def fetch(_: UpdaterConfig) -> bytes:
        count["n"] += 1
        if count["n"] >= 2:
            polled.set()
        return b""

    updater = PollingUpdater(_config(0.01), lambda _: ApplyReport(), fetch)
    updater.start()
    assert updater.status().running
    assert polled.wait(10)  # at least two polls, one second (the minimum wait) apart
    updater.stop()
    assert not updater.status().running
    n = count["n"]
    assert n >= 2
    assert updater.status().successes == n
