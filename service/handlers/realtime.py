"""Alert patches (``/patch``) and real-time vehicle positions (``/index/.../vehicles``).

Alert patches, OTP 1.x's ``PatchResource`` (reference section 5.7), under
``/otp/routers/{routerId}/patch`` and, for the default router, ``/otp/patch``:

* ``GET .../patch/stopPatches?agency={feedId}&id={stopId}`` and
  ``GET .../patch/routePatches?agency={feedId}&id={routeId}``: ``{"alertPatches": [...]}``
  (the field is omitted when there is none), JSON or XML;
* ``POST .../patch/patch`` with an ``AlertPatchSet`` body (JSON, or XML):
  ``{"status": "OK"}``, or OTP's refusals ``Every patch must have an id`` and
  ``Every route patch must have a route id`` (HTTP 200, as OTP; nothing is stored
  when one patch is refused).  It needs the ``user`` role (OTP's
  ``@RolesAllowed("user")``).  Patches persist in the router folder and are shown on
  legs exactly like GTFS-RT alerts.

Vehicle positions (ibi's ``RealtimeVehiclePosition``), from the router's
``vehicle-positions`` updaters: ``GET .../index/routes/{routeId}/vehicles`` and
``GET .../index/patterns/{patternId}/vehicles``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

import defusedxml.ElementTree as SafeET
import tornado.web
from tornado.routing import URLSpec

from otpa.errors import UnknownIdError
from otpa.index import TransitIndex
from otpa.realtime import (
    AlertPatchError,
    VehiclePosition,
    current_vehicles,
    patch_to_json,
    patches_from_json,
)
from service.handlers.base import BaseHandler, ServiceContext
from service.openapi import Operation, Param
from service.otp1.errors import ApiError
from service.updaters import UpdaterManager

__all__ = ["ROLE_PATCHES", "realtime_urls"]

#: The role that may post alert patches (OTP 1.x's ``@RolesAllowed("user")``).
ROLE_PATCHES = "user"
_ROUTER = r"/otp/routers/([^/]+)"
_NUMBERS = frozenset(
    {"startTime", "endTime", "directionId", "routeType", "effectiveStartDate", "effectiveEndDate"}
)
_LISTS = frozenset({"alertPatches", "timePeriods"})
_FILTER = (
    Param("agency", {"type": "string"}, "feed id", required=True),
    Param("id", {"type": "string"}, "the stop or route id within the feed", required=True),
)


class _RealtimeBase(BaseHandler):
    def initialize(self, ctx: ServiceContext, updaters: UpdaterManager) -> None:  # type: ignore[override]
        super().initialize(ctx)
        self.manager = updaters


#: Deepest XML element nesting read (an AlertPatchSet needs 4).
_MAX_XML_DEPTH = 8


def _xml_value(element: Any, depth: int = 0) -> Any:
    """A JAXB-style XML element as JSON-like data (repeated or list elements as lists)."""
    if depth > _MAX_XML_DEPTH:
        raise ApiError(400, "The XML body is nested too deeply for an AlertPatchSet.")
    children = list(element)
    if not children:
        text = (element.text or "").strip()
        if element.tag in _NUMBERS:
            try:
                return int(text)
            except ValueError:
                return text
        return text
    out: dict[str, Any] = {}
    for child in children:
        value = _xml_value(child, depth + 1)
        if child.tag in _LISTS:
            out.setdefault(child.tag, []).append(value)
        else:
            out[child.tag] = value
    return out


class PatchListHandler(_RealtimeBase):
    """``GET .../patch/stopPatches`` and ``.../patch/routePatches``."""

    openapi: ClassVar[dict[str, Operation]] = {
        "get": Operation(
            "The alert patches of a stop or route: {alertPatches: [AlertPatch]}",
            query=(*_FILTER, Param("locale", {"type": "string"}, "texts in this language")),
            xml=True,
        )
    }

    def initialize(self, ctx: ServiceContext, updaters: UpdaterManager, kind: str) -> None:  # type: ignore[override]
        super().initialize(ctx, updaters)
        self.kind = kind

    def get(self, router_id: str = "default") -> None:
        """The patches about one stop or route (``agency`` is the feed id)."""
        canonical, _ = self.registry.lookup(router_id)
        feed = self.get_query_argument("agency", None)
        ident = self.get_query_argument("id", None)
        if not feed or not ident:
            raise ApiError(400, "Give the agency (feed id) and id query parameters.")
        wanted = f"{feed}:{ident}"
        locale = self.get_query_argument("locale", None)
        found = [
            patch_to_json(p, locale)
            for p in self.manager.patches(canonical)
            if any(getattr(e, self.kind) == wanted for e in p.entities)
        ]
        body: dict[str, Any] = {"alertPatches": found} if found else {}
        self.respond("alertPatchResponse", body)


class PatchPostHandler(_RealtimeBase):
    """``POST .../patch/patch``: store alert patches (role ``user``)."""

    openapi: ClassVar[dict[str, Operation]] = {
        "post": Operation(
            "Store alert patches (user role): {status}; OTP's refusals are HTTP 200 too",
            request_body=("application/json", "application/xml"),
            xml=True,
            errors=(400, 401, 403, 404, 415),
        )
    }

    async def prepare(self) -> None:
        """Authenticate."""
        await self.require_role(ROLE_PATCHES)

    def _body(self) -> Any:
        media = self.request.headers.get("Content-Type", "").partition(";")[0].strip().lower()
        raw = self.request.body
        try:
            if media in ("application/xml", "text/xml"):
                root = SafeET.fromstring(raw)
                value = _xml_value(root)
                return value if isinstance(value, dict) else {}
            if media in ("application/json", ""):
                return json.loads(raw or b"null")
        except (ValueError, RecursionError, SafeET.ParseError) as exc:  # defusedxml: ValueError
            raise ApiError(400, f"The body is not a valid AlertPatchSet: {exc}") from None
        raise ApiError(415, "Send the AlertPatchSet as application/json or application/xml.")

    async def post(self, router_id: str = "default") -> None:
        """Check every patch, then store them all (or none) and publish them."""
        canonical, network = self.registry.lookup(router_id)
        body = self._body()
        if isinstance(body, Mapping) and isinstance(body.get("alertPatches"), list):
            try:
                patches = patches_from_json(body, network.transit)
            except AlertPatchError as exc:
                self.respond("alertPatchResponse", {"status": str(exc)})
                return
        else:
            raise ApiError(400, 'The body is an AlertPatchSet: {"alertPatches": [...]}.')
        try:
            await self.run_blocking(self.manager.add_patches, canonical, network, patches)
        except AlertPatchError as exc:
            raise ApiError(409, str(exc)) from None
        self.respond("alertPatchResponse", {"status": "OK"})


def vehicle_json(v: VehiclePosition, pattern_id: str | None) -> dict[str, Any]:
    """One ``RealtimeVehiclePosition`` (ibi's field names; ``tripId``/``routeId`` added)."""
    return {
        "vehicleId": v.vehicle_id,
        "label": v.label,
        "lat": v.lat,
        "lon": v.lon,
        "speed": v.speed,
        "heading": v.heading,
        "seconds": v.seconds,
        "patternId": pattern_id,
        "tripId": v.trip_id,
        "routeId": v.route_id,
        "stopStatus": v.stop_status,
        "nextStopName": v.next_stop_name,
        "nextStopId": v.next_stop_id,
        "nextStopSequenceId": v.next_stop_sequence,
        "congestionLevel": v.congestion_level,
    }


class VehiclesHandler(BaseHandler):
    """``GET .../index/routes/{routeId}/vehicles`` and ``.../patterns/{patternId}/vehicles``."""

    openapi: ClassVar[dict[str, Operation]] = {
        "get": Operation("Real-time vehicle positions (vehicle-positions updaters)")
    }

    def initialize(self, ctx: ServiceContext, kind: str) -> None:  # type: ignore[override]
        super().initialize(ctx)
        self.kind = kind

    def _vehicles(self, router_id: str, ident: str) -> list[dict[str, Any]]:
        _, network = self.registry.lookup(router_id)
        index = TransitIndex.of(network)
        vehicles = current_vehicles(network)
        try:
            if self.kind == "route":
                route = index.get_route(ident)
                patterns = index.find_patterns(route_id=route.id)
                found = vehicles.on_route(route.id)
            else:
                pattern = index.get_pattern(ident)
                patterns = [pattern]
                found = vehicles.on_trips(pattern.trip_ids)
        except UnknownIdError:
            raise ApiError(404, "FOUR ZERO FOUR") from None
        pattern_of = {t: p.id for p in patterns for t in p.trip_ids}
        return [vehicle_json(v, pattern_of.get(v.trip_id or "")) for v in found]

    async def get(self, router_id: str, ident: str) -> None:
        """The vehicles of the route or pattern (empty when none is reported)."""
        self.write_json(await self.run_blocking(self._vehicles, router_id, ident))


def realtime_urls(args: dict[str, Any], manager: UpdaterManager) -> list[URLSpec]:
    """The URL rules of the patch and vehicle endpoints."""
    kwargs = {**args, "updaters": manager}
    stops, routes = {**kwargs, "kind": "stop"}, {**kwargs, "kind": "route"}
    urls: list[URLSpec] = []
    for prefix in (rf"{_ROUTER}/patch", r"/otp/patch"):
        urls += [
            tornado.web.url(rf"{prefix}/stopPatches/?", PatchListHandler, stops),
            tornado.web.url(rf"{prefix}/routePatches/?", PatchListHandler, routes),
            tornado.web.url(rf"{prefix}/patch/?", PatchPostHandler, kwargs),
        ]
    index = rf"{_ROUTER}/index"
    by_route, by_pattern = {**args, "kind": "route"}, {**args, "kind": "pattern"}
    urls += [
        tornado.web.url(rf"{index}/routes/([^/]+)/vehicles/?", VehiclesHandler, by_route),
        tornado.web.url(rf"{index}/patterns/([^/]+)/vehicles/?", VehiclesHandler, by_pattern),
    ]
    return urls
