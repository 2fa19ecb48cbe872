"""Point sets: readers on real files and frames, GeoJSON, validation messages, views."""

from __future__ import annotations

import csv
import io
import json
import math

import geopandas as gpd
import numpy as np
import pandas as pd
import pytest
import shapely

from otpa.analysis.grid import Grid
from otpa.analysis.pointset import PointSet, PointSetError
from otpa.errors import UnknownIdError
from tests.conftest import require_data


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
