"""Geodesy helpers on WGS84 lon/lat coordinates (vectorised, numpy)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["EARTH_RADIUS_M", "haversine_m", "polyline_length_m"]

#: Mean Earth radius used by OTP's spherical distance library (metres).
EARTH_RADIUS_M = 6_371_010.0

ArrayLike = npt.ArrayLike


def haversine_m(lat1: ArrayLike, lon1: ArrayLike, lat2: ArrayLike, lon2: ArrayLike) -> Any:
    """Great-circle distance in metres between points given in degrees.

    Parameters
    ----------
    lat1, lon1, lat2, lon2
        Coordinates in decimal degrees; arrays broadcast.

    Returns
    -------
    float or numpy.ndarray
        Distance in metres.

    Examples
    --------
    >>> round(float(haversine_m(0.0, 0.0, 0.0, 1.0)))
    111195
    """
    p1 = np.radians(np.asarray(lat1, dtype=np.float64))
    p2 = np.radians(np.asarray(lat2, dtype=np.float64))
    dphi = p2 - p1
    dlmb = np.radians(np.asarray(lon2, dtype=np.float64) - np.asarray(lon1, dtype=np.float64))
    a = np.sin(dphi / 2.0) ** 2 + np.cos(p1) * np.cos(p2) * np.sin(dlmb / 2.0) ** 2
    return 2.0 * EARTH_RADIUS_M * np.arcsin(np.sqrt(np.clip(a, 0.0, 1.0)))


def polyline_length_m(lat: ArrayLike, lon: ArrayLike) -> float:
    """Length in metres of a polyline given as coordinate arrays.

    Examples
    --------
    >>> round(polyline_length_m([0.0, 0.0, 1.0], [0.0, 1.0, 1.0]))
    222390
    """
    la = np.asarray(lat, dtype=np.float64)
    lo = np.asarray(lon, dtype=np.float64)
    if la.size < 2:
        return 0.0
    return float(np.sum(haversine_m(la[:-1], lo[:-1], la[1:], lo[1:])))
