"""otpa's HTTP service: the OpenTripPlanner 1.x REST API over Tornado.

A thin layer: handlers parse requests, call the public ``otpa`` API (off the
event loop when slow) and serialize OTP 1.x responses.  Entry points:

* :func:`service.app.make_app` — the Tornado application (whole URL table);
* :func:`service.server.serve` / :func:`service.server.start_in_thread`;
* :func:`service.config.load_config` — the frozen :class:`ServiceConfig`.

The names below are imported lazily, so ``python -m service.auth`` and other
submodules load without pulling in the whole service.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from service.app import make_app
    from service.config import ServiceConfig, load_config
    from service.registry import RouterRegistry
    from service.server import serve, start_in_thread

__all__ = ["RouterRegistry", "ServiceConfig", "load_config", "make_app", "serve", "start_in_thread"]

_HOMES = {
    "RouterRegistry": "service.registry",
    "ServiceConfig": "service.config",
    "load_config": "service.config",
    "make_app": "service.app",
    "serve": "service.server",
    "start_in_thread": "service.server",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        msg = f"module 'service' has no attribute {name!r}"
        raise AttributeError(msg)
    return getattr(importlib.import_module(home), name)
