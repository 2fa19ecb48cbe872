"""``GET /``: a small HTML landing page for people who open the printed URL.

OTP 1.x clients never ask for ``/``; a person does.  The page names the server,
lists each router with its extent and links to its RouterInfo, transit index and
a sample trip plan, and links the service's other front doors (the dashboard when
it is enabled).  Everything is inline: no script, no stylesheet, no request leaves
the server.
"""

from __future__ import annotations

import html
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import otpa
from service.handlers.base import BaseHandler, ServiceContext
from service.openapi import Operation

__all__ = ["LandingHandler", "LandingLink", "render_landing"]

_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;"
    "color:#1d2733;line-height:1.45}h1{margin-bottom:.2rem}small,.muted{color:#5a6775}"
    "table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.35rem .5rem;"
    "border-bottom:1px solid #dde3ea;vertical-align:top}code{background:#f2f5f8;padding:0 .25rem}"
    "a{color:#0b63b6}"
)


@dataclass(frozen=True)
class LandingLink:
    """A link the landing page shows under "Tools" (the dashboard, API documents...).

    Attributes
    ----------
    href
        Path on this server.
    title
        Link text.
    description
        One line saying what is there.
    """

    href: str
    title: str
    description: str


def _q(value: str) -> str:
    return urllib.parse.quote(value, safe="")


def _router_row(router_id: str, info: Mapping[str, Any], is_default: bool) -> str:
    rid = html.escape(router_id)
    base = f"/otp/routers/{_q(router_id)}"
    lat, lon = float(info["centerLatitude"]), float(info["centerLongitude"])
    dlat = (float(info["upperRightLatitude"]) - float(info["lowerLeftLatitude"])) / 6
    dlon = (float(info["upperRightLongitude"]) - float(info["lowerLeftLongitude"])) / 6
    plan = urllib.parse.urlencode(
        {
            "fromPlace": f"{lat - dlat:.5f},{lon - dlon:.5f}",
            "toPlace": f"{lat + dlat:.5f},{lon + dlon:.5f}",
            "mode": "TRANSIT,WALK",
        }
    )
    modes = ", ".join(html.escape(str(m)) for m in info.get("transitModes", ())) or "none"
    default = " <small>(default)</small>" if is_default else ""
    return (
        f"<tr><td><strong>{rid}</strong>{default}<br><small>centre {lat:.4f}, {lon:.4f}"
        f"<br>transit: {modes}</small></td><td>"
        f'<a href="{base}">RouterInfo</a> · '
        f'<a href="{base}/index/agencies">agencies</a> · '
        f'<a href="{base}/index/routes">routes</a> · '
        f'<a href="{base}/index/stops">stops</a> · '
        f'<a href="{base}/inspector/layers">inspector layers</a><br>'
        f'<a href="{base}/plan?{html.escape(plan)}">a sample trip plan</a> '
        f"<small>(edit <code>fromPlace</code>, <code>toPlace</code>, <code>date</code>, "
        f"<code>time</code>)</small></td></tr>"
    )


def render_landing(
    version: str,
    routers: Sequence[tuple[str, Mapping[str, Any]]],
    default_id: str | None,
    links: Sequence[LandingLink],
) -> str:
    """Render the landing page.

    Parameters
    ----------
    version
        The otpa version shown in the header.
    routers
        ``(router id, RouterInfo)`` pairs, in the registry's order.
    default_id
        The default router's id (marked in the table).
    links
        Extra front doors of this server.

    Returns
    -------
    str
        A complete HTML document.

    Examples
    --------
    >>> page = render_landing("1.0", [], None, [])
    >>> "No routers are loaded" in page and page.startswith("<!DOCTYPE html>")
    True
    """
    rows = "".join(_router_row(rid, info, rid == default_id) for rid, info in routers)
    table = (
        f"<table><tr><th>Router</th><th>Open</th></tr>{rows}</table>"
        if rows
        else "<p>No routers are loaded. Build one with <code>otpa build DIR</code> and serve "
        "it with <code>otpa serve --graphs BASE</code>, or upload a graph to "
        "<code>/otp/routers/{id}</code>.</p>"
    )
    tools = "".join(
        f'<li><a href="{html.escape(link.href)}">{html.escape(link.title)}</a> — '
        f"{html.escape(link.description)}</li>"
        for link in links
    )
    return (
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width,initial-scale=1">'
        f"<title>otpa {html.escape(version)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>otpa</h1><p class=muted>Multimodal trip planner and accessibility service, "
        f"version {html.escape(version)}. It speaks the OpenTripPlanner 1.x REST API: point an "
        "OTP 1.x client (the OTP web client, the R <code>opentripplanner</code> package, "
        "<code>@opentripplanner/core-utils</code>) at <code>/otp</code>.</p>"
        f"<h2>Routers</h2>{table}<h2>Tools</h2><ul>{tools}</ul></body></html>"
    )


class LandingHandler(BaseHandler):
    """Serves the landing page (HTML; ``HEAD`` too)."""

    openapi: ClassVar[dict[str, Operation]] = {
        m: Operation("The landing page for people (HTML)", media_type="text/html", errors=())
        for m in ("get", "head")
    }

    links: tuple[LandingLink, ...]

    def initialize(self, ctx: ServiceContext, links: Sequence[LandingLink] = ()) -> None:
        """Receive the service context and the extra links from the URL table."""
        super().initialize(ctx)
        self.links = tuple(links)

    async def get(self) -> None:
        """Answer with the landing page."""
        routers = [
            (rid, await self.router_info(rid, network)) for rid, network in self.registry.items()
        ]
        page = render_landing(
            otpa.__version__,
            routers,
            self.registry.default_id,
            self.links,
        )
        self.set_header("Content-Type", "text/html; charset=UTF-8")
        self.set_header("Cache-Control", "no-cache")
        self.finish(page)

    async def head(self) -> None:
        """Answer like GET without a body."""
        self.set_header("Content-Type", "text/html; charset=UTF-8")
        self.finish()
