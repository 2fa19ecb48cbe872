"""Ride-hail (transportation network company, TNC) estimates: pluggable providers per router.

A router's providers are configured in ``router-config.json`` under
``transportationNetworkCompanies``, one entry per company (the fields of the ibi fork's
TNC updaters)::

    "transportationNetworkCompanies": [
      {"sourceType": "no-api", "defaultArrivalTimeSeconds": 240, "isWheelChairAccessible": false,
       "currency": "USD", "baseFare": 2.5, "perKm": 1.1, "perMinute": 0.25, "minimumFare": 7,
       "speedKph": 30, "detourFactor": 1.3, "priceSpread": 0.15},
      {"sourceType": "uber", "serverToken": "...", "wheelChairAccessibleRideType": "WAV"},
      {"sourceType": "lyft", "clientId": "...", "clientSecret": "...",
       "wheelChairAccessibleRideType": "lyft_access"}
    ]

* ``no-api`` (company ``NOAPI``) is the built-in estimator and works offline: the wait is
  ``defaultArrivalTimeSeconds``; a ride takes the straight-line distance times
  ``detourFactor`` at ``speedKph`` and costs ``baseFare + perKm * km + perMinute * min``
  (at least ``minimumFare``), give or take ``priceSpread`` (min/max cost).  Without fare
  fields the cost is 0 in currency ``undefined``, as OTP's NOAPI source.
* ``uber`` (``UBER``) asks ``GET {baseUrl}estimates/time`` and ``estimates/price`` of the
  Uber Rides API v1.2 with ``Authorization: Token <serverToken>``.
* ``lyft`` (``LYFT``) gets an OAuth token (client credentials, ``POST {baseUrl}oauth/token``)
  and asks ``GET {baseUrl}v1/eta`` and ``v1/cost``; ``no_service_in_area`` means no estimate.

``baseUrl`` defaults to the companies' public API; ``timeoutSec`` (default 5) bounds each
HTTP request; an answer for one place is reused for ``cacheSec`` seconds (default 120, as
OTP 1.x; 0 turns this off; failures are never kept).  A provider that cannot answer
raises :class:`TncError` (timeouts, HTTP errors, unexpected bodies), which says which
company failed and why.
"""

from __future__ import annotations

import base64
import json
import math
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from otpa.errors import OtpaError
from otpa.util.geo import haversine_m

__all__ = [
    "COMPANIES",
    "TNC_UPDATER_TYPE",
    "EtaEstimate",
    "LyftProvider",
    "NoApiProvider",
    "RideEstimate",
    "TncConfigError",
    "TncError",
    "TncProvider",
    "UberProvider",
    "configure_tnc",
    "estimate_eta",
    "estimate_ride",
    "tnc_entries",
    "tnc_for",
    "tnc_provider",
    "tnc_providers",
]

#: Company names as OTP's ``TransportationNetworkCompany`` enum.
COMPANIES = ("LYFT", "NOAPI", "UBER")

_DEFAULT_TIMEOUT_S = 5.0
#: How long an HTTP provider's answer for one place is reused (OTP 1.x: 2 minutes).
_DEFAULT_CACHE_S = 120.0


class TncError(OtpaError):
    """A provider could not give an estimate (the message names the company and why)."""


class TncConfigError(ValueError, OtpaError):
    """A ``transportationNetworkCompanies`` entry that cannot be used."""


@dataclass(frozen=True)
class EtaEstimate:
    """How soon a car can be at a place (OTP's ``ArrivalTime``)."""

    company: str
    product_id: str
    display_name: str
    estimated_seconds: int
    wheelchair_accessible: bool

    def to_json(self) -> dict[str, Any]:
        """OTP's JSON object."""
        return {
            "company": self.company,
            "productId": self.product_id,
            "displayName": self.display_name,
            "estimatedSeconds": self.estimated_seconds,
            "wheelchairAccessible": self.wheelchair_accessible,
        }


@dataclass(frozen=True)
class RideEstimate:
    """What a ride costs and how long it takes (OTP's ``RideEstimate``)."""

    company: str
    currency: str
    duration_s: int
    min_cost: float
    max_cost: float
    ride_type: str
    wheelchair_accessible: bool

    def to_json(self) -> dict[str, Any]:
        """OTP's JSON object."""
        return {
            "company": self.company,
            "currency": self.currency,
            "duration": self.duration_s,
            "maxCost": self.max_cost,
            "minCost": self.min_cost,
            "rideType": self.ride_type,
            "wheelchairAccessible": self.wheelchair_accessible,
        }


class TncProvider(Protocol):
    """One company's estimates."""

    company: str

    def eta(self, lat: float, lon: float) -> list[EtaEstimate]:
        """Arrival estimates at a place (empty: no service there)."""
        ...

    def ride(
        self, from_lat: float, from_lon: float, to_lat: float, to_lon: float
    ) -> list[RideEstimate]:
        """Ride estimates between two places (empty: no service)."""
        ...


# -- configuration helpers --------------------------------------------------------------------
def _num(entry: Mapping[str, Any], key: str, default: float, where: str) -> float:
    value = entry.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        msg = f"{where}: {key!r} must be a number"
        raise TncConfigError(msg)
    if value < 0:
        msg = f"{where}: {key!r} must not be negative"
        raise TncConfigError(msg)
    return float(value)


def _str(entry: Mapping[str, Any], key: str, where: str, *, required: bool = False) -> str | None:
    value = entry.get(key)
    if value is None:
        if required:
            msg = f"{where}: {key!r} is required"
            raise TncConfigError(msg)
        return None
    if not isinstance(value, str) or not value.strip():
        msg = f"{where}: {key!r} must be a non-empty string"
        raise TncConfigError(msg)
    return value.strip()


def _base_url(entry: Mapping[str, Any], default: str, where: str, key: str = "baseUrl") -> str:
    url = _str(entry, key, where) or default
    if not url.lower().startswith(("http://", "https://")):
        msg = f"{where}: {key} must be http(s): {url!r}"
        raise TncConfigError(msg)
    return url if url.endswith("/") else url + "/"


# -- the built-in estimator -----------------------------------------------------------------
class NoApiProvider:
    """Company ``NOAPI``: waits and fares from configuration, no network (see the module notes)."""

    company = "NOAPI"

    def __init__(self, entry: Mapping[str, Any], where: str = "NOAPI") -> None:
        self.arrival_s = int(_num(entry, "defaultArrivalTimeSeconds", 0.0, where))
        self.wheelchair = bool(entry.get("isWheelChairAccessible", False))
        self.currency = _str(entry, "currency", where) or "undefined"
        self.base_fare = _num(entry, "baseFare", 0.0, where)
        self.per_km = _num(entry, "perKm", 0.0, where)
        self.per_minute = _num(entry, "perMinute", 0.0, where)
        self.minimum_fare = _num(entry, "minimumFare", 0.0, where)
        self.speed_kph = _num(entry, "speedKph", 30.0, where)
        if self.speed_kph <= 0:
            msg = f"{where}: 'speedKph' must be positive"
            raise TncConfigError(msg)
        self.detour = _num(entry, "detourFactor", 1.3, where)
        self.spread = _num(entry, "priceSpread", 0.0, where)
        self.product_id = _str(entry, "productId", where) or "no-api-tnc-service"
        self.display_name = _str(entry, "displayName", where) or self.product_id

    def eta(self, lat: float, lon: float) -> list[EtaEstimate]:
        """One estimate: the configured wait."""
        return [
            EtaEstimate(
                self.company, self.product_id, self.display_name, self.arrival_s, self.wheelchair
            )
        ]

    def ride(
        self, from_lat: float, from_lon: float, to_lat: float, to_lon: float
    ) -> list[RideEstimate]:
        """One estimate from the straight-line distance, the speed and the fares."""
        km = float(haversine_m(from_lat, from_lon, to_lat, to_lon)) / 1000.0 * self.detour
        duration_s = round(km / self.speed_kph * 3600.0)
        fare = self.base_fare + self.per_km * km + self.per_minute * duration_s / 60.0
        if fare > 0:
            fare = max(fare, self.minimum_fare)
        lo, hi = round(fare * (1.0 - self.spread), 2), round(fare * (1.0 + self.spread), 2)
        return [
            RideEstimate(
                self.company, self.currency, duration_s, lo, hi, self.product_id, self.wheelchair
            )
        ]


# -- HTTP providers -------------------------------------------------------------------------
def _client_token(
    company: str, url: str, headers: Mapping[str, str], timeout_s: float, body: bytes
) -> tuple[str, float]:
    """An OAuth client-credentials token and when to renew it (a minute before it expires)."""
    status, doc = _http_json(company, url, headers, timeout_s, body)
    token = doc.get("access_token") if isinstance(doc, Mapping) else None
    if status >= 400 or not isinstance(token, str):
        msg = f"{company} refused the credentials (HTTP {status})"
        raise TncError(msg)
    expires = _float(doc.get("expires_in")) or 3600.0
    return token, time.monotonic() + max(expires - 60.0, 0.0)


def _http_json(
    company: str,
    url: str,
    headers: Mapping[str, str],
    timeout_s: float,
    body: bytes | None = None,
) -> tuple[int, Any]:
    """``(status, parsed JSON)``; raises :class:`TncError` for timeouts and unreadable answers."""
    req = urllib.request.Request(url, data=body, headers=dict(headers))
    try:
        with urllib.request.urlopen(req, timeout=timeout_s) as resp:
            status, raw = resp.status, resp.read(4 * 1024 * 1024)
    except urllib.error.HTTPError as exc:
        status, raw = exc.code, exc.read(1024 * 1024)
    except TimeoutError as exc:
        msg = f"{company} did not answer within {timeout_s:g} s ({url.split('?')[0]})"
        raise TncError(msg) from exc
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, TimeoutError | socket.timeout):
            msg = f"{company} did not answer within {timeout_s:g} s ({url.split('?')[0]})"
            raise TncError(msg) from exc
        msg = f"{company} cannot be reached: {exc.reason}"
        raise TncError(msg) from exc
    except OSError as exc:
        msg = f"{company} cannot be reached: {exc}"
        raise TncError(msg) from exc
    try:
        return status, json.loads(raw) if raw else None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        msg = f"{company} answered HTTP {status} with a body that is not JSON"
        raise TncError(msg) from exc


def _rows(company: str, doc: Any, key: str) -> list[Mapping[str, Any]]:
    rows = doc.get(key) if isinstance(doc, Mapping) else None
    if not isinstance(rows, list):
        msg = f"{company} answered without {key!r} (unexpected response format)"
        raise TncError(msg)
    return [r for r in rows if isinstance(r, Mapping)]


def _int(v: Any) -> int:
    return int(v) if isinstance(v, int | float) and not isinstance(v, bool) else 0


def _float(v: Any) -> float:
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else 0.0


class _TtlCache:
    """Answers kept ``ttl_s`` seconds, by rounded coordinates (OTP cached them 2 minutes)."""

    def __init__(self, ttl_s: float) -> None:
        self.ttl_s = ttl_s
        self._lock = threading.Lock()
        self._items: dict[tuple[Any, ...], tuple[float, Any]] = {}

    def get_or_fetch(self, key: tuple[Any, ...], fetch: Any) -> Any:
        if self.ttl_s <= 0:
            return fetch()
        key = tuple(round(k, 5) if isinstance(k, float) else k for k in key)
        now = time.monotonic()
        with self._lock:
            hit = self._items.get(key)
            if hit is not None and hit[0] > now:
                return hit[1]
        value = fetch()  # outside the lock: a slow provider does not block other places
        with self._lock:
            if len(self._items) > 4096:
                self._items = {k: v for k, v in self._items.items() if v[0] > now}
            self._items[key] = (now + self.ttl_s, value)
        return value


class UberProvider:
    """Company ``UBER``: the Uber Rides API v1.2 (``estimates/time``, ``estimates/price``)."""

    company = "UBER"

    def __init__(self, entry: Mapping[str, Any], where: str = "UBER") -> None:
        self.token = _str(entry, "serverToken", where)
        self.client_id = _str(entry, "clientId", where)
        self.client_secret = _str(entry, "clientSecret", where)
        if self.token is None and (self.client_id is None or self.client_secret is None):
            msg = f"{where}: give 'clientId' and 'clientSecret' (or a 'serverToken')"
            raise TncConfigError(msg)
        self.base_url = _base_url(entry, "https://api.uber.com/v1.2/", where)
        self.auth_url = _base_url(entry, "https://login.uber.com/", where, "authenticationUrl")
        self.timeout_s = _num(entry, "timeoutSec", _DEFAULT_TIMEOUT_S, where)
        self.wheelchair_type = _str(entry, "wheelChairAccessibleRideType", where)
        self._cache = _TtlCache(_num(entry, "cacheSec", _DEFAULT_CACHE_S, where))
        self._lock = threading.Lock()
        self._oauth: tuple[str, float] | None = None

    def _authorization(self) -> str:
        """``Token <serverToken>``, else an OAuth token as the ibi fork got it.

        ``POST {authenticationUrl}oauth/v2/token`` with the form ``client_id``,
        ``client_secret``, ``grant_type=client_credentials``, ``scope=ride_request.estimate``;
        the token is kept until shortly before ``expires_in``.
        """
        if self.token is not None:
            return f"Token {self.token}"
        with self._lock:
            if self._oauth is not None and time.monotonic() < self._oauth[1]:
                return f"Bearer {self._oauth[0]}"
            body = urllib.parse.urlencode(
                {
                    "client_id": self.client_id or "",
                    "client_secret": self.client_secret or "",
                    "grant_type": "client_credentials",
                    "scope": "ride_request.estimate",
                }
            ).encode()
            headers = {"Content-Type": "application/x-www-form-urlencoded"}
            self._oauth = _client_token(
                self.company, self.auth_url + "oauth/v2/token", headers, self.timeout_s, body
            )
            return f"Bearer {self._oauth[0]}"

    def _get(self, path: str, query: Mapping[str, float]) -> Any:
        key = (path, *query.values())
        return self._cache.get_or_fetch(key, lambda: self._fetch(path, query))

    def _fetch(self, path: str, query: Mapping[str, float]) -> Any:
        url = self.base_url + path + "?" + urllib.parse.urlencode(query)
        headers = {
            "Authorization": self._authorization(),
            "Accept-Language": "en_US",
            "Content-Type": "application/json",
        }
        status, doc = _http_json(self.company, url, headers, self.timeout_s)
        if status >= 400:
            detail = doc.get("message") if isinstance(doc, Mapping) else None
            msg = f"{self.company} answered HTTP {status}" + (f": {detail}" if detail else "")
            raise TncError(msg)
        return doc

    def _wheelchair(self, product: str) -> bool:
        return self.wheelchair_type is not None and product == self.wheelchair_type

    def eta(self, lat: float, lon: float) -> list[EtaEstimate]:
        """``GET estimates/time?start_latitude&start_longitude`` -> ``times``."""
        doc = self._get("estimates/time", {"start_latitude": lat, "start_longitude": lon})
        return [
            EtaEstimate(
                self.company,
                str(t.get("product_id", "")),
                str(t.get("localized_display_name") or t.get("display_name") or ""),
                _int(t.get("estimate")),
                self._wheelchair(str(t.get("product_id", ""))),
            )
            for t in _rows(self.company, doc, "times")
        ]

    def ride(
        self, from_lat: float, from_lon: float, to_lat: float, to_lon: float
    ) -> list[RideEstimate]:
        """``GET estimates/price?start_latitude...end_longitude`` -> ``prices``."""
        doc = self._get(
            "estimates/price",
            {
                "start_latitude": from_lat,
                "start_longitude": from_lon,
                "end_latitude": to_lat,
                "end_longitude": to_lon,
            },
        )
        return [
            RideEstimate(
                self.company,
                str(p.get("currency_code") or "undefined"),
                _int(p.get("duration")),
                _float(p.get("low_estimate")),
                _float(p.get("high_estimate")),
                str(p.get("product_id", "")),
                self._wheelchair(str(p.get("product_id", ""))),
            )
            for p in _rows(self.company, doc, "prices")
        ]


class LyftProvider:
    """Company ``LYFT``: Lyft's public API (OAuth client credentials, ``v1/eta``, ``v1/cost``)."""

    company = "LYFT"
    _NO_SERVICE = frozenset({"no_service_in_area", "ridetype_unavailable_in_region"})

    def __init__(self, entry: Mapping[str, Any], where: str = "LYFT") -> None:
        self.client_id = _str(entry, "clientId", where, required=True)
        self.client_secret = _str(entry, "clientSecret", where, required=True)
        self.base_url = _base_url(entry, "https://api.lyft.com/", where)
        self.timeout_s = _num(entry, "timeoutSec", _DEFAULT_TIMEOUT_S, where)
        self.wheelchair_type = _str(entry, "wheelChairAccessibleRideType", where)
        self._lock = threading.Lock()
        self._token: tuple[str, float] | None = None
        self._cache = _TtlCache(_num(entry, "cacheSec", _DEFAULT_CACHE_S, where))

    def _access_token(self) -> str:
        with self._lock:
            if self._token is not None and time.monotonic() < self._token[1]:
                return self._token[0]
            basic = base64.b64encode(f"{self.client_id}:{self.client_secret}".encode()).decode()
            body = json.dumps({"grant_type": "client_credentials", "scope": "public"}).encode()
            headers = {
                "Authorization": f"Basic {basic}",
                "Content-Type": "application/json;charset=UTF-8",
            }
            self._token = _client_token(
                self.company, self.base_url + "oauth/token", headers, self.timeout_s, body
            )
            return self._token[0]

    def _get(self, path: str, query: Mapping[str, float], key: str) -> list[Mapping[str, Any]]:
        cache_key = (path, *query.values())
        rows: list[Mapping[str, Any]] = self._cache.get_or_fetch(
            cache_key, lambda: self._fetch(path, query, key)
        )
        return rows

    def _fetch(self, path: str, query: Mapping[str, float], key: str) -> list[Mapping[str, Any]]:
        url = self.base_url + path + "?" + urllib.parse.urlencode(query)
        headers = {
            "Authorization": f"Bearer {self._access_token()}",
            "Content-Type": "application/json;charset=UTF-8",
        }
        status, doc = _http_json(self.company, url, headers, self.timeout_s)
        if status >= 400:
            err = doc.get("error") if isinstance(doc, Mapping) else None
            if err in self._NO_SERVICE:
                return []
            detail = doc.get("error_description") if isinstance(doc, Mapping) else None
            msg = f"{self.company} answered HTTP {status}: {detail or err or 'an error'}"
            raise TncError(msg)
        return _rows(self.company, doc, key)

    def _wheelchair(self, ride_type: str) -> bool:
        return self.wheelchair_type is not None and ride_type == self.wheelchair_type

    def eta(self, lat: float, lon: float) -> list[EtaEstimate]:
        """``GET v1/eta?lat&lng`` -> ``eta_estimates``."""
        rows = self._get("v1/eta", {"lat": lat, "lng": lon}, "eta_estimates")
        return [
            EtaEstimate(
                self.company,
                str(r.get("ride_type", "")),
                str(r.get("display_name", "")),
                _int(r.get("eta_seconds")),
                self._wheelchair(str(r.get("ride_type", ""))),
            )
            for r in rows
            if r.get("is_valid_estimate", True) is not False
        ]

    def ride(
        self, from_lat: float, from_lon: float, to_lat: float, to_lon: float
    ) -> list[RideEstimate]:
        """``GET v1/cost?start_lat...end_lng`` -> ``cost_estimates`` (cents -> units)."""
        rows = self._get(
            "v1/cost",
            {"start_lat": from_lat, "start_lng": from_lon, "end_lat": to_lat, "end_lng": to_lon},
            "cost_estimates",
        )
        return [
            RideEstimate(
                self.company,
                str(r.get("currency") or "undefined"),
                _int(r.get("estimated_duration_seconds")),
                _float(r.get("estimated_cost_cents_min")) / 100.0,
                _float(r.get("estimated_cost_cents_max")) / 100.0,
                str(r.get("ride_type", "")),
                self._wheelchair(str(r.get("ride_type", ""))),
            )
            for r in rows
            if r.get("is_valid_estimate", True) is not False
        ]


_SOURCES: Mapping[str, type[NoApiProvider] | type[UberProvider] | type[LyftProvider]] = {
    "no-api": NoApiProvider,
    "uber": UberProvider,
    "lyft": LyftProvider,
}


#: The ``type`` of OTP 1.x's (ibi fork's) ride-hail entries in the ``updaters`` list.
TNC_UPDATER_TYPE = "transportation-network-company-updater"


def tnc_entries(router_config: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The ride-hail entries of a ``router-config.json``, each with where it was written.

    OTP 1.x's place is the ``updaters`` list (``"type":
    "transportation-network-company-updater"``, :data:`TNC_UPDATER_TYPE`);
    ``transportationNetworkCompanies`` (a list of the same entries) is read too.

    Raises
    ------
    TncConfigError
        ``transportationNetworkCompanies`` is not a list.
    """
    out: list[tuple[str, Any]] = []
    updaters = router_config.get("updaters")
    if isinstance(updaters, list):  # otpa.updaters reports a malformed list
        for i, entry in enumerate(updaters):
            if isinstance(entry, Mapping) and entry.get("type") == TNC_UPDATER_TYPE:
                out.append((f"updaters[{i}]", entry))
    entries = router_config.get("transportationNetworkCompanies")
    if entries is not None:
        if not isinstance(entries, list):
            msg = "transportationNetworkCompanies must be a list"
            raise TncConfigError(msg)
        out.extend((f"transportationNetworkCompanies[{i}]", e) for i, e in enumerate(entries))
    return out


def tnc_provider(entry: Any, where: str) -> TncProvider:
    """The provider of one ride-hail entry (``where`` names it in errors).

    Raises
    ------
    TncConfigError
        The entry is not an object, its ``sourceType`` is unknown or a field is unusable.
    """
    if not isinstance(entry, Mapping):
        msg = f"{where}: an entry is a JSON object"
        raise TncConfigError(msg)
    source = entry.get("sourceType")
    cls = _SOURCES.get(str(source).lower()) if isinstance(source, str) else None
    if cls is None:
        msg = f"{where}: sourceType {source!r} is not one of {', '.join(_SOURCES)}"
        raise TncConfigError(msg)
    return cls(entry, where)


def tnc_providers(router_config: Mapping[str, Any]) -> dict[str, TncProvider]:
    """The providers of a ``router-config.json``, by company (empty without any entry).

    Entries are read from ``updaters`` (OTP 1.x's ``transportation-network-company-updater``)
    and ``transportationNetworkCompanies`` (:func:`tnc_entries`).

    Raises
    ------
    TncConfigError
        ``transportationNetworkCompanies`` is not a list, or an entry is unusable (the
        message names ``updaters[i]`` or ``transportationNetworkCompanies[i]`` and the
        field), or a company is configured twice.
    """
    out: dict[str, TncProvider] = {}
    for where, entry in tnc_entries(router_config):
        provider = tnc_provider(entry, where)
        if provider.company in out:
            msg = f"{where}: company {provider.company} is configured twice"
            raise TncConfigError(msg)
        out[provider.company] = provider
    return out


def _select(
    providers: Mapping[str, TncProvider], companies: Sequence[str] | None
) -> list[TncProvider]:
    if companies is None:
        return list(providers.values())
    out = []
    for name in companies:
        key = name.strip().upper()
        if key not in providers:
            configured = ", ".join(sorted(providers)) or "none"
            msg = f"company {key} is not configured for this router (configured: {configured})"
            raise TncError(msg)
        out.append(providers[key])
    return out


def estimate_eta(
    router_config: Mapping[str, Any] | Mapping[str, TncProvider],
    lat: float,
    lon: float,
    companies: Sequence[str] | None = None,
) -> list[EtaEstimate]:
    """Arrival estimates at a place from every configured company (or ``companies``).

    Parameters
    ----------
    router_config
        The parsed ``router-config.json``, or providers from :func:`tnc_providers`.
    lat, lon
        The pick-up place.
    companies
        Company names (``UBER``, ``LYFT``, ``NOAPI``); None: all configured.

    Raises
    ------
    TncError
        A company is not configured, or its provider failed (timeout, HTTP error).
    TncConfigError
        The configuration is unusable.
    """
    providers = _providers(router_config)
    out: list[EtaEstimate] = []
    for provider in _select(providers, companies):
        out.extend(provider.eta(lat, lon))
    return out


def estimate_ride(
    router_config: Mapping[str, Any] | Mapping[str, TncProvider],
    from_lat: float,
    from_lon: float,
    to_lat: float,
    to_lon: float,
    companies: Sequence[str] | None = None,
) -> list[RideEstimate]:
    """Ride estimates between two places (see :func:`estimate_eta` for the arguments)."""
    providers = _providers(router_config)
    out: list[RideEstimate] = []
    for provider in _select(providers, companies):
        out.extend(provider.ride(from_lat, from_lon, to_lat, to_lon))
    return out


def _providers(
    router_config: Mapping[str, Any] | Mapping[str, TncProvider],
) -> Mapping[str, TncProvider]:
    if all(hasattr(v, "eta") and hasattr(v, "ride") for v in router_config.values()) and not (
        {"transportationNetworkCompanies", "updaters"} & set(router_config)
    ):
        return router_config  # already providers (an empty mapping is both: no provider)
    return tnc_providers(router_config)


# -- per-router providers (set when a router is loaded) -------------------------------------
_ROUTER_TNC: weakref.WeakKeyDictionary[Any, tuple[Mapping[str, TncProvider], str | None]] = (
    weakref.WeakKeyDictionary()
)
_ROUTER_TNC_LOCK = threading.Lock()


def configure_tnc(network: Any, router_config: Mapping[str, Any]) -> str | None:
    """Read a router's ride-hail entries and keep its providers for ``network``.

    Returns
    -------
    str or None
        Why the configuration is unusable (then the router has no provider and
        :func:`tnc_for` raises), or None.
    """
    try:
        providers, error = tnc_providers(router_config), None
    except TncConfigError as exc:
        providers, error = {}, str(exc)
    with _ROUTER_TNC_LOCK:
        _ROUTER_TNC[network] = (providers, error)
    return error


def tnc_for(network: Any) -> Mapping[str, TncProvider]:
    """The TNC providers of a router's network (empty when none is configured).

    Raises
    ------
    TncConfigError
        Its ride-hail configuration was unusable.
    """
    with _ROUTER_TNC_LOCK:
        try:
            providers, error = _ROUTER_TNC.get(network, ({}, None))
        except TypeError:  # not weakly referenceable: never configured
            providers, error = {}, None
    if error is not None:
        raise TncConfigError(error)
    return providers
