"""Profile surfaces: the fastest, average and slowest travel time over a departure window.

OpenTripPlanner 1.x's ``/profile?analyst=true`` answered three time surfaces instead of
options: per destination the minimum, average and maximum travel time over the window.
Here they come from one range-RAPTOR time surface over every departure minute
(:func:`otpa.analysis.compute_time_surface` with ``keep_departures``), with the profile
request's street and transit parameters.
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import xarray as xr

from otpa.analysis.grid import Grid
from otpa.analysis.otp1._profile_request import ProfileRequest
from otpa.analysis.pointset import PointSet
from otpa.analysis.request import AnalysisRequest
from otpa.analysis.surface import compute_time_surface
from otpa.network import TransportNetwork
from otpa.routing.request import TransitFilters
from otpa.transit.modes import TRANSIT_MODES

__all__ = ["PROFILE_STATISTICS", "profile_analysis_request", "profile_surfaces"]

#: The three surfaces, in OTP 1.x's order.
PROFILE_STATISTICS = ("min", "avg", "max")


def profile_analysis_request(request: ProfileRequest) -> AnalysisRequest:
    """The analysis request of a profile request: its window, first access mode and limits.

    Connectors from points to the streets are free, as in the profile router (and the
    planner).
    """
    street = request.access_modes[0] if request.access_modes else "WALK"
    transit = sorted(request.transit_modes)
    if set(transit) == set(TRANSIT_MODES):
        transit = ["TRANSIT"]
    midnight = dt.datetime(request.date.year, request.date.month, request.date.day)
    return AnalysisRequest(
        departure=midnight + dt.timedelta(seconds=request.start_time_s),
        modes=",".join([street, *transit]),
        window_s=request.end_time_s - request.start_time_s,
        step_s=request.step_s,
        max_time_s=request.max_duration_s,
        walk_speed_mps=request.walk_speed_mps,
        bike_speed_mps=request.bike_speed_mps,
        max_walk_time_s=request.max_walk_time_s,
        max_bike_time_s=request.max_bike_time_s,
        max_rides=request.max_rides,
        board_slack_s=request.board_slack_s,
        walk_connectors=False,
        filters=TransitFilters(banned_agencies=request.banned_agencies),
    )


def profile_surfaces(
    network: TransportNetwork, request: ProfileRequest, target: Grid | PointSet
) -> dict[str, xr.Dataset]:
    """The ``min``, ``avg`` and ``max`` travel-time surfaces of a profile request's origin.

    Parameters
    ----------
    network
        The network.
    request
        The origin, window and parameters (the destination is not used).
    target
        The grid or point set to compute the surfaces on.

    Returns
    -------
    dict of str to xarray.Dataset
        Time surfaces without a ``percentile`` dimension: ``travel_time`` over ``(y, x)``
        or ``(point,)``, seconds; ``min`` is the fastest departure (NaN: never reachable),
        ``avg`` and ``max`` are NaN where some departure cannot reach the destination
        within ``max_duration_s``.  ``attrs["statistic"]`` names each.
    """
    areq = profile_analysis_request(request)
    origin = (request.from_lat, request.from_lon)
    ds = compute_time_surface(network, origin, target=target, request=areq, keep_departures=True)
    by_departure = ds["travel_time_by_departure"]
    values = np.asarray(by_departure.values, dtype=np.float32)
    missing = np.isnan(values)
    fastest = np.where(missing, np.inf, values).min(axis=0)
    sometimes = missing.any(axis=0)
    filled = np.where(missing, 0.0, values)
    planes = {
        "min": np.where(np.isinf(fastest), np.nan, fastest),
        "avg": np.where(sometimes, np.nan, filled.mean(axis=0)),
        "max": np.where(sometimes, np.nan, filled.max(axis=0)),
    }
    base = ds.drop_vars(["travel_time", "travel_time_by_departure", "percentile",
                         "departure_time"])  # fmt: skip
    dims = by_departure.dims[1:]
    out = {}
    for name in PROFILE_STATISTICS:
        tt = xr.DataArray(
            planes[name].astype(np.float32),
            dims=dims,
            attrs={"units": "s", "long_name": f"{name} travel time over the departure window"},
        )
        out[name] = base.assign(travel_time=tt).assign_attrs(statistic=name)
    return out
