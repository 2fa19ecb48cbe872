"""Street searches: one-to-many Dijkstra and point-to-point shortest paths.

The cost of an edge is a time in seconds, precomputed per call in numpy by
:func:`edge_costs` (or given directly as ``edge_cost_s``), so walking, cycling
and driving share one numba kernel; the kernel only checks the mode's
permission bit, barriers and turn bans.

When the graph has a turn ban for the searched mode (and ``turn_restrictions``
is on), the search labels *edges* (the one edge-labelling search of
:mod:`otpa.street.edge_search`, without U-turn bans and turn costs) so banned
``(incoming, outgoing)`` pairs are refused exactly; otherwise it labels vertices,
which is about twice as fast.  Both give the same costs on a graph
without bans.  U-turns are allowed at every vertex unless a restriction bans them.
"""

from __future__ import annotations

from typing import Any, NamedTuple, TypeAlias

import numpy as np
import numpy.typing as npt

from otpa.errors import InvalidArgumentError, UnknownIdError
from otpa.osm.model import BICYCLE, CAR, WALK
from otpa.street._search_kernel import vertex_dijkstra
from otpa.street.edge_search import SearchInputs, Seeds, run_search
from otpa.street.graph import StreetGraph
from otpa.types import FloatArray, Int32Array, IntArray

__all__ = [
    "BIKE_SPEED_MPS",
    "WALK_SPEED_MPS",
    "StreetMode",
    "StreetSearchResult",
    "edge_costs",
    "mode_bit",
    "one_to_many",
    "shortest_path",
]

#: OTP 1.x default walk speed.
WALK_SPEED_MPS = 1.33
#: OTP 1.x default bike speed.
BIKE_SPEED_MPS = 5.0

#: A street mode: a permission bit (``WALK``, ``BICYCLE``, ``CAR`` of
#: :mod:`otpa.osm.model`, or 1, 2, 4) or a name ("WALK", "BICYCLE"/"BIKE", "CAR").
StreetMode: TypeAlias = int | np.integer[Any] | str

_WALK = int(WALK)
_MODE_NAMES = {"WALK": int(WALK), "BICYCLE": int(BICYCLE), "BIKE": int(BICYCLE), "CAR": int(CAR)}


class StreetSearchResult(NamedTuple):
    """Per-vertex result of :func:`one_to_many`.

    Attributes
    ----------
    cost_s
        Best cost (seconds) from the origins (to the origins when searching in
        reverse); ``inf`` where not reached within the limit.
    distance_m
        Length of that best path; ``inf`` where not reached.
    pred_edge
        Last edge of that path (forward) or first edge (reverse); ``-1`` at the
        origins and where not reached.  Without turn bans for the mode these
        edges form a tree; with bans use :func:`shortest_path` for paths.
    """

    cost_s: FloatArray
    distance_m: FloatArray
    pred_edge: Int32Array


def mode_bit(mode: StreetMode) -> int:
    """The permission bit of a mode given as a bit (1, 2, 4) or a name.

    Examples
    --------
    >>> mode_bit("CAR"), mode_bit(1)
    (4, 1)
    """
    if isinstance(mode, str):
        try:
            return _MODE_NAMES[mode.upper()]
        except KeyError:
            msg = f"unknown street mode {mode!r}; expected WALK, BICYCLE or CAR"
            raise InvalidArgumentError(msg) from None
    bit = int(mode)
    if bit not in (1, 2, 4):
        msg = f"street mode must be one permission bit (1, 2 or 4), got {mode!r}"
        raise InvalidArgumentError(msg)
    return bit


def edge_costs(
    graph: StreetGraph,
    mode: StreetMode,
    *,
    speed_mps: float | None = None,
    reluctance: float = 1.0,
    use_bike_safety: bool = False,
) -> FloatArray:
    """Traversal time in seconds of every edge for ``mode`` (``inf`` where forbidden).

    Parameters
    ----------
    graph
        The street graph.
    mode
        WALK, BICYCLE or CAR (bit or name).
    speed_mps
        Walking or cycling speed (defaults 1.33 and 5.0 m/s); for CAR a cap on
        the edges' car speed (default none).
    reluctance
        Multiplier on every edge cost (OTP's walk/bike reluctance).
    use_bike_safety
        For BICYCLE, multiply by the edge's bike safety factor (OTP's SAFE).
    """
    bit = mode_bit(mode)
    length = np.asarray(graph.edge_length_m, dtype=np.float64)
    if bit == int(CAR):
        speed = graph.edge_car_speed_mps.astype(np.float64)
        if speed_mps is not None:
            speed = np.minimum(speed, float(speed_mps))
        with np.errstate(divide="ignore", invalid="ignore"):
            cost = np.where(speed > 0, length / speed, np.inf)
    else:
        default = WALK_SPEED_MPS if bit == int(WALK) else BIKE_SPEED_MPS
        speed_f = default if speed_mps is None else float(speed_mps)
        if not speed_f > 0:
            msg = f"speed_mps must be positive, got {speed_mps!r}"
            raise InvalidArgumentError(msg)
        cost = length / speed_f
        if bit == int(BICYCLE) and use_bike_safety:
            cost = cost * graph.edge_bike_safety
    if reluctance != 1.0:
        cost = cost * float(reluctance)
    cost = np.where((graph.edge_perm & np.uint8(bit)) != 0, cost, np.inf)
    return np.ascontiguousarray(cost, dtype=np.float64)


def _vertices(graph: StreetGraph, vertices: npt.ArrayLike) -> IntArray:
    arr = np.atleast_1d(np.asarray(vertices)).astype(np.int64, copy=False)
    if arr.ndim != 1:
        msg = "origin vertices must be a 1-d array"
        raise InvalidArgumentError(msg)
    if arr.size and (arr.min() < 0 or arr.max() >= graph.n_vertices):
        msg = f"vertex id out of range [0, {graph.n_vertices})"
        raise UnknownIdError(msg)
    return arr


def _use_edge_kernel(
    graph: StreetGraph, bit: int, turn_restrictions: bool, edge_based: bool | None
) -> bool:
    if edge_based is not None:
        return edge_based
    return turn_restrictions and graph.has_turn_bans(bit)


def _checked_costs(graph: StreetGraph, edge_cost_s: npt.ArrayLike) -> FloatArray:
    cost = np.ascontiguousarray(edge_cost_s, dtype=np.float64)
    if cost.shape != (graph.n_edges,):
        msg = f"edge_cost_s must have {graph.n_edges} entries, got shape {cost.shape}"
        raise InvalidArgumentError(msg)
    if np.any(cost < 0) or np.any(np.isnan(cost)):
        msg = "edge costs must be non-negative"
        raise InvalidArgumentError(msg)
    return cost


class _Run(NamedTuple):
    cost_v: FloatArray
    dist_v: FloatArray
    pred_v: Int32Array
    pred_e: Int32Array | None


def _edge_inputs(graph: StreetGraph, cost: FloatArray, bit: int, bans: bool) -> SearchInputs:
    """Inputs of the edge-labelling search for a plain search: U-turns allowed, no turn costs."""
    n_e = graph.n_edges
    m = np.uint8(bit)
    no_f = np.zeros(0, dtype=np.float64)
    no_deg = np.zeros(0, dtype=np.int16)
    return SearchInputs(
        out_indptr=graph.out_indptr,
        in_indptr=graph.in_indptr,
        in_edges=graph.in_edges,
        edge_from=graph.edge_from,
        edge_to=graph.edge_to,
        edge_reverse=np.full(n_e, -1, dtype=np.int32),
        weight=np.where((graph.edge_perm & m) != 0, cost, np.inf),
        time_ceil_s=cost,
        length_m=graph.edge_length_m,
        ban_bit=np.full(n_e, m, dtype=np.uint8),
        ban_indptr=graph.ban_indptr,
        ban_to=graph.ban_to,
        ban_modes=graph.ban_modes,
        use_bans=bans,
        blocked=(graph.vertex_barrier & m) != 0,
        free_flowing=np.zeros(0, dtype=np.bool_),
        in_deg=no_deg,
        out_deg=no_deg,
        car_speed=no_f,
        turn_speed=no_f,
        driving=False,
        drive_on_right=True,
        turn_costs=False,
        vertex_lat=no_f,
        vertex_lon=no_f,
        min_weight_per_m=0.0,
    )


def _run(
    graph: StreetGraph,
    seeds: IntArray,
    seed_costs: FloatArray,
    cost: FloatArray,
    bit: int,
    max_cost: float,
    *,
    reverse: bool,
    edge_kernel: bool,
    target: int,
    bans: bool = True,
) -> _Run:
    if edge_kernel:
        res = run_search(
            _edge_inputs(graph, cost, bit, bans),
            Seeds.empty(),
            n_vertices=graph.n_vertices,
            reverse=reverse,
            target_vertex=target,
            max_weight=max_cost,
            vertex_labels=True,
            vertex_seeds=(seeds, seed_costs),
            fresh=True,  # the caller's to keep and change
        )
        return _Run(res.cost_v, res.dist_v, res.edge_v, res.pred)
    n_v = graph.n_vertices
    cost_v = np.full(n_v, np.inf)
    dist_v = np.full(n_v, np.inf)
    pred_v = np.full(n_v, -1, dtype=np.int32)
    touched_v = np.empty(n_v, dtype=np.int64)
    if reverse:
        indptr, adj, direct, nbr = graph.in_indptr, graph.in_edges, False, graph.edge_from
    else:
        indptr, adj, direct = graph.out_indptr, np.empty(0, np.int32), True
        nbr = graph.edge_to
    vertex_dijkstra(indptr, adj, direct, nbr, cost, graph.edge_length_m, graph.edge_perm, bit,
                    graph.vertex_barrier, seeds, seed_costs, max_cost, target,
                    cost_v, dist_v, pred_v, touched_v)  # fmt: skip
    return _Run(cost_v, dist_v, pred_v, None)


def one_to_many(
    graph: StreetGraph,
    origin_vertices: npt.ArrayLike,
    origin_costs_s: npt.ArrayLike | None = None,
    *,
    mode: StreetMode = _WALK,
    speed_mps: float | None = None,
    max_cost_s: float = np.inf,
    reverse: bool = False,
    reluctance: float = 1.0,
    edge_cost_s: npt.ArrayLike | None = None,
    turn_restrictions: bool = True,
    edge_based: bool | None = None,
) -> StreetSearchResult:
    """Best cost from a set of origins to every vertex (Dijkstra).

    Parameters
    ----------
    graph
        The street graph.
    origin_vertices
        Vertex ids the search starts from (several make a multi-source search).
    origin_costs_s
        Initial cost of each origin (default 0).
    mode
        WALK, BICYCLE or CAR: the permission bit edges must allow, the barrier
        and turn-ban bit, and the cost model of :func:`edge_costs`.
    speed_mps, reluctance
        Passed to :func:`edge_costs` (ignored when ``edge_cost_s`` is given).
    max_cost_s
        Stop the search at this cost; vertices beyond it stay ``inf``.
    reverse
        Arrive-by search: cost from every vertex *to* the origins, over edges in
        their travel direction.
    edge_cost_s
        Precomputed non-negative cost of every edge (overrides the cost model).
    turn_restrictions
        Honour the banned edge pairs of the mode.
    edge_based
        Force the edge-labelling (True) or vertex-labelling (False) kernel; by
        default the edge kernel is used only when a ban applies to the mode.
    """
    bit = mode_bit(mode)
    seeds = _vertices(graph, origin_vertices)
    if origin_costs_s is None:
        seed_costs = np.zeros(seeds.size, dtype=np.float64)
    else:
        seed_costs = np.atleast_1d(np.asarray(origin_costs_s, dtype=np.float64))
        if seed_costs.shape != seeds.shape:
            msg = "origin_costs_s must have one entry per origin vertex"
            raise InvalidArgumentError(msg)
    if edge_cost_s is None:
        cost = edge_costs(graph, bit, speed_mps=speed_mps, reluctance=reluctance)
    else:
        cost = _checked_costs(graph, edge_cost_s)
    use_edges = _use_edge_kernel(graph, bit, turn_restrictions, edge_based)
    run = _run(graph, seeds, seed_costs, cost, bit, float(max_cost_s), reverse=reverse,
               edge_kernel=use_edges, target=-1, bans=turn_restrictions)  # fmt: skip
    return StreetSearchResult(run.cost_v, run.dist_v, run.pred_v)


def shortest_path(
    graph: StreetGraph,
    origin: int,
    destination: int,
    *,
    mode: StreetMode = _WALK,
    speed_mps: float | None = None,
    reluctance: float = 1.0,
    edge_cost_s: npt.ArrayLike | None = None,
    turn_restrictions: bool = True,
    max_cost_s: float = np.inf,
) -> list[int] | None:
    """Edge ids of a least-cost path from ``origin`` to ``destination``.

    Returns ``[]`` when both are the same vertex and ``None`` when the
    destination cannot be reached (within ``max_cost_s``).  Parameters are as
    for :func:`one_to_many`.
    """
    bit = mode_bit(mode)
    seeds = _vertices(graph, [origin])
    dest = int(_vertices(graph, [destination])[0])
    if int(seeds[0]) == dest:
        return []
    if edge_cost_s is None:
        cost = edge_costs(graph, bit, speed_mps=speed_mps, reluctance=reluctance)
    else:
        cost = _checked_costs(graph, edge_cost_s)
    use_edges = _use_edge_kernel(graph, bit, turn_restrictions, None)
    run = _run(graph, seeds, np.zeros(1), cost, bit, float(max_cost_s), reverse=False,
               edge_kernel=use_edges, target=dest, bans=turn_restrictions)  # fmt: skip
    e = int(run.pred_v[dest])
    if e < 0:
        return None
    path = [e]
    if run.pred_e is not None:
        pred_e = run.pred_e
        e = int(pred_e[e])
        while e >= 0:
            path.append(e)
            e = int(pred_e[e])
    else:
        e = int(run.pred_v[graph.edge_from[e]])
        while e >= 0:
            path.append(e)
            e = int(run.pred_v[graph.edge_from[e]])
    path.reverse()
    return path
