"""``GET /otp/openapi.json``: the service's OpenAPI 3.1 document.

The document is generated from the application's own URL table and parameter
tables (:func:`service.openapi.openapi_document`) the first time it is asked
for, then cached for the life of the application (the URL table never changes).  It is built
leniently (an unnamed path group gets a generic name rather than failing the
request); ``tests/service/test_openapi.py`` builds it strictly.
"""

from __future__ import annotations

import json
import weakref
from typing import ClassVar

import tornado.web

from service.handlers.base import BaseHandler
from service.openapi import Operation, openapi_document

__all__ = ["OpenApiHandler"]

_CACHE: weakref.WeakKeyDictionary[tornado.web.Application, bytes] = weakref.WeakKeyDictionary()


def _document(app: tornado.web.Application) -> bytes:
    body = _CACHE.get(app)
    if body is None:
        body = json.dumps(openapi_document(app, strict=False), ensure_ascii=False).encode("utf-8")
        _CACHE[app] = body
    return body


class OpenApiHandler(BaseHandler):
    """Serves the OpenAPI 3.1 document of this server."""

    openapi: ClassVar[dict[str, Operation]] = {
        "get": Operation("This document (OpenAPI 3.1)", errors=())
    }

    def get(self) -> None:
        """Answer with the cached document."""
        self.set_header("Content-Type", "application/json")
        self.finish(_document(self.application))
