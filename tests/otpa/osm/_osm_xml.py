"""Write small hand-made OSM XML files for the reader tests."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import quoteattr

LAT0 = 48.6
LON0 = 8.9
M_PER_DEG_LAT = 111_195.0


def xy(x_m: float, y_m: float) -> tuple[float, float]:
    """(lat, lon) of a point x metres east and y metres north of (LAT0, LON0)."""
    lat = LAT0 + y_m / M_PER_DEG_LAT
    lon = LON0 + x_m / (M_PER_DEG_LAT * math.cos(math.radians(LAT0)))
    return lat, lon


@dataclass
class OsmXml:
    """Collects nodes, ways and relations, then writes an ``.osm`` file."""

    nodes: dict[int, tuple[float, float, dict[str, str]]] = field(default_factory=dict)
    ways: list[tuple[int, list[int], dict[str, str]]] = field(default_factory=list)
    relations: list[tuple[int, list[tuple[str, int, str]], dict[str, str]]] = field(
        default_factory=list
    )

    def node(self, node_id: int, x_m: float, y_m: float, **tags: str) -> int:
        lat, lon = xy(x_m, y_m)
        self.nodes[node_id] = (lat, lon, dict(tags))
        return node_id

    def way(self, way_id: int, refs: list[int], **tags: str) -> int:
        self.ways.append((way_id, list(refs), _fix(tags)))
        return way_id

    def relation(self, rel_id: int, members: list[tuple[str, int, str]], **tags: str) -> int:
        self.relations.append((rel_id, members, _fix(tags)))
        return rel_id

    def write(self, path: Path) -> Path:
        lines = ["<?xml version='1.0' encoding='UTF-8'?>", '<osm version="0.6" generator="test">']
        for node_id, (lat, lon, tags) in sorted(self.nodes.items()):
            attrs = f'id="{node_id}" version="1" lat="{lat:.7f}" lon="{lon:.7f}"'
            lines.append(f"  <node {attrs}>" + _tags(_fix(tags)) + "</node>")
        for way_id, refs, tags in self.ways:
            nds = "".join(f'<nd ref="{r}"/>' for r in refs)
            lines.append(f'  <way id="{way_id}" version="1">{nds}{_tags(tags)}</way>')
        for rel_id, members, tags in self.relations:
            mem = "".join(
                f'<member type="{t}" ref="{r}" role={quoteattr(role)}/>' for t, r, role in members
            )
            lines.append(f'  <relation id="{rel_id}" version="1">{mem}{_tags(tags)}</relation>')
        lines.append("</osm>")
        path.write_text("\n".join(lines), encoding="utf-8")
        return path


def _fix(tags: dict[str, str]) -> dict[str, str]:
    """Python keywords can't hold ':'; accept ``oneway__bicycle`` for ``oneway:bicycle``."""
    return {k.replace("__", ":"): v for k, v in tags.items()}


def _tags(tags: dict[str, str]) -> str:
    return "".join(f"<tag k={quoteattr(k)} v={quoteattr(v)}/>" for k, v in tags.items())
