"""The OTP 1.x index GraphQL schema over :class:`otpa.index.TransitIndex` (graphql-core).

Object types resolve on the index's dataclasses; root and list fields ask the
index found in the execution context (:class:`IndexContext`).  Global ``id``
fields are Relay ids, ``base64("Type:gtfsId")``; ``gtfsId`` is the feed-scoped
id.  Lookups of unknown ids resolve to null, as OTP's did.  Real-time data comes from
the snapshot current when the request started (``IndexContext.realtime``): stop times,
service ``alerts`` (root, Agency, Route, Trip, Stop; OTP 2's ``Alert`` type, texts in
the feed's default language) and a pattern's ``vehiclePositions`` (OTP 2's name).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from graphql import (
    GraphQLArgument,
    GraphQLBoolean,
    GraphQLError,
    GraphQLFloat,
    GraphQLID,
    GraphQLInt,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    GraphQLString,
)

from otpa.index import (
    Agency,
    Pattern,
    Stop,
    StopAtDistance,
    StopCluster,
    StopTimesInPattern,
    TransitIndex,
    Trip,
    TripTime,
)
from otpa.realtime import (
    Alert,
    VehiclePosition,
    added_trip,
    added_trip_times,
    current_vehicles,
    realtime_stop_times,
    realtime_trip_times,
)
from otpa.util.polyline import encode_polyline
from service.graphql._types import (
    BikesAllowed,
    Connection,
    IndexContext,
    Info,
    LocationType,
    Long,
    Mode,
    Node,
    PickupDropoffType,
    RealtimeState,
    Resolver,
    WheelchairBoarding,
    attr,
    connection,
    cursor,
    date_arg,
    field,
    from_global_id,
    global_id_field,
    index_of,
    list_of,
    or_none,
    to_global_id,
)

__all__ = ["SCHEMA", "IndexContext", "from_global_id", "to_global_id"]


# -- stop times ---------------------------------------------------------------------------------

_STOPTIME_ARGS = {
    "startTime": GraphQLArgument(Long, default_value=0),
    "timeRange": GraphQLArgument(GraphQLInt, default_value=86_400),
    "numberOfDepartures": GraphQLArgument(GraphQLInt, default_value=5),
    "omitNonPickups": GraphQLArgument(GraphQLBoolean, default_value=False),
}


def _stop_times(stop: Stop, info: Info, **kw: Any) -> list[StopTimesInPattern]:
    start = int(kw.get("startTime") or 0) or info.context.now_s
    time_range, number = kw.get("timeRange", 86_400), kw.get("numberOfDepartures", 5)
    if time_range < 0 or number < 0:
        msg = "timeRange and numberOfDepartures must not be negative."
        raise GraphQLError(msg)
    found = index_of(info).find_stop_times(
        stop.id,
        start_time=start,
        time_range_s=time_range,
        number_of_departures=number,
        omit_non_pickups=bool(kw.get("omitNonPickups")),
    )
    return _realtime(info, found, stop_id=stop.id, window=(start, start + time_range), limit=number)


def _realtime(
    info: Info, found: Sequence[StopTimesInPattern], **added: Any
) -> list[StopTimesInPattern]:
    """Stop times with the real-time state of the request's snapshot (``added``: the stop
    and window or date of the snapshot's added trips to list)."""
    ctx = info.context
    if ctx.network is None:
        return list(found)
    return realtime_stop_times(ctx.network, ctx.realtime, found, **added)


def _realtime_trip(info: Info, times: Sequence[TripTime]) -> list[TripTime]:
    ctx = info.context
    if ctx.network is None:
        return list(times)
    return realtime_trip_times(ctx.network, ctx.realtime, times)


def _trip_times(info: Info, trip_id: str) -> list[TripTime]:
    """A trip's stop times in the request's snapshot (also a trip it adds)."""
    ctx = info.context
    if ctx.network is not None:
        added = added_trip_times(ctx.network, ctx.realtime, trip_id)
        if added is not None:
            return added
    return _realtime_trip(info, index_of(info).find_trip_times(trip_id))


def _stop_times_flat(stop: Stop, info: Info, **kw: Any) -> list[TripTime]:
    times = [t for found in _stop_times(stop, info, **kw) for t in found.times]
    times.sort(key=lambda t: (t.service_day + t.scheduled_departure, t.trip_id))
    return times[: kw.get("numberOfDepartures", 5)]


def _stop_times_for_date(stop: Stop, info: Info, **kw: Any) -> Any:
    date = date_arg(kw.get("date"), "date")
    omit = bool(kw.get("omitNonPickups"))
    return _realtime(
        info,
        index_of(info).find_stop_times_for_date(stop.id, date, omit_non_pickups=omit),
        stop_id=stop.id,
        date=date,
    )


def _trip_times_for_date(trip: Trip, info: Info, **kw: Any) -> Any:
    date = date_arg(kw.get("serviceDay"), "serviceDay")
    return _realtime_trip(info, index_of(info).find_trip_times(trip.id, date=date))


def _arrival(t: TripTime) -> int:
    return t.scheduled_arrival if t.realtime_arrival is None else t.realtime_arrival


def _departure(t: TripTime) -> int:
    return t.scheduled_departure if t.realtime_departure is None else t.realtime_departure


def _stop_of_time(t: TripTime, info: Info) -> Any:
    # a GTFS-Flex row at a zone or location group is no stop: null, its boundary is serviceArea
    return or_none(lambda: index_of(info).get_stop(t.stop_id))


def _pickup_drop_off(value: int) -> int | None:
    return value if 0 <= value <= 3 else None


def _service_area(t: TripTime, _info: Info) -> tuple[str, int] | None:
    if not t.service_area:
        return None
    lats, lons = [p[0] for p in t.service_area], [p[1] for p in t.service_area]
    return encode_polyline(lats, lons), len(t.service_area)


#: OTP 2's ``Geometry``: an encoded polyline and its number of points
Geometry = GraphQLObjectType(
    "Geometry",
    {
        "length": field(GraphQLInt, lambda g, _i: g[1]),
        "points": field(GraphQLString, lambda g, _i: g[0]),
    },
)


def _trip_of_time(t: TripTime, info: Info) -> Trip:
    return _trip_by_id(info, t.trip_id)


def _trip_by_id(info: Info, trip_id: str) -> Trip:
    """A trip of the index, or one the request's real-time snapshot adds (``ADDED``)."""
    ctx = info.context
    added = None if ctx.network is None else added_trip(ctx.network, ctx.realtime, trip_id)
    return added or index_of(info).get_trip(trip_id)


Stoptime: GraphQLObjectType = GraphQLObjectType(
    "Stoptime",
    lambda: {
        "stop": field(Stop_, _stop_of_time),
        "scheduledArrival": field(GraphQLInt, attr("scheduled_arrival")),
        "realtimeArrival": field(GraphQLInt, lambda t, *_: _arrival(t)),
        "arrivalDelay": field(GraphQLInt, lambda t, *_: _arrival(t) - t.scheduled_arrival),
        "scheduledDeparture": field(GraphQLInt, attr("scheduled_departure")),
        "realtimeDeparture": field(GraphQLInt, lambda t, *_: _departure(t)),
        "departureDelay": field(GraphQLInt, lambda t, *_: _departure(t) - t.scheduled_departure),
        "timepoint": field(GraphQLBoolean, attr("timepoint")),
        "realtime": field(GraphQLBoolean, attr("realtime")),
        "realtimeState": field(RealtimeState, attr("realtime_state")),
        "serviceDay": field(Long, attr("service_day")),
        "trip": field(Trip_, _trip_of_time),
        "headsign": field(GraphQLString, attr("headsign")),
        "stopPositionInPattern": field(GraphQLInt, attr("stop_index")),
        "pickupType": field(PickupDropoffType, lambda t, _i: _pickup_drop_off(t.pickup_type)),
        "dropoffType": field(PickupDropoffType, lambda t, _i: _pickup_drop_off(t.drop_off_type)),
        # the ibi fork's GTFS-Flex fields (null on fixed-schedule trips); on a zone's row
        # scheduledArrival .. scheduledDeparture is its pickup / drop-off window
        "continuousPickup": field(GraphQLInt, attr("continuous_pickup")),
        "continuousDropOff": field(GraphQLInt, attr("continuous_drop_off")),
        "serviceArea": field(Geometry, _service_area),
    },
)

StoptimesInPattern = GraphQLObjectType(
    "StoptimesInPattern",
    lambda: {
        "pattern": field(Pattern_, attr("pattern")),
        "stoptimes": field(list_of(Stoptime), attr("times")),
    },
)

Coordinates = GraphQLObjectType(
    "Coordinates",
    {
        "lat": field(GraphQLFloat, lambda c, _i: c[0]),
        "lon": field(GraphQLFloat, lambda c, _i: c[1]),
    },
)


# -- real-time alerts and vehicles --------------------------------------------------------------


def _ms(t: Any) -> int | None:
    return None if t is None else round(t.timestamp() * 1000)


def _alerts_of(kind: str) -> Resolver:
    """Resolver of an entity's alerts (``kind``: agency, route, trip or stop)."""

    def resolve(obj: Any, info: Info) -> list[Alert]:
        snapshot = info.context.realtime
        return [] if snapshot is None else list(snapshot.alerts.get(kind, obj.id))

    return resolve


def _all_alerts(_root: Any, info: Info, feeds: Sequence[str] | None = None) -> list[Alert]:
    snapshot = info.context.realtime
    if snapshot is None:
        return []
    return [a for a in snapshot.alerts if feeds is None or a.feed_id in feeds]


def _entity_ids(kind: str) -> Resolver:
    return lambda a, _i: sorted({getattr(e, kind) for e in a.entities if getattr(e, kind)})


AlertType: GraphQLObjectType = GraphQLObjectType(
    "Alert",
    lambda: {
        "id": field(GraphQLNonNull(GraphQLID), lambda a, _i: to_global_id("Alert", a.id)),
        "alertId": field(GraphQLString, attr("id")),
        "feed": field(GraphQLString, attr("feed_id")),
        "alertHeaderText": field(GraphQLString, lambda a, _i: a.header.text()),
        "alertDescriptionText": field(GraphQLString, lambda a, _i: a.description.text()),
        "alertUrl": field(GraphQLString, lambda a, _i: a.url.text()),
        "alertCause": field(GraphQLString, attr("cause")),
        "alertEffect": field(GraphQLString, attr("effect")),
        "effectiveStartDate": field(Long, lambda a, _i: _ms(a.effective_start)),
        "effectiveEndDate": field(Long, lambda a, _i: _ms(a.effective_end)),
        "agencyIds": field(list_of(GraphQLString), _entity_ids("agency")),
        "routeIds": field(list_of(GraphQLString), _entity_ids("route")),
        "tripIds": field(list_of(GraphQLString), _entity_ids("trip")),
        "stopIds": field(list_of(GraphQLString), _entity_ids("stop")),
    },
)


def _pattern_vehicles(p: Pattern, info: Info) -> list[VehiclePosition]:
    network = info.context.network
    return [] if network is None else list(current_vehicles(network).on_trips(p.trip_ids))


VehiclePositionType = GraphQLObjectType(
    "VehiclePosition",
    lambda: {
        "vehicleId": field(GraphQLString, attr("vehicle_id")),
        "label": field(GraphQLString, attr("label")),
        "lat": field(GraphQLFloat, attr("lat")),
        "lon": field(GraphQLFloat, attr("lon")),
        "speed": field(GraphQLFloat, attr("speed")),
        "heading": field(GraphQLFloat, attr("heading")),
        "lastUpdated": field(Long, attr("seconds")),
        "stopStatus": field(GraphQLString, attr("stop_status")),
        "trip": field(
            Trip_, lambda v, info: or_none(lambda: index_of(info).get_trip(v.trip_id or ""))
        ),
    },
)


# -- entities -----------------------------------------------------------------------------------

Agency_: GraphQLObjectType = GraphQLObjectType(
    "Agency",
    lambda: {
        "id": global_id_field("Agency"),
        "gtfsId": field(GraphQLNonNull(GraphQLString), attr("id")),
        "name": field(GraphQLString, attr("name")),
        "url": field(GraphQLString, attr("url")),
        "timezone": field(GraphQLString, attr("timezone")),
        "lang": field(GraphQLString, attr("lang")),
        "phone": field(GraphQLString, attr("phone")),
        "fareUrl": field(GraphQLString, attr("fare_url")),
        "routes": field(
            list_of(Route_), lambda a, info: index_of(info).find_routes(agency_id=a.id)
        ),
        "alerts": field(list_of(AlertType), _alerts_of("agency")),
    },
    interfaces=[Node],
)

Route_: GraphQLObjectType = GraphQLObjectType(
    "Route",
    lambda: {
        "id": global_id_field("Route"),
        "gtfsId": field(GraphQLNonNull(GraphQLString), attr("id")),
        "agency": field(
            Agency_,
            lambda r, info: or_none(lambda: index_of(info).get_agency(r.agency_id or "")),
        ),
        "shortName": field(GraphQLString, attr("short_name")),
        "longName": field(GraphQLString, attr("long_name")),
        "mode": field(Mode, attr("mode")),
        "type": field(GraphQLInt, attr("type")),
        "desc": field(GraphQLString, attr("desc")),
        "url": field(GraphQLString, attr("url")),
        "color": field(GraphQLString, attr("color")),
        "textColor": field(GraphQLString, attr("text_color")),
        "sortOrder": field(GraphQLInt, attr("sort_order")),
        "bikesAllowed": field(BikesAllowed, lambda *_: 0),
        "patterns": field(
            list_of(Pattern_), lambda r, info: index_of(info).find_patterns(route_id=r.id)
        ),
        "stops": field(list_of(Stop_), lambda r, info: index_of(info).find_stops(route_id=r.id)),
        "trips": field(list_of(Trip_), lambda r, info: index_of(info).find_trips(route_id=r.id)),
        "alerts": field(list_of(AlertType), _alerts_of("route")),
    },
    interfaces=[Node],
)


def _parent(stop: Stop, info: Info) -> Stop | None:
    if stop.parent_station is None:
        return None
    found: Stop | None = or_none(lambda: index_of(info).get_stop(stop.parent_station or ""))
    return found


def _cluster_of(stop: Stop, info: Info) -> StopCluster | None:
    if stop.cluster is None:
        return None
    found: StopCluster | None = or_none(lambda: index_of(info).get_cluster(stop.cluster or ""))
    return found


def _transfers(stop: Stop, info: Info) -> list[StopAtDistance]:
    index = index_of(info)
    return [
        StopAtDistance(index.get_stop(t.to_stop_id), t.distance_m)
        for t in index.find_transfers(stop.id)
    ]


Stop_: GraphQLObjectType = GraphQLObjectType(
    "Stop",
    lambda: {
        "id": global_id_field("Stop"),
        "gtfsId": field(GraphQLNonNull(GraphQLString), attr("id")),
        "name": field(GraphQLString, attr("name")),
        "lat": field(GraphQLFloat, attr("lat")),
        "lon": field(GraphQLFloat, attr("lon")),
        "code": field(GraphQLString, attr("code")),
        "desc": field(GraphQLString, attr("desc")),
        "zoneId": field(GraphQLString, attr("zone_id")),
        "url": field(GraphQLString, attr("url")),
        "locationType": field(LocationType, attr("location_type")),
        "parentStation": field(Stop_, _parent),
        "wheelchairBoarding": field(WheelchairBoarding, attr("wheelchair_boarding")),
        "direction": field(GraphQLString, lambda *_: None),
        "timezone": field(GraphQLString, attr("timezone")),
        "vehicleType": field(GraphQLInt, lambda *_: None),
        "platformCode": field(GraphQLString, attr("platform_code")),
        "cluster": field(Cluster, _cluster_of),
        "routes": field(
            list_of(GraphQLNonNull(Route_)),
            lambda s, info: index_of(info).find_routes(stop_ids=[s.id]),
        ),
        "patterns": field(
            list_of(Pattern_), lambda s, info: index_of(info).find_patterns(stop_id=s.id)
        ),
        "transfers": field(list_of(StopAtDistance_), _transfers),
        "stoptimesForServiceDate": field(
            list_of(StoptimesInPattern),
            _stop_times_for_date,
            {
                "date": GraphQLArgument(GraphQLString),
                "omitNonPickups": GraphQLArgument(GraphQLBoolean, default_value=False),
            },
        ),
        "stoptimesForPatterns": field(list_of(StoptimesInPattern), _stop_times, _STOPTIME_ARGS),
        "stoptimesWithoutPatterns": field(list_of(Stoptime), _stop_times_flat, _STOPTIME_ARGS),
        "alerts": field(list_of(AlertType), _alerts_of("stop")),
    },
    interfaces=[Node],
)


def _trip_pattern(trip: Trip, info: Info) -> Pattern | None:
    if trip.pattern_id is None:
        return None
    return index_of(info).get_pattern(trip.pattern_id)


Trip_: GraphQLObjectType = GraphQLObjectType(
    "Trip",
    lambda: {
        "id": global_id_field("Trip"),
        "gtfsId": field(GraphQLNonNull(GraphQLString), attr("id")),
        "route": field(
            GraphQLNonNull(Route_), lambda t, info: index_of(info).get_route(t.route_id)
        ),
        "serviceId": field(GraphQLString, attr("service_id")),
        "tripShortName": field(GraphQLString, attr("trip_short_name")),
        "tripHeadsign": field(GraphQLString, attr("trip_headsign")),
        "routeShortName": field(GraphQLString, attr("route_short_name")),
        "directionId": field(
            GraphQLString, lambda t, _i: None if t.direction_id is None else str(t.direction_id)
        ),
        "blockId": field(GraphQLString, attr("block_id")),
        "shapeId": field(GraphQLString, attr("shape_id")),
        "wheelchairAccessible": field(WheelchairBoarding, attr("wheelchair_accessible")),
        "bikesAllowed": field(BikesAllowed, attr("bikes_allowed")),
        "pattern": field(Pattern_, _trip_pattern),
        "stops": field(
            GraphQLNonNull(list_of(GraphQLNonNull(Stop_))),
            lambda t, info: index_of(info).find_stops(trip_id=t.id),
        ),
        "semanticHash": field(
            GraphQLString, lambda t, info: index_of(info).get_trip_semantic_hash(t.id)
        ),
        "stoptimes": field(
            list_of(Stoptime),
            lambda t, info: _trip_times(info, t.id),
        ),
        "stoptimesForDate": field(
            list_of(Stoptime), _trip_times_for_date, {"serviceDay": GraphQLArgument(GraphQLString)}
        ),
        "geometry": field(
            GraphQLString, lambda t, info: index_of(info).get_trip_geometry(t.id).points
        ),
        "alerts": field(list_of(AlertType), _alerts_of("trip")),
    },
    interfaces=[Node],
)

Pattern_: GraphQLObjectType = GraphQLObjectType(
    "Pattern",
    lambda: {
        "id": global_id_field("Pattern"),
        "route": field(
            GraphQLNonNull(Route_), lambda p, info: index_of(info).get_route(p.route_id)
        ),
        "directionId": field(GraphQLInt, attr("direction_id")),
        "name": field(GraphQLString, attr("desc")),
        "code": field(GraphQLNonNull(GraphQLString), attr("id")),
        "headsign": field(GraphQLString, attr("headsign")),
        "trips": field(
            list_of(GraphQLNonNull(Trip_)),
            lambda p, info: index_of(info).find_trips(pattern_id=p.id),
        ),
        "stops": field(
            list_of(GraphQLNonNull(Stop_)),
            lambda p, info: index_of(info).find_stops(pattern_id=p.id),
        ),
        "geometry": field(
            list_of(Coordinates), lambda p, info: index_of(info).get_pattern_coordinates(p.id)
        ),
        "semanticHash": field(
            GraphQLString, lambda p, info: index_of(info).get_pattern_semantic_hash(p.id)
        ),
        "vehiclePositions": field(list_of(VehiclePositionType), _pattern_vehicles),
    },
    interfaces=[Node],
)

Cluster: GraphQLObjectType = GraphQLObjectType(
    "Cluster",
    lambda: {
        "id": global_id_field("Cluster"),
        "gtfsId": field(GraphQLNonNull(GraphQLString), attr("id")),
        "name": field(GraphQLString, attr("name")),
        "lat": field(GraphQLFloat, attr("lat")),
        "lon": field(GraphQLFloat, attr("lon")),
        "stops": field(
            list_of(GraphQLNonNull(Stop_)),
            lambda c, info: [index_of(info).get_stop(s) for s in c.stop_ids],
        ),
    },
    interfaces=[Node],
)

StopAtDistance_: GraphQLObjectType = GraphQLObjectType(
    "stopAtDistance",
    lambda: {
        "id": field(
            GraphQLNonNull(GraphQLID),
            lambda d, _i: to_global_id("stopAtDistance", f"{round(d.distance_m)};{d.stop.id}"),
        ),
        "stop": field(Stop_, attr("stop")),
        "distance": field(GraphQLInt, lambda d, _i: round(d.distance_m)),
    },
)

Feed = GraphQLObjectType(
    "Feed",
    lambda: {
        "feedId": field(GraphQLNonNull(GraphQLString), attr("id")),
        "publisherName": field(GraphQLString, attr("publisher_name")),
        "agencies": field(
            list_of(Agency_), lambda f, info: index_of(info).find_agencies(feed_id=f.id)
        ),
    },
)

# -- relay connection of stopsByRadius ----------------------------------------------------------

PageInfo = GraphQLObjectType(
    "PageInfo",
    {
        "hasNextPage": field(GraphQLNonNull(GraphQLBoolean), attr("has_next")),
        "hasPreviousPage": field(GraphQLNonNull(GraphQLBoolean), attr("has_previous")),
        "startCursor": field(GraphQLString, attr("start_cursor")),
        "endCursor": field(GraphQLString, attr("end_cursor")),
    },
)
StopAtDistanceEdge = GraphQLObjectType(
    "stopAtDistanceEdge",
    {
        "node": field(StopAtDistance_, lambda e, _i: e[1]),
        "cursor": field(GraphQLNonNull(GraphQLString), lambda e, _i: cursor(e[0])),
    },
)
StopAtDistanceConnection = GraphQLObjectType(
    "stopAtDistanceConnection",
    {
        "edges": field(list_of(StopAtDistanceEdge), attr("edges")),
        "pageInfo": field(GraphQLNonNull(PageInfo), attr("page_info")),
    },
)


# -- root ---------------------------------------------------------------------------------------


def _in_feed(feed: str | None) -> Callable[[Stop], bool]:
    return lambda s: feed is None or s.id.split(":", 1)[0] == feed


def _stops_by_radius(_root: Any, info: Info, **kw: Any) -> Connection:
    if kw["radius"] < 0:
        msg = "radius must not be negative."
        raise GraphQLError(msg)
    found = index_of(info).find_stops_in_circle(kw["lat"], kw["lon"], kw["radius"])
    keep = _in_feed(kw.get("agency"))
    return connection([f for f in found if keep(f.stop)], **kw)


def _stops_by_bbox(_root: Any, info: Info, **kw: Any) -> list[Stop]:
    box = (kw["minLat"], kw["minLon"], kw["maxLat"], kw["maxLon"])
    keep = _in_feed(kw.get("agency"))
    return [s for s in index_of(info).find_stops_in_box(*box) if keep(s)]


def _by_ids(
    getter: Callable[[str], Any], ids: Sequence[str] | None, every: Callable[[], Any]
) -> Any:
    if ids is None:
        return every()
    return [or_none(functools.partial(getter, i)) for i in ids]


def _agency(_root: Any, info: Info, id: str) -> Agency | None:
    index = index_of(info)
    found: Agency | None = or_none(lambda: index.get_agency(id))
    if found is None:  # OTP looked agencies up without their feed
        found = next((a for a in index.list_agencies() if a.id.split(":", 1)[-1] == id), None)
    return found


def _fuzzy_trip(_root: Any, info: Info, **kw: Any) -> Trip | None:
    """OTP's fuzzy trip match: the route's trip running on ``date`` that leaves at ``time``."""
    route, date, time = kw.get("route"), kw.get("date"), kw.get("time")
    if route is None or date is None or time is None:
        return None
    day = date_arg(date, "date")
    found: list[Trip] | None = or_none(
        lambda: index_of(info).find_trips_departing(
            route, day, time, direction_id=kw.get("direction")
        )
    )
    return found[0] if found else None


_NODE_GETTERS: dict[str, Callable[[TransitIndex, str], Any]] = {
    "Agency": TransitIndex.get_agency,
    "Route": TransitIndex.get_route,
    "Stop": TransitIndex.get_stop,
    "Trip": TransitIndex.get_trip,
    "Pattern": TransitIndex.get_pattern,
    "Cluster": TransitIndex.get_cluster,
}


def _node(_root: Any, info: Info, id: str) -> Any:
    type_name, entity_id = from_global_id(id)
    getter = _NODE_GETTERS.get(type_name)
    return None if getter is None else or_none(lambda: getter(index_of(info), entity_id))


def _one(getter: Callable[[TransitIndex, str], Any]) -> Resolver:
    return lambda _root, info, id: or_none(lambda: getter(index_of(info), id))


def _all(lister: Callable[[TransitIndex], Any]) -> Resolver:
    return lambda _root, info, **_: lister(index_of(info))


_ID_ARG = {"id": GraphQLArgument(GraphQLNonNull(GraphQLString))}
_FLOAT = GraphQLNonNull(GraphQLFloat)

Query: GraphQLObjectType = GraphQLObjectType(
    "QueryType",
    lambda: {
        "node": field(Node, _node, {"id": GraphQLArgument(GraphQLNonNull(GraphQLID))}),
        "feeds": field(list_of(Feed), _all(TransitIndex.list_feeds)),
        "agencies": field(list_of(Agency_), _all(TransitIndex.list_agencies)),
        "agency": field(Agency_, _agency, _ID_ARG),
        "stops": field(
            list_of(Stop_),
            lambda _r, info, ids=None: _by_ids(
                index_of(info).get_stop, ids, index_of(info).list_stops
            ),
            {"ids": GraphQLArgument(list_of(GraphQLString))},
        ),
        "stopsByBbox": field(
            list_of(Stop_),
            _stops_by_bbox,
            {
                **{n: GraphQLArgument(_FLOAT) for n in ("minLat", "minLon", "maxLat", "maxLon")},
                "agency": GraphQLArgument(GraphQLString),
            },
        ),
        "stopsByRadius": field(
            StopAtDistanceConnection,
            _stops_by_radius,
            {
                "lat": GraphQLArgument(_FLOAT),
                "lon": GraphQLArgument(_FLOAT),
                "radius": GraphQLArgument(GraphQLNonNull(GraphQLInt)),
                "agency": GraphQLArgument(GraphQLString),
                "first": GraphQLArgument(GraphQLInt),
                "after": GraphQLArgument(GraphQLString),
                "last": GraphQLArgument(GraphQLInt),
                "before": GraphQLArgument(GraphQLString),
            },
        ),
        "stop": field(Stop_, _one(TransitIndex.get_stop), _ID_ARG),
        "routes": field(
            list_of(Route_),
            lambda _r, info, ids=None: _by_ids(
                index_of(info).get_route, ids, index_of(info).list_routes
            ),
            {"ids": GraphQLArgument(list_of(GraphQLString))},
        ),
        "route": field(Route_, _one(TransitIndex.get_route), _ID_ARG),
        "trips": field(list_of(Trip_), _all(TransitIndex.list_trips)),
        "trip": field(Trip_, lambda _r, info, id: or_none(lambda: _trip_by_id(info, id)), _ID_ARG),
        "fuzzyTrip": field(
            Trip_,
            _fuzzy_trip,
            {
                "route": GraphQLArgument(GraphQLString),
                "direction": GraphQLArgument(GraphQLInt),
                "date": GraphQLArgument(GraphQLString, description="The service day, YYYYMMDD."),
                "time": GraphQLArgument(
                    GraphQLInt, description="Departure from the first stop, seconds after midnight."
                ),
            },
        ),
        "patterns": field(list_of(Pattern_), _all(TransitIndex.list_patterns)),
        "pattern": field(Pattern_, _one(TransitIndex.get_pattern), _ID_ARG),
        "clusters": field(list_of(Cluster), _all(TransitIndex.list_clusters)),
        "cluster": field(Cluster, _one(TransitIndex.get_cluster), _ID_ARG),
        "viewer": field(Query, lambda root, _i: root if root is not None else {}),
        "alerts": field(
            list_of(AlertType),
            _all_alerts,
            {"feeds": GraphQLArgument(list_of(GraphQLNonNull(GraphQLString)))},
        ),
    },
)

#: The index schema (immutable; one for the whole service).
SCHEMA = GraphQLSchema(query=Query, types=[Agency_, Route_, Stop_, Trip_, Pattern_, Cluster])
