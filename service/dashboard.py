"""``/dashboard``: the scenario-comparison dashboard inside the service's Tornado process.

When ``dashboard: true`` is set in the service configuration, :func:`dashboard_rules`
mounts a Bokeh server application (:class:`bokeh.server.tornado.BokehTornado`, with
Panel's routes) under ``/dashboard`` of the service's own Tornado application: the
same process, the same IOLoop and the same loaded networks (the registry's, read at
every new page), the same scenario store as ``/otp/routers/{id}/scenarios`` and the
analyst point sets.  JavaScript and CSS are served from ``/dashboard/static/``
(Bokeh's ``server`` resources) and the maps' basemap is the service's own
``/otp/routers/{id}/inspector/tile/basemap/{z}/{x}/{y}.png`` (rendered from the network)
unless ``dashboard_basemap_url`` names another: nothing is fetched from the internet.

=================================  ==================================================
``GET /dashboard/``                the dashboard page (one Bokeh session per page)
``/dashboard/ws``                  its websocket
``/dashboard/static/...``          Bokeh and Panel JavaScript/CSS
=================================  ==================================================
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from tornado.ioloop import IOLoop
from tornado.routing import PathMatches, Rule
from tornado.web import StaticFileHandler

from service.analyst.state import AnalystState
from service.handlers.base import ServiceContext
from service.handlers.scenarios import scenario_store

__all__ = ["DASHBOARD_PREFIX", "OWN_BASEMAP", "dashboard_rules"]

logger = logging.getLogger(__name__)

#: Where the dashboard is mounted.
DASHBOARD_PREFIX = "/dashboard"
#: The service's own basemap tiles (``otpa.tiles``, rendered from the loaded network).
OWN_BASEMAP = "/otp/routers/{router}/inspector/tile/basemap/{z}/{x}/{y}.png"


def _networks(ctx: ServiceContext) -> dict[str, Any]:
    """The loaded routers' networks by id, the default router first."""
    items = dict(ctx.registry.items())
    default = ctx.registry.default_id
    first = {default: items.pop(default)} if default in items else {}
    return {**first, **items}


def dashboard_rules(ctx: ServiceContext, analyst: AnalystState) -> list[Rule]:
    """The routing rule that mounts the dashboard at ``/dashboard`` (started on the IOLoop).

    Panel and Bokeh are imported here only, so a service without the dashboard never
    loads them.
    """
    import panel.io.server as pn_server  # patches Bokeh's URL table with Panel's handlers
    from bokeh.server.tornado import BokehTornado

    from otpa.dashboards import dashboard_app

    def pointsets() -> dict[str, Any]:
        found = {}
        for pid in analyst.pointsets.ids():
            points = analyst.pointsets.get(pid)
            if points is not None:
                found[pid] = points
        return found

    page = dashboard_app(
        lambda: _networks(ctx),
        pointsets=pointsets,
        store=scenario_store(ctx.config),
        basemap_url=ctx.config.dashboard_basemap_url or OWN_BASEMAP,
    )
    applications = pn_server.build_applications({"/": page})  # type: ignore[attr-defined]
    icons = Path(pn_server.__file__).resolve().parents[1] / "dist" / "images"
    favicon = (r"/(favicon\.ico)", StaticFileHandler, {"path": str(icons)})
    host = ctx.config.host or "127.0.0.1"
    bokeh_app = BokehTornado(
        applications,
        prefix=DASHBOARD_PREFIX,
        extra_patterns=[favicon, *pn_server.get_static_routes({})],
        extra_websocket_origins=[f"{host}:*", "localhost:*", "127.0.0.1:*"],
        use_index=False,
        redirect_root=False,
    )
    bokeh_app.initialize(IOLoop.current())
    bokeh_app.start()
    return [Rule(PathMatches(rf"{DASHBOARD_PREFIX}(/.*)?$"), bokeh_app)]
