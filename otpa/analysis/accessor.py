"""The ``.otpa`` accessor on xarray results: isochrones, accessibility, targets, differences.

Importing this module registers the accessor on :class:`xarray.Dataset` and
:class:`xarray.DataArray` (``import otpa.analysis`` does it).

Examples
--------
>>> import otpa.analysis.accessor  # registers ``.otpa``
>>> from otpa.analysis._layout import surface_dataset
>>> from otpa.analysis.grid import Grid
>>> grid = Grid.from_bounds(0.0, 0.0, 0.01, 0.01, cell_size_m=500.0)
>>> ds = surface_dataset(grid, np.zeros((1, grid.n_cells), np.float32), [50], attrs={})
>>> ds.otpa.grid.shape
(3, 3)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import xarray as xr

from otpa.analysis._layout import POINT_DIM, grid_of, is_grid, points_of
from otpa.analysis.accessibility import DEFAULT_CUTOFFS_S, accessibility
from otpa.analysis.grid import Grid
from otpa.analysis.isochrones import isochrones
from otpa.analysis.mercator import mercator_lat, mercator_lon
from otpa.analysis.pointset import PointSet
from otpa.errors import InvalidArgumentError

if TYPE_CHECKING:
    import geopandas as gpd

__all__ = ["OtpaDataArrayAccessor", "OtpaDatasetAccessor", "travel_time_difference"]


def _travel_time(obj: xr.Dataset | xr.DataArray) -> xr.DataArray:
    if isinstance(obj, xr.Dataset):
        if "travel_time" not in obj:
            msg = "the Dataset has no 'travel_time' variable"
            raise InvalidArgumentError(msg)
        return obj["travel_time"]
    return obj


def travel_time_difference(
    base: xr.Dataset | xr.DataArray, other: xr.Dataset | xr.DataArray
) -> xr.Dataset:
    """Travel-time change from ``base`` to ``other`` (e.g. a scenario against the baseline).

    Parameters
    ----------
    base, other
        Two surfaces or matrices of the same kind. Grids must match cell for cell; point
        sets and matrices are aligned on the ids they share.

    Returns
    -------
    xarray.Dataset
        ``difference`` = ``other - base`` in seconds (negative: faster in ``other``), NaN
        where either is unreachable; ``newly_reachable`` (unreachable in ``base``, reachable
        in ``other``) and ``no_longer_reachable`` (the reverse), booleans.
    """
    a, b = _travel_time(base), _travel_time(other)
    if a.dims != b.dims and set(a.dims) != set(b.dims):
        msg = f"cannot compare results with dims {a.dims} and {b.dims}"
        raise InvalidArgumentError(msg)
    join: Literal["exact", "inner"] = "exact" if is_grid(a) else "inner"
    try:
        a, b = xr.align(a, b, join=join)
    except ValueError as exc:
        msg = f"the two results are not on the same cells/points: {exc}"
        raise InvalidArgumentError(msg) from exc
    if a.size == 0:
        msg = "the two results share no points"
        raise InvalidArgumentError(msg)
    reach_a, reach_b = a.notnull(), b.notnull()
    attrs = {k: v for k, v in base.attrs.items() if k in ("crs", "kind", "zoom")}
    diff = (b - a).assign_attrs(units="s", long_name="travel time difference (other - base)")
    return xr.Dataset(
        {
            "difference": diff,
            "newly_reachable": (~reach_a & reach_b).assign_attrs(
                long_name="unreachable in base, reachable in other"
            ),
            "no_longer_reachable": (reach_a & ~reach_b).assign_attrs(
                long_name="reachable in base, unreachable in other"
            ),
        },
        attrs=attrs,
    )


def _frame_of(da: xr.DataArray, name: str) -> gpd.GeoDataFrame:
    """Long form of an array over point dims, with Point or desire-line geometry."""
    import geopandas as gpd
    import shapely

    frame = da.to_dataframe(name=name).reset_index()
    if "origin" in da.dims and "destination" in da.dims:
        start = np.column_stack([frame.pop("origin_lon"), frame.pop("origin_lat")])
        end = np.column_stack([frame.pop("destination_lon"), frame.pop("destination_lat")])
        geometry = shapely.linestrings(np.stack([start, end], axis=1))
    else:
        for dim in ("origin", "destination", POINT_DIM):
            prefix = "" if dim == POINT_DIM else f"{dim}_"
            if dim in da.dims and f"{prefix}lat" in frame.columns:
                geometry = shapely.points(frame.pop(f"{prefix}lon"), frame.pop(f"{prefix}lat"))
                break
        else:
            msg = f"no located dimension (point, origin, destination) in {da.dims}"
            raise InvalidArgumentError(msg)
    return gpd.GeoDataFrame(frame, geometry=geometry, crs="EPSG:4326")


def _grid_frame(ds: xr.Dataset) -> gpd.GeoDataFrame:
    """Long form of a grid surface: one row per cell and percentile, cell polygons."""
    import geopandas as gpd
    import shapely

    grid = grid_of(ds)
    tt = ds["travel_time"]
    frame = tt.to_dataframe(name="travel_time").reset_index()
    xmin, ymin, _, _ = grid.edges
    rows = np.rint((frame["y"].to_numpy() - grid.y0) / grid.dy).astype(np.int64)
    cols = np.rint((frame["x"].to_numpy() - grid.x0) / grid.dx).astype(np.int64)
    x_edges = xmin + grid.dx * np.arange(grid.nx + 1, dtype=np.float64)
    y_edges = ymin + grid.dy * np.arange(grid.ny + 1, dtype=np.float64)
    # mercator is separable (x -> lon, y -> lat), so cell boxes stay boxes in degrees
    if grid.crs == "EPSG:4326":
        lon_e, lat_e = x_edges, y_edges
    else:
        lon_e, lat_e = mercator_lon(x_edges), mercator_lat(y_edges)
    boxes = shapely.box(lon_e[cols], lat_e[rows], lon_e[cols + 1], lat_e[rows + 1])
    frame = frame.drop(columns=["lat", "lon"], errors="ignore")
    frame.insert(0, "row", rows)
    frame.insert(1, "col", cols)
    return gpd.GeoDataFrame(frame, geometry=boxes, crs="EPSG:4326")


class _OtpaAccessor:
    def __init__(self, obj: Any) -> None:
        self._obj = obj

    @property
    def grid(self) -> Grid:
        """The grid of a grid surface."""
        return grid_of(self._obj)

    @property
    def points(self) -> PointSet:
        """The point set of a point-set surface (with its opportunity variables)."""
        if is_grid(self._obj):
            msg = "this is a grid surface: use .otpa.grid"
            raise InvalidArgumentError(msg)
        return points_of(self._obj)

    @property
    def origins(self) -> PointSet:
        """The origins of a matrix or accessibility result."""
        return points_of(self._obj, "origin")

    @property
    def destinations(self) -> PointSet:
        """The destinations of a matrix."""
        return points_of(self._obj, "destination")

    def isochrones(
        self,
        cutoffs: Sequence[float],
        *,
        percentile: int | None = None,
        simplify_m: float | None = None,
    ) -> gpd.GeoDataFrame:
        """Nested isochrones of a grid surface (see :func:`otpa.analysis.isochrones.isochrones`)."""
        return isochrones(self._obj, cutoffs, percentile=percentile, simplify_m=simplify_m)

    def accessibility(
        self,
        opportunities: PointSet | None = None,
        *,
        cutoffs: Sequence[float] = DEFAULT_CUTOFFS_S,
        decay: str = "step",
        columns: Sequence[str] | None = None,
        **decay_params: float,
    ) -> xr.DataArray:
        """Accessibility (see :func:`otpa.analysis.accessibility.accessibility`)."""
        return accessibility(
            self._obj,
            opportunities,
            cutoffs=cutoffs,
            decay=decay,
            columns=columns,
            **decay_params,
        )

    def difference(self, other: xr.Dataset | xr.DataArray) -> xr.Dataset:
        """``other - self`` travel times with reachability changes (see
        :func:`travel_time_difference`)."""
        return travel_time_difference(self._obj, other)


@xr.register_dataset_accessor("otpa")
class OtpaDatasetAccessor(_OtpaAccessor):
    """``ds.otpa``: domain methods of time-surface Datasets."""

    def to_geodataframe(self) -> gpd.GeoDataFrame:
        """The surface in long form (EPSG:4326).

        Returns
        -------
        geopandas.GeoDataFrame
            Point surfaces: one row per point and percentile with ``point``,
            ``percentile``, ``travel_time`` (seconds), the opportunity columns and Point
            geometry. Grid surfaces: one row per cell and percentile with ``row``, ``col``,
            ``percentile``, ``y``, ``x``, ``travel_time`` and the cell polygon.
        """
        ds = self._obj
        if is_grid(ds):
            return _grid_frame(ds)
        frame = _frame_of(ds["travel_time"], "travel_time")
        opportunities = points_of(ds).opportunities
        for column in opportunities.columns:
            frame[column] = opportunities[column].to_numpy()[
                opportunities.index.get_indexer(frame[POINT_DIM].astype(str))
            ]
        return frame.set_geometry("geometry")


@xr.register_dataarray_accessor("otpa")
class OtpaDataArrayAccessor(_OtpaAccessor):
    """``da.otpa``: domain methods of travel-time matrices and other result arrays."""

    def to_geodataframe(self) -> gpd.GeoDataFrame:
        """The array in long form (EPSG:4326; computes a dask-backed array).

        Returns
        -------
        geopandas.GeoDataFrame
            One row per element with the dims as columns and the values in a column named
            after the array. Matrices get origin-to-destination lines; arrays over ``point``
            or ``origin`` get Point geometry.
        """
        da = self._obj
        name = str(da.name) if da.name is not None else "value"
        return _frame_of(da, name)
