"""Destinations linked to the network: snaps and stop-to-point egress tables (cached).

For every stop, one street search from its street vertex (R5's "stop trees") is read
at the destinations within reach (a k-d tree on the points picks the candidates; the
searches run in one compiled loop, :mod:`otpa.routing.vertex_trees`), so
an egress time is the one the planner's egress search would give: the street time
from the stop's vertex plus the stop's link walked at the mode's speed, kept when
within the access time and distance limits.  The result is a CSR table over points:
``(stop, seconds)`` pairs that the propagation kernel reads.

The tables are cached on the street graph (keyed by the points, the options and a
digest of the stops' street links), so the networks of scenarios that keep the
streets and stops (removed routes, new frequencies or speeds) reuse their base's.

``stops=`` links a part of the stops only (each stop's rows are those of the full
table: its search depends on its own vertex and candidate points alone): no stops for
street-only analyses, the stops one origin's transit search reached for a single-origin
surface.  The snaps are cached apart, so an analysis can snap first and link later.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from scipy.spatial import cKDTree

from otpa.network import TransportNetwork
from otpa.routing.engine import SnapArrays, snap_many
from otpa.routing.street_router import StreetOptions
from otpa.routing.vertex_trees import vertex_tree_readings
from otpa.street import StreetGraph
from otpa.types import FloatArray, Int32Array, IntArray
from otpa.util.cache import OwnerCache
from otpa.util.geo import EARTH_RADIUS_M, haversine_m

__all__ = ["LINK_RADIUS_M", "Egress", "TargetLinks", "link_targets", "local_xy"]

#: Points farther than this from a usable street are not linked (R5 uses 300 m for
#: grid cells; OTP links origins up to 1 km away).
LINK_RADIUS_M = 1000.0
_CACHE_PER_NETWORK = 8
_M_PER_DEG = EARTH_RADIUS_M * math.pi / 180.0


@dataclass(frozen=True, eq=False)
class Egress:
    """Per point, the stops it is reached from and the egress time from each (CSR)."""

    indptr: IntArray
    stop: Int32Array
    time_s: Int32Array

    @property
    def n_links(self) -> int:
        """Number of (point, stop) pairs."""
        return int(self.stop.shape[0])


@dataclass(frozen=True, eq=False)
class TargetLinks:
    """Destinations snapped to the streets, with their egress table."""

    lat: FloatArray
    lon: FloatArray
    snaps: SnapArrays | None
    egress: Egress


def _margin_for(longest_m: FloatArray, options: StreetOptions) -> FloatArray:
    """Seconds to add to a stop tree's time limit so the edges of its points get labelled.

    A point partway along an edge is read off the label of the whole edge, so a
    time-limited search must reach past its limit by the longest such edge (per stop:
    the longest edge of its candidate points).  The slowest way along an edge is a
    walked bicycle (0.8 x walk speed); uphill walks are slower still, hence the factor
    1.5 (and a cap of an hour).
    """
    slowest = 0.8 * min(options.speed_mps, options.walk_speed_mps)
    return np.minimum(1.5 * longest_m / slowest, 3600.0) + 1.0


def local_xy(lat: FloatArray, lon: FloatArray, lat0: float) -> FloatArray:
    """Equirectangular metres around latitude ``lat0`` (for neighbour queries)."""
    x = np.asarray(lon, dtype=np.float64) * _M_PER_DEG * math.cos(math.radians(lat0))
    y = np.asarray(lat, dtype=np.float64) * _M_PER_DEG
    return np.column_stack([x, y])


_CACHE: OwnerCache[tuple[object, ...], TargetLinks] = OwnerCache(max_entries=_CACHE_PER_NETWORK)


class _OneBuild:
    """A lock per key, so that threads asking for one table at once build it once.

    The dask tasks of a matrix each link the destinations (:func:`link_targets`); the first
    two start together, and :class:`~otpa.util.cache.OwnerCache` builds outside its lock,
    so both ran every stop's search (each in its own threads: twice the CPU, and the
    cores shared by four threads).  Under this lock the second waits for the first and
    reads its table from the cache.  A key's lock lives while a thread holds or awaits it.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: dict[object, tuple[threading.Lock, list[int]]] = {}

    @contextmanager
    def __call__(self, key: object) -> Iterator[None]:
        with self._lock:
            entry = self._held.get(key)
            if entry is None:
                entry = self._held[key] = (threading.Lock(), [0])
            entry[1][0] += 1
        try:
            with entry[0]:
                yield
        finally:
            with self._lock:
                entry[1][0] -= 1
                if entry[1][0] == 0:
                    del self._held[key]


_ONE_BUILD = _OneBuild()


def _cached(
    owner: object, key: tuple[object, ...], build: Callable[[], TargetLinks]
) -> TargetLinks:
    """``_CACHE``'s entry, built by one thread at a time per ``(owner, key)``."""
    hit = _CACHE.get(owner, key)
    if hit is not None:
        return hit
    with _ONE_BUILD((id(owner), key)):  # an owner's id is unique while the owner lives
        return _CACHE.get_or_build(owner, key, build)


def _key(
    lat: FloatArray, lon: FloatArray, options: StreetOptions, limits: tuple[float, float]
) -> tuple[object, ...]:
    h = hashlib.sha1(np.ascontiguousarray(lat).tobytes())
    h.update(np.ascontiguousarray(lon).tobytes())
    return (h.hexdigest(), options, limits)


def _egress_streetless(
    network: TransportNetwork,
    lat: FloatArray,
    lon: FloatArray,
    speed: float,
    max_dist: float,
    only: IntArray | None = None,
) -> Egress:
    """Straight-line egress for networks without streets (as the planner's ``stops_near``).

    ``only``: these stops only (default all).
    """
    stops = network.transit.stops
    s_lat = stops.lat.to_numpy(float)
    s_lon = stops.lon.to_numpy(float)
    ids = np.arange(s_lat.shape[0]) if only is None else np.asarray(only, dtype=np.int64)
    lat0 = float(np.nanmean(lat)) if lat.size else 0.0
    tree = cKDTree(local_xy(s_lat[ids], s_lon[ids], lat0))
    rows: list[tuple[IntArray, IntArray, IntArray]] = []
    pts = local_xy(lat, lon, lat0)
    for p, cand in enumerate(tree.query_ball_point(pts, r=max_dist * 1.01 + 1.0)):
        c = ids[np.asarray(cand, dtype=np.int64)]
        if c.size == 0:
            continue
        d = np.asarray(haversine_m(lat[p], lon[p], s_lat[c], s_lon[c]), dtype=np.float64)
        t = np.ceil(d / speed)
        keep = d <= max_dist  # as the planner's ``stops_near``: a distance limit only
        rows.append((np.full(int(keep.sum()), p), c[keep], t[keep].astype(np.int64)))
    return _csr(rows, lat.shape[0])


def _csr(rows: list[tuple[IntArray, IntArray, IntArray]], n_points: int) -> Egress:
    if rows:
        pt = np.concatenate([r[0] for r in rows])
        st = np.concatenate([r[1] for r in rows])
        tm = np.concatenate([r[2] for r in rows])
    else:
        pt = st = tm = np.zeros(0, np.int64)
    order = np.lexsort((st, pt))
    pt, st, tm = pt[order], st[order], tm[order]
    indptr = np.zeros(n_points + 1, dtype=np.int64)
    np.cumsum(np.bincount(pt, minlength=n_points), out=indptr[1:])
    return Egress(indptr, st.astype(np.int32), tm.astype(np.int32))


def _egress_streets(
    network: TransportNetwork,
    snaps: SnapArrays,
    lat: FloatArray,
    lon: FloatArray,
    options: StreetOptions,
    max_time: float,
    max_dist: float,
    stops: IntArray | None = None,
) -> Egress:
    """One street tree per stop vertex, read at the usable points within reach of it.

    ``stops``: link these stops only (default every stop with a street vertex).

    The trees run in one compiled loop (:func:`~otpa.routing.vertex_trees.vertex_tree_readings`,
    label buffers reused from stop to stop), so linking costs the searches, not
    ``stops x edges``; the candidates of all stops come from one k-d tree query and
    the stops sharing a vertex are expanded with array operations.
    """
    graph = network.street
    assert graph is not None
    stop_vertex = np.asarray(network.stop_vertex, dtype=np.int64)
    linked_stops = np.flatnonzero(stop_vertex >= 0)
    if stops is not None:
        linked_stops = np.intersect1d(linked_stops, np.asarray(stops, dtype=np.int64))
    n_points = lat.shape[0]
    usable = np.flatnonzero(snaps.edge >= 0)
    if linked_stops.size == 0 or usable.size == 0:
        return _csr([], n_points)
    link_m = np.nan_to_num(np.asarray(network.stop_link_distance_m, dtype=np.float64))
    link_speed = options.walk_speed_mps if options.mode == "CAR" else options.speed_mps
    vertices, inverse = np.unique(stop_vertex[linked_stops], return_inverse=True)
    lat0 = float(np.mean(lat[usable]))
    point_tree = cKDTree(local_xy(lat[usable], lon[usable], lat0))
    v_xy = local_xy(graph.vertex_lat[vertices], graph.vertex_lon[vertices], lat0)
    # snap connectors are free: a point may be that far from its street
    radius = max_dist + float(np.max(snaps.distance_m[usable], initial=0.0)) + 1.0
    found = point_tree.query_ball_point(v_xy, r=radius)
    counts = np.fromiter((len(c) for c in found), dtype=np.int64, count=vertices.size)
    near = np.fromiter(itertools.chain.from_iterable(found), dtype=np.int64, count=counts.sum())
    # a point is kept only within ``max_dist`` walked from the stop, and that walk runs to
    # an end of the point's edge (no shorter than the straight line to it), then along
    # the edge to the point (``fraction`` of its length; a point within 1 mm of an end is
    # read at that end): points that fail this for both ends (the middle of a country
    # road, snapped from 1 km away) cannot be kept, and left out they do not deepen the
    # stop's search (great-circle metres, as the edges' lengths; 0.1 % + 1 m of slack)
    owner = np.repeat(np.arange(vertices.size), counts)
    pts = usable[near]
    edge = snaps.edge[pts]
    along = np.asarray(graph.edge_length_m, dtype=np.float64)[edge]
    frac = np.asarray(snaps.fraction, dtype=np.float64)[pts]
    v_lat, v_lon = graph.vertex_lat[vertices][owner], graph.vertex_lon[vertices][owner]
    shortest = np.full(pts.shape[0], np.inf)
    for end, share in ((graph.edge_from, frac), (graph.edge_to, 1.0 - frac)):
        w = np.asarray(end)[edge]
        to_end = haversine_m(v_lat, v_lon, graph.vertex_lat[w], graph.vertex_lon[w])
        shortest = np.minimum(shortest, np.asarray(to_end, dtype=np.float64) + share * along)
    close = shortest <= max_dist * 1.001 + 1.0
    counts = np.bincount(owner[close], minlength=vertices.size).astype(np.int64)
    indptr = np.zeros(vertices.size + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    cand = usable[near[close]]
    # each stop tree reaches past the limit by the longest edge of ITS candidates only: one
    # long edge elsewhere in the grid (rural roads: up to the one-hour cap) must not deepen
    # every stop's search
    cand_edge = snaps.edge[cand]
    cand_len = np.where(
        cand_edge >= 0, np.asarray(graph.edge_length_m, dtype=np.float64)[cand_edge], 0.0
    )
    longest = np.zeros(vertices.size, dtype=np.float64)
    has = counts > 0
    if cand_len.size:
        longest[has] = np.maximum.reduceat(cand_len, indptr[:-1][has])
    margin = _margin_for(longest, options)
    reading = vertex_tree_readings(
        network, vertices, options, max_time_s=max_time + margin, point_indptr=indptr,
        point_edge=snaps.edge[cand], point_fraction=snaps.fraction[cand],
    )  # fmt: skip
    # every (stop, candidate of its vertex) pair
    per_stop = counts[inverse]
    stop = np.repeat(linked_stops, per_stop)
    first = np.repeat(indptr[inverse] - (np.cumsum(per_stop) - per_stop), per_stop)
    row = first + np.arange(int(per_stop.sum()), dtype=np.int64)
    t = reading.time_s[row] + np.ceil(link_m[stop] / link_speed)
    d = reading.distance_m[row] + link_m[stop]
    keep = (t <= max_time) & (d <= max_dist)
    return _csr([(cand[row[keep]], stop[keep], t[keep].astype(np.int64))], n_points)


def link_targets(
    network: TransportNetwork,
    lat: FloatArray,
    lon: FloatArray,
    options: StreetOptions,
    *,
    max_time_s: float,
    max_distance_m: float,
    stops: IntArray | None = None,
) -> TargetLinks:
    """Snap destinations and compute their egress tables (cached per street graph and inputs).

    Parameters
    ----------
    network
        The network.
    lat, lon
        Destination coordinates.
    options
        Street mode and costs of the egress (as the planner's).
    max_time_s, max_distance_m
        Egress limits (the planner's ``maxWalkDistance / speed`` and ``maxWalkDistance``).
    stops
        Link only these stops (their rows are those of the full table; the others have
        none).  Default: every stop.  An empty array links none (street-only analyses);
        a table of some stops only is not cached (one origin's reached stops).
    """
    lat = np.ascontiguousarray(lat, dtype=np.float64)
    lon = np.ascontiguousarray(lon, dtype=np.float64)
    key = _key(lat, lon, options, (float(max_time_s), float(max_distance_m)))
    owner: object = network
    if network.street is not None:
        # the table depends on the streets and on the stops' links only: a scenario that
        # changes the timetable (not the stops) shares its base's street graph and finds
        # the base's table here instead of running every stop's street search again
        owner = network.street
        key = (*key, _stop_links_key(network))
    subset = None if stops is None else np.unique(np.asarray(stops, dtype=np.int64))

    def build() -> TargetLinks:
        return _link(network, lat, lon, options, max_time_s, max_distance_m, subset)

    if subset is not None and subset.size:
        return build()
    return _cached(owner, (*key, "all" if subset is None else "none"), build)


def _stop_links_key(network: TransportNetwork) -> str:
    """A digest of what the egress searches read of the stops: their vertices and links."""
    h = hashlib.sha1(np.ascontiguousarray(network.stop_vertex, dtype=np.int64).tobytes())
    h.update(np.ascontiguousarray(network.stop_link_distance_m, dtype=np.float64).tobytes())
    return h.hexdigest()


def _link(
    network: TransportNetwork,
    lat: FloatArray,
    lon: FloatArray,
    options: StreetOptions,
    max_time_s: float,
    max_distance_m: float,
    stops: IntArray | None,
) -> TargetLinks:
    if network.street is None:
        speed = options.speed_mps
        egress = (
            _csr([], lat.shape[0])
            if stops is not None and stops.size == 0
            else _egress_streetless(network, lat, lon, speed, max_distance_m, stops)
        )
        return TargetLinks(lat, lon, None, egress)
    graph = network.street
    h = _key(lat, lon, options, (0.0, 0.0))[0]
    # the snaps, cached apart: a single-origin surface snaps its points before its
    # transit search and links the reached stops after it
    snaps = _SNAPS.get_or_build(graph, (h, options), lambda: _snap(graph, lat, lon, options))
    if stops is not None and stops.size == 0:
        egress = _csr([], lat.shape[0])
    else:
        egress = _egress_streets(
            network, snaps, lat, lon, options, max_time_s, max_distance_m, stops
        )
    return TargetLinks(lat, lon, snaps, egress)


_SNAPS: OwnerCache[tuple[object, ...], SnapArrays] = OwnerCache(max_entries=_CACHE_PER_NETWORK)


def _snap(
    graph: StreetGraph, lat: FloatArray, lon: FloatArray, options: StreetOptions
) -> SnapArrays:
    return snap_many(graph, lat, lon, options.mode, LINK_RADIUS_M)
