"""Map a :class:`~otpa.transit.model.TransitModel` onto RAPTOR's input types.

RAPTOR (:mod:`otpa.transit.raptor`) knows nothing of the model; this module builds
its :class:`~otpa.transit.raptor.spi.RaptorTimetable` for one search date and its
:class:`~otpa.transit.raptor.spi.TransferRules` from ``transfers.txt``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np
import pandas as pd

from otpa.transit.model import TransitModel
from otpa.transit.raptor.spi import RaptorTimetable, TransferRules
from otpa.types import BoolArray, IntArray
from otpa.util.cache import OwnerCache

__all__ = ["raptor_timetable", "transfer_rules"]

#: Timetables kept per model (dates and time zones), least recently used dropped first.
_TIMETABLES: OwnerCache[tuple[dt.date, str], RaptorTimetable] = OwnerCache(max_entries=8)
_CONSISTENT: OwnerCache[str, BoolArray] = OwnerCache()


def _within(lengths: IntArray) -> IntArray:
    """``0 .. lengths[i] - 1`` for every block, concatenated."""
    out: IntArray = np.arange(int(lengths.sum()), dtype=np.int64) - np.repeat(
        np.cumsum(lengths) - lengths, lengths
    )
    return out


def _frozen(a: np.ndarray[Any, Any], dtype: Any) -> np.ndarray[Any, Any]:
    out = np.ascontiguousarray(a, dtype=dtype)
    out.flags.writeable = False
    return out


def _trip_column(model: TransitModel, name: str, default: int) -> IntArray:
    if name not in model.trips.columns:
        return np.full(model.n_trips, default, dtype=np.int64)
    out: IntArray = model.trips[name].to_numpy(dtype=np.int64, na_value=default)
    return out


def _consistent_slots(model: TransitModel) -> BoolArray:
    """Per pattern-trip slot: times never decrease along the trip.

    A trip that arrives somewhere before it left the previous stop cannot be
    ridden (RAPTOR would travel back in time); such trips are left out.
    """
    return _CONSISTENT.get_or_build(model, "slots", lambda: _build_consistent(model))


def _build_consistent(model: TransitModel) -> BoolArray:
    arr, dep = model.arrival_s, model.departure_s
    ns = np.diff(model.pattern_stop_offsets)
    slot_ns = np.repeat(ns, np.diff(model.pattern_trip_offsets))
    bad = dep < arr
    first = np.zeros(len(arr), dtype=bool)
    starts = np.cumsum(slot_ns) - slot_ns
    first[starts[slot_ns > 0]] = True
    back = np.r_[False, arr[1:] < dep[:-1]] & ~first
    ok: BoolArray = ~np.logical_or.reduceat(bad | back, starts) if len(starts) else np.ones(0, bool)
    if len(starts):
        ok[slot_ns == 0] = True
    return ok


def _build(model: TransitModel, date: dt.date, time_zone: str) -> RaptorTimetable:
    epoch = int(
        dt.datetime(date.year, date.month, date.day, tzinfo=ZoneInfo(time_zone)).timestamp()
    )
    n_pat = model.n_patterns
    trip_off = model.pattern_trip_offsets
    pt = model.pattern_trips.astype(np.int64)
    ns = np.diff(model.pattern_stop_offsets)
    slot_pattern = np.repeat(np.arange(n_pat, dtype=np.int64), np.diff(trip_off))
    service = _trip_column(model, "service_index", -1)
    tz_of_trip = _trip_column(model, "tz_index", 0)
    pattern_tz = tz_of_trip[pt[trip_off[:-1]]] if n_pat else np.zeros(0, np.int64)
    tzs = model.timezones or [time_zone]
    consistent = _consistent_slots(model)
    routes_p, routes_d, route_trips, slots, shifts = [], [], [], [], []
    for d in (-1, 0, 1):
        day = date + dt.timedelta(days=d)
        running = np.r_[model.services_on(day), False]  # index -1: no service
        active = running[service][pt] & consistent if len(pt) else np.zeros(0, bool)
        counts = np.bincount(slot_pattern[active], minlength=n_pat)
        keep = np.flatnonzero(counts)
        starts = np.asarray([model.service_day_start(day, tz) - epoch for tz in tzs], np.int64)
        routes_p.append(keep)
        route_trips.append(counts[keep])
        routes_d.append(np.full(len(keep), d, np.int64))
        slot = np.flatnonzero(active)
        slots.append(slot)
        shifts.append(starts[np.minimum(pattern_tz[slot_pattern[slot]], len(tzs) - 1)])
    route_pattern = np.concatenate(routes_p)
    slot = np.concatenate(slots)
    slot_p = slot_pattern[slot]
    slot_ns = ns[slot_p]
    src = np.repeat(
        model.pattern_time_offsets[slot_p] + (slot - trip_off[slot_p]) * slot_ns, slot_ns
    ) + _within(slot_ns)
    shift = np.repeat(np.concatenate(shifts), slot_ns)
    r_ns = ns[route_pattern]
    r_nt = np.concatenate(route_trips)
    stop_idx = np.repeat(model.pattern_stop_offsets[route_pattern], r_ns) + _within(r_ns)
    route_stops = model.pattern_stops[stop_idx]
    n_routes = len(route_pattern)
    route_of_pos = np.repeat(np.arange(n_routes, dtype=np.int32), r_ns)
    pos = _within(r_ns).astype(np.int32)
    order = np.lexsort((pos, route_of_pos, route_stops))
    counts = np.bincount(route_stops, minlength=model.n_stops)
    sizes = r_ns * r_nt
    return RaptorTimetable(
        n_stops=model.n_stops,
        route_stop_offsets=_frozen(np.r_[0, np.cumsum(r_ns)], np.int64),
        route_stops=_frozen(route_stops, np.int32),
        route_board=_frozen(model.pattern_pickup[stop_idx] != 1, np.uint8),
        route_alight=_frozen(model.pattern_dropoff[stop_idx] != 1, np.uint8),
        route_trip_offsets=_frozen(np.r_[0, np.cumsum(r_nt)], np.int64),
        route_trip_ref=_frozen(pt[slot], np.int32),
        route_time_offsets=_frozen(np.cumsum(sizes) - sizes, np.int64),
        arrival=_frozen(model.arrival_s[src] + shift, np.int32),
        departure=_frozen(model.departure_s[src] + shift, np.int32),
        route_pattern=_frozen(route_pattern, np.int32),
        route_day=_frozen(np.concatenate(routes_d), np.int32),
        stop_route_offsets=_frozen(np.r_[0, np.cumsum(counts)], np.int64),
        stop_routes=_frozen(route_of_pos[order], np.int32),
        stop_route_pos=_frozen(pos[order], np.int32),
        epoch=epoch,
        route_gtfs_route=_frozen(model.pattern_route[route_pattern], np.int32),
    )


def raptor_timetable(model: TransitModel, date: dt.date, time_zone: str) -> RaptorTimetable:
    """The RAPTOR timetable of one search date.

    Every trip pattern that has trips running on the service day before, of or after
    ``date`` becomes one route per such day, with only those trips (trips whose times
    go backwards along the trip are left out); times are shifted
    from service-day time (in the agency's time zone) to seconds since ``date`` 00:00
    in ``time_zone``.  Results are cached per model (the last few dates); their
    arrays are read-only.

    Parameters
    ----------
    model
        The transit model.
    date
        The search date.
    time_zone
        The network's time zone (defines the epoch).

    Returns
    -------
    RaptorTimetable
        The timetable; ``epoch`` is ``date`` 00:00 in ``time_zone`` as unix seconds.
    """
    return _TIMETABLES.get_or_build(
        model, (date, time_zone), lambda: _build(model, date, time_zone)
    )


def _rule_column(frame: pd.DataFrame, name: str, default: int) -> IntArray:
    if name not in frame.columns:
        return np.full(len(frame), default, dtype=np.int64)
    col = pd.to_numeric(frame[name], errors="coerce").fillna(default)
    out: IntArray = col.to_numpy(dtype=np.int64)
    return out


def _expand(
    stop: IntArray, child_off: IntArray, child: IntArray
) -> tuple[IntArray, IntArray, IntArray]:
    """Each stop, then each of its child stops: ``(row, stop, inherited)``."""
    if len(child) == 0:
        return np.arange(len(stop)), stop, np.zeros(len(stop), dtype=np.int64)
    n_children = child_off[stop + 1] - child_off[stop]
    rep = 1 + n_children
    row = np.repeat(np.arange(len(stop)), rep)
    within = _within(rep)
    first = within == 0
    picked = child[np.minimum(child_off[stop[row]] + within - 1, max(len(child) - 1, 0))]
    out = np.where(first, stop[row], picked if len(child) else stop[row])
    return row, out, (~first).astype(np.int64)


def transfer_rules(model: TransitModel) -> TransferRules:
    """transfers.txt rules as :class:`~otpa.transit.raptor.spi.TransferRules`.

    Rules naming a parent station also apply to its stops, at a lower priority than
    rules on the stops themselves (``level``), as in OpenTripPlanner 1.x.  A
    ``transfer_type`` outside 0-3 counts as 0 (recommended), like OTP 1.x.

    Parameters
    ----------
    model
        The transit model.

    Returns
    -------
    TransferRules
        Sorted rules; empty when the feeds have no transfers.txt.
    """
    n = model.n_stops
    frame = model.transfer_rules
    cols = {
        name: _rule_column(frame, name, -1)
        for name in ("from_stop", "to_stop", "from_route", "to_route", "from_trip", "to_trip")
    }
    kind = _rule_column(frame, "transfer_type", 0)
    kind = np.where((kind >= 0) & (kind <= 3), kind, 0)
    min_time = np.where(kind == 2, np.maximum(_rule_column(frame, "min_transfer_time", 0), 0), 0)
    valid = (cols["from_stop"] >= 0) & (cols["to_stop"] >= 0)
    cols = {k: v[valid] for k, v in cols.items()}
    kind, min_time = kind[valid], min_time[valid]
    if "parent_index" in model.stops.columns and n:
        parent = model.stops["parent_index"].to_numpy(dtype=np.int64, na_value=-1)
    else:
        parent = np.full(n, -1, dtype=np.int64)
    has_parent = np.flatnonzero(parent >= 0)
    child = has_parent[np.argsort(parent[has_parent], kind="stable")]
    child_off = np.r_[0, np.cumsum(np.bincount(parent[has_parent], minlength=n))].astype(np.int64)
    row_a, from_stop, lvl_a = _expand(cols["from_stop"], child_off, child)
    row_b, to_stop, lvl_b = _expand(cols["to_stop"][row_a], child_off, child)
    row = row_a[row_b]
    level = lvl_a[row_b] + 2 * lvl_b
    from_stop = from_stop[row_b]
    key = from_stop * n + to_stop

    def spec(trip: IntArray, route: IntArray) -> IntArray:
        out: IntArray = np.where(trip >= 0, 2, np.where(route >= 0, 1, 0))
        return out

    specificity = spec(cols["from_trip"], cols["from_route"]) + spec(
        cols["to_trip"], cols["to_route"]
    )
    order = np.lexsort((row, -specificity[row], level, key))
    r = row[order]
    return TransferRules(
        key=key[order],
        from_route=cols["from_route"][r].astype(np.int32),
        to_route=cols["to_route"][r].astype(np.int32),
        from_trip=cols["from_trip"][r].astype(np.int32),
        to_trip=cols["to_trip"][r].astype(np.int32),
        kind=kind[r].astype(np.uint8),
        min_time_s=min_time[r].astype(np.int32),
        level=level[order].astype(np.uint8),
        n_stops=n,
    )
