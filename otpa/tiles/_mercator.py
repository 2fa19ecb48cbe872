"""Web mercator tile arithmetic: lon/lat to world coordinates, tile checks and bounds.

World coordinates are normalised web mercator: ``X`` from 0 (180° W) to 1 (180° E),
``Y`` from 0 (85.05° N) to 1 (85.05° S), so a tile ``z/x/y`` covers
``[x, x + 1] / 2**z`` by ``[y, y + 1] / 2**z``, row 0 at the top, as every web map uses.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from otpa.errors import OtpaError
from otpa.types import FloatArray

__all__ = ["MAX_LAT", "MAX_ZOOM", "TileError", "check_tile", "tile_bounds_3857", "world_xy"]

#: Deepest zoom level accepted (about 2 cm per pixel at the equator).
MAX_ZOOM = 24
#: Latitude limit of the web mercator square.
MAX_LAT = 85.0511287798066
_HALF_WORLD_M = math.pi * 6378137.0


class TileError(ValueError, OtpaError):
    """A tile request names an unknown layer or format, or a tile that does not exist."""


def world_xy(lat: npt.ArrayLike, lon: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Normalised web mercator ``(X, Y)`` of WGS84 points (see the module docstring).

    Examples
    --------
    >>> x, y = world_xy([0.0], [0.0])
    >>> float(x[0]), float(y[0])
    (0.5, 0.5)
    """
    lat_a = np.clip(np.asarray(lat, dtype=np.float64), -MAX_LAT, MAX_LAT)
    lon_a = np.asarray(lon, dtype=np.float64)
    x = (lon_a + 180.0) / 360.0
    y = 0.5 - np.log(np.tan(np.pi / 4.0 + np.radians(lat_a) / 2.0)) / (2.0 * np.pi)
    return x, y


def check_tile(z: int, x: int, y: int) -> None:
    """Raise :class:`TileError` unless ``z/x/y`` names a tile of the web mercator tiling.

    Examples
    --------
    >>> check_tile(1, 2, 0)
    Traceback (most recent call last):
    ...
    otpa.tiles._mercator.TileError: tile 1/2/0 does not exist: x and y must be within 0..1 at zoom 1
    """
    if not 0 <= z <= MAX_ZOOM:
        msg = f"tile zoom must be within 0..{MAX_ZOOM}, got {z}"
        raise TileError(msg)
    n = 1 << z
    if not (0 <= x < n and 0 <= y < n):
        msg = f"tile {z}/{x}/{y} does not exist: x and y must be within 0..{n - 1} at zoom {z}"
        raise TileError(msg)


def tile_bounds_3857(z: int, x: int, y: int) -> tuple[float, float, float, float]:
    """``(xmin, ymin, xmax, ymax)`` of a tile in web mercator metres (EPSG:3857).

    Examples
    --------
    >>> [round(v) for v in tile_bounds_3857(1, 0, 0)]
    [-20037508, 0, 0, 20037508]
    """
    check_tile(z, x, y)
    size = 2.0 * _HALF_WORLD_M / (1 << z)
    xmin = -_HALF_WORLD_M + x * size
    ymax = _HALF_WORLD_M - y * size
    return (xmin, ymax - size, xmin + size, ymax)
