"""Independent expectations for GTFS-Flex zones, read from ``locations.geojson`` with json."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from tests.conftest import DATA_ROOT

__all__ = ["COBB_FEEDS", "Polygons", "cobb_flex_zones", "polygon_features"]

#: A zone's polygons, each a list of rings (exterior first) of ``(lat, lon)`` pairs.
Polygons = list[list[list[tuple[float, float]]]]

#: Feed ids of the Cobb County files (feed_info.feed_id, else the file name).
COBB_FEEDS = {
    "aspen-flex-on-demand.gtfs.zip": "1696",
    "cobblinc-bus-30-only.gtfs.zip": "cobblinc-bus-30-only",
    "cobblinc-scheduled-deviated-flex.gtfs.zip": "cobblinc-scheduled-deviated-flex",
    "lincoln-county-flex.gtfs.zip": "lincolncounty-or-us",
    "marta-bus-856-only.gtfs.zip": "MARTA",
}


def polygon_features(path: Path) -> dict[str, Polygons]:
    """``{feature id: polygons}`` of the Polygon/MultiPolygon features of a feed zip."""
    with zipfile.ZipFile(path) as zf:
        names = [n for n in zf.namelist() if n.endswith("locations.geojson")]
        if not names:
            return {}
        doc = json.loads(zf.read(names[0]))
    out = {}
    for f in doc["features"]:
        geom = f.get("geometry") or {}
        if "id" not in f or geom.get("type") not in ("Polygon", "MultiPolygon"):
            continue
        polygons = [geom["coordinates"]] if geom["type"] == "Polygon" else geom["coordinates"]
        out[str(f["id"])] = [
            [[(float(p[1]), float(p[0])) for p in ring] for ring in polygon] for polygon in polygons
        ]
    return out


def cobb_flex_zones() -> dict[str, Polygons]:
    """Every zone of the Cobb County feeds, by feed-scoped id (``feedId:locationId``)."""
    expected: dict[str, Polygons] = {}
    for file_name, feed_id in COBB_FEEDS.items():
        for area_id, polygons in polygon_features(DATA_ROOT / "tiny/cobb-flex" / file_name).items():
            expected[f"{feed_id}:{area_id}"] = polygons
    return expected
