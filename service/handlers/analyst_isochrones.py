"""Isochrones of one origin: ``/isochrone``, ``/isochroneOld``, ``/simpleIsochrone``.

All three take every plan parameter (``fromPlace`` is the origin; see
:mod:`service.analyst.params`) and compute in a worker thread.

``GET /otp/routers/{id}/isochrone``
    ``cutoffSec`` (repeatable, required), ``maxTimeSec`` (default the largest cutoff),
    ``precisionMeters`` (grid cell, default 200, at least 10), ``offRoadDistanceMeters``
    (cells farther from a street are left out; default 150), ``coordinateOrigin``
    (``lat,lon`` of a cell centre; default the origin), ``algorithm`` and ``debug``
    (accepted, ignored). A GeoJSON FeatureCollection of nested MultiPolygons with
    ``properties.time``, smallest first; with ``Accept: application/x-zip-compressed`` a
    zipped shapefile named ``shpName``. ``Cache-Control: max-age=3600``.
``GET /otp/routers/{id}/isochroneOld``
    ``walkTime`` (minutes, default 15), ``output`` ``POINTS`` / ``SHED`` / ``EDGES``
    (``DEBUGEDGES`` = ``EDGES``): a bare GeoJSON geometry.
``GET /otp/routers/{id}/simpleIsochrone``
    ``requestSpacingMinutes`` (30), ``requestTimespanHours`` (20), ``stopsOnly`` (true),
    ``radiusMeters`` (5000: the walk to the first stop), ``nContours`` (4),
    ``contourSpacingMinutes`` (30), ``resultsProjected`` (false), ``crs`` (default the
    origin's UTM zone; OTP's was EPSG:2326), ``shpName``: circles around the reached stops,
    a FeatureCollection with ``properties.Time``, or a zipped shapefile.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import geopandas as gpd

from otpa.analysis import (
    Grid,
    compute_time_surface,
    isochrone_shapefile_zip,
    isochrones,
    isochrones_geojson,
)
from otpa.analysis.crs import UnknownCrsError, check_crs
from otpa.analysis.otp1.circle_isochrones import simple_isochrones, utm_crs
from otpa.analysis.otp1.extent import GridTooLargeError, reach_grid
from otpa.analysis.otp1.offroad import limit_offroad
from otpa.analysis.otp1.street_shed import street_shed
from otpa.network import TransportNetwork
from service.analyst.limits import AnalystLimits
from service.analyst.models import contours_json, geometry_json
from service.analyst.params import (
    AnalysisQuery,
    Query,
    bool_param,
    choice_param,
    first,
    float_param,
    int_list_param,
    int_param,
    lat_lon_param,
    name_param,
)
from service.handlers.analyst_base import AnalystHandler, int_query
from service.openapi import Operation, Param
from service.otp1.errors import ApiError

__all__ = ["IsochroneHandler", "IsochroneOldHandler", "SimpleIsochroneHandler", "wants_zip"]

ZIP_TYPE = "application/x-zip-compressed"
_GRID_SIZE = "precisionMeters, maxTimeSec"
_ORIGIN = Param("coordinateOrigin", {"type": "string"}, "lat,lon the grid is aligned to")
_SHP = Param("shpName", {"type": "string", "default": "isochrones"}, "zipped shapefile's name")


def _grid_params(lim: AnalystLimits) -> tuple[Param, ...]:
    """``precisionMeters`` and ``offRoadDistanceMeters``, shared with the time grid."""
    return (
        int_query("precisionMeters", 200, lim.min_precision_m, lim.max_precision_m, "cell size"),
        int_query("offRoadDistanceMeters", 150, 10, lim.max_offroad_m),
        _ORIGIN,
    )


def wants_zip(accept: str | None) -> bool:
    """True when the Accept header asks for a zipped shapefile (OTP's second representation)."""
    return bool(accept) and ZIP_TYPE in str(accept).lower()


def _isochrones(
    network: TransportNetwork,
    aq: AnalysisQuery,
    grid: Grid,
    offroad_m: float,
    cutoffs: Sequence[int],
    shp_name: str | None,
) -> Any:
    surface = compute_time_surface(network, aq.origin, target=grid, request=aq.request)
    surface, _ = limit_offroad(surface, network, offroad_m, all_distances=False)
    frame = isochrones(surface, cutoffs)
    if shp_name is not None:
        return isochrone_shapefile_zip(frame, name=shp_name)
    return isochrones_geojson(frame)


class IsochroneHandler(AnalystHandler):
    """``/otp/routers/{routerId}/isochrone`` (see the module docstring)."""

    @staticmethod
    def openapi_doc(lim: AnalystLimits) -> dict[str, Operation]:
        """Nested isochrones (GeoJSON, or a zipped shapefile on ``Accept``)."""
        cutoff = int_query("cutoffSec", None, 1, lim.max_time_s, "seconds; required, repeatable")
        return {
            "get": Operation(
                "Nested isochrones around fromPlace (GeoJSON FeatureCollection)",
                query=(
                    Param(cutoff.name, cutoff.schema, cutoff.description, required=True),
                    int_query("maxTimeSec", None, 1, lim.max_time_s, "default: largest cutoff"),
                    *_grid_params(lim),
                    Param("debug", {"type": "boolean", "default": False}),
                    _SHP,
                ),
                plan_query=True,
            )
        }

    async def get(self, router_id: str) -> None:
        """Compute nested isochrones around ``fromPlace``."""
        _, network = self.registry.lookup(router_id)
        q, lim = self.query, self.limits
        cutoffs = int_list_param(q, "cutoffSec", lo=1, hi=lim.max_time_s, max_count=lim.max_cutoffs)
        if not cutoffs:
            raise ApiError(400, "Query parameter cutoffSec is required (seconds, repeatable).")
        max_time = int_param(q, "maxTimeSec", max(cutoffs), lo=1, hi=lim.max_time_s)
        precision = int_param(
            q, "precisionMeters", 200, lo=lim.min_precision_m, hi=lim.max_precision_m
        )
        offroad = int_param(q, "offRoadDistanceMeters", 150, lo=10, hi=lim.max_offroad_m)
        align = lat_lon_param(q, "coordinateOrigin")
        bool_param(q, "debug", False)
        zipped = wants_zip(self.request.headers.get("Accept"))
        shp_name = name_param(q, "shpName", "isochrones") if zipped else None
        aq = self.read_analysis(network, max_time_s=max_time)
        try:
            grid = reach_grid(
                network, *aq.origin, aq.request, cell_size_m=precision, align_to=align,
                max_cells=lim.max_cells,
            )  # fmt: skip
        except GridTooLargeError as exc:
            raise ApiError(400, f"Request too large ({_GRID_SIZE}): {exc}.") from None
        result = await self.compute(
            _isochrones, network, aq, grid, offroad, cutoffs, shp_name, size_parameter=_GRID_SIZE
        )
        self.vary_on("Accept")
        if shp_name is not None:
            self.set_header("Content-Disposition", f'attachment; filename="{shp_name}.zip"')
            self.write_bytes(result, ZIP_TYPE)
        else:
            self.set_header("Cache-Control", "max-age=3600")
            self.write_json(result)


class IsochroneOldHandler(AnalystHandler):
    """``/otp/routers/{routerId}/isochroneOld`` (see the module docstring)."""

    @staticmethod
    def openapi_doc(lim: AnalystLimits) -> dict[str, Operation]:
        """The street shed of ``fromPlace`` (a bare GeoJSON geometry)."""
        walk_max = lim.max_time_s / 60.0
        outputs = ["POINTS", "SHED", "EDGES", "DEBUGEDGES"]
        return {
            "get": Operation(
                "The street shed of fromPlace (a GeoJSON geometry)",
                query=(
                    Param(
                        "walkTime",
                        {"type": "number", "minimum": 1.0 / 60.0, "maximum": walk_max},
                        "minutes",
                    ),
                    Param("output", {"enum": outputs, "default": "POINTS"}),
                ),
                plan_query=True,
            )
        }

    async def get(self, router_id: str) -> None:
        """Compute the street shed of ``fromPlace`` and answer its bare geometry."""
        _, network = self.registry.lookup(router_id)
        q, lim = self.query, self.limits
        walk_min = float_param(q, "walkTime", 15.0, lo=1.0 / 60.0, hi=lim.max_time_s / 60.0)
        output = choice_param(q, "output", ("POINTS", "SHED", "EDGES", "DEBUGEDGES"), "POINTS")
        aq = self.read_analysis(network, max_time_s=max(1, round(walk_min * 60.0)))
        geometry = await self.compute(
            street_shed,
            network,
            aq.origin,
            output="EDGES" if output == "DEBUGEDGES" else output,
            request=aq.request,
            max_points=lim.max_points,
            size_parameter="walkTime",
        )
        self.write_json(geometry_json(geometry))


@dataclass(frozen=True)
class _SimpleParams:
    """``simpleIsochrone``'s own parameters, read and bounded."""

    spacing_min: int
    n_departures: int
    stops_only: bool
    radius_m: float
    cutoffs_s: list[int]
    projected: bool
    crs: str | None
    shp_name: str


def _simple_params(q: Query, lim: AnalystLimits) -> _SimpleParams:
    spacing = int_param(q, "requestSpacingMinutes", 30, lo=1, hi=24 * 60)
    hours = int_param(q, "requestTimespanHours", 20, lo=0, hi=24)
    n_departures = max(1, hours * 60 // spacing)
    if n_departures > lim.max_departures:
        msg = (
            f"Request too large (requestTimespanHours, requestSpacingMinutes): "
            f"{n_departures} departures, more than the limit of {lim.max_departures}."
        )
        raise ApiError(400, msg)
    n_contours = int_param(q, "nContours", 4, lo=1, hi=lim.max_cutoffs)
    contour_min = int_param(q, "contourSpacingMinutes", 30, lo=1, hi=lim.max_time_s // 60)
    if n_contours * contour_min * 60 > lim.max_time_s:
        msg = (
            f"Request too large (nContours, contourSpacingMinutes): contours up to "
            f"{n_contours * contour_min} minutes, more than {lim.max_time_s // 60}."
        )
        raise ApiError(400, msg)
    crs = first(q, "crs")
    if crs is not None:
        try:
            check_crs(crs)
        except UnknownCrsError as exc:
            raise ApiError(400, f"Query parameter crs: {exc}.") from None
    return _SimpleParams(
        spacing_min=spacing,
        n_departures=n_departures,
        stops_only=bool_param(q, "stopsOnly", True),
        radius_m=float_param(q, "radiusMeters", 5000.0, lo=0.0, hi=lim.max_simple_radius_m),
        cutoffs_s=[(k + 1) * contour_min * 60 for k in range(n_contours)],
        projected=bool_param(q, "resultsProjected", False),
        crs=crs,
        shp_name=name_param(q, "shpName", "isochrones"),
    )


class SimpleIsochroneHandler(AnalystHandler):
    """``/otp/routers/{routerId}/simpleIsochrone`` (see the module docstring)."""

    @staticmethod
    def openapi_doc(lim: AnalystLimits) -> dict[str, Operation]:
        """Isochrones over many departures (GeoJSON, or a zipped shapefile on ``Accept``)."""
        radius = {"type": "number", "minimum": 0.0, "maximum": lim.max_simple_radius_m}
        return {
            "get": Operation(
                "Isochrones over a span of departures (GeoJSON FeatureCollection)",
                query=(
                    int_query("requestSpacingMinutes", 30, 1, 24 * 60),
                    int_query("requestTimespanHours", 20, 0, 24),
                    int_query("nContours", 4, 1, lim.max_cutoffs),
                    int_query("contourSpacingMinutes", 30, 1, lim.max_time_s // 60),
                    Param("stopsOnly", {"type": "boolean", "default": True}),
                    Param("radiusMeters", {**radius, "default": 5000.0}),
                    Param("resultsProjected", {"type": "boolean", "default": False}),
                    Param("crs", {"type": "string"}, "e.g. EPSG:4326"),
                    _SHP,
                ),
                plan_query=True,
            )
        }

    async def get(self, router_id: str) -> None:
        """Compute circle isochrones around the stops reached from ``fromPlace``."""
        _, network = self.registry.lookup(router_id)
        p = _simple_params(self.query, self.limits)
        aq = self.read_analysis(
            network,
            max_time_s=p.cutoffs_s[-1],
            window_s=p.n_departures * p.spacing_min * 60,
            step_s=p.spacing_min * 60,
        )
        crs = p.crs or utm_crs(*aq.origin)
        request = aq.request.replace(
            max_walk_time_s=math.ceil(p.radius_m / aq.request.walk_speed_mps),
            max_bike_time_s=math.ceil(p.radius_m / aq.request.bike_speed_mps),
        )
        geometries = await self.compute(
            simple_isochrones,
            network,
            aq.origin,
            cutoffs_s=p.cutoffs_s,
            request=request,
            stops_only=p.stops_only,
            crs=crs,
            projected=p.projected,
        )
        self.vary_on("Accept")
        if wants_zip(self.request.headers.get("Accept")):
            frame = gpd.GeoDataFrame(
                {"Time": p.cutoffs_s},
                geometry=list(geometries),
                crs=crs if p.projected else "EPSG:4326",
            )
            data = await self.run_blocking(isochrone_shapefile_zip, frame, name=p.shp_name)
            self.set_header("Content-Disposition", f'attachment; filename="{p.shp_name}.zip"')
            self.write_bytes(data, ZIP_TYPE, cache_control=None)
            return
        self.write_json(contours_json(p.cutoffs_s, geometries, time_property="Time"))
