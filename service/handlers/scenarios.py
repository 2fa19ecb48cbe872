"""``/otp/routers/{routerId}/scenarios``: list, read, create and delete stored scenarios.

=================================================  ===========================================
``GET /otp/routers/{id}/scenarios``                ``{scenarioId: description}`` (OTP 1.x)
``POST /otp/routers/{id}/scenarios``               create from a JSON document; 201 ``{"id"}``
``GET /otp/routers/{id}/scenarios/{scenarioId}``   the scenario's JSON document
``DELETE /otp/routers/{id}/scenarios/{id}``        remove it; 404 if unknown
=================================================  ===========================================

Writes need a user with the ROUTERS role, as router writes.  A document that cannot
be read, or does not fit the router's network (:meth:`Scenario.validate`), is a 400
whose JSON error body adds ``problems``: every problem, one sentence each.  Scenarios
are stored per router by :class:`otpa.analysis.scenario.ScenarioStore` in the
configured ``scenarios_dir`` (default: ``scenarios`` beside the graphs folder).

:func:`scenario_network` gives other endpoints (plan, profile, surfaces) the network
of a router with one of its scenarios applied, cached per graph and scenario.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import tornado.web
from tornado.routing import URLSpec

from otpa.analysis.scenario import Scenario, ScenarioError, ScenarioStore
from otpa.analysis.scenario.scenario import MAX_DOCUMENT_BYTES
from otpa.errors import UnknownIdError
from otpa.util.cache import OwnerCache
from service.auth import ROLE_ROUTERS
from service.config import ServiceConfig
from service.handlers.base import BaseHandler, ServiceContext
from service.openapi import Operation
from service.otp1.errors import ApiError, error_body

if TYPE_CHECKING:
    from otpa.network import TransportNetwork

__all__ = [
    "ScenarioHandler",
    "ScenarioListHandler",
    "ScenarioProblemsError",
    "scenario_network",
    "scenario_store",
    "scenario_urls",
]

logger = logging.getLogger(__name__)

#: Scenario networks kept per base network (least recently used dropped first).
MAX_CACHED_SCENARIOS = 4
_JSON_TYPES = frozenset({"application/json", "text/json", ""})
_NETWORKS: OwnerCache[tuple[str, str], TransportNetwork] = OwnerCache(
    max_entries=MAX_CACHED_SCENARIOS
)


class ScenarioProblemsError(ApiError):
    """An error answer that lists every problem of a scenario (``problems`` in the body)."""

    def __init__(self, status: int, message: str, problems: Sequence[str]) -> None:
        super().__init__(status, message)
        self.problems = tuple(problems)


def scenario_store(config: ServiceConfig) -> ScenarioStore | None:
    """The scenario store of the service: ``scenarios_dir``, else ``scenarios`` beside the graphs.

    None when neither is configured (scenarios cannot be stored).
    """
    folder: Path | None = config.scenarios_dir
    if folder is None and config.graphs_dir is not None:
        folder = config.graphs_dir.parent / "scenarios"
    return None if folder is None else ScenarioStore(folder)


def _get(store: ScenarioStore | None, router_id: str, scenario_id: str) -> Scenario:
    """A stored scenario; 404 when there is none (or the id cannot name one)."""
    missing = ApiError(404, f"Router '{router_id}' has no scenario '{scenario_id[:100]}'.")
    if store is None:
        raise missing
    try:
        return store.get(router_id, scenario_id)
    except UnknownIdError:
        raise missing from None
    except ScenarioError as exc:
        if exc.problems:  # a stored document that no longer reads
            msg = "The stored scenario cannot be read."
            raise ScenarioProblemsError(500, msg, exc.problems) from None
        raise missing from None  # not a valid id


def scenario_network(context: ServiceContext, router_id: str, scenario_id: str) -> TransportNetwork:
    """The network of a router with one of its stored scenarios applied.

    Blocking (applying a scenario is CPU work): call it in a worker thread, e.g.
    ``await self.run_blocking(scenario_network, self.ctx, router_id, scenario_id)``.
    Results are cached per loaded graph (weakly: a replaced or evicted graph drops its
    entries) and scenario document, so an edited scenario is applied afresh.

    Raises
    ------
    ApiError
        404 for an unknown router or scenario; 409 (with ``problems``) when the
        scenario no longer fits the router's current graph.
    """
    canonical, network = context.registry.lookup(router_id)
    scenario = _get(scenario_store(context.config), canonical, scenario_id)
    key = (scenario_id, scenario.to_json(indent=None))

    def apply() -> TransportNetwork:
        try:
            return scenario.apply(network)
        except ScenarioError as exc:
            problems = exc.problems or (str(exc),)
            msg = (
                f"Scenario '{scenario_id}' does not apply to the current graph of "
                f"'{canonical}': " + "; ".join(problems[:5])
            )
            raise ScenarioProblemsError(409, msg, problems) from None

    return _NETWORKS.get_or_build(network, key, apply)


def _forget(scenario_id: str) -> None:
    _NETWORKS.forget(lambda key: key[0] == scenario_id)


def scenario_urls(args: dict[str, Any]) -> list[URLSpec]:
    """The URL rules of the scenarios endpoints (to add to the application's table)."""
    prefix = r"/otp/routers/([^/]+)/scenarios"
    return [
        tornado.web.url(rf"{prefix}/?", ScenarioListHandler, args),
        tornado.web.url(rf"{prefix}/([^/]+)/?", ScenarioHandler, args),
    ]


class _ScenarioBase(BaseHandler):
    """Shared: authentication of writes and the ``problems`` in error bodies."""

    work_pool = "analysis"  # scenario graphs are copies of whole networks

    async def prepare(self) -> None:
        """Authenticate writes (ROUTERS role)."""
        if self.request.method in ("POST", "PUT", "DELETE"):
            await self.require_role(ROLE_ROUTERS)

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        """The service's JSON error body, plus ``problems`` for scenario errors."""
        exc = kwargs["exc_info"][1] if "exc_info" in kwargs else None
        if not isinstance(exc, ScenarioProblemsError):
            super().write_error(status_code, **kwargs)
            return
        body = {**error_body(exc.status_code, exc.message), "problems": list(exc.problems)}
        self.clear_header("Content-Type")
        self.write_json(body, exc.status_code)

    @property
    def store(self) -> ScenarioStore | None:
        """The scenario store (None when no folder is configured)."""
        return scenario_store(self.ctx.config)


def _list(store: ScenarioStore, router_id: str) -> dict[str, str]:
    """``{id: description}`` of a router's readable scenarios (the name when no description)."""
    folder = store.folder / router_id
    out: dict[str, str] = {}
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        try:
            scenario = store.get(router_id, path.stem)
        except (ScenarioError, UnknownIdError) as exc:
            logger.warning("skipping scenario file %s: %s", path, exc)
            continue
        out[path.stem] = scenario.description or scenario.name
    return out


class ScenarioListHandler(_ScenarioBase):
    """``/otp/routers/{routerId}/scenarios``: list (GET) and create (POST)."""

    openapi: ClassVar[dict[str, Operation]] = {
        "get": Operation("Every stored scenario id of the router, with its description"),
        "post": Operation(
            "Store a scenario (a JSON document checked against the router's network)",
            status=201,
            errors=(400, 401, 403, 404, 409, 413),
            request_body=("application/json",),
            body_schema="ScenarioDocument",
            response="Created",
            creates="scenarioId",
        ),
    }

    async def get(self, router_id: str) -> None:
        """Map every stored scenario id of the router to its description."""
        canonical, _ = self.registry.lookup(router_id)
        store = self.store
        listed = {} if store is None else await self.run_blocking(_list, store, canonical)
        self.write_json(listed)

    async def post(self, router_id: str) -> None:
        """Create a scenario from the JSON body, checked against the router's network."""
        canonical, network = self.registry.lookup(router_id)
        store = self.store
        if store is None:
            msg = "Scenarios cannot be stored: configure scenarios_dir (or graphs_dir)."
            raise ApiError(409, msg)
        scenario = self._document()
        problems = await self.run_blocking(scenario.validate, network)
        if problems:
            msg = f"Scenario '{scenario.name[:100]}' does not fit router '{canonical}'."
            raise ScenarioProblemsError(400, msg, problems)
        if scenario.id is not None and scenario.id in await self.run_blocking(
            _list, store, canonical
        ):
            raise ApiError(409, f"Router '{canonical}' already has a scenario '{scenario.id}'.")
        try:
            sid = await self.run_blocking(store.save, canonical, scenario)
        except ScenarioError as exc:
            raise ScenarioProblemsError(400, str(exc).split(":\n")[0], exc.problems) from None
        self.set_header("Location", f"{self.request.path.rstrip('/')}/{sid}")
        self.write_json({"id": sid}, 201)

    def _document(self) -> Scenario:
        media = self.request.headers.get("Content-Type", "").partition(";")[0].strip().lower()
        if media not in _JSON_TYPES:
            raise ApiError(
                415, f"Content-Type {media} is not accepted here; send application/json."
            )
        body = self.request.body
        if len(body) > MAX_DOCUMENT_BYTES:
            raise ApiError(413, f"Scenario documents are limited to {MAX_DOCUMENT_BYTES} bytes.")
        try:
            return Scenario.from_json(body)
        except ScenarioError as exc:
            problems = exc.problems or (str(exc),)
            raise ScenarioProblemsError(
                400, "The scenario document is invalid.", problems
            ) from None


class ScenarioHandler(_ScenarioBase):
    """``/otp/routers/{routerId}/scenarios/{scenarioId}``: read (GET) and delete (DELETE)."""

    openapi: ClassVar[dict[str, Operation]] = {
        "get": Operation("One stored scenario's JSON document"),
        "delete": Operation("Remove a stored scenario (ROUTERS role)", errors=(400, 401, 403, 404)),
    }

    async def get(self, router_id: str, scenario_id: str) -> None:
        """The scenario's JSON document."""
        canonical, _ = self.registry.lookup(router_id)
        scenario = await self.run_blocking(_get, self.store, canonical, scenario_id)
        self.write_json(scenario.to_dict())

    async def delete(self, router_id: str, scenario_id: str) -> None:
        """Remove a stored scenario (and the networks built from it)."""
        canonical, _ = self.registry.lookup(router_id)
        store = self.store
        await self.run_blocking(_get, store, canonical, scenario_id)  # 404 when unknown
        assert store is not None
        try:
            await self.run_blocking(store.delete, canonical, scenario_id)
        except UnknownIdError:
            raise ApiError(404, f"Router '{canonical}' has no scenario '{scenario_id}'.") from None
        _forget(scenario_id)
        self.write_json({"id": scenario_id, "deleted": True})
