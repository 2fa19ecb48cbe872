"""``GET /otp`` and ``/otp/``: ServerInfo."""

from __future__ import annotations

from typing import ClassVar

from service.handlers.base import BaseHandler
from service.openapi import Operation

__all__ = ["ServerInfoHandler"]


class ServerInfoHandler(BaseHandler):
    """Serves the ServerInfo object computed at start-up (JSON, or XML on request)."""

    openapi: ClassVar[dict[str, Operation]] = {
        "get": Operation("Server version and CPU (ServerInfo)", response="ServerInfo", xml=True)
    }

    def get(self) -> None:
        """Answer with ServerInfo."""
        self.respond("ServerInfo", self.ctx.server_info)
