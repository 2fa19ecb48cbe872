"""``GET /otp/routers/{routerId}/plan``: plan a trip, OTP 1.x style.

Parse the query (:mod:`service.otp1.plan_params`) → run the planner →
encode the OTP 1.x response (:mod:`service.otp1.plan_response`), as JSON, or
XML when the ``Accept`` header asks for it.  All three run in one job of the
heavy work pool (:func:`plan_answer`): the event loop only reads the request,
hands the job over and writes the encoded bytes, so it stays free for the other
connections while plans hold the GIL (``docs/performance.md``).

Status codes: planning outcomes are 200 with a PlannerError in the body, as in
OTP 1.x (no path, outside bounds, no transit times, too close).  So is every
refused parameter, whatever is wrong with it (not a number, out of its range
(``docs/service.md``), an unknown or unsupported mode, triangle factors that do
not sum to 1, a bad date, route or stop spec): ``BOGUS_PARAMETER`` (413) or the
specific OTP code (``TRIANGLE_NOT_AFFINE``, ``OUTSIDE_BOUNDS``...) with
``details: {parameter, reason}``; OTP 1.x clients read errors only from 200
bodies.  An unknown router is a 404 JSON error, like every other endpoint (OTP
answered 200 with ``GRAPH_UNAVAILABLE``).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple
from zoneinfo import ZoneInfo

import otpa
from otpa.errors import InternalError
from otpa.routing.errors import InvalidRequestError, PlanningError
from otpa.routing.model import DebugOutput, TripPlan
from otpa.routing.request import PlanRequest
from service.handlers.base import (
    Answer,
    BaseHandler,
    RequestTimeLimitError,
    ServiceContext,
    encode_answer,
)
from service.handlers.scenarios import scenario_network
from service.openapi import Operation, Param
from service.otp1.geocode_places import geocode_places
from service.otp1.plan_params import RoutingDefaults, plan_request_from_query
from service.otp1.plan_response import (
    error_response,
    plan_response,
    planner_error,
    planner_error_for,
    request_parameters,
    response_xml,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from otpa.network import TransportNetwork

__all__ = ["PlanAnswer", "PlanHandler", "Planner", "plan_answer"]

Planner = Callable[["TransportNetwork", PlanRequest], TripPlan]
logger = logging.getLogger(__name__)
_MAX_SEARCH_TIMEOUT_MS = 3_600_000  # searchTimeout's range


class PlanHandler(BaseHandler):
    """``/otp/routers/{routerId}/plan`` (see the module docstring).

    URL table arguments: ``ctx``; ``planner`` (network, request) → TripPlan,
    default :func:`otpa.plan`; ``routing_defaults`` router id →
    :class:`RoutingDefaults` (router-config ``routingDefaults``).
    """

    work_pool = "heavy"
    openapi: ClassVar[dict[str, Operation]] = {
        "get": Operation(
            "Plan a trip: a TripPlan, or OTP's PlannerError (both HTTP 200)",
            query=(Param("scenario", {"type": "string"}, "plan on a stored scenario's graph"),),
            plan_query=True,
            response="Response",
            xml=True,
            errors=(404,),
        )
    }

    def initialize(
        self,
        ctx: ServiceContext,
        planner: Planner | None = None,
        routing_defaults: Mapping[str, RoutingDefaults] | None = None,
    ) -> None:
        """Receive the context, the planner and the router-level defaults."""
        super().initialize(ctx)
        self._planner = planner
        self._routing_defaults = routing_defaults or {}

    async def get(self, router_id: str) -> None:
        """Plan a trip and answer with OTP's Response object."""
        canonical, network = self.registry.lookup(router_id)
        scenario_id = self.get_query_argument("scenario", None)
        if scenario_id:
            # a stored scenario of this router, applied to a copy of its graph (cached)
            network = await self.run_blocking(scenario_network, self.ctx, router_id, scenario_id)
        query = {
            name: [self.decode_argument(v, name) for v in values]
            for name, values in self.request.query_arguments.items()
        }
        parameters = request_parameters(query)
        try:
            answer = await self.run_blocking(
                plan_answer,
                self._planner or otpa.plan,
                network,
                query,
                parameters=parameters,
                defaults=self._routing_defaults.get(canonical),
                time_left_s=self.time_left_s(),
                accept=self.request.headers.get("Accept"),
            )
        except (PlanningError, InvalidRequestError) as exc:
            self._write_planner_error(exc, parameters, planning=True)
            return
        except InternalError as exc:  # a bug: logged, answered as OTP 1.x's SYSTEM_ERROR (200)
            logger.error("plan %s: internal error", self.request_id, exc_info=exc)
            self._write_planner_error(exc, parameters, planning=True)
            return
        except RequestTimeLimitError:  # past the server's limit: OTP's REQUEST_TIMEOUT (200)
            timeout = planner_error("REQUEST_TIMEOUT")
            self._write(error_response(timeout, parameters=parameters, debug_output=DebugOutput()))
            return
        if answer.snapshot is not None:  # the real-time timetable version every leg comes from
            self.set_header("X-Otpa-Realtime-Snapshot", answer.snapshot)
        self.finish_answer(answer.answer)

    def _write_planner_error(
        self, exc: Exception, parameters: Mapping[str, str], *, planning: bool
    ) -> None:
        """Answer 200 with a PlannerError, or re-raise what is no planning outcome (500)."""
        error = planner_error_for(exc)
        if error is None:
            raise exc
        started = planning and error["message"] != "OUTSIDE_BOUNDS"
        debug = DebugOutput() if started else None
        self._write(error_response(error, parameters=parameters, debug_output=debug))

    def _write(self, body: Mapping[str, Any]) -> None:
        self.respond("response", body, lambda: response_xml(body))


class PlanAnswer(NamedTuple):
    """What :func:`plan_answer` hands back to the event loop.

    Attributes
    ----------
    answer
        The encoded response.
    snapshot
        The plan's real-time snapshot version (``X-Otpa-Realtime-Snapshot``), or None.
    """

    answer: Answer
    snapshot: str | None


def plan_answer(
    planner: Planner,
    network: TransportNetwork,
    query: Mapping[str, Sequence[str]],
    *,
    parameters: Mapping[str, str],
    defaults: RoutingDefaults | None,
    time_left_s: float,
    accept: str | None,
) -> PlanAnswer:
    """Parse, plan and encode one ``/plan`` request: the job of the heavy work pool.

    A refused parameter is answered here too (OTP's PlannerError, no ``debugOutput``).
    The planner's own errors (:class:`PlanningError`, :class:`InvalidRequestError`)
    propagate, so the work pool sees a search that stopped at its deadline; the
    handler answers them.

    Parameters
    ----------
    planner
        (network, request) → TripPlan.
    network
        The network to plan on.
    query
        Every query parameter with all its values.
    parameters
        ``requestParameters`` (:func:`request_parameters` of ``query``).
    defaults
        The router's ``routingDefaults``, or None.
    time_left_s
        The request's time left when it was handed over: the plan's ``searchTimeout``
        is capped to it.
    accept
        The request's ``Accept`` header (JSON, or XML when it prefers XML).

    Returns
    -------
    PlanAnswer
    """
    time_zone = str(network.time_zone)
    try:
        query = geocode_places(network, query)  # place names -> coordinates (GEOCODE_*)
        request = plan_request_from_query(
            query,
            time_zone=time_zone,
            now=dt.datetime.now(ZoneInfo(time_zone)),
            defaults=defaults,
            feed_ids=_feed_ids(network),
        )
    except InvalidRequestError as exc:
        error = planner_error_for(exc)
        assert error is not None  # every InvalidRequestError is a PlannerError
        body = error_response(error, parameters=parameters)
        return PlanAnswer(_encode(body, accept), None)
    plan = planner(network, _time_capped(request, time_left_s))
    body = plan_response(plan, request=request, parameters=parameters, time_zone=time_zone)
    snapshot = getattr(plan, "realtime_snapshot", None)
    return PlanAnswer(_encode(body, accept), None if snapshot is None else str(snapshot))


def _encode(body: Mapping[str, Any], accept: str | None) -> Answer:
    return encode_answer("response", body, lambda: response_xml(body), accept)


#: The feed ids of each served network (a pandas column read: once per network).
_FEED_IDS: weakref.WeakKeyDictionary[TransportNetwork, tuple[str, ...]] = (
    weakref.WeakKeyDictionary()
)


def _feed_ids(network: TransportNetwork) -> tuple[str, ...]:
    """``network.feed_ids``, read once per network."""
    try:
        return _FEED_IDS[network]
    except KeyError:
        ids = _FEED_IDS[network] = network.feed_ids
        return ids
    except TypeError:  # not weakly referenceable (a stand-in network in a test)
        return network.feed_ids


def _time_capped(request: PlanRequest, time_left_s: float) -> PlanRequest:
    """The request with its ``searchTimeout`` capped by the time the request has left."""
    left_ms = min(max(int(time_left_s * 1000), 1), _MAX_SEARCH_TIMEOUT_MS)
    wanted = request.itineraries.search_timeout_ms
    if wanted is not None and wanted <= left_ms:
        return request
    itineraries = dataclasses.replace(request.itineraries, search_timeout_ms=left_ms)
    return dataclasses.replace(request, itineraries=itineraries)
