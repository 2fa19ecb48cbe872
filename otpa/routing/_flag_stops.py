"""Flag stops: boarding and alighting anywhere along continuous pickup / drop-off segments.

GTFS ``continuous_pickup`` / ``continuous_drop_off`` (``routes.txt``, overridden
per segment by ``stop_times.txt``; 0 continuous, 2 phone the agency, 3 tell the
driver) let a rider board or leave a vehicle anywhere along the trip's path from
one stop to the next.  As OTP 1.x's flag stops (``FlagStopGraphModifier``,
``TemporaryPartialPatternHop``), a request with ``flexFlagStopBufferSize`` metres
reaches a point on the segment's path (the trip's shape, or the straight line
between the stops without one) within that distance of the origin or destination;
the vehicle passes it at the time interpolated by distance along the segment
(rounded to the second).  The point is strictly between the stops: at a stop the
stop itself is used.

In the one McRAPTOR search a flag boarding is an access to the segment's next
stop (arriving there with the trip, the board slack taken off so the same trip
can be boarded again), a flag alighting an egress from the segment's first stop;
when the itinerary is assembled the flag ride and the ride on the same trip
before (after) it become one leg.  The walk between the place and the point goes
over the streets (the straight line at the walk speed without them).  The side
anchored at the requested time (access departing, egress arriving by) is timed
exactly, the other side enters with the shortest ride of the day and is timed
when the itinerary is assembled.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from zoneinfo import ZoneInfo

import numpy as np

from otpa.network import TransportNetwork
from otpa.routing._access import MAX_SNAP_M, path_geometry
from otpa.routing._legs import (
    StreetLegGeometry,
    polyline,
    straight_geometry,
    street_leg,
    to_datetime,
    transit_leg,
)
from otpa.routing._places import Endpoint
from otpa.routing._tables import row as table_row
from otpa.routing._tables import shape_index
from otpa.routing.model import Leg, Place
from otpa.routing.request import PlanRequest
from otpa.routing.street_router import StreetOptions, snap_point, street_path
from otpa.transit.model import TransitModel
from otpa.transit.raptor.spi import RaptorTimetable
from otpa.types import FloatArray
from otpa.util.cache import OwnerCache
from otpa.util.geo import haversine_m
from otpa.util.polyline import decode_polyline

__all__ = [
    "FlagRide",
    "FlagSegment",
    "direct_flag_legs",
    "flag_legs",
    "flag_rides",
    "flag_segments",
    "join_flag_legs",
    "time_flag_ride",
]

_EARTH_M = 6371008.8
#: continuous values that let a rider on or off (1: none)
_CONTINUOUS = (0, 2, 3)


@dataclass(frozen=True, eq=False)
class FlagSegment:
    """The path of one pattern between stop positions ``pos`` and ``pos + 1``."""

    pattern: int
    pos: int
    lat: FloatArray
    lon: FloatArray
    #: length (m) along the path at each point
    along_m: FloatArray
    #: continuous pickup / drop-off of each model trip of the pattern on this segment
    pickup: dict[int, int]
    drop_off: dict[int, int]
    #: min lon, min lat, max lon, max lat of the path
    bbox: tuple[float, float, float, float]


def _route_flags(model: TransitModel) -> dict[int, tuple[int, int]]:
    """Route index -> (continuous_pickup, continuous_drop_off) of routes.txt (not 1, 1)."""
    feeds = model.feeds["feed_id"].astype(str).tolist()
    out: dict[int, tuple[int, int]] = {}
    if "raw_id" not in model.routes or "feed" not in model.routes:
        return out
    raw = model.routes["raw_id"].astype(str).tolist()
    feed = model.routes["feed"].astype(int).tolist()
    for k, (rid, f) in enumerate(zip(raw, feed, strict=True)):
        doc = model.flex.get(feeds[f]) or {}
        flags = (doc.get("routes") or {}).get(rid)
        if flags:
            pair = (
                int(flags.get("continuous_pickup", 1)),
                int(flags.get("continuous_drop_off", 1)),
            )
            if pair != (1, 1):
                out[k] = pair
    return out


def _trip_overrides(model: TransitModel) -> dict[int, dict[int, tuple[int, int]]]:
    """Model trip -> stop_sequence -> (pickup, drop-off) given in stop_times.txt (-1: empty)."""
    out: dict[int, dict[int, tuple[int, int]]] = {}
    if not any(doc.get("continuous_stop_times") for doc in model.flex.values()):
        return out
    index = {str(t): k for k, t in enumerate(model.trips["trip_id"].astype(str))}
    for feed, doc in model.flex.items():
        for trip, rows in (doc.get("continuous_stop_times") or {}).items():
            k = index.get(f"{feed}:{trip}")
            if k is not None:
                out[k] = {int(r[0]): (int(r[1]), int(r[2])) for r in rows}
    return out


def _local_m(
    lat: FloatArray, lon: FloatArray, lat0: float, lon0: float
) -> tuple[FloatArray, FloatArray]:
    """Equirectangular metres around (lat0, lon0)."""
    k = math.pi / 180 * _EARTH_M
    return (lon - lon0) * k * math.cos(math.radians(lat0)), (lat - lat0) * k


def _segment_path(
    model: TransitModel, pattern: int, pos: int, shape: int | None
) -> tuple[FloatArray, FloatArray]:
    stops = np.asarray(model.pattern_stop_indices(pattern))[pos : pos + 2]
    s_lat = model.stops["lat"].to_numpy(np.float64)[stops]
    s_lon = model.stops["lon"].to_numpy(np.float64)[stops]
    if shape is not None:
        a, b = int(model.shape_offsets[shape]), int(model.shape_offsets[shape + 1])
        if b - a >= 2:
            lat = np.asarray(model.shape_lat[a:b], dtype=np.float64)
            lon = np.asarray(model.shape_lon[a:b], dtype=np.float64)
            i = int(np.argmin(haversine_m(s_lat[0], s_lon[0], lat, lon)))
            j = i + int(np.argmin(haversine_m(s_lat[1], s_lon[1], lat[i:], lon[i:])))
            inner = slice(i + 1, j)
            return np.r_[s_lat[0], lat[inner], s_lat[1]], np.r_[s_lon[0], lon[inner], s_lon[1]]
    return s_lat, s_lon


def _build(model: TransitModel) -> tuple[FlagSegment, ...]:
    if not model.flex:
        return ()
    routes = _route_flags(model)
    overrides = _trip_overrides(model)
    shapes = shape_index(model)
    out: list[FlagSegment] = []
    for p in range(len(model.pattern_route)):
        route = int(model.pattern_route[p])
        trips = np.asarray(model.pattern_trip_indices(p)).tolist()
        if route not in routes and not any(t in overrides for t in trips):
            continue
        default = routes.get(route, (1, 1))
        n = int(model.pattern_stop_offsets[p + 1] - model.pattern_stop_offsets[p])
        base = int(model.pattern_time_offsets[p])
        shape_id = _str(table_row(model, "trips", trips[0]).get("shape_id"))
        shape = shapes.get(shape_id) if shape_id is not None else None
        for pos in range(n - 1):
            pickup: dict[int, int] = {}
            drop_off: dict[int, int] = {}
            for k, t in enumerate(trips):
                pick, drop = default
                given = overrides.get(t)
                if given is not None:
                    seq = int(model.stop_sequence[base + k * n + pos])
                    p_given, d_given = given.get(seq, (-1, -1))
                    pick = pick if p_given < 0 else p_given
                    drop = drop if d_given < 0 else d_given
                if pick in _CONTINUOUS:
                    pickup[t] = pick
                if drop in _CONTINUOUS:
                    drop_off[t] = drop
            if not pickup and not drop_off:
                continue
            lat, lon = _segment_path(model, p, pos, shape)
            x, y = _local_m(lat, lon, float(lat[0]), float(lon[0]))
            along = np.r_[0.0, np.cumsum(np.hypot(np.diff(x), np.diff(y)))]
            bbox = (float(lon.min()), float(lat.min()), float(lon.max()), float(lat.max()))
            out.append(FlagSegment(p, pos, lat, lon, along, pickup, drop_off, bbox))
    return tuple(out)


_CACHE: OwnerCache[str, tuple[FlagSegment, ...]] = OwnerCache()


def flag_segments(model: TransitModel) -> tuple[FlagSegment, ...]:
    """The segments of a model with continuous pickup or drop-off (prepared once)."""
    return _CACHE.get_or_build(model, "flag", lambda: _build(model))


@dataclass(frozen=True)
class _Point:
    segment: FlagSegment
    fraction: float
    lat: float
    lon: float
    distance_m: float
    along_m: float


def _project(seg: FlagSegment, lat: float, lon: float) -> _Point:
    """The nearest point of the segment's path to (lat, lon)."""
    x, y = _local_m(seg.lat, seg.lon, lat, lon)
    x0, y0, dx, dy = x[:-1], y[:-1], np.diff(x), np.diff(y)
    length2 = dx * dx + dy * dy
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.clip(np.where(length2 > 0, -(x0 * dx + y0 * dy) / length2, 0.0), 0.0, 1.0)
    d = np.hypot(x0 + t * dx, y0 + t * dy)
    k = int(np.argmin(d))
    tk = float(t[k])
    along = float(seg.along_m[k] + tk * (seg.along_m[k + 1] - seg.along_m[k]))
    total = float(seg.along_m[-1])
    plat = float(seg.lat[k] + tk * (seg.lat[k + 1] - seg.lat[k]))
    plon = float(seg.lon[k] + tk * (seg.lon[k + 1] - seg.lon[k]))
    return _Point(seg, along / total if total > 0 else 0.0, plat, plon, float(d[k]), along)


def _near(
    model: TransitModel, lat: float, lon: float, buffer_m: float, *, alight: bool
) -> list[_Point]:
    """The nearest point within the buffer of each pattern, strictly between its stops."""
    pad_lat = buffer_m / 111_000.0
    pad_lon = pad_lat / max(math.cos(math.radians(lat)), 0.01)
    best: dict[int, _Point] = {}
    for seg in flag_segments(model):
        if not (seg.drop_off if alight else seg.pickup):
            continue
        x0, y0, x1, y1 = seg.bbox
        if not (x0 - pad_lon <= lon <= x1 + pad_lon and y0 - pad_lat <= lat <= y1 + pad_lat):
            continue
        point = _project(seg, lat, lon)
        if point.distance_m > buffer_m or not 0.0 < point.fraction < 1.0:
            continue
        if seg.pattern not in best or point.distance_m < best[seg.pattern].distance_m:
            best[seg.pattern] = point
    return list(best.values())


@dataclass(frozen=True, eq=False)
class FlagRide:
    """A flag boarding (``alight`` False) or alighting on the path of one pattern segment.

    ``stop``: the stop in RAPTOR's arrays (the segment's next stop for a boarding, its
    first stop for an alighting); ``walk_s``: the straight walk between the place and
    the point.  ``trip``: the timetable route-trip when timed (anchored side).
    """

    point: _Point
    alight: bool
    stop: int
    walk_s: int
    walk_m: float
    allowed: frozenset[int]  # model trips that may stop there (phone rules applied)
    route: int = -1
    trip: int = -1


def _allowed(values: dict[int, int], request: PlanRequest) -> frozenset[int]:
    phone_ok = request.flex.use_reservation_services
    return frozenset(t for t, v in values.items() if v != 2 or phone_ok)


def _times(timetable: RaptorTimetable, route: int, k: int, pos: int) -> tuple[int, int, int, int]:
    """Arrival and departure (epoch-relative) of route-trip ``k`` at ``pos`` and ``pos + 1``."""
    a, b = int(timetable.route_stop_offsets[route]), int(timetable.route_stop_offsets[route + 1])
    base = int(timetable.route_time_offsets[route]) + k * (b - a)
    return (
        int(timetable.arrival[base + pos]),
        int(timetable.departure[base + pos]),
        int(timetable.arrival[base + pos + 1]),
        int(timetable.departure[base + pos + 1]),
    )


def _passes(timetable: RaptorTimetable, ride: FlagRide) -> list[tuple[int, int, int, int, int]]:
    """(route, route-trip, time at the point, arrival at the next stop, departure from the
    first stop) of every trip of the day that may stop at the ride's point."""
    seg = ride.point.segment
    out = []
    routes = np.flatnonzero(np.asarray(timetable.route_pattern) == seg.pattern).tolist()
    for r in routes:
        t0, t1 = int(timetable.route_trip_offsets[r]), int(timetable.route_trip_offsets[r + 1])
        for rt in range(t0, t1):
            if int(timetable.route_trip_ref[rt]) not in ride.allowed:
                continue
            _, dep_a, arr_b, _ = _times(timetable, r, rt - t0, seg.pos)
            at = dep_a + math.floor(ride.point.fraction * (arr_b - dep_a) + 0.5)
            out.append((r, rt, at, arr_b, dep_a))
    return out


def flag_rides(
    network: TransportNetwork,
    request: PlanRequest,
    timetable: RaptorTimetable,
    point: Endpoint,
    t: float,
    *,
    alight: bool,
) -> list[tuple[FlagRide, int]]:
    """Flag boardings near the origin (``alight``: alightings near the destination) as
    RAPTOR access (egress) entries: the ride and its duration in seconds.

    ``t``: the requested time (epoch seconds).  The anchored side (boarding departing,
    alighting arriving by) is timed: the first trip that passes the point once the rider
    is there (the last that reaches the destination in time); the other side enters
    with the shortest ride of the day.
    """
    model = network.transit
    buffer_m = float(request.flex.flag_stop_buffer_size)
    if buffer_m <= 0:
        return []
    slack = request.transit.alight_slack_s if alight else request.transit.board_slack_s
    anchored = request.arrive_by == alight
    rel = int(t) - timetable.epoch
    out: list[tuple[FlagRide, int]] = []
    for p in _near(model, point.lat, point.lon, buffer_m, alight=alight):
        seg = p.segment
        allowed = _allowed(seg.drop_off if alight else seg.pickup, request)
        stops = np.asarray(model.pattern_stop_indices(seg.pattern))
        walk_s, walk_m, _ = _walk(network, request, (point.lat, point.lon), p, alight=alight)
        ride = FlagRide(p, alight, int(stops[seg.pos if alight else seg.pos + 1]), walk_s,
                        walk_m, allowed)  # fmt: skip
        passes = _passes(timetable, ride)
        if not passes:
            continue
        if not anchored:
            if alight:  # from the first stop's departure to the point, then the walk
                d = min(at - dep_a for _, _, at, _, dep_a in passes) + walk_s
            else:  # the walk, then from the point to the next stop
                d = walk_s + min(arr_b - at for _, _, at, arr_b, _ in passes)
            out.append((ride, max(d - slack, 0)))
            continue
        if alight:  # arriving by: the last trip that leaves the rider at the point in time
            fits = [x for x in passes if x[2] + walk_s <= rel]
            if fits:
                r, rt, _, _, dep_a = max(fits, key=lambda x: x[2])
                out.append((replace(ride, route=r, trip=rt), max(rel - dep_a - slack, 0)))
        else:  # departing: the first trip that passes once the rider is there
            fits = [x for x in passes if x[2] >= rel + walk_s]
            if fits:
                r, rt, _, arr_b, _ = min(fits, key=lambda x: (x[3], x[2]))
                out.append((replace(ride, route=r, trip=rt), max(arr_b - rel - slack, 0)))
    return out


def time_flag_ride(
    timetable: RaptorTimetable,
    request: PlanRequest,
    ride: FlagRide,
    window: tuple[float, float],
    t: float,
) -> tuple[int, int, int] | None:
    """The trip of a ride in a journey: (route, route-trip, time at the point), or None.

    ``window``: RAPTOR's access (egress) start and end, epoch seconds.  A boarding takes
    the last trip that reaches the next stop by the boarding there (and, departing,
    passes the point after the rider got there); an alighting the first trip that
    leaves the first stop once the rider is there (and, arriving by, sets down in time).
    """
    rel = int(t) - timetable.epoch
    passes = _passes(timetable, ride)
    if ride.alight:
        ready = int(window[0]) - timetable.epoch - request.transit.alight_slack_s
        fits = [x for x in passes if x[4] >= ready]
        if request.arrive_by:
            fits = [x for x in fits if x[2] + ride.walk_s <= rel]
        if not fits:
            return None
        r, rt, at, _, _ = min(fits, key=lambda x: (x[4], x[2]))
        return r, rt, at
    by = int(window[1]) - timetable.epoch + request.transit.board_slack_s
    fits = [x for x in passes if x[3] <= by]
    if not request.arrive_by:
        fits = [x for x in fits if x[2] - ride.walk_s >= rel]
    if not fits:
        return None
    r, rt, at, _, _ = max(fits, key=lambda x: (x[3], x[2]))
    return r, rt, at


def _walk(
    network: TransportNetwork,
    request: PlanRequest,
    place: tuple[float, float],
    point: _Point,
    *,
    alight: bool,
) -> tuple[int, float, StreetLegGeometry]:
    """The walk between a place and a flag stop (``alight``: from the flag stop).

    Over the streets where the network has them (OTP 1.x walks to the flag stop's street
    vertex), else the straight line at the walk speed: seconds, metres and geometry.
    """
    a, b = (point.lat, point.lon), place
    if not alight:
        a, b = b, a
    if network.street is not None:
        sa = snap_point(network, *a, mode="WALK", max_distance_m=MAX_SNAP_M)
        sb = snap_point(network, *b, mode="WALK", max_distance_m=MAX_SNAP_M)
        if sa is not None and sb is not None:
            path = street_path(network, sa, sb, StreetOptions.from_request(request, "WALK"))
            if path is not None:
                geom = path_geometry(network, path)
                return math.ceil(path.duration_s), float(path.distance_m), geom
    geom = straight_geometry(*a, *b)
    return math.ceil(geom.distance_m / request.walk.speed_mps), float(geom.distance_m), geom


def _place_name(network: TransportNetwork, lat: float, lon: float, route: str) -> str:
    """OTP 1.x names a flag stop after the street there; else the route's flag stop."""
    graph = network.street
    if graph is not None:
        snap = snap_point(network, lat, lon, mode="WALK", max_distance_m=100.0)
        if snap is not None:
            name = graph.names[int(graph.edge_name[snap.edge])]
            if name:
                return str(name)
    return f"{route} flag stop".strip()


def _str(value: object) -> str | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    s = str(value)
    return s if s and s not in ("<NA>", "nan") else None


def _messages(network: TransportNetwork, model_trip: int) -> tuple[str | None, str | None]:
    """trips.txt ``continuous_pickup_message`` / ``continuous_drop_off_message`` (OTP 1.x)."""
    m = network.transit
    if not 0 <= model_trip < len(m.trips) or "feed" not in m.trips:
        return None, None  # a trip the timetable adds (real time): no trips.txt row
    raw = str(table_row(m, "trips", model_trip).get("raw_id") or "")
    feed = m.feeds["feed_id"].astype(str).tolist()[int(m.trips["feed"].iloc[model_trip])]
    msgs = ((m.flex.get(feed) or {}).get("continuous_messages") or {}).get(raw) or [None, None]
    return _str(msgs[0]), _str(msgs[1])


def flag_legs(
    network: TransportNetwork,
    request: PlanRequest,
    timetable: RaptorTimetable,
    ride: FlagRide,
    timed: tuple[int, int, int],
    endpoint: Endpoint,
    tz: ZoneInfo,
) -> list[Leg]:
    """The walk and the ride on the trip between the point and the stop (in travel order)."""
    route, rt, at = timed
    p, seg = ride.point, ride.point.segment
    epoch = timetable.epoch
    date = dt.datetime.fromtimestamp(epoch + 12 * 3600, tz).date()
    date += dt.timedelta(days=int(timetable.route_day[route]))
    when = to_datetime(epoch + at, tz)
    leg = transit_leg(
        network, timetable, route=route, trip=rt, board_pos=seg.pos, alight_pos=seg.pos + 1,
        date=date, tz=tz, show_intermediate_stops=request.itineraries.show_intermediate_stops,
    )  # fmt: skip
    model_trip = int(timetable.route_trip_ref[rt])
    pick_msg, drop_msg = _messages(network, model_trip)
    name = _place_name(network, p.lat, p.lon, leg.route)
    flag = Place(name=name, lon=p.lon, lat=p.lat, board_alight_type="FLAG_STOP")
    k = int(np.searchsorted(seg.along_m, p.along_m, side="right"))
    if ride.alight:
        g_lat, g_lon = np.r_[seg.lat[:k], p.lat], np.r_[seg.lon[:k], p.lon]
        leg = replace(
            leg, to_place=replace(flag, arrival=when), end_time=when,
            flex_flag_stop_drop_off_message=drop_msg,
        )  # fmt: skip
    else:
        g_lat, g_lon = np.r_[p.lat, seg.lat[k:]], np.r_[p.lon, seg.lon[k:]]
        leg = replace(
            leg, from_place=replace(flag, departure=when), start_time=when,
            flex_flag_stop_pickup_message=pick_msg,
        )  # fmt: skip
    leg = replace(leg, leg_geometry=polyline(g_lat, g_lon), distance=_length_m(g_lat, g_lon))
    here = Place(name=endpoint.name, lon=endpoint.lon, lat=endpoint.lat, orig=endpoint.orig)
    _, _, walk_geom = _walk(network, request, (endpoint.lat, endpoint.lon), p, alight=ride.alight)
    if ride.alight:
        end = when + dt.timedelta(seconds=ride.walk_s)
        walk = street_leg("WALK", when, end, replace(flag, departure=when, board_alight_type=None),
                          replace(here, arrival=end), walk_geom)  # fmt: skip
        return [leg, walk]
    start = when - dt.timedelta(seconds=ride.walk_s)
    walk = street_leg("WALK", start, when, replace(here, departure=start),
                      replace(flag, arrival=when, board_alight_type=None), walk_geom)  # fmt: skip
    return [walk, leg]


def _length_m(lat: FloatArray, lon: FloatArray) -> float:
    return round(float(np.sum(haversine_m(lat[:-1], lon[:-1], lat[1:], lon[1:]))), 3)


def _points(leg: Leg) -> tuple[list[float], list[float]]:
    return decode_polyline(leg.leg_geometry.points) if leg.leg_geometry else ([], [])


def join_flag_legs(legs: Sequence[Leg]) -> list[Leg]:
    """Join a flag ride with the ride on the same trip before (after) it into one leg."""
    out: list[Leg] = []
    for leg in legs:
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.transit_leg
            and leg.transit_leg
            and prev.trip_id == leg.trip_id
            and prev.service_date == leg.service_date
            and prev.to_place.stop_id is not None
            and prev.to_place.stop_id == leg.from_place.stop_id
            and "FLAG_STOP" in (prev.from_place.board_alight_type, leg.to_place.board_alight_type)
        ):
            a_lat, a_lon = _points(prev)
            b_lat, b_lon = _points(leg)
            joint = replace(prev.to_place, departure=leg.from_place.departure)
            inner = None
            if prev.intermediate_stops is not None or leg.intermediate_stops is not None:
                inner = (*(prev.intermediate_stops or ()), joint, *(leg.intermediate_stops or ()))
            out[-1] = replace(
                prev,
                end_time=leg.end_time,
                to_place=leg.to_place,
                distance=round(prev.distance + leg.distance, 3),
                leg_geometry=polyline(a_lat + b_lat[1:], a_lon + b_lon[1:]),
                intermediate_stops=inner,
                alight_rule=leg.alight_rule,
                arrival_delay=leg.arrival_delay,
                real_time=prev.real_time or leg.real_time,
                flex_flag_stop_drop_off_message=leg.flex_flag_stop_drop_off_message,
            )
            continue
        out.append(leg)
    return out


def direct_flag_legs(
    network: TransportNetwork,
    request: PlanRequest,
    timetable: RaptorTimetable,
    origin: Endpoint,
    destination: Endpoint,
    t: float,
    tz: ZoneInfo,
) -> list[list[Leg]]:
    """Rides from a flag boarding to a flag alighting on the same or the next segment.

    RAPTOR needs a ride between the stop a flag boarding reaches and the stop a flag
    alighting leaves from; these short rides have none, so they are itineraries of
    their own: the walk, the ride on the first trip that passes the boarding point
    once the rider is there (arriving by: the last that sets down in time), the walk.
    One per pattern.
    """
    buffer_m = float(request.flex.flag_stop_buffer_size)
    if buffer_m <= 0:
        return []
    model = network.transit
    boards = {
        p.segment.pattern: p for p in _near(model, origin.lat, origin.lon, buffer_m, alight=False)
    }
    alights = _near(model, destination.lat, destination.lon, buffer_m, alight=True)
    rel = int(t) - timetable.epoch
    out: list[list[Leg]] = []
    for a in alights:
        b = boards.get(a.segment.pattern)
        if b is None:
            continue
        gap = a.segment.pos - b.segment.pos
        if not (gap == 1 or (gap == 0 and b.along_m < a.along_m)):
            continue  # farther apart: RAPTOR rides between the stops
        stops = np.asarray(model.pattern_stop_indices(b.segment.pattern))
        walk_b = _walk(network, request, (origin.lat, origin.lon), b, alight=False)
        walk_a = _walk(network, request, (destination.lat, destination.lon), a, alight=True)
        ride_b = FlagRide(
            b, False, int(stops[b.segment.pos + 1]), walk_b[0], walk_b[1],
            _allowed(b.segment.pickup, request),
        )  # fmt: skip
        ride_a = FlagRide(
            a, True, int(stops[a.segment.pos]), walk_a[0], walk_a[1],
            _allowed(a.segment.drop_off, request),
        )  # fmt: skip
        at_a = {(r, rt): at for r, rt, at, _, _ in _passes(timetable, ride_a)}
        both = [
            (r, rt, at, at_a[(r, rt)])
            for r, rt, at, _, _ in _passes(timetable, ride_b)
            if (r, rt) in at_a
        ]
        if request.arrive_by:
            fits = [x for x in both if x[3] + ride_a.walk_s <= rel]
            pick = max(fits, key=lambda x: x[3], default=None)
        else:
            fits = [x for x in both if x[2] >= rel + ride_b.walk_s]
            pick = min(fits, key=lambda x: x[3], default=None)
        if pick is None:
            continue
        r, rt, at_b, at_q = pick
        first = flag_legs(network, request, timetable, ride_b, (r, rt, at_b), origin, tz)
        last = flag_legs(network, request, timetable, ride_a, (r, rt, at_q), destination, tz)
        if gap == 1:  # the boarding's next stop is the alighting's first one
            legs = join_flag_legs([*first, *last])
        else:  # one segment: from the boarding point to the alighting point
            seg = b.segment
            k_b = int(np.searchsorted(seg.along_m, b.along_m, side="right"))
            k_a = int(np.searchsorted(seg.along_m, a.along_m, side="right"))
            g_lat = np.r_[b.lat, seg.lat[k_b:k_a], a.lat]
            g_lon = np.r_[b.lon, seg.lon[k_b:k_a], a.lon]
            ride = replace(
                first[1],
                to_place=last[0].to_place,
                end_time=last[0].end_time,
                leg_geometry=polyline(g_lat, g_lon),
                distance=_length_m(g_lat, g_lon),
                alight_rule=last[0].alight_rule,
                flex_flag_stop_drop_off_message=last[0].flex_flag_stop_drop_off_message,
            )
            legs = [first[0], ride, last[1]]
        if len(legs) == 3:
            out.append(legs)
    return out
