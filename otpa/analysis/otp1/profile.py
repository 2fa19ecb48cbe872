"""Profile routing: the distinct ways to make a trip over a time window, with time statistics.

OpenTripPlanner 1.x's profile router (``/profile``) answers "how do I get from A to B
between 7:30 and 8:30?" with *options*: sequences of rides (route, boarding stop,
alighting stop) with access and egress street legs, and the minimum, average and
maximum travel time of each over the window.  Here:

1. access and egress stops come from the planner's access search, per street mode;
2. RAPTOR (the planner's request mapping, earliest-arrival criteria) runs at every
   departure minute; each Pareto-optimal journey names an option, and searches with
   one found route banned add alternatives (:mod:`otpa.analysis.otp1._profile_search`);
3. every option is followed at every minute; it *counts* at a minute when it is at
   most ``suboptimal_s`` slower than the fastest option of the same access and egress
   modes there, and its statistics (total, and per ride the wait and the time on
   board) are taken over the minutes where it counts;
4. options are ordered by their ``MIN``, ``AVG`` or ``MAX`` time, at most ``limit``
   per access mode, followed by the option without transit (the direct street trip
   of each direct mode within ``street_time_s``).

Differences from OTP 1.x: statistics are exact per departure minute (OTP summed
per-ride bounds and modelled the first wait from headways); rides are grouped by
route and stops (OTP grouped patterns by stop clusters); transfers.txt rules and
staying seated on interlined trips are not applied.

Examples
--------
>>> import datetime as dt
>>> from otpa.analysis.otp1.profile import ProfileRequest, profile_route
>>> req = ProfileRequest(33.7652, -84.3129, 33.7747, -84.2954, dt.date(2021, 9, 15))
>>> result = profile_route(network, req)  # doctest: +SKIP
>>> [(o.summary, o.stats.min, o.stats.max) for o in result.options]  # doctest: +SKIP
[('routes BLUE', 382, 1001), ('Non-transit options', 1290, 1876)]
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

import numpy as np

from otpa.analysis.otp1._profile_model import (
    ProfileOption,
    ProfileResult,
    SegmentPattern,
    Stats,
    StreetSegment,
    TransitSegment,
)
from otpa.analysis.otp1._profile_request import (
    MAX_SEARCHES,
    MAX_WINDOW_S,
    ORDER_BY,
    PROFILE_STREET_MODES,
    ProfileRequest,
)
from otpa.analysis.otp1._profile_rrtr import (
    RaptorComparison,
    busiest_service_day,
    compare_range_raptor,
)
from otpa.analysis.otp1._profile_search import Evaluation, OptionKey, discover, evaluate, is_loop
from otpa.analysis.otp1._profile_street import access_segment, direct_segment
from otpa.analysis.otp1._profile_surfaces import (
    PROFILE_STATISTICS,
    profile_analysis_request,
    profile_surfaces,
)
from otpa.index import TransitIndex
from otpa.network import TransportNetwork
from otpa.routing import Location, PlanRequest
from otpa.routing.engine import (
    Access,
    Endpoint,
    StreetEnd,
    find_access,
    resolve_location,
    street_end,
    street_options,
    transit_request,
)
from otpa.routing.errors import OutsideBoundsError
from otpa.routing.street_router import StreetOptions
from otpa.transit.raptor.api import RaptorRequest
from otpa.transit.raptor.spi import RaptorTimetable
from otpa.transit.raptor_data import raptor_timetable
from otpa.types import IntArray

__all__ = [
    "MAX_SEARCHES",
    "MAX_WINDOW_S",
    "ORDER_BY",
    "PROFILE_STATISTICS",
    "PROFILE_STREET_MODES",
    "ProfileOption",
    "ProfileRequest",
    "ProfileResult",
    "RaptorComparison",
    "SegmentPattern",
    "Stats",
    "StreetSegment",
    "TransitSegment",
    "busiest_service_day",
    "compare_range_raptor",
    "order_options",
    "profile_analysis_request",
    "profile_route",
    "profile_surfaces",
]

_NO_TRANSIT_SUMMARY = "Non-transit options"


@dataclass(eq=False)
class _Context:
    """One search: the network, the request and the street ends and access per mode."""

    network: TransportNetwork
    request: ProfileRequest
    plan_request: PlanRequest
    tz: ZoneInfo
    origin: Endpoint
    destination: Endpoint
    ends: dict[tuple[str, str], StreetEnd | None] = field(default_factory=dict)
    accesses: dict[tuple[str, bool], Access] = field(default_factory=dict)

    def options(self, mode: str) -> StreetOptions:
        return street_options(self.plan_request, mode)

    def end(self, mode: str, role: str) -> StreetEnd | None:
        """The origin (``"from"``) or destination linked for ``mode`` (None: no street)."""
        key = (mode, role)
        if key not in self.ends:
            ep = self.origin if role == "from" else self.destination
            try:
                self.ends[key] = street_end(self.network, ep, mode, role)
            except OutsideBoundsError:
                self.ends[key] = None
        return self.ends[key]

    def access(self, mode: str, *, reverse: bool) -> Access:
        """Stops within the mode's access (``reverse``: egress) limits."""
        key = (mode, reverse)
        if key not in self.accesses:
            self.accesses[key] = self._find(mode, reverse)
        return self.accesses[key]

    def _find(self, mode: str, reverse: bool) -> Access:
        req = self.request
        end = self.end(mode, "to" if reverse else "from")
        if end is None:
            return Access.empty()
        opts = self.options(mode)
        limit = req.max_access_time_s(mode) * opts.speed_mps
        found = find_access(self.network, end, opts, max_distance_m=limit, reverse=reverse)
        keep = found.time_s >= req.min_access_time_s(mode)
        if keep.all():
            return found
        stops = found.stops[keep]
        return Access(
            stops,
            found.time_s[keep],
            found.cost[keep],
            found.distance_m[keep],
            {int(s): i for i, s in enumerate(stops.tolist())},
            found.paths,
        )


def _context(network: TransportNetwork, request: ProfileRequest) -> _Context:
    tz = ZoneInfo(network.time_zone)
    first = dt.datetime.fromtimestamp(int(request.departure_epochs(network.time_zone)[0]), tz)
    origin = resolve_location(
        network, Location(lat=request.from_lat, lon=request.from_lon), "from", "Origin"
    )
    destination = resolve_location(
        network, Location(lat=request.to_lat, lon=request.to_lon), "to", "Destination"
    )
    ctx = _Context(network, request, request.plan_request(first), tz, origin, destination)
    for role in ("from", "to"):
        if network.street is not None and all(
            ctx.end(m, role) is None for m in PROFILE_STREET_MODES
        ):
            ep = origin if role == "from" else destination
            msg = f"{role} place {ep.lat},{ep.lon} is not near any street"
            raise OutsideBoundsError(msg, missing=(role,))
    return ctx


def _raptor(
    ctx: _Context, timetable: RaptorTimetable, access: Access, egress: Access, mode: str
) -> RaptorRequest:
    """The planner's RAPTOR request for one access mode, on earliest-arrival criteria."""
    o = ctx.end(mode, "from")
    assert o is not None
    d = ctx.end("WALK", "to") or o
    req = transit_request(
        ctx.network,
        ctx.plan_request,
        timetable,
        o,
        ctx.options(mode),
        access,
        egress,
        destination=d,
        criteria="arrival",
    )
    return dataclasses.replace(
        req,
        rules=None,
        stay_seated=None,
        search_window_s=ctx.request.max_duration_s,
    )


@dataclass(eq=False)
class _Names:
    """Ids and names of stops, routes and patterns, looked up once."""

    network: TransportNetwork
    patterns: dict[int, str] = field(default_factory=dict)

    def stop(self, s: int) -> tuple[str, str]:
        stops = self.network.transit.stops
        return str(stops["stop_id"].iloc[s]), str(stops["name"].iloc[s])

    def route(self, g: int) -> tuple[str, str, str]:
        row = self.network.transit.routes.iloc[g]
        short, long_ = row.get("short_name"), row.get("long_name")
        name = short if isinstance(short, str) and short else long_
        return str(row["route_id"]), str(row.get("mode", "")), str(name or "")

    def place(self, s: int) -> str:
        """The stop cluster (station) of a stop, else the stop itself."""
        stop_id = self.stop(s)[0]
        return TransitIndex.of(self.network).get_stop(stop_id).cluster or stop_id

    def pattern(self, model_pattern: int) -> str:
        if model_pattern not in self.patterns:
            model = self.network.transit
            trip = int(model.pattern_trip_indices(model_pattern)[0])
            trip_id = str(model.trips["trip_id"].iloc[trip])
            found = TransitIndex.of(self.network).get_trip(trip_id).pattern_id
            self.patterns[model_pattern] = found or f"pattern:{model_pattern}"
        return self.patterns[model_pattern]


def _patterns(
    names: _Names, timetable: RaptorTimetable, ev: Evaluation, x: int, minutes: IntArray
) -> tuple[SegmentPattern, ...]:
    trips: dict[tuple[str, int, int], set[int]] = {}
    for m in minutes.tolist():
        r = int(ev.route[x, m])
        pid = names.pattern(int(timetable.route_pattern[r]))
        key = (pid, int(ev.board_pos[x, m]), int(ev.alight_pos[x, m]))
        trips.setdefault(key, set()).add(int(ev.trip[x, m]))
    out = [SegmentPattern(p, i, j, len(t)) for (p, i, j), t in trips.items()]
    return tuple(sorted(out, key=lambda s: (-s.n_trips, s.pattern_id, s.from_index)))


def _transit_option(
    ctx: _Context,
    names: _Names,
    timetable: RaptorTimetable,
    key: OptionKey,
    ev: Evaluation,
    minutes: IntArray,
    modes: tuple[str, str],
) -> ProfileOption:
    segments = []
    for x, (g, board, alight) in enumerate(key):
        from_id, from_name = names.stop(board)
        to_id, to_name = names.stop(alight)
        route_id, mode, _ = names.route(g)
        segments.append(
            TransitSegment(
                from_stop_id=from_id,
                to_stop_id=to_id,
                from_name=from_name,
                to_name=to_name,
                route_id=route_id,
                mode=mode,
                walk_time_s=ev.walk_s[x],
                walk_distance_m=ev.walk_m[x],
                wait=Stats.of(ev.wait[x, minutes]),
                ride=Stats.of(ev.ride[x, minutes]),
                patterns=_patterns(names, timetable, ev, x, minutes),
            )
        )
    net = ctx.network
    access = ctx.access(modes[0], reverse=False)
    egress = ctx.access(modes[1], reverse=True)
    first, last = key[0][1], key[-1][2]
    return ProfileOption(
        transit=tuple(segments),
        access=(access_segment(net, access, first, modes[0], names.stop(first)[0]),),
        egress=(access_segment(net, egress, last, modes[1], names.stop(last)[0]),),
        stats=Stats.of(ev.total[minutes]),
        summary=_summary(names, key),
    )


def _summary(names: _Names, key: OptionKey) -> str:
    """OTP 1.x's summary: ``routes A, B via <stops where rides end, but the last>``."""
    routes = [names.route(g)[2] for g, _, _ in key]
    vias = [names.stop(alight)[1] for _, _, alight in key[:-1]]
    text = "routes " + ", ".join(routes)
    return text + (" via " + ", ".join(vias) if vias else "")


def _mode_pair_options(
    ctx: _Context,
    names: _Names,
    timetable: RaptorTimetable,
    times: IntArray,
    modes: tuple[str, str],
) -> list[ProfileOption]:
    """Options of one access and egress mode, with the minutes where each counts."""
    access = ctx.access(modes[0], reverse=False)
    egress = ctx.access(modes[1], reverse=True)
    if access.stops.size == 0 or egress.stops.size == 0:
        return []
    request = _raptor(ctx, timetable, access, egress, modes[0])
    evaluations = []
    for key in discover(timetable, request, times):
        if is_loop(key, names.place):
            continue
        ev = evaluate(
            timetable,
            request,
            key,
            times,
            access=access,
            egress=egress,
            transfer_distance_m=np.asarray(ctx.network.transfer_distance_m, dtype=np.float64),
            max_duration_s=ctx.request.max_duration_s,
        )
        if ev is not None and np.isfinite(ev.total).any():
            evaluations.append((key, ev))
    if not evaluations:
        return []
    best = np.min(np.stack([ev.total for _, ev in evaluations]), axis=0)
    out = []
    for key, ev in evaluations:
        counts = np.isfinite(ev.total) & (ev.total <= best + ctx.request.suboptimal_s)
        if counts.any():
            minutes = np.flatnonzero(counts)
            out.append(_transit_option(ctx, names, timetable, key, ev, minutes, modes))
    return out


def _direct_option(ctx: _Context) -> ProfileOption | None:
    segments: list[StreetSegment] = []
    for mode in ctx.request.direct_modes:
        o, d = ctx.end(mode, "from"), ctx.end(mode, "to")
        if o is None or d is None:
            continue
        seg = direct_segment(
            ctx.network, o, d, ctx.options(mode), max_time_s=ctx.request.street_time_s
        )
        if seg is not None:
            segments.append(seg)
    if not segments:
        return None
    stats = Stats.of(s.time_s for s in segments)
    return ProfileOption((), tuple(segments), (), stats, _NO_TRANSIT_SUMMARY)


def order_options(
    options: Sequence[ProfileOption], order_by: str, limit: int
) -> list[ProfileOption]:
    """Sort transit options by ``order_by`` and keep at most ``limit`` per access mode (0: all).

    Parameters
    ----------
    options
        Transit options.
    order_by
        ``MIN``, ``AVG`` or ``MAX``: which statistic orders them (ties: the others, then
        the summary).
    limit
        Most options kept per access mode; 0 keeps all.
    """
    first = {"MIN": "min", "AVG": "avg", "MAX": "max"}[order_by]

    def rank(o: ProfileOption) -> tuple[int, int, int, int, str, str]:
        s = o.stats
        return (getattr(s, first), s.min, s.avg, s.max, o.summary, o.access_mode or "")

    kept: list[ProfileOption] = []
    per_mode: dict[str | None, int] = {}
    for option in sorted(options, key=rank):
        n = per_mode.get(option.access_mode, 0)
        if limit and n >= limit:
            continue
        per_mode[option.access_mode] = n + 1
        kept.append(option)
    return kept


def _has_service(network: TransportNetwork, request: ProfileRequest) -> bool:
    return bool(request.transit_modes) and not network.transit.is_empty


def profile_route(network: TransportNetwork, request: ProfileRequest) -> ProfileResult:
    """The transit options between two places over a time window, and the direct trips.

    Parameters
    ----------
    network
        The network.
    request
        What to search (see :class:`ProfileRequest`).

    Returns
    -------
    ProfileResult
        The options in the requested order (see the module docstring).

    Raises
    ------
    otpa.routing.errors.OutsideBoundsError
        When the origin or destination is outside the network or away from every street.
    """
    ctx = _context(network, request)
    times = request.departure_epochs(network.time_zone)
    transit: list[ProfileOption] = []
    if _has_service(network, request):
        timetable = raptor_timetable(network.transit, request.date, network.time_zone)
        on_clock = times - timetable.epoch
        names = _Names(network)
        for a_mode in request.access_modes:
            for e_mode in request.egress_modes:
                transit += _mode_pair_options(ctx, names, timetable, on_clock, (a_mode, e_mode))
    options = order_options(transit, request.order_by, request.limit)
    direct = _direct_option(ctx)
    if direct is not None:
        options.append(direct)
    return ProfileResult(tuple(options), int(times.shape[0]))
