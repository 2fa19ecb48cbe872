"""CAR_HAIL on the demo city: the ETA pre-check (480/482), the hailed leg and its price.

The router's providers are configured as ``router-config.json`` would
(:func:`otpa.mobility.configure_tnc`): the built-in ``no-api`` estimator, whose ETA and
price the test reads back from the provider itself (:func:`otpa.mobility.estimate_eta`,
:func:`otpa.mobility.estimate_ride`), and an Uber-style HTTP provider pointed at a closed
loopback port (it fails: the plan answers without the hail option and says why).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import socket
from typing import Any

import pytest

from otpa import plan
from otpa.mobility import configure_tnc, estimate_eta, estimate_ride
from otpa.network import TransportNetwork
from otpa.routing import Location, PlanRequest
from otpa.routing.errors import TncConfigInvalidError, TncUnavailableError
from otpa.routing.parse import parse_modes, rental_preferences

WHEN = dt.datetime(2026, 3, 3, 8, 0)
A = (53.2960, 4.1850)
B = (53.3065, 4.2110)
NOAPI: dict[str, Any] = {
    "sourceType": "no-api",
    "defaultArrivalTimeSeconds": 240,
    "isWheelChairAccessible": False,
    "currency": "EUR",
    "baseFare": 2.5,
    "perKm": 1.1,
    "perMinute": 0.25,
    "minimumFare": 7,
}


@pytest.fixture(scope="module")
def net() -> TransportNetwork:
    from otpa.testing.demo import demo_network

    return demo_network()


def _request(modes: str, **kw: Any) -> PlanRequest:
    m = parse_modes(modes)
    req = PlanRequest(
        Location(lat=A[0], lon=A[1]),
        Location(lat=B[0], lon=B[1]),
        WHEN,
        modes=m,
        rental=rental_preferences(m, kw.pop("companies", ())),
    )
    return dataclasses.replace(req, **kw)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_hailed_trip_starts_after_the_eta_and_carries_the_providers_price(
    net: TransportNetwork,
) -> None:
    config = {"transportationNetworkCompanies": [NOAPI]}
    assert configure_tnc(net, config) is None
    (it,) = plan(net, _request("CAR_HAIL")).itineraries
    (leg,) = it.legs
    assert leg.mode == "CAR"
    assert leg.hailed_car
    (eta,) = estimate_eta(config, A[0], A[1], ["NOAPI"])
    assert leg.start_time == WHEN.replace(tzinfo=leg.start_time.tzinfo) + dt.timedelta(
        seconds=eta.estimated_seconds
    )
    tnc = leg.tnc_data
    assert tnc is not None
    (ride,) = estimate_ride(
        config, leg.from_place.lat, leg.from_place.lon, leg.to_place.lat, leg.to_place.lon,
        ["NOAPI"],
    )  # fmt: skip
    assert (tnc.company, tnc.currency) == ("NOAPI", "EUR")
    assert (tnc.min_cost, tnc.max_cost) == (ride.min_cost, ride.max_cost)
    assert tnc.travel_duration == ride.duration_s
    assert tnc.estimated_arrival == eta.estimated_seconds


def test_hail_to_transit(net: TransportNetwork) -> None:
    configure_tnc(net, {"transportationNetworkCompanies": [NOAPI]})
    its = plan(net, _request("CAR_HAIL,TRANSIT")).itineraries
    hailed = [it for it in its if it.legs[0].hailed_car]
    assert hailed
    for it in hailed:
        assert it.legs[0].tnc_data is not None
        assert it.legs[0].start_time >= WHEN.replace(tzinfo=it.legs[0].start_time.tzinfo)


def test_no_wheelchair_car_is_message_480(net: TransportNetwork) -> None:
    configure_tnc(net, {"transportationNetworkCompanies": [NOAPI]})
    req = _request("CAR_HAIL,TRANSIT")
    req = dataclasses.replace(req, wheelchair=dataclasses.replace(req.wheelchair, enabled=True))
    with pytest.raises(TncUnavailableError):
        plan(net, req)


def test_no_configured_company_is_message_482(net: TransportNetwork) -> None:
    configure_tnc(net, {})
    with pytest.raises(TncConfigInvalidError):
        plan(net, _request("CAR_HAIL,TRANSIT"))


def test_a_failing_provider_leaves_the_hail_out_and_says_why(net: TransportNetwork) -> None:
    port = _closed_port()
    uber = {"sourceType": "uber", "serverToken": "t", "baseUrl": f"http://127.0.0.1:{port}/",
            "timeoutSec": 1}  # fmt: skip
    configure_tnc(net, {"transportationNetworkCompanies": [uber]})
    found = plan(net, _request("CAR_HAIL,TRANSIT", companies=["UBER"]))
    assert found.itineraries
    assert not any(leg.hailed_car for it in found.itineraries for leg in it.legs)
    assert any(leg.transit_leg for it in found.itineraries for leg in it.legs)
    assert found.notices
    assert "UBER" in found.notices[0]
