"""The trip planner: :func:`plan` turns a :class:`PlanRequest` into a :class:`TripPlan`.

One request runs, in order: resolve the places; plan the direct street trip;
find transit journeys with McRAPTOR (generalized cost as OTP 1.x weighs it:
reluctances, board costs, penalties, waiting); assemble itineraries (street
geometry and walk steps by the same street search that computed access
times); apply OTP 1.x's filters and sort order.  Travel times therefore agree
with the analysis functions, which use the same street search and RAPTOR.
"""

from __future__ import annotations

import datetime as dt
import itertools
import time
from dataclasses import replace
from zoneinfo import ZoneInfo

import numpy as np

from otpa.network import TransportNetwork
from otpa.realtime import TimetableSnapshot, current_snapshot
from otpa.routing._access import walk_limit, walk_overage_cost
from otpa.routing._alerts import with_alerts
from otpa.routing._flag_stops import direct_flag_legs
from otpa.routing._flex import direct_flex_legs, flex_enabled
from otpa.routing._itinerary import filter_and_sort, make_itinerary
from otpa.routing._legs import street_leg
from otpa.routing._mobility_plan import mobility_itineraries, rental_info, uses_mobility
from otpa.routing._onboard import OnBoardStart, onboard_start
from otpa.routing._transit_plan import search_timetable
from otpa.routing.deadline import check_deadline, deadline_passed
from otpa.routing.engine import (
    Endpoint,
    StreetEnd,
    TransitSearch,
    path_geometry,
    resolve_location,
    street_end,
    street_options,
    transit_itineraries,
)
from otpa.routing.errors import (
    InvalidRequestError,
    NoTransitTimesError,
    OutsideBoundsError,
    PathNotFoundError,
    TrivialPathError,
)
from otpa.routing.model import DebugOutput, ElevationMetadata, Itinerary, Place, TripPlan
from otpa.routing.request import PlanRequest
from otpa.routing.street_router import StreetOptions, street_path
from otpa.util.cache import OwnerCache
from otpa.util.geo import haversine_m

__all__ = ["plan"]

#: Origin and destination closer than this are a trivial trip (OTP TOO_CLOSE).
TRIVIAL_DISTANCE_M = 1.0


def _localize(when: dt.datetime, tz: ZoneInfo) -> dt.datetime:
    return when.replace(tzinfo=tz) if when.tzinfo is None else when.astimezone(tz)


def _resolve(
    network: TransportNetwork, request: PlanRequest, onboard: OnBoardStart | None
) -> tuple[Endpoint, Endpoint]:
    missing: list[str] = []
    ends: list[Endpoint | None] = []
    for role, loc, default in (
        ("from", request.from_place, "Origin"),
        ("to", request.to_place, "Destination"),
    ):
        if role == "from" and onboard is not None:
            # on board a trip: the origin is the vehicle's position (a point given is on it)
            orig = loc.name if loc is not None else ""
            ends.append(Endpoint(onboard.lat, onboard.lon, orig or default, orig))
            continue
        if loc is None:
            missing.append(role)
            ends.append(None)
            continue
        try:
            ends.append(resolve_location(network, loc, role, default))
        except OutsideBoundsError:
            missing.append(role)
            ends.append(None)
    if missing:
        msg = f"cannot route: {' and '.join(missing)} place missing or outside the network"
        raise OutsideBoundsError(msg, missing=tuple(missing))
    origin, destination = ends
    assert origin is not None
    assert destination is not None
    return origin, destination


#: The transit service range of a (frozen) transit model, per time zone.
_SERVICE_RANGE: OwnerCache[str, tuple[int, int] | None] = OwnerCache()


def _service_range(network: TransportNetwork) -> tuple[int, int] | None:
    """``network.transit_service_range``, computed once per transit model and time zone."""
    return _SERVICE_RANGE.get_or_build(
        network.transit, network.time_zone, lambda: network.transit_service_range
    )


#: Latitudes further apart than this (degrees, 111 m) are farther than
#: :data:`TRIVIAL_DISTANCE_M` apart whatever the longitudes.
_FAR_LATITUDES_DEG = 1e-3


def _within_trivial_distance(a: Endpoint, b: Endpoint) -> bool:
    """Whether two places are closer than :data:`TRIVIAL_DISTANCE_M` (great circle)."""
    if abs(a.lat - b.lat) > _FAR_LATITUDES_DEG:
        return False  # (the great-circle distance is at least the meridian arc between them)
    return bool(float(haversine_m(a.lat, a.lon, b.lat, b.lon)) < TRIVIAL_DISTANCE_M)


def _check_service_period(network: TransportNetwork, when: dt.datetime) -> None:
    span = _service_range(network)
    t = when.timestamp()
    if span is None or not (span[0] <= t < span[1]):
        msg = f"no transit service on {when.date().isoformat()} (outside the feeds' service period)"
        raise NoTransitTimesError(msg)


def _direct(
    network: TransportNetwork,
    request: PlanRequest,
    origin: StreetEnd,
    destination: StreetEnd,
    options: StreetOptions,
    when: dt.datetime,
    max_cost: float | None,
) -> Itinerary | None:
    """The street-only itinerary in ``options.mode``, or None.

    None too when its generalized cost exceeds ``max_cost`` (the best transit
    itinerary's): the search is bounded by it and no geometry is built.
    """
    if network.street is None or origin.where is None or destination.where is None:
        return None
    bound = np.inf if max_cost is None else max_cost
    path = street_path(network, origin.where, destination.where, options, max_cost_s=bound)
    # the soft walk limit: walking (or cycling) beyond maxWalkDistance costs extra (OTP 1.x)
    limit = walk_limit(request) if options.mode != "CAR" else None
    cost = path.cost + float(walk_overage_cost(path.distance_m, limit)) if path else 0.0
    if path is None or cost > bound:
        return None
    o, d = origin.endpoint, destination.endpoint
    geom = path_geometry(network, path)
    duration = dt.timedelta(seconds=round(path.duration_s))
    start, end = (when - duration, when) if request.arrive_by else (when, when + duration)
    leg = street_leg(
        options.mode,
        start,
        end,
        Place(name=o.name, lon=o.lon, lat=o.lat, orig=o.orig, departure=start),
        Place(name=d.name, lon=d.lon, lat=d.lat, orig=d.orig, arrival=end),
        geom,
    )
    return make_itinerary(
        network, [leg], request=request, too_sloped=path.too_sloped, generalized_cost=cost
    )


def _plan_pair(
    network: TransportNetwork,
    request: PlanRequest,
    origin: Endpoint,
    destination: Endpoint,
    when: dt.datetime,
    tz: ZoneInfo,
    onboard: OnBoardStart | None = None,
    realtime: TimetableSnapshot | None = None,
    notices: list[str] | None = None,
) -> list[Itinerary]:
    check_deadline("the access search")  # a deadline of otpa.routing.deadline
    if onboard is None and uses_mobility(request):
        # renting, parking, hailing or being dropped off on the way (_mobility_plan)
        found = mobility_itineraries(
            network, request, origin, destination, when, tz, realtime, notices
        )
        if found is not None:
            return found[: max(request.itineraries.num_itineraries, 1)]
    modes = request.modes
    mode = modes.access_mode
    options = street_options(request, mode)
    o_end = StreetEnd(origin, None) if onboard else street_end(network, origin, mode, "from")
    d_end = street_end(network, destination, mode, "to")
    itineraries: list[Itinerary] = []
    if modes.transit:
        search = TransitSearch(network, request, when, o_end, d_end, options, tz, onboard, realtime)
        itineraries = transit_itineraries(search)
        if onboard is None and flex_enabled(network, request):  # flex rides door to door
            for leg in direct_flex_legs(network, request, when, origin, destination, tz):
                # its cost: the time from the requested time to the end of the ride
                cost = abs((leg.start_time if request.arrive_by else leg.end_time) - when)
                direct_flex = make_itinerary(
                    network, [leg], request=request, generalized_cost=cost.total_seconds()
                )
                itineraries.append(direct_flex)
            itineraries += _direct_flag_itineraries(
                network, request, when, origin, destination, tz, realtime
            )
            itineraries.sort(key=lambda it: it.generalized_cost or 0.0)
    if itineraries and deadline_passed():  # past the plan's deadline: what was found
        return itineraries[: max(request.itineraries.num_itineraries, 1)]
    if onboard is None and mode in modes.street and not request.transit.only_transit_trips:
        check_deadline("the street-only search")
        # kept only when it is at least as good as the best transit itinerary
        best_transit = min((it.generalized_cost or 0.0 for it in itineraries), default=None)
        direct = _direct(network, request, o_end, d_end, options, when, best_transit)
        if direct is not None:
            itineraries.insert(0, direct)
    # as OTP 1.x's searches, the street-only itinerary is one of the numItineraries found:
    # the list is in the searches' order (best generalized cost first), so the answer for
    # numItineraries=1 is the best itinerary of the answer for more
    return itineraries[: max(request.itineraries.num_itineraries, 1)]


def _direct_flag_itineraries(
    network: TransportNetwork,
    request: PlanRequest,
    when: dt.datetime,
    origin: Endpoint,
    destination: Endpoint,
    tz: ZoneInfo,
    realtime: TimetableSnapshot | None,
) -> list[Itinerary]:
    """Short flag stop rides (within one or two segments): RAPTOR has no ride for them."""
    if request.flex.flag_stop_buffer_size <= 0:
        return []
    timetable = search_timetable(network, realtime, when.astimezone(tz).date(), tz.key)
    out = []
    for legs in direct_flag_legs(
        network, request, timetable, origin, destination, when.timestamp(), tz
    ):
        # its cost: the time from the requested time to the end of the trip
        cost = abs((legs[0].start_time if request.arrive_by else legs[-1].end_time) - when)
        out.append(
            make_itinerary(network, legs, request=request, generalized_cost=cost.total_seconds())
        )
    return out


def _chain(parts: list[Itinerary], network: TransportNetwork, request: PlanRequest) -> Itinerary:
    legs = [leg for it in parts for leg in it.legs]
    return make_itinerary(
        network, legs, request=request, too_sloped=any(it.too_sloped for it in parts)
    )


def plan(network: TransportNetwork, request: PlanRequest) -> TripPlan:
    """Plan a trip.

    Parameters
    ----------
    network
        The transport network.
    request
        What to plan.  A naive ``date_time`` is read in the network's time zone.

    Returns
    -------
    TripPlan
        The itineraries, sorted as OTP 1.x sorts them.

    Raises
    ------
    OutsideBoundsError
        Origin or destination missing or not in the network.
    TrivialPathError
        Origin and destination are the same place.
    NoTransitTimesError
        Transit requested outside the service period.
    PathNotFoundError
        No itinerary satisfies the request.
    NoPathsAfterFilteringError
        Itineraries were found, but the filters removed them all.
    InvalidRequestError
        ``start_transit_trip_id`` names no trip (or no transit mode is allowed).
    """
    t0 = time.perf_counter()
    tz = ZoneInfo(network.time_zone)
    when = _localize(request.date_time, tz)
    onboard = None
    # the real-time snapshot is taken once: the whole plan searches the same timetable
    snapshot = current_snapshot(network)  # its alerts show even with ignoreRealtimeUpdates
    realtime = None if request.itineraries.ignore_realtime_updates else snapshot
    if request.start_transit_trip_id is not None:
        if not request.modes.transit:
            msg = "startTransitTripId (depart on board) needs a transit mode"
            raise InvalidRequestError(msg, parameter="startTransitTripId")
        _check_service_period(network, when)
        onboard = onboard_start(network, request, when, tz, realtime)
    origin, destination = _resolve(network, request, onboard)
    if (origin.stop is not None and origin.stop == destination.stop) or _within_trivial_distance(
        origin, destination
    ):
        msg = "origin and destination are the same place"
        raise TrivialPathError(msg)
    if request.modes.transit:
        _check_service_period(network, when)
    t1 = time.perf_counter()
    vias = [resolve_location(network, v, "to", "Via") for v in request.intermediate_places]
    notices: list[str] = []  # what the plan leaves out and why (a failed ride-hail provider)
    if vias:
        stops = [origin, *vias, destination]
        single = replace(request, itineraries=replace(request.itineraries, num_itineraries=1))
        pairs = list(itertools.pairwise(stops))
        if request.arrive_by:
            pairs.reverse()
        parts: list[Itinerary] = []
        t = when
        for a, b in pairs:
            first = a is origin and not request.arrive_by
            found = _plan_pair(
                network, single, a, b, t, tz, onboard if first else None, realtime, notices
            )
            if not found:
                parts = []
                break
            best = filter_and_sort(found, single, t)[0]
            parts.append(best)
            t = best.start_time if request.arrive_by else best.end_time
        if request.arrive_by:
            parts.reverse()
        itineraries = [_chain(parts, network, request)] if parts else []
    else:
        itineraries = _plan_pair(
            network, request, origin, destination, when, tz, onboard, realtime, notices
        )
    t2 = time.perf_counter()
    if not itineraries:
        msg = "no itinerary found for this request"
        raise PathNotFoundError(msg)
    itineraries = filter_and_sort(itineraries, request, when)
    itineraries = with_alerts(network, itineraries, snapshot, request)
    t3 = time.perf_counter()
    elev = network.meta.get("elevation") or {}
    return TripPlan(
        date=when,
        from_place=Place(name=origin.name, lon=origin.lon, lat=origin.lat, orig=origin.orig),
        to_place=Place(
            name=destination.name, lon=destination.lon, lat=destination.lat, orig=destination.orig
        ),
        itineraries=tuple(itineraries),
        debug_output=DebugOutput(
            precalculation_time=round((t1 - t0) * 1000),
            path_calculation_time=round((t2 - t1) * 1000),
            path_times=(round((t2 - t1) * 1000),),
            rendering_time=round((t3 - t2) * 1000),
            total_time=round((t3 - t0) * 1000),
        ),
        elevation_metadata=ElevationMetadata(
            ellipsoid_to_geoid_difference=float(elev.get("ellipsoid_to_geoid_difference", 0.0)),
            geoid_elevation=request.itineraries.geoid_elevation,
        ),
        realtime_snapshot=None if realtime is None else realtime.version,
        rental_info=rental_info(network, request),
        notices=tuple(notices),
    )
