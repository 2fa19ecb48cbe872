"""``GET /otp`` and ``/otp/``: ServerInfo."""

from __future__ import annotations

from service.handlers.base import BaseHandler

__all__ = ["ServerInfoHandler"]


class ServerInfoHandler(BaseHandler):
    """Serves the ServerInfo object computed at start-up (JSON, or XML on request)."""

    def get(self) -> None:
        """Answer with ServerInfo."""
        self.respond("ServerInfo", self.ctx.server_info)
