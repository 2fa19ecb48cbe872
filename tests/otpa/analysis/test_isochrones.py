"""Isochrones from synthetic surfaces: discs of known area, nesting, holes, exports."""

from __future__ import annotations

import io
import itertools
import json
import math
import zipfile
from pathlib import Path

import geopandas as gpd
import numpy as np
import pytest
import shapely
import xarray as xr
from pyproj import Geod

import otpa.analysis.accessor  # noqa: F401  (registers .otpa)
from otpa.analysis._layout import surface_dataset
from otpa.analysis.grid import Grid
from otpa.analysis.isochrones import isochrone_shapefile_zip, isochrones, isochrones_geojson
from otpa.analysis.pointset import PointSet
from otpa.util.geo import haversine_m

LAT0, LON0 = -30.05, -51.2
SPEED = 2.0  # m/s: cutoff c seconds reaches 2c metres
CUTOFFS = (600, 1200, 1800)
GEOD = Geod(ellps="WGS84")


def _area_m2(geometry: shapely.Geometry) -> float:
    return abs(GEOD.geometry_area_perimeter(geometry)[0])


def _distance_m(grid: Grid, lat: float = LAT0, lon: float = LON0) -> np.ndarray:
    glat, glon = grid.points()
    return haversine_m(lat, lon, glat, glon)


def _cone(crs: str, cell_m: float = 100.0) -> tuple[Grid, xr.Dataset]:
    grid = Grid.around(LAT0, LON0, 5000.0, cell_size_m=cell_m, crs=crs)  # type: ignore[arg-type]
    tt = (_distance_m(grid) / SPEED)[None, :]
    return grid, surface_dataset(grid, tt, [50], attrs={"origin_lat": LAT0, "origin_lon": LON0})


def _assert_nested(gdf: gpd.GeoDataFrame) -> None:
    geoms = list(gdf.geometry)
    for small, large in itertools.pairwise(geoms):
        assert small.difference(large).area <= 1e-12 * max(small.area, 1e-30)
        assert large.buffer(1e-9).contains(small)
        assert large.area >= small.area


@pytest.mark.parametrize("crs", ["EPSG:4326", "EPSG:3857"])
def test_cone_gives_nested_discs_of_the_right_area(crs: str) -> None:
    _, ds = _cone(crs)
    gdf = isochrones(ds, CUTOFFS)
    assert gdf.crs.to_epsg() == 4326
    assert gdf["time"].tolist() == list(CUTOFFS)
    assert gdf["time"].dtype == np.int64
    assert gdf["percentile"].tolist() == [50, 50, 50]
    assert all(isinstance(g, shapely.MultiPolygon) for g in gdf.geometry)
    assert gdf.geometry.is_valid.all()
    _assert_nested(gdf)
    origin = shapely.Point(LON0, LAT0)
    for geometry, cutoff in zip(gdf.geometry, CUTOFFS, strict=True):
        assert geometry.contains(origin)
        assert len(geometry.geoms) == 1
        assert not geometry.geoms[0].interiors
        radius = SPEED * cutoff
        assert _area_m2(geometry) == pytest.approx(math.pi * radius**2, rel=0.02)
        # the outline lies on the circle: every vertex is within a cell of the radius
        lon, lat = np.asarray(geometry.geoms[0].exterior.coords).T
        ring_dist = haversine_m(LAT0, LON0, lat, lon)
        assert np.all(np.abs(ring_dist - radius) < 100.0)


def test_unreachable_lake_is_a_hole_and_islands_are_separate_polygons() -> None:
    grid = Grid.around(LAT0, LON0, 5000.0, cell_size_m=100.0)
    glat, glon = grid.points()
    tt = _distance_m(grid) / SPEED
    lake_lon = LON0 + 1500.0 / (111_195.0 * math.cos(math.radians(LAT0)))
    lake = haversine_m(LAT0, lake_lon, glat, glon) < 500.0
    tt[lake] = np.nan
    gdf = isochrones(surface_dataset(grid, tt[None, :], [50], attrs={}), [1800])
    geometry = gdf.geometry.iloc[0]
    assert geometry.is_valid
    assert len(geometry.geoms) == 1
    polygon = geometry.geoms[0]
    assert len(polygon.interiors) == 1
    assert not geometry.contains(shapely.Point(lake_lon, LAT0))
    assert geometry.contains(shapely.Point(LON0, LAT0))
    expected = math.pi * (3600.0**2 - 500.0**2)
    assert _area_m2(geometry) == pytest.approx(expected, rel=0.03)

    # an unreachable ring cuts the area into a disc and an annulus around it
    dist = _distance_m(grid)
    ring = (dist > 1500.0) & (dist < 2000.0)
    tt2 = dist / SPEED
    tt2[ring] = np.nan
    gdf2 = isochrones(surface_dataset(grid, tt2[None, :], [50], attrs={}), [600, 1800])
    inner, both = gdf2.geometry
    assert len(inner.geoms) == 1
    assert not inner.geoms[0].interiors
    assert len(both.geoms) == 2
    holes = sorted(len(p.interiors) for p in both.geoms)
    assert holes == [0, 1]
    annulus = next(p for p in both.geoms if p.interiors)
    assert not annulus.contains(shapely.Point(LON0, LAT0))
    _assert_nested(gdf2)


def test_percentiles_rows_and_selection() -> None:
    grid = Grid.around(LAT0, LON0, 3000.0, cell_size_m=100.0)
    base = _distance_m(grid) / SPEED
    ds = surface_dataset(grid, np.stack([base, 1.5 * base]), [50, 90], attrs={})
    gdf = isochrones(ds, [900, 600])
    assert gdf[["time", "percentile"]].values.tolist() == [
        [600, 50],
        [600, 90],
        [900, 50],
        [900, 90],
    ]
    p50 = gdf[gdf["percentile"] == 50].geometry
    p90 = gdf[gdf["percentile"] == 90].geometry
    for slow, fast in zip(p90, p50, strict=True):
        assert _area_m2(slow) == pytest.approx(_area_m2(fast) / 1.5**2, rel=0.03)
    only = isochrones(ds, [600], percentile=90)
    assert only["percentile"].tolist() == [90]
    assert only.geometry.iloc[0].equals(p90.iloc[0])
    with pytest.raises(ValueError, match="percentile 75 is not in the surface"):
        isochrones(ds, [600], percentile=75)
    two_d = ds["travel_time"].sel(percentile=50)
    assert isochrones(two_d, [600]).geometry.iloc[0].equals(p50.iloc[0])


def test_simplify_keeps_nesting_and_area() -> None:
    _, ds = _cone("EPSG:4326", cell_m=50.0)
    full = isochrones(ds, CUTOFFS)
    simple = isochrones(ds, CUTOFFS, simplify_m=30.0)
    assert simple.geometry.is_valid.all()
    _assert_nested(simple)
    for a, b in zip(full.geometry, simple.geometry, strict=True):
        assert shapely.get_num_coordinates(b) < shapely.get_num_coordinates(a) / 2
        # the outline moves by at most the tolerance: the area between the two outlines is
        # at most the perimeter times 30 m
        perimeter = GEOD.geometry_area_perimeter(a)[1]
        moved = _area_m2(a.symmetric_difference(b))
        assert 0 < moved <= perimeter * 30.0


def test_nothing_reachable_gives_empty_geometries() -> None:
    grid = Grid.around(LAT0, LON0, 1000.0, cell_size_m=100.0)
    ds = surface_dataset(grid, np.full((1, grid.n_cells), np.nan), [50], attrs={})
    gdf = isochrones(ds, [600, 1200])
    assert gdf["time"].tolist() == [600, 1200]
    assert gdf.geometry.is_empty.all()
    far = surface_dataset(grid, np.full((1, grid.n_cells), 5000.0), [50], attrs={})
    assert isochrones(far, [600]).geometry.is_empty.all()


def test_errors() -> None:
    ps = PointSet(np.array(["a", "b"]), np.array([0.0, 0.1]), np.array([0.0, 0.1]))
    points = surface_dataset(ps, np.zeros((1, 2)), [50], attrs={})
    with pytest.raises(ValueError, match="point-set surface"):
        isochrones(points, [600])
    _, ds = _cone("EPSG:4326", cell_m=500.0)
    for bad in ([0], [-60], [600.5], [float("nan")], []):
        with pytest.raises(ValueError, match="cutoff"):
            isochrones(ds, bad)
    with pytest.raises(ValueError, match="simplify_m"):
        isochrones(ds, [600], simplify_m=-1.0)
    by = ds["travel_time"].rename(percentile="departure_time")
    with pytest.raises(ValueError, match="select along"):
        isochrones(by, [600])


def test_geojson_has_otps_shape() -> None:
    _, ds = _cone("EPSG:3857", cell_m=200.0)
    gdf = ds.otpa.isochrones(CUTOFFS)
    document = json.loads(json.dumps(isochrones_geojson(gdf), allow_nan=False))
    assert document["type"] == "FeatureCollection"
    assert [f["properties"] for f in document["features"]] == [{"time": t} for t in CUTOFFS]
    for feature, geometry in zip(document["features"], gdf.geometry, strict=True):
        assert feature["type"] == "Feature"
        assert feature["geometry"]["type"] == "MultiPolygon"
        back = shapely.geometry.shape(feature["geometry"])
        assert back.symmetric_difference(geometry).area <= 1e-9 * geometry.area
    extra = isochrones_geojson(gdf, extra_properties=["percentile"])
    assert extra["features"][0]["properties"] == {"time": 600, "percentile": 50}


def test_shapefile_zip_round_trip(tmp_path: Path) -> None:
    _, ds = _cone("EPSG:4326", cell_m=200.0)
    gdf = isochrones(ds, CUTOFFS)
    data = isochrone_shapefile_zip(gdf)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = set(archive.namelist())
        assert {"isochrones.shp", "isochrones.shx", "isochrones.dbf", "isochrones.prj"} <= names
        archive.extractall(tmp_path)
    back = gpd.read_file(tmp_path / "isochrones.shp")
    assert back.crs.to_epsg() == 4326
    assert back["time"].tolist() == list(CUTOFFS)
    assert back["percentile"].tolist() == [50, 50, 50]
    for a, b in zip(back.geometry, gdf.geometry, strict=True):
        assert a.symmetric_difference(b).area <= 1e-9 * b.area
    with pytest.raises(ValueError, match="bad shapefile name"):
        isochrone_shapefile_zip(gdf, name="../x")
