"""The street part of trip planning: snapping, street paths, access to transit, walk steps.

Costs and rules are OTP 1.x's (``StreetEdge.doTraverse``; see
:mod:`otpa.routing._street_costs` and :mod:`otpa.routing._street_search`): a
generalized cost ("weight") per edge by mode and ``optimize``, time in whole
seconds rounded up per edge, turn restrictions, no U-turns, OTP's turn costs,
barriers, and cyclists walking their bike where they may not ride.

Points are *snapped* onto an edge (:func:`snap_point`) instead of splitting the
shared graph: a search seeds the two partial directions of the snapped edge and
ends on either direction of the destination's edge.  The connector between a
point and its snap position is free, as OTP's ``TemporaryFreeEdge`` (no time,
no distance), but part of the path's geometry.

Examples
--------
>>> from otpa.routing.street_router import StreetOptions, snap_point, street_path
>>> opts = StreetOptions(mode="WALK", speed_mps=1.33, reluctance=2.0)
>>> a = snap_point(network, 48.59, 8.86, mode="WALK")  # doctest: +SKIP
>>> b = snap_point(network, 48.60, 8.87, mode="WALK")  # doctest: +SKIP
>>> path = street_path(network, a, b, opts)  # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from otpa.routing._snap import snap
from otpa.routing._street_costs import EdgeCosts, edge_costs
from otpa.routing._street_geometry import dedupe, graph_geometry, path_points
from otpa.routing._street_search import (
    SearchInputs,
    Seeds,
    path_turn_costs,
    run_search,
)
from otpa.routing._street_types import (
    AccessResult,
    ElevationProfile,
    Snap,
    StreetMode,
    StreetOptions,
    StreetPath,
)
from otpa.routing._walk_steps import SegmentProfiles, build_steps, path_profile
from otpa.street import StreetGraph
from otpa.types import Int32Array
from otpa.util.geo import haversine_m

if TYPE_CHECKING:
    from otpa.network import TransportNetwork
    from otpa.routing.model import WalkStep

__all__ = [
    "AccessResult",
    "ElevationProfile",
    "Snap",
    "StreetMode",
    "StreetOptions",
    "StreetPath",
    "access_stops",
    "elevation_profile",
    "snap_point",
    "stops_near",
    "street_path",
    "walk_steps",
]


# --------------------------------------------------------------------- helpers
def _street(network: TransportNetwork) -> StreetGraph:
    graph = network.street
    if graph is None:
        msg = "the network has no street graph (use stops_near for transit-only networks)"
        raise ValueError(msg)
    return graph


def _static(graph: StreetGraph) -> dict[str, object]:
    key = "routing_static"
    cached = graph._cache.get(key)
    if cached is None:
        cached = {
            "car_speed": np.asarray(graph.edge_car_speed_mps, dtype=np.float64),
            "has_bans": graph.n_turn_bans > 0,
        }
        graph._cache[key] = cached
    result: dict[str, object] = cached
    return result


def _inputs(graph: StreetGraph, options: StreetOptions, costs: EdgeCosts) -> SearchInputs:
    geo = graph_geometry(graph)
    static = _static(graph)
    car_speed = static["car_speed"]
    assert isinstance(car_speed, np.ndarray)
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
        use_bans=bool(options.turn_restrictions and static["has_bans"]),
        blocked=costs.blocked,
        free_flowing=geo.free_flowing,
        in_deg=geo.in_deg,
        out_deg=geo.out_deg,
        car_speed=car_speed,
        turn_speed=costs.turn_speed,
        driving=costs.driving,
        drive_on_right=options.drive_on_right,
        turn_costs=options.turn_costs,
        vertex_lat=graph.vertex_lat,
        vertex_lon=graph.vertex_lon,
        min_weight_per_m=costs.min_weight_per_m,
    )


def _vertex(graph: StreetGraph, v: int | np.integer[Any]) -> int:
    vi = int(v)
    if not 0 <= vi < graph.n_vertices:
        msg = f"street vertex {vi} out of range [0, {graph.n_vertices})"
        raise ValueError(msg)
    return vi


def _check_snap(graph: StreetGraph, s: Snap) -> None:
    if not 0 <= s.edge < graph.n_edges:
        msg = f"snap edge {s.edge} out of range [0, {graph.n_edges})"
        raise ValueError(msg)


def _partial(
    costs: EdgeCosts, graph: StreetGraph, e: int, used: float
) -> tuple[float, float, float]:
    """Weight, time and distance of travelling ``used`` (share) of edge ``e``."""
    used = min(max(used, 0.0), 1.0)
    return (
        used * float(costs.weight[e]),
        float(math.ceil(used * float(costs.time_s[e]))),
        used * float(graph.edge_length_m[e]),
    )


def _snap_directions(graph: StreetGraph, costs: EdgeCosts, s: Snap) -> list[tuple[int, float]]:
    """``(edge, fraction along it)`` of the usable directions of a snapped point."""
    out = []
    for e, f in ((s.edge, s.fraction), (int(graph.edge_reverse[s.edge]), 1.0 - s.fraction)):
        if e >= 0 and math.isfinite(costs.weight[e]):
            out.append((e, f))
    return out


def _seeds(
    graph: StreetGraph, costs: EdgeCosts, where: Snap | int, *, reverse: bool
) -> tuple[Seeds, dict[int, float]]:
    """Seed states of a search and the share of each seed edge skipped (forward)."""
    rows: list[tuple[int, float, float, float]] = []
    skip: dict[int, float] = {}
    if isinstance(where, Snap):
        _check_snap(graph, where)
        for e, f in _snap_directions(graph, costs, where):
            w, t, d = _partial(costs, graph, e, f if reverse else 1.0 - f)
            rows.append((e, w, t, d))
            skip[e] = f
        return Seeds.of(rows), skip
    v = _vertex(graph, where)
    if reverse:
        lo, hi = int(graph.in_indptr[v]), int(graph.in_indptr[v + 1])
        edges = np.asarray(graph.in_edges[lo:hi], dtype=np.int32)
    else:
        lo, hi = int(graph.out_indptr[v]), int(graph.out_indptr[v + 1])
        edges = np.arange(lo, hi, dtype=np.int32)
    edges = edges[np.isfinite(costs.weight[edges])]
    seeds = Seeds(
        edges,
        costs.weight[edges],
        costs.time_ceil_s[edges],
        np.asarray(graph.edge_length_m)[edges],
    )
    return seeds, {}


# ----------------------------------------------------------------------- snap
def snap_point(
    network: TransportNetwork,
    lat: float,
    lon: float,
    *,
    mode: str,
    max_distance_m: float = 500.0,
) -> Snap | None:
    """Snap a point onto the nearest street edge ``mode`` may use.

    Parameters
    ----------
    network
        The network (None is returned when it has no streets).
    lat, lon
        The point (degrees).
    mode
        WALK, BICYCLE (edges a cyclist may ride or walk) or CAR.
    max_distance_m
        Farthest street considered.

    Returns
    -------
    Snap or None
        The snapped position, or None when no usable edge is that close.
    """
    graph = network.street
    if graph is None:
        return None
    found = snap(graph, float(lat), float(lon), mode, max_distance_m)
    if found is None:
        return None
    edge, frac, s_lat, s_lon, dist = found
    return Snap(float(lat), float(lon), edge, frac, s_lat, s_lon, dist)


# ---------------------------------------------------------------- street path
def street_path(
    network: TransportNetwork,
    origin: Snap | int,
    destination: Snap | int,
    options: StreetOptions,
    *,
    max_cost_s: float = math.inf,
) -> StreetPath | None:
    """The least-cost street path between two places.

    Parameters
    ----------
    network
        A network with streets.
    origin, destination
        Snapped points, or street vertices (e.g. ``network.stop_vertex[stop]``).
    options
        Mode and cost model.
    max_cost_s
        Give up beyond this generalized cost.

    Returns
    -------
    StreetPath or None
        None when the destination cannot be reached.  A wheelchair search that
        fails is retried without the slope limit (``too_sloped=True``).
    """
    graph = _street(network)
    path = _path(graph, origin, destination, options, max_cost_s)
    if (
        path is None
        and options.mode == "WALK"
        and options.wheelchair
        and graph.has_elevation
        and math.isfinite(options.max_slope)
    ):
        relaxed = dataclasses.replace(options, max_slope=math.inf)
        path = _path(graph, origin, destination, relaxed, max_cost_s)
        if path is not None:
            path = dataclasses.replace(path, too_sloped=True)
    return path


class _Direct(NamedTuple):
    weight: float
    time_s: float
    distance_m: float
    edge: int
    start: float
    end: float


def _direct_candidates(
    graph: StreetGraph,
    costs: EdgeCosts,
    origin: Snap | int,
    targets: list[tuple[int, float]],
) -> _Direct | None:
    """Paths along one edge: both ends on it, or the origin vertex at its start."""
    best: _Direct | None = None
    for g, b in targets:
        if isinstance(origin, Snap):
            starts = [(e, a) for e, a in _snap_directions(graph, costs, origin) if e == g]
        else:
            starts = [(g, 0.0)] if int(graph.edge_from[g]) == int(origin) else []
        for _, a in starts:
            if b < a:
                continue
            w, t, d = _partial(costs, graph, g, b - a)
            if best is None or w < best.weight:
                best = _Direct(w, t, d, g, a, b)
    return best


def _path(
    graph: StreetGraph,
    origin: Snap | int,
    destination: Snap | int,
    options: StreetOptions,
    max_cost_s: float,
) -> StreetPath | None:
    costs = edge_costs(graph, options)
    inputs = _inputs(graph, options, costs)
    seeds, skip = _seeds(graph, costs, origin, reverse=False)
    target_vertex = -1
    target_rows: list[tuple[int, float, float, float]] = []
    target_use: list[tuple[int, float]] = []
    if isinstance(destination, Snap):
        _check_snap(graph, destination)
        for g, b in _snap_directions(graph, costs, destination):
            w, t, d = _partial(costs, graph, g, b)
            target_rows.append((g, w, t, d))
            target_use.append((g, b))
        if not target_use:
            return None
    else:
        target_vertex = _vertex(graph, destination)
        if not isinstance(origin, Snap) and int(origin) == target_vertex:
            return _assemble(graph, costs, inputs, options, origin, destination,
                             np.zeros(0, np.int32), 0.0, 1.0)  # fmt: skip
    if isinstance(destination, Snap):
        goal = (destination.snap_lat, destination.snap_lon)
    else:
        goal = (float(graph.vertex_lat[target_vertex]), float(graph.vertex_lon[target_vertex]))
    direct = _direct_candidates(graph, costs, origin, target_use)
    initial = None if direct is None else (direct.weight, direct.time_s, direct.distance_m)
    res = run_search(
        inputs,
        seeds,
        n_vertices=graph.n_vertices,
        target_vertex=target_vertex,
        targets=Seeds.of(target_rows),
        initial_best=initial,
        max_weight=max_cost_s,
        goal=goal,
    )
    if not (math.isfinite(res.best_weight) and res.best_weight <= max_cost_s):
        return None
    if res.best_state < 0:
        assert direct is not None
        edges = np.array([direct.edge], dtype=np.int32)
        return _assemble(graph, costs, inputs, options, origin, destination, edges,
                         direct.start, direct.end)  # fmt: skip
    edges = res.chain(res.best_state)
    start = skip.get(int(edges[0]), 0.0)
    end = 1.0
    if res.best_target >= 0:
        g, end = target_use[res.best_target]
        edges = np.append(edges, np.int32(g)).astype(np.int32)
    return _assemble(graph, costs, inputs, options, origin, destination, edges, start, end)


def _assemble(
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
    """A :class:`StreetPath` from its edges (the costs recomputed per edge)."""
    n = edges.size
    used = np.ones(n)
    if n:
        used[0] -= start
        used[-1] -= 1.0 - end
    used = np.clip(used, 0.0, 1.0)
    partial = used < 1.0
    turns = path_turn_costs(inputs, edges)
    weight = costs.weight[edges] * used + turns
    time = np.where(partial, np.ceil(costs.time_s[edges] * used), costs.time_ceil_s[edges])
    time = time + np.ceil(turns)
    dist = np.asarray(graph.edge_length_m)[edges] * used
    # drop a first/last edge of which nothing is travelled (its turn cost stays)
    keep = np.ones(n, dtype=bool)
    if n > 1 and used[0] <= 0.0:
        keep[0], start = False, 0.0
    if n > 1 and used[-1] <= 0.0 and keep[:-1].any():
        keep[-1], end = False, 1.0
        weight[-2] += weight[-1]
        time[-2] += time[-1]
    edges = edges[keep]
    used, weight, time, dist = used[keep], weight[keep], time[keep], dist[keep]
    n = edges.size
    rise = fall = 0.0
    if graph.edge_rise_m is not None and graph.edge_fall_m is not None:
        rise = float(np.sum(np.asarray(graph.edge_rise_m)[edges] * used))
        fall = float(np.sum(np.asarray(graph.edge_fall_m)[edges] * used))
    lat, lon = path_points(graph, edges, start, end)
    if isinstance(origin, Snap):
        lat, lon = np.concatenate(([origin.lat], lat)), np.concatenate(([origin.lon], lon))
    elif n == 0:
        v = int(origin)
        lat, lon = np.array([graph.vertex_lat[v]]), np.array([graph.vertex_lon[v]])
    if isinstance(destination, Snap):
        lat = np.concatenate((lat, [destination.lat]))
        lon = np.concatenate((lon, [destination.lon]))
    lat, lon = dedupe(lat, lon)
    return StreetPath(
        mode=options.mode,
        edges=np.ascontiguousarray(edges, dtype=np.int32),
        start_fraction=float(start),
        end_fraction=float(end),
        duration_s=float(time.sum()),
        cost=float(weight.sum()),
        distance_m=float(dist.sum()),
        lat=lat,
        lon=lon,
        elevation_gained_m=rise,
        elevation_lost_m=fall,
        edge_time_s=time,
        edge_cost=weight,
        edge_distance_m=dist,
        walking=np.asarray(costs.walking[edges]),
    )


# -------------------------------------------------------------- access/egress
def access_stops(
    network: TransportNetwork,
    origin: Snap | int,
    options: StreetOptions,
    *,
    max_time_s: float,
    max_distance_m: float | None = None,
    reverse: bool = False,
) -> AccessResult:
    """Stops reachable over the streets within a time (and distance) limit.

    One street search from ``origin`` (``reverse=True``: to it, for egress).
    A stop is reached through its street vertex (``network.stop_vertex``); the
    link between them (``network.stop_link_distance_m``) is walked at the mode's
    speed (for CAR at the walk speed).

    Parameters
    ----------
    network
        A network with streets.
    origin
        A snapped point or a street vertex.
    options
        Mode and cost model.
    max_time_s
        Largest time (link included).
    max_distance_m
        Largest distance (link included), or no limit.
    reverse
        Paths from the stops to ``origin`` instead.
    """
    graph = _street(network)
    costs = edge_costs(graph, options)
    inputs = _inputs(graph, options, costs)
    seeds, _ = _seeds(graph, costs, origin, reverse=reverse)
    max_d = math.inf if max_distance_m is None else float(max_distance_m)
    res = run_search(
        inputs,
        seeds,
        n_vertices=graph.n_vertices,
        reverse=reverse,
        max_time_s=float(max_time_s),
        max_distance_m=max_d,
        vertex_labels=True,
    )
    cost_v, time_v, dist_v = res.cost_v, res.time_v, res.dist_v
    if not isinstance(origin, Snap):
        v = int(origin)
        cost_v[v] = time_v[v] = dist_v[v] = 0.0
    stop_vertex = np.asarray(network.stop_vertex, dtype=np.int64)
    stops = np.flatnonzero(stop_vertex >= 0)
    sv = stop_vertex[stops]
    reached = np.isfinite(cost_v[sv])
    stops, sv = stops[reached], sv[reached]
    link = np.nan_to_num(np.asarray(network.stop_link_distance_m, dtype=np.float64)[stops])
    if options.mode == "CAR":
        link_speed, link_rel = options.walk_speed_mps, options.walk_reluctance
    else:
        link_speed, link_rel = options.speed_mps, options.reluctance
    link_t = link / link_speed
    time = time_v[sv] + np.ceil(link_t)
    dist = dist_v[sv] + link
    cost = cost_v[sv] + link_t * link_rel
    keep = (time <= max_time_s) & (dist <= max_d)
    return AccessResult(
        stops[keep].astype(np.int32),
        time[keep].astype(np.int32),
        cost[keep],
        dist[keep],
    )


def stops_near(
    network: TransportNetwork,
    lat: float,
    lon: float,
    *,
    max_distance_m: float,
    speed_mps: float,
    reluctance: float,
) -> AccessResult:
    """Stops within a straight-line (great-circle) walk of a point.

    For networks without streets: time is the distance at ``speed_mps`` (whole
    seconds, rounded up), cost the time times ``reluctance``.

    Parameters
    ----------
    network
        Any network (only its stops are used).
    lat, lon
        The point (degrees).
    max_distance_m
        Farthest stop.
    speed_mps, reluctance
        Walking speed and reluctance.

    Returns
    -------
    AccessResult
        The stops within reach, sorted by stop index.
    """
    stops = network.transit.stops
    s_lat = stops.lat.to_numpy(float)
    s_lon = stops.lon.to_numpy(float)
    dist = np.asarray(haversine_m(lat, lon, s_lat, s_lon), dtype=np.float64)
    keep = np.flatnonzero(np.isfinite(dist) & (dist <= max_distance_m))
    d = dist[keep]
    t = d / speed_mps
    return AccessResult(keep.astype(np.int32), np.ceil(t).astype(np.int32), t * reluctance, d)


# ----------------------------------------------------------- steps, elevation
def walk_steps(
    network: TransportNetwork,
    path: StreetPath,
    *,
    profiles: SegmentProfiles | None = None,
    initial_angle: float | None = None,
) -> tuple[WalkStep, ...]:
    """Turn-by-turn instructions of a street path, as OTP 1.x generates them.

    Parameters
    ----------
    network
        The network the path was found in.
    path
        The path.
    profiles
        Per-OSM-segment elevation profiles (e.g. :class:`otpa.elevation.EdgeElevation`)
        for the steps' ``elevation``; without them the elevation lists are empty.
    initial_angle
        Direction (radians) at the end of a preceding street leg; the first step
        then gets a relative direction instead of DEPART.

    Returns
    -------
    tuple of WalkStep
        The steps in travel order (empty for an empty path).
    """
    return build_steps(_street(network), path, profiles=profiles, initial_angle=initial_angle)


def elevation_profile(
    network: TransportNetwork, path: StreetPath, profiles: SegmentProfiles | None = None
) -> ElevationProfile:
    """Heights along a path from per-OSM-segment profiles.

    Parameters
    ----------
    network
        The network the path was found in.
    path
        The path.
    profiles
        Per-OSM-segment profiles (``profile_offsets``, ``profile_dist_m``,
        ``profile_elev_m`` indexed by ``StreetGraph.seg_source``, as in
        :class:`otpa.elevation.EdgeElevation`).  The network does not keep them,
        so without them the profile is empty.

    Returns
    -------
    ElevationProfile
        Sample distances from the path's start (increasing) and heights; edges
        without a profile (bridges, tunnels, no data) leave gaps.
    """
    dist, elev = path_profile(_street(network), path, profiles)
    return ElevationProfile(dist, elev)
