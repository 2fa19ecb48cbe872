"""Depart on board (``startTransitTripId``): where on its trip the journey starts.

OpenTripPlanner 1.x (``OnBoardDepartServiceImpl``) places the rider on the named
trip at the requested time:

* **without an origin point**, on the service day on which the trip runs at that
  time (first departure <= time <= last arrival; the latest such day), between
  the last stop it has left by then and the next one, at the share of that hop
  the time says (its coordinates are interpolated there; OTP splits the hop's
  geometry, here the straight line between the two stops).  The vehicle is on
  time: it reaches the next stop at its scheduled arrival;
* **with an origin point**, on the hop nearest to the point (here the straight
  lines between consecutive stops), at the point's share of it, on the service
  day whose schedule puts the vehicle there closest to the requested time.  The
  trip is then followed from the requested time with its running times, so it
  runs late or early by the difference (``delay_s``).

The journey cannot leave the trip before the next stop; the on-board leg starts at
the requested time (:class:`otpa.transit.raptor.api.OnBoard`).
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from zoneinfo import ZoneInfo

import numpy as np

from otpa.network import TransportNetwork
from otpa.realtime import TimetableSnapshot
from otpa.routing._tables import columns
from otpa.routing.errors import InvalidRequestError, PathNotFoundError
from otpa.routing.request import PlanRequest
from otpa.transit.raptor.spi import RaptorTimetable
from otpa.transit.raptor_data import raptor_timetable
from otpa.types import IntArray
from otpa.util.geo import EARTH_RADIUS_M

__all__ = ["OnBoardStart", "onboard_start"]

_PARAM = "startTransitTripId"


@dataclass(frozen=True)
class OnBoardStart:
    """Where a depart-on-board journey starts.

    Attributes
    ----------
    trip, next_pos, delay_s
        Route-trip of ``timetable``, the first position the rider may leave it at, and how
        late (seconds) it runs from there on.
    lat, lon
        The rider's position.
    timetable
        The timetable of the search date.
    """

    trip: int
    next_pos: int
    delay_s: int
    lat: float
    lon: float
    timetable: RaptorTimetable


def _model_trip(network: TransportNetwork, trip_id: str) -> int:
    ids = np.asarray(columns(network.transit, "trips")["trip_id"]).astype(str)
    hit = np.flatnonzero(ids == trip_id)
    if hit.size == 0 and "_" in trip_id and ":" not in trip_id:
        feed, _, raw = trip_id.partition("_")  # OTP's underscore form feed_trip
        hit = np.flatnonzero(ids == f"{feed}:{raw}")
    if hit.size == 0:
        msg = f"unknown trip {trip_id!r} (startTransitTripId)"
        raise InvalidRequestError(msg, parameter=_PARAM, code="BOGUS_PARAMETER")
    return int(hit[0])


def _times(tt: RaptorTimetable, g: int) -> tuple[IntArray, IntArray, IntArray]:
    """Stops, arrivals and departures of route-trip ``g``."""
    r = int(np.searchsorted(tt.route_trip_offsets, g, side="right")) - 1
    lo, hi = int(tt.route_stop_offsets[r]), int(tt.route_stop_offsets[r + 1])
    base = int(tt.route_time_offsets[r]) + (g - int(tt.route_trip_offsets[r])) * (hi - lo)
    n = hi - lo
    return (
        np.asarray(tt.route_stops[lo:hi], np.int64),
        np.asarray(tt.arrival[base : base + n], np.int64),
        np.asarray(tt.departure[base : base + n], np.int64),
    )


def _project(lat: float, lon: float, a: tuple[float, float], b: tuple[float, float]) -> float:
    """Share of segment a-b (lat, lon) before the point nearest to (lat, lon)."""
    k = math.cos(math.radians(lat))
    ax, ay = (a[1] - lon) * k, a[0] - lat
    bx, by = (b[1] - lon) * k, b[0] - lat
    dx, dy = bx - ax, by - ay
    den = dx * dx + dy * dy
    return 0.0 if den <= 0 else min(max(-(ax * dx + ay * dy) / den, 0.0), 1.0)


def _distance_m(lat: float, lon: float, a: tuple[float, float], b: tuple[float, float]) -> float:
    f = _project(lat, lon, a, b)
    y, x = a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1])
    k = math.cos(math.radians(lat))
    return EARTH_RADIUS_M * math.radians(math.hypot((x - lon) * k, y - lat))


def _by_time(
    tt: RaptorTimetable, candidates: list[int], t: int, trip_id: str
) -> tuple[int, int, float]:
    """Route-trip, hop and share of it where the vehicle is at ``t`` (no origin point)."""
    running = [g for g in candidates if _times(tt, g)[2][0] <= t <= _times(tt, g)[1][-1]]
    if not running:
        msg = f"trip {trip_id} is not running at the requested time (startTransitTripId)"
        raise PathNotFoundError(msg)
    g = max(running, key=lambda x: int(tt.route_day[_route(tt, x)]))
    _, arr, dep = _times(tt, g)
    i = int(np.searchsorted(dep[:-1], t, side="right")) - 1  # last hop already left
    run = arr[i + 1] - dep[i]
    return g, i, float(t - dep[i]) / float(run) if run > 0 else 1.0


def _route(tt: RaptorTimetable, g: int) -> int:
    return int(np.searchsorted(tt.route_trip_offsets, g, side="right")) - 1


def _by_point(
    network: TransportNetwork,
    tt: RaptorTimetable,
    candidates: list[int],
    t: int,
    point: tuple[float, float],
) -> tuple[int, int, float]:
    """Route-trip, hop and share of it nearest to ``point`` (lat, lon)."""
    stops = columns(network.transit, "stops")
    s_lat, s_lon = np.asarray(stops["lat"], float), np.asarray(stops["lon"], float)
    seq = _times(tt, candidates[0])[0]
    coords = [(float(s_lat[s]), float(s_lon[s])) for s in seq]
    hops = [(coords[i], coords[i + 1]) for i in range(len(coords) - 1)]
    lat, lon = point
    i = min(range(len(hops)), key=lambda h: _distance_m(lat, lon, *hops[h]))
    f = _project(lat, lon, *hops[i])
    best, delta = candidates[0], math.inf
    for g in candidates:
        _, arr, dep = _times(tt, g)
        est = dep[i] + f * (arr[i + 1] - dep[i])
        if abs(t - est) < delta:
            best, delta = g, abs(t - est)
    return best, i, f


def onboard_start(
    network: TransportNetwork,
    request: PlanRequest,
    when: dt.datetime,
    tz: ZoneInfo,
    realtime: TimetableSnapshot | None = None,
) -> OnBoardStart:
    """Place the rider of a ``startTransitTripId`` request on their trip (see the module).

    Raises
    ------
    InvalidRequestError
        The trip id is unknown (OTP 1.x: ``BOGUS_PARAMETER``).
    PathNotFoundError
        The trip does not run at the requested time.
    """
    trip_id = str(request.start_transit_trip_id)
    model_trip = _model_trip(network, trip_id)
    day = when.astimezone(tz).date()
    tt = (
        raptor_timetable(network.transit, day, tz.key)
        if realtime is None
        else (realtime.raptor_timetable(day, tz.key))
    )
    candidates = np.flatnonzero(np.asarray(tt.route_trip_ref) == model_trip).tolist()
    if not candidates:
        msg = f"trip {trip_id} does not run around {when.date().isoformat()}"
        raise PathNotFoundError(msg)
    t = int(when.timestamp()) - tt.epoch
    origin = request.from_place
    point: tuple[float, float] | None = None
    if origin is not None and origin.has_coordinate:
        point = (float(origin.lat or 0.0), float(origin.lon or 0.0))
    if point is None:
        g, i, f = _by_time(tt, candidates, t, trip_id)
    else:
        g, i, f = _by_point(network, tt, candidates, t, point)
    stop_seq, arr, dep = _times(tt, g)
    remaining = round((1.0 - f) * float(arr[i + 1] - dep[i]))
    if point is None:
        stops = columns(network.transit, "stops")
        a, b = int(stop_seq[i]), int(stop_seq[i + 1])
        lat = float(stops["lat"][a]) + f * (float(stops["lat"][b]) - float(stops["lat"][a]))
        lon = float(stops["lon"][a]) + f * (float(stops["lon"][b]) - float(stops["lon"][a]))
        point = (lat, lon)
    return OnBoardStart(
        trip=g,
        next_pos=i + 1,
        delay_s=int(t + remaining - arr[i + 1]),
        lat=float(point[0]),
        lon=float(point[1]),
        timetable=tt,
    )
