"""Bilinear sampling of GeoTIFF DEMs in any CRS."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import rasterio
import rasterio.errors
import rasterio.windows
from pyproj import CRS, Transformer

from otpa.errors import ElevationError
from otpa.types import FloatArray, IntArray, PathLike

__all__ = ["as_paths", "raster_crs_name", "sample_raster"]

#: Raster tiles read at once (pixels per side); bounds memory on large DEMs.
_TILE = 2048
_WGS84 = CRS.from_epsg(4326)


def as_paths(paths: PathLike | Sequence[PathLike]) -> list[Path]:
    """One path or a sequence of paths, as a list."""
    if isinstance(paths, (str, os.PathLike)):
        return [Path(paths)]
    return [Path(p) for p in paths]


def _open(path: Path) -> rasterio.io.DatasetReader:
    try:
        ds = rasterio.open(path)
    except (rasterio.errors.RasterioError, OSError) as exc:
        msg = f"cannot read elevation raster {path}: {exc}"
        raise ElevationError(msg) from exc
    if ds.count < 1 or ds.crs is None:
        ds.close()
        msg = f"elevation raster {path} has no band or no coordinate reference system"
        raise ElevationError(msg)
    return ds


def raster_crs_name(path: PathLike) -> str:
    """The CRS of a raster as ``AUTHORITY:CODE`` when known, else its WKT."""
    with _open(Path(path)) as ds:
        crs = CRS.from_user_input(ds.crs.to_wkt())
    auth = crs.to_authority()
    return f"{auth[0]}:{auth[1]}" if auth else crs.to_wkt()


def _to_raster_xy(
    ds: rasterio.io.DatasetReader, lon: FloatArray, lat: FloatArray
) -> tuple[FloatArray, FloatArray]:
    crs = CRS.from_user_input(ds.crs.to_wkt())
    if crs.equals(_WGS84, ignore_axis_order=True):
        return lon, lat
    transformer = Transformer.from_crs(_WGS84, crs, always_xy=True)
    x, y = transformer.transform(lon, lat, errcheck=False)
    return np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)


def _read_tile(
    ds: rasterio.io.DatasetReader, row0: int, col0: int, rows: int, cols: int
) -> FloatArray:
    window = rasterio.windows.Window(col0, row0, cols, rows)
    band = ds.read(1, window=window, masked=True)
    values = np.ma.filled(band.astype(np.float64), np.nan)
    scale = ds.scales[0] if ds.scales else 1.0
    offset = ds.offsets[0] if ds.offsets else 0.0
    if scale != 1.0 or offset != 0.0:
        values = values * scale + offset
    return np.asarray(values, dtype=np.float64)


def _bilinear(
    tile: FloatArray, r: IntArray, c: IntArray, fy: FloatArray, fx: FloatArray
) -> FloatArray:
    weights = (
        ((1.0 - fy) * (1.0 - fx), r, c),
        ((1.0 - fy) * fx, r, c + 1),
        (fy * (1.0 - fx), r + 1, c),
        (fy * fx, r + 1, c + 1),
    )
    total = np.zeros(r.shape[0])
    for w, rr, cc in weights:
        v = tile[np.minimum(rr, tile.shape[0] - 1), np.minimum(cc, tile.shape[1] - 1)]
        total += np.where(w > 0.0, w * v, 0.0)
    return total


def _sample_one(path: Path, lon: FloatArray, lat: FloatArray) -> FloatArray:
    out = np.full(lon.shape[0], np.nan)
    with _open(path) as ds:
        try:
            x, y = _to_raster_xy(ds, lon, lat)
            inv = ~ds.transform
            col = inv.a * x + inv.b * y + inv.c
            row = inv.d * x + inv.e * y + inv.f
            height, width = ds.height, ds.width
            inside = np.isfinite(col) & np.isfinite(row)
            inside &= (col >= 0.0) & (col <= width) & (row >= 0.0) & (row <= height)
            idx = np.flatnonzero(inside)
            if idx.size == 0:
                return out
            # Pixel-centre coordinates, clamped so the half-pixel border extends the edge.
            cx = np.clip(col[idx] - 0.5, 0.0, width - 1.0)
            cy = np.clip(row[idx] - 0.5, 0.0, height - 1.0)
            c0 = np.minimum(np.floor(cx).astype(np.int64), max(width - 2, 0))
            r0 = np.minimum(np.floor(cy).astype(np.int64), max(height - 2, 0))
            fx, fy = cx - c0, cy - r0
            tiles = (r0 // _TILE) * ((width + _TILE - 1) // _TILE) + c0 // _TILE
            order = np.argsort(tiles, kind="stable")
            bounds = np.flatnonzero(np.diff(tiles[order])) + 1
            for group in np.split(order, bounds):
                tr, tc = int(r0[group[0]] // _TILE), int(c0[group[0]] // _TILE)
                row0, col0 = tr * _TILE, tc * _TILE
                rows = min(_TILE + 1, height - row0)
                cols = min(_TILE + 1, width - col0)
                tile = _read_tile(ds, row0, col0, rows, cols)
                out[idx[group]] = _bilinear(
                    tile, r0[group] - row0, c0[group] - col0, fy[group], fx[group]
                )
        except (rasterio.errors.RasterioError, OSError) as exc:
            msg = f"cannot read elevation raster {path}: {exc}"
            raise ElevationError(msg) from exc
    return out


def sample_raster(
    paths: PathLike | Sequence[PathLike], lon: npt.ArrayLike, lat: npt.ArrayLike
) -> FloatArray:
    """Bilinearly interpolated raster values at WGS84 points.

    Parameters
    ----------
    paths
        One or more single-band rasters (GeoTIFF...) in any CRS.  Where they overlap, the
        first raster with a value wins.
    lon, lat
        WGS84 coordinates in degrees (broadcast together).

    Returns
    -------
    numpy.ndarray
        float64 values of the broadcast shape; NaN outside every raster or where a
        neighbouring pixel with non-zero weight is nodata.  Interpolation is between pixel
        centres; within half a pixel of the raster edge the edge pixels are extended.
        Band scale/offset are applied.

    Raises
    ------
    ElevationError
        When a raster cannot be opened or read, or has no CRS.
    """
    lon_b, lat_b = np.broadcast_arrays(
        np.asarray(lon, dtype=np.float64), np.asarray(lat, dtype=np.float64)
    )
    flat_lon, flat_lat = lon_b.ravel(), lat_b.ravel()
    out = np.full(flat_lon.shape[0], np.nan)
    for path in as_paths(paths):
        need = np.flatnonzero(np.isnan(out))
        if need.size == 0:
            # Still validate the remaining files: a bad file is an error, not a no-op.
            _open(path).close()
            continue
        out[need] = _sample_one(path, flat_lon[need], flat_lat[need])
    return out.reshape(lon_b.shape)
