"""Itinerary totals, fares, the OTP 1.x post-filters and sort orders."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from otpa.network import TransportNetwork
from otpa.routing._fare_rules import fare_index
from otpa.routing.errors import NoPathsAfterFilteringError
from otpa.routing.fares import FareRide, compute_fare
from otpa.routing.model import Itinerary, Leg
from otpa.routing.request import PlanRequest

__all__ = ["filter_and_sort", "make_itinerary"]

_STREET = frozenset({"WALK", "BICYCLE", "CAR", "MICROMOBILITY"})


def _rides(legs: Sequence[Leg]) -> list[FareRide]:
    rides = []
    for i, leg in enumerate(legs):
        if not leg.transit_leg:
            continue
        stops = [leg.from_place.stop_id or ""]
        stops += [p.stop_id or "" for p in leg.intermediate_stops or ()]
        stops.append(leg.to_place.stop_id or "")
        agency = leg.route_id.split(":", 1)[0] + ":" + (leg.agency_id or "") if leg.route_id else ""
        rides.append(
            FareRide(
                leg_index=i,
                route_id=leg.route_id or "",
                agency_id=agency,
                trip_id=leg.trip_id or "",
                board_stop_id=leg.from_place.stop_id or "",
                alight_stop_id=leg.to_place.stop_id or "",
                stop_ids=tuple(stops),
                start_time=int(leg.start_time.timestamp()),
                end_time=int(leg.end_time.timestamp()),
            )
        )
    return rides


def _priced(network: TransportNetwork) -> bool:
    """Whether the network's transit model has fares (:func:`compute_fare` prices rides)."""
    return bool(fare_index(network.transit).feeds)


def make_itinerary(
    network: TransportNetwork,
    legs: Sequence[Leg],
    *,
    request: PlanRequest,
    too_sloped: bool = False,
    generalized_cost: float | None = None,
) -> Itinerary:
    """Totals of an itinerary from its legs (OTP 1.x definitions).

    A leg entered by staying seated (``interline_with_previous_leg``) is no boarding:
    ``transfers`` counts boardings less one, and the dwell on board between the two
    trips is transit time, not waiting.
    """
    start, end = legs[0].start_time, legs[-1].end_time
    # one pass over the legs (the sums in leg order, as separate sums would add them)
    walk_time = transit_time = rides = 0
    walk_distance: float = 0
    elevation_lost: float = 0
    elevation_gained: float = 0
    scores: list[float] = []
    prev: Leg | None = None
    for leg in legs:
        if leg.mode in _STREET:
            walk_time += round(leg.duration)
            walk_distance += leg.distance
        if leg.transit_leg:
            transit_time += round(leg.duration)
            if not leg.interline_with_previous_leg:
                rides += 1
        if leg.interline_with_previous_leg and prev is not None:
            transit_time += round((leg.start_time - prev.end_time).total_seconds())
        elevation_lost += leg.elevation_lost
        elevation_gained += leg.elevation_gained
        if leg.accessibility_score is not None:
            scores.append(leg.accessibility_score)
        prev = leg
    duration = round((end - start).total_seconds())
    limit = request.walk.max_distance_m
    # no fare data: no rides to price (compute_fare would find no fare for any)
    fare = compute_fare(network.transit, _rides(legs)) if rides and _priced(network) else None
    return Itinerary(
        legs=tuple(legs),
        start_time=start,
        end_time=end,
        walk_time=walk_time,
        transit_time=transit_time,
        waiting_time=max(duration - walk_time - transit_time, 0),
        walk_distance=round(walk_distance, 3),
        transfers=max(rides - 1, 0),
        walk_limit_exceeded=limit is not None and walk_distance > limit,
        elevation_lost=round(elevation_lost, 2),
        elevation_gained=round(elevation_gained, 2),
        too_sloped=too_sloped,
        fare=fare,
        generalized_cost=generalized_cost,
        # the least accessible leg (OTP 2's AccessibilityScoreFilter)
        accessibility_score=min(scores) if scores else None,
    )


def _transit_distance_share(it: Itinerary) -> float:
    total = sum(leg.distance for leg in it.legs)
    transit = sum(leg.distance for leg in it.legs if leg.transit_leg)
    return 100.0 * transit / total if total > 0 else 0.0


def filter_and_sort(
    itineraries: list[Itinerary], request: PlanRequest, requested: dt.datetime
) -> list[Itinerary]:
    """Apply OTP 1.x's post-filters and sort order; raise when everything was filtered."""
    if not itineraries:
        return []
    out = list(itineraries)
    street_only = [it for it in out if not any(leg.transit_leg for leg in it.legs)]
    if street_only:
        best_walk = min(it.walk_time for it in street_only)
        out = [
            it
            for it in out
            if not any(leg.transit_leg for leg in it.legs) or it.walk_time <= best_walk
        ]
    pct = request.itineraries.min_transit_distance_pct
    if pct is not None:
        out = [
            it
            for it in out
            if not any(leg.transit_leg for leg in it.legs) or _transit_distance_share(it) >= pct
        ]
    max_hours = request.itineraries.max_hours
    if max_hours is not None:
        limit = max_hours * 3600.0
        if request.itineraries.use_requested_date_time_in_max_hours:
            out = [
                it
                for it in out
                if (
                    (requested - it.start_time) if request.arrive_by else (it.end_time - requested)
                ).total_seconds()
                < limit
            ]
        else:
            out = [it for it in out if it.duration < limit]
    if not out:
        msg = "itineraries were found, but the request's filters removed all of them"
        raise NoPathsAfterFilteringError(msg)
    if request.itineraries.path_comparator == "duration":
        out.sort(key=lambda it: (it.duration, it.end_time))
    elif request.arrive_by:
        out.sort(key=lambda it: it.start_time, reverse=True)
    else:
        out.sort(key=lambda it: (it.end_time, it.duration))
    return out
