"""Grids: geometry of cells in degrees and web mercator, network extents, validation."""

from __future__ import annotations

import json
import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from pyproj import Transformer

from otpa.analysis.grid import MAX_GRID_CELLS, Grid
from otpa.util.geo import haversine_m
from tests.conftest import require_data
from tests.fixtures.networks import built_network

POA = (-51.25, -30.10, -51.15, -30.00)  # west, south, east, north (Porto Alegre)


# -- grids ---------------------------------------------------------------------------------
def test_wgs84_grid_from_bounds_cells_are_square_on_the_ground() -> None:
    grid = Grid.from_bounds(*POA, cell_size_m=250.0)
    dy = 250.0 / (math.pi * 6_371_010.0 / 180.0)
    dx = dy / math.cos(math.radians(-30.05))
    assert grid.crs == "EPSG:4326"
    assert grid.cell_size == pytest.approx((dx, dy), rel=1e-12)
    assert grid.shape == (math.ceil(0.1 / dy), math.ceil(0.1 / dx))
    assert grid.n_cells == grid.shape[0] * grid.shape[1]
    # centres start half a cell in from the south-west corner and increase
    assert grid.x[0] == pytest.approx(-51.25 + dx / 2)
    assert grid.y[0] == pytest.approx(-30.10 + dy / 2)
    assert np.all(np.diff(grid.x) > 0)
    assert np.all(np.diff(grid.y) > 0)
    west, south, east, north = grid.bounds
    assert west == pytest.approx(-51.25)
    assert south == pytest.approx(-30.10)
    assert east >= -51.15
    assert north >= -30.00
    assert east - dx < -51.15
    assert north - dy < -30.00
    # neighbouring centres on the middle row are 250 m apart (haversine, same sphere)
    mid = grid.ny // 2
    lat, lon = grid.lat, grid.lon
    ew = haversine_m(lat[mid, 0], lon[mid, 0], lat[mid, 1], lon[mid, 1])
    ns = haversine_m(lat[0, 0], lon[0, 0], lat[1, 0], lon[1, 0])
    assert ns == pytest.approx(250.0, rel=1e-9)
    assert ew == pytest.approx(250.0, rel=2e-3)


def test_grid_points_are_c_order_matching_reshape() -> None:
    grid = Grid.from_bounds(*POA, cell_size_m=1000.0)
    lat, lon = grid.points()
    assert lat.shape == lon.shape == (grid.n_cells,)
    assert grid.lat.shape == grid.lon.shape == grid.shape
    k = 2 * grid.nx + 3  # row 2, column 3
    assert lat[k] == grid.y[2]
    assert lon[k] == grid.x[3]
    np.testing.assert_array_equal(lat.reshape(grid.shape), grid.lat)
    np.testing.assert_array_equal(lon.reshape(grid.shape)[0], grid.x)


def test_web_mercator_grid_from_bounds_matches_pyproj() -> None:
    grid = Grid.from_bounds(*POA, cell_size_m=300.0, crs="EPSG:3857")
    to_merc = Transformer.from_crs("EPSG:4326", "EPSG:3857", always_xy=True)
    xw, ys = to_merc.transform(-51.25, -30.10)
    assert grid.edges[0] == pytest.approx(xw, abs=1e-6)
    assert grid.edges[1] == pytest.approx(ys, abs=1e-6)
    assert grid.dx == grid.dy == pytest.approx(300.0 / math.cos(math.radians(-30.05)))
    to_wgs = Transformer.from_crs("EPSG:3857", "EPSG:4326", always_xy=True)
    xx, yy = np.meshgrid(grid.x, grid.y)
    lon, lat = to_wgs.transform(xx, yy)
    np.testing.assert_allclose(grid.lon, lon, rtol=0, atol=1e-9)
    np.testing.assert_allclose(grid.lat, lat, rtol=0, atol=1e-9)
    west, south, east, north = grid.bounds
    assert west == pytest.approx(-51.25)
    assert south == pytest.approx(-30.10)
    assert east >= -51.15
    assert north >= -30.0


@pytest.mark.parametrize("zoom", [9, 10, 12])
def test_web_mercator_zoom_grid_is_the_slippy_map_pixel_lattice(zoom: int) -> None:
    grid = Grid.web_mercator(*POA, zoom=zoom)
    world_px = 256 * 2**zoom
    pixel = 2 * math.pi * 6_378_137.0 / world_px
    assert grid.zoom == zoom
    assert grid.crs == "EPSG:3857"
    assert grid.dx == grid.dy == pytest.approx(pixel, rel=1e-12)

    # standard slippy-map pixel coordinates (x from the antimeridian, y from the north)
    def px(lon: float) -> float:
        return (lon + 180.0) / 360.0 * world_px

    def py(lat: float) -> float:
        phi = math.radians(lat)
        return (1 - math.log(math.tan(phi) + 1 / math.cos(phi)) / math.pi) / 2 * world_px

    assert grid.nx == math.floor(px(-51.15)) - math.floor(px(-51.25)) + 1
    assert grid.ny == math.floor(py(-30.10)) - math.floor(py(-30.00)) + 1
    # the western edge is the left edge of the pixel holding the west bound
    assert grid.bounds[0] == pytest.approx(math.floor(px(-51.25)) / world_px * 360 - 180)
    # the grid covers the bounds
    west, south, east, north = grid.bounds
    assert west <= -51.25
    assert south <= -30.10
    assert east >= -51.15
    assert north >= -30.0
    # grids of one zoom share the lattice
    other = Grid.web_mercator(-51.22, -30.07, -51.2, -30.05, zoom=zoom)
    offset = (other.x0 - grid.x0) / pixel
    assert offset == pytest.approx(round(offset), abs=1e-6)


def test_grid_around_a_point() -> None:
    grid = Grid.around(-30.05, -51.2, 2000.0, cell_size_m=100.0)
    west, south, _east, _north = grid.bounds
    assert haversine_m(-30.05, west, -30.05, -51.2) == pytest.approx(2000.0, rel=1e-3)
    assert haversine_m(south, -51.2, -30.05, -51.2) == pytest.approx(2000.0, rel=1e-9)
    assert grid.shape == (40, 40)


def test_grid_dict_round_trip_through_json() -> None:
    for grid in (
        Grid.from_bounds(*POA, cell_size_m=500.0),
        Grid.web_mercator(*POA, zoom=11),
    ):
        back = Grid.from_dict(json.loads(json.dumps(grid.to_dict())))
        assert back.same_as(grid)
        assert back is not grid
        assert back.zoom == grid.zoom
        np.testing.assert_array_equal(back.x, grid.x)
    assert Grid.from_bounds(*POA, cell_size_deg=(0.01, 0.005)).shape == (20, 10)


def test_grid_for_network_covers_stops_and_streets_with_buffer() -> None:
    stops = pd.DataFrame({"lat": [-30.02, np.nan, -30.05], "lon": [-51.21, -51.0, -51.18]})
    street = SimpleNamespace(
        vertex_lat=np.array([-30.06, -30.01]), vertex_lon=np.array([-51.22, -51.17])
    )
    net = SimpleNamespace(transit=SimpleNamespace(stops=stops), street=street)
    grid = Grid.for_network(net, cell_size_m=100.0, buffer_m=500.0)  # type: ignore[arg-type]
    west, south, east, north = grid.bounds
    assert west == pytest.approx(-51.22 - 500.0 / 111_195.0 / math.cos(math.radians(-30.035)))
    assert south == pytest.approx(-30.06 - 500.0 / (math.pi * 6_371_010.0 / 180.0))
    assert east >= -51.17
    assert north >= -30.01
    transit_only = SimpleNamespace(transit=SimpleNamespace(stops=stops), street=None)
    small = Grid.for_network(transit_only, buffer_m=0.0)  # type: ignore[arg-type]
    assert small.bounds[0] == pytest.approx(-51.21)
    assert small.bounds[1] == pytest.approx(-30.05)


def test_grid_for_a_built_network() -> None:
    net = built_network(require_data(), "tiny/atlanta")
    grid = Grid.for_network(net, cell_size_m=300.0, crs="EPSG:3857")
    west, south, east, north = grid.bounds
    assert west < net.street.vertex_lon.min()
    assert east > net.street.vertex_lon.max()
    assert south < net.transit.stops["lat"].min()
    assert north > net.transit.stops["lat"].max()


@pytest.mark.parametrize(
    ("bounds", "kwargs", "message"),
    [
        ((np.nan, 0, 1, 1), {}, "finite"),
        ((0, 0, np.inf, 1), {}, "finite"),
        ((1, 0, 0, 1), {}, "inverted"),
        ((0, 1, 1, 0), {}, "inverted"),
        ((0, 0, 1, 1), {"cell_size_m": 0.0}, "positive"),
        ((0, 0, 1, 1), {"cell_size_m": -5.0}, "positive"),
        ((0, 0, 1, 1), {"cell_size_deg": 0.0}, "positive"),
        ((0, 0, 1, 95), {}, "latitudes"),
        ((0, 0, 1, 86), {"crs": "EPSG:3857"}, "latitudes"),
        ((0, 0, 1, 1), {"crs": "EPSG:2154"}, "crs"),
        ((-180, -80, 180, 80), {"cell_size_m": 100.0}, "exceeds the limit of 4000000"),
        ((0, 0, 0.1, 0.1), {"cell_size_m": 100.0, "max_cells": 100}, "limit of 100 cells"),
    ],
)
def test_grid_validation(bounds: tuple[float, ...], kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Grid.from_bounds(*bounds, **kwargs)


def test_grid_validation_other_constructors() -> None:
    assert MAX_GRID_CELLS == 4_000_000
    with pytest.raises(ValueError, match="zoom"):
        Grid.web_mercator(*POA, zoom=14)
    with pytest.raises(ValueError, match="exceeds"):
        Grid.web_mercator(-100, -50, 100, 50, zoom=12)
    with pytest.raises(ValueError, match="lacks dx"):
        Grid.from_dict({"crs": "EPSG:4326", "x0": 0, "y0": 0, "dy": 1, "nx": 1, "ny": 1})
    with pytest.raises(ValueError, match="exceeds"):
        Grid.from_dict(
            {"crs": "EPSG:4326", "x0": 0, "y0": 0, "dx": 1e-6, "dy": 1e-6, "nx": 3000, "ny": 3000}
        )
    with pytest.raises(ValueError, match="positive integer"):
        Grid("EPSG:4326", 0.0, 0.0, 1.0, 1.0, 0, 3)
    with pytest.raises(ValueError, match="radius_m"):
        Grid.around(0.0, 0.0, -1.0)
