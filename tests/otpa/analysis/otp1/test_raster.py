"""GeoTIFF export of surfaces and tiles, read back with rasterio."""

from __future__ import annotations

import math

import numpy as np
import pytest
from rasterio.io import MemoryFile
from rasterio.warp import transform_bounds

from otpa.analysis._layout import surface_dataset
from otpa.analysis.crs import UnknownCrsError
from otpa.analysis.grid import Grid
from otpa.analysis.otp1.raster import raster_shape, surface_geotiff, tile_geotiff
from otpa.analysis.otp1.tiles import tile_bounds


def _surface(grid: Grid) -> tuple[np.ndarray, object]:
    rng = np.random.default_rng(9)
    values = rng.integers(0, 5400, grid.n_cells).astype(np.float32)
    values[rng.random(grid.n_cells) < 0.25] = np.nan
    return values.reshape(grid.shape), surface_dataset(grid, values[None], [50], attrs={})


def _read(data: bytes) -> tuple[np.ndarray, object, tuple[float, ...], float]:
    with MemoryFile(data) as memfile, memfile.open() as dataset:
        return dataset.read(1), dataset.crs, tuple(dataset.bounds), dataset.nodata


@pytest.mark.parametrize("crs", ["EPSG:4326", "EPSG:3857"])
def test_native_geotiff_holds_the_cells_north_up(crs: str) -> None:
    grid = Grid.from_bounds(-51.25, -30.1, -51.15, -30.0, cell_size_m=500.0, crs=crs)
    plane, ds = _surface(grid)
    band, got_crs, bounds, nodata = _read(surface_geotiff(ds))
    assert got_crs.to_string() == crs
    assert bounds == pytest.approx(grid.edges)
    assert math.isnan(nodata)
    assert band.dtype == np.float32
    assert np.array_equal(band, plane[::-1], equal_nan=True)


def test_otp_minutes_raster_is_one_byte_capped_at_120_with_128_unreachable() -> None:
    grid = Grid.from_bounds(-51.25, -30.1, -51.15, -30.0, cell_size_m=2000.0)
    seconds = [0.0, 59.0, 60.0, 119.9, 1805.0, 7199.0, 7200.0, 7260.0, 10_000.0, np.nan]
    values = np.resize(np.array(seconds, dtype=np.float32), grid.n_cells)
    ds = surface_dataset(grid, values[None], [50], attrs={})
    band, _, bounds, nodata = _read(surface_geotiff(ds, units="minutes"))
    assert band.dtype == np.uint8
    assert nodata == 128
    assert bounds == pytest.approx(grid.edges)
    first_row = band[::-1].reshape(-1)[: len(seconds)]  # back to the grid's south-up order
    assert first_row.tolist() == [0, 0, 1, 1, 30, 119, 120, 120, 120, 128]
    # reprojected: nearest cells, the same bytes; outside the grid is unreachable too
    shape = raster_shape(ds, crs="EPSG:3857", width=80, height=60)
    merc, _, _, merc_nodata = _read(surface_geotiff(ds, shape, units="minutes"))
    assert merc.dtype == np.uint8
    assert merc_nodata == 128
    assert set(np.unique(merc).tolist()) <= {0, 1, 30, 119, 120, 128}
    with pytest.raises(ValueError, match="units"):
        surface_geotiff(ds, units="hours")  # type: ignore[arg-type]


def test_reprojected_raster_covers_the_grid_in_the_target_crs() -> None:
    grid = Grid.from_bounds(-84.42, 33.73, -84.36, 33.78, cell_size_m=200.0)
    plane, ds = _surface(grid)
    shape = raster_shape(ds, crs="EPSG:3857", width=300, height=200)
    band, crs, bounds, _ = _read(surface_geotiff(ds, shape))
    assert crs.to_string() == "EPSG:3857"
    assert band.shape == (200, 300)
    expected = transform_bounds("EPSG:4326", "EPSG:3857", *grid.edges, densify_pts=21)
    assert bounds == pytest.approx(expected)
    # nearest resampling: every value is one of the surface's, reachable ones survive
    finite = band[np.isfinite(band)]
    assert finite.size > 0.5 * band.size * np.isfinite(plane).mean()
    assert np.isin(finite, plane[np.isfinite(plane)]).all()
    # the pixel at a cell centre takes that cell's value
    r, c = 10, 12
    lon, lat = grid.x0 + c * grid.dx, grid.y0 + r * grid.dy
    mx = math.radians(lon) * 6378137.0
    my = math.log(math.tan(math.pi / 4 + math.radians(lat) / 2)) * 6378137.0
    col = int((mx - bounds[0]) / (bounds[2] - bounds[0]) * 300)
    row = int((bounds[3] - my) / (bounds[3] - bounds[1]) * 200)
    assert np.array_equal(band[row, col], plane[r, c], equal_nan=True)


def test_resolution_sets_the_size() -> None:
    grid = Grid.from_bounds(-84.42, 33.73, -84.36, 33.78, cell_size_m=200.0)
    _, ds = _surface(grid)
    shape = raster_shape(ds, crs="EPSG:4326", resolution=0.001)
    assert shape.width == math.ceil((grid.edges[2] - grid.edges[0]) / 0.001 - 1e-9)
    assert shape.height == math.ceil((grid.edges[3] - grid.edges[1]) / 0.001 - 1e-9)
    assert shape.bounds[2] - shape.bounds[0] == pytest.approx(shape.width * 0.001)


def test_limits_and_unknown_crs() -> None:
    grid = Grid.from_bounds(-84.42, 33.73, -84.36, 33.78, cell_size_m=200.0)
    _, ds = _surface(grid)
    with pytest.raises(ValueError, match="exceeds the limit"):
        raster_shape(ds, width=5000, height=5000, max_pixels=1_000_000)
    with pytest.raises(UnknownCrsError):
        raster_shape(ds, crs="EPSG:999999")
    with pytest.raises(ValueError, match="resolution"):
        raster_shape(ds, resolution=-1.0)


def test_tile_geotiff_is_georeferenced_in_web_mercator() -> None:
    pixels = np.arange(256 * 256, dtype=np.int64).reshape(256, 256).astype(np.uint8)
    bounds = tile_bounds(12, 1088, 1639)
    band, crs, got_bounds, nodata = _read(tile_geotiff(pixels, bounds))
    assert crs.to_string() == "EPSG:3857"
    assert got_bounds == pytest.approx(bounds)
    assert nodata == 128
    assert np.array_equal(band, pixels)
