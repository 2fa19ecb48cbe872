"""Background polling of one updater: fetch, apply, back off on errors, keep a status."""

from __future__ import annotations

import dataclasses
import datetime as dt
import threading
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from otpa.updaters.config import UpdaterConfig

__all__ = ["ApplyReport", "PollingUpdater", "UpdaterStatus", "fetch_source"]

#: Longest wait between two polls while a source keeps failing.
MAX_BACKOFF_S = 300.0
#: Network timeout of one HTTP fetch.
HTTP_TIMEOUT_S = 10.0
#: Largest feed accepted (bytes).
MAX_FEED_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class ApplyReport:
    """What one successful apply did.

    Attributes
    ----------
    applied
        Entities applied (for trip updates: trips updated or canceled).
    unmatched
        Entities that match nothing in the network (unknown trip, not running that day).
    invalid
        Entities refused as inconsistent (times going backwards, bad stop sequence...).
    details
        Further counts by kind (``canceled``, ``delayed``, ``skipped_stops``...).
    messages
        The first few problems, in words.
    snapshot
        Version of the snapshot the apply published.
    """

    applied: int = 0
    unmatched: int = 0
    invalid: int = 0
    details: dict[str, int] = field(default_factory=dict)
    messages: tuple[str, ...] = ()
    snapshot: int = 0


@dataclass
class UpdaterStatus:
    """The state of one updater, as ``/updaters`` shows it (mutable, under the updater's lock)."""

    index: int
    type: str
    source_type: str
    source: str
    feed_id: str | None
    frequency_s: float
    running: bool = False
    supported: bool = True
    polls: int = 0
    successes: int = 0
    failures: int = 0
    consecutive_failures: int = 0
    last_attempt: dt.datetime | None = None
    last_success: dt.datetime | None = None
    last_error: str | None = None
    last_error_time: dt.datetime | None = None
    last_report: ApplyReport | None = None

    def to_json(self) -> dict[str, Any]:
        """The status as a JSON object (times ISO 8601 UTC)."""

        def iso(t: dt.datetime | None) -> str | None:
            return None if t is None else t.isoformat().replace("+00:00", "Z")

        rep = self.last_report
        return {
            "index": self.index,
            "type": self.type,
            "sourceType": self.source_type,
            "source": self.source,
            "feedId": self.feed_id,
            "frequencySec": self.frequency_s,
            "running": self.running,
            "supported": self.supported,
            "polls": self.polls,
            "successes": self.successes,
            "failures": self.failures,
            "consecutiveFailures": self.consecutive_failures,
            "lastAttempt": iso(self.last_attempt),
            "lastSuccess": iso(self.last_success),
            "lastError": self.last_error,
            "lastErrorTime": iso(self.last_error_time),
            "applied": rep.applied if rep else 0,
            "unmatched": rep.unmatched if rep else 0,
            "invalid": rep.invalid if rep else 0,
            "counts": dict(rep.details) if rep else {},
            "messages": list(rep.messages) if rep else [],
            "snapshot": rep.snapshot if rep else None,
        }


def fetch_source(config: UpdaterConfig) -> bytes:
    """The bytes of an updater's feed, from its file or URL.

    Raises
    ------
    OSError
        The file cannot be read or the server cannot be reached (``urllib`` errors
        are ``OSError`` subclasses); also for a feed larger than :data:`MAX_FEED_BYTES`.
    """
    if config.file is not None:
        data = config.file.read_bytes()
    else:
        assert config.url is not None
        req = urllib.request.Request(config.url, headers={"Accept": "application/x-protobuf"})
        with urllib.request.urlopen(req, timeout=HTTP_TIMEOUT_S) as resp:
            data = resp.read(MAX_FEED_BYTES + 1)
    if len(data) > MAX_FEED_BYTES:
        msg = f"feed larger than {MAX_FEED_BYTES} bytes"
        raise OSError(msg)
    return bytes(data)


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class PollingUpdater:
    """Poll a source in a background thread and apply what it returns.

    Parameters
    ----------
    config
        The updater's configuration.
    apply
        Turns the feed's bytes into a new state and publishes it, returning what it
        did; it raises (any exception) for a feed it cannot use, and must then leave
        the published state as it was.
    fetch
        Reads the feed; default :func:`fetch_source`.

    Notes
    -----
    After a failure the next poll waits ``frequencySec * 2**failures`` (at most
    :data:`MAX_BACKOFF_S`, at least 1 s); a success resets the wait.  With
    ``frequencySec <= 0`` the source is read once (retried with back-off until it works).
    """

    def __init__(
        self,
        config: UpdaterConfig,
        apply: Callable[[bytes], ApplyReport],
        fetch: Callable[[UpdaterConfig], bytes] = fetch_source,
    ) -> None:
        self.config = config
        self._apply = apply
        self._fetch = fetch
        self._lock = threading.Lock()
        self._poll_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_good: bytes | None = None
        self._status = UpdaterStatus(
            index=config.index,
            type=config.type,
            source_type=config.source_type,
            source=config.source,
            feed_id=config.feed_id,
            frequency_s=config.frequency_s,
            supported=config.supported,
        )

    # -- one poll -----------------------------------------------------------------------
    @property
    def last_good_feed(self) -> bytes | None:
        """The bytes of the last feed applied successfully (to re-apply after a reload)."""
        with self._lock:
            return self._last_good

    def poll_once(self, data: bytes | None = None) -> bool:
        """Fetch (or take ``data``) and apply once, in the caller's thread; True on success.

        A failure is recorded in the status and changes nothing else.
        """
        with self._poll_lock:
            with self._lock:
                self._status.polls += 1
                self._status.last_attempt = _now()
            try:
                feed = self._fetch(self.config) if data is None else data
                report = self._apply(feed)
            except Exception as exc:
                with self._lock:
                    st = self._status
                    st.failures += 1
                    st.consecutive_failures += 1
                    st.last_error = f"{type(exc).__name__}: {exc}"
                    st.last_error_time = _now()
                return False
            with self._lock:
                st = self._status
                st.successes += 1
                st.consecutive_failures = 0
                st.last_success = _now()
                st.last_report = report
                self._last_good = feed
            return True

    def next_wait_s(self) -> float:
        """Seconds until the next poll: the frequency, doubled per consecutive failure."""
        with self._lock:
            failures = self._status.consecutive_failures
        base = max(self.config.frequency_s, 1.0)
        if failures == 0:
            return base
        return float(min(base * 2.0 ** min(failures, 16), max(MAX_BACKOFF_S, base)))

    # -- background thread ---------------------------------------------------------------
    def _run(self) -> None:
        while not self._stop.is_set():
            ok = self.poll_once()
            if ok and self.config.frequency_s <= 0:
                break
            if self._stop.wait(self.next_wait_s()):
                break
        with self._lock:
            self._status.running = False

    def start(self) -> None:
        """Start polling in a daemon thread (the first poll happens at once)."""
        if self._thread is not None:
            return
        with self._lock:
            self._status.running = True
        self._thread = threading.Thread(
            target=self._run, name=f"updater-{self.config.index}-{self.config.type}", daemon=True
        )
        self._thread.start()

    def stop(self, timeout_s: float = 5.0) -> None:
        """Stop polling and wait (up to ``timeout_s``) for the thread to end."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
        with self._lock:
            self._status.running = False

    def status(self) -> UpdaterStatus:
        """A copy of the current status."""
        with self._lock:
            return dataclasses.replace(self._status)
