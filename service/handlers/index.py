"""``/otp/routers/{routerId}/index/...``: OTP 1.x's transit index API and its GraphQL endpoint.

One :class:`IndexHandler` serves every GET endpoint: the URL table
(:data:`INDEX_PATHS`) names the view method each path runs.  A view parses
its query parameters (400 on malformed ones), calls :class:`otpa.index.TransitIndex`
and maps the result with :mod:`service.otp1.index_models`; it runs in a worker
thread, because building the index and timetable lookups are CPU work.
Unknown ids raise :class:`otpa.errors.UnknownIdError`, answered 404.

Common query parameters: ``detail`` (full beans instead of short forms in
lists) and ``refs`` (short forms carry the ids they refer to).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar

import tornado.web
from tornado.routing import URLSpec

from otpa.errors import InvalidArgumentError
from otpa.index import Pattern, Route, Stop, StopTimesInPattern, TransitIndex, Trip
from otpa.realtime import (
    added_trip,
    added_trip_times,
    current_snapshot,
    realtime_stop_times,
    realtime_trip_times,
)
from service.graphql import GraphQLRequestError, graphql_error_body, parse_request, run_query
from service.handlers.base import BaseHandler, ServiceContext
from service.openapi import Operation, Param
from service.otp1 import index_models as m
from service.otp1.errors import ApiError
from service.otp1.serialize import dumps_json

if TYPE_CHECKING:
    from otpa.network import TransportNetwork

__all__ = ["INDEX_PATHS", "MAX_RADIUS_M", "GraphQLHandler", "IndexHandler", "index_urls"]

#: Circle searches are capped at this radius (metres), as OTP 1.x did.
MAX_RADIUS_M = 5000.0
_PREFIX = r"/otp/routers/([^/]+)/index"
_ID = "([^/]+)"
_DATE = re.compile(r"\d{8}")
_MAX_DIGITS = 100  # longer numbers are out of every range below (and slow to convert)
#: Ranges of the stoptimes parameters: ``startTime`` (epoch seconds) before the year
#: 9998, ``timeRange`` up to a year, at most 10,000 departures per pattern.
STOPTIMES_RANGES = {
    "startTime": (0, 253_339_228_800),
    "timeRange": (0, 366 * 86_400),
    "numberOfDepartures": (0, 10_000),
}
#: Path under the index prefix -> view method (``_<name>``) of IndexHandler.
INDEX_PATHS: tuple[tuple[str, str], ...] = (
    ("/feeds", "feeds"),
    (f"/feeds/{_ID}", "feed"),
    (f"/agencies/{_ID}", "agencies"),
    (f"/agencies/{_ID}/{_ID}", "agency"),
    (f"/agencies/{_ID}/{_ID}/routes", "agency_routes"),
    ("/routes", "routes"),
    (f"/routes/{_ID}", "route"),
    (f"/routes/{_ID}/patterns", "route_patterns"),
    (f"/routes/{_ID}/stops", "route_stops"),
    (f"/routes/{_ID}/trips", "route_trips"),
    ("/patterns", "patterns"),
    (f"/patterns/{_ID}", "pattern"),
    (f"/patterns/{_ID}/trips", "pattern_trips"),
    (f"/patterns/{_ID}/stops", "pattern_stops"),
    (f"/patterns/{_ID}/geometry", "pattern_geometry"),
    (f"/patterns/{_ID}/semanticHash", "pattern_hash"),
    (f"/trips/{_ID}", "trip"),
    (f"/trips/{_ID}/stops", "trip_stops"),
    (f"/trips/{_ID}/stoptimes", "trip_stoptimes"),
    (f"/trips/{_ID}/geometry", "trip_geometry"),
    (f"/trips/{_ID}/semanticHash", "trip_hash"),
    ("/stops", "stops"),
    (f"/stops/{_ID}", "stop"),
    (f"/stops/{_ID}/routes", "stop_routes"),
    (f"/stops/{_ID}/patterns", "stop_patterns"),
    (f"/stops/{_ID}/transfers", "stop_transfers"),
    (f"/stops/{_ID}/stoptimes", "stop_stoptimes"),
    (f"/stops/{_ID}/stoptimes/{_ID}", "stop_stoptimes_date"),
    ("/clusters", "clusters"),
    (f"/clusters/{_ID}", "cluster"),
    ("/flexAreas", "flex_areas"),
    (f"/flexAreas/{_ID}", "flex_area"),
    ("/services", "services"),
    (f"/services/{_ID}", "service"),
)


_BOOL = {"type": "boolean", "default": False}
_DETAIL = Param("detail", _BOOL, "full objects instead of short forms in lists")
_REFS = Param("refs", _BOOL, "short forms carry the ids they refer to")
_LISTS = (_DETAIL, _REFS)


def _stoptimes_range(name: str, default: int, description: str) -> Param:
    low, high = STOPTIMES_RANGES[name]
    schema = {"type": "integer", "minimum": low, "maximum": high, "default": default}
    return Param(name, schema, description)


def _number(name: str, description: str) -> Param:
    return Param(name, {"type": "number"}, description)


def _index_doc(view: str) -> Operation:
    """The OpenAPI description of one index view (summary, query parameters, body)."""
    words = view.replace("_", " ")
    text = {"flex_area": "flex area", "flex_areas": "flex areas"}.get(view, words)
    # lists: short forms, or full beans with detail=true
    lists = {
        "routes": "RouteShort|Route",
        "stops": "StopShort|Stop",
        "trips": "TripShort|Trip",
        "patterns": "PatternShort|Pattern",
    }
    last = view.rsplit("_", 1)[-1]
    query: tuple[Param, ...] = ()
    response = f"array:{lists[last]}" if last in lists else None
    media = "application/json"
    if view == "routes":
        query = (Param("hasStop", {"type": "string"}, "only routes serving this stop"),)
    elif view == "route_patterns":
        query = (Param("includeGeometry", _BOOL, "each pattern's geometry"),)
    elif view == "stops":
        query = (
            _number("lat", "circle search: centre latitude"),
            _number("lon", "circle search: centre longitude"),
            _number("radius", f"circle search: metres (capped at {MAX_RADIUS_M:g})"),
            _number("minLat", "box search"),
            _number("minLon", "box search"),
            _number("maxLat", "box search"),
            _number("maxLon", "box search"),
            Param("includeStopTimes", _BOOL, "each stop's next departures"),
            Param("includeRoutes", _BOOL, "each stop's routes"),
        )
    elif view == "stop_stoptimes":
        query = (
            _stoptimes_range("startTime", 0, "epoch seconds; 0 = now"),
            _stoptimes_range("timeRange", 86_400, "seconds after startTime"),
            _stoptimes_range("numberOfDepartures", 2, "per pattern"),
            Param("omitNonPickups", _BOOL, "leave out departures without pick-up"),
        )
    elif view == "stop_stoptimes_date":
        query = (Param("omitNonPickups", _BOOL, "leave out departures without pick-up"),)
    elif view.endswith("_hash"):
        media = "text/plain"
    elif view in ("route", "stop", "trip", "pattern"):
        response = view.capitalize()
    if response is not None and response.startswith("array:"):
        query = (*query, *_LISTS)
    # booleans are read with bool_argument and numbers with _number: an empty value is
    # the parameter left out (as OTP 1.x's binding took it), and the document says so
    query = tuple(
        replace(p, empty_is_absent=True) if p.schema.get("type") != "string" else p for p in query
    )
    return Operation(
        summary=f"Transit index: {text}", query=query, response=response, media_type=media
    )


def index_urls(args: dict[str, Any]) -> list[URLSpec]:
    """The URL rules of the index API (to add to the application's table)."""
    urls = [
        tornado.web.url(f"{_PREFIX}{path}/?", IndexHandler, {**args, "view": view})
        for path, view in INDEX_PATHS
    ]
    urls.append(tornado.web.url(f"{_PREFIX}/graphql/?", GraphQLHandler, args))
    return urls


@dataclass(frozen=True)
class _Text:
    """A raw text answer (OTP wrote plain strings unquoted)."""

    text: str


class IndexHandler(BaseHandler):
    """Every GET endpoint of ``/otp/routers/{routerId}/index`` (see the module docstring)."""

    view: str

    @classmethod
    def openapi_for(cls, kwargs: dict[str, Any]) -> dict[str, Operation]:
        """The OpenAPI description of the view a URL rule runs (see :mod:`service.openapi`)."""
        return {"get": _index_doc(str(kwargs.get("view", "")))}

    def initialize(self, ctx: ServiceContext, view: str = "") -> None:  # type: ignore[override]
        """Receive the service context and the name of the view this path runs."""
        super().initialize(ctx)
        self.view = view

    async def get(self, router_id: str, *ids: str) -> None:
        """Run the view in a worker thread and write its JSON (or raw text) answer."""
        _, network = self.registry.lookup(router_id)
        _ = self._detail, self._refs  # malformed booleans are a 400 on every view
        reply = await self.run_blocking(self._answer, network, ids)
        if isinstance(reply, _Text):
            self.write_text(reply.text)
        else:
            self.write_json(reply)

    def _answer(self, network: TransportNetwork, ids: Sequence[str]) -> Any:
        index = TransitIndex.of(network)
        # stop times show the real-time snapshot current when the request started
        self._network, self._realtime = network, current_snapshot(network)
        return getattr(self, f"_{self.view}")(index, *ids)

    def _rt_times(
        self, found: Sequence[StopTimesInPattern], **added: Any
    ) -> list[StopTimesInPattern]:
        """The real-time state; ``added``: the stop and window or date of added trips."""
        return realtime_stop_times(self._network, self._realtime, found, **added)

    # -- parameters ---------------------------------------------------------------------------

    @property
    def _detail(self) -> bool:
        return self.bool_argument("detail", default=False)

    @property
    def _refs(self) -> bool:
        return self.bool_argument("refs", default=False)

    def _number(self, name: str, kind: type[int] | type[float]) -> Any:
        raw = self.get_query_argument(name, None)
        if raw is None or raw.strip() == "":
            return None
        try:
            if len(raw.strip()) > _MAX_DIGITS:
                raise InvalidArgumentError(raw)
            value = kind(raw.strip())
        except ValueError:
            what = "an integer" if kind is int else "a number"
            raise ApiError(400, f"Query parameter {name}={raw[:40]!r} is not {what}.") from None
        if not math.isfinite(value):
            raise ApiError(400, f"Query parameter {name}={raw[:40]!r} is not a finite number.")
        return value

    def _int(self, name: str, default: int) -> int:
        value = self._number(name, int)
        if value is None:
            return default
        if value < 0:
            raise ApiError(400, f"Query parameter {name} must not be negative.")
        low, high = STOPTIMES_RANGES.get(name, (0, 2**63 - 1))
        if not low <= value <= high:
            raise ApiError(400, f"Query parameter {name}={value} is out of range [{low}, {high}].")
        return int(value)

    def _date(self, raw: str) -> dt.date:
        try:
            if not _DATE.fullmatch(raw):
                raise InvalidArgumentError(raw)
            return dt.date(int(raw[:4]), int(raw[4:6]), int(raw[6:]))
        except ValueError:
            raise ApiError(400, f"Invalid date {raw[:20]!r}: use YYYYMMDD.") from None

    # -- list forms ---------------------------------------------------------------------------

    def _route_list(self, index: TransitIndex, routes: Sequence[Route]) -> list[Any]:
        agencies = m.agencies_by_id(index.list_agencies())
        fn = m.route_json if self._detail else m.route_short
        return [fn(r, agencies.get(r.agency_id or "")) for r in routes]

    def _stop_list(self, stops: Sequence[Stop]) -> list[Any]:
        if self._detail:
            return m.mapped(stops, m.stop_json)
        return m.mapped(stops, m.stop_short, refs=self._refs)

    def _trip_list(self, index: TransitIndex, trips: Sequence[Trip]) -> list[Any]:
        if not self._detail:
            return m.mapped(trips, m.trip_short, refs=self._refs)
        return [self._trip_json(index, t) for t in trips]

    def _trip_json(self, index: TransitIndex, trip: Trip) -> Any:
        route = index.get_route(trip.route_id)
        agency = index.get_agency(route.agency_id) if route.agency_id else None
        return m.trip_json(trip, route, agency)

    def _pattern_list(
        self, index: TransitIndex, patterns: Sequence[Pattern], *, geometry: bool = False
    ) -> list[Any]:
        if self._detail:
            return [self._pattern_detail(index, p) for p in patterns]
        return [
            m.pattern_short(
                p,
                geometry=index.get_pattern_geometry(p.id) if geometry else None,
                refs=self._refs,
            )
            for p in patterns
        ]

    def _pattern_detail(self, index: TransitIndex, pattern: Pattern) -> Any:
        stops = index.find_stops(pattern_id=pattern.id)
        trips = index.find_trips(pattern_id=pattern.id)
        return m.pattern_detail(pattern, stops, trips, refs=self._refs)

    # -- feeds and agencies -------------------------------------------------------------------

    def _feeds(self, index: TransitIndex) -> Any:
        return [f.id for f in index.list_feeds()]

    def _feed(self, index: TransitIndex, feed_id: str) -> Any:
        return m.feed_json(index.get_feed(feed_id))

    def _agencies(self, index: TransitIndex, feed_id: str) -> Any:
        return m.mapped(index.find_agencies(feed_id=feed_id), m.agency_json)

    def _agency(self, index: TransitIndex, feed_id: str, agency_id: str) -> Any:
        index.get_feed(feed_id)
        return m.agency_json(index.get_agency(f"{feed_id}:{agency_id}"))

    def _agency_routes(self, index: TransitIndex, feed_id: str, agency_id: str) -> Any:
        index.get_feed(feed_id)
        routes = index.find_routes(agency_id=f"{feed_id}:{agency_id}")
        return self._route_list(index, routes)

    # -- routes -------------------------------------------------------------------------------

    def _routes(self, index: TransitIndex) -> Any:
        stops = [s for s in self.get_query_arguments("hasStop") if s.strip()]  # blank: absent
        return self._route_list(index, index.find_routes(stop_ids=stops))

    def _route(self, index: TransitIndex, route_id: str) -> Any:
        route = index.get_route(route_id)
        agency = index.get_agency(route.agency_id) if route.agency_id else None
        return m.route_json(route, agency)

    def _route_patterns(self, index: TransitIndex, route_id: str) -> Any:
        geometry = self.bool_argument("includeGeometry", default=False)
        patterns = index.find_patterns(route_id=route_id)
        return self._pattern_list(index, patterns, geometry=geometry)

    def _route_stops(self, index: TransitIndex, route_id: str) -> Any:
        return self._stop_list(index.find_stops(route_id=route_id))

    def _route_trips(self, index: TransitIndex, route_id: str) -> Any:
        return self._trip_list(index, index.find_trips(route_id=route_id))

    # -- patterns -----------------------------------------------------------------------------

    def _patterns(self, index: TransitIndex) -> Any:
        return self._pattern_list(index, index.list_patterns())

    def _pattern(self, index: TransitIndex, pattern_id: str) -> Any:
        return self._pattern_detail(index, index.get_pattern(pattern_id))

    def _pattern_trips(self, index: TransitIndex, pattern_id: str) -> Any:
        return self._trip_list(index, index.find_trips(pattern_id=pattern_id))

    def _pattern_stops(self, index: TransitIndex, pattern_id: str) -> Any:
        return self._stop_list(index.find_stops(pattern_id=pattern_id))

    def _pattern_geometry(self, index: TransitIndex, pattern_id: str) -> Any:
        return m.polyline_json(index.get_pattern_geometry(pattern_id))

    def _pattern_hash(self, index: TransitIndex, pattern_id: str) -> Any:
        return _Text(index.get_pattern_semantic_hash(pattern_id))

    # -- trips --------------------------------------------------------------------------------

    def _trip(self, index: TransitIndex, trip_id: str) -> Any:
        added = added_trip(self._network, self._realtime, trip_id)  # a real-time ADDED trip
        return self._trip_json(index, added or index.get_trip(trip_id))

    def _trip_stops(self, index: TransitIndex, trip_id: str) -> Any:
        return self._stop_list(index.find_stops(trip_id=trip_id))

    def _trip_stoptimes(self, index: TransitIndex, trip_id: str) -> Any:
        times = added_trip_times(self._network, self._realtime, trip_id)
        if times is None:
            times = realtime_trip_times(
                self._network, self._realtime, index.find_trip_times(trip_id)
            )
        return [m.trip_time_short(t, with_trip=False) for t in times]

    def _trip_geometry(self, index: TransitIndex, trip_id: str) -> Any:
        return m.polyline_json(index.get_trip_geometry(trip_id))

    def _trip_hash(self, index: TransitIndex, trip_id: str) -> Any:
        value = index.get_trip_semantic_hash(trip_id)
        if value is None:
            raise ApiError(404, f"Trip {trip_id!r} has no stop times, hence no semantic hash.")
        return _Text(value)

    # -- stops --------------------------------------------------------------------------------

    def _stops(self, index: TransitIndex) -> Any:
        circle = [self._number(n, float) for n in ("lat", "lon", "radius")]
        box = [self._number(n, float) for n in ("minLat", "minLon", "maxLat", "maxLon")]
        with_times = self.bool_argument("includeStopTimes", default=False)
        with_routes = self.bool_argument("includeRoutes", default=False)
        if any(v is not None for v in circle):
            answers = self._stops_in_circle(index, circle)
        elif any(v is not None for v in box):
            answers = self._stops_in_box(index, box)
        else:
            answers = self._stop_list(index.list_stops())
        if with_times or with_routes:
            now = int(time.time())
            for answer in answers:
                if with_times:
                    found = self._rt_times(
                        index.find_stop_times(answer["id"], start_time=now),
                        stop_id=answer["id"],
                        window=(now, now + 86_400),
                        limit=2,
                    )
                    answer["stopTimes"] = m.mapped(found, m.stop_times_in_pattern)
                if with_routes:
                    routes = index.find_routes(stop_ids=[answer["id"]])
                    answer["routes"] = [self._route(index, r.id) for r in routes]
        return answers

    def _stops_in_circle(self, index: TransitIndex, circle: list[Any]) -> list[Any]:
        lat, lon, radius = circle
        if lat is None or lon is None or radius is None:
            raise ApiError(400, "A circle search needs all of lat, lon and radius.")
        if radius < 0 or not (-90 <= lat <= 90 and -180 <= lon <= 180):
            raise ApiError(400, "Invalid circle: radius must be >= 0 and lat/lon in range.")
        found = index.find_stops_in_circle(lat, lon, min(radius, MAX_RADIUS_M))
        if self._detail:
            return [{**m.stop_json(f.stop), "dist": round(f.distance_m)} for f in found]
        return m.mapped(found, m.stop_at_distance, refs=self._refs)

    def _stops_in_box(self, index: TransitIndex, box: list[Any]) -> list[Any]:
        min_lat, min_lon, max_lat, max_lon = box
        if min_lat is None or min_lon is None or max_lat is None or max_lon is None:
            raise ApiError(400, "A box search needs all of minLat, minLon, maxLat and maxLon.")
        if max_lat <= min_lat or max_lon <= min_lon:
            raise ApiError(400, "Invalid box: maxLat must exceed minLat and maxLon minLon.")
        return self._stop_list(index.find_stops_in_box(min_lat, min_lon, max_lat, max_lon))

    def _stop(self, index: TransitIndex, stop_id: str) -> Any:
        return m.stop_json(index.get_stop(stop_id))

    def _stop_routes(self, index: TransitIndex, stop_id: str) -> Any:
        return self._route_list(index, index.find_routes(stop_ids=[stop_id]))

    def _stop_patterns(self, index: TransitIndex, stop_id: str) -> Any:
        return self._pattern_list(index, index.find_patterns(stop_id=stop_id))

    def _stop_transfers(self, index: TransitIndex, stop_id: str) -> Any:
        return m.mapped(index.find_transfers(stop_id), m.transfer_json)

    def _stop_stoptimes(self, index: TransitIndex, stop_id: str) -> Any:
        start = self._int("startTime", 0) or int(time.time())
        time_range, number = self._int("timeRange", 86_400), self._int("numberOfDepartures", 2)
        found = index.find_stop_times(
            stop_id,
            start_time=start,
            time_range_s=time_range,
            number_of_departures=number,
            omit_non_pickups=self.bool_argument("omitNonPickups", default=False),
        )
        times = self._rt_times(
            found, stop_id=stop_id, window=(start, start + time_range), limit=number
        )
        return m.mapped(times, m.stop_times_in_pattern, refs=self._refs)

    def _stop_stoptimes_date(self, index: TransitIndex, stop_id: str, date: str) -> Any:
        day = self._date(date)
        omit = self.bool_argument("omitNonPickups", default=False)
        found = index.find_stop_times_for_date(stop_id, day, omit_non_pickups=omit)
        times = self._rt_times(found, stop_id=stop_id, date=day)
        return m.mapped(times, m.stop_times_in_pattern, refs=self._refs)

    # -- clusters, flex areas, services -------------------------------------------------------

    def _clusters(self, index: TransitIndex) -> Any:
        detail, refs = self._detail, self._refs
        return [
            m.cluster_detail(c, map(index.get_stop, c.stop_ids) if detail else None, refs=refs)
            for c in index.list_clusters()
        ]

    def _cluster(self, index: TransitIndex, cluster_id: str) -> Any:
        cluster = index.get_cluster(cluster_id)
        stops = [index.get_stop(s) for s in cluster.stop_ids]
        return m.cluster_detail(cluster, stops, refs=self._refs)

    def _flex_areas(self, index: TransitIndex) -> Any:
        return [a.id for a in index.list_flex_areas()]

    def _flex_area(self, index: TransitIndex, area_id: str) -> Any:
        return m.area_short(index.get_flex_area(area_id))

    def _services(self, index: TransitIndex) -> Any:
        detail = self._detail
        return [m.service_calendar_json(c, dates=detail) for c in index.list_service_calendars()]

    def _service(self, index: TransitIndex, service_id: str) -> Any:
        return m.service_calendar_json(index.get_service_calendar(service_id), dates=True)


class GraphQLHandler(BaseHandler):
    """``POST /otp/routers/{routerId}/index/graphql``: the OTP 1.x index GraphQL schema.

    The body is ``application/json`` (``{"query", "variables", "operationName"}``)
    or ``application/graphql`` (the query itself).  An executed query answers
    201 with ``{"data": ..., "errors": [...]}`` (nulls kept, as GraphQL wants);
    a request that cannot be executed (bad JSON, syntax, validation, limits)
    answers 400 with the service's error fields plus the GraphQL ``errors``
    array; another content type answers 415.
    """

    openapi: ClassVar[dict[str, Operation]] = {
        "post": Operation(
            summary="Run a GraphQL query on the transit index",
            status=201,
            response=None,
            errors=(400, 404, 413, 415),
            request_body=("application/json", "application/graphql"),
        )
    }

    async def post(self, router_id: str) -> None:
        """Parse the request, run the query in a worker thread, write the result."""
        _, network = self.registry.lookup(router_id)
        try:
            request = parse_request(self.request.headers.get("Content-Type"), self.request.body)
        except GraphQLRequestError as exc:
            self._finish(exc.status, graphql_error_body(exc.status, exc.errors))
            return
        status, body = await self.run_blocking(run_query, TransitIndex.of, network, request)
        self._finish(status, body)

    def _finish(self, status: int, body: dict[str, Any]) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        keep_nulls = "data" in body
        self.finish(_dumps_keeping_nulls(body) if keep_nulls else dumps_json(body))


def _dumps_keeping_nulls(body: dict[str, Any]) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
