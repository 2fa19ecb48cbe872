"""Numba Dijkstra kernels over the street graph CSR.

Two label-setting searches share one calling convention:

* :func:`vertex_dijkstra` labels vertices; used when no turn ban applies to the
  searched mode (the common case for walking and cycling);
* :func:`edge_dijkstra` labels edges (the state is "just traversed edge e"), so
  a banned ``(incoming, outgoing)`` edge pair can be refused exactly.

Both search forward over the out-edge CSR or backward (arrive-by) over the
in-edge CSR.  ``adj_edges``/``direct``: the edge ids of adjacency slot ``k`` are
``k`` itself when ``direct`` (forward CSR: edges are sorted by ``edge_from``),
else ``adj_edges[k]``; ``nbr[e]`` is the vertex the search reaches through
``e`` (``edge_to`` forward, ``edge_from`` backward).

Barriers: a vertex whose ``barrier`` bits include ``mode`` can be reached but
not passed through; a seed vertex can always be left.

The caller owns the output arrays (``cost_v`` and edge labels initialised to
``inf``, ``pred_*`` to ``-1``) and gets back how many entries it touched (listed
in ``touched*``) so repeated searches can reset only those.  The heap is a
binary min-heap with lazy deletion, grown on demand.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from otpa.types import FloatArray, Int32Array, IntArray, UInt8Array
from otpa.util.heap import heap_pop, heap_push

__all__ = ["edge_dijkstra", "many_to_many", "vertex_dijkstra"]

_INF = np.inf


@njit(cache=True, nogil=True)  # type: ignore[misc]
def vertex_dijkstra(
    indptr: IntArray,
    adj_edges: Int32Array,
    direct: bool,
    nbr: Int32Array,
    cost_e: FloatArray,
    len_e: FloatArray,
    perm_e: UInt8Array,
    mode: int,
    barrier: UInt8Array,
    seeds: IntArray,
    seed_costs: FloatArray,
    max_cost: float,
    target: int,
    cost_v: FloatArray,
    dist_v: FloatArray,
    pred_v: Int32Array,
    touched: IntArray,
) -> int:
    """Vertex-labelling Dijkstra; returns the number of touched vertices."""
    cap = 64 if seeds.shape[0] < 16 else 4 * seeds.shape[0]
    hc = np.empty(cap, dtype=np.float64)
    hi = np.empty(cap, dtype=np.int64)
    n = 0
    nt = 0
    m = np.uint8(mode)
    for i in range(seeds.shape[0]):
        v = seeds[i]
        c = seed_costs[i]
        if c <= max_cost and c < cost_v[v]:
            if cost_v[v] == _INF:
                touched[nt] = v
                nt += 1
            cost_v[v] = c
            dist_v[v] = 0.0
            pred_v[v] = -1
            hc, hi, n = heap_push(hc, hi, n, c, v)
    # A seed on a barrier may be left, but the vertex must not be passed through
    # when reached over an edge: expand such seeds now, at their seed cost.
    for i in range(seeds.shape[0]):
        v = seeds[i]
        if (barrier[v] & m) != 0 and pred_v[v] == -1 and seed_costs[i] == cost_v[v]:
            hc, hi, n, nt = _relax(
                v, cost_v[v], 0.0, indptr, adj_edges, direct, nbr, cost_e, len_e, perm_e, m,
                max_cost, cost_v, dist_v, pred_v, touched, nt, hc, hi, n,
            )  # fmt: skip
    while n > 0:
        c, v, n = heap_pop(hc, hi, n)
        if c > cost_v[v]:
            continue
        if v == target:
            break
        if (barrier[v] & m) != 0:
            continue
        hc, hi, n, nt = _relax(
            v, c, dist_v[v], indptr, adj_edges, direct, nbr, cost_e, len_e, perm_e, m,
            max_cost, cost_v, dist_v, pred_v, touched, nt, hc, hi, n,
        )  # fmt: skip
    return nt


@njit(cache=True, inline="always")  # type: ignore[misc]
def _relax(
    v: int,
    c: float,
    d: float,
    indptr: IntArray,
    adj_edges: Int32Array,
    direct: bool,
    nbr: Int32Array,
    cost_e: FloatArray,
    len_e: FloatArray,
    perm_e: UInt8Array,
    m: np.uint8,
    max_cost: float,
    cost_v: FloatArray,
    dist_v: FloatArray,
    pred_v: Int32Array,
    touched: IntArray,
    nt: int,
    hc: FloatArray,
    hi: IntArray,
    n: int,
) -> tuple[FloatArray, IntArray, int, int]:
    """Relax the edges of vertex ``v`` reached at cost ``c`` and distance ``d``."""
    for k in range(indptr[v], indptr[v + 1]):
        e = k if direct else adj_edges[k]
        if (perm_e[e] & m) == 0:
            continue
        nc = c + cost_e[e]
        if nc > max_cost:
            continue
        w = nbr[e]
        if nc < cost_v[w]:
            if cost_v[w] == _INF:
                touched[nt] = w
                nt += 1
            cost_v[w] = nc
            dist_v[w] = d + len_e[e]
            pred_v[w] = e
            hc, hi, n = heap_push(hc, hi, n, nc, w)
    return hc, hi, n, nt


@njit(cache=True, inline="always")  # type: ignore[misc]
def _banned(
    ban_indptr: IntArray, ban_to: Int32Array, ban_modes: UInt8Array, a: int, b: int, m: np.uint8
) -> bool:
    for j in range(ban_indptr[a], ban_indptr[a + 1]):
        if ban_to[j] == b and (ban_modes[j] & m) != 0:
            return True
    return False


@njit(cache=True, nogil=True)  # type: ignore[misc]
def edge_dijkstra(  # noqa: C901 (one loop, kept flat for numba)
    indptr: IntArray,
    adj_edges: Int32Array,
    direct: bool,
    nbr: Int32Array,
    cost_e: FloatArray,
    len_e: FloatArray,
    perm_e: UInt8Array,
    mode: int,
    barrier: UInt8Array,
    ban_indptr: IntArray,
    ban_to: Int32Array,
    ban_modes: UInt8Array,
    reverse: bool,
    seeds: IntArray,
    seed_costs: FloatArray,
    max_cost: float,
    target: int,
    cost_v: FloatArray,
    dist_v: FloatArray,
    pred_v: Int32Array,
    touched_v: IntArray,
    lab_e: FloatArray,
    dist_e: FloatArray,
    pred_e: Int32Array,
    touched_e: IntArray,
) -> tuple[int, int]:
    """Edge-labelling Dijkstra honouring turn bans; returns touched (vertices, edges).

    ``pred_e[e]`` is the edge searched just before ``e`` (the previous edge
    forward, the next edge in travel order backward), ``-1`` from a seed.
    """
    cap = 64 if seeds.shape[0] < 16 else 4 * seeds.shape[0]
    hc = np.empty(cap, dtype=np.float64)
    hi = np.empty(cap, dtype=np.int64)
    n = 0
    ntv = 0
    nte = 0
    m = np.uint8(mode)
    for i in range(seeds.shape[0]):
        v = seeds[i]
        c = seed_costs[i]
        if c <= max_cost and c < cost_v[v]:
            if cost_v[v] == _INF:
                touched_v[ntv] = v
                ntv += 1
            cost_v[v] = c
            dist_v[v] = 0.0
            pred_v[v] = -1
    for i in range(seeds.shape[0]):
        v = seeds[i]
        c = seed_costs[i]
        if c != cost_v[v] or pred_v[v] != -1:
            continue  # a duplicate seed with a higher cost
        for k in range(indptr[v], indptr[v + 1]):
            f = k if direct else adj_edges[k]
            if (perm_e[f] & m) == 0:
                continue
            nc = c + cost_e[f]
            if nc <= max_cost and nc < lab_e[f]:
                if lab_e[f] == _INF:
                    touched_e[nte] = f
                    nte += 1
                lab_e[f] = nc
                dist_e[f] = len_e[f]
                pred_e[f] = -1
                hc, hi, n = heap_push(hc, hi, n, nc, f)
    while n > 0:
        c, e, n = heap_pop(hc, hi, n)
        if c > lab_e[e]:
            continue
        v = nbr[e]
        d = dist_e[e]
        if c < cost_v[v]:
            if cost_v[v] == _INF:
                touched_v[ntv] = v
                ntv += 1
            cost_v[v] = c
            dist_v[v] = d
            pred_v[v] = e
        if v == target:
            break
        if (barrier[v] & m) != 0:
            continue
        for k in range(indptr[v], indptr[v + 1]):
            f = k if direct else adj_edges[k]
            if (perm_e[f] & m) == 0:
                continue
            if reverse:
                if _banned(ban_indptr, ban_to, ban_modes, f, e, m):
                    continue
            elif _banned(ban_indptr, ban_to, ban_modes, e, f, m):
                continue
            nc = c + cost_e[f]
            if nc <= max_cost and nc < lab_e[f]:
                if lab_e[f] == _INF:
                    touched_e[nte] = f
                    nte += 1
                lab_e[f] = nc
                dist_e[f] = d + len_e[f]
                pred_e[f] = e
                hc, hi, n = heap_push(hc, hi, n, nc, f)
    return ntv, nte


@njit(cache=True, nogil=True)  # type: ignore[misc]
def many_to_many(
    indptr: IntArray,
    nbr: Int32Array,
    cost_e: FloatArray,
    len_e: FloatArray,
    perm_e: UInt8Array,
    mode: int,
    barrier: UInt8Array,
    ban_indptr: IntArray,
    ban_to: Int32Array,
    ban_modes: UInt8Array,
    edge_based: bool,
    sources: IntArray,
    target_indptr: IntArray,
    target_ids: Int32Array,
    max_cost: float,
) -> tuple[IntArray, Int32Array, FloatArray, FloatArray]:
    """Forward searches from each ``sources[i]`` (one at a time, reusing buffers).

    ``target_indptr``/``target_ids`` (CSR over vertices) list the targets at
    each vertex.  Returns ``(source index, target id, cost, distance)`` for every
    target reached within ``max_cost`` (the source's own id included).
    """
    n_v = indptr.shape[0] - 1
    n_e = nbr.shape[0]
    cost_v = np.full(n_v, _INF)
    dist_v = np.full(n_v, _INF)
    pred_v = np.full(n_v, -1, dtype=np.int32)
    touched_v = np.empty(n_v, dtype=np.int64)
    n_lab = n_e if edge_based else 0
    lab_e = np.full(n_lab, _INF)
    dist_e = np.full(n_lab, _INF)
    pred_e = np.full(n_lab, -1, dtype=np.int32)
    touched_e = np.empty(n_lab, dtype=np.int64)
    no_adj = np.empty(0, dtype=np.int32)
    seed = np.empty(1, dtype=np.int64)
    seed_cost = np.zeros(1, dtype=np.float64)
    cap = 1024
    out_src = np.empty(cap, dtype=np.int64)
    out_tgt = np.empty(cap, dtype=np.int32)
    out_cost = np.empty(cap, dtype=np.float64)
    out_dist = np.empty(cap, dtype=np.float64)
    n_out = 0
    for i in range(sources.shape[0]):
        seed[0] = sources[i]
        nte = 0
        if edge_based:
            ntv, nte = edge_dijkstra(
                indptr, no_adj, True, nbr, cost_e, len_e, perm_e, mode, barrier,
                ban_indptr, ban_to, ban_modes, False, seed, seed_cost, max_cost, -1,
                cost_v, dist_v, pred_v, touched_v, lab_e, dist_e, pred_e, touched_e,
            )  # fmt: skip
        else:
            ntv = vertex_dijkstra(
                indptr, no_adj, True, nbr, cost_e, len_e, perm_e, mode, barrier,
                seed, seed_cost, max_cost, -1, cost_v, dist_v, pred_v, touched_v,
            )  # fmt: skip
        for j in range(ntv):
            v = touched_v[j]
            for k in range(target_indptr[v], target_indptr[v + 1]):
                if n_out == out_src.shape[0]:
                    out_src = np.concatenate((out_src, np.empty_like(out_src)))
                    out_tgt = np.concatenate((out_tgt, np.empty_like(out_tgt)))
                    out_cost = np.concatenate((out_cost, np.empty_like(out_cost)))
                    out_dist = np.concatenate((out_dist, np.empty_like(out_dist)))
                out_src[n_out] = i
                out_tgt[n_out] = target_ids[k]
                out_cost[n_out] = cost_v[v]
                out_dist[n_out] = dist_v[v]
                n_out += 1
            cost_v[v] = _INF
            dist_v[v] = _INF
            pred_v[v] = -1
        for j in range(nte):
            e = touched_e[j]
            lab_e[e] = _INF
            dist_e[e] = _INF
            pred_e[e] = -1
    return out_src[:n_out], out_tgt[:n_out], out_cost[:n_out], out_dist[:n_out]
