"""The real-time updaters of every served router, kept in step with the registry.

When a router's network is registered (service start, ``PUT /routers/{id}``,
upload), its updaters are read from ``<graphs_dir>/<id>/router-config.json``
(OTP 1.x's ``updaters`` list) and started by :func:`otpa.realtime.start_updaters`;
the updaters of the network it replaced, or of an evicted router, are stopped.  The
new updaters first re-apply the last good feed of the ones they replace, so a reloaded
graph serves the same real-time state before its first poll.
"""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path

from otpa.mobility import configure_tnc, with_rental_updaters
from otpa.network import TransportNetwork
from otpa.realtime import start_updaters
from otpa.updaters import PollingUpdater, UpdaterConfigError
from service.registry import RouterRegistry

__all__ = ["ROUTER_CONFIG", "UpdaterManager"]

logger = logging.getLogger(__name__)

#: The router configuration file in a router's folder.
ROUTER_CONFIG = "router-config.json"


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
        registry.add_listener(self.sync)

    def _router_dir(self, router_id: str) -> Path | None:
        graphs = self._registry.graphs_dir
        return None if graphs is None else graphs / router_id

    def _start_for(
        self, router_id: str, network: TransportNetwork, previous: list[PollingUpdater]
    ) -> list[PollingUpdater]:
        """Start a router's updaters; each first re-applies the last good feed of the
        updater it replaces (same index and source), so a reload keeps the real-time state."""
        started = self._configured(router_id, network)
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
        if folder is None or not (folder / ROUTER_CONFIG).is_file():
            return []
        try:
            config = json.loads((folder / ROUTER_CONFIG).read_text(encoding="utf-8"))
            if not isinstance(config, dict):
                msg = f"{ROUTER_CONFIG} is not a JSON object"
                raise UpdaterConfigError(msg)
            tnc_error = configure_tnc(network, config)  # ride-hail providers of the router
            if tnc_error is not None:
                logger.warning("router %r: no ride-hail provider: %s", router_id, tnc_error)
            updaters = start_updaters(network, config, folder, start=False)
            return with_rental_updaters(network, updaters)
        except (OSError, ValueError) as exc:  # JSON and configuration errors are ValueErrors
            logger.warning("router %r: updaters not started: %s", router_id, exc)
            self._errors[router_id] = f"{ROUTER_CONFIG}: {exc}"
            return []

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
