"""Island pruning, after OTP's ``PruneFloatingIslands``, one mode at a time.

For each of WALK, BICYCLE and CAR, connected components are computed on the
undirected graph of the segments that mode may use in either direction.  A
component is an island when it has fewer vertices than its threshold:
``island_min_vertices`` (OTP's ``islandWithoutStopsMaxSize``, 40) or, when it
contains one of the ``keep_vertices`` (for example vertices near transit
stops), ``island_with_kept_min_vertices`` (OTP's ``islandWithStopsMaxSize``,
5).  The largest component of each mode is never an island.  The mode loses
its permission on the island's segments (as OTP 1.x "depedestrianizes" walk
islands); segments left with no permission are removed, and so are vertices
left without segments (isolated vertices included).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from otpa.osm.model import BICYCLE, CAR, WALK
from otpa.street._segments import SegmentTable, subset
from otpa.types import BoolArray, Int32Array, IntArray

__all__ = ["IslandResult", "component_labels", "prune_islands"]


@dataclass(frozen=True)
class IslandResult:
    """The pruned table and what was removed."""

    table: SegmentTable
    old_to_new_vertex: IntArray  # -1 for removed vertices
    islands: dict[str, int]  # islands found per mode name
    segments_restricted: int  # segments that lost some modes but not all
    segments_removed: int
    vertices_removed: int


def component_labels(n_vertices: int, a: Int32Array, b: Int32Array) -> tuple[int, Int32Array]:
    """Undirected connected components of a vertex set joined by ``a[i] - b[i]`` links."""
    if n_vertices == 0:
        return 0, np.zeros(0, np.int32)
    ones = np.ones(a.shape[0], dtype=np.int8)
    adj = coo_matrix((ones, (a, b)), shape=(n_vertices, n_vertices)).tocsr()
    n_comp, labels = connected_components(adj, directed=False)
    return int(n_comp), labels.astype(np.int32)


def _island_segments(
    table: SegmentTable,
    seg_perm: np.ndarray,
    bit: int,
    thresholds: tuple[int, int],
    kept: IntArray,
) -> tuple[IntArray, int]:
    """Segments (indices) in islands of mode ``bit``, and the number of islands."""
    segs = np.flatnonzero(seg_perm & bit)
    if segs.size == 0:
        return segs, 0
    a, b = table.seg_from[segs], table.seg_to[segs]
    n_comp, labels = component_labels(table.n_vertices, a, b)
    on_mode = np.zeros(table.n_vertices, dtype=bool)
    on_mode[a] = True
    on_mode[b] = True
    sizes = np.bincount(labels[on_mode], minlength=n_comp)
    threshold = np.full(n_comp, thresholds[0], dtype=np.int64)
    threshold[labels[kept[on_mode[kept]]]] = thresholds[1]
    island = (sizes > 0) & (sizes < threshold)
    island[int(np.argmax(sizes))] = False
    return segs[island[labels[a]]], int(island.sum())


def prune_islands(
    table: SegmentTable,
    *,
    island_min_vertices: int,
    island_with_kept_min_vertices: int,
    keep_vertices: IntArray | None,
) -> IslandResult:
    """Remove each mode from its small connected components (see the module docstring)."""
    n_v = table.n_vertices
    kept = np.zeros(0, np.int64) if keep_vertices is None else np.asarray(keep_vertices, np.int64)
    kept = kept[(kept >= 0) & (kept < n_v)]
    perm = table.dir_perm.copy()
    islands: dict[str, int] = {}
    for name, bit in (("walk", int(WALK)), ("bicycle", int(BICYCLE)), ("car", int(CAR))):
        seg_perm = perm[:, 0] | perm[:, 1]
        segs, count = _island_segments(
            table, seg_perm, bit, (island_min_vertices, island_with_kept_min_vertices), kept
        )
        perm[segs] &= np.uint8(~bit & 0xFF)
        islands[name] = count
    keep_segment: BoolArray = np.any(perm != 0, axis=1)
    keep_vertex = np.zeros(n_v, dtype=bool)
    keep_vertex[table.seg_from[keep_segment]] = True
    keep_vertex[table.seg_to[keep_segment]] = True
    restricted = int(np.count_nonzero(keep_segment & np.any(perm != table.dir_perm, axis=1)))
    old_to_new = np.full(n_v, -1, dtype=np.int64)
    old_to_new[keep_vertex] = np.arange(int(keep_vertex.sum()))
    pruned = subset(replace(table, dir_perm=perm), keep_vertex, keep_segment)
    return IslandResult(
        table=pruned,
        old_to_new_vertex=old_to_new,
        islands=islands,
        segments_restricted=restricted,
        segments_removed=int(table.n_segments - keep_segment.sum()),
        vertices_removed=int(n_v - keep_vertex.sum()),
    )
