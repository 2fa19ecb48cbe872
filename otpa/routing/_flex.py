"""GTFS-Flex routing: on-demand and deviated-route rides as access, egress and direct trips.

As OTP 2's flex router, a flex ride is a ride on one flex trip from a row where
it picks up to a later row where it drops off.  Its duration is the driving
time over the streets (car) times the row's ``mean_duration_factor`` plus its
``mean_duration_offset`` (OTP 2's direct calculator without streets: the
straight-line distance at 8 m/s plus 5 minutes).  The vehicle leaves inside the
pickup row's window (or at its time, for a timed stop) and arrives inside the
drop-off row's window (at its time for a timed stop: never before it).

Rides feed the transit search as extra access and egress options (flex leg to
or from a transit stop, appended to RAPTOR's access/egress arrays), and rides
straight from the origin to the destination are itineraries of their own.  The
booking rule of the pickup row sets how early the ride must be booked
(``prior_notice_duration_min``, or the ``prior_notice_last_day`` deadline),
counted from :attr:`~otpa.routing.preferences.FlexPreferences.booking_time`
(default: now) unless ``flexIgnoreDrtAdvanceBookMin``.

Times: the side of the search that is anchored at the requested time (access
when departing, egress when arriving by) is timed exactly, waiting for the
window included; the other side enters RAPTOR with the ride's duration and is
timed when the itinerary is assembled (the ride waits for its window; a ride
whose window has closed drops the itinerary).
"""

from __future__ import annotations

import datetime as dt
import math
import time
from dataclasses import dataclass, replace
from zoneinfo import ZoneInfo

import numpy as np

from otpa.gtfs.flex import BookingRule
from otpa.network import TransportNetwork
from otpa.routing._access import MAX_SNAP_M, Access, leg_geometry
from otpa.routing._flag_stops import (
    FlagRide,
    flag_legs,
    flag_rides,
    flag_segments,
    join_flag_legs,
    time_flag_ride,
)
from otpa.routing._flex_services import FlexRow, FlexTrip, flex_services
from otpa.routing._legs import polyline, stop_place, street_leg, to_datetime, tz_offset_ms
from otpa.routing._places import Endpoint
from otpa.routing._tables import row as table_row
from otpa.routing._transfers import transfer_times, transfers_from, transfers_to
from otpa.routing.model import EncodedPolyline, Leg, Place
from otpa.routing.request import PlanRequest
from otpa.routing.street_router import (
    AccessPaths,
    StreetOptions,
    access_stops,
    snap_point,
    street_path,
)
from otpa.transit.raptor.spi import RaptorTimetable
from otpa.util.geo import haversine_m, polyline_length_m

__all__ = [
    "FlexEnds",
    "FlexRide",
    "access_flex_legs",
    "direct_flex_legs",
    "egress_flex_legs",
    "flex_enabled",
    "flex_ends",
    "flex_leg",
    "join_flex_legs",
    "ride_durations_s",
    "time_ride",
]

#: OTP 2's ``DirectFlexPathCalculator``: speed (m/s) and extra time without streets.
DIRECT_SPEED_MPS = 8.0
DIRECT_EXTRA_S = 300
#: Longest flex drive searched (seconds).
MAX_FLEX_DRIVE_S = 3 * 3600.0
_RULES = {1: "impossible", 2: "mustPhone", 3: "coordinateWithDriver"}


@dataclass(frozen=True, eq=False)
class FlexRide:
    """One ride on a flex trip, from row ``board`` to row ``alight``.

    ``stop``: the transit stop at the transit end (access: where it drops off;
    egress: where it picks up); ``-1`` for a direct ride.  ``depart`` / ``arrive``:
    epoch seconds when timed (``None`` until the itinerary is assembled).
    """

    trip: FlexTrip
    board: int
    alight: int
    stop: int
    ride_s: int
    distance_m: float
    lat: np.ndarray
    lon: np.ndarray
    day_start: int
    earliest: float  # booking: the vehicle cannot leave earlier (epoch s)
    latest_booking_ok: bool
    notice_min: float
    latest: float = math.inf  # booking: nor later (prior_notice_duration_max)
    depart: int | None = None
    arrive: int | None = None
    #: a walk between ``stop`` and the stop RAPTOR boards at / alights at (-1: none)
    walk_stop: int = -1
    walk_s: int = 0
    #: the safe travel time (the latest arrival the plan relies on); 0: ``ride_s``
    safe_s: int = 0

    @property
    def bound_s(self) -> int:
        """The ride's safe duration: connections and windows are planned with it."""
        return max(self.safe_s, self.ride_s)

    @property
    def safe_arrive(self) -> float:
        """The latest arrival of a timed ride (its safe duration after it leaves)."""
        if self.depart is None:
            return math.inf
        opens = self.day_start + self.trip.rows[self.alight].row.start_s
        return float(max(self.depart + self.bound_s, opens))

    @property
    def raptor_stop(self) -> int:
        """The stop in RAPTOR's access (egress) arrays."""
        return self.walk_stop if self.walk_stop >= 0 else self.stop


@dataclass(frozen=True, eq=False)
class FlexEnds:
    """Flex rides appended to a search's access and egress arrays."""

    access: tuple[FlexRide, ...] = ()
    egress: tuple[FlexRide, ...] = ()
    n_walk_access: int = 0
    n_walk_egress: int = 0
    #: the unanchored side's rides by stop (access, egress): each is tried when timing
    alternatives: tuple[dict[int, tuple[FlexRide, ...]], dict[int, tuple[FlexRide, ...]]] = ({}, {})
    #: flag stop boardings and alightings, after the flex rides (``_flag_stops``)
    flag_access: tuple[FlagRide, ...] = ()
    flag_egress: tuple[FlagRide, ...] = ()
    timetable: RaptorTimetable | None = None
    #: the requested time (epoch seconds)
    at: float = 0.0


def flex_enabled(network: TransportNetwork, request: PlanRequest) -> bool:
    """Whether a request rides flex services (or flag stops) on a network."""
    if not request.flex.enabled:
        return False
    if not flex_services(network.transit).empty:
        return True
    return request.flex.flag_stop_buffer_size > 0 and bool(flag_segments(network.transit))


def _booking_time(request: PlanRequest) -> float:
    b = request.flex.booking_time
    return time.time() if b is None else b.timestamp()


def _notice(
    rule: BookingRule | None, request: PlanRequest, trip: FlexTrip, date: dt.date
) -> tuple[float, bool, float, float]:
    """Earliest departure the rule allows, whether it can still be booked, the notice
    (minutes) and the latest departure (``prior_notice_duration_max``)."""
    if rule is None or rule.booking_type == 0:
        return -math.inf, True, 0.0, math.inf
    notice = float(rule.prior_notice_min)
    if request.flex.ignore_drt_advance_book_min:
        return -math.inf, True, notice, math.inf
    booked = _booking_time(request)
    latest = math.inf if rule.prior_notice_max is None else booked + rule.prior_notice_max * 60
    if rule.booking_type == 2 and rule.prior_notice_last_day is not None:
        day = date - dt.timedelta(days=int(rule.prior_notice_last_day))
        noon = dt.datetime(day.year, day.month, day.day, 12, tzinfo=ZoneInfo(trip.tz))
        deadline = noon.timestamp() - 12 * 3600 + (rule.prior_notice_last_time_s or 0)
        return booked + notice * 60.0, booked <= deadline, notice, latest
    return booked + notice * 60.0, True, notice, latest


def _rule(trip: FlexTrip, board: FlexRow, alight: FlexRow) -> BookingRule | None:
    return trip.rule(board.row.pickup_booking_rule_id) or trip.rule(
        alight.row.drop_off_booking_rule_id
    )


def _usable(trip: FlexTrip, request: PlanRequest, board: FlexRow, alight: FlexRow) -> bool:
    if board.row.pickup_type == 1 or alight.row.drop_off_type == 1:
        return False
    if not request.flex.use_eligibility_services and trip.eligibility_restricted:
        return False
    if not request.flex.use_reservation_services:
        rule = _rule(trip, board, alight)
        phone = board.row.pickup_type == 2 or alight.row.drop_off_type == 2
        if phone or (rule is not None and rule.booking_type in (1, 2)):
            return False
    return True


def time_ride(
    ride: FlexRide, *, not_before: float = -math.inf, not_after: float = math.inf, late: bool
) -> FlexRide | None:
    """Time a ride inside its windows: the earliest (``late``: the latest) feasible one.

    ``not_before``: the vehicle cannot leave earlier (the rider is not there yet);
    ``not_after``: it must have arrived by then.  None when no time fits.
    """
    b = ride.trip.rows[ride.board].row
    a = ride.trip.rows[ride.alight].row
    if not ride.latest_booking_ok:
        return None
    d = ride.bound_s  # the window and ``not_after`` bound the safe arrival
    lo = float(ride.day_start + b.start_s)
    for bound in (not_before, ride.earliest):
        if bound > -math.inf:
            lo = max(lo, math.ceil(bound))
    hi = float(min(ride.day_start + b.end_s, ride.day_start + a.end_s - d))
    if ride.latest < math.inf:
        hi = min(hi, math.floor(ride.latest))
    if not_after < math.inf:
        hi = min(hi, math.floor(not_after) - d)
    if lo > hi:
        return None
    depart = int(hi if late else lo)
    arrive = max(depart + ride.ride_s, ride.day_start + a.start_s)  # expected
    bound = max(depart + d, ride.day_start + a.start_s)
    if bound > ride.day_start + a.end_s or bound > not_after:
        return None
    return replace(ride, depart=depart, arrive=arrive)


# -- drive times -----------------------------------------------------------------------------


def _car_options(request: PlanRequest) -> StreetOptions:
    return StreetOptions.from_request(request, "CAR")


@dataclass(frozen=True, eq=False)
class _Drives:
    """Driving times between a point and stops (one street search, or straight lines)."""

    network: TransportNetwork
    lat: float
    lon: float
    time_s: dict[int, float]
    distance_m: dict[int, float]
    paths: AccessPaths | None
    reverse: bool

    def geometry(self, stop: int) -> tuple[np.ndarray, np.ndarray]:
        row = table_row(self.network.transit, "stops", stop)
        s_lat, s_lon = float(row["lat"]), float(row["lon"])
        path = None
        if self.paths is not None and self.network.stop_vertex.size:
            v = int(self.network.stop_vertex[stop])
            path = self.paths.path(v) if v >= 0 else None
        if path is None:
            lat = np.array([self.lat, s_lat])
            lon = np.array([self.lon, s_lon])
            return (lat[::-1], lon[::-1]) if self.reverse else (lat, lon)
        lat, lon = np.asarray(path.lat, dtype=float), np.asarray(path.lon, dtype=float)
        if self.reverse:
            return np.r_[s_lat, lat], np.r_[s_lon, lon]
        return np.r_[lat, s_lat], np.r_[lon, s_lon]


def _drives(
    network: TransportNetwork, request: PlanRequest, lat: float, lon: float, *, reverse: bool
) -> _Drives:
    stops = network.transit.stops
    if network.street is not None:
        snap = snap_point(network, lat, lon, mode="CAR", max_distance_m=MAX_SNAP_M)
        if snap is not None:
            res = access_stops(
                network, snap, _car_options(request), max_time_s=MAX_FLEX_DRIVE_S, reverse=reverse
            )
            st = np.asarray(res.stops)
            return _Drives(
                network,
                lat,
                lon,
                dict(zip(st.tolist(), np.asarray(res.time_s, dtype=float).tolist(), strict=True)),
                dict(
                    zip(st.tolist(), np.asarray(res.distance_m, dtype=float).tolist(), strict=True)
                ),
                res.paths,
                reverse,
            )
    d = np.asarray(
        haversine_m(lat, lon, stops["lat"].to_numpy(float), stops["lon"].to_numpy(float))
    )
    t = d / DIRECT_SPEED_MPS + DIRECT_EXTRA_S
    keep = np.flatnonzero(t <= MAX_FLEX_DRIVE_S)
    return _Drives(
        network,
        lat,
        lon,
        dict(zip(keep.tolist(), t[keep].tolist(), strict=True)),
        dict(zip(keep.tolist(), d[keep].tolist(), strict=True)),
        None,
        reverse,
    )


def ride_durations_s(drive_s: float, trip: FlexTrip, row: FlexRow) -> tuple[int, int]:
    """Expected and safe duration of a ride of ``drive_s`` seconds by car, from row ``row``.

    Expected: the pickup row's ``mean_duration_factor`` x drive + ``mean_duration_offset``.
    Safe (the latest arrival the plan relies on, 95 % of rides): as OTP 2's time
    penalty of an unscheduled trip, ``trips.txt`` ``safe_duration_factor`` x drive +
    ``safe_duration_offset`` (seconds) when the trip gives them, else the row's safe
    factor and offset (``stop_times.txt`` of earlier drafts), never below the expected
    duration.  Both rounded up to whole seconds.
    """
    r = row.row
    mean = math.ceil(drive_s * r.mean_duration_factor + r.mean_duration_offset_s)
    factor, offset = trip.safe_duration or (r.safe_duration_factor, r.safe_duration_offset_s)
    return mean, max(mean, math.ceil(drive_s * factor + offset))


# -- trips on a date -------------------------------------------------------------------------


def _trips_on(network: TransportNetwork, when: dt.datetime) -> list[tuple[FlexTrip, dt.date, int]]:
    """Flex trips running on the service day of ``when`` (in each trip's time zone)."""
    model = network.transit
    out = []
    for trip in flex_services(model).trips:
        date = when.astimezone(ZoneInfo(trip.tz)).date()
        if bool(model.services_on(date)[trip.service]):
            out.append((trip, date, model.service_day_start(date, trip.tz)))
    return out


def _pairs(
    network: TransportNetwork,
    request: PlanRequest,
    when: dt.datetime,
    point: Endpoint,
    *,
    egress: bool,
) -> list[tuple[FlexTrip, dt.date, int, int, int]]:
    """(trip, date, day start, board row, alight row) with the point in the right area."""
    out = []
    seen: dict[str, bool] = {}  # by place: many trips serve one zone

    def inside_row(r: FlexRow) -> bool:
        if r.place_id not in seen:
            seen[r.place_id] = r.contains(point.lat, point.lon) or (
                point.stop is not None and not r.is_area and point.stop in r.stops
            )
        return seen[r.place_id]

    for trip, date, start in _trips_on(network, when):
        rows = trip.rows
        inside = [inside_row(r) for r in rows]
        for i, ri in enumerate(rows):
            # a zone row may also be ridden within itself (OTP 2: on and off at one row)
            for j in range(i if ri.is_area else i + 1, len(rows)):
                if inside[j if egress else i] and _usable(trip, request, ri, rows[j]):
                    out.append((trip, date, start, i, j))
    return out


def _rides(
    network: TransportNetwork,
    request: PlanRequest,
    when: dt.datetime,
    point: Endpoint,
    *,
    egress: bool,
) -> list[FlexRide]:
    """Every ride between a point and a transit stop that runs at some time of the day."""
    pairs = _pairs(network, request, when, point, egress=egress)
    if not pairs:
        return []
    drives = _drives(network, request, point.lat, point.lon, reverse=egress)
    geometry: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    out: list[FlexRide] = []
    for trip, date, start, i, j in pairs:
        ri, rj = trip.rows[i], trip.rows[j]
        other = ri if egress else rj
        earliest, ok, notice, latest = _notice(_rule(trip, ri, rj), request, trip, date)
        for stop in other.stops.tolist():
            drive = drives.time_s.get(stop)
            if drive is None or stop == point.stop:
                continue
            if stop not in geometry:
                geometry[stop] = drives.geometry(stop)
            lat, lon = geometry[stop]
            mean, safe = ride_durations_s(drive, trip, ri)
            ride = FlexRide(
                trip, i, j, stop, mean, drives.distance_m[stop], lat, lon,
                start, earliest, ok, notice, latest, safe_s=safe,
            )  # fmt: skip
            if time_ride(ride, late=False) is not None:
                out.append(ride)
    return out


def flex_ends(
    network: TransportNetwork,
    request: PlanRequest,
    when: dt.datetime,
    origin: Endpoint,
    destination: Endpoint,
    access: Access,
    egress: Access,
    *,
    onboard: bool,
    timetable: RaptorTimetable | None = None,
) -> tuple[Access, Access, FlexEnds]:
    """Access and egress with the flex rides appended (indices after the street ones),
    then the flag stop rides (``timetable``: the search's, where flag stops are searched).

    The anchored side (access departing, egress arriving by) is timed from the
    requested time, waiting for the window included, and keeps the best ride per
    stop; the other side enters with the shortest ride per stop, and every ride
    to that stop is tried when the itinerary is timed.
    """
    t = when.timestamp()
    arrive_by = request.arrive_by
    out_a: list[tuple[FlexRide, int]] = []
    out_e: list[tuple[FlexRide, int]] = []
    if not onboard:
        for ride in _rides(network, request, when, origin, egress=False):
            if arrive_by:
                out_a.append((ride, ride.bound_s))
                continue
            timed = time_ride(ride, not_before=t, late=False)
            if timed is not None and timed.arrive is not None:
                out_a.append((timed, int(timed.safe_arrive - t)))
    for ride in _rides(network, request, when, destination, egress=True):
        if not arrive_by:
            out_e.append((ride, ride.bound_s))
            continue
        timed = time_ride(ride, not_after=t, late=True)
        if timed is not None and timed.depart is not None:
            out_e.append((timed, int(t - timed.depart)))
    alternatives = (
        _by_stop(out_a) if arrive_by else {},
        {} if arrive_by else _by_stop(out_e),
    )
    out_a = _with_walks(network, request, _best(out_a), egress=False)
    out_e = _with_walks(network, request, _best(out_e), egress=True)
    flag_a: list[tuple[FlagRide, int]] = []
    flag_e: list[tuple[FlagRide, int]] = []
    if timetable is not None and request.flex.flag_stop_buffer_size > 0:
        if not onboard:
            flag_a = flag_rides(network, request, timetable, origin, t, alight=False)
        flag_e = flag_rides(network, request, timetable, destination, t, alight=True)
    ends = FlexEnds(
        tuple(r for r, _ in out_a),
        tuple(r for r, _ in out_e),
        len(access.stops),
        len(egress.stops),
        alternatives,
        tuple(r for r, _ in flag_a),
        tuple(r for r, _ in flag_e),
        timetable,
        t,
    )
    access = _append_flags(_append(access, out_a), flag_a)
    egress = _append_flags(_append(egress, out_e), flag_e)
    return access, egress, ends


def _append_flags(access: Access, rides: list[tuple[FlagRide, int]]) -> Access:
    return _extended(access, [(r.stop, s, r.walk_m) for r, s in rides])


def _flag_legs(
    network: TransportNetwork,
    request: PlanRequest,
    ends: FlexEnds,
    ride: FlagRide,
    window: tuple[float, float],
    endpoint: Endpoint,
    tz: ZoneInfo,
) -> list[Leg]:
    assert ends.timetable is not None
    timed = time_flag_ride(ends.timetable, request, ride, window, ends.at)
    if timed is None:
        return []
    return flag_legs(network, request, ends.timetable, ride, timed, endpoint, tz)


def join_flex_legs(flex: FlexEnds | None, legs: list[Leg]) -> list[Leg]:
    """The legs of a journey with each flag ride joined to its trip's ride (one leg)."""
    if flex is None or not (flex.flag_access or flex.flag_egress):
        return legs
    return join_flag_legs(legs)


def _best(rides: list[tuple[FlexRide, int]]) -> list[tuple[FlexRide, int]]:
    best: dict[int, tuple[FlexRide, int]] = {}
    for ride, t in rides:
        if ride.stop not in best or t < best[ride.stop][1]:
            best[ride.stop] = (ride, t)
    return list(best.values())


def _by_stop(rides: list[tuple[FlexRide, int]]) -> dict[int, tuple[FlexRide, ...]]:
    out: dict[int, list[FlexRide]] = {}
    for ride, _ in rides:
        out.setdefault(ride.stop, []).append(ride)
    return {k: tuple(v) for k, v in out.items()}


def _with_walks(
    network: TransportNetwork,
    request: PlanRequest,
    rides: list[tuple[FlexRide, int]],
    *,
    egress: bool,
) -> list[tuple[FlexRide, int]]:
    """Rides plus their walking transfers to (egress: from) other stops; best per stop.

    As OTP 2's flex access and egress, a ride to a stop also reaches the stops a
    walking transfer leads to (a flex stop without scheduled service included).
    """
    if not rides:
        return rides
    walk = transfer_times(network, request.walk.speed_mps)
    best: dict[int, tuple[FlexRide, int]] = {}
    for ride, t in rides:
        options = [(ride, t)]
        idx, other = (transfers_to if egress else transfers_from)(network, ride.stop)
        for k, o in zip(idx.tolist(), other.tolist(), strict=True):
            w = int(walk[k])
            options.append((replace(ride, walk_stop=int(o), walk_s=w), t + w))
        for option in options:
            stop = option[0].raptor_stop
            if stop not in best or option[1] < best[stop][1]:
                best[stop] = option
    return list(best.values())


def _append(access: Access, rides: list[tuple[FlexRide, int]]) -> Access:
    return _extended(access, [(r.raptor_stop, s, r.distance_m) for r, s in rides])


def _extended(access: Access, entries: list[tuple[int, int, float]]) -> Access:
    """``access`` with more (stop, seconds, metres) entries; their cost is their time."""
    if not entries:
        return access
    stops = np.array([stop for stop, _, _ in entries], dtype=np.int32)
    times = np.array([s for _, s, _ in entries], dtype=np.int32)
    dist = np.array([m for _, _, m in entries], dtype=np.float64)
    return replace(
        access,
        stops=np.r_[access.stops, stops].astype(np.int32),
        time_s=np.r_[access.time_s, times].astype(np.int32),
        cost=np.r_[access.cost, times.astype(np.float64)],
        distance_m=np.r_[access.distance_m, dist],
    )


# -- legs ------------------------------------------------------------------------------------


def _area_ring(row: FlexRow) -> EncodedPolyline | None:
    if not row.polygons:
        return None
    x, y = row.polygons[0][0]
    return polyline(y, x)


def _end_place(
    network: TransportNetwork,
    ride: FlexRide,
    index: int,
    at: dt.datetime,
    point: Endpoint | None,
    *,
    departing: bool,
) -> Place:
    row = ride.trip.rows[index]
    arrival, departure = (None, at) if departing else (at, None)
    if point is None:  # the transit stop
        place = stop_place(network, ride.stop, arrival=arrival, departure=departure)
        kind = "DEVIATED" if row.is_area else "DEFAULT"
        return replace(place, board_alight_type=kind, stop_sequence=row.row.stop_sequence)
    if point.stop is not None and not row.is_area:
        place = stop_place(network, point.stop, arrival=arrival, departure=departure)
        return replace(place, orig=point.orig, stop_sequence=row.row.stop_sequence)
    return Place(
        name=point.name,
        lon=point.lon,
        lat=point.lat,
        orig=point.orig,
        arrival=arrival,
        departure=departure,
        board_alight_type="DEVIATED",
        flag_stop_area=_area_ring(row),
        stop_id=row.place_id,
        stop_sequence=row.row.stop_sequence,
    )


def _str(value: object) -> str | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    s = str(value)
    return s if s and s not in ("<NA>", "nan") else None


def flex_leg(
    network: TransportNetwork,
    request: PlanRequest,
    ride: FlexRide,
    tz: ZoneInfo,
    *,
    origin: Endpoint | None,
    destination: Endpoint | None,
) -> Leg:
    """The leg of a timed ride; ``origin`` / ``destination``: the place end (None: the stop)."""
    assert ride.depart is not None
    assert ride.arrive is not None
    m = network.transit
    trip = ride.trip
    start, end = to_datetime(ride.depart, tz), to_datetime(ride.arrive, tz)
    trip_row = table_row(m, "trips", trip.trip)
    route_row = table_row(m, "routes", trip.route)
    agency_row = table_row(m, "agencies", int(route_row["agency_index"]))
    board, alight = trip.rows[ride.board], trip.rows[ride.alight]
    rule = _rule(trip, board, alight)
    short = _str(route_row.get("short_name"))
    long_ = _str(route_row.get("long_name"))
    agency_id = _str(agency_row.get("agency_id"))
    date = dt.datetime.fromtimestamp(ride.day_start + 12 * 3600, ZoneInfo(trip.tz)).date()
    message = rule.message if rule is not None else None
    window_end = ride.day_start + board.row.end_s
    window_start = ride.day_start + alight.row.start_s
    return Leg(
        mode=str(route_row["mode"]),
        start_time=start,
        end_time=end,
        from_place=_end_place(network, ride, ride.board, start, origin, departing=True),
        to_place=_end_place(network, ride, ride.alight, end, destination, departing=False),
        distance=round(float(polyline_length_m(ride.lat, ride.lon)), 3),
        leg_geometry=polyline(ride.lat, ride.lon),
        agency_time_zone_offset=tz_offset_ms(start),
        route=short or long_ or "",
        transit_leg=True,
        agency_name=_str(agency_row.get("name")),
        agency_url=_str(agency_row.get("url")),
        agency_id=agency_id.split(":", 1)[1] if agency_id and ":" in agency_id else agency_id,
        route_color=_str(route_row.get("color")),
        route_text_color=_str(route_row.get("text_color")),
        route_type=int(route_row["route_type"]),
        route_id=str(route_row["route_id"]),
        route_short_name=short,
        route_long_name=long_,
        trip_short_name=_str(trip_row.get("short_name")),
        trip_block_id=_str(trip_row.get("block_id")),
        trip_id=trip.trip_id,
        headsign=board.row.stop_headsign or _str(trip_row.get("headsign")),
        service_date=date.strftime("%Y%m%d"),
        board_rule=_RULES.get(board.row.pickup_type),
        alight_rule=_RULES.get(alight.row.drop_off_type),
        flex_drt_advance_book_min=float(ride.notice_min),
        call_and_ride=True if not trip.deviated else None,
        flex_drt_pickup_message=(rule.pickup_message or message) if rule else None,
        flex_drt_drop_off_message=(rule.drop_off_message or message) if rule else None,
        flex_call_and_ride_max_start_time=to_datetime(window_end, tz) if board.is_area else None,
        flex_call_and_ride_min_end_time=to_datetime(window_start, tz) if alight.is_area else None,
    )


def direct_flex_legs(
    network: TransportNetwork,
    request: PlanRequest,
    when: dt.datetime,
    origin: Endpoint,
    destination: Endpoint,
    tz: ZoneInfo,
) -> list[Leg]:
    """Flex rides straight from the origin to the destination (one per trip, best first)."""
    pairs = [
        p
        for p in _pairs(network, request, when, origin, egress=False)
        if p[0].rows[p[4]].contains(destination.lat, destination.lon)
    ]
    if not pairs:
        return []
    drive_s, dist, lat, lon = _direct_drive(network, request, origin, destination)
    if drive_s is None:
        return []
    t = when.timestamp()
    legs: list[tuple[int, Leg]] = []
    seen: set[int] = set()
    for trip, date, start, i, j in pairs:
        if trip.trip in seen:
            continue
        ri, rj = trip.rows[i], trip.rows[j]
        earliest, ok, notice, latest = _notice(_rule(trip, ri, rj), request, trip, date)
        mean, safe = ride_durations_s(drive_s, trip, ri)
        ride = FlexRide(
            trip,
            i,
            j,
            -1,
            mean,
            dist,
            lat,
            lon,
            start,
            earliest,
            ok,
            notice,
            latest,
            safe_s=safe,
        )
        timed = (
            time_ride(ride, not_after=t, late=True)
            if request.arrive_by
            else time_ride(ride, not_before=t, late=False)
        )
        if timed is None or timed.arrive is None or timed.depart is None:
            continue
        # the same arrival (departure) with the shortest wait on board
        first, last = float(timed.depart), timed.safe_arrive
        if request.arrive_by:
            timed = time_ride(ride, not_before=first, not_after=t, late=False) or timed
        else:
            timed = time_ride(ride, not_before=t, not_after=last, late=True) or timed
        if timed.arrive is None or timed.depart is None:
            continue
        seen.add(trip.trip)
        leg = flex_leg(network, request, timed, tz, origin=origin, destination=destination)
        legs.append((int(t - timed.depart) if request.arrive_by else int(timed.arrive - t), leg))
    legs.sort(key=lambda x: x[0])
    return [leg for _, leg in legs]


def _direct_drive(
    network: TransportNetwork, request: PlanRequest, origin: Endpoint, destination: Endpoint
) -> tuple[float | None, float, np.ndarray, np.ndarray]:
    if network.street is not None:
        a = snap_point(network, origin.lat, origin.lon, mode="CAR", max_distance_m=MAX_SNAP_M)
        b = snap_point(
            network, destination.lat, destination.lon, mode="CAR", max_distance_m=MAX_SNAP_M
        )
        if a is not None and b is not None:
            path = street_path(network, a, b, _car_options(request))
            if path is None:
                return None, 0.0, np.zeros(0), np.zeros(0)
            return (
                float(path.duration_s),
                float(path.distance_m),
                np.asarray(path.lat, dtype=float),
                np.asarray(path.lon, dtype=float),
            )
    d = float(haversine_m(origin.lat, origin.lon, destination.lat, destination.lon))
    return (
        d / DIRECT_SPEED_MPS + DIRECT_EXTRA_S,
        d,
        np.array([origin.lat, destination.lat]),
        np.array([origin.lon, destination.lon]),
    )


def _walk_leg(
    network: TransportNetwork,
    request: PlanRequest,
    a: int,
    b: int,
    start: float,
    walk_s: int,
    tz: ZoneInfo,
) -> Leg:
    """The walk between two stops next to a flex ride (the transfer's path)."""
    t0, t1 = to_datetime(start, tz), to_datetime(start + walk_s, tz)
    rows = [table_row(network.transit, "stops", x) for x in (a, b)]
    coords = (
        float(rows[0]["lat"]),
        float(rows[0]["lon"]),
        float(rows[1]["lat"]),
        float(rows[1]["lon"]),
    )
    options = StreetOptions.from_request(request, "WALK")
    geom, _ = leg_geometry(network, a, b, options, coords)
    return street_leg(
        "WALK",
        t0,
        t1,
        stop_place(network, a, departure=t0),
        stop_place(network, b, arrival=t1),
        geom,
    )


def access_flex_legs(
    network: TransportNetwork,
    request: PlanRequest,
    ends: FlexEnds,
    index: int,
    window: tuple[float, float],
    origin: Endpoint,
    tz: ZoneInfo,
) -> list[Leg]:
    """The flex leg (and walk) of access ``index`` of a journey; [] when no time fits.

    ``window``: RAPTOR's access start and end.  Departing, the ride (timed from the
    request) leaves as late as still reaches the boarding; arriving by, it is timed
    here to reach the stop by the window's end.
    """
    k = index - ends.n_walk_access
    if k >= len(ends.access):
        flag = ends.flag_access[k - len(ends.access)]
        return _flag_legs(network, request, ends, flag, window, origin, tz)
    ride = ends.access[k]
    by = window[1] - ride.walk_s
    timed: FlexRide | None
    if ride.depart is not None:
        later = time_ride(ride, not_before=ride.depart, not_after=by, late=True)
        timed = later or (ride if ride.safe_arrive <= by else None)
    else:  # arriving by: the ride (of any trip to that stop) that leaves last
        options = [
            replace(r, walk_stop=ride.walk_stop, walk_s=ride.walk_s)
            for r in ends.alternatives[0].get(ride.stop, (ride,))
        ]
        found = [x for x in (time_ride(r, not_after=by, late=True) for r in options) if x]
        timed = max(found, key=lambda x: x.depart or 0, default=None)
    if timed is None or timed.arrive is None:
        return []
    legs = [flex_leg(network, request, timed, tz, origin=origin, destination=None)]
    if timed.walk_stop >= 0:
        legs.append(
            _walk_leg(network, request, timed.stop, timed.walk_stop, timed.arrive, timed.walk_s, tz)
        )
    return legs


def egress_flex_legs(
    network: TransportNetwork,
    request: PlanRequest,
    ends: FlexEnds,
    index: int,
    window: tuple[float, float],
    destination: Endpoint,
    tz: ZoneInfo,
) -> list[Leg]:
    """The walk and flex leg of egress ``index`` of a journey; [] when no time fits."""
    k = index - ends.n_walk_egress
    if k >= len(ends.egress):
        flag = ends.flag_egress[k - len(ends.egress)]
        return _flag_legs(network, request, ends, flag, window, destination, tz)
    ride = ends.egress[k]
    ready = window[0] + ride.walk_s
    timed: FlexRide | None
    if ride.depart is not None:  # arriving by: leave as early as possible after alighting
        arrive = ride.safe_arrive
        earlier = time_ride(ride, not_before=ready, not_after=arrive, late=False)
        timed = earlier or (ride if ride.depart >= ready else None)
    else:  # departing: the ride (of any trip from that stop) that arrives first
        options = [
            replace(r, walk_stop=ride.walk_stop, walk_s=ride.walk_s)
            for r in ends.alternatives[1].get(ride.stop, (ride,))
        ]
        found = [x for x in (time_ride(r, not_before=ready, late=False) for r in options) if x]
        timed = min(found, key=lambda x: x.arrive or 0, default=None)
    if timed is None:
        return []
    legs = []
    if timed.walk_stop >= 0:
        legs.append(
            _walk_leg(network, request, timed.walk_stop, timed.stop, window[0], timed.walk_s, tz)
        )
    legs.append(flex_leg(network, request, timed, tz, origin=None, destination=destination))
    return legs
