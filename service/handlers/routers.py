"""``/otp/routers`` and ``/otp/routers/{routerId}``: list, inspect, load, upload, save, evict.

Reads are public.  Writes (PUT, POST, DELETE) need a user with the ROUTERS
role, as OTP 1.x's ``@RolesAllowed("ROUTERS")``.  Success bodies are OTP's short
texts (``graph registered.\\n``...); every error is the service's JSON error body.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import tornado.web
from tornado.http1connection import HTTP1Connection

from otpa.errors import GraphFormatError
from service.auth import ROLE_ROUTERS
from service.handlers.base import BaseHandler
from service.openapi import Operation, Param
from service.otp1.errors import ApiError
from service.otp1.router_info import router_info_xml, router_list_xml
from service.registry import GRAPH_FILE, UnknownRouterError
from service.storage import StagedUpload, build_from_zip

__all__ = ["SAVE_PATH_ID", "RouterHandler", "RouterListHandler"]

#: ``POST /otp/routers/save`` is OTP's "store this graph file" endpoint, not a router id.
SAVE_PATH_ID = "save"
_WRITE_METHODS = frozenset({"PUT", "POST", "DELETE"})
_GRAPH_TYPES = frozenset({"application/octet-stream"})
_ZIP_TYPES = frozenset({"application/zip", "application/x-zip-compressed"})
_ADMIN = (400, 401, 403, 404, 409)
_TRUE = {"type": "boolean", "default": True}
_PRE_EVICT = Param("preEvict", _TRUE, "evict the old graph before loading the new one")


class RouterListHandler(BaseHandler):
    """``/otp/routers``: list all routers, reload all from disk, evict all."""

    admin_methods = frozenset({"PUT", "POST", "DELETE"})  # graph loads: heavy, no time limit

    openapi: ClassVar[dict[str, Operation]] = {
        "get": Operation("Every router's RouterInfo", response="RouterList", xml=True, errors=()),
        "put": Operation(
            "Reload every graph of the graphs folder (ROUTERS role)",
            query=(_PRE_EVICT, Param("force", _TRUE, "reload graphs already loaded")),
            errors=_ADMIN,
        ),
        "delete": Operation(
            "Evict every router (ROUTERS role)", media_type="text/plain", errors=(401, 403)
        ),
    }

    async def prepare(self) -> None:
        """Authenticate writes."""
        if self.request.method in _WRITE_METHODS:
            await self.require_role(ROLE_ROUTERS)

    async def get(self) -> None:
        """List every router's RouterInfo."""
        infos = [await self.router_info(rid, net) for rid, net in self.registry.items()]
        body = {"routerInfo": infos}
        self.respond("RouterList", body, lambda: router_list_xml(body))

    async def put(self) -> None:
        """Reload every graph found in the graphs folder (200, empty body, as OTP)."""
        pre_evict = self.bool_argument("preEvict", default=True)
        force = self.bool_argument("force", default=True)
        self.registry.require_graphs_dir()
        report = await self.run_blocking(self.registry.reload_all, pre_evict=pre_evict, force=force)
        if report.failed:
            self.set_header("X-Otpa-Failed-Routers", ",".join(sorted(report.failed)))
        self.set_status(200)
        self.set_header("Content-Type", "application/json")
        self.finish()

    def delete(self) -> None:
        """Evict every router."""
        count = self.registry.evict_all()
        self.write_text(f"{count} graphs evicted.\n")


@tornado.web.stream_request_body
class RouterHandler(BaseHandler):
    """``/otp/routers/{routerId}`` (and ``POST /otp/routers/save``)."""

    admin_methods = frozenset({"PUT", "POST", "DELETE"})  # graph loads: heavy, no time limit

    openapi: ClassVar[dict[str, Operation]] = {
        "get": Operation("One router's RouterInfo", response="RouterInfo", xml=True),
        "put": Operation(
            "Load the router's graph from the graphs folder (ROUTERS role)",
            query=(_PRE_EVICT,),
            media_type="text/plain",
            errors=_ADMIN,
        ),
        "post": Operation(
            "Upload a graph, or a GTFS/OSM zip to build one (ROUTERS role); "
            "routerId=save stores a graph without loading it",
            query=(Param("routerId", {"type": "string"}, "with routerId=save: the target"),),
            status=201,
            media_type="text/plain",
            errors=(*_ADMIN, 413, 415),
            request_body=("application/octet-stream", *sorted(_ZIP_TYPES)),
        ),
        "delete": Operation(
            "Evict the router (ROUTERS role)", media_type="text/plain", errors=(401, 403, 404)
        ),
    }

    _upload: StagedUpload | None = None
    _kind = ""  # "graph", "zip" or "save"
    _target = ""
    _posting = False

    async def prepare(self) -> None:
        """Authenticate writes; for POST, check the target and type, then open the staging file."""
        if self.request.method not in _WRITE_METHODS:
            return
        await self.require_role(ROLE_ROUTERS)
        if self.request.method == "POST":
            self._kind, self._target = self._classify_upload(self.path_args[0])
            self._upload = self._begin_upload()

    def _classify_upload(self, router_id: str) -> tuple[str, str]:
        media = self.request.headers.get("Content-Type", "").partition(";")[0].strip().lower()
        if router_id == SAVE_PATH_ID:
            target = self.get_query_argument("routerId", None)
            if not target:
                raise ApiError(400, "POST /otp/routers/save needs a routerId query parameter.")
            kind, allowed = "save", _GRAPH_TYPES
        else:
            target, allowed = router_id, _GRAPH_TYPES | _ZIP_TYPES
            kind = "zip" if media in _ZIP_TYPES else "graph"
        if media not in allowed:
            accepted = " or ".join(sorted(allowed))
            raise ApiError(
                415, f"Content-Type {media or '(none)'} is not accepted here; send {accepted}."
            )
        if kind == "zip" and self.ctx.builder is None:
            msg = (
                "Building a graph from an uploaded GTFS/OSM zip is not available in this "
                "version; upload a saved graph as application/octet-stream."
            )
            raise ApiError(415, msg)
        return kind, self.registry.write_target(target)

    def _begin_upload(self) -> StagedUpload:
        limit = self.ctx.config.max_upload_bytes
        declared = self.request.headers.get("Content-Length")
        if declared is not None:
            try:
                size = int(declared)
            except ValueError:
                raise ApiError(400, "Invalid Content-Length header.") from None
            if size > limit:
                raise ApiError(413, f"Upload of {size} bytes exceeds the limit of {limit} bytes.")
        if isinstance(self.request.connection, HTTP1Connection):
            self.request.connection.set_max_body_size(limit)
        suffix = ".zip" if self._kind == "zip" else ".graph"
        return StagedUpload(self.registry.staging_dir(), self._target, suffix)

    def data_received(self, chunk: bytes) -> None:
        """Stream the body into the staging file."""
        if self._upload is not None:
            self._upload.write(chunk)

    def on_connection_close(self) -> None:
        """Drop a half-received upload."""
        super().on_connection_close()
        if self._upload is not None and not self._posting:
            self._upload.discard()

    def on_finish(self) -> None:
        """Remove the staging file if it was not installed."""
        if self._upload is not None:
            self._upload.discard()

    async def get(self, router_id: str) -> None:
        """Answer with the RouterInfo of one router."""
        canonical, network = self.registry.lookup(router_id)
        info = await self.router_info(canonical, network)
        self.respond("RouterInfo", info, lambda: router_info_xml(info))

    async def put(self, router_id: str) -> None:
        """(Re)load ``<graphs_dir>/<id>/graph``; the old graph serves until the new one loaded."""
        self.bool_argument("preEvict", default=True)  # accepted; swaps are atomic anyway
        target = self.registry.write_target(router_id)
        was_registered = target in self.registry
        try:
            _, replaced = await self.run_blocking(self.registry.load, target)
        except FileNotFoundError:
            msg = f"graph not found: no file {target}/{GRAPH_FILE} in the graphs directory."
            raise ApiError(404, msg) from None
        except GraphFormatError as exc:
            kept = " The previously loaded graph is still serving." if was_registered else ""
            raise ApiError(404, f"graph not loaded: {exc}.{kept}") from None
        self.write_text(
            "graph already registered, reloaded.\n" if replaced else "graph registered.\n", 201
        )

    async def post(self, router_id: str) -> None:
        """Install an uploaded graph (or build one from a zip); or, for ``save``, only store it."""
        upload = self._upload
        if upload is None:  # prepare always opens one for POST
            raise ApiError(500, "upload was not staged")
        self._posting = True
        try:
            staged = await self.run_blocking(upload.finish)
            if self._kind == "zip":
                await self._build_and_register(staged)
                return
            register = self._kind != "save"
            try:
                await self.run_blocking(
                    self.registry.install, self._target, staged, register=register
                )
            except GraphFormatError as exc:
                detail = str(exc).replace(str(staged), "upload")
                raise ApiError(
                    400, f"The uploaded body is not a valid otpa graph: {detail}"
                ) from None
            self.write_text("graph registered.\n" if register else "graph saved.\n", 201)
        finally:
            upload.discard()

    async def _build_and_register(self, staged_zip: Path) -> None:
        builder = self.ctx.builder
        if builder is None:
            raise ApiError(415, "Building graphs from zip uploads is not available.")
        network = await self.run_blocking(
            build_from_zip,
            staged_zip,
            self.registry.staging_dir(),
            builder,
            max_total_bytes=self.ctx.config.max_unzipped_bytes,
        )
        await self.run_blocking(self.registry.adopt, self._target, network)
        self.write_text("graph registered.\n", 201)

    def delete(self, router_id: str) -> None:
        """Evict one router."""
        try:
            self.registry.evict(router_id)
        except UnknownRouterError:
            raise ApiError(
                404, f"graph did not exist: Graph id '{router_id}' not registered."
            ) from None
        self.write_text("graph evicted.\n")
