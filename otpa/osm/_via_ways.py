"""Via-way turn restrictions: the path along the via ways, as vertices and segments.

A ``type=restriction`` relation whose ``via`` members are ways forbids (``no_*``) or
prescribes (``only_*``) the exit onto the ``to`` way for traffic that came from the
``from`` way and drove along all the via ways.  The reader resolves it to the path it
concerns: the vertex ``a`` where the from way meets the via ways, the vertex ``b`` where
the to way leaves them, and the shortest chain of via-way segments from ``a`` to ``b``,
which must use every via way.  The via members need not be listed in order.  When the
from and to way touch the via ways at several vertices, every ``(a, b)`` pair joined by
such a chain gives one path (both directions of a ``no_u_turn`` over a loop, say).

The street graph (:mod:`otpa.street._via_way`) turns each path into copied segments.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

import numpy as np

from otpa.types import FloatArray, IntArray

__all__ = ["ViaPath", "ViaWayResolver"]

#: ``(vertices a .. b, segments)`` of one path along the via ways.
ViaPath = tuple[tuple[int, ...], tuple[int, ...]]


class ViaWayResolver:
    """Finds via-way paths over the segments of the kept ways.

    Parameters
    ----------
    seg_way
        Way index (into ``way_ids``) of every segment.
    seg_from, seg_to
        Vertex indices of every segment.
    seg_length_m
        Segment lengths (the path between ``a`` and ``b`` is the shortest).
    way_ids
        Sorted OSM ids of the kept ways.
    """

    def __init__(
        self,
        seg_way: IntArray,
        seg_from: IntArray,
        seg_to: IntArray,
        seg_length_m: FloatArray,
        way_ids: IntArray,
    ) -> None:
        self._seg_way = np.asarray(seg_way, dtype=np.int64)
        self._seg_from = np.asarray(seg_from, dtype=np.int64)
        self._seg_to = np.asarray(seg_to, dtype=np.int64)
        self._length = np.asarray(seg_length_m, dtype=np.float64)
        self._way_ids = np.asarray(way_ids, dtype=np.int64)
        self._order = np.argsort(self._seg_way, kind="stable")
        self._sorted_way = self._seg_way[self._order]

    def _way_index(self, way_id: int) -> int:
        k = int(np.searchsorted(self._way_ids, way_id))
        if k < self._way_ids.size and int(self._way_ids[k]) == way_id:
            return k
        return -1

    def _segments(self, way: int) -> IntArray:
        lo, hi = np.searchsorted(self._sorted_way, [way, way + 1])
        segments: IntArray = self._order[lo:hi]
        return segments

    def _vertices(self, way: int) -> set[int]:
        segs = self._segments(way)
        return set(self._seg_from[segs].tolist()) | set(self._seg_to[segs].tolist())

    def paths(self, from_way: int, to_way: int, via_ways: Sequence[int]) -> list[ViaPath]:
        """Every path ``a -> b`` along the via ways (empty when there is none)."""
        f, t = self._way_index(from_way), self._way_index(to_way)
        vias = {self._way_index(w) for w in via_ways}
        if f < 0 or t < 0 or -1 in vias or not vias or f in vias or t in vias:
            return []
        adjacency: dict[int, list[tuple[int, int]]] = {}
        for way in sorted(vias):
            for s in self._segments(way).tolist():
                a, b = int(self._seg_from[s]), int(self._seg_to[s])
                adjacency.setdefault(a, []).append((b, s))
                adjacency.setdefault(b, []).append((a, s))
        starts = sorted(self._vertices(f) & adjacency.keys())
        ends = sorted(self._vertices(t) & adjacency.keys())
        out: list[ViaPath] = []
        for a in starts:
            pred = self._shortest_tree(adjacency, a)
            for b in ends:
                if b == a or b not in pred:
                    continue
                vertices, segments = [b], []
                while vertices[-1] != a:
                    prev, seg = pred[vertices[-1]]
                    vertices.append(prev)
                    segments.append(seg)
                if {int(self._seg_way[s]) for s in segments} == vias:
                    out.append((tuple(reversed(vertices)), tuple(reversed(segments))))
        return out

    def _shortest_tree(
        self, adjacency: dict[int, list[tuple[int, int]]], source: int
    ) -> dict[int, tuple[int, int]]:
        """Dijkstra over the via-way segments: vertex -> (previous vertex, segment)."""
        dist = {source: 0.0}
        pred: dict[int, tuple[int, int]] = {source: (source, -1)}
        heap = [(0.0, source)]
        while heap:
            d, v = heapq.heappop(heap)
            if d > dist[v]:
                continue
            for w, s in adjacency[v]:
                nd = d + float(self._length[s])
                if nd < dist.get(w, np.inf):
                    dist[w] = nd
                    pred[w] = (v, s)
                    heapq.heappush(heap, (nd, w))
        return pred
