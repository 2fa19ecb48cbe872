"""The real-time updaters, alert patches and routing defaults of every served router.

When a router's network is registered (service start, ``PUT /routers/{id}``,
upload), its ``<graphs_dir>/<id>/router-config.json`` is read: its updaters
(OTP 1.x's ``updaters`` list) are started by :func:`otpa.realtime.start_updaters`
and its ``routingDefaults`` apply to every plan of the router
(:attr:`UpdaterManager.routing_defaults`); the updaters of the network it replaced,
or of an evicted router, are stopped.  The new updaters first re-apply the last good
feed of the ones they replace, so a reloaded graph serves the same real-time state
before its first poll.  The router's alert patches (``alert-patches.json`` in the
router folder, see :class:`otpa.realtime.AlertPatchFile`) are published into the new
network's real-time store, next to the alerts of the feeds.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from otpa.mobility import configure_tnc, with_rental_updaters
from otpa.network import TransportNetwork
from otpa.realtime import (
    MAX_PATCHES,
    PATCH_SOURCE,
    Alert,
    AlertPatchError,
    AlertPatchFile,
    start_updaters,
    store_for,
)
from otpa.updaters import PollingUpdater, UpdaterConfigError
from service.otp1.plan_params import RoutingDefaults
from service.registry import RouterRegistry

__all__ = ["ALERT_PATCHES", "ROUTER_CONFIG", "UpdaterManager"]

logger = logging.getLogger(__name__)

#: The router configuration file in a router's folder.
ROUTER_CONFIG = "router-config.json"
#: A router's alert patches, in its folder.
ALERT_PATCHES = "alert-patches.json"


class UpdaterManager:
    """Starts and stops the updaters of a registry's routers.

    Parameters
    ----------
    registry
        The routers; :meth:`sync` runs on every change of it.
    start
        Start the polling threads (False in tests that poll by hand).
    """

    def __init__(self, registry: RouterRegistry, *, start: bool = True) -> None:
        self._registry = registry
        self._start = start
        self._lock = threading.Lock()
        self._running: dict[str, tuple[TransportNetwork, list[PollingUpdater]]] = {}
        self._errors: dict[str, str] = {}
        self._closed = False
        #: ``routingDefaults`` of each router's router-config.json (read by the plan handler)
        self.routing_defaults: dict[str, RoutingDefaults] = {}
        # patches of routers without a folder (in-memory registries) live here only
        self._patches: dict[str, list[Alert]] = {}
        self._patch_lock = threading.Lock()
        registry.add_listener(self.sync)

    def _router_dir(self, router_id: str) -> Path | None:
        return self._registry.router_dir(router_id)

    def _start_for(
        self, router_id: str, network: TransportNetwork, previous: list[PollingUpdater]
    ) -> list[PollingUpdater]:
        """Start a router's updaters; each first re-applies the last good feed of the
        updater it replaces (same index and source), so a reload keeps the real-time state."""
        started = self._configured(router_id, network)
        self._publish_patches(router_id, network, self._stored_patches(router_id))
        old = {(u.config.index, u.config.source): u.last_good_feed for u in previous}
        for updater in started:
            feed = old.get((updater.config.index, updater.config.source))
            if feed is not None and updater.config.supported:
                updater.poll_once(feed)
            if self._start and updater.config.supported:
                updater.start()
        return started

    def _configured(self, router_id: str, network: TransportNetwork) -> list[PollingUpdater]:
        folder = self._router_dir(router_id)
        self._errors.pop(router_id, None)
        self.routing_defaults.pop(router_id, None)
        if folder is None or not (folder / ROUTER_CONFIG).is_file():
            return []
        try:
            config = json.loads((folder / ROUTER_CONFIG).read_text(encoding="utf-8"))
            if not isinstance(config, dict):
                msg = f"{ROUTER_CONFIG} is not a JSON object"
                raise UpdaterConfigError(msg)
            self._read_routing_defaults(router_id, config)
            tnc_error = configure_tnc(network, config)  # ride-hail providers of the router
            if tnc_error is not None:
                logger.warning("router %r: no ride-hail provider: %s", router_id, tnc_error)
            updaters = start_updaters(network, config, folder, start=False)
            return with_rental_updaters(network, updaters)
        except (OSError, ValueError) as exc:  # JSON and configuration errors are ValueErrors
            logger.warning("router %r: updaters not started: %s", router_id, exc)
            self._errors[router_id] = f"{ROUTER_CONFIG}: {exc}"
            return []

    def _read_routing_defaults(self, router_id: str, config: dict[str, Any]) -> None:
        section = config.get("routingDefaults")
        if section is None:
            return
        try:
            if not isinstance(section, dict):
                msg = "routingDefaults is not a JSON object"
                raise UpdaterConfigError(msg)
            self.routing_defaults[router_id] = RoutingDefaults.from_router_config(section)
        except ValueError as exc:  # the router is served with the library's defaults
            logger.warning("router %r: routingDefaults not used: %s", router_id, exc)
            self._errors[router_id] = f"{ROUTER_CONFIG}: {exc}"

    # -- alert patches ---------------------------------------------------------------------
    def _patch_file(self, router_id: str) -> AlertPatchFile | None:
        folder = self._router_dir(router_id)
        return (
            None
            if folder is None or not folder.is_dir()
            else AlertPatchFile(folder / ALERT_PATCHES)
        )

    def _stored_patches(self, router_id: str) -> list[Alert]:
        file = self._patch_file(router_id)
        if file is None:
            with self._patch_lock:
                return list(self._patches.get(router_id, []))
        try:
            return file.load()
        except AlertPatchError as exc:
            logger.warning("router %r: alert patches not loaded: %s", router_id, exc)
            self._errors[router_id] = str(exc)
            return []

    @staticmethod
    def _publish_patches(router_id: str, network: TransportNetwork, patches: list[Alert]) -> None:
        if patches:  # a new network starts with an empty store: nothing to clear
            store_for(network).publish_alerts(PATCH_SOURCE, patches)

    def patches(self, router_id: str) -> list[Alert]:
        """The router's alert patches (stored, in the order they were first posted)."""
        return self._stored_patches(router_id)

    def add_patches(
        self, router_id: str, network: TransportNetwork, patches: Sequence[Alert]
    ) -> list[Alert]:
        """Store patches (same id: replaced), persist them, publish them with the feeds' alerts.

        Returns every patch of the router.  Raises :class:`otpa.realtime.AlertPatchError`
        (or ``OSError``) when they cannot be stored; nothing changes then.
        """
        file = self._patch_file(router_id)
        with self._patch_lock:
            if file is not None:
                stored = file.add(patches)
            else:
                by_id = {p.id: p for p in self._patches.get(router_id, [])}
                by_id.update({p.id: p for p in patches})
                if len(by_id) > MAX_PATCHES:
                    msg = f"at most {MAX_PATCHES} patches per router"
                    raise AlertPatchError(msg)
                stored = self._patches[router_id] = list(by_id.values())
            store_for(network).publish_alerts(PATCH_SOURCE, stored)
        return stored

    def sync(self) -> None:
        """Restart the updaters of replaced networks, stop those of evicted routers."""
        current = dict(self._registry.items())
        stop: list[PollingUpdater] = []
        with self._lock:
            if self._closed:
                return
            previous: dict[str, list[PollingUpdater]] = {}
            for router_id in list(self._running):
                network, updaters = self._running[router_id]
                if current.get(router_id) is not network:
                    stop.extend(updaters)
                    previous[router_id] = updaters
                    del self._running[router_id]
            for router_id, network in current.items():
                if router_id not in self._running:
                    started = self._start_for(router_id, network, previous.get(router_id, []))
                    self._running[router_id] = (network, started)
        for updater in stop:
            updater.stop(timeout_s=0.0)

    def updaters(self, router_id: str) -> list[PollingUpdater]:
        """The updaters of a router (empty when it has none)."""
        with self._lock:
            entry = self._running.get(router_id)
            return list(entry[1]) if entry else []

    def config_error(self, router_id: str) -> str | None:
        """Why the router's updaters could not be started, if they could not."""
        with self._lock:
            return self._errors.get(router_id)

    def close(self, timeout_s: float = 1.0) -> None:
        """Stop every updater for good (service shutdown): later registry changes start none."""
        with self._lock:
            self._closed = True
            entries = list(self._running.values())
            self._running.clear()
        for _, updaters in entries:
            for updater in updaters:
                updater.stop(timeout_s)

    def stop_all(self) -> None:
        """Stop every updater (they start again on the next registry change)."""
        with self._lock:
            entries = list(self._running.values())
            self._running.clear()
        for _, updaters in entries:
            for updater in updaters:
                updater.stop()
