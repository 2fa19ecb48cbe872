"""``make_app``: the whole OTP 1.x URL table of the service, in one place.

=========================================  ======================================================
Path                                       Methods
=========================================  ======================================================
``/``                                      GET the HTML landing page (for people)
``/otp``, ``/otp/``                        GET ServerInfo
``/otp/health``, ``/otp/health/ready``     GET liveness; readiness (503 until routers load)
``/otp/openapi.json``                       GET this table as an OpenAPI 3.1 document
``/otp/routers``, ``/otp/routers/``        GET RouterList; PUT reload all; DELETE evict all
``/otp/routers/{routerId}``                GET RouterInfo; PUT load from disk; POST upload a
                                           graph (octet-stream) or GTFS/OSM zip; DELETE evict
``/otp/routers/save?routerId=ID``          POST store a graph file without loading it
``/otp/routers/{routerId}/index/...``      GET the transit index API; POST ``.../graphql``
``/otp/routers/{routerId}/plan``           GET plan a trip (TripPlan or PlannerError)
``/otp/routers/{routerId}/inspector/...``  GET inspector layers and tiles (incl. the basemap)
``/otp/routers/{routerId}/walk_comfort``   GET reload every router's walk-comfort rules
``/otp/routers/{routerId}/geocode``        GET the built-in geocoder (stops, corners, places)
``/otp/geocode``, ``/otp/municoder``       GET external geocoder; municipality at a point
``/otp/scripting/run``                     POST run a Python script (opt-in, ROUTERS role)
``/otp/routers/{routerId}/updaters[/{n}]``  GET real-time updater status (router-config updaters)
``/otp/[routers/{routerId}/]patch/...``    GET stopPatches, routePatches; POST patch (user role)
``.../index/{routes|patterns}/{id}/vehicles``  GET real-time vehicle positions
``/otp/routers/{routerId}/bike_rental``     GET rental stations; also ``car_``, ``vehicle_rental``
``/otp/routers/{routerId}/park_and_ride``   GET park-and-ride lots (OSM)
``.../transportation_network_company/...``  GET ride-hail ``eta_estimate``, ``ride_estimate``
``/dashboard/...``                         the scenario-comparison dashboard (when enabled)
anything else                              404 JSON
=========================================  ======================================================

Every path also answers ``OPTIONS`` (CORS preflight).  ``routerId`` may be
``default`` (any case) for the default router.
"""

from __future__ import annotations

from typing import Any, Literal

import tornado.routing
import tornado.web

import otpa
from otpa.network import build_network
from service.access_log import log_request
from service.analyst.state import AnalystState
from service.config import ServiceConfig
from service.drain import InFlight
from service.handlers.analyst import analyst_urls
from service.handlers.base import Builder, NotFoundHandler, ServiceContext, pools_from_config
from service.handlers.geocode import geocode_urls
from service.handlers.health import LivenessHandler, ReadinessHandler
from service.handlers.index import index_urls
from service.handlers.inspector import inspector_urls
from service.handlers.landing import LandingHandler, LandingLink
from service.handlers.openapi import OpenApiHandler
from service.handlers.plan import PlanHandler
from service.handlers.profile import profile_urls
from service.handlers.realtime import realtime_urls
from service.handlers.rental import rental_urls
from service.handlers.routers import RouterHandler, RouterListHandler
from service.handlers.scenarios import scenario_urls
from service.handlers.scripting import scripting_urls
from service.handlers.server_info import ServerInfoHandler
from service.handlers.tnc import tnc_urls
from service.handlers.updaters import updater_urls
from service.handlers.walk_comfort import WalkComfortHandler
from service.memory import MemoryReleaser
from service.otp1.server_info import read_cpu_info, server_info
from service.registry import RouterRegistry
from service.updaters import UpdaterManager

__all__ = ["default_builder", "make_app"]


def default_builder() -> Builder:
    """Return the builder used for zip uploads: :func:`otpa.network.build_network`."""
    return build_network


def make_app(
    config: ServiceConfig,
    registry: RouterRegistry,
    *,
    builder: Builder | Literal["auto"] | None = "auto",
    **settings: Any,
) -> tornado.web.Application:
    """Build the Tornado application serving the OTP 1.x API.

    Parameters
    ----------
    config
        The service configuration.
    registry
        The routers to serve (handlers share it; it may change while serving).
    builder
        Folder of GTFS/OSM files → network, used for ``application/zip``
        uploads: ``"auto"`` uses ``otpa.network.build_network`` when it exists,
        None disables zip uploads (415).
    **settings
        Extra :class:`tornado.web.Application` settings.

    Returns
    -------
    tornado.web.Application

    Examples
    --------
    >>> app = make_app(ServiceConfig(), RouterRegistry(None))
    >>> sorted(r.name for r in app.wildcard_router.named_rules.values())
    ['health', 'landing', 'openapi', 'plan', 'ready', 'router', 'routers', 'server_info']
    """
    cpu_name, n_cores = read_cpu_info()
    ctx = ServiceContext(
        config=config,
        registry=registry,
        server_info=server_info(otpa.__version__, cpu_name, n_cores),
        builder=default_builder() if builder == "auto" else builder,
        pools=pools_from_config(config),  # bounded light/heavy work pools (service.workpools)
    )
    args = {"ctx": ctx}
    # one surface store and point-set registry, shared by the analyst and profile endpoints
    analyst = AnalystState.from_config(ctx.config)
    analysis = {**args, "analyst": analyst}
    links = [
        LandingLink("/otp", "ServerInfo", "the OTP 1.x API's root: version and build"),
        LandingLink("/otp/routers", "RouterList", "every router with its extent and modes"),
        LandingLink("/otp/health/ready", "Readiness", "whether every configured router is loaded"),
        LandingLink("/otp/openapi.json", "API document (OpenAPI 3.1)", "every endpoint, generated"),
    ]
    # real-time updaters of every router, restarted whenever a router's network changes
    updaters = UpdaterManager(registry)
    updaters.sync()
    if config.dashboard:
        links.append(LandingLink("/dashboard", "Dashboard", "compare scenarios on a map (Panel)"))
    urls: list[tornado.routing.Rule] = [
        tornado.web.url(r"/", LandingHandler, {**args, "links": links}, name="landing"),
        tornado.web.url(r"/otp/?", ServerInfoHandler, args, name="server_info"),
        tornado.web.url(r"/otp/health/?", LivenessHandler, args, name="health"),
        tornado.web.url(r"/otp/health/ready/?", ReadinessHandler, args, name="ready"),
        tornado.web.url(r"/otp/openapi\.json", OpenApiHandler, args, name="openapi"),
        tornado.web.url(r"/otp/routers/?", RouterListHandler, args, name="routers"),
        tornado.web.url(r"/otp/routers/([^/]+)/?", RouterHandler, args, name="router"),
        *index_urls(args),
        *analyst_urls(analysis),
        *profile_urls(analysis),
        *scenario_urls(args),
        # graph inspector and basemap tiles (otpa.tiles), walk comfort (otpa.walkcomfort)
        *inspector_urls(args),
        tornado.web.url(r"/otp/routers/([^/]+)/walk_comfort/?", WalkComfortHandler, args),
        tornado.web.url(
            r"/otp/routers/([^/]+)/plan/?",
            PlanHandler,
            {**args, "routing_defaults": updaters.routing_defaults},  # router-config.json
            name="plan",
        ),
        # geocoding (built-in, external, municoder) and the opt-in script runner
        *geocode_urls(args),
        *scripting_urls(args),
        *updater_urls(args, updaters),
        *realtime_urls(args, updaters),  # alert patches, vehicle positions
        # shared mobility: rental stations, park-and-ride lots, ride-hail (otpa.mobility)
        *rental_urls(args),
        *tnc_urls(args),
    ]
    if config.dashboard:  # the Panel dashboard at /dashboard, same process and networks
        from service.dashboard import dashboard_rules

        urls.extend(dashboard_rules(ctx, analyst))
    # freed memory goes back to the system once a network stops being served
    memory = MemoryReleaser()
    registry.add_drop_listener(memory.watch)
    return tornado.web.Application(
        urls,
        log_function=log_request,
        default_handler_class=NotFoundHandler,
        default_handler_args=args,
        otpa_cors=config.cors,
        serve_traceback=False,
        otpa_updaters=updaters,
        otpa_pools=ctx.pools,
        otpa_inflight=InFlight(),  # requests in flight, drained on SIGTERM (service.drain)
        otpa_memory=memory,
        **settings,
    )
