"""The graph inspector over HTTP: ``/inspector/layers`` and ``/inspector/tile/...`` (Atlanta)."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from collections.abc import Iterator

import numpy as np
import pytest
from _analyst_helpers import analyst_server, get, tile_of
from _fakes import Service
from PIL import Image

from otpa.network import TransportNetwork
from otpa.tiles import LAYERS, render_pixels, render_tile
from tests.conftest import DATA_ROOT, require_data
from tests.fixtures.networks import built_network

pytestmark = pytest.mark.http

FIVE_POINTS = (33.7539, -84.3916)


@pytest.fixture(scope="module")
def atlanta() -> TransportNetwork:
    require_data("tiny", "atlanta")
    return built_network(DATA_ROOT, "tiny/atlanta")


@pytest.fixture(scope="module")
def svc(atlanta: TransportNetwork) -> Iterator[Service]:
    with analyst_server({"atlanta": atlanta}) as service:
        yield service


def tile_path(layer: str, z: int = 16, ext: str = "png") -> str:
    x, y = tile_of(*FIVE_POINTS, z)
    return f"/otp/routers/atlanta/inspector/tile/{layer}/{z}/{x}/{y}.{ext}"


def test_layers_lists_otps_three_layers_and_ours_with_legends(svc: Service) -> None:
    body = get(svc, "/otp/routers/atlanta/inspector/layers").json()
    keys = [layer["key"] for layer in body["layers"]]
    assert keys[:3] == ["bike-safety", "traversal", "wheelchair"]
    assert set(keys) == set(LAYERS)
    names = {layer["key"]: layer["name"] for layer in body["layers"]}
    assert names["bike-safety"] == "Bike safety"
    assert names["traversal"] == "Traversal permissions"
    assert names["wheelchair"] == "Wheelchair access"
    traversal = next(layer for layer in body["layers"] if layer["key"] == "traversal")
    assert {"label": "walk", "color": "#33a02c"} in traversal["legend"]
    # the default router alias works too
    assert get(svc, "/otp/routers/default/inspector/layers").json() == body


def test_layers_in_xml(svc: Service) -> None:
    resp = get(svc, "/otp/routers/atlanta/inspector/layers", Accept="application/xml")
    assert resp.header("Content-Type") == "application/xml"
    root = ET.fromstring(resp.body)
    assert root.tag == "InspectorLayersList"
    assert [e.findtext("key") for e in root.findall("layers")][:3] == [
        "bike-safety", "traversal", "wheelchair",
    ]  # fmt: skip


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_tile_is_the_librarys_tile(svc: Service, atlanta: TransportNetwork, layer: str) -> None:
    resp = get(svc, tile_path(layer))
    assert resp.header("Content-Type") == "image/png"
    # walk-comfort factors can be reloaded (/walk_comfort): cached for a minute only
    expected_cache = "max-age=60" if layer == "walk-comfort" else "max-age=3600"
    assert resp.header("Cache-Control") == expected_cache
    x, y = tile_of(*FIVE_POINTS, 16)
    with Image.open(io.BytesIO(resp.body)) as im:
        assert im.size == (256, 256)
        pixels = np.asarray(im.convert("RGBA"))
    expected = render_pixels(atlanta, layer, 16, x, y)
    np.testing.assert_array_equal(pixels, expected)
    assert (pixels[..., 3] > 0).mean() > 0.02  # downtown: streets drawn


@pytest.mark.parametrize(
    ("ext", "content_type", "magic"),
    [
        ("jpeg", "image/jpeg", b"\xff\xd8"),
        ("jpg", "image/jpeg", b"\xff\xd8"),
        ("gif", "image/gif", b"GIF8"),
        ("geotiff", "image/tiff; application=geotiff", b"II*\x00"),
        ("tif", "image/tiff; application=geotiff", b"II*\x00"),
    ],
)
def test_tile_formats(
    svc: Service, atlanta: TransportNetwork, ext: str, content_type: str, magic: bytes
) -> None:
    resp = get(svc, tile_path("traversal", ext=ext))
    assert resp.header("Content-Type") == content_type
    assert resp.body.startswith(magic)
    x, y = tile_of(*FIVE_POINTS, 16)
    fmt = {"jpg": "jpeg", "tif": "geotiff"}.get(ext, ext)
    assert resp.body == render_tile(atlanta, "traversal", 16, x, y, fmt=fmt)


@pytest.mark.parametrize(
    ("path", "status", "words"),
    [
        ("/otp/routers/atlanta/inspector/tile/roads/16/1/1.png", 404, "Unknown inspector layer"),
        ("/otp/routers/atlanta/inspector/tile/traversal/16/1/1.bmp", 400, "Unsupported tile"),
        ("/otp/routers/atlanta/inspector/tile/traversal/25/1/1.png", 400, "zoom must be within"),
        ("/otp/routers/atlanta/inspector/tile/traversal/-1/0/0.png", 400, "zoom must be within"),
        ("/otp/routers/atlanta/inspector/tile/traversal/2/4/0.png", 400, "does not exist"),
        ("/otp/routers/atlanta/inspector/tile/traversal/2/0/-1.png", 400, "does not exist"),
        ("/otp/routers/atlanta/inspector/tile/traversal/a/0/0.png", 400, "not an integer"),
        ("/otp/routers/atlanta/inspector/tile/traversal/2/0/99999999999999999999.png", 400,
         "does not exist"),
        ("/otp/routers/nowhere/inspector/tile/traversal/2/0/0.png", 404, "not registered"),
        ("/otp/routers/nowhere/inspector/layers", 404, "not registered"),
    ],
)  # fmt: skip
def test_bad_tile_requests_are_json_errors(
    svc: Service, path: str, status: int, words: str
) -> None:
    resp = get(svc, path, status)
    assert (resp.header("Content-Type") or "").startswith("application/json")
    assert words in resp.json()["message"]
