"""``/timegrid``, ``/analyst/tile/{z}/{x}/{y}.png`` and ``/analyst/legend.{format}`` over HTTP.

Expected travel times are computed in-process with the library for the request the query
describes (written out here from the documented plan -> analysis mapping).
"""

from __future__ import annotations

import base64
import io
from collections.abc import Iterator

import numpy as np
import pytest
from _analyst_helpers import (
    ATL_QUERY,
    FIVE_POINTS,
    analyst_server,
    atl_query,
    atlanta_request,
    get,
    rgba,
    tile_of,
)
from _fakes import Service
from PIL import Image
from rasterio.io import MemoryFile

from otpa.analysis import compute_time_surface
from otpa.analysis.otp1.offroad import limit_offroad
from otpa.analysis.otp1.render import color_table, colorize, time_pixels
from otpa.analysis.otp1.tiles import tile_bounds, tile_grid, tile_travel_times
from otpa.analysis.otp1.timegrid import decode_timegrid
from otpa.network import TransportNetwork
from tests.conftest import DATA_ROOT, require_data
from tests.fixtures.networks import built_network

pytestmark = pytest.mark.http

MIDTOWN = (33.7597, -84.3877)  # Peachtree Center


@pytest.fixture(scope="module")
def atlanta() -> TransportNetwork:
    require_data("tiny", "atlanta")
    return built_network(DATA_ROOT, "tiny/atlanta")


@pytest.fixture(scope="module")
def svc(atlanta: TransportNetwork) -> Iterator[Service]:
    with analyst_server({"atlanta": atlanta}) as service:
        yield service


# -- timegrid -------------------------------------------------------------------------------


def test_timegrid_decodes_to_the_surface_travel_times(
    svc: Service, atlanta: TransportNetwork
) -> None:
    query = atl_query(walkSpeed=1.2, maxWalkDistance=1500)
    # a lattice through a point off the origin: the headers' 8 decimals move cell centres by
    # a millimetre, which matters only for a cell centred exactly on the origin (0 s)
    anchor = (33.7546, -84.3907)
    resp = get(
        svc,
        f"/otp/routers/atlanta/timegrid?{query}&maxTimeSec=1800&precisionMeters=150"
        f"&offRoadDistanceMeters=120&coordinateOrigin={anchor[0]},{anchor[1]}",
    )
    assert resp.header("Content-Type") == "image/png"
    assert resp.header("Cache-Control") == "no-cache"
    grid_png = decode_timegrid(resp.body)
    with Image.open(io.BytesIO(resp.body)) as image:
        assert image.mode == "RGBA"
        for key in ("OTPA-Grid-Corner", "OTPA-Grid-Cell-Size", "OTPA-OffRoad-Dist"):
            assert resp.header(key) == image.text[key]
    lat0, lon0 = (float(v) for v in resp.header("OTPA-Grid-Corner").split(","))
    dlat, dlon = (float(v) for v in resp.header("OTPA-Grid-Cell-Size").split(","))
    assert dlat * 111_195 == pytest.approx(150, rel=1e-3)
    # the lattice goes through coordinateOrigin
    rows, cols = (anchor[0] - lat0) / dlat, (anchor[1] - lon0) / dlon
    assert rows == pytest.approx(round(rows), abs=1e-4)
    assert cols == pytest.approx(round(cols), abs=1e-4)
    grid = grid_png.grid
    request = atlanta_request(
        walk_speed_mps=1.2, max_walk_time_s=1250, max_bike_time_s=300, max_time_s=1800
    )
    surface = compute_time_surface(atlanta, FIVE_POINTS, target=grid, request=request)
    expected, distance = limit_offroad(surface, atlanta, 120)
    times = expected["travel_time"].values[0]
    assert np.isfinite(times).sum() > 100
    assert np.array_equal(grid_png.travel_time, times, equal_nan=True)
    pct = np.clip(np.rint(np.nan_to_num(distance / 150 * 100, posinf=255)), 0, 255)
    assert np.array_equal(grid_png.offroad_pct, pct.astype(np.uint8))
    assert np.nanmax(grid_png.travel_time) <= 1800


def test_timegrid_base64_and_refusals(svc: Service) -> None:
    path = f"/otp/routers/atlanta/timegrid?{ATL_QUERY}&maxTimeSec=900"
    plain = get(svc, path)
    encoded = get(svc, f"{path}&base64=true")
    assert encoded.header("Content-Type").startswith("text/plain")
    assert decode_timegrid(base64.b64decode(encoded.body)).travel_time.shape == (
        decode_timegrid(plain.body).travel_time.shape
    )
    for extra, needle in (
        ("&zDataType=BOARDINGS", "zDataType"),
        ("&zDataType=COLOUR", "zDataType"),
        ("&precisionMeters=9", "precisionMeters"),
        ("&base64=perhaps", "base64"),
    ):
        assert needle in get(svc, path + extra, 400).json()["message"]
    no_time = f"/otp/routers/atlanta/timegrid?{ATL_QUERY}&maxTimeSec=0"
    assert "maxTimeSec" in get(svc, no_time, 400).json()["message"]
    big = f"/otp/routers/atlanta/timegrid?{ATL_QUERY}&maxTimeSec=14400&precisionMeters=10"
    assert "precisionMeters" in get(svc, big, 400).json()["message"]


# -- analyst tiles --------------------------------------------------------------------------


def _tile_times(
    atlanta: TransportNetwork, origin: tuple[float, float], tile: tuple[int, int, int]
) -> np.ndarray:
    request = atlanta_request(max_time_s=1800)
    grid = tile_grid(*tile, cells=128)
    surface = compute_time_surface(atlanta, origin, target=grid, request=request)
    return tile_travel_times(surface, *tile)


def test_tile_renders_the_origin_travel_times(svc: Service, atlanta: TransportNetwork) -> None:
    z = 14
    x, y = tile_of(*FIVE_POINTS, z)
    resp = get(
        svc, f"/otp/routers/atlanta/analyst/tile/{z}/{x}/{y}.png?{ATL_QUERY}"
        "&styles=color30&maxTimeSec=1800",
    )  # fmt: skip
    assert resp.header("Content-Type") == "image/png"
    image = rgba(resp.body)
    assert image.shape == (256, 256, 4)
    times = _tile_times(atlanta, FIVE_POINTS, (z, x, y))
    reachable = np.isfinite(times)
    assert 0.2 < reachable.mean() < 1.0
    assert (image[reachable, 3] > 0).all()
    assert (image[~reachable, 3] == 0).all()
    assert np.array_equal(image, colorize(time_pixels(times), "COLOR30"))
    # the default style is OTP's MASK; geotiff carries the minute bytes
    plain = f"/otp/routers/atlanta/analyst/tile/{z}/{x}/{y}.png?{ATL_QUERY}&maxTimeSec=1800"
    mask = rgba(get(svc, plain).body)
    assert np.array_equal(mask, colorize(time_pixels(times), "MASK"))
    tif = get(
        svc, f"/otp/routers/atlanta/analyst/tile/{z}/{x}/{y}.png?{ATL_QUERY}"
        "&maxTimeSec=1800&format=image/geotiff",
    )  # fmt: skip
    with MemoryFile(tif.body) as memfile, memfile.open() as dataset:
        assert dataset.crs.to_string() == "EPSG:3857"
        assert tuple(dataset.bounds) == pytest.approx(tile_bounds(z, x, y))
        assert np.array_equal(dataset.read(1), time_pixels(times))


def test_difference_and_hagerstrand_layers(svc: Service, atlanta: TransportNetwork) -> None:
    z = 14
    x, y = tile_of(*FIVE_POINTS, z)
    to_place = f"&toPlace={MIDTOWN[0]},{MIDTOWN[1]}&maxTimeSec=1800"
    base = f"/otp/routers/atlanta/analyst/tile/{z}/{x}/{y}.png?{ATL_QUERY}{to_place}"
    a = _tile_times(atlanta, FIVE_POINTS, (z, x, y))
    b = _tile_times(atlanta, MIDTOWN, (z, x, y))
    diff = rgba(get(svc, f"{base}&layers=difference&styles=difference").body)
    minutes = np.trunc((a - b) / 60)
    both = np.isfinite(minutes)
    table = color_table("DIFFERENCE")
    want = np.where(both, np.clip(np.nan_to_num(minutes), -120, 120).astype(np.int64) & 0xFF, 128)
    assert np.array_equal(diff, table[want.astype(np.uint8)])
    assert (diff[both & (minutes != 0), 3] > 0).any()
    prism = rgba(get(svc, f"{base}&layers=HAGERSTRAND&styles=COLOR30").body)
    slack = np.trunc((1800 - a - b) / 60)
    inside = np.isfinite(slack) & (slack >= 0)
    assert inside.any()
    assert (prism[inside, 3] > 0).all()
    missing = get(svc, f"{base.replace(to_place, '')}&layers=DIFFERENCE", 400)
    assert "toPlace" in missing.json()["message"]


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        ("&layers=ELEVATION", "layers"),
        ("&styles=RAINBOW", "unknown layer style"),
        ("&format=image/bmp", "unsupported image format"),
        ("&styles=BOARDINGS", "BOARDINGS"),
    ],
)
def test_tile_refusals(svc: Service, extra: str, needle: str) -> None:
    x, y = tile_of(*FIVE_POINTS, 14)
    path = f"/otp/routers/atlanta/analyst/tile/14/{x}/{y}.png?{ATL_QUERY}{extra}"
    assert needle in get(svc, path, 400).json()["message"]


def test_tile_zoom_and_coordinates_are_bounded(svc: Service) -> None:
    low = get(svc, f"/otp/routers/atlanta/analyst/tile/3/1/1.png?{ATL_QUERY}", 400)
    assert "z=" in low.json()["message"]
    get(svc, f"/otp/routers/atlanta/analyst/tile/12/5000/1.png?{ATL_QUERY}", 400)
    get(svc, f"/otp/routers/nowhere/analyst/tile/12/1/1.png?{ATL_QUERY}", 404)


# -- legends --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "pil", "content_type"),
    [
        ("png", "PNG", "image/png"),
        ("gif", "GIF", "image/gif"),
        ("jpeg", "JPEG", "image/jpeg"),
        ("jpg", "JPEG", "image/jpeg"),
        ("geotiff", "TIFF", "image/tiff"),
    ],
)
def test_legend_formats(svc: Service, fmt: str, pil: str, content_type: str) -> None:
    resp = get(svc, f"/otp/analyst/legend.{fmt}?width=280&height=60&styles=color30")
    assert resp.header("Content-Type") == content_type
    with Image.open(io.BytesIO(resp.body)) as image:
        assert image.format == pil
        assert image.size == (280, 60)


def test_legend_defaults_and_refusals(svc: Service) -> None:
    with Image.open(io.BytesIO(get(svc, "/otp/analyst/legend.png").body)) as image:
        assert image.size == (300, 150)
    resp = get(svc, "/otp/analyst/legend.bmp", 400)
    assert "unsupported image format" in resp.json()["message"]
    resp = get(svc, "/otp/analyst/legend.png?styles=plaid", 400)
    assert "unknown layer style" in resp.json()["message"]
    assert "width" in get(svc, "/otp/analyst/legend.png?width=5000", 400).json()["message"]
    assert "height" in get(svc, "/otp/analyst/legend.png?height=1", 400).json()["message"]
