"""Stored time surfaces: ``/otp/surfaces`` and what can be read from them.

``POST /otp/surfaces``
    Query ``routerId`` (default router when absent), ``cutoffMinutes`` (default 90), every
    plan parameter, ``precisionMeters`` (200) or ``zoom`` (9..12: a web mercator grid of
    that zoom's pixels instead of lon/lat cells). Computes the surface of ``fromPlace`` on
    the grid it can reach within the cutoff and stores it (:class:`SurfaceStore`, LRU).
    200 with OTP's ``TimeSurfaceShort`` ``{id, params}``.
``GET /otp/surfaces``, ``/otp/surfaces/{id}``
    ``TimeSurfaceShort`` list / one; 404 ``Invalid surface ID.``
``GET /otp/surfaces/{id}/indicator``
    ``targets`` (a point-set id, required), ``detail``: OTP's indicator, one-minute
    histograms of each opportunity column (:mod:`otpa.analysis.indicator`); with ``detail``
    the ``times`` of the points, 2147483647 where unreachable (OTP's ``Integer.MAX_VALUE``).
``GET /otp/surfaces/{id}/isochrone``
    ``spacing`` (minutes; below 1: 30), ``nMax`` (1): nested isochrones every ``spacing``
    minutes, a GeoJSON FeatureCollection with ``properties.time``.
``GET /otp/surfaces/{id}/raster``
    ``width`` (1024), ``height`` (768), ``resolution`` (overrides both, in ``crs`` units),
    ``crs`` (EPSG:4326), ``format`` (``image/geotiff`` only), ``time`` (ignored): OTP's
    one-byte greyscale GeoTIFF of the travel times over the surface's grid (whole minutes
    capped at 120, 128 unreachable and nodata); ``units=seconds`` (otpa's parameter; default
    ``minutes``) gives float32 seconds with NaN nodata instead.
``GET /otp/surfaces/{id}/isotiles/{z}/{x}/{y}.png``
    256 x 256 PNG, style COLOR30.
``GET /otp/surfaces/{id}/differencetiles/{otherId}/{z}/{x}/{y}.png``
    256 x 256 PNG, style DIFFERENCE, of ``surface - other`` (any two surfaces, also of
    different routers or grids: both are read at the tile's pixels).

Unknown surfaces and point sets are 404 (OTP answered 400 for some).
"""

from __future__ import annotations

from otpa.analysis import compute_time_surface, isochrones, isochrones_geojson
from otpa.analysis.crs import UnknownCrsError
from otpa.analysis.indicator import indicator
from otpa.analysis.otp1.extent import GridTooLargeError, reach_grid
from otpa.analysis.otp1.raster import (
    RASTER_UNITS,
    RasterUnits,
    raster_shape,
    surface_geotiff,
)
from otpa.analysis.otp1.render import difference_pixels, render_tile, time_pixels
from otpa.analysis.otp1.tiles import tile_travel_times
from otpa.errors import InvalidArgumentError
from otpa.types import UInt8Array
from service.analyst.limits import AnalystLimits
from service.analyst.models import indicator_json, time_surface_short
from service.analyst.params import (
    bool_param,
    choice_param,
    first,
    int_param,
    optional_float_param,
)
from service.analyst.surfaces import StoredSurface
from service.handlers.analyst_base import AnalystHandler, int_query, tile_path
from service.openapi import Operation, Param
from service.otp1.errors import ApiError

__all__ = [
    "DifferenceTileHandler",
    "IndicatorHandler",
    "IsoTileHandler",
    "RasterHandler",
    "SurfaceHandler",
    "SurfaceIsochroneHandler",
    "SurfacesHandler",
]

_GRID_SIZE = "precisionMeters, zoom, cutoffMinutes"
_GEOTIFF_FORMATS = ("image/geotiff", "geotiff", "image/tiff", "tiff")


class _SurfaceHandler(AnalystHandler):
    """Looks surfaces up by the id in the path (404 when unknown)."""

    def surface(self, surface_id: str) -> StoredSurface:
        stored = self.analyst.surfaces.get(int(surface_id))
        if stored is None:
            raise ApiError(404, f"Invalid surface ID: {surface_id}.")
        return stored

    def tile(self, z_text: str, x_text: str, y_text: str) -> tuple[int, int, int]:
        return tile_path(z_text, x_text, y_text, self.limits.surface_tile_zooms)


class SurfacesHandler(_SurfaceHandler):
    """``/otp/surfaces``: list (GET), compute and store (POST)."""

    @staticmethod
    def openapi_doc(lim: AnalystLimits) -> dict[str, Operation]:
        """List the surfaces; compute one."""
        return {
            "get": Operation("The stored time surfaces", errors=()),
            "post": Operation(
                "Compute the time surface of fromPlace and store it",
                query=(
                    Param("routerId", {"type": "string", "default": "default"}),
                    int_query("cutoffMinutes", 90, 1, lim.max_time_s // 60),
                    int_query("precisionMeters", 200, lim.min_precision_m, lim.max_precision_m),
                    int_query("zoom", None, 9, 12, "a web-mercator grid instead of metres"),
                ),
                plan_query=True,
                creates="surfaceId",
            ),
        }

    def get(self) -> None:
        """List the stored surfaces."""
        self.write_json([time_surface_short(s) for s in self.analyst.surfaces.surfaces()])

    async def post(self) -> None:
        """Compute the surface of ``fromPlace`` and store it."""
        q, lim = self.query, self.limits
        router_id, network = self.registry.lookup(first(q, "routerId") or "default")
        cutoff = int_param(q, "cutoffMinutes", 90, lo=1, hi=lim.max_time_s // 60)
        precision = int_param(
            q, "precisionMeters", 200, lo=lim.min_precision_m, hi=lim.max_precision_m
        )
        zoom = int_param(q, "zoom", 0, lo=9, hi=12) if first(q, "zoom") else None
        aq = self.read_analysis(network, max_time_s=cutoff * 60)
        try:
            grid = reach_grid(
                network, *aq.origin, aq.request, cell_size_m=precision, zoom=zoom,
                max_cells=lim.max_cells,
            )  # fmt: skip
        except GridTooLargeError as exc:
            raise ApiError(400, f"Request too large ({_GRID_SIZE}): {exc}.") from None
        dataset = await self.compute(
            compute_time_surface,
            network,
            aq.origin,
            target=grid,
            request=aq.request,
            size_parameter=_GRID_SIZE,
        )
        stored = self.analyst.surfaces.add(router_id, self.params_summary(), cutoff, dataset)
        self.write_json(time_surface_short(stored))


class SurfaceHandler(_SurfaceHandler):
    """``/otp/surfaces/{id}``."""

    def get(self, surface_id: str) -> None:
        """Describe one surface."""
        self.write_json(time_surface_short(self.surface(surface_id)))


class IndicatorHandler(_SurfaceHandler):
    """``/otp/surfaces/{id}/indicator``."""

    @staticmethod
    def openapi_doc(lim: AnalystLimits) -> dict[str, Operation]:
        """The surface at a point set."""
        return {
            "get": Operation(
                "The surface evaluated at a point set (one-minute histograms)",
                query=(
                    Param("targets", {"type": "string"}, "a point set id", required=True),
                    Param("detail", {"type": "boolean", "default": False}),
                ),
            )
        }

    async def get(self, surface_id: str) -> None:
        """Evaluate the surface at a point set: OTP's one-minute histograms."""
        stored = self.surface(surface_id)
        targets = first(self.query, "targets")
        if targets is None:
            raise ApiError(400, "Query parameter targets (a point set id) is required.")
        detail = bool_param(self.query, "detail", False)
        points = await self.run_blocking(self.analyst.pointsets.get, targets)
        if points is None:
            raise ApiError(404, f"Invalid PointSet ID: {targets}.")
        result = await self.compute(indicator, stored.dataset, points)
        self.write_json(indicator_json(result, f"{targets}_{stored.id}", detail=detail))


class SurfaceIsochroneHandler(_SurfaceHandler):
    """``/otp/surfaces/{id}/isochrone``."""

    @staticmethod
    def openapi_doc(lim: AnalystLimits) -> dict[str, Operation]:
        """Nested isochrones of a stored surface."""
        return {
            "get": Operation(
                "Nested isochrones of the surface (GeoJSON FeatureCollection)",
                query=(
                    int_query("spacing", 0, 0, lim.max_time_s // 60, "minutes; below 1: 30"),
                    int_query("nMax", 1, 1, lim.max_cutoffs),
                ),
            )
        }

    async def get(self, surface_id: str) -> None:
        """Nested isochrones every ``spacing`` minutes, ``nMax`` of them."""
        stored = self.surface(surface_id)
        q, lim = self.query, self.limits
        spacing = int_param(q, "spacing", 0, hi=lim.max_time_s // 60)
        spacing = 30 if spacing < 1 else spacing
        n_max = int_param(q, "nMax", 1, lo=1, hi=lim.max_cutoffs)
        if spacing * n_max * 60 > lim.max_time_s:
            msg = (
                f"Request too large (spacing, nMax): isochrones up to {spacing * n_max} minutes, "
                f"more than {lim.max_time_s // 60}."
            )
            raise ApiError(400, msg)
        cutoffs = [spacing * 60 * (k + 1) for k in range(n_max)]
        frame = await self.compute(isochrones, stored.dataset, cutoffs)
        self.write_json(isochrones_geojson(frame))


class RasterHandler(_SurfaceHandler):
    """``/otp/surfaces/{id}/raster``."""

    @staticmethod
    def openapi_doc(lim: AnalystLimits) -> dict[str, Operation]:
        """A GeoTIFF of the surface."""
        return {
            "get": Operation(
                "The surface's travel times as a GeoTIFF",
                query=(
                    Param("format", {"type": "string", "default": "image/geotiff"}),
                    int_query("width", 1024, 1, lim.max_raster_pixels),
                    int_query("height", 768, 1, lim.max_raster_pixels),
                    Param("resolution", {"type": "number", "exclusiveMinimum": 0}),
                    Param("crs", {"type": "string", "default": "EPSG:4326"}),
                    Param("units", {"enum": list(RASTER_UNITS), "default": "minutes"}),
                ),
                media_type="image/geotiff",
            )
        }

    async def get(self, surface_id: str) -> None:
        """A GeoTIFF of the surface's travel times."""
        stored = self.surface(surface_id)
        q = self.query
        fmt = first(q, "format") or "image/geotiff"
        if fmt.lower() not in _GEOTIFF_FORMATS:
            raise ApiError(400, f"unsupported image format {fmt!r}: rasters are image/geotiff.")
        width = int_param(q, "width", 1024, lo=1, hi=self.limits.max_raster_pixels)
        height = int_param(q, "height", 768, lo=1, hi=self.limits.max_raster_pixels)
        resolution = optional_float_param(q, "resolution", lo=1e-12)
        crs = first(q, "crs") or "EPSG:4326"
        raw_units = choice_param(q, "units", RASTER_UNITS, "minutes")
        units: RasterUnits = "seconds" if raw_units == "seconds" else "minutes"
        try:
            shape = raster_shape(
                stored.dataset, crs=crs, width=width, height=height, resolution=resolution,
                max_pixels=self.limits.max_raster_pixels,
            )  # fmt: skip
        except (InvalidArgumentError, UnknownCrsError) as exc:
            raise ApiError(
                400, f"Invalid raster (crs, width, height, resolution): {exc}."
            ) from None
        data = await self.compute(surface_geotiff, stored.dataset, shape, units=units)
        self.set_header("Content-Disposition", f'attachment; filename="surface-{stored.id}.tif"')
        self.write_bytes(data, "image/tiff; application=geotiff")


def _iso_tile(stored: StoredSurface, tile: tuple[int, int, int]) -> bytes:
    return render_tile(time_pixels(tile_travel_times(stored.dataset, *tile)), "COLOR30")


def _difference_pixels(
    first_surface: StoredSurface, second: StoredSurface, tile: tuple[int, int, int]
) -> UInt8Array:
    a = tile_travel_times(first_surface.dataset, *tile)
    b = tile_travel_times(second.dataset, *tile)
    return difference_pixels(a, b)


class IsoTileHandler(_SurfaceHandler):
    """``/otp/surfaces/{id}/isotiles/{z}/{x}/{y}.png``."""

    @staticmethod
    def openapi_doc(lim: AnalystLimits) -> dict[str, Operation]:
        """A COLOR30 tile of the surface."""
        return {"get": Operation("A travel-time tile of the surface", media_type="image/png")}

    async def get(self, surface_id: str, z: str, x: str, y: str) -> None:
        """A COLOR30 travel-time tile read from the surface."""
        stored = self.surface(surface_id)
        tile = self.tile(z, x, y)
        data = await self.compute(_iso_tile, stored, tile)
        self.write_bytes(data, "image/png")


class DifferenceTileHandler(_SurfaceHandler):
    """``/otp/surfaces/{id}/differencetiles/{otherId}/{z}/{x}/{y}.png``."""

    @staticmethod
    def openapi_doc(lim: AnalystLimits) -> dict[str, Operation]:
        """A difference tile of two surfaces."""
        return {
            "get": Operation("A tile of the difference of two surfaces", media_type="image/png")
        }

    async def get(self, surface_id: str, other_id: str, z: str, x: str, y: str) -> None:
        """A DIFFERENCE tile of ``surface - other``."""
        stored, other = self.surface(surface_id), self.surface(other_id)
        tile = self.tile(z, x, y)
        pixels = await self.compute(_difference_pixels, stored, other, tile)
        data = await self.run_blocking(render_tile, pixels, "DIFFERENCE")
        self.write_bytes(data, "image/png")
