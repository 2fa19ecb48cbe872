"""Real-time fields of the index API's stop times (OTP's ``TripTimeShort``)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping, Sequence
from zoneinfo import ZoneInfo

from otpa.index import Pattern, StopTimesInPattern, Trip, TripTime
from otpa.network import TransportNetwork
from otpa.realtime.snapshot import AddedTrip, TimetableSnapshot
from otpa.transit.model import TransitModel
from otpa.util.cache import OwnerCache

__all__ = ["added_trip", "added_trip_times", "realtime_stop_times", "realtime_trip_times"]

_TRIP_INDEX: OwnerCache[str, Mapping[str, int]] = OwnerCache()
_STOP_INDEX: OwnerCache[str, Mapping[str, int]] = OwnerCache()


def _stop_index(model: TransitModel) -> Mapping[str, int]:
    def build() -> Mapping[str, int]:
        ids = model.stops["stop_id"].astype(str).tolist()
        return {stop_id: i for i, stop_id in enumerate(ids)}

    return _STOP_INDEX.get_or_build(model, "stop_index", build)


def _trip_index(model: TransitModel) -> Mapping[str, int]:
    def build() -> Mapping[str, int]:
        ids = model.trips["trip_id"].astype(str).tolist()
        return {trip_id: i for i, trip_id in enumerate(ids)}

    return _TRIP_INDEX.get_or_build(model, "trip_index", build)


def realtime_trip_times(
    network: TransportNetwork, snapshot: TimetableSnapshot | None, times: Sequence[TripTime]
) -> list[TripTime]:
    """The times with the snapshot's real-time state (``UPDATED``/``CANCELED``) filled in.

    Parameters
    ----------
    network
        The network the times are of.
    snapshot
        The real-time snapshot; None: the times as they are (scheduled).
    times
        Trip times from :class:`~otpa.index.TransitIndex`; times not tied to a service
        day (``service_day == 0``, a trip's stop times) show today's state, as OTP 1.x.

    Returns
    -------
    list of TripTime
    """
    if snapshot is None or len(snapshot) == 0:
        return list(times)
    trips = _trip_index(network.transit)
    tz = ZoneInfo(network.time_zone)
    today = dt.datetime.now(tz).date()
    out: list[TripTime] = []
    for t in times:
        trip = trips.get(t.trip_id)
        rt = None
        if trip is not None:
            date = (
                dt.datetime.fromtimestamp(t.service_day + 12 * 3600, tz).date()
                if t.service_day
                else today
            )
            rt = snapshot.trip(trip, date)
        if rt is None:
            out.append(t)
        elif rt.canceled:
            out.append(dataclasses.replace(t, realtime_state="CANCELED", realtime=True))
        else:
            i = t.stop_index
            out.append(
                dataclasses.replace(
                    t,
                    realtime=True,
                    realtime_state="UPDATED",
                    realtime_arrival=int(rt.arrival_s[i]),
                    realtime_departure=int(rt.departure_s[i]),
                )
            )
    return out


def realtime_stop_times(
    network: TransportNetwork,
    snapshot: TimetableSnapshot | None,
    found: Sequence[StopTimesInPattern],
    *,
    stop_id: str | None = None,
    window: tuple[int, int] | None = None,
    limit: int | None = None,
    date: dt.date | None = None,
) -> list[StopTimesInPattern]:
    """:func:`realtime_trip_times` applied to every pattern's times, with the added trips.

    Parameters
    ----------
    network, snapshot
        As :func:`realtime_trip_times`.
    found
        The scheduled stop times of one stop, per pattern.
    stop_id
        That stop: the snapshot's added trips (GTFS-RT ``ADDED``) calling at it are
        listed too (``realtimeState`` ``ADDED``), departing in ``window`` (epoch seconds,
        inclusive; at most ``limit`` per pattern) or running on the service ``date``.
        An added trip on a scheduled pattern's stops joins that pattern; the others are
        listed under a pattern of their route, ``routeId:directionId:rt#N`` (as OTP's
        real-time patterns).

    Returns
    -------
    list of StopTimesInPattern
    """
    if snapshot is None or len(snapshot) == 0:
        return list(found)
    out = [
        dataclasses.replace(f, times=tuple(realtime_trip_times(network, snapshot, f.times)))
        for f in found
    ]
    if stop_id is None or not snapshot.added or (window is None and date is None):
        return out
    return _with_added(network, snapshot, out, stop_id, window, limit, date)


def _added_calls(
    network: TransportNetwork,
    trip: AddedTrip,
    stop: int,
    window: tuple[int, int] | None,
) -> list[TripTime]:
    """The calls of an added trip at a model stop (in ``window`` when given)."""
    model = network.transit
    day = model.service_day_start(dt.date.fromordinal(trip.service_day), network.time_zone)
    n = int(trip.stops.size)
    out = []
    for i in range(n):
        if int(trip.stops[i]) != stop:
            continue
        arr, dep = int(trip.arrival_s[i]), int(trip.departure_s[i])
        if window is not None and not window[0] <= day + dep <= window[1]:
            continue
        out.append(
            TripTime(
                stop_id=str(model.stops["stop_id"].iat[stop]),
                stop_index=i,
                stop_count=n,
                scheduled_arrival=arr,
                scheduled_departure=dep,
                service_day=day,
                trip_id=trip.scoped_id(model),
                block_id=None,
                headsign=None,
                pickup_type=0,
                drop_off_type=0,
                realtime=True,
                realtime_state="ADDED",
                realtime_arrival=arr,
                realtime_departure=dep,
            )
        )
    return out


def _with_added(
    network: TransportNetwork,
    snapshot: TimetableSnapshot,
    out: list[StopTimesInPattern],
    stop_id: str,
    window: tuple[int, int] | None,
    limit: int | None,
    date: dt.date | None,
) -> list[StopTimesInPattern]:
    model = network.transit
    stop = _stop_index(model).get(stop_id)
    if stop is None:
        return out
    stop_ids = model.stops["stop_id"].astype(str).to_numpy()
    route_ids = model.routes["route_id"].astype(str).to_numpy()
    extra: dict[tuple[str, tuple[str, ...]], list[TripTime]] = {}
    for trip in snapshot.added_trips:
        if date is not None and trip.service_day != date.toordinal():
            continue
        calls = _added_calls(network, trip, stop, window)
        if calls:
            key = (str(route_ids[trip.route]), tuple(stop_ids[trip.stops].tolist()))
            extra.setdefault(key, []).extend(calls)
    if not extra:
        return out
    by_pattern = {(f.pattern.route_id, f.pattern.stop_ids): i for i, f in enumerate(out)}
    n_rt = 0
    for (route_id, stops), calls in extra.items():
        i = by_pattern.get((route_id, stops))
        if i is None:
            n_rt += 1
            pattern = Pattern(
                id=f"{route_id}::rt#{n_rt}",
                route_id=route_id,
                direction_id=None,
                desc=f"{route_id} added trips",
                headsign=None,
                stop_ids=stops,
                trip_ids=tuple(dict.fromkeys(c.trip_id for c in calls)),
                pickup_types=(0,) * len(stops),
                drop_off_types=(0,) * len(stops),
            )
            out.append(StopTimesInPattern(pattern, ()))
            i = len(out) - 1
        times = sorted(
            (*out[i].times, *calls), key=lambda t: (t.service_day + _departure(t), t.trip_id)
        )
        out[i] = dataclasses.replace(out[i], times=tuple(times if limit is None else times[:limit]))
    return out


def _departure(t: TripTime) -> int:
    return t.scheduled_departure if t.realtime_departure is None else t.realtime_departure


def _find_added(
    network: TransportNetwork, snapshot: TimetableSnapshot | None, trip_id: str
) -> AddedTrip | None:
    if snapshot is None or not snapshot.added:
        return None
    for trip in snapshot.added_trips:
        if trip.scoped_id(network.transit) == trip_id:
            return trip
    return None


def added_trip(
    network: TransportNetwork, snapshot: TimetableSnapshot | None, trip_id: str
) -> Trip | None:
    """The index's view of a trip the snapshot adds (GTFS-RT ``ADDED``), or None.

    Its route is the update's; its service id the first service running on its
    service day (as OTP 1.x gave added trips), ``""`` when none runs; it has no
    pattern of the index, shape, headsign or block.
    """
    trip = _find_added(network, snapshot, trip_id)
    if trip is None:
        return None
    model = network.transit
    running = model.services_on(dt.date.fromordinal(trip.service_day))
    services = [model.service_ids[i] for i in running.nonzero()[0].tolist()]
    route = model.routes.iloc[trip.route]
    short = route.get("short_name")
    return Trip(
        id=trip_id,
        route_id=str(route["route_id"]),
        service_id=services[0] if services else "",
        trip_short_name=None,
        trip_headsign=None,
        route_short_name=str(short) if isinstance(short, str) and short else None,
        direction_id=None,
        block_id=None,
        shape_id=None,
        wheelchair_accessible=0,
        bikes_allowed=0,
        pattern_id=None,
    )


def added_trip_times(
    network: TransportNetwork, snapshot: TimetableSnapshot | None, trip_id: str
) -> list[TripTime] | None:
    """The stop times of a trip the snapshot adds (``ADDED``, on its service day), or None."""
    trip = _find_added(network, snapshot, trip_id)
    if trip is None:
        return None
    calls = [
        t
        for stop in dict.fromkeys(trip.stops.tolist())
        for t in _added_calls(network, trip, stop, None)
    ]
    return sorted(calls, key=lambda t: t.stop_index)
