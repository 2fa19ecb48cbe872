"""Numba Dijkstra kernels over the street graph CSR: the one street-search kernel.

Two label-setting searches:

* :func:`vertex_dijkstra` labels vertices; used by :func:`otpa.street.one_to_many`
  when no turn ban applies to the searched mode (about twice as fast);
* :func:`edge_search` labels *edges* (the state "just traversed edge ``e``"); it is
  the only edge-labelling search: :mod:`otpa.street.search` uses it where turn bans
  apply, :mod:`otpa.street.edge_search` (the router's searches) always.  It can do
  what OTP 1.x does at every intersection: refuse banned ``(incoming, outgoing)``
  pairs (:func:`banned`), refuse U-turns onto the reverse of the incoming edge, add
  OTP's turn cost (:func:`turn_cost`), not pass through blocked vertices; each of
  these is off when its input says so (``use_bans``, an ``edge_reverse`` of ``-1``,
  ``turn_costs``, an all-False ``blocked``).

Both search forward over the out-edge CSR or backward (arrive-by) over the in-edge
CSR.  For :func:`vertex_dijkstra`, ``adj_edges``/``direct``: the edge ids of adjacency
slot ``k`` are ``k`` itself when ``direct`` (forward CSR: edges are sorted by
``edge_from``), else ``adj_edges[k]``; ``nbr[e]`` is the vertex the search reaches
through ``e`` (``edge_to`` forward, ``edge_from`` backward).

Barriers: a vertex whose ``barrier`` bits include ``mode`` (or that is ``blocked``)
can be reached but not passed through; a seed vertex can always be left.

The heap is a binary min-heap with lazy deletion, grown on demand.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from otpa.errors import InternalError
from otpa.types import (
    BoolArray,
    Float32Array,
    FloatArray,
    Int16Array,
    Int32Array,
    IntArray,
    UInt8Array,
)
from otpa.util.geo import EARTH_RADIUS_M
from otpa.util.heap import heap_pop, heap_push

__all__ = [
    "FREEWAY_SPEED_MPS",
    "H_SAFETY",
    "LEFT_TURN_S",
    "NON_DRIVING_DEGREES",
    "RIGHT_TURN_S",
    "STRAIGHT_S",
    "banned",
    "edge_search",
    "goal_search",
    "many_to_many",
    "path_turns",
    "pred_chain",
    "turn_cost",
    "vertex_dijkstra",
]

_INF = np.inf
#: OTP 1.x ``SimpleIntersectionTraversalCostModel`` (no traffic light).
RIGHT_TURN_S = 8.0
LEFT_TURN_S = 8.0
STRAIGHT_S = 5.0
#: Between two roads faster than this (m/s) a driver pays no turn cost.
FREEWAY_SPEED_MPS = 25.0
#: Non-driving turn cost: degrees of turning per second at 1 m/s.
NON_DRIVING_DEGREES = 20.0
#: A* lower bounds use this share of the straight-line distance (projection error,
#: edge lengths slightly shorter than their geometry).
H_SAFETY = 0.95
_M_PER_DEG = EARTH_RADIUS_M * math.pi / 180.0


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
def banned(
    ban_indptr: IntArray, ban_to: Int32Array, ban_modes: UInt8Array, a: int, b: int, bit: np.uint8
) -> bool:
    """True when the turn from edge ``a`` onto edge ``b`` is banned for the mode ``bit``."""
    for j in range(ban_indptr[a], ban_indptr[a + 1]):
        if ban_to[j] == b and (ban_modes[j] & bit) != 0:
            return True
    return False


@njit(cache=True, inline="always")  # type: ignore[misc]
def turn_cost(
    e: int,
    f: int,
    v: int,
    driving: bool,
    drive_on_right: bool,
    free_flowing: BoolArray,
    in_deg: Int16Array,
    out_deg: Int16Array,
    car_speed: FloatArray,
    turn_speed: FloatArray,
) -> float:
    """OTP's turn cost (seconds) from edge ``e`` onto edge ``f`` at vertex ``v``."""
    if free_flowing[v]:
        return 0.0
    if driving:
        a_in = np.int64(out_deg[e])
        a_out = np.int64(in_deg[f])
        if a_out < a_in:
            a_out += 360
        angle = a_out - a_in
        if not drive_on_right:
            angle = 360 - angle
        if car_speed[e] > FREEWAY_SPEED_MPS and car_speed[f] > FREEWAY_SPEED_MPS:
            return 0.0
        if 45 <= angle < 135:
            return RIGHT_TURN_S
        if 225 <= angle < 315:
            return LEFT_TURN_S
        return STRAIGHT_S
    # OTP compares the *last* angle of the next edge with the *first* of the previous one
    d = abs(np.int64(out_deg[f]) - np.int64(in_deg[e]))
    if d > 180:
        d = 360 - d
    return float(d / NON_DRIVING_DEGREES / turn_speed[f])


@njit(cache=True, nogil=True)  # type: ignore[misc]
def edge_search(
    out_indptr: IntArray,
    in_indptr: IntArray,
    in_edges: Int32Array,
    edge_from: Int32Array,
    edge_to: Int32Array,
    edge_reverse: Int32Array,
    w_e: FloatArray,
    t_e: FloatArray,
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
    reverse: bool,
    seed_v: IntArray,
    seed_vw: FloatArray,
    seed_e: Int32Array,
    seed_w: FloatArray,
    seed_t: FloatArray,
    seed_d: FloatArray,
    target_v: int,
    tgt_e: Int32Array,
    tgt_w: FloatArray,
    tgt_t: FloatArray,
    tgt_d: FloatArray,
    max_w: float,
    max_t: float,
    max_d: float,
    v_lat: FloatArray,
    v_lon: FloatArray,
    h_lat: float,
    h_lon: float,
    h_ratio: float,
    init: bool,
    lab: FloatArray,
    tim: FloatArray,
    dist: FloatArray,
    pred: Int32Array,
    cost_v: FloatArray,
    time_v: FloatArray,
    dist_v: FloatArray,
    edge_v: Int32Array,
    best: FloatArray,
    touched_v: IntArray,
    touched_e: IntArray,
) -> tuple[int, int, int]:
    """Edge-labelling search; returns ``(settled states, touched vertices, touched edges)``.

    Edges ``f`` with ``w_e[f] == inf`` are not usable; ``t_e`` is the time of each
    edge (whole seconds for the router), ``len_e`` its length.  ``ban_bit[f]``: the
    permission bit the ban check uses on entering ``f``.

    Seeds are edges (``seed_e`` with the weight, time and distance already spent on
    them) and/or vertices (``seed_v`` at weight ``seed_vw``, time and distance 0,
    left over every usable edge; they need the vertex labels).  A duplicate vertex
    seed with a higher weight is ignored.

    ``target_v``: stop when it is reached; ``tgt_e`` (with partial weight, time,
    distance): target edges entered from their start vertex.  ``best`` (in/out):
    ``[weight, time, distance, last state, target index]`` of the best target
    reached (index -1: the target vertex); pre-set it to a known candidate to prune
    with it.  With ``h_ratio > 0`` (forward only) the search is an A*: the heap key
    adds ``h_ratio`` x a lower bound of the straight-line distance from the state's
    vertex to ``(h_lat, h_lon)``, and the search ends once the smallest key passes
    ``max_w`` (no path within the bound is left).

    Labels per edge (``lab``, ``tim``, ``dist``, ``pred``: the state searched just
    before, -1 from a seed) and, when ``cost_v`` is not empty, per vertex (``edge_v``:
    the state that gave the vertex its label, -1 at a seed).  With ``init`` the
    kernel fills the label arrays itself (they may come uninitialised: this runs
    without the GIL); without it the caller gives them initialised (``inf``, ``-1``)
    and gets the entries it must reset listed in ``touched_v``/``touched_e``.
    """
    return _edge_search_core(
        out_indptr, in_indptr, in_edges, edge_from, edge_to, edge_reverse, w_e, t_e, len_e,
        ban_bit, ban_indptr, ban_to, ban_modes, use_bans, blocked, free_flowing, in_deg,
        out_deg, car_speed, turn_speed, driving, drive_on_right, turn_costs, reverse, seed_v,
        seed_vw, seed_e, seed_w, seed_t, seed_d, target_v, tgt_e, tgt_w, tgt_t, tgt_d, max_w,
        max_t, max_d, v_lat, v_lon, h_lat, h_lon, h_ratio,
        np.zeros((0, 0), dtype=np.float32), np.zeros(0, dtype=np.int64), np.zeros(0), 0.0, 0.0,
        False, init, lab, tim, dist, pred, cost_v, time_v, dist_v, edge_v, best, touched_v,
        touched_e,
    )  # fmt: skip


@njit(cache=True, nogil=True)  # type: ignore[misc]
def goal_search(
    out_indptr: IntArray,
    in_indptr: IntArray,
    in_edges: Int32Array,
    edge_from: Int32Array,
    edge_to: Int32Array,
    edge_reverse: Int32Array,
    w_e: FloatArray,
    t_e: FloatArray,
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
    seed_v: IntArray,
    seed_vw: FloatArray,
    seed_e: Int32Array,
    seed_w: FloatArray,
    seed_t: FloatArray,
    seed_d: FloatArray,
    target_v: int,
    tgt_e: Int32Array,
    tgt_w: FloatArray,
    tgt_t: FloatArray,
    tgt_d: FloatArray,
    max_w: float,
    v_lat: FloatArray,
    v_lon: FloatArray,
    h_lat: float,
    h_lon: float,
    h_ratio: float,
    lm: Float32Array,
    lm_cols: IntArray,
    lm_goal: FloatArray,
    lm_ratio: float,
    lm_eps: float,
    init: bool,
    lab: FloatArray,
    tim: FloatArray,
    dist: FloatArray,
    pred: Int32Array,
    best: FloatArray,
    touched_e: IntArray,
) -> tuple[int, int, int]:
    """A forward point-to-point :func:`edge_search` with canonical ties, no cuts but ``max_w``.

    The result does not depend on the order states are settled in, so not on the
    lower bound: of two predecessors (targets) giving a state (the best) the same
    weight, the smaller state id wins (a seed, and a preset ``best``, before any), and
    the search goes on while a key equals the best weight (except across steps that add
    no weight in floating point: there the first state to reach the label keeps it, so
    among such zero-weight links the order may still decide).  (The time and distance
    labels of a state whose predecessor changed on such a tie are not passed on; a
    caller recomputes them along the path.)

    The lower bound of a state at vertex ``w`` is the larger of ``h_ratio`` x the
    straight-line bound of :func:`edge_search` and ``lm_ratio`` x (``max |lm[w, k] -
    lm_goal[k]|`` over the columns ``lm_cols`` of the landmark distance table ``lm``,
    less ``lm_eps``): ALT.  With ``lm`` the distances from landmarks ``k`` in a metric
    (an undirected graph of per-edge values, :mod:`otpa.street.landmarks`; ``inf`` where
    unreachable: skipped), ``lm_goal`` the landmarks' distances to the goal and
    ``lm_ratio`` at most every usable edge's weight per metric unit, it is an admissible
    lower bound of the weight to the goal (consistent for WALK and BICYCLE; CAR's share of
    the turn-cost floor makes it only admissible there: the search reopens a state whose
    label improves, so it needs no more; a closed set would not be exact for CAR).
    Returns ``(settled states, 0, touched edges)``.
    """
    no_f = np.zeros(0)
    return _edge_search_core(
        out_indptr, in_indptr, in_edges, edge_from, edge_to, edge_reverse, w_e, t_e, len_e,
        ban_bit, ban_indptr, ban_to, ban_modes, use_bans, blocked, free_flowing, in_deg,
        out_deg, car_speed, turn_speed, driving, drive_on_right, turn_costs, False, seed_v,
        seed_vw, seed_e, seed_w, seed_t, seed_d, target_v, tgt_e, tgt_w, tgt_t, tgt_d, max_w,
        _INF, _INF, v_lat, v_lon, h_lat, h_lon, h_ratio, lm, lm_cols, lm_goal, lm_ratio,
        lm_eps, True, init, lab, tim, dist, pred, no_f, no_f, no_f,
        np.zeros(0, dtype=np.int32), best, np.zeros(0, dtype=np.int64), touched_e,
    )  # fmt: skip


@njit(cache=True, inline="always")  # type: ignore[misc]
def _bound(
    w: int,
    v_lat: FloatArray,
    v_lon: FloatArray,
    h_lat: float,
    h_lon: float,
    kx: float,
    ky: float,
    lm: Float32Array,
    lm_cols: IntArray,
    lm_goal: FloatArray,
    lm_ratio: float,
    lm_eps: float,
) -> float:
    """The A* lower bound at vertex ``w``: straight line, and landmarks (ALT) if given."""
    h = math.hypot(kx * (v_lon[w] - h_lon), ky * (v_lat[w] - h_lat))
    far = 0.0
    for i in range(lm_cols.shape[0]):
        k = lm_cols[i]
        x = np.float64(lm[w, k]) - lm_goal[k]
        if x < 0.0:
            x = -x
        if x > far and x < _INF:
            far = x
    hl = lm_ratio * (far - lm_eps)
    return hl if hl > h else h


@njit(cache=True, nogil=True)  # type: ignore[misc]
def _edge_search_core(  # noqa: C901 (one flat loop for numba)
    out_indptr: IntArray,
    in_indptr: IntArray,
    in_edges: Int32Array,
    edge_from: Int32Array,
    edge_to: Int32Array,
    edge_reverse: Int32Array,
    w_e: FloatArray,
    t_e: FloatArray,
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
    reverse: bool,
    seed_v: IntArray,
    seed_vw: FloatArray,
    seed_e: Int32Array,
    seed_w: FloatArray,
    seed_t: FloatArray,
    seed_d: FloatArray,
    target_v: int,
    tgt_e: Int32Array,
    tgt_w: FloatArray,
    tgt_t: FloatArray,
    tgt_d: FloatArray,
    max_w: float,
    max_t: float,
    max_d: float,
    v_lat: FloatArray,
    v_lon: FloatArray,
    h_lat: float,
    h_lon: float,
    h_ratio: float,
    lm: Float32Array,
    lm_cols: IntArray,
    lm_goal: FloatArray,
    lm_ratio: float,
    lm_eps: float,
    canonical: bool,
    init: bool,
    lab: FloatArray,
    tim: FloatArray,
    dist: FloatArray,
    pred: Int32Array,
    cost_v: FloatArray,
    time_v: FloatArray,
    dist_v: FloatArray,
    edge_v: Int32Array,
    best: FloatArray,
    touched_v: IntArray,
    touched_e: IntArray,
) -> tuple[int, int, int]:
    """:func:`edge_search` with landmark bounds and canonical ties (see there)."""
    if init:
        lab[:] = _INF
        tim[:] = _INF
        dist[:] = _INF
        pred[:] = -1
        cost_v[:] = _INF
        time_v[:] = _INF
        dist_v[:] = _INF
        edge_v[:] = -1
    track = not init
    ntv = 0
    nte = 0
    hc = np.empty(256, dtype=np.float64)
    hi = np.empty(256, dtype=np.int64)
    n = 0
    vertices = cost_v.shape[0] > 0
    astar = h_ratio > 0.0 and not reverse
    kx = h_ratio * H_SAFETY * _M_PER_DEG * math.cos(math.radians(h_lat))
    ky = h_ratio * H_SAFETY * _M_PER_DEG
    for i in range(seed_v.shape[0]):
        v = seed_v[i]
        c = seed_vw[i]
        if c <= max_w and c < cost_v[v]:
            if track and cost_v[v] == _INF:
                touched_v[ntv] = v
                ntv += 1
            cost_v[v] = c
            time_v[v] = 0.0
            dist_v[v] = 0.0
            edge_v[v] = -1
    for i in range(seed_v.shape[0]):
        v = seed_v[i]
        c = seed_vw[i]
        if c != cost_v[v] or edge_v[v] != -1:
            continue  # not kept above, or a duplicate seed with a higher weight
        if reverse:
            lo = in_indptr[v]
            hi_k = in_indptr[v + 1]
        else:
            lo = out_indptr[v]
            hi_k = out_indptr[v + 1]
        for k in range(lo, hi_k):
            f = in_edges[k] if reverse else k
            wf = w_e[f]
            if wf == _INF:
                continue
            nc = c + wf
            if nc <= max_w and nc < lab[f] and t_e[f] <= max_t and len_e[f] <= max_d:
                if track and lab[f] == _INF:
                    touched_e[nte] = f
                    nte += 1
                lab[f] = nc
                tim[f] = t_e[f]
                dist[f] = len_e[f]
                pred[f] = -1
                key = nc
                if astar:
                    w = edge_to[f]
                    key = nc + _bound(w, v_lat, v_lon, h_lat, h_lon, kx, ky, lm, lm_cols, lm_goal,
                                      lm_ratio, lm_eps)  # fmt: skip
                hc, hi, n = heap_push(hc, hi, n, key, f)
    for i in range(seed_e.shape[0]):
        e = seed_e[i]
        c = seed_w[i]
        if c <= max_w and seed_t[i] <= max_t and seed_d[i] <= max_d and c < lab[e]:
            if track and lab[e] == _INF:
                touched_e[nte] = e
                nte += 1
            lab[e] = c
            tim[e] = seed_t[i]
            dist[e] = seed_d[i]
            pred[e] = -1
            key = c
            if astar:
                w = edge_to[e]
                key = c + _bound(w, v_lat, v_lon, h_lat, h_lon, kx, ky, lm, lm_cols, lm_goal,
                                 lm_ratio, lm_eps)  # fmt: skip
            hc, hi, n = heap_push(hc, hi, n, key, e)
    settled = 0
    while n > 0:
        key, e, n = heap_pop(hc, hi, n)
        c = lab[e]
        if astar:
            w = edge_to[e]
            h = _bound(w, v_lat, v_lon, h_lat, h_lon, kx, ky, lm, lm_cols, lm_goal,
                       lm_ratio, lm_eps)  # fmt: skip
            if key > c + h:
                continue
        elif key > c:
            continue
        if key > best[0] or key > max_w or (key == best[0] and not canonical):
            break  # (an A* key is a lower bound of every path through the state; a plain
            # search never holds a key above max_w)
        settled += 1
        v = edge_from[e] if reverse else edge_to[e]
        t = tim[e]
        d = dist[e]
        if vertices and c < cost_v[v]:
            if track and cost_v[v] == _INF:
                touched_v[ntv] = v
                ntv += 1
            cost_v[v] = c
            time_v[v] = t
            dist_v[v] = d
            edge_v[v] = e
        if v == target_v:
            if not canonical:
                best[0] = c
                best[1] = t
                best[2] = d
                best[3] = e
                best[4] = -1
                break
            # canonical: the smallest state of the least weight entering the target;
            # the search goes on while a key may tie
            if c < best[0] or (c == best[0] and best[3] >= 0 and e < best[3]):
                best[0] = c
                best[1] = t
                best[2] = d
                best[3] = e
                best[4] = -1
            continue
        if blocked[v]:
            continue
        for j in range(tgt_e.shape[0]):
            g = tgt_e[j]
            if edge_from[g] != v or g == edge_reverse[e]:
                continue
            if use_bans and banned(ban_indptr, ban_to, ban_modes, e, g, ban_bit[g]):
                continue
            tc = 0.0
            if turn_costs:
                tc = turn_cost(e, g, v, driving, drive_on_right, free_flowing, in_deg,
                               out_deg, car_speed, turn_speed)  # fmt: skip
            cand = c + tc + tgt_w[j]
            if cand < best[0] or (
                canonical
                and cand == best[0]
                and best[3] >= 0
                and (e < best[3] or (e == best[3] and j < best[4]))
            ):
                best[0] = cand
                best[1] = t + math.ceil(tc) + tgt_t[j]
                best[2] = d + tgt_d[j]
                best[3] = e
                best[4] = j
        if reverse:
            lo = in_indptr[v]
            hi_k = in_indptr[v + 1]
        else:
            lo = out_indptr[v]
            hi_k = out_indptr[v + 1]
        back = edge_reverse[e]
        # early skip (exact): nc = (c + wf) + tc, and for a turn cost tc that is a number
        # >= 0, fl(base + tc) >= base, so base > lab[f] (or > max_w) already fails the
        # test below, and banned() and turn_cost() have no effect to miss.  tc >= 0 is
        # known with no turn cost (or driving: 0, 5 or 8 s, or a free-flowing vertex),
        # else when the turn's outgoing edge (f forward; e, the same for all f, reverse)
        # has a turn speed > 0 (d / 20 / speed with d >= 0; never NaN, no division by 0)
        tc_free = not turn_costs or driving or free_flowing[v]
        tc_rev_nonneg = tc_free or (reverse and turn_speed[e] > 0.0)
        for k in range(lo, hi_k):
            f = in_edges[k] if reverse else k
            wf = w_e[f]
            if wf == _INF or f == back:
                continue
            base = c + wf
            if (base > lab[f] or base > max_w) and (
                tc_rev_nonneg or (not reverse and turn_speed[f] > 0.0)
            ):
                continue
            if reverse:
                a = f
                b = e
            else:
                a = e
                b = f
            if use_bans and banned(ban_indptr, ban_to, ban_modes, a, b, ban_bit[b]):
                continue
            tc = 0.0
            if turn_costs:
                tc = turn_cost(a, b, v, driving, drive_on_right, free_flowing, in_deg,
                               out_deg, car_speed, turn_speed)  # fmt: skip
            nc = base + tc
            if nc > lab[f] or nc > max_w:
                continue
            tie = nc == lab[f]
            # a tie is adopted only over a step that adds weight: across a step of no
            # weight (reluctance 0, or a weight lost to rounding next to a turn cost) two
            # states of one label could become each other's predecessors (a cycle)
            if tie and (not canonical or e >= pred[f] or nc == c):
                continue
            nt = t + t_e[f] + math.ceil(tc)
            nd = d + len_e[f]
            if nt > max_t or nd > max_d:
                continue
            if tie:
                # canonical: of two predecessors giving the same weight, the smaller state
                # (its key is unchanged: nothing to push)
                tim[f] = nt
                dist[f] = nd
                pred[f] = e
                continue
            if track and lab[f] == _INF:
                touched_e[nte] = f
                nte += 1
            lab[f] = nc
            tim[f] = nt
            dist[f] = nd
            pred[f] = e
            key = nc
            if astar:
                w = edge_to[f]
                key = nc + _bound(w, v_lat, v_lon, h_lat, h_lon, kx, ky, lm, lm_cols, lm_goal,
                                  lm_ratio, lm_eps)  # fmt: skip
            hc, hi, n = heap_push(hc, hi, n, key, f)
    return settled, ntv, nte


@njit(cache=True, nogil=True)  # type: ignore[misc]
def pred_chain(pred: Int32Array, state: int) -> Int32Array:
    """The states from a seed to ``state`` following ``pred`` (-1 ends), in search order.

    Raises :class:`~otpa.errors.InternalError` when the chain leaves the states
    or is longer than their number (a cycle: it would never end), instead of reading
    out of bounds or looping.
    """
    n_states = pred.shape[0]
    n = 0
    e = state
    while e >= 0:
        if e >= n_states or n >= n_states:
            msg = "pred_chain: the predecessors leave the states or form a cycle"
            raise InternalError(msg)
        n += 1
        e = pred[e]
    out = np.empty(n, dtype=np.int32)
    e = state
    for i in range(n - 1, -1, -1):
        out[i] = e
        e = pred[e]
    return out


@njit(cache=True, nogil=True)  # type: ignore[misc]
def path_turns(
    edges: Int32Array,
    driving: bool,
    drive_on_right: bool,
    free_flowing: BoolArray,
    in_deg: Int16Array,
    out_deg: Int16Array,
    car_speed: FloatArray,
    turn_speed: FloatArray,
    edge_to: Int32Array,
) -> FloatArray:
    """Turn cost (seconds) paid on entering each edge of the path ``edges`` (0 for the first)."""
    out = np.zeros(edges.shape[0])
    for i in range(1, edges.shape[0]):
        e = edges[i - 1]
        out[i] = turn_cost(e, edges[i], edge_to[e], driving, drive_on_right, free_flowing,
                           in_deg, out_deg, car_speed, turn_speed)  # fmt: skip
    return out


@njit(cache=True, nogil=True)  # type: ignore[misc]
def many_to_many(
    out_indptr: IntArray,
    in_indptr: IntArray,
    in_edges: Int32Array,
    edge_from: Int32Array,
    edge_to: Int32Array,
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

    ``edge_based``: label edges (:func:`edge_search`, honouring the bans of ``mode``;
    U-turns allowed, no turn costs) instead of vertices (:func:`vertex_dijkstra`).
    ``target_indptr``/``target_ids`` (CSR over vertices) list the targets at
    each vertex.  Returns ``(source index, target id, cost, distance)`` for every
    target reached within ``max_cost`` (the source's own id included).
    """
    n_v = out_indptr.shape[0] - 1
    n_e = edge_to.shape[0]
    m = np.uint8(mode)
    cost_v = np.full(n_v, _INF)
    dist_v = np.full(n_v, _INF)
    pred_v = np.full(n_v, -1, dtype=np.int32)
    time_v = np.full(n_v, _INF)
    touched_v = np.empty(n_v, dtype=np.int64)
    n_lab = n_e if edge_based else 0
    lab_e = np.full(n_lab, _INF)
    tim_e = np.full(n_lab, _INF)
    dist_e = np.full(n_lab, _INF)
    pred_e = np.full(n_lab, -1, dtype=np.int32)
    touched_e = np.empty(n_lab, dtype=np.int64)
    w_e = np.full(n_lab, _INF)
    ban_bit = np.full(n_lab, m, dtype=np.uint8)
    no_reverse = np.full(n_lab, -1, dtype=np.int32)
    blocked = np.zeros(n_v if edge_based else 0, dtype=np.bool_)
    if edge_based:
        for e in range(n_e):
            if (perm_e[e] & m) != 0:
                w_e[e] = cost_e[e]
        for v in range(n_v):
            blocked[v] = (barrier[v] & m) != 0
    no_adj = np.empty(0, dtype=np.int32)
    no_bool = np.zeros(0, dtype=np.bool_)
    no_deg = np.zeros(0, dtype=np.int16)
    no_f = np.zeros(0, dtype=np.float64)
    no_e = np.zeros(0, dtype=np.int32)
    best = np.empty(5, dtype=np.float64)
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
            best[:] = _INF
            _, ntv, nte = edge_search(
                out_indptr, in_indptr, in_edges, edge_from, edge_to, no_reverse, w_e, w_e,
                len_e, ban_bit, ban_indptr, ban_to, ban_modes, True, blocked, no_bool, no_deg,
                no_deg, no_f, no_f, False, True, False, False, seed, seed_cost,
                no_e, no_f, no_f, no_f, -1, no_e, no_f, no_f, no_f, max_cost, _INF, _INF,
                no_f, no_f, 0.0, 0.0, 0.0, False, lab_e, tim_e, dist_e, pred_e,
                cost_v, time_v, dist_v, pred_v, best, touched_v, touched_e,
            )  # fmt: skip
        else:
            ntv = vertex_dijkstra(
                out_indptr, no_adj, True, edge_to, cost_e, len_e, perm_e, mode, barrier,
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
            time_v[v] = _INF
            pred_v[v] = -1
        for j in range(nte):
            e = touched_e[j]
            lab_e[e] = _INF
            tim_e[e] = _INF
            dist_e[e] = _INF
            pred_e[e] = -1
    return out_src[:n_out], out_tgt[:n_out], out_cost[:n_out], out_dist[:n_out]
