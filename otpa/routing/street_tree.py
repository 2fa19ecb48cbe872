"""One-to-many street searches read at many snapped points (the analysis side of the router).

A *street tree* is one edge-labelled search from an origin (a snapped point or a
vertex).  :func:`tree_times` reads it at many points snapped with
:func:`otpa.routing._snap.snap_many` exactly as :func:`~otpa.routing.street_router.street_path`
scores a destination: the best (by weight) of entering the point's edge in either
direction from its start vertex (turn cost included) plus the travelled share of the
edge, with the time rounded up per edge as OTP 1.x does, or -- on the origin's own
edge -- the direct share between the two positions.  So a travel time read off a tree
equals the duration of the street path the planner would return.

Examples
--------
>>> tree = street_tree(network, origin_snap, options, max_time_s=1800)  # doctest: +SKIP
>>> times = tree_times(tree, snaps)  # doctest: +SKIP
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from numba import njit

from otpa.routing._snap import SnapArrays
from otpa.routing._street_core import (
    AT_VERTEX_M,
    resolve,
    search_inputs,
    start_states,
    street_graph,
)
from otpa.routing._street_costs import edge_costs
from otpa.routing._street_search import run_search
from otpa.routing._street_types import Snap, StreetOptions
from otpa.types import FloatArray, Int32Array

if TYPE_CHECKING:
    from otpa.network import TransportNetwork

__all__ = ["StreetTree", "TreeReading", "street_tree", "tree_times"]


@dataclass(frozen=True, eq=False)
class StreetTree:
    """Edge labels of one street search and what reading them at points needs.

    Attributes
    ----------
    weight, time_s, distance_m
        Per directed edge: generalized cost, time (whole seconds per edge) and length of
        the best path that has traversed the edge (``inf`` where not reached).
    edge_weight, edge_time_s, edge_time_ceil_s, edge_length_m
        Full-edge costs of the mode (``inf`` where it may not use the edge) and lengths.
    edge_reverse
        The opposite direction of each edge (``-1``: none).
    seed_edge, seed_skip
        For a snapped origin: its edge directions and the share of each before the
        origin (paths on these edges start mid-edge).
    vertex_weight, vertex_time_s, vertex_distance_m
        Best arrival at each vertex (points snapped onto a vertex are read there).
    """

    weight: FloatArray
    time_s: FloatArray
    distance_m: FloatArray
    edge_weight: FloatArray
    edge_time_s: FloatArray
    edge_time_ceil_s: FloatArray
    edge_length_m: FloatArray
    edge_reverse: Int32Array
    edge_from: Int32Array
    edge_to: Int32Array
    seed_edge: Int32Array
    seed_skip: FloatArray
    vertex_weight: FloatArray
    vertex_time_s: FloatArray
    vertex_distance_m: FloatArray


def street_tree(
    network: TransportNetwork,
    origin: Snap | int,
    options: StreetOptions,
    *,
    max_time_s: float,
) -> StreetTree:
    """Search the streets from ``origin`` up to ``max_time_s`` (edge labels kept).

    Parameters
    ----------
    network
        A network with streets.
    origin
        A snapped point or a street vertex.
    options
        Mode and cost model (as for planning).
    max_time_s
        Nothing farther is labelled.  Points on an edge only partly within the limit
        need the whole edge labelled: callers add the longest edge time they care about.
    """
    graph = street_graph(network)
    costs = edge_costs(graph, options)
    inputs = search_inputs(graph, options, costs)
    start = resolve(graph, origin)
    seeds, skip = start_states(graph, costs, start, reverse=False)
    res = run_search(
        inputs,
        seeds,
        n_vertices=graph.n_vertices,
        max_time_s=float(max_time_s),
        vertex_labels=True,
    )
    if not isinstance(start, Snap):
        res.cost_v[start] = res.time_v[start] = res.dist_v[start] = 0.0
    return StreetTree(
        weight=_read_only(res.label),
        time_s=_read_only(res.time_s),
        distance_m=_read_only(res.distance_m),
        edge_weight=np.asarray(costs.weight, dtype=np.float64),
        edge_time_s=np.asarray(costs.time_s, dtype=np.float64),
        edge_time_ceil_s=np.asarray(costs.time_ceil_s, dtype=np.float64),
        edge_length_m=np.asarray(graph.edge_length_m, dtype=np.float64),
        edge_reverse=np.asarray(graph.edge_reverse, dtype=np.int32),
        edge_from=np.asarray(graph.edge_from, dtype=np.int32),
        edge_to=np.asarray(graph.edge_to, dtype=np.int32),
        seed_edge=np.fromiter(skip.keys(), dtype=np.int32, count=len(skip)),
        seed_skip=np.fromiter(skip.values(), dtype=np.float64, count=len(skip)),
        vertex_weight=_read_only(res.cost_v),
        vertex_time_s=_read_only(res.time_v),
        vertex_distance_m=_read_only(res.dist_v),
    )


def _read_only(labels: FloatArray) -> FloatArray:
    """A read-only view of a search's labels: they are pooled arrays
    (:func:`otpa.street.edge_search.run_search`), reused by later searches once the tree
    is gone, so a write by a tree's user must fail instead of corrupting those."""
    view = labels.view()
    view.flags.writeable = False
    return view


@njit(cache=True, nogil=True, inline="always")
def _seed_share(seed_edge: Int32Array, seed_skip: FloatArray, g: int) -> float:
    """Share of ``g`` before a snapped origin on it, or -1 when ``g`` is not a seed edge."""
    for k in range(seed_edge.shape[0]):
        if seed_edge[k] == g:
            return float(seed_skip[k])
    return -1.0


@njit(cache=True, nogil=True)
def _read(
    lab: FloatArray,
    tim: FloatArray,
    dis: FloatArray,
    w: FloatArray,
    t: FloatArray,
    tc: FloatArray,
    length: FloatArray,
    rev: Int32Array,
    e_from: Int32Array,
    e_to: Int32Array,
    seed_edge: Int32Array,
    seed_skip: FloatArray,
    v_w: FloatArray,
    v_t: FloatArray,
    v_d: FloatArray,
    at_vertex_m: float,
    p_edge: Int32Array,
    p_frac: FloatArray,
    out: FloatArray,
) -> None:
    """``out[i] = (weight, time, distance)`` of the best path to point ``i``."""
    for i in range(p_edge.shape[0]):
        out[i, 0] = out[i, 1] = out[i, 2] = math.inf
        g0 = p_edge[i]
        if g0 < 0:
            continue
        # a point on an end of its edge is that vertex (as the planner has it)
        v = -1
        if p_frac[i] * length[g0] <= at_vertex_m:
            v = e_from[g0]
        elif (1.0 - p_frac[i]) * length[g0] <= at_vertex_m:
            v = e_to[g0]
        if v >= 0:
            out[i, 0], out[i, 1], out[i, 2] = v_w[v], v_t[v], v_d[v]
            continue
        for side in range(2):
            g = g0 if side == 0 else rev[g0]
            if g < 0 or not math.isfinite(w[g]):
                continue
            f = min(max(p_frac[i] if side == 0 else 1.0 - p_frac[i], 0.0), 1.0)
            a = _seed_share(seed_edge, seed_skip, g)
            if a >= 0.0:
                # the origin's own edge: only forward from the origin along it
                if f < a:
                    continue
                cw, ct, cd = (f - a) * w[g], math.ceil((f - a) * t[g]), (f - a) * length[g]
            elif math.isfinite(lab[g]):
                cw = lab[g] - w[g] + f * w[g]
                ct = tim[g] - tc[g] + math.ceil(f * t[g])
                cd = dis[g] - length[g] + f * length[g]
            else:
                continue
            if cw < out[i, 0]:
                out[i, 0], out[i, 1], out[i, 2] = cw, ct, cd


class TreeReading(NamedTuple):
    """Best street path from a tree's origin to each point (``inf``: not reached)."""

    time_s: FloatArray
    weight: FloatArray
    distance_m: FloatArray


def tree_times(tree: StreetTree, snaps: SnapArrays) -> TreeReading:
    """Time, weight and length of the best street path from the tree's origin to each point.

    Parameters
    ----------
    tree
        A search from :func:`street_tree`.
    snaps
        Points snapped with the same mode (``edge == -1``: not linked, ``inf``).

    Returns
    -------
    TreeReading
        Per point.
    """
    out = np.empty((snaps.edge.shape[0], 3))
    _read(
        tree.weight, tree.time_s, tree.distance_m, tree.edge_weight, tree.edge_time_s,
        tree.edge_time_ceil_s, tree.edge_length_m, tree.edge_reverse, tree.edge_from,
        tree.edge_to, tree.seed_edge, tree.seed_skip, tree.vertex_weight, tree.vertex_time_s,
        tree.vertex_distance_m, AT_VERTEX_M, np.ascontiguousarray(snaps.edge, dtype=np.int32),
        np.ascontiguousarray(snaps.fraction, dtype=np.float64), out,
    )  # fmt: skip
    return TreeReading(out[:, 1].copy(), out[:, 0].copy(), out[:, 2].copy())
