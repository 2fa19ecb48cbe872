"""Bounds on what one HTTP connection may cost: body sizes, header and body read times.

Tornado refuses a body over the server's ``max_body_size`` by closing the
connection, so a client still sending gets a connection reset instead of an
answer.  :class:`LimitedHTTPServer` looks at the declared ``Content-Length`` as
soon as the headers are in, before any body is read: over the limit of its path
(:func:`body_limit`), it answers ``413`` with the service's JSON error body,
reads and discards a body of up to :data:`DRAIN_LIMIT_BYTES` (so the client
sees the answer, not a reset) and closes the connection.

Read times are bounded too: headers and idle keep-alive connections by
:data:`IDLE_TIMEOUT_S`, a request body by :data:`BODY_TIMEOUT_S` (uploads get
:data:`UPLOAD_BODY_TIMEOUT_S`).  A request that declares a body and never sends
it is dropped after that time instead of holding its connection forever.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable
from typing import Any

from tornado import httputil
from tornado.http1connection import HTTP1Connection
from tornado.httpserver import HTTPServer

from service.config import ServiceConfig

__all__ = [
    "BODY_TIMEOUT_S",
    "DRAIN_LIMIT_BYTES",
    "IDLE_TIMEOUT_S",
    "MAX_PLAIN_BODY_BYTES",
    "UPLOAD_BODY_TIMEOUT_S",
    "LimitedHTTPServer",
    "body_limit",
]

#: Body limit of requests other than uploads (plan, GraphQL, surfaces, admin...).
MAX_PLAIN_BODY_BYTES = 1024**2
#: A refused body up to this size is read and thrown away so the client gets the 413.
DRAIN_LIMIT_BYTES = 64 * 1024**2
#: Longest wait for a request's headers, or on an idle keep-alive connection.
IDLE_TIMEOUT_S = 60.0
#: Longest time to receive a request body (not an upload).
BODY_TIMEOUT_S = 30.0
#: Longest time to receive an upload (graphs, zips, point sets).
UPLOAD_BODY_TIMEOUT_S = 3600.0

_ROUTER_UPLOAD = re.compile(r"/otp/routers/[^/?]+/?")
_POINTSET_UPLOAD = re.compile(r"/otp/pointsets/?")


def body_limit(config: ServiceConfig, method: str, path: str) -> tuple[int, bool]:
    """The largest body a request may send, and whether it is an upload.

    Parameters
    ----------
    config
        The service configuration (``max_upload_bytes``, ``max_pointset_bytes``).
    method, path
        The request's method and path (without the query).

    Returns
    -------
    tuple of (int, bool)

    Examples
    --------
    >>> body_limit(ServiceConfig(), "POST", "/otp/routers/default/index/graphql")
    (1048576, False)
    >>> body_limit(ServiceConfig(max_upload_bytes=10), "POST", "/otp/routers/x")
    (10, True)
    """
    if method in ("POST", "PUT") and _ROUTER_UPLOAD.fullmatch(path):
        return config.max_upload_bytes, True
    if method in ("POST", "PUT") and _POINTSET_UPLOAD.fullmatch(path):
        return config.max_pointset_bytes, True
    return MAX_PLAIN_BODY_BYTES, False


class _Refusal(httputil.HTTPMessageDelegate):
    """Answers 413 for a declared body over the limit, else hands everything on."""

    def __init__(
        self,
        inner: httputil.HTTPMessageDelegate,
        connection: httputil.HTTPConnection,
        config: ServiceConfig,
    ) -> None:
        self._inner = inner
        self._connection = connection
        self._config = config
        self._refused = False
        self._refused_finished = False

    def headers_received(
        self,
        start_line: httputil.RequestStartLine | httputil.ResponseStartLine,
        headers: httputil.HTTPHeaders,
    ) -> Awaitable[None] | None:
        assert isinstance(start_line, httputil.RequestStartLine)
        path = start_line.path.partition("?")[0]
        limit, upload = body_limit(self._config, start_line.method, path)
        conn = self._connection if isinstance(self._connection, HTTP1Connection) else None
        if conn is not None:
            conn.set_max_body_size(limit)
            if upload:
                conn.set_body_timeout(UPLOAD_BODY_TIMEOUT_S)
        declared = _content_length(headers.get("Content-Length"))
        if declared is None or declared <= limit:
            return self._inner.headers_received(start_line, headers)
        self._refused = True
        self._answer_413(declared, limit)
        continues = headers.get("Expect", "").lower() == "100-continue"
        if conn is not None and declared <= DRAIN_LIMIT_BYTES and not continues:
            # read the body into nothing, then finish (finish() now would close the
            # connection under a client still sending: a reset instead of the answer)
            conn.set_max_body_size(declared)
        else:  # too large to read, or a client that waits for "100 Continue": close now
            self._connection.finish()
            self._refused_finished = True
        return None

    def _answer_413(self, declared: int, limit: int) -> None:
        message = f"The request body of {declared} bytes exceeds the limit of {limit} bytes."
        body = json.dumps(
            {"status": 413, "error": "Payload Too Large", "message": message}
        ).encode()
        headers = httputil.HTTPHeaders(
            {
                "Content-Type": "application/json",
                "Content-Length": str(len(body)),
                "Connection": "close",
            }
        )
        start = httputil.ResponseStartLine("HTTP/1.1", 413, "Payload Too Large")
        self._connection.write_headers(start, headers, body)

    def data_received(self, chunk: bytes) -> Awaitable[None] | None:
        if self._refused:
            return None
        return self._inner.data_received(chunk)

    def finish(self) -> None:
        if not self._refused:
            self._inner.finish()
        elif not self._refused_finished:  # the refused body has been read and dropped
            self._refused_finished = True
            self._connection.finish()

    def on_connection_close(self) -> None:
        if not self._refused:
            self._inner.on_connection_close()


def _content_length(raw: str | None) -> int | None:
    if raw is None:
        return None
    text = raw.strip()
    if not text.isdigit():
        return None  # tornado answers a malformed Content-Length with a 400 itself
    if len(text) > 30:
        return DRAIN_LIMIT_BYTES + 1  # over every limit, too large to drain
    return int(text)


class LimitedHTTPServer(HTTPServer):
    """An ``HTTPServer`` that answers 413 early and bounds read times (module docstring)."""

    def initialize(self, *args: Any, config: ServiceConfig, **kwargs: Any) -> None:  # type: ignore[override]
        """Take tornado's arguments, the service configuration, and set the time bounds."""
        self._otpa_config = config
        kwargs.setdefault("max_body_size", MAX_PLAIN_BODY_BYTES)
        kwargs.setdefault("idle_connection_timeout", IDLE_TIMEOUT_S)
        kwargs.setdefault("body_timeout", BODY_TIMEOUT_S)
        super().initialize(*args, **kwargs)

    def start_request(
        self, server_conn: object, request_conn: httputil.HTTPConnection
    ) -> httputil.HTTPMessageDelegate:
        """Wrap the application's delegate in the body-size check."""
        inner = super().start_request(server_conn, request_conn)
        return _Refusal(inner, request_conn, self._otpa_config)
