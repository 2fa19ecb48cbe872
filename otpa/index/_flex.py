"""GTFS-Flex zones (``locations.geojson``) of the feeds a network was built from.

The saved graph does not carry ``locations.geojson`` yet, so the zones are read
from the feed files recorded at build time (``transit.feeds.path``) when they
are still there; only that one member of each feed is read, and a feed whose
file is gone or unreadable simply contributes no zones.
"""

from __future__ import annotations

import json
import logging
import zipfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from otpa.index.model import FlexArea

__all__ = ["MAX_LOCATIONS_BYTES", "flex_areas_from_geojson", "read_flex_areas"]

logger = logging.getLogger(__name__)

#: ``locations.geojson`` files larger than this are not read (bytes).
MAX_LOCATIONS_BYTES = 64 * 1024**2


def _rings(geometry: Mapping[str, Any]) -> list[tuple[tuple[float, float], ...]]:
    kind = geometry.get("type")
    coords = geometry.get("coordinates") or []
    polygons = [coords] if kind == "Polygon" else coords if kind == "MultiPolygon" else []
    rings: list[tuple[tuple[float, float], ...]] = []
    for polygon in polygons:
        if polygon and polygon[0]:
            rings.append(tuple((float(p[1]), float(p[0])) for p in polygon[0]))
    return rings


def flex_areas_from_geojson(feed_id: str, document: Mapping[str, Any]) -> list[FlexArea]:
    """Zones of one feed's parsed ``locations.geojson`` (polygon features with an id).

    Examples
    --------
    >>> ring = [[8, 49], [9, 49], [8, 50], [8, 49]]
    >>> doc = {"features": [{"id": "z", "properties": {"stop_name": "Zone"},
    ...     "geometry": {"type": "Polygon", "coordinates": [ring]}}]}
    >>> flex_areas_from_geojson("f", doc)[0].rings[0][:2]
    ((49.0, 8.0), (49.0, 9.0))
    """
    areas: list[FlexArea] = []
    for feature in document.get("features") or []:
        if not isinstance(feature, Mapping) or feature.get("id") is None:
            continue
        rings = _rings(feature.get("geometry") or {})
        if not rings:
            continue
        props = feature.get("properties") or {}
        name = props.get("stop_name") if isinstance(props, Mapping) else None
        areas.append(
            FlexArea(
                f"{feed_id}:{feature['id']}", None if name is None else str(name), tuple(rings)
            )
        )
    return areas


def _locations_bytes(path: Path) -> bytes | None:
    """``locations.geojson`` of a feed zip or folder (top level or one subfolder), or None."""
    if path.is_dir():
        found = [*path.glob("locations.geojson"), *path.glob("*/locations.geojson")]
        if not found or found[0].stat().st_size > MAX_LOCATIONS_BYTES:
            return None
        return found[0].read_bytes()
    with zipfile.ZipFile(path) as zf:
        for info in zf.infolist():
            name = info.filename.rpartition("/")[2].lower()
            if name == "locations.geojson" and not info.filename.startswith("__MACOSX/"):
                return zf.read(info) if info.file_size <= MAX_LOCATIONS_BYTES else None
    return None


def _read_one(feed_id: str, path: Path) -> list[FlexArea]:
    try:
        raw = _locations_bytes(path)
        if raw is None:
            return []
        document = json.loads(raw)
    except (OSError, zipfile.BadZipFile, ValueError, UnicodeDecodeError) as exc:
        logger.info("flex zones of feed %s not read from %s: %s", feed_id, path, exc)
        return []
    if not isinstance(document, Mapping):
        return []
    return flex_areas_from_geojson(feed_id, document)


def read_flex_areas(feeds: Iterable[tuple[str, str | None]]) -> list[FlexArea]:
    """Zones of every feed still readable at its recorded path.

    Parameters
    ----------
    feeds
        ``(feed_id, path)`` pairs; a missing path is skipped.
    """
    areas: list[FlexArea] = []
    for feed_id, path in feeds:
        if path and Path(path).exists():
            areas.extend(_read_one(feed_id, Path(path)))
    return areas
