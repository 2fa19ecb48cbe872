"""Time surfaces: travel times from one origin to every cell of a grid or point of a set."""

from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np
import xarray as xr

from otpa.analysis._engine import origin_times, prepare
from otpa.analysis._layout import surface_dataset
from otpa.analysis.grid import Grid
from otpa.analysis.pointset import PointSet
from otpa.analysis.request import PREFERENCE_KEYWORDS, AnalysisRequest
from otpa.errors import ArgumentTypeError
from otpa.network import TransportNetwork
from otpa.routing import Location
from otpa.routing.deadline import check_deadline
from otpa.routing.engine import resolve_location
from otpa.routing.parse import parse_location

__all__ = ["analysis_request", "compute_time_surface", "origin_coordinate"]

#: Keyword aliases accepted by the analysis functions (r5py/r5r style names).
_ALIASES = {
    "window": "window_s",
    "step": "step_s",
    "max_time": "max_time_s",
    "max_walk_time": "max_walk_time_s",
    "max_bike_time": "max_bike_time_s",
    "walk_speed": "walk_speed_mps",
    "bike_speed": "bike_speed_mps",
    "board_slack": "board_slack_s",
}


def analysis_request(
    departure: dt.datetime | None, request: AnalysisRequest | None, options: dict[str, Any]
) -> AnalysisRequest:
    """Build (or adjust) an :class:`AnalysisRequest` from keyword options.

    ``window=None`` means a single departure.  Unknown options raise ``TypeError``.
    """
    fields = {_ALIASES.get(k, k): v for k, v in options.items()}
    if fields.get("window_s", 0) is None:
        fields["window_s"] = 0
    known = {*AnalysisRequest.__dataclass_fields__, *PREFERENCE_KEYWORDS}
    unknown = sorted(set(fields) - known)
    if unknown:
        msg = f"unknown analysis option(s): {', '.join(unknown)}"
        raise ArgumentTypeError(msg)
    if departure is not None:
        fields["departure"] = departure
    if request is not None:
        return request.replace(**fields) if fields else request
    if "departure" not in fields:
        msg = "a departure time is needed"
        raise ArgumentTypeError(msg)
    return AnalysisRequest(**fields)


def origin_coordinate(network: TransportNetwork, origin: Any) -> tuple[float, float]:
    """``(lat, lon)`` of an origin given as a pair, a ``Location``, or an OTP place string."""
    if isinstance(origin, Location):
        loc = origin
    elif isinstance(origin, str):
        loc = parse_location(origin)
    else:
        lat, lon = (float(v) for v in origin)
        return lat, lon
    if loc.lat is not None and loc.lon is not None:
        return float(loc.lat), float(loc.lon)
    end = resolve_location(network, loc, "from", "Origin")
    return end.lat, end.lon


def compute_time_surface(
    network: TransportNetwork,
    origin: Any,
    departure: dt.datetime | None = None,
    *,
    target: Grid | PointSet | None = None,
    request: AnalysisRequest | None = None,
    keep_departures: bool = False,
    **options: Any,
) -> xr.Dataset:
    """Travel times from one origin to a grid or point set, over a departure window.

    Range RAPTOR runs over every departure of the window (one per ``step``, default
    every minute); street access and egress use the planner's street search, so a
    time read here equals the earliest arrival :func:`otpa.plan` finds for the same
    request (``AnalysisRequest.plan_request``).

    Parameters
    ----------
    network
        The network.
    origin
        ``(lat, lon)``, a :class:`~otpa.routing.Location`, or an OTP place string
        (``"lat,lon"``, a stop id ``"feed:stop"``).
    departure
        First departure (naive: the network's time zone).
    target
        Destinations: a :class:`Grid` (default: the network's extent at 200 m cells)
        or a :class:`PointSet`.
    request
        All parameters at once; keyword ``options`` override its fields.
    keep_departures
        Also return every departure's times (``travel_time_by_departure``).
    **options
        :class:`AnalysisRequest` fields, also as ``window``, ``step``, ``max_time``,
        ``walk_speed`` ... (seconds or ``timedelta`` for durations), e.g.
        ``modes="WALK,TRANSIT"``, ``percentiles=(25, 50, 75)``.

    Returns
    -------
    xarray.Dataset
        ``travel_time`` in seconds (NaN: unreachable within ``max_time``) over
        ``("percentile", "y", "x")`` for a grid or ``("percentile", "point")``.

    Raises
    ------
    otpa.routing.errors.OutsideBoundsError
        When the origin is outside the network or away from any usable street.

    Examples
    --------
    >>> ds = compute_time_surface(net, (-30.03, -51.22), dt.datetime(2019, 5, 13, 14),
    ...                           window=3600, max_time=5400)  # doctest: +SKIP
    """
    req = analysis_request(departure, request, options)
    grid_or_points = Grid.for_network(network) if target is None else target
    lat, lon = grid_or_points.points() if isinstance(grid_or_points, Grid) else (
        grid_or_points.lat, grid_or_points.lon
    )  # fmt: skip
    o_lat, o_lon = origin_coordinate(network, origin)
    # the time limit of the current request (otpa.routing.deadline), checked between steps
    check_deadline("linking the destinations")
    # one origin: only the stops its transit search reaches are linked to the targets
    prep = prepare(network, req, np.asarray(lat), np.asarray(lon), egress="reached")
    check_deadline("the transit search")
    result = origin_times(prep, o_lat, o_lon, keep_by_departure=keep_departures)
    tz = network.time_zone
    local = [dt.datetime.fromtimestamp(int(t), prep.tz).replace(tzinfo=None)
             for t in prep.departures]  # fmt: skip
    attrs = {"origin_lat": o_lat, "origin_lon": o_lon, **req.attrs(tz)}
    return surface_dataset(
        grid_or_points,
        result.times,
        req.percentiles,
        attrs=attrs,
        by_departure=result.by_departure,
        departure_times=local if keep_departures else None,
    )
