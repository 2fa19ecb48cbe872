"""OTP's "timegrid": a lon/lat travel-time grid packed into an 8-bit RGBA PNG.

The format of OTP 1.x's ``/timegrid`` (``TimeGridWs``), which web clients decode in a canvas:

* one pixel per grid cell; image row 0 is the **southernmost** row of cells (OTP wrote row
  ``y - yMin``), column 0 the westernmost;
* ``R`` = low byte and ``G`` = high byte of the travel time in whole seconds; ``65535``
  means unreachable, longer times are clamped to ``65534``;
* ``B`` = the cell's off-road distance as a percentage of the cell size, clamped to
  ``0..255``; ``A`` = 255 (so canvases do not pre-multiply the colours);
* text chunks (and the same HTTP headers): ``OTPA-Grid-Corner`` = ``"lat,lon"`` of the
  centre of cell ``[0, 0]`` (``%.8f``), ``OTPA-Grid-Cell-Size`` = ``"dLat,dLon"``
  (``%.12f``), ``OTPA-OffRoad-Dist`` = the off-road distance limit in metres (``%f``).

:func:`encode_timegrid` writes it from a grid surface and :func:`decode_timegrid` reads it
back.
"""

from __future__ import annotations

import datetime as dt
import io
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import xarray as xr
from PIL import Image
from PIL.PngImagePlugin import PngInfo

from otpa.analysis._layout import grid_of
from otpa.analysis.grid import Grid
from otpa.analysis.sampling import surface_plane
from otpa.errors import InvalidArgumentError
from otpa.types import FloatArray, UInt8Array

__all__ = [
    "CELL_SIZE_KEY",
    "CORNER_KEY",
    "OFFROAD_KEY",
    "UNREACHABLE_Z",
    "TimeGrid",
    "decode_timegrid",
    "encode_timegrid",
    "timegrid_metadata",
    "timegrid_rgba",
]

CORNER_KEY = "OTPA-Grid-Corner"
CELL_SIZE_KEY = "OTPA-Grid-Cell-Size"
OFFROAD_KEY = "OTPA-OffRoad-Dist"
#: The z value of an unreachable cell.
UNREACHABLE_Z = 65535
_MAX_Z = 65534


@dataclass(frozen=True, eq=False)
class TimeGrid:
    """A decoded timegrid.

    Attributes
    ----------
    travel_time
        ``(ny, nx)`` float64 seconds, NaN unreachable; row 0 south.
    offroad_pct
        ``(ny, nx)`` uint8: off-road distance in percent of the cell size.
    corner
        ``(lat, lon)`` of the centre of cell ``[0, 0]``.
    cell_size
        ``(dlat, dlon)`` in degrees.
    offroad_distance_m
        The off-road limit the grid was made with.
    """

    travel_time: FloatArray
    offroad_pct: UInt8Array
    corner: tuple[float, float]
    cell_size: tuple[float, float]
    offroad_distance_m: float

    @property
    def grid(self) -> Grid:
        """The EPSG:4326 grid of the cells."""
        ny, nx = self.travel_time.shape
        lat0, lon0 = self.corner
        dlat, dlon = self.cell_size
        return Grid("EPSG:4326", lon0, lat0, dlon, dlat, nx, ny)


def timegrid_metadata(grid: Grid, offroad_distance_m: float) -> dict[str, str]:
    """The three ``OTPA-*`` values (PNG text chunks and HTTP headers) of a grid.

    Examples
    --------
    >>> timegrid_metadata(Grid("EPSG:4326", -84.39, 33.75, 0.002, 0.0018, 3, 2), 150)
    ... # doctest: +NORMALIZE_WHITESPACE
    {'OTPA-Grid-Corner': '33.75000000,-84.39000000',
     'OTPA-Grid-Cell-Size': '0.001800000000,0.002000000000',
     'OTPA-OffRoad-Dist': '150.000000'}
    """
    if grid.crs != "EPSG:4326":
        msg = f"a timegrid needs a lon/lat (EPSG:4326) grid, got {grid.crs}"
        raise InvalidArgumentError(msg)
    return {
        CORNER_KEY: f"{grid.y0:.8f},{grid.x0:.8f}",
        CELL_SIZE_KEY: f"{grid.dy:.12f},{grid.dx:.12f}",
        OFFROAD_KEY: f"{float(offroad_distance_m):f}",
    }


def timegrid_rgba(
    travel_time_s: npt.ArrayLike, offroad_m: npt.ArrayLike, cell_size_m: float
) -> UInt8Array:
    """The ``(ny, nx, 4)`` RGBA pixels of travel times and off-road distances.

    Parameters
    ----------
    travel_time_s
        ``(ny, nx)`` seconds, NaN unreachable; row 0 south.
    offroad_m
        ``(ny, nx)`` metres (``inf`` allowed: 255 %).
    cell_size_m
        The grid's cell size (OTP's ``precisionMeters``), the unit of the blue channel.

    Returns
    -------
    numpy.ndarray
        uint8; image row 0 is grid row 0 (south), as OTP wrote it.
    """
    t = np.asarray(travel_time_s, dtype=np.float64)
    d = np.asarray(offroad_m, dtype=np.float64)
    if t.ndim != 2 or t.shape != d.shape:
        msg = f"times and off-road distances must be 2-d of one shape, got {t.shape}, {d.shape}"
        raise InvalidArgumentError(msg)
    finite = np.isfinite(t)
    z = np.where(finite, np.clip(np.rint(np.where(finite, t, 0.0)), 0, _MAX_Z), UNREACHABLE_Z)
    z = z.astype(np.int64)
    pct = np.clip(np.rint(np.nan_to_num(d / cell_size_m * 100.0, posinf=255.0)), 0, 255)
    rgba = np.empty((*t.shape, 4), dtype=np.uint8)
    rgba[..., 0] = z & 0xFF
    rgba[..., 1] = z >> 8
    rgba[..., 2] = pct.astype(np.uint8)
    rgba[..., 3] = 255
    return rgba


def encode_timegrid(
    surface: xr.Dataset | xr.DataArray,
    *,
    cell_size_m: float,
    offroad_m: npt.ArrayLike | None = None,
    offroad_distance_m: float = 150.0,
    percentile: int | None = None,
) -> tuple[bytes, dict[str, str]]:
    """Write a lon/lat grid surface as OTP's timegrid PNG.

    Parameters
    ----------
    surface
        A grid time surface on an EPSG:4326 grid.
    cell_size_m
        The cell size in metres (OTP's ``precisionMeters``): the blue channel's unit.
    offroad_m
        Per cell, the off-road distance in metres (``(ny, nx)``); zero when not given.
    offroad_distance_m
        The off-road limit, written to ``OTPA-OffRoad-Dist``.
    percentile
        Which percentile; default the first one.

    Returns
    -------
    tuple of (bytes, dict)
        The PNG and its ``OTPA-*`` metadata (also in the PNG's text chunks).
    """
    grid = grid_of(surface)
    metadata = timegrid_metadata(grid, offroad_distance_m)
    plane = surface_plane(surface, percentile)
    distance = np.zeros(grid.shape) if offroad_m is None else np.asarray(offroad_m, np.float64)
    rgba = timegrid_rgba(plane, distance.reshape(grid.shape), cell_size_m)
    info = PngInfo()
    info.add_text("Software", "OTPA")
    info.add_text("Creation Time", dt.datetime.now(dt.UTC).strftime("%a %b %d %H:%M:%S UTC %Y"))
    info.add_text("Description", "Sample grid bitmap")
    for key, value in metadata.items():
        info.add_text(key, value)
    buffer = io.BytesIO()
    Image.fromarray(rgba, mode="RGBA").save(buffer, format="PNG", pnginfo=info)
    return buffer.getvalue(), metadata


def _pair(text: str, key: str) -> tuple[float, float]:
    parts = text.split(",")
    if len(parts) != 2:
        msg = f"timegrid {key} must be two comma-separated numbers, got {text!r}"
        raise InvalidArgumentError(msg)
    return float(parts[0]), float(parts[1])


def decode_timegrid(png: bytes) -> TimeGrid:
    """Read a timegrid PNG (see the module docstring) back into travel times.

    Parameters
    ----------
    png
        The PNG bytes (decode base64 first if it was sent so).

    Returns
    -------
    TimeGrid
        Travel times in seconds (NaN unreachable), the off-road percentages and the grid.

    Raises
    ------
    ValueError
        Not an RGBA PNG with the ``OTPA-*`` text chunks.
    """
    with Image.open(io.BytesIO(png)) as image:
        if image.format != "PNG" or image.mode != "RGBA":
            msg = f"a timegrid is an RGBA PNG, got {image.format} {image.mode}"
            raise InvalidArgumentError(msg)
        text = dict(getattr(image, "text", {}))
        rgba = np.asarray(image, dtype=np.uint8)
    missing = [k for k in (CORNER_KEY, CELL_SIZE_KEY, OFFROAD_KEY) if k not in text]
    if missing:
        msg = f"the PNG lacks the timegrid text chunk(s) {missing}"
        raise InvalidArgumentError(msg)
    z = rgba[..., 0].astype(np.int64) | (rgba[..., 1].astype(np.int64) << 8)
    times = np.where(z == UNREACHABLE_Z, np.nan, z.astype(np.float64))
    return TimeGrid(
        travel_time=times,
        offroad_pct=rgba[..., 2].copy(),
        corner=_pair(text[CORNER_KEY], CORNER_KEY),
        cell_size=_pair(text[CELL_SIZE_KEY], CELL_SIZE_KEY),
        offroad_distance_m=float(text[OFFROAD_KEY]),
    )
