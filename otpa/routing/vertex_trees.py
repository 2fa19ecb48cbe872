"""Street trees from many vertices, each read at its own points, in one compiled loop.

:func:`vertex_tree_readings` gives, for every vertex of a list, what
:func:`~otpa.routing.street_tree.street_tree` from that vertex followed by
:func:`~otpa.routing.street_tree.tree_times` at the vertex's points gives -- the same
search, the same labels, the same reading -- for all of them at once.  It is how the
analysis links destinations to every transit stop (R5's "stop trees").

What differs is the bookkeeping: one tree per vertex allocates and fills label arrays
the size of the whole graph, so linking every stop of a region cost
``stops x edges`` (hours at national size) however short each search is.  Here each
worker thread keeps one set of label arrays, the search lists the entries it set
(the kernel's ``init=False`` mode) and only those are reset before the next vertex,
so the cost is that of the searches themselves.

Examples
--------
>>> reading = vertex_tree_readings(network, vertices, options, max_time_s=1200,
...                                point_indptr=indptr, point_edge=edge,
...                                point_fraction=frac)  # doctest: +SKIP
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from otpa.routing._street_core import AT_VERTEX_M, search_inputs, street_graph
from otpa.routing._street_costs import edge_costs, weight_of
from otpa.routing._street_types import StreetOptions
from otpa.routing.deadline import check_deadline, under_this_deadline
from otpa.routing.street_tree import TreeReading, _read
from otpa.street.edge_search import SearchInputs, edge_search
from otpa.types import BoolArray, FloatArray, Int16Array, Int32Array, IntArray, UInt8Array

if TYPE_CHECKING:
    from otpa.network import TransportNetwork

__all__ = ["vertex_tree_readings"]

_INF = np.inf


@njit(cache=True, nogil=True)
def _trees_read(
    out_indptr: IntArray,
    in_indptr: IntArray,
    in_edges: Int32Array,
    edge_from: Int32Array,
    edge_to: Int32Array,
    edge_reverse: Int32Array,
    w_e: FloatArray,
    tc_e: FloatArray,
    len_e: FloatArray,
    ban_bit: UInt8Array,
    ban_indptr: IntArray,
    ban_to: Int32Array,
    ban_modes: UInt8Array,
    use_bans: bool,
    blocked: BoolArray,
    free_flowing: BoolArray,
    in_deg: Int16Array,
    out_deg: Int16Array,
    car_speed: FloatArray,
    turn_speed: FloatArray,
    driving: bool,
    drive_on_right: bool,
    turn_costs: bool,
    v_lat: FloatArray,
    v_lon: FloatArray,
    seed_w_all: FloatArray,
    t_e64: FloatArray,
    tc_e64: FloatArray,
    len_e64: FloatArray,
    max_t: FloatArray,
    at_vertex_m: float,
    vertices: IntArray,
    p_indptr: IntArray,
    p_edge: Int32Array,
    p_frac: FloatArray,
    out: FloatArray,
) -> None:
    """Search from ``vertices[i]`` and read at its points ``p_indptr[i]:p_indptr[i+1]``."""
    n_e = w_e.shape[0]
    n_v = out_indptr.shape[0] - 1
    lab = np.full(n_e, _INF)
    tim = np.full(n_e, _INF)
    dist = np.full(n_e, _INF)
    pred = np.full(n_e, -1, dtype=np.int32)
    cost_v = np.full(n_v, _INF)
    time_v = np.full(n_v, _INF)
    dist_v = np.full(n_v, _INF)
    edge_v = np.full(n_v, -1, dtype=np.int32)
    touched_v = np.empty(n_v, dtype=np.int64)
    touched_e = np.empty(n_e, dtype=np.int64)
    best = np.empty(5, dtype=np.float64)
    no_v = np.zeros(0, dtype=np.int64)
    no_f = np.zeros(0, dtype=np.float64)
    no_e = np.zeros(0, dtype=np.int32)
    no_entered = np.empty((0, 2, 3))
    max_deg = 0
    for i in range(vertices.shape[0]):
        v = vertices[i]
        max_deg = max(max_deg, out_indptr[v + 1] - out_indptr[v])
    seed_e = np.empty(max_deg, dtype=np.int32)
    seed_w = np.empty(max_deg, dtype=np.float64)
    seed_t = np.empty(max_deg, dtype=np.float64)
    seed_d = np.empty(max_deg, dtype=np.float64)
    for i in range(vertices.shape[0]):
        lo = p_indptr[i]
        hi = p_indptr[i + 1]
        if lo == hi:
            continue
        v = vertices[i]
        # the seeds of ``start_states`` for a vertex: its usable out-edges, whole
        ns = 0
        for e in range(out_indptr[v], out_indptr[v + 1]):
            if math.isfinite(w_e[e]):
                seed_e[ns] = e
                seed_w[ns] = seed_w_all[e]
                seed_t[ns] = tc_e[e]
                seed_d[ns] = len_e[e]
                ns += 1
        best[0] = best[1] = best[2] = _INF
        best[3] = best[4] = -1.0
        _, ntv, nte = edge_search(
            out_indptr, in_indptr, in_edges, edge_from, edge_to, edge_reverse, w_e, tc_e,
            len_e, ban_bit, ban_indptr, ban_to, ban_modes, use_bans, blocked, free_flowing,
            in_deg, out_deg, car_speed, turn_speed, driving, drive_on_right, turn_costs,
            False, no_v, no_f, seed_e[:ns], seed_w[:ns], seed_t[:ns], seed_d[:ns],
            -1, no_e, no_f, no_f, no_f, _INF, max_t[i], _INF, v_lat, v_lon, 0.0, 0.0, 0.0,
            False, lab, tim, dist, pred, cost_v, time_v, dist_v, edge_v, best,
            touched_v, touched_e,
        )  # fmt: skip
        # the origin vertex itself (as ``street_tree`` sets it)
        cost_v[v] = time_v[v] = dist_v[v] = 0.0
        _read(
            lab, tim, dist, w_e, t_e64, tc_e64, len_e64, edge_reverse, edge_from, edge_to,
            no_e, no_f, cost_v, time_v, dist_v, at_vertex_m, p_edge[lo:hi], p_frac[lo:hi],
            no_entered, _INF, out[lo:hi],
        )  # fmt: skip
        for j in range(ntv):
            u = touched_v[j]
            cost_v[u] = time_v[u] = dist_v[u] = _INF
            edge_v[u] = -1
        cost_v[v] = time_v[v] = dist_v[v] = _INF
        edge_v[v] = -1
        for j in range(nte):
            f = touched_e[j]
            lab[f] = tim[f] = dist[f] = _INF
            pred[f] = -1


def _run_chunk(
    inputs: SearchInputs,
    arrays: tuple[FloatArray, FloatArray, FloatArray, FloatArray],
    max_time_s: FloatArray,
    vertices: IntArray,
    p_indptr: IntArray,
    p_edge: Int32Array,
    p_frac: FloatArray,
    out: FloatArray,
) -> None:
    seed_w_all, t64, tc64, len64 = arrays
    i = inputs
    _trees_read(
        i.out_indptr, i.in_indptr, i.in_edges, i.edge_from, i.edge_to, i.edge_reverse, i.weight,
        i.time_ceil_s, i.length_m, i.ban_bit, i.ban_indptr, i.ban_to, i.ban_modes, i.use_bans,
        i.blocked, i.free_flowing, i.in_deg, i.out_deg, i.car_speed, i.turn_speed, i.driving,
        i.drive_on_right, i.turn_costs, i.vertex_lat, i.vertex_lon, seed_w_all, t64, tc64,
        len64, max_time_s, AT_VERTEX_M, vertices, p_indptr, p_edge, p_frac, out,
    )  # fmt: skip


def vertex_tree_readings(
    network: TransportNetwork,
    vertices: IntArray,
    options: StreetOptions,
    *,
    max_time_s: float | FloatArray,
    point_indptr: IntArray,
    point_edge: Int32Array,
    point_fraction: FloatArray,
    workers: int | None = None,
) -> TreeReading:
    """Best street path from each vertex to each of its points (a tree per vertex).

    Parameters
    ----------
    network
        A network with streets.
    vertices
        Street vertices to search from (each once).
    options
        Mode and cost model (as for planning).
    max_time_s
        Search limit of every tree, or one per vertex (as ``street_tree``'s: callers add
        the longest edge time of the points' edges).
    point_indptr
        CSR over ``vertices``: the points of ``vertices[i]`` are rows
        ``point_indptr[i]:point_indptr[i + 1]`` of ``point_edge``/``point_fraction``.
    point_edge, point_fraction
        The points' snaps (edge and fraction along it, as in
        :class:`~otpa.routing.engine.SnapArrays`; edge ``-1``: not linked).
    workers
        Threads (default: the CPU count, at most 4); each holds one set of label arrays.

    Returns
    -------
    TreeReading
        Per point row: the values ``tree_times(street_tree(network, v, options,
        max_time_s=max_time_s), snaps)`` gives (``inf``: not reached).
    """
    graph = street_graph(network)
    costs = edge_costs(graph, options)
    inputs = search_inputs(graph, options, costs)
    all_edges = np.arange(graph.n_edges, dtype=np.int64)
    arrays = (
        np.ascontiguousarray(weight_of(costs, all_edges, 1.0, True), dtype=np.float64),
        np.asarray(costs.time_s, dtype=np.float64),
        np.asarray(costs.time_ceil_s, dtype=np.float64),
        np.asarray(graph.edge_length_m, dtype=np.float64),
    )
    vertices = np.ascontiguousarray(vertices, dtype=np.int64)
    indptr = np.ascontiguousarray(point_indptr, dtype=np.int64)
    p_edge = np.ascontiguousarray(point_edge, dtype=np.int32)
    p_frac = np.ascontiguousarray(point_fraction, dtype=np.float64)
    out = np.full((p_edge.shape[0], 3), np.inf)
    n = vertices.shape[0]
    limits = np.ascontiguousarray(np.broadcast_to(max_time_s, (n,)), dtype=np.float64)
    if n and p_edge.shape[0]:
        threads = workers or max(1, min(os.cpu_count() or 1, 4))
        # chunks of about equal point counts, a few per thread (buffers per chunk)
        # (and at least one per 64 vertices: the request's deadline is checked per chunk)
        n_chunks = max(1, min(n, max(threads * 4, n // 64)))
        cuts = np.searchsorted(indptr, np.linspace(0, indptr[-1], n_chunks + 1)[1:-1])
        bounds = np.unique(np.concatenate(([0], cuts, [n])))

        def run(k: int) -> None:
            check_deadline("the stops' egress searches")  # the request's time limit, if any
            a, b = int(bounds[k]), int(bounds[k + 1])
            lo, hi = int(indptr[a]), int(indptr[b])
            _run_chunk(
                inputs, arrays, limits[a:b], vertices[a:b], indptr[a : b + 1] - lo,
                p_edge[lo:hi], p_frac[lo:hi], out[lo:hi],
            )  # fmt: skip

        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(under_this_deadline(run), range(bounds.size - 1)))
    return TreeReading(out[:, 1].copy(), out[:, 0].copy(), out[:, 2].copy())
