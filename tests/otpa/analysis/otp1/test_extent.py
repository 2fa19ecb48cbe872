"""The grid an origin's surface needs (``extent.py``), street sheds and circle isochrones."""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path

import numpy as np
import pytest
import shapely

from otpa.analysis import AnalysisRequest, compute_time_surface
from otpa.analysis.otp1.circle_isochrones import circle_isochrones, simple_isochrones, stop_points
from otpa.analysis.otp1.extent import (
    GridTooLargeError,
    TooManyTargetsError,
    reach_box,
    reach_grid,
    reach_radius_m,
)
from otpa.analysis.otp1.street_shed import street_shed
from otpa.network import TransportNetwork
from tests.fixtures.networks import built_network

FIVE_POINTS = (33.7539, -84.3916)
DEPARTURE = dt.datetime(2021, 9, 15, 8)
M_PER_DEG = math.pi * 6_371_010.0 / 180.0


@pytest.fixture(scope="module")
def atlanta(data_root: Path) -> TransportNetwork:
    return built_network(data_root, "tiny/atlanta")


def test_reach_radius_uses_the_fastest_mode() -> None:
    walk = AnalysisRequest(DEPARTURE, modes="WALK", max_time_s=600, walk_speed_mps=1.5)
    assert reach_radius_m(walk) == 900.0
    bike = walk.replace(modes="BICYCLE", bike_speed_mps=5.0)
    assert reach_radius_m(bike) == 3000.0
    transit = walk.replace(modes="WALK,TRANSIT")
    assert reach_radius_m(transit) == 600 * 30.0


def test_reach_grid_is_aligned_on_the_origin_and_clipped(atlanta: TransportNetwork) -> None:
    request = AnalysisRequest(DEPARTURE, modes="WALK", max_time_s=900, walk_speed_mps=1.33)
    grid = reach_grid(atlanta, *FIVE_POINTS, request, cell_size_m=100)
    lat, lon = FIVE_POINTS
    col = (lon - grid.x0) / grid.dx
    row = (lat - grid.y0) / grid.dy
    assert col == pytest.approx(round(col), abs=1e-6)
    assert row == pytest.approx(round(row), abs=1e-6)
    assert grid.dy * M_PER_DEG == pytest.approx(100.0)
    _west, south, _east, north = grid.bounds
    radius = 900 * 1.33
    assert (north - south) * M_PER_DEG == pytest.approx(2 * radius, abs=200)
    # transit reaches the whole network: the grid is clipped to its extent plus 1 km
    far = reach_grid(atlanta, *FIVE_POINTS, request.replace(modes="WALK,TRANSIT"), cell_size_m=200)
    min_lon, min_lat, max_lon, max_lat = atlanta.bounds
    fw, fs, fe, fn = far.bounds
    assert fs >= min_lat - 1000 / M_PER_DEG - 200 / M_PER_DEG
    assert fn <= max_lat + 1000 / M_PER_DEG + 200 / M_PER_DEG
    assert fe - fw < (max_lon - min_lon) + 0.05


def test_reach_grid_alignment_point_and_web_mercator(atlanta: TransportNetwork) -> None:
    request = AnalysisRequest(DEPARTURE, modes="WALK", max_time_s=600)
    anchor = (33.75, -84.39)
    grid = reach_grid(atlanta, *FIVE_POINTS, request, cell_size_m=150, align_to=anchor)
    col = (anchor[1] - grid.x0) / grid.dx
    assert col == pytest.approx(round(col), abs=1e-6)
    zoomed = reach_grid(atlanta, *FIVE_POINTS, request, zoom=12)
    assert zoomed.crs == "EPSG:3857"
    assert zoomed.zoom == 12
    merc = reach_grid(atlanta, *FIVE_POINTS, request, cell_size_m=100, crs="EPSG:3857")
    assert merc.crs == "EPSG:3857"
    assert merc.dx * math.cos(math.radians(FIVE_POINTS[0])) == pytest.approx(100.0)


def test_reach_grid_refuses_too_many_cells(atlanta: TransportNetwork) -> None:
    request = AnalysisRequest(DEPARTURE, modes="WALK,TRANSIT", max_time_s=7200)
    with pytest.raises(GridTooLargeError) as info:
        reach_grid(atlanta, *FIVE_POINTS, request, cell_size_m=10, max_cells=100_000)
    assert info.value.limit == 100_000
    assert info.value.n_targets > 100_000
    assert isinstance(info.value, TooManyTargetsError)


def test_reach_box_of_a_point_outside_the_network(atlanta: TransportNetwork) -> None:
    box = reach_box(atlanta, 40.0, -100.0, 5000.0)
    assert box.south < 40.0 < box.north
    assert (box.north - box.south) * M_PER_DEG <= 2000.1


def test_street_shed_points_edges_and_hull(atlanta: TransportNetwork) -> None:
    request = AnalysisRequest(DEPARTURE, modes="WALK", max_time_s=600, walk_speed_mps=1.33)
    points = street_shed(atlanta, FIVE_POINTS, request=request, output="POINTS")
    assert isinstance(points, shapely.MultiPoint)
    assert len(points.geoms) > 20
    # every point is within the walking radius (straight line) and reached per the surface
    coords = np.asarray([(p.x, p.y) for p in points.geoms])
    dist = np.hypot(
        (coords[:, 0] - FIVE_POINTS[1]) * math.cos(math.radians(FIVE_POINTS[0])) * M_PER_DEG,
        (coords[:, 1] - FIVE_POINTS[0]) * M_PER_DEG,
    )
    assert dist.max() <= 600 * 1.33 + 1
    edges = street_shed(atlanta, FIVE_POINTS, request=request, output="EDGES")
    assert isinstance(edges, shapely.MultiLineString)
    assert len(edges.geoms) > 10
    hull = street_shed(atlanta, FIVE_POINTS, request=request, output="SHED")
    assert isinstance(hull, shapely.Polygon)
    assert hull.is_valid
    assert hull.buffer(1e-9).contains(points)
    longer = street_shed(atlanta, FIVE_POINTS, request=request.replace(max_time_s=1200))
    assert len(longer.geoms) > len(points.geoms)
    with pytest.raises(TooManyTargetsError):
        street_shed(atlanta, FIVE_POINTS, request=request, max_points=5)


def test_circle_isochrones_are_unions_of_remaining_time_circles() -> None:
    lat = np.array([33.75, 33.76, 33.80])
    lon = np.array([-84.39, -84.38, -84.30])
    times = np.array([0.0, 300.0, np.nan])
    shapes = circle_isochrones(lat, lon, times, [600, 300], 1.0)
    small, large = shapes
    assert small.contains(shapely.Point(-84.39, 33.75))
    # 300 s at 1 m/s: radius 300 m around the first place, none around the second (0 s left)
    north = shapely.Point(-84.39, 33.75 + 290 / M_PER_DEG)
    assert small.contains(north)
    assert not small.contains(shapely.Point(-84.39, 33.75 + 310 / M_PER_DEG))
    assert not small.contains(shapely.Point(-84.38, 33.76))
    assert large.contains(small.buffer(-1e-7))
    assert large.contains(shapely.Point(-84.38, 33.76 + 250 / M_PER_DEG))
    assert not large.intersects(shapely.Point(-84.30, 33.80))


def test_simple_isochrones_grow_from_reached_stops(atlanta: TransportNetwork) -> None:
    request = AnalysisRequest(
        DEPARTURE, modes="WALK,TRANSIT", window_s=3600, step_s=1800, max_time_s=3600
    )
    shapes = simple_isochrones(atlanta, FIVE_POINTS, cutoffs_s=[1800, 3600], request=request)
    assert len(shapes) == 2
    assert not shapes[0].is_empty
    assert shapes[1].contains(shapes[0].buffer(-1e-6))
    stops = stop_points(atlanta)
    ds = compute_time_surface(
        atlanta, FIVE_POINTS, target=stops, request=request.replace(percentiles=(0,))
    )
    times = ds["travel_time"].values[0]
    reached = np.flatnonzero(times < 1800 - 60)
    assert reached.size > 0
    for i in reached[:20]:
        assert shapes[0].contains(shapely.Point(stops.lon[i], stops.lat[i]))
    with_origin = simple_isochrones(
        atlanta, FIVE_POINTS, cutoffs_s=[1800], request=request, stops_only=False
    )
    assert with_origin[0].contains(shapely.Point(FIVE_POINTS[1], FIVE_POINTS[0]))
