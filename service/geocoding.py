"""Backends of the external geocoder ``GET /otp/geocode``: built-in index, Nominatim, Pelias.

Each backend turns an address (and an optional bounding box) into OTP 1.x's
``GeocoderResults`` items ``{lat, lng, description}``.  The HTTP backends speak
the public Nominatim (``/search?format=jsonv2``) and Pelias (``/v1/search``)
APIs with Tornado's async client; any failure of the remote service (refused
connection, timeout, HTTP error, a body that is not what the API promises)
raises :class:`GeocoderUnavailableError`, which the handler answers with 502.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlencode

from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest

from otpa.errors import InvalidArgumentError

if TYPE_CHECKING:
    from service.config import ServiceConfig
    from service.registry import RouterRegistry

__all__ = [
    "MAX_RESULTS",
    "BuiltinGeocoder",
    "Geocoder",
    "GeocoderUnavailableError",
    "HttpGeocoder",
    "make_geocoder",
]

Bbox = tuple[float, float, float, float]  # min_lat, min_lon, max_lat, max_lon
#: Results asked of a backend.
MAX_RESULTS = 10
_USER_AGENT = "otpa-geocoder/1 (+https://github.com/otpa)"


class GeocoderUnavailableError(RuntimeError):
    """The geocoding backend failed (unreachable, timed out, answered an error or nonsense)."""


class Geocoder(Protocol):
    """What ``GET /otp/geocode`` needs of a backend."""

    name: str

    async def geocode(self, address: str, bbox: Bbox | None) -> list[dict[str, Any]]:
        """Results ``{lat, lng, description}``, best first."""
        ...


class BuiltinGeocoder:
    """The default router's own geocoder index (offline)."""

    name = "builtin"

    def __init__(self, registry: RouterRegistry) -> None:
        self._registry = registry

    async def geocode(self, address: str, bbox: Bbox | None) -> list[dict[str, Any]]:
        """Search stops, clusters, corners and places of the default router."""
        from otpa.geocode import GeocodeQueryError

        network = self._registry.get("default")
        try:
            found = network.geocoder().search(address, clusters=True, bbox=bbox, limit=MAX_RESULTS)
        except GeocodeQueryError as exc:
            raise InvalidArgumentError(str(exc)) from None
        return [{"lat": r.lat, "lng": r.lng, "description": r.name} for r in found]


def _number(value: Any) -> float:
    out = float(value)
    if not math.isfinite(out):
        msg = f"not a finite number: {value!r}"
        raise InvalidArgumentError(msg)
    return out


class HttpGeocoder:
    """A remote Nominatim or Pelias service.

    Parameters
    ----------
    kind
        ``nominatim`` or ``pelias``.
    base_url
        The service root (``https://nominatim.openstreetmap.org``).
    timeout_s
        Time limit of one request.
    """

    def __init__(self, kind: str, base_url: str, timeout_s: float) -> None:
        if kind not in ("nominatim", "pelias"):
            msg = f"unknown HTTP geocoder {kind!r}"
            raise InvalidArgumentError(msg)
        self.name = kind
        self._base = base_url.rstrip("/")
        self._timeout = float(timeout_s)

    def url(self, address: str, bbox: Bbox | None) -> str:
        """The request URL for an address.

        Examples
        --------
        >>> HttpGeocoder("nominatim", "http://x", 5).url("Paradeplatz", (49, 8, 50, 9))
        'http://x/search?q=Paradeplatz&format=jsonv2&limit=10&viewbox=8%2C50%2C9%2C49&bounded=1'
        """
        if self.name == "nominatim":
            params: dict[str, Any] = {"q": address, "format": "jsonv2", "limit": MAX_RESULTS}
            if bbox is not None:
                min_lat, min_lon, max_lat, max_lon = (f"{v:g}" for v in bbox)
                params["viewbox"] = f"{min_lon},{max_lat},{max_lon},{min_lat}"
                params["bounded"] = 1
            return f"{self._base}/search?{urlencode(params)}"
        params = {"text": address, "size": MAX_RESULTS}
        if bbox is not None:
            params.update(
                {
                    "boundary.rect.min_lat": bbox[0],
                    "boundary.rect.min_lon": bbox[1],
                    "boundary.rect.max_lat": bbox[2],
                    "boundary.rect.max_lon": bbox[3],
                }
            )
        return f"{self._base}/v1/search?{urlencode(params)}"

    async def geocode(self, address: str, bbox: Bbox | None) -> list[dict[str, Any]]:
        """Ask the remote service (see the module docstring for failures)."""
        request = HTTPRequest(
            self.url(address, bbox),
            headers={"User-Agent": _USER_AGENT, "Accept": "application/json"},
            connect_timeout=self._timeout,
            request_timeout=self._timeout,
            follow_redirects=False,
        )
        try:
            response = await AsyncHTTPClient().fetch(request)
        except HTTPClientError as exc:
            msg = f"{self.name} geocoder answered HTTP {exc.code}"
            raise GeocoderUnavailableError(msg) from None
        except (OSError, TimeoutError) as exc:
            msg = f"{self.name} geocoder unreachable ({type(exc).__name__})"
            raise GeocoderUnavailableError(msg) from None
        try:
            body = json.loads(response.body)
            parsed = (
                self._parse_nominatim(body)
                if self.name == "nominatim"
                else self._parse_pelias(body)
            )
        except (ValueError, TypeError, KeyError, IndexError, AttributeError):
            msg = f"{self.name} geocoder answered something that is not a {self.name} result"
            raise GeocoderUnavailableError(msg) from None
        return parsed[:MAX_RESULTS]

    @staticmethod
    def _parse_nominatim(body: Any) -> list[dict[str, Any]]:
        if not isinstance(body, list):
            raise TypeError
        return [
            {
                "lat": _number(item["lat"]),
                "lng": _number(item["lon"]),
                "description": str(item.get("display_name") or item.get("name") or ""),
            }
            for item in body
        ]

    @staticmethod
    def _parse_pelias(body: Any) -> list[dict[str, Any]]:
        if not isinstance(body, Mapping) or not isinstance(body.get("features"), Sequence):
            raise TypeError
        out = []
        for feature in body["features"]:
            lon, lat = feature["geometry"]["coordinates"][:2]
            props = feature.get("properties") or {}
            out.append(
                {
                    "lat": _number(lat),
                    "lng": _number(lon),
                    "description": str(props.get("label") or props.get("name") or ""),
                }
            )
        return out


def make_geocoder(config: ServiceConfig, registry: RouterRegistry) -> Geocoder:
    """The backend named by the configuration (``geocoder``, ``geocoder_url``)."""
    if config.geocoder == "builtin":
        return BuiltinGeocoder(registry)
    assert config.geocoder_url is not None  # checked by ServiceConfig
    return HttpGeocoder(config.geocoder, config.geocoder_url, config.geocoder_timeout_s)
