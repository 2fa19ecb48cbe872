"""Slippy-map tiles (``z/x/y``, web mercator, 256 pixels) over time surfaces.

Tile ``(z, x, y)`` covers column ``x`` and row ``y`` of the ``2**z x 2**z`` square tiling
of the web mercator world, row 0 at the top (north), as every web map uses. A tile's
pixels are read from a grid surface cell by cell (:mod:`otpa.analysis.sampling`), or a
surface is computed directly on the tile's cells (:func:`tile_grid`).
"""

from __future__ import annotations

import math

import numpy as np
import xarray as xr

from otpa.analysis._layout import grid_of
from otpa.analysis.grid import Grid
from otpa.analysis.mercator import MERCATOR_RADIUS_M, mercator_lat, mercator_lon
from otpa.analysis.sampling import cell_columns, cell_rows, gather, surface_plane
from otpa.errors import InvalidArgumentError
from otpa.types import Float32Array, FloatArray

__all__ = [
    "MAX_ZOOM",
    "TILE_SIZE",
    "check_tile",
    "pixel_centres",
    "tile_bounds",
    "tile_grid",
    "tile_travel_times",
]

#: Pixels along a tile side.
TILE_SIZE = 256
#: Deepest zoom level accepted (about 2 cm per pixel at the equator).
MAX_ZOOM = 30
_HALF_WORLD_M = math.pi * MERCATOR_RADIUS_M


def check_tile(z: int, x: int, y: int) -> None:
    """Raise ``ValueError`` unless ``z/x/y`` names a tile of the web mercator tiling.

    Parameters
    ----------
    z, x, y
        Zoom level, column and row.
    """
    if not 0 <= z <= MAX_ZOOM:
        msg = f"tile zoom must be within 0..{MAX_ZOOM}, got {z}"
        raise InvalidArgumentError(msg)
    n = 2**z
    if not (0 <= x < n and 0 <= y < n):
        msg = f"tile {z}/{x}/{y} does not exist: x and y must be within 0..{n - 1} at zoom {z}"
        raise InvalidArgumentError(msg)


def tile_bounds(z: int, x: int, y: int) -> tuple[float, float, float, float]:
    """``(xmin, ymin, xmax, ymax)`` of a tile in web mercator metres (EPSG:3857).

    Examples
    --------
    >>> [round(v) for v in tile_bounds(1, 0, 0)]
    [-20037508, 0, 0, 20037508]
    """
    check_tile(z, x, y)
    size = 2.0 * _HALF_WORLD_M / 2**z
    xmin = -_HALF_WORLD_M + x * size
    ymax = _HALF_WORLD_M - y * size
    return (xmin, ymax - size, xmin + size, ymax)


def pixel_centres(z: int, x: int, y: int, size: int = TILE_SIZE) -> tuple[FloatArray, FloatArray]:
    """Longitudes of a tile's pixel columns and latitudes of its pixel rows (row 0 north).

    Parameters
    ----------
    z, x, y
        The tile.
    size
        Pixels along a side.

    Returns
    -------
    tuple of numpy.ndarray
        ``(lon, lat)`` in degrees, ``size`` values each.
    """
    xmin, _, xmax, ymax = tile_bounds(z, x, y)
    step = (xmax - xmin) / size
    offsets = (np.arange(size, dtype=np.float64) + 0.5) * step
    return mercator_lon(xmin + offsets), mercator_lat(ymax - offsets)


def tile_grid(z: int, x: int, y: int, *, cells: int = TILE_SIZE) -> Grid:
    """An EPSG:3857 grid of ``cells x cells`` square cells exactly covering a tile.

    With ``cells=256`` each cell is one pixel; fewer cells make each one a block of pixels.

    Parameters
    ----------
    z, x, y
        The tile.
    cells
        Cells along a side (a divisor of 256 keeps cells aligned to pixels).

    Returns
    -------
    Grid
        Row 0 is the tile's southernmost row (the grid convention).
    """
    if cells < 1:
        msg = f"cells must be positive, got {cells}"
        raise InvalidArgumentError(msg)
    xmin, ymin, xmax, _ = tile_bounds(z, x, y)
    step = (xmax - xmin) / cells
    return Grid("EPSG:3857", xmin + step / 2.0, ymin + step / 2.0, step, step, cells, cells)


def tile_travel_times(
    surface: xr.Dataset | xr.DataArray,
    z: int,
    x: int,
    y: int,
    *,
    size: int = TILE_SIZE,
    percentile: int | None = None,
) -> Float32Array:
    """Travel times of a grid surface at the pixel centres of a tile.

    Each pixel takes the value of the surface cell its centre falls in; pixels off the
    surface's grid are NaN. Vectorised: one index per pixel row and column, then one gather.

    Parameters
    ----------
    surface
        A grid time surface (any CRS).
    z, x, y
        The tile.
    size
        Pixels along a side.
    percentile
        Which percentile; default the first one.

    Returns
    -------
    numpy.ndarray
        float32 seconds, shape ``(size, size)``, row 0 at the top (north), as in an image.
    """
    plane = surface_plane(surface, percentile)
    grid = grid_of(surface)
    lon, lat = pixel_centres(z, x, y, size)
    return gather(plane, cell_rows(grid, lat), cell_columns(grid, lon), mode="outer")
