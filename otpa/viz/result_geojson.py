"""Analysis results as styled GeoJSON: time surfaces, isochrone bands, values per cell.

Features carry their own Leaflet style in ``properties.style`` (the convention
ipyleaflet's ``GeoJSON`` layer renders), coloured by a :class:`~otpa.viz.colors.ColorScale`,
so the same dictionaries can be drawn by ipyleaflet, saved as files or checked in tests.
Coordinates are rounded to 6 decimals (about 0.1 m).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd
import xarray as xr

from otpa.analysis import grid_of, points_of
from otpa.errors import ArgumentTypeError, InvalidArgumentError
from otpa.viz.colors import ColorScale, travel_time_scale

if TYPE_CHECKING:
    import geopandas as gpd
    import shapely

    from otpa.analysis import PointSet

__all__ = [
    "Shape",
    "cell_polygons",
    "isochrone_geojson",
    "selected_plane",
    "surface_geojson",
    "values_geojson",
]

FloatArray = npt.NDArray[np.float64]
#: How a point is drawn: a cell polygon around it, or a circle marker.
Shape = Literal["hexagon", "square", "circle"]

_M_PER_DEG = 111_195.0  # ground metres per degree of latitude (as otpa.analysis.grid)
_EARTH_R = 6_378_137.0  # web mercator sphere
# a regular cell this much larger than the lattice's cuts each Voronoi cell: it leaves the
# (distorted) inner cells whole and bounds the cells on the edge of the set
_EDGE_SLACK = 1.1
_NEIGHBOUR_RATIO = 1.25  # neighbours within this factor of the nearest set the spacing


def _style(color: str, *, opacity: float = 0.65, weight: float = 0.5) -> dict[str, Any]:
    return {
        "color": color,
        "weight": weight,
        "opacity": 0.9,
        "fillColor": color,
        "fillOpacity": opacity,
    }


# -- geometry --------------------------------------------------------------------------------------
def _geometry(geom: shapely.Geometry) -> dict[str, Any]:
    import shapely

    rounded = shapely.transform(geom, lambda xy: np.round(xy, 6))
    out: dict[str, Any] = _lists(shapely.geometry.mapping(rounded))
    return out


def _lists(obj: Any) -> Any:
    """Tuples to lists, so the GeoJSON is plain JSON (and compares equal after a round trip)."""
    if isinstance(obj, dict):
        return {k: _lists(v) for k, v in obj.items()}
    if isinstance(obj, tuple | list):
        return [_lists(v) for v in obj]
    return obj


def cell_polygons(
    lat: npt.ArrayLike,
    lon: npt.ArrayLike,
    *,
    shape: Literal["hexagon", "square"] = "hexagon",
    size_m: float | None = None,
) -> list[list[list[float]]]:
    """Cells around the points of a lattice (hexagons like H3's, or squares) as rings.

    Each cell is the point's Voronoi cell cut to a regular hexagon (or square) 10 %
    larger than the lattice's: inside the set the cells tile the plane exactly, even
    where the lattice is distorted (H3), and on its edge they keep about the regular shape.

    Parameters
    ----------
    lat, lon
        Cell centres in degrees.
    shape
        ``"hexagon"`` (turned to match the lattice: the mean direction to the nearest
        neighbour, modulo 60 degrees) or ``"square"`` (north-up).
    size_m
        Distance between neighbouring centres (default: measured, the median over the
        points of the mean distance to the neighbours about as near as the nearest).

    Returns
    -------
    list
        One closed ``[[lon, lat], ...]`` ring per point, in input order.
    """
    import shapely

    la = np.asarray(lat, dtype=np.float64).ravel()
    lo = np.asarray(lon, dtype=np.float64).ravel()
    if la.size == 0:
        return []
    kx = _M_PER_DEG * math.cos(math.radians(float(np.mean(la))))
    xy = np.column_stack([lo * kx, la * _M_PER_DEG])
    spacing, angle = _lattice(xy, size_m)
    if shape == "hexagon":
        turns = angle + math.pi / 6 + np.arange(7) * math.pi / 3
        dx, dy = np.cos(turns) / math.sqrt(3.0), np.sin(turns) / math.sqrt(3.0)
    elif shape == "square":
        dx = np.array([-0.5, 0.5, 0.5, -0.5, -0.5])
        dy = np.array([-0.5, -0.5, 0.5, 0.5, -0.5])
    else:
        msg = f"shape must be 'hexagon' or 'square', got {shape!r}"
        raise InvalidArgumentError(msg)
    size = spacing * _EDGE_SLACK
    regular = shapely.polygons(
        np.stack([xy[:, :1] + size * dx[None, :], xy[:, 1:] + size * dy[None, :]], axis=-1)
    )
    cells = regular
    if xy.shape[0] >= 3 and np.unique(xy, axis=0).shape[0] == xy.shape[0]:
        voronoi = shapely.voronoi_polygons(shapely.multipoints(xy), ordered=True)
        cells = shapely.intersection(regular, np.asarray(voronoi.geoms, dtype=object))
    rings = []
    for cell, fallback in zip(cells, regular, strict=True):
        good = isinstance(cell, shapely.Polygon) and not cell.is_empty
        ring = np.asarray((cell if good else fallback).exterior.coords)
        ring = np.column_stack([ring[:, 0] / kx, ring[:, 1] / _M_PER_DEG])
        rings.append(np.round(ring, 6).tolist())
    return rings


def _lattice(xy: FloatArray, size_m: float | None) -> tuple[float, float]:
    """Spacing (m) and orientation (rad, modulo 60 degrees) of a point lattice."""
    if xy.shape[0] < 2:
        if size_m is None:
            msg = "one point: give size_m to size its cell"
            raise InvalidArgumentError(msg)
        return float(size_m), 0.0
    from scipy.spatial import cKDTree

    k = min(7, xy.shape[0])
    dist, idx = cKDTree(xy).query(xy, k=k)
    vec = xy[idx[:, 1]] - xy
    ok = dist[:, 1] > 0
    if not np.any(ok):
        msg = "all points coincide: give size_m"
        raise InvalidArgumentError(msg)
    if size_m is None:
        # the neighbours about as near as the nearest: 6 on a hexagon lattice, 4 on a square one
        near = dist[ok, 1:] <= _NEIGHBOUR_RATIO * dist[ok, 1:2]
        spacing = float(np.median((dist[ok, 1:] * near).sum(axis=1) / near.sum(axis=1)))
    else:
        spacing = float(size_m)
    alpha = np.arctan2(vec[ok, 1], vec[ok, 0])
    angle = float(np.angle(np.mean(np.exp(6j * alpha)))) / 6.0
    return spacing, angle


def _mercator_lon(x: FloatArray) -> FloatArray:
    return np.degrees(x / _EARTH_R)


def _mercator_lat(y: FloatArray) -> FloatArray:
    return np.degrees(2.0 * np.arctan(np.exp(y / _EARTH_R)) - math.pi / 2.0)


def _grid_edges(da: xr.DataArray) -> tuple[FloatArray, FloatArray]:
    """Cell edges of a grid result in degrees: ``(lon_edges, lat_edges)``."""
    grid = grid_of(da)
    xmin, ymin, _, _ = grid.edges
    x_e = xmin + grid.dx * np.arange(grid.nx + 1, dtype=np.float64)
    y_e = ymin + grid.dy * np.arange(grid.ny + 1, dtype=np.float64)
    if grid.crs == "EPSG:4326":
        return x_e, y_e
    return _mercator_lon(x_e), _mercator_lat(y_e)


# -- GeoJSON builders ------------------------------------------------------------------------------
def selected_plane(
    obj: xr.Dataset | xr.DataArray, var: str | None, percentile: int | None
) -> xr.DataArray:
    """``obj[var]`` (a Dataset) or ``obj``, at one percentile (default: the middle one)."""
    da = obj[var] if isinstance(obj, xr.Dataset) and var is not None else obj
    if not isinstance(da, xr.DataArray):
        msg = "give a DataArray, or a Dataset and the name of its variable"
        raise ArgumentTypeError(msg)
    if "percentile" in da.dims:
        available = [int(p) for p in da["percentile"].values.tolist()]
        chosen = available[len(available) // 2] if percentile is None else int(percentile)
        if chosen not in available:
            msg = f"percentile {chosen} is not in the result (it has {available})"
            raise InvalidArgumentError(msg)
        da = da.sel(percentile=chosen)
    return da


def _grid_features(da: xr.DataArray, scale: ColorScale, dissolve: bool) -> list[dict[str, Any]]:
    import shapely

    extra = [d for d in da.dims if d not in ("y", "x")]
    if extra:
        msg = f"select along {extra} first: a grid layer draws values over (y, x)"
        raise InvalidArgumentError(msg)
    values = np.asarray(da.transpose("y", "x").values, dtype=np.float64)
    lon_e, lat_e = _grid_edges(da)
    cls = scale.classes(values)
    rows, cols = np.nonzero(cls >= 0)
    boxes = shapely.box(lon_e[cols], lat_e[rows], lon_e[cols + 1], lat_e[rows + 1])
    k_of = cls[rows, cols]
    features = []
    if dissolve:
        for k in np.unique(k_of).tolist():
            geom = shapely.coverage_union_all(boxes[k_of == k])
            props = {"class": int(k), "label": scale.labels[k], "style": _style(scale.colors[k])}
            features.append({"type": "Feature", "properties": props, "geometry": _geometry(geom)})
        return features
    for box, r, c, k in zip(boxes, rows.tolist(), cols.tolist(), k_of.tolist(), strict=True):
        props = {"row": r, "col": c, "value": float(values[r, c]), "class": int(k),
                 "style": _style(scale.colors[k])}  # fmt: skip
        features.append({"type": "Feature", "properties": props, "geometry": _geometry(box)})
    return features


def _point_frame(values: xr.DataArray | pd.Series[Any], points: PointSet | None) -> pd.DataFrame:
    """``id, lat, lon, value`` rows from a 1-D result (or a Series and its point set)."""
    if isinstance(values, pd.Series):
        if points is None:
            msg = "a Series of values needs the PointSet its index refers to"
            raise InvalidArgumentError(msg)
        ids = values.index.astype(str)
        pos = points.positions(ids)
        return pd.DataFrame(
            {"id": ids, "lat": points.lat[pos], "lon": points.lon[pos],
             "value": values.to_numpy(dtype=np.float64)}
        )  # fmt: skip
    dims = [d for d in values.dims if d in ("point", "origin", "destination")]
    extra = [d for d in values.dims if d not in dims]
    if len(dims) != 1 or extra:
        msg = (
            f"values must be 1-D over point, origin or destination; it has dims "
            f"{tuple(values.dims)} (select along {extra or dims[1:]} first)"
        )
        raise InvalidArgumentError(msg)
    where = points if points is not None else points_of(values, dims[0])
    ids = np.asarray(values[dims[0]].values).astype(str)
    pos = where.positions(ids)
    return pd.DataFrame(
        {"id": ids, "lat": where.lat[pos], "lon": where.lon[pos],
         "value": np.asarray(values.values, dtype=np.float64)}
    )  # fmt: skip


def values_geojson(
    values: xr.DataArray | pd.Series[Any],
    scale: ColorScale,
    *,
    points: PointSet | None = None,
    shape: Shape = "hexagon",
    size_m: float | None = None,
) -> dict[str, Any]:
    """Values per point (hexagon, square or circle) or per grid cell as a FeatureCollection.

    Parameters
    ----------
    values
        A grid array over ``(y, x)``, a 1-D array over ``point``/``origin``/``destination``
        with its ``lat``/``lon`` coordinates, or a Series indexed by id (with ``points``).
    scale
        The colour classes; values it does not colour are left out.
    points
        Where the ids are (default: the array's own coordinates).
    shape
        How a point is drawn: cell polygons around the lattice (:func:`cell_polygons`)
        or ``"circle"`` markers.
    size_m
        Distance between neighbouring centres (default: measured).

    Returns
    -------
    dict
        Features with ``id`` (or ``row``/``col``), ``value``, ``class`` and ``style``.
    """
    if isinstance(values, xr.DataArray) and "y" in values.dims and "x" in values.dims:
        features = _grid_features(values, scale, dissolve=False)
        return {"type": "FeatureCollection", "features": features}
    everything = _point_frame(values, points)
    cls = scale.classes(everything["value"].to_numpy())
    keep = cls >= 0
    frame, cls = everything[keep], cls[keep]
    if shape == "circle":
        geoms: list[dict[str, Any]] = [
            {"type": "Point", "coordinates": [round(x, 6), round(y, 6)]}
            for x, y in zip(frame["lon"].tolist(), frame["lat"].tolist(), strict=True)
        ]
    else:
        # the lattice is measured on every point, so cells keep their size when some are blank
        rings = cell_polygons(everything["lat"], everything["lon"], shape=shape, size_m=size_m)
        geoms = [
            {"type": "Polygon", "coordinates": [rings[i]]} for i in np.flatnonzero(keep).tolist()
        ]
    features = []
    for geom, pid, value, k in zip(
        geoms, frame["id"].tolist(), frame["value"].tolist(), cls.tolist(), strict=True
    ):
        style = _style(scale.colors[k], weight=0.3)
        if shape == "circle":
            style["radius"] = 5
        props = {"id": pid, "value": value, "class": int(k), "style": style}
        features.append({"type": "Feature", "properties": props, "geometry": geom})
    return {"type": "FeatureCollection", "features": features}


def surface_geojson(
    surface: xr.Dataset | xr.DataArray,
    scale: ColorScale | None = None,
    *,
    percentile: int | None = None,
    dissolve: bool = True,
    shape: Shape = "circle",
) -> dict[str, Any]:
    """A time surface's travel times, classed, as a FeatureCollection.

    Parameters
    ----------
    surface
        A time surface (grid or point set) or its ``travel_time`` array.
    scale
        Colour classes (default: :func:`travel_time_scale`, 15-minute steps to 60).
    percentile
        The percentile to draw (default: the middle one).
    dissolve
        Grid surfaces: one (multi)polygon per class instead of one square per cell,
        which keeps large grids light.
    shape
        Point-set surfaces: how a point is drawn (see :func:`values_geojson`).
    """
    scale = travel_time_scale() if scale is None else scale
    da = selected_plane(surface, "travel_time", percentile)
    if "y" in da.dims and "x" in da.dims:
        return {"type": "FeatureCollection", "features": _grid_features(da, scale, dissolve)}
    return values_geojson(da, scale, shape=shape)


def isochrone_geojson(
    iso: gpd.GeoDataFrame, scale: ColorScale | None = None, *, percentile: int | None = None
) -> dict[str, Any]:
    """Isochrones as coloured bands (each isochrone less the next smaller one).

    Parameters
    ----------
    iso
        The nested isochrones of :func:`otpa.analysis.isochrones` (``time``, ``percentile``,
        ``geometry``).
    scale
        Colours by ``time`` (default: :func:`travel_time_scale` over the isochrones' times).
    percentile
        Which percentile's isochrones (default: the middle one).

    Returns
    -------
    dict
        One feature per isochrone, smallest first, with ``time`` (s), ``label``,
        ``class`` and ``style``; the bands do not overlap.
    """
    import shapely

    frame = iso
    if "percentile" in frame.columns and len(frame):
        available = sorted({int(p) for p in frame["percentile"]})
        chosen = available[len(available) // 2] if percentile is None else int(percentile)
        if chosen not in available:
            msg = f"percentile {chosen} is not among the isochrones' {available}"
            raise InvalidArgumentError(msg)
        frame = frame[frame["percentile"] == chosen]
    frame = frame.sort_values("time", kind="stable")
    times = [int(t) for t in frame["time"]]
    scale = travel_time_scale(times) if scale is None else scale
    features = []
    inner: shapely.Geometry | None = None
    for t, geom in zip(times, frame.geometry, strict=True):
        band = geom if inner is None else shapely.difference(geom, inner)
        inner = geom
        k = int(scale.classes(np.array([t]))[0])
        if k < 0 or band.is_empty:
            continue
        props = {"time": t, "label": scale.labels[k], "class": k, "style": _style(scale.colors[k])}
        features.append({"type": "Feature", "properties": props, "geometry": _geometry(band)})
    return {"type": "FeatureCollection", "features": features}
