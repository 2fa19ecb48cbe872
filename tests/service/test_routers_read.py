"""GET /otp/routers and /otp/routers/{id}: RouterList and RouterInfo."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from _fakes import ALPHA, BETA, FakeNetwork, Service

pytestmark = pytest.mark.http

ROUTER_INFO_FIELDS = [
    "routerId",
    "polygon",
    "buildTime",
    "transitServiceStarts",
    "transitServiceEnds",
    "transitModes",
    "centerLatitude",
    "centerLongitude",
    "hasParkRide",
    "travelOptions",
    "lowerLeftLatitude",
    "lowerLeftLongitude",
    "upperRightLatitude",
    "upperRightLongitude",
    "hasBikeSharing",
    "hasBikePark",
]


def expected_info(router_id: str, net: FakeNetwork) -> dict:
    min_lon, min_lat, max_lon, max_lat = net.bounds
    starts, ends = net.transit_service_range or (9223372036854775807, 0)
    return {
        "routerId": router_id,
        "polygon": {"type": "Polygon", "coordinates": [[list(p) for p in net.convex_hull]]},
        "buildTime": net.build_time_ms,
        "transitServiceStarts": starts,
        "transitServiceEnds": ends,
        "transitModes": list(net.transit_modes),
        "centerLatitude": net.center[0],
        "centerLongitude": net.center[1],
        "hasParkRide": net.has_park_ride,
        "lowerLeftLatitude": min_lat,
        "lowerLeftLongitude": min_lon,
        "upperRightLatitude": max_lat,
        "upperRightLongitude": max_lon,
        "hasBikeSharing": net.bike_rental_station_count > 1,
        "hasBikePark": net.has_bike_park,
    }


def test_get_router_info_every_field(service: Service) -> None:
    resp = service.get("/otp/routers/alpha")
    assert resp.status == 200
    assert resp.header("Content-Type") == "application/json"
    info = resp.json()
    assert list(info) == ROUTER_INFO_FIELDS
    options = info.pop("travelOptions")
    assert info == expected_info("alpha", ALPHA)
    assert options == [
        {"value": "TRANSIT,WALK", "name": "TRANSIT"},
        {"value": "BUS,WALK", "name": "BUS"},
        {"value": "RAIL,WALK", "name": "RAIL"},
        {"value": "WALK", "name": "WALK"},
        {"value": "BICYCLE", "name": "BICYCLE"},
        {"value": "CAR", "name": "CAR"},
        {"value": "TRANSIT,BICYCLE", "name": "TRANSIT_BICYCLE"},
        {"value": "CAR,WALK,TRANSIT", "name": "KISSRIDE"},
    ]


def test_router_without_transit(service: Service) -> None:
    info = service.get("/otp/routers/beta").json()
    assert info["transitServiceStarts"] == 9223372036854775807
    assert info["transitServiceEnds"] == 0
    assert info["transitModes"] == []
    assert info["hasBikeSharing"] is True
    assert info["hasBikePark"] is True
    # No transit: only the street modes plus bike rental.
    assert [o["name"] for o in info["travelOptions"]] == ["WALK", "BICYCLE", "CAR", "BICYCLERENT"]
    assert info == {**expected_info("beta", BETA), "travelOptions": info["travelOptions"]}


def test_router_list(service: Service) -> None:
    resp = service.get("/otp/routers")
    assert resp.status == 200
    body = resp.json()
    assert list(body) == ["routerInfo"]
    assert [r["routerId"] for r in body["routerInfo"]] == ["alpha", "beta"]
    assert service.get("/otp/routers/").json() == body


@pytest.mark.parametrize("alias", ["default", "DEFAULT", "Default"])
def test_default_alias_reaches_first_router(service: Service, alias: str) -> None:
    resp = service.get(f"/otp/routers/{alias}")
    assert resp.status == 200
    assert resp.json()["routerId"] == "alpha"


def test_configured_router_is_default(make_service) -> None:
    svc = make_service(routers=("beta", "alpha"))
    assert svc.get("/otp/routers/default").json()["routerId"] == "beta"


def test_unknown_router_404_json(service: Service) -> None:
    resp = service.get("/otp/routers/nope")
    assert resp.status == 404
    assert resp.header("Content-Type") == "application/json"
    assert resp.json() == {
        "status": 404,
        "error": "Not Found",
        "message": "Graph id 'nope' not registered.",
    }


@pytest.mark.parametrize(
    "path",
    [
        "/otp/routers/..%2F..%2Fetc",
        "/otp/routers/..",
        "/otp/routers/a.b",
        "/otp/routers/" + "x" * 65,
    ],
)
def test_invalid_router_id_400(service: Service, path: str) -> None:
    resp = service.get(path)
    assert resp.status == 400
    body = resp.json()
    assert body["status"] == 400
    assert body["error"] == "Bad Request"
    assert "Invalid router id" in body["message"]


def test_no_router_registered(make_service, tmp_path) -> None:
    svc = make_service(graphs_dir=tmp_path / "empty")
    assert svc.get("/otp/routers").json() == {"routerInfo": []}
    assert svc.get("/otp/routers/default").status == 404


def test_unknown_path_and_method(service: Service) -> None:
    resp = service.get("/otp/nothing/here")
    assert resp.status == 404
    assert resp.json()["message"] == "No resource at /otp/nothing/here."
    resp = service.request("PATCH", "/otp/routers/alpha")
    assert resp.status == 405
    assert resp.json()["status"] == 405
    assert "PUT" in (resp.header("Allow") or "")
    assert service.request("POST", "/otp").status == 405


def test_router_info_xml(service: Service) -> None:
    resp = service.get("/otp/routers/alpha", Accept="application/xml")
    assert resp.status == 200
    assert resp.header("Content-Type") == "application/xml"
    root = ET.fromstring(resp.body)
    assert root.tag == "RouterInfo"
    assert root.findtext("routerId") == "alpha"
    assert [e.text for e in root.findall("transitModes")] == ["BUS", "RAIL"]
    assert len(root.findall("travelOptions")) == 8
    assert root.findtext("travelOptions/name") == "TRANSIT"
    assert root.findtext("polygon", "").startswith("<Polygon><outerBoundaryIs>")
    assert root.findtext("buildTime") == "2023-11-14T22:13:20.000Z"
    assert root.findtext("hasBikePark") == "false"


def test_router_list_xml(service: Service) -> None:
    resp = service.get("/otp/routers", Accept="text/xml")
    root = ET.fromstring(resp.body)
    assert root.tag == "RouterList"
    assert [e.findtext("routerId") for e in root.findall("routerInfo")] == ["alpha", "beta"]


class CountingNetwork:
    """A hashable network whose hull is expensive: counts how often it is read."""

    def __init__(self, base: FakeNetwork) -> None:
        self._base = base
        self.hull_reads = 0

    def __getattr__(self, name: str):
        return getattr(self._base, name)

    @property
    def convex_hull(self):
        self.hull_reads += 1
        return self._base.convex_hull


def test_router_info_computed_once_per_network(make_service) -> None:
    net = CountingNetwork(ALPHA)
    svc = make_service(graphs_dir=None, networks={"mem": net})
    for path in ["/otp/routers/mem", "/otp/routers/default", "/otp/routers"]:
        assert svc.get(path).status == 200
    assert svc.get("/otp/routers/mem", Accept="application/xml").status == 200
    assert net.hull_reads == 1
    assert svc.get("/otp/routers/default").json()["routerId"] == "mem"


def test_trailing_slash(service: Service) -> None:
    assert service.get("/otp/routers/alpha/").json()["routerId"] == "alpha"
