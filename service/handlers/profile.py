"""``GET /otp/routers/{routerId}/profile`` and ``GET /otp/routers/{routerId}/rrtr``.

``/profile`` is OpenTripPlanner 1.x's profile routing: the distinct transit options
between two places over a time window with min/avg/max travel times
(:func:`otpa.analysis.otp1.profile.profile_route`); parameters and the response are in
:mod:`service.otp1.profile_models`.  ``scenario=<id>`` runs it on a stored scenario
of the router.  ``analyst=true`` computes the origin's fastest, average and slowest
travel-time surfaces over the window instead (:func:`otpa.analysis.otp1.profile.profile_surfaces`,
on the grid the origin can reach, ``precisionMeters`` cells, default 200 m), stores them
in the analyst API's surface store and answers their ids ``{"min", "avg", "max"}`` (usable
at ``/otp/surfaces/{id}/...``); the window is bounded by the analyst limits.

``/rrtr`` is OTP's debug comparison of repeated RAPTOR and range RAPTOR, over 08:00 to
09:00 of a service day of the graph (``date``, default: the day with most trips); it
answers a JSON report (OTP printed to its console and answered ``OK``).  Its cost is
fixed: one hour of departure minutes, walks of at most 15 minutes, four rides.

Both run in worker threads.  Bad parameters are 400 JSON errors naming the parameter;
a place outside the network is a 400 naming ``from``/``to``.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any, ClassVar
from zoneinfo import ZoneInfo

import tornado.web
from tornado.routing import URLSpec

from otpa.analysis.otp1.extent import GridTooLargeError, reach_grid
from otpa.analysis.otp1.profile import (
    PROFILE_STATISTICS,
    ProfileRequest,
    compare_range_raptor,
    profile_analysis_request,
    profile_route,
    profile_surfaces,
)
from otpa.index import TransitIndex
from otpa.routing import Location
from otpa.routing.errors import NoTransitTimesError, OutsideBoundsError
from otpa.routing.parse import MAX_YEAR, MIN_YEAR
from service.analyst.params import int_param
from service.analyst.state import AnalystState
from service.handlers.base import BaseHandler, ServiceContext
from service.handlers.scenarios import scenario_network
from service.openapi import Operation, Param
from service.otp1.errors import ApiError
from service.otp1.profile_models import (
    parse_lat_lon,
    profile_json,
    profile_query,
    query_parameter_schemas,
    rrtr_json,
)

if TYPE_CHECKING:
    from otpa.analysis.otp1.profile import ProfileResult
    from otpa.network import TransportNetwork

__all__ = ["ProfileHandler", "RrtrHandler", "profile_urls"]


def profile_urls(args: dict[str, Any]) -> list[URLSpec]:
    """The URL rules of ``/profile`` and ``/rrtr`` (to add to the application's table).

    Parameters
    ----------
    args
        The handlers' arguments: ``ctx``, and ``analyst`` (the analyst API's
        :class:`AnalystState`, whose surface store ``analyst=true`` fills).
    """
    return [
        tornado.web.url(r"/otp/routers/([^/]+)/profile/?", ProfileHandler, args),
        tornado.web.url(r"/otp/routers/([^/]+)/rrtr/?", RrtrHandler, args),
    ]


def _outside(exc: OutsideBoundsError) -> ApiError:
    names = " and ".join(exc.missing) or "place"
    return ApiError(400, f"Query parameter {names}: {exc}.")


def _profile(network: TransportNetwork, request: Any) -> tuple[ProfileResult, TransitIndex]:
    return profile_route(network, request), TransitIndex.of(network)


class _ProfileBase(BaseHandler):
    """Receives the context and the analyst state (shared with the analyst API)."""

    analyst: AnalystState | None
    work_pool = "analysis"

    def initialize(self, ctx: ServiceContext, analyst: AnalystState | None = None) -> None:  # type: ignore[override]
        """Receive the service context and the analyst state."""
        super().initialize(ctx)
        self.analyst = analyst


class ProfileHandler(_ProfileBase):
    """``/otp/routers/{routerId}/profile`` (see the module docstring)."""

    openapi: ClassVar[dict[str, Operation]] = {
        "get": Operation(
            "Profile routing: the transit options over a time window (ProfileResponse)",
            query=(
                *(Param(name, schema) for name, schema in query_parameter_schemas().items()),
                Param("scenario", {"type": "string"}, "a stored scenario of the router"),
                Param(
                    "analyst", {"type": "boolean", "default": False}, "store min/avg/max surfaces"
                ),
                Param("precisionMeters", {"type": "integer", "default": 200}, "with analyst=true"),
            ),
        )
    }

    async def get(self, router_id: str) -> None:
        """Run a profile search and answer OTP's ProfileResponse."""
        canonical, network = self.registry.lookup(router_id)
        query = {
            name: [self.decode_argument(v, name) for v in values]
            for name, values in self.request.query_arguments.items()
        }
        today = dt.datetime.now(ZoneInfo(network.time_zone)).date()
        parsed = profile_query(query, today=today)
        if parsed.scenario is not None:
            network = await self.run_blocking(
                scenario_network, self.ctx, router_id, parsed.scenario
            )
        if parsed.analyst:
            await self._surfaces(canonical, network, parsed.request, query)
            return
        try:
            result, index = await self.run_blocking(_profile, network, parsed.request)
        except OutsideBoundsError as exc:
            raise _outside(exc) from None
        self.write_json(await self.run_blocking(profile_json, result, index))

    async def _surfaces(
        self,
        router_id: str,
        network: TransportNetwork,
        request: ProfileRequest,
        query: dict[str, list[str]],
    ) -> None:
        """Compute and store the min/avg/max surfaces; answer their ids."""
        analyst = self.analyst
        if analyst is None:  # the URL table did not hand over the analyst API's state
            raise ApiError(500, "The surface store is not connected to /profile.")
        limits = analyst.limits
        departures = len(range(request.start_time_s, request.end_time_s, request.step_s))
        if departures > limits.max_departures:
            msg = (
                f"Request too large (startTime, endTime): analyst=true samples at most "
                f"{limits.max_departures} departure minutes, not {departures}."
            )
            raise ApiError(400, msg)
        precision = int_param(
            query, "precisionMeters", 200, lo=limits.min_precision_m, hi=limits.max_precision_m
        )
        areq = profile_analysis_request(request)
        try:
            grid = reach_grid(
                network, request.from_lat, request.from_lon, areq, cell_size_m=precision,
                max_cells=limits.max_cells,
            )  # fmt: skip
            surfaces = await self.run_blocking(profile_surfaces, network, request, grid)
        except GridTooLargeError as exc:
            raise ApiError(400, f"Request too large (precisionMeters): {exc}.") from None
        except OutsideBoundsError as exc:
            raise _outside(exc) from None
        params = {name: values[0] for name, values in query.items() if values}
        minutes = request.max_duration_s // 60
        ids = {
            name: analyst.surfaces.add(router_id, {**params, "statistic": name}, minutes, ds).id
            for name, ds in ((n, surfaces[n]) for n in PROFILE_STATISTICS)
        }
        self.write_json(ids)


def _rrtr(
    network: TransportNetwork,
    stop: str,
    point: tuple[float, float] | None,
    date: dt.date | None,
    agencies: frozenset[str],
) -> Any:
    if stop:
        origin = Location(label=TransitIndex.of(network).get_stop(stop).id)  # 404 when unknown
    else:
        assert point is not None
        origin = Location(lat=point[0], lon=point[1])
    return compare_range_raptor(network, origin, date=date, banned_agencies=agencies)


class RrtrHandler(_ProfileBase):
    """``/otp/routers/{routerId}/rrtr`` (see the module docstring)."""

    openapi: ClassVar[dict[str, Operation]] = {
        "get": Operation(
            "Compare repeated and range RAPTOR over 08:00-09:00 (a JSON report)",
            query=(
                Param("from", {"type": "string"}, "lat,lon (or fromStop)"),
                Param("fromStop", {"type": "string"}, "feed:stop"),
                Param("banAgency", {"type": "string"}),
                Param("date", {"type": "string"}, "YYYY-MM-DD; default: the busiest day"),
            ),
            errors=(400, 404, 409),
        )
    }

    async def get(self, router_id: str) -> None:
        """Compare repeated and range RAPTOR from ``from`` or ``fromStop``; a JSON report."""
        canonical, network = self.registry.lookup(router_id)
        stop = self.get_query_argument("fromStop", "") or ""
        raw = self.get_query_argument("from", "") or ""
        if not stop and not raw:
            msg = "Query parameter from (lat,lon) or fromStop (feed:stop) is required."
            raise ApiError(400, msg)
        point = None if stop else parse_lat_lon("from", raw)
        banned = self.get_query_argument("banAgency", "") or ""
        agencies = frozenset(a.strip() for a in banned.split(",") if a.strip())
        try:
            report = await self.run_blocking(_rrtr, network, stop, point, self._date(), agencies)
        except OutsideBoundsError as exc:
            raise _outside(exc) from None
        except NoTransitTimesError as exc:  # no service day
            raise ApiError(409, f"{exc}.") from None
        stop_ids = network.transit.stops["stop_id"].astype(str).tolist()
        self.write_json(rrtr_json(report, canonical, stop_ids))

    def _date(self) -> dt.date | None:
        raw = self.get_query_argument("date", "") or ""
        if not raw:
            return None
        try:
            day = dt.date.fromisoformat(raw)
        except ValueError:
            msg = f"Query parameter date={raw[:40]!r} is not a date YYYY-MM-DD."
            raise ApiError(400, msg) from None
        if not MIN_YEAR <= day.year <= MAX_YEAR:
            msg = f"Query parameter date={raw}: the year must be from {MIN_YEAR} to {MAX_YEAR}."
            raise ApiError(400, msg)
        return day
