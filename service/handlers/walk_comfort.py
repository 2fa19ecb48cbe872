"""``GET /otp/routers/{id}/walk_comfort``: reload the walk-comfort rules of every router.

ibi-group's endpoint: for every loaded router, ``<graphs>/<routerId>/walk-config.json`` is
read (:mod:`otpa.walkcomfort`) and put in force; a router without the file loses its rules
(every factor back to 1), as ibi's recomputation did.  The answer is ibi's::

    {"success": true, "routers": [{"routerId": "pdx", "edgesUpdated": 3956, "rulesLoaded": 1}],
     "time": 6}

``edgesUpdated`` counts the router's walkable street edges (0 for a graph that keeps no OSM
tags); ``time`` is milliseconds.  Differences from ibi: the path's router id must exist
(404 otherwise) and the request needs a user with the ROUTERS role, as other writes (ibi's
left this state change open to anyone); a configuration that cannot be read is a 400 that
names the router and lists every problem, and then no router's rules change.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, ClassVar

from otpa.network import TransportNetwork
from otpa.walkcomfort import (
    WALK_CONFIG_FILENAME,
    WalkComfortConfigError,
    WalkComfortRules,
    load_walk_config,
    set_walk_comfort_rules,
)
from service.auth import ROLE_ROUTERS
from service.handlers.base import BaseHandler
from service.openapi import Operation
from service.otp1.errors import ApiError
from service.registry import RouterRegistry

__all__ = ["WalkComfortHandler", "reload_walk_comfort"]


def _rules_of(graphs_dir: Path | None, router_id: str) -> WalkComfortRules | None:
    if graphs_dir is None:
        return None
    path = graphs_dir / router_id / WALK_CONFIG_FILENAME
    try:
        return load_walk_config(path)
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
    except OSError as exc:
        raise WalkComfortConfigError([f"cannot read {WALK_CONFIG_FILENAME}: {exc}"]) from None


def reload_walk_comfort(registry: RouterRegistry) -> list[dict[str, Any]]:
    """Read every router's ``walk-config.json`` and, if all are usable, put them in force.

    Raises
    ------
    ApiError
        400 when a configuration cannot be used (nothing changes then).
    """
    routers: list[tuple[str, TransportNetwork]] = sorted(registry.items(), key=lambda r: r[0])
    loaded: list[tuple[str, TransportNetwork, WalkComfortRules | None]] = []
    for router_id, network in routers:
        try:
            loaded.append((router_id, network, _rules_of(registry.graphs_dir, router_id)))
        except WalkComfortConfigError as exc:
            msg = f"Router '{router_id}': {WALK_CONFIG_FILENAME} is unusable: {exc}."
            raise ApiError(400, msg) from None
    out = []
    for router_id, network, rules in loaded:
        update = set_walk_comfort_rules(network, rules)
        out.append(
            {
                "routerId": router_id,
                "edgesUpdated": update.edges_updated,
                "rulesLoaded": update.rules_loaded,
            }
        )
    return out


class WalkComfortHandler(BaseHandler):
    """``GET /otp/routers/{routerId}/walk_comfort`` (see the module docstring)."""

    admin_methods = frozenset({"GET"})  # reloads every router's rules
    openapi: ClassVar[dict[str, Operation]] = {
        "get": Operation(
            "Reload every router's walk-comfort rules (ROUTERS role)", errors=(401, 403, 404)
        )
    }

    async def get(self, router_id: str) -> None:
        """Reload the walk-comfort rules of every router."""
        await self.require_role(ROLE_ROUTERS)
        self.registry.lookup(router_id)
        start = time.perf_counter()
        routers = await self.run_blocking(reload_walk_comfort, self.registry)
        elapsed_ms = round((time.perf_counter() - start) * 1000.0)
        self.write_json({"success": True, "routers": routers, "time": elapsed_ms})
