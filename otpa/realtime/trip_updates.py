"""GTFS-RT TripUpdates -> :class:`~otpa.realtime.snapshot.TripRealtime` (OpenTripPlanner 1.x rules).

Each ``TripUpdate`` is matched to a trip of the configured feed by ``trip_id`` on
its service date (``start_date``; without one, the date of the feed's header
timestamp -- "now" -- in the network's time zone) and must run that day.

* ``CANCELED`` trips are canceled on that day.
* Otherwise the stop-time updates are matched in order along the trip, by
  ``stop_sequence`` when given, else by ``stop_id`` (OTP 1.x's rule).  A delay or
  absolute time of a matched stop sets that stop's time; an arrival without a
  departure (or a departure without an arrival) and the stops after the update
  take the last delay (propagation downstream); stops before the first update
  keep their scheduled times.  ``NO_DATA`` resets the delay to 0; ``SKIPPED``
  marks the stop as not served (its times follow the propagated delay).
* An update whose stop-time updates do not all match the trip, or that makes
  the times go backwards, is refused (``invalid``) and leaves the trip as planned.
* ``ADDED`` trips are checked as OpenTripPlanner 1.x's ``validateAndHandleAddedTrip``
  did: the trip id must be new to the feed, ``start_date`` gives the service day,
  some service must run that day, ``route_id`` must name a route of the feed, and at
  least two stop-time updates give the stops (``stop_id``, known to the feed) with their
  absolute times, which must not go backwards.  A trip that fails a check is
  ``invalid``; a valid one is applied (counted ``added``) and kept in
  :attr:`TripUpdateResult.added` (stops and times on its service day), which the
  snapshot routes (:class:`~otpa.realtime.snapshot.TimetableSnapshot`).
* ``NEW`` (GTFS-RT's later name for ``ADDED``) is handled as ``ADDED``.
  ``DUPLICATED`` copies a scheduled trip (``trip_id``) as a new trip
  (``trip_properties.trip_id``, new to the feed) on ``trip_properties.start_date`` (else
  the descriptor's ``start_date``), shifted to start at ``trip_properties.start_time``
  (else as scheduled); its stop-time updates apply to the copy as to a scheduled trip
  (``SKIPPED`` is refused).  It runs as an added trip (counted ``duplicated``).
* Other unsupported schedule relationships, unknown trips and trips that do not
  run that day are ``unmatched``.

Nothing in a refused or unmatched entity changes anything else.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np
from google.protobuf.message import DecodeError
from google.transit import gtfs_realtime_pb2

from otpa.realtime.feeds import FeedError, FeedOutcome, feed_index
from otpa.realtime.snapshot import AddedTrip, TripRealtime
from otpa.transit.model import TransitModel
from otpa.util.cache import OwnerCache

__all__ = [
    "AddedTrip",
    "FeedError",
    "TripUpdateResult",
    "feed_index",
    "parse_feed",
    "trip_updates",
]


@dataclass
class TripUpdateResult(FeedOutcome):
    """The outcome of one feed: the trips it updates and what happened to each entity."""

    trips: dict[tuple[int, int], TripRealtime] = field(default_factory=dict)
    added: dict[tuple[str, int], AddedTrip] = field(default_factory=dict)


def parse_feed(data: bytes) -> Any:
    """Parse a GTFS-RT ``FeedMessage``.

    Raises
    ------
    FeedError
        The bytes are not a GTFS-RT feed message (or lack its header).
    """
    msg = gtfs_realtime_pb2.FeedMessage()
    try:
        msg.ParseFromString(data)
    except (DecodeError, ValueError, RuntimeError) as exc:
        text = f"not a GTFS-RT FeedMessage: {exc}"
        raise FeedError(text) from exc
    if not msg.HasField("header") or not msg.header.gtfs_realtime_version:
        msg_text = "not a GTFS-RT FeedMessage (no header)"
        raise FeedError(msg_text)
    return msg


def _service_date(text: str) -> dt.date | None:
    if len(text) != 8 or not text.isdigit():
        return None
    try:
        return dt.date(int(text[:4]), int(text[4:6]), int(text[6:]))
    except ValueError:
        return None


@dataclass(frozen=True)
class _Lookup:
    trip_of: Mapping[str, int]
    stop_ids: Any  # raw stop id per model stop
    pattern_of: Any  # pattern per trip
    tz_of: Any  # time-zone index per trip
    service_of: Any  # service index per trip
    route_of: Mapping[str, int]  # raw route id -> model route (of the feed)
    stop_of: Mapping[str, int]  # raw stop id -> model stop (of the feed)


#: Per model and feed: trip ids and stop ids (weakly keyed by the model).
_LOOKUPS: OwnerCache[int, _Lookup] = OwnerCache()


def _build_lookup(model: TransitModel, feed: int) -> _Lookup:
    trips = model.trips
    mask = trips["feed"].to_numpy() == feed
    if "template_trip_id" in trips.columns:  # frequency-expanded copies are not matched
        mask &= trips["template_trip_id"].isna().to_numpy()
    idx = np.flatnonzero(mask)
    raw = trips["raw_id"].to_numpy()[idx]
    tz = trips["tz_index"].to_numpy() if "tz_index" in trips.columns else np.zeros(len(trips))
    routes, stops = model.routes, model.stops
    r_idx = np.flatnonzero(routes["feed"].to_numpy() == feed)
    s_idx = np.flatnonzero(stops["feed"].to_numpy() == feed)
    return _Lookup(
        trip_of={str(r): int(i) for r, i in zip(raw, idx, strict=True)},
        stop_ids=model.stops["raw_id"].to_numpy(),
        pattern_of=trips["pattern_index"].to_numpy(),
        tz_of=tz,
        service_of=trips["service_index"].to_numpy(),
        route_of={
            str(r): int(i) for r, i in zip(routes["raw_id"].to_numpy()[r_idx], r_idx, strict=True)
        },
        stop_of={
            str(r): int(i) for r, i in zip(stops["raw_id"].to_numpy()[s_idx], s_idx, strict=True)
        },
    )


def _lookup(model: TransitModel, feed: int) -> _Lookup:
    return _LOOKUPS.get_or_build(model, feed, lambda: _build_lookup(model, feed))


def _trip_slot(model: TransitModel, pattern: int, trip: int) -> tuple[int, int]:
    """``(pattern, offset of the trip's times)``."""
    ptrips = np.asarray(model.pattern_trip_indices(pattern))
    k = int(np.flatnonzero(ptrips == trip)[0])
    ns = int(model.pattern_stop_offsets[pattern + 1] - model.pattern_stop_offsets[pattern])
    return pattern, int(model.pattern_time_offsets[pattern]) + k * ns


def _event(event: Any, sched: int, day_start: int) -> tuple[int, int] | None:
    """``(time, delay)`` of a StopTimeEvent (time as service-day seconds); None when empty."""
    if event.HasField("time"):
        t = int(event.time) - day_start
        return t, t - sched
    if event.HasField("delay"):
        return sched + int(event.delay), int(event.delay)
    return None


def _stop_times(
    upd: Any, i: int, sched: tuple[int, int], day_start: int, delay: int | None
) -> tuple[int, int, int | None] | str:
    """``(arrival, departure, delay)`` at a stop with a SCHEDULED update, or the refusal."""
    a = _event(upd.arrival, sched[0], day_start) if upd.HasField("arrival") else None
    d = _event(upd.departure, sched[1], day_start) if upd.HasField("departure") else None
    if upd.HasField("arrival") and a is None:
        return f"invalid arrival: stop position {i} has neither time nor delay"
    if upd.HasField("departure") and d is None:
        return f"invalid departure: stop position {i} has neither time nor delay"
    arr, dep = sched
    first = delay is None
    if a is not None:
        arr, delay = a
    elif delay is not None:
        arr = sched[0] + delay
    if d is not None:
        dep, delay = d
    elif delay is not None:
        dep = sched[1] + delay
    if first and a is None and d is not None and arr > dep:
        arr = dep  # the first update gives only an earlier departure: arrive no later
    return arr, dep, delay


def _apply_trip(
    model: TransitModel, trip: int, date: dt.date, tu: Any, look: _Lookup, day_start: int
) -> TripRealtime | str:
    """The trip's new state, or the reason the update is refused."""
    stop_ids = look.stop_ids
    pattern, base = _trip_slot(model, int(look.pattern_of[trip]), trip)
    stops = np.asarray(model.pattern_stop_indices(pattern))
    ns = stops.size
    s_arr = model.arrival_s[base : base + ns].astype(np.int64)
    s_dep = model.departure_s[base : base + ns].astype(np.int64)
    seqs = model.stop_sequence[base : base + ns]
    arr, dep = s_arr.copy(), s_dep.copy()
    skipped = np.zeros(ns, dtype=bool)
    updates = list(tu.stop_time_update)
    u = 0
    delay: int | None = None
    stu = gtfs_realtime_pb2.TripUpdate.StopTimeUpdate
    for i in range(ns):
        upd = updates[u] if u < len(updates) else None
        match = False
        if upd is not None:
            if upd.HasField("stop_sequence"):
                match = int(upd.stop_sequence) == int(seqs[i])
            elif upd.HasField("stop_id"):
                match = str(stop_ids[stops[i]]) == upd.stop_id
        if not match:
            if delay is not None:
                arr[i], dep[i] = s_arr[i] + delay, s_dep[i] + delay
            continue
        assert upd is not None
        u += 1
        rel = upd.schedule_relationship if upd.HasField("schedule_relationship") else stu.SCHEDULED
        if rel == stu.NO_DATA:
            delay = 0
            continue
        if rel == stu.SKIPPED:
            skipped[i] = True
            if delay is not None:
                arr[i], dep[i] = s_arr[i] + delay, s_dep[i] + delay
            continue
        times = _stop_times(upd, i, (int(s_arr[i]), int(s_dep[i])), day_start, delay)
        if isinstance(times, str):
            return times
        arr[i], dep[i], delay = times
    if u < len(updates):
        return f"stop mismatch: stop time update {u} matches no stop of the trip (in order)"
    if (dep < arr).any() or (arr[1:] < dep[:-1]).any():
        return "times go backwards: the update makes the trip arrive before it departs"
    if abs(int(arr.max(initial=0))) > 7 * 86400 or int(arr.min(initial=0)) < -86400:
        return "times out of range: more than a week from the service day"
    return TripRealtime(
        trip=trip,
        service_day=date.toordinal(),
        canceled=False,
        arrival_s=_ro(arr),
        departure_s=_ro(dep),
        arrival_delay=_ro(arr - s_arr),
        departure_delay=_ro(dep - s_dep),
        skipped=_ro(skipped, bool),
    )


def _ro(a: Any, dtype: Any = np.int32) -> Any:
    out = np.asarray(a, dtype=dtype)
    out.flags.writeable = False
    return out


def _canceled(trip: int, date: dt.date) -> TripRealtime:
    empty = _ro(np.zeros(0))
    return TripRealtime(
        trip=trip,
        service_day=date.toordinal(),
        canceled=True,
        arrival_s=empty,
        departure_s=empty,
        arrival_delay=empty,
        departure_delay=empty,
        skipped=_ro(np.zeros(0), bool),
    )


def _added_trip(td: Any, tu: Any, look: _Lookup, date: dt.date, day_start: int) -> AddedTrip | str:
    """An ``ADDED`` trip (OTP 1.x's checks), or the reason it is refused."""
    if td.trip_id in look.trip_of:
        return f"trip exists: {td.trip_id!r} is already a trip of the feed"
    if not td.route_id:
        return "no route id: an ADDED trip needs route_id"
    route = look.route_of.get(td.route_id)
    if route is None:
        return f"unknown route: {td.route_id!r} is not a route of the feed"
    updates = list(tu.stop_time_update)
    if len(updates) < 2:
        return "too few stops: an ADDED trip needs at least two stop time updates"
    stu = gtfs_realtime_pb2.TripUpdate.StopTimeUpdate
    stops: list[int] = []
    arr: list[int] = []
    dep: list[int] = []
    last_seq = -1
    seqs: list[int] = []
    for i, upd in enumerate(updates):
        rel = upd.schedule_relationship if upd.HasField("schedule_relationship") else stu.SCHEDULED
        if rel != stu.SCHEDULED:
            name = stu.ScheduleRelationship.Name(rel)
            return f"unsupported: stop time update {i} of an ADDED trip is {name}"
        if upd.HasField("stop_sequence"):
            if int(upd.stop_sequence) <= last_seq:
                return f"stop sequence not increasing: stop time update {i}"
            last_seq = int(upd.stop_sequence)
        stop = look.stop_of.get(upd.stop_id) if upd.stop_id else None
        if stop is None:
            return f"unknown stop: stop time update {i} has no stop of the feed ({upd.stop_id!r})"
        a = int(upd.arrival.time) - day_start if upd.arrival.HasField("time") else None
        d = int(upd.departure.time) - day_start if upd.departure.HasField("time") else None
        a = d if a is None else a
        d = a if d is None else d
        if a is None or d is None:
            return f"no time: stop time update {i} of an ADDED trip has no time"
        seqs.append(int(upd.stop_sequence) if upd.HasField("stop_sequence") else i + 1)
        stops.append(stop)
        arr.append(a)
        dep.append(d)
    a_np, d_np = np.asarray(arr, np.int64), np.asarray(dep, np.int64)
    if (d_np < a_np).any() or (a_np[1:] < d_np[:-1]).any():
        return "times go backwards: the ADDED trip arrives before it departs"
    if int(a_np.max()) > 7 * 86400 or int(a_np.min()) < -86400:
        return "times out of range: more than a week from the service day"
    return AddedTrip(
        trip_id=td.trip_id,
        route=route,
        service_day=date.toordinal(),
        stops=_ro(stops),
        arrival_s=_ro(a_np),
        departure_s=_ro(d_np),
        stop_sequence=_ro(seqs),
    )


class _Days:
    """Service days of one feed application: which services run, when days start (memoised)."""

    def __init__(self, model: TransitModel, look: _Lookup, time_zone: str) -> None:
        self.model, self.look, self.time_zone = model, look, time_zone
        self._running: dict[dt.date, Any] = {}
        self._starts: dict[tuple[dt.date, int], int] = {}

    def runs(self, trip: int, date: dt.date) -> bool:
        service = int(self.look.service_of[trip])
        if date not in self._running:
            self._running[date] = self.model.services_on(date)
        return service >= 0 and bool(self._running[date][service])

    def start(self, trip: int, date: dt.date) -> int:
        zones = self.model.timezones
        tz_index = min(int(self.look.tz_of[trip]), max(len(zones) - 1, 0))
        key = (date, tz_index)
        if key not in self._starts:
            tz = zones[tz_index] if zones else self.time_zone
            self._starts[key] = self.model.service_day_start(date, tz)
        return self._starts[key]

    def zone_start(self, date: dt.date) -> int:
        """Start of a service day in the network's time zone (for trips not in the model)."""
        key = (date, -1)
        if key not in self._starts:
            self._starts[key] = self.model.service_day_start(date, self.time_zone)
        return self._starts[key]


def _handle_added(
    out: TripUpdateResult, name: str, td: Any, tu: Any, look: _Lookup, days: _Days
) -> None:
    """Check one ``ADDED`` trip update and record it (see the module docstring)."""
    if not td.trip_id:
        out.problem("invalid", name, "no trip id: the trip descriptor has no trip_id")
        return
    if not td.start_date:
        out.problem("invalid", name, "no start date: an ADDED trip needs start_date")
        return
    date = _service_date(td.start_date)
    if date is None:
        out.problem("invalid", name, f"invalid start date: {td.start_date!r}")
        return
    if not days.model.services_on(date).any():  # OTP 1.x: no service id to give the trip
        out.problem("invalid", name, f"no service: no service runs on {date.isoformat()}")
        return
    added = _added_trip(td, tu, look, date, days.zone_start(date))
    if isinstance(added, str):
        out.problem("invalid", name, added)
        return
    out.added[(added.trip_id, added.service_day)] = added
    out.applied += 1
    out.count("added")


def _clock(text: str) -> int | None:
    """Seconds of a GTFS ``HH:MM:SS`` time (hours may exceed 24), None when malformed."""
    parts = text.split(":")
    if len(parts) != 3 or not all(x.isdigit() for x in parts):
        return None
    h, m, sec = (int(x) for x in parts)
    return h * 3600 + m * 60 + sec if m < 60 and sec < 60 else None


def _duplicated_trip(
    model: TransitModel, td: Any, tu: Any, look: _Lookup, days: _Days
) -> AddedTrip | str:
    """A ``DUPLICATED`` trip (GTFS-RT): the scheduled trip ``td.trip_id`` copied as the new
    trip ``trip_properties.trip_id`` on ``trip_properties.start_date`` (else the
    descriptor's), starting at ``trip_properties.start_time`` (else as scheduled), with
    the stop-time updates applied to the copy; or the reason it is refused."""
    trip = look.trip_of.get(td.trip_id) if td.trip_id else None
    if trip is None:
        return f"unknown trip: {td.trip_id!r} is not a trip of the feed (DUPLICATED)"
    props = tu.trip_properties
    new_id = props.trip_id
    if not new_id:
        return "no trip id: a DUPLICATED trip needs trip_properties.trip_id"
    if new_id in look.trip_of:
        return f"trip exists: {new_id!r} is already a trip of the feed"
    date = _service_date(props.start_date or td.start_date)
    if date is None:
        return "no start date: a DUPLICATED trip needs a valid start_date"
    _, base = _trip_slot(model, int(look.pattern_of[trip]), trip)
    first = int(model.departure_s[base])
    start = _clock(props.start_time) if props.start_time else first
    if start is None:
        return f"invalid start time: {props.start_time!r}"
    shift = start - first
    trip_start = days.start(trip, date)
    result = _apply_trip(model, trip, date, tu, look, trip_start + shift)
    if isinstance(result, str):
        return result
    if result.skipped.any():
        return "unsupported: SKIPPED stops of a DUPLICATED trip"
    zone = trip_start - days.zone_start(date) + shift  # to the network's service day
    pattern = int(look.pattern_of[trip])
    ns = int(model.pattern_stop_offsets[pattern + 1] - model.pattern_stop_offsets[pattern])
    return AddedTrip(
        trip_id=new_id,
        route=int(model.trips["route_index"].iat[trip]),
        service_day=date.toordinal(),
        stops=_ro(model.pattern_stop_indices(pattern)),
        arrival_s=_ro(np.asarray(result.arrival_s, np.int64) + zone),
        departure_s=_ro(np.asarray(result.departure_s, np.int64) + zone),
        stop_sequence=_ro(model.stop_sequence[base : base + ns]),
    )


def _handle_duplicated(
    out: TripUpdateResult,
    name: str,
    model: TransitModel,
    td: Any,
    tu: Any,
    look: _Lookup,
    days: _Days,
) -> None:
    """Check one ``DUPLICATED`` trip update and record its copy (see the module docstring)."""
    copy = _duplicated_trip(model, td, tu, look, days)
    if isinstance(copy, str):
        out.problem("invalid", name, copy)
        return
    out.added[(copy.trip_id, copy.service_day)] = copy
    out.applied += 1
    out.count("duplicated")


def trip_updates(
    model: TransitModel, message: Any, feed_id: str | None, time_zone: str
) -> TripUpdateResult:
    """The trips a parsed feed updates, and what happened to each of its entities.

    Parameters
    ----------
    model
        The network's transit model.
    message
        A GTFS-RT ``FeedMessage`` (:func:`parse_feed`).
    feed_id
        The feed the trip ids refer to; ``None`` for a network with a single feed.
    time_zone
        The network's time zone (the default service date of an update without
        ``start_date``).

    Returns
    -------
    TripUpdateResult

    Raises
    ------
    FeedError
        ``feed_id`` matches no feed of the network.
    """
    feed = feed_index(model, feed_id)
    look = _lookup(model, feed)
    stamp = int(message.header.timestamp) if message.header.HasField("timestamp") else None
    now = dt.datetime.now(dt.UTC) if stamp is None else dt.datetime.fromtimestamp(stamp, dt.UTC)
    today = now.astimezone(ZoneInfo(time_zone)).date()
    out = TripUpdateResult()
    tdr = gtfs_realtime_pb2.TripDescriptor
    days = _Days(model, look, time_zone)

    for entity in message.entity:
        if not entity.HasField("trip_update"):
            continue
        out.count("trip_updates")
        tu = entity.trip_update
        name = f"entity {entity.id!r}"
        td = tu.trip
        rel = td.schedule_relationship if td.HasField("schedule_relationship") else tdr.SCHEDULED
        if rel in (tdr.ADDED, tdr.NEW):  # NEW: GTFS-RT's later name for ADDED
            _handle_added(out, name, td, tu, look, days)
            continue
        if rel == tdr.DUPLICATED:
            _handle_duplicated(out, name, model, td, tu, look, days)
            continue
        if rel not in (tdr.SCHEDULED, tdr.CANCELED):
            out.problem(
                "unmatched",
                name,
                f"unsupported: schedule relationship {tdr.ScheduleRelationship.Name(rel)}",
            )
            continue
        if not td.trip_id:
            out.problem("unmatched", name, "no trip id: the trip descriptor has no trip_id")
            continue
        trip = look.trip_of.get(td.trip_id)
        if trip is None:
            out.problem(
                "unmatched", name, f"unknown trip: {td.trip_id!r} is not a trip of the feed"
            )
            continue
        date = today
        if td.start_date:
            parsed = _service_date(td.start_date)
            if parsed is None:
                out.problem("invalid", name, f"invalid start date: {td.start_date!r}")
                continue
            date = parsed
        if not days.runs(trip, date):
            out.problem(
                "unmatched",
                name,
                f"not running: trip {td.trip_id!r} does not run on {date.isoformat()}",
            )
            continue
        if rel == tdr.CANCELED:
            out.trips[(trip, date.toordinal())] = _canceled(trip, date)
            out.applied += 1
            out.count("canceled")
            continue
        result = _apply_trip(model, trip, date, tu, look, days.start(trip, date))
        if isinstance(result, str):
            out.problem("invalid", name, result)
            continue
        out.trips[(trip, date.toordinal())] = result
        out.applied += 1
        out.count("updated")
        if result.skipped.any():
            out.count("skipped_stops")
    return out
