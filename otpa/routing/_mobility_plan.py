"""Plans that change vehicle on the street: bike rental, park, bike and kiss and ride.

For a request with ``BICYCLE_RENT``, ``CAR_PARK``, ``BICYCLE_PARK`` or ``CAR``
with transit (:class:`~otpa.routing.RentalPreferences`), the planner hands the
origin-destination pair to :func:`mobility_itineraries`:

* the chains of :mod:`otpa.routing._rental_search` run once from the origin
  (and, for rental with transit, once backwards from the destination);
* their last phase gives every transit stop an access (egress) time and cost;
  with bike rental the ordinary walk access competes stop by stop (the rider may
  also just walk), while parking and kiss and ride must leave the vehicle before
  boarding (OTP 1.x: a car or bike is never taken onto transit here);
* the transit search (McRAPTOR) runs with those accesses, and builds the legs of a
  stop reached by a vehicle change from the chain (walk, rented bike, walk...);
* without ``onlyTransitTrips``, the street-only trips compete: walking, and with
  bike rental the walk -> rented bike -> walk trip read from the same forward chain.

Times of the legs are the chain's labels (the times RAPTOR used), geometry the
street paths between the switch places.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field, replace
from zoneinfo import ZoneInfo

import numpy as np

from otpa.mobility import RentalState, current_rental
from otpa.network import TransportNetwork
from otpa.realtime import TimetableSnapshot
from otpa.routing._access import (
    Access,
    StreetEnd,
    access_radius,
    find_access,
    leg_geometry,
    path_geometry,
    street_end,
    walk_limit,
    walk_overage_cost,
    with_stop_link,
)
from otpa.routing._itinerary import make_itinerary
from otpa.routing._legs import StreetLegGeometry, stop_place, street_leg
from otpa.routing._micromobility import micromobility_costs
from otpa.routing._mobility_places import (
    LinkedPlaces,
    VehiclePlace,
    geofence_masks,
    linked_free_vehicles,
    linked_parking,
    linked_rental_stations,
)
from otpa.routing._phase_search import Phase, phase_from_end
from otpa.routing._places import Endpoint
from otpa.routing._rental_search import (
    BIKE_PARK,
    BIKE_RENTAL,
    CAR_PARK,
    CAR_PARK_SWITCH,
    FLOATING_RENTAL,
    HAIL,
    KISS_AND_RIDE,
    OWN_VEHICLE,
    Chain,
    ChainRoute,
    Switch,
    run_chain,
)
from otpa.routing._ride_hail import Hail, hail_check, ride_data
from otpa.routing._street_core import assemble, partial, resolve, snap_directions
from otpa.routing._street_costs import EdgeCosts
from otpa.routing._transit_plan import TransitSearch, transit_itineraries
from otpa.routing.errors import OutsideBoundsError
from otpa.routing.model import Itinerary, Leg, Place, RentalInfo, VertexType
from otpa.routing.request import PlanRequest
from otpa.routing.street_router import Snap, StreetOptions, StreetPath, street_path
from otpa.routing.street_tree import StreetTree
from otpa.types import FloatArray

__all__ = [
    "MAX_ACCESS_EGRESS_S",
    "MobilityAccess",
    "mobility_itineraries",
    "origin_mobility",
    "phase_tree",
    "rental_info",
    "street_options_by_mode",
    "uses_mobility",
]


def uses_mobility(request: PlanRequest) -> bool:
    """Whether a request changes vehicle on the street (rental, park/kiss and ride)."""
    r = request.rental
    transit = request.modes.transit
    micro = "MICROMOBILITY" in request.modes.street or r.vehicle_rental
    return (
        micro
        or r.car_rental
        or "CAR_HAIL" in request.modes.qualifiers
        or r.bike_rental
        or (transit and (r.park_and_ride or r.bike_park or r.kiss_and_ride))
    )


#: The snapshot kinds behind each rental-info map (``osm``: the build's static stations).
_INFO_KINDS = {
    "bike": ("bike-rental", "osm"),
    "car": ("car-rental",),
    "vehicle": ("vehicle-rental",),
}


def _severity(file: str) -> str:
    if "system_information" in file:
        return "SYSTEM_INFORMATION"
    if "geofencing" in file:
        return "ALL_REGIONS"
    if "station" in file:
        return "INDIVIDUAL_DOCKING_STATION"
    if "vehicle_status" in file or "free_bike" in file:
        return "INDIVIDUAL_VEHICLE"
    return "FEED_WIDE"


def rental_info(
    network: TransportNetwork, request: PlanRequest
) -> dict[str, dict[str, RentalInfo]]:
    """The ibi fork's rental-info maps of a plan: per allowed rental kind, per network.

    Only the kinds the request allows (``BICYCLE_RENT``, ``CAR_RENT``,
    ``MICROMOBILITY_RENT``) and the router has data for.
    """
    r = request.rental
    wanted = {"bike": r.bike_rental, "car": r.car_rental, "vehicle": r.vehicle_rental}
    if not any(wanted.values()):
        return {}
    state = current_rental(network)
    out: dict[str, dict[str, RentalInfo]] = {}
    for kind, on in wanted.items():
        if not on:
            continue
        infos = {}
        for name, snap in sorted(state.snapshots.items()):
            if snap.kind not in _INFO_KINDS[kind]:
                continue
            system = snap.system
            infos[name] = RentalInfo(
                errors=tuple((m.message, _severity(m.file)) for m in snap.messages),
                system_information={
                    "system_id": system.system_id,
                    "name": system.name,
                    "operator": system.operator,
                    "timezone": system.timezone,
                    "language": system.language,
                    "url": system.url,
                },
            )
        if infos:
            out[kind] = infos
    return out


#: With transit, a vehicle change is access or egress: at most this long (OTP 2's default
#: ``maxAccessEgressDuration``, 45 minutes), the street-only trip included.
MAX_ACCESS_EGRESS_S = 45 * 60.0

_PLACE_TYPE = {
    BIKE_RENTAL: VertexType.BIKESHARE,
    FLOATING_RENTAL: VertexType.BIKESHARE,
    BIKE_PARK: VertexType.BIKEPARK,
    CAR_PARK: VertexType.NORMAL,
    KISS_AND_RIDE: VertexType.NORMAL,
    HAIL: VertexType.NORMAL,
}


@dataclass(frozen=True, eq=False)
class _Ctx:
    network: TransportNetwork
    request: PlanRequest
    options: dict[str, StreetOptions]
    tz: ZoneInfo
    rental: RentalState
    companies: tuple[str, ...]
    hail: Hail | None = None
    #: one origin to every destination (analysis): no search stops at one destination
    to_all: bool = False
    #: what the plan leaves out and why (a ride-hail provider that failed)
    notices: list[str] = field(default_factory=list)
    #: street legs already routed in this request (several itineraries drive to one lot)
    legs_geometry: dict[tuple[object, ...], StreetLegGeometry] = field(default_factory=dict)
    #: where the trip's ends are on the streets, by ``(id(endpoint), mode, role)``
    ends: dict[tuple[int, str, str], Snap | int | None] = field(default_factory=dict)

    def micromobility_costs(self) -> EdgeCosts:
        """Edge costs of a micromobility vehicle under the request's physics."""
        assert self.network.street is not None
        bike = self.options["BICYCLE"]
        return micromobility_costs(self.network.street, bike, self.request.micromobility)


# ---------------------------------------------------------------- chains and accesses
def street_options_by_mode(request: PlanRequest) -> dict[str, StreetOptions]:
    """Street options by mode; MICROMOBILITY rides with the BICYCLE options' rules."""
    options = {m: StreetOptions.from_request(request, m) for m in ("WALK", "BICYCLE", "CAR")}
    options["MICROMOBILITY"] = options["BICYCLE"]
    return options


def _end(ctx: _Ctx, endpoint: Endpoint, mode: str, role: str) -> Snap | int | None:
    """Where a trip end is on the streets for ``mode`` (None: not near one), once per plan."""
    key = (id(endpoint), mode, role)
    if key in ctx.ends:
        return ctx.ends[key]
    try:
        where = street_end(ctx.network, endpoint, mode, role).where
    except OutsideBoundsError:
        where = None
    ctx.ends[key] = where
    return where


def _add(out: list[Chain], chain: Chain | None) -> None:
    if chain is not None:
        out.append(chain)


def _rental_chains(
    ctx: _Ctx,
    origin: Endpoint,
    destination: Endpoint,
    forward: list[Chain],
    backward: list[Chain],
    kind: str = "BICYCLE",
) -> None:
    """Rental of ``kind`` (BICYCLE, MICROMOBILITY, CAR): docked (a chain each way), floating."""
    net, req = ctx.network, ctx.request
    graph = net.street
    assert graph is not None
    transit = req.modes.transit
    max_walk = access_radius(req)
    extra = Switch(0.0, 0.0)
    if kind == "BICYCLE":  # bikeSwitchTime / bikeSwitchCost
        extra = Switch(float(req.bike.switch_time_s), float(req.bike.switch_cost))
    costs = ctx.micromobility_costs() if kind == "MICROMOBILITY" else None
    # with transit, renting is a way to and from stops: OTP 2's maxAccessEgressDuration
    limit = MAX_ACCESS_EGRESS_S if transit else math.inf
    o = _end(ctx, origin, "WALK", "from")
    d = _end(ctx, destination, "WALK", "to") if transit else None
    ends = ((o, forward, False), (d, backward, True))
    stations = linked_rental_stations(net, ctx.rental, kind, ctx.companies)
    toward = None
    d_street = None if transit or ctx.to_all else _end(ctx, destination, "WALK", "to")
    if d_street is not None:  # street-only: an A* ride toward the destination
        walk_back = phase_from_end(graph, d_street, ctx.options["WALK"], reverse=True,
                                   max_distance_m=max_walk)  # fmt: skip
        toward = (walk_back, destination.lat, destination.lon)
    for end, out, back in ends:
        if end is not None:
            chain = run_chain(graph, BIKE_RENTAL, end, ctx.options, stations, reverse=back,
                              switch_extra=extra, max_walk_m=max_walk, max_time_s=limit,
                              vehicle_mode=kind, vehicle_costs=costs,
                              toward=None if back else toward)  # fmt: skip
            _add(out, chain)
    for network, mine in linked_free_vehicles(net, ctx.rental, kind, ctx.companies).items():
        snap = ctx.rental.snapshots[network]
        no_ride, drop_ok = geofence_masks(graph, snap.zones, region=snap.dropoff_region)
        for end, out, back in ends:
            if end is not None:
                chain = run_chain(graph, FLOATING_RENTAL, end, ctx.options, mine, reverse=back,
                                  switch_extra=extra, max_walk_m=max_walk, no_ride=no_ride,
                                  max_time_s=limit,
                                  drop_ok=drop_ok, vehicle_mode=kind,
                                  vehicle_costs=costs)  # fmt: skip
                _add(out, chain)


def _own_vehicle_chains(
    ctx: _Ctx, origin: Endpoint, destination: Endpoint, forward: list[Chain], backward: list[Chain]
) -> None:
    """One's own micromobility vehicle: one phase from the origin (and to the destination)."""
    net = ctx.network
    graph = net.street
    assert graph is not None
    costs = ctx.micromobility_costs()
    limit = MAX_ACCESS_EGRESS_S if ctx.request.modes.transit else math.inf
    o = _end(ctx, origin, "BICYCLE", "from")
    d = _end(ctx, destination, "BICYCLE", "to") if ctx.request.modes.transit else None
    for end, out, back in ((o, forward, False), (d, backward, True)):
        if end is not None:
            chain = run_chain(graph, OWN_VEHICLE, end, ctx.options, LinkedPlaces((), _NONE),
                              reverse=back, max_walk_m=0.0, vehicle_mode="MICROMOBILITY",
                              max_time_s=limit,
                              vehicle_costs=costs)  # fmt: skip
            _add(out, chain)


_NONE = np.zeros(0, dtype=np.int32)


def _chains(
    ctx: _Ctx, origin: Endpoint, destination: Endpoint
) -> tuple[list[Chain], list[Chain]]:
    """The forward chains (from the origin) and backward ones (to the destination)."""
    net, req = ctx.network, ctx.request
    graph = net.street
    assert graph is not None
    r, transit = req.rental, req.modes.transit
    forward: list[Chain] = []
    backward: list[Chain] = []
    if r.bike_rental:
        _rental_chains(ctx, origin, destination, forward, backward)
    if r.car_rental:
        _rental_chains(ctx, origin, destination, forward, backward, "CAR")
    if r.vehicle_rental:
        _rental_chains(ctx, origin, destination, forward, backward, "MICROMOBILITY")
    elif "MICROMOBILITY" in req.modes.street:
        _own_vehicle_chains(ctx, origin, destination, forward, backward)
    if not transit:
        return forward, backward
    max_walk = access_radius(req)
    max_drive = float(req.car.max_pre_transit_time_s)
    lots: list[tuple[str, str, LinkedPlaces]] = []
    if r.park_and_ride:
        lots.append((CAR_PARK, "CAR", linked_parking(net, "park_and_ride")))
    if r.bike_park:
        lots.append((BIKE_PARK, "BICYCLE", linked_parking(net, "bike_parking")))
    if r.kiss_and_ride and not r.park_and_ride:
        lots.append((KISS_AND_RIDE, "CAR", LinkedPlaces((), _NONE)))
    if ctx.hail is not None:
        lots.append((HAIL, "CAR", LinkedPlaces((), _NONE)))
    # maxPreTransitTime is soft (see _pre_transit_overage): the searches go on for
    # PRE_TRANSIT_MARGIN_S past it (then the penalty, 3300, is worth almost an hour)
    bound = max_drive + PRE_TRANSIT_MARGIN_S + CAR_PARK_SWITCH.time_s
    for kind, mode, places in lots:
        o = _end(ctx, origin, mode, "from")
        if o is not None:
            _add(forward, run_chain(graph, kind, o, ctx.options, places, reverse=False,
                                    max_walk_m=max_walk, max_time_s=bound))  # fmt: skip
    return forward, backward


#: OTP 1.x ``preTransitPenalty`` and ``preTransitOverageRate`` (``softPreTransitLimiting``).
PRE_TRANSIT_PENALTY = 300.0
PRE_TRANSIT_OVERAGE_RATE = 10.0
#: How far past ``maxPreTransitTime`` the drive-to-transit searches go (seconds).
PRE_TRANSIT_MARGIN_S = 300.0


def _pre_transit_overage(ctx: _Ctx, chain: Chain, time_s: FloatArray) -> FloatArray:
    """OTP 1.x's soft ``maxPreTransitTime`` on an access chain that uses a car.

    With park and ride, kiss and ride, ride-hail or car rental, OTP 1.x counts every
    street edge's (rounded) time before the first boarding -- driving *and* walking --
    and, past ``maxPreTransitTime``, adds ``preTransitPenalty`` (300) once plus
    ``preTransitOverageRate`` (10) per second over (``StreetEdge``'s soft limiting, on
    by default).  The switches (parking, dropping off, renting) and the hail's wait are
    not street edges and do not count.  ``time_s`` is the chain's time at each stop's
    street vertex (switches included).
    """
    if chain.reverse or "CAR" not in chain.modes:
        return np.zeros_like(time_s)
    limit = float(ctx.request.car.max_pre_transit_time_s)
    pre = time_s - sum(s.time_s for s in chain.switches)
    over = pre - limit
    out: FloatArray = np.where(
        over > 0.0, PRE_TRANSIT_PENALTY + PRE_TRANSIT_OVERAGE_RATE * over, 0.0
    )
    return out


@dataclass(frozen=True, eq=False)
class _Merged:
    access: Access
    source: dict[int, Chain]  # stop -> the chain of its access (absent: walking)


def _merge(
    network: TransportNetwork, ctx: _Ctx, walk: Access | None, chains: list[Chain]
) -> _Merged:
    """Per stop the cheapest of walking (``walk``) and each chain's last phase.

    Ties keep the earlier: walking, then the chains in order.
    """
    stop_vertex = np.asarray(network.stop_vertex, dtype=np.int64)
    n = stop_vertex.size
    if walk is not None and walk.stops.size:
        n = max(n, int(walk.stops.max()) + 1)
    present = np.zeros(n, dtype=bool)
    best_c = np.full(n, np.inf)
    best_t = np.zeros(n)
    best_d = np.zeros(n)
    best_k = np.full(n, -1, dtype=np.int64)  # the chain's index (-1: walking)
    if walk is not None:
        ws = np.asarray(walk.stops, dtype=np.int64)
        present[ws] = True
        best_c[ws] = walk.cost
        best_t[ws] = walk.time_s
        best_d[ws] = walk.distance_m
    stops = np.flatnonzero(stop_vertex >= 0)
    sv = stop_vertex[stops]
    link = np.nan_to_num(np.asarray(network.stop_link_distance_m, dtype=np.float64)[stops])
    walk_opts = ctx.options["WALK"]
    link_t = link / walk_opts.speed_mps
    for k, chain in enumerate(chains):
        last = chain.last
        cost = last.cost[sv] + link_t * walk_opts.reluctance
        cost = cost + _pre_transit_overage(ctx, chain, last.time_s[sv])
        time = last.time_s[sv] + np.ceil(link_t)
        if chain.kind == HAIL and ctx.hail is not None:  # waiting for the car
            cost = cost + ctx.hail.wait_s * ctx.request.transit.wait_reluctance
            time = time + ctx.hail.wait_s
        dist = last.distance_m[sv] + link
        ok = np.isfinite(cost)
        ok[ok] = ~present[stops[ok]] | (cost[ok] < best_c[stops[ok]])
        s = stops[ok]
        present[s] = True
        best_c[s] = cost[ok]
        best_t[s] = np.trunc(time[ok])
        best_d[s] = dist[ok]
        best_k[s] = k
    keys = np.flatnonzero(present)
    if keys.size == 0:
        return _Merged(Access.empty(), {})
    arr = keys.astype(np.int32)
    access = Access(
        arr,
        best_t[keys].astype(np.int32),
        best_c[keys],
        best_d[keys],
        {k: i for i, k in enumerate(arr.tolist())},
        None if walk is None else walk.paths,
    )
    by_chain = best_k[keys]
    source = {
        int(s): chains[int(k)]
        for s, k in zip(arr[by_chain >= 0], by_chain[by_chain >= 0], strict=True)
    }
    return _Merged(access, source)


def _walk_access(ctx: _Ctx, end: StreetEnd, chains: list[Chain], *, reverse: bool) -> Access:
    """Walking to (``reverse``: from) the stops, as the planner's access search finds it.

    A rental chain's first phase is that very walk (same seeds, same limits): its labels
    are read instead of searching again.
    """
    req = ctx.request
    radius = access_radius(req)
    walk = next(
        (c.phases[0] for c in chains
         if c.kind in (BIKE_RENTAL, FLOATING_RENTAL) and c.modes[0] == "WALK"),
        None,
    )  # fmt: skip
    if walk is None or end.endpoint.stop is not None or not ctx.network.stop_vertex.size:
        acc = find_access(ctx.network, end, ctx.options["WALK"], max_distance_m=radius,
                          reverse=reverse)  # fmt: skip
    else:
        acc = _phase_access(ctx, walk, radius)
    limit = walk_limit(req)
    if limit is not None and limit < radius:
        acc = replace(acc, cost=acc.cost + walk_overage_cost(acc.distance_m, limit))
    return acc


def _phase_access(ctx: _Ctx, phase: Phase, radius: float) -> Access:
    """The stops a walking phase reached within ``radius`` (the stop's link walked too)."""
    net = ctx.network
    opts = ctx.options["WALK"]
    stop_vertex = np.asarray(net.stop_vertex, dtype=np.int64)
    stops = np.flatnonzero(stop_vertex >= 0)
    sv = stop_vertex[stops]
    link = np.nan_to_num(np.asarray(net.stop_link_distance_m, dtype=np.float64)[stops])
    link_t = link / opts.speed_mps
    time = phase.time_s[sv] + np.ceil(link_t)
    dist = phase.distance_m[sv] + link
    cost = phase.cost[sv] + link_t * opts.reluctance
    keep = np.isfinite(cost) & (time <= radius / opts.speed_mps) & (dist <= radius)
    s = stops[keep].astype(np.int32)
    return Access(
        s,
        time[keep].astype(np.int32),
        cost[keep],
        dist[keep],
        {int(x): i for i, x in enumerate(s)},
    )


# ------------------------------------------------------------------------------ legs
_NEAR = -1
_FAR = -2


def _durations(route: ChainRoute, far_extra_s: float) -> tuple[list[str], list[float]]:
    """Leg modes and durations in travel order (switch times in the vehicle's leg)."""
    ch = route.chain
    exits = [*route.switches, route.end_vertex]
    dur: list[float] = []
    for k, phase in enumerate(ch.phases):
        t_exit = float(phase.time_s[exits[k]])
        t_enter = 0.0
        if k > 0:
            t_enter = float(ch.phases[k - 1].time_s[exits[k - 1]]) + ch.switches[k - 1].time_s
        dur.append(t_exit - t_enter)
    dur[-1] += far_extra_s
    modes = list(ch.modes)
    sw = [s.time_s for s in ch.switches]
    if ch.reverse:
        dur.reverse()
        modes.reverse()
        sw.reverse()
    for i, s in enumerate(sw):
        if modes[i] != "WALK":
            dur[i] += s
        else:
            dur[i + 1] += s
    return modes, dur


def _switch_place(
    ctx: _Ctx, chain: Chain, vertex: int, place: VehiclePlace | None
) -> tuple[Place, StreetEnd]:
    graph = ctx.network.street
    assert graph is not None
    lat, lon = float(graph.vertex_lat[vertex]), float(graph.vertex_lon[vertex])
    name = "Drop-off" if place is None else place.name
    end = StreetEnd(Endpoint(lat, lon, name, ""), vertex)
    if place is None:
        return Place(name=name, lon=lon, lat=lat), end
    kind = chain.kind
    rental = kind in (BIKE_RENTAL, FLOATING_RENTAL)
    vertex_type = _PLACE_TYPE[kind]
    if rental and "MICROMOBILITY" in chain.modes:
        vertex_type = VertexType.VEHICLERENTAL
    elif rental and "CAR" in chain.modes:
        vertex_type = VertexType.CARSHARE
    return (
        Place(
            name=place.name,
            lon=place.lon,
            lat=place.lat,
            vertex_type=vertex_type,
            bike_share_id=place.id if rental else None,
            networks=place.networks if rental else None,
        ),
        end,
    )


def _phase_path(route: ChainRoute, k: int) -> StreetPath:
    """The path of phase ``k`` of a route between its two switch vertices."""
    phase = route.chain.phases[k]
    exits = [*route.switches, route.end_vertex]
    seed, exit_v = exits[k - 1], exits[k]
    edges = phase.path_edges(exit_v)
    a, b = (exit_v, seed) if phase.reverse else (seed, exit_v)
    return assemble(phase.graph, phase.costs, phase.inputs, phase.options, a, b, edges, 0.0, 1.0)


def _first_phase_path(route: ChainRoute) -> StreetPath | None:
    """The path of a forward route's first phase, from the origin to the first switch.

    The phase started at the origin's point on the streets for its own mode (the
    origin's CAR point for a drive to a lot): the leg's time is this path's.
    """
    phase = route.chain.phases[0]
    if phase.start is None:
        return None
    exit_v = route.switches[0]
    edges = phase.path_edges(exit_v)
    start = phase.skip.get(int(edges[0]), 0.0) if edges.size else 0.0
    return assemble(
        phase.graph, phase.costs, phase.inputs, phase.options, phase.start, exit_v, edges, start,
        1.0,
    )  # fmt: skip


def _single_phase_geometry(
    ctx: _Ctx,
    route: ChainRoute,
    near: StreetEnd,
    far: StreetEnd | int,
    tail: tuple[int, float] | None,
) -> StreetLegGeometry:
    """Geometry of a one-phase chain's trip from its own labels (snapped ends, stop link)."""
    phase = route.chain.phases[0]
    net = ctx.network
    edges = phase.path_edges(route.end_vertex)
    start, end = 0.0, 1.0
    if phase.reverse:
        if edges.size:
            end = phase.skip.get(int(edges[-1]), 1.0)
    else:
        if edges.size:
            start = phase.skip.get(int(edges[0]), 0.0)
        if tail is not None:
            edges = np.append(edges, np.int32(tail[0])).astype(np.int32)
            end = tail[1]
    v = route.end_vertex
    far_where: Snap | int = v if isinstance(far, int) or far.where is None else far.where
    near_where: Snap | int = v if near.where is None else near.where
    a, b = (v, near_where) if phase.reverse else (near_where, far_where)
    path = assemble(phase.graph, phase.costs, phase.inputs, phase.options, a, b, edges, start, end)
    geom = path_geometry(net, path)
    if isinstance(far, int):
        ends = (far, near) if phase.reverse else (near, far)
        geom = with_stop_link(net, geom, *ends)
    return geom


def _endpoint_place(end: StreetEnd) -> Place:
    ep = end.endpoint
    return Place(name=ep.name, lon=ep.lon, lat=ep.lat, orig=ep.orig)


def _end_key(end: StreetEnd | int) -> tuple[object, ...]:
    """What a leg's geometry depends on at one end: a stop, or a street end's vertex or snap."""
    if isinstance(end, int):
        return ("stop", end)
    return ("street", end.where)


def _street_geometry(
    ctx: _Ctx,
    mode: str,
    from_end: tuple[Place, StreetEnd | int],
    to_end: tuple[Place, StreetEnd | int],
) -> StreetLegGeometry:
    """A leg's street route between two ends, searched once per request."""
    (pa, a), (pb, b) = from_end, to_end
    coords = (pa.lat, pa.lon, pb.lat, pb.lon)
    key = (mode, _end_key(a), _end_key(b), coords)
    geom = ctx.legs_geometry.get(key)
    if geom is None:
        geom, _ = leg_geometry(ctx.network, a, b, ctx.options[mode], coords)
        ctx.legs_geometry[key] = geom
    return geom


def _leg_geometry(
    ctx: _Ctx,
    route: ChainRoute,
    k: int,
    modes: list[str],
    from_end: tuple[Place, StreetEnd | int],
    to_end: tuple[Place, StreetEnd | int],
    near: StreetEnd,
    far: StreetEnd | int,
    tail: tuple[int, float] | None,
) -> StreetLegGeometry:
    """The geometry of the leg of phase ``k`` of a route (built once per request).

    Several itineraries often share an access or egress (the same route to the same
    stop, at other times): its legs' geometry does not depend on the time.
    """
    ch = route.chain
    (pa, a), (pb, b) = from_end, to_end
    mode = modes[len(modes) - 1 - k if ch.reverse else k]
    n = len(modes)
    if n == 1:  # one vehicle all the way (micromobility): its own costs
        return _single_phase_geometry(ctx, route, near, far, tail)
    if not (0 < k < n - 1 or (k == n - 1 and isinstance(far, int)) or (k == 0 and not ch.reverse)):
        return _street_geometry(ctx, mode, (pa, a), (pb, b))
    key = ("phase", id(ch), route.switches, route.end_vertex, k, _end_key(a), _end_key(b))
    geom = ctx.legs_geometry.get(key)
    if geom is not None:
        return geom
    net = ctx.network
    if 0 < k < n - 1:
        # between two switches: the phase's own path (geofencing shaped it)
        geom = path_geometry(net, _phase_path(route, k))
    elif k == n - 1:
        # between the last switch and the stop: the phase's own path (its time's), and
        # the stop's link, instead of searching the street again
        geom = with_stop_link(net, path_geometry(net, _phase_path(route, k)), a, b)
    elif (first := _first_phase_path(route)) is not None:
        # from the origin to the first switch (a station, a lot): the phase's own path
        geom = path_geometry(net, first)
    else:
        return _street_geometry(ctx, mode, (pa, a), (pb, b))
    ctx.legs_geometry[key] = geom
    return geom


def _route_legs(
    ctx: _Ctx,
    route: ChainRoute,
    start: dt.datetime,
    near: StreetEnd,
    far: StreetEnd | int,
    *,
    far_extra_s: float = 0.0,
    end: dt.datetime | None = None,
    tail: tuple[int, float] | None = None,
) -> list[Leg]:
    """The legs of a chain's trip from ``start`` (the last one ends at ``end`` if given).

    ``tail``: the edge and fraction a street-only trip ends on after the chain's last vertex.
    """
    net = ctx.network
    ch = route.chain
    modes, dur = _durations(route, far_extra_s)
    ends: list[tuple[Place, StreetEnd | int]] = []
    near_place = _endpoint_place(near)
    far_place = stop_place(net, far) if isinstance(far, int) else _endpoint_place(far)
    ends.append((near_place, near))
    for v, p in zip(route.switches, route.places, strict=True):
        ends.append(_switch_place(ctx, ch, v, p))
    ends.append((far_place, far))
    if ch.reverse:
        ends.reverse()
    legs: list[Leg] = []
    t = start
    for i, mode in enumerate(modes):
        (pa, a), (pb, b) = ends[i], ends[i + 1]
        t_end = t + dt.timedelta(seconds=round(dur[i]))
        if end is not None and i == len(modes) - 1:
            t_end = max(end, t)
        k = len(modes) - 1 - i if ch.reverse else i
        geom = _leg_geometry(ctx, route, k, modes, (pa, a), (pb, b), near, far, tail)
        if mode == "WALK" and t_end == t and geom.distance_m < 1.0:
            continue  # no walk: the vehicle was taken (left) right there
        from_p = replace(pa, departure=t, arrival=None)
        to_p = replace(pb, arrival=t_end, departure=None)
        leg = street_leg(mode, t, t_end, from_p, to_p, geom)
        if ch.kind in (BIKE_RENTAL, FLOATING_RENTAL) and mode == "BICYCLE":
            leg = replace(leg, rented_bike=True)
        elif ch.kind in (BIKE_RENTAL, FLOATING_RENTAL) and mode == "MICROMOBILITY":
            leg = replace(leg, rented_vehicle=True)
        elif ch.kind in (BIKE_RENTAL, FLOATING_RENTAL) and mode == "CAR":
            leg = replace(leg, rented_car=True)
        elif ch.kind == HAIL and mode == "CAR":
            leg = _hailed(ctx, leg)
        legs.append(leg)
        t = t_end
    return legs


# ------------------------------------------------------------------------- street-only
def _direct_chain(
    ctx: _Ctx, chain: Chain, destination: StreetEnd, when: dt.datetime, near: StreetEnd
) -> Itinerary | None:
    """The street-only trip of a forward chain to the destination (None: not reached)."""
    graph = ctx.network.street
    assert graph is not None
    if destination.where is None:
        return None
    dst = resolve(graph, destination.where)
    last = chain.last
    cands: list[tuple[float, float, int, tuple[int, float] | None]] = []
    if isinstance(dst, Snap):
        costs = last.costs
        for g, b in snap_directions(graph, costs, dst):
            u = int(graph.edge_from[g])
            w, t, _ = partial(costs, graph, g, b, from_start=True)
            cands.append((float(last.cost[u]) + w, t, u, (g, b)))
    else:
        cands.append((float(last.cost[dst]), 0.0, int(dst), None))
    cands = [c for c in cands if math.isfinite(c[0])]
    if not cands:
        return None
    cost, extra, u, tail = min(cands, key=lambda c: c[0])
    route = chain.route(u)
    if route is None:
        return None
    legs = _route_legs(ctx, route, when, near, destination, far_extra_s=extra, tail=tail)
    if not legs:
        return None
    if ctx.request.arrive_by:
        shift = legs[-1].end_time - when
        legs = [_shift(leg, shift) for leg in legs]
    return make_itinerary(ctx.network, legs, request=ctx.request, generalized_cost=cost)


def _hailed(ctx: _Ctx, leg: Leg) -> Leg:
    """A CAR leg as a hailed ride, with the provider's estimate of it."""
    assert ctx.hail is not None
    a, b = leg.from_place, leg.to_place
    data, why = ride_data(ctx.hail, a.lat, a.lon, b.lat, b.lon)
    if why is not None:
        ctx.notices.append(why)
    return replace(leg, hailed_car=True, tnc_data=data)


def _direct_car(
    ctx: _Ctx, origin: Endpoint, destination: Endpoint, when: dt.datetime, *, hail: bool
) -> Itinerary | None:
    """The street-only drive; ``hail``: a hailed ride (wait for the car, then drive)."""
    net = ctx.network
    o, d = _end(ctx, origin, "CAR", "from"), _end(ctx, destination, "CAR", "to")
    if o is None or d is None:
        return None
    opts = ctx.options["CAR"]
    path = street_path(net, o, d, opts)
    if path is None:
        return None
    wait = ctx.hail.wait_s if hail and ctx.hail is not None else 0
    duration = dt.timedelta(seconds=round(path.duration_s))
    start = (when - duration if ctx.request.arrive_by else when + dt.timedelta(seconds=wait))
    end = start + duration
    o_end, d_end = StreetEnd(origin, o), StreetEnd(destination, d)
    leg = street_leg(
        "CAR",
        start,
        end,
        replace(_endpoint_place(o_end), departure=start),
        replace(_endpoint_place(d_end), arrival=end),
        path_geometry(net, path),
    )
    cost = path.cost + wait * ctx.request.transit.wait_reluctance
    leg = _hailed(ctx, leg) if hail else leg
    return make_itinerary(net, [leg], request=ctx.request, generalized_cost=cost)


def _shift(leg: Leg, by: dt.timedelta) -> Leg:
    def sp(p: Place) -> Place:
        return replace(
            p,
            arrival=None if p.arrival is None else p.arrival - by,
            departure=None if p.departure is None else p.departure - by,
        )

    return replace(
        leg,
        start_time=leg.start_time - by,
        end_time=leg.end_time - by,
        from_place=sp(leg.from_place),
        to_place=sp(leg.to_place),
    )


def _direct_walk(
    ctx: _Ctx,
    origin: StreetEnd,
    destination: StreetEnd,
    when: dt.datetime,
    max_cost: float = math.inf,
) -> Itinerary | None:
    """The walk, or None when it costs more than ``max_cost`` (the search stops there)."""
    if origin.where is None or destination.where is None:
        return None
    opts = ctx.options["WALK"]
    # a wheelchair search that fails is retried without its slope limit: bounded, the
    # first could fail where it found a dearer path, and the retry find another one
    bound = math.inf if opts.wheelchair else max_cost
    path = street_path(ctx.network, origin.where, destination.where, opts, max_cost_s=bound)
    if path is None:
        return None
    cost = path.cost + float(walk_overage_cost(path.distance_m, walk_limit(ctx.request)))
    if cost > max_cost:
        return None
    duration = dt.timedelta(seconds=round(path.duration_s))
    start, end = (when - duration, when) if ctx.request.arrive_by else (when, when + duration)
    geom = path_geometry(ctx.network, path)
    leg = street_leg(
        "WALK",
        start,
        end,
        replace(_endpoint_place(origin), departure=start),
        replace(_endpoint_place(destination), arrival=end),
        geom,
    )
    return make_itinerary(ctx.network, [leg], request=ctx.request, generalized_cost=cost)


# ------------------------------------------------------------------------------- plan
def mobility_itineraries(
    network: TransportNetwork,
    request: PlanRequest,
    origin: Endpoint,
    destination: Endpoint,
    when: dt.datetime,
    tz: ZoneInfo,
    realtime: TimetableSnapshot | None = None,
    notices: list[str] | None = None,
) -> list[Itinerary] | None:
    """Itineraries of a request that changes vehicle on the street.

    Parameters
    ----------
    network, request
        The network and the request (:func:`uses_mobility` is true for it).
    origin, destination
        The resolved places.
    when
        The requested time (aware).
    tz
        The network's time zone.
    realtime
        The real-time snapshot the plan searches.
    notices
        Receives what the plan leaves out and why (a ride-hail provider that failed).

    Returns
    -------
    list of Itinerary or None
        Best generalized cost first (not yet filtered or sorted); None when the
        network has no streets (the planner then plans as without the vehicle change).
    """
    if network.street is None:
        return None
    options = street_options_by_mode(request)
    companies = tuple(c for c in request.rental.companies if c != "NOAPI")
    ctx = _Ctx(network, request, options, tz, current_rental(network), companies)
    o_walk = street_end(network, origin, "WALK", "from")
    d_walk = street_end(network, destination, "WALK", "to")
    ctx.ends[(id(origin), "WALK", "from")] = o_walk.where
    ctx.ends[(id(destination), "WALK", "to")] = d_walk.where
    if "CAR_HAIL" in request.modes.qualifiers:
        hail, why = hail_check(network, request, origin.lat, origin.lon)
        ctx = replace(ctx, hail=hail)
        if why is not None:
            ctx.notices.append(why)
    forward, backward = _chains(ctx, origin, destination)
    out: list[Itinerary] = []
    if request.modes.transit:
        out = _transit(ctx, forward, backward, o_walk, d_walk, when, realtime)
    if not request.transit.only_transit_trips:
        # with transit, the street-only trip joins only when it is the cheapest
        best = min((it.generalized_cost or 0.0 for it in out), default=math.inf)
        direct = _street_only(ctx, forward, origin, destination, o_walk, d_walk, when, best)
        out = ([] if direct is None else [direct]) + out
    if notices is not None:
        notices.extend(dict.fromkeys(ctx.notices))
    return out


def _street_only(
    ctx: _Ctx,
    forward: list[Chain],
    origin: Endpoint,
    destination: Endpoint,
    o_walk: StreetEnd,
    d_walk: StreetEnd,
    when: dt.datetime,
    max_cost: float = math.inf,
) -> Itinerary | None:
    """The best street-only trip (walking, renting, one's own vehicle, hailing), if any.

    None too when it costs more than ``max_cost`` (the best transit itinerary's).  On a
    tie walking wins, then the candidates in the order above.  The walk is searched last,
    bounded by the others' best cost: a walk that costs more is never the answer.
    """
    request = ctx.request
    others: list[Itinerary | None] = []
    for chain in forward:
        if chain.kind in (BIKE_RENTAL, FLOATING_RENTAL, OWN_VEHICLE):
            others.append(_direct_chain(ctx, chain, d_walk, when, o_walk))
    if ctx.hail is not None:
        others.append(_direct_car(ctx, origin, destination, when, hail=True))
    elif "CAR_HAIL" in request.modes.qualifiers and not request.modes.transit:
        # no hail option: OTP 1.x's CAR_HAIL without transit is plain driving
        others.append(_direct_car(ctx, origin, destination, when, hail=False))
    found = [it for it in others if it is not None]
    bound = min((it.generalized_cost or 0.0 for it in found), default=math.inf)
    if "WALK" in request.modes.street:
        walk = _direct_walk(ctx, o_walk, d_walk, when, min(bound, max_cost))
        if walk is not None:
            found.insert(0, walk)
    best = min(found, key=lambda it: it.generalized_cost or 0.0, default=None)
    if best is None or (best.generalized_cost or 0.0) > max_cost:
        return None
    return best


def _transit(
    ctx: _Ctx,
    forward: list[Chain],
    backward: list[Chain],
    o_walk: StreetEnd,
    d_walk: StreetEnd,
    when: dt.datetime,
    realtime: TimetableSnapshot | None,
) -> list[Itinerary]:
    req = ctx.request
    r = req.rental
    # renting or hailing, the rider may also walk to transit (WALK is on in OTP 1.x)
    renting = r.bike_rental or r.vehicle_rental or r.car_rental or r.ride_hail
    # parking and kiss and ride must use the car
    walk_in = _walk_access(ctx, o_walk, forward, reverse=False) if renting else None
    walk_out = _walk_access(ctx, d_walk, backward, reverse=True)
    acc = _merge(ctx.network, ctx, walk_in, forward)
    egr = _merge(ctx.network, ctx, walk_out, backward)
    net = ctx.network

    def access_legs(stop: int, start: dt.datetime, end: dt.datetime) -> list[Leg] | None:
        chain = acc.source.get(stop)
        if chain is None:
            return None
        route = chain.route(int(net.stop_vertex[stop]))
        if route is None:
            return None
        if chain.kind == HAIL and ctx.hail is not None:
            start = start + dt.timedelta(seconds=ctx.hail.wait_s)
        return _route_legs(ctx, route, start, o_walk, stop, end=end)

    def egress_legs(stop: int, start: dt.datetime, end: dt.datetime) -> list[Leg] | None:
        chain = egr.source.get(stop)
        if chain is None:
            return None
        route = chain.route(int(net.stop_vertex[stop]))
        if route is None:
            return None
        return _route_legs(ctx, route, start, d_walk, stop, end=end)

    search = TransitSearch(
        net,
        req,
        when,
        o_walk,
        d_walk,
        ctx.options["WALK"],
        ctx.tz,
        realtime=realtime,
        access=acc.access,
        egress=egr.access,
        access_legs=access_legs,
        egress_legs=egress_legs,
    )
    return transit_itineraries(search)


# ----------------------------------------------------------------------------- analysis
def phase_tree(phase: Phase) -> StreetTree:
    """A chain's last phase as a street tree (read at snapped points like a plain search)."""
    graph, costs = phase.graph, phase.costs
    none = np.zeros(0)
    return StreetTree(
        weight=phase.result.label,
        time_s=phase.result.time_s,
        distance_m=phase.result.distance_m,
        edge_weight=np.asarray(costs.weight, dtype=np.float64),
        edge_time_s=np.asarray(costs.time_s, dtype=np.float64),
        edge_time_ceil_s=np.asarray(costs.time_ceil_s, dtype=np.float64),
        edge_length_m=np.asarray(graph.edge_length_m, dtype=np.float64),
        edge_reverse=np.asarray(graph.edge_reverse, dtype=np.int32),
        edge_from=np.asarray(graph.edge_from, dtype=np.int32),
        edge_to=np.asarray(graph.edge_to, dtype=np.int32),
        seed_edge=none.astype(np.int32),
        seed_skip=none,
        vertex_weight=phase.cost,
        vertex_time_s=phase.time_s,
        vertex_distance_m=phase.distance_m,
    )


@dataclass(frozen=True, eq=False)
class MobilityAccess:
    """What one origin reaches by changing vehicle (for one-to-many analyses).

    Attributes
    ----------
    access
        Per transit stop the better of walking and each vehicle change (times include
        the switches), as the planner's transit search sees them.
    street_trees
        The street-only trips with a vehicle change (bike rental), as street trees to
        read destinations from (:func:`otpa.routing.street_tree.tree_times`).
    """

    access: Access
    street_trees: tuple[StreetTree, ...]


def origin_mobility(
    network: TransportNetwork, request: PlanRequest, origin: Endpoint
) -> MobilityAccess:
    """The access stops and street-only trees of an origin under a vehicle-change request."""
    if network.street is None:
        return MobilityAccess(Access.empty(), ())
    options = street_options_by_mode(request)
    companies = tuple(c for c in request.rental.companies if c != "NOAPI")
    tz = ZoneInfo(network.time_zone)
    ctx = _Ctx(network, request, options, tz, current_rental(network), companies, to_all=True)
    forward, _ = _chains(ctx, origin, origin)
    o_walk = street_end(network, origin, "WALK", "from")
    walk = None
    r = request.rental
    if r.bike_rental or r.vehicle_rental or r.car_rental:
        walk = _walk_access(ctx, o_walk, forward, reverse=False)
    merged = _merge(network, ctx, walk, forward)
    trees = tuple(
        phase_tree(c.last)
        for c in forward
        if c.kind in (BIKE_RENTAL, FLOATING_RENTAL, OWN_VEHICLE)
    )
    return MobilityAccess(merged.access, trees)
