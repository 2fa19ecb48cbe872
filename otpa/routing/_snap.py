"""Snap a coordinate onto the nearest street edge usable by a mode, without changing the graph.

Like OTP 1.x's ``SimpleStreetSplitter`` (origin/destination linking), the point is
projected onto the nearest edge the mode may use -- for BICYCLE also edges a
cyclist can only walk -- in a local equirectangular projection; the result is an
edge and a fraction along it instead of a temporary split vertex.  The candidate
search is the street graph's linking index (:mod:`otpa.street.linking`), built
once per graph and mode and cached on it.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from otpa.errors import InvalidArgumentError
from otpa.osm.model import BICYCLE, CAR, WALK
from otpa.routing._street_geometry import graph_geometry
from otpa.street import StreetGraph
from otpa.street.linking import geometry_positions, link_index, nearest_piece, nearest_pieces
from otpa.types import FloatArray, Int32Array

__all__ = ["SnapArrays", "SnapResult", "mode_bits", "snap", "snap_many"]


def mode_bits(mode: str) -> int:
    """Permission bits an edge needs for a point of ``mode`` to snap to it.

    Examples
    --------
    >>> mode_bits("WALK"), mode_bits("BICYCLE"), mode_bits("CAR")
    (1, 3, 4)
    """
    if mode == "WALK":
        return int(WALK)
    if mode == "BICYCLE":
        return int(BICYCLE | WALK)
    if mode == "CAR":
        return int(CAR)
    msg = f"unknown street mode {mode!r}; expected WALK, BICYCLE or CAR"
    raise InvalidArgumentError(msg)


SnapResult = tuple[int, float, float, float, float]


class SnapArrays(NamedTuple):
    """Snaps of many points; ``edge == -1`` where a point has no usable edge in reach."""

    edge: Int32Array
    fraction: FloatArray
    snap_lat: FloatArray
    snap_lon: FloatArray
    distance_m: FloatArray


def snap_many(
    graph: StreetGraph, lat: FloatArray, lon: FloatArray, mode: str, max_distance_m: float
) -> SnapArrays:
    """Snap many points at once (vectorised :func:`snap`).

    The edge is the direction of the nearest segment that ``mode`` may use (the
    forward one when both may be used) and ``fraction`` the share of it before the
    snapped position, exactly as :func:`snap` returns them.
    """
    bits = mode_bits(mode)
    lat = np.atleast_1d(np.asarray(lat, dtype=np.float64))
    lon = np.atleast_1d(np.asarray(lon, dtype=np.float64))
    n = lat.shape[0]
    out = SnapArrays(
        np.full(n, -1, np.int32), np.zeros(n), np.full(n, np.nan), np.full(n, np.nan),
        np.full(n, np.inf),
    )  # fmt: skip
    ok = np.flatnonzero(np.isfinite(lat) & np.isfinite(lon))
    if ok.size == 0 or graph.n_segments == 0:
        return out
    proj = nearest_pieces(graph, link_index(graph, bits), lat[ok], lon[ok], float(max_distance_m))
    if proj.point.size == 0:
        return out
    point = ok[proj.point]
    sub, t = proj.sub, proj.t
    along = geometry_positions(graph)
    seg = along.seg_of_point[sub]
    total = along.seg_len_m[seg]
    pos = along.cum_m[sub] + t * along.piece_len_m[sub]
    with np.errstate(divide="ignore", invalid="ignore"):
        frac = np.where(total > 0, np.clip(pos / np.where(total > 0, total, 1.0), 0.0, 1.0), 0.0)
    g_lat, g_lon = np.asarray(graph.geom_lat), np.asarray(graph.geom_lon)
    nxt = np.minimum(sub + 1, np.asarray(graph.seg_geom_offsets)[seg + 1] - 1)
    s_lat = g_lat[sub] + t * (g_lat[nxt] - g_lat[sub])
    s_lon = g_lon[sub] + t * (g_lon[nxt] - g_lon[sub])
    seg_edge = graph_geometry(graph).seg_edge[seg]
    perm = np.asarray(graph.edge_perm)
    fwd, back = seg_edge[:, 0], seg_edge[:, 1]
    fwd_ok = (fwd >= 0) & ((perm[np.maximum(fwd, 0)] & bits) != 0)
    back_ok = ~fwd_ok & (back >= 0) & ((perm[np.maximum(back, 0)] & bits) != 0)
    use = fwd_ok | back_ok
    out.edge[point[use]] = np.where(fwd_ok, fwd, back)[use]
    out.fraction[point[use]] = np.where(fwd_ok, frac, 1.0 - frac)[use]
    out.snap_lat[point[use]] = s_lat[use]
    out.snap_lon[point[use]] = s_lon[use]
    out.distance_m[point[use]] = proj.dist_m[use]
    return out


def snap(
    graph: StreetGraph, lat: float, lon: float, mode: str, max_distance_m: float
) -> SnapResult | None:
    """``(edge, fraction, snap_lat, snap_lon, distance_m)`` of the nearest usable edge, or None.

    What :func:`snap_many` gives for the one point, with the same arithmetic on scalars.
    """
    if not (math.isfinite(lat) and math.isfinite(lon)):
        return None
    bits = mode_bits(mode)
    if graph.n_segments == 0:
        return None
    found = nearest_piece(graph, link_index(graph, bits), lat, lon, float(max_distance_m))
    if found is None:
        return None
    sub, t, dist = found
    along = geometry_positions(graph)
    seg = int(along.seg_of_point[sub])
    total = float(along.seg_len_m[seg])
    pos = float(along.cum_m[sub]) + t * float(along.piece_len_m[sub])
    frac = min(max(pos / total, 0.0), 1.0) if total > 0 else 0.0
    g_lat, g_lon = graph.geom_lat, graph.geom_lon
    nxt = min(sub + 1, int(graph.seg_geom_offsets[seg + 1]) - 1)
    s_lat = float(g_lat[sub]) + t * (float(g_lat[nxt]) - float(g_lat[sub]))
    s_lon = float(g_lon[sub]) + t * (float(g_lon[nxt]) - float(g_lon[sub]))
    fwd, back = (int(e) for e in graph_geometry(graph).seg_edge[seg])
    perm = graph.edge_perm
    if fwd >= 0 and int(perm[fwd]) & bits:
        return fwd, frac, s_lat, s_lon, dist
    if back >= 0 and int(perm[back]) & bits:
        return back, 1.0 - frac, s_lat, s_lon, dist
    return None
