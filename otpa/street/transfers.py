"""Stop-to-stop walking transfers over the street graph."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from otpa.errors import InvalidArgumentError, UnknownIdError
from otpa.osm.model import WALK
from otpa.street._csr import csr_indptr, stable_order
from otpa.street._search_kernel import many_to_many
from otpa.street.graph import StreetGraph
from otpa.street.search import WALK_SPEED_MPS
from otpa.types import FloatArray, Int32Array

__all__ = ["WalkTransfers", "walk_transfers"]


class WalkTransfers(NamedTuple):
    """Walking transfers between stops (indices into the ``stop_vertices`` given)."""

    from_stop: Int32Array
    to_stop: Int32Array
    distance_m: FloatArray
    time_s: FloatArray


def walk_transfers(
    graph: StreetGraph,
    stop_vertices: npt.ArrayLike,
    *,
    max_distance_m: float = 2000.0,
    speed_mps: float = WALK_SPEED_MPS,
    turn_restrictions: bool = True,
) -> WalkTransfers:
    """All stop pairs within ``max_distance_m`` of walking on the street graph.

    One shortest-distance search runs from each distinct stop vertex, cut off
    at ``max_distance_m``, inside a single numba call that reuses its buffers.
    Pairs of distinct stops are returned sorted by ``(from_stop, to_stop)``;
    stops on the same vertex get distance 0.  Stops whose vertex is ``-1``
    (not linked) get no transfers.

    Parameters
    ----------
    graph
        The street graph (stops already linked, e.g. by :meth:`StreetGraph.link_points`).
    stop_vertices
        Vertex id of each stop, ``-1`` for none.
    max_distance_m
        Longest walk (OTP 1.x ``maxTransferDistance``, 2000 m).
    speed_mps
        Walking speed giving ``time_s = distance_m / speed_mps``.
    turn_restrictions
        Honour turn bans that apply to walking (rare; slower when present).
    """
    vertices = np.atleast_1d(np.asarray(stop_vertices)).astype(np.int64, copy=False)
    if vertices.size and vertices.max() >= graph.n_vertices:
        msg = f"stop vertex out of range [0, {graph.n_vertices})"
        raise UnknownIdError(msg)
    if not speed_mps > 0:
        msg = f"speed_mps must be positive, got {speed_mps!r}"
        raise InvalidArgumentError(msg)
    stop_ids = np.flatnonzero(vertices >= 0)
    linked = vertices[stop_ids]
    order = stable_order(linked)
    target_indptr = csr_indptr(linked[order], graph.n_vertices)
    target_ids = stop_ids[order].astype(np.int32)
    sources = np.unique(linked)
    walk = np.uint8(WALK)
    cost = np.where((graph.edge_perm & walk) != 0, graph.edge_length_m, np.inf)
    edge_based = turn_restrictions and graph.has_turn_bans(int(walk))
    if edge_based:
        bans = (graph.ban_indptr, graph.ban_to, graph.ban_modes)
    else:
        bans = (np.zeros(graph.n_edges + 1, np.int64), np.zeros(0, np.int32), np.zeros(0, np.uint8))
    src_row, to_stop, _, dist = many_to_many(
        graph.out_indptr, graph.in_indptr, graph.in_edges, graph.edge_from, graph.edge_to,
        cost, graph.edge_length_m, graph.edge_perm,
        int(walk), graph.vertex_barrier, *bans, edge_based, sources,
        target_indptr, target_ids, float(max_distance_m),
    )  # fmt: skip
    # Expand each (source vertex, target stop) row to every stop at the source vertex.
    src_vertex = sources[src_row]
    counts = target_indptr[src_vertex + 1] - target_indptr[src_vertex]
    rows = np.repeat(np.arange(src_row.size), counts)
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    within = np.arange(rows.size) - starts
    from_stop = target_ids[target_indptr[src_vertex[rows]] + within]
    to_stop = to_stop[rows]
    dist = dist[rows]
    keep = from_stop != to_stop
    from_stop, to_stop, dist = from_stop[keep], to_stop[keep], dist[keep]
    order = np.lexsort((to_stop, from_stop))
    from_stop, to_stop, dist = from_stop[order], to_stop[order], dist[order]
    return WalkTransfers(
        from_stop.astype(np.int32),
        to_stop.astype(np.int32),
        dist,
        dist / float(speed_mps),
    )
