"""Build itinerary legs (transit rides, street legs) from search results."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import cached_property
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np

from otpa.network import TransportNetwork
from otpa.realtime import AddedTrip
from otpa.routing._polyline import encode
from otpa.routing._tables import Row, columns, shape_index
from otpa.routing._tables import row as table_row
from otpa.routing.model import (
    EncodedPolyline,
    Leg,
    Place,
    VertexType,
    WalkStep,
    field_template,
    from_template,
)
from otpa.transit.model import TransitModel
from otpa.transit.raptor.spi import RaptorTimetable
from otpa.types import FloatArray, Int32Array
from otpa.util.cache import OwnerCache
from otpa.util.geo import haversine_m, polyline_length_m

__all__ = ["StreetLegGeometry", "stop_coords", "stop_place", "street_leg", "transit_leg"]

_RULES = {1: "impossible", 2: "mustPhone", 3: "coordinateWithDriver"}


def _str(value: Any) -> str | None:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return None
    s = str(value)
    return s if s and s != "<NA>" and s != "nan" else None


def _raw(scoped: str | None) -> str | None:
    if scoped is None:
        return None
    return scoped.split(":", 1)[1] if ":" in scoped else scoped


def polyline(lat: Any, lon: Any) -> EncodedPolyline:
    """Encoded polyline of coordinate sequences."""
    lat_a = np.asarray(lat, dtype=float)
    lon_a = np.asarray(lon, dtype=float)
    return EncodedPolyline(points=encode(lat_a, lon_a), length=int(lat_a.size))


def to_datetime(epoch_s: float, tz: ZoneInfo) -> dt.datetime:
    """Aware datetime of epoch seconds."""
    return dt.datetime.fromtimestamp(float(epoch_s), tz)


def tz_offset_ms(when: dt.datetime) -> int:
    """UTC offset of ``when`` in milliseconds."""
    off = when.utcoffset()
    return 0 if off is None else int(off.total_seconds() * 1000)


_WHEELCHAIR = {1: "ALLOWED", 2: "NOT_ALLOWED"}

_LEG = field_template(Leg)
_PLACE = field_template(Place)


#: Per transit model: the attributes of each stop's Place that do not depend on a ride.
_STOP_PLACES: OwnerCache[str, dict[int, dict[str, Any]]] = OwnerCache()


def _stop_table(network: TransportNetwork) -> dict[int, dict[str, Any]]:
    """The stop attributes read so far, per model (see :func:`_stop_attributes`)."""
    return _STOP_PLACES.get_or_build(network.transit, "stops", dict)


def _stop_attributes(
    network: TransportNetwork, stop: int, known: dict[int, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Name, position, ids... of a stop's :class:`Place` (read once per stop and model).

    ``known``: the model's :func:`_stop_table` when the caller has it at hand.
    """
    if known is None:
        known = _stop_table(network)
    attrs = known.get(stop)
    if attrs is None:
        row = table_row(network.transit, "stops", stop)
        wb = row.get("wheelchair_boarding")
        try:
            wb_i = int(wb)
        except (TypeError, ValueError):
            wb_i = 0
        attrs = {
            **_PLACE,  # the full template of the stop's places (from_template)
            "name": _str(row["name"]),
            "lon": float(row["lon"]),
            "lat": float(row["lat"]),
            "vertex_type": VertexType.TRANSIT,
            "stop_id": str(row["stop_id"]),
            "stop_code": _str(row.get("code")),
            "platform_code": _str(row.get("platform_code")),
            "zone_id": _str(row.get("zone_id")),
            "wheelchair_boarding": _WHEELCHAIR.get(wb_i, "UNKNOWN"),
            "board_alight_type": "DEFAULT",
        }
        known[stop] = attrs  # (a race stores equal values)
    return attrs


def stop_coords(network: TransportNetwork, stop: int) -> tuple[float, float]:
    """``(lat, lon)`` of a stop (from its cached :class:`Place` attributes)."""
    attrs = _stop_attributes(network, int(stop))
    return attrs["lat"], attrs["lon"]


def stop_place(
    network: TransportNetwork,
    stop: int,
    *,
    arrival: dt.datetime | None = None,
    departure: dt.datetime | None = None,
    stop_index: int | None = None,
    stop_sequence: int | None = None,
) -> Place:
    """A :class:`Place` for a transit stop."""
    attrs = _stop_attributes(network, int(stop))
    return _place(attrs, arrival, departure, stop_index, stop_sequence)


def _ride_place(
    network: TransportNetwork,
    known: dict[int, dict[str, Any]],
    stop: int,
    arrival: dt.datetime | None,
    departure: dt.datetime | None,
    stop_index: int,
    stop_sequence: int,
) -> Place:
    """:func:`stop_place` of a stop of a ride, with the model's :func:`_stop_table` at hand."""
    attrs = _stop_attributes(network, stop, known)
    return _place(attrs, arrival, departure, stop_index, stop_sequence)


def _place(
    attrs: dict[str, Any],
    arrival: dt.datetime | None,
    departure: dt.datetime | None,
    stop_index: int | None,
    stop_sequence: int | None,
) -> Place:
    """A stop's :class:`Place` from its attributes (:func:`_stop_attributes`)."""
    values = {
        "stop_index": stop_index,
        "stop_sequence": stop_sequence,
        "arrival": arrival,
        "departure": departure,
    }
    return from_template(Place, attrs, values)


@dataclass(frozen=True)
class StreetLegGeometry:
    """Geometry and instructions of a street leg."""

    lat: Any
    lon: Any
    distance_m: float
    steps: tuple[WalkStep, ...] = ()
    elevation_gained: float = 0.0
    elevation_lost: float = 0.0

    @cached_property
    def encoded(self) -> EncodedPolyline:
        """The encoded polyline of ``lat``/``lon`` (once per geometry: legs share them)."""
        return polyline(self.lat, self.lon)


def straight_geometry(lat0: float, lon0: float, lat1: float, lon1: float) -> StreetLegGeometry:
    """A straight-line leg (networks without streets)."""
    d = float(haversine_m(lat0, lon0, lat1, lon1))
    return StreetLegGeometry(np.array([lat0, lat1]), np.array([lon0, lon1]), d)


def street_leg(
    mode: str,
    start: dt.datetime,
    end: dt.datetime,
    from_place: Place,
    to_place: Place,
    geometry: StreetLegGeometry,
) -> Leg:
    """A WALK / BICYCLE / CAR leg."""
    values = {
        "mode": mode,
        "start_time": start,
        "end_time": end,
        "from_place": from_place,
        "to_place": to_place,
        "distance": round(float(geometry.distance_m), 3),
        "leg_geometry": geometry.encoded,
        "agency_time_zone_offset": tz_offset_ms(start),
        "route": "",
        "transit_leg": False,
        "steps": geometry.steps,
        "elevation_gained": geometry.elevation_gained,
        "elevation_lost": geometry.elevation_lost,
    }
    return from_template(Leg, _LEG, values)


def _shape_slice(
    network: TransportNetwork, shape: int, lat: Any, lon: Any
) -> tuple[Any, Any] | None:
    """The shape's points from the first stop to the last, or None without a usable shape."""
    m = network.transit
    a, b = int(m.shape_offsets[shape]), int(m.shape_offsets[shape + 1])
    if b - a < 2:
        return None
    s_lat = np.asarray(m.shape_lat[a:b])
    s_lon = np.asarray(m.shape_lon[a:b])
    # nearest shape point of each stop, kept monotone along the shape
    idx = []
    lo = 0
    for y, x in zip(lat, lon, strict=True):
        d = (s_lat[lo:] - y) ** 2 + ((s_lon[lo:] - x) * np.cos(np.radians(y))) ** 2
        k = lo + int(np.argmin(d))
        idx.append(k)
        lo = k
    out_lat = [float(lat[0]), *s_lat[idx[0] + 1 : idx[-1]].tolist(), float(lat[-1])]
    out_lon = [float(lon[0]), *s_lon[idx[0] + 1 : idx[-1]].tolist(), float(lon[-1])]
    return np.array(out_lat), np.array(out_lon)


#: Per transit model: a ride's (distance, encoded geometry) by (shape id, stops ridden).
_RIDE_GEOMETRY: OwnerCache[tuple[Any, tuple[int, ...]], tuple[float, EncodedPolyline]] = OwnerCache(
    max_entries=16384
)


def _ride_points(network: TransportNetwork, shape_id: Any, sel: Any) -> tuple[Any, Any]:
    """Points of a ride over the stops ``sel``: its shape's, or the stops' without a shape."""
    m = network.transit
    stop_cols = columns(m, "stops")
    s_lat = np.asarray(stop_cols["lat"][sel], dtype=float)
    s_lon = np.asarray(stop_cols["lon"][sel], dtype=float)
    shape = shape_index(m).get(shape_id) if shape_id is not None else None
    geom = _shape_slice(network, shape, s_lat, s_lon) if shape is not None else None
    return geom if geom is not None else (s_lat, s_lon)


def _ride_geometry(
    network: TransportNetwork, shape_id: Any, sel: Any
) -> tuple[float, EncodedPolyline]:
    """A ride's length in metres (to the mm) and its encoded polyline."""
    g_lat, g_lon = _ride_points(network, shape_id, sel)
    return round(float(polyline_length_m(g_lat, g_lon)), 3), polyline(g_lat, g_lon)


#: Per timetable ``route_stops`` array (of one transit model): by the ``(offset, count)``
#: of a route's stops in it, their coordinates and the great-circle length of each hop
#: between consecutive stops.
_ROUTE_HOPS: OwnerCache[tuple[int, int], tuple[FloatArray, FloatArray, FloatArray]] = OwnerCache(
    max_entries=16384
)


def _route_hops(
    network: TransportNetwork, timetable: RaptorTimetable, offset: int, stops: Int32Array
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """``(lat, lon, hop metres)`` of the route whose stops ``stops`` start at ``offset``
    in the timetable's ``route_stops``."""

    def build() -> tuple[FloatArray, FloatArray, FloatArray]:
        stop_cols = columns(network.transit, "stops")
        lat = np.asarray(stop_cols["lat"][stops], dtype=float)
        lon = np.asarray(stop_cols["lon"][stops], dtype=float)
        hops = np.asarray(haversine_m(lat[:-1], lon[:-1], lat[1:], lon[1:]), dtype=np.float64)
        return lat, lon, hops

    return _ROUTE_HOPS.get_or_build(timetable.route_stops, (offset, int(stops.size)), build)


def _stops_ride_geometry(
    network: TransportNetwork,
    timetable: RaptorTimetable,
    offset: int,
    stops: Int32Array,
    board_pos: int,
    alight_pos: int,
) -> tuple[float, EncodedPolyline]:
    """:func:`_ride_geometry` of a ride without a shape, from its route's hops.

    The ride's points are its stops: the length is the sum of the hops ridden (each
    hop's haversine is computed elementwise, as ``polyline_length_m`` computes it over
    the ride's points, and ``numpy.sum`` adds the same values in the same order).
    """
    lat, lon, hops = _route_hops(network, timetable, offset, stops)
    length = float(np.sum(hops[board_pos:alight_pos]))
    end = alight_pos + 1
    return round(length, 3), polyline(lat[board_pos:end], lon[board_pos:end])


#: Per transit model: the attributes of each trip's legs that come from its trip, route
#: and agency rows.
_TRIP_LEGS: OwnerCache[str, dict[int, dict[str, Any]]] = OwnerCache()


def _ride_attributes(m: TransitModel, trip_row: Row) -> dict[str, Any]:
    """Leg attributes of a ride from its trip, route and agency rows (and its shape id)."""
    route_row = table_row(m, "routes", int(trip_row["route_index"]))
    agency_row = table_row(m, "agencies", int(route_row["agency_index"]))
    short = _str(route_row.get("short_name"))
    long_ = _str(route_row.get("long_name"))
    leg = {
        "mode": str(route_row["mode"]),
        "route": short or long_ or "",
        "agency_name": _str(agency_row.get("name")),
        "agency_url": _str(agency_row.get("url")),
        "agency_id": _raw(_str(agency_row.get("agency_id"))),
        "route_color": _str(route_row.get("color")),
        "route_text_color": _str(route_row.get("text_color")),
        "route_type": int(route_row["route_type"]),
        "route_id": str(route_row["route_id"]),
        "route_short_name": short,
        "route_long_name": long_,
        "trip_short_name": _str(trip_row.get("short_name")),
        "trip_block_id": _str(trip_row.get("block_id")),
        "trip_id": _str(trip_row.get("template_trip_id")) or str(trip_row["trip_id"]),
        "headsign": _str(trip_row.get("headsign")),
    }
    # "leg": the full template of the trip's legs (from_template)
    return {"leg": {**_LEG, **leg}, "shape_id": _str(trip_row.get("shape_id"))}


def _trip_attributes(m: TransitModel, trip: int) -> dict[str, Any]:
    """:func:`_ride_attributes` of model trip ``trip``, read once per trip and model."""
    known = _TRIP_LEGS.get_or_build(m, "trips", dict)
    attrs = known.get(trip)
    if attrs is None:  # (a race stores equal values)
        attrs = known[trip] = _ride_attributes(m, table_row(m, "trips", trip))
    return attrs


#: Per transit model: each trip's position among its pattern's trips.
_TRIP_POSITIONS: OwnerCache[str, Int32Array] = OwnerCache()


def _trip_position(m: TransitModel, pattern: int, trip: int) -> int:
    """Position of model trip ``trip`` among the trips of ``pattern``."""

    def build() -> Int32Array:
        offsets = np.asarray(m.pattern_trip_offsets, dtype=np.int64)
        trips = np.asarray(m.pattern_trips, dtype=np.int64)
        pos = np.zeros(max(m.n_trips, int(trips.max(initial=-1)) + 1), dtype=np.int32)
        counts = np.diff(offsets)
        # reversed: with a trip listed twice, the last write (its first place) stands,
        # as the scan below would find it
        pos[trips[::-1]] = (np.arange(trips.size) - np.repeat(offsets[:-1], counts))[::-1]
        return pos

    k = int(_TRIP_POSITIONS.get_or_build(m, "positions", build)[trip])
    a = int(m.pattern_trip_offsets[pattern])
    if a + k < int(m.pattern_trip_offsets[pattern + 1]) and int(m.pattern_trips[a + k]) == trip:
        return k
    ptrips = np.asarray(m.pattern_trip_indices(pattern))  # (a trip in several patterns)
    return int(np.flatnonzero(ptrips == trip)[0])


_SERVICE_DATES: dict[dt.date, str] = {}


def _service_date(date: dt.date) -> str:
    """``YYYYMMDD`` of a service date (strftime once per date)."""
    text = _SERVICE_DATES.get(date)
    if text is None:
        text = date.strftime("%Y%m%d")
        if len(_SERVICE_DATES) < 4096:
            _SERVICE_DATES[date] = text
    return text


def transit_leg(
    network: TransportNetwork,
    timetable: RaptorTimetable,
    *,
    route: int,
    trip: int,
    board_pos: int,
    alight_pos: int,
    date: dt.date,
    tz: ZoneInfo,
    show_intermediate_stops: bool,
    interline: bool = False,
    onboard_from: Place | None = None,
    delay_s: int = 0,
    realtime_delays: tuple[Int32Array, Int32Array] | None = None,
    added: AddedTrip | None = None,
) -> Leg:
    """A transit leg from a RAPTOR ride (timetable route ``route``, route-trip ``trip``).

        ``interline``: the rider stayed seated from the previous leg (same vehicle, GTFS block).
        ``onboard_from``: the journey starts on board, at this place and its departure time,
        after the trip left ``board_pos`` (depart on board); ``delay_s`` shifts the trip's times.
    ``realtime_delays``: the trip's real-time ``(arrival, departure)`` delays per stop
    (the leg is then ``realTime`` with the delays at its ends).
    ``added``: the route-trip is this trip added by a real-time feed (GTFS-RT ``ADDED``;
    its stops, stop sequences, route and id are its own, it has no shape).
    """
    m = network.transit
    pattern = int(timetable.route_pattern[route])
    model_trip = int(timetable.route_trip_ref[trip])
    soff = int(timetable.route_stop_offsets[route])
    n_stops = int(timetable.route_stop_offsets[route + 1]) - soff
    stops = np.asarray(timetable.route_stops[soff : soff + n_stops])
    k = trip - int(timetable.route_trip_offsets[route])
    base = int(timetable.route_time_offsets[route]) + k * n_stops
    arrival, departure = timetable.arrival, timetable.departure
    if added is None:
        # stop_sequence of the model trip: locate the trip's block in the pattern
        k_model = _trip_position(m, pattern, model_trip)
        seq_base = int(m.pattern_time_offsets[pattern]) + k_model * n_stops
        seq = np.asarray(m.stop_sequence[seq_base : seq_base + n_stops])
        trip_attrs = _trip_attributes(m, model_trip)
        pstop_a = int(m.pattern_stop_offsets[pattern])
        pickup = int(m.pattern_pickup[pstop_a + board_pos])
        dropoff = int(m.pattern_dropoff[pstop_a + alight_pos])
    else:
        seq = added.sequence
        trip_row = Row({"trip_id": [added.scoped_id(m)], "route_index": [added.route]}, 0)
        trip_attrs = _ride_attributes(m, trip_row)
        pickup = dropoff = 0
    # epoch seconds of the trip's times (only those of the stops the leg shows are read)
    epoch = timetable.epoch + delay_s
    known = _stop_table(network)

    def at(pos: int, arrive: dt.datetime | None, depart: dt.datetime | None) -> Place:
        return _ride_place(network, known, int(stops[pos]), arrive, depart, pos, int(seq[pos]))

    start = to_datetime(epoch + int(departure[base + board_pos]), tz)
    end = to_datetime(epoch + int(arrival[base + alight_pos]), tz)
    first = board_pos + 1 if onboard_from is not None else board_pos  # geometry from there
    sel = stops[first : alight_pos + 1]
    shape_id = trip_attrs["shape_id"]
    from_place = at(board_pos, None, start)
    if onboard_from is None:
        # the same ride between the same stops has the same geometry: once per model
        key = (shape_id, tuple(sel.tolist()))

        def build() -> tuple[float, EncodedPolyline]:
            if shape_id is None or shape_index(m).get(shape_id) is None:  # the stops' line
                return _stops_ride_geometry(network, timetable, soff, stops, first, alight_pos)
            return _ride_geometry(network, shape_id, sel)

        distance, encoded = _RIDE_GEOMETRY.get_or_build(m, key, build)
    else:
        g_lat, g_lon = _ride_points(network, shape_id, sel)
        # on board between two stops: the leg starts there, at the requested time
        g_lat = np.r_[onboard_from.lat, g_lat]
        g_lon = np.r_[onboard_from.lon, g_lon]
        from_place = onboard_from
        start = onboard_from.departure or start
        distance = round(float(polyline_length_m(g_lat, g_lon)), 3)
        encoded = polyline(g_lat, g_lon)
    intermediate = None
    if show_intermediate_stops:
        intermediate = tuple(
            at(
                p,
                to_datetime(epoch + int(arrival[base + p]), tz),
                to_datetime(epoch + int(departure[base + p]), tz),
            )
            for p in range(board_pos + 1, alight_pos)
        )
    values = {
        "start_time": start,
        "end_time": end,
        "from_place": from_place,
        "to_place": at(alight_pos, end, None),
        "distance": distance,
        "leg_geometry": encoded,
        "agency_time_zone_offset": tz_offset_ms(start),
        "transit_leg": True,
        "intermediate_stops": intermediate,
        "service_date": _service_date(date),
        "board_rule": _RULES.get(pickup),
        "alight_rule": _RULES.get(dropoff),
        "interline_with_previous_leg": interline,
        "real_time": realtime_delays is not None,
        "arrival_delay": int(realtime_delays[0][alight_pos]) if realtime_delays else 0,
        "departure_delay": int(realtime_delays[1][board_pos]) if realtime_delays else 0,
    }
    return from_template(Leg, trip_attrs["leg"], values)
