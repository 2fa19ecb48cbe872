"""Administrative boundaries (``boundary=administrative`` relations) for the municoder."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import osmium

from otpa.errors import OsmError
from otpa.types import PathLike

__all__ = ["AdminBoundary", "read_admin_boundaries"]


@dataclass(frozen=True)
class AdminBoundary:
    """A named administrative area assembled from its relation's member ways.

    Attributes
    ----------
    relation_id
        The OSM relation id.
    name
        Its ``name`` tag.
    admin_level
        Its ``admin_level`` tag (None when absent or not a number).
    geometry
        A GeoJSON ``MultiPolygon`` (lon, lat), holes included.
    """

    relation_id: int
    name: str
    admin_level: int | None
    geometry: dict[str, Any]


def _level(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def read_admin_boundaries(
    paths: PathLike | Sequence[PathLike], *, admin_levels: Sequence[int] | None = (8,)
) -> list[AdminBoundary]:
    """Read named ``boundary=administrative`` relations as polygons (libosmium's area assembler).

    Parameters
    ----------
    paths
        OSM files (PBF or XML).
    admin_levels
        ``admin_level`` values kept (OSM's 8 is a municipality in most countries);
        None keeps every level.

    Returns
    -------
    list of AdminBoundary
        One per relation whose rings close, in the files' order; relations
        whose member ways are missing from the extract are skipped.

    Raises
    ------
    OsmError
        If a file is missing or unreadable.
    """
    files = [Path(paths)] if isinstance(paths, (str, os.PathLike)) else [Path(p) for p in paths]
    wanted = None if admin_levels is None else {int(v) for v in admin_levels}
    out: list[AdminBoundary] = []
    seen: set[int] = set()
    for path in files:
        if not path.is_file():
            msg = f"OSM file not found: {path}"
            raise OsmError(msg)
        try:
            processor = (
                osmium.FileProcessor(str(path))
                .with_areas(osmium.filter.TagFilter(("boundary", "administrative")))
                .with_filter(osmium.filter.EntityFilter(osmium.osm.AREA))
            )
            for area in processor:
                if not isinstance(area, osmium.osm.Area) or area.from_way():
                    continue
                if area.orig_id() in seen:
                    continue
                tags = area.tags
                name, level = tags.get("name"), _level(tags.get("admin_level"))
                if not name or (wanted is not None and level not in wanted):
                    continue
                polygons = [
                    [
                        [[n.lon, n.lat] for n in outer],
                        *([[n.lon, n.lat] for n in inner] for inner in area.inner_rings(outer)),
                    ]
                    for outer in area.outer_rings()
                ]
                if not polygons:
                    continue
                seen.add(area.orig_id())
                geometry = {"type": "MultiPolygon", "coordinates": polygons}
                out.append(AdminBoundary(area.orig_id(), name, level, geometry))
        except (RuntimeError, ValueError, OSError) as exc:
            msg = f"cannot read boundaries from OSM file {path}: {exc}"
            raise OsmError(msg) from exc
    return out
