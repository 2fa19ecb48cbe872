"""The street part of trip planning: snapping, street paths, access to transit, walk steps.

Costs and rules are OTP 1.x's (``StreetEdge.doTraverse``; see
:mod:`otpa.routing._street_costs` and :mod:`otpa.routing._street_search`): a
generalized cost ("weight") per edge by mode and ``optimize``, time in whole
seconds rounded up per edge, turn restrictions, no U-turns, OTP's turn costs,
barriers, and cyclists walking their bike where they may not ride.

Points are *snapped* onto an edge (:func:`snap_point`) instead of splitting the
shared graph: a search seeds the two partial directions of the snapped edge and
ends on either direction of the destination's edge; a point snapped onto an end
of its edge starts or ends at that vertex instead (OTP links it to the existing
vertex), so all the vertex's edges are usable.  The connector between a
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
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from otpa.routing._snap import snap
from otpa.routing._street_access import AccessPaths, access_stops, length_ratio, stops_near
from otpa.routing._street_core import (
    AT_VERTEX_M,
    assemble,
    partial,
    resolve,
    search_inputs,
    snap_directions,
    start_states,
    street_graph,
)
from otpa.routing._street_costs import EdgeCosts, edge_costs
from otpa.routing._street_search import SearchInputs, Seeds
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
from otpa.street.edge_search import LandmarkGoal, run_goal_search
from otpa.street.landmarks import bound_ratio, edge_metric, landmarks_if_ready, vertex_cost
from otpa.types import FloatArray
from otpa.util.cache import OwnerCache
from otpa.util.geo import EARTH_RADIUS_M

if TYPE_CHECKING:
    from otpa.network import TransportNetwork
    from otpa.routing.model import WalkStep

__all__ = [
    "AT_VERTEX_M",
    "AccessPaths",
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
        The snapped position, or None when no usable edge is that close.  Snaps are
        kept per street graph (the last 8192 coordinates, modes and distances asked for).
    """
    graph = network.street
    if graph is None:
        return None
    key = (float(lat), float(lon), mode, float(max_distance_m))
    return _SNAPS.get_or_build(graph, key, lambda: _snap_point(graph, *key))


#: Snaps per street graph, by (lat, lon, mode, max distance): a place asked for again
#: (a client planning from the same stop or address) is not snapped again.
_SNAPS: OwnerCache[tuple[float, float, str, float], Snap | None] = OwnerCache(max_entries=8192)


def _snap_point(
    graph: StreetGraph, lat: float, lon: float, mode: str, max_distance_m: float
) -> Snap | None:
    found = snap(graph, lat, lon, mode, max_distance_m)
    if found is None:
        return None
    edge, frac, s_lat, s_lon, dist = found
    return Snap(lat, lon, edge, frac, s_lat, s_lon, dist)


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
    graph = street_graph(network)
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
            starts = [(e, a) for e, a in snap_directions(graph, costs, origin) if e == g]
        else:
            starts = [(g, 0.0)] if int(graph.edge_from[g]) == int(origin) else []
        for _, a in starts:
            if b < a:
                continue
            w, t, d = partial(costs, graph, g, b - a)
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
    inputs = search_inputs(graph, options, costs)
    # geometry keeps the snapped points; the search starts and ends at their vertex
    # when they lie on one
    src, dst = resolve(graph, origin), resolve(graph, destination)
    seeds, skip = start_states(graph, costs, src, reverse=False)
    target_vertex = -1
    target_rows: list[tuple[int, float, float, float]] = []
    target_use: list[tuple[int, float]] = []
    if isinstance(dst, Snap):
        for g, b in snap_directions(graph, costs, dst):
            w, t, d = partial(costs, graph, g, b, from_start=True)
            target_rows.append((g, w, t, d))
            target_use.append((g, b))
        if not target_use:
            return None
        goal = (dst.snap_lat, dst.snap_lon)
    else:
        target_vertex = dst
        if not isinstance(src, Snap) and src == target_vertex:
            return assemble(graph, costs, inputs, options, origin, destination,
                             np.zeros(0, np.int32), 0.0, 1.0)  # fmt: skip
        goal = (float(graph.vertex_lat[target_vertex]), float(graph.vertex_lon[target_vertex]))
    direct = _direct_candidates(graph, costs, src, target_use)
    if (
        math.isfinite(max_cost_s)
        and (direct is None or not direct.weight <= max_cost_s)
        and _costs_more_than(graph, costs, inputs, seeds, target_rows, target_vertex, max_cost_s)
    ):
        return None  # what the search would find: no path within the bound
    initial = None if direct is None else (direct.weight, direct.time_s, direct.distance_m)
    res = run_goal_search(
        inputs,
        seeds,
        goal,
        target_vertex=target_vertex,
        targets=Seeds.of(target_rows),
        initial_best=initial,
        max_weight=max_cost_s,
        landmarks=_landmark_goal(graph, costs, options, src, dst, target_use),
    )
    if not (math.isfinite(res.best_weight) and res.best_weight <= max_cost_s):
        return None
    if res.best_state < 0:
        assert direct is not None
        edges = np.array([direct.edge], dtype=np.int32)
        return assemble(graph, costs, inputs, options, origin, destination, edges,
                         direct.start, direct.end)  # fmt: skip
    edges = res.chain(res.best_state)
    start = skip.get(int(edges[0]), 0.0)
    end = 1.0
    if res.best_target >= 0:
        g, end = target_use[res.best_target]
        edges = np.append(edges, np.int32(g)).astype(np.int32)
    return assemble(graph, costs, inputs, options, origin, destination, edges, start, end)


#: Per edge costs: the least weight per metre of a usable edge, or -1 where the weights
#: give no such floor (a NaN or negative weight, a turn cost that may be negative).
_WEIGHT_FLOOR: OwnerCache[str, float] = OwnerCache()


def _weight_floor(costs: EdgeCosts) -> float:
    """``costs.min_weight_per_m`` when every step of a search adds at least that per metre.

    -1 when a usable edge's weight is NaN or negative, or a non-driving turn speed is not
    positive (a turn cost could then be negative or NaN).
    """

    def build() -> float:
        w = np.asarray(costs.weight, dtype=np.float64)
        if np.isnan(w).any() or (w < 0.0).any():
            return -1.0
        if not costs.driving and not bool(np.all(np.asarray(costs.turn_speed) > 0.0)):
            return -1.0
        floor = float(costs.min_weight_per_m)
        return floor if floor >= 0.0 else -1.0

    return _WEIGHT_FLOOR.get_or_build(costs, "floor", build)


def _unit(lat: float, lon: float) -> tuple[float, float, float]:
    p, q = math.radians(lat), math.radians(lon)
    return math.cos(p) * math.cos(q), math.cos(p) * math.sin(q), math.sin(p)


def _costs_more_than(
    graph: StreetGraph,
    costs: EdgeCosts,
    inputs: SearchInputs,
    seeds: Seeds,
    target_rows: list[tuple[int, float, float, float]],
    target_vertex: int,
    max_cost_s: float,
) -> bool:
    """Whether every path the goal search could find costs more than ``max_cost_s``.

    A lower bound on the weight of any path from a seed to a target (the same-edge
    paths of :func:`_direct_candidates` aside): the search reaches a target only by
    leaving a seed edge ``e`` (weight ``w_s``) at its end vertex and entering the
    target edge ``g`` (weight ``w_t``) at its start vertex (or the target vertex,
    ``w_t = 0``), over whole edges between those two vertices.  Each whole edge weighs
    at least ``costs.min_weight_per_m`` times its length and a turn cost is never
    negative (checked once per costs: :func:`_weight_floor`); the lengths add up to at
    least :func:`~otpa.routing._street_access.length_ratio` times the great-circle
    distance of the two vertices, itself at least ``R`` times their chord.  The sums
    are taken with a relative margin of 1e-6 (far above their rounding).  When even
    the least bound exceeds ``max_cost_s``, the search's best weight would too and
    :func:`_path` returns None: it need not search.
    """
    floor = _weight_floor(costs)
    if floor < 0.0 or seeds.edge.size == 0:
        return floor >= 0.0  # no seed: the search finds nothing either
    per_chord = floor * length_ratio(graph) * EARTH_RADIUS_M
    lat, lon = inputs.vertex_lat, inputs.vertex_lon
    edge_to, edge_from = inputs.edge_to, inputs.edge_from
    if target_rows:
        ends = [(int(edge_from[g]), w) for g, w, _, _ in target_rows]
    else:
        ends = [(int(target_vertex), 0.0)]
    tails = [(_unit(float(lat[u]), float(lon[u])), w_t) for u, w_t in ends]
    for e, w_s in zip(seeds.edge.tolist(), seeds.weight.tolist(), strict=True):
        v = int(edge_to[e])
        a = _unit(float(lat[v]), float(lon[v]))
        for b, w_t in tails:
            chord = math.sqrt((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2)
            least = (w_s + w_t + per_chord * chord) * (1.0 - 1e-6)
            if not least > max_cost_s:
                return False
    return True


#: Landmarks an A* street path reads (of the graph's ``DEFAULT_LANDMARKS`` in the mode's
#: metric, the ones with the largest bounds between the path's ends; built in the
#: background on first use, :func:`otpa.street.landmarks.landmarks_if_ready`); 0:
#: straight-line bounds only (the same paths, more states searched).
LANDMARK_COLUMNS = 16


def _landmark_goal(
    graph: StreetGraph,
    costs: EdgeCosts,
    options: StreetOptions,
    src: Snap | int,
    dst: Snap | int,
    target_use: list[tuple[int, float]],
) -> LandmarkGoal | None:
    """The ALT bounds of a search from ``src`` to ``dst`` (None: straight line only)."""
    if LANDMARK_COLUMNS <= 0:
        return None
    mode = options.mode
    ratio = _RATIOS.get_or_build(
        costs,
        (mode, options.turn_costs),
        lambda: bound_ratio(graph, mode, costs.weight, turn_costs=options.turn_costs),
    )
    if ratio <= 0.0:
        return None
    lms = landmarks_if_ready(graph, mode)
    if lms is None or lms.count == 0:
        return None
    # the metric counts half a vertex's cost on each edge at it: a snapped goal is
    # entered after its start vertex's whole cost (paid there), a goal vertex keeps half
    vc = vertex_cost(graph, mode)
    goal: FloatArray
    if isinstance(dst, Snap):
        metric = edge_metric(graph, mode)
        goal = lms.to_point([(int(graph.edge_from[g]),
                              b * float(metric[g]) + 0.5 * float(vc[graph.edge_from[g]]))
                             for g, b in target_use])  # fmt: skip
        offset = 0.0
    else:
        goal = lms.to_vertex(dst)
        offset = 0.5 * float(vc[dst])
    if isinstance(src, Snap):
        sources = np.array([graph.edge_from[src.edge], graph.edge_to[src.edge]], dtype=np.int64)
    else:
        sources = np.array([src], dtype=np.int64)
    cols = lms.best_columns(sources, goal, LANDMARK_COLUMNS)
    return LandmarkGoal(lms.distance, cols, goal, lms.eps + offset, ratio)


#: Per edge costs: the least weight per unit of the mode's landmark metric.
_RATIOS: OwnerCache[tuple[str, bool], float] = OwnerCache(max_entries=2)


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
        for the steps' ``elevation``; without them the graph's vertex heights
        (``vertex_elevation_m``) are used, and without those the lists are empty.
    initial_angle
        Direction (radians) at the end of a preceding street leg; the first step
        then gets a relative direction instead of DEPART.

    Returns
    -------
    tuple of WalkStep
        The steps in travel order (empty for an empty path).
    """
    return build_steps(street_graph(network), path, profiles=profiles, initial_angle=initial_angle)


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
    dist, elev = path_profile(street_graph(network), path, profiles)
    return ElevationProfile(dist, elev)
