"""Slippy tiles over surfaces and reading surfaces at points (``tiles.py``, ``sampling.py``).

Expected values use the textbook slippy-map formulas and explicit per-pixel loops.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from otpa.analysis._layout import surface_dataset
from otpa.analysis.grid import Grid
from otpa.analysis.otp1.tiles import (
    check_tile,
    pixel_centres,
    tile_bounds,
    tile_grid,
    tile_travel_times,
)
from otpa.analysis.sampling import sample_surface

HALF = math.pi * 6378137.0


def _pixel_lon_lat(z: int, x: int, y: int, col: int, row: int) -> tuple[float, float]:
    n = 2**z
    lon = (x + (col + 0.5) / 256) / n * 360.0 - 180.0
    lat = math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * (y + (row + 0.5) / 256) / n))))
    return lon, lat


def _surface(grid: Grid, seed: int = 0) -> tuple[np.ndarray, object]:
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 5400, grid.n_cells).astype(np.float32)
    values[rng.random(grid.n_cells) < 0.2] = np.nan
    ds = surface_dataset(grid, values[None, :], [50], attrs={})
    return values.reshape(grid.shape), ds


def test_tile_bounds_split_the_world() -> None:
    assert tile_bounds(0, 0, 0) == pytest.approx((-HALF, -HALF, HALF, HALF))
    assert tile_bounds(1, 1, 0) == pytest.approx((0.0, 0.0, HALF, HALF))
    assert tile_bounds(1, 0, 1) == pytest.approx((-HALF, -HALF, 0.0, 0.0))
    for bad in ((1, 2, 0), (1, 0, -1), (31, 0, 0), (-1, 0, 0)):
        with pytest.raises(ValueError, match="tile"):
            check_tile(*bad)


def test_pixel_centres_follow_the_slippy_formulas() -> None:
    z, x, y = 14, 4351, 6557
    lon, lat = pixel_centres(z, x, y)
    for col, row in ((0, 0), (255, 255), (17, 200)):
        want_lon, want_lat = _pixel_lon_lat(z, x, y, col, row)
        assert lon[col] == pytest.approx(want_lon, abs=1e-9)
        assert lat[row] == pytest.approx(want_lat, abs=1e-9)
    assert np.all(np.diff(lat) < 0)  # row 0 is north


@pytest.mark.parametrize("crs", ["EPSG:4326", "EPSG:3857"])
def test_tile_travel_times_take_the_cell_under_each_pixel(crs: str) -> None:
    grid = Grid.from_bounds(-84.42, 33.73, -84.36, 33.78, cell_size_m=150.0, crs=crs)
    plane, ds = _surface(grid)
    z, x, y = 14, 4351, 6557
    got = tile_travel_times(ds, z, x, y)
    assert got.shape == (256, 256)
    assert np.isfinite(got).sum() > 10_000  # the tile lies over the grid
    x_edge, y_edge = grid.edges[0], grid.edges[1]
    rng = np.random.default_rng(1)
    for col, row in rng.integers(0, 256, (300, 2)):
        lon, lat = _pixel_lon_lat(z, x, y, int(col), int(row))
        if crs == "EPSG:4326":
            px, py = lon, lat
        else:
            px = math.radians(lon) * 6378137.0
            py = math.log(math.tan(math.pi / 4 + math.radians(lat) / 2)) * 6378137.0
        c, r = math.floor((px - x_edge) / grid.dx), math.floor((py - y_edge) / grid.dy)
        inside = 0 <= c < grid.nx and 0 <= r < grid.ny
        want = plane[r, c] if inside else np.nan
        assert np.array_equal(got[row, col], want, equal_nan=True), (row, col)


def test_tile_grid_cells_are_the_tile_pixels() -> None:
    z, x, y = 15, 8703, 13114
    grid = tile_grid(z, x, y)
    assert grid.shape == (256, 256)
    xmin, ymin, xmax, ymax = tile_bounds(z, x, y)
    assert grid.edges == pytest.approx((xmin, ymin, xmax, ymax))
    plane, ds = _surface(grid, seed=2)
    # pixel row 0 is north, grid row 0 is south
    assert np.array_equal(tile_travel_times(ds, z, x, y), plane[::-1], equal_nan=True)
    coarse = tile_grid(z, x, y, cells=128)
    coarse_plane, coarse_ds = _surface(coarse, seed=4)
    blocks = np.repeat(np.repeat(coarse_plane[::-1], 2, axis=0), 2, axis=1)
    assert np.array_equal(tile_travel_times(coarse_ds, z, x, y), blocks, equal_nan=True)


def test_a_tile_away_from_the_surface_is_unreachable() -> None:
    grid = Grid.from_bounds(-84.42, 33.73, -84.36, 33.78, cell_size_m=300.0)
    _, ds = _surface(grid)
    assert np.isnan(tile_travel_times(ds, 10, 0, 0)).all()


def test_sample_surface_at_points() -> None:
    grid = Grid.from_bounds(-51.3, -30.1, -51.1, -29.95, cell_size_m=400.0)
    plane, ds = _surface(grid, seed=5)
    lat, lon = grid.points()
    assert np.array_equal(sample_surface(ds, lat, lon), plane.ravel(), equal_nan=True)
    # a point just inside a cell's north-east corner still belongs to it
    r, c = 3, 7
    p_lat = grid.y0 + (r + 0.49) * grid.dy
    p_lon = grid.x0 + (c + 0.49) * grid.dx
    assert np.array_equal(sample_surface(ds, [p_lat], [p_lon])[0], plane[r, c], equal_nan=True)
    outside = sample_surface(ds, [0.0, -30.0, np.nan], [0.0, -52.0, -51.2])
    assert np.isnan(outside).all()
    with pytest.raises(ValueError, match="percentile 90"):
        sample_surface(ds, lat, lon, percentile=90)
