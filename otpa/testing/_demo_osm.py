"""OSM XML (API 0.6) writer for the demo city (private)."""

from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import quoteattr

import numpy as np

from otpa.testing._demo_model import CityPlan, Tags, to_latlon

__all__ = ["write_osm"]

_META = 'version="1" timestamp="2026-01-01T00:00:00Z" changeset="1" uid="1" user="otpa"'


def _tags(tags: Tags, indent: str) -> list[str]:
    return [f"{indent}<tag k={quoteattr(k)} v={quoteattr(v)}/>\n" for k, v in tags]


def write_osm(
    plan: CityPlan, path: Path, bounds: tuple[float, float, float, float], generator: str
) -> None:
    """Write ``plan`` as an OSM XML file; ``bounds`` is ``(min_lon, min_lat, max_lon, max_lat)``."""
    ids = list(plan.nodes)
    xy = np.array([plan.nodes[i] for i in ids])
    lat, lon = to_latlon(xy[:, 0], xy[:, 1])
    min_lon, min_lat, max_lon, max_lat = bounds
    out = [
        "<?xml version='1.0' encoding='UTF-8'?>\n",
        f'<osm version="0.6" generator={quoteattr(generator)}>\n',
        f'  <bounds minlat="{min_lat:.7f}" minlon="{min_lon:.7f}" '
        f'maxlat="{max_lat:.7f}" maxlon="{max_lon:.7f}"/>\n',
    ]
    for node, la, lo in zip(ids, lat.tolist(), lon.tolist(), strict=True):
        head = f'  <node id="{node}" {_META} lat="{la:.7f}" lon="{lo:.7f}"'
        tags = plan.node_tags.get(node)
        if tags:
            out.append(head + ">\n")
            out.extend(_tags(tags, "    "))
            out.append("  </node>\n")
        else:
            out.append(head + "/>\n")
    for way in plan.ways:
        out.append(f'  <way id="{way.way_id}" {_META}>\n')
        out.extend(f'    <nd ref="{n}"/>\n' for n in way.nodes)
        out.extend(_tags(way.tags, "    "))
        out.append("  </way>\n")
    for rel in plan.relations:
        out.append(f'  <relation id="{rel.relation_id}" {_META}>\n')
        out.extend(
            f'    <member type="{t}" ref="{ref}" role={quoteattr(role)}/>\n'
            for t, ref, role in rel.members
        )
        out.extend(_tags(rel.tags, "    "))
        out.append("  </relation>\n")
    out.append("</osm>\n")
    path.write_text("".join(out), encoding="utf-8", newline="\n")
