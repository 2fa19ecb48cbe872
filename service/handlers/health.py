"""``GET /otp/health`` (liveness) and ``GET /otp/health/ready`` (readiness) for operators.

Liveness answers 200 whenever the event loop runs, with the counters of the two work
pools (``work``: threads, queue, pending now; requests shed with 503, timed out and
completed so far; :mod:`service.workpools`) and of memory (``memory``: heap trims, and
retired networks -- reloaded or evicted -- still alive; :mod:`service.memory`).
Readiness answers 200 once every configured router is loaded (or, with none configured,
at least one router is), and 503 with the missing router ids otherwise, so a load
balancer sends no traffic to a server that cannot plan yet; a server draining its
requests before it stops (SIGTERM) answers 503 with ``draining: true``.  Both are cheap
and never touch a network.
"""

from __future__ import annotations

from typing import ClassVar

from service.drain import InFlight
from service.handlers.base import BaseHandler
from service.memory import MemoryReleaser
from service.openapi import Operation

__all__ = ["LivenessHandler", "ReadinessHandler"]


class LivenessHandler(BaseHandler):
    """``{"status": "UP"}`` while the server answers at all."""

    openapi: ClassVar[dict[str, Operation]] = {
        "get": Operation("Liveness: 200 while the server answers", response="Health", errors=())
    }

    def get(self) -> None:
        """Answer 200 with the work pools' counters."""
        self.set_header("Cache-Control", "no-store")
        body: dict[str, object] = {"status": "UP", "work": self.ctx.pools.stats()}
        memory = self.application.settings.get("otpa_memory")
        if isinstance(memory, MemoryReleaser):  # retired networks still alive, heap trims
            body["memory"] = memory.stats()
        self.write_json(body)


class ReadinessHandler(BaseHandler):
    """``UP`` with the loaded routers, or 503 ``DOWN`` naming the routers still missing."""

    openapi: ClassVar[dict[str, Operation]] = {
        "get": Operation(
            "Readiness: 200 once the routers are loaded, 503 naming those missing",
            response="Health",
            errors=(),
            other=((503, "Health"),),
        )
    }

    def get(self) -> None:
        """Answer 200 when ready, 503 otherwise."""
        loaded = self.registry.ids()
        wanted = list(self.ctx.config.routers)
        missing = [rid for rid in wanted if rid not in loaded]
        inflight = self.settings.get("otpa_inflight")
        draining = isinstance(inflight, InFlight) and inflight.draining
        ready = not missing and bool(loaded) and not draining
        body: dict[str, object] = {"status": "UP" if ready else "DOWN", "routers": loaded}
        if missing:
            body["missing"] = missing
        if draining:
            body["draining"] = True
        self.set_header("Cache-Control", "no-store")
        if not ready:
            self.set_header("Retry-After", "5")
        self.write_json(body, 200 if ready else 503)
