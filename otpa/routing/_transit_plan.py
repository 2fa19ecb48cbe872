"""Transit itineraries: access/egress, McRAPTOR search, several distinct journeys."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property
from zoneinfo import ZoneInfo

import numpy as np

from otpa.network import TransportNetwork
from otpa.realtime import TimetableSnapshot
from otpa.routing._access import (
    Access,
    StreetEnd,
    access_radius,
    find_access,
    leg_geometry,
    no_stop_near,
    transfer_geometry,
    walk_limit,
    walk_overage_cost,
)
from otpa.routing._flex import (
    FlexEnds,
    access_flex_legs,
    egress_flex_legs,
    flex_enabled,
    flex_ends,
    join_flex_legs,
)
from otpa.routing._interlining import stay_seated
from otpa.routing._itinerary import make_itinerary
from otpa.routing._legs import stop_coords, stop_place, street_leg, to_datetime, transit_leg
from otpa.routing._onboard import OnBoardStart
from otpa.routing._raptor_mapping import (
    RaptorFilters,
    raptor_filters,
    stop_accessibility,
    trip_accessibility,
)
from otpa.routing._transfers import transfer_costs, transfer_times
from otpa.routing.deadline import check_deadline, deadline_passed
from otpa.routing.model import Itinerary, Leg, Place
from otpa.routing.request import PlanRequest
from otpa.routing.street_router import StreetOptions
from otpa.transit.model import TransitModel
from otpa.transit.raptor.api import (
    AccessLeg,
    EgressLeg,
    OnBoard,
    RaptorJourney,
    RaptorRequest,
    TransferLeg,
    TransitLeg,
    route,
)
from otpa.transit.raptor.spi import RaptorTimetable, TransferRules
from otpa.transit.raptor_data import raptor_timetable, transfer_rules
from otpa.util.cache import OwnerCache

__all__ = ["TransitSearch", "raptor_request", "transit_itineraries"]

_RULES: OwnerCache[str, TransferRules] = OwnerCache()


def _rules(model: TransitModel) -> TransferRules:
    """transfers.txt rules of a model, prepared once."""
    return _RULES.get_or_build(model, "rules", lambda: transfer_rules(model))


@dataclass(frozen=True)
class TransitSearch:
    """Everything one transit search needs."""

    network: TransportNetwork
    request: PlanRequest
    when: dt.datetime
    origin: StreetEnd
    destination: StreetEnd
    options: StreetOptions
    tz: ZoneInfo
    onboard: OnBoardStart | None = None
    #: the real-time snapshot the plan took at its start (None: the scheduled timetable)
    realtime: TimetableSnapshot | None = None
    #: access and egress found by the caller (rental, parking: ``_mobility_plan``) instead
    #: of the access mode's street search, and the legs of a stop's access (egress) from
    #: ``(stop, start, end)``; None from the builder: the ordinary street leg
    access: Access | None = None
    egress: Access | None = None
    access_legs: Callable[[int, dt.datetime, dt.datetime], list[Leg] | None] | None = None
    egress_legs: Callable[[int, dt.datetime, dt.datetime], list[Leg] | None] | None = None

    @cached_property
    def transfer_options(self) -> StreetOptions:
        """The street options of walking transfers (walking at the request's walk speed),
        made once per search: every transfer leg of its itineraries uses them."""
        return replace(self.options, mode="WALK", speed_mps=self.request.walk.speed_mps)


def search_timetable(
    network: TransportNetwork, realtime: TimetableSnapshot | None, date: dt.date, tz: str
) -> RaptorTimetable:
    """The RAPTOR timetable of a search date: the snapshot's, or the scheduled one."""
    if realtime is None:
        return raptor_timetable(network.transit, date, tz)
    return realtime.raptor_timetable(date, tz)


def raptor_request(
    s: TransitSearch,
    timetable: RaptorTimetable,
    filters: RaptorFilters,
    access: Access,
    egress: Access,
    trip_allowed: np.ndarray | None,
) -> RaptorRequest:
    """The planner's RAPTOR request ("cost" criteria) for a search, access and egress.

    The one mapping of a :class:`PlanRequest` onto RAPTOR (walking transfers at the
    walk speed, slacks, board costs, penalties, filters, transfers.txt rules); the
    analysis functions reuse it with other criteria so their times agree with plans.
    """
    net, req = s.network, s.request
    walk_time = transfer_times(net, req.walk.speed_mps)
    tp = req.transit
    board_cost = req.bike.board_cost if s.options.mode == "BICYCLE" else req.walk.board_cost
    ob = s.onboard
    return RaptorRequest(
        access_stops=access.stops,
        access_time_s=access.time_s,
        access_cost=access.cost,
        egress_stops=egress.stops,
        egress_time_s=egress.time_s,
        egress_cost=egress.cost,
        time=int(s.when.timestamp()) - timetable.epoch,
        arrive_by=req.arrive_by,
        max_rounds=tp.max_transfers + 1,
        board_slack_s=tp.board_slack_s,
        alight_slack_s=tp.alight_slack_s,
        transfer_slack_s=tp.min_transfer_time_s,
        transfer_offsets=np.asarray(net.transfer_offsets),
        transfer_to=np.asarray(net.transfer_to),
        transfer_time_s=walk_time,
        transfer_cost=transfer_costs(net, req.walk.speed_mps, req.walk.reluctance),
        route_allowed=filters.route_allowed,
        trip_allowed=trip_allowed,
        stop_board_allowed=filters.stop_board_allowed,
        stop_alight_allowed=filters.stop_alight_allowed,
        stop_pass_allowed=filters.stop_pass_allowed,
        trip_stop_bans=filters.trip_stop_bans,
        rules=_rules(net.transit),
        board_cost=board_cost,
        transfer_penalty=tp.transfer_penalty,
        nonpreferred_transfer_penalty=tp.nonpreferred_transfer_penalty,
        wait_reluctance=tp.wait_reluctance,
        wait_at_beginning_factor=tp.wait_at_beginning_factor,
        route_penalty=filters.route_penalty,
        trip_board_cost=filters.trip_board_cost,
        stop_cost=filters.stop_cost,
        criteria="cost",
        stay_seated=stay_seated(net.transit, timetable),
        onboard=None if ob is None else OnBoard(ob.trip, ob.next_pos, ob.delay_s),
    )


def _trip_key(journey: RaptorJourney, timetable: RaptorTimetable) -> tuple[int, ...]:
    return tuple(
        int(timetable.route_trip_ref[leg.trip])
        for leg in journey.legs
        if isinstance(leg, TransitLeg)
    )


def _journey_order(journey: RaptorJourney, arrive_by: bool, by_time: bool) -> tuple[float, ...]:
    when = float(-journey.departure if arrive_by else journey.arrival)
    return (when, journey.cost) if by_time else (journey.cost, when)


def _search_journeys(
    s: TransitSearch, timetable: RaptorTimetable, access: Access, egress: Access
) -> list[RaptorJourney]:
    """Up to ``numItineraries`` journeys with distinct trip sequences, best cost first.

    Like OTP 1.x, after each search the trips used are banned and the search
    runs again until enough itineraries are found or nothing more is found, or
    ``searchTimeout`` (counted from the first search) has passed: then the
    journeys found so far are the answer.  So are they when the plan's deadline
    (:mod:`otpa.routing.deadline`) has passed; before the first search that
    raises :class:`~otpa.routing.errors.SearchTimeoutError`.
    """
    timeout_ms = s.request.itineraries.search_timeout_ms
    deadline = None if timeout_ms is None else time.monotonic() + timeout_ms / 1000.0
    added_ids = None if s.realtime is None else s.realtime.added_trip_ids()
    filters = raptor_filters(s.network.transit, timetable, s.request, added_ids)
    wanted = s.request.itineraries.num_itineraries
    base_allowed = filters.trip_allowed
    n_trips = int(timetable.route_trip_ref.shape[0])
    allowed = np.ones(n_trips, dtype=np.uint8) if base_allowed is None else base_allowed.copy()
    found: list[RaptorJourney] = []
    seen: set[tuple[int, ...]] = set()
    req: RaptorRequest | None = None
    for _ in range(max(wanted, 1)):
        if found and deadline_passed():
            break  # past the plan's deadline (otpa.routing.deadline): the journeys so far
        check_deadline("the transit search")
        # the searches differ only in the trips banned: the request is built once
        req = (
            raptor_request(s, timetable, filters, access, egress, allowed)
            if req is None
            else req.with_trip_allowed(allowed)
        )
        journeys = route(timetable, req)
        journeys = [j for j in journeys if j.n_rides > 0]
        if not journeys:
            break
        # journeys with the same trips differ only on foot: the better one by the
        # request's comparator (generalized cost, or duration) stands for them
        by_time = s.request.itineraries.path_comparator == "duration"
        journeys.sort(key=lambda j: _journey_order(j, s.request.arrive_by, by_time))
        new = 0
        for j in journeys:
            key = _trip_key(j, timetable)
            if key in seen:
                continue
            seen.add(key)
            found.append(j)
            new += 1
            if len(found) >= wanted:
                break
        if len(found) >= wanted or new == 0:
            break
        if deadline is not None and time.monotonic() >= deadline:
            break  # out of time: the journeys found so far
        for j in found:
            for leg in j.legs:
                if isinstance(leg, TransitLeg):
                    allowed[leg.trip] = 0
    return found[:wanted]


def _endpoint_place(
    net: TransportNetwork, end: StreetEnd, at: dt.datetime, *, departing: bool
) -> Place:
    ep = end.endpoint
    if ep.stop is not None:
        place = stop_place(
            net, ep.stop, departure=at if departing else None, arrival=None if departing else at
        )
        return replace(place, orig=ep.orig, name=ep.orig or place.name)
    return Place(
        name=ep.name,
        lon=ep.lon,
        lat=ep.lat,
        orig=ep.orig,
        departure=at if departing else None,
        arrival=None if departing else at,
    )


def _stop_coords(s: TransitSearch, stop: int) -> tuple[float, float]:
    return stop_coords(s.network, stop)


#: OTP 2's (ibi's) accessibility score of a GTFS value: unknown 0.5, accessible 1, not 0.
_SCORE = {0: 0.5, 1: 1.0, 2: 0.0}


def _accessibility_score(
    s: TransitSearch, timetable: RaptorTimetable, leg: TransitLeg
) -> float | None:
    """A transit leg's accessibility score (wheelchair requests only).

    The mean of the scores of its trip, its boarding stop and its alighting stop,
    as OTP 2's ``AccessibilityScoreFilter`` (the ibi fork's ``accessibilityScore``).
    """
    if not s.request.wheelchair.enabled:
        return None
    model = s.network.transit
    trip = int(timetable.route_trip_ref[leg.trip])
    soff = int(timetable.route_stop_offsets[leg.route])
    board = int(timetable.route_stops[soff + leg.board_pos])
    alight = int(timetable.route_stops[soff + leg.alight_pos])
    stops = stop_accessibility(model)
    per_trip = trip_accessibility(model)
    wheel = int(per_trip[trip]) if trip < per_trip.size else 0  # an added trip: unknown
    values = (wheel, int(stops[board]), int(stops[alight]))
    return sum(_SCORE.get(v, 0.5) for v in values) / len(values)


def _flex_legs(s: TransitSearch, flex: FlexEnds, leg: object, epoch: int) -> list[Leg] | None:
    """The legs of a flex access or egress; None for any other leg ([]: no time fits)."""
    if isinstance(leg, AccessLeg) and leg.index >= flex.n_walk_access:
        window = (float(epoch + leg.start), float(epoch + leg.end))
        ep = s.origin.endpoint
        return access_flex_legs(s.network, s.request, flex, leg.index, window, ep, s.tz)
    if isinstance(leg, EgressLeg) and leg.index >= flex.n_walk_egress:
        window = (float(epoch + leg.start), float(epoch + leg.end))
        ep = s.destination.endpoint
        return egress_flex_legs(s.network, s.request, flex, leg.index, window, ep, s.tz)
    return None


def _caller_legs(s: TransitSearch, leg: object, epoch: int) -> list[Leg] | None:
    """The legs the caller builds for an access or egress (None: the ordinary street leg)."""
    build = None
    if isinstance(leg, AccessLeg):
        build = s.access_legs
    elif isinstance(leg, EgressLeg):
        build = s.egress_legs
    if build is None:
        return None
    assert isinstance(leg, (AccessLeg, EgressLeg))
    start, end = to_datetime(epoch + leg.start, s.tz), to_datetime(epoch + leg.end, s.tz)
    return build(leg.stop, start, end)


def _special_legs(
    s: TransitSearch, flex: FlexEnds | None, leg: object, epoch: int
) -> list[Leg] | None:
    """Access or egress legs built elsewhere: the caller's (rental, parking) or a flex
    ride's; None: the ordinary street leg ([] from a flex ride: no time fits)."""
    custom = _caller_legs(s, leg, epoch)
    if custom is not None or flex is None:
        return custom
    return _flex_legs(s, flex, leg, epoch)


def _journey_legs(
    s: TransitSearch,
    timetable: RaptorTimetable,
    journey: RaptorJourney,
    ends: tuple[Access, Access],
    flex: FlexEnds | None = None,
) -> tuple[list[Leg], bool]:
    """The legs of a journey ([] when a flex ride in it finds no time in its windows)."""
    tz, epoch, net = s.tz, timetable.epoch, s.network
    date = dt.datetime.fromtimestamp(epoch + 12 * 3600, tz).date()
    legs: list[Leg] = []
    too_sloped = False
    mode = s.options.mode
    delayed = False  # legs on the on-board vehicle run late by the on-board delay
    for leg in journey.legs:
        special = _special_legs(s, flex, leg, epoch)
        if special is not None:  # a vehicle change (``_mobility_plan``) or a flex ride
            if not special and flex is not None:
                return [], too_sloped
            legs.extend(special)
            continue
        if isinstance(leg, AccessLeg):
            if leg.duration_s == 0 and s.origin.endpoint.stop == leg.stop:
                continue
            start, end = to_datetime(epoch + leg.start, tz), to_datetime(epoch + leg.end, tz)
            slat, slon = _stop_coords(s, leg.stop)
            ep = s.origin.endpoint
            geom, sloped = leg_geometry(
                net, s.origin, leg.stop, s.options, (ep.lat, ep.lon, slat, slon), ends[0].paths
            )
            too_sloped |= sloped
            legs.append(
                street_leg(
                    mode,
                    start,
                    end,
                    _endpoint_place(net, s.origin, start, departing=True),
                    stop_place(net, leg.stop, arrival=end),
                    geom,
                )
            )
        elif isinstance(leg, TransitLeg):
            delayed = leg.onboard or (leg.interline and delayed)
            service_date = date + dt.timedelta(days=int(timetable.route_day[leg.route]))
            rt = added = None
            if s.realtime is not None:
                model_trip = int(timetable.route_trip_ref[leg.trip])
                rt = s.realtime.trip(model_trip, service_date)
                added = s.realtime.added_trip(model_trip)
            delays = None if rt is None else (rt.arrival_delay, rt.departure_delay)
            if added is not None:  # an added trip runs on time: realTime, no delay
                no_delay = np.zeros(added.stops.size, np.int32)
                delays = (no_delay, no_delay)
            onboard_from = None
            if leg.onboard:
                start = to_datetime(epoch + leg.start, tz)
                onboard_from = _endpoint_place(net, s.origin, start, departing=True)
            score = _accessibility_score(s, timetable, leg)
            legs.append(
                transit_leg(
                    net,
                    timetable,
                    route=leg.route,
                    trip=leg.trip,
                    board_pos=leg.board_pos,
                    alight_pos=leg.alight_pos,
                    date=service_date,
                    tz=tz,
                    show_intermediate_stops=s.request.itineraries.show_intermediate_stops,
                    interline=leg.interline,
                    onboard_from=onboard_from,
                    delay_s=s.onboard.delay_s if delayed and s.onboard else 0,
                    realtime_delays=delays,
                    added=added,
                )
            )
            if score is not None:
                legs[-1] = replace(legs[-1], accessibility_score=score)
        elif isinstance(leg, TransferLeg):
            start, end = to_datetime(epoch + leg.start, tz), to_datetime(epoch + leg.end, tz)
            a, b = _stop_coords(s, leg.from_stop), _stop_coords(s, leg.to_stop)
            walk_opts = s.transfer_options
            geom, sloped = transfer_geometry(net, leg.from_stop, leg.to_stop, walk_opts, (*a, *b))
            too_sloped |= sloped
            legs.append(
                street_leg(
                    "WALK",
                    start,
                    end,
                    stop_place(net, leg.from_stop, departure=start),
                    stop_place(net, leg.to_stop, arrival=end),
                    geom,
                )
            )
        elif isinstance(leg, EgressLeg):
            if leg.duration_s == 0 and s.destination.endpoint.stop == leg.stop:
                continue
            start, end = to_datetime(epoch + leg.start, tz), to_datetime(epoch + leg.end, tz)
            slat, slon = _stop_coords(s, leg.stop)
            ep = s.destination.endpoint
            geom, sloped = leg_geometry(
                net, leg.stop, s.destination, s.options, (slat, slon, ep.lat, ep.lon), ends[1].paths
            )
            too_sloped |= sloped
            legs.append(
                street_leg(
                    mode,
                    start,
                    end,
                    stop_place(net, leg.stop, departure=start),
                    _endpoint_place(net, s.destination, end, departing=False),
                    geom,
                )
            )
    return legs, too_sloped


def transit_itineraries(s: TransitSearch) -> list[Itinerary]:
    """Transit itineraries for a search (possibly none)."""
    req = s.request
    max_walk = access_radius(req)
    flexible = s.access is None and s.egress is None and flex_enabled(s.network, req)
    checked = s.egress is None and not flexible
    if checked and no_stop_near(s.network, s.destination, max_walk):
        return []  # no stop to alight at (the egress search below would find none)
    if s.access is not None:
        access = Access.empty()  # the caller's (below)
    elif s.onboard is None:
        access = find_access(s.network, s.origin, s.options, max_distance_m=max_walk, reverse=False)
    else:  # on board: the journey starts with the trip (RaptorRequest.onboard)
        access = Access.empty()
    if s.access is None and s.onboard is None and access.stops.size == 0 and not flexible:
        return []  # no stop to board at: the egress search would find nothing to use
    egress = (
        Access.empty()
        if s.egress is not None
        else find_access(
            s.network,
            s.destination,
            s.options,
            max_distance_m=max_walk,
            reverse=True,
            bound_checked=checked,  # no_stop_near(destination) was false above
        )
    )
    limit = walk_limit(req) if s.options.mode != "CAR" else None  # driving is no walking
    if limit is not None and limit < max_walk:  # the soft walk limit
        access = replace(access, cost=access.cost + walk_overage_cost(access.distance_m, limit))
        egress = replace(egress, cost=egress.cost + walk_overage_cost(egress.distance_m, limit))
    access = access if s.access is None else s.access
    egress = egress if s.egress is None else s.egress
    flex = None
    if flexible:
        # flex rides and flag stops to and from stops: more access and egress
        ends = (s.origin.endpoint, s.destination.endpoint)
        day = s.when.astimezone(s.tz).date()  # the search's timetable (cached) for flag stops
        access, egress, flex = flex_ends(
            s.network, req, s.when, *ends, access, egress, onboard=s.onboard is not None,
            timetable=search_timetable(s.network, s.realtime, day, s.tz.key),
        )  # fmt: skip
    if (access.stops.size == 0 and s.onboard is None) or egress.stops.size == 0:
        return []
    # the service day of the requested time (a late-night search also sees the
    # previous day's trips through the timetable's day -1 routes)
    timetable = search_timetable(s.network, s.realtime, s.when.astimezone(s.tz).date(), s.tz.key)
    out: list[Itinerary] = []
    for journey in _search_journeys(s, timetable, access, egress):
        if out and deadline_passed():
            break  # past the plan's deadline: the itineraries assembled so far
        legs, too_sloped = _journey_legs(s, timetable, journey, (access, egress), flex)
        legs = join_flex_legs(flex, legs)  # a flag stop ride and its trip's ride: one leg
        if not legs:
            continue
        out.append(
            make_itinerary(
                s.network,
                legs,
                request=req,
                too_sloped=too_sloped,
                generalized_cost=float(journey.cost),
            )
        )
    return out
