"""Travel-time images: ``/timegrid``, ``/analyst/tile/{z}/{x}/{y}.png``, ``/analyst/legend``.

``GET /otp/routers/{id}/timegrid``
    Plan parameters plus ``maxTimeSec`` (default 3600), ``precisionMeters`` (200, at least
    10), ``offRoadDistanceMeters`` (150), ``coordinateOrigin``, ``zDataType`` (only
    ``TIME``: surfaces hold no boardings or walk distances; the others are 400) and
    ``base64``: OTP's RGBA PNG (:mod:`otpa.analysis.otp1.timegrid`) with the ``OTPA-*`` headers
    and ``Cache-Control: no-cache``; ``base64=true`` sends the PNG base64-encoded as text.
``GET /otp/routers/{id}/analyst/tile/{z}/{x}/{y}.png``
    Plan parameters plus ``layers`` (``TRAVELTIME`` default; ``DIFFERENCE``: travel time
    from ``fromPlace`` minus from ``toPlace``; ``HAGERSTRAND``: minutes left of a
    ``maxTimeSec`` budget after going from ``fromPlace`` to the pixel and from the pixel to
    ``toPlace``, the latter taken as the time from ``toPlace``), ``styles`` (``MASK``
    default, see :mod:`otpa.analysis.otp1.render`), ``format`` (``image/png`` default, gif,
    jpeg, geotiff), ``maxTimeSec`` (7200). OTP left this endpoint broken (204); here it
    computes the surface on the tile's cells (``tile_cells`` per side) and renders it.
``GET /otp/analyst/legend.{format}``
    ``styles`` (``COLOR30`` default), ``width`` (300), ``height`` (150).

Unknown layers, styles and formats are 400 (``unknown layer style``, ``unsupported image
format``).
"""

from __future__ import annotations

import base64

from otpa.analysis import Grid, compute_time_surface
from otpa.analysis.otp1.extent import GridTooLargeError, reach_grid
from otpa.analysis.otp1.offroad import limit_offroad
from otpa.analysis.otp1.raster import tile_geotiff
from otpa.analysis.otp1.render import (
    ImageFormat,
    Style,
    difference_pixels,
    hagerstrand_pixels,
    parse_image_format,
    parse_style,
    render_legend,
    render_tile,
    time_pixels,
)
from otpa.analysis.otp1.tiles import tile_bounds, tile_grid, tile_travel_times
from otpa.analysis.otp1.timegrid import encode_timegrid
from otpa.analysis.request import AnalysisRequest
from otpa.analysis.surface import origin_coordinate
from otpa.errors import InvalidArgumentError
from otpa.network import TransportNetwork
from otpa.routing.errors import OutsideBoundsError
from otpa.types import Float32Array, UInt8Array
from service.analyst.limits import AnalystLimits
from service.analyst.params import (
    AnalysisQuery,
    bool_param,
    choice_param,
    first,
    int_param,
    lat_lon_param,
)
from service.handlers.analyst_base import AnalystHandler, int_query, tile_path
from service.openapi import Operation, Param
from service.otp1.errors import ApiError

__all__ = [
    "CONTENT_TYPES",
    "AnalystTileHandler",
    "LegendHandler",
    "TimeGridHandler",
    "image_format",
    "tile_layer",
    "tile_style",
]

#: Content-Type of each image format.
CONTENT_TYPES: dict[str, str] = {
    "png": "image/png",
    "gif": "image/gif",
    "jpeg": "image/jpeg",
    "tiff": "image/tiff",
    "geotiff": "image/tiff; application=geotiff",
}
LAYERS = ("TRAVELTIME", "DIFFERENCE", "HAGERSTRAND")
_GRID_SIZE = "precisionMeters, maxTimeSec"


def tile_style(raw: str | None, default: str) -> Style:
    """The first style of OTP's comma list ``styles``; 400 ``unknown layer style``."""
    name = (raw or default).split(",")[0]
    try:
        return parse_style(name)
    except InvalidArgumentError as exc:
        raise ApiError(400, f"{exc}.") from None


def tile_layer(raw: str | None) -> str:
    """The first layer of OTP's comma list ``layers`` (default ``TRAVELTIME``); 400 otherwise."""
    name = (raw or "TRAVELTIME").split(",")[0].strip().upper()
    if name not in LAYERS:
        msg = f"Query parameter layers={raw!r} is not one of {', '.join(LAYERS)}."
        raise ApiError(400, msg)
    return name


def image_format(raw: str) -> ImageFormat:
    """An image format by name or MIME type; 400 ``unsupported image format``."""
    try:
        return parse_image_format(raw)
    except InvalidArgumentError as exc:
        raise ApiError(400, f"{exc}.") from None


def _timegrid(
    network: TransportNetwork, aq: AnalysisQuery, grid: Grid, precision: int, offroad: int
) -> tuple[bytes, dict[str, str]]:
    surface = compute_time_surface(network, aq.origin, target=grid, request=aq.request)
    surface, distance = limit_offroad(surface, network, offroad)
    return encode_timegrid(
        surface, cell_size_m=precision, offroad_m=distance, offroad_distance_m=offroad
    )


class TimeGridHandler(AnalystHandler):
    """``/otp/routers/{routerId}/timegrid`` (see the module docstring)."""

    @staticmethod
    def openapi_doc(lim: AnalystLimits) -> dict[str, Operation]:
        """OTP's travel-time grid PNG."""
        return {
            "get": Operation(
                "The travel-time grid of fromPlace (OTP's PNG encoding)",
                query=(
                    int_query("maxTimeSec", 3600, 1, lim.max_time_s),
                    int_query("precisionMeters", 200, lim.min_precision_m, lim.max_precision_m),
                    int_query("offRoadDistanceMeters", 150, 10, lim.max_offroad_m),
                    Param("coordinateOrigin", {"type": "string"}, "lat,lon"),
                    Param("zDataType", {"enum": ["TIME"], "default": "TIME"}),
                    Param("base64", {"type": "boolean", "default": False}),
                ),
                plan_query=True,
                media_type="image/png",
            )
        }

    async def get(self, router_id: str) -> None:
        """Compute the lon/lat travel-time grid of ``fromPlace`` and send it as OTP's PNG."""
        _, network = self.registry.lookup(router_id)
        q, lim = self.query, self.limits
        max_time = int_param(q, "maxTimeSec", 3600, lo=1, hi=lim.max_time_s)
        precision = int_param(
            q, "precisionMeters", 200, lo=lim.min_precision_m, hi=lim.max_precision_m
        )
        offroad = int_param(q, "offRoadDistanceMeters", 150, lo=10, hi=lim.max_offroad_m)
        align = lat_lon_param(q, "coordinateOrigin")
        z_type = choice_param(q, "zDataType", ("TIME", "BOARDINGS", "WALK_DISTANCE"), "TIME")
        if z_type != "TIME":
            msg = f"zDataType={z_type} is not available: surfaces hold travel times only (TIME)."
            raise ApiError(400, msg)
        as_base64 = bool_param(q, "base64", False)
        aq = self.read_analysis(network, max_time_s=max_time)
        try:
            grid = reach_grid(
                network, *aq.origin, aq.request, cell_size_m=precision, align_to=align,
                max_cells=lim.max_cells,
            )  # fmt: skip
        except GridTooLargeError as exc:
            raise ApiError(400, f"Request too large ({_GRID_SIZE}): {exc}.") from None
        png, metadata = await self.compute(
            _timegrid, network, aq, grid, precision, offroad, size_parameter=_GRID_SIZE
        )
        for name, value in metadata.items():
            self.set_header(name, value)
        if as_base64:
            text = base64.b64encode(png)
            self.write_bytes(text, "text/plain; charset=US-ASCII", cache_control="no-cache")
        else:
            self.write_bytes(png, "image/png", cache_control="no-cache")


def _origin_times(
    network: TransportNetwork,
    origin: tuple[float, float],
    request: AnalysisRequest,
    z: int,
    x: int,
    y: int,
    cells: int,
) -> Float32Array:
    grid = tile_grid(z, x, y, cells=cells)
    surface = compute_time_surface(network, origin, target=grid, request=request)
    return tile_travel_times(surface, z, x, y)


def _tile_pixels(
    network: TransportNetwork,
    aq: AnalysisQuery,
    layer: str,
    second: tuple[float, float] | None,
    tile: tuple[int, int, int],
    cells: int,
) -> UInt8Array:
    first_times = _origin_times(network, aq.origin, aq.request, *tile, cells)
    if layer == "TRAVELTIME" or second is None:
        return time_pixels(first_times)
    second_times = _origin_times(network, second, aq.request, *tile, cells)
    if layer == "DIFFERENCE":
        return difference_pixels(first_times, second_times)
    return hagerstrand_pixels(first_times, second_times, aq.request.max_time_s)


class AnalystTileHandler(AnalystHandler):
    """``/otp/routers/{routerId}/analyst/tile/{z}/{x}/{y}.png`` (see the module docstring)."""

    @staticmethod
    def openapi_doc(lim: AnalystLimits) -> dict[str, Operation]:
        """A travel-time tile."""
        return {
            "get": Operation(
                f"A travel-time map tile from fromPlace (zoom {lim.tile_zooms[0]} to "
                f"{lim.tile_zooms[1]})",
                query=(
                    Param("layers", {"type": "string", "default": "TRAVELTIME"}),
                    Param("styles", {"type": "string", "default": "MASK"}),
                    Param("format", {"type": "string", "default": "image/png"}),
                    int_query("maxTimeSec", 7200, 1, lim.max_time_s),
                ),
                plan_query=True,
                media_type="image/png",
            )
        }

    async def get(self, router_id: str, z_text: str, x_text: str, y_text: str) -> None:
        """Compute the tile's travel times from ``fromPlace`` and render them."""
        _, network = self.registry.lookup(router_id)
        q, lim = self.query, self.limits
        z, x, y = tile_path(z_text, x_text, y_text, lim.tile_zooms)
        layer = tile_layer(first(q, "layers"))
        style = tile_style(first(q, "styles"), "MASK")
        fmt_name = first(q, "format") or "image/png"
        fmt = image_format(fmt_name)
        if style == "BOARDINGS":
            raise ApiError(400, "Style BOARDINGS needs boarding counts; tiles show travel times.")
        max_time = int_param(q, "maxTimeSec", 7200, lo=1, hi=lim.max_time_s)
        aq = self.read_analysis(network, max_time_s=max_time)
        second = None if layer == "TRAVELTIME" else self._second_origin(network, aq, layer)
        pixels = await self.compute(
            _tile_pixels, network, aq, layer, second, (z, x, y), lim.tile_cells
        )
        geotiff = "geotiff" in fmt_name.lower()
        if geotiff:
            data = await self.run_blocking(tile_geotiff, pixels, tile_bounds(z, x, y))
        else:
            data = await self.run_blocking(render_tile, pixels, style, fmt)
        self.write_bytes(data, CONTENT_TYPES["geotiff" if geotiff else fmt])

    @staticmethod
    def _second_origin(
        network: TransportNetwork, aq: AnalysisQuery, layer: str
    ) -> tuple[float, float]:
        """``toPlace``, the second place of the DIFFERENCE and HAGERSTRAND layers."""
        if aq.plan.to_place is None:
            raise ApiError(400, f"Query parameter toPlace is required for layer {layer}.")
        try:
            return origin_coordinate(network, aq.plan.to_place)
        except OutsideBoundsError as exc:
            raise ApiError(400, f"toPlace: {exc}.") from None


class LegendHandler(AnalystHandler):
    """``/otp/analyst/legend.{format}`` (see the module docstring)."""

    @staticmethod
    def openapi_doc(lim: AnalystLimits) -> dict[str, Operation]:
        """The legend image of a style."""
        return {
            "get": Operation(
                "The legend of a tile style (an image)",
                query=(
                    Param("styles", {"type": "string", "default": "COLOR30"}),
                    int_query("width", 300, *lim.legend_width),
                    int_query("height", 150, *lim.legend_height),
                ),
                media_type="image/png",
                errors=(400,),
            )
        }

    async def get(self, format_name: str) -> None:
        """Render the legend of a style."""
        q, lim = self.query, self.limits
        fmt = image_format(format_name)
        style = tile_style(first(q, "styles"), "COLOR30")
        width = int_param(q, "width", 300, lo=lim.legend_width[0], hi=lim.legend_width[1])
        height = int_param(q, "height", 150, lo=lim.legend_height[0], hi=lim.legend_height[1])
        data = await self.run_blocking(render_legend, style, width, height, fmt)
        self.write_bytes(data, CONTENT_TYPES[fmt])
