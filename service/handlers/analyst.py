"""The analyst API's URL table: isochrones, timegrid, tiles, legends, surfaces, point sets.

=====================================================================  =====================
Path                                                                   Handler module
=====================================================================  =====================
``/otp/routers/{id}/isochrone``, ``/isochroneOld``, ``/simpleIsochrone``  ``analyst_isochrones``
``/otp/routers/{id}/timegrid``                                         ``analyst_images``
``/otp/routers/{id}/analyst/tile/{z}/{x}/{y}.png``                     ``analyst_images``
``/otp/analyst/legend.{format}``                                       ``analyst_images``
``/otp/surfaces[/{id}[/indicator|/isochrone|/raster]]``                ``analyst_surfaces``
``/otp/surfaces/{id}/isotiles/{z}/{x}/{y}.png``                        ``analyst_surfaces``
``/otp/surfaces/{id}/differencetiles/{otherId}/{z}/{x}/{y}.png``       ``analyst_surfaces``
``/otp/pointsets[/{id}]``                                              ``analyst_pointsets``
=====================================================================  =====================

The handlers share one :class:`~service.analyst.state.AnalystState` per application (the
surface store and the point-set registry), made here from the service configuration.
"""

from __future__ import annotations

from typing import Any

import tornado.web
from tornado.routing import URLSpec

from service.analyst.state import AnalystState
from service.handlers.analyst_images import AnalystTileHandler, LegendHandler, TimeGridHandler
from service.handlers.analyst_isochrones import (
    IsochroneHandler,
    IsochroneOldHandler,
    SimpleIsochroneHandler,
)
from service.handlers.analyst_pointsets import PointSetHandler, PointSetsHandler
from service.handlers.analyst_surfaces import (
    DifferenceTileHandler,
    IndicatorHandler,
    IsoTileHandler,
    RasterHandler,
    SurfaceHandler,
    SurfaceIsochroneHandler,
    SurfacesHandler,
)
from service.handlers.base import ServiceContext

__all__ = ["analyst_urls"]

_ROUTER = r"/otp/routers/([^/]+)"
_SURFACE = r"/otp/surfaces/(\d{1,18})"
_TILE = r"(\d{1,2})/(\d{1,10})/(\d{1,10})\.png"


def analyst_urls(args: dict[str, Any]) -> list[URLSpec]:
    """The URL rules of the analyst API (to add to the application's table).

    Parameters
    ----------
    args
        The handlers' shared arguments; ``args["ctx"]`` is the :class:`ServiceContext` and
        ``args["analyst"]``, when given, the :class:`AnalystState` to share (surface store,
        point sets) with other handlers; otherwise one is made from the configuration.

    Returns
    -------
    list of tornado.routing.URLSpec
    """
    ctx: ServiceContext = args["ctx"]
    a = args if "analyst" in args else {**args, "analyst": AnalystState.from_config(ctx.config)}
    url = tornado.web.url
    return [
        url(rf"{_ROUTER}/isochrone/?", IsochroneHandler, a),
        url(rf"{_ROUTER}/isochroneOld/?", IsochroneOldHandler, a),
        url(rf"{_ROUTER}/simpleIsochrone/?", SimpleIsochroneHandler, a),
        url(rf"{_ROUTER}/timegrid/?", TimeGridHandler, a),
        url(rf"{_ROUTER}/analyst/tile/{_TILE}", AnalystTileHandler, a),
        url(r"/otp/analyst/legend\.([^/]+)", LegendHandler, a),
        url(r"/otp/surfaces/?", SurfacesHandler, a),
        url(rf"{_SURFACE}/?", SurfaceHandler, a),
        url(rf"{_SURFACE}/indicator/?", IndicatorHandler, a),
        url(rf"{_SURFACE}/isochrone/?", SurfaceIsochroneHandler, a),
        url(rf"{_SURFACE}/raster/?", RasterHandler, a),
        url(rf"{_SURFACE}/isotiles/{_TILE}", IsoTileHandler, a),
        url(rf"{_SURFACE}/differencetiles/(\d{{1,18}})/{_TILE}", DifferenceTileHandler, a),
        url(r"/otp/pointsets/?", PointSetsHandler, a),
        url(r"/otp/pointsets/([^/]+)/?", PointSetHandler, a),
    ]
