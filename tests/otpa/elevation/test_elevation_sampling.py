"""Raster sampling: bilinear values, any CRS, nodata, several files, bad input."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
import rasterio
from pyproj import Transformer
from rasterio.transform import Affine

from otpa.elevation import find_geoid_grid, geoid_undulation, sample_raster
from otpa.errors import ElevationError

POA = ("small", "porto-alegre", "poa_elevation.tif")


def _origin(west: float, north: float, xres: float, yres: float) -> Affine:
    return Affine(xres, 0.0, west, 0.0, -yres, north)


def _write(
    path: Path, data: np.ndarray, crs: str, transform: object, nodata: float | None = None
) -> Path:
    profile = {
        "driver": "GTiff",
        "height": data.shape[0],
        "width": data.shape[1],
        "count": 1,
        "dtype": data.dtype,
        "crs": crs,
        "transform": transform,
    }
    if nodata is not None:
        profile["nodata"] = nodata
    with rasterio.open(path, "w", **profile) as dst:
        dst.write(data, 1)
    return path


def test_poa_matches_rasterio_at_pixel_centres(data_root: Path) -> None:
    path = data_root.joinpath(*POA)
    rng = np.random.default_rng(7)
    with rasterio.open(path) as ds:
        rows = rng.integers(1, ds.height - 1, 50)
        cols = rng.integers(1, ds.width - 1, 50)
        xs, ys = rasterio.transform.xy(ds.transform, rows, cols, offset="center")
        lon, lat = np.asarray(xs), np.asarray(ys)
        expected = np.array([v[0] for v in ds.sample(zip(lon, lat, strict=True))], dtype=float)
        band = ds.read(1).astype(float)
        ours = sample_raster(path, lon, lat)
        np.testing.assert_allclose(ours, expected, atol=1e-9)
        # Random points: between the four surrounding pixels, and close to the nearest one.
        plon = rng.uniform(ds.bounds.left + 0.001, ds.bounds.right - 0.001, 300)
        plat = rng.uniform(ds.bounds.bottom + 0.001, ds.bounds.top - 0.001, 300)
        vals = sample_raster(path, plon, plat)
        nearest = np.array([v[0] for v in ds.sample(zip(plon, plat, strict=True))], dtype=float)
        inv = ~ds.transform
        col = inv.a * plon + inv.b * plat + inv.c
        row = inv.d * plon + inv.e * plat + inv.f
        c0 = np.floor(col - 0.5).astype(int)
        r0 = np.floor(row - 0.5).astype(int)
        quads = np.stack(
            [band[r0, c0], band[r0, c0 + 1], band[r0 + 1, c0], band[r0 + 1, c0 + 1]], axis=1
        )
        assert np.all(vals >= quads.min(axis=1) - 1e-9)
        assert np.all(vals <= quads.max(axis=1) + 1e-9)
        assert np.all(np.abs(vals - nearest) <= np.ptp(quads, axis=1) + 1e-9)


def test_reprojected_raster_linear_function_is_exact(tmp_path: Path) -> None:
    # A plane in Web-Mercator metres is reproduced exactly by bilinear interpolation.
    to_merc = Transformer.from_crs("EPSG:4326", "EPSG:3857", always_xy=True)
    x0, y0 = to_merc.transform(8.9, 48.6)
    res = 25.0
    ny, nx = 60, 80
    west, north = x0 - nx * res / 2, y0 + ny * res / 2
    cx = west + (np.arange(nx) + 0.5) * res
    cy = north - (np.arange(ny) + 0.5) * res

    def plane(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return 300.0 + 0.01 * (x - x0) - 0.02 * (y - y0)

    data = plane(cx[None, :], cy[:, None]).astype(np.float64)
    path = _write(tmp_path / "merc.tif", data, "EPSG:3857", _origin(west, north, res, res))
    to_wgs = Transformer.from_crs("EPSG:3857", "EPSG:4326", always_xy=True)
    rng = np.random.default_rng(3)
    px = rng.uniform(cx[0], cx[-1], 200)
    py = rng.uniform(cy[-1], cy[0], 200)
    lon, lat = to_wgs.transform(px, py)
    np.testing.assert_allclose(sample_raster(path, lon, lat), plane(px, py), atol=1e-6)
    # Outside the raster: NaN.  Shape follows broadcasting.
    far = sample_raster(path, np.array([[0.0, 8.9]]), np.array([[0.0, 10.0]]))
    assert far.shape == (1, 2)
    assert np.all(np.isnan(far))


def test_nodata_and_several_rasters(tmp_path: Path) -> None:
    res = 0.001
    data = np.full((10, 10), 5.0, dtype=np.float32)
    data[:, :5] = -9999.0  # western half is nodata
    first = _write(tmp_path / "a.tif", data, "EPSG:4326", _origin(8.0, 49.0, res, res), -9999.0)
    second = _write(
        tmp_path / "b.tif",
        np.full((10, 20), 7.0, dtype=np.float32),
        "EPSG:4326",
        _origin(8.0, 49.0, res, res),
    )
    lon = np.array([8.0015, 8.0085, 8.0150])
    lat = np.array([48.995, 48.995, 48.995])
    only_first = sample_raster(first, lon, lat)
    assert np.isnan(only_first[0])
    assert only_first[1] == pytest.approx(5.0)
    assert np.isnan(only_first[2])
    np.testing.assert_allclose(sample_raster([first, second], lon, lat), [7.0, 5.0, 7.0])


@pytest.mark.filterwarnings("ignore::rasterio.errors.NotGeoreferencedWarning")
def test_bad_rasters_raise(tmp_path: Path) -> None:
    bad = tmp_path / "junk.tif"
    bad.write_bytes(np.random.default_rng(0).integers(0, 256, 2048, dtype=np.uint8).tobytes())
    with pytest.raises(ElevationError, match=r"junk\.tif"):
        sample_raster(bad, [8.0], [49.0])
    with pytest.raises(ElevationError, match=r"missing\.tif"):
        sample_raster(tmp_path / "missing.tif", [8.0], [49.0])
    nocrs = tmp_path / "nocrs.tif"
    with rasterio.open(
        nocrs, "w", driver="GTiff", height=2, width=2, count=1, dtype="float32"
    ) as dst:
        dst.write(np.zeros((2, 2), dtype=np.float32), 1)
    with pytest.raises(ElevationError, match=r"nocrs\.tif"):
        sample_raster(nocrs, [8.0], [49.0])


def test_gtx_geoid_grid_reader(tmp_path: Path) -> None:
    # 1-degree global grid whose value is lat + lon/1000 (lon in [-180, 180)).
    lats = np.arange(-90.0, 90.0 + 1e-9, 1.0)
    lons = np.arange(-180.0, 180.0, 1.0)
    grid = (lats[:, None] + lons[None, :] / 1000.0).astype(">f4")
    path = tmp_path / "toy.gtx"
    header = struct.pack(">4d2i", -90.0, -180.0, 1.0, 1.0, lats.size, lons.size)
    path.write_bytes(header + grid.tobytes())
    found = geoid_undulation([10.25, -45.5, 0.0], [20.5, 100.0, 179.5], grid=path)
    assert found is not None
    values, name = found
    assert name == "toy.gtx"
    np.testing.assert_allclose(values[:2], [10.25 + 0.0205, -45.5 + 0.1], atol=1e-5)
    # Between 179 and -180 (wraps around): halfway between 0.179 and -0.180.
    assert values[2] == pytest.approx((0.179 - 0.180) / 2, abs=1e-5)


def test_real_egm96_grid_if_installed() -> None:
    grid = find_geoid_grid()
    if grid is None:
        pytest.skip(
            "geoid difference unavailable: grid not installed (Debian's proj-data installs "
            "/usr/share/proj/egm96_15.gtx; or point OTPA_GEOID_GRID at one)"
        )
    # NGA's published EGM96 test values (lat, lon, N).
    lat = [38.6281550, -14.6212170, 46.8743190, -23.6174460, -0.4667440]
    lon = [269.7791550, 305.0211140, 102.4487290, 133.8747120, 0.0023000]
    expected = [-31.628, -2.969, -43.575, 15.871, 17.329]
    found = geoid_undulation(lat, lon)
    assert found is not None
    np.testing.assert_allclose(found[0], expected, atol=0.1)
