"""The one error body of the service, and the table mapping library errors to statuses.

Every 4xx and 5xx answer of the service is JSON of one shape::

    {"status": 404, "error": "Not Found", "message": "Graph id 'x' not registered."}

Handlers raise :class:`ApiError` for errors they detect themselves.  Library
exceptions that escape a handler are mapped by :data:`EXCEPTION_STATUS`, the
single table of "which otpa error means which HTTP status"; anything else is a
500 whose body never carries a traceback.
"""

from __future__ import annotations

from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

import tornado.web

from otpa.errors import (
    ArgumentTypeError,
    GraphFormatError,
    GtfsError,
    InvalidArgumentError,
    NetworkBuildError,
    OsmError,
    OutOfRangeError,
    UnknownIdError,
    UnknownNameError,
)
from otpa.routing.errors import InvalidRequestError, SearchTimeoutError
from service.registry import InvalidRouterIdError, NoGraphsDirError
from service.storage import UnsafeArchiveError

__all__ = [
    "EXCEPTION_STATUS",
    "WWW_AUTHENTICATE",
    "ApiError",
    "error_body",
    "reason_phrase",
    "status_for_exception",
]

#: The challenge OTP 1.x sent with every 401.
WWW_AUTHENTICATE = 'Basic realm="OpenTripPlanner"'

#: Library and service exceptions that mean a client error, most specific first.
EXCEPTION_STATUS: tuple[tuple[type[BaseException], int], ...] = (
    (InvalidRouterIdError, 400),
    (UnsafeArchiveError, 400),
    (GraphFormatError, 400),
    (GtfsError, 400),
    (OsmError, 400),
    (NetworkBuildError, 400),
    (InvalidRequestError, 400),
    (InvalidArgumentError, 400),
    (ArgumentTypeError, 400),
    (UnknownNameError, 400),
    (OutOfRangeError, 400),
    (UnknownIdError, 404),
    (NoGraphsDirError, 409),
    (SearchTimeoutError, 504),  # a search that stopped at the request's time limit
)


class ApiError(tornado.web.HTTPError):
    """An error answer decided by a handler: status, message and extra headers.

    Parameters
    ----------
    status
        The HTTP status code.
    message
        A sentence for the client; it becomes the ``message`` of the JSON body.
    headers
        Extra response headers (``WWW-Authenticate`` for 401s).
    """

    def __init__(self, status: int, message: str, *, headers: Mapping[str, str] | None = None):
        super().__init__(status)
        self.message = message
        self.headers: dict[str, str] = dict(headers or {})

    def __str__(self) -> str:
        return f"HTTP {self.status_code}: {self.message}"


def reason_phrase(status: int) -> str:
    """Return the standard reason phrase of an HTTP status (``"Unknown"`` if none)."""
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


def error_body(status: int, message: str) -> dict[str, Any]:
    """Return the JSON error body used by every error answer of the service.

    Parameters
    ----------
    status
        The HTTP status code.
    message
        What went wrong, in words meant for the client.

    Returns
    -------
    dict
        ``{"status": status, "error": <reason phrase>, "message": message}``.

    Examples
    --------
    >>> error_body(404, "Graph id 'x' not registered.")
    {'status': 404, 'error': 'Not Found', 'message': "Graph id 'x' not registered."}
    """
    return {"status": status, "error": reason_phrase(status), "message": message}


def status_for_exception(exc: BaseException | None) -> int | None:
    """Return the HTTP status an escaped exception maps to, or None (a server error)."""
    if exc is None:
        return None
    for exc_type, status in EXCEPTION_STATUS:
        if isinstance(exc, exc_type):
            return status
    return None
