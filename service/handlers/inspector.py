"""Graph inspector: the layers OTP 1.x's debug client lists, and their map tiles.

=====================================================  ==========================================
``GET /otp/routers/{id}/inspector/layers``             ``{layers: [{key, name, legend}]}`` (XML
                                                       too, root ``InspectorLayersList``)
``GET /otp/routers/{id}/inspector/tile/{layer}/``      256 x 256 tile of a layer (:mod:`otpa.tiles`)
``{z}/{x}/{y}.{ext}``                                  as ``png``, ``jpeg``/``jpg``, ``gif`` or
                                                       ``geotiff``/``tif``/``tiff``
=====================================================  ==========================================

Layers: OTP's ``bike-safety``, ``traversal`` and ``wheelchair``, plus ``elevation``
(slope), ``walk-comfort`` and ``basemap`` (streets, transit lines and stops on an opaque
background: the offline basemap of the dashboards).  An unknown layer is a 404 JSON error
(OTP answered 500), an unknown extension, a non-integer or out-of-range ``z/x/y`` a 400.
Tiles carry ``Cache-Control: max-age=3600`` as OTP's did, except ``walk-comfort``, whose
factors ``/walk_comfort`` may recompute (``max-age=60``).  Rendering runs in a worker thread.
"""

from __future__ import annotations

from typing import Any

import tornado.web
from tornado.routing import URLSpec

from otpa.tiles import FORMATS, LAYERS, MAX_ZOOM, TileError, check_tile, render_tile
from service.handlers.base import BaseHandler
from service.otp1.errors import ApiError

__all__ = ["InspectorLayersHandler", "InspectorTileHandler", "inspector_urls"]

_EXTENSIONS = {"png": "png", "gif": "gif", "jpeg": "jpeg", "jpg": "jpeg",
               "geotiff": "geotiff", "tif": "geotiff", "tiff": "geotiff"}  # fmt: skip
_CACHE_CONTROL = "max-age=3600"
_SHORT_CACHE = {"walk-comfort": "max-age=60"}


def inspector_urls(args: dict[str, Any]) -> list[URLSpec]:
    """The URL rules of the inspector endpoints (to add to the application's table)."""
    prefix = r"/otp/routers/([^/]+)/inspector"
    return [
        tornado.web.url(rf"{prefix}/layers/?", InspectorLayersHandler, args),
        tornado.web.url(
            rf"{prefix}/tile/([^/]+)/([^/]+)/([^/]+)/([^/.]+)\.([^/.]+)",
            InspectorTileHandler,
            args,
        ),
    ]


class InspectorLayersHandler(BaseHandler):
    """``GET /otp/routers/{id}/inspector/layers``."""

    def get(self, router_id: str) -> None:
        """List the tile layers with their legends."""
        self.registry.lookup(router_id)
        layers = [info.to_dict() for info in LAYERS.values()]
        self.respond(
            "InspectorLayersList",
            {"layers": layers},
            xml=lambda: {"layers": [{"key": d["key"], "name": d["name"]} for d in layers]},
        )


def _int(text: str, name: str) -> int:
    try:
        return int(text)
    except ValueError:
        msg = f"Tile {name}={text!r} is not an integer."
        raise ApiError(400, msg) from None


class InspectorTileHandler(BaseHandler):
    """``GET /otp/routers/{id}/inspector/tile/{layer}/{z}/{x}/{y}.{ext}``."""

    async def get(
        self, router_id: str, layer: str, z_text: str, x_text: str, y_text: str, ext: str
    ) -> None:
        """Render one tile of a layer."""
        _, network = self.registry.lookup(router_id)
        if layer not in LAYERS:
            msg = f"Unknown inspector layer {layer!r}; layers: {', '.join(LAYERS)}."
            raise ApiError(404, msg)
        fmt = _EXTENSIONS.get(ext.lower())
        if fmt is None:
            msg = f"Unsupported tile format {ext!r}; formats: {', '.join(_EXTENSIONS)}."
            raise ApiError(400, msg)
        z, x, y = _int(z_text, "z"), _int(x_text, "x"), _int(y_text, "y")
        try:
            check_tile(z, x, y)
        except TileError as exc:
            raise ApiError(400, f"Tile {z}/{x}/{y}: {exc} (zoom 0..{MAX_ZOOM}).") from None
        data = await self.run_blocking(render_tile, network, layer, z, x, y, fmt=fmt)
        self.set_header("Content-Type", FORMATS[fmt])
        self.set_header("Cache-Control", _SHORT_CACHE.get(layer, _CACHE_CONTROL))
        self.finish(data)
