"""Repeated RAPTOR against range RAPTOR: OpenTripPlanner 1.x's ``/rrtr`` debug check.

Range RAPTOR computes the arrivals of every departure minute of a window in one
sweep (latest first, labels reused); repeating a plain RAPTOR search at each
minute must give exactly the same arrival times.  This runs both from one origin
over a window of a service day and reports their timings and agreement.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import time
from dataclasses import dataclass
from zoneinfo import ZoneInfo

import numpy as np

from otpa.network import TransportNetwork
from otpa.routing import Location, PlanRequest
from otpa.routing.engine import (
    find_access,
    resolve_location,
    street_end,
    street_options,
    transit_request,
)
from otpa.routing.errors import NoTransitTimesError
from otpa.routing.preferences import TransitPreferences, WalkPreferences
from otpa.routing.request import TransitFilters
from otpa.transit.model import TransitModel
from otpa.transit.raptor.api import earliest_arrivals, range_raptor
from otpa.transit.raptor_data import raptor_timetable

__all__ = ["RaptorComparison", "busiest_service_day", "compare_range_raptor"]


def busiest_service_day(model: TransitModel) -> dt.date | None:
    """The first date on which the most trips run (None without service)."""
    active = np.asarray(model.service_active, dtype=np.int64)
    if active.size == 0 or model.n_trips == 0:
        return None
    per_service = np.bincount(
        np.asarray(model.trips["service_index"], dtype=np.int64), minlength=active.shape[0]
    )
    per_day = per_service[: active.shape[0]] @ active
    if per_day.max() <= 0:
        return None
    return dt.date.fromordinal(model.service_first_day + int(np.argmax(per_day)))


@dataclass(frozen=True)
class RaptorComparison:
    """What :func:`compare_range_raptor` found.

    Attributes
    ----------
    date, start_time_s, end_time_s, departures
        The service day and window (seconds after midnight) and the departure minutes.
    access_stops
        Stops reached on foot from the origin (RAPTOR's starting points).
    repeated_s, range_s
        Wall time of the repeated searches and of the range search.
    compared, agreeing
        Arrival times compared (departures x stops) and how many are equal.
    reached
        Of those, how many are reachable.
    first_difference
        ``(departure minute index, stop index)`` of the first difference, if any.
    """

    date: dt.date
    start_time_s: int
    end_time_s: int
    departures: int
    access_stops: int
    repeated_s: float
    range_s: float
    compared: int
    agreeing: int
    reached: int
    first_difference: tuple[int, int] | None


def compare_range_raptor(
    network: TransportNetwork,
    origin: Location,
    *,
    date: dt.date | None = None,
    start_time_s: int = 8 * 3600,
    end_time_s: int = 9 * 3600,
    step_s: int = 60,
    max_walk_time_s: int = 15 * 60,
    max_rides: int = 4,
    banned_agencies: frozenset[str] = frozenset(),
) -> RaptorComparison:
    """Time repeated RAPTOR and range RAPTOR over a window and check that they agree.

    Parameters
    ----------
    network
        The network.
    origin
        A coordinate or a stop id (``Location(label="feed:stop")``).
    date
        The service day (default: :func:`busiest_service_day`).
    start_time_s, end_time_s, step_s
        Departure minutes, seconds after midnight (default 08:00 to 09:00, every minute).
    max_walk_time_s
        Longest walk to the first stop (at 1.33 m/s).
    max_rides
        Most vehicles boarded.
    banned_agencies
        Agencies whose trips are not used.

    Raises
    ------
    otpa.routing.errors.NoTransitTimesError
        When the network has no service day.
    otpa.routing.errors.OutsideBoundsError
        When the origin is not in the network.
    """
    day = date or busiest_service_day(network.transit)
    if day is None:
        msg = "the network has no transit service day"
        raise NoTransitTimesError(msg)
    tz = ZoneInfo(network.time_zone)
    midnight = dt.datetime(day.year, day.month, day.day)
    offsets = range(start_time_s, end_time_s, step_s)
    epochs = np.array(
        [int((midnight + dt.timedelta(seconds=s)).replace(tzinfo=tz).timestamp()) for s in offsets]
    )
    request = PlanRequest(
        from_place=origin,
        to_place=origin,
        date_time=dt.datetime.fromtimestamp(int(epochs[0]), tz),
        walk=WalkPreferences(),
        transit=TransitPreferences(max_transfers=max_rides - 1),
        filters=TransitFilters(banned_agencies=banned_agencies),
    )
    options = street_options(request, "WALK")
    end = street_end(network, resolve_location(network, origin, "from", "Origin"), "WALK", "from")
    access = find_access(
        network, end, options, max_distance_m=max_walk_time_s * options.speed_mps, reverse=False
    )
    timetable = raptor_timetable(network.transit, day, network.time_zone)
    base = transit_request(network, request, timetable, end, options, access, criteria="arrival")
    base = dataclasses.replace(base, stay_seated=None)
    times = epochs - timetable.epoch
    t0 = time.perf_counter()
    t_max = int(times.max())
    repeated = np.stack(
        [
            earliest_arrivals(
                timetable,
                dataclasses.replace(
                    base, time=int(t), search_window_s=t_max + base.search_window_s - int(t)
                ),
            )
            for t in times.tolist()
        ]
    )
    t1 = time.perf_counter()
    ranged = range_raptor(timetable, base, times)
    t2 = time.perf_counter()
    same = (repeated == ranged) | (np.isinf(repeated) & np.isinf(ranged))
    differ = np.argwhere(~same)
    return RaptorComparison(
        date=day,
        start_time_s=start_time_s,
        end_time_s=end_time_s,
        departures=int(times.shape[0]),
        access_stops=int(access.stops.size),
        repeated_s=t1 - t0,
        range_s=t2 - t1,
        compared=int(same.size),
        agreeing=int(same.sum()),
        reached=int(np.isfinite(ranged).sum()),
        first_difference=None if differ.size == 0 else (int(differ[0, 0]), int(differ[0, 1])),
    )
