"""``/otp/routers/{routerId}/updaters``: the status of a router's real-time updaters.

OTP 1.x answered ``{"0": "<updater.toString()>", ...}`` and, for ``/updaters/{n}``,
the updater's class name; the same keys carry a status object here (type, source,
last success, last error, counts of applied/unmatched/invalid entities).  Without
updaters the answer is OTP's 404 ``No updaters running.``; an unknown index gives
``No updater with that ID.``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import tornado.web
from tornado.routing import URLSpec

from service.handlers.base import BaseHandler, ServiceContext
from service.openapi import Operation
from service.updaters import UpdaterManager

__all__ = ["UpdaterHandler", "UpdaterListHandler", "updater_urls"]


class _UpdatersBase(BaseHandler):
    def initialize(self, ctx: ServiceContext, updaters: UpdaterManager) -> None:  # type: ignore[override]
        super().initialize(ctx)
        self.manager = updaters

    def _statuses(self, router_id: str) -> list[dict[str, Any]] | None:
        target, _ = self.registry.lookup(router_id)
        running = self.manager.updaters(target)
        if not running:
            error = self.manager.config_error(target)
            text = "No updaters running." if error is None else f"No updaters running. {error}"
            self.write_text(text, 404)
            return None
        return [u.status().to_json() for u in running]


class UpdaterListHandler(_UpdatersBase):
    """``GET /otp/routers/{routerId}/updaters``."""

    openapi: ClassVar[dict[str, Operation]] = {
        "get": Operation(
            "Every real-time updater's status (404 in plain text when none runs)",
            text_errors=(404,),
        )
    }

    def get(self, router_id: str) -> None:
        """Every updater's status, keyed by its index."""
        statuses = self._statuses(router_id)
        if statuses is not None:
            self.write_json({str(s["index"]): s for s in statuses})


class UpdaterHandler(_UpdatersBase):
    """``GET /otp/routers/{routerId}/updaters/{n}``."""

    openapi: ClassVar[dict[str, Operation]] = {
        "get": Operation(
            "One real-time updater's status (404 in plain text when there is none)",
            text_errors=(404,),
        )
    }

    def get(self, router_id: str, index: str) -> None:
        """One updater's status."""
        statuses = self._statuses(router_id)
        if statuses is None:
            return
        n = int(index) if index.isdigit() and len(index) < 6 else -1
        if not 0 <= n < len(statuses):
            self.write_text("No updater with that ID.", 404)
            return
        self.write_json(statuses[n])


def updater_urls(args: dict[str, Any], manager: UpdaterManager) -> list[URLSpec]:
    """The URL rules of the updater endpoints."""
    kwargs = {**args, "updaters": manager}
    return [
        tornado.web.url(r"/otp/routers/([^/]+)/updaters/?", UpdaterListHandler, kwargs),
        tornado.web.url(r"/otp/routers/([^/]+)/updaters/([^/]+)/?", UpdaterHandler, kwargs),
    ]
