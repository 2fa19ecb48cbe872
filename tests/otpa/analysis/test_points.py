"""Grids and point sets: geometry of cells, readers on real files, validation messages."""

from __future__ import annotations

import csv
import io
import json
import math
from types import SimpleNamespace

import geopandas as gpd
import numpy as np
import pandas as pd
import pytest
import shapely
from pyproj import Transformer

from otpa.analysis.points import (
    MAX_GRID_CELLS,
    Grid,
    PointSet,
    PointSetError,
)
from otpa.errors import UnknownIdError
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


# -- point sets from real files ------------------------------------------------------------
def _hexgrid_rows() -> list[dict[str, str]]:
    path = require_data("small", "porto-alegre", "poa_hexgrid.csv")
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_porto_alegre_hexgrid_csv() -> None:
    rows = _hexgrid_rows()
    ps = PointSet.from_csv(require_data("small", "porto-alegre", "poa_hexgrid.csv"))
    assert len(ps) == len(rows) == 1227
    assert ps.name == "poa_hexgrid"
    assert ps.ids.tolist() == [r["id"] for r in rows]
    np.testing.assert_array_equal(ps.lat, [float(r["lat"]) for r in rows])
    np.testing.assert_array_equal(ps.lon, [float(r["lon"]) for r in rows])
    assert list(ps.opportunities.columns) == ["population", "schools", "jobs", "healthcare"]
    assert ps.dropped_columns == ()
    for column in ps.opportunities.columns:
        expected = sum(float(r[column]) for r in rows if r[column] != "")
        blanks = sum(r[column] == "" for r in rows)
        assert ps.opportunities[column].sum() == expected
        assert int(ps.opportunities[column].isna().sum()) == blanks
    assert ps.opportunities.index.tolist() == ps.ids.tolist()


def test_otp_schools_csv() -> None:
    path = require_data("extras", "pointsets", "schools.csv")
    with path.open(newline="", encoding="utf-8") as f:
        rows = [{k: v.strip() for k, v in r.items()} for r in csv.DictReader(f)]
    ps = PointSet.from_csv(path)
    assert len(ps) == len(rows) == 9
    assert ps.ids.tolist() == [str(i) for i in range(9)]  # no id column: row numbers
    columns = [c for c in rows[0] if c not in ("lat", "lon")]
    assert list(ps.opportunities.columns) == columns
    for column in columns:
        assert ps.opportunities[column].tolist() == [int(r[column]) for r in rows]
    np.testing.assert_array_equal(ps.lat, [float(r["lat"]) for r in rows])


def test_otp_population_geojson() -> None:
    path = require_data("extras", "pointsets", "population.geo.json")
    document = json.loads(path.read_text(encoding="utf-8"))
    ps = PointSet.from_geojson(path)
    assert ps.ids.tolist() == [f["id"] for f in document["features"]]
    assert ps.lon.tolist() == [f["geometry"]["coordinates"][0] for f in document["features"]]
    assert ps.lat.tolist() == [f["geometry"]["coordinates"][1] for f in document["features"]]
    # OTP's "structured" magnitudes become columns; the text label is dropped
    assert ps.opportunities.to_dict("index") == {
        "XYZ0001": {"age": 10, "education": 6},
        "XYZ0002": {"age": 5, "education": 5},
    }
    assert ps.dropped_columns == ("label",)
    assert ps.name == "population"


# -- point sets from frames and GeoJSON ----------------------------------------------------
@pytest.mark.parametrize(
    ("lat_name", "lon_name"),
    [("Latitude", "LNG"), ("Y", "x"), ("LAT", "Longitude"), ("lat", "lon")],
)
def test_coordinate_columns_are_detected(lat_name: str, lon_name: str) -> None:
    frame = pd.DataFrame({lat_name: [1.0, 2.0], lon_name: [3.0, 4.0], "jobs": [1, 2]})
    ps = PointSet.from_frame(frame)
    assert ps.lat.tolist() == [1.0, 2.0]
    assert ps.lon.tolist() == [3.0, 4.0]
    assert ps.ids.tolist() == ["0", "1"]
    assert list(ps.opportunities.columns) == ["jobs"]


def test_explicit_columns_and_text_columns() -> None:
    frame = pd.DataFrame(
        {
            "code": ["007", "008"],
            "la": [1.0, 2.0],
            "lo": [3.0, 4.0],
            "label": ["a", "b"],
            "flag": [True, False],
            "jobs": [1.5, 2.5],
        }
    )
    ps = PointSet.from_frame(frame, id_column="code", lat_column="la", lon_column="lo")
    assert ps.ids.tolist() == ["007", "008"]
    assert list(ps.opportunities.columns) == ["jobs"]
    assert ps.dropped_columns == ("label", "flag")
    text = "code,lat,lon,jobs\n007,1,2,3\n010,1.5,2.5,4\n"
    from_csv = PointSet.from_csv(io.StringIO(text), id_column="code")
    assert from_csv.ids.tolist() == ["007", "010"]  # ids are text: leading zeros kept


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (pd.DataFrame({"id": [], "lat": [], "lon": []}), "at least one point"),
        (pd.DataFrame({"id": ["a"], "lon": [1.0]}), "no latitude column"),
        (pd.DataFrame({"id": ["a"], "lat": [1.0], "east": [1.0]}), "no longitude column"),
        (
            pd.DataFrame({"id": ["a", "b", "c"], "lat": [1.0, "x", 2.0], "lon": [1.0] * 3}),
            r"column 'lat' row 1 \(id 'b'\): 'x' is not a finite number",
        ),
        (
            pd.DataFrame({"id": ["a", "b"], "lat": [1.0, 2.0], "lon": [1.0, np.inf]}),
            r"column 'lon' row 1 \(id 'b'\)",
        ),
        (
            pd.DataFrame({"id": ["a", "b"], "lat": [1.0, np.nan], "lon": [1.0, 2.0]}),
            r"column 'lat' row 1",
        ),
        (
            pd.DataFrame({"id": ["a", "b"], "lat": [91.0, 2.0], "lon": [1.0, 2.0]}),
            r"lat of row 0 \(id 'a'\) is 91.0, outside \[-90, 90\]",
        ),
        (
            pd.DataFrame({"id": ["a", "b", "a"], "lat": [1.0] * 3, "lon": [1.0] * 3}),
            "duplicate point id 'a'",
        ),
        (
            pd.DataFrame({"id": ["a", None], "lat": [1.0] * 2, "lon": [1.0] * 2}),
            "id of row 1 is missing",
        ),
    ],
)
def test_bad_point_tables(frame: pd.DataFrame, message: str) -> None:
    with pytest.raises(PointSetError, match=message):
        PointSet.from_frame(frame)


def test_point_set_error_is_a_value_error() -> None:
    assert issubclass(PointSetError, ValueError)
    with pytest.raises(ValueError, match="duplicate"):
        PointSet(np.array(["a", "a"]), np.zeros(2), np.zeros(2))
    with pytest.raises(PointSetError, match="not numeric"):
        PointSet(np.array(["a"]), np.zeros(1), np.zeros(1), pd.DataFrame({"t": ["x"]}, index=["a"]))
    with pytest.raises(PointSetError, match="index"):
        PointSet(np.array(["a"]), np.zeros(1), np.zeros(1), pd.DataFrame({"t": [1]}, index=["b"]))


def test_geojson_polygons_properties_and_ids() -> None:
    square = [[[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0], [0.0, 0.0]]]
    u_shape = [[[0, 0], [3, 0], [3, 3], [2, 3], [2, 1], [1, 1], [1, 3], [0, 3], [0, 0]]]
    document = {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "geometry": {"type": "Polygon", "coordinates": square},
                "properties": {"id": "p1", "jobs": 4, "name": "a", "nested": {"x": 1}},
            },
            {
                "type": "Feature",
                "geometry": {"type": "MultiPolygon", "coordinates": [u_shape]},
                "properties": {"id": "p2", "jobs": 2.5, "name": "b", "nested": {"x": 2}},
            },
            {
                "type": "Feature",
                "geometry": {"type": "Point", "coordinates": [5.0, 6.0]},
                "properties": {"id": "p3", "jobs": None, "name": "c"},
            },
        ],
    }
    for source in (document, json.dumps(document)):
        ps = PointSet.from_geojson(source)
        assert ps.ids.tolist() == ["p1", "p2", "p3"]
        assert list(ps.opportunities.columns) == ["jobs", "nested:x"]
        assert ps.opportunities["jobs"].tolist()[:2] == [4.0, 2.5]
        assert math.isnan(ps.opportunities["jobs"].iloc[2])
        assert ps.dropped_columns == ("name",)
        assert shapely.Polygon(square[0]).contains(shapely.Point(ps.lon[0], ps.lat[0]))
        # the representative point of a U shape lies inside it (its centroid does not)
        u = shapely.Polygon(u_shape[0])
        assert u.contains(shapely.Point(ps.lon[1], ps.lat[1]))
        assert not u.contains(u.centroid)
        assert (ps.lon[2], ps.lat[2]) == (5.0, 6.0)


def test_geojson_errors() -> None:
    line = {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "geometry": {"type": "LineString", "coordinates": [[0, 0], [1, 1]]},
                "properties": {},
            }
        ],
    }
    with pytest.raises(PointSetError, match="feature 0 has a LineString geometry"):
        PointSet.from_geojson(line)
    with pytest.raises(PointSetError, match="at least one feature"):
        PointSet.from_geojson({"type": "FeatureCollection", "features": []})
    no_geometry = {"type": "FeatureCollection", "features": [{"type": "Feature"}]}
    with pytest.raises(PointSetError, match="feature 0 has no geometry"):
        PointSet.from_geojson(no_geometry)


def test_from_geodataframe_reprojects() -> None:
    lon = np.array([-51.2, -51.1])
    lat = np.array([-30.0, -30.1])
    gdf = gpd.GeoDataFrame(
        {"id": ["a", "b"], "jobs": [3, 4]},
        geometry=gpd.points_from_xy(lon, lat, crs="EPSG:4326"),
    ).to_crs("EPSG:31982")  # SIRGAS 2000 / UTM 22S
    ps = PointSet.from_geodataframe(gdf, name="utm")
    np.testing.assert_allclose(ps.lon, lon, atol=1e-9)
    np.testing.assert_allclose(ps.lat, lat, atol=1e-9)
    assert ps.opportunities["jobs"].tolist() == [3, 4]
    assert ps.name == "utm"


def test_from_grid_ids_and_order() -> None:
    grid = Grid.from_bounds(0.0, 0.0, 0.03, 0.02, cell_size_deg=0.01)
    ps = PointSet.from_grid(grid)
    assert grid.shape == (2, 3)
    assert ps.ids.tolist() == ["r0c0", "r0c1", "r0c2", "r1c0", "r1c1", "r1c2"]
    lat, lon = grid.points()
    np.testing.assert_array_equal(ps.lat, lat)
    np.testing.assert_array_equal(ps.lon, lon)
    assert ps.opportunities.shape == (6, 0)


# -- views ---------------------------------------------------------------------------------
def _small() -> PointSet:
    frame = pd.DataFrame(
        {
            "id": ["a", "b", "c"],
            "lat": [-30.0, -30.1, -30.2],
            "lon": [-51.0, -51.1, -51.2],
            "jobs": [1, 2, 3],
            "pop": [0.5, np.nan, 2.0],
        }
    )
    return PointSet.from_frame(frame, name="small")


def test_to_frame_geojson_and_geodataframe_round_trips() -> None:
    ps = _small()
    frame = ps.to_frame()
    assert frame.columns.tolist() == ["id", "lat", "lon", "jobs", "pop"]
    again = PointSet.from_frame(frame)
    pd.testing.assert_frame_equal(again.opportunities, ps.opportunities)
    document = json.loads(json.dumps(ps.to_geojson(), allow_nan=False))
    assert document["features"][1]["properties"] == {"jobs": 2, "pop": None}
    assert document["features"][0]["geometry"] == {"type": "Point", "coordinates": [-51.0, -30.0]}
    back = PointSet.from_geojson(document)
    assert back.ids.tolist() == ["a", "b", "c"]
    np.testing.assert_array_equal(back.lat, ps.lat)
    np.testing.assert_array_equal(back.opportunities["pop"], ps.opportunities["pop"])
    gdf = ps.to_geodataframe()
    assert gdf.crs.to_epsg() == 4326
    assert gdf.geometry.x.tolist() == ps.lon.tolist()
    assert PointSet.from_geodataframe(gdf).ids.tolist() == ps.ids.tolist()


def test_subset_positions_and_immutability() -> None:
    ps = _small()
    sub = ps.subset(["c", "a"])
    assert sub.ids.tolist() == ["c", "a"]
    assert sub.lat.tolist() == [-30.2, -30.0]
    assert sub.opportunities["jobs"].tolist() == [3, 1]
    assert sub.opportunities.index.tolist() == ["c", "a"]
    with pytest.raises(UnknownIdError, match="'zz' is not in point set 'small'"):
        ps.subset(["a", "zz"])
    with pytest.raises(ValueError, match="read-only"):
        ps.lat[0] = 0.0
    with pytest.raises(AttributeError):
        ps.name = "other"  # type: ignore[misc]
    assert len(ps) == 3
