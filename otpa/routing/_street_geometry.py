"""Street geometry for routing: edge angles, partial edges and path polylines.

Angles follow OTP 1.x ``DirectionUtils``: the azimuth (radians clockwise from
north) of the first (last) piece of an edge's polyline, extended along the
polyline until it is at least 10 m long, so a tiny kink at a vertex does not
decide the direction.  OTP stores them on its edges quantised to a signed byte
("brads", measured from south) and reads them back as integer degrees; the turn
cost model uses those integers (:func:`otp_int_degrees`), the walk steps the
radians.

Everything here is computed once per graph (cached in an
:class:`~otpa.util.cache.OwnerCache` weakly keyed on the graph), or per path
(proportional to the path's length, never to the graph's size).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from otpa.street import StreetGraph
from otpa.street.linking import geometry_positions
from otpa.types import BoolArray, FloatArray, Int16Array, Int32Array, IntArray, UInt8Array
from otpa.util.cache import OwnerCache
from otpa.util.geo import EARTH_RADIUS_M

__all__ = [
    "GraphGeometry",
    "edge_part_points",
    "graph_geometry",
    "otp_int_degrees",
    "path_points",
    "polyline_angles",
]

#: OTP 1.x ``DirectionUtils``: a direction is taken over at least this many metres.
MIN_ANGLE_DISTANCE_M = 10.0
_GEOMETRY: OwnerCache[str, GraphGeometry] = OwnerCache()


@njit(cache=True)  # type: ignore[misc]
def _fast_distance(lat0: float, lon0: float, lat1: float, lon1: float) -> float:
    """Equirectangular distance in metres (OTP's ``fastDistance``)."""
    dlat = math.radians(lat1 - lat0)
    dlon = math.radians(lon1 - lon0) * math.cos(math.radians(0.5 * (lat0 + lat1)))
    return EARTH_RADIUS_M * math.sqrt(dlat * dlat + dlon * dlon)


@njit(cache=True)  # type: ignore[misc]
def _azimuth(lat0: float, lon0: float, lat1: float, lon1: float) -> float:
    """Azimuth from point 0 to point 1, radians clockwise from north in (-pi, pi]."""
    cos_lat = math.cos(math.radians(0.5 * (lat0 + lat1)))
    dy = lat1 - lat0
    dx = (lon1 - lon0) * cos_lat
    if abs(dx) < 1e-10 and abs(dy) < 1e-10:
        return math.pi
    return math.atan2(dx, dy)


@njit(cache=True)  # type: ignore[misc]
def _line_angles(lat: FloatArray, lon: FloatArray) -> tuple[float, float]:
    """First and last angle of a polyline (at least two points)."""
    n = lat.shape[0]
    j = 1
    i = 2
    while _fast_distance(lat[0], lon[0], lat[j], lon[j]) < MIN_ANGLE_DISTANCE_M and i < n:
        j = i
        i += 1
    first = _azimuth(lat[0], lon[0], lat[j], lon[j])
    k = n - 2
    i = n - 3
    while _fast_distance(lat[k], lon[k], lat[n - 1], lon[n - 1]) < MIN_ANGLE_DISTANCE_M and i >= 0:
        k = i
        i -= 1
    last = _azimuth(lat[k], lon[k], lat[n - 1], lon[n - 1])
    return first, last


@njit(cache=True)  # type: ignore[misc]
def _edge_angles(
    offsets: IntArray,
    geom_lat: FloatArray,
    geom_lon: FloatArray,
    edge_segment: Int32Array,
    edge_backward: UInt8Array,
) -> tuple[FloatArray, FloatArray]:
    n_e = edge_segment.shape[0]
    first = np.empty(n_e)
    last = np.empty(n_e)
    for e in range(n_e):
        s = edge_segment[e]
        lo = offsets[s]
        hi = offsets[s + 1]
        if edge_backward[e]:
            lat = geom_lat[lo:hi][::-1].copy()
            lon = geom_lon[lo:hi][::-1].copy()
        else:
            lat = geom_lat[lo:hi]
            lon = geom_lon[lo:hi]
        first[e], last[e] = _line_angles(lat, lon)
    return first, last


def polyline_angles(lat: FloatArray, lon: FloatArray) -> tuple[float, float]:
    """OTP's first and last angle (radians clockwise from north) of a polyline.

    Examples
    --------
    >>> a, b = polyline_angles(np.array([0.0, 0.001]), np.array([0.0, 0.0]))
    >>> round(a, 6), round(b, 6)
    (0.0, 0.0)
    """
    if lat.shape[0] < 2:
        return math.pi, math.pi
    first, last = _line_angles(
        np.ascontiguousarray(lat, dtype=np.float64), np.ascontiguousarray(lon, dtype=np.float64)
    )
    return float(first), float(last)


def otp_int_degrees(angle_rad: FloatArray) -> Int16Array:
    """OTP's integer edge angle: radians quantised to a signed byte, read back in degrees.

    The value is the azimuth measured from south, in ``[-180, 180)``; only
    differences of these angles are used.

    Examples
    --------
    >>> otp_int_degrees(np.array([0.0, np.pi / 2, -np.pi / 2])).tolist()
    [-180, -90, 90]
    """
    b = np.floor(np.asarray(angle_rad) * 128.0 / math.pi + 128.0 + 0.5).astype(np.int64)
    b = ((b + 128) % 256) - 128
    out: Int16Array = np.floor(b * 180.0 / 128.0 + 0.5).astype(np.int16)
    return out


@dataclass(frozen=True, eq=False)
class GraphGeometry:
    """Per-graph geometry the router needs (cached on the graph).

    Attributes
    ----------
    first_angle, last_angle
        OTP direction of every edge at its start and end (radians).
    in_deg, out_deg
        The same as OTP's integer degrees (``StreetEdge.getInAngle/getOutAngle``).
    free_flowing
        Vertices with exactly one in-edge and one out-edge: no turn cost there
        (OTP ``IntersectionVertex.inferredFreeFlowing``).
    seg_edge
        ``(n_segments, 2)``: the forward and backward edge of each segment, -1 if none.
    cum_m, seg_len_m
        Distance along its segment's geometry of every geometry point, and the
        geometric length of each segment.
    """

    first_angle: FloatArray
    last_angle: FloatArray
    in_deg: Int16Array
    out_deg: Int16Array
    free_flowing: BoolArray
    seg_edge: Int32Array
    cum_m: FloatArray
    seg_len_m: FloatArray


def graph_geometry(graph: StreetGraph) -> GraphGeometry:
    """The :class:`GraphGeometry` of a graph, computed once per graph and cached."""
    return _GEOMETRY.get_or_build(graph, "geometry", lambda: _graph_geometry(graph))


def _graph_geometry(graph: StreetGraph) -> GraphGeometry:
    first, last = _edge_angles(
        np.asarray(graph.seg_geom_offsets),
        np.asarray(graph.geom_lat),
        np.asarray(graph.geom_lon),
        np.asarray(graph.edge_segment),
        np.asarray(graph.edge_backward),
    )
    in_count = np.diff(np.asarray(graph.in_indptr))
    out_count = np.diff(np.asarray(graph.out_indptr))
    seg_edge = np.full((graph.n_segments, 2), -1, dtype=np.int32)
    seg_edge[graph.edge_segment, graph.edge_backward.astype(np.int64)] = np.arange(
        graph.n_edges, dtype=np.int32
    )
    along = geometry_positions(graph)
    return GraphGeometry(
        first_angle=first,
        last_angle=last,
        in_deg=otp_int_degrees(first),
        out_deg=otp_int_degrees(last),
        free_flowing=(in_count == 1) & (out_count == 1),
        seg_edge=seg_edge,
        cum_m=along.cum_m,
        seg_len_m=along.seg_len_m,
    )


def edge_part_points(
    graph: StreetGraph, edge: int, start: float, end: float
) -> tuple[FloatArray, FloatArray]:
    """``(lat, lon)`` of the part ``start..end`` (fractions, travel direction) of an edge."""
    geo = graph_geometry(graph)
    seg = int(graph.edge_segment[edge])
    lo, hi = int(graph.seg_geom_offsets[seg]), int(graph.seg_geom_offsets[seg + 1])
    lat = np.asarray(graph.geom_lat[lo:hi])
    lon = np.asarray(graph.geom_lon[lo:hi])
    cum = geo.cum_m[lo:hi]
    total = float(geo.seg_len_m[seg])
    if graph.edge_backward[edge]:
        lat, lon, cum = lat[::-1], lon[::-1], total - cum[::-1]
    return _cut(lat, lon, cum, start * total, end * total)


def _cut(
    lat: FloatArray, lon: FloatArray, cum: FloatArray, d0: float, d1: float
) -> tuple[FloatArray, FloatArray]:
    """The polyline between distances ``d0 <= d1`` along it (interpolated ends)."""
    p_lat = np.interp([d0, d1], cum, lat) if cum[-1] > cum[0] else lat[[0, -1]]
    p_lon = np.interp([d0, d1], cum, lon) if cum[-1] > cum[0] else lon[[0, -1]]
    inner = (cum > d0) & (cum < d1)
    out_lat = np.concatenate(([p_lat[0]], lat[inner], [p_lat[1]]))
    out_lon = np.concatenate(([p_lon[0]], lon[inner], [p_lon[1]]))
    return out_lat, out_lon


@njit(cache=True)  # type: ignore[misc]
def _gather(
    edges: Int32Array,
    offsets: IntArray,
    geom_lat: FloatArray,
    geom_lon: FloatArray,
    edge_segment: Int32Array,
    edge_backward: UInt8Array,
) -> tuple[FloatArray, FloatArray]:
    """Concatenated polylines of ``edges`` (travel direction; shared vertices once)."""
    total = 0
    for i in range(edges.shape[0]):
        s = edge_segment[edges[i]]
        total += offsets[s + 1] - offsets[s]
    lat = np.empty(total)
    lon = np.empty(total)
    n = 0
    for i in range(edges.shape[0]):
        e = edges[i]
        s = edge_segment[e]
        lo = offsets[s]
        hi = offsets[s + 1]
        for k in range(hi - lo):
            j = hi - 1 - k if edge_backward[e] else lo + k
            if k == 0 and n > 0 and lat[n - 1] == geom_lat[j] and lon[n - 1] == geom_lon[j]:
                continue
            lat[n] = geom_lat[j]
            lon[n] = geom_lon[j]
            n += 1
    return lat[:n], lon[:n]


def path_points(
    graph: StreetGraph, edges: Int32Array, start_fraction: float, end_fraction: float
) -> tuple[FloatArray, FloatArray]:
    """Polyline of a path of edges whose first and last edge may be partial."""
    if edges.size == 0:
        return np.zeros(0), np.zeros(0)
    if edges.size == 1:
        return edge_part_points(graph, int(edges[0]), start_fraction, end_fraction)
    first = edge_part_points(graph, int(edges[0]), start_fraction, 1.0)
    last = edge_part_points(graph, int(edges[-1]), 0.0, end_fraction)
    parts_lat = [first[0]]
    parts_lon = [first[1]]
    if edges.size > 2:
        mid_lat, mid_lon = _gather(
            np.ascontiguousarray(edges[1:-1], dtype=np.int32),
            np.asarray(graph.seg_geom_offsets),
            np.asarray(graph.geom_lat),
            np.asarray(graph.geom_lon),
            np.asarray(graph.edge_segment),
            np.asarray(graph.edge_backward),
        )
        parts_lat.append(mid_lat)
        parts_lon.append(mid_lon)
    parts_lat.append(last[0])
    parts_lon.append(last[1])
    return dedupe(np.concatenate(parts_lat), np.concatenate(parts_lon))


def dedupe(lat: FloatArray, lon: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Drop consecutive repeated points."""
    if lat.size < 2:
        return lat, lon
    keep = np.ones(lat.size, dtype=bool)
    keep[1:] = (lat[1:] != lat[:-1]) | (lon[1:] != lon[:-1])
    return lat[keep], lon[keep]
