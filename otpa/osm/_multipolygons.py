"""Walkable ``type=multipolygon`` areas: member ways joined into outer rings and holes.

A relation read by :func:`~otpa.osm._scan.is_walkable_multipolygon` (``highway=pedestrian``
and the other area kinds, or a platform) becomes one synthetic closed way per ring, with
the relation's tags plus ``area=yes``, so that it takes the same path through the
builder as a closed ``area=yes`` way (outline segments, entrances, visibility edges;
:mod:`otpa.osm._areas`).  Its segments carry ``seg_way_id = -relation_id``.

Member ways with role ``inner`` form the holes, the others (``outer`` or no role) the
outer rings; ways are joined end to end in any order and direction.  Each hole belongs to
the outer ring that contains it: the visibility edges of that ring must not cross it.
A relation whose rings do not close (members missing from a clipped extract, nodes
without location) is skipped with a warning.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import shapely

from otpa.osm._scan import UNDEFINED_COORD, RawData, RawRelation, RawWay

__all__ = ["AreaRing", "multipolygon_rings"]


@dataclass(frozen=True)
class AreaRing:
    """One ring of a walkable multipolygon, as a synthetic closed way.

    ``way`` indexes :class:`RawData`'s flat node lists like any scanned way; ``outer``
    numbers the outer rings of all relations, and a hole has its outer ring's number.
    """

    way: RawWay
    hole: bool
    outer: int


def _next_part(parts: list[list[int]], end: int) -> tuple[int, list[int]] | None:
    """Index of a part that starts or ends at node ``end``, oriented to continue from it."""
    for i, part in enumerate(parts):
        if part[0] == end:
            return i, part
        if part[-1] == end:
            return i, part[::-1]
    return None


def _join(parts: list[list[int]]) -> list[list[int]] | None:
    """Closed rings (first node repeated last) from open or closed node lists."""
    remaining = [p for p in parts if len(p) >= 2]
    rings = []
    while remaining:
        ring = list(remaining.pop(0))
        while ring[0] != ring[-1]:
            found = _next_part(remaining, ring[-1])
            if found is None:
                return None
            remaining.pop(found[0])
            ring.extend(found[1][1:])
        if len(set(ring)) < 3:
            return None
        rings.append(ring)
    return rings


def _member_nodes(data: RawData, rel: RawRelation) -> dict[str, list[list[int]]] | None:
    roles: dict[str, list[list[int]]] = {"outer": [], "inner": []}
    for typ, ref, role in rel.members:
        if typ != "w":
            continue
        way = data.ways.get(ref) or data.area_member_ways.get(ref)
        if way is None:
            return None
        roles["inner" if role == "inner" else "outer"].append(
            data.node_refs[way.start : way.start + way.count]
        )
    return roles


def _locations(data: RawData) -> dict[int, tuple[int, int]]:
    out: dict[int, tuple[int, int]] = {}
    for way in data.area_member_ways.values():
        sl = slice(way.start, way.start + way.count)
        for ref, x, y in zip(data.node_refs[sl], data.node_x[sl], data.node_y[sl], strict=True):
            out[ref] = (x, y)
    return out


def multipolygon_rings(data: RawData, warnings: list[str]) -> list[AreaRing]:
    """Add one synthetic way per ring of the walkable multipolygons to ``data``'s node lists.

    Returns the rings (outer rings and the holes they contain); the synthetic ways are
    not put into ``data.ways``.
    """
    if not data.area_relations:
        return []
    located = _locations(data)
    for way in data.ways.values():
        sl = slice(way.start, way.start + way.count)
        for ref, x, y in zip(data.node_refs[sl], data.node_x[sl], data.node_y[sl], strict=True):
            located.setdefault(ref, (x, y))
    out: list[AreaRing] = []
    n_outer = 0
    for rel_id in sorted(data.area_relations):
        rel = data.area_relations[rel_id]
        members = _member_nodes(data, rel)
        outers = None if members is None else _join(members["outer"])
        inners = None if members is None else _join(members["inner"])
        nodes = {n for ring in (outers or []) + (inners or []) for n in ring}
        if (
            not outers
            or inners is None
            or any(located.get(n, (UNDEFINED_COORD,) * 2)[0] == UNDEFINED_COORD for n in nodes)
        ):
            warnings.append(
                f"multipolygon area relation {rel_id} ignored: its rings are incomplete"
            )
            continue
        polygons = [shapely.Polygon([located[n] for n in ring]) for ring in outers]
        tags = {**rel.tags, "area": "yes"}
        for k, ring in enumerate(outers):
            out.append(AreaRing(_add(data, -rel_id, tags, ring, located), False, n_outer + k))
        for ring in inners:
            inside = shapely.Point(located[ring[0]])
            owner = [k for k, poly in enumerate(polygons) if poly.covers(inside)]
            if not owner:
                warnings.append(
                    f"multipolygon area relation {rel_id}: an inner ring outside every "
                    "outer ring was ignored"
                )
                continue
            out.append(AreaRing(_add(data, -rel_id, tags, ring, located), True, n_outer + owner[0]))
        n_outer += len(outers)
    return out


def _add(
    data: RawData,
    way_id: int,
    tags: dict[str, str],
    ring: list[int],
    located: dict[int, tuple[int, int]],
) -> RawWay:
    start = len(data.node_refs)
    data.node_refs.extend(ring)
    xy = np.array([located[n] for n in ring], dtype=np.int64)
    data.node_x.extend(xy[:, 0].tolist())
    data.node_y.extend(xy[:, 1].tolist())
    return RawWay(way_id, tags, start, len(ring))
