"""Ride-hail providers: the built-in estimator, and Uber-/Lyft-style HTTP providers against
real Tornado servers on loopback that speak those APIs' documented shapes."""

from __future__ import annotations

import asyncio
import base64
import json
import math
from collections.abc import Iterator
from typing import Any

import pytest
import tornado.web

from otpa.mobility import (
    TncConfigError,
    TncError,
    estimate_eta,
    estimate_ride,
    tnc_providers,
)
from tests.fixtures.loopback import serve_app

pytestmark = pytest.mark.http

FROM = (33.7490, -84.3880)
TO = (33.7756, -84.3963)


# -- a fake Uber (Rides API v1.2) -------------------------------------------------------------
UBER_TIME_CALLS: list[str] = []


class _UberToken(tornado.web.RequestHandler):
    """Uber's OAuth token endpoint (client credentials, form-encoded, as the ibi fork asks)."""

    def post(self) -> None:
        form = {k: self.get_body_argument(k) for k in self.request.body_arguments}
        if form != {
            "client_id": "uber-id",
            "client_secret": "uber-pass",
            "grant_type": "client_credentials",
            "scope": "ride_request.estimate",
        }:
            self.set_status(401)
            self.finish({"error": "invalid_client"})
            return
        UBER_TIME_CALLS.append("token")
        self.finish({"access_token": "uber-oauth", "token_type": "Bearer", "expires_in": 2592000})


class _UberTime(tornado.web.RequestHandler):
    def get(self) -> None:
        UBER_TIME_CALLS.append(self.request.uri or "")
        if self.request.headers.get("Authorization") not in (
            "Token uber-secret",
            "Bearer uber-oauth",
        ):
            self.set_status(401)
            self.finish(
                {"message": "Invalid OAuth 2.0 credentials provided.", "code": "unauthorized"}
            )
            return
        lat = float(self.get_query_argument("start_latitude"))
        self.finish(
            {
                "times": [
                    {
                        "product_id": "uberx-id",
                        "display_name": "UberX",
                        "localized_display_name": "uberX",
                        "estimate": 180 if lat > 0 else 999,
                    },
                    {
                        "product_id": "wav-id",
                        "display_name": "WAV",
                        "localized_display_name": "uberWAV",
                        "estimate": 600,
                    },
                ]
            }
        )


class _UberPrice(tornado.web.RequestHandler):
    def get(self) -> None:
        args = {k: float(self.get_query_argument(k)) for k in ("start_latitude", "end_longitude")}
        assert args["start_latitude"] == FROM[0]
        self.finish(
            {
                "prices": [
                    {
                        "product_id": "uberx-id",
                        "currency_code": "USD",
                        "display_name": "UberX",
                        "estimate": "$11-14",
                        "low_estimate": 11,
                        "high_estimate": 14,
                        "duration": 540,
                        "distance": 2.4,
                    }
                ]
            }
        )


class _Slow(tornado.web.RequestHandler):
    async def get(self) -> None:
        await asyncio.sleep(1.5)
        self.finish({"times": []})


class _Broken(tornado.web.RequestHandler):
    def get(self) -> None:
        self.set_status(500)
        self.finish("<html>oops</html>")


# -- a fake Lyft ---------------------------------------------------------------------------
class _LyftToken(tornado.web.RequestHandler):
    def initialize(self, calls: list[str]) -> None:
        self.calls = calls

    def post(self) -> None:
        expected = "Basic " + base64.b64encode(b"lyft-id:lyft-secret").decode()
        body = json.loads(self.request.body)
        if self.request.headers.get("Authorization") != expected or body != {
            "grant_type": "client_credentials",
            "scope": "public",
        }:
            self.set_status(401)
            self.finish({"error": "invalid_client"})
            return
        self.calls.append("token")
        self.finish({"access_token": "tok-1", "token_type": "bearer", "expires_in": 86400})


class _LyftEta(tornado.web.RequestHandler):
    def get(self) -> None:
        assert self.request.headers.get("Authorization") == "Bearer tok-1"
        if float(self.get_query_argument("lat")) < 0:
            self.set_status(400)
            self.finish({"error": "no_service_in_area", "error_description": "No service"})
            return
        self.finish(
            {
                "eta_estimates": [
                    {
                        "ride_type": "lyft",
                        "display_name": "Lyft",
                        "eta_seconds": 120,
                        "is_valid_estimate": True,
                    },
                    {
                        "ride_type": "lyft_access",
                        "display_name": "Access",
                        "eta_seconds": 420,
                        "is_valid_estimate": True,
                    },
                    {"ride_type": "lyft_lux", "display_name": "Lux", "is_valid_estimate": False},
                ]
            }
        )


class _LyftCost(tornado.web.RequestHandler):
    def get(self) -> None:
        assert self.request.headers.get("Authorization") == "Bearer tok-1"
        self.finish(
            {
                "cost_estimates": [
                    {
                        "ride_type": "lyft",
                        "display_name": "Lyft",
                        "currency": "USD",
                        "estimated_cost_cents_min": 1050,
                        "estimated_cost_cents_max": 1375,
                        "estimated_duration_seconds": 560,
                        "estimated_distance_miles": 2.3,
                        "is_valid_estimate": True,
                    }
                ]
            }
        )


@pytest.fixture(scope="module")
def provider_base() -> Iterator[tuple[str, list[str]]]:
    calls: list[str] = []
    app = tornado.web.Application(
        [
            (r"/uber/v1.2/estimates/time", _UberTime),
            (r"/uberlogin/oauth/v2/token", _UberToken),
            (r"/uber/v1.2/estimates/price", _UberPrice),
            (r"/slow/v1.2/estimates/time", _Slow),
            (r"/broken/v1.2/estimates/time", _Broken),
            (r"/lyft/oauth/token", _LyftToken, {"calls": calls}),
            (r"/lyft/v1/eta", _LyftEta),
            (r"/lyft/v1/cost", _LyftCost),
        ]
    )
    base, stop = serve_app(app)
    yield base, calls
    stop()


def test_built_in_estimator_fares_and_waits_from_configuration() -> None:
    entry = {
        "sourceType": "no-api",
        "defaultArrivalTimeSeconds": 240,
        "isWheelChairAccessible": True,
        "currency": "EUR",
        "baseFare": 3.0,
        "perKm": 1.5,
        "perMinute": 0.3,
        "minimumFare": 8.0,
        "speedKph": 30.0,
        "detourFactor": 1.3,
        "priceSpread": 0.1,
    }
    config = {"transportationNetworkCompanies": [entry]}
    (eta,) = estimate_eta(config, *FROM)
    assert (eta.company, eta.estimated_seconds, eta.wheelchair_accessible) == ("NOAPI", 240, True)
    (ride,) = estimate_ride(config, *FROM, *TO)
    # the distance, independently: haversine on a 6,371,008.8 m sphere, times the detour factor
    p1, p2 = math.radians(FROM[0]), math.radians(TO[0])
    dp, dl = p2 - p1, math.radians(TO[1] - FROM[1])
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    km = 2 * 6371.0088 * math.asin(math.sqrt(a)) * 1.3
    minutes = km / 30.0 * 60.0
    assert abs(ride.duration_s - minutes * 60) <= 1
    fare = max(3.0 + 1.5 * km + 0.3 * ride.duration_s / 60, 8.0)
    assert ride.currency == "EUR"
    assert ride.min_cost == pytest.approx(fare * 0.9, abs=0.01)
    assert ride.max_cost == pytest.approx(fare * 1.1, abs=0.01)
    # OTP's NOAPI source without fares: 0 in "undefined"
    (plain,) = estimate_ride(
        {"transportationNetworkCompanies": [{"sourceType": "no-api"}]}, *FROM, *TO
    )
    assert (plain.currency, plain.min_cost, plain.max_cost) == ("undefined", 0.0, 0.0)


def test_uber_provider_speaks_the_rides_api(provider_base: tuple[str, list[str]]) -> None:
    base, _ = provider_base
    entry = {
        "sourceType": "uber",
        "serverToken": "uber-secret",
        "baseUrl": f"{base}/uber/v1.2/",
        "wheelChairAccessibleRideType": "wav-id",
    }
    providers = tnc_providers({"transportationNetworkCompanies": [entry]})
    etas = estimate_eta(providers, *FROM, ["uber"])
    assert [
        (e.product_id, e.display_name, e.estimated_seconds, e.wheelchair_accessible) for e in etas
    ] == [
        ("uberx-id", "uberX", 180, False),
        ("wav-id", "uberWAV", 600, True),
    ]
    # the same place again within cacheSec (default 120 s): no second request
    calls = len(UBER_TIME_CALLS)
    assert estimate_eta(providers, *FROM, ["uber"]) == etas
    assert len(UBER_TIME_CALLS) == calls
    uncached = tnc_providers({"transportationNetworkCompanies": [{**entry, "cacheSec": 0}]})
    assert estimate_eta(uncached, *FROM) == estimate_eta(uncached, *FROM) == etas
    assert len(UBER_TIME_CALLS) == calls + 2
    (ride,) = estimate_ride(providers, *FROM, *TO, ["UBER"])
    assert (ride.company, ride.currency, ride.duration_s, ride.min_cost, ride.max_cost) == (
        "UBER",
        "USD",
        540,
        11.0,
        14.0,
    )
    assert ride.to_json()["rideType"] == "uberx-id"
    bad = tnc_providers({"transportationNetworkCompanies": [{**entry, "serverToken": "wrong"}]})
    with pytest.raises(TncError, match=r"UBER answered HTTP 401: Invalid OAuth"):
        estimate_eta(bad, *FROM)


def test_lyft_provider_token_eta_cost_and_no_service(provider_base: tuple[str, list[str]]) -> None:
    base, calls = provider_base
    entry = {
        "sourceType": "lyft",
        "clientId": "lyft-id",
        "clientSecret": "lyft-secret",
        "baseUrl": f"{base}/lyft",
        "wheelChairAccessibleRideType": "lyft_access",
    }
    providers = tnc_providers({"transportationNetworkCompanies": [entry]})
    etas = estimate_eta(providers, *FROM)
    assert [(e.product_id, e.estimated_seconds, e.wheelchair_accessible) for e in etas] == [
        ("lyft", 120, False),
        ("lyft_access", 420, True),
    ]
    (ride,) = estimate_ride(providers, *FROM, *TO)
    assert (ride.currency, ride.min_cost, ride.max_cost, ride.duration_s) == (
        "USD",
        10.5,
        13.75,
        560,
    )
    assert estimate_eta(providers, -10.0, 20.0) == []  # no_service_in_area: no estimate
    assert calls == ["token"]  # one token, reused until it expires
    wrong = tnc_providers({"transportationNetworkCompanies": [{**entry, "clientSecret": "x"}]})
    with pytest.raises(TncError, match="LYFT refused the credentials"):
        estimate_eta(wrong, *FROM)


def test_timeouts_and_broken_answers_are_clear_errors(provider_base: tuple[str, list[str]]) -> None:
    base, _ = provider_base
    slow = {
        "sourceType": "uber",
        "serverToken": "t",
        "baseUrl": f"{base}/slow/v1.2/",
        "timeoutSec": 0.3,
    }
    with pytest.raises(TncError, match=r"UBER did not answer within 0.3 s"):
        estimate_eta({"transportationNetworkCompanies": [slow]}, *FROM)
    broken = {"sourceType": "uber", "serverToken": "t", "baseUrl": f"{base}/broken/v1.2/"}
    with pytest.raises(TncError, match="UBER answered HTTP 500 with a body that is not JSON"):
        estimate_eta({"transportationNetworkCompanies": [broken]}, *FROM)
    closed = {
        "sourceType": "lyft",
        "clientId": "a",
        "clientSecret": "b",
        "baseUrl": "http://127.0.0.1:9/",
    }
    with pytest.raises(TncError, match="LYFT cannot be reached"):
        estimate_eta({"transportationNetworkCompanies": [closed]}, *FROM)
    with pytest.raises(
        TncError, match=r"company UBER is not configured for this router \(configured: NOAPI\)"
    ):
        estimate_eta(
            {"transportationNetworkCompanies": [{"sourceType": "no-api"}]}, *FROM, ["uber"]
        )


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ({"sourceType": "taxi"}, r"transportationNetworkCompanies\[0\]: sourceType 'taxi'"),
        ({"sourceType": "uber"}, r"\[0\]: give 'clientId' and 'clientSecret'"),
        ({"sourceType": "lyft", "clientId": "a"}, r"'clientSecret' is required"),
        ({"sourceType": "no-api", "perKm": -1}, r"'perKm' must not be negative"),
        ({"sourceType": "no-api", "speedKph": 0}, r"'speedKph' must be positive"),
        ({"sourceType": "uber", "serverToken": "t", "baseUrl": "ftp://x"}, "baseUrl must be http"),
    ],
)
def test_bad_configuration_is_refused(entries: dict[str, Any], message: str) -> None:
    with pytest.raises(TncConfigError, match=message):
        tnc_providers({"transportationNetworkCompanies": [entries]})
    with pytest.raises(TncConfigError, match="must be a list"):
        tnc_providers({"transportationNetworkCompanies": {"sourceType": "no-api"}})


def test_otp1_updater_entries_configure_the_companies(provider_base: tuple[str, list[str]]) -> None:
    """OTP 1.x (ibi): ``{"type": "transportation-network-company-updater", "sourceType":
    ...}`` in ``updaters``; Uber with ``clientId``/``clientSecret`` gets an OAuth token."""
    base, _ = provider_base
    config = {
        "updaters": [
            {"type": "bike-rental", "sourceType": "gbfs", "url": "http://x/gbfs.json"},
            {
                "type": "transportation-network-company-updater",
                "sourceType": "no-api",
                "defaultArrivalTimeSeconds": 123,
                "isWheelChairAccessible": True,
            },
            {
                "type": "transportation-network-company-updater",
                "sourceType": "uber",
                "clientId": "uber-id",
                "clientSecret": "uber-pass",
                "wheelChairAccessibleRideType": "wav-id",
                "baseUrl": f"{base}/uber/v1.2/",
                "authenticationUrl": f"{base}/uberlogin/",
                "cacheSec": 0,
            },
        ]
    }
    providers = tnc_providers(config)
    assert sorted(providers) == ["NOAPI", "UBER"]
    (noapi,) = estimate_eta(config, *FROM, companies=["NOAPI"])
    assert (noapi.estimated_seconds, noapi.wheelchair_accessible) == (123, True)
    UBER_TIME_CALLS.clear()
    etas = estimate_eta(providers, *FROM, companies=["UBER"])
    assert [(e.product_id, e.estimated_seconds, e.wheelchair_accessible) for e in etas] == [
        ("uberx-id", 180, False),
        ("wav-id", 600, True),
    ]
    estimate_eta(providers, *FROM, companies=["UBER"])
    assert UBER_TIME_CALLS.count("token") == 1  # the token is kept until it expires
    # the same company in both places is refused, naming where
    both = {**config, "transportationNetworkCompanies": [{"sourceType": "no-api"}]}
    with pytest.raises(TncConfigError, match=r"transportationNetworkCompanies\[0\]: company NOAPI"):
        tnc_providers(both)
    bad = {"updaters": [{"type": "transportation-network-company-updater", "sourceType": "x"}]}
    with pytest.raises(TncConfigError, match=r"updaters\[0\]: sourceType 'x'"):
        tnc_providers(bad)
    wrong = {**config["updaters"][2], "clientSecret": "nope", "cacheSec": 0}  # type: ignore[dict-item]
    with pytest.raises(TncError, match="UBER refused the credentials"):
        estimate_eta(tnc_providers({"updaters": [wrong]}), *FROM)
