"""The index API's response shapes, as OTP 1.x's index beans serialized them.

Each function maps :mod:`otpa.index` entities to one OTP model (``RouteShort``,
``StopTimesInPattern``...).  "Short" forms are what lists return; full beans
answer ``detail=true`` and single-entity requests.  OTP's unset-integer
sentinel (-999) and always-present primitives are reproduced; other absent
values are None and dropped by the JSON writer.

With ``refs=true`` short forms also carry the ids of the entities they refer
to (``TripShort.routeId``/``patternId``, ``PatternShort.routeId``,
``StopShort.parentStation``), so a client can follow them without a full bean.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from otpa.index import (
    Agency,
    EncodedPolyline,
    FeedInfo,
    FlexArea,
    Pattern,
    Route,
    ServiceCalendar,
    Stop,
    StopAtDistance,
    StopCluster,
    StopTimesInPattern,
    Transfer,
    Trip,
    TripTime,
)
from otpa.util.polyline import encode_polyline

__all__ = [
    "UNSET",
    "agencies_by_id",
    "agency_json",
    "area_short",
    "cluster_detail",
    "feed_json",
    "mapped",
    "pattern_detail",
    "pattern_short",
    "polyline_json",
    "route_json",
    "route_short",
    "service_calendar_json",
    "stop_at_distance",
    "stop_json",
    "stop_short",
    "stop_times_in_pattern",
    "transfer_json",
    "trip_json",
    "trip_short",
    "trip_time_short",
]

#: OTP's value for "integer not set" (``sortOrder``, ``vehicleType``...).
UNSET = -999

JsonDict = dict[str, Any]


def _local_id(scoped: str | None) -> str | None:
    """The id without its feed prefix (OTP's ``TripShort.shapeId``)."""
    return None if scoped is None else scoped.split(":", 1)[-1]


def _date(value: dt.date | None) -> str | None:
    return None if value is None else value.strftime("%Y%m%d")


def feed_json(feed: FeedInfo) -> JsonDict:
    """FeedInfo."""
    return {"id": feed.id, "publisherName": feed.publisher_name, "version": feed.version}


def agency_json(agency: Agency) -> JsonDict:
    """Agency (OTP had no short form)."""
    return {
        "id": agency.id,
        "name": agency.name,
        "url": agency.url,
        "timezone": agency.timezone,
        "lang": agency.lang,
        "phone": agency.phone,
        "fareUrl": agency.fare_url,
    }


def route_short(route: Route, agency: Agency | None) -> JsonDict:
    """RouteShort."""
    return {
        "id": route.id,
        "shortName": route.short_name,
        "longName": route.long_name,
        "mode": route.mode,
        "color": route.color,
        "agencyId": route.agency_id,
        "agencyName": None if agency is None else agency.name,
        "sortOrder": UNSET if route.sort_order is None else route.sort_order,
    }


def route_json(route: Route, agency: Agency | None) -> JsonDict:
    """Route (the full bean, with its full Agency)."""
    return {
        "id": route.id,
        "agency": None if agency is None else agency_json(agency),
        "shortName": route.short_name,
        "longName": route.long_name,
        "desc": route.desc,
        "type": route.type,
        "url": route.url,
        "color": route.color,
        "textColor": route.text_color,
        "routeBikesAllowed": 0,
        "bikesAllowed": 0,
        "sortOrder": UNSET if route.sort_order is None else route.sort_order,
        "sortOrderSet": route.sort_order is not None,
        "eligibilityRestricted": UNSET,
    }


def stop_short(stop: Stop, *, refs: bool = False) -> JsonDict:
    """StopShort (``cluster`` is the stop's cluster: its parent station if it has one)."""
    out: JsonDict = {
        "id": stop.id,
        "code": stop.code,
        "name": stop.name,
        "lat": stop.lat,
        "lon": stop.lon,
        "url": stop.url,
        "cluster": stop.cluster,
    }
    if refs:
        out["parentStation"] = stop.parent_station
    return out


def stop_at_distance(found: StopAtDistance, *, refs: bool = False) -> JsonDict:
    """StopShort with ``dist``: whole metres from the circle's centre."""
    return {**stop_short(found.stop, refs=refs), "dist": round(found.distance_m)}


def stop_json(stop: Stop) -> JsonDict:
    """Stop (the full bean)."""
    return {
        "id": stop.id,
        "code": stop.code,
        "name": stop.name,
        "desc": stop.desc,
        "lat": stop.lat,
        "lon": stop.lon,
        "zoneId": stop.zone_id,
        "url": stop.url,
        "locationType": stop.location_type,
        "parentStation": stop.parent_station,
        "wheelchairBoarding": stop.wheelchair_boarding,
        "timezone": stop.timezone,
        "vehicleType": UNSET,
        "vehicleTypeSet": False,
        "platformCode": stop.platform_code,
    }


def trip_short(trip: Trip, *, refs: bool = False) -> JsonDict:
    """TripShort (``shapeId`` without its feed, as OTP wrote it)."""
    out: JsonDict = {
        "id": trip.id,
        "tripHeadsign": trip.trip_headsign,
        "serviceId": trip.service_id,
        "shapeId": _local_id(trip.shape_id),
        "direction": trip.direction_id,
    }
    if refs:
        out.update(routeId=trip.route_id, patternId=trip.pattern_id)
    return out


def trip_json(trip: Trip, route: Route, agency: Agency | None) -> JsonDict:
    """Trip (the full bean, with its full Route)."""
    return {
        "id": trip.id,
        "route": route_json(route, agency),
        "serviceId": trip.service_id,
        "tripShortName": trip.trip_short_name,
        "tripHeadsign": trip.trip_headsign,
        "routeShortName": trip.route_short_name,
        "directionId": None if trip.direction_id is None else str(trip.direction_id),
        "blockId": trip.block_id,
        "shapeId": trip.shape_id,
        "wheelchairAccessible": trip.wheelchair_accessible,
        "tripBikesAllowed": 0,
        "bikesAllowed": trip.bikes_allowed,
    }


def polyline_json(line: EncodedPolyline) -> JsonDict:
    """EncodedPolylineBean."""
    return {"points": line.points, "length": line.length}


def pattern_short(
    pattern: Pattern, *, geometry: EncodedPolyline | None = None, refs: bool = False
) -> JsonDict:
    """PatternShort (``geometry`` only when asked for)."""
    out: JsonDict = {"id": pattern.id, "desc": pattern.desc}
    if geometry is not None:
        out["geometry"] = polyline_json(geometry)
    if refs:
        out["routeId"] = pattern.route_id
    return out


def pattern_detail(
    pattern: Pattern, stops: Sequence[Stop], trips: Sequence[Trip], *, refs: bool = False
) -> JsonDict:
    """PatternDetail: PatternShort plus route id, stops and trips."""
    return {
        **pattern_short(pattern),
        "routeId": pattern.route_id,
        "stops": [stop_short(s, refs=refs) for s in stops],
        "trips": [trip_short(t, refs=refs) for t in trips],
    }


def trip_time_short(time: TripTime, *, with_trip: bool = True) -> JsonDict:
    """TripTimeShort: scheduled times, and the real-time ones where an update applies."""
    arrival = time.scheduled_arrival if time.realtime_arrival is None else time.realtime_arrival
    departure = (
        time.scheduled_departure if time.realtime_departure is None else time.realtime_departure
    )
    return {
        "stopId": time.stop_id,
        "stopIndex": time.stop_index,
        "stopCount": time.stop_count,
        "scheduledArrival": time.scheduled_arrival,
        "scheduledDeparture": time.scheduled_departure,
        "realtimeArrival": arrival,
        "realtimeDeparture": departure,
        "arrivalDelay": arrival - time.scheduled_arrival,
        "departureDelay": departure - time.scheduled_departure,
        "timepoint": time.timepoint,
        "realtime": time.realtime,
        "realtimeState": time.realtime_state,
        "serviceDay": time.service_day,
        "tripId": time.trip_id if with_trip else None,
        "blockId": time.block_id,
        "headsign": time.headsign,
        # the ibi fork's flex fields (GTFS-Flex trips only)
        "continuousPickup": time.continuous_pickup,
        "continuousDropOff": time.continuous_drop_off,
        "serviceArea": (
            {
                "points": encode_polyline(
                    [p[0] for p in time.service_area], [p[1] for p in time.service_area]
                ),
                "length": len(time.service_area),
            }
            if time.service_area
            else None
        ),
    }


def stop_times_in_pattern(found: StopTimesInPattern, *, refs: bool = False) -> JsonDict:
    """StopTimesInPattern."""
    return {
        "pattern": pattern_short(found.pattern, refs=refs),
        "times": [trip_time_short(t) for t in found.times],
    }


def transfer_json(transfer: Transfer) -> JsonDict:
    """One entry of ``/stops/{id}/transfers``."""
    return {"toStopId": transfer.to_stop_id, "distance": transfer.distance_m}


def cluster_detail(
    cluster: StopCluster, stops: Iterable[Stop] | None, *, refs: bool = False
) -> JsonDict:
    """StopClusterDetail (``stops`` only when given)."""
    return {
        "id": cluster.id,
        "name": cluster.name,
        "lat": cluster.lat,
        "lon": cluster.lon,
        "stops": None if stops is None else [stop_short(s, refs=refs) for s in stops],
    }


def area_short(area: FlexArea) -> JsonDict:
    """AreaShort: the zone's id and its boundary as an encoded polyline.

    As OTP 1.x (``PolylineEncoder.createEncodings(geometry.getBoundary())``), the
    polyline runs through every ring of the zone one after the other: each
    polygon's exterior ring, then its holes.
    """
    points = area.boundary
    return {
        "areaId": area.id,
        "polygon": {
            "points": encode_polyline([p[0] for p in points], [p[1] for p in points]),
            "length": len(points),
        },
    }


def service_calendar_json(calendar: ServiceCalendar, *, dates: bool) -> JsonDict:
    """A service calendar (OTP left ``/services`` as a placeholder; this is otpa's shape).

    ``{"serviceId", "feedId", "startDate", "endDate", "dayCount"}`` plus, when
    ``dates`` is set, ``"dates"``: every running date as ``YYYYMMDD``.
    """
    return {
        "serviceId": calendar.id,
        "feedId": calendar.feed_id,
        "startDate": _date(calendar.start_date),
        "endDate": _date(calendar.end_date),
        "dayCount": len(calendar.dates),
        "dates": [_date(d) for d in calendar.dates] if dates else None,
    }


def mapped(items: Iterable[Any], fn: Callable[..., JsonDict], **kwargs: Any) -> list[JsonDict]:
    """``[fn(item, **kwargs) for item in items]``."""
    return [fn(item, **kwargs) for item in items]


def agencies_by_id(agencies: Iterable[Agency]) -> Mapping[str, Agency]:
    """``{agency id: agency}``."""
    return {a.id: a for a in agencies}
