"""The structured access log: one ``key=value`` line per request, with its request id."""

from __future__ import annotations

import logging

import tornado.web

from service.handlers.base import BaseHandler, request_done

__all__ = ["access_log", "log_request"]

access_log = logging.getLogger("otpa.access")


def log_request(handler: tornado.web.RequestHandler) -> None:
    """Write one access-log line per request: status, method, path, time, request id.

    The line is ``key=value`` pairs (``status=200 method=GET path=/otp/routers
    ms=1.8 id=...``), easy to grep and to parse; server errors log at ERROR level,
    client errors at WARNING, the rest at INFO.  Tornado calls it when the answer is
    finished, so it also counts the request out of :class:`service.drain.InFlight`.
    """
    request_done(handler)  # answered: a draining server need not wait for it (service.drain)
    status = handler.get_status()
    level = logging.INFO if status < 400 else logging.WARNING if status < 500 else logging.ERROR
    if not access_log.isEnabledFor(level):
        return
    rid = handler.request_id if isinstance(handler, BaseHandler) else "-"
    access_log.log(
        level,
        "status=%d method=%s path=%s ms=%.1f id=%s",
        status,
        handler.request.method,
        handler.request.path,
        1000.0 * handler.request.request_time(),
        rid,
    )
