"""Requests in flight, so that a stopping server can drain them before it exits.

On ``SIGTERM`` (:func:`service.server.serve`) the server stops accepting
connections, answers readiness with 503 (``draining``), waits until every
request it is handling has been answered (at most ``drain_timeout_s``) and only
then closes the remaining, idle, connections and exits.

A request counts from the moment its handler exists (its headers, or for a
non-streamed body its whole body, have arrived) until its answer is finished or
its client goes away.

Examples
--------
>>> import asyncio
>>> flight = InFlight()
>>> class Handler: ...
>>> token = Handler()
>>> flight.started(token)
>>> flight.count
1
>>> flight.finished(token)
>>> asyncio.run(flight.wait_idle(0.1))
True
"""

from __future__ import annotations

import asyncio
import time
import weakref

__all__ = ["InFlight"]

_POLL_S = 0.02


class InFlight:
    """The requests being handled now, and whether the server is draining.

    Only the event loop thread calls it (handlers run their callbacks there).  Handlers
    are held weakly: one that is garbage-collected without finishing no longer counts.
    """

    def __init__(self) -> None:
        self._active: weakref.WeakSet[object] = weakref.WeakSet()
        self.draining = False

    @property
    def count(self) -> int:
        """Requests in flight."""
        return len(self._active)

    def started(self, request: object) -> None:
        """Count ``request`` (a handler) as in flight."""
        self._active.add(request)

    def finished(self, request: object) -> None:
        """Count ``request`` as done (answered, or its client gone); idempotent."""
        self._active.discard(request)

    async def wait_idle(self, timeout_s: float) -> bool:
        """Wait until no request is in flight; False when ``timeout_s`` passed first."""
        deadline = time.monotonic() + timeout_s
        while self._active:
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(_POLL_S)
        return True
