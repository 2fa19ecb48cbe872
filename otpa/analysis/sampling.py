"""Reading a grid time surface at arbitrary places: points, raster pixels, map tiles.

A place takes the value of the grid cell it falls in (nearest cell centre), so a value read
here is always one of the surface's own travel times; places outside the grid are
unreachable (NaN). Grids are separable (x depends on longitude only, y on latitude only, in
both EPSG:4326 and EPSG:3857), so a raster of ``h x w`` pixels needs only ``h + w`` index
computations and one fancy-indexing gather: no per-pixel Python.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt
import xarray as xr

from otpa.analysis._layout import grid_of, is_grid
from otpa.analysis.grid import Grid
from otpa.analysis.mercator import mercator_x, mercator_y
from otpa.errors import InvalidArgumentError
from otpa.types import Float32Array, FloatArray, IntArray

__all__ = [
    "cell_columns",
    "cell_rows",
    "gather",
    "sample_surface",
    "surface_plane",
]


def surface_plane(
    surface: xr.Dataset | xr.DataArray, percentile: int | None = None
) -> Float32Array:
    """The ``(ny, nx)`` travel times (seconds, NaN unreachable) of one percentile of a grid surface.

    Parameters
    ----------
    surface
        A grid time surface or its ``travel_time`` variable.
    percentile
        Which percentile; default the first one of the surface.

    Returns
    -------
    numpy.ndarray
        float32, row 0 the southernmost row (the surface's own layout).

    Raises
    ------
    ValueError
        Not a grid surface, or the percentile is not in it.
    """
    tt = surface["travel_time"] if isinstance(surface, xr.Dataset) else surface
    if not is_grid(tt):
        msg = f"a grid time surface is needed (dims y, x), got dims {tuple(tt.dims)}"
        raise InvalidArgumentError(msg)
    if "percentile" in tt.dims:
        if percentile is None:
            tt = tt.isel(percentile=0)
        else:
            available = [int(p) for p in tt["percentile"].values]
            if int(percentile) not in available:
                msg = f"percentile {percentile} is not in the surface (it has {available})"
                raise InvalidArgumentError(msg)
            tt = tt.sel(percentile=int(percentile))
    return np.asarray(tt.transpose("y", "x").values, dtype=np.float32)


def _axis_index(coord: FloatArray, start: float, step: float, n: int) -> IntArray:
    """Cell index along one axis of CRS coordinates (-1 outside the grid or not finite)."""
    with np.errstate(invalid="ignore"):
        position = np.floor((coord - (start - step / 2.0)) / step)
    inside = np.isfinite(position) & (position >= 0) & (position < n)
    return np.where(inside, np.nan_to_num(position, nan=-1.0), -1).astype(np.int64)


def cell_columns(grid: Grid, lon: npt.ArrayLike) -> IntArray:
    """Column of the cell each longitude (degrees) falls in; -1 outside the grid."""
    values = np.asarray(lon, dtype=np.float64)
    x = values if grid.crs == "EPSG:4326" else mercator_x(values)
    return _axis_index(np.asarray(x, dtype=np.float64), grid.x0, grid.dx, grid.nx)


def cell_rows(grid: Grid, lat: npt.ArrayLike) -> IntArray:
    """Row of the cell each latitude (degrees) falls in (row 0 south); -1 outside the grid."""
    values = np.asarray(lat, dtype=np.float64)
    if grid.crs == "EPSG:4326":
        y = values
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            y = mercator_y(np.clip(values, -89.9999, 89.9999))
    return _axis_index(np.asarray(y, dtype=np.float64), grid.y0, grid.dy, grid.ny)


def gather(
    plane: Float32Array,
    rows: IntArray,
    cols: IntArray,
    *,
    mode: Literal["points", "outer"] = "points",
) -> Float32Array:
    """Values of a ``(ny, nx)`` plane at cell indices; NaN where an index is -1.

    Parameters
    ----------
    plane
        The travel times.
    rows, cols
        Cell indices from :func:`cell_rows` / :func:`cell_columns`.
    mode
        ``"points"``: ``rows`` and ``cols`` pair up (same length);
        ``"outer"``: every row with every column, a ``(len(rows), len(cols))`` raster.

    Returns
    -------
    numpy.ndarray
        float32 seconds.
    """
    if mode == "outer":
        r, c = rows[:, None], cols[None, :]
    else:
        r, c = rows, cols
    valid = (r >= 0) & (c >= 0)
    values = plane[np.where(valid, r, 0), np.where(valid, c, 0)]
    return np.where(valid, values, np.float32(np.nan)).astype(np.float32)


def sample_surface(
    surface: xr.Dataset | xr.DataArray,
    lat: npt.ArrayLike,
    lon: npt.ArrayLike,
    *,
    percentile: int | None = None,
) -> Float32Array:
    """Travel times of a grid surface at points (the value of the cell each point is in).

    Parameters
    ----------
    surface
        A grid time surface.
    lat, lon
        Point coordinates in degrees (same length).
    percentile
        Which percentile; default the first one.

    Returns
    -------
    numpy.ndarray
        float32 seconds; NaN for points outside the grid or in unreachable cells.

    Examples
    --------
    >>> from otpa.analysis._layout import surface_dataset
    >>> grid = Grid.from_bounds(0.0, 0.0, 0.02, 0.02, cell_size_m=1000.0)
    >>> ds = surface_dataset(grid, np.arange(grid.n_cells, dtype=np.float32)[None], [50], attrs={})
    >>> sample_surface(ds, [0.001, 0.019, 1.0], [0.001, 0.001, 0.0]).tolist()
    [0.0, 6.0, nan]
    """
    plane = surface_plane(surface, percentile)
    grid = grid_of(surface)
    lat_a = np.atleast_1d(np.asarray(lat, dtype=np.float64))
    lon_a = np.atleast_1d(np.asarray(lon, dtype=np.float64))
    if lat_a.shape != lon_a.shape:
        msg = f"lat and lon must have the same shape, got {lat_a.shape} and {lon_a.shape}"
        raise InvalidArgumentError(msg)
    return gather(plane, cell_rows(grid, lat_a), cell_columns(grid, lon_a))
