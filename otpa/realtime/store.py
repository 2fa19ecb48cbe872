"""The current real-time snapshot of each network, and the updaters that feed it."""

from __future__ import annotations

import hashlib
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from otpa.network import TransportNetwork
from otpa.realtime.alerts import Alert, AlertSet, alerts_from_feed
from otpa.realtime.snapshot import AddedTrip, TimetableSnapshot, TripRealtime
from otpa.realtime.trip_updates import parse_feed, trip_updates
from otpa.realtime.vehicles import VehicleSet, vehicle_positions
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
    "alert_applier",
    "current_snapshot",
    "current_vehicles",
    "start_updaters",
    "store_for",
    "trip_update_applier",
    "vehicle_position_applier",
]


class RealtimeStore:
    """Holds a network's current :class:`TimetableSnapshot` and swaps it atomically.

    Each source (an updater, the alert patches) contributes its own trips, alerts or
    vehicles; a new feed from a source replaces that source's contribution (GTFS-RT
    ``FULL_DATASET``) and publishes a new snapshot merging every source.  Readers
    call :attr:`snapshot` once and keep the object: it never changes.  A change of
    alerts only keeps the timetable (and its cached RAPTOR timetables).
    """

    def __init__(self, network: TransportNetwork) -> None:
        self._model = network.transit
        self._lock = threading.Lock()
        self._parts: dict[str, Mapping[tuple[int, int], TripRealtime]] = {}
        self._added_parts: dict[str, Mapping[tuple[str, int], AddedTrip]] = {}
        self._alert_parts: dict[str, tuple[Alert, ...]] = {}
        self._vehicle_parts: dict[str, VehicleSet] = {}
        self._vehicles = VehicleSet()
        self._snapshot = TimetableSnapshot(self._model, {}, version=0)

    @property
    def snapshot(self) -> TimetableSnapshot:
        """The current snapshot (an atomic reference read)."""
        return self._snapshot

    @property
    def vehicles(self) -> VehicleSet:
        """The current vehicle positions of every vehicle-positions source."""
        return self._vehicles

    def publish(
        self,
        source: str,
        trips: Mapping[tuple[int, int], TripRealtime],
        added: Mapping[tuple[str, int], AddedTrip] | None = None,
    ) -> TimetableSnapshot:
        """Replace one source's trips and publish the merged snapshot.

        Parameters
        ----------
        source
            The source's key (e.g. ``"updater-0"``).
        trips
            Its real-time trips by ``(trip, service_day)``.
        added
            The trips it adds (GTFS-RT ``ADDED``) by ``(trip_id, service_day)``.

        Returns
        -------
        TimetableSnapshot
            The new snapshot.
        """
        with self._lock:
            self._parts[source] = dict(trips)
            self._added_parts[source] = dict(added or {})
            merged: dict[tuple[int, int], TripRealtime] = {}
            for part in self._parts.values():
                merged.update(part)
            new: dict[tuple[str, int], AddedTrip] = {}
            for extra in self._added_parts.values():
                new.update(extra)
            old = self._snapshot
            snap = TimetableSnapshot(
                self._model, merged, version=old.version + 1, alerts=old.alerts, added=new
            )
            self._snapshot = snap  # the swap: one reference assignment
            return snap

    def publish_alerts(self, source: str, alerts: Sequence[Alert]) -> TimetableSnapshot:
        """Replace one source's alerts and publish the merged snapshot (same timetable).

        Parameters
        ----------
        source
            The source's key (``"updater-1"``, ``"patch"``).
        alerts
            All its alerts.

        Returns
        -------
        TimetableSnapshot
            The new snapshot.
        """
        with self._lock:
            self._alert_parts[source] = tuple(alerts)
            merged = AlertSet(a for part in self._alert_parts.values() for a in part)
            old = self._snapshot
            snap = old.with_alerts(merged, old.version + 1)
            self._snapshot = snap
            return snap

    def publish_vehicles(self, source: str, vehicles: VehicleSet) -> VehicleSet:
        """Replace one source's vehicle positions; returns every source's."""
        with self._lock:
            self._vehicle_parts[source] = vehicles
            merged = VehicleSet(v for part in self._vehicle_parts.values() for v in part)
            self._vehicles = merged
            return merged


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


def current_vehicles(network: TransportNetwork) -> VehicleSet:
    """The network's current vehicle positions (empty when no vehicle-positions updater ran)."""
    store = _STORES.get(network)
    return VehicleSet() if store is None else store.vehicles


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
        snap = store.publish(source, result.trips, result.added)
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


def _reporting(
    apply: Callable[[bytes], ApplyReport],
) -> Callable[[bytes], ApplyReport]:
    """``apply`` that answers the same bytes again with its last report (publishing nothing)."""
    last: dict[str, Any] = {}

    def once(data: bytes) -> ApplyReport:
        digest = hashlib.sha256(data).digest()
        if last.get("digest") == digest:
            report: ApplyReport = last["report"]
            return report
        report = apply(data)
        last["digest"], last["report"] = digest, report
        return report

    return once


def alert_applier(
    network: TransportNetwork, feed_id: str | None, source: str
) -> Callable[[bytes], ApplyReport]:
    """The apply function of a ``real-time-alerts`` updater: parse, match, publish.

    The feed's alerts replace the source's earlier ones; the alert patches and other
    sources' alerts stay.  Raises :class:`~otpa.realtime.FeedError` for a feed it
    cannot read (nothing is published then).
    """
    store = store_for(network)

    def apply(data: bytes) -> ApplyReport:
        result = alerts_from_feed(network.transit, parse_feed(data), feed_id, source)
        snap = store.publish_alerts(source, result.alerts)
        return ApplyReport(
            applied=result.applied,
            unmatched=result.unmatched,
            invalid=result.invalid,
            details=dict(result.counts),
            messages=tuple(result.messages),
            snapshot=snap.version,
        )

    return _reporting(apply)


def vehicle_position_applier(
    network: TransportNetwork, feed_id: str | None, source: str
) -> Callable[[bytes], ApplyReport]:
    """The apply function of a ``vehicle-positions`` updater: parse, match, publish."""
    store = store_for(network)

    def apply(data: bytes) -> ApplyReport:
        result = vehicle_positions(network.transit, parse_feed(data), feed_id)
        store.publish_vehicles(source, VehicleSet(result.vehicles))
        return ApplyReport(
            applied=result.applied,
            unmatched=result.unmatched,
            invalid=result.invalid,
            details=dict(result.counts),
            messages=tuple(result.messages),
            snapshot=store.snapshot.version,
        )

    return _reporting(apply)


#: The apply function of each updater type this package runs.
_APPLIERS: Mapping[
    str, Callable[[TransportNetwork, str | None, str], Callable[[bytes], ApplyReport]]
] = {
    "stop-time-updater": trip_update_applier,
    "real-time-alerts": alert_applier,
    "vehicle-positions": vehicle_position_applier,
}


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
    it); ``stop-time-updater``, ``real-time-alerts`` and ``vehicle-positions`` entries
    apply GTFS-RT trip updates, alerts and vehicle positions to ``network``.

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
        make = _APPLIERS.get(cfg.type)
        if cfg.supported and make is not None:
            apply = make(network, cfg.feed_id, f"updater-{cfg.index}")
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
