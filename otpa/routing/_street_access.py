"""Access and egress over the streets: every stop within reach of a place, by one search.

The search tree is kept (:class:`AccessPaths`): the street path to any stop it
reached is read off its labels, so itineraries show the very path (and distance)
whose time the transit search used, without searching again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numba import njit

from otpa.routing._street_core import (
    assemble,
    resolve,
    search_inputs,
    start_states,
    street_graph,
)
from otpa.routing._street_costs import EdgeCosts, edge_costs
from otpa.routing._street_search import SearchInputs, SearchResult, path_turn_costs, run_search
from otpa.routing._street_types import AccessResult, Snap, StreetOptions, StreetPath
from otpa.routing._walk_steps import mode_bit, step_inputs, tree_leg
from otpa.street import StreetGraph
from otpa.types import FloatArray, Int32Array, IntArray, UInt8Array
from otpa.util.cache import OwnerCache
from otpa.util.geo import EARTH_RADIUS_M, haversine_m

if TYPE_CHECKING:
    from otpa.network import TransportNetwork

__all__ = ["AccessPaths", "access_stops", "length_ratio", "no_stop_within", "stops_near"]


#: :meth:`AccessPaths.leg`'s answer: steps' integer and float columns, the polyline
#: (link included), the path's totals and the encoded polyline (see ``tree_leg``).
LegTable = tuple[IntArray, FloatArray, FloatArray, FloatArray, FloatArray, UInt8Array]
#: Where :meth:`AccessPaths.leg` keeps its prepared arguments in ``derived``.
_LEG_INPUTS = ("tree_leg inputs",)
_NO_POINT = np.zeros(0)


@dataclass(frozen=True, eq=False)
class AccessPaths:
    """The tree of an access (or, ``reverse``, egress) search: street paths to its vertices.

    Attributes
    ----------
    where
        The place searched from (to, when ``reverse``) as given: its point is part of
        the paths' geometry.
    start
        Where the search started: ``where``, or the vertex a snapped point lies on.
    """

    graph: StreetGraph
    costs: EdgeCosts
    inputs: SearchInputs
    options: StreetOptions
    where: Snap | int
    start: Snap | int
    result: SearchResult
    skip: dict[int, float]
    reverse: bool
    #: what callers derived from the paths, by their key (the legs of one plan's
    #: itineraries often start at the same stop: their geometry is built once)
    derived: dict[object, object] = field(default_factory=dict, repr=False)

    def path(self, vertex: int) -> StreetPath | None:
        """The path between the place and street vertex ``vertex`` (None: not reached).

        It is the path whose time and cost the search gave the vertex: from the place
        to the vertex, or from the vertex to the place when ``reverse``.
        """
        v = int(vertex)
        none = np.zeros(0, np.int32)
        if not isinstance(self.start, Snap) and v == self.start:
            return self._assemble(none, 0.0, 1.0, v)
        state = int(self.result.edge_v[v]) if self.result.edge_v.size else -1
        if state < 0:
            return None
        edges = self.result.chain(state)
        if self.reverse:
            # a backward search's predecessors lead towards the place: travel order
            edges = edges[::-1].copy()
            return self._assemble(edges, 0.0, self.skip.get(int(edges[-1]), 1.0), v)
        return self._assemble(edges, self.skip.get(int(edges[0]), 0.0), 1.0, v)

    def leg(self, vertex: int, link: FloatArray, link_at_end: bool) -> LegTable | None:
        """:func:`~otpa.routing._walk_steps.tree_leg` of the path to (from) ``vertex``.

        The path :meth:`path` gives (the same edges, shares and turn costs), its steps and
        its encoded polyline in one compiled call, with ``link`` (a stop's ``(lat, lon)``,
        or empty) after the polyline (before it: ``link_at_end`` false).  None where that
        call does not apply (use :meth:`path`): the vertex not reached, the start vertex
        itself, a graph with vertex heights (the Python step builder).
        """
        v = int(vertex)
        if self.graph.vertex_elevation_m is not None:
            return None
        if not isinstance(self.start, Snap) and v == self.start:
            return None
        state = int(self.result.edge_v[v]) if self.result.edge_v.size else -1
        if state < 0:
            return None
        edges = self.result.chain(state)
        if self.reverse:  # (as path: travel order, the skipped share of the seed edge)
            edges = edges[::-1].copy()
            start, end = 0.0, self.skip.get(int(edges[-1]), 1.0)
        else:
            start, end = self.skip.get(int(edges[0]), 0.0), 1.0
        edges = np.ascontiguousarray(edges, dtype=np.int32)  # (as assemble)
        inputs = cast("tuple[Any, ...] | None", self.derived.get(_LEG_INPUTS))
        if inputs is None:  # (a plan's threads do not share its searches)
            inputs = self._leg_inputs()
            self.derived[_LEG_INPUTS] = inputs
        costs, rise, fall, head, tail = inputs
        table: LegTable = tree_leg(
            edges, float(start), float(end), path_turn_costs(self.inputs, edges), costs, rise,
            fall, head, tail, link, link_at_end, mode_bit(self.options.mode),
            *step_inputs(self.graph),
        )  # fmt: skip
        return table

    def _leg_inputs(self) -> tuple[Any, ...]:
        """:func:`~otpa.routing._walk_steps.tree_leg`'s arguments from ``costs`` to ``tail``
        (as ``assemble`` takes them for :meth:`_assemble`)."""
        g, c = self.graph, self.costs
        exit_cost = _NO_POINT if c.exit_cost is None else c.exit_cost
        costs = (c.weight, exit_cost, c.time_s, c.time_ceil_s, g.edge_length_m, c.walking)
        rise, fall = g.edge_rise_m, g.edge_fall_m
        if rise is None or fall is None:
            rise = fall = _NO_POINT
        w = self.where
        point = _NO_POINT if not isinstance(w, Snap) else np.array([w.lat, w.lon])
        head, tail = (_NO_POINT, point) if self.reverse else (point, _NO_POINT)
        return costs, rise, fall, head, tail

    def _assemble(self, edges: np.ndarray, start: float, end: float, v: int) -> StreetPath:
        origin, destination = (v, self.where) if self.reverse else (self.where, v)
        return assemble(
            self.graph, self.costs, self.inputs, self.options, origin, destination,
            edges, start, end,
        )  # fmt: skip


_Links = tuple[IntArray, IntArray, FloatArray]
#: Per ``stop_vertex`` array: its link array, the stops with a street vertex, their
#: vertices and stop links (NaN: 0).
_STOP_LINKS: OwnerCache[str, tuple[object, _Links]] = OwnerCache()


def _stop_links(network: TransportNetwork) -> _Links:
    """``(stops, their street vertices, link metres)`` of the linked stops (once per network)."""
    link_m = network.stop_link_distance_m

    def build() -> tuple[object, _Links]:
        stop_vertex = np.asarray(network.stop_vertex, dtype=np.int64)
        stops = np.flatnonzero(stop_vertex >= 0)
        links = np.asarray(link_m, dtype=np.float64)[stops]
        return link_m, (stops, stop_vertex[stops], np.nan_to_num(links))

    known = _STOP_LINKS.get_or_build(network.stop_vertex, "links", build)
    return known[1] if known[0] is link_m else build()[1]  # (links replaced: not cached)


#: Per street graph: the smallest ratio of an edge's length to the great-circle distance
#: between its ends (edges of no such distance left out; 0 when a length is unusable).
_LENGTH_RATIO: OwnerCache[str, float] = OwnerCache()


def length_ratio(graph: StreetGraph) -> float:
    """``min(edge length / great-circle distance of its ends)`` over the edges (once per graph).

    Any street path is at least this share of the great-circle distance between its
    ends (triangle inequality on the sphere, edge by edge).
    """

    def build() -> float:
        lat = np.asarray(graph.vertex_lat, dtype=np.float64)
        lon = np.asarray(graph.vertex_lon, dtype=np.float64)
        ef = np.asarray(graph.edge_from, dtype=np.int64)
        et = np.asarray(graph.edge_to, dtype=np.int64)
        length = np.asarray(graph.edge_length_m, dtype=np.float64)
        if length.size == 0:
            return 1.0
        if not np.all(length >= 0.0):  # NaN or negative: no bound
            return 0.0
        crow = np.asarray(haversine_m(lat[ef], lon[ef], lat[et], lon[et]), dtype=np.float64)
        apart = crow > 0.0
        if not np.all(np.isfinite(crow)):
            return 0.0
        if not apart.any():
            return 1.0
        return float(min(1.0, float(np.min(length[apart] / crow[apart]))))

    return _LENGTH_RATIO.get_or_build(graph, "ratio", build)


@njit(cache=True, nogil=True)  # type: ignore[misc]
def _unit_vectors(lat: FloatArray, lon: FloatArray) -> FloatArray:
    """Points on the unit sphere, ``(n, 3)``, of coordinates in degrees."""
    out = np.empty((lat.shape[0], 3))
    for i in range(lat.shape[0]):
        p = math.radians(lat[i])
        q = math.radians(lon[i])
        out[i, 0] = math.cos(p) * math.cos(q)
        out[i, 1] = math.cos(p) * math.sin(q)
        out[i, 2] = math.sin(p)
    return out


#: Per ``stop_vertex`` array: the unit vectors of the linked stops' street vertices.
_STOP_POINTS: OwnerCache[str, tuple[object, FloatArray]] = OwnerCache()


def _stop_points(network: TransportNetwork, graph: StreetGraph, stop_v: IntArray) -> FloatArray:
    """Unit vectors of the street vertices ``stop_v`` of the linked stops (once per network)."""

    def build() -> tuple[object, FloatArray]:
        lat = np.asarray(graph.vertex_lat, dtype=np.float64)[stop_v]
        lon = np.asarray(graph.vertex_lon, dtype=np.float64)[stop_v]
        return graph, _unit_vectors(lat, lon)

    known = _STOP_POINTS.get_or_build(network.stop_vertex, "points", build)
    return known[1] if known[0] is graph else build()[1]


@njit(cache=True, nogil=True)  # type: ignore[misc]
def _all_beyond(
    points: FloatArray,
    link: FloatArray,
    lat: FloatArray,
    lon: FloatArray,
    ends: IntArray,
    start_m: FloatArray,
    metres: float,
    limit: float,
) -> bool:
    """Whether ``start_m + metres x chord + link`` exceeds ``limit`` for every point and end.

    ``points``: unit vectors; ``ends``: vertices (of ``lat``/``lon``, degrees), each
    reached after ``start_m``.  The chord is at most the arc.
    """
    anchors = _unit_vectors(lat[ends], lon[ends])
    for i in range(points.shape[0]):
        for j in range(anchors.shape[0]):
            room = limit - link[i] - start_m[j]
            if room < 0.0:
                continue
            reach = room / metres  # the longest chord that may still be within the limit
            dx = points[i, 0] - anchors[j, 0]
            dy = points[i, 1] - anchors[j, 1]
            dz = points[i, 2] - anchors[j, 2]
            if dx * dx + dy * dy + dz * dz <= reach * reach:
                return False
    return True


def no_stop_within(
    network: TransportNetwork, origin: Snap | int, max_distance_m: float | None
) -> bool:
    """True when no linked stop can be within ``max_distance_m`` of ``origin`` over the streets.

    A lower bound, exact for any street search from (or to) ``origin``: a path from a
    vertex is at least :func:`length_ratio` times the great-circle distance to where it
    ends (itself at least the chord), and a snapped point's path passes one end of its
    edge after the part of the edge up to it.  A stop adds its link.  So when the
    bound of every linked stop exceeds the limit, :func:`access_stops` would find none
    and need not search.
    """
    if max_distance_m is None or not math.isfinite(max_distance_m):
        return False
    graph = street_graph(network)
    stops, stop_v, link = _stop_links(network)
    if stops.size == 0:
        return True
    ratio = length_ratio(graph)
    if ratio <= 0.0:
        return False
    if isinstance(origin, Snap):
        # a search from (or to) a point on an edge passes one of its ends, after the part
        # of the edge (either direction) between them
        e = int(origin.edge)
        back = int(graph.edge_reverse[e])
        length = float(graph.edge_length_m[e])
        if back >= 0:
            length = min(length, float(graph.edge_length_m[back]))
        f = min(max(float(origin.fraction), 0.0), 1.0)
        ends = np.array([graph.edge_from[e], graph.edge_to[e]], np.int64)
        start_m = np.array([f * length, (1.0 - f) * length]) * (1.0 - 1e-9)
    else:
        ends = np.array([origin], np.int64)
        start_m = np.zeros(1)
    # margins far above the rounding of the sums (and of the ratio itself)
    metres = ratio * (1.0 - 1e-6) * EARTH_RADIUS_M
    points = _stop_points(network, graph, stop_v)
    limit = float(max_distance_m) + 1e-3
    lat, lon = graph.vertex_lat, graph.vertex_lon
    return bool(_all_beyond(points, link, lat, lon, ends, start_m, metres, limit))


@njit(cache=True)  # type: ignore[misc]
def _reached_stops(
    stops: IntArray,
    stop_v: IntArray,
    link: FloatArray,
    cost_v: FloatArray,
    time_v: FloatArray,
    dist_v: FloatArray,
    link_speed: float,
    link_rel: float,
    max_time_s: float,
    max_distance_m: float,
) -> tuple[Int32Array, Int32Array, FloatArray, FloatArray]:
    """Stops whose vertex the search reached within the limits, the link included.

    Time: the vertex's plus the link's at ``link_speed`` rounded up to whole seconds;
    cost: plus the link's time x ``link_rel``; distance: plus the link.
    """
    n = stops.shape[0]
    out_s = np.empty(n, dtype=np.int32)
    out_t = np.empty(n, dtype=np.int32)
    out_c = np.empty(n)
    out_d = np.empty(n)
    k = 0
    for i in range(n):
        v = stop_v[i]
        if not np.isfinite(cost_v[v]):
            continue
        link_t = link[i] / link_speed
        t = time_v[v] + np.ceil(link_t)
        d = dist_v[v] + link[i]
        if t <= max_time_s and d <= max_distance_m:
            out_s[k] = stops[i]
            out_t[k] = np.int32(t)
            out_c[k] = cost_v[v] + link_t * link_rel
            out_d[k] = d
            k += 1
    return out_s[:k].copy(), out_t[:k].copy(), out_c[:k].copy(), out_d[:k].copy()


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

    Returns
    -------
    AccessResult
        The stops reached, with the search tree (``paths``) for their street paths.
    """
    graph = street_graph(network)
    costs = edge_costs(graph, options)
    inputs = search_inputs(graph, options, costs)
    where, origin = origin, resolve(graph, origin)
    seeds, skip = start_states(graph, costs, origin, reverse=reverse)
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
    if options.mode == "CAR":
        link_speed, link_rel = options.walk_speed_mps, options.walk_reluctance
    else:
        link_speed, link_rel = options.speed_mps, options.reluctance
    stops, times, costs_s, dists = _reached_stops(
        *_stop_links(network), cost_v, time_v, dist_v, float(link_speed), float(link_rel),
        float(max_time_s), max_d,
    )  # fmt: skip
    paths = AccessPaths(graph, costs, inputs, options, where, origin, res, skip, reverse)
    return AccessResult(stops, times, costs_s, dists, paths)


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
