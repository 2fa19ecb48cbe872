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

import numpy as np

from otpa.osm.model import BICYCLE, CAR, WALK
from otpa.routing._street_geometry import graph_geometry
from otpa.street import StreetGraph
from otpa.street.linking import _along, _index, _nearest

__all__ = ["SnapResult", "mode_bits", "snap"]


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
    raise ValueError(msg)


SnapResult = tuple[int, float, float, float, float]


def snap(
    graph: StreetGraph, lat: float, lon: float, mode: str, max_distance_m: float
) -> SnapResult | None:
    """``(edge, fraction, snap_lat, snap_lon, distance_m)`` of the nearest usable edge, or None."""
    bits = mode_bits(mode)
    if not (math.isfinite(lat) and math.isfinite(lon)) or graph.n_segments == 0:
        return None
    index = _index(graph, bits)
    proj = _nearest(graph, index, np.array([lat]), np.array([lon]), float(max_distance_m))
    if proj.point.size == 0:
        return None
    sub, t, dist = int(proj.sub[0]), float(proj.t[0]), float(proj.dist_m[0])
    along = _along(graph)
    seg = int(along.seg_of_point[sub])
    total = float(along.seg_len_m[seg])
    pos = float(along.cum_m[sub]) + t * float(along.piece_len_m[sub])
    frac = min(max(pos / total, 0.0), 1.0) if total > 0 else 0.0
    g_lat, g_lon = graph.geom_lat, graph.geom_lon
    nxt = min(sub + 1, int(graph.seg_geom_offsets[seg + 1]) - 1)
    s_lat = float(g_lat[sub]) + t * (float(g_lat[nxt]) - float(g_lat[sub]))
    s_lon = float(g_lon[sub]) + t * (float(g_lon[nxt]) - float(g_lon[sub]))
    fwd, back = (int(x) for x in graph_geometry(graph).seg_edge[seg])
    perm = graph.edge_perm
    if fwd >= 0 and int(perm[fwd]) & bits:
        return fwd, frac, s_lat, s_lon, dist
    if back >= 0 and int(perm[back]) & bits:
        return back, 1.0 - frac, s_lat, s_lon, dist
    return None
