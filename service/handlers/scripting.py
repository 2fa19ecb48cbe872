"""``POST /otp/scripting/run``: run a Python script (multipart field ``scriptfile``).

Off unless the server configuration sets ``scripting_enabled`` (then 403 with
OTP 1.x's message), and only for users with the ROUTERS role (401 without
credentials; OTP ran scripts for anyone).  The script runs sandboxed
(:mod:`service.scripting.runner`) with the saved graphs of the loaded routers
and the ``otp`` entry object (:mod:`service.scripting.entry`); the answer is
its return value or CSV, a failing script is a 400 with its error, a limit
breach a 400 saying which limit.  At most two scripts run at once.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from tornado.routing import URLSpec
from tornado.web import url

from service.auth import ROLE_ROUTERS
from service.handlers.base import BaseHandler, ServiceContext
from service.openapi import Operation
from service.otp1.errors import ApiError
from service.scripting.runner import run_script

__all__ = ["DISABLED_MESSAGE", "MAX_CONCURRENT_SCRIPTS", "ScriptRunHandler", "scripting_urls"]

#: OTP 1.x's refusal (sic).
DISABLED_MESSAGE = "Scripting web-service is desactivated for security reasons."
#: Scripts one application runs at once (others wait for a slot).
MAX_CONCURRENT_SCRIPTS = 2


def scripting_urls(args: dict[str, Any]) -> list[URLSpec]:
    """The URL table row of the script runner (one set of run slots per application)."""
    slots = asyncio.Semaphore(MAX_CONCURRENT_SCRIPTS)
    return [url(r"/otp/scripting/run/?", ScriptRunHandler, {**args, "slots": slots})]


class ScriptRunHandler(BaseHandler):
    """``/otp/scripting/run`` (see the module docstring)."""

    openapi: ClassVar[dict[str, Operation]] = {
        "post": Operation(
            "Run an uploaded Python script (opt-in, ROUTERS role; 403 when disabled)",
            errors=(400, 401, 403, 413),
            request_body=("multipart/form-data",),
        )
    }

    def initialize(self, ctx: ServiceContext, slots: asyncio.Semaphore) -> None:  # type: ignore[override]
        """Receive the context and the application's run slots."""
        super().initialize(ctx)
        self._slots = slots

    async def post(self) -> None:
        """Run the uploaded script and answer with its result."""
        config = self.ctx.config
        if not config.scripting_enabled:
            raise ApiError(403, DISABLED_MESSAGE)
        await self.require_role(ROLE_ROUTERS)
        files = self.request.files.get("scriptfile")
        if not files:
            raise ApiError(400, "Multipart field scriptfile (a .py file) is required.")
        upload = files[0]
        filename = upload.get("filename") or "script.py"
        if not filename.lower().endswith(".py"):
            raise ApiError(400, f"Only Python scripts (.py) run here, not {filename[:80]!r}.")
        graphs = {}
        for router_id in self.registry.ids():
            path = self.registry.graph_path(router_id) if self.registry.graphs_dir else None
            if path is not None and path.is_file():
                graphs[router_id] = str(path)
        async with self._slots:
            result = await run_script(
                upload["body"],
                filename=filename,
                graphs=graphs,
                pointsets_dir=str(config.pointsets_dir) if config.pointsets_dir else None,
                time_limit_s=config.script_time_limit_s,
                memory_limit_bytes=config.script_memory_limit_bytes,
            )
        if result.status != 200:
            raise ApiError(result.status, result.body)
        self.set_header("Content-Type", result.content_type)
        self.finish(result.body.encode("utf-8"))
