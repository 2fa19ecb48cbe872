"""The xarray layouts of analysis results, built in one place.

The compute engine hands raw arrays to :func:`surface_dataset` and :func:`matrix_array`;
:func:`grid_of` and :func:`points_of` recover the analysis target from a result. The layouts
are described in ``otpa/analysis/README.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from otpa.analysis.grid import Grid
from otpa.analysis.pointset import PointSet
from otpa.errors import ArgumentTypeError, InvalidArgumentError

__all__ = [
    "GRID_DIMS",
    "MATRIX_DIMS",
    "POINT_DIM",
    "grid_of",
    "is_grid",
    "matrix_array",
    "points_of",
    "surface_dataset",
]

GRID_DIMS = ("y", "x")
POINT_DIM = "point"
MATRIX_DIMS = ("origin", "destination", "percentile")
#: Variable and coordinate names of a point surface that opportunity columns may not take.
_RESERVED = frozenset(
    {
        "travel_time",
        "travel_time_by_departure",
        "percentile",
        "departure_time",
        "point",
        "lat",
        "lon",
    }
)
_TRAVEL_TIME_ATTRS = {"units": "s", "long_name": "travel time"}
_JSON_SCALARS = (str, int, float, bool, type(None))


def _clean_attrs(attrs: Mapping[str, Any]) -> dict[str, Any]:
    """Check attrs are JSON-safe scalars or lists of them; tuples become lists."""
    out: dict[str, Any] = {}
    for key, value in attrs.items():
        if not isinstance(key, str):
            msg = f"attribute names must be strings, got {key!r}"
            raise ArgumentTypeError(msg)
        if isinstance(value, np.generic):
            value = value.item()
        if isinstance(value, list | tuple):
            items = [v.item() if isinstance(v, np.generic) else v for v in value]
            if not all(isinstance(v, _JSON_SCALARS) for v in items):
                msg = f"attribute {key!r} must hold JSON scalars, got {value!r}"
                raise ArgumentTypeError(msg)
            value = items
        elif not isinstance(value, _JSON_SCALARS):
            msg = f"attribute {key!r} must be a JSON-safe scalar, string or list, got {value!r}"
            raise ArgumentTypeError(msg)
        out[key] = value
    return out


def _merge_attrs(attrs: Mapping[str, Any], fixed: Mapping[str, Any]) -> dict[str, Any]:
    out = _clean_attrs(attrs)
    for key, value in fixed.items():
        if key in out and out[key] != value:
            msg = f"attribute {key!r}={out[key]!r} contradicts the target's {key}={value!r}"
            raise InvalidArgumentError(msg)
        out[key] = value
    return out


def _percentile_coord(percentiles: Sequence[int], n: int) -> np.ndarray[Any, Any]:
    values = np.asarray(list(percentiles))
    if values.ndim != 1 or values.size != n:
        msg = f"{values.size} percentiles given for {n} percentile rows of travel times"
        raise InvalidArgumentError(msg)
    if not np.all(np.equal(np.mod(values, 1), 0)):
        msg = f"percentiles must be whole numbers, got {list(percentiles)}"
        raise InvalidArgumentError(msg)
    return values.astype(np.int64)


def _spatial(target: Grid | PointSet) -> tuple[tuple[str, ...], dict[str, Any], tuple[int, ...]]:
    """Dims, coords and shape of the spatial part of a surface."""
    if isinstance(target, Grid):
        metres = target.crs == "EPSG:3857"
        # the grid definition rides on the x/y coordinates so that every variable keeps it
        grid_attrs: dict[str, Any] = {"crs": target.crs}
        if target.zoom is not None:
            grid_attrs["zoom"] = target.zoom
        x_attrs = {"units": "m" if metres else "degrees_east", "cell_size": target.dx}
        y_attrs = {"units": "m" if metres else "degrees_north", "cell_size": target.dy}
        x_attrs.update(grid_attrs)
        y_attrs.update(grid_attrs)
        coords: dict[str, Any] = {
            "x": ("x", target.x, x_attrs),
            "y": ("y", target.y, y_attrs),
            "lat": (GRID_DIMS, target.lat, {"units": "degrees_north"}),
            "lon": (GRID_DIMS, target.lon, {"units": "degrees_east"}),
        }
        return GRID_DIMS, coords, target.shape
    coords = {
        POINT_DIM: (POINT_DIM, target.ids, {"point_set": target.name}),
        "lat": (POINT_DIM, target.lat, {"units": "degrees_north"}),
        "lon": (POINT_DIM, target.lon, {"units": "degrees_east"}),
    }
    return (POINT_DIM,), coords, (len(target),)


def _departure_coord(
    times: Sequence[datetime], time_zone: Any
) -> tuple[str, np.ndarray[Any, Any], dict[str, Any]]:
    naive = []
    zone = time_zone
    for t in times:
        if t.tzinfo is not None:
            zone = zone if zone is not None else str(t.tzinfo)
            t = t.replace(tzinfo=None)
        naive.append(t)
    values = np.array(naive, dtype="datetime64[ns]")
    attrs = {"long_name": "departure time (local)"}
    if zone is not None:
        attrs["time_zone"] = str(zone)
    return ("departure_time", values, attrs)


def surface_dataset(
    target: Grid | PointSet,
    travel_time: np.ndarray[Any, Any],
    percentiles: Sequence[int],
    *,
    attrs: Mapping[str, Any],
    by_departure: np.ndarray[Any, Any] | None = None,
    departure_times: Sequence[datetime] | None = None,
) -> xr.Dataset:
    """Wrap one origin's travel times to a grid or point set as a time-surface Dataset.

    Parameters
    ----------
    target
        The destinations: a :class:`Grid` or a :class:`PointSet`.
    travel_time
        Seconds (NaN = unreachable), shape ``(n_percentiles, n_points)`` with points in
        ``target.points()`` order (grid, C order) or point-set order.
    percentiles
        The percentile of each row.
    attrs
        JSON-safe request metadata (origin, departure, time zone, window, modes...).
    by_departure
        Optional travel times per departure minute, shape ``(n_departures, n_points)``.
    departure_times
        Naive local departure times of the rows of ``by_departure`` (required with it).

    Returns
    -------
    xarray.Dataset
        ``travel_time`` (float32 seconds) over ``("percentile", "y", "x")`` or
        ``("percentile", "point")``; optional ``travel_time_by_departure``; for point sets the
        opportunity columns as variables over ``point``. ``attrs`` holds the given attrs plus
        ``crs`` and ``kind`` (``"grid"`` or ``"points"``).
    """
    dims, coords, spatial_shape = _spatial(target)
    n_points = int(np.prod(spatial_shape))
    tt = np.asarray(travel_time, dtype=np.float32)
    if tt.ndim != 2 or tt.shape[1] != n_points:
        msg = f"travel_time must have shape (n_percentiles, {n_points}), got {tt.shape}"
        raise InvalidArgumentError(msg)
    coords["percentile"] = ("percentile", _percentile_coord(percentiles, tt.shape[0]))
    data_vars: dict[str, Any] = {
        "travel_time": (
            ("percentile", *dims),
            tt.reshape((tt.shape[0], *spatial_shape)),
            dict(_TRAVEL_TIME_ATTRS),
        )
    }
    if by_departure is not None:
        by = np.asarray(by_departure, dtype=np.float32)
        if departure_times is None or by.ndim != 2 or by.shape != (len(departure_times), n_points):
            n_dep = "?" if departure_times is None else len(departure_times)
            msg = (
                f"by_departure must have shape (n_departures={n_dep}, {n_points}) and come "
                f"with departure_times, got {by.shape}"
            )
            raise InvalidArgumentError(msg)
        coords["departure_time"] = _departure_coord(departure_times, attrs.get("time_zone"))
        data_vars["travel_time_by_departure"] = (
            ("departure_time", *dims),
            by.reshape((by.shape[0], *spatial_shape)),
            {"units": "s", "long_name": "travel time by departure minute"},
        )
    if isinstance(target, PointSet):
        for column in target.opportunities.columns:
            if column in _RESERVED:
                msg = f"opportunity column {column!r} clashes with a surface variable name"
                raise InvalidArgumentError(msg)
            data_vars[column] = (POINT_DIM, target.opportunities[column].to_numpy())
        fixed: dict[str, Any] = {"crs": "EPSG:4326", "kind": "points"}
    else:
        fixed = {"crs": target.crs, "kind": "grid"}
        if target.zoom is not None:
            fixed["zoom"] = target.zoom
    return xr.Dataset(data_vars, coords=coords, attrs=_merge_attrs(attrs, fixed))


def matrix_array(
    origins: PointSet,
    destinations: PointSet,
    travel_time: Any,
    percentiles: Sequence[int],
    *,
    attrs: Mapping[str, Any],
) -> xr.DataArray:
    """Wrap many-to-many travel times as a DataArray (kept lazy when dask-backed).

    Parameters
    ----------
    origins, destinations
        The point sets.
    travel_time
        Seconds (NaN = unreachable), numpy or dask array of shape
        ``(n_origins, n_destinations, n_percentiles)``.
    percentiles
        The percentile of each slice along the last axis.
    attrs
        JSON-safe request metadata.

    Returns
    -------
    xarray.DataArray
        ``travel_time`` over ``("origin", "destination", "percentile")`` (float32 seconds)
        with ``origin_lat``/``origin_lon`` and ``destination_lat``/``destination_lon``.
    """
    shape = tuple(int(s) for s in travel_time.shape)
    expected = (len(origins), len(destinations), len(percentiles))
    if shape != expected:
        msg = (
            f"travel_time must have shape (origins, destinations, percentiles)={expected}, "
            f"got {shape}"
        )
        raise InvalidArgumentError(msg)
    data = travel_time if travel_time.dtype == np.float32 else travel_time.astype(np.float32)
    coords = {
        "origin": ("origin", origins.ids, {"point_set": origins.name}),
        "destination": ("destination", destinations.ids, {"point_set": destinations.name}),
        "percentile": ("percentile", _percentile_coord(percentiles, shape[2])),
        "origin_lat": ("origin", origins.lat, {"units": "degrees_north"}),
        "origin_lon": ("origin", origins.lon, {"units": "degrees_east"}),
        "destination_lat": ("destination", destinations.lat, {"units": "degrees_north"}),
        "destination_lon": ("destination", destinations.lon, {"units": "degrees_east"}),
    }
    merged = {**_TRAVEL_TIME_ATTRS, **_merge_attrs(attrs, {"crs": "EPSG:4326"})}
    merged.setdefault("kind", "matrix")
    return xr.DataArray(data, dims=MATRIX_DIMS, coords=coords, name="travel_time", attrs=merged)


def is_grid(obj: xr.Dataset | xr.DataArray) -> bool:
    """True when ``obj`` is laid out on a grid (has ``y`` and ``x`` dimensions)."""
    return all(d in obj.dims for d in GRID_DIMS)


def _cell_size(coord: xr.DataArray, name: str) -> float:
    size = coord.attrs.get("cell_size")
    if size is not None:
        return float(size)
    values = np.asarray(coord.values, dtype=np.float64)
    if values.size < 2:
        msg = f"cannot tell the grid's cell size: {name} has one value and no cell_size attribute"
        raise InvalidArgumentError(msg)
    return float(values[1] - values[0])


def grid_of(obj: xr.Dataset | xr.DataArray) -> Grid:
    """The grid a grid surface is laid out on (also after slicing it along ``x``/``y``).

    Parameters
    ----------
    obj
        A grid time surface (Dataset or one of its variables).

    Returns
    -------
    Grid
        The grid; the same cells as the one the surface was built for.

    Raises
    ------
    ValueError
        ``obj`` is not a grid surface, or its coordinates are not regular.
    """
    if not is_grid(obj):
        msg = f"not a grid surface: dims are {tuple(obj.dims)}, a grid surface has 'y' and 'x'"
        raise InvalidArgumentError(msg)
    crs = obj["x"].attrs.get("crs", obj.attrs.get("crs", "EPSG:4326"))
    x = np.asarray(obj["x"].values, dtype=np.float64)
    y = np.asarray(obj["y"].values, dtype=np.float64)
    dx, dy = _cell_size(obj["x"], "x"), _cell_size(obj["y"], "y")
    zoom = obj["x"].attrs.get("zoom", obj.attrs.get("zoom"))
    grid = Grid(
        crs, float(x[0]), float(y[0]), dx, dy, x.size, y.size, None if zoom is None else int(zoom)
    )
    if not (
        np.allclose(grid.x, x, rtol=0, atol=dx * 1e-6)
        and np.allclose(grid.y, y, rtol=0, atol=dy * 1e-6)
    ):
        msg = "the surface's x/y coordinates are not a regular increasing grid"
        raise InvalidArgumentError(msg)
    return grid


def points_of(obj: xr.Dataset | xr.DataArray, dim: str = POINT_DIM) -> PointSet:
    """The point set along a dimension of a result (a point surface, or a matrix's origins).

    Parameters
    ----------
    obj
        A point-set surface, a travel-time matrix, or an accessibility array.
    dim
        ``"point"`` (surfaces), ``"origin"`` or ``"destination"`` (matrices).

    Returns
    -------
    PointSet
        Ids and coordinates along ``dim``; for a surface Dataset also the opportunity
        variables (those over ``point`` only).
    """
    if dim not in obj.dims:
        msg = f"no {dim!r} dimension in {tuple(obj.dims)}"
        raise InvalidArgumentError(msg)
    prefix = "" if dim == POINT_DIM else f"{dim}_"
    lat_name, lon_name = f"{prefix}lat", f"{prefix}lon"
    if lat_name not in obj.coords or lon_name not in obj.coords:
        msg = f"no {lat_name}/{lon_name} coordinates along {dim!r}"
        raise InvalidArgumentError(msg)
    ids = np.asarray(obj[dim].values).astype(str)
    opportunities = pd.DataFrame(index=pd.Index(ids, name="id"))
    if isinstance(obj, xr.Dataset):
        for name, var in obj.data_vars.items():
            if var.dims == (dim,):
                opportunities[str(name)] = var.values
    return PointSet(
        ids,
        np.asarray(obj[lat_name].values, dtype=np.float64),
        np.asarray(obj[lon_name].values, dtype=np.float64),
        opportunities,
        name=str(obj[dim].attrs.get("point_set", "")),
    )
