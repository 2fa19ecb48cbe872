"""OTP's timegrid PNG (encode, decode) and the off-road distances of its blue channel."""

from __future__ import annotations

import datetime as dt
import io
import math
from pathlib import Path

import numpy as np
import pytest
import shapely
from PIL import Image

from otpa.analysis import Grid, compute_time_surface
from otpa.analysis._layout import surface_dataset
from otpa.analysis.otp1.offroad import limit_offroad, offroad_distance_m
from otpa.analysis.otp1.timegrid import (
    CELL_SIZE_KEY,
    CORNER_KEY,
    OFFROAD_KEY,
    decode_timegrid,
    encode_timegrid,
    timegrid_rgba,
)
from otpa.network import TransportNetwork
from tests.fixtures.networks import built_network

FIVE_POINTS = (33.7539, -84.3916)
M_PER_DEG = math.pi * 6_371_010.0 / 180.0


@pytest.fixture(scope="module")
def atlanta(data_root: Path) -> TransportNetwork:
    return built_network(data_root, "tiny/atlanta")


def _grid() -> Grid:
    return Grid.from_bounds(-84.40, 33.74, -84.38, 33.76, cell_size_m=200.0)


def test_round_trip_is_exact_and_rows_start_south() -> None:
    grid = _grid()
    rng = np.random.default_rng(0)
    times = rng.integers(0, 20_000, grid.n_cells).astype(np.float32)
    times[rng.random(grid.n_cells) < 0.3] = np.nan
    times[0] = 70_000  # beyond 16 bits: clamped
    ds = surface_dataset(grid, times[None], [50], attrs={})
    offroad = rng.uniform(0, 600, grid.shape)
    png, metadata = encode_timegrid(ds, cell_size_m=200, offroad_m=offroad, offroad_distance_m=150)
    decoded = decode_timegrid(png)
    expected = times.reshape(grid.shape).astype(np.float64)
    expected[0, 0] = 65534
    assert np.array_equal(decoded.travel_time, expected, equal_nan=True)
    assert np.array_equal(
        decoded.offroad_pct, np.clip(np.rint(offroad / 200 * 100), 0, 255).astype(np.uint8)
    )
    assert decoded.grid.shape == grid.shape
    assert decoded.corner == pytest.approx((grid.y0, grid.x0), abs=1e-8)
    assert decoded.cell_size == pytest.approx((grid.dy, grid.dx), abs=1e-12)
    assert decoded.offroad_distance_m == 150.0
    # raw pixels: row 0 is the south-west cell; R low byte, G high byte; A opaque
    with Image.open(io.BytesIO(png)) as image:
        raw = np.asarray(image)
        assert image.text[CORNER_KEY] == metadata[CORNER_KEY]
    value = int(times.reshape(grid.shape)[0, 1]) if np.isfinite(times[1]) else 65535
    assert (int(raw[0, 1, 0]), int(raw[0, 1, 1])) == (value & 0xFF, value >> 8)
    assert (raw[..., 3] == 255).all()
    assert metadata[CORNER_KEY] == f"{grid.y0:.8f},{grid.x0:.8f}"
    assert metadata[CELL_SIZE_KEY] == f"{grid.dy:.12f},{grid.dx:.12f}"
    assert metadata[OFFROAD_KEY] == "150.000000"


def test_unreachable_is_65535_and_distance_saturates() -> None:
    rgba = timegrid_rgba(np.array([[np.nan, 1.0]]), np.array([[np.inf, 100.0]]), 200.0)
    assert rgba[0, 0].tolist() == [255, 255, 255, 255]
    assert rgba[0, 1].tolist() == [1, 0, 50, 255]


def test_decode_refuses_other_pngs() -> None:
    buffer = io.BytesIO()
    Image.new("RGBA", (2, 2)).save(buffer, format="PNG")
    with pytest.raises(ValueError, match="OTPA-Grid-Corner"):
        decode_timegrid(buffer.getvalue())
    mercator = Grid("EPSG:3857", 0.0, 0.0, 100.0, 100.0, 2, 2)
    ds = surface_dataset(mercator, np.zeros((1, 4), np.float32), [50], attrs={})
    with pytest.raises(ValueError, match="lon/lat"):
        encode_timegrid(ds, cell_size_m=100)


def test_offroad_distance_is_the_distance_to_the_nearest_street(atlanta: TransportNetwork) -> None:
    street = atlanta.street
    assert street is not None
    rng = np.random.default_rng(2)
    lat = rng.uniform(33.735, 33.78, 40)
    lon = rng.uniform(-84.44, -84.35, 40)
    got = offroad_distance_m(atlanta, lat, lon)
    # brute force: every segment, in metres around each point
    offsets = np.asarray(street.seg_geom_offsets)
    for i in range(lat.size):
        cos = math.cos(math.radians(lat[i]))
        x = (np.asarray(street.geom_lon) - lon[i]) * cos * M_PER_DEG
        y = (np.asarray(street.geom_lat) - lat[i]) * M_PER_DEG
        lines = shapely.linestrings(
            np.column_stack([x, y]),
            indices=np.repeat(np.arange(offsets.size - 1), np.diff(offsets)),
        )
        want = float(shapely.distance(shapely.Point(0, 0), lines).min())
        assert got[i] == pytest.approx(want, rel=2e-3, abs=0.5)
    far = offroad_distance_m(atlanta, [33.9], [-84.0])
    assert far[0] > 15_000
    assert np.isinf(offroad_distance_m(atlanta, [np.nan], [0.0]))[0]


def test_limit_offroad_leaves_out_cells_far_from_streets(atlanta: TransportNetwork) -> None:
    grid = Grid.around(*FIVE_POINTS, 3000, cell_size_m=100)
    ds = compute_time_surface(atlanta, FIVE_POINTS, dt.datetime(2021, 9, 15, 8), target=grid)
    limited, distance = limit_offroad(ds, atlanta, 50.0)
    before = ds["travel_time"].values[0]
    after = limited["travel_time"].values[0]
    far = distance > 50.0
    assert far.any()
    assert (~far).any()
    assert np.isnan(after[far]).all()
    assert np.array_equal(after[~far], before[~far], equal_nan=True)
    assert np.isfinite(before[far]).any()  # the limit removed reachable cells
    unchanged, _ = limit_offroad(ds, atlanta, None)
    assert unchanged is ds
    # measuring only the reached cells, up to the limit, leaves out the very same cells
    quick, bounded = limit_offroad(ds, atlanta, 50.0, all_distances=False)
    assert quick["travel_time"].equals(limited["travel_time"])
    near = distance <= 50.0
    assert np.array_equal(bounded[near & np.isfinite(before)], distance[near & np.isfinite(before)])
    assert np.isinf(bounded[far | np.isnan(before)]).all()
    capped = offroad_distance_m(atlanta, [33.9, 33.76], [-84.0, -84.39], max_distance_m=5000.0)
    assert np.isinf(capped[0])  # the far place: nothing within 5 km
    assert capped[1] == offroad_distance_m(atlanta, [33.76], [-84.39])[0]
