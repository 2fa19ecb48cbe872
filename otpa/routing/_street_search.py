"""The router's street search: an edge-labelling Dijkstra with OTP 1.x turn handling.

The search labels *edges* (the state "just traversed edge ``e``"), so it can do
what OTP 1.x does at every intersection:

* refuse banned ``(incoming, outgoing)`` pairs (turn restrictions), checked with
  the permission bit of the outgoing edge's mode (WALK where a bike is walked);
* refuse U-turns onto the reverse of the incoming edge (``isReverseOf``);
* add OTP's turn cost (``SimpleIntersectionTraversalCostModel``) to the weight
  and ``ceil`` of it to the time, except at free-flowing vertices (one in-edge,
  one out-edge): driving, 8 s for a right or left turn and 5 s straight on,
  nothing between two roads faster than 25 m/s (traffic lights are not in the
  graph); otherwise (angle difference in degrees / 20) / speed;
* not pass through barrier vertices of the mode (they can be reached and left).

Searches start from *seed states* (an edge with the weight, time and distance
already spent on it, e.g. the rest of a partially travelled first edge) and may
end at *target edges* (entered from their start vertex; the candidate adds the
turn and a partial weight), at one target vertex, or run one-to-many.  Backward
searches (``reverse``) give the cost from every vertex *to* the seeds.

Time is OTP's: whole seconds, each traversal rounded up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from otpa.types import BoolArray, FloatArray, Int16Array, Int32Array, IntArray, UInt8Array
from otpa.util.geo import EARTH_RADIUS_M
from otpa.util.heap import heap_pop, heap_push

__all__ = ["SearchResult", "Seeds", "path_turn_costs", "run_search"]

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


@njit(cache=True, inline="always")  # type: ignore[misc]
def _turn_cost(
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


@njit(cache=True, inline="always")  # type: ignore[misc]
def _banned(
    ban_indptr: IntArray, ban_to: Int32Array, ban_modes: UInt8Array, a: int, b: int, bit: np.uint8
) -> bool:
    for j in range(ban_indptr[a], ban_indptr[a + 1]):
        if ban_to[j] == b and (ban_modes[j] & bit) != 0:
            return True
    return False


@njit(cache=True, nogil=True)  # type: ignore[misc]
def _search(  # noqa: C901 (one flat loop for numba)
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
    lab: FloatArray,
    tim: FloatArray,
    dist: FloatArray,
    pred: Int32Array,
    cost_v: FloatArray,
    time_v: FloatArray,
    dist_v: FloatArray,
    edge_v: Int32Array,
    best: FloatArray,
) -> int:
    """Run the search; returns the number of settled states.

    ``best`` (in/out): ``[weight, time, distance, last state, target index]`` of
    the best target reached (index -1: the target vertex); pre-set it to a
    known candidate to prune with it.  With ``h_ratio > 0`` (forward only) the
    search is an A*: the heap key adds ``h_ratio`` x a lower bound of the
    straight-line distance from the state's vertex to ``(h_lat, h_lon)``.
    """
    # the label arrays come uninitialised: filling them here runs without the GIL
    lab[:] = _INF
    tim[:] = _INF
    dist[:] = _INF
    pred[:] = -1
    cost_v[:] = _INF
    time_v[:] = _INF
    dist_v[:] = _INF
    edge_v[:] = -1
    hc = np.empty(256, dtype=np.float64)
    hi = np.empty(256, dtype=np.int64)
    n = 0
    vertices = cost_v.shape[0] > 0
    astar = h_ratio > 0.0 and not reverse
    kx = h_ratio * H_SAFETY * _M_PER_DEG * math.cos(math.radians(h_lat))
    ky = h_ratio * H_SAFETY * _M_PER_DEG
    for i in range(seed_e.shape[0]):
        e = seed_e[i]
        c = seed_w[i]
        if c <= max_w and seed_t[i] <= max_t and seed_d[i] <= max_d and c < lab[e]:
            lab[e] = c
            tim[e] = seed_t[i]
            dist[e] = seed_d[i]
            pred[e] = -1
            key = c
            if astar:
                w = edge_to[e]
                key = c + math.hypot(kx * (v_lon[w] - h_lon), ky * (v_lat[w] - h_lat))
            hc, hi, n = heap_push(hc, hi, n, key, e)
    settled = 0
    while n > 0:
        key, e, n = heap_pop(hc, hi, n)
        c = lab[e]
        if astar:
            w = edge_to[e]
            if key > c + math.hypot(kx * (v_lon[w] - h_lon), ky * (v_lat[w] - h_lat)):
                continue
        elif key > c:
            continue
        if key >= best[0]:
            break
        settled += 1
        v = edge_from[e] if reverse else edge_to[e]
        t = tim[e]
        d = dist[e]
        if vertices and c < cost_v[v]:
            cost_v[v] = c
            time_v[v] = t
            dist_v[v] = d
            edge_v[v] = e
        if v == target_v:
            best[0] = c
            best[1] = t
            best[2] = d
            best[3] = e
            best[4] = -1
            break
        if blocked[v]:
            continue
        for j in range(tgt_e.shape[0]):
            g = tgt_e[j]
            if edge_from[g] != v or g == edge_reverse[e]:
                continue
            if use_bans and _banned(ban_indptr, ban_to, ban_modes, e, g, ban_bit[g]):
                continue
            tc = 0.0
            if turn_costs:
                tc = _turn_cost(e, g, v, driving, drive_on_right, free_flowing, in_deg,
                                out_deg, car_speed, turn_speed)  # fmt: skip
            cand = c + tc + tgt_w[j]
            if cand < best[0]:
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
        for k in range(lo, hi_k):
            f = in_edges[k] if reverse else k
            wf = w_e[f]
            if wf == _INF or f == edge_reverse[e]:
                continue
            if reverse:
                a = f
                b = e
            else:
                a = e
                b = f
            if use_bans and _banned(ban_indptr, ban_to, ban_modes, a, b, ban_bit[b]):
                continue
            tc = 0.0
            if turn_costs:
                tc = _turn_cost(a, b, v, driving, drive_on_right, free_flowing, in_deg,
                                out_deg, car_speed, turn_speed)  # fmt: skip
            nc = c + wf + tc
            if nc >= lab[f] or nc > max_w:
                continue
            nt = t + t_e[f] + math.ceil(tc)
            nd = d + len_e[f]
            if nt > max_t or nd > max_d:
                continue
            lab[f] = nc
            tim[f] = nt
            dist[f] = nd
            pred[f] = e
            key = nc
            if astar:
                w = edge_to[f]
                key = nc + math.hypot(kx * (v_lon[w] - h_lon), ky * (v_lat[w] - h_lat))
            hc, hi, n = heap_push(hc, hi, n, key, f)
    return settled


@njit(cache=True, nogil=True)  # type: ignore[misc]
def _path_turns(
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
    out = np.zeros(edges.shape[0])
    for i in range(1, edges.shape[0]):
        e = edges[i - 1]
        out[i] = _turn_cost(e, edges[i], edge_to[e], driving, drive_on_right, free_flowing,
                            in_deg, out_deg, car_speed, turn_speed)  # fmt: skip
    return out


@dataclass(frozen=True)
class Seeds:
    """Seed states (or target edges): edges with the weight, time, distance spent on them."""

    edge: Int32Array
    weight: FloatArray
    time_s: FloatArray
    distance_m: FloatArray

    @classmethod
    def empty(cls) -> Seeds:
        """No states."""
        z = np.zeros(0)
        return cls(np.zeros(0, dtype=np.int32), z, z, z)

    @classmethod
    def of(cls, rows: list[tuple[int, float, float, float]]) -> Seeds:
        """From ``(edge, weight, time, distance)`` rows."""
        if not rows:
            return cls.empty()
        e, w, t, d = zip(*rows, strict=True)
        return cls(
            np.array(e, dtype=np.int32),
            np.array(w, dtype=np.float64),
            np.array(t, dtype=np.float64),
            np.array(d, dtype=np.float64),
        )


@dataclass(frozen=True, eq=False)
class SearchResult:
    """Labels of a search (per edge) and, for one-to-many runs, per vertex.

    ``edge_v``: the state (edge) that gave each vertex its label (-1: none); follow
    ``pred`` from it for the path (:meth:`chain`).
    """

    label: FloatArray
    time_s: FloatArray
    distance_m: FloatArray
    pred: Int32Array
    cost_v: FloatArray
    time_v: FloatArray
    dist_v: FloatArray
    edge_v: Int32Array
    best_weight: float
    best_time_s: float
    best_distance_m: float
    best_state: int
    best_target: int

    def chain(self, state: int) -> Int32Array:
        """Edges from a seed to ``state`` in search order."""
        out = []
        e = state
        while e >= 0:
            out.append(e)
            e = int(self.pred[e])
        out.reverse()
        return np.array(out, dtype=np.int32)


@dataclass(frozen=True, eq=False)
class SearchInputs:
    """The graph and cost arrays a search reads (assembled by the router)."""

    out_indptr: IntArray
    in_indptr: IntArray
    in_edges: Int32Array
    edge_from: Int32Array
    edge_to: Int32Array
    edge_reverse: Int32Array
    weight: FloatArray
    time_ceil_s: FloatArray
    length_m: FloatArray
    ban_bit: UInt8Array
    ban_indptr: IntArray
    ban_to: Int32Array
    ban_modes: UInt8Array
    use_bans: bool
    blocked: BoolArray
    free_flowing: BoolArray
    in_deg: Int16Array
    out_deg: Int16Array
    car_speed: FloatArray
    turn_speed: FloatArray
    driving: bool
    drive_on_right: bool
    turn_costs: bool
    vertex_lat: FloatArray
    vertex_lon: FloatArray
    min_weight_per_m: float


def run_search(
    inputs: SearchInputs,
    seeds: Seeds,
    *,
    n_vertices: int,
    reverse: bool = False,
    target_vertex: int = -1,
    targets: Seeds | None = None,
    initial_best: tuple[float, float, float] | None = None,
    max_weight: float = _INF,
    max_time_s: float = _INF,
    max_distance_m: float = _INF,
    vertex_labels: bool = False,
    goal: tuple[float, float] | None = None,
) -> SearchResult:
    """Run one search (see the module docstring).

    ``goal`` (lat, lon): where all targets are, for an A* search towards it.
    """
    n_e = inputs.weight.shape[0]
    lab = np.empty(n_e)  # filled by the kernel
    tim = np.empty(n_e)
    dist = np.empty(n_e)
    pred = np.empty(n_e, dtype=np.int32)
    n_v = n_vertices if vertex_labels else 0
    cost_v = np.empty(n_v)
    time_v = np.empty(n_v)
    dist_v = np.empty(n_v)
    edge_v = np.empty(n_v, dtype=np.int32)
    best = np.array([_INF, _INF, _INF, -1.0, -1.0])
    if initial_best is not None:
        best[:3] = initial_best
    tg = targets if targets is not None else Seeds.empty()
    h_lat, h_lon = goal if goal is not None else (0.0, 0.0)
    h_ratio = inputs.min_weight_per_m if goal is not None and not reverse else 0.0
    _search(
        inputs.out_indptr, inputs.in_indptr, inputs.in_edges, inputs.edge_from, inputs.edge_to,
        inputs.edge_reverse, inputs.weight, inputs.time_ceil_s, inputs.length_m, inputs.ban_bit,
        inputs.ban_indptr, inputs.ban_to, inputs.ban_modes, inputs.use_bans, inputs.blocked,
        inputs.free_flowing, inputs.in_deg, inputs.out_deg, inputs.car_speed, inputs.turn_speed,
        inputs.driving, inputs.drive_on_right, inputs.turn_costs, reverse,
        seeds.edge, seeds.weight, seeds.time_s, seeds.distance_m,
        int(target_vertex), tg.edge, tg.weight, tg.time_s, tg.distance_m,
        float(max_weight), float(max_time_s), float(max_distance_m),
        inputs.vertex_lat, inputs.vertex_lon, float(h_lat), float(h_lon), float(h_ratio),
        lab, tim, dist, pred, cost_v, time_v, dist_v, edge_v, best,
    )  # fmt: skip
    return SearchResult(
        label=lab,
        time_s=tim,
        distance_m=dist,
        pred=pred,
        cost_v=cost_v,
        time_v=time_v,
        dist_v=dist_v,
        edge_v=edge_v,
        best_weight=float(best[0]),
        best_time_s=float(best[1]),
        best_distance_m=float(best[2]),
        best_state=int(best[3]),
        best_target=int(best[4]),
    )


def path_turn_costs(inputs: SearchInputs, edges: Int32Array) -> FloatArray:
    """Turn cost (seconds) paid on entering each edge of a path (0 for the first)."""
    if not inputs.turn_costs or edges.size < 2:
        return np.zeros(edges.size)
    out: FloatArray = _path_turns(
        np.ascontiguousarray(edges, dtype=np.int32), inputs.driving, inputs.drive_on_right,
        inputs.free_flowing, inputs.in_deg, inputs.out_deg, inputs.car_speed,
        inputs.turn_speed, inputs.edge_to,
    )  # fmt: skip
    return out
