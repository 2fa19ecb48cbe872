"""Isochrones: the areas reachable within travel-time cutoffs, from a grid time surface.

Method: filled contours (contourpy, linear interpolation between cell centres) of the
travel-time grid in the grid's CRS for ``t <= cutoff``. Unreachable (NaN) cells are masked,
and so is a one-cell border added around the grid, so an isochrone never extends past the
centres of reachable cells (as in R5, where unreachable cells count as infinitely far).
Contour rings become shapely polygons with their holes, are optionally simplified, made valid,
transformed to EPSG:4326 and finally **nested**: each cutoff's area is unioned into every
larger cutoff's, so smaller isochrones lie exactly inside larger ones.
"""

from __future__ import annotations

import io
import json
import math
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import shapely
import xarray as xr
from contourpy import FillType, contour_generator

from otpa.analysis._layout import grid_of, is_grid
from otpa.analysis.grid import Grid
from otpa.errors import InvalidArgumentError
from otpa.routing.deadline import check_deadline
from otpa.util.geo import EARTH_RADIUS_M

if TYPE_CHECKING:
    import geopandas as gpd

__all__ = ["isochrone_shapefile_zip", "isochrones", "isochrones_geojson"]

_M_PER_DEG = math.pi * EARTH_RADIUS_M / 180.0


def _surface_array(surface: xr.Dataset | xr.DataArray) -> xr.DataArray:
    if isinstance(surface, xr.Dataset):
        if surface.attrs.get("kind") == "points" or not is_grid(surface):
            msg = (
                "isochrones need a grid time surface (kind 'grid'); this is a point-set "
                "surface: use accessibility() or to_geodataframe() for point sets"
            )
            raise InvalidArgumentError(msg)
        tt = surface["travel_time"].copy(deep=False)
        tt.attrs = {**surface.attrs, **tt.attrs}
        return tt
    if not is_grid(surface):
        msg = f"isochrones need a grid time surface with 'y' and 'x' dims, got {surface.dims}"
        raise InvalidArgumentError(msg)
    return surface


def _cutoffs(cutoffs: Sequence[float]) -> list[float]:
    values = sorted({float(c) for c in cutoffs})
    if not values:
        msg = "give at least one cutoff"
        raise InvalidArgumentError(msg)
    for value in values:
        if not (math.isfinite(value) and value > 0 and value == round(value)):
            msg = f"isochrone cutoffs must be positive whole seconds, got {value!r}"
            raise InvalidArgumentError(msg)
    return values


#: How much (degrees, about 0.1 mm) each isochrone is grown before the next cutoff's area is
#: added, so that every isochrone covers the smaller ones exactly.
NEST_MARGIN_DEG = 1e-9


def _polygons(points: list[Any], offsets: list[Any]) -> shapely.Geometry:
    """contourpy's OuterOffset output (outer ring, then its holes) as one geometry."""
    polygons = []
    for pts, offs in zip(points, offsets, strict=True):
        rings = [pts[offs[i] : offs[i + 1]] for i in range(len(offs) - 1)]
        polygons.append(shapely.Polygon(rings[0], rings[1:]))
    if not polygons:
        return shapely.MultiPolygon()
    return shapely.union_all(polygons)


def _polygonal(geometry: shapely.Geometry) -> shapely.MultiPolygon:
    """Valid polygonal part of a geometry, always as a MultiPolygon."""
    valid = shapely.make_valid(geometry)
    parts = [
        p for p in shapely.get_parts(valid) if isinstance(p, shapely.Polygon | shapely.MultiPolygon)
    ]
    merged = shapely.union_all(parts) if parts else shapely.MultiPolygon()
    if isinstance(merged, shapely.Polygon):
        return shapely.MultiPolygon([merged])
    if isinstance(merged, shapely.MultiPolygon):
        return merged
    return shapely.MultiPolygon(
        [p for p in shapely.get_parts(merged) if isinstance(p, shapely.Polygon)]
    )


def _simplify_tolerance(grid: Grid, simplify_m: float) -> float:
    """``simplify_m`` ground metres in grid units (never more than that in any direction)."""
    _, south, _, north = grid.bounds
    if grid.crs == "EPSG:4326":
        return simplify_m / _M_PER_DEG
    return simplify_m / math.cos(math.radians((south + north) / 2.0))


def _to_wgs84(geometry: shapely.Geometry, grid: Grid) -> shapely.Geometry:
    if grid.crs == "EPSG:4326":
        return geometry
    from pyproj import Transformer

    transformer = Transformer.from_crs("EPSG:3857", "EPSG:4326", always_xy=True)

    def project(xy: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        lon, lat = transformer.transform(xy[:, 0], xy[:, 1])
        return np.column_stack([lon, lat])

    return shapely.transform(geometry, project)


def _contours(
    values: np.ndarray[Any, Any], grid: Grid, cutoffs: list[float], simplify_m: float | None
) -> list[shapely.MultiPolygon]:
    """Nested isochrone geometries (EPSG:4326), one per cutoff, of one 2-D travel-time grid."""
    z = np.pad(np.asarray(values, dtype=np.float64), 1, constant_values=np.nan)
    x = np.concatenate([[grid.x0 - grid.dx], grid.x, [grid.x0 + grid.nx * grid.dx]])
    y = np.concatenate([[grid.y0 - grid.dy], grid.y, [grid.y0 + grid.ny * grid.dy]])
    generator = contour_generator(
        x, y, np.ma.masked_invalid(z), fill_type=FillType.OuterOffset, corner_mask=True
    )
    nested: list[shapely.MultiPolygon] = []
    previous: shapely.Geometry = shapely.MultiPolygon()
    lower = -np.inf
    for cutoff in cutoffs:
        check_deadline(f"the {cutoff:g} s contour")  # the request's time limit, if any
        # the band between the previous cutoff and this one shares its inner boundary
        # with the previous isochrone exactly (the same contour points), so unioning the
        # two keeps the previous one covered without re-noding its edges
        if np.isfinite(z).any() and np.nanmin(z) <= cutoff:
            filled: Any = generator.filled(lower, cutoff)
            band = _polygons(filled[0], filled[1])
        else:
            band = shapely.MultiPolygon()
        lower = cutoff
        if simplify_m:
            tolerance = _simplify_tolerance(grid, simplify_m)
            band = shapely.simplify(band, tolerance, preserve_topology=True)
        band = _polygonal(_to_wgs84(_polygonal(band), grid))
        # a floating-point overlay can leave slivers of the previous isochrone just
        # outside the union; growing it by a hair first (0.1 mm) makes the union cover it
        grown = shapely.buffer(previous, NEST_MARGIN_DEG, quad_segs=1, join_style="mitre")
        previous = _polygonal(shapely.union(grown, band)) if not previous.is_empty else band
        nested.append(previous)
    return nested


def isochrones(
    surface: xr.Dataset | xr.DataArray,
    cutoffs: Sequence[float],
    *,
    percentile: int | None = None,
    simplify_m: float | None = None,
) -> gpd.GeoDataFrame:
    """Nested isochrone polygons of a grid time surface.

    Parameters
    ----------
    surface
        A grid time surface (:func:`~otpa.analysis._layout.surface_dataset` layout), or its
        ``travel_time`` array (dims ``y``, ``x`` and optionally ``percentile``).
    cutoffs
        Travel-time cutoffs, whole seconds.
    percentile
        Percentile to draw (default: every percentile of the surface).
    simplify_m
        Simplify the outlines with this tolerance in metres (topology preserved).

    Returns
    -------
    geopandas.GeoDataFrame
        Columns ``time`` (cutoff seconds, int), ``percentile`` and ``geometry``
        (MultiPolygon, EPSG:4326), sorted by time then percentile. The area for a cutoff is
        where the interpolated travel time is at most the cutoff, and contains the areas of
        smaller cutoffs.

    Raises
    ------
    ValueError
        A point-set surface, an unknown percentile, bad cutoffs.
    """
    import geopandas as gpd

    tt = _surface_array(surface)
    grid = grid_of(tt)
    values = _cutoffs(cutoffs)
    if simplify_m is not None and not (math.isfinite(simplify_m) and simplify_m >= 0):
        msg = f"simplify_m must be a non-negative number of metres, got {simplify_m!r}"
        raise InvalidArgumentError(msg)
    extra = [d for d in tt.dims if d not in ("percentile", "y", "x")]
    if extra:
        msg = f"isochrones take a surface over (percentile, y, x); select along {extra} first"
        raise InvalidArgumentError(msg)
    if "percentile" not in tt.dims:
        tt = (
            tt.expand_dims("percentile")
            if "percentile" in tt.coords
            else tt.expand_dims(percentile=[-1])
        )
    if percentile is not None:
        available = [int(p) for p in tt["percentile"].values]
        if int(percentile) not in available:
            msg = f"percentile {percentile} is not in the surface (it has {available})"
            raise InvalidArgumentError(msg)
        tt = tt.sel(percentile=[int(percentile)])
    tt = tt.transpose("percentile", "y", "x")
    rows: list[dict[str, Any]] = []
    for p, plane in zip(tt["percentile"].values.tolist(), tt.values, strict=True):
        for cutoff, geometry in zip(
            values, _contours(plane, grid, values, simplify_m), strict=True
        ):
            rows.append({"time": int(cutoff), "percentile": int(p), "geometry": geometry})
    frame = gpd.GeoDataFrame(rows, geometry="geometry", crs="EPSG:4326")
    if frame.empty:
        frame = gpd.GeoDataFrame(
            {"time": [], "percentile": [], "geometry": []}, geometry="geometry", crs="EPSG:4326"
        )
    frame["time"] = frame["time"].astype(np.int64)
    frame["percentile"] = frame["percentile"].astype(np.int64)
    return frame.sort_values(["time", "percentile"], kind="stable").reset_index(drop=True)


def isochrones_geojson(
    gdf: gpd.GeoDataFrame, *, extra_properties: Sequence[str] = ()
) -> dict[str, Any]:
    """Isochrones as a GeoJSON FeatureCollection in OTP's shape.

    Parameters
    ----------
    gdf
        Output of :func:`isochrones`.
    extra_properties
        More columns to copy into each feature's properties (e.g. ``"percentile"``).

    Returns
    -------
    dict
        ``{"type": "FeatureCollection", "features": [...]}``; each feature has a
        MultiPolygon geometry and properties ``{"time": seconds}``.
    """
    features = []
    for row in gdf.itertuples(index=False):
        properties: dict[str, Any] = {"time": int(row.time)}
        for name in extra_properties:
            value = getattr(row, name)
            properties[name] = value.item() if isinstance(value, np.generic) else value
        features.append(
            {
                "type": "Feature",
                "geometry": json.loads(shapely.to_geojson(row.geometry)),
                "properties": properties,
            }
        )
    return {"type": "FeatureCollection", "features": features}


def isochrone_shapefile_zip(gdf: gpd.GeoDataFrame, *, name: str = "isochrones") -> bytes:
    """Isochrones as a zipped ESRI shapefile (``.shp``, ``.shx``, ``.dbf``, ``.prj``, ``.cpg``).

    Written with geopandas through pyogrio (GDAL).

    Parameters
    ----------
    gdf
        Output of :func:`isochrones`.
    name
        Base name of the files inside the archive.

    Returns
    -------
    bytes
        The zip archive.
    """
    if not name or any(c in name for c in "/\\:") or name.startswith("."):
        msg = f"bad shapefile name {name!r}"
        raise InvalidArgumentError(msg)
    with tempfile.TemporaryDirectory(prefix="otpa-iso-") as tmp:
        folder = Path(tmp)
        gdf.to_file(folder / f"{name}.shp", driver="ESRI Shapefile", engine="pyogrio")
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(folder.iterdir()):
                archive.write(path, arcname=path.name)
    return buffer.getvalue()
