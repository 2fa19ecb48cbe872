"""Turn the scanned ways into vertices and segments (vectorised with numpy)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace

import numpy as np

from otpa.errors import OsmError
from otpa.osm._areas import MAX_ENTRANCES, ring_corners, visible_pairs
from otpa.osm._barriers import barrier_blocked_bits
from otpa.osm._features import collect_features
from otpa.osm._multipolygons import AreaRing, multipolygon_rings
from otpa.osm._places import collect_places
from otpa.osm._restrictions import (
    PendingRestriction,
    finish_restrictions,
    resolve_restrictions,
)
from otpa.osm._scan import UNDEFINED_COORD, RawData
from otpa.osm._via_ways import ViaPath, ViaWayResolver
from otpa.osm._way_tags import WALK_TAG_KEYS, select_way_tags
from otpa.osm._ways import WayAttributes, way_attributes
from otpa.osm.model import OsmStreetData, elevator_code
from otpa.types import BoolArray, FloatArray, IntArray
from otpa.util.geo import haversine_m

__all__ = ["build_street_data"]


@dataclass
class _Ways:
    """Kept ways (index order = ascending OSM id) and their nodes, concatenated."""

    ids: IntArray
    attrs: list[WayAttributes]
    closed: BoolArray
    refs: IntArray  # per node position
    lat: FloatArray
    lon: FloatArray
    way: IntArray  # way index per node position
    group: IntArray  # per way: the area (outer ring and its holes) it outlines, or -1
    hole: BoolArray  # per way: the ring is a hole of its area


@dataclass
class _Pieces:
    """Runs of located nodes of the kept ways (a way splits where nodes lack locations)."""

    refs: IntArray
    lat: FloatArray
    lon: FloatArray
    way: IntArray
    piece: IntArray
    first: BoolArray
    last: BoolArray


def _collect_ways(data: RawData, rings: list[AreaRing]) -> _Ways:
    """The kept ways in id order: multipolygon rings (negative ids) first, then OSM ways."""
    ids: list[int] = []
    attrs: list[WayAttributes] = []
    closed_list: list[bool] = []
    starts: list[int] = []
    counts: list[int] = []
    groups: list[int] = []
    holes: list[bool] = []
    node_refs = data.node_refs
    candidates = [(r.way, r.outer, r.hole) for r in sorted(rings, key=lambda r: r.way.way_id)]
    candidates += [(data.ways[way_id], -1, False) for way_id in sorted(data.ways)]
    n_rings = max((r.outer for r in rings), default=-1) + 1
    for raw, outer, hole in candidates:
        if raw.count < 2:
            continue
        first, last = node_refs[raw.start], node_refs[raw.start + raw.count - 1]
        closed = raw.count >= 4 and first == last
        attr = way_attributes(raw.tags, closed=closed)
        if attr is None:
            continue
        if attr.is_area and outer < 0:
            outer = n_rings
            n_rings += 1
        ids.append(raw.way_id)
        attrs.append(attr)
        closed_list.append(closed)
        starts.append(raw.start)
        counts.append(raw.count)
        groups.append(outer if attr.is_area else -1)
        holes.append(hole)
    count_arr = np.asarray(counts, dtype=np.int64)
    offsets = np.zeros(count_arr.shape[0] + 1, dtype=np.int64)
    np.cumsum(count_arr, out=offsets[1:])
    total = int(offsets[-1])
    gather = np.repeat(np.asarray(starts, dtype=np.int64) - offsets[:-1], count_arr)
    gather += np.arange(total, dtype=np.int64)
    x = np.asarray(data.node_x, dtype=np.int64)[gather]
    y = np.asarray(data.node_y, dtype=np.int64)[gather]
    undefined = (x == UNDEFINED_COORD) | (y == UNDEFINED_COORD)
    lat = np.where(undefined, np.nan, y * 1e-7)
    lon = np.where(undefined, np.nan, x * 1e-7)
    return _Ways(
        ids=np.asarray(ids, dtype=np.int64),
        attrs=attrs,
        closed=np.asarray(closed_list, dtype=bool),
        refs=np.asarray(data.node_refs, dtype=np.int64)[gather],
        lat=lat,
        lon=lon,
        way=np.repeat(np.arange(len(ids), dtype=np.int64), count_arr),
        group=np.asarray(groups, dtype=np.int64),
        hole=np.asarray(holes, dtype=bool),
    )


def _run_starts(key: IntArray) -> BoolArray:
    starts = np.ones(key.shape[0], dtype=bool)
    starts[1:] = key[1:] != key[:-1]
    return starts


def _pieces(ways: _Ways) -> _Pieces:
    valid = ~(np.isnan(ways.lat) | np.isnan(ways.lon))
    prev_invalid = np.zeros(valid.shape[0], dtype=bool)
    prev_invalid[1:] = ~valid[:-1]
    starts = valid & (_run_starts(ways.way) | prev_invalid)
    piece = np.cumsum(starts) - 1
    refs, lat, lon, way, piece = (
        ways.refs[valid],
        ways.lat[valid],
        ways.lon[valid],
        ways.way[valid],
        piece[valid],
    )
    # Drop a node repeated right after itself (zero-length step).
    keep = np.ones(refs.shape[0], dtype=bool)
    keep[1:] = ~((refs[1:] == refs[:-1]) & (piece[1:] == piece[:-1]))
    refs, lat, lon, way, piece = refs[keep], lat[keep], lon[keep], way[keep], piece[keep]
    # Pieces need two nodes.
    sizes = np.bincount(piece, minlength=int(piece.max(initial=-1)) + 1)
    keep = sizes[piece] >= 2
    refs, lat, lon, way, piece = refs[keep], lat[keep], lon[keep], way[keep], piece[keep]
    first = _run_starts(piece)
    last = np.ones(piece.shape[0], dtype=bool)
    last[:-1] = piece[:-1] != piece[1:]
    return _Pieces(refs, lat, lon, way, piece, first, last)


def _shared_nodes(p: _Pieces) -> BoolArray:
    """Positions whose node is used twice or more (a ring's closing node counts once)."""
    first_ref = p.refs[np.flatnonzero(p.first)][np.cumsum(p.first) - 1]
    closing = p.last & (p.refs == first_ref)
    uniq, inverse = np.unique(p.refs, return_inverse=True)
    counts = np.bincount(inverse[~closing], minlength=uniq.shape[0])
    shared: BoolArray = counts[inverse] >= 2
    return shared


def _segment_bounds(p: _Pieces, is_vertex: BoolArray) -> tuple[IntArray, IntArray]:
    """Start/end node positions of the segments; splits loops (same node both ends)."""
    for _ in range(4):
        vpos = np.flatnonzero(is_vertex)
        same = p.piece[vpos[:-1]] == p.piece[vpos[1:]]
        a, b = vpos[:-1][same], vpos[1:][same]
        loop = (p.refs[a] == p.refs[b]) & (b - a >= 2)
        if not loop.any():
            break
        is_vertex[(a[loop] + b[loop]) // 2] = True
    return a.astype(np.int64), b.astype(np.int64)


def _intern(values: list[str]) -> tuple[list[str], IntArray]:
    table: dict[str, int] = {}
    codes = np.fromiter((table.setdefault(v, len(table)) for v in values), dtype=np.int64)
    return list(table), codes


@dataclass
class _Segments:
    way: IntArray  # way index
    frm: IntArray  # vertex index
    to: IntArray
    length: FloatArray
    geom_offsets: IntArray
    geom_lat: FloatArray
    geom_lon: FloatArray


def _area_rings(ways: _Ways, p: _Pieces) -> dict[int, IntArray]:
    """Node positions (closing node not repeated) of every complete area ring, by way."""
    out: dict[int, IntArray] = {}
    for w in np.flatnonzero(ways.group >= 0).tolist():
        lo, hi = np.searchsorted(p.way, [w, w + 1])
        pos = np.arange(lo, hi)
        if pos.size < 4 or np.unique(p.piece[pos]).size != 1:
            continue  # incomplete ring (clipped extract)
        out[w] = pos[:-1] if p.refs[pos[0]] == p.refs[pos[-1]] else pos
    return out


def _area_corners(ways: _Ways, p: _Pieces, rings: dict[int, IntArray]) -> dict[int, IntArray]:
    """Positions of the corners (visibility points other than entrances) of every ring."""
    return {
        w: ring[ring_corners(p.lat[ring], p.lon[ring], hole=bool(ways.hole[w]))]
        for w, ring in rings.items()
    }


def _area_segments(
    ways: _Ways,
    p: _Pieces,
    is_shared: BoolArray,
    vertex_ids: IntArray,
    outline: _Segments,
    corners: dict[int, IntArray],
) -> _Segments | None:
    if not corners:
        return None
    # Pairs joined by a straight (two-point) outline segment already.
    area_ways = np.asarray(sorted(corners), dtype=np.int64)
    two = (np.diff(outline.geom_offsets) == 2) & np.isin(outline.way, area_ways)
    straight = {
        (int(min(f, t)), int(max(f, t)))
        for f, t in zip(outline.frm[two], outline.to[two], strict=True)
    }
    by_group: dict[int, list[int]] = {}
    for w in corners:
        by_group.setdefault(int(ways.group[w]), []).append(w)
    frm: list[int] = []
    to: list[int] = []
    way: list[int] = []
    for group in sorted(by_group):
        members = by_group[group]
        outer = [w for w in members if not ways.hole[w]]
        if len(outer) != 1:
            continue  # the outer ring is incomplete
        holes = [w for w in members if ways.hole[w]]
        rings = [_ring_positions(ways, p, w) for w in (*outer, *holes)]
        ent = np.concatenate([r[is_shared[r]] for r in rings] + [corners[w] for w in members])
        _, first = np.unique(p.refs[ent], return_index=True)
        ent = ent[np.sort(first)][:MAX_ENTRANCES]
        if ent.size < 2:
            continue
        pairs = visible_pairs(
            p.lat[rings[0]],
            p.lon[rings[0]],
            p.lat[ent],
            p.lon[ent],
            holes=[(p.lat[r], p.lon[r]) for r in rings[1:]],
        )
        if pairs is None:
            continue
        vi = np.searchsorted(vertex_ids, p.refs[ent])
        for i, j in zip(pairs[0].tolist(), pairs[1].tolist(), strict=True):
            key = (int(min(vi[i], vi[j])), int(max(vi[i], vi[j])))
            if key in straight:
                continue
            frm.append(int(vi[i]))
            to.append(int(vi[j]))
            way.append(outer[0])
    if not frm:
        return None
    return _Segments(
        way=np.asarray(way, dtype=np.int64),
        frm=np.asarray(frm, dtype=np.int64),
        to=np.asarray(to, dtype=np.int64),
        length=np.zeros(len(frm)),
        geom_offsets=np.arange(0, 2 * len(frm) + 1, 2, dtype=np.int64),
        geom_lat=np.zeros(2 * len(frm)),
        geom_lon=np.zeros(2 * len(frm)),
    )


def _ring_positions(ways: _Ways, p: _Pieces, w: int) -> IntArray:
    lo, hi = np.searchsorted(p.way, [w, w + 1])
    pos = np.arange(lo, hi)
    ring: IntArray = pos[:-1] if p.refs[pos[0]] == p.refs[pos[-1]] else pos
    return ring


def _duplicate_ring_segments(ways: _Ways, p: _Pieces, a: IntArray, b: IntArray) -> BoolArray:
    """Segments of multipolygon rings that repeat a segment of a routable member way."""
    synthetic = ways.ids[p.way[a]] < 0
    out = np.zeros(a.shape[0], dtype=bool)
    if not synthetic.any():
        return out

    def key(k: int) -> tuple[int, ...]:
        nodes = p.refs[a[k] : b[k] + 1].tolist()
        return tuple(min(nodes, nodes[::-1]))

    ends = {frozenset((int(p.refs[a[k]]), int(p.refs[b[k]]))) for k in np.flatnonzero(synthetic)}
    real = {
        key(k)
        for k in np.flatnonzero(~synthetic).tolist()
        if frozenset((int(p.refs[a[k]]), int(p.refs[b[k]]))) in ends
    }
    for k in np.flatnonzero(synthetic).tolist():
        out[k] = key(k) in real
    return out


def build_street_data(
    data: RawData, source: str, keep_tags: Collection[str] = WALK_TAG_KEYS
) -> OsmStreetData:
    """Build :class:`OsmStreetData` from the scanned files (``source`` names them in errors).

    ``keep_tags``: the tag keys kept per way (``OsmStreetData.way_tags``).
    """
    warnings: list[str] = []
    ways = _collect_ways(data, multipolygon_rings(data, warnings))
    if ways.ids.size == 0:
        msg = f"{source} contains no routable highways"
        raise OsmError(msg)
    missing = np.unique(ways.way[np.isnan(ways.lat)]).shape[0]
    if missing:
        warnings.append(
            f"{missing} ways reference nodes missing from the data (clipped extract): "
            "those nodes were dropped and the ways split there"
        )
    p = _pieces(ways)
    if p.refs.size == 0:
        msg = f"{source} contains no routable highways with located nodes"
        raise OsmError(msg)

    # Restrictions need the node lists of their member ways (located nodes only).
    member_ids = {
        ref for rel in data.restrictions.values() for typ, ref, _ in rel.members if typ == "w"
    }
    way_refs: dict[int, list[int]] = {}
    for way_id in member_ids:
        k = int(np.searchsorted(ways.ids, way_id))
        if k < ways.ids.size and ways.ids[k] == way_id:
            lo, hi = np.searchsorted(p.way, [k, k + 1])
            if hi > lo:
                way_refs[way_id] = p.refs[lo:hi].tolist()
    pending = resolve_restrictions(data.restrictions, way_refs, warnings)

    special = np.fromiter(
        (*data.barrier_nodes.keys(), *(r.via_node for r in pending if r.via_node is not None)),
        dtype=np.int64,
    )
    is_shared = _shared_nodes(p)
    corners = _area_corners(ways, p, _area_rings(ways, p))
    is_vertex = p.first | p.last | is_shared | np.isin(p.refs, special)
    for pos in corners.values():
        is_vertex[pos] = True
    a, b = _segment_bounds(p, is_vertex)
    keep = ~_duplicate_ring_segments(ways, p, a, b)
    a, b = a[keep], b[keep]

    vertex_pos = np.flatnonzero(is_vertex)
    vertex_ids, first_idx = np.unique(p.refs[vertex_pos], return_index=True)
    vertex_lat = p.lat[vertex_pos[first_idx]]
    vertex_lon = p.lon[vertex_pos[first_idx]]

    step = np.zeros(p.refs.shape[0])
    step[1:] = haversine_m(p.lat[:-1], p.lon[:-1], p.lat[1:], p.lon[1:])
    step[p.first] = 0.0
    cum = np.cumsum(step)
    n_pts = b - a + 1
    geom_offsets = np.zeros(a.shape[0] + 1, dtype=np.int64)
    np.cumsum(n_pts, out=geom_offsets[1:])
    gidx = np.repeat(a - geom_offsets[:-1], n_pts) + np.arange(int(geom_offsets[-1]))
    segs = _Segments(
        way=p.way[a],
        frm=np.searchsorted(vertex_ids, p.refs[a]).astype(np.int64),
        to=np.searchsorted(vertex_ids, p.refs[b]).astype(np.int64),
        length=cum[b] - cum[a],
        geom_offsets=geom_offsets,
        geom_lat=p.lat[gidx],
        geom_lon=p.lon[gidx],
    )
    extra = _area_segments(ways, p, is_shared, vertex_ids, segs, corners)
    if extra is not None:
        flat, flon = vertex_lat[extra.frm], vertex_lon[extra.frm]
        tlat, tlon = vertex_lat[extra.to], vertex_lon[extra.to]
        extra.geom_lat = np.column_stack([flat, tlat]).ravel()
        extra.geom_lon = np.column_stack([flon, tlon]).ravel()
        extra.length = np.asarray(haversine_m(flat, flon, tlat, tlon), dtype=np.float64)
        segs = _Segments(
            way=np.concatenate([segs.way, extra.way]),
            frm=np.concatenate([segs.frm, extra.frm]),
            to=np.concatenate([segs.to, extra.to]),
            length=np.concatenate([segs.length, extra.length]),
            geom_offsets=np.concatenate(
                [segs.geom_offsets, extra.geom_offsets[1:] + segs.geom_offsets[-1]]
            ),
            geom_lat=np.concatenate([segs.geom_lat, extra.geom_lat]),
            geom_lon=np.concatenate([segs.geom_lon, extra.geom_lon]),
        )
    street = _assemble(data, ways, segs, vertex_ids, vertex_lat, vertex_lon, pending, warnings)
    way_tags = [data.ways[i].tags if i in data.ways else None for i in ways.ids.tolist()]
    return replace(street, way_tags=select_way_tags(ways.ids, way_tags, keep_tags))


def _via_paths(
    ways: _Ways, segs: _Segments, pending: list[PendingRestriction], warnings: list[str]
) -> dict[int, list[ViaPath]]:
    """Paths along the via ways of the via-way restrictions (by index in ``pending``)."""
    resolver: ViaWayResolver | None = None
    out: dict[int, list[ViaPath]] = {}
    unjoined: set[int] = set()
    for i, r in enumerate(pending):
        if r.via_node is not None:
            continue
        if resolver is None:
            resolver = ViaWayResolver(segs.way, segs.frm, segs.to, segs.length, ways.ids)
        paths = resolver.paths(r.from_way, r.to_way, r.via_ways)
        if paths:
            out[i] = paths
        elif r.relation_id not in unjoined:
            unjoined.add(r.relation_id)
            warnings.append(
                f"turn restriction relation {r.relation_id} ignored: its via ways do not "
                f"join from way {r.from_way} to to way {r.to_way}"
            )
    return out


def _assemble(
    data: RawData,
    ways: _Ways,
    segs: _Segments,
    vertex_ids: IntArray,
    vertex_lat: FloatArray,
    vertex_lon: FloatArray,
    pending: list[PendingRestriction],
    warnings: list[str],
) -> OsmStreetData:
    attrs = ways.attrs
    names, name_code = _intern([a.name for a in attrs])
    kinds, kind_code = _intern([a.kind for a in attrs])
    perm_fwd = np.fromiter((a.perm_fwd for a in attrs), dtype=np.uint8, count=len(attrs))
    perm_back = np.fromiter((a.perm_back for a in attrs), dtype=np.uint8, count=len(attrs))
    speed = np.fromiter((a.car_speed_mps for a in attrs), dtype=np.float32, count=len(attrs))
    safety_fwd = np.fromiter((a.safety_fwd for a in attrs), dtype=np.float32, count=len(attrs))
    safety_back = np.fromiter((a.safety_back for a in attrs), dtype=np.float32, count=len(attrs))
    flags = np.fromiter((a.flags for a in attrs), dtype=np.uint16, count=len(attrs))

    barrier = np.zeros(vertex_ids.shape[0], dtype=np.uint8)
    for node_id, tags in data.barrier_nodes.items():
        k = int(np.searchsorted(vertex_ids, node_id))
        if k < vertex_ids.shape[0] and vertex_ids[k] == node_id:
            barrier[k] = barrier_blocked_bits(tags)
    # elevator nodes that are street vertices (where ways meet, as the levels' ways
    # do); they do not split a way, so the graph is the same with or without them
    elevator = np.zeros(vertex_ids.shape[0], dtype=np.uint8)
    for node_id, wheelchair in data.elevator_nodes.items():
        k = int(np.searchsorted(vertex_ids, node_id))
        if k < vertex_ids.shape[0] and vertex_ids[k] == node_id:
            elevator[k] = elevator_code(wheelchair)

    vertex_of_node = {
        int(r.via_node): int(np.searchsorted(vertex_ids, r.via_node))
        for r in pending
        if r.via_node is not None
    }
    via_paths = _via_paths(ways, segs, pending, warnings)
    features = collect_features(data)
    w = segs.way
    return OsmStreetData(
        vertex_osm_id=vertex_ids.astype(np.int64),
        vertex_lat=vertex_lat.astype(np.float64),
        vertex_lon=vertex_lon.astype(np.float64),
        vertex_barrier=barrier,
        vertex_elevator=elevator if elevator.any() else None,
        seg_from=segs.frm.astype(np.int32),
        seg_to=segs.to.astype(np.int32),
        seg_way_id=ways.ids[w].astype(np.int64),
        seg_length_m=segs.length.astype(np.float64),
        seg_perm_fwd=perm_fwd[w],
        seg_perm_back=perm_back[w],
        seg_car_speed_mps=speed[w],
        seg_bike_safety_fwd=safety_fwd[w],
        seg_bike_safety_back=safety_back[w],
        seg_name=name_code[w].astype(np.int32),
        seg_highway=kind_code[w].astype(np.int16),
        seg_flags=flags[w],
        seg_geom_offsets=segs.geom_offsets.astype(np.int64),
        geom_lat=segs.geom_lat.astype(np.float64),
        geom_lon=segs.geom_lon.astype(np.float64),
        names=names,
        highway_kinds=kinds,
        restrictions=finish_restrictions(pending, vertex_of_node, via_paths),
        park_and_ride=features["park_and_ride"],
        bike_parking=features["bike_parking"],
        bike_rental=features["bike_rental"],
        places=collect_places(data),
        warnings=warnings,
    )
