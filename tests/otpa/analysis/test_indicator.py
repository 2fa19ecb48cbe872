"""OTP's indicator: one-minute histograms of the opportunities a surface reaches."""

from __future__ import annotations

import datetime as dt
import math
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from otpa.analysis import Grid, PointSet, compute_time_surface
from otpa.analysis._layout import surface_dataset
from otpa.analysis.indicator import histogram, indicator, point_travel_times
from tests.fixtures.networks import built_network

FIVE_POINTS = (33.7539, -84.3916)


def test_histogram_bins_are_whole_minutes_and_keep_the_last_bin() -> None:
    h = histogram([0, 59.9, 60, 61, 599, 600, np.nan, -1], [1, 2, 3, 4, 5, 6, 7, 8])
    assert h.counts.tolist() == [2, 2, 0, 0, 0, 0, 0, 0, 0, 1, 1]
    assert h.sums.tolist() == [3, 7, 0, 0, 0, 0, 0, 0, 0, 5, 6]
    empty = histogram([np.nan], [1.0])
    assert empty.counts.size == 0
    assert empty.sums.size == 0
    with_nan_weight = histogram([10.0, 20.0], [np.nan, 2.0])
    assert with_nan_weight.counts.tolist() == [2]
    assert with_nan_weight.sums.tolist() == [2.0]


def _points(lat: np.ndarray, lon: np.ndarray, seed: int) -> PointSet:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "id": [f"p{i}" for i in range(lat.size)],
            "lat": lat,
            "lon": lon,
            "jobs": rng.integers(0, 500, lat.size),
            "schools": rng.integers(0, 3, lat.size).astype(float),
        }
    )
    return PointSet.from_frame(frame, name="test")


def _independent_histograms(
    grid: Grid, plane: np.ndarray, points: PointSet
) -> dict[str, tuple[list[int], list[float]]]:
    """Per point: the cell it falls in, its minute; summed in plain Python."""
    counts: dict[int, int] = defaultdict(int)
    sums: dict[str, dict[int, float]] = {c: defaultdict(float) for c in points.opportunities}
    for i in range(len(points)):
        col = math.floor((points.lon[i] - (grid.x0 - grid.dx / 2)) / grid.dx)
        row = math.floor((points.lat[i] - (grid.y0 - grid.dy / 2)) / grid.dy)
        if not (0 <= row < grid.ny and 0 <= col < grid.nx):
            continue
        t = float(plane[row, col])
        if math.isnan(t):
            continue
        minute = int(t // 60)
        counts[minute] += 1
        for column in points.opportunities:
            sums[column][minute] += float(points.opportunities[column].iloc[i])
    n = max(counts) + 1 if counts else 0
    return {
        column: ([counts[m] for m in range(n)], [sums[column][m] for m in range(n)])
        for column in points.opportunities
    }


def test_indicator_of_a_real_surface_equals_an_independent_count(data_root: Path) -> None:
    network = built_network(data_root, "tiny/atlanta")
    grid = Grid.around(*FIVE_POINTS, 4000, cell_size_m=150)
    ds = compute_time_surface(
        network, FIVE_POINTS, dt.datetime(2021, 9, 15, 8), target=grid, max_time=2700
    )
    rng = np.random.default_rng(11)
    points = _points(rng.uniform(33.72, 33.79, 800), rng.uniform(-84.44, -84.34, 800), seed=12)
    result = indicator(ds, points)
    plane = ds["travel_time"].values[0]
    expected = _independent_histograms(grid, plane, points)
    assert set(result.histograms) == {"jobs", "schools"}
    for column, (counts, sums) in expected.items():
        assert result.histograms[column].counts.tolist() == counts
        assert result.histograms[column].sums.tolist() == pytest.approx(sums)
    reached = int(np.isfinite(result.times).sum())
    assert sum(expected["jobs"][0]) == reached > 50
    assert len(expected["jobs"][0]) > 20  # times spread over many minutes


def test_point_set_surfaces_are_matched_by_id() -> None:
    lat = np.array([0.0, 0.001, 0.002])
    lon = np.array([0.0, 0.0, 0.0])
    surface_points = _points(lat, lon, seed=1)
    ds = surface_dataset(
        surface_points, np.array([[30.0, np.nan, 150.0]], np.float32), [50], attrs={}
    )
    targets = surface_points.subset(["p2", "p0"])
    assert point_travel_times(ds, targets).tolist() == [150.0, 30.0]
    unknown = _points(np.array([1.0]), np.array([1.0]), seed=2).subset(["p0"])
    renamed = PointSet(np.array(["zz"]), unknown.lat, unknown.lon)
    assert np.isnan(point_travel_times(ds, renamed)).all()
