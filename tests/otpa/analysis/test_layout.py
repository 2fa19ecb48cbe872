"""The xarray layouts of surfaces and matrices, and recovering their targets (plus ``.otpa``)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import dask
import dask.array as dsa
import numpy as np
import pandas as pd
import pytest
import shapely
import xarray as xr

import otpa.analysis.accessor  # noqa: F401  (registers .otpa)
from otpa.analysis._layout import grid_of, matrix_array, points_of, surface_dataset
from otpa.analysis.grid import Grid
from otpa.analysis.pointset import PointSet

ATTRS = {
    "origin_lat": -30.05,
    "origin_lon": -51.2,
    "departure": "2026-03-04T08:00:00",
    "time_zone": "America/Sao_Paulo",
    "window_s": 600,
    "step_s": 60,
    "max_time_s": 3600,
    "modes": "WALK,TRANSIT",
    "percentiles": (5, 50),
}


def _grid() -> Grid:
    return Grid.from_bounds(-51.25, -30.10, -51.20, -30.06, cell_size_m=1000.0)


def _points() -> PointSet:
    frame = pd.DataFrame(
        {
            "id": ["a", "b", "c", "d"],
            "lat": [-30.0, -30.01, -30.02, -30.03],
            "lon": [-51.0, -51.01, -51.02, -51.03],
            "jobs": [10, 20, 30, 40],
            "pop": [1.5, 2.5, 3.5, 4.5],
        }
    )
    return PointSet.from_frame(frame, name="four")


def test_grid_surface_layout() -> None:
    grid = _grid()
    n = grid.n_cells
    tt = np.arange(2 * n, dtype=np.float64).reshape(2, n)
    tt[1, 5] = np.nan
    ds = surface_dataset(grid, tt, [5, 50], attrs=ATTRS)
    var = ds["travel_time"]
    assert var.dims == ("percentile", "y", "x")
    assert var.dtype == np.float32
    assert var.attrs == {"units": "s", "long_name": "travel time"}
    assert ds["percentile"].values.tolist() == [5, 50]
    assert ds["percentile"].dtype == np.int64
    np.testing.assert_array_equal(ds["x"], grid.x)
    np.testing.assert_array_equal(ds["y"], grid.y)
    assert ds["lat"].dims == ds["lon"].dims == ("y", "x")
    lat, lon = grid.points()
    for k in (0, 7, n - 1):
        r, c = divmod(k, grid.nx)
        cell = var.isel(y=r, x=c)
        assert cell.sel(percentile=5).item() == k
        assert float(cell["lat"]) == lat[k]
        assert float(cell["lon"]) == lon[k]
    assert np.isnan(var.isel(percentile=1).values.ravel()[5])
    assert ds.attrs["crs"] == "EPSG:4326"
    assert ds.attrs["kind"] == "grid"
    assert ds.attrs["percentiles"] == [5, 50]  # tuples become lists
    assert {k: ds.attrs[k] for k in ("origin_lat", "modes", "window_s")} == {
        "origin_lat": -30.05,
        "modes": "WALK,TRANSIT",
        "window_s": 600,
    }
    json.dumps(ds.attrs)


def test_point_surface_layout_carries_opportunities() -> None:
    ps = _points()
    tt = np.array([[0.0, 60.0, np.nan, 120.0]])
    ds = surface_dataset(ps, tt, [50], attrs={"kind": "points"})
    assert ds["travel_time"].dims == ("percentile", "point")
    assert ds["point"].values.tolist() == ["a", "b", "c", "d"]
    assert ds["lat"].dims == ("point",)
    np.testing.assert_array_equal(ds["lon"], ps.lon)
    assert ds["jobs"].dims == ("point",)
    assert ds["jobs"].values.tolist() == [10, 20, 30, 40]
    assert ds["pop"].values.tolist() == [1.5, 2.5, 3.5, 4.5]
    assert ds["travel_time"].sel(point="d", percentile=50).item() == 120.0
    assert ds.attrs == {"kind": "points", "crs": "EPSG:4326"}


def test_departures_layout() -> None:
    ps = _points()
    base = datetime(2026, 3, 4, 8, 0)
    times = [base + timedelta(minutes=i) for i in range(3)]
    by = np.arange(12, dtype=np.float64).reshape(3, 4)
    ds = surface_dataset(
        ps,
        by[:1],
        [50],
        attrs={"time_zone": "America/Sao_Paulo"},
        by_departure=by,
        departure_times=times,
    )
    var = ds["travel_time_by_departure"]
    assert var.dims == ("departure_time", "point")
    assert var.attrs["units"] == "s"
    assert ds["departure_time"].dtype == np.dtype("datetime64[ns]")
    assert ds["departure_time"].values[2] == np.datetime64("2026-03-04T08:02:00")
    assert ds["departure_time"].attrs["time_zone"] == "America/Sao_Paulo"
    assert var.sel(point="c").values.tolist() == [2.0, 6.0, 10.0]
    # aware times keep their wall-clock time, and name the zone when attrs do not
    aware = [t.replace(tzinfo=timezone(timedelta(hours=-3))) for t in times]
    ds2 = surface_dataset(ps, by[:1], [50], attrs={}, by_departure=by, departure_times=aware)
    np.testing.assert_array_equal(ds2["departure_time"].values, ds["departure_time"].values)
    assert ds2["departure_time"].attrs["time_zone"] == "UTC-03:00"


def test_grid_departures_layout() -> None:
    grid = _grid()
    by = np.arange(2 * grid.n_cells, dtype=np.float32).reshape(2, grid.n_cells)
    times = [datetime(2026, 3, 4, 8, 0), datetime(2026, 3, 4, 8, 1)]
    ds = surface_dataset(grid, by[:1], [50], attrs={}, by_departure=by, departure_times=times)
    assert ds["travel_time_by_departure"].dims == ("departure_time", "y", "x")
    assert ds["travel_time_by_departure"].isel(departure_time=1, y=0, x=1).item() == (
        grid.n_cells + 1
    )


def test_surface_layout_errors() -> None:
    ps, grid = _points(), _grid()
    with pytest.raises(ValueError, match=r"shape \(n_percentiles, 4\)"):
        surface_dataset(ps, np.zeros((1, 3)), [50], attrs={})
    with pytest.raises(ValueError, match="2 percentiles given for 1"):
        surface_dataset(ps, np.zeros((1, 4)), [5, 50], attrs={})
    with pytest.raises(ValueError, match="contradicts"):
        surface_dataset(grid, np.zeros((1, grid.n_cells)), [50], attrs={"crs": "EPSG:3857"})
    with pytest.raises(ValueError, match="contradicts"):
        surface_dataset(ps, np.zeros((1, 4)), [50], attrs={"kind": "grid"})
    with pytest.raises(TypeError, match="JSON-safe"):
        surface_dataset(ps, np.zeros((1, 4)), [50], attrs={"request": {"a": 1}})
    with pytest.raises(ValueError, match="departure_times"):
        surface_dataset(ps, np.zeros((1, 4)), [50], attrs={}, by_departure=np.zeros((2, 4)))
    clash = PointSet(np.array(["a"]), [0.0], [0.0], pd.DataFrame({"travel_time": [1]}, index=["a"]))
    with pytest.raises(ValueError, match="clashes"):
        surface_dataset(clash, np.zeros((1, 1)), [50], attrs={})


def test_matrix_layout() -> None:
    origins = _points().subset(["b", "a"])
    destinations = _points()
    tt = np.arange(2 * 4 * 3, dtype=np.float64).reshape(2, 4, 3)
    da = matrix_array(origins, destinations, tt, [5, 50, 95], attrs={"modes": "WALK"})
    assert da.name == "travel_time"
    assert da.dims == ("origin", "destination", "percentile")
    assert da.dtype == np.float32
    assert da["origin"].values.tolist() == ["b", "a"]
    assert da["destination"].values.tolist() == ["a", "b", "c", "d"]
    assert da["origin_lat"].dims == ("origin",)
    assert da["origin_lat"].values.tolist() == origins.lat.tolist()
    assert da["destination_lon"].values.tolist() == destinations.lon.tolist()
    assert da.sel(origin="a", destination="c", percentile=95).item() == tt[1, 2, 2]
    assert da.attrs["units"] == "s"
    assert da.attrs["modes"] == "WALK"
    assert da.attrs["kind"] == "matrix"
    assert da.attrs["crs"] == "EPSG:4326"
    with pytest.raises(ValueError, match="shape"):
        matrix_array(origins, destinations, tt[:, :3], [5, 50, 95], attrs={})


def test_matrix_layout_stays_lazy() -> None:
    origins, destinations = _points(), _points()

    def boom() -> np.ndarray:
        raise AssertionError("the matrix was computed")

    lazy = dsa.from_delayed(dask.delayed(boom)(), shape=(4, 4, 1), dtype=np.float64)
    da = matrix_array(origins, destinations, lazy, [50], attrs={})
    assert isinstance(da.data, dsa.Array)
    assert da.dtype == np.float32
    chunked = dsa.from_array(np.ones((4, 4, 1), np.float32), chunks=(2, 4, 1))
    da2 = matrix_array(origins, destinations, chunked, [50], attrs={})
    assert da2.chunks == ((2, 2), (4,), (1,))
    assert float(da2.sum().compute()) == 16.0


@pytest.mark.parametrize(
    "grid",
    [
        Grid.from_bounds(-51.25, -30.10, -51.20, -30.06, cell_size_m=1000.0),
        Grid.from_bounds(-51.25, -30.10, -51.20, -30.06, cell_size_m=700.0, crs="EPSG:3857"),
        Grid.web_mercator(-51.25, -30.10, -51.20, -30.06, zoom=10),
        Grid("EPSG:4326", 10.0, 20.0, 0.01, 0.02, 1, 1),
    ],
)
def test_grid_of_round_trip(grid: Grid) -> None:
    ds = surface_dataset(grid, np.zeros((1, grid.n_cells)), [50], attrs={})
    back = grid_of(ds)
    assert back.same_as(grid), (back, grid)
    assert grid_of(ds["travel_time"]).same_as(grid)
    assert ds.otpa.grid.same_as(grid)
    np.testing.assert_array_equal(back.lat, grid.lat)


def test_grid_of_a_slice_is_the_sub_grid() -> None:
    grid = _grid()
    ds = surface_dataset(grid, np.zeros((1, grid.n_cells)), [50], attrs={})
    sub = grid_of(ds.isel(x=slice(1, 3), y=slice(2, 4)))
    assert sub.shape == (2, 2)
    assert sub.x0 == grid.x[1]
    assert sub.y0 == grid.y[2]
    assert sub.cell_size == grid.cell_size
    with pytest.raises(ValueError, match="not a grid surface"):
        grid_of(surface_dataset(_points(), np.zeros((1, 4)), [50], attrs={}))


def test_points_of_round_trip() -> None:
    ps = _points()
    ds = surface_dataset(ps, np.zeros((1, 4)), [50], attrs={})
    for back in (points_of(ds), ds.otpa.points):
        assert back.ids.tolist() == ps.ids.tolist()
        np.testing.assert_array_equal(back.lat, ps.lat)
        np.testing.assert_array_equal(back.lon, ps.lon)
        pd.testing.assert_frame_equal(back.opportunities, ps.opportunities)
        assert back.name == "four"
    da = matrix_array(ps.subset(["c"]), ps, np.zeros((1, 4, 1)), [50], attrs={})
    origins = points_of(da, "origin")
    assert origins.ids.tolist() == ["c"]
    assert origins.lat.tolist() == [-30.02]
    assert da.otpa.destinations.ids.tolist() == ["a", "b", "c", "d"]
    assert da.otpa.origins.lon.tolist() == [-51.02]
    with pytest.raises(ValueError, match="grid surface"):
        _ = surface_dataset(_grid(), np.zeros((1, _grid().n_cells)), [50], attrs={}).otpa.points


# -- accessor: long form and differences ---------------------------------------------------
def test_point_surface_to_geodataframe() -> None:
    ps = _points()
    tt = np.array([[0.0, 60.0, np.nan, 120.0], [10.0, 70.0, np.nan, 130.0]])
    gdf = surface_dataset(ps, tt, [5, 95], attrs={}).otpa.to_geodataframe()
    assert len(gdf) == 8
    assert gdf.crs.to_epsg() == 4326
    row = gdf[(gdf["point"] == "d") & (gdf["percentile"] == 95)].iloc[0]
    assert row["travel_time"] == 130.0
    assert row["jobs"] == 40
    assert row["pop"] == 4.5
    assert (row.geometry.x, row.geometry.y) == (-51.03, -30.03)


def test_grid_surface_to_geodataframe_has_cell_polygons() -> None:
    for crs in ("EPSG:4326", "EPSG:3857"):
        grid = Grid.from_bounds(-51.25, -30.10, -51.22, -30.08, cell_size_m=1000.0, crs=crs)
        tt = np.arange(grid.n_cells, dtype=np.float64)[None, :]
        gdf = surface_dataset(grid, tt, [50], attrs={}).otpa.to_geodataframe()
        assert len(gdf) == grid.n_cells
        west, south, east, north = grid.bounds
        assert tuple(gdf.total_bounds) == pytest.approx((west, south, east, north), abs=1e-12)
        lat, lon = grid.points()
        k = grid.n_cells - 2
        row = gdf[(gdf["row"] == k // grid.nx) & (gdf["col"] == k % grid.nx)].iloc[0]
        assert row["travel_time"] == k
        assert row.geometry.contains(shapely.Point(lon[k], lat[k]))
        # cells tile the covered area exactly
        assert shapely.area(gdf.geometry.values).sum() == pytest.approx(
            (east - west) * (north - south)
        )


def test_matrix_to_geodataframe_has_desire_lines() -> None:
    ps = _points()
    da = matrix_array(ps.subset(["a", "b"]), ps, np.arange(8.0).reshape(2, 4, 1), [50], attrs={})
    gdf = da.otpa.to_geodataframe()
    assert len(gdf) == 8
    assert set(gdf.columns) >= {"origin", "destination", "percentile", "travel_time"}
    row = gdf[(gdf["origin"] == "b") & (gdf["destination"] == "d")].iloc[0]
    assert row["travel_time"] == 7.0
    assert list(row.geometry.coords) == [(-51.01, -30.01), (-51.03, -30.03)]


def test_difference_of_point_surfaces() -> None:
    ps = _points()
    base = surface_dataset(ps, np.array([[100.0, np.nan, 50.0, 70.0]]), [50], attrs={})
    scenario = surface_dataset(
        ps.subset(["d", "c", "b", "a"]), np.array([[np.nan, 80.0, 30.0, 90.0]]), [50], attrs={}
    )
    diff = base.otpa.difference(scenario)
    assert diff["difference"].sel(percentile=50).values.tolist()[:1] == [-10.0]
    assert diff["difference"].sel(point="c", percentile=50).item() == 30.0
    assert np.isnan(diff["difference"].sel(point="b", percentile=50).item())
    assert diff["newly_reachable"].sel(percentile=50).values.tolist() == [
        False,
        True,
        False,
        False,
    ]
    assert diff["no_longer_reachable"].sel(percentile=50).values.tolist() == [
        False,
        False,
        False,
        True,
    ]
    assert diff["difference"].attrs["units"] == "s"


def test_difference_of_grids_requires_the_same_cells() -> None:
    grid = _grid()
    a = surface_dataset(grid, np.full((1, grid.n_cells), 100.0), [50], attrs={})
    b = surface_dataset(grid, np.full((1, grid.n_cells), 40.0), [50], attrs={})
    diff = a.otpa.difference(b)
    assert float(diff["difference"].max()) == -60.0
    assert diff.attrs["kind"] == "grid"
    other = Grid.from_bounds(-51.25, -30.10, -51.20, -30.06, cell_size_m=900.0)
    c = surface_dataset(other, np.zeros((1, other.n_cells)), [50], attrs={})
    with pytest.raises(ValueError, match="not on the same cells"):
        a.otpa.difference(c)
    da = matrix_array(_points(), _points(), np.ones((4, 4, 1)), [50], attrs={})
    assert isinstance(da.otpa.difference(da * 2), xr.Dataset)
