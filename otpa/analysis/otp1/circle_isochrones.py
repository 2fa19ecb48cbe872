"""Constant-speed isochrones: unions of circles around reached places.

OTP 1.x's ``simpleIsochrone`` for places without good street data: every reached place
(by default the transit stops) with ``remaining = cutoff - travel time`` seconds left
gets a circle of ``remaining x speed`` metres, and an isochrone is the union of its circles.
Circles are drawn in a projected CRS (by default the origin's UTM zone; OTP's default was
the Hong Kong grid, EPSG:2326) and the result is given in lon/lat unless asked otherwise.
Places with a minute or less left are skipped, as in OTP.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import shapely

from otpa.analysis.crs import check_crs
from otpa.analysis.pointset import PointSet
from otpa.analysis.request import AnalysisRequest
from otpa.analysis.surface import analysis_request, compute_time_surface, origin_coordinate
from otpa.errors import InvalidArgumentError
from otpa.network import TransportNetwork

__all__ = ["MIN_REMAINING_S", "circle_isochrones", "simple_isochrones", "stop_points", "utm_crs"]

#: Places with this little time left draw no circle (OTP: avoids degenerate geometries).
MIN_REMAINING_S = 60.0


def utm_crs(lat: float, lon: float) -> str:
    """The WGS 84 UTM zone of a point, as ``"EPSG:326zz"`` (north) or ``"EPSG:327zz"``.

    Examples
    --------
    >>> utm_crs(33.75, -84.39), utm_crs(-30.03, -51.23)
    ('EPSG:32616', 'EPSG:32722')
    """
    zone = min(60, max(1, math.floor((lon + 180.0) / 6.0) + 1))
    return f"EPSG:{32600 + zone if lat >= 0 else 32700 + zone}"


def circle_isochrones(
    lat: npt.ArrayLike,
    lon: npt.ArrayLike,
    times_s: npt.ArrayLike,
    cutoffs_s: Sequence[float],
    speed_mps: float,
    *,
    crs: str | None = None,
    projected: bool = False,
) -> list[shapely.MultiPolygon]:
    """One union of circles per cutoff, smallest cutoff first.

    Parameters
    ----------
    lat, lon
        The reached places, degrees.
    times_s
        Their travel times (NaN: unreached).
    cutoffs_s
        Cutoffs in seconds.
    speed_mps
        Speed over the remaining time (OTP: the walking speed).
    crs
        Projected CRS to draw the circles in; default the UTM zone of the first place.
    projected
        Return the geometries in ``crs`` instead of lon/lat.

    Returns
    -------
    list of shapely.MultiPolygon
        In the order of ``sorted(cutoffs_s)``; empty MultiPolygons where nothing is reached.
    """
    from pyproj import Transformer

    la = np.asarray(lat, dtype=np.float64)
    lo = np.asarray(lon, dtype=np.float64)
    t = np.asarray(times_s, dtype=np.float64)
    if not (la.shape == lo.shape == t.shape):
        msg = "lat, lon and times must have the same shape"
        raise InvalidArgumentError(msg)
    if not (math.isfinite(speed_mps) and speed_mps > 0):
        msg = f"speed must be positive, got {speed_mps!r}"
        raise InvalidArgumentError(msg)
    if crs is None:
        crs = utm_crs(float(la[0]), float(lo[0])) if la.size else "EPSG:3857"
    check_crs(crs)
    forward = Transformer.from_crs("EPSG:4326", crs, always_xy=True)
    backward = Transformer.from_crs(crs, "EPSG:4326", always_xy=True)
    x, y = forward.transform(lo, la)
    points = shapely.points(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    out: list[shapely.MultiPolygon] = []
    for cutoff in sorted(float(c) for c in cutoffs_s):
        with np.errstate(invalid="ignore"):
            remaining = cutoff - t
            keep = np.isfinite(remaining) & (remaining > MIN_REMAINING_S)
        if not keep.any():
            out.append(shapely.MultiPolygon())
            continue
        circles = shapely.buffer(points[keep], remaining[keep] * speed_mps, quad_segs=16)
        union = shapely.union_all(circles)
        if not projected:
            union = shapely.transform(
                union, lambda xy: np.column_stack(backward.transform(xy[:, 0], xy[:, 1]))
            )
        parts = [p for p in shapely.get_parts(union) if isinstance(p, shapely.Polygon)]
        out.append(shapely.MultiPolygon(parts))
    return out


def stop_points(network: TransportNetwork) -> PointSet:
    """The network's located transit stops as a point set (ids: feed-scoped stop ids)."""
    stops = network.transit.stops
    lat = np.asarray(stops["lat"], dtype=np.float64)
    lon = np.asarray(stops["lon"], dtype=np.float64)
    ok = np.isfinite(lat) & np.isfinite(lon)
    frame = pd.DataFrame(
        {
            "id": np.asarray(stops["stop_id"]).astype(str)[ok],
            "lat": lat[ok],
            "lon": lon[ok],
        }
    )
    return PointSet.from_frame(frame, name="stops")


def simple_isochrones(
    network: TransportNetwork,
    origin: Any,
    departure: dt.datetime | None = None,
    *,
    cutoffs_s: Sequence[float],
    request: AnalysisRequest | None = None,
    stops_only: bool = True,
    crs: str | None = None,
    projected: bool = False,
    **options: Any,
) -> list[shapely.MultiPolygon]:
    """OTP's ``simpleIsochrone``: circles around the stops an origin reaches, per cutoff.

    The travel time to each stop is its **lowest** over the request's departure window
    (percentile 0 of a point-set surface to the stops); circles grow at the request's
    walking speed.

    Parameters
    ----------
    network
        The network.
    origin
        ``(lat, lon)``, a Location or an OTP place string.
    departure
        First departure (naive: the network's time zone).
    cutoffs_s
        Cutoffs in seconds.
    request
        The analysis parameters (window, modes, speeds, access limit...).
    stops_only
        Draw circles around the stops only (OTP's default); otherwise around the origin too.
    crs, projected
        See :func:`circle_isochrones`.
    **options
        :class:`AnalysisRequest` fields overriding ``request``'s.

    Returns
    -------
    list of shapely.MultiPolygon
        One per cutoff, smallest first.
    """
    req = analysis_request(departure, request, options).replace(percentiles=(0,))
    lat, lon = origin_coordinate(network, origin)
    stops = stop_points(network)
    ds = compute_time_surface(network, (lat, lon), target=stops, request=req)
    times = np.asarray(ds["travel_time"].isel(percentile=0).values, dtype=np.float64)
    p_lat, p_lon = stops.lat, stops.lon
    if not stops_only:
        p_lat, p_lon = np.append(p_lat, lat), np.append(p_lon, lon)
        times = np.append(times, 0.0)
    return circle_isochrones(
        p_lat, p_lon, times, cutoffs_s, req.walk_speed_mps, crs=crs or utm_crs(lat, lon),
        projected=projected,
    )  # fmt: skip
