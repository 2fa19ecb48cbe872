"""Web mercator (EPSG:3857) maths: metres from degrees and back, on R5's sphere."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from otpa.types import FloatArray

__all__ = [
    "MERCATOR_HALF_WORLD_M",
    "MERCATOR_MAX_LAT",
    "MERCATOR_RADIUS_M",
    "mercator_lat",
    "mercator_lon",
    "mercator_x",
    "mercator_y",
]

#: Radius of the web mercator sphere (EPSG:3857), metres.
MERCATOR_RADIUS_M = 6_378_137.0
#: Latitude at which the web mercator world becomes square (degrees).
MERCATOR_MAX_LAT = 85.051_128_779_806_59
#: Half the width of the web mercator world (metres): x and y lie within ``±`` this.
MERCATOR_HALF_WORLD_M = math.pi * MERCATOR_RADIUS_M


def mercator_x(lon: npt.ArrayLike) -> FloatArray:
    """Web mercator x (metres) of longitudes in degrees."""
    return np.radians(np.asarray(lon, dtype=np.float64)) * MERCATOR_RADIUS_M


def mercator_y(lat: npt.ArrayLike) -> FloatArray:
    """Web mercator y (metres) of latitudes in degrees (valid within ``±MERCATOR_MAX_LAT``)."""
    phi = np.radians(np.asarray(lat, dtype=np.float64))
    return np.log(np.tan(np.pi / 4.0 + phi / 2.0)) * MERCATOR_RADIUS_M


def mercator_lon(x: npt.ArrayLike) -> FloatArray:
    """Longitude in degrees of web mercator x (metres)."""
    return np.degrees(np.asarray(x, dtype=np.float64) / MERCATOR_RADIUS_M)


def mercator_lat(y: npt.ArrayLike) -> FloatArray:
    """Latitude in degrees of web mercator y (metres)."""
    ratio = np.asarray(y, dtype=np.float64) / MERCATOR_RADIUS_M
    return np.degrees(2.0 * np.arctan(np.exp(ratio)) - np.pi / 2.0)
