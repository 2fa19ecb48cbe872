"""One-to-many street searches read at many snapped points (the analysis side of the router).

A *street tree* is one edge-labelled search from an origin (a snapped point or a
vertex).  :func:`tree_times` reads it at many points snapped with
:func:`otpa.routing._snap.snap_many` exactly as :func:`~otpa.routing.street_router.street_path`
scores a destination: the best (by weight) of entering the point's edge in either
direction from its start vertex (turn cost included) plus the travelled share of the
edge, with the time rounded up per edge as OTP 1.x does, or -- on the origin's own
edge -- the direct share between the two positions.  So a travel time read off a tree
equals the duration of the street path the planner would return.

Two ways to bound a tree (``cut``):

``"weight"``
    The planner's definition: a point's time is that of its lowest-*weight* path, and a
    limit ``max_time_s`` applies to that time afterwards.  Let ``rho`` be the largest
    weight per second of any usable edge (and 1 for turn costs, whose time is rounded
    up): a path within ``max_time_s`` weighs at most ``rho x max_time_s``, so the
    search stops there (:func:`weight_bound`).  Every label up to that weight is the
    unbounded search's.  An edge entered within the bound but not finished (a long
    edge) is not labelled by the search; :func:`tree_times` labels such an edge of a
    point from its searched predecessors, as the search would have.  A reading is then
    the lowest-weight path, or ``inf`` where that path weighs more than the bound (so
    it takes longer than ``max_time_s``).  Nothing depends on the points' edges.
``"time"``
    Paths whose time passes ``max_time_s`` are cut *during* the weight-ordered search,
    so the cut decides which paths compete: where the lowest-weight path takes longer,
    a heavier one within the limit may be read.  Points on an edge only partly within
    the limit need the whole edge labelled: callers add the longest edge time they care
    about.  (The stops' egress trees, :mod:`otpa.routing.vertex_trees`, are of this kind.)

Examples
--------
>>> tree = street_tree(network, snap, options, max_time_s=1800, cut="weight")  # doctest: +SKIP
>>> times = tree_times(tree, snaps)  # doctest: +SKIP
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, NamedTuple

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
from otpa.routing._street_costs import EdgeCosts, edge_costs
from otpa.routing._street_search import SearchInputs, banned, run_search, turn_cost
from otpa.routing._street_types import Snap, StreetOptions
from otpa.types import BoolArray, FloatArray, Int16Array, Int32Array, IntArray, UInt8Array
from otpa.util.cache import OwnerCache

if TYPE_CHECKING:
    from otpa.network import TransportNetwork

__all__ = ["StreetTree", "TreeReading", "street_tree", "tree_times", "weight_bound"]

#: Relative slack on :func:`weight_bound` (the sums of edge weights round differently
#: from their products; a larger bound only labels a little more).
_BOUND_SLACK = 1e-9
_RHO: OwnerCache[str, float] = OwnerCache(max_entries=2)


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
    #: ``cut="weight"``: the search's weight bound, inputs and seed states (what labelling
    #: an edge entered within the bound from its predecessors needs); None for ``"time"``
    bounded: _Bounded | None = None


@dataclass(frozen=True, eq=False)
class _Bounded:
    max_weight: float
    inputs: SearchInputs
    seed_edge: Int32Array
    seed_weight: FloatArray
    seed_time_s: FloatArray
    seed_distance_m: FloatArray


def weight_per_second(costs: EdgeCosts, turn_costs: bool) -> float:
    """The largest weight per second of travel on any usable edge (``inf``: unbounded).

    A share of an edge weighs the same share of its weight in at least as many (rounded
    up) seconds, and a turn cost adds itself to the weight and its ceiling to the time,
    so every path weighs at most this times its time (at least 1 with turn costs).
    """

    def compute() -> float:
        w = np.asarray(costs.weight, dtype=np.float64)
        t = np.asarray(costs.time_s, dtype=np.float64)
        used = np.isfinite(w) & (w > 0.0)
        if np.any(used & ~(t > 0.0)):
            return math.inf  # a weight without time: no bound by time
        return float(np.max(w[used] / t[used], initial=0.0))

    rho = _RHO.get_or_build(costs.weight, "rho", compute)
    return max(rho, 1.0) if turn_costs else rho


def weight_bound(costs: EdgeCosts, options: StreetOptions, max_time_s: float) -> float:
    """The weight no path within ``max_time_s`` exceeds (``inf``: none known)."""
    rho = weight_per_second(costs, bool(options.turn_costs))
    if not (math.isfinite(rho) and math.isfinite(max_time_s)):
        return math.inf
    return rho * float(max_time_s) * (1.0 + _BOUND_SLACK)


def street_tree(
    network: TransportNetwork,
    origin: Snap | int,
    options: StreetOptions,
    *,
    max_time_s: float,
    cut: Literal["time", "weight"] = "time",
) -> StreetTree:
    """Search the streets from ``origin`` for the points within ``max_time_s`` (edge labels kept).

    Parameters
    ----------
    network
        A network with streets.
    origin
        A snapped point or a street vertex.
    options
        Mode and cost model (as for planning).
    max_time_s
        The limit (see the module docstring for the two kinds of ``cut``).
    cut
        ``"weight"``: every point's lowest-weight path is read wherever it takes at
        most ``max_time_s`` (the planner's paths; the caller applies the limit to the
        times read).  ``"time"``: nothing farther than ``max_time_s`` is labelled, and
        points on an edge only partly within the limit need the whole edge labelled
        (callers add the longest edge time they care about).
    """
    graph = street_graph(network)
    costs = edge_costs(graph, options)
    inputs = search_inputs(graph, options, costs)
    start = resolve(graph, origin)
    seeds, skip = start_states(graph, costs, start, reverse=False)
    bounded = None
    if cut == "weight":
        max_w = weight_bound(costs, options, max_time_s)
        res = run_search(inputs, seeds, n_vertices=graph.n_vertices, max_weight=max_w,
                         vertex_labels=True)  # fmt: skip
        bounded = _Bounded(max_w, inputs, seeds.edge, seeds.weight, seeds.time_s,
                           seeds.distance_m)  # fmt: skip
    else:
        res = run_search(inputs, seeds, n_vertices=graph.n_vertices,
                         max_time_s=float(max_time_s), vertex_labels=True)  # fmt: skip
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
        bounded=bounded,
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


#: :func:`_read` without entered-edge labels (a tree cut by time)
_NO_ENTERED = np.empty((0, 2, 3))


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
    entered: FloatArray,
    max_w: float,
    out: FloatArray,
) -> None:
    """``out[i] = (weight, time, distance)`` of the best path to point ``i``.

    ``entered[i, side]``: the label of point ``i``'s edge on that side where the search
    left it unlabelled (a ``cut="weight"`` tree, :func:`_entered_points`; empty: none);
    readings above ``max_w`` are ``inf``.
    """
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
            else:
                lg, tg, dg = lab[g], tim[g], dis[g]
                if not math.isfinite(lg):
                    if entered.shape[0] == 0:
                        continue
                    lg, tg, dg = entered[i, side, 0], entered[i, side, 1], entered[i, side, 2]
                    if not math.isfinite(lg):
                        continue
                cw = lg - w[g] + f * w[g]
                ct = tg - tc[g] + math.ceil(f * t[g])
                cd = dg - length[g] + f * length[g]
            if cw <= max_w and cw < out[i, 0]:
                out[i, 0], out[i, 1], out[i, 2] = cw, ct, cd


@njit(cache=True, nogil=True)
def _entered(
    g: int,
    lab: FloatArray,
    tim: FloatArray,
    dis: FloatArray,
    w: FloatArray,
    tc: FloatArray,
    length: FloatArray,
    in_indptr: IntArray,
    in_edges: Int32Array,
    e_from: Int32Array,
    rev: Int32Array,
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
    seed_e: Int32Array,
    seed_w: FloatArray,
    seed_t: FloatArray,
    seed_d: FloatArray,
) -> tuple[float, float, float]:
    """The label edge ``g`` gets from its seeds and searched predecessors.

    What the search's relaxation gives ``g`` (seeds first, then each labelled edge into
    its start vertex, in the same arithmetic) without the weight bound on ``g`` itself.
    """
    bw = math.inf
    bt = math.inf
    bd = math.inf
    for k in range(seed_e.shape[0]):
        if seed_e[k] == g and seed_w[k] < bw:
            bw, bt, bd = seed_w[k], seed_t[k], seed_d[k]
    v = e_from[g]
    if blocked[v]:
        return bw, bt, bd
    wf = w[g]
    for k in range(in_indptr[v], in_indptr[v + 1]):
        e = in_edges[k]
        c = lab[e]
        if c == math.inf or g == rev[e]:
            continue
        if use_bans and banned(ban_indptr, ban_to, ban_modes, e, g, ban_bit[g]):
            continue
        turn = 0.0
        if turn_costs:
            turn = turn_cost(e, g, v, driving, drive_on_right, free_flowing, in_deg, out_deg,
                             car_speed, turn_speed)  # fmt: skip
        nc = c + wf + turn
        if nc < bw:
            bw = nc
            bt = tim[e] + tc[g] + math.ceil(turn)
            bd = dis[e] + length[g]
    return bw, bt, bd


@njit(cache=True, nogil=True, inline="always")
def _is_seed(seed_e: Int32Array, g: int) -> bool:
    """Whether ``g`` is one of the seed edges."""
    found = False
    for k in range(seed_e.shape[0]):
        found |= seed_e[k] == g
    return found


@njit(cache=True, nogil=True)
def _entered_points(
    lab: FloatArray,
    tim: FloatArray,
    dis: FloatArray,
    w: FloatArray,
    tc: FloatArray,
    length: FloatArray,
    rev: Int32Array,
    e_from: Int32Array,
    v_w: FloatArray,
    p_edge: Int32Array,
    in_indptr: IntArray,
    in_edges: Int32Array,
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
    seed_e: Int32Array,
    seed_w: FloatArray,
    seed_t: FloatArray,
    seed_d: FloatArray,
) -> FloatArray:
    """For :func:`_read` of a ``cut="weight"`` tree: each point's edge (both sides) that the
    search entered within its bound but did not label (its end lies past the bound),
    labelled from its predecessors (:func:`_entered`); ``inf`` elsewhere.

    ``v_w``: the tree's vertex weights.  A tree search (no target) settles every edge it
    labels, and settling an edge gives its end vertex a weight, so where the start vertex
    of ``g`` has none no edge into it is labelled: only a seed can label ``g`` there, and
    the loop over the vertex's incoming edges is skipped (most unlabelled edges lie past
    the bound; 0.57 -> 0.20 ms per Porto Alegre hexgrid reading).  Zeros skip nothing."""
    out = np.full((p_edge.shape[0], 2, 3), math.inf)
    for i in range(p_edge.shape[0]):
        g0 = p_edge[i]
        if g0 < 0:
            continue
        for side in range(2):
            g = g0 if side == 0 else rev[g0]
            if g < 0 or not math.isfinite(w[g]) or math.isfinite(lab[g]):
                continue
            if not math.isfinite(v_w[e_from[g]]) and not _is_seed(seed_e, g):
                continue  # nothing labels ``g``: it stays ``inf``
            out[i, side, 0], out[i, side, 1], out[i, side, 2] = _entered(
                g, lab, tim, dis, w, tc, length, in_indptr, in_edges, e_from, rev, ban_bit,
                ban_indptr, ban_to, ban_modes, use_bans, blocked, free_flowing, in_deg,
                out_deg, car_speed, turn_speed, driving, drive_on_right, turn_costs, seed_e,
                seed_w, seed_t, seed_d,
            )  # fmt: skip
    return out


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
    p_edge = np.ascontiguousarray(snaps.edge, dtype=np.int32)
    p_frac = np.ascontiguousarray(snaps.fraction, dtype=np.float64)
    b = tree.bounded
    if b is None:
        entered, max_w = _NO_ENTERED, math.inf
    else:
        s = b.inputs
        entered = _entered_points(
            tree.weight, tree.time_s, tree.distance_m, tree.edge_weight,
            tree.edge_time_ceil_s, tree.edge_length_m, tree.edge_reverse, tree.edge_from,
            tree.vertex_weight, p_edge, s.in_indptr, s.in_edges, s.ban_bit, s.ban_indptr,
            s.ban_to, s.ban_modes, s.use_bans, s.blocked, s.free_flowing, s.in_deg, s.out_deg,
            s.car_speed, s.turn_speed, s.driving, s.drive_on_right, s.turn_costs, b.seed_edge,
            b.seed_weight, b.seed_time_s, b.seed_distance_m,
        )  # fmt: skip
        max_w = float(b.max_weight)
    _read(
        tree.weight, tree.time_s, tree.distance_m, tree.edge_weight, tree.edge_time_s,
        tree.edge_time_ceil_s, tree.edge_length_m, tree.edge_reverse, tree.edge_from,
        tree.edge_to, tree.seed_edge, tree.seed_skip, tree.vertex_weight,
        tree.vertex_time_s, tree.vertex_distance_m, AT_VERTEX_M, p_edge, p_frac, entered,
        max_w, out,
    )  # fmt: skip
    return TreeReading(out[:, 1].copy(), out[:, 0].copy(), out[:, 2].copy())
