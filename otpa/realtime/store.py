"""The current real-time snapshot of each network, and the updaters that feed it."""

from __future__ import annotations

import hashlib
import threading
import weakref
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from otpa.network import TransportNetwork
from otpa.realtime.snapshot import TimetableSnapshot, TripRealtime
from otpa.realtime.trip_updates import parse_feed, trip_updates
from otpa.updaters import (
    ApplyReport,
    PollingUpdater,
    UnsupportedUpdaterError,
    UpdaterConfig,
    fetch_source,
    parse_updaters,
)

__all__ = [
    "RealtimeStore",
    "current_snapshot",
    "start_updaters",
    "store_for",
    "trip_update_applier",
]


class RealtimeStore:
    """Holds a network's current :class:`TimetableSnapshot` and swaps it atomically.

    Each source (an updater) contributes its own trips; a new feed from a source
    replaces that source's contribution (GTFS-RT ``FULL_DATASET``) and publishes a
    new snapshot merging every source.  Readers call :attr:`snapshot` once and
    keep the object: it never changes.
    """

    def __init__(self, network: TransportNetwork) -> None:
        self._model = network.transit
        self._lock = threading.Lock()
        self._parts: dict[str, Mapping[tuple[int, int], TripRealtime]] = {}
        self._snapshot = TimetableSnapshot(self._model, {}, version=0)

    @property
    def snapshot(self) -> TimetableSnapshot:
        """The current snapshot (an atomic reference read)."""
        return self._snapshot

    def publish(
        self, source: str, trips: Mapping[tuple[int, int], TripRealtime]
    ) -> TimetableSnapshot:
        """Replace one source's trips and publish the merged snapshot.

        Parameters
        ----------
        source
            The source's key (e.g. ``"updater-0"``).
        trips
            Its real-time trips by ``(trip, service_day)``.

        Returns
        -------
        TimetableSnapshot
            The new snapshot.
        """
        with self._lock:
            self._parts[source] = dict(trips)
            merged: dict[tuple[int, int], TripRealtime] = {}
            for part in self._parts.values():
                merged.update(part)
            snap = TimetableSnapshot(self._model, merged, version=self._snapshot.version + 1)
            self._snapshot = snap  # the swap: one reference assignment
            return snap


_STORES: weakref.WeakKeyDictionary[TransportNetwork, RealtimeStore] = weakref.WeakKeyDictionary()
_STORES_LOCK = threading.Lock()


def store_for(network: TransportNetwork) -> RealtimeStore:
    """The real-time store of a network (created empty on first use)."""
    with _STORES_LOCK:
        store = _STORES.get(network)
        if store is None:
            store = _STORES[network] = RealtimeStore(network)
        return store


def current_snapshot(network: TransportNetwork) -> TimetableSnapshot | None:
    """The network's current snapshot, or None when no real-time update was ever applied."""
    store = _STORES.get(network)
    if store is None:
        return None
    snap = store.snapshot
    return snap if snap.version > 0 else None


def trip_update_applier(
    network: TransportNetwork, feed_id: str | None, source: str
) -> Callable[[bytes], ApplyReport]:
    """The apply function of a ``stop-time-updater``: parse, match, publish.

    The returned function raises :class:`~otpa.realtime.FeedError` for a feed it
    cannot read (the published snapshot is then unchanged).
    """
    store = store_for(network)
    last: dict[str, Any] = {}

    def apply(data: bytes) -> ApplyReport:
        digest = hashlib.sha256(data).digest()
        if last.get("digest") == digest:  # the same feed again: keep the snapshot (and its caches)
            report: ApplyReport = last["report"]
            return report
        result = trip_updates(network.transit, parse_feed(data), feed_id, network.time_zone)
        snap = store.publish(source, result.trips)
        last["digest"], last["report"] = (
            digest,
            ApplyReport(
                applied=result.applied,
                unmatched=result.unmatched,
                invalid=result.invalid,
                details=dict(result.counts),
                messages=tuple(result.messages),
                snapshot=snap.version,
            ),
        )
        return last["report"]  # type: ignore[no-any-return]

    return apply


def start_updaters(
    network: TransportNetwork,
    router_config: Mapping[str, Any],
    router_dir: Path,
    *,
    start: bool = True,
    fetch: Callable[[UpdaterConfig], bytes] = fetch_source,
) -> list[PollingUpdater]:
    """The updaters of a router's configuration, polling in the background.

    Every configured updater is listed (its status says whether this version runs
    it); ``stop-time-updater`` entries apply GTFS-RT trip updates to ``network``.

    Parameters
    ----------
    network
        The router's network.
    router_config
        The parsed ``router-config.json``.
    router_dir
        The router folder (``file`` paths are relative to it).
    start
        Start the threads (False: the caller polls with ``poll_once``).
    fetch
        How feeds are read (default: file or HTTP).

    Returns
    -------
    list of PollingUpdater
        In configuration order; stop them with ``stop()``.

    Raises
    ------
    otpa.updaters.UpdaterConfigError
        An entry is invalid.
    """
    out: list[PollingUpdater] = []
    for cfg in parse_updaters(router_config, router_dir):
        if cfg.supported:
            apply = trip_update_applier(network, cfg.feed_id, f"updater-{cfg.index}")
        else:
            apply = _unsupported(cfg)
        updater = PollingUpdater(cfg, apply, fetch)
        out.append(updater)
        if start and cfg.supported:
            updater.start()
    return out


def _unsupported(cfg: UpdaterConfig) -> Callable[[bytes], ApplyReport]:
    def apply(data: bytes) -> ApplyReport:
        msg = f"updater type {cfg.type!r} is read but not run by this version of otpa"
        raise UnsupportedUpdaterError(msg)

    return apply
