"""Feed ids and feed-scoped entity ids."""

from __future__ import annotations

import re
from pathlib import Path

from otpa.errors import GtfsError
from otpa.types import PathLike

__all__ = ["default_feed_id", "sanitize_feed_id", "scoped_id"]

_BAD_CHARS = re.compile(r"[^A-Za-z0-9_.\-]+")


def scoped_id(feed_id: str, entity_id: str) -> str:
    """Return the network-wide id of a feed entity: ``"{feed_id}:{entity_id}"``.

    Parameters
    ----------
    feed_id
        The feed id (never contains ``":"``).
    entity_id
        The raw GTFS id (stop, route, trip, ...), kept as is.
    """
    return f"{feed_id}:{entity_id}"


def sanitize_feed_id(raw: str) -> str:
    """Make ``raw`` usable as a feed id: runs of characters other than letters, digits,
    ``_ . -`` become ``_``; leading/trailing separators are stripped.

    Raises
    ------
    GtfsError
        If nothing usable is left.
    """
    cleaned = _BAD_CHARS.sub("_", raw.strip()).strip("_.-")
    if not cleaned:
        msg = f"cannot derive a feed id from {raw!r}"
        raise GtfsError(msg)
    return cleaned


def default_feed_id(path: PathLike) -> str:
    """Feed id from a file or folder name: ``caltrain_gtfs.zip`` -> ``caltrain_gtfs``,
    ``vvs-bus-751-only.gtfs.zip`` -> ``vvs-bus-751-only``, folder ``sample-feed`` ->
    ``sample-feed``."""
    name = Path(path).name
    lower = name.lower()
    for suffix in (".zip", ".gtfs"):
        if lower.endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
            lower = lower[: -len(suffix)]
    return sanitize_feed_id(name)
