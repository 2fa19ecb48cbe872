"""Translate a plan request into RAPTOR filter arrays (request -> raptor, one direction).

RAPTOR knows only array indices; this module turns the request's modes,
bans, whitelists, preferences and wheelchair needs into per-route, per-trip
and per-stop masks over a :class:`~otpa.transit.raptor.spi.RaptorTimetable`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from otpa.routing._tables import columns
from otpa.routing.preferences import AccessibilityPreferences, WheelchairPreferences
from otpa.routing.request import PlanRequest, RouteSpec
from otpa.transit.model import TransitModel
from otpa.transit.raptor.spi import RaptorTimetable
from otpa.types import BoolArray, FloatArray, IntArray, UInt8Array
from otpa.util.cache import OwnerCache

__all__ = [
    "RaptorFilters",
    "raptor_filters",
    "route_spec_mask",
    "stop_accessibility",
    "trip_accessibility",
]


@dataclass(frozen=True, eq=False)
class RaptorFilters:
    """Masks and penalties over one timetable (``None`` = no restriction)."""

    route_allowed: UInt8Array | None
    trip_allowed: UInt8Array | None
    stop_board_allowed: UInt8Array | None
    stop_alight_allowed: UInt8Array | None
    stop_pass_allowed: UInt8Array | None
    trip_stop_bans: IntArray | None
    route_penalty: FloatArray | None
    trip_board_cost: FloatArray | None = None
    stop_cost: FloatArray | None = None


def _norm(name: object) -> str:
    return str(name).replace("_", " ").strip() if isinstance(name, str) else ""


def _agency_matches(model: TransitModel, agency_ids: frozenset[str]) -> BoolArray:
    """Per model route: its agency is in ``agency_ids`` (raw or feed-scoped ids)."""
    routes = model.routes
    scoped = routes["agency_id"].astype(str).to_numpy()
    raw = np.array([s.split(":", 1)[1] if ":" in s else s for s in scoped], dtype=object)
    ids = np.array(sorted(agency_ids), dtype=object)
    return np.isin(scoped, ids) | np.isin(raw, ids)


def route_spec_mask(model: TransitModel, specs: tuple[RouteSpec, ...]) -> BoolArray:
    """Per model route: matched by any of the OTP 1.x route specs."""
    routes = model.routes
    n = len(routes)
    out = np.zeros(n, dtype=bool)
    if not specs:
        return out
    scoped_agency = routes["agency_id"].astype(str).to_numpy()
    raw_agency = np.array([s.split(":", 1)[1] if ":" in s else s for s in scoped_agency])
    route_id = routes["route_id"].astype(str).to_numpy()
    raw_route = routes["raw_id"].astype(str).to_numpy()
    short = routes["short_name"].to_numpy()
    long_ = routes["long_name"].to_numpy()
    names = np.array(
        [
            _norm(s) if isinstance(s, str) and s else _norm(lg)
            for s, lg in zip(short, long_, strict=True)
        ]
    )
    feed = np.array([s.split(":", 1)[0] for s in route_id])
    for spec in specs:
        m = np.ones(n, dtype=bool)
        if spec.agency:
            # OTP 1.x route specs name the agency, or (FeedScopedId era) the feed
            m &= (
                (raw_agency == spec.agency) | (scoped_agency == spec.agency) | (feed == spec.agency)
            )
        if spec.route_id:
            m &= (raw_route == spec.route_id) | (route_id == spec.route_id)
        if spec.name:
            m &= names == _norm(spec.name)
        out |= m
    return out


def _stop_mask(model: TransitModel, stop_ids: frozenset[str]) -> BoolArray:
    """Per stop: listed, or a child of a listed parent station."""
    stops = model.stops
    sid = stops["stop_id"].astype(str).to_numpy()
    ids = np.array(sorted(stop_ids), dtype=object)
    hit = np.isin(sid, ids)
    parent = stops["parent_index"].to_numpy(np.int64)
    has_parent = parent >= 0
    hit[has_parent] |= hit[parent[has_parent]]
    return hit


def _route_of_timetable(model: TransitModel, timetable: RaptorTimetable) -> IntArray:
    """Model route of each timetable route (a real-time snapshot's own patterns: their route)."""
    pattern_route = np.asarray(model.pattern_route, dtype=np.int64)
    pattern = np.asarray(timetable.route_pattern, dtype=np.int64)
    own = pattern < pattern_route.size
    if own.all():
        return pattern_route[pattern]
    out: IntArray = np.asarray(timetable.route_gtfs_route, dtype=np.int64).copy()
    out[own] = pattern_route[pattern[own]]
    return out


def _per_trip(values: FloatArray, trip_ref: IntArray, fill: float) -> FloatArray:
    """``values`` (per model trip) at ``trip_ref``; ``fill`` for trips a real-time feed added."""
    if trip_ref.size == 0 or int(trip_ref.max()) < values.size:
        return values[trip_ref]
    out: FloatArray = np.full(trip_ref.size, fill, dtype=np.float64)
    own = trip_ref < values.size
    out[own] = values[trip_ref[own]]
    return out


def stop_accessibility(model: TransitModel) -> IntArray:
    """Per stop: GTFS ``wheelchair_boarding`` (0 unknown, 1 accessible, 2 not).

    A stop without information (0) takes its parent station's value.
    """
    wb = pd.to_numeric(model.stops["wheelchair_boarding"], errors="coerce").fillna(0)
    own: IntArray = np.asarray(wb.to_numpy(np.int64), dtype=np.int64)
    parent = model.stops["parent_index"].to_numpy(np.int64)
    out = own.copy()
    inherit = (own == 0) & (parent >= 0)
    out[inherit] = own[parent[inherit]]
    return out


def trip_accessibility(model: TransitModel) -> IntArray:
    """Per model trip: GTFS ``wheelchair_accessible`` (0 unknown, 1 accessible, 2 not)."""
    return np.asarray(model.trips["wheelchair_accessible"].to_numpy(np.int64))


def _accessibility_cost(values: IntArray, prefs: AccessibilityPreferences) -> FloatArray:
    """Extra cost of each entity: 0 accessible, ``unknown_cost``, ``inaccessible_cost``."""
    return np.where(
        values == 1, 0.0, np.where(values == 2, prefs.inaccessible_cost, prefs.unknown_cost)
    )


#: Per transit model: which routes run one of a set of transit modes.
_MODE_MASKS: OwnerCache[tuple[str, ...], BoolArray] = OwnerCache(max_entries=64)


def _mode_mask(model: TransitModel, modes: frozenset[str]) -> BoolArray:
    """Per model route: its mode is one of ``modes`` (read-only, once per model and set)."""
    key = tuple(sorted(modes))

    def build() -> BoolArray:
        out: BoolArray = np.isin(columns(model, "routes")["mode"], list(key))
        out.flags.writeable = False
        return out

    return _MODE_MASKS.get_or_build(model, key, build)


def _route_masks(
    model: TransitModel, timetable: RaptorTimetable, request: PlanRequest
) -> tuple[UInt8Array | None, FloatArray | None]:
    f = request.filters
    n_model_routes = len(model.routes)
    allowed = _mode_mask(model, request.modes.transit_modes).copy()
    if f.banned_routes:
        allowed &= ~route_spec_mask(model, f.banned_routes)
    if f.banned_agencies:
        allowed &= ~_agency_matches(model, f.banned_agencies)
    if f.whitelisted_routes or f.whitelisted_agencies:
        white = route_spec_mask(model, f.whitelisted_routes)
        if f.whitelisted_agencies:
            white |= _agency_matches(model, f.whitelisted_agencies)
        allowed &= white
    route_allowed = (
        None if allowed.all() else allowed[_route_of_timetable(model, timetable)].astype(np.uint8)
    )
    if not (
        f.preferred_routes or f.preferred_agencies or f.unpreferred_routes or f.unpreferred_agencies
    ):
        return route_allowed, None  # no route penalised
    penalty = np.zeros(n_model_routes)
    tp = request.transit
    if f.preferred_routes or f.preferred_agencies:
        pref = route_spec_mask(model, f.preferred_routes)
        if f.preferred_agencies:
            pref |= _agency_matches(model, f.preferred_agencies)
        penalty[~pref] += max(tp.other_than_preferred_routes_penalty, 0.0)
    if f.unpreferred_routes or f.unpreferred_agencies:
        unpref = route_spec_mask(model, f.unpreferred_routes)
        if f.unpreferred_agencies:
            unpref |= _agency_matches(model, f.unpreferred_agencies)
        penalty[unpref] += tp.unpreferred_routes_penalty
    return route_allowed, (
        penalty[_route_of_timetable(model, timetable)] if penalty.any() else None
    )


def _trip_masks(
    model: TransitModel,
    timetable: RaptorTimetable,
    request: PlanRequest,
    added_ids: Mapping[str, int] | None = None,
) -> tuple[UInt8Array | None, IntArray | None]:
    f = request.filters
    wheel = request.wheelchair
    if not f.banned_trips and not (wheel.enabled and wheel.trip.only_consider_accessible):
        return None, None  # every trip allowed, no stop of one banned
    trip_ref = np.asarray(timetable.route_trip_ref, dtype=np.int64)
    n_trips = max(len(model.trips), int(trip_ref.max(initial=-1)) + 1)
    trip_ok = np.ones(n_trips, dtype=bool)
    bans: list[int] = []
    if f.banned_trips:
        ids = model.trips["trip_id"].astype(str).to_numpy()
        template = model.trips["template_trip_id"].astype(str).to_numpy()
        for trip_id, positions in f.banned_trips.items():
            hits = np.zeros(n_trips, dtype=bool)
            hits[: len(ids)] = (ids == trip_id) | (template == trip_id)
            if added_ids and trip_id in added_ids and added_ids[trip_id] < n_trips:
                hits[added_ids[trip_id]] = True  # a trip a real-time feed added
            if not positions:
                trip_ok[hits] = False
                continue
            for t_idx in np.flatnonzero(hits[trip_ref]):
                bans.extend(int(t_idx) * 65536 + int(p) for p in positions)
    if wheel.enabled and wheel.trip.only_consider_accessible:
        trip_ok[: len(model.trips)] &= trip_accessibility(model) == 1
        trip_ok[len(model.trips) :] = False  # added trips: accessibility unknown
    trip_allowed = None if trip_ok.all() else trip_ok[trip_ref].astype(np.uint8)
    return trip_allowed, (np.array(sorted(bans), dtype=np.int64) if bans else None)


def _wheelchair_costs(
    model: TransitModel, timetable: RaptorTimetable, wheel: WheelchairPreferences
) -> tuple[FloatArray | None, FloatArray | None]:
    """Per route-trip boarding costs and per stop costs of a wheelchair request (OTP 2)."""
    if not wheel.enabled:
        return None, None
    trip_cost = None
    if not wheel.trip.only_consider_accessible:
        per_trip = _accessibility_cost(trip_accessibility(model), wheel.trip)
        trip_ref = np.asarray(timetable.route_trip_ref, dtype=np.int64)
        costs = _per_trip(per_trip, trip_ref, wheel.trip.unknown_cost)  # added: unknown
        trip_cost = costs if costs.any() else None
    stop_cost = None
    if not wheel.stop.only_consider_accessible:
        per_stop = _accessibility_cost(stop_accessibility(model), wheel.stop)
        stop_cost = per_stop if per_stop.any() else None
    return trip_cost, stop_cost


def raptor_filters(
    model: TransitModel,
    timetable: RaptorTimetable,
    request: PlanRequest,
    added_ids: Mapping[str, int] | None = None,
) -> RaptorFilters:
    """Build the RAPTOR masks of a request over a timetable.

    ``added_ids``: the feed-scoped ids of trips a real-time snapshot adds to the
    timetable (trip indices past the model's), which ``bannedTrips`` may name.
    """
    f = request.filters
    route_allowed, route_penalty = _route_masks(model, timetable, request)
    trip_allowed, trip_stop_bans = _trip_masks(model, timetable, request, added_ids)
    wheel = request.wheelchair
    trip_cost, stop_cost = _wheelchair_costs(model, timetable, wheel)
    stop_only = wheel.enabled and wheel.stop.only_consider_accessible
    if not f.banned_stops and not f.banned_stops_hard and not stop_only:
        return RaptorFilters(  # every stop open to boarding, alighting and passing
            route_allowed=route_allowed,
            trip_allowed=trip_allowed,
            stop_board_allowed=None,
            stop_alight_allowed=None,
            stop_pass_allowed=None,
            trip_stop_bans=trip_stop_bans,
            route_penalty=route_penalty,
            trip_board_cost=trip_cost,
            stop_cost=stop_cost,
        )
    n_stops = len(model.stops)
    board = np.ones(n_stops, dtype=bool)
    if f.banned_stops:
        board &= ~_stop_mask(model, f.banned_stops)
    pass_ok = np.ones(n_stops, dtype=bool)
    if f.banned_stops_hard:
        pass_ok &= ~_stop_mask(model, f.banned_stops_hard)
        board &= pass_ok
    if stop_only:
        board &= stop_accessibility(model) == 1
    board_u8 = None if board.all() else board.astype(np.uint8)
    return RaptorFilters(
        route_allowed=route_allowed,
        trip_allowed=trip_allowed,
        stop_board_allowed=board_u8,
        stop_alight_allowed=board_u8,
        stop_pass_allowed=None if pass_ok.all() else pass_ok.astype(np.uint8),
        trip_stop_bans=trip_stop_bans,
        route_penalty=route_penalty,
        trip_board_cost=trip_cost,
        stop_cost=stop_cost,
    )
