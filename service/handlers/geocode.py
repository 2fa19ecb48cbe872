"""Geocoding endpoints: the built-in geocoder, the external geocoder and the municoder.

* ``GET /otp/routers/{routerId}/geocode?query=&autocomplete=&stops=&clusters=&corners=``
  (OTP 1.x's Lucene geocoder): a JSON array of at most 10 ``{lat, lng,
  description, id}``, from the router's :class:`otpa.geocode.GeocodeIndex`.
  ``places`` (an otpa extension: named OSM places) follows ``corners`` unless given.
* ``GET /otp/geocode?address=&bbox=minLat,minLon,maxLat,maxLon``: OTP's
  ``GeocoderResults`` ``{results: [{lat, lng, description}], count}`` from the
  configured backend (:mod:`service.geocoding`); ``no address`` and a bad bbox
  are 400, a failing backend 502 with ``error`` set.
* ``GET /otp/municoder?location=lat,lon[&callback=name]``: ``{"name": ...}`` (or
  ``{}``) of the default router's municipality boundaries; JSONP when
  ``callback`` is a plain JavaScript identifier path (anything else is a 400).
"""

from __future__ import annotations

import math
import re
from typing import Any, ClassVar

from tornado.routing import URLSpec
from tornado.web import url

from otpa.errors import InvalidArgumentError
from otpa.geocode import MAX_RESULTS, GeocodeQueryError
from service.geocoding import Geocoder, GeocoderUnavailableError, make_geocoder
from service.handlers.base import BaseHandler, ServiceContext
from service.openapi import Operation, Param
from service.otp1.errors import ApiError
from service.otp1.serialize import dumps_json

__all__ = ["geocode_urls", "parse_bbox", "valid_callback"]

_CALLBACK = re.compile(r"^[A-Za-z_$][\w$]{0,63}(?:\.[A-Za-z_$][\w$]{0,63}){0,7}$", re.ASCII)
_RESERVED = frozenset(
    [
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "debugger",
        "default",
        "delete",
        "do",
        "else",
        "export",
        "extends",
        "finally",
        "for",
        "function",
        "if",
        "import",
        "in",
        "instanceof",
        "new",
        "return",
        "super",
        "switch",
        "this",
        "throw",
        "try",
        "typeof",
        "var",
        "void",
        "while",
        "with",
        "yield",
        "let",
        "static",
        "enum",
        "await",
        "implements",
        "package",
        "protected",
        "interface",
        "private",
        "public",
        "null",
        "true",
        "false",
        "eval",
        "arguments",
    ]
)
_LAT_LON = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$")
_LAT_MAX, _LON_MAX = 90.0, 180.0


def geocode_urls(args: dict[str, Any]) -> list[URLSpec]:
    """The URL table rows of the geocoding endpoints (``args`` holds ``ctx``)."""
    external = {**args, "geocoder": make_geocoder(args["ctx"].config, args["ctx"].registry)}
    return [
        url(r"/otp/routers/([^/]+)/geocode/?", RouterGeocodeHandler, args),
        url(r"/otp/geocode/?", ExternalGeocodeHandler, external),
        url(r"/otp/municoder/?", MunicoderHandler, args),
    ]


def valid_callback(name: str) -> bool:
    """Whether a JSONP callback is a safe identifier path (``cb``, ``jQuery123.cb``).

    Examples
    --------
    >>> valid_callback("jQuery1102_1700000000.done")
    True
    >>> valid_callback("alert(1);x")
    False
    >>> valid_callback("eval")
    False
    """
    return bool(_CALLBACK.match(name)) and not any(p in _RESERVED for p in name.split("."))


def parse_bbox(raw: str) -> tuple[float, float, float, float]:
    """``minLat,minLon,maxLat,maxLon`` -> floats; ValueError when it is not a box on Earth.

    Examples
    --------
    >>> parse_bbox("49.4,8.4,49.5,8.6")
    (49.4, 8.4, 49.5, 8.6)
    """
    parts = raw.split(",")
    if len(parts) != 4:
        msg = "bbox must be minLat,minLon,maxLat,maxLon"
        raise InvalidArgumentError(msg)
    min_lat, min_lon, max_lat, max_lon = (float(p) for p in parts)
    ok = all(math.isfinite(v) for v in (min_lat, min_lon, max_lat, max_lon))
    if not (
        ok
        and -_LAT_MAX <= min_lat <= max_lat <= _LAT_MAX
        and -_LON_MAX <= min_lon <= max_lon <= _LON_MAX
    ):
        msg = "bbox must be minLat,minLon,maxLat,maxLon within -90..90 / -180..180, min <= max"
        raise InvalidArgumentError(msg)
    return min_lat, min_lon, max_lat, max_lon


class RouterGeocodeHandler(BaseHandler):
    """``/otp/routers/{routerId}/geocode`` (see the module docstring)."""

    openapi: ClassVar[dict[str, Operation]] = {
        "get": Operation(
            "Search the router's built-in geocoder (stops, clusters, corners, places)",
            query=(
                Param("query", {"type": "string", "minLength": 1}, "the text", required=True),
                Param("autocomplete", {"type": "boolean", "default": False}),
                Param("stops", {"type": "boolean", "default": True}),
                Param("clusters", {"type": "boolean", "default": False}),
                Param("corners", {"type": "boolean", "default": True}),
                Param("places", {"type": "boolean"}, "default: as corners"),
            ),
            errors=(400, 404, 501),
        )
    }

    async def get(self, router_id: str) -> None:
        """Search the router's geocoder index."""
        _, network = self.registry.lookup(router_id)
        query = self.get_query_argument("query", "")
        if not query.strip():
            raise ApiError(400, "Query parameter query is required (the text to look up).")
        autocomplete = self.bool_argument("autocomplete", False)
        corners = self.bool_argument("corners", True)
        switches = {
            "stops": self.bool_argument("stops", True),
            "clusters": self.bool_argument("clusters", False),
            "corners": corners,
            "places": self.bool_argument("places", corners),
        }
        index_of = getattr(network, "geocoder", None)
        if index_of is None:
            raise ApiError(501, "This router's network has no geocoder.")
        try:
            index = await self.run_blocking(index_of)  # built on first use for old graphs
            found = index.search(query, autocomplete=autocomplete, limit=MAX_RESULTS, **switches)
        except GeocodeQueryError as exc:
            raise ApiError(400, str(exc)) from None
        self.write_json([r.to_otp() for r in found])


class ExternalGeocodeHandler(BaseHandler):
    """``/otp/geocode`` (see the module docstring)."""

    openapi: ClassVar[dict[str, Operation]] = {
        "get": Operation(
            "Geocode an address with the configured backend ({results, count})",
            query=(
                Param("address", {"type": "string", "minLength": 1}, required=True),
                Param("bbox", {"type": "string"}, "minLat,minLon,maxLat,maxLon"),
            ),
            errors=(400,),
            other=((502, None),),
        )
    }

    def initialize(self, ctx: ServiceContext, geocoder: Geocoder) -> None:  # type: ignore[override]
        """Receive the context and the configured backend."""
        super().initialize(ctx)
        self._geocoder = geocoder

    async def get(self) -> None:
        """Geocode an address with the configured backend."""
        address = self.get_query_argument("address", "")
        if not address.strip():
            raise ApiError(400, "no address")
        raw_bbox = self.get_query_argument("bbox", None)
        bbox = None
        if raw_bbox:
            try:
                bbox = parse_bbox(raw_bbox)
            except ValueError as exc:
                raise ApiError(400, f"bad bbox {raw_bbox[:80]!r}: {exc}") from None
        try:
            results = await self._geocoder.geocode(address, bbox)
        except ValueError as exc:  # the built-in index refused the query
            raise ApiError(400, str(exc)) from None
        except GeocoderUnavailableError as exc:
            self.write_json({"error": str(exc), "results": [], "count": 0}, status=502)
            return
        self.write_json({"results": results, "count": len(results)})


class MunicoderHandler(BaseHandler):
    """``/otp/municoder`` (see the module docstring)."""

    openapi: ClassVar[dict[str, Operation]] = {
        "get": Operation(
            "The municipality at a location ({name}; JSONP with callback)",
            query=(
                Param("location", {"type": "string"}, "lat,lon", required=True),
                Param("callback", {"type": "string"}, "a JavaScript identifier (JSONP)"),
            ),
            errors=(400,),
        )
    }

    def get(self) -> None:
        """Name the municipality at a location."""
        callback = self.get_query_argument("callback", None)
        if callback is not None and not valid_callback(callback):
            raise ApiError(400, "callback must be a JavaScript identifier (letters, digits, _ $ .)")
        raw = self.get_query_argument("location", "")
        match = _LAT_LON.match(raw)
        lat = float(match.group(1)) if match else math.nan
        lon = float(match.group(2)) if match else math.nan
        if not (abs(lat) <= _LAT_MAX and abs(lon) <= _LON_MAX):
            raise ApiError(400, "location must be lat,lon (decimal degrees on Earth)")
        network = self.registry.get("default")
        index = getattr(network, "municipalities", None)
        found = index.locate(lat, lon) if index is not None else None
        body = {"name": found.name} if found is not None else {}
        if callback is None:
            self.write_json(body)
            return
        self.set_header("Content-Type", "application/javascript; charset=UTF-8")
        self.set_header("X-Content-Type-Options", "nosniff")
        self.finish(b"/**/" + callback.encode("ascii") + b"(" + dumps_json(body) + b");")
