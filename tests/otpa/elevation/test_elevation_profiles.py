"""Per-segment profiles and OTP slope costs on synthetic ramps and on Porto Alegre."""

from __future__ import annotations

import itertools
import math
import struct
from pathlib import Path

import numpy as np
import pytest
import rasterio
from pyproj import Transformer
from rasterio.transform import Affine

from otpa.elevation import (
    GEOID_UNAVAILABLE_NO_GRID,
    edge_elevation_profiles,
    slope_speed_coefficient,
    tobler_multiplier,
)
from otpa.elevation._slope_costs import _COEFF, _TY
from otpa.errors import ElevationError
from otpa.osm import CAR, FLAG_SLOPE_OVERRIDE, read_osm
from otpa.util.geo import haversine_m

LAT0, LON0 = 48.6, 8.9


def _origin(west: float, north: float, xres: float, yres: float) -> Affine:
    return Affine(xres, 0.0, west, 0.0, -yres, north)


GRADE = 0.05


@pytest.fixture(scope="module")
def ramp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """UTM 32N raster: 100 m at the origin, rising 5 % to the north, flat east-west."""
    to_utm = Transformer.from_crs("EPSG:4326", "EPSG:32632", always_xy=True)
    e0, n0 = to_utm.transform(LON0, LAT0)
    res = 5.0
    size = 200
    west, north = e0 - size * res / 2, n0 + size * res / 2
    cy = north - (np.arange(size) + 0.5) * res
    data = np.repeat((100.0 + GRADE * (cy - n0))[:, None], size, axis=1)
    path = tmp_path_factory.mktemp("dem") / "ramp.tif"
    with rasterio.open(
        path,
        "w",
        driver="GTiff",
        height=size,
        width=size,
        count=1,
        dtype="float64",
        crs="EPSG:32632",
        transform=_origin(west, north, res, res),
    ) as dst:
        dst.write(data, 1)
    return path


def _north(metres: float) -> float:
    return LAT0 + metres / 111_195.0


def _segments(lines: list[list[tuple[float, float]]]) -> tuple[np.ndarray, ...]:
    lat = np.concatenate([[p[0] for p in line] for line in lines])
    lon = np.concatenate([[p[1] for p in line] for line in lines])
    offsets = np.concatenate([[0], np.cumsum([len(line) for line in lines])])
    length = np.array(
        [
            float(
                np.sum(haversine_m(lat[a : b - 1], lon[a : b - 1], lat[a + 1 : b], lon[a + 1 : b]))
            )
            for a, b in itertools.pairwise(offsets)
        ]
    )
    return offsets, lat, lon, length


def test_ramp_rise_fall_and_costs(ramp: Path) -> None:
    east = LON0 + 60.0 / (111_195.0 * math.cos(math.radians(LAT0)))
    lines = [
        [(LAT0, LON0), (_north(100.0), LON0)],  # 100 m north: up 5 m
        [(_north(100.0), LON0), (_north(40.0), LON0), (LAT0, LON0)],  # back south: down
        [(LAT0, LON0), (LAT0, east)],  # flat, 60 m east
        [(LAT0, LON0), (_north(4.0), LON0)],  # 4 m: shorter than the spacing
    ]
    offsets, lat, lon, length = _segments(lines)
    e = edge_elevation_profiles(ramp, offsets, lat, lon, length)
    assert e.n_segments == 4
    assert np.all(e.has_profile)
    assert e.elev_start[0] == pytest.approx(100.0, abs=0.05)
    assert e.elev_end[0] == pytest.approx(105.0, abs=0.05)
    assert e.rise_m[0] == pytest.approx(5.0, abs=0.05)
    assert e.fall_m[0] == pytest.approx(0.0, abs=1e-9)
    assert e.rise_m[1] == pytest.approx(0.0, abs=1e-9)
    assert e.fall_m[1] == pytest.approx(5.0, abs=0.05)
    assert e.max_slope[0] == pytest.approx(GRADE, rel=0.01)
    assert e.mean_slope[0] == pytest.approx(GRADE, rel=0.01)
    assert e.mean_slope[1] == pytest.approx(-GRADE, rel=0.01)
    assert e.rise_m[2] + e.fall_m[2] == pytest.approx(0.0, abs=0.01)
    assert e.max_slope[2] == pytest.approx(0.0, abs=1e-3)
    assert e.rise_m[3] == pytest.approx(0.2, abs=0.01)
    # Profile samples every 10 m, both ends included.
    a, b = e.profile_offsets[0], e.profile_offsets[1]
    np.testing.assert_allclose(
        e.profile_dist_m[a:b], np.r_[np.arange(0, 100, 10), length[0]], atol=1e-3
    )
    np.testing.assert_allclose(
        e.profile_elev_m[a:b], 100.0 + GRADE * e.profile_dist_m[a:b], atol=0.05
    )
    assert e.profile_offsets[4] - e.profile_offsets[3] == 2
    # OTP costs on the uphill edge (steps of 10 m at 5 %).
    hyp = 100.0 * math.hypot(1.0, GRADE)
    assert e.slope_work_cost_fwd[0] == pytest.approx(hyp * (1 + 4000 * GRADE**3), rel=0.02)
    assert e.slope_work_cost_back[0] == pytest.approx(hyp, rel=0.01)
    assert e.length_multiplier[0] == pytest.approx(math.hypot(1.0, GRADE), rel=1e-3)
    c_up = slope_speed_coefficient(np.array([GRADE]), np.array([102.5]))[0]
    c_down = slope_speed_coefficient(np.array([-GRADE]), np.array([102.5]))[0]
    assert c_up < 1.0 < c_down
    assert e.slope_speed_effective_length_fwd_m[0] == pytest.approx(100.0 / c_up, rel=0.02)
    assert e.slope_speed_effective_length_back_m[0] == pytest.approx(100.0 / c_down, rel=0.02)
    assert e.effective_walk_length_fwd_m[0] == pytest.approx(100 * math.exp(0.175), rel=0.01)
    assert e.effective_walk_length_back_m[0] == pytest.approx(100 * math.exp(-0.175), rel=0.01)
    assert e.slope_safety_cost_fwd_m[0] == pytest.approx(0.0, abs=1e-9)  # uphill: c < 1
    assert e.slope_safety_cost_back_m[0] == pytest.approx(hyp * (c_down - 1) / 4, rel=0.02)
    # The downhill segment mirrors the uphill one.
    assert e.slope_work_cost_fwd[1] == pytest.approx(e.slope_work_cost_back[0], rel=0.01)
    # Flat segment: factors close to the flat ones.
    c_flat = slope_speed_coefficient(np.array([0.0]), np.array([100.0]))[0]
    assert e.slope_speed_effective_length_fwd_m[2] == pytest.approx(length[2] / c_flat, rel=5e-3)
    assert e.slope_work_cost_fwd[2] == pytest.approx(length[2], rel=1e-6)
    assert e.effective_walk_length_fwd_m[2] == pytest.approx(length[2], rel=1e-3)
    assert e.metadata.source_crs == "EPSG:32632"
    assert e.metadata.nodata_fraction == 0.0


def test_slope_limit_flattens_steep_steps(tmp_path: Path) -> None:
    # A 60 % ramp: flattened on car edges (35 % limit), kept on foot paths (100 % limit).
    res = 0.0001
    rows = 100
    lat_c = LAT0 + (np.arange(rows) + 0.5) * -res + 0.005
    data = np.repeat((0.6 * (lat_c - LAT0) * 111_195.0)[:, None], 20, axis=1)
    path = tmp_path / "steep.tif"
    with rasterio.open(
        path, "w", driver="GTiff", height=rows, width=20, count=1, dtype="float64",
        crs="EPSG:4326", transform=_origin(LON0 - 0.001, LAT0 + 0.005, res, res),
    ) as dst:  # fmt: skip
        dst.write(data, 1)
    offsets, lat, lon, length = _segments([[(LAT0, LON0), (_north(50.0), LON0)]] * 2)
    e = edge_elevation_profiles(path, offsets, lat, lon, length, slope_limit=[True, False])
    assert e.flattened.tolist() == [True, False]
    assert e.max_slope[0] == pytest.approx(0.0)
    assert e.max_slope[1] == pytest.approx(0.6, rel=0.02)
    assert e.slope_work_cost_fwd[0] < e.slope_work_cost_fwd[1]
    assert e.effective_walk_length_fwd_m[1] == pytest.approx(3.0 * length[1], rel=1e-6)


def test_override_and_missing_get_neutral_costs(ramp: Path) -> None:
    far = (10.0, 10.0)
    offsets, lat, lon, length = _segments(
        [
            [(LAT0, LON0), (_north(100.0), LON0)],
            [(LAT0, LON0), (_north(100.0), LON0)],
            [far, (10.001, 10.0)],
        ]
    )
    e = edge_elevation_profiles(
        ramp, offsets, lat, lon, length, slope_override=[False, True, False]
    )
    assert e.has_profile.tolist() == [True, False, False]
    for i in (1, 2):
        assert e.rise_m[i] == 0.0
        assert e.max_slope[i] == 0.0
        assert e.slope_speed_effective_length_fwd_m[i] == pytest.approx(length[i])
        assert e.slope_work_cost_back[i] == pytest.approx(length[i])
        assert e.effective_walk_length_back_m[i] == pytest.approx(length[i])
    assert e.elev_end[1] == pytest.approx(105.0, abs=0.05)  # still sampled
    assert np.isnan(e.elev_start[2])
    assert e.metadata.nodata_fraction > 0.0


def test_tobler_and_spline_reference_values() -> None:
    np.testing.assert_allclose(
        tobler_multiplier(np.array([0.35, 0.1, 0.0, -0.05, -0.1, -0.35])),
        [3.0, 1.42, 1.0, 0.84, 1.0, 2.40],
        atol=0.01,
    )
    # FITPACK's de Boor evaluation (as OTP's ZunZun code) at a few points, by hand.
    tx = [0.0, 0.0, 0.0, 2798.7785324442748, 5000.0, 5000.0, 5000.0]

    def basis(t: list[float], x: float, n: int) -> tuple[int, list[float]]:
        span = 3
        while x >= t[span] and span != n - 3:
            span += 1
        h = [1.0, 0.0, 0.0]
        for j in (1, 2):
            hh = h[:j]
            h = [0.0] * 3
            for i in range(j):
                li, lj = span + i, span + i - j
                f = hh[i] / (t[li] - t[lj])
                h[i] += f * (t[li] - x)
                h[i + 1] = f * (x - t[lj])
        return span - 3, h

    for slope, alt in [(0.0, 0.0), (0.07, 1500.0), (-0.2, 4000.0), (0.3, 6000.0)]:
        lx, wx = basis(tx, alt, 7)
        ly, wy = basis(list(_TY), slope, 10)
        ref = sum(_COEFF[lx + i, ly + j] * wx[i] * wy[j] for i in range(3) for j in range(3))
        ours = slope_speed_coefficient(np.array([slope]), np.array([alt]))[0]
        assert ours == pytest.approx(ref, rel=1e-12)


def test_geoid_metadata_from_grid(
    ramp: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A toy 1-degree grid whose undulation is 40 + lat / 10 everywhere.
    lats = np.arange(-90.0, 90.0 + 1e-9, 1.0)
    grid = np.repeat((40.0 + lats / 10.0)[:, None], 360, axis=1).astype(">f4")
    path = tmp_path / "toy_egm.gtx"
    header = struct.pack(">4d2i", -90.0, -180.0, 1.0, 1.0, lats.size, 360)
    path.write_bytes(header + grid.tobytes())
    monkeypatch.setenv("OTPA_GEOID_GRID", str(path))
    offsets, lat, lon, length = _segments([[(LAT0, LON0), (_north(100.0), LON0)]])
    e = edge_elevation_profiles(ramp, offsets, lat, lon, length, geoid_elevation=True)
    centre = LAT0 + 50.0 / 111_195.0
    assert e.metadata.ellipsoid_to_geoid_difference == pytest.approx(40.0 + centre / 10.0)
    assert e.metadata.geoid_model == "toy_egm.gtx"
    assert e.metadata.geoid_elevation is True
    assert e.metadata.geoid_available
    assert e.metadata.geoid_status == "EGM96 geoid height from toy_egm.gtx"
    monkeypatch.setenv("OTPA_GEOID_GRID", str(tmp_path / "absent.gtx"))
    e = edge_elevation_profiles(ramp, offsets, lat, lon, length)
    assert e.metadata.ellipsoid_to_geoid_difference == 0.0
    assert e.metadata.geoid_model is None
    assert not e.metadata.geoid_available
    # no made-up value: the metadata says why the difference is 0
    assert e.metadata.geoid_status == GEOID_UNAVAILABLE_NO_GRID
    assert e.metadata.geoid_status.startswith("geoid difference unavailable: grid not installed")
    assert e.metadata.to_dict()["geoid_status"] == GEOID_UNAVAILABLE_NO_GRID


def test_bad_input(ramp: Path) -> None:
    offsets, lat, lon, length = _segments([[(LAT0, LON0), (_north(10.0), LON0)]])
    with pytest.raises(ElevationError):
        edge_elevation_profiles(ramp, offsets[:-1], lat, lon, length)
    with pytest.raises(ElevationError):
        edge_elevation_profiles(ramp, offsets, lat, lon, length, spacing_m=0.0)
    with pytest.raises(ElevationError, match=r"nope\.tif"):
        edge_elevation_profiles(ramp.parent / "nope.tif", offsets, lat, lon, length)


def test_porto_alegre_network(data_root: Path) -> None:
    osm = read_osm(data_root / "small" / "porto-alegre" / "poa_osm.pbf")
    dem = data_root / "small" / "porto-alegre" / "poa_elevation.tif"
    e = edge_elevation_profiles(
        dem,
        osm.seg_geom_offsets,
        osm.geom_lat,
        osm.geom_lon,
        osm.seg_length_m,
        slope_limit=((osm.seg_perm_fwd | osm.seg_perm_back) & CAR) > 0,
        slope_override=(osm.seg_flags & FLAG_SLOPE_OVERRIDE) > 0,
    )
    assert e.n_segments == osm.n_segments
    assert e.has_profile.mean() > 0.9
    assert e.metadata.nodata_fraction < 0.1
    ok = e.has_profile
    # Rise minus fall is the end-to-end difference of every profiled segment.
    np.testing.assert_allclose(
        (e.rise_m - e.fall_m)[ok], (e.elev_end - e.elev_start)[ok], atol=1e-6
    )
    assert np.all(e.slope_work_cost_fwd[ok] >= osm.seg_length_m[ok] * (1 - 1e-9))
    assert np.all(e.effective_walk_length_fwd_m[ok] > 0)
