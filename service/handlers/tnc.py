"""``/otp/routers/{routerId}/transportation_network_company/{eta_estimate,ride_estimate}``.

The ibi fork's ride-hail estimates, from the router's providers
(``transportationNetworkCompanies`` in ``router-config.json``, :mod:`otpa.mobility.tnc`):

* ``eta_estimate?from=lat,lon&companies=UBER,LYFT`` -> ``{"estimates": [ArrivalTime]}``;
* ``ride_estimate?from=lat,lon&to=lat,lon&company=UBER&rideType=...`` ->
  ``{"rideEstimate": RideEstimate}`` (the estimate of ``rideType`` when one matches, else
  the first, as OTP).

As in OTP 1.x, every problem is an HTTP 200 whose body is ``{"error": "<Kind>: <message>"}``:
a missing or malformed parameter, a router without providers, a company not configured,
a provider that failed or timed out (the message names it), or no estimate.  An unknown
router is a 404 (OTP answered 500).  XML is offered as OTP did.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import tornado.web
from tornado.routing import URLSpec

from otpa.mobility import (
    TncConfigError,
    TncError,
    TncProvider,
    estimate_eta,
    estimate_ride,
    tnc_for,
)
from service.handlers.base import BaseHandler
from service.openapi import Operation, Param

__all__ = ["EtaEstimateHandler", "RideEstimateHandler", "tnc_urls"]

#: The error kinds of the answers (OTP wrote Java exception class names).
_UNSUPPORTED = "UnsupportedOperationException"
_EXCEPTION = "Exception"
_TNC_ERROR = "TncError"
_FROM = Param("from", {"type": "string"}, "lat,lon of the pick-up place", required=True)


class _RefusedError(Exception):
    """An OTP-style error answer: ``{"error": "<kind>: <message>"}`` with HTTP 200."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.text = f"{kind}: {message}"


def _lat_lon(raw: str | None, name: str) -> tuple[float, float]:
    if raw is None or not raw.strip():
        raise _RefusedError(_UNSUPPORTED, f"{name} parameter is required")
    try:
        lat, lon = (float(p) for p in raw.split(","))
    except ValueError:
        msg = f"Invalid format of {name} parameter.  Should be `lat,lon`."
        raise _RefusedError(_EXCEPTION, msg) from None
    if not (math.isfinite(lat) and math.isfinite(lon) and abs(lat) <= 90 and abs(lon) <= 180):
        msg = f"Invalid {name} parameter: latitude -90..90 and longitude -180..180"
        raise _RefusedError(_EXCEPTION, msg)
    return lat, lon


class _TncHandler(BaseHandler):
    root: ClassVar[str] = ""

    def _providers(self, router_id: str) -> dict[str, TncProvider]:
        canonical, network = self.registry.lookup(router_id)
        try:
            providers = dict(tnc_for(network))
        except TncConfigError as exc:
            raise _RefusedError(_UNSUPPORTED, str(exc)) from None
        if not providers:
            msg = (
                "Unconfigured Transportation Network Company service for router with id: "
                f"{canonical}"
            )
            raise _RefusedError(_UNSUPPORTED, msg)
        return providers

    def _answer(self, body: dict[str, Any]) -> None:
        self.respond(self.root, body)


class EtaEstimateHandler(_TncHandler):
    """``GET .../transportation_network_company/eta_estimate``."""

    root = "EtaEstimates"
    openapi: ClassVar[dict[str, Operation]] = {
        "get": Operation(
            "Ride-hail arrival estimates at a place (errors: HTTP 200 with 'error')",
            query=(
                _FROM,
                Param(
                    "companies",
                    {"type": "string"},
                    "comma list of UBER, LYFT, NOAPI",
                    required=True,
                ),
            ),
            response="TncEtaEstimates",
            xml=True,
            errors=(404,),
        )
    }

    async def get(self, router_id: str) -> None:
        """The arrival estimates (or OTP's error body)."""
        try:
            companies = self.get_query_argument("companies", None)
            if companies is None or not companies.strip():
                msg = "companies parameter is required"
                raise _RefusedError(_UNSUPPORTED, msg)
            lat, lon = _lat_lon(self.get_query_argument("from", None), "from")
            providers = self._providers(router_id)
            names = [c for c in companies.split(",") if c.strip()]
            try:
                estimates = await self.run_blocking(estimate_eta, providers, lat, lon, names)
            except TncError as exc:
                raise _RefusedError(_TNC_ERROR, str(exc)) from None
            if not estimates:
                msg = (
                    "Could not find any arrival estimates for the specified companies "
                    "and ridetypes"
                )
                raise _RefusedError(_EXCEPTION, msg)
        except _RefusedError as exc:
            self._answer({"error": exc.text})
            return
        self._answer({"estimates": [e.to_json() for e in estimates]})


class RideEstimateHandler(_TncHandler):
    """``GET .../transportation_network_company/ride_estimate``."""

    root = "RideEstimateResponse"
    openapi: ClassVar[dict[str, Operation]] = {
        "get": Operation(
            "A ride-hail price and duration estimate (errors: HTTP 200 with 'error')",
            query=(
                _FROM,
                Param("to", {"type": "string"}, "lat,lon of the drop-off place", required=True),
                Param("company", {"type": "string"}, "UBER, LYFT or NOAPI", required=True),
                Param("rideType", {"type": "string"}, "the product wanted", required=True),
            ),
            response="TncRideEstimate",
            xml=True,
            errors=(404,),
        )
    }

    async def get(self, router_id: str) -> None:
        """The ride estimate (or OTP's error body)."""
        try:
            company = self.get_query_argument("company", None)
            ride_type = self.get_query_argument("rideType", None)
            for name, value in (("company", company), ("rideType", ride_type)):
                if value is None or not value.strip():
                    msg = f"{name} parameter is required"
                    raise _RefusedError(_UNSUPPORTED, msg)
            assert company is not None
            start = _lat_lon(self.get_query_argument("from", None), "from")
            end = _lat_lon(self.get_query_argument("to", None), "to")
            providers = self._providers(router_id)
            try:
                estimates = await self.run_blocking(
                    estimate_ride, providers, *start, *end, [company]
                )
            except TncError as exc:
                raise _RefusedError(_TNC_ERROR, str(exc)) from None
            if not estimates:
                msg = "Could not find any ride estimates for the specified company and ridetype"
                raise _RefusedError(_EXCEPTION, msg)
        except _RefusedError as exc:
            self._answer({"error": exc.text})
            return
        chosen = next((e for e in estimates if e.ride_type == ride_type), estimates[0])
        self._answer({"rideEstimate": chosen.to_json()})


def tnc_urls(args: dict[str, Any]) -> list[URLSpec]:
    """The URL rules of the ride-hail estimate endpoints."""
    base = r"/otp/routers/([^/]+)/transportation_network_company"
    return [
        tornado.web.url(base + r"/eta_estimate/?", EtaEstimateHandler, dict(args)),
        tornado.web.url(base + r"/ride_estimate/?", RideEstimateHandler, dict(args)),
    ]
