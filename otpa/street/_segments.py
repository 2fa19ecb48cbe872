"""The undirected segment table the graph is assembled from.

Building a graph, pruning islands and splitting edges all work on a
:class:`SegmentTable`: vertices, undirected segments with their geometry, and
per-direction attributes stored as ``(n_segments, 2)`` arrays (column 0 the
forward direction ``seg_from -> seg_to``, column 1 the backward direction).
A direction is addressed by its *raw id* ``2 * segment + backward``.
:func:`assemble` turns a table into a :class:`~otpa.street.graph.StreetGraph`
(directed edges for the directions with a non-zero permission, sorted by their
from vertex); :func:`table_from_graph` goes back.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from otpa.errors import NetworkBuildError
from otpa.osm.model import OsmStreetData
from otpa.street._csr import csr_indptr, stable_order
from otpa.street._elevation import ELEVATION_FIELDS, ELEVATION_SOURCES, SegmentElevation
from otpa.street.graph import BuildReport, StreetGraph
from otpa.types import (
    BoolArray,
    Float32Array,
    FloatArray,
    Int16Array,
    Int32Array,
    IntArray,
    UInt8Array,
    UInt16Array,
)

__all__ = ["SegmentTable", "assemble", "subset", "table_from_graph", "table_from_osm"]


@dataclass(frozen=True)
class SegmentTable:
    """Vertices, undirected segments, per-direction attributes and raw turn bans."""

    vertex_lat: FloatArray
    vertex_lon: FloatArray
    vertex_osm_id: IntArray
    vertex_barrier: UInt8Array
    seg_from: Int32Array
    seg_to: Int32Array
    seg_way_id: IntArray
    seg_length_m: FloatArray
    seg_highway: Int16Array
    seg_source: IntArray
    seg_source_start: FloatArray
    seg_source_end: FloatArray
    seg_car_speed_mps: Float32Array
    seg_name: Int32Array
    seg_flags: UInt16Array
    seg_geom_offsets: IntArray
    geom_lat: FloatArray
    geom_lon: FloatArray
    dir_perm: UInt8Array  # (n_seg, 2)
    dir_bike_safety: Float32Array  # (n_seg, 2)
    dir_elevation: dict[str, FloatArray] | None  # name -> (n_seg, 2)
    ban_from_raw: IntArray
    ban_to_raw: IntArray
    ban_modes: UInt8Array
    vertex_elevator: UInt8Array | None = None  # ELEVATOR_* codes; None: no elevator

    @property
    def n_vertices(self) -> int:
        """Number of vertices."""
        return int(self.vertex_lat.shape[0])

    @property
    def n_segments(self) -> int:
        """Number of segments."""
        return int(self.seg_from.shape[0])

    def raw_tail(self) -> Int32Array:
        """Start vertex of every raw direction (length ``2 * n_segments``)."""
        return np.stack([self.seg_from, self.seg_to], axis=1).reshape(-1)

    def raw_head(self) -> Int32Array:
        """End vertex of every raw direction (length ``2 * n_segments``)."""
        return np.stack([self.seg_to, self.seg_from], axis=1).reshape(-1)


def _empty_bans() -> tuple[IntArray, IntArray, UInt8Array]:
    return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.uint8)


def _elevation_dirs(elevation: SegmentElevation, n_seg: int) -> dict[str, FloatArray]:
    out: dict[str, FloatArray] = {}
    for name, (fwd_attr, back_attr) in ELEVATION_SOURCES.items():
        pair = []
        for attr in (fwd_attr, back_attr):
            arr = np.asarray(getattr(elevation, attr), dtype=np.float64)
            if arr.shape != (n_seg,):
                msg = f"elevation.{attr} has shape {arr.shape}, expected ({n_seg},)"
                raise NetworkBuildError(msg)
            pair.append(arr)
        out[name] = np.stack(pair, axis=1)
    return out


def table_from_osm(osm: OsmStreetData, elevation: SegmentElevation | None) -> SegmentTable:
    """Segment table of all OSM segments (turn restrictions not yet resolved)."""
    n_seg = osm.n_segments
    for name in ("seg_perm_fwd", "seg_perm_back", "seg_bike_safety_fwd", "seg_bike_safety_back"):
        if np.shape(getattr(osm, name)) != (n_seg,):
            msg = f"OSM street data: {name} does not have {n_seg} entries"
            raise NetworkBuildError(msg)
    ban_from, ban_to, ban_modes = _empty_bans()
    table = SegmentTable(
        vertex_lat=np.asarray(osm.vertex_lat, np.float64),
        vertex_lon=np.asarray(osm.vertex_lon, np.float64),
        vertex_osm_id=np.asarray(osm.vertex_osm_id, np.int64),
        vertex_barrier=np.asarray(osm.vertex_barrier, np.uint8),
        vertex_elevator=(
            None if osm.vertex_elevator is None else np.asarray(osm.vertex_elevator, np.uint8)
        ),
        seg_from=np.asarray(osm.seg_from, np.int32),
        seg_to=np.asarray(osm.seg_to, np.int32),
        seg_way_id=np.asarray(osm.seg_way_id, np.int64),
        seg_length_m=np.asarray(osm.seg_length_m, np.float64),
        seg_highway=np.asarray(osm.seg_highway, np.int16),
        seg_source=np.arange(n_seg, dtype=np.int64),
        seg_source_start=np.zeros(n_seg, dtype=np.float64),
        seg_source_end=np.ones(n_seg, dtype=np.float64),
        seg_car_speed_mps=np.asarray(osm.seg_car_speed_mps, np.float32),
        seg_name=np.asarray(osm.seg_name, np.int32),
        seg_flags=np.asarray(osm.seg_flags, np.uint16),
        seg_geom_offsets=np.asarray(osm.seg_geom_offsets, np.int64),
        geom_lat=np.asarray(osm.geom_lat, np.float64),
        geom_lon=np.asarray(osm.geom_lon, np.float64),
        dir_perm=np.stack(
            [np.asarray(osm.seg_perm_fwd, np.uint8), np.asarray(osm.seg_perm_back, np.uint8)],
            axis=1,
        ),
        dir_bike_safety=np.stack(
            [
                np.asarray(osm.seg_bike_safety_fwd, np.float32),
                np.asarray(osm.seg_bike_safety_back, np.float32),
            ],
            axis=1,
        ),
        dir_elevation=None if elevation is None else _elevation_dirs(elevation, n_seg),
        ban_from_raw=ban_from,
        ban_to_raw=ban_to,
        ban_modes=ban_modes,
    )
    _check_table(table)
    usable = np.any(table.dir_perm != 0, axis=1)
    if not usable.all():
        table = subset(table, np.ones(table.n_vertices, dtype=bool), usable)
    return table


def _check_table(t: SegmentTable) -> None:
    n_v, n_s = t.n_vertices, t.n_segments
    for name in ("vertex_lon", "vertex_osm_id", "vertex_barrier"):
        if getattr(t, name).shape != (n_v,):
            msg = f"OSM street data: {name} does not have {n_v} entries"
            raise NetworkBuildError(msg)
    for name in ("seg_to", "seg_way_id", "seg_length_m", "seg_highway", "seg_car_speed_mps",
                 "seg_name", "seg_flags"):  # fmt: skip
        if getattr(t, name).shape != (n_s,):
            msg = f"OSM street data: {name} does not have {n_s} entries"
            raise NetworkBuildError(msg)
    if t.seg_geom_offsets.shape != (n_s + 1,) or t.geom_lat.shape != t.geom_lon.shape:
        msg = "OSM street data: geometry arrays are inconsistent"
        raise NetworkBuildError(msg)
    if n_s and (
        t.seg_geom_offsets[0] != 0
        or t.seg_geom_offsets[-1] != t.geom_lat.shape[0]
        or np.any(np.diff(t.seg_geom_offsets) < 2)
    ):
        msg = "OSM street data: every segment needs a geometry of at least two points"
        raise NetworkBuildError(msg)
    if n_s and (
        min(int(t.seg_from.min()), int(t.seg_to.min())) < 0
        or max(int(t.seg_from.max()), int(t.seg_to.max())) >= n_v
    ):
        msg = "OSM street data: segment vertex index out of range"
        raise NetworkBuildError(msg)
    if np.any(t.seg_length_m < 0) or not np.all(np.isfinite(t.seg_length_m)):
        msg = "OSM street data: segment lengths must be finite and non-negative"
        raise NetworkBuildError(msg)


def subset(table: SegmentTable, keep_vertex: BoolArray, keep_segment: BoolArray) -> SegmentTable:
    """Keep some vertices and segments (segments must only use kept vertices).

    Vertices and segments are renumbered in order; raw turn bans on removed
    segments are dropped.
    """
    new_vertex = np.full(table.n_vertices, -1, dtype=np.int64)
    new_vertex[keep_vertex] = np.arange(int(keep_vertex.sum()))
    seg_idx = np.flatnonzero(keep_segment)
    counts = np.diff(table.seg_geom_offsets)
    geom_keep = np.repeat(keep_segment, counts)
    offsets = np.zeros(seg_idx.size + 1, dtype=np.int64)
    np.cumsum(counts[seg_idx], out=offsets[1:])
    new_seg = np.full(table.n_segments, -1, dtype=np.int64)
    new_seg[seg_idx] = np.arange(seg_idx.size)
    new_raw_from = _remap_raw(table.ban_from_raw, new_seg)
    new_raw_to = _remap_raw(table.ban_to_raw, new_seg)
    ok = (new_raw_from >= 0) & (new_raw_to >= 0)
    elev = None
    if table.dir_elevation is not None:
        elev = {k: v[seg_idx] for k, v in table.dir_elevation.items()}
    return replace(
        table,
        vertex_lat=table.vertex_lat[keep_vertex],
        vertex_lon=table.vertex_lon[keep_vertex],
        vertex_osm_id=table.vertex_osm_id[keep_vertex],
        vertex_barrier=table.vertex_barrier[keep_vertex],
        vertex_elevator=(
            None if table.vertex_elevator is None else table.vertex_elevator[keep_vertex]
        ),
        seg_from=new_vertex[table.seg_from[seg_idx]].astype(np.int32),
        seg_to=new_vertex[table.seg_to[seg_idx]].astype(np.int32),
        seg_way_id=table.seg_way_id[seg_idx],
        seg_length_m=table.seg_length_m[seg_idx],
        seg_highway=table.seg_highway[seg_idx],
        seg_source=table.seg_source[seg_idx],
        seg_source_start=table.seg_source_start[seg_idx],
        seg_source_end=table.seg_source_end[seg_idx],
        seg_car_speed_mps=table.seg_car_speed_mps[seg_idx],
        seg_name=table.seg_name[seg_idx],
        seg_flags=table.seg_flags[seg_idx],
        seg_geom_offsets=offsets,
        geom_lat=table.geom_lat[geom_keep],
        geom_lon=table.geom_lon[geom_keep],
        dir_perm=table.dir_perm[seg_idx],
        dir_bike_safety=table.dir_bike_safety[seg_idx],
        dir_elevation=elev,
        ban_from_raw=new_raw_from[ok],
        ban_to_raw=new_raw_to[ok],
        ban_modes=table.ban_modes[ok],
    )


def _remap_raw(raw: IntArray, new_seg: IntArray) -> IntArray:
    seg = new_seg[raw >> 1]
    return np.where(seg >= 0, 2 * seg + (raw & 1), -1)


def assemble(
    table: SegmentTable,
    *,
    names: tuple[str, ...],
    highway_kinds: tuple[str, ...],
    n_original_vertices: int,
    report: BuildReport,
) -> StreetGraph:
    """Turn a segment table into a :class:`StreetGraph` (directed edges, CSR, bans)."""
    n_v, n_s = table.n_vertices, table.n_segments
    raw_perm = table.dir_perm.reshape(-1)
    raw_ids = np.flatnonzero(raw_perm)
    tail = table.raw_tail()[raw_ids]
    order = stable_order(tail)
    raw_sorted = raw_ids[order]
    n_e = int(raw_sorted.size)
    seg = (raw_sorted >> 1).astype(np.int32)
    backward = (raw_sorted & 1).astype(np.uint8)
    raw_to_edge = np.full(2 * n_s, -1, dtype=np.int64)
    raw_to_edge[raw_sorted] = np.arange(n_e)
    edge_from = tail[order].astype(np.int32)
    edge_to = table.raw_head()[raw_sorted].astype(np.int32)
    in_order = stable_order(edge_to)

    ban_from = raw_to_edge[table.ban_from_raw]
    ban_to = raw_to_edge[table.ban_to_raw]
    ok = (ban_from >= 0) & (ban_to >= 0) & (table.ban_modes != 0)
    ban_indptr, ban_to_sorted, ban_modes = _ban_csr(
        ban_from[ok], ban_to[ok], table.ban_modes[ok], n_e
    )

    elev: dict[str, FloatArray | None] = dict.fromkeys(ELEVATION_FIELDS)
    if table.dir_elevation is not None:
        for name, arr in table.dir_elevation.items():
            elev[name] = np.ascontiguousarray(arr.reshape(-1)[raw_sorted])
    edge_elevation: dict[str, Any] = {f"edge_{name}": arr for name, arr in elev.items()}
    return StreetGraph(
        vertex_lat=table.vertex_lat,
        vertex_lon=table.vertex_lon,
        vertex_osm_id=table.vertex_osm_id,
        vertex_barrier=table.vertex_barrier,
        vertex_elevator=table.vertex_elevator,
        seg_from=table.seg_from,
        seg_to=table.seg_to,
        seg_way_id=table.seg_way_id,
        seg_length_m=table.seg_length_m,
        seg_highway=table.seg_highway,
        seg_source=table.seg_source,
        seg_source_start=table.seg_source_start,
        seg_source_end=table.seg_source_end,
        seg_geom_offsets=table.seg_geom_offsets,
        geom_lat=table.geom_lat,
        geom_lon=table.geom_lon,
        edge_from=edge_from,
        edge_to=edge_to,
        edge_length_m=table.seg_length_m[seg],
        edge_perm=raw_perm[raw_sorted],
        edge_car_speed_mps=table.seg_car_speed_mps[seg],
        edge_bike_safety=table.dir_bike_safety.reshape(-1)[raw_sorted],
        edge_name=table.seg_name[seg],
        edge_flags=table.seg_flags[seg],
        edge_segment=seg,
        edge_backward=backward,
        edge_reverse=raw_to_edge[raw_sorted ^ 1].astype(np.int32),
        out_indptr=csr_indptr(edge_from, n_v),
        in_indptr=csr_indptr(edge_to[in_order], n_v),
        in_edges=in_order.astype(np.int32),
        ban_indptr=ban_indptr,
        ban_to=ban_to_sorted,
        ban_modes=ban_modes,
        names=names,
        highway_kinds=highway_kinds,
        n_original_vertices=n_original_vertices,
        report=report,
        **edge_elevation,
    )


def _ban_csr(
    from_edge: IntArray, to_edge: IntArray, modes: UInt8Array, n_edges: int
) -> tuple[IntArray, Int32Array, UInt8Array]:
    """CSR of banned pairs over ``from_edge``; duplicate pairs merge their modes."""
    order = np.lexsort((to_edge, from_edge))
    f, t, m = from_edge[order], to_edge[order], modes[order]
    if f.size:
        new = np.ones(f.size, dtype=bool)
        new[1:] = (f[1:] != f[:-1]) | (t[1:] != t[:-1])
        starts = np.flatnonzero(new)
        m = np.bitwise_or.reduceat(m, starts).astype(np.uint8)
        f, t = f[starts], t[starts]
    return csr_indptr(f, n_edges), t.astype(np.int32), m.astype(np.uint8)


def table_from_graph(graph: StreetGraph) -> SegmentTable:
    """The segment table a graph was assembled from (turn bans as raw ids)."""
    n_s = graph.n_segments
    seg = np.asarray(graph.edge_segment, dtype=np.int64)
    raw = 2 * seg + graph.edge_backward
    dir_perm = np.zeros(2 * n_s, np.uint8)
    dir_perm[raw] = graph.edge_perm
    safety = np.ones(2 * n_s, np.float32)
    safety[raw] = graph.edge_bike_safety
    car_speed = np.zeros(n_s, np.float32)
    car_speed[seg] = graph.edge_car_speed_mps
    name = np.zeros(n_s, np.int32)
    name[seg] = graph.edge_name
    flags = np.zeros(n_s, np.uint16)
    flags[seg] = graph.edge_flags
    elev: dict[str, FloatArray] | None = None
    if graph.has_elevation:
        elev = {}
        for field_name in ELEVATION_FIELDS:
            arr = np.zeros(2 * n_s, np.float64)
            arr[raw] = getattr(graph, f"edge_{field_name}")
            elev[field_name] = arr.reshape(n_s, 2)
    ban_from, ban_to, ban_modes = graph.turn_bans()
    return SegmentTable(
        vertex_lat=np.asarray(graph.vertex_lat),
        vertex_lon=np.asarray(graph.vertex_lon),
        vertex_osm_id=np.asarray(graph.vertex_osm_id),
        vertex_barrier=np.asarray(graph.vertex_barrier),
        vertex_elevator=(
            None if graph.vertex_elevator is None else np.asarray(graph.vertex_elevator)
        ),
        seg_from=np.asarray(graph.seg_from),
        seg_to=np.asarray(graph.seg_to),
        seg_way_id=np.asarray(graph.seg_way_id),
        seg_length_m=np.asarray(graph.seg_length_m),
        seg_highway=np.asarray(graph.seg_highway),
        seg_source=np.asarray(graph.seg_source),
        seg_source_start=np.asarray(graph.seg_source_start),
        seg_source_end=np.asarray(graph.seg_source_end),
        seg_car_speed_mps=car_speed,
        seg_name=name,
        seg_flags=flags,
        seg_geom_offsets=np.asarray(graph.seg_geom_offsets),
        geom_lat=np.asarray(graph.geom_lat),
        geom_lon=np.asarray(graph.geom_lon),
        dir_perm=dir_perm.reshape(n_s, 2),
        dir_bike_safety=safety.reshape(n_s, 2),
        dir_elevation=elev,
        ban_from_raw=raw[ban_from],
        ban_to_raw=raw[ban_to],
        ban_modes=np.asarray(ban_modes, np.uint8),
    )
