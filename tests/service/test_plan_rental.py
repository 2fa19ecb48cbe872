"""/plan with rental, park and ride, micromobility and ride hailing over HTTP (OTP 1.x/ibi JSON).

A real Tornado server on loopback plans on the demo city (its OSM bike-share stations
Central Station Bikes and University Bikes, network DemoBike, and the Westgate P+R).
Shapes from the reference, sections 2.1 (``bikeRentalInfo``), 2.4 (``rentedBike``...)
and 2.5 (``vertexType``, ``bikeShareId``, ``networks``).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
from _fakes import Service
from _plan_fakes import serve_plan

pytestmark = pytest.mark.http

DAY = "date=2026-03-03&time=8:00am"


@pytest.fixture(scope="module")
def net() -> Any:
    from otpa.testing.demo import demo_network

    return demo_network()


@pytest.fixture(scope="module")
def service(net: Any) -> Iterator[Service]:
    from otpa.mobility import configure_tnc

    # the built-in ride-hail estimator, as a router-config.json would configure it
    noapi = {"sourceType": "no-api", "defaultArrivalTimeSeconds": 300, "currency": "EUR",
             "baseFare": 3.0, "perKm": 1.2, "perMinute": 0.2, "minimumFare": 6}  # fmt: skip
    configure_tnc(net, {"transportationNetworkCompanies": [noapi]})
    yield from serve_plan(None, networks={"demo": net})


def _plan(service: Service, query: str) -> dict[str, Any]:
    resp = service.get(f"/otp/routers/demo/plan?{query}&{DAY}")
    assert resp.status == 200
    body: dict[str, Any] = resp.json()
    assert "error" not in body, body.get("error")
    return body


def test_bicycle_rent_legs(service: Service) -> None:
    body = _plan(service, "fromPlace=53.2995,4.1995&toPlace=53.3065,4.2110&mode=BICYCLE_RENT")
    (it,) = body["plan"]["itineraries"]
    legs = it["legs"]
    assert [leg["mode"] for leg in legs] == ["WALK", "BICYCLE", "WALK"]
    assert [leg["rentedBike"] for leg in legs] == [False, True, False]
    for leg in legs:
        assert leg["rentedCar"] is False
        assert leg["rentedVehicle"] is False
        assert leg["hailedCar"] is False
    bike = legs[1]
    for place, name in ((bike["from"], "Central Station Bikes"), (bike["to"], "University Bikes")):
        assert place["name"] == name
        assert place["vertexType"] == "BIKESHARE"
        assert place["networks"] == ["DemoBike"]
        assert place["bikeShareId"].startswith("osm:node:")
    assert legs[0]["to"]["vertexType"] == "BIKESHARE"
    assert legs[0]["from"]["vertexType"] == "NORMAL"
    # the ride at OTP's bike-rental speed (4.3 m/s) plus renting (60 s) and returning (30 s)
    ride_s = (bike["endTime"] - bike["startTime"]) / 1000
    assert ride_s >= bike["distance"] / 4.3 + 90
    assert ride_s < bike["distance"] / 4.3 + 90 + 60  # turns add a little
    # the ibi fork's rental info of the networks the plan could use
    info = body["bikeRentalInfo"]
    assert info
    for network in info.values():
        assert network["errors"] == []
        assert network["systemInformationData"]["system_id"]


def test_plain_walk_has_no_rental_info(service: Service) -> None:
    body = _plan(service, "fromPlace=53.2995,4.1995&toPlace=53.3065,4.2110&mode=WALK")
    assert "bikeRentalInfo" not in body
    assert [leg["rentedBike"] for leg in body["plan"]["itineraries"][0]["legs"]] == [False]


def test_park_and_ride_legs(service: Service) -> None:
    body = _plan(service, "fromPlace=53.2960,4.1850&toPlace=53.3065,4.2110&mode=CAR_PARK,TRANSIT")
    its = body["plan"]["itineraries"]
    assert its
    for it in its:
        car, walk = it["legs"][0], it["legs"][1]
        assert car["mode"] == "CAR"
        assert car["to"]["name"] == "Westgate P+R"
        assert walk["mode"] == "WALK"
        assert walk["from"]["name"] == "Westgate P+R"
        assert any(leg["transitLeg"] for leg in it["legs"])
        assert car["endTime"] == walk["startTime"]


KISS_AND_RIDE = "fromPlace=53.2960,4.1850&toPlace=53.3065,4.2110&mode=CAR,TRANSIT"


def _drives(body: dict[str, Any]) -> list[float]:
    its = body["plan"]["itineraries"]
    assert its
    assert all(it["legs"][0]["mode"] == "CAR" for it in its)
    return [float(it["legs"][0]["distance"]) for it in its]


@pytest.mark.parametrize("param", ["driveDistanceReluctance=5", "driveTimeReluctance=20"])
def test_drive_reluctance_shortens_the_kiss_and_ride_drive(
    service: Service, net: Any, param: str
) -> None:
    from otpa import plan
    from otpa.routing import Location, PlanRequest
    from otpa.routing.parse import parse_modes, rental_preferences

    base = _drives(_plan(service, KISS_AND_RIDE))
    weighted = _drives(_plan(service, f"{KISS_AND_RIDE}&{param}"))
    assert min(weighted) < min(base) - 1000.0
    # the same drives as the library's plan with the same car preferences
    modes = parse_modes("CAR,TRANSIT")
    req = PlanRequest(Location(lat=53.2960, lon=4.1850), Location(lat=53.3065, lon=4.2110),
                      dt.datetime(2026, 3, 3, 8, 0), modes=modes,
                      rental=rental_preferences(modes, ()))  # fmt: skip
    name, value = param.split("=")
    field = "drive_distance_reluctance" if name == "driveDistanceReluctance" else (
        "drive_time_reluctance")  # fmt: skip
    req = dataclasses.replace(req, car=dataclasses.replace(req.car, **{field: float(value)}))
    expected = [round(it.legs[0].distance, 2) for it in plan(net, req).itineraries]
    assert [round(d, 2) for d in weighted] == expected


def test_rental_info_in_xml(service: Service) -> None:
    import xml.etree.ElementTree as ET

    resp = service.get(
        "/otp/routers/demo/plan?fromPlace=53.2995,4.1995&toPlace=53.3065,4.2110"
        f"&mode=BICYCLE_RENT&{DAY}",
        Accept="application/xml",
    )
    assert resp.status == 200
    root = ET.fromstring(resp.body)
    entries = root.findall("./bikeRentalInfo/entry")
    assert entries
    assert entries[0].find("key") is not None
    assert root.find(".//rentedBike") is not None


def test_micromobility_leg(service: Service) -> None:
    body = _plan(service, "fromPlace=53.2995,4.1995&toPlace=53.3065,4.2110&mode=MICROMOBILITY")
    (it,) = body["plan"]["itineraries"]
    (leg,) = it["legs"]
    assert leg["mode"] == "MICROMOBILITY"
    assert leg["transitLeg"] is False
    assert leg["rentedVehicle"] is False
    # the ibi defaults: at most 5 m/s
    assert leg["duration"] >= leg["distance"] / 5.0


def test_hailed_leg_tnc_data(service: Service) -> None:
    body = _plan(service, "fromPlace=53.2960,4.1850&toPlace=53.3065,4.2110&mode=CAR_HAIL")
    (it,) = body["plan"]["itineraries"]
    (leg,) = it["legs"]
    assert leg["mode"] == "CAR"
    assert leg["hailedCar"] is True
    tnc = leg["tncData"]
    assert set(tnc) == {
        "company", "currency", "travelDuration", "maxCost", "minCost", "productId",
        "displayName", "estimatedArrival",
    }  # fmt: skip
    assert (tnc["company"], tnc["currency"], tnc["estimatedArrival"]) == ("NOAPI", "EUR", 300)
    assert 6.0 <= tnc["minCost"] <= tnc["maxCost"]
    # the car is there 300 s after the requested time
    assert leg["startTime"] - body["plan"]["date"] == 300_000


def test_hail_errors_480_and_482(service: Service) -> None:
    resp = service.get(
        "/otp/routers/demo/plan?fromPlace=53.2960,4.1850&toPlace=53.3065,4.2110"
        f"&mode=CAR_HAIL,TRANSIT&wheelchair=true&{DAY}"
    )
    error = resp.json()["error"]
    assert (error["id"], error["message"]) == (480, "TRANSPORTATION_NETWORK_COMPANY_UNAVAILABLE")
    resp = service.get(
        "/otp/routers/demo/plan?fromPlace=53.2960,4.1850&toPlace=53.3065,4.2110"
        f"&mode=CAR_HAIL,TRANSIT&companies=UBER&{DAY}"
    )
    body = resp.json()
    # UBER is not configured here: the plan goes on without hailing and says why
    assert "error" not in body, body.get("error")
    assert body["notices"]
    assert "UBER" in body["notices"][0]
    assert not any(leg["hailedCar"] for it in body["plan"]["itineraries"] for leg in it["legs"])
