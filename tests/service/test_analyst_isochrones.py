"""``/isochrone``, ``/isochroneOld``, ``/simpleIsochrone`` over HTTP on Atlanta (MARTA)."""

from __future__ import annotations

import io
import itertools
import math
import zipfile
from collections.abc import Iterator
from pathlib import Path

import geopandas as gpd
import pytest
import shapely
from _analyst_helpers import ATL_QUERY, FIVE_POINTS, analyst_server, atl_query, get
from _fakes import Service

from tests.conftest import DATA_ROOT, require_data
from tests.fixtures.networks import built_network

pytestmark = pytest.mark.http

ORIGIN = shapely.Point(FIVE_POINTS[1], FIVE_POINTS[0])
M_PER_DEG = math.pi * 6_371_010.0 / 180.0


@pytest.fixture(scope="module")
def svc() -> Iterator[Service]:
    require_data("tiny", "atlanta")
    with analyst_server({"atlanta": built_network(DATA_ROOT, "tiny/atlanta")}) as service:
        yield service


def _iso(svc: Service, extra: str, status: int = 200, **headers: str) -> dict:
    resp = get(svc, f"/otp/routers/atlanta/isochrone?{ATL_QUERY}{extra}", status, **headers)
    return resp.json()


def test_isochrones_are_nested_per_cutoff_and_contain_the_origin(svc: Service) -> None:
    resp = get(
        svc,
        f"/otp/routers/atlanta/isochrone?{ATL_QUERY}&cutoffSec=1800&cutoffSec=600"
        "&cutoffSec=1200&algorithm=accSampling&precisionMeters=150",
    )
    assert resp.header("Cache-Control") == "max-age=3600"
    assert resp.header("Content-Type") == "application/json"
    body = resp.json()
    assert body["type"] == "FeatureCollection"
    features = body["features"]
    assert [f["properties"]["time"] for f in features] == [600, 1200, 1800]
    shapes = [shapely.geometry.shape(f["geometry"]) for f in features]
    for feature, shape in zip(features, shapes, strict=True):
        assert feature["geometry"]["type"] == "MultiPolygon"
        assert shape.is_valid
        assert not shape.is_empty
        assert shape.contains(ORIGIN)
    for smaller, larger in itertools.pairwise(shapes):
        assert larger.buffer(1e-9).contains(smaller)
        assert larger.area > smaller.area
    # ten minutes of walking at 1.33 m/s cannot leave a 800 m radius (plus a cell)
    lon0, lat0 = ORIGIN.x, ORIGIN.y
    _, miny, maxx, maxy = shapes[0].bounds
    reach = 600 * 1.33 + 2 * 150
    assert (maxy - lat0) * M_PER_DEG < reach
    assert (lat0 - miny) * M_PER_DEG < reach
    # the rail line carries the 30-minute isochrone farther than walking could
    far = max(abs(maxx - lon0), abs(lon0 - shapes[2].bounds[0]))
    assert far * M_PER_DEG * math.cos(math.radians(lat0)) > 1800 * 1.33


def test_zipped_shapefile_on_request(svc: Service, tmp_path: Path) -> None:
    resp = get(
        svc,
        f"/otp/routers/atlanta/isochrone?{ATL_QUERY}&cutoffSec=900&cutoffSec=1800&shpName=five",
        Accept="application/x-zip-compressed",
    )
    assert resp.header("Content-Type") == "application/x-zip-compressed"
    with zipfile.ZipFile(io.BytesIO(resp.body)) as archive:
        names = set(archive.namelist())
    assert {"five.shp", "five.shx", "five.dbf", "five.prj"} <= names
    path = tmp_path / "five.zip"
    path.write_bytes(resp.body)
    frame = gpd.read_file(f"zip://{path}!five.shp")
    assert sorted(frame["time"].tolist()) == [900, 1800]
    assert frame.geometry.contains(ORIGIN).all()


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        ("", "cutoffSec"),
        ("&cutoffSec=abc", "cutoffSec"),
        ("&cutoffSec=-5", "cutoffSec"),
        ("".join(f"&cutoffSec={60 * k}" for k in range(1, 14)), "cutoffSec"),
        ("&cutoffSec=600&maxTimeSec=99999", "maxTimeSec"),
        ("&cutoffSec=600&precisionMeters=5", "precisionMeters"),
        ("&cutoffSec=7200&precisionMeters=10", "precisionMeters"),
        ("&cutoffSec=600&offRoadDistanceMeters=5", "offRoadDistanceMeters"),
        ("&cutoffSec=600&coordinateOrigin=north", "coordinateOrigin"),
        ("&cutoffSec=600&arriveBy=true", "arriveBy"),
    ],
)
def test_bad_or_over_limit_parameters_are_400_naming_them(
    svc: Service, extra: str, needle: str
) -> None:
    body = _iso(svc, extra, status=400)
    assert needle in body["message"]


def test_plan_parameters_are_read_by_the_plan_parser(svc: Service) -> None:
    resp = get(
        svc, f"/otp/routers/atlanta/isochrone?{atl_query(mode='HOVERCRAFT')}&cutoffSec=60", 400
    )
    assert "mode" in resp.json()["message"]
    resp = get(svc, f"/otp/routers/atlanta/isochrone?{atl_query(walkSpeed='-1')}&cutoffSec=60", 400)
    assert "walkSpeed" in resp.json()["message"]


def test_origin_problems_and_unknown_router(svc: Service) -> None:
    resp = get(svc, "/otp/routers/atlanta/isochrone?cutoffSec=600", 400)
    assert "fromPlace" in resp.json()["message"]
    far = ATL_QUERY.replace("33.7539,-84.3916", "40.0,-100.0")
    resp = get(svc, f"/otp/routers/atlanta/isochrone?{far}&cutoffSec=600", 400)
    assert "fromPlace" in resp.json()["message"]
    unknown_stop = atl_query(fromPlace="atlanta-blue-green-line:nope")
    resp = get(svc, f"/otp/routers/atlanta/isochrone?{unknown_stop}&cutoffSec=600", 400)
    assert "fromPlace" in resp.json()["message"]
    get(svc, f"/otp/routers/nowhere/isochrone?{ATL_QUERY}&cutoffSec=600", 404)


def test_isochrone_old_outputs_bare_geometries(svc: Service) -> None:
    base = f"/otp/routers/atlanta/isochroneOld?{atl_query(mode='WALK')}&walkTime=10"
    points = get(svc, base).json()
    assert points["type"] == "MultiPoint"
    assert len(points["coordinates"]) > 20
    multipoint = shapely.geometry.shape(points)
    radius = 600 * 1.33 / M_PER_DEG
    assert all(
        math.hypot((p.x - ORIGIN.x) * math.cos(math.radians(ORIGIN.y)), p.y - ORIGIN.y)
        <= radius + 1e-6
        for p in multipoint.geoms
    )
    shed = shapely.geometry.shape(get(svc, f"{base}&output=SHED").json())
    assert shed.geom_type == "Polygon"
    assert shed.buffer(1e-9).contains(multipoint)
    edges = get(svc, f"{base}&output=EDGES").json()
    assert edges["type"] == "MultiLineString"
    assert edges["coordinates"]
    assert get(svc, f"{base}&output=DEBUGEDGES").json()["type"] == "MultiLineString"
    assert "output" in get(svc, f"{base}&output=HULL", 400).json()["message"]
    too_long = f"/otp/routers/atlanta/isochroneOld?{atl_query(mode='WALK')}&walkTime=100000"
    assert "walkTime" in get(svc, too_long, 400).json()["message"]


def test_simple_isochrone_circles_with_time_property(svc: Service) -> None:
    path = "/otp/routers/atlanta/simpleIsochrone?"
    base = path + atl_query(
        requestTimespanHours=1,
        requestSpacingMinutes=30,
        nContours=3,
        contourSpacingMinutes=15,
        stopsOnly="false",
    )
    body = get(svc, base).json()
    features = body["features"]
    assert [f["properties"]["Time"] for f in features] == [900, 1800, 2700]
    shapes = [shapely.geometry.shape(f["geometry"]) for f in features]
    assert shapes[0].contains(ORIGIN)
    for smaller, larger in itertools.pairwise(shapes):
        assert larger.buffer(1e-9).contains(smaller)
    projected = get(svc, f"{base}&resultsProjected=true&crs=EPSG:32616").json()
    x, _ = projected["features"][0]["geometry"]["coordinates"][0][0][0]
    assert 700_000 < x < 800_000  # UTM 16N eastings around Atlanta
    many = path + atl_query(requestSpacingMinutes=1, requestTimespanHours=24)
    too_many = get(svc, many, 400)
    assert "requestTimespanHours" in too_many.json()["message"]
    assert "crs" in get(svc, f"{base}&crs=EPSG:0", 400).json()["message"]
    too_long = get(svc, path + atl_query(nContours=12, contourSpacingMinutes=60), 400)
    assert "nContours" in too_long.json()["message"]


def test_simple_isochrone_as_a_zipped_shapefile(svc: Service, tmp_path: Path) -> None:
    query = atl_query(requestTimespanHours=1, nContours=2, shpName="circles")
    resp = get(
        svc,
        f"/otp/routers/atlanta/simpleIsochrone?{query}",
        Accept="application/x-zip-compressed",
    )
    assert resp.header("Content-Type") == "application/x-zip-compressed"
    path = tmp_path / "circles.zip"
    path.write_bytes(resp.body)
    frame = gpd.read_file(f"zip://{path}!circles.shp")
    assert frame["Time"].tolist() == [1800, 3600]
    assert frame.crs.to_epsg() == 4326


def test_a_stop_id_is_an_origin_too(svc: Service) -> None:
    stop = "atlanta-blue-green-line:806"  # a Five Points platform
    body = get(
        svc, f"/otp/routers/atlanta/isochrone?{atl_query(fromPlace=stop)}&cutoffSec=600"
    ).json()
    shape = shapely.geometry.shape(body["features"][0]["geometry"])
    assert shape.distance(ORIGIN) < 0.002  # the platform is beside the station's centre
    assert not shape.is_empty
