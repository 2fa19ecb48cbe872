"""Point sets: ``/otp/pointsets`` (list, upload) and ``/otp/pointsets/{id}``.

``GET /otp/pointsets``
    ``[{"id": ...}]``: the files of the configured folder and the uploads, by id.
``POST /otp/pointsets``
    Upload a point set: the body is CSV (``id``, ``lat``, ``lon`` and numeric opportunity
    columns; ``Content-Type: text/csv``) or a GeoJSON FeatureCollection
    (``application/json`` / ``application/geo+json``; other types are sniffed), at most
    ``max_pointset_bytes`` (413 beyond). Query ``id`` names it (letters, digits, ``_ . -``;
    default a generated ``upload-...``). 201 ``{"id", "n"}``. An invalid set is 400, an id in
    use (or too many uploads) 409; either way the registry is unchanged.
``GET /otp/pointsets/{id}``
    OTP's shape: ``{id, n}`` above 200 points, else the FeatureCollection with
    ``properties.structured`` per feature; 404 ``Invalid PointSet ID.``
"""

from __future__ import annotations

import uuid

from service.analyst.limits import AnalystLimits
from service.analyst.models import point_set_json
from service.analyst.params import name_param
from service.analyst.pointsets import PointSetConflictError, parse_point_set
from service.auth import ROLE_ROUTERS
from service.handlers.analyst_base import AnalystHandler
from service.openapi import Operation, Param
from service.otp1.errors import ApiError

__all__ = ["PointSetHandler", "PointSetsHandler"]


class PointSetsHandler(AnalystHandler):
    """``/otp/pointsets``: list (GET), upload (POST)."""

    @staticmethod
    def openapi_doc(lim: AnalystLimits) -> dict[str, Operation]:
        """List the point sets; upload one."""
        return {
            "get": Operation("The point set ids", errors=()),
            "post": Operation(
                f"Upload a point set, CSV or GeoJSON up to {lim.max_pointset_bytes} bytes "
                "(ROUTERS role)",
                query=(Param("id", {"type": "string"}, "the new point set's id"),),
                status=201,
                errors=(400, 401, 403, 409, 413),
                request_body=("text/csv", "application/geo+json", "application/json"),
                response="Created",
                creates="pointSetId",
            ),
        }

    async def get(self) -> None:
        """List the point-set ids."""
        ids = await self.run_blocking(self.analyst.pointsets.ids)
        self.write_json([{"id": point_set_id} for point_set_id in ids])

    async def post(self) -> None:
        """Validate an uploaded point set and keep it under a new id (role ROUTERS)."""
        await self.require_role(ROLE_ROUTERS)
        body = self.request.body
        limit = self.limits.max_pointset_bytes
        if len(body) > limit:
            raise ApiError(413, f"Point set upload of {len(body)} bytes exceeds {limit} bytes.")
        if not body.strip():
            raise ApiError(400, "Empty point set upload: send CSV or GeoJSON in the body.")
        point_set_id = name_param(self.query, "id", f"upload-{uuid.uuid4().hex[:12]}")
        content_type = self.request.headers.get("Content-Type")
        points = await self.compute(parse_point_set, body, content_type, point_set_id)
        try:
            await self.run_blocking(self.analyst.pointsets.add, point_set_id, points)
        except PointSetConflictError as exc:
            raise ApiError(409, f"{exc}.") from None
        self.write_json({"id": point_set_id, "n": len(points)}, status=201)


class PointSetHandler(AnalystHandler):
    """``/otp/pointsets/{id}``."""

    async def get(self, point_set_id: str) -> None:
        """Describe one point set (OTP's shape)."""
        points = await self.run_blocking(self.analyst.pointsets.get, point_set_id)
        if points is None:
            raise ApiError(404, f"Invalid PointSet ID: {point_set_id}.")
        self.write_json(point_set_json(point_set_id, points))
