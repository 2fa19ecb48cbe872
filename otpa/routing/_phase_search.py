"""Multi-phase street searches: the state machine of renting, parking and dropping off.

A trip that changes vehicle on the street (walk -> rented bike -> walk, drive ->
park -> walk) is a sequence of *phases*, each an ordinary one-to-many run of the
edge-labelling street search (:func:`otpa.routing._street_search.run_search`) in
one mode.  A phase is seeded from the vertices where the previous one may end
(rental stations with a bike, docks, parking lots, any vertex for a free drop-off)
with the weight and time the previous phase reached them with, plus the cost and
time of the switch.  The phases' vertex labels are therefore the labels of a
search over the product graph (vertex x phase) whose only cross-phase edges are
the switches: the result is optimal for the state machine, at the cost of one
linear search per phase.

Backward phases (``reverse``) chain the same way from the destination: the
labels are costs *to* it.

Each phase measures its own distance (seeds start at 0 m): distance limits are per
phase (the walk limit of a walking phase), time limits on the total.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from otpa.routing._street_core import resolve, search_inputs, start_states
from otpa.routing._street_costs import EdgeCosts, edge_costs
from otpa.routing._street_search import SearchInputs, SearchResult, Seeds, run_search
from otpa.routing._street_types import Snap, StreetOptions
from otpa.street import StreetGraph
from otpa.types import BoolArray, FloatArray, IntArray

__all__ = ["Phase", "phase_from_end", "phase_from_vertices", "vertex_seeds"]


@dataclass(frozen=True, eq=False)
class Phase:
    """The labels of one phase, per street vertex (``inf``: not reached).

    Attributes
    ----------
    cost, time_s, distance_m
        Weight and time since the trip's start (or, ``reverse``, to its end) and
        the distance of this phase alone.
    source
        The seed vertex each label came from (-1: the trip's own end, or none).
    """

    graph: StreetGraph
    options: StreetOptions
    costs: EdgeCosts
    inputs: SearchInputs
    result: SearchResult
    reverse: bool
    cost: FloatArray
    time_s: FloatArray
    distance_m: FloatArray
    is_seed: BoolArray
    at_seed: BoolArray
    #: first phase from a snapped point: the share of each seed edge before the point
    skip: dict[int, float] = field(default_factory=dict)
    #: first phase: the trip end it started from (None: seeded at switch vertices)
    start: Snap | int | None = None

    def source(self, vertex: int) -> int:
        """The seed vertex of the label of ``vertex`` (-1 when it started at the trip end)."""
        v = int(vertex)
        if self.at_seed[v]:
            return v
        state = int(self.result.edge_v[v])
        if state < 0:
            return -1
        first = int(self.result.chain(state)[0])
        at = int(self.graph.edge_to[first] if self.reverse else self.graph.edge_from[first])
        return at if self.is_seed[at] else -1

    def path_edges(self, vertex: int) -> np.ndarray:
        """The edges of the label of ``vertex`` in travel order (empty at its seed)."""
        v = int(vertex)
        state = int(self.result.edge_v[v])
        if self.at_seed[v] or state < 0:
            return np.zeros(0, dtype=np.int32)
        edges = self.result.chain(state)
        return edges[::-1].copy() if self.reverse else edges


def vertex_seeds(
    graph: StreetGraph,
    costs: EdgeCosts,
    vertices: IntArray,
    weight: FloatArray,
    time_s: FloatArray,
    *,
    reverse: bool,
) -> Seeds:
    """States leaving (``reverse``: entering) ``vertices`` with the given weight and time.

    Each usable edge of a vertex becomes a state that includes its own traversal,
    as the seeds of a search from a vertex do; distances start at 0.
    """
    v = np.asarray(vertices, dtype=np.int64)
    ok = np.isfinite(weight) & np.isfinite(time_s) & (v >= 0)
    v, w, t = v[ok], np.asarray(weight)[ok], np.asarray(time_s)[ok]
    indptr = np.asarray(graph.in_indptr if reverse else graph.out_indptr, dtype=np.int64)
    lo, hi = indptr[v], indptr[v + 1]
    counts = hi - lo
    total = int(counts.sum())
    if total == 0:
        return Seeds.empty()
    owner = np.repeat(np.arange(v.size), counts)
    starts = np.repeat(lo - np.concatenate(([0], np.cumsum(counts)[:-1])), counts)
    pos = starts + np.arange(total)
    edges = np.asarray(graph.in_edges)[pos] if reverse else pos
    edges = edges.astype(np.int32)
    usable = np.isfinite(costs.weight[edges])
    edges, owner = edges[usable], owner[usable]
    return Seeds(
        edges,
        w[owner] + costs.weight[edges],
        t[owner] + costs.time_ceil_s[edges],
        np.asarray(graph.edge_length_m, dtype=np.float64)[edges],
    )


def _run(
    graph: StreetGraph,
    options: StreetOptions,
    seeds: Seeds,
    *,
    reverse: bool,
    max_time_s: float,
    max_distance_m: float,
    max_weight: float,
    no_ride: BoolArray | None,
    costs: EdgeCosts | None,
    targets: Seeds | None = None,
    goal: tuple[float, float] | None = None,
) -> tuple[EdgeCosts, SearchInputs, SearchResult]:
    costs = edge_costs(graph, options) if costs is None else costs
    inputs = search_inputs(graph, options, costs)
    if no_ride is not None and no_ride.any():
        # geofencing: the phase's vehicle may not enter these edges
        inputs = replace(inputs, weight=np.where(no_ride, np.inf, inputs.weight))
        keep = np.isfinite(inputs.weight[seeds.edge])
        seeds = Seeds(
            seeds.edge[keep], seeds.weight[keep], seeds.time_s[keep], seeds.distance_m[keep]
        )
    res = run_search(
        inputs,
        seeds,
        n_vertices=graph.n_vertices,
        reverse=reverse,
        max_time_s=max_time_s,
        max_distance_m=max_distance_m,
        max_weight=max_weight,
        vertex_labels=True,
        targets=targets,
        goal=goal,
    )
    return costs, inputs, res


def phase_from_end(
    graph: StreetGraph,
    where: Snap | int,
    options: StreetOptions,
    *,
    reverse: bool,
    max_time_s: float = math.inf,
    max_distance_m: float = math.inf,
    costs: EdgeCosts | None = None,
) -> Phase:
    """The first phase: from a trip's origin (``reverse``: to its destination).

    ``costs``: edge costs other than ``options``' (micromobility).
    """
    start = resolve(graph, where)
    costs = edge_costs(graph, options) if costs is None else costs
    seeds, skip = start_states(graph, costs, start, reverse=reverse)
    costs, inputs, res = _run(
        graph,
        options,
        seeds,
        reverse=reverse,
        max_time_s=max_time_s,
        max_distance_m=max_distance_m,
        max_weight=math.inf,
        no_ride=None,
        costs=costs,
    )
    # the start vertex is the one the seed edges leave (enter): run_search lets it be set
    cost, time, dist = res.cost_v, res.time_v, res.dist_v
    if not isinstance(start, Snap):
        cost[start] = time[start] = dist[start] = 0.0
    is_seed = np.zeros(graph.n_vertices, dtype=bool)
    at_seed = np.zeros(graph.n_vertices, dtype=bool)
    if not isinstance(start, Snap):
        at_seed[start] = True
    return Phase(
        graph, options, costs, inputs, res, reverse, cost, time, dist, is_seed, at_seed, skip,
        start,
    )  # fmt: skip


def phase_from_vertices(
    graph: StreetGraph,
    options: StreetOptions,
    vertices: IntArray,
    weight: FloatArray,
    time_s: FloatArray,
    *,
    reverse: bool,
    max_time_s: float = math.inf,
    max_distance_m: float = math.inf,
    max_weight: float = math.inf,
    no_ride: BoolArray | None = None,
    costs: EdgeCosts | None = None,
    targets: Seeds | None = None,
    goal: tuple[float, float] | None = None,
) -> Phase:
    """A later phase, seeded at ``vertices`` with the weight and time reached there.

    ``no_ride``: edges this phase's vehicle may not use (geofencing); ``costs``: edge
    costs other than ``options``' (micromobility).  ``targets`` (edges entered from their
    start vertex, with the rest of the trip's weight) and ``goal`` (where they all lead,
    for an A* bound) stop the phase at the best target (``result.best_target``).
    """
    costs = edge_costs(graph, options) if costs is None else costs
    seeds = vertex_seeds(graph, costs, vertices, weight, time_s, reverse=reverse)
    costs, inputs, res = _run(
        graph,
        options,
        seeds,
        reverse=reverse,
        max_time_s=max_time_s,
        max_distance_m=max_distance_m,
        max_weight=max_weight,
        no_ride=no_ride,
        costs=costs,
        targets=targets,
        goal=goal,
    )
    # copies: a switch vertex without a usable edge is no seed of the search, and
    # run_search's labels may only be set where it searched
    cost, time, dist = res.cost_v.copy(), res.time_v.copy(), res.dist_v.copy()
    v = np.asarray(vertices, dtype=np.int64)
    w = np.asarray(weight, dtype=np.float64)
    t = np.asarray(time_s, dtype=np.float64)
    ok = (v >= 0) & np.isfinite(w)
    v, w, t = v[ok], w[ok], t[ok]
    order = np.argsort(w, kind="stable")
    v, w, t = v[order], w[order], t[order]
    v, first = np.unique(v, return_index=True)  # the cheapest seed of each vertex
    w, t = w[first], t[first]
    is_seed = np.zeros(graph.n_vertices, dtype=bool)
    is_seed[v] = True
    # the switch vertex itself, reached without moving
    better = w < cost[v]
    at_seed = np.zeros(graph.n_vertices, dtype=bool)
    vb = v[better]
    at_seed[vb] = True
    cost[vb], time[vb], dist[vb] = w[better], t[better], 0.0
    return Phase(graph, options, costs, inputs, res, reverse, cost, time, dist, is_seed, at_seed)
