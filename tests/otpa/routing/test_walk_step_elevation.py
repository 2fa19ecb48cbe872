"""Walk steps carry elevation profiles read off the DEM (Porto Alegre, ``poa_elevation.tif``).

The expected heights come from the GeoTIFF itself through rasterio: a bilinear value at a
point always lies between the four pixels around it, so each step's first height must.
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
from pathlib import Path

import numpy as np
import pytest
import rasterio
from pyproj import Transformer

import otpa
from otpa.network import TransportNetwork
from otpa.routing import Location, PlanRequest
from otpa.routing.parse import parse_modes
from tests.fixtures.networks import built_network


@pytest.fixture(scope="module")
def poa(data_root: Path) -> TransportNetwork:
    return built_network(data_root, "small/porto-alegre")


def _pixel_range(path: Path, lat: float, lon: float) -> tuple[float, float]:
    """Lowest and highest of the 2 x 2 pixels whose centres surround a point."""
    with rasterio.open(path) as src:
        x, y = Transformer.from_crs("EPSG:4326", src.crs, always_xy=True).transform(lon, lat)
        col, row = ~src.transform @ (x, y)
        c0, r0 = math.floor(col - 0.5), math.floor(row - 0.5)
        window = rasterio.windows.Window(c0, r0, 2, 2)
        values = src.read(1, window=window, boundless=True, masked=True).astype(float)
    return float(values.min()), float(values.max())


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # rasterio.windows
def test_walk_steps_have_heights_from_the_dem(poa: TransportNetwork, data_root: Path) -> None:
    dem = data_root / "small" / "porto-alegre" / "poa_elevation.tif"
    request = PlanRequest(
        from_place=Location(lat=-30.0276, lon=-51.2278),
        to_place=Location(lat=-30.0350, lon=-51.2150),
        date_time=dt.datetime(2019, 5, 13, 14, 0),
        modes=parse_modes("WALK"),
    )
    itinerary = otpa.plan(poa, request).itineraries[0]
    steps = itinerary.legs[0].steps
    with_heights = [s for s in steps if s.elevation]
    assert len(with_heights) >= len(steps) - 1
    for step in with_heights:
        distances = [d for d, _ in step.elevation]
        assert distances[0] == 0.0
        assert distances == sorted(distances)
        assert distances[-1] == pytest.approx(step.distance, abs=0.5)
    for step in with_heights[1:]:  # steps after the first start on a street vertex
        low, high = _pixel_range(dem, step.lat, step.lon)
        assert low - 0.06 <= step.elevation[0][1] <= high + 0.06
    heights = np.array([h for s in with_heights for _, h in s.elevation])
    assert heights.max() - heights.min() > 5  # the walk climbs: not a flat default
    # the leg's climb and descent are summed over 10 m samples; the step profiles
    # (one point per street vertex) see at most as much
    profile = [h for s in with_heights for _, h in s.elevation]
    climb = sum(max(b - a, 0.0) for a, b in itertools.pairwise(profile))
    assert climb <= itinerary.elevation_gained + 1.0


def test_vertex_heights_survive_save_and_load(poa: TransportNetwork, tmp_path: Path) -> None:
    heights = poa.street.vertex_elevation_m if poa.street is not None else None
    assert heights is not None
    assert heights.dtype == np.float32
    assert np.isfinite(heights).mean() > 0.9
    loaded = TransportNetwork.load(poa.save(tmp_path / "graph"))
    assert loaded.street is not None
    np.testing.assert_array_equal(loaded.street.vertex_elevation_m, heights)
