"""Apply :class:`AddRoute`: new stops, route, service and a regular timetable."""

from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np
import pandas as pd

from otpa.analysis.scenario._apply_timetable import round_half_up
from otpa.analysis.scenario._draft import Draft, PatternBlock, append_rows
from otpa.analysis.scenario._linking import link_new_stops
from otpa.analysis.scenario._new_ids import AddedIds, added_route_ids
from otpa.analysis.scenario.modifications import AddRoute, NewStop
from otpa.analysis.scenario.validate import WEEKDAYS, format_time
from otpa.gtfs.frequencies import departures
from otpa.types import BoolArray, FloatArray, IntArray
from otpa.util.geo import haversine_m

__all__ = ["ROUTE_TYPES", "add_route", "hop_times_s"]

#: GTFS route type of each OTP transit mode (basic types where there is one).
ROUTE_TYPES = {
    "TRAM": 0,
    "SUBWAY": 1,
    "RAIL": 2,
    "BUS": 3,
    "FERRY": 4,
    "CABLE_CAR": 5,
    "GONDOLA": 6,
    "FUNICULAR": 7,
    "AIRPLANE": 1100,
}


def hop_times_s(lat: FloatArray, lon: FloatArray, speed_kmh: float) -> IntArray:
    """Running time of each hop: straight-line distance at ``speed_kmh``, whole seconds.

    ``floor(d / v + 1/2)`` with ``d`` the great-circle distance in metres and
    ``v = speed_kmh / 3.6`` in metres per second.
    """
    d = np.asarray(haversine_m(lat[:-1], lon[:-1], lat[1:], lon[1:]), dtype=np.float64)
    return round_half_up(d / (speed_kmh / 3.6))


def _only_columns(frame: pd.DataFrame, values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if k in frame.columns}


def _add_stops(draft: Draft, mod: AddRoute, ids: AddedIds) -> IntArray:
    """Stop index of each stop of the route, appending and linking the new ones."""
    new = [s for s in mod.stops if isinstance(s, NewStop)]
    n0 = len(draft.stops)
    if new:
        values = {
            "stop_id": list(ids.new_stop_ids),
            "feed": ids.feed,
            "raw_id": [i.split(":", 1)[1] for i in ids.new_stop_ids],
            "name": [s.name for s in new],
            "lat": [float(s.lat) for s in new],
            "lon": [float(s.lon) for s in new],
            "location_type": 0,
            "wheelchair_boarding": 0,
            "parent_index": -1,
        }
        stops = append_rows(draft.stops, len(new), _only_columns(draft.stops, values))
        draft.set_tables(stops=stops)
        link_new_stops(draft, np.arange(n0, n0 + len(new), dtype=np.int64))
    out, k = [], n0
    for spec in mod.stops:
        if isinstance(spec, NewStop):
            out.append(k)
            k += 1
        else:
            out.append(draft.stop_index(spec))
    return np.asarray(out, dtype=np.int64)


def _add_route_row(draft: Draft, mod: AddRoute, ids: AddedIds) -> int:
    agencies = draft.base.transit.agencies
    values = {
        "route_id": ids.route_id,
        "feed": ids.feed,
        "raw_id": ids.route_raw,
        "agency_id": str(agencies["agency_id"].iloc[ids.agency]),
        "short_name": mod.name,
        "long_name": mod.name,
        "route_type": ROUTE_TYPES[mod.mode],
        "mode": mod.mode,
        "agency_index": ids.agency,
    }
    draft.set_tables(routes=append_rows(draft.routes, 1, _only_columns(draft.routes, values)))
    return len(draft.routes) - 1


def _service_days(draft: Draft, days: str | tuple[str, ...]) -> BoolArray:
    first = draft.base.transit.service_first_day
    n_days = draft.service_active.shape[1]
    weekday = np.asarray([dt.date.fromordinal(first + d).weekday() for d in range(n_days)])
    if days == "all":
        return np.ones(n_days, dtype=bool)
    wanted = [WEEKDAYS.index(d) for d in days]
    out: BoolArray = np.isin(weekday, wanted)
    return out


def _add_service(draft: Draft, mod: AddRoute, ids: AddedIds) -> int:
    base, service_id, k = f"{ids.route_id}-service", f"{ids.route_id}-service", 1
    while service_id in draft.service_ids:
        k += 1
        service_id = f"{base}-{k}"
    draft.service_ids = [*draft.service_ids, service_id]
    draft.service_active = np.vstack([draft.service_active, _service_days(draft, mod.days)[None]])
    return len(draft.service_ids) - 1


def _offsets(hops: IntArray, dwell_s: int) -> tuple[IntArray, IntArray]:
    """Arrival and departure offsets from the first departure."""
    n = len(hops) + 1
    dwell = np.full(n, dwell_s, dtype=np.int64)
    dwell[0] = dwell[-1] = 0
    arr = np.zeros(n, dtype=np.int64)
    dep = np.zeros(n, dtype=np.int64)
    for j in range(1, n):
        arr[j] = dep[j - 1] + hops[j - 1]
        dep[j] = arr[j] + dwell[j]
    return arr, dep


def add_route(draft: Draft, mod: AddRoute) -> None:
    """Add the route, its new stops (linked to the streets), its service and trips."""
    ids = added_route_ids(draft, mod)
    stops = _add_stops(draft, mod, ids)
    route = _add_route_row(draft, mod, ids)
    service = _add_service(draft, mod, ids)
    if mod.hop_times_s is not None:
        hops = np.asarray(mod.hop_times_s, dtype=np.int64)
    else:
        lat = draft.stops["lat"].to_numpy(dtype=float)[stops]
        lon = draft.stops["lon"].to_numpy(dtype=float)[stops]
        hops = hop_times_s(lat, lon, float(mod.speed_kmh or 0.0))
    _, first = departures(
        np.asarray([mod.start_time]), np.asarray([mod.end_time]), np.asarray([mod.headway_s])
    )
    model = draft.base.transit
    tz = str(model.agencies["timezone"].iloc[ids.agency]) if len(model.agencies) else ""
    tz_index = model.timezones.index(tz) if tz in model.timezones else 0
    names = draft.stops["name"].astype(object).to_numpy()
    directions = [(0, stops, hops)]
    if mod.bidirectional:
        directions.append((1, stops[::-1], hops[::-1]))
    for direction, calls, hop in directions:
        arr_off, dep_off = _offsets(hop, mod.dwell_s)
        way = "back" if direction else "out"
        trip_ids = [f"{ids.route_id}-{way}@{format_time(int(t))}" for t in first]
        n_trips = len(trip_ids)
        values = {
            "trip_id": trip_ids,
            "feed": ids.feed,
            "raw_id": [t.split(":", 1)[1] for t in trip_ids],
            "route_id": ids.route_id,
            "service_id": draft.service_ids[service],
            "headsign": None if pd.isna(names[calls[-1]]) else str(names[calls[-1]]),
            "direction_id": direction,
            "frequency_headway_s": 0,
            "exact_times": 1,
            "route_index": route,
            "service_index": service,
            "tz_index": tz_index,
        }
        first_trip = len(draft.trips)
        trips = append_rows(draft.trips, n_trips, _only_columns(draft.trips, values))
        draft.set_tables(trips=trips)
        n_stops = len(calls)
        draft.blocks.append(
            PatternBlock(
                route=route,
                stops=np.asarray(calls, dtype=np.int32),
                pickup=np.zeros(n_stops, dtype=np.uint8),
                dropoff=np.zeros(n_stops, dtype=np.uint8),
                trips=np.arange(first_trip, first_trip + n_trips, dtype=np.int64),
                arrival=(first[:, None] + arr_off[None, :]).astype(np.int32),
                departure=(first[:, None] + dep_off[None, :]).astype(np.int32),
                sequence=np.tile(np.arange(1, n_stops + 1, dtype=np.int32), (n_trips, 1)),
            )
        )
