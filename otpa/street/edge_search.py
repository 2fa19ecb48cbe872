"""The edge-labelling street search with OTP 1.x turn handling (the router's searches).

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
already spent on it, e.g. the rest of a partially travelled first edge) or seed
vertices, and may end at *target edges* (entered from their start vertex; the
candidate adds the turn and a partial weight), at one target vertex, or run
one-to-many.  Backward searches (``reverse``) give the cost from every vertex *to*
the seeds.

The kernel is :func:`otpa.street._search_kernel.edge_search`, the one edge-labelling
Dijkstra of the package (:func:`otpa.street.one_to_many` uses it where turn bans
apply).  Time is OTP's: whole seconds, each traversal rounded up.

:func:`run_search` reuses label arrays (:mod:`otpa.street._label_pool`): a search
costs what it reaches, not the size of the graph.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from otpa.errors import InvalidArgumentError
from otpa.street._label_pool import LabelPool, scratch_indices
from otpa.street._search_kernel import (
    FREEWAY_SPEED_MPS,
    H_SAFETY,
    LEFT_TURN_S,
    NON_DRIVING_DEGREES,
    RIGHT_TURN_S,
    STRAIGHT_S,
    banned,
    edge_search,
    goal_search,
    path_turns,
    pred_chain,
    turn_cost,
)
from otpa.types import (
    BoolArray,
    Float32Array,
    FloatArray,
    Int16Array,
    Int32Array,
    IntArray,
    UInt8Array,
)

__all__ = [
    "FREEWAY_SPEED_MPS",
    "H_SAFETY",
    "LEFT_TURN_S",
    "NON_DRIVING_DEGREES",
    "RIGHT_TURN_S",
    "STRAIGHT_S",
    "LandmarkGoal",
    "SearchInputs",
    "SearchResult",
    "Seeds",
    "banned",
    "edge_search",
    "path_turn_costs",
    "release_free_labels",
    "run_goal_search",
    "run_search",
    "turn_cost",
]

_INF = np.inf
_NO_VERTICES = np.zeros(0, dtype=np.int64)
_NO_WEIGHTS = np.zeros(0, dtype=np.float64)
_NO_STATES = np.zeros(0, dtype=np.int32)
_NO_TABLE = np.zeros((0, 0), dtype=np.float32)
#: Landmark bounds weigh this share of the least weight per metre (float rounding of the
#: edge weights and lengths summed along a path).
LANDMARK_RATIO_SAFETY = 1.0 - 1e-7


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


#: No target edges (the kernels only read them).
_NO_TARGETS = Seeds.empty()


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
        if state < 0:
            return np.zeros(0, dtype=np.int32)
        out: Int32Array = pred_chain(self.pred, int(state))
        return out


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
    vertex_seeds: tuple[IntArray, FloatArray] | None = None,
    fresh: bool = False,
) -> SearchResult:
    """Run one search (see the module docstring).

    ``goal`` (lat, lon): where all targets are, for an A* search towards it.
    ``vertex_seeds`` (vertex ids, weights): seed vertices as well as ``seeds``,
    left over every usable edge at time and distance 0 (needs ``vertex_labels``).

    The result's label arrays come from a pool of clean arrays
    (:mod:`otpa.street._label_pool`), so a search costs what it reaches, not the
    graph's size; they stay the result's while anything refers to them.  The edge
    labels are read-only; a caller may set the vertex labels of the vertices the
    search labelled, of vertex seeds and of the vertices the seed edges leave
    (``reverse``: enter), e.g. the start vertex at 0, and nowhere else.  ``fresh``:
    label arrays of the result's own, free to change anywhere (the graph's size in
    time and memory).
    """
    if vertex_seeds is None:
        seed_v, seed_vw = _NO_VERTICES, _NO_WEIGHTS
    else:
        seed_v = np.ascontiguousarray(vertex_seeds[0], dtype=np.int64)
        seed_vw = np.ascontiguousarray(vertex_seeds[1], dtype=np.float64)
        if seed_v.size and not vertex_labels:
            msg = "vertex seeds need vertex_labels=True"
            raise InvalidArgumentError(msg)
    n_e = inputs.weight.shape[0]
    n_v = n_vertices if vertex_labels else 0
    lease_e = lease_v = None
    if fresh:
        lab = np.empty(n_e)  # filled by the kernel
        tim = np.empty(n_e)
        dist = np.empty(n_e)
        pred = np.empty(n_e, dtype=np.int32)
        cost_v = np.empty(n_v)
        time_v = np.empty(n_v)
        dist_v = np.empty(n_v)
        edge_v = np.empty(n_v, dtype=np.int32)
        touched_v = touched_e = _NO_VERTICES
    else:
        lease_e, (lab, tim, dist, pred) = _EDGE_LABELS.take(n_e)
        touched_e = scratch_indices(n_e, "edges")
        if n_v:
            lease_v, (cost_v, time_v, dist_v, edge_v) = _VERTEX_LABELS.take(n_v)
            touched_v = scratch_indices(n_v, "vertices")
        else:
            cost_v = time_v = dist_v = _NO_WEIGHTS
            edge_v = _NO_STATES
            touched_v = _NO_VERTICES
    best = np.array([_INF, _INF, _INF, -1.0, -1.0])
    if initial_best is not None:
        best[:3] = initial_best
    tg = targets if targets is not None else _NO_TARGETS
    h_lat, h_lon = goal if goal is not None else (0.0, 0.0)
    h_ratio = inputs.min_weight_per_m if goal is not None and not reverse else 0.0
    _, ntv, nte = edge_search(
        inputs.out_indptr, inputs.in_indptr, inputs.in_edges, inputs.edge_from, inputs.edge_to,
        inputs.edge_reverse, inputs.weight, inputs.time_ceil_s, inputs.length_m, inputs.ban_bit,
        inputs.ban_indptr, inputs.ban_to, inputs.ban_modes, inputs.use_bans, inputs.blocked,
        inputs.free_flowing, inputs.in_deg, inputs.out_deg, inputs.car_speed, inputs.turn_speed,
        inputs.driving, inputs.drive_on_right, inputs.turn_costs, reverse, seed_v, seed_vw,
        seeds.edge, seeds.weight, seeds.time_s, seeds.distance_m,
        int(target_vertex), tg.edge, tg.weight, tg.time_s, tg.distance_m,
        float(max_weight), float(max_time_s), float(max_distance_m),
        inputs.vertex_lat, inputs.vertex_lon, float(h_lat), float(h_lon), float(h_ratio), fresh,
        lab, tim, dist, pred, cost_v, time_v, dist_v, edge_v, best, touched_v, touched_e,
    )  # fmt: skip
    if lease_e is not None:
        lease_e.written(touched_e[:nte])
    if lease_v is not None and (seeds.edge.size or seed_v.size):
        # (without any seed, a caller's write could be anywhere: the lease stays
        # marked for a full reset)
        ends = inputs.edge_to if reverse else inputs.edge_from
        lease_v.written(touched_v[:ntv], ends[seeds.edge], seed_v)
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


@dataclass(frozen=True, eq=False)
class LandmarkGoal:
    """ALT lower bounds towards one goal (:mod:`otpa.street.landmarks`).

    ``table``: the ``(n_vertices, k)`` landmark distances of a metric; ``columns``:
    the landmarks used; ``goal``: every landmark's distance to the goal; ``eps``: the
    table's rounding bound; ``ratio``: at most every usable edge's weight per unit of
    the metric (:func:`otpa.street.landmarks.min_ratio`).
    """

    table: Float32Array
    columns: IntArray
    goal: FloatArray
    eps: float
    ratio: float


def run_goal_search(
    inputs: SearchInputs,
    seeds: Seeds,
    goal: tuple[float, float],
    *,
    target_vertex: int = -1,
    targets: Seeds | None = None,
    initial_best: tuple[float, float, float] | None = None,
    max_weight: float = _INF,
    landmarks: LandmarkGoal | None = None,
) -> SearchResult:
    """A forward A* to a target vertex or target edges all at ``goal`` (lat, lon).

    The path does not depend on the lower bound (canonical ties, see
    :func:`otpa.street._search_kernel.goal_search`): with or without ``landmarks``,
    the same states and weights.  Only the best target is meaningful in the result
    (no vertex labels; the best's time and distance may not be its path's: recompute
    them along :meth:`SearchResult.chain`).  Label arrays come from the pool as in
    :func:`run_search`.
    """
    n_e = inputs.weight.shape[0]
    lease_e, (lab, tim, dist, pred) = _EDGE_LABELS.take(n_e)
    touched_e = scratch_indices(n_e, "edges")
    best = np.array([_INF, _INF, _INF, -1.0, -1.0])
    if initial_best is not None:
        best[:3] = initial_best
    tg = targets if targets is not None else _NO_TARGETS
    ratio = inputs.min_weight_per_m
    if landmarks is None or not landmarks.ratio > 0.0:
        table, cols, goal_m, eps, lm_ratio = _NO_TABLE, _NO_VERTICES, _NO_WEIGHTS, 0.0, 0.0
    else:
        table, cols, goal_m = landmarks.table, landmarks.columns, landmarks.goal
        eps, lm_ratio = landmarks.eps, landmarks.ratio * LANDMARK_RATIO_SAFETY
    _, _, nte = goal_search(
        inputs.out_indptr, inputs.in_indptr, inputs.in_edges, inputs.edge_from, inputs.edge_to,
        inputs.edge_reverse, inputs.weight, inputs.time_ceil_s, inputs.length_m, inputs.ban_bit,
        inputs.ban_indptr, inputs.ban_to, inputs.ban_modes, inputs.use_bans, inputs.blocked,
        inputs.free_flowing, inputs.in_deg, inputs.out_deg, inputs.car_speed, inputs.turn_speed,
        inputs.driving, inputs.drive_on_right, inputs.turn_costs, _NO_VERTICES, _NO_WEIGHTS,
        seeds.edge, seeds.weight, seeds.time_s, seeds.distance_m,
        int(target_vertex), tg.edge, tg.weight, tg.time_s, tg.distance_m, float(max_weight),
        inputs.vertex_lat, inputs.vertex_lon, float(goal[0]), float(goal[1]), float(ratio),
        table, cols, goal_m, float(lm_ratio), float(eps), False,
        lab, tim, dist, pred, best, touched_e,
    )  # fmt: skip
    lease_e.written(touched_e[:nte])
    return SearchResult(
        label=lab,
        time_s=tim,
        distance_m=dist,
        pred=pred,
        cost_v=_NO_WEIGHTS,
        time_v=_NO_WEIGHTS,
        dist_v=_NO_WEIGHTS,
        edge_v=_NO_STATES,
        best_weight=float(best[0]),
        best_time_s=float(best[1]),
        best_distance_m=float(best[2]),
        best_state=int(best[3]),
        best_target=int(best[4]),
    )


#: Clean edge labels (weight, time, distance, predecessor) and vertex labels (weight,
#: time, distance, labelling state) for :func:`run_search`.
_EDGE_LABELS = LabelPool()
_VERTEX_LABELS = LabelPool()


def release_free_labels() -> int:
    """Let go of the pooled label arrays no search result refers to.

    The pools keep a few clean sets per graph size for the next searches; after a
    network is replaced (or an analysis is done) a server calls this so that a graph no
    longer served does not keep its sets (hundreds of MB at national size).  The next
    search allocates what it needs again.

    Returns
    -------
    int
        The number of label sets dropped.
    """
    return _EDGE_LABELS.drop_free() + _VERTEX_LABELS.drop_free()


def path_turn_costs(inputs: SearchInputs, edges: Int32Array) -> FloatArray:
    """Turn cost (seconds) paid on entering each edge of a path (0 for the first)."""
    if not inputs.turn_costs or edges.size < 2:
        return np.zeros(edges.size)
    out: FloatArray = path_turns(
        np.ascontiguousarray(edges, dtype=np.int32), inputs.driving, inputs.drive_on_right,
        inputs.free_flowing, inputs.in_deg, inputs.out_deg, inputs.car_speed,
        inputs.turn_speed, inputs.edge_to,
    )  # fmt: skip
    return out
