"""Landmark distance tables for ALT lower bounds of point-to-point street searches.

Per street mode a *metric*: the graph of the edges the mode may possibly use (WALK:
walk permission; BICYCLE: bicycle or walk permission, as a cyclist walks the bike;
CAR: car permission and a car speed), taken *undirected*, with a per-edge value
(:func:`edge_metric`: the length for WALK, for BICYCLE too but a multiple of it where
the bike is walked, the time at the edge's car speed for CAR).  A few *landmarks*
(vertices far apart: each the vertex farthest from the ones before) and their shortest
distances to every vertex in it.  For vertices
``v`` and ``t`` the triangle inequality gives

    ``d(v, t) >= max_k |d_k(v) - d_k(t)|``,

and every path the mode may take from ``v`` to ``t`` is a path of the metric's graph.
A cost model whose every usable edge is in the graph and weighs at least ``r`` x its
metric value (:func:`min_ratio`; turn and elevator costs are >= 0) thus needs at least
``r * max_k |d_k(v) - d_k(t)|`` from ``v`` to ``t``: the bound is admissible, and for
WALK and BICYCLE consistent (it changes by at most ``r`` x the metric value along an edge;
CAR's tables carry half of each end's turn-cost floor on an edge, so there it is only
admissible, which the search allows: it reopens a state whose label improves): the A* of
:func:`otpa.street.edge_search.run_goal_search` uses it next to the straight-line
bound.  Tables are float32 (``inf``: not connected); ``eps`` covers their rounding.

The tables are computed once per graph and mode (:func:`graph_landmarks`, cached on
the graph: 17 runs of the package's compiled vertex Dijkstra, 0.2-0.4 s of CPU for
RNV's 45 k vertices, about linear in the graph's size), by the router in a background
thread started on first use (:func:`landmarks_if_ready`): searches before it is done
use the straight-line bound alone, with the same results.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from otpa.errors import InvalidArgumentError
from otpa.osm.model import BICYCLE, CAR, WALK
from otpa.street._search_kernel import (
    FREEWAY_SPEED_MPS,
    LEFT_TURN_S,
    RIGHT_TURN_S,
    STRAIGHT_S,
    vertex_dijkstra,
)
from otpa.street.graph import StreetGraph
from otpa.types import BoolArray, Float32Array, FloatArray, Int32Array, IntArray
from otpa.util.cache import OwnerCache

__all__ = [
    "CAR_TURN_WEIGHT",
    "DEFAULT_LANDMARKS",
    "WALKED_BIKE_METRIC_FACTOR",
    "Landmarks",
    "bound_ratio",
    "build_landmarks",
    "edge_metric",
    "graph_landmarks",
    "landmarks_if_ready",
    "min_ratio",
    "vertex_cost",
]

#: BICYCLE metric: an edge without bicycle permission (where the bike is walked) counts
#: this many times its length.  Walking a bike weighs ~12.7 x riding it per metre with
#: OTP's defaults (2.7 x walk reluctance at 0.8 x walk speed against 5 m/s); any factor
#: keeps the bound valid (:func:`min_ratio` takes the least weight per metric unit), a
#: smaller one keeps it as tight for faster cyclists or slower walking costs.
WALKED_BIKE_METRIC_FACTOR = 5.0
#: CAR metric: weight per second of free-flow time its turn costs are counted at (OTP's
#: default reluctance 2: a bound as strong as the weights' for default requests; a
#: request weighing time less gets its own, smaller factor, :func:`bound_ratio`).
CAR_TURN_WEIGHT = 2.0
#: Landmarks per graph (16 float32 distances: 64 bytes, one cache line per vertex).
DEFAULT_LANDMARKS = 16


@dataclass(frozen=True, eq=False)
class Landmarks:
    """Landmark vertices and their distance tables.

    Attributes
    ----------
    vertex
        The landmark vertices (``k``).
    distance
        ``(n_vertices, k)`` float32: the distance in the mode's metric from each
        landmark to each vertex (``inf``: not connected).
    eps
        Bound of the float32 rounding of a difference of two table entries.
    mode
        The mode whose metric it is.
    """

    vertex: Int32Array
    distance: Float32Array
    eps: float
    mode: str

    @property
    def count(self) -> int:
        """The number of landmarks."""
        return int(self.vertex.shape[0])

    def to_vertex(self, v: int) -> FloatArray:
        """The landmarks' distances to vertex ``v`` (float64)."""
        return np.asarray(self.distance[v], dtype=np.float64)

    def to_point(self, entries: list[tuple[int, float]]) -> FloatArray:
        """The landmarks' distances to a point reached from ``(vertex, metric)`` entries.

        A point inside an edge is entered from the start vertex of each usable
        direction of its edge, after that share of the direction's metric value.
        """
        out = np.full(self.count, np.inf)
        for v, extra in entries:
            np.minimum(out, self.to_vertex(v) + extra, out=out)
        return out

    def best_columns(self, sources: IntArray, goal: FloatArray, count: int) -> IntArray:
        """The ``count`` landmarks giving the largest bounds from ``sources`` to ``goal``."""
        if count >= self.count:
            return np.arange(self.count, dtype=np.int64)
        rows = np.asarray(self.distance[np.asarray(sources, dtype=np.int64)], dtype=np.float64)
        with np.errstate(invalid="ignore"):
            gap = np.abs(rows - goal[None, :])
        gap = np.where(np.isfinite(gap), gap, -1.0).max(axis=0) if rows.size else gap
        order = np.argsort(-gap, kind="stable")[:count]
        return np.sort(order).astype(np.int64)


def _mode_mask(graph: StreetGraph, mode: str) -> BoolArray:
    perm = np.asarray(graph.edge_perm)
    if mode == "WALK":
        out: BoolArray = (perm & WALK) != 0
    elif mode == "BICYCLE":
        out = (perm & (WALK | BICYCLE)) != 0
    elif mode == "CAR":
        out = ((perm & CAR) != 0) & (np.asarray(graph.edge_car_speed_mps) > 0)
    else:
        msg = f"unknown street mode {mode!r}; expected WALK, BICYCLE or CAR"
        raise InvalidArgumentError(msg)
    return out


def edge_metric(graph: StreetGraph, mode: str) -> FloatArray:
    """Per edge: its value in ``mode``'s metric (``inf``: not in the metric's graph).

    WALK: the length (m) of the edges with walk permission (the effective walk length,
    Tobler's, with elevation); BICYCLE: of the edges with bicycle permission (the
    slope-speed effective length with elevation), and ``WALKED_BIKE_METRIC_FACTOR`` x the
    (effective walk) length of those with walk permission only; CAR: length / car speed
    (s) of the edges with car permission and a car speed.
    """
    return _METRICS.get_or_build(graph, mode, lambda: _edge_metric(graph, mode))


def _edge_metric(graph: StreetGraph, mode: str) -> FloatArray:
    mask = _mode_mask(graph, mode)
    length = np.asarray(graph.edge_length_m, dtype=np.float64)
    if mode == "CAR":
        speed = np.asarray(graph.edge_car_speed_mps, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            value = np.where(mask, length / speed, np.inf)
    elif mode == "BICYCLE":
        ride = (np.asarray(graph.edge_perm) & BICYCLE) != 0
        ride_len = _elevated(graph.edge_slope_speed_effective_length_m, length)
        walk_len = _elevated(graph.edge_effective_walk_length_m, length)
        value = np.where(
            mask, np.where(ride, ride_len, walk_len * WALKED_BIKE_METRIC_FACTOR), np.inf
        )
    else:
        value = np.where(mask, _elevated(graph.edge_effective_walk_length_m, length), np.inf)
    out: FloatArray = np.ascontiguousarray(value)
    out.flags.writeable = False
    return out


def _elevated(values: FloatArray | None, length: FloatArray) -> FloatArray:
    """Per-edge lengths with the slopes (elevation) if the graph has them, else ``length``."""
    if values is None:
        return length
    return np.asarray(values, dtype=np.float64)


def vertex_cost(graph: StreetGraph, mode: str) -> FloatArray:
    """Per vertex: its value in ``mode``'s metric for passing through it.

    CAR (with turn costs): a driver pays OTP's turn cost at every vertex but a
    free-flowing one (one in-edge and one out-edge, as
    :mod:`otpa.routing._street_geometry` has it), at least ``STRAIGHT_S`` (5 s), unless
    two roads faster than ``FREEWAY_SPEED_MPS`` meet there; in the metric that is
    ``5 / CAR_TURN_WEIGHT``.  WALK and BICYCLE: 0 (a walker's turn may cost nothing).
    """
    return _VERTEX_COSTS.get_or_build(graph, mode, lambda: _vertex_cost(graph, mode))


def _vertex_cost(graph: StreetGraph, mode: str) -> FloatArray:
    n_v = graph.n_vertices
    if mode != "CAR":
        return np.zeros(n_v)
    in_indptr, out_indptr = np.asarray(graph.in_indptr), np.asarray(graph.out_indptr)
    free = (np.diff(in_indptr) == 1) & (np.diff(out_indptr) == 1)
    fast = np.asarray(graph.edge_car_speed_mps, dtype=np.float64) > FREEWAY_SPEED_MPS
    frm, to = np.asarray(graph.edge_from), np.asarray(graph.edge_to)
    fast_in = np.zeros(n_v, dtype=bool)
    fast_out = np.zeros(n_v, dtype=bool)
    fast_in[to[fast]] = True
    fast_out[frm[fast]] = True
    floor = min(RIGHT_TURN_S, LEFT_TURN_S, STRAIGHT_S) / CAR_TURN_WEIGHT
    out: FloatArray = np.where(free | (fast_in & fast_out), 0.0, floor)
    return out


def bound_ratio(graph: StreetGraph, mode: str, weight: FloatArray, *, turn_costs: bool) -> float:
    """The factor of a cost model's landmark bound: its least weight per metric unit.

    WALK and BICYCLE: :func:`min_ratio` of the weights over :func:`edge_metric`. CAR:
    the same over the edges' free-flow times, at most ``CAR_TURN_WEIGHT`` (the metric
    counts the least turn cost as ``1 / CAR_TURN_WEIGHT`` of it), and 0 (no bound)
    without turn costs.
    """
    ratio = min_ratio(weight, edge_metric(graph, mode))
    if mode == "CAR":
        return min(ratio, CAR_TURN_WEIGHT) if turn_costs else 0.0
    return ratio


def min_ratio(weight: FloatArray, metric: FloatArray) -> float:
    """The least ``weight / metric`` over usable edges; 0 when the bound does not hold.

    0 (no landmark bound) when an edge usable by the weights (finite) is not in the
    metric's graph.
    """
    usable = np.isfinite(weight)
    if bool((usable & ~np.isfinite(metric)).any()):
        return 0.0
    ok = usable & (metric > 0)
    if not ok.any():
        return 0.0
    return float((weight[ok] / metric[ok]).min())


def _undirected(graph: StreetGraph, metric: FloatArray) -> tuple[IntArray, Int32Array, FloatArray]:
    """CSR of the metric's graph with every edge both ways: ``indptr``, neighbour, value."""
    keep = np.isfinite(metric)
    frm = np.asarray(graph.edge_from, dtype=np.int64)[keep]
    to = np.asarray(graph.edge_to, dtype=np.int64)[keep]
    value = np.asarray(metric, dtype=np.float64)[keep]
    src = np.concatenate((frm, to))
    dst = np.concatenate((to, frm)).astype(np.int32)
    val = np.concatenate((value, value))
    order = np.argsort(src, kind="stable")
    indptr = np.zeros(graph.n_vertices + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=graph.n_vertices), out=indptr[1:])
    return indptr, np.ascontiguousarray(dst[order]), np.ascontiguousarray(val[order])


def build_landmarks(graph: StreetGraph, mode: str, count: int = DEFAULT_LANDMARKS) -> Landmarks:
    """Choose ``count`` landmarks far apart in ``mode``'s metric and compute their tables.

    The first landmark is the vertex farthest from the vertex nearest the centre of
    the largest component of the metric's graph (its bounding box); each next one the
    vertex farthest from all chosen (in that component; other components get no
    bounds: ``inf``).

    Parameters
    ----------
    graph
        The street graph.
    mode
        WALK, BICYCLE or CAR (:func:`edge_metric`).
    count
        Landmarks to choose (fewer if the graph has fewer vertices).

    Returns
    -------
    Landmarks
        The landmarks and their ``(n_vertices, count)`` float32 tables.
    """
    n_v = graph.n_vertices
    count = max(0, min(int(count), n_v))
    table = np.full((n_v, count), np.inf, dtype=np.float32)
    chosen = np.zeros(count, dtype=np.int32)
    if count == 0:
        return Landmarks(chosen, table, 0.0, mode)
    vc = vertex_cost(graph, mode)
    frm, to = np.asarray(graph.edge_from), np.asarray(graph.edge_to)
    table_value = edge_metric(graph, mode) + 0.5 * (vc[frm] + vc[to])
    indptr, nbr, length = _undirected(graph, table_value)
    no_adj = np.zeros(0, dtype=np.int32)
    perm = np.ones(length.shape[0], dtype=np.uint8)
    barrier = np.zeros(n_v, dtype=np.uint8)
    cost = np.full(n_v, np.inf)
    dist = np.full(n_v, np.inf)
    pred = np.full(n_v, -1, dtype=np.int32)
    touched = np.empty(n_v, dtype=np.int64)
    zero = np.zeros(1)

    def distances(v: int) -> FloatArray:
        cost.fill(np.inf)
        dist.fill(np.inf)
        vertex_dijkstra(
            indptr, no_adj, True, nbr, length, length, perm, 1, barrier,
            np.array([v], dtype=np.int64), zero, np.inf, -1, cost, dist, pred, touched,
        )  # fmt: skip
        return cost.copy()

    if indptr[-1] == 0:
        return Landmarks(chosen[:0], table[:, :0], 0.0, mode)
    # start in the largest component of the metric's graph, near its middle
    adj = csr_matrix((np.ones(nbr.shape[0], dtype=np.int8), nbr, indptr), shape=(n_v, n_v))
    _, comp = connected_components(adj, directed=False)
    has_edge = np.diff(indptr) > 0
    largest_comp = int(np.argmax(np.bincount(comp[has_edge])))
    inside = np.flatnonzero(has_edge & (comp == largest_comp))
    lat = np.asarray(graph.vertex_lat, dtype=np.float64)[inside]
    lon = np.asarray(graph.vertex_lon, dtype=np.float64)[inside]
    mid_lat = 0.5 * (float(lat.min()) + float(lat.max()))
    mid_lon = 0.5 * (float(lon.min()) + float(lon.max()))
    centre = int(inside[np.argmin((lat - mid_lat) ** 2 + (lon - mid_lon) ** 2)])
    d0 = distances(centre)
    nearest = np.where(np.isfinite(d0), d0, -1.0)
    largest = 0.0
    for k in range(count):
        v = int(np.argmax(nearest))
        d = distances(v)
        chosen[k] = v
        table[:, k] = d
        finite = np.isfinite(d)
        if finite.any():
            largest = max(largest, float(d[finite].max()))
        reach = np.where(finite, d, -1.0)
        nearest = reach if k == 0 else np.where(reach >= 0, np.minimum(nearest, reach), nearest)
    # float32 rounds each entry by at most half an ulp of the largest distance
    eps = 2.0 * float(np.spacing(np.float32(largest))) if largest > 0 else 0.0
    return Landmarks(chosen, table, eps, mode)


_METRICS: OwnerCache[str, FloatArray] = OwnerCache(max_entries=3)
_VERTEX_COSTS: OwnerCache[str, FloatArray] = OwnerCache(max_entries=3)
_LANDMARKS: OwnerCache[tuple[str, int], Landmarks] = OwnerCache(max_entries=3)
_STARTED: OwnerCache[tuple[str, int], threading.Thread] = OwnerCache(max_entries=3)
_BUILD_LOCK = threading.Lock()
_START_LOCK = threading.Lock()


def graph_landmarks(graph: StreetGraph, mode: str, count: int = DEFAULT_LANDMARKS) -> Landmarks:
    """The landmarks of ``graph`` in ``mode``'s metric (built once per graph, mode, count)."""
    with _BUILD_LOCK:  # one build at a time, even when requests arrive together
        return _LANDMARKS.get_or_build(
            graph, (mode, count), lambda: build_landmarks(graph, mode, count)
        )


def landmarks_if_ready(
    graph: StreetGraph, mode: str, count: int = DEFAULT_LANDMARKS
) -> Landmarks | None:
    """The landmarks of ``graph`` if built, else None after starting their build.

    The build (:func:`graph_landmarks`) runs in a daemon thread (the compiled Dijkstra
    releases the GIL), so the first searches on a graph do not wait for it: they use
    straight-line bounds only, which gives the same paths.
    """
    key = (mode, count)
    got = _LANDMARKS.get(graph, key)
    if got is not None:
        return got
    with _START_LOCK:
        if _STARTED.get(graph, key) is None:
            thread = threading.Thread(
                target=graph_landmarks, args=(graph, mode, count), daemon=True,
                name=f"otpa-landmarks-{mode}",
            )  # fmt: skip
            _STARTED.get_or_build(graph, key, lambda: thread)
            thread.start()
    return None
