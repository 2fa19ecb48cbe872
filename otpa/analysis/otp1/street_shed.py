"""Street sheds: the street vertices and edges an origin reaches, as bare geometries.

OTP 1.x's ``isochroneOld`` (Stefan Steiniger's ``SIsochrone``) answered with one GeoJSON
geometry: the reached street intersections (``POINTS``), the streets between them
(``EDGES``) or a hull around them (``SHED``). Here the travel times come from a time surface
to the street vertices near the origin (the same engine as every surface), so a vertex is
reached when its travel time is within the limit.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any, Literal, TypeAlias

import numpy as np
import pandas as pd
import shapely

from otpa.analysis.otp1.extent import TooManyTargetsError, reach_radius_m
from otpa.analysis.pointset import PointSet
from otpa.analysis.request import AnalysisRequest
from otpa.analysis.surface import analysis_request, compute_time_surface, origin_coordinate
from otpa.network import TransportNetwork
from otpa.types import FloatArray, IntArray
from otpa.util.geo import EARTH_RADIUS_M

__all__ = ["SHED_OUTPUTS", "ShedOutput", "shed_geometry", "street_shed", "vertices_near"]

ShedOutput: TypeAlias = Literal["POINTS", "SHED", "EDGES"]
SHED_OUTPUTS: tuple[ShedOutput, ...] = ("POINTS", "SHED", "EDGES")
#: Concave hull tightness (shapely's ratio: 0 = tightest, 1 = convex hull).
HULL_RATIO = 0.3
_M_PER_DEG = math.pi * EARTH_RADIUS_M / 180.0
_MIN_LINE_POINTS = 2
_MIN_HULL_POINTS = 3


def vertices_near(
    network: TransportNetwork, lat: float, lon: float, radius_m: float, *, max_points: int
) -> IntArray:
    """Indices of the network's street intersections (OSM vertices) within ``radius_m``.

    Raises
    ------
    TooManyTargetsError
        More than ``max_points`` vertices lie within the radius.
    """
    street = network.street
    if street is None:
        return np.zeros(0, dtype=np.int64)
    n = int(street.n_original_vertices)
    vlat = np.asarray(street.vertex_lat[:n], dtype=np.float64)
    vlon = np.asarray(street.vertex_lon[:n], dtype=np.float64)
    dx = (vlon - lon) * math.cos(math.radians(lat)) * _M_PER_DEG
    dy = (vlat - lat) * _M_PER_DEG
    with np.errstate(invalid="ignore"):
        near = np.flatnonzero(dx * dx + dy * dy <= radius_m * radius_m)
    if near.size > max_points:
        msg = (
            f"{near.size} street vertices lie within reach, more than the limit of "
            f"{max_points}; use a shorter time limit"
        )
        raise TooManyTargetsError(msg, n_targets=int(near.size), limit=max_points)
    return near.astype(np.int64)


def _circle(lat: float, lon: float, radius_m: float) -> shapely.Polygon:
    """A circle of ``radius_m`` ground metres around a point, in lon/lat."""
    angles = np.linspace(0.0, 2.0 * np.pi, 65)
    dlat = radius_m / _M_PER_DEG * np.sin(angles)
    dlon = radius_m / _M_PER_DEG / max(math.cos(math.radians(lat)), 1e-6) * np.cos(angles)
    return shapely.Polygon(np.column_stack([lon + dlon, lat + dlat]))


def shed_geometry(
    network: TransportNetwork,
    vertices: IntArray,
    times_s: FloatArray,
    max_time_s: float,
    output: ShedOutput,
    *,
    origin: tuple[float, float],
    fallback_radius_m: float,
) -> shapely.Geometry:
    """The geometry of the vertices reached within ``max_time_s``.

    Parameters
    ----------
    network
        The network.
    vertices
        Street vertex indices.
    times_s
        Their travel times (NaN unreachable).
    max_time_s
        The limit.
    output
        ``POINTS``: MultiPoint of the reached vertices; ``EDGES``: MultiLineString of the
        street segments with both ends reached; ``SHED``: a concave hull Polygon of the
        reached vertices (the convex hull when the concave one degenerates, a circle of
        ``fallback_radius_m`` around the origin when fewer than three are reached).
    origin
        ``(lat, lon)``.
    fallback_radius_m
        Radius of the SHED circle when too few vertices are reached.

    Returns
    -------
    shapely.Geometry
        In lon/lat.
    """
    street = network.street
    with np.errstate(invalid="ignore"):
        reached = vertices[np.isfinite(times_s) & (times_s <= max_time_s)]
    if street is None or output == "POINTS":
        if street is None:
            return shapely.MultiPoint()
        xy = np.column_stack([street.vertex_lon[reached], street.vertex_lat[reached]])
        return shapely.multipoints(xy) if len(xy) else shapely.MultiPoint()
    if output == "EDGES":
        is_reached = np.zeros(street.n_vertices, dtype=bool)
        is_reached[reached] = True
        segments = np.flatnonzero(is_reached[street.seg_from] & is_reached[street.seg_to])
        offsets = np.asarray(street.seg_geom_offsets)
        lines = [
            np.column_stack([street.geom_lon[lo:hi], street.geom_lat[lo:hi]])
            for lo, hi in zip(
                offsets[segments].tolist(), offsets[segments + 1].tolist(), strict=True
            )
        ]
        lines = [line for line in lines if len(line) >= _MIN_LINE_POINTS]
        return shapely.MultiLineString(lines) if lines else shapely.MultiLineString()
    lat, lon = origin
    if reached.size < _MIN_HULL_POINTS:
        return _circle(lat, lon, fallback_radius_m)
    points = shapely.multipoints(
        np.column_stack([street.vertex_lon[reached], street.vertex_lat[reached]])
    )
    hull = shapely.concave_hull(points, ratio=HULL_RATIO)
    if not isinstance(hull, shapely.Polygon) or hull.is_empty:
        hull = shapely.convex_hull(points)
    if not isinstance(hull, shapely.Polygon) or hull.is_empty:
        return _circle(lat, lon, fallback_radius_m)
    return hull


def street_shed(
    network: TransportNetwork,
    origin: Any,
    departure: dt.datetime | None = None,
    *,
    output: ShedOutput = "POINTS",
    request: AnalysisRequest | None = None,
    max_points: int = 200_000,
    **options: Any,
) -> shapely.Geometry:
    """The street shed of an origin: reached intersections, streets, or a hull around them.

    Parameters
    ----------
    network
        The network.
    origin
        ``(lat, lon)``, a Location or an OTP place string.
    departure
        Departure time (naive: the network's time zone).
    output
        ``POINTS``, ``EDGES`` or ``SHED`` (see :func:`shed_geometry`).
    request
        The analysis parameters; ``max_time_s`` is the limit.
    max_points
        The most street vertices evaluated (those within reach of the origin).
    **options
        :class:`AnalysisRequest` fields overriding ``request``'s.

    Returns
    -------
    shapely.Geometry
        In lon/lat.
    """
    req = analysis_request(departure, request, options)
    lat, lon = origin_coordinate(network, origin)
    vertices = vertices_near(network, lat, lon, reach_radius_m(req), max_points=max_points)
    fallback = req.max_time_s * req.walk_speed_mps
    if vertices.size == 0:
        return shed_geometry(
            network, vertices, np.zeros(0), req.max_time_s, output, origin=(lat, lon),
            fallback_radius_m=fallback,
        )  # fmt: skip
    street = network.street
    assert street is not None  # vertices exist only with streets
    frame = pd.DataFrame(
        {
            "id": vertices.astype(str),
            "lat": np.asarray(street.vertex_lat)[vertices],
            "lon": np.asarray(street.vertex_lon)[vertices],
        }
    )
    targets = PointSet.from_frame(frame, name="street vertices")
    ds = compute_time_surface(network, (lat, lon), target=targets, request=req)
    times = np.asarray(ds["travel_time"].isel(percentile=0).values, dtype=np.float64)
    return shed_geometry(
        network, vertices, times, req.max_time_s, output, origin=(lat, lon),
        fallback_radius_m=fallback,
    )  # fmt: skip
