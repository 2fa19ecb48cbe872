"""GeoTIFF export of grid time surfaces and of rendered tiles (rasterio).

:func:`surface_geotiff` resamples a surface (nearest cell) onto a north-up raster in any CRS
rasterio knows, covering the surface's grid.  Band 1 holds either OTP 1.x's one-byte
greyscale travel times (``units="minutes"``, what ``/surfaces/{id}/raster`` answered: whole
minutes, ``trunc(seconds / 60)`` capped at 120, 128 unreachable, the analyst tiles' pixel
encoding of :mod:`otpa.analysis.otp1.render`) or float32 seconds with NaN as nodata
(``units="seconds"``, the default for library use).  :func:`tile_geotiff` georeferences a
tile's pixels in web mercator.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, TypeAlias

import numpy as np
import numpy.typing as npt
import xarray as xr

from otpa.analysis._layout import grid_of
from otpa.analysis.crs import UnknownCrsError
from otpa.analysis.otp1.render import UNREACHABLE, time_pixels
from otpa.analysis.sampling import surface_plane
from otpa.errors import InvalidArgumentError
from otpa.types import Float32Array

__all__ = [
    "MAX_RASTER_PIXELS",
    "RASTER_UNITS",
    "RasterShape",
    "RasterUnits",
    "raster_shape",
    "surface_geotiff",
    "tile_geotiff",
]

RasterUnits: TypeAlias = Literal["minutes", "seconds"]
#: What a surface raster's band may hold: OTP's one-byte minutes, or float32 seconds.
RASTER_UNITS: tuple[RasterUnits, ...] = ("minutes", "seconds")

#: Largest raster :func:`surface_geotiff` writes unless told otherwise (width x height).
MAX_RASTER_PIXELS = 16_000_000


@dataclass(frozen=True)
class RasterShape:
    """Where and how large a raster is.

    Attributes
    ----------
    crs
        The raster's CRS (as given, e.g. ``"EPSG:4326"``).
    bounds
        ``(xmin, ymin, xmax, ymax)`` in ``crs`` units.
    width, height
        Pixels.
    """

    crs: str
    bounds: tuple[float, float, float, float]
    width: int
    height: int


def _crs(name: str) -> object:
    from rasterio.crs import CRS
    from rasterio.errors import CRSError

    try:
        return CRS.from_user_input(name)
    except CRSError as exc:
        msg = f"unknown CRS {name!r}: {exc}"
        raise UnknownCrsError(msg) from None


def raster_shape(
    surface: xr.Dataset | xr.DataArray,
    *,
    crs: str = "EPSG:4326",
    width: int = 1024,
    height: int = 768,
    resolution: float | None = None,
    max_pixels: int = MAX_RASTER_PIXELS,
) -> RasterShape:
    """The raster covering a grid surface in ``crs``: bounds and size.

    Parameters
    ----------
    surface
        A grid time surface.
    crs
        Target CRS (``"EPSG:4326"``, ``"EPSG:3857"``, any EPSG code or WKT).
    width, height
        Size in pixels, unless ``resolution`` is given.
    resolution
        Pixel size in ``crs`` units; overrides ``width`` and ``height`` (the bounds are
        covered by whole pixels).
    max_pixels
        Refuse rasters larger than this.

    Returns
    -------
    RasterShape

    Raises
    ------
    ValueError
        Unknown CRS, a non-positive size or resolution, too many pixels.
    """
    from rasterio.warp import transform_bounds

    grid = grid_of(surface)
    bounds = transform_bounds(_crs(grid.crs), _crs(crs), *grid.edges, densify_pts=21)
    xmin, ymin, xmax, ymax = (float(v) for v in bounds)
    if not all(math.isfinite(v) for v in (xmin, ymin, xmax, ymax)):
        msg = f"the surface's extent cannot be expressed in {crs}"
        raise InvalidArgumentError(msg)
    if resolution is not None:
        if not (math.isfinite(resolution) and resolution > 0):
            msg = f"resolution must be a positive number, got {resolution!r}"
            raise InvalidArgumentError(msg)
        width = max(1, math.ceil((xmax - xmin) / resolution - 1e-9))
        height = max(1, math.ceil((ymax - ymin) / resolution - 1e-9))
        xmax, ymin = xmin + width * resolution, ymax - height * resolution
    if width < 1 or height < 1:
        msg = f"raster width and height must be positive, got {width} x {height}"
        raise InvalidArgumentError(msg)
    if width * height > max_pixels:
        msg = f"a raster of {width} x {height} pixels exceeds the limit of {max_pixels} pixels"
        raise InvalidArgumentError(msg)
    return RasterShape(crs, (xmin, ymin, xmax, ymax), int(width), int(height))


def _transform(bounds: tuple[float, float, float, float], width: int, height: int) -> object:
    """North-up affine transform of a raster covering ``bounds`` (rasterio's ``from_bounds``)."""
    from affine import Affine

    west, south, east, north = bounds
    return Affine((east - west) / width, 0.0, west, 0.0, -(north - south) / height, north)


def _write(
    data: npt.NDArray[np.generic],
    crs: object,
    bounds: tuple[float, float, float, float],
    nodata: float | None,
) -> bytes:
    from rasterio.io import MemoryFile

    height, width = data.shape
    transform = _transform(bounds, width, height)
    profile = {
        "driver": "GTiff",
        "width": width,
        "height": height,
        "count": 1,
        "dtype": data.dtype.name,
        "crs": crs,
        "transform": transform,
        "nodata": nodata,
        "compress": "deflate",
    }
    with MemoryFile() as memfile:
        with memfile.open(**profile) as dataset:
            dataset.write(data, 1)
        return bytes(memfile.read())


def surface_geotiff(
    surface: xr.Dataset | xr.DataArray,
    shape: RasterShape | None = None,
    *,
    percentile: int | None = None,
    units: RasterUnits = "seconds",
) -> bytes:
    """A single-band GeoTIFF of a grid surface's travel times.

    Parameters
    ----------
    surface
        A grid time surface.
    shape
        Target raster (see :func:`raster_shape`); default the surface's own grid cells.
    percentile
        Which percentile; default the first one.
    units
        ``"seconds"``: float32 seconds, NaN nodata.  ``"minutes"``: OTP 1.x's greyscale
        byte raster, whole minutes capped at 120 and 128 (nodata) where unreachable.

    Returns
    -------
    bytes
        The GeoTIFF.

    Raises
    ------
    ValueError
        For other ``units``.
    """
    if units not in RASTER_UNITS:
        msg = f"unknown raster units {units!r}; expected one of {', '.join(RASTER_UNITS)}"
        raise InvalidArgumentError(msg)
    from rasterio.warp import Resampling, reproject

    grid = grid_of(surface)
    plane = surface_plane(surface, percentile)
    north_up: Float32Array = np.ascontiguousarray(plane[::-1])
    if shape is None:
        return _encoded(north_up, _crs(grid.crs), grid.edges, units)
    destination = np.full((shape.height, shape.width), np.nan, dtype=np.float32)
    dst_crs = _crs(shape.crs)
    reproject(
        source=north_up,
        destination=destination,
        src_transform=_transform(grid.edges, grid.nx, grid.ny),
        src_crs=_crs(grid.crs),
        src_nodata=np.nan,
        dst_transform=_transform(shape.bounds, shape.width, shape.height),
        dst_crs=dst_crs,
        dst_nodata=np.nan,
        resampling=Resampling.nearest,
    )
    return _encoded(destination, dst_crs, shape.bounds, units)


def _encoded(
    seconds: Float32Array,
    crs: object,
    bounds: tuple[float, float, float, float],
    units: RasterUnits,
) -> bytes:
    if units == "seconds":
        return _write(seconds, crs, bounds, float("nan"))
    return _write(time_pixels(seconds), crs, bounds, float(UNREACHABLE))


def tile_geotiff(pixels: npt.ArrayLike, bounds: tuple[float, float, float, float]) -> bytes:
    """A GeoTIFF of a tile's pixels (one byte band) in web mercator (EPSG:3857).

    Parameters
    ----------
    pixels
        ``(h, w)`` uint8 pixels (OTP's minute bytes, see :mod:`otpa.analysis.otp1.render`),
        row 0 at the top.
    bounds
        The tile's ``(xmin, ymin, xmax, ymax)`` in EPSG:3857 metres.

    Returns
    -------
    bytes
        The GeoTIFF (nodata 128: unreachable).
    """
    data = np.ascontiguousarray(np.asarray(pixels, dtype=np.uint8))
    return _write(data, _crs("EPSG:3857"), bounds, float(UNREACHABLE))
