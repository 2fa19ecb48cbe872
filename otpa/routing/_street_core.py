"""Shared pieces of the street router: search inputs, seeds, snapped ends, path assembly.

Used by :mod:`otpa.routing.street_router` (point-to-point paths) and
:mod:`otpa.routing._street_access` (one-to-many access and egress searches).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from otpa.errors import InvalidArgumentError
from otpa.routing._path_kernel import assemble_path
from otpa.routing._street_costs import EdgeCosts, weight_of
from otpa.routing._street_geometry import graph_geometry
from otpa.routing._street_search import SearchInputs, Seeds, path_turn_costs
from otpa.routing._street_types import Snap, StreetOptions, StreetPath
from otpa.street import StreetGraph
from otpa.types import FloatArray, Int32Array
from otpa.util.cache import OwnerCache

if TYPE_CHECKING:
    from otpa.network import TransportNetwork

__all__ = [
    "AT_VERTEX_M",
    "assemble",
    "check_snap",
    "partial",
    "resolve",
    "search_inputs",
    "snap_directions",
    "start_states",
    "street_graph",
    "vertex",
]


def street_graph(network: TransportNetwork) -> StreetGraph:
    graph = network.street
    if graph is None:
        msg = "the network has no street graph (use stops_near for transit-only networks)"
        raise InvalidArgumentError(msg)
    return graph


_CAR_SPEED: OwnerCache[str, FloatArray] = OwnerCache()


def _car_speed(graph: StreetGraph) -> FloatArray:
    """The edges' car speeds as float64 (computed once per graph)."""
    return _CAR_SPEED.get_or_build(
        graph, "car_speed", lambda: np.asarray(graph.edge_car_speed_mps, dtype=np.float64)
    )


#: The search inputs of edge costs, by (graph, turn bans used, drive on right, turn costs).
_INPUTS: OwnerCache[tuple[int, bool, bool, bool], SearchInputs] = OwnerCache()


def search_inputs(graph: StreetGraph, options: StreetOptions, costs: EdgeCosts) -> SearchInputs:
    """The arrays a search of ``options`` reads on ``graph`` (once per costs and flags)."""
    use_bans = bool(options.turn_restrictions and graph.n_turn_bans > 0)
    key = (id(graph), use_bans, bool(options.drive_on_right), bool(options.turn_costs))
    return _INPUTS.get_or_build(costs, key, lambda: _search_inputs(graph, costs, *key[1:]))


def _search_inputs(
    graph: StreetGraph, costs: EdgeCosts, use_bans: bool, drive_on_right: bool, turn_costs: bool
) -> SearchInputs:
    geo = graph_geometry(graph)
    car_speed = _car_speed(graph)
    return SearchInputs(
        out_indptr=graph.out_indptr,
        in_indptr=graph.in_indptr,
        in_edges=graph.in_edges,
        edge_from=graph.edge_from,
        edge_to=graph.edge_to,
        edge_reverse=graph.edge_reverse,
        weight=costs.weight,
        time_ceil_s=costs.time_ceil_s,
        length_m=graph.edge_length_m,
        ban_bit=costs.ban_bit,
        ban_indptr=graph.ban_indptr,
        ban_to=graph.ban_to,
        ban_modes=graph.ban_modes,
        use_bans=use_bans,
        blocked=costs.blocked,
        free_flowing=geo.free_flowing,
        in_deg=geo.in_deg,
        out_deg=geo.out_deg,
        car_speed=car_speed,
        turn_speed=costs.turn_speed,
        driving=costs.driving,
        drive_on_right=drive_on_right,
        turn_costs=turn_costs,
        vertex_lat=graph.vertex_lat,
        vertex_lon=graph.vertex_lon,
        min_weight_per_m=costs.min_weight_per_m,
    )


def vertex(graph: StreetGraph, v: int | np.integer[Any]) -> int:
    vi = int(v)
    if not 0 <= vi < graph.n_vertices:
        msg = f"street vertex {vi} out of range [0, {graph.n_vertices})"
        raise InvalidArgumentError(msg)
    return vi


def check_snap(graph: StreetGraph, s: Snap) -> None:
    if not 0 <= s.edge < graph.n_edges:
        msg = f"snap edge {s.edge} out of range [0, {graph.n_edges})"
        raise InvalidArgumentError(msg)


#: A snapped position at most this far (metres) from an end of its edge *is* that
#: street vertex.  OTP 1.x links such a point to the existing vertex instead of
#: splitting the edge (``SimpleStreetSplitter``: projection within 1e-8 of an end),
#: so every edge of the vertex may be used.  A point whose nearest street point is
#: an intersection projects onto *one* of the segments meeting there, and that
#: segment alone may be unusable in the needed direction (a one-way edge only
#: cars can reach, a dead end with no U-turn).
AT_VERTEX_M = 1e-3


def resolve(graph: StreetGraph, where: Snap | int) -> Snap | int:
    """Where a search starts or ends: the vertex a snapped point lies on, else the snap."""
    if not isinstance(where, Snap):
        return vertex(graph, where)
    check_snap(graph, where)
    length = float(graph.edge_length_m[where.edge])
    if where.fraction * length <= AT_VERTEX_M:
        return int(graph.edge_from[where.edge])
    if (1.0 - where.fraction) * length <= AT_VERTEX_M:
        return int(graph.edge_to[where.edge])
    return where


def partial(
    costs: EdgeCosts, graph: StreetGraph, e: int, used: float, *, from_start: bool = False
) -> tuple[float, float, float]:
    """Weight, time and distance of travelling ``used`` (share) of edge ``e``.

    ``from_start``: the travel enters ``e`` at its start vertex, passing through it
    (its exit cost, a wheelchair's elevator cost, is paid in full).
    """
    used = min(max(used, 0.0), 1.0)
    return (
        float(weight_of(costs, e, used, not from_start)),
        float(math.ceil(used * float(costs.time_s[e]))),
        used * float(graph.edge_length_m[e]),
    )


def snap_directions(graph: StreetGraph, costs: EdgeCosts, s: Snap) -> list[tuple[int, float]]:
    """``(edge, fraction along it)`` of the usable directions of a snapped point."""
    out = []
    for e, f in ((s.edge, s.fraction), (int(graph.edge_reverse[s.edge]), 1.0 - s.fraction)):
        if e >= 0 and math.isfinite(costs.weight[e]):
            out.append((e, f))
    return out


def start_states(
    graph: StreetGraph, costs: EdgeCosts, where: Snap | int, *, reverse: bool
) -> tuple[Seeds, dict[int, float]]:
    """Seed states of a search and the share of each seed edge skipped (forward)."""
    rows: list[tuple[int, float, float, float]] = []
    skip: dict[int, float] = {}
    if isinstance(where, Snap):
        check_snap(graph, where)
        for e, f in snap_directions(graph, costs, where):
            w, t, d = partial(costs, graph, e, f if reverse else 1.0 - f, from_start=reverse)
            rows.append((e, w, t, d))
            skip[e] = f
        return Seeds.of(rows), skip
    v = vertex(graph, where)
    if reverse:
        lo, hi = int(graph.in_indptr[v]), int(graph.in_indptr[v + 1])
        edges = np.asarray(graph.in_edges[lo:hi], dtype=np.int32)
    else:
        lo, hi = int(graph.out_indptr[v]), int(graph.out_indptr[v + 1])
        edges = np.arange(lo, hi, dtype=np.int32)
    edges = edges[np.isfinite(costs.weight[edges])]
    out = Seeds(
        edges,
        costs.weight[edges] if reverse else weight_of(costs, edges, 1.0, True),
        costs.time_ceil_s[edges],
        np.asarray(graph.edge_length_m)[edges],
    )
    return out, {}


_NONE = np.zeros(0)


def assemble(
    graph: StreetGraph,
    costs: EdgeCosts,
    inputs: SearchInputs,
    options: StreetOptions,
    origin: Snap | int,
    destination: Snap | int,
    edges: Int32Array,
    start: float,
    end: float,
) -> StreetPath:
    """A :class:`StreetPath` from its edges (the costs recomputed per edge).

    The per-edge arithmetic, totals and polyline are one compiled call
    (:func:`~otpa.routing._path_kernel.assemble_path`).
    """
    edges = np.ascontiguousarray(edges, dtype=np.int32)
    geo = graph_geometry(graph)
    if isinstance(origin, Snap):
        head = np.array([origin.lat, origin.lon])
    elif edges.size == 0:
        v = int(origin)
        head = np.array([graph.vertex_lat[v], graph.vertex_lon[v]], dtype=np.float64)
    else:
        head = _NONE
    tail = np.array([destination.lat, destination.lon]) if isinstance(destination, Snap) else _NONE
    rise, fall = graph.edge_rise_m, graph.edge_fall_m
    if rise is None or fall is None:
        rise = fall = _NONE
    kept, time, weight, dist, walking, totals, lat, lon = assemble_path(
        edges, float(start), float(end), path_turn_costs(inputs, edges),
        costs.weight, _NONE if costs.exit_cost is None else costs.exit_cost,
        costs.time_s, costs.time_ceil_s, graph.edge_length_m, costs.walking,
        rise, fall,
        graph.seg_geom_offsets, graph.geom_lat, graph.geom_lon, graph.edge_segment,
        graph.edge_backward, geo.cum_m, geo.seg_len_m, head, tail,
    )  # fmt: skip
    start_f, end_f, duration, cost, distance, rise_m, fall_m = totals.tolist()
    return StreetPath(
        mode=options.mode,
        edges=kept,
        start_fraction=start_f,
        end_fraction=end_f,
        duration_s=duration,
        cost=cost,
        distance_m=distance,
        lat=lat,
        lon=lon,
        elevation_gained_m=rise_m,
        elevation_lost_m=fall_m,
        edge_time_s=time,
        edge_cost=weight,
        edge_distance_m=dist,
        walking=walking,
    )
