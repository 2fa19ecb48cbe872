"""Spatial index of stops: circles through a k-d tree, boxes through a latitude sort.

Points sit on the unit sphere in 3-D, where the straight-line (chord) distance
grows with the great-circle distance, so a k-d tree ball query with the chord
of the search radius finds exactly the stops within that great-circle
distance, anywhere on Earth.  Candidates are then measured with
:func:`otpa.util.geo.haversine_m`, the distance the answers report.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.spatial import cKDTree

from otpa.types import FloatArray, IntArray
from otpa.util.geo import EARTH_RADIUS_M, haversine_m

__all__ = ["StopSpatialIndex"]

# relative slack on the chord radius, so rounding never drops a stop on the circle
_SLACK = 1e-9


def _unit_vectors(lat: FloatArray, lon: FloatArray) -> FloatArray:
    phi, lmb = np.radians(lat), np.radians(lon)
    cos_phi = np.cos(phi)
    return np.column_stack([cos_phi * np.cos(lmb), cos_phi * np.sin(lmb), np.sin(phi)])


class StopSpatialIndex:
    """Find stops (by row number) within a circle or a latitude/longitude box.

    Parameters
    ----------
    lat, lon
        Stop coordinates in degrees; stops with NaN coordinates are never found.
    """

    def __init__(self, lat: FloatArray, lon: FloatArray) -> None:
        lat = np.asarray(lat, dtype=np.float64)
        lon = np.asarray(lon, dtype=np.float64)
        ok = np.flatnonzero(np.isfinite(lat) & np.isfinite(lon))
        self._rows: IntArray = ok.astype(np.int64)
        self._lat = lat[ok]
        self._lon = lon[ok]
        self._tree = cKDTree(_unit_vectors(self._lat, self._lon)) if ok.size else None
        order = np.argsort(self._lat, kind="stable")
        self._by_lat: IntArray = order.astype(np.int64)
        self._sorted_lat = self._lat[order]

    def within_circle(self, lat: float, lon: float, radius_m: float) -> tuple[IntArray, FloatArray]:
        """Stops at most ``radius_m`` (great-circle) from a point, nearest first.

        Returns
        -------
        rows
            Stop row numbers.
        distance_m
            Their distances in metres.
        """
        if self._tree is None or radius_m < 0:
            return np.zeros(0, np.int64), np.zeros(0)
        angle = min(radius_m / EARTH_RADIUS_M, math.pi)
        chord = 2.0 * math.sin(angle / 2.0) * (1.0 + _SLACK) + _SLACK
        centre = _unit_vectors(np.array([lat]), np.array([lon]))[0]
        found = np.asarray(self._tree.query_ball_point(centre, chord), dtype=np.int64)
        dist = np.asarray(haversine_m(lat, lon, self._lat[found], self._lon[found]), dtype=float)
        keep = dist <= radius_m
        found, dist = found[keep], dist[keep]
        order = np.lexsort((self._rows[found], dist))
        return self._rows[found[order]], dist[order]

    def within_box(
        self, min_lat: float, min_lon: float, max_lat: float, max_lon: float
    ) -> IntArray:
        """Stops with ``min_lat <= lat <= max_lat`` and ``min_lon <= lon <= max_lon``, by row."""
        a = int(np.searchsorted(self._sorted_lat, min_lat, side="left"))
        b = int(np.searchsorted(self._sorted_lat, max_lat, side="right"))
        cand = self._by_lat[a:b]
        lon = self._lon[cand]
        hits = cand[(lon >= min_lon) & (lon <= max_lon)]
        return np.sort(self._rows[hits])
