"""Serving the dashboards: an app factory, a stand-alone server, offline resources."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import panel as pn

from otpa.analysis import PointSet, ScenarioStore
from otpa.dashboards.comparison import ScenarioComparison
from otpa.network import TransportNetwork

__all__ = ["dashboard_app", "offline_extension", "serve_dashboard"]

#: Title of the dashboard page.
TITLE = "otpa · scenario comparison"
#: How often a served page re-reads the scenario store (milliseconds).
SCENARIO_POLL_MS = 5000


def offline_extension() -> None:
    """Load Panel's extension with every resource inlined (notebooks with no internet)."""
    pn.extension(inline=True)


def dashboard_app(
    networks: Mapping[str, TransportNetwork] | Callable[[], Mapping[str, TransportNetwork]],
    *,
    pointsets: Mapping[str, PointSet] | Callable[[], Mapping[str, PointSet]] | None = None,
    store: ScenarioStore | None = None,
    basemap_url: str | None = None,
    **params: Any,
) -> Callable[[], Any]:
    """A function building one dashboard page per browser session.

    Every session gets its own :class:`ScenarioComparison` over the same network
    objects (never copied) and the same scenario store.
    """

    def page() -> Any:
        sets = pointsets() if callable(pointsets) else pointsets
        view = ScenarioComparison(
            networks, pointsets=sets, store=store, basemap_url=basemap_url, **params
        )
        if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
            # scenarios saved elsewhere (over HTTP, another page) appear within seconds
            def poll() -> None:
                view.model.refresh_scenarios()

            pn.state.add_periodic_callback(poll, period=SCENARIO_POLL_MS)
        return pn.Column(pn.pane.Markdown(f"## {TITLE}"), view, sizing_mode="stretch_width")

    return page


def serve_dashboard(
    networks: Mapping[str, TransportNetwork],
    *,
    port: int = 5006,
    address: str = "127.0.0.1",
    pointsets: Mapping[str, PointSet] | None = None,
    store: ScenarioStore | None = None,
    basemap_url: str | None = None,
    ready: Callable[[str], None] | None = None,
    **params: Any,
) -> None:
    """Serve the dashboard until interrupted (``otpa dashboard``).

    JavaScript and CSS come from this server (Bokeh's ``server`` resources), so the
    page works with no internet.  ``ready`` is called with the page's URL once the
    server listens (default: print it).
    """
    app = dashboard_app(
        networks, pointsets=pointsets, store=store, basemap_url=basemap_url, **params
    )
    server = pn.serve(
        {"dashboard": app},
        port=port,
        address=address,
        show=False,
        start=False,
        title=TITLE,
        websocket_origin=[f"{address}:{port}" if port else "*", f"localhost:{port}"],
    )
    url = f"http://{address}:{server.port}/dashboard"
    (ready or (lambda u: print(f"otpa dashboard ready: {u}", flush=True)))(url)
    server.start()
    server.io_loop.start()
