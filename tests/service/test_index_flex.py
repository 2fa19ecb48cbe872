"""GET /index/flexAreas[/{id}] on a saved Cobb County graph loaded from a graphs folder.

Expected zones come from the feeds' ``locations.geojson`` read with the json module.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest
from _fakes import Service

from otpa.util.polyline import decode_polyline
from service.config import ServiceConfig
from service.server import start_in_thread
from tests.conftest import DATA_ROOT, require_data
from tests.fixtures.networks import built_network
from tests.otpa.index._flex_geojson import cobb_flex_zones

pytestmark = pytest.mark.http


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """The service with router ``cobb``: the built graph saved, then loaded from disk."""
    require_data("tiny", "cobb-flex")
    graphs = tmp_path_factory.mktemp("graphs")
    built_network(DATA_ROOT, "tiny/cobb-flex").save(graphs / "cobb" / "graph")
    url, stop = start_in_thread(ServiceConfig(port=0, graphs_dir=Path(graphs)))
    yield Service(url.removesuffix("/otp/routers/default"), url, None, stop)
    stop()


def test_flex_area_ids(svc: Service) -> None:
    resp = svc.get("/otp/routers/cobb/index/flexAreas")
    assert resp.status == 200
    assert sorted(resp.json()) == sorted(cobb_flex_zones())


def test_flex_area_polygons_are_the_zone_boundaries(svc: Service) -> None:
    zones = cobb_flex_zones()
    holed = [area_id for area_id, polygons in zones.items() if len(polygons[0]) > 1]
    assert holed  # Lincoln County has zones with holes
    for area_id in [*sorted(zones)[::10], *holed]:
        path = f"/otp/routers/cobb/index/flexAreas/{urllib.parse.quote(area_id, safe='')}"
        resp = svc.get(path)
        assert resp.status == 200, resp.text
        area = resp.json()
        assert set(area) == {"areaId", "polygon"}
        assert area["areaId"] == area_id
        # OTP 1.x encoded the geometry's boundary: every ring, one after the other
        expected = [p for polygon in zones[area_id] for ring in polygon for p in ring]
        lats, lons = decode_polyline(area["polygon"]["points"])
        assert area["polygon"]["length"] == len(lats) == len(expected)
        for la, lo, (ela, elo) in zip(lats, lons, expected, strict=True):
            assert abs(la - ela) <= 1.000001e-5
            assert abs(lo - elo) <= 1.000001e-5


def test_unknown_flex_area_is_a_json_404(svc: Service) -> None:
    resp = svc.get("/otp/routers/cobb/index/flexAreas/1696:nope")
    assert resp.status == 404
    body = resp.json()
    assert (body["status"], body["error"]) == (404, "Not Found")
    assert "1696:nope" in body["message"]
