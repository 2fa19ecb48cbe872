"""Over HTTP: rental stations, park-and-ride lots and ride-hail estimates of the demo city.

The demo city (its generator writes a GBFS feed for its two OSM bike-share stations and a
``router-config.json``) is served with that configuration plus a ``vehicle-rental`` updater
on OTP's Almere GBFS v3 sample and a ``car-rental`` updater on a feed this test writes.
Every updater polls files each second; the expected values come from the feed files.
"""

from __future__ import annotations

import json
import shutil
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _fakes import Service

from otpa.network import TransportNetwork
from otpa.testing.demo import demo_city_dir, demo_network
from tests.conftest import require_data

pytestmark = pytest.mark.http

UNSET = 2147483647


def _wait(predicate: Callable[[], bool], timeout_s: float = 30.0) -> None:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError("condition not reached in time")


def _write_car_feed(folder: Path) -> None:
    """A GBFS v3 car-share feed: one station (two cars docked), one free-floating car."""
    folder.mkdir(parents=True)

    def doc(data: Any) -> str:
        return json.dumps(
            {"last_updated": "2026-01-01T00:00:00Z", "ttl": 60, "version": "3.0", "data": data}
        )

    feeds = [
        {"name": n, "url": f"{n}.json"}
        for n in (
            "system_information",
            "vehicle_types",
            "station_information",
            "station_status",
            "vehicle_status",
        )
    ]
    files = {
        "gbfs": doc({"feeds": feeds}),
        "system_information": doc(
            {"system_id": "democar", "name": [{"text": "Demo Car", "language": "en"}]}
        ),
        "vehicle_types": doc(
            {
                "vehicle_types": [
                    {"vehicle_type_id": "ev", "form_factor": "car", "propulsion_type": "electric"}
                ]
            }
        ),
        "station_information": doc(
            {
                "stations": [
                    {
                        "station_id": "car-1",
                        "name": [{"text": "Harbour Cars", "language": "en"}],
                        "lat": 53.301,
                        "lon": 4.202,
                        "address": "1 Harbour Street",
                        "capacity": 4,
                    }
                ]
            }
        ),
        "station_status": doc(
            {
                "stations": [
                    {
                        "station_id": "car-1",
                        "num_vehicles_available": 2,
                        "vehicle_types_available": [{"vehicle_type_id": "ev", "count": 2}],
                        "num_docks_available": 2,
                        "is_installed": True,
                        "is_renting": True,
                        "is_returning": False,
                    }
                ]
            }
        ),
        "vehicle_status": doc(
            {
                "vehicles": [
                    {
                        "vehicle_id": "car-free-1",
                        "lat": 53.305,
                        "lon": 4.21,
                        "vehicle_type_id": "ev",
                        "is_reserved": False,
                        "is_disabled": False,
                    },
                    {"vehicle_id": "car-docked-1", "station_id": "car-1", "vehicle_type_id": "ev"},
                ]
            }
        ),
    }
    for name, text in files.items():
        (folder / f"{name}.json").write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def demo() -> TransportNetwork:
    return demo_network()


@pytest.fixture
def served(tmp_path: Path, make_service: Any, demo: TransportNetwork) -> tuple[Service, Path]:
    city = demo_city_dir()
    router = tmp_path / "graphs" / "demo"
    router.mkdir(parents=True)
    shutil.copytree(city / "gbfs", router / "gbfs")
    shutil.copytree(require_data("extras", "gbfs", "ridecheck", "almere"), router / "almere")
    _write_car_feed(router / "cars")
    config = json.loads((city / "router-config.json").read_text(encoding="utf-8"))
    config["updaters"][0]["frequencySec"] = 1
    # the demo's ride-hail estimator is an entry of the updaters list, as OTP 1.x (ibi) has it
    assert [u["type"] for u in config["updaters"]] == [
        "bike-rental", "transportation-network-company-updater"]  # fmt: skip
    config["updaters"] += [
        {"type": "vehicle-rental", "sourceType": "gbfs", "file": "almere", "frequencySec": 1},
        {"type": "car-rental", "sourceType": "gbfs", "file": "cars/gbfs.json", "frequencySec": 1},
    ]
    (router / "router-config.json").write_text(json.dumps(config), encoding="utf-8")
    service = make_service(loader=None, graphs_dir=tmp_path / "graphs", networks={"demo": demo})
    _wait(lambda: all(u["successes"] >= 1 for u in _updaters(service).values()))
    return service, router


def _updaters(service: Service, router: str = "demo") -> dict[str, Any]:
    resp = service.get(f"/otp/routers/{router}/updaters")
    assert resp.status == 200, resp.text
    out: dict[str, Any] = resp.json()
    return out


def _json(service: Service, path: str) -> Any:
    resp = service.get(path)
    assert resp.status == 200, resp.text
    return resp.json()


def test_bike_rental_lists_the_gbfs_stations_and_follows_the_feed(
    served: tuple[Service, Path],
) -> None:
    service, router = served
    info = json.loads((router / "gbfs" / "station_information.json").read_text())["data"]
    status = json.loads((router / "gbfs" / "station_status.json").read_text())["data"]
    body = _json(service, "/otp/routers/demo/bike_rental")
    stations = {s["id"]: s for s in body["stations"]}
    assert set(stations) == {s["station_id"] for s in info["stations"]}
    for row in status["stations"]:
        st = stations[row["station_id"]]
        assert (st["bikesAvailable"], st["spacesAvailable"]) == (
            row["num_bikes_available"],
            row["num_docks_available"],
        )
        assert (st["networks"], st["realTimeData"], st["isFloatingBike"]) == (
            ["DemoBike"],
            True,
            False,
        )
        assert (st["allowPickup"], st["allowDropoff"], st["isCarStation"]) == (True, True, False)
    first = info["stations"][0]
    assert (stations[first["station_id"]]["x"], stations[first["station_id"]]["y"]) == (
        first["lon"],
        first["lat"],
    )
    assert body["systemInformationDataByNetwork"]["DemoBike"]["name"] == "Demo City Bikes"
    assert body["errorsByNetwork"] == {}
    # a box around the first station only
    lat, lon = first["lat"], first["lon"]
    box = f"lowerLeft={lat - 1e-4},{lon - 1e-4}&upperRight={lat + 1e-4},{lon + 1e-4}"
    boxed = _json(service, f"/otp/routers/demo/bike_rental?{box}")
    assert [s["id"] for s in boxed["stations"]] == [first["station_id"]]
    # the XML form of OTP 1.x
    resp = service.get("/otp/routers/demo/bike_rental", Accept="application/xml")
    root = ET.fromstring(resp.body)
    assert root.tag == "BikeRentalStationList"
    assert len(root.findall("stations")) == len(info["stations"])
    # the feed changes: the first station runs empty
    status["stations"][0]["num_bikes_available"] = 0
    path = router / "gbfs" / "station_status.json"
    doc = json.loads(path.read_text())
    doc["data"] = status
    path.write_text(json.dumps(doc))
    sid = status["stations"][0]["station_id"]

    def emptied() -> bool:
        rows = _json(service, "/otp/routers/demo/bike_rental")["stations"]
        return any(s["id"] == sid and s["bikesAvailable"] == 0 for s in rows)

    _wait(emptied)
    # the feed goes away: the last good data keeps serving, /updaters and the list say why
    shutil.rmtree(router / "gbfs")
    _wait(lambda: _updaters(service)["0"].get("lastError") is not None)
    assert "gbfs.json cannot be read" in _updaters(service)["0"]["lastError"]
    body = _json(service, "/otp/routers/demo/bike_rental")
    assert {s["id"] for s in body["stations"]} == {s["station_id"] for s in info["stations"]}
    (error,) = body["errorsByNetwork"]["DemoBike"]
    assert error["severity"] == "FEED_WIDE"
    assert "gbfs.json cannot be read" in error["message"]


def test_vehicle_and_car_rental(served: tuple[Service, Path]) -> None:
    service, router = served
    raw = json.loads((router / "almere" / "vehicle_status.json").read_text())["data"]["vehicles"]
    body = _json(service, "/otp/routers/demo/vehicle_rental")
    free = [s for s in body["stations"] if s["isFloatingVehicle"]]
    assert sorted(s["id"] for s in free) == sorted(
        v["vehicle_id"] for v in raw if not v["is_reserved"] and not v["is_disabled"]
    )
    assert {tuple(s["networks"]) for s in free} == {("check_almere",)}
    assert "check_almere" in body["systemInformationDataByNetwork"]
    assert _json(service, "/otp/routers/demo/vehicle_rental?company=other")["stations"] == []
    cars = _json(service, "/otp/routers/demo/car_rental?company=democar")["stations"]
    by_id = {c["id"]: c for c in cars}
    assert set(by_id) == {"car-1", "car-free-1"}  # the docked car counts at its station
    station = by_id["car-1"]
    assert (station["carsAvailable"], station["spacesAvailable"], station["allowDropoff"]) == (
        2,
        2,
        False,
    )
    assert (station["fuelType"], station["address"], station["name"]) == (
        "electric",
        "1 Harbour Street",
        "Harbour Cars",
    )
    assert (by_id["car-free-1"]["isFloatingCar"], by_id["car-free-1"]["fuelType"]) == (
        True,
        "electric",
    )


def test_park_and_ride_and_router_info(
    served: tuple[Service, Path], demo: TransportNetwork
) -> None:
    service, _ = served
    lots = _json(service, "/otp/routers/demo/park_and_ride")
    assert [lot["name"] for lot in lots] == [f["name"] for f in demo.features["park_and_ride"]]
    assert lots == [
        {"name": "Westgate P+R", "x": lots[0]["x"], "y": lots[0]["y"]},
    ]
    assert _json(service, "/otp/routers/demo/park_and_ride?maxTransitDistance=1") == []
    assert _json(service, "/otp/routers/demo/park_and_ride?maxTransitDistance=1000") == lots
    info = _json(service, "/otp/routers/demo")
    assert (info["hasParkRide"], info["hasBikePark"], info["hasBikeSharing"]) == (True, True, True)
    names = [o["name"] for o in info["travelOptions"]]
    assert {"PARKRIDE", "BIKERIDE", "BICYCLERENT"} <= set(names)


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("lowerLeft=53.3,4.2", "lowerLeft and upperRight go together"),
        ("lowerLeft=a,b&upperRight=53.4,4.3", "lowerLeft"),
    ],
)
def test_bad_boxes_are_400(served: tuple[Service, Path], query: str, message: str) -> None:
    service, _ = served
    for what in ("bike_rental", "car_rental", "vehicle_rental", "park_and_ride"):
        resp = service.get(f"/otp/routers/demo/{what}?{query}")
        assert resp.status == 400, (what, resp.text)
        assert message in resp.json()["message"]
    resp = service.get("/otp/routers/demo/park_and_ride?maxTransitDistance=-3")
    assert resp.status == 400
    assert service.get("/otp/routers/nope/bike_rental").status == 404


def test_tnc_estimates_from_the_built_in_estimator(served: tuple[Service, Path]) -> None:
    service, router = served
    (tnc,) = [
        u
        for u in json.loads((router / "router-config.json").read_text())["updaters"]
        if u["type"] == "transportation-network-company-updater"
    ]
    base = "/otp/routers/demo/transportation_network_company"
    eta = _json(service, f"{base}/eta_estimate?from=53.30,4.20&companies=NOAPI")
    assert eta == {
        "estimates": [
            {
                "company": "NOAPI",
                "productId": "no-api-tnc-service",
                "displayName": "no-api-tnc-service",
                "estimatedSeconds": tnc["defaultArrivalTimeSeconds"],
                "wheelchairAccessible": False,
            }
        ]
    }
    ride = _json(
        service,
        f"{base}/ride_estimate?from=53.30,4.20&to=53.31,4.21&company=NOAPI&rideType=x",
    )["rideEstimate"]
    assert (ride["company"], ride["currency"]) == ("NOAPI", tnc["currency"])
    assert tnc["minimumFare"] * 0.9 <= ride["minCost"] < ride["maxCost"]
    assert ride["duration"] > 0
    unsupported, exception = "UnsupportedOperationException: ", "Exception: "
    errors = {
        "eta_estimate?from=53.30,4.20": unsupported + "companies parameter is required",
        "eta_estimate?companies=NOAPI": unsupported + "from parameter is required",
        "eta_estimate?from=x&companies=NOAPI": exception
        + "Invalid format of from parameter.  Should be `lat,lon`.",
        "eta_estimate?from=53.3,4.2&companies=UBER": "TncError: company UBER is not "
        "configured for this router (configured: NOAPI)",
        "ride_estimate?from=53.3,4.2&to=53.4,4.3&company=NOAPI": unsupported
        + "rideType parameter is required",
    }
    for path, text in errors.items():
        resp = service.get(f"{base}/{path}")
        assert (resp.status, resp.json()) == (200, {"error": text}), path
    resp = service.get(
        f"{base}/eta_estimate?from=53.30,4.20&companies=NOAPI", Accept="application/xml"
    )
    assert ET.fromstring(resp.body).find("estimates/estimatedSeconds").text == str(  # type: ignore[union-attr]
        tnc["defaultArrivalTimeSeconds"]
    )


def test_tnc_unconfigured_router(make_service: Any, tmp_path: Path) -> None:
    (tmp_path / "g").mkdir()
    plain = demo_network()  # a network of its own: providers are kept per network
    service = make_service(loader=None, graphs_dir=tmp_path / "g", networks={"plain": plain})
    resp = service.get(
        "/otp/routers/plain/transportation_network_company/eta_estimate?from=53.3,4.2&companies=NOAPI"
    )
    assert resp.status == 200
    assert resp.json() == {
        "error": "UnsupportedOperationException: Unconfigured Transportation Network Company "
        "service for router with id: plain"
    }


def test_answers_match_the_openapi_schemas(served: tuple[Service, Path]) -> None:
    import jsonschema

    service, _ = served
    doc = _json(service, "/otp/openapi.json")

    def check(template: str, value: Any) -> None:
        schema = doc["paths"][template]["get"]["responses"]["200"]["content"]["application/json"]
        root = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            **schema["schema"],
            "components": doc["components"],
        }
        jsonschema.Draft202012Validator(root).validate(value)

    for what in ("bike_rental", "car_rental", "vehicle_rental", "park_and_ride"):
        body = _json(service, f"/otp/routers/demo/{what}")
        assert body
        check(f"/otp/routers/{{routerId}}/{what}", body)
    with pytest.raises(jsonschema.ValidationError):  # the schema does reject a wrong body
        check("/otp/routers/{routerId}/bike_rental", {"stations": [{"id": 1}]})
    tnc = "/otp/routers/{routerId}/transportation_network_company"
    base = "/otp/routers/demo/transportation_network_company"
    check(
        f"{tnc}/eta_estimate", _json(service, f"{base}/eta_estimate?from=53.3,4.2&companies=NOAPI")
    )
    check(f"{tnc}/eta_estimate", _json(service, f"{base}/eta_estimate?from=53.3,4.2"))
    ride = f"{base}/ride_estimate?from=53.3,4.2&to=53.31,4.21&company=NOAPI&rideType=x"
    check(f"{tnc}/ride_estimate", _json(service, ride))


def test_router_info_has_bike_sharing_once_a_feed_is_live(
    make_service: Any, tmp_path: Path
) -> None:
    """A network without OSM rental stations: bike sharing appears with the GBFS feed."""
    from otpa.network import BuildConfig, build_network

    data = require_data("tiny", "mmri")
    net = build_network(data / "3b", config=BuildConfig(max_transfer_distance_m=0.0))
    graphs = tmp_path / "graphs"
    (graphs / "plain").mkdir(parents=True)
    (graphs / "hsl").mkdir(parents=True)
    shutil.copytree(require_data("extras", "gbfs", "helsinki"), graphs / "hsl" / "gbfs")
    config = {"updaters": [{"type": "bike-rental", "file": "gbfs", "frequencySec": 0}]}
    (graphs / "hsl" / "router-config.json").write_text(json.dumps(config), encoding="utf-8")
    other = build_network(data / "3b", config=BuildConfig(max_transfer_distance_m=0.0))
    service = make_service(loader=None, graphs_dir=graphs, networks={"plain": other, "hsl": net})
    assert _json(service, "/otp/routers/plain")["hasBikeSharing"] is False
    _wait(lambda: _updaters(service, "hsl")["0"]["successes"] >= 1)
    info = _json(service, "/otp/routers/hsl")
    assert info["hasBikeSharing"] is True
    assert "BICYCLERENT" in [o["name"] for o in info["travelOptions"]]
    listing = _json(service, "/otp/routers/hsl/bike_rental")
    assert len(listing["stations"]) == 7  # the Helsinki v1 stations with an id and a position
    assert {s["networks"][0] for s in listing["stations"]} == {"HSL_FI_Helsinki"}
    messages = listing["errorsByNetwork"]["HSL_FI_Helsinki"]
    assert {
        "message": "station_information: a station without station_id: skipped",
        "severity": "INDIVIDUAL_DOCKING_STATION",
    } in messages


def test_the_tnc_updater_entry_shows_on_updaters(served: tuple[Service, Path]) -> None:
    service, _ = served
    (tnc,) = [
        u
        for u in _updaters(service).values()
        if u["type"] == "transportation-network-company-updater"
    ]
    assert (tnc["sourceType"], tnc["source"], tnc["frequencySec"]) == ("no-api", "no-api", 0.0)
    assert (tnc["successes"], tnc["failures"], tnc.get("lastError")) == (1, 0, None)
    assert (tnc["counts"], tnc["messages"]) == ({"companies": 1}, ["company NOAPI (no-api)"])


def test_a_bad_tnc_updater_entry_reports_its_error(make_service: Any, tmp_path: Path) -> None:
    router = tmp_path / "g" / "plain"
    router.mkdir(parents=True)
    bad = {"type": "transportation-network-company-updater", "sourceType": "uber"}
    (router / "router-config.json").write_text(json.dumps({"updaters": [bad]}))
    service = make_service(
        loader=None, graphs_dir=tmp_path / "g", networks={"plain": demo_network()}
    )
    _wait(lambda: _updaters(service, "plain")["0"]["failures"] >= 1)
    status = _updaters(service, "plain")["0"]
    assert status["lastError"] == (
        "TncConfigError: updaters[0]: give 'clientId' and 'clientSecret' (or a 'serverToken')"
    )
    resp = service.get(
        "/otp/routers/plain/transportation_network_company/eta_estimate?from=53.3,4.2&companies=UBER"
    )
    assert resp.json() == {
        "error": "UnsupportedOperationException: updaters[0]: give 'clientId' and 'clientSecret'"
        " (or a 'serverToken')"
    }


def test_the_served_demo_city_polls_its_bike_share_and_has_ride_hail() -> None:
    """``otpa serve`` without a graphs folder: the demo city's router-config.json runs as any
    router's -- its GBFS feed is a polling updater (``frequencySec`` 60), NOAPI configured."""
    from service.config import ServiceConfig
    from service.server import demo_registry, start_in_thread

    config = ServiceConfig(graphs_dir=None, port=0)
    registry = demo_registry(config)
    url, stop = start_in_thread(config, registry=registry)
    try:
        service = Service(url.removesuffix("/otp/routers/default"), url, registry, stop, None)
        _wait(lambda: _updaters(service)["0"]["successes"] >= 1)
        status = _updaters(service)["0"]
        assert (status["type"], status["frequencySec"], status["running"]) == (
            "bike-rental",
            60.0,
            True,
        )
        assert status["counts"]["stations"] == 2
        stations = _json(service, "/otp/routers/demo/bike_rental")["stations"]
        assert sorted(s["name"] for s in stations) == ["Central Station Bikes", "University Bikes"]
        eta = _json(service, "/otp/routers/demo/transportation_network_company/eta_estimate"
                    "?from=53.30,4.20&companies=NOAPI")["estimates"][0]  # fmt: skip
        assert (eta["company"], eta["estimatedSeconds"]) == ("NOAPI", 240)
    finally:
        stop()
