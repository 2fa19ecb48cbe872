"""Dashboards (Panel): scenario comparison in a browser or inline in JupyterLab.

The dashboards sit on top of the public ``otpa`` API; the domain packages never
import them (nor Panel).  :class:`ComparisonModel` is the ``param`` view-model (no
Panel import), :class:`ScenarioComparison` its Panel view, :func:`serve_dashboard`
serves it on its own (``otpa dashboard``); ``otpa serve`` mounts the same app at
``/dashboard`` when the service configuration enables it.  Every JavaScript and CSS
asset is served by the Bokeh server itself (or inlined in a notebook): nothing is
loaded from the internet.

Examples
--------
>>> from otpa.dashboards import ScenarioComparison
>>> ScenarioComparison(net).servable()  # doctest: +SKIP
"""

from __future__ import annotations

from otpa.dashboards.comparison import ScenarioComparison
from otpa.dashboards.model import (
    BASE_LABEL,
    GRID_POINTS,
    ComparisonModel,
    DashboardError,
    RegionalCancelledError,
    RegionalResult,
    SinglePointResult,
)
from otpa.dashboards.serving import dashboard_app, offline_extension, serve_dashboard

__all__ = [
    "BASE_LABEL",
    "GRID_POINTS",
    "ComparisonModel",
    "DashboardError",
    "RegionalCancelledError",
    "RegionalResult",
    "ScenarioComparison",
    "SinglePointResult",
    "dashboard_app",
    "offline_extension",
    "serve_dashboard",
]
