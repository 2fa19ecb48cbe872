"""GTFS block interlining: the trips a rider may stay seated through, per RAPTOR timetable.

OpenTripPlanner 1.x (``interline`` in its GTFS graph builder) groups the trips of a
block by ``(block_id, service_id)``, sorts them by their first departure and links
each trip to the next one of its group when the next leaves from within 200 m
(``maxInterlineDistance``) of the stop where the previous one ends.  When a trip
leaves its last stop after the next one reaches its first, the times of the block
are inconsistent and nothing more of it is linked (the links found before are kept).
Only scheduled trips belong to blocks: frequency-based trips are never interlined.

Here the groups are also split by service day, as a RAPTOR timetable holds the trips
of the day before, of and after the search date (:mod:`otpa.transit.raptor_data`).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np

from otpa.routing._tables import columns
from otpa.transit.model import TransitModel
from otpa.transit.raptor.spi import RaptorTimetable, StaySeated
from otpa.util.cache import OwnerCache
from otpa.util.geo import haversine_m

__all__ = ["MAX_INTERLINE_DISTANCE_M", "stay_seated"]

#: OTP 1.x ``maxInterlineDistance`` (build-config default): farthest "teleport" between
#: the last stop of a trip and the first stop of the next trip of its block.
MAX_INTERLINE_DISTANCE_M = 200.0
_CACHE: OwnerCache[str, StaySeated | None] = OwnerCache()


def _ends(tt: RaptorTimetable) -> dict[str, np.ndarray[Any, Any]]:
    """Per route-trip: route, first/last stop, first departure/arrival, last arrival/departure."""
    route = np.repeat(np.arange(tt.n_routes, dtype=np.int64), np.diff(tt.route_trip_offsets))
    ns = np.diff(tt.route_stop_offsets)[route]
    k = np.arange(tt.n_route_trips, dtype=np.int64) - np.asarray(tt.route_trip_offsets)[route]
    first = np.asarray(tt.route_time_offsets)[route] + k * ns
    last = first + ns - 1
    soff = np.asarray(tt.route_stop_offsets)[route]
    return {
        "route": route,
        "first_stop": np.asarray(tt.route_stops)[soff],
        "last_stop": np.asarray(tt.route_stops)[soff + ns - 1],
        "first_arr": np.asarray(tt.arrival, np.int64)[first],
        "first_dep": np.asarray(tt.departure, np.int64)[first],
        "last_dep": np.asarray(tt.departure, np.int64)[last],
    }


def _groups(model: TransitModel, tt: RaptorTimetable, route: np.ndarray[Any, Any]) -> list[Any]:
    """Route-trips of the same block, service and service day (scheduled trips only;
    trips a real-time feed added, past the model's, have no block)."""
    if model.n_trips == 0:
        return []
    trips = columns(model, "trips")
    ref = np.asarray(tt.route_trip_ref, np.int64)
    own = ref < model.n_trips
    ref = np.where(own, ref, 0)
    block = np.where(own, trips["block_id"][ref], None)
    template = trips["template_trip_id"][ref]
    feed, service = trips["feed"][ref], trips["service_index"][ref]
    day = np.asarray(tt.route_day)[route]
    groups: dict[tuple[Any, ...], list[int]] = defaultdict(list)
    for g in np.flatnonzero([b is not None and str(b) != "" for b in block]).tolist():
        if template[g] is None:
            groups[(feed[g], str(block[g]), service[g], int(day[g]))].append(g)
    return [v for v in groups.values() if len(v) > 1]


def _build(model: TransitModel, tt: RaptorTimetable) -> StaySeated | None:
    if "block_id" not in model.trips.columns or tt.n_route_trips == 0:
        return None
    e = _ends(tt)
    stops = columns(model, "stops")
    s_lat = np.asarray(stops["lat"], np.float64)
    s_lon = np.asarray(stops["lon"], np.float64)
    src: list[int] = []
    dst: list[int] = []
    for group in _groups(model, tt, e["route"]):
        g = np.asarray(group, np.int64)
        g = g[np.lexsort((g, e["first_dep"][g]))]  # by first departure (OTP's TripTimes order)
        for a, b in zip(g[:-1].tolist(), g[1:].tolist(), strict=True):
            if e["last_dep"][a] > e["first_arr"][b]:
                break  # OTP: times within the block are not increasing; skip the rest
            sa, sb = int(e["last_stop"][a]), int(e["first_stop"][b])
            far = float(haversine_m(s_lat[sa], s_lon[sa], s_lat[sb], s_lon[sb]))
            if far <= MAX_INTERLINE_DISTANCE_M:
                src.append(a)
                dst.append(b)
    if not src:
        return None
    return StaySeated(np.asarray(src, np.int32), np.asarray(dst, np.int32))


def stay_seated(model: TransitModel, timetable: RaptorTimetable) -> StaySeated | None:
    """The interlined route-trip pairs of ``timetable`` (None: none), cached per timetable.

    Parameters
    ----------
    model
        The transit model the timetable was built from (block ids, services).
    timetable
        A timetable of :func:`otpa.transit.raptor_data.raptor_timetable`.

    Returns
    -------
    StaySeated or None
        Pairs ``(from_trip, to_trip)`` of route-trip indices.
    """
    # cached on the timetable's arrays (a timetable is rebuilt per date and model)
    return _CACHE.get_or_build(timetable.arrival, "pairs", lambda: _build(model, timetable))
