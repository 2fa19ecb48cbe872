"""One origin to many destinations: the computation behind surfaces and matrices.

The same pieces as :func:`otpa.plan`: the origin is linked to the streets as the
planner links it, access stops come from the planner's access search, RAPTOR runs
with the planner's request mapping (modes, bans, slacks, transfers.txt rules), and
street-only and egress times are read off street searches exactly as the planner
scores a destination.  Only the criteria differ: the earliest arrival (range
RAPTOR over the departure window) instead of the generalized cost.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import math
from dataclasses import dataclass, field
from typing import Literal
from zoneinfo import ZoneInfo

import numpy as np

from otpa.analysis._linkage import TargetLinks, link_targets
from otpa.analysis._propagate import propagate, sort_links
from otpa.analysis.request import AnalysisRequest
from otpa.network import TransportNetwork
from otpa.realtime import TimetableSnapshot, current_snapshot
from otpa.routing import Location, PlanRequest
from otpa.routing.engine import (
    Access,
    MobilityAccess,
    StreetEnd,
    find_access,
    mobility_access,
    resolve_location,
    street_end,
    street_options,
    transit_request,
    uses_mobility,
)
from otpa.routing.rental_egress import RentalEgress, rental_egress
from otpa.routing.street_router import Snap, StreetOptions
from otpa.routing.street_tree import street_tree, tree_times
from otpa.transit.raptor.api import RaptorRequest, earliest_arrivals, range_raptor
from otpa.transit.raptor.spi import RaptorTimetable
from otpa.transit.raptor_data import raptor_timetable
from otpa.types import Float32Array, FloatArray
from otpa.util.cache import OwnerCache
from otpa.util.geo import haversine_m

__all__ = [
    "OriginResult",
    "OriginStreets",
    "Prepared",
    "origin_streets",
    "origin_times",
    "prepare",
    "unreachable",
]


@dataclass(frozen=True, eq=False)
class Prepared:
    """What every origin of one analysis shares."""

    network: TransportNetwork
    request: AnalysisRequest
    plan_request: PlanRequest
    options: StreetOptions
    tz: ZoneInfo
    departures: np.ndarray  # unix seconds
    links: TargetLinks
    connector_s: FloatArray  # per destination: time to walk from its street (0: free)
    link_time_s: np.ndarray  # egress link times, connector included
    link_stop: np.ndarray  # the stop of each link of ``link_time_s``
    direct_allowed: bool
    transit: bool
    realtime: TimetableSnapshot | None = None  # taken once: every origin sees one timetable
    #: the request rents or parks on the way (the planner's chained searches)
    mobility: bool = False
    #: renting after transit (``BICYCLE_RENT``... with transit), split at return stations
    rental_egress: RentalEgress | None = None
    #: the egress table with the return stations as extra stops (indptr, stop, time)
    rental_table: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    #: RAPTOR request without access per timetable (id): shared by the origins
    requests: dict[int, tuple[RaptorTimetable, RaptorRequest]] = field(
        default_factory=dict, repr=False
    )
    #: the egress is linked per origin, for the stops its transit search reaches
    #: (``links`` holds the snaps only; see :func:`prepare`'s ``egress``)
    egress_per_origin: bool = False


@dataclass(frozen=True, eq=False)
class OriginResult:
    """Travel times from one origin (float32 seconds, NaN: unreachable)."""

    times: Float32Array  # (n_percentiles, n_points)
    by_departure: Float32Array | None  # (n_departures, n_points)


@dataclass(frozen=True, eq=False)
class OriginStreets:
    """The street searches of one origin: the part of :func:`origin_times` before RAPTOR.

    They depend on the streets, the stops' street links and the destinations only, so
    two networks that share those (a base network and a transit-only scenario of it)
    can share them (see :mod:`otpa.analysis._paired`).
    """

    origin: StreetEnd
    direct: FloatArray  # street-only seconds per destination (inf: none)
    access: Access | None  # access stops (origin connector included); None without transit


def prepare(
    network: TransportNetwork,
    request: AnalysisRequest,
    lat: FloatArray,
    lon: FloatArray,
    *,
    egress: Literal["all", "reached"] = "all",
) -> Prepared:
    """Link the destinations and fix the parameters of an analysis.

    ``egress="all"`` links every stop to the destinations at once (the table every origin
    reads: matrices); ``"reached"`` links, per origin, only the stops its transit search
    reached within the time limit (a single-origin surface: the stops it never reaches
    cost nothing; the times are the same, as every stop's rows are those of the full
    table).  Street-only requests link no stops.
    """
    plan_req = request.plan_request()
    modes = plan_req.modes
    mobility = uses_mobility(plan_req)
    mode = "WALK" if mobility else modes.access_mode
    options = street_options(plan_req, mode)
    max_dist = plan_req.walk.effective_max_distance_m
    # renting after transit reads the whole table (its return stations' extra rows)
    per_origin = egress == "reached" and modes.transit and not mobility
    stops = None if modes.transit and not per_origin else np.zeros(0, dtype=np.int64)
    links = link_targets(
        network, lat, lon, options, max_time_s=max_dist / options.speed_mps,
        max_distance_m=max_dist, stops=stops,
    )  # fmt: skip
    tz = network.time_zone
    connector = np.zeros(lat.shape[0])
    if request.walk_connectors and links.snaps is not None:
        off_street = np.nan_to_num(links.snaps.distance_m, posinf=0.0)
        connector = np.ceil(off_street / _connector_speed(options))
    link_stop, link_time = _shared_link_arrays(links, connector)
    rental, table = None, None
    if mobility and modes.transit and links.snaps is not None:
        rental = rental_egress(network, plan_req, links.snaps)
        if rental is not None:
            table = _rental_table(rental, links.egress.indptr, link_stop, link_time, connector)
    return Prepared(
        network=network,
        request=request,
        plan_request=plan_req,
        options=options,
        tz=ZoneInfo(tz),
        departures=request.departure_epochs(tz),
        links=links,
        connector_s=connector,
        link_time_s=link_time,
        link_stop=link_stop,
        direct_allowed=mode in modes.street and not plan_req.transit.only_transit_trips,
        transit=modes.transit,
        realtime=None if request.ignore_realtime_updates else current_snapshot(network),
        mobility=mobility,
        rental_egress=rental,
        rental_table=table,
        egress_per_origin=per_origin,
    )


#: :func:`_link_arrays` per egress table (weakly keyed: cached tables only) and connectors
_LINK_ARRAYS: OwnerCache[str, tuple[np.ndarray, np.ndarray]] = OwnerCache(max_entries=4)


def _shared_link_arrays(links: TargetLinks, connector: FloatArray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_link_arrays`, built once per egress table and connector times.

    Every dask task of a matrix prepares its own :class:`Prepared`; the egress table is
    the cached one (:func:`~otpa.analysis._linkage.link_targets`), so its sorted arrays
    (a sort of every link: ~11 ms on the Porto Alegre hexgrid) are the same for all of
    them.  The arrays are shared, so they are read-only.
    """

    def build() -> tuple[np.ndarray, np.ndarray]:
        arrays = _link_arrays(links, connector)
        for a in arrays:
            a.flags.writeable = False
        return arrays

    digest = hashlib.sha1(np.ascontiguousarray(connector, dtype=np.float64).tobytes())
    return _LINK_ARRAYS.get_or_build(links.egress, digest.hexdigest(), build)


def _link_arrays(links: TargetLinks, connector: FloatArray) -> tuple[np.ndarray, np.ndarray]:
    """The egress table's stops and times, connectors added, each destination's nearest first."""
    e = links.egress
    link_time = e.time_s + np.repeat(connector, np.diff(e.indptr)).astype(np.int32)
    # each destination's links nearest first: the propagation skips most far ones
    return sort_links(e.indptr, e.stop, link_time)


def _with_egress(prep: Prepared, rows: FloatArray, deps: np.ndarray) -> Prepared:
    """``prep`` with the egress of the stops reached within the time limit (per origin)."""
    # a stop arrived at later than the limit after every departure reaches no destination
    reached = np.flatnonzero(((rows - deps[:, None]) <= prep.request.max_time_s).any(axis=0))
    max_dist = prep.plan_request.walk.effective_max_distance_m
    links = link_targets(
        prep.network, prep.links.lat, prep.links.lon, prep.options,
        max_time_s=max_dist / prep.options.speed_mps, max_distance_m=max_dist,
        stops=reached,
    )  # fmt: skip
    link_stop, link_time = _link_arrays(links, prep.connector_s)
    return dataclasses.replace(prep, links=links, link_stop=link_stop, link_time_s=link_time)


def _connector_speed(options: StreetOptions) -> float:
    return options.walk_speed_mps if options.mode == "CAR" else options.speed_mps


def _origin_connector(prep: Prepared, origin: StreetEnd) -> int:
    """Seconds to walk from the origin to its street (0 when free or on a vertex)."""
    where = origin.where
    if not prep.request.walk_connectors or not isinstance(where, Snap):
        return 0
    return math.ceil(where.distance_m / _connector_speed(prep.options))


def _origin_end(prep: Prepared, lat: float, lon: float) -> StreetEnd:
    endpoint = resolve_location(prep.network, Location(lat=lat, lon=lon), "from", "Origin")
    return street_end(prep.network, endpoint, prep.options.mode, "from")


def _direct(prep: Prepared, origin: StreetEnd, mob: MobilityAccess | None) -> FloatArray:
    n = prep.links.lat.shape[0]
    snaps = prep.links.snaps
    if not prep.direct_allowed:
        return np.full(n, np.inf)
    if prep.network.street is None:
        # no streets: a straight-line walk within the access limit (as access and egress)
        ep = origin.endpoint
        d = np.asarray(haversine_m(ep.lat, ep.lon, prep.links.lat, prep.links.lon), np.float64)
        t = np.ceil(d / prep.options.speed_mps)
        max_d = prep.plan_request.walk.effective_max_distance_m
        t[(d > max_d) | (t > prep.request.max_time_s)] = np.inf
        return t
    if origin.where is None or snaps is None:
        return np.full(n, np.inf)
    limit = float(prep.request.max_time_s)
    # the plan's street-only time: that of the lowest-weight path, the limit applied after
    tree = street_tree(prep.network, origin.where, prep.options, max_time_s=limit, cut="weight")
    t = tree_times(tree, snaps).time_s
    for rental in () if mob is None else mob.street_trees:  # renting may beat walking
        t = np.minimum(t, tree_times(rental, snaps).time_s)
    t = t + _origin_connector(prep, origin) + prep.connector_s
    if _slope_fallback(prep):
        # as the planner: where no path keeps to maxSlope, the walk that does not (tooSloped)
        missing = ~np.isfinite(t)
        if missing.any():
            relaxed = dataclasses.replace(prep.options, max_slope=math.inf)
            tree = street_tree(prep.network, origin.where, relaxed, max_time_s=limit, cut="weight")
            again = tree_times(tree, snaps).time_s + _origin_connector(prep, origin)
            t[missing] = (again + prep.connector_s)[missing]
    t[t > limit] = np.inf
    return t


def _slope_fallback(prep: Prepared) -> bool:
    """Whether a wheelchair walk is retried without the slope limit (as the planner does)."""
    o = prep.options
    graph = prep.network.street
    return (
        o.mode == "WALK"
        and o.wheelchair
        and graph is not None
        and graph.has_elevation
        and math.isfinite(o.max_slope)
    )


def _access(prep: Prepared, origin: StreetEnd, mob: MobilityAccess | None) -> Access:
    """The origin's access stops (the planner's access search), origin connector included."""
    max_dist = prep.plan_request.walk.effective_max_distance_m
    if mob is not None:
        access = mob.access
    else:
        access = find_access(
            prep.network, origin, prep.options, max_distance_m=max_dist, reverse=False
        )
    c = _origin_connector(prep, origin)
    if c and access.stops.size:
        access = dataclasses.replace(access, time_s=(access.time_s + c).astype(np.int32))
    return access


def _arrivals(
    prep: Prepared, origin: StreetEnd, access: Access
) -> tuple[FloatArray, np.ndarray] | None:
    """Ride arrivals ``(n_departures, n_stops)`` and departures, on the timetable's clock.

    An arrival later than its departure plus ``max_time`` is ``inf`` (it is over the limit).
    """
    net, req = prep.network, prep.request
    if access.stops.size == 0:
        return None
    first = dt.datetime.fromtimestamp(int(prep.departures[0]), prep.tz)
    if prep.realtime is not None:  # the real-time timetable, as otpa.plan searches it
        timetable = prep.realtime.raptor_timetable(first.date(), prep.tz.key)
    else:
        timetable = raptor_timetable(net.transit, first.date(), prep.tz.key)
    plan_req = dataclasses.replace(prep.plan_request, date_time=first)
    base = prep.requests.get(id(timetable))
    if base is None or base[0] is not timetable:
        # the request apart from the access (which is the origin's) is the same for every
        # origin: built and validated once (large walking-transfer arrays)
        rreq = transit_request(
            net, plan_req, timetable, origin, prep.options, Access.empty(), criteria="arrival"
        )
        base = (timetable, dataclasses.replace(rreq, search_window_s=req.max_time_s))
        prep.requests[id(timetable)] = base
    rreq = base[1].with_access(access.stops, access.time_s, access.cost)
    deps = prep.departures - timetable.epoch
    if deps.shape[0] == 1:
        rows = earliest_arrivals(timetable, rreq, arrivals="ride")[None, :]
    else:
        # arrivals past departure + max_time count as unreachable in the propagation: the
        # search skips them
        rows = range_raptor(timetable, rreq, deps, arrivals="ride", max_duration_s=req.max_time_s)
    return rows, deps


def origin_streets(prep: Prepared, lat: float, lon: float) -> OriginStreets:
    """The street searches of one origin: its street end, street-only times, access stops.

    Raises
    ------
    otpa.routing.errors.OutsideBoundsError
        When the origin is outside the network or not near a usable street.
    """
    origin = _origin_end(prep, lat, lon)
    mob = None
    if prep.mobility:  # renting or parking on the way: the planner's chained searches
        mob = mobility_access(prep.network, prep.plan_request, origin.endpoint)
    direct = _direct(prep, origin, mob)
    # a destination at the origin itself is reached at once
    direct[(prep.links.lat == lat) & (prep.links.lon == lon)] = 0.0
    access = _access(prep, origin, mob) if prep.transit else None
    return OriginStreets(origin, direct, access)


def origin_times(
    prep: Prepared,
    lat: float,
    lon: float,
    *,
    keep_by_departure: bool = False,
    streets: OriginStreets | None = None,
) -> OriginResult:
    """Travel times from one origin to every destination of ``prep``.

    ``streets``: the origin's street searches when already done (:func:`origin_streets`,
    possibly on another network with the same streets, stops and destinations).

    Raises
    ------
    otpa.routing.errors.OutsideBoundsError
        When the origin is outside the network or not near a usable street.
    """
    found = streets if streets is not None else origin_streets(prep, lat, lon)
    origin, direct = found.origin, found.direct
    e = prep.links.egress
    arrivals = (
        _arrivals(prep, origin, found.access) if prep.transit and found.access is not None else None
    )
    if arrivals is None:
        rows = np.full((prep.departures.shape[0], 1), np.inf)
        deps = prep.departures.astype(np.float64)
        indptr = np.zeros(e.indptr.shape[0], dtype=np.int64)
        stop, time = e.stop[:0], e.time_s[:0]
    else:
        rows, deps = arrivals
        if prep.egress_per_origin:
            linked = _with_egress(prep, rows, deps)
            e = linked.links.egress
            indptr, stop, time = e.indptr, linked.link_stop, linked.link_time_s
        else:
            indptr, stop, time = e.indptr, prep.link_stop, prep.link_time_s
        rental, table = prep.rental_egress, prep.rental_table
        same_stops = rental is not None and rental.stop_to_station.shape[0] == rows.shape[1]
        if rental is not None and table is not None and same_stops:
            # the return stations are extra "stops", reached after the rental ride
            rows = np.concatenate([rows, rental.station_arrivals(rows)], axis=1)
            indptr, stop, time = table
    times, by_dep = propagate(
        rows,
        deps.astype(np.float64),
        indptr,
        stop,
        time,
        direct,
        max_time_s=prep.request.max_time_s,
        percentiles=prep.request.percentiles,
        keep_by_departure=keep_by_departure,
    )
    return OriginResult(times, by_dep)


def _rental_table(
    rental: RentalEgress,
    indptr: np.ndarray,
    stop: np.ndarray,
    time: np.ndarray,
    connector_s: FloatArray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The egress table with each destination's return stations after its walking rows.

    Station ``j`` is "stop" ``n_stops + j`` (its arrival: the vehicle returned there,
    :meth:`otpa.routing.rental_egress.RentalEgress.station_arrivals`); its egress time is
    the walk from the station, connector included.
    """
    n_stops = rental.stop_to_station.shape[0]
    n = indptr.shape[0] - 1
    walk_n, rent_n = np.diff(indptr), np.diff(rental.indptr)
    rent_time = np.ceil(rental.time_s) + np.repeat(connector_s, rent_n)
    new_indptr = np.zeros(n + 1, dtype=np.int64)
    new_indptr[1:] = np.cumsum(walk_n + rent_n)
    order = np.argsort(
        np.concatenate([np.repeat(np.arange(n), walk_n), np.repeat(np.arange(n), rent_n)]),
        kind="stable",
    )
    new_stop = np.concatenate([stop, rental.station.astype(np.int64) + n_stops])[order]
    new_time = np.concatenate([time.astype(np.int64), rent_time.astype(np.int64)])[order]
    return new_indptr, new_stop.astype(np.int32), new_time.astype(np.int32)


def unreachable(prep: Prepared) -> OriginResult:
    """The result of an origin that cannot be linked: nothing reachable."""
    n = prep.links.lat.shape[0]
    return OriginResult(np.full((len(prep.request.percentiles), n), np.nan, dtype=np.float32), None)
