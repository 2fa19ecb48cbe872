"""GTFS-RT VehiclePositions -> :class:`VehiclePosition` (OTP 1.x ibi's ``RealtimeVehiclePosition``).

Each ``VehiclePosition`` entity is matched to the network by its trip (``trip_id``
in the configured feed: the vehicle then has its trip, route and next stop), else
by its trip descriptor's ``route_id`` (route only).  A vehicle without a position
is ``invalid``; one whose trip and route are unknown is ``unmatched``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from google.transit import gtfs_realtime_pb2

from otpa.realtime.alerts import AlertResult
from otpa.realtime.feeds import feed_index
from otpa.transit.model import TransitModel
from otpa.util.cache import OwnerCache

__all__ = ["VehiclePosition", "VehicleSet", "vehicle_positions"]


@dataclass(frozen=True)
class VehiclePosition:
    """One vehicle's last reported position.

    Attributes
    ----------
    vehicle_id, label
        The vehicle descriptor's id and label (else the entity id).
    lat, lon
        WGS84 position.
    speed, heading
        Metres per second and degrees clockwise from north, when reported.
    seconds
        Epoch seconds of the position (the entity's, else the feed header's).
    trip_id, route_id
        Feed-scoped ids of its trip and route (``None`` when not known).
    stop_status
        GTFS-RT ``VehicleStopStatus`` name (``IN_TRANSIT_TO``...).
    next_stop_id, next_stop_name, next_stop_sequence
        The stop it is at or heading to, when known.
    congestion_level
        GTFS-RT ``CongestionLevel`` name, when reported.
    """

    vehicle_id: str
    label: str | None
    lat: float
    lon: float
    speed: float | None
    heading: float | None
    seconds: int | None
    trip_id: str | None
    route_id: str | None
    stop_status: str | None = None
    next_stop_id: str | None = None
    next_stop_name: str | None = None
    next_stop_sequence: int | None = None
    congestion_level: str | None = None


class VehicleSet:
    """Immutable vehicle positions, by route and by trip."""

    def __init__(self, vehicles: Iterable[VehiclePosition] = ()) -> None:
        self._vehicles = tuple(vehicles)
        by_route: dict[str, list[VehiclePosition]] = {}
        for v in self._vehicles:
            if v.route_id is not None:
                by_route.setdefault(v.route_id, []).append(v)
        self._by_route: Mapping[str, tuple[VehiclePosition, ...]] = {
            k: tuple(v) for k, v in by_route.items()
        }

    def __len__(self) -> int:
        return len(self._vehicles)

    def __iter__(self) -> Iterator[VehiclePosition]:
        return iter(self._vehicles)

    def on_route(self, route_id: str) -> tuple[VehiclePosition, ...]:
        """The vehicles serving a route (feed-scoped id)."""
        return self._by_route.get(route_id, ())

    def on_trips(self, trip_ids: Iterable[str]) -> tuple[VehiclePosition, ...]:
        """The vehicles running one of the trips (feed-scoped ids)."""
        wanted = set(trip_ids)
        return tuple(v for v in self._vehicles if v.trip_id in wanted)


@dataclass(frozen=True)
class _Lookup:
    trip_of: Mapping[str, int]
    route_of: Mapping[str, int]


_LOOKUPS: OwnerCache[int, _Lookup] = OwnerCache()


def _lookup(model: TransitModel, feed: int) -> _Lookup:
    def build() -> _Lookup:
        trips, routes = model.trips, model.routes
        t_idx = np.flatnonzero(trips["feed"].to_numpy() == feed)
        r_idx = np.flatnonzero(routes["feed"].to_numpy() == feed)
        t_raw, r_raw = trips["raw_id"].to_numpy(), routes["raw_id"].to_numpy()
        return _Lookup(
            trip_of={str(t_raw[i]): int(i) for i in t_idx},
            route_of={str(r_raw[i]): int(i) for i in r_idx},
        )

    return _LOOKUPS.get_or_build(model, feed, build)


@dataclass
class VehicleResult(AlertResult):
    """The outcome of one vehicle-positions feed (``alerts`` stays empty)."""

    vehicles: list[VehiclePosition] = field(default_factory=list)


def _next_stop(
    model: TransitModel, trip: int, vp: Any
) -> tuple[str | None, str | None, int | None]:
    """``(stop id, name, stop_sequence)`` of the stop the vehicle is at or heading to."""
    pattern = int(model.trips["pattern_index"].iat[trip])
    stops = np.asarray(model.pattern_stop_indices(pattern))
    ptrips = np.asarray(model.pattern_trip_indices(pattern))
    k = int(np.flatnonzero(ptrips == trip)[0])
    base = int(model.pattern_time_offsets[pattern]) + k * stops.size
    seqs = np.asarray(model.stop_sequence[base : base + stops.size])
    raw = model.stops["raw_id"].to_numpy()
    pos: int | None = None
    if vp.HasField("current_stop_sequence"):
        hits = np.flatnonzero(seqs == int(vp.current_stop_sequence))
        pos = int(hits[0]) if hits.size else None
    if pos is None and vp.stop_id:
        hits = np.flatnonzero(raw[stops] == vp.stop_id)
        pos = int(hits[0]) if hits.size else None
    if pos is None:
        return None, None, None
    stop = int(stops[pos])
    return (
        str(model.stops["stop_id"].iat[stop]),
        str(model.stops["name"].iat[stop]),
        int(seqs[pos]),
    )


def vehicle_positions(model: TransitModel, message: Any, feed_id: str | None) -> VehicleResult:
    """The vehicle positions of a parsed GTFS-RT feed, matched to the network's trips and routes.

    Parameters
    ----------
    model
        The network's transit model.
    message
        A GTFS-RT ``FeedMessage`` (:func:`otpa.realtime.parse_feed`).
    feed_id
        The feed the trip and route ids refer to (None: the network's only feed).

    Returns
    -------
    VehicleResult

    Raises
    ------
    otpa.realtime.FeedError
        ``feed_id`` matches no feed of the network.
    """
    feed = feed_index(model, feed_id)
    look = _lookup(model, feed)
    out = VehicleResult()
    stamp = int(message.header.timestamp) if message.header.HasField("timestamp") else None
    vps = gtfs_realtime_pb2.VehiclePosition
    trip_ids = model.trips["trip_id"].to_numpy()
    route_ids = model.routes["route_id"].to_numpy()
    route_of_trip = model.trips["route_index"].to_numpy()
    for entity in message.entity:
        if not entity.HasField("vehicle"):
            continue
        out.count("vehicles")
        vp = entity.vehicle
        name = f"entity {entity.id!r}"
        if not vp.HasField("position"):
            out.problem("invalid", name, "no position: the vehicle has no position")
            continue
        lat, lon = float(vp.position.latitude), float(vp.position.longitude)
        if not (-90.0 <= lat <= 90.0 and -180.0 <= lon <= 180.0):
            out.problem("invalid", name, f"invalid position: {lat}, {lon}")
            continue
        trip = look.trip_of.get(vp.trip.trip_id) if vp.trip.trip_id else None
        route = (
            int(route_of_trip[trip])
            if trip is not None
            else (look.route_of.get(vp.trip.route_id) if vp.trip.route_id else None)
        )
        if route is None:
            what = vp.trip.trip_id or vp.trip.route_id or "(none)"
            out.problem(
                "unmatched", name, f"unknown trip: {what!r} is no trip or route of the feed"
            )
            continue
        stop_id, stop_name, stop_seq = (None, None, None)
        if trip is not None:
            stop_id, stop_name, stop_seq = _next_stop(model, trip, vp)
        position = vp.position
        out.vehicles.append(
            VehiclePosition(
                vehicle_id=vp.vehicle.id or str(entity.id),
                label=vp.vehicle.label or None,
                lat=lat,
                lon=lon,
                speed=float(position.speed) if position.HasField("speed") else None,
                heading=float(position.bearing) if position.HasField("bearing") else None,
                seconds=int(vp.timestamp) if vp.HasField("timestamp") else stamp,
                trip_id=str(trip_ids[trip]) if trip is not None else None,
                route_id=str(route_ids[route]),
                stop_status=(
                    vps.VehicleStopStatus.Name(vp.current_status)
                    if vp.HasField("current_status")
                    else None
                ),
                next_stop_id=stop_id,
                next_stop_name=stop_name,
                next_stop_sequence=stop_seq,
                congestion_level=(
                    vps.CongestionLevel.Name(vp.congestion_level)
                    if vp.HasField("congestion_level")
                    else None
                ),
            )
        )
        out.applied += 1
    return out
