"""Shapes of analysis results as Web Mercator coordinate lists for Bokeh glyphs.

Pure numpy/shapely (no Bokeh import): isochrone polygons become ``MultiPolygons``
columns, grid cells become rectangle centres and sizes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["EARTH_RADIUS_M", "cells_frame", "lonlat_from_mercator", "mercator", "multipolygons"]

#: Radius of the Web Mercator sphere (EPSG:3857), metres.
EARTH_RADIUS_M = 6378137.0


def mercator(
    lon: npt.ArrayLike, lat: npt.ArrayLike
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Web Mercator ``(x, y)`` metres of WGS84 longitudes and latitudes."""
    lon_a = np.asarray(lon, dtype=np.float64)
    lat_a = np.clip(np.asarray(lat, dtype=np.float64), -85.05112878, 85.05112878)
    x = np.radians(lon_a) * EARTH_RADIUS_M
    y = np.log(np.tan(np.pi / 4 + np.radians(lat_a) / 2)) * EARTH_RADIUS_M
    return x, y


def lonlat_from_mercator(x: float, y: float) -> tuple[float, float]:
    """``(lon, lat)`` of a Web Mercator point."""
    lon = float(np.degrees(x / EARTH_RADIUS_M))
    lat = float(np.degrees(2 * np.arctan(np.exp(y / EARTH_RADIUS_M)) - np.pi / 2))
    return lon, lat


def _ring(coords: Any) -> tuple[list[float], list[float]]:
    arr = np.asarray(coords, dtype=np.float64)
    x, y = mercator(arr[:, 0], arr[:, 1])
    return x.tolist(), y.tolist()


def multipolygons(geometries: Iterable[Any]) -> tuple[list[Any], list[Any]]:
    """Bokeh ``MultiPolygons`` ``xs``/``ys`` of shapely (multi)polygons in WGS84.

    One entry per geometry: a list of polygons, each a list of rings (exterior first,
    then holes), each a list of coordinates.
    """
    xs: list[Any] = []
    ys: list[Any] = []
    for geom in geometries:
        parts = [] if geom is None or geom.is_empty else getattr(geom, "geoms", [geom])
        gx: list[Any] = []
        gy: list[Any] = []
        for poly in parts:
            rings = [poly.exterior, *poly.interiors]
            coords = [_ring(r.coords) for r in rings]
            gx.append([c[0] for c in coords])
            gy.append([c[1] for c in coords])
        xs.append(gx)
        ys.append(gy)
    return xs, ys


def cells_frame(
    lat: npt.ArrayLike, lon: npt.ArrayLike, values: npt.ArrayLike, size_m: float
) -> dict[str, list[float]]:
    """Columns of square cells centred on points (``x``, ``y``, ``w``, ``h``, ``value``).

    ``size_m`` is the ground size; the Mercator size grows with ``1 / cos(lat)``.
    """
    lat_a = np.asarray(lat, dtype=np.float64).ravel()
    x, y = mercator(np.asarray(lon, dtype=np.float64).ravel(), lat_a)
    scale = 1.0 / np.cos(np.radians(lat_a))
    return {
        "x": x.tolist(),
        "y": y.tolist(),
        "w": (size_m * scale).tolist(),
        "h": (size_m * scale).tolist(),
        "value": np.asarray(values, dtype=np.float64).ravel().tolist(),
        "lat": lat_a.tolist(),
        "lon": np.asarray(lon, dtype=np.float64).ravel().tolist(),
    }
