"""The ``bike-rental`` / ``vehicle-rental`` / ``car-rental`` updaters (``sourceType: gbfs``).

Configured in ``router-config.json`` as OpenTripPlanner 1.x writes them::

    {"type": "bike-rental", "sourceType": "gbfs", "url": "https://.../gbfs.json",
     "frequencySec": 60, "network": "citybikes"}
    {"type": "vehicle-rental", "sourceType": "gbfs", "file": "gbfs/gbfs.json"}

``file`` is relative to the router folder and may name a folder holding ``gbfs.json``.
Each poll reads ``gbfs.json`` and the files it lists and publishes one
:class:`~otpa.mobility.model.RentalSnapshot` in the network's
:class:`~otpa.mobility.store.MobilityStore`; a poll that fails (the feed went away, a
station file is broken) publishes nothing, so the last good data keeps serving and the
updater's status (``/updaters``) shows the error.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from otpa.mobility.gbfs import RENTAL_UPDATER_TYPES, GbfsError, rental_applier
from otpa.mobility.model import RentalSnapshot
from otpa.mobility.store import mobility_store_for
from otpa.mobility.tnc import (
    TNC_UPDATER_TYPE,
    TncConfigError,
    configure_tnc,
    tnc_for,
    tnc_provider,
)
from otpa.network import TransportNetwork
from otpa.updaters import (
    ApplyReport,
    PollingUpdater,
    UpdaterConfig,
    fetch_source,
    parse_updaters,
)

__all__ = [
    "apply_router_config_once",
    "rental_updater",
    "start_rental_updaters",
    "tnc_updater",
    "with_rental_updaters",
]

Fetch = Callable[[UpdaterConfig], bytes]


def _gbfs_fetch(fetch: Fetch) -> Fetch:
    """``fetch`` where a ``file`` that is a folder means its ``gbfs.json``."""

    def read(config: UpdaterConfig) -> bytes:
        if config.file is not None and config.file.is_dir():
            config = dataclasses.replace(config, file=config.file / "gbfs.json")
        try:
            return fetch(config)
        except OSError as exc:
            msg = f"gbfs.json cannot be read from {config.source}: {exc}"
            raise GbfsError(msg) from exc

    return read


def rental_updater(
    network: TransportNetwork, config: UpdaterConfig, *, fetch: Fetch = fetch_source
) -> PollingUpdater:
    """A (not yet started) GBFS updater publishing into ``network``'s rental store.

    Parameters
    ----------
    network
        The router's network.
    config
        A ``bike-rental``, ``vehicle-rental`` or ``car-rental`` entry.
    fetch
        How ``gbfs.json`` and the files it lists are read (default: file or HTTP).

    Raises
    ------
    ValueError
        ``config`` is not a rental updater.
    """
    store = mobility_store_for(network)
    key = f"updater-{config.index}"

    name = {"network": config.network or key}  # the feed's system_id once it was read

    def publish(snapshot: RentalSnapshot) -> int:
        name["network"] = snapshot.network
        return store.publish(key, snapshot).version

    inner = rental_applier(publish, config, fetch=fetch)

    def apply(data: bytes) -> ApplyReport:
        try:
            report = inner(data)
        except Exception as exc:
            store.set_error(key, name["network"], f"{type(exc).__name__}: {exc}")
            raise
        store.set_error(key, name["network"], None)
        return report

    fetch_gbfs = _gbfs_fetch(fetch)

    def read(cfg: UpdaterConfig) -> bytes:
        try:
            return fetch_gbfs(cfg)
        except Exception as exc:
            store.set_error(key, name["network"], f"{type(exc).__name__}: {exc}")
            raise

    return PollingUpdater(config, apply, read)


def tnc_updater(network: TransportNetwork, config: UpdaterConfig) -> PollingUpdater:
    """The status of one ``transportation-network-company-updater`` entry (not started).

    OTP 1.x adds the entry's ride-hail source once, when the router loads; here the
    router's providers are set by :func:`otpa.mobility.configure_tnc` and this updater's
    one "poll" checks that its company is among them, so ``/updaters`` shows the entry
    (``counts.companies`` 1 and the company, or the configuration error).
    """
    where = f"updaters[{config.index}]"

    def apply(_: bytes) -> ApplyReport:
        provider = tnc_provider(config.raw, where)  # this entry's own problems first
        providers = tnc_for(network)  # raises when the router's TNC configuration is unusable
        if providers.get(provider.company) is None:
            msg = f"{where}: company {provider.company} is not configured for this router"
            raise TncConfigError(msg)
        return ApplyReport(
            applied=1,
            details={"companies": 1},
            messages=(f"company {provider.company} ({config.source_type})",),
        )

    return PollingUpdater(config, apply, lambda _: b"")


def _mobility_updater(
    network: TransportNetwork, updater: PollingUpdater, fetch: Fetch
) -> PollingUpdater:
    kind = updater.config.type
    if kind in RENTAL_UPDATER_TYPES:
        return rental_updater(network, updater.config, fetch=fetch)
    if kind == TNC_UPDATER_TYPE:
        return tnc_updater(network, updater.config)
    return updater


def with_rental_updaters(
    network: TransportNetwork, updaters: Sequence[PollingUpdater], *, fetch: Fetch = fetch_source
) -> list[PollingUpdater]:
    """``updaters`` with each rental entry replaced by its GBFS updater and each
    ``transportation-network-company-updater`` by :func:`tnc_updater` (none started).

    The service builds a router's updaters with :func:`otpa.realtime.start_updaters`
    (``start=False``) and passes them through this, so every type has its apply function.
    """
    return [_mobility_updater(network, u, fetch) for u in updaters]


def start_rental_updaters(
    network: TransportNetwork,
    router_config: Mapping[str, Any],
    router_dir: Path,
    *,
    start: bool = True,
    fetch: Fetch = fetch_source,
) -> list[PollingUpdater]:
    """The rental and ride-hail updaters of a router configuration (the others are left out).

    Parameters
    ----------
    network
        The router's network.
    router_config
        The parsed ``router-config.json``.
    router_dir
        The router folder (``file`` paths are relative to it).
    start
        Start polling in background threads (False: call ``poll_once``).
    fetch
        How feeds are read.

    Raises
    ------
    otpa.updaters.UpdaterConfigError
        An entry is invalid.
    """
    out = [
        rental_updater(network, cfg, fetch=fetch)
        if cfg.type in RENTAL_UPDATER_TYPES
        else tnc_updater(network, cfg)
        for cfg in parse_updaters(router_config, router_dir)
        if cfg.type in RENTAL_UPDATER_TYPES or cfg.type == TNC_UPDATER_TYPE
    ]
    if start:
        for u in out:
            u.start()
    return out


def apply_router_config_once(
    network: TransportNetwork,
    router_config: Mapping[str, Any],
    router_dir: Path,
    *,
    fetch: Fetch = fetch_source,
) -> list[PollingUpdater]:
    """Put a router configuration's mobility parts in force once, without threads.

    For a network used without the service (a script, a notebook): its ride-hail
    providers are configured (:func:`otpa.mobility.configure_tnc`) and each rental feed is
    read once.  (The service, the demo city included, polls them with its updater manager.)

    Returns
    -------
    list of PollingUpdater
        The rental updaters, each polled once (their status says how it went).
    """
    configure_tnc(network, router_config)
    updaters = start_rental_updaters(network, router_config, router_dir, start=False, fetch=fetch)
    for updater in updaters:
        updater.poll_once()
    return updaters
