"""What every handler shares: context, CORS, content negotiation, auth, errors.

Handlers are thin: parse the request, call the registry or the public otpa API
(in a worker thread when it is slow), serialize the answer.  Errors are raised,
never written by hand: :meth:`BaseHandler.write_error` turns them into the one
JSON error body of :mod:`service.otp1.errors`.

Slow work goes through :meth:`BaseHandler.run_blocking` into the handler's
bounded work pool (``work_pool``: ``light``, ``heavy`` or ``analysis``,
:mod:`service.workpools`):
a full pool sheds the request with ``503`` and ``Retry-After``; work still running
when the request's time (``request_time_limit_s``, counted from its arrival) is up
is abandoned with :class:`RequestTimeLimitError` (``504``; ``/plan`` answers OTP's
``REQUEST_TIMEOUT`` error instead).  The job runs under that limit as a search deadline
(:mod:`otpa.routing.deadline`): a plan stops itself between its steps and frees its
thread instead of computing an answer nobody reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import logging
import os
import re
import threading
import time
import uuid
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, TypeVar

import tornado.web

from otpa.mobility import live_station_count
from otpa.routing.deadline import search_deadline
from service.auth import check_credentials, parse_basic_authorization
from service.config import ServiceConfig
from service.drain import InFlight
from service.otp1.errors import WWW_AUTHENTICATE, ApiError, error_body, status_for_exception
from service.otp1.router_info import router_info
from service.otp1.serialize import dumps_json
from service.otp1.xml import prefers_xml, to_xml, xml_media_type
from service.registry import RouterRegistry
from service.workpools import PoolFullError, PoolName, WorkPools

if TYPE_CHECKING:
    from otpa.network import TransportNetwork

__all__ = [
    "RETRY_AFTER_S",
    "STOP_GRACE_S",
    "Answer",
    "BaseHandler",
    "Builder",
    "NotFoundHandler",
    "RequestTimeLimitError",
    "ServiceContext",
    "encode_answer",
    "pools_from_config",
    "request_done",
]

logger = logging.getLogger(__name__)

#: A client-supplied ``X-Request-Id`` is echoed only when it looks like an id.
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")

T = TypeVar("T")
Builder = Callable[[Path], "TransportNetwork"]
_HTTP_METHODS = ("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS")
_TRUE = frozenset({"true", "1", "yes"})
_FALSE = frozenset({"false", "0", "no"})
_OTP_HTTP_BASIC_REFUSAL = (
    "OpenTripPlanner refuses to do basic auth without transport layer security (HTTPS)."
)
#: ``Retry-After`` (seconds) of a request shed because its work pool is full.
RETRY_AFTER_S = 1
#: How long past the time limit a request waits for its job to stop itself (a search
#: checks its deadline between steps) before it is answered without it.
STOP_GRACE_S = 0.25


def _within_deadline(deadline: float, job: Callable[[], T]) -> T:
    """Run ``job`` in this worker thread with the searches' deadline at ``deadline``."""
    with search_deadline(deadline - time.monotonic()):
        return job()


class _RequestIds:
    """Random ids as ``uuid.uuid4().hex``, with one ``os.urandom`` call per ``batch`` ids.

    ``os.urandom`` is a system call that lets go of the GIL; on the event loop, while
    plans hold the GIL, taking it back costs up to a switch interval (5 ms) per request.
    Drawing the random bytes of 256 ids at once makes that once per 256 requests; the
    ids are the same kind of version-4 UUIDs.
    """

    def __init__(self, batch: int = 256) -> None:
        self._batch = batch
        self._lock = threading.Lock()
        self._random = b""
        self._next = 0

    def new(self) -> str:
        """A new random id (32 hexadecimal digits)."""
        with self._lock:
            if self._next >= len(self._random):
                self._random, self._next = os.urandom(16 * self._batch), 0
            start = self._next
            self._next = start + 16
            raw = self._random[start : start + 16]
        return uuid.UUID(bytes=raw, version=4).hex


_REQUEST_IDS = _RequestIds()


class Answer(NamedTuple):
    """An encoded response body, ready to be written (:func:`encode_answer`).

    Attributes
    ----------
    media_type
        The ``Content-Type``: ``application/json``, or the negotiated XML type.
    body
        The encoded document.
    etag
        Tornado's ``Etag`` of ``body`` (the SHA-1 it would compute when finishing).
    """

    media_type: str
    body: bytes
    etag: str


def encode_answer(
    root: str,
    value: Mapping[str, Any],
    xml: Callable[[], Mapping[str, Any]] | None,
    accept: str | None,
) -> Answer:
    """Encode a response body as :meth:`BaseHandler.respond` writes it; safe in any thread.

    JSON (null fields omitted), or XML when the ``Accept`` header prefers it (OTP's
    ``qs=0.5``).  A handler whose body is large encodes it in its worker thread with
    this and finishes with :meth:`BaseHandler.finish_answer`, so the event loop only
    writes bytes (``/plan``: ``docs/performance.md``).

    Parameters
    ----------
    root
        XML root element name (``"RouterInfo"``...).
    value
        The object to serialize.
    xml
        Builds an XML-specific variant of ``value`` (only called for XML).
    accept
        The request's ``Accept`` header.

    Returns
    -------
    Answer
    """
    if prefers_xml(accept):
        body = to_xml(root, xml() if xml is not None else value)
        media_type = xml_media_type(accept)
    else:
        body, media_type = dumps_json(value), "application/json"
    return Answer(media_type, body, f'"{hashlib.sha1(body).hexdigest()}"')  # tornado's Etag


class RequestTimeLimitError(ApiError):
    """The request's work ran past the server's per-request time limit (504)."""

    def __init__(self, limit_s: float) -> None:
        super().__init__(
            504,
            f"The request took longer than the server's limit of {limit_s:g} s and was stopped.",
        )


def request_done(handler: tornado.web.RequestHandler) -> None:
    """Count a handler's request as no longer in flight (answered or abandoned)."""
    inflight = handler.application.settings.get("otpa_inflight")
    if isinstance(inflight, InFlight):
        inflight.finished(handler)


def pools_from_config(config: ServiceConfig) -> WorkPools:
    """The light, heavy and analysis work pools sized as the configuration says."""
    return WorkPools(
        light_workers=config.light_workers,
        light_queue=config.light_queue,
        heavy_workers=config.heavy_workers,
        heavy_queue=config.heavy_queue,
        analysis_workers=config.analysis_workers,
        analysis_queue=config.analysis_queue,
    )


@dataclass(frozen=True)
class ServiceContext:
    """The objects handlers work with, handed to each through ``initialize``.

    Attributes
    ----------
    config
        The frozen service configuration.
    registry
        The router registry.
    server_info
        The ServerInfo object, computed once at start-up.
    builder
        Folder of GTFS/OSM files → network, for zip uploads; None when unavailable.
    info_cache
        RouterInfo per loaded network (networks are immutable), filled and read
        on the event loop thread only; entries vanish with their network.
    pools
        The bounded light, heavy and analysis work pools (:mod:`service.workpools`).
    """

    config: ServiceConfig
    registry: RouterRegistry
    server_info: Mapping[str, Any]
    builder: Builder | None = None
    info_cache: weakref.WeakKeyDictionary[Any, dict[str, Any]] = field(
        default_factory=weakref.WeakKeyDictionary
    )
    pools: WorkPools = field(default_factory=WorkPools)


class BaseHandler(tornado.web.RequestHandler):
    """Base of all otpa handlers (see the module docstring)."""

    ctx: ServiceContext
    #: The work pool of :meth:`run_blocking` (``heavy`` for plans, ``analysis`` for analyses).
    work_pool: ClassVar[PoolName] = "light"
    #: Whether :meth:`run_blocking` stops waiting at the request time limit (not for
    #: graph loads, which take as long as they take).
    time_limited: ClassVar[bool] = True
    #: Methods whose work is administration (graph loads): the heavy pool, no time limit.
    admin_methods: ClassVar[frozenset[str]] = frozenset()
    #: The body written by :meth:`finish_answer`, whose hash is the ``Etag``.
    _otpa_answer: Answer | None = None

    def __init__(self, application: tornado.web.Application, request: Any, **kwargs: Any) -> None:
        """Create the handler and count its request as in flight (:mod:`service.drain`)."""
        super().__init__(application, request, **kwargs)
        inflight = application.settings.get("otpa_inflight")
        if isinstance(inflight, InFlight):
            inflight.started(self)

    def initialize(self, ctx: ServiceContext) -> None:
        """Receive the service context from the URL table."""
        self.ctx = ctx

    def on_connection_close(self) -> None:
        """The client went away: the request no longer holds a stopping server."""
        request_done(self)

    @property
    def registry(self) -> RouterRegistry:
        """The router registry."""
        return self.ctx.registry

    # -- CORS (as OTP's CorsFilter) ------------------------------------------------------------

    @property
    def request_id(self) -> str:
        """This request's id: the client's ``X-Request-Id`` when it is a plain token, else new.

        It is sent back in the ``X-Request-Id`` header of every answer, written in the access
        log, and put in the body of server errors so a report can be matched to the log.
        """
        rid: str | None = getattr(self, "_request_id", None)
        if rid is None:
            given = self.request.headers.get("X-Request-Id", "")
            rid = given if _REQUEST_ID.fullmatch(given) else _REQUEST_IDS.new()
            self._request_id = rid
        return rid

    def set_default_headers(self) -> None:
        """Add the request id and OTP's CORS headers to every response, errors included."""
        self.set_header("X-Request-Id", self.request_id)
        self._vary_on: list[str] = []
        if not self.settings.get("otpa_cors", True):
            return
        origin = self.request.headers.get("Origin")
        if origin:
            self.set_header("Access-Control-Allow-Origin", origin)
            self.vary_on("Origin")
        https = self.request.protocol == "https"
        self.set_header("Access-Control-Allow-Credentials", "true" if https else "false")

    def vary_on(self, header: str) -> None:
        """Add a request header to the response's single ``Vary`` header."""
        if header not in self._vary_on:
            self._vary_on.append(header)
        self.set_header("Vary", ", ".join(self._vary_on))

    def allowed_methods(self) -> list[str]:
        """The HTTP methods this handler implements."""
        base = tornado.web.RequestHandler
        return [
            m
            for m in _HTTP_METHODS
            if getattr(type(self), m.lower()) is not getattr(base, m.lower())
        ]

    def options(self, *args: str) -> None:
        """Answer a CORS preflight with 200, as OTP's filter did."""
        methods = ", ".join(self.allowed_methods())
        self.set_header("Allow", methods)
        if self.settings.get("otpa_cors", True):
            requested = self.request.headers.get("Access-Control-Request-Headers")
            if requested:
                self.set_header("Access-Control-Allow-Headers", requested)
            self.set_header("Access-Control-Allow-Method", "GET,POST")  # OTP's header, sic
            self.set_header("Access-Control-Allow-Methods", methods)
        self.clear_header("Content-Type")
        self.set_status(200)
        self.finish()

    # -- writing ------------------------------------------------------------------------------

    def write_json(self, value: Any, status: int = 200) -> None:
        """Finish with a JSON body (null fields omitted)."""
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.finish(dumps_json(value))

    def write_text(self, text: str, status: int = 200) -> None:
        """Finish with a plain-text body (OTP's admin answers)."""
        self.set_status(status)
        self.set_header("Content-Type", "text/plain; charset=UTF-8")
        self.finish(text.encode("utf-8"))

    def respond(
        self,
        root: str,
        value: Mapping[str, Any],
        xml: Callable[[], Mapping[str, Any]] | None = None,
    ) -> None:
        """Finish with JSON, or XML when the client's Accept header asks for it (OTP's qs=0.5).

        Parameters
        ----------
        root
            XML root element name (``"RouterInfo"``...).
        value
            The object to serialize.
        xml
            Builds an XML-specific variant of ``value`` (only called for XML).
        """
        self.finish_answer(encode_answer(root, value, xml, self.request.headers.get("Accept")))

    def finish_answer(self, answer: Answer) -> None:
        """Finish with a body encoded by :func:`encode_answer` (in a worker thread or here)."""
        self.vary_on("Accept")
        self.set_header("Content-Type", answer.media_type)
        self._otpa_answer = answer
        self.finish(answer.body)

    def compute_etag(self) -> str | None:
        """Tornado's ``Etag``, the SHA-1 of the body: the :class:`Answer`'s when it is the body.

        The answer's hash is computed where it was encoded (for ``/plan``, the worker
        thread), so the event loop does not hash large bodies; the value is the same.
        """
        answer, written = self._otpa_answer, self._write_buffer
        if answer is not None and len(written) == 1 and written[0] is answer.body:
            return answer.etag
        return super().compute_etag()

    # -- helpers ------------------------------------------------------------------------------

    async def run_blocking(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run slow library work in this handler's work pool, off the event loop.

        Raises
        ------
        ApiError
            503 with ``Retry-After`` when the pool is full, or the request would wait
            in its queue past its time limit (the request is shed).
        RequestTimeLimitError
            When the request's time limit (plus :data:`STOP_GRACE_S`) passes first
            (the job is cancelled if it has not started; a running one finishes in its
            thread, unread).
        otpa.routing.errors.SearchTimeoutError
            From a plan (or any search of :mod:`otpa.routing.deadline`) in the job that
            reached the request's time limit and stopped itself, freeing its thread.
        """
        admin = self.request.method in self.admin_methods
        pool = self.ctx.pools.pool("heavy" if admin else self.work_pool)
        limited = not admin and self.time_limited
        job = functools.partial(fn, *args, **kwargs)
        if limited:  # searches in the job stop themselves at the limit (otpa.routing.deadline)
            job = functools.partial(_within_deadline, time.monotonic() + self.time_left_s(), job)
        try:
            future = pool.submit(job, time_left_s=self.time_left_s() if limited else None)
        except PoolFullError as exc:
            raise ApiError(
                503,
                f"The server is busy ({exc.pool} requests); try again shortly.",
                headers={"Retry-After": str(RETRY_AFTER_S)},
            ) from None
        waiting = asyncio.wrap_future(future)
        if not limited:
            return await waiting
        try:
            # a search that stops at its deadline answers itself (SearchTimeoutError);
            # a job that cannot stop is abandoned a moment later
            return await asyncio.wait_for(waiting, self.time_left_s() + STOP_GRACE_S)
        except TimeoutError:
            future.cancel()
            pool.count_timeout()
            raise RequestTimeLimitError(self.ctx.config.request_time_limit_s) from None

    def time_left_s(self) -> float:
        """Seconds left of this request's time limit (``request_time_limit_s``)."""
        return max(self.ctx.config.request_time_limit_s - self.request.request_time(), 0.0)

    async def router_info(self, router_id: str, network: TransportNetwork) -> dict[str, Any]:
        """Return a router's RouterInfo, computed once per network in a worker thread."""
        cached = self._cached_info(network)
        if cached is None:
            cached = await self.run_blocking(router_info, router_id, network)
            with contextlib.suppress(TypeError):  # unhashable or not weak-referenceable
                self.ctx.info_cache[network] = cached
        live = live_station_count(network)  # GBFS stations arrive after the graph loads
        if live and not cached["hasBikeSharing"]:
            cached = await self.run_blocking(router_info, router_id, network, live)
        return {**cached, "routerId": router_id}

    def _cached_info(self, network: TransportNetwork) -> dict[str, Any] | None:
        try:
            return self.ctx.info_cache.get(network)
        except TypeError:
            return None

    def bool_argument(self, name: str, default: bool) -> bool:
        """Read a boolean query parameter (``true/false/1/0/yes/no``); 400 otherwise."""
        raw = self.get_query_argument(name, None)
        if raw is None or raw == "":
            return default
        value = raw.strip().lower()
        if value in _TRUE:
            return True
        if value in _FALSE:
            return False
        raise ApiError(400, f"Query parameter {name}={raw!r} is not a boolean (true or false).")

    async def require_role(self, role: str) -> str:
        """Authenticate the request with HTTP Basic and check it carries ``role``.

        Returns the user name.  Raises 403 when no users are configured (writes
        disabled) or the user lacks the role, 401 for missing or wrong credentials.
        """
        users = self.ctx.config.users
        if not users:
            raise ApiError(
                403,
                "Writes are disabled: no users are configured. Add users with the ROUTERS role "
                "to the service configuration (users:) or OTPA_USERS.",
            )
        challenge = {"WWW-Authenticate": WWW_AUTHENTICATE}
        credentials = parse_basic_authorization(self.request.headers.get("Authorization"))
        if credentials is None:
            raise ApiError(401, "Authentication required (HTTP Basic).", headers=challenge)
        if self.request.protocol != "https" and not self.ctx.config.allow_basic_auth_over_http:
            raise ApiError(401, _OTP_HTTP_BASIC_REFUSAL, headers=challenge)
        name, password = credentials
        user = await self.run_blocking(check_credentials, users, name, password)
        if user is None:
            msg = f"Incorrect password for OpenTripPlanner user '{name[:64]}'"
            raise ApiError(401, msg, headers=challenge)
        if role not in user.roles:
            raise ApiError(403, f"User '{user.name}' does not have the {role} role.")
        return user.name

    # -- errors -------------------------------------------------------------------------------

    def log_exception(
        self,
        typ: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Log unexpected exceptions with their traceback; mapped client errors only briefly."""
        if status_for_exception(value) is not None:
            logger.info("%s %s -> %s", self.request.method, self.request.uri, value)
            return
        if isinstance(value, tornado.web.HTTPError):
            super().log_exception(typ, value, tb)
            return
        logger.error(
            "request %s failed: %s %s",
            self.request_id,
            self.request.method,
            self.request.uri,
            exc_info=(typ, value, tb) if typ is not None and value is not None else None,
        )

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        """Write the JSON error body; never a traceback."""
        exc = kwargs["exc_info"][1] if "exc_info" in kwargs else None
        status, message = status_code, None
        mapped = status_for_exception(exc)
        if isinstance(exc, ApiError):
            message = exc.message
            for name, value in exc.headers.items():
                self.set_header(name, value)
        elif mapped is not None:
            status, message = mapped, self._redact(str(exc))
        elif isinstance(exc, tornado.web.HTTPError) and status_code < 500:
            message = self._http_error_message(exc)
        if status == 405:
            self.set_header("Allow", ", ".join(self.allowed_methods()))
        if message is None:
            message = "Internal server error." if status >= 500 else self._reason
        self.set_status(status)
        self.clear_header("Content-Type")
        body = error_body(status, message)
        if status >= 500:  # the log has the traceback under this id; the body never does
            body["requestId"] = self.request_id
        self.write_json(body, status)

    def _redact(self, message: str) -> str:
        """Hide the server's graphs folder path in messages sent to clients."""
        graphs_dir = self.ctx.config.graphs_dir
        return message.replace(str(graphs_dir), "<graphs_dir>") if graphs_dir else message

    def _http_error_message(self, exc: tornado.web.HTTPError) -> str:
        if exc.status_code == 405:
            return f"Method {self.request.method} is not allowed on {self.request.path}."
        if exc.status_code == 404:
            return f"No resource at {self.request.path}."
        if exc.log_message:
            return str(exc.log_message % exc.args if exc.args else exc.log_message)
        return self._reason


class NotFoundHandler(BaseHandler):
    """Answers every unknown path with a 404 JSON error."""

    def prepare(self) -> None:
        """Refuse the request whatever its method."""
        raise ApiError(404, f"No resource at {self.request.path}.")
