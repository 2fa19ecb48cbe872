"""One streaming pass per OSM file with pyosmium, collecting only what the builder needs."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import osmium

from otpa.errors import OsmError
from otpa.osm._places import place_kind
from otpa.osm._ways import AREA_KINDS, routable_kind

__all__ = [
    "UNDEFINED_COORD",
    "RawData",
    "RawRelation",
    "RawWay",
    "is_walkable_multipolygon",
    "scan_files",
]

FEATURE_AMENITIES = frozenset({"parking", "bicycle_parking", "bicycle_rental"})
_FILTER_KEYS = ("highway", "railway", "public_transport", "amenity", "barrier", "type")
#: Further keys of named places kept for the geocoder (see :mod:`otpa.osm._places`).
_PLACE_FILTER_KEYS = ("shop", "tourism", "leisure", "historic", "office", "place", "aeroway")


@dataclass
class RawWay:
    """A way as read: tags and where its nodes sit in :class:`RawData`'s flat node lists."""

    way_id: int
    tags: dict[str, str]
    start: int
    count: int


@dataclass
class RawRelation:
    """A ``type=restriction`` or walkable ``type=multipolygon`` relation."""

    relation_id: int
    tags: dict[str, str]
    members: list[tuple[str, int, str]]


@dataclass
class RawData:
    """What the scan of all files collected.

    The nodes of all kept ways are stored back to back in ``node_refs`` and the
    fixed-point coordinates ``node_x``/``node_y`` (1e-7 degrees; :data:`UNDEFINED_COORD`
    where the file lacks the node).  ``area_relations`` are the walkable multipolygons
    (:func:`is_walkable_multipolygon`); ``area_member_ways`` their member ways that are
    not routable ways themselves (read in a second pass over the file).
    """

    ways: dict[int, RawWay] = field(default_factory=dict)
    feature_ways: dict[int, RawWay] = field(default_factory=dict)
    feature_nodes: dict[int, tuple[float, float, dict[str, str]]] = field(default_factory=dict)
    barrier_nodes: dict[int, dict[str, str]] = field(default_factory=dict)
    elevator_nodes: dict[int, str] = field(default_factory=dict)
    restrictions: dict[int, RawRelation] = field(default_factory=dict)
    area_relations: dict[int, RawRelation] = field(default_factory=dict)
    area_member_ways: dict[int, RawWay] = field(default_factory=dict)
    place_nodes: dict[int, tuple[float, float, dict[str, str]]] = field(default_factory=dict)
    place_ways: dict[int, RawWay] = field(default_factory=dict)
    node_refs: list[int] = field(default_factory=list)
    node_x: list[int] = field(default_factory=list)
    node_y: list[int] = field(default_factory=list)

    def way_centre(self, way: RawWay) -> tuple[float, float] | None:
        """Mean position of a way's distinct located nodes (None when none is located)."""
        seen: dict[int, tuple[float, float]] = {}
        for ref, lat, lon in zip(*self.way_nodes(way), strict=True):
            if not math.isnan(lat):
                seen[ref] = (lat, lon)
        if not seen:
            return None
        return (
            sum(p[0] for p in seen.values()) / len(seen),
            sum(p[1] for p in seen.values()) / len(seen),
        )

    def way_nodes(self, way: RawWay) -> tuple[list[int], list[float], list[float]]:
        """Node ids, latitudes and longitudes (NaN where unknown) of one way."""
        sl = slice(way.start, way.start + way.count)
        lats = [math.nan if y == UNDEFINED_COORD else y * 1e-7 for y in self.node_y[sl]]
        lons = [math.nan if x == UNDEFINED_COORD else x * 1e-7 for x in self.node_x[sl]]
        return self.node_refs[sl], lats, lons


#: libosmium's fixed-point value of an undefined coordinate.
UNDEFINED_COORD = 2147483647


def _file_format(path: Path) -> str:
    name = path.name.lower()
    for suffix, fmt in (
        (".osm.pbf", "pbf"),
        (".pbf", "pbf"),
        (".osm.bz2", "osm.bz2"),
        (".osm.gz", "osm.gz"),
        (".osm", "osm"),
        (".xml", "osm"),
        (".o5m", "o5m"),
    ):
        if name.endswith(suffix):
            return fmt
    return ""


def is_walkable_multipolygon(tags: dict[str, str]) -> bool:
    """Whether a relation is a ``type=multipolygon`` walkable area (as OTP 1.x reads them).

    Its own tags must make it routable (``highway`` of an area kind, or a
    ``public_transport``/``railway`` platform); ``area:highway`` surfaces are not
    read (their routable line is mapped separately).

    Examples
    --------
    >>> is_walkable_multipolygon({"type": "multipolygon", "highway": "pedestrian"})
    True
    >>> is_walkable_multipolygon({"type": "multipolygon", "highway": "residential"})
    False
    """
    return tags.get("type") == "multipolygon" and routable_kind(tags) in AREA_KINDS


def _tag_pairs(obj: osmium.osm.Way) -> list[osmium.osm.Tag]:
    """The way's tags as ``(key, value)`` pairs in file order.

    One call into libosmium per tag: iterating ``obj.tags`` goes through two Python
    layers of pyosmium per tag, and ``tags.get`` is one call per lookup; reading a
    way's tags once and looking them up in a dict costs about half (the scan runs
    once per way of the file).
    """
    raw = obj._pyosmium_data
    it = raw.tags_begin()
    nxt = raw.tags_next
    return [nxt(it) for _ in range(raw.tags_size())]


def _add_way(data: RawData, obj: osmium.osm.Way, tags: dict[str, str]) -> RawWay:
    refs, xs, ys = data.node_refs, data.node_x, data.node_y
    start = len(refs)
    for node in obj.nodes:
        refs.append(node.ref)
        loc = node.location
        xs.append(loc.x)
        ys.append(loc.y)
    return RawWay(obj.id, tags, start, len(refs) - start)


def _scan_area_members(
    source: osmium.io.File | str, store: osmium.index.LocationTable, data: RawData
) -> None:
    """Second pass: the member ways of walkable multipolygons that were not kept."""
    wanted = {
        ref
        for rel in data.area_relations.values()
        for typ, ref, _ in rel.members
        if typ == "w" and ref not in data.ways and ref not in data.area_member_ways
    }
    if not wanted:
        return
    processor = osmium.FileProcessor(source, osmium.osm.WAY).with_filter(
        osmium.filter.IdFilter(wanted)
    )
    refs, xs, ys = data.node_refs, data.node_x, data.node_y
    for obj in processor:
        if not isinstance(obj, osmium.osm.Way) or obj.id in data.area_member_ways:
            continue
        start = len(refs)
        for node in obj.nodes:  # locations from the first pass's node store
            refs.append(node.ref)
            try:
                loc = store.get(node.ref)
            except KeyError:
                xs.append(UNDEFINED_COORD)
                ys.append(UNDEFINED_COORD)
                continue
            xs.append(loc.x)
            ys.append(loc.y)
        data.area_member_ways[obj.id] = RawWay(obj.id, dict(obj.tags), start, len(refs) - start)


def _keep_place_node(data: RawData, obj: osmium.osm.Node) -> None:
    """Keep a named place node for the geocoder (see :mod:`otpa.osm._places`)."""
    tags = obj.tags
    if (
        "name" in tags
        and obj.id not in data.place_nodes
        and obj.location.valid()
        and place_kind(tags) is not None
    ):
        data.place_nodes[obj.id] = (obj.location.lat, obj.location.lon, dict(tags))


def _keep_way(data: RawData, obj: osmium.osm.Way) -> None:
    """Keep a routable way, a feature way (parking, bike rental) or a named place way."""
    pairs = _tag_pairs(obj)
    tags = dict(pairs)
    # lookups see the first of repeated keys (as pyosmium's ``TagList.get``); the kept
    # dict keeps the last (as ``dict(obj.tags)``)
    first = tags if len(tags) == len(pairs) else dict(reversed(pairs))
    way_id = obj.id
    street = routable_kind(first) is not None
    feature = first.get("amenity") in FEATURE_AMENITIES
    place = "name" in first and place_kind(first) is not None
    if not (street or feature or place) or way_id in data.ways:
        return
    if way_id in data.feature_ways or way_id in data.place_ways:
        return
    raw = _add_way(data, obj, tags)
    if street:
        data.ways[way_id] = raw
    if feature:
        data.feature_ways[way_id] = raw
    if place:
        data.place_ways[way_id] = raw


def _scan_one(path: Path, store: osmium.index.LocationTable, data: RawData) -> None:
    fmt = _file_format(path)
    source = osmium.io.File(str(path), fmt) if fmt else str(path)
    processor = (
        osmium.FileProcessor(source)
        # pyosmium accepts a LocationTable here, though its annotation says str only.
        .with_locations(store)  # type: ignore[arg-type]
        .with_filter(osmium.filter.KeyFilter(*_FILTER_KEYS, *_PLACE_FILTER_KEYS))
    )
    for obj in processor:
        if isinstance(obj, osmium.osm.Node):
            tags = obj.tags
            if "barrier" in tags:
                data.barrier_nodes.setdefault(obj.id, dict(tags))
            if tags.get("highway") == "elevator":
                data.elevator_nodes.setdefault(obj.id, tags.get("wheelchair") or "")
            if tags.get("amenity") in FEATURE_AMENITIES and obj.id not in data.feature_nodes:
                loc = obj.location
                if loc.valid():
                    data.feature_nodes[obj.id] = (loc.lat, loc.lon, dict(tags))
            _keep_place_node(data, obj)
        elif isinstance(obj, osmium.osm.Way):
            _keep_way(data, obj)
        elif isinstance(obj, osmium.osm.Relation):
            tags = obj.tags
            if tags.get("type") == "restriction" and obj.id not in data.restrictions:
                members = [(m.type, m.ref, m.role) for m in obj.members]
                data.restrictions[obj.id] = RawRelation(obj.id, dict(tags), members)
            elif obj.id not in data.area_relations and is_walkable_multipolygon(dict(tags)):
                members = [(m.type, m.ref, m.role) for m in obj.members]
                data.area_relations[obj.id] = RawRelation(obj.id, dict(tags), members)
    _scan_area_members(source, store, data)


def scan_files(paths: list[Path]) -> RawData:
    """Read all files; node locations are shared, so later files may use earlier nodes."""
    data = RawData()
    store = osmium.index.create_map("flex_mem")
    for path in paths:
        if not path.is_file():
            msg = f"OSM file not found: {path}"
            raise OsmError(msg)
        try:
            _scan_one(path, store, data)
        except OsmError:
            raise
        except (RuntimeError, ValueError, OSError) as exc:
            msg = f"cannot read OSM file {path}: {exc}"
            raise OsmError(msg) from exc
    return data
