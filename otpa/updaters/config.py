"""The ``updaters`` list of ``router-config.json`` (OpenTripPlanner 1.x's format).

Each entry names a ``type`` and where its feed comes from::

    {"type": "stop-time-updater", "sourceType": "gtfs-file", "file": "rt/trip-updates.pb",
     "frequencySec": 30, "feedId": "bart"}
    {"type": "stop-time-updater", "sourceType": "gtfs-http", "url": "http://...", "feedId": "bart"}

``file`` paths are relative to the router folder.  :mod:`otpa.realtime` runs
``stop-time-updater``, ``real-time-alerts`` and ``vehicle-positions``;
:mod:`otpa.mobility` the rental types and ``transportation-network-company-updater``
(ride-hail providers, no feed: ``sourceType`` ``no-api``/``uber``/``lyft``); other types
are read and validated (so a configuration that names them is accepted) and run
only where a package implements them; :attr:`UpdaterConfig.supported` tells.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from otpa.errors import OtpaError

__all__ = [
    "NO_FEED_TYPES",
    "UPDATER_TYPES",
    "UpdaterConfig",
    "UpdaterConfigError",
    "parse_updaters",
]

#: Updater types of OTP 1.x's configuration, with the source types each accepts.
UPDATER_TYPES: Mapping[str, frozenset[str]] = {
    "stop-time-updater": frozenset({"gtfs-file", "gtfs-http"}),
    "real-time-alerts": frozenset({"gtfs-file", "gtfs-http"}),
    "vehicle-positions": frozenset({"gtfs-file", "gtfs-http"}),
    "bike-rental": frozenset({"gbfs"}),
    "vehicle-rental": frozenset({"gbfs"}),
    "car-rental": frozenset({"gbfs"}),
    # ride-hail providers (the ibi fork): no feed to read, configured once (otpa.mobility)
    "transportation-network-company-updater": frozenset({"no-api", "uber", "lyft"}),
}

#: Types without a feed (neither ``url`` nor ``file``): set up once when the router loads.
NO_FEED_TYPES = frozenset({"transportation-network-company-updater"})

#: Types this version runs (the others are configuration only, reported as such).
_RUNNABLE = frozenset(
    {
        "stop-time-updater",
        "real-time-alerts",
        "vehicle-positions",
        "bike-rental",
        "vehicle-rental",
        "car-rental",
        "transportation-network-company-updater",
    }
)

#: OTP 1.x's default polling period.
DEFAULT_FREQUENCY_S = 60.0


class UpdaterConfigError(ValueError, OtpaError):
    """An ``updaters`` entry that cannot be used (names the entry and the field)."""


class UnsupportedUpdaterError(OtpaError):
    """A configured updater type this version reads but does not run yet (its status says so)."""


@dataclass(frozen=True)
class UpdaterConfig:
    """One configured updater.

    Attributes
    ----------
    index
        Position in the ``updaters`` list (the ``n`` of ``/updaters/{n}``).
    type
        ``stop-time-updater``, ``real-time-alerts``, ``vehicle-positions``, ``bike-rental``...
    source_type
        ``gtfs-file``, ``gtfs-http``, ``gbfs``, or a ride-hail source (``no-api``, ``uber``,
        ``lyft``).
    url, file
        Where the feed is read: a URL, or a file (absolute, resolved against the router
        folder); both None for the types of :data:`NO_FEED_TYPES`.
    frequency_s
        Seconds between polls (OTP's ``frequencySec``); ``<= 0``: read once.
    feed_id
        The GTFS feed the updates refer to (``feedId``); ``None``: the network's only feed.
    network
        Rental network name (``network``) of the rental types.
    raw
        The entry as written.
    """

    index: int
    type: str
    source_type: str
    url: str | None
    file: Path | None
    frequency_s: float
    feed_id: str | None
    network: str | None = None
    raw: Mapping[str, Any] = field(default_factory=dict)

    @property
    def supported(self) -> bool:
        """Whether this version runs the updater (GTFS-RT trip updates, alerts, vehicles)."""
        return self.type in _RUNNABLE

    @property
    def source(self) -> str:
        """The URL or file path, as shown in the status (the source type without a feed)."""
        if self.url is not None:
            return self.url
        return self.source_type if self.file is None else str(self.file)


def _text(entry: Mapping[str, Any], key: str, where: str) -> str | None:
    value = entry.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        msg = f"{where}: {key!r} must be a non-empty string"
        raise UpdaterConfigError(msg)
    return value.strip()


def _entry(index: int, entry: Any, router_dir: Path) -> UpdaterConfig:
    where = f"updaters[{index}]"
    if not isinstance(entry, Mapping):
        msg = f"{where}: an updater is a JSON object"
        raise UpdaterConfigError(msg)
    kind = _text(entry, "type", where) or ""
    if kind not in UPDATER_TYPES:
        msg = f"{where}: unknown type {kind!r} (one of {', '.join(sorted(UPDATER_TYPES))})"
        raise UpdaterConfigError(msg)
    sources = UPDATER_TYPES[kind]
    default_source = "gbfs" if "gbfs" in sources else None
    source_type = _text(entry, "sourceType", where) or default_source
    url, file = _text(entry, "url", where), _text(entry, "file", where)
    if source_type is None:  # real-time-alerts: OTP 1.x reads a URL; a file is accepted too
        source_type = "gtfs-file" if file is not None and url is None else "gtfs-http"
    if source_type not in sources:
        msg = f"{where}: sourceType {source_type!r} is not one of {', '.join(sorted(sources))}"
        raise UpdaterConfigError(msg)
    if kind in NO_FEED_TYPES:
        return UpdaterConfig(
            index=index,
            type=kind,
            source_type=source_type,
            url=None,
            file=None,
            frequency_s=0.0,
            feed_id=None,
            raw=dict(entry),
        )
    if (url is None) == (file is None):
        msg = f"{where}: give exactly one of 'url' and 'file'"
        raise UpdaterConfigError(msg)
    if source_type == "gtfs-http" and url is None:
        msg = f"{where}: sourceType gtfs-http needs a 'url'"
        raise UpdaterConfigError(msg)
    if source_type == "gtfs-file" and file is None:
        msg = f"{where}: sourceType gtfs-file needs a 'file'"
        raise UpdaterConfigError(msg)
    if url is not None and not url.lower().startswith(("http://", "https://")):
        msg = f"{where}: url must be http(s): {url!r}"
        raise UpdaterConfigError(msg)
    freq = entry.get("frequencySec", DEFAULT_FREQUENCY_S)
    if isinstance(freq, bool) or not isinstance(freq, int | float) or freq != freq:
        msg = f"{where}: frequencySec must be a number"
        raise UpdaterConfigError(msg)
    path = None
    if file is not None:
        path = Path(file)
        path = path if path.is_absolute() else (router_dir / path)
    return UpdaterConfig(
        index=index,
        type=kind,
        source_type=source_type,
        url=url,
        file=path,
        frequency_s=float(freq),
        feed_id=_text(entry, "feedId", where),
        network=_text(entry, "network", where),
        raw=dict(entry),
    )


def parse_updaters(router_config: Mapping[str, Any], router_dir: Path) -> list[UpdaterConfig]:
    """The updaters of a ``router-config.json`` document.

    Parameters
    ----------
    router_config
        The parsed ``router-config.json``.
    router_dir
        The router folder (``file`` paths are relative to it).

    Returns
    -------
    list of UpdaterConfig
        In the order of the list (empty when there is none).

    Raises
    ------
    UpdaterConfigError
        When ``updaters`` is not a list or an entry is invalid (the message names it).
    """
    entries = router_config.get("updaters", [])
    if entries is None:
        return []
    if not isinstance(entries, list):
        msg = "updaters must be a list"
        raise UpdaterConfigError(msg)
    return [_entry(i, e, Path(router_dir)) for i, e in enumerate(entries)]
