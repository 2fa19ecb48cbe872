"""The RAPTOR component's public entry points: a request, Pareto-optimal journeys, arrival times.

Everything is expressed in timetable indices and seconds since the timetable's
epoch (see :mod:`otpa.transit.raptor.spi`); mapping from and to the transit
model and the street network happens outside the component.

Slack semantics follow OpenTripPlanner 1.x: a first boarding needs
``board_slack_s`` after the access arrives; a transfer needs
``max(transfer_slack_s, board_slack_s + alight_slack_s)`` between the vehicle's
arrival and the next departure, plus the walk when the stops differ;
``alight_slack_s`` is added before egress and before walking transfers.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple, TypeVar

import numpy as np

from otpa.transit.raptor._heuristic import lower_bounds, route_prefix
from otpa.transit.raptor._label_pools import (
    give_mc_labels,
    give_round_labels,
    take_mc_labels,
    take_round_labels,
)
from otpa.transit.raptor._mc_kernel import run_mc, seed_cost, time_rates, walk_rate
from otpa.transit.raptor._mc_labels import OVERFLOW_DEST, OVERFLOW_LABELS
from otpa.transit.raptor._memo import known_valid, remember_valid
from otpa.transit.raptor._onboard import OnBoard, onboard_cost_offset
from otpa.transit.raptor._prepare import Prepared, prepare, same_but_trips
from otpa.transit.raptor._query import INF, SearchQuery
from otpa.transit.raptor._range import range_rounds
from otpa.transit.raptor._reconstruct import journey, mc_path, path_cost, round_path
from otpa.transit.raptor._results import (
    AccessLeg,
    EgressLeg,
    Leg,
    RaptorJourney,
    TransferLeg,
    TransitLeg,
)
from otpa.transit.raptor._round_kernel import (
    NO_LAST,
    NO_RIDDEN,
    RoundLabels,
    improving_rounds,
    new_ridden,
    new_round_labels,
    run_rounds,
)
from otpa.transit.raptor.spi import RaptorTimetable, StaySeated, TransferRules
from otpa.types import FloatArray, Int32Array, IntArray, UInt8Array

__all__ = [
    "MAX_ABS_TIME_S",
    "MAX_COST",
    "MAX_DURATION_S",
    "MAX_FACTOR",
    "MAX_ROUNDS",
    "AccessLeg",
    "EgressLeg",
    "Leg",
    "OnBoard",
    "RaptorJourney",
    "RaptorRequest",
    "TransferLeg",
    "TransitLeg",
    "earliest_arrivals",
    "range_raptor",
    "route",
]

_ARRAYS: dict[str, Any] = {
    "access_stops": np.int32,
    "access_time_s": np.int32,
    "access_cost": np.float64,
    "egress_stops": np.int32,
    "egress_time_s": np.int32,
    "egress_cost": np.float64,
    "transfer_offsets": np.int64,
    "transfer_to": np.int32,
    "transfer_time_s": np.int32,
    "transfer_cost": np.float64,
}
_OPTIONAL: dict[str, Any] = {
    "route_allowed": np.uint8,
    "trip_allowed": np.uint8,
    "stop_board_allowed": np.uint8,
    "stop_alight_allowed": np.uint8,
    "stop_pass_allowed": np.uint8,
    "trip_stop_bans": np.int64,
    "route_penalty": np.float64,
    "trip_board_cost": np.float64,
    "stop_cost": np.float64,
}
_NON_NEGATIVE = (
    "access_time_s", "access_cost", "egress_time_s", "egress_cost", "transfer_time_s",
    "transfer_cost", "route_penalty", "trip_board_cost", "stop_cost", "max_rounds",
    "search_window_s", "board_slack_s",
    "alight_slack_s", "transfer_slack_s", "board_cost", "transfer_penalty",
    "nonpreferred_transfer_penalty", "wait_reluctance", "wait_at_beginning_factor",
)  # fmt: skip


#: ``(name, dtype, checked non-negative)`` of the array fields, in the order checked.
_ARRAY_FIELDS = tuple(
    (name, dtype, name in _NON_NEGATIVE) for name, dtype in [*_ARRAYS.items(), *_OPTIONAL.items()]
)
_NON_NEGATIVE_SCALARS = tuple(
    name for name in _NON_NEGATIVE if name not in _ARRAYS and name not in _OPTIONAL
)


#: Most rounds (rides) one search may run: its label arrays grow with the rounds.
MAX_ROUNDS = 32
#: Longest access, egress, transfer, slack or window, seconds (a week): with the int64
#: times of the kernels (``INF`` = 2**60) no sum of them comes near overflowing.
MAX_DURATION_S = 7 * 24 * 3600
#: Largest generalized cost of one leg or penalty (the float64 costs stay exact
#: to the second and far below the kernels' ``INF``).
MAX_COST = 1e15
#: Largest cost factor (wait reluctance, wait-at-beginning factor).
MAX_FACTOR = 1e6
#: Departure times must lie within +- this many seconds of the timetable's origin.
MAX_ABS_TIME_S = 1 << 40
_DURATIONS = frozenset(
    {"access_time_s", "egress_time_s", "transfer_time_s", "search_window_s", "board_slack_s",
     "alight_slack_s", "transfer_slack_s"}
)  # fmt: skip
_FACTORS = frozenset({"wait_reluctance", "wait_at_beginning_factor"})


def _upper_bound(name: str) -> float:
    if name in _DURATIONS:
        return MAX_DURATION_S
    if name in _FACTORS:
        return MAX_FACTOR
    if name == "max_rounds":
        return MAX_ROUNDS
    return MAX_COST


#: The upper bound of each field checked non-negative (:func:`_upper_bound`).
_BOUND = {name: _upper_bound(name) for name in _NON_NEGATIVE}
#: ``(name, bound)`` of the scalar fields checked non-negative, in the order checked.
_SCALAR_BOUNDS = tuple((name, _BOUND[name]) for name in _NON_NEGATIVE_SCALARS)


def _out_of_bounds(name: str) -> ValueError:
    return ValueError(f"RaptorRequest.{name} must be non-negative and at most {_BOUND[name]:g}")


def _check_bounds(name: str, value: Any) -> None:
    """Raise unless ``value`` (scalar or array) lies in ``[0, bound]`` (NaN refused)."""
    if isinstance(value, (int, float)):
        # a Python number (``bool`` and ``numpy.float64`` too) is compared as it is,
        # not as a 0-d array: NaN fails both comparisons, as it fails min and max
        ok = 0 <= value <= _BOUND[name]
    elif known_valid(value, name):
        return
    else:
        a = np.asarray(value)
        if a.dtype.kind not in "biuf":
            a = a.astype(np.float64)
        # min and max without a float64 copy (transfer arrays are large); NaN fails both
        ok = a.size == 0 or bool(a.min() >= 0 and a.max() <= _BOUND[name])
        if ok:
            remember_valid(value, name)
    if not ok:
        raise _out_of_bounds(name)


#: The scalar fields made Python ints, in that order.
_INT_FIELDS = (
    "time", "max_rounds", "search_window_s", "board_slack_s", "alight_slack_s", "transfer_slack_s"
)  # fmt: skip
#: ``(stops, time_s, cost)`` field names of the access and of the egress.
_ENDS = (
    ("access_stops", "access_time_s", "access_cost"),
    ("egress_stops", "egress_time_s", "egress_cost"),
)


def _check_scalars(state: dict[str, Any]) -> None:
    """:func:`_check_bounds` of the scalar fields (Python numbers compared here)."""
    for name, bound in _SCALAR_BOUNDS:
        value = state[name]
        if isinstance(value, (int, float)):
            if not 0 <= value <= bound:  # as in _check_bounds: NaN fails both
                raise _out_of_bounds(name)
        elif value is not None:
            _check_bounds(name, value)


def _no_i64() -> IntArray:
    return np.zeros(0, np.int64)


def _no_i32() -> Int32Array:
    return np.zeros(0, np.int32)


def _no_f64() -> FloatArray:
    return np.zeros(0, np.float64)


@dataclass(frozen=True, eq=False)
class RaptorRequest:
    """One transit search: access and egress stops, time, limits, filters and cost parameters.

    Attributes
    ----------
    access_stops, access_time_s, access_cost
        Stops reachable from the origin, the street time to reach them and its
        generalized cost (reluctances applied).
    egress_stops, egress_time_s, egress_cost
        Stops from which the destination is reached, likewise.
    time
        Earliest departure, or latest arrival when ``arrive_by`` (seconds since the epoch).
    arrive_by
        Search backwards from the egress stops.
    max_rounds
        Most rides (OTP ``maxTransfers + 1``).
    search_window_s
        Trips departing later than ``time + search_window_s`` are ignored (arriving
        earlier than ``time - search_window_s`` when ``arrive_by``).
    board_slack_s, alight_slack_s, transfer_slack_s
        OTP ``boardSlack``, ``alightSlack`` and ``minTransferTime`` (see the module docstring).
    transfer_offsets, transfer_to, transfer_time_s, transfer_cost
        Walking transfers between stops, CSR over the origin stop (no self loops); empty
        arrays mean none.  They are taken only right after a ride.
    route_allowed, trip_allowed
        Per timetable route and route-trip: 0 excludes it (modes, banned/whitelisted
        routes and agencies, banned trips, wheelchair-inaccessible trips).
    stop_board_allowed, stop_alight_allowed
        Per stop: 0 forbids boarding/alighting there (OTP ``bannedStops``, wheelchair).
    stop_pass_allowed
        Per stop: 0 means a ride cannot even pass through (OTP ``bannedStopsHard``).
    trip_stop_bans
        Sorted keys ``route_trip * 2**16 + position`` where a trip may not be boarded or left.
    rules
        transfers.txt rules (preferred, timed, minimum time, forbidden).
    board_cost, transfer_penalty, nonpreferred_transfer_penalty, wait_reluctance
        Generalized cost: per boarding, per boarding after the first, per transfer not
        marked preferred or timed (only when some rule is), per second of waiting before a
        boarding other than the first.
    wait_at_beginning_factor
        Accepted for completeness: the access leaves just in time, so there is no initial wait.
    route_penalty
        Per timetable route: extra cost of each boarding (preferred/unpreferred routes).
    trip_board_cost
        Per route-trip: extra cost of boarding it (wheelchair accessibility of trips).
    stop_cost
        Per stop: extra cost of each boarding and each alighting there (wheelchair
        accessibility of stops).
    stay_seated
        Interlined trips (GTFS blocks) a rider may stay seated through: no boarding, slack,
        board cost or transfer; the journey gets one leg per trip, the later ones marked
        ``TransitLeg.interline``.
    onboard
        Start on board a trip at ``time`` (OpenTripPlanner 1.x depart-on-board; forward
        searches only): the access arrays are not used, journeys start with that trip's
        leg (``TransitLeg.onboard``), which is no boarding (no board cost, slack or wait,
        and it does not count against ``max_rounds``).
    criteria
        ``"arrival"``: (arrival, rides) Pareto set; ``"cost"``: (arrival, rides, cost) McRAPTOR.
    """

    access_stops: Int32Array
    access_time_s: Int32Array
    access_cost: FloatArray
    egress_stops: Int32Array
    egress_time_s: Int32Array
    egress_cost: FloatArray
    time: int
    arrive_by: bool = False
    max_rounds: int = 5
    search_window_s: int = 24 * 3600
    board_slack_s: int = 0
    alight_slack_s: int = 0
    transfer_slack_s: int = 0
    transfer_offsets: IntArray = field(default_factory=_no_i64)
    transfer_to: Int32Array = field(default_factory=_no_i32)
    transfer_time_s: Int32Array = field(default_factory=_no_i32)
    transfer_cost: FloatArray = field(default_factory=_no_f64)
    route_allowed: UInt8Array | None = None
    trip_allowed: UInt8Array | None = None
    stop_board_allowed: UInt8Array | None = None
    stop_alight_allowed: UInt8Array | None = None
    stop_pass_allowed: UInt8Array | None = None
    trip_stop_bans: IntArray | None = None
    rules: TransferRules | None = None
    board_cost: float = 600.0
    transfer_penalty: float = 0.0
    nonpreferred_transfer_penalty: float = 180.0
    wait_reluctance: float = 1.0
    wait_at_beginning_factor: float = 0.4
    route_penalty: FloatArray | None = None
    trip_board_cost: FloatArray | None = None
    stop_cost: FloatArray | None = None
    criteria: Literal["arrival", "cost"] = "arrival"
    stay_seated: StaySeated | None = None
    onboard: OnBoard | None = None

    def __post_init__(self) -> None:
        # the fields are replaced in the instance's dict (the class is frozen)
        state = self.__dict__
        for name, dtype, non_negative in _ARRAY_FIELDS:
            value = state[name]
            if value is None:
                continue
            if non_negative:  # before a cast to int32 could wrap the value around
                _check_bounds(name, value)
            a = np.ascontiguousarray(value, dtype=dtype)
            if a.ndim != 1:
                msg = f"RaptorRequest.{name} must be one-dimensional"
                raise ValueError(msg)
            state[name] = a
        if state["trip_stop_bans"] is not None:
            state["trip_stop_bans"] = np.sort(state["trip_stop_bans"])
        for name in _INT_FIELDS:
            state[name] = int(state[name])
        state["arrive_by"] = bool(state["arrive_by"])
        self._check()

    def with_access(self, stops: Int32Array, time_s: Int32Array, cost: FloatArray) -> RaptorRequest:
        """This request from other access stops, validating only the new arrays.

        For many searches that differ only in their origin (matrices): the other
        arrays, large walking-transfer arrays included, were checked once already.
        """
        given = {"access_stops": stops, "access_time_s": time_s, "access_cost": cost}
        values: dict[str, Any] = {}
        for name, value in given.items():
            if name in _NON_NEGATIVE:
                _check_bounds(name, value)
            a = np.ascontiguousarray(value, dtype=_ARRAYS[name])
            if a.ndim != 1:
                msg = f"RaptorRequest.{name} must be one-dimensional"
                raise ValueError(msg)
            values[name] = a
        if (
            not len(values["access_stops"])
            == len(values["access_time_s"])
            == len(values["access_cost"])
        ):
            msg = "RaptorRequest.access_time_s and access_cost must have the length of access_stops"
            raise ValueError(msg)
        out = object.__new__(RaptorRequest)
        out.__dict__.update(self.__dict__)
        out.__dict__.update(values)
        return out

    def with_trip_allowed(self, trip_allowed: UInt8Array | None) -> RaptorRequest:
        """This request with other ``trip_allowed`` flags, the other fields as checked.

        For the searches of a plan that differ only in the trips they may ride (the
        trips of the journeys found so far banned): nothing else is converted or
        validated again, and a search of this request reuses what the search of this
        one built that does not depend on the trips (:func:`._prepare.same_but_trips`).
        """
        value = None
        if trip_allowed is not None:
            value = np.ascontiguousarray(trip_allowed, dtype=_OPTIONAL["trip_allowed"])
            if value.ndim != 1:
                msg = "RaptorRequest.trip_allowed must be one-dimensional"
                raise ValueError(msg)
        out = object.__new__(RaptorRequest)
        out.__dict__.update(self.__dict__)
        out.__dict__["trip_allowed"] = value
        same_but_trips(out, self)
        return out

    def _check(self) -> None:
        state = self.__dict__
        for group, *columns in _ENDS:
            n = len(state[group])
            for name in columns:
                if len(state[name]) != n:
                    msg = f"RaptorRequest.{name} must have the length of {group}"
                    raise ValueError(msg)
        off = self.transfer_offsets
        m = int(off[-1]) if len(off) else 0
        if len(off) and not known_valid(off, "csr"):
            if off[0] != 0 or np.any(np.diff(off) < 0):
                msg = "RaptorRequest.transfer_offsets must start at 0 and never decrease"
                raise ValueError(msg)
            remember_valid(off, "csr")
        for name in ("transfer_to", "transfer_time_s", "transfer_cost"):
            if len(state[name]) != m:
                msg = f"RaptorRequest.{name} must have transfer_offsets[-1] = {m} entries"
                raise ValueError(msg)
        _check_scalars(state)  # arrays were checked before their cast
        if self.max_rounds < 1:
            msg = "RaptorRequest.max_rounds must be at least 1"
            raise ValueError(msg)
        if not -MAX_ABS_TIME_S <= self.time <= MAX_ABS_TIME_S:
            msg = f"RaptorRequest.time must be within +-{MAX_ABS_TIME_S} s"
            raise ValueError(msg)
        if self.onboard is not None and self.arrive_by:
            msg = "RaptorRequest.onboard (depart on board) cannot be combined with arrive_by"
            raise ValueError(msg)
        if self.criteria not in ("arrival", "cost"):
            msg = f"RaptorRequest.criteria must be 'arrival' or 'cost', not {self.criteria!r}"
            raise ValueError(msg)


def _sorted(journeys: list[RaptorJourney], reverse: bool) -> list[RaptorJourney]:
    if reverse:
        return sorted(journeys, key=lambda j: (-j.departure, j.n_rides, j.cost))
    return sorted(journeys, key=lambda j: (j.arrival, j.n_rides, j.cost))


def _round_search(
    p: Prepared, request: RaptorRequest
) -> tuple[RoundLabels, list[tuple[int, int, int]]]:
    """The round search's labels and its journeys: ``(round, egress entry, arrival)``
    per round that arrives earlier than the rounds before (arrival in search direction).

    The labels are the thread's (:func:`take_round_labels`): give them back once read.
    Stops are boarded from only while the rides left can still reach the destination
    (the rides bounds of :func:`lower_bounds`, kept for the cost search that follows).
    """
    q = p.query
    lab = take_round_labels(q.max_rounds + 1, p.timetable.n_stops)
    last = _shared(p, "last_round", lambda: _last_rounds(p, request))
    run_rounds(p.timetable, q, lab, q.time, True, NO_RIDDEN, last)
    rows = improving_rounds(lab.r_time, q.egress_stops, q.egress_time, q.max_rounds)
    found = [(k, i, t) for k, i, t in rows.tolist()]
    return lab, found


_T = TypeVar("_T")


def _shared(p: Prepared, key: str, build: Callable[[], _T]) -> _T:
    """``build()``, kept in ``p.shared`` under ``key``: for values that depend on nothing
    the searches prepared from ``p`` for other trip flags change (:func:`.prepare`)."""
    if p.shared is None:
        return build()
    value: _T | None = p.shared.get(key)
    if value is None:
        value = p.shared[key] = build()
    return value


def _last_rounds(p: Prepared, request: RaptorRequest) -> Int32Array:
    """Per stop, the last round whose labels are marked for boarding (``run_rounds``):
    ``max_rounds`` less the rides still needed (-1: the destination is out of reach)."""
    rides = lower_bounds(p, request, -np.inf).rides
    out: Int32Array = np.where(np.isfinite(rides), p.query.max_rounds - rides, -1.0).astype(
        np.int32
    )
    return out


def _route_arrival(p: Prepared, request: RaptorRequest) -> list[RaptorJourney]:
    """Journeys of the round search."""
    lab, found = _round_search(p, request)
    stops = p.query.egress_stops
    out = [journey(p, round_path(p, lab, k, int(stops[i])), i) for k, i, _ in found]
    give_round_labels(lab)
    return out


#: Least label capacity a McRAPTOR search asks for (a thread's pool may be larger):
#: ``max(_LEAST_LABELS, _LABELS_PER_STOP * n_stops)``.
_LEAST_LABELS = 1 << 14
_LABELS_PER_STOP = 8
#: Room for journeys a McRAPTOR search asks for beyond the seeded ones.
_LEAST_DEST = 64
#: Route-bag capacity a McRAPTOR search starts with (the kernel allocates the bags; a
#: larger one costs nothing measurable and spares the searches that overflowed 64).
_FIRST_ROUTE_BAG = 256


def _least_label(q: SearchQuery) -> float:
    """The least cost of a label McRAPTOR tests against its bounds: the cheapest access
    and a boarding."""
    return float(q.access_cost.min()) + q.board_cost if len(q.access_cost) else 0.0


class _Known(NamedTuple):
    """A journey of the round search, as McRAPTOR's pruning uses it."""

    n_rides: int
    cost: float


def _route_cost(p: Prepared, request: RaptorRequest) -> list[RaptorJourney]:
    q = p.query
    n_rounds, n_stops = q.max_rounds + 1, p.timetable.n_stops
    # the fastest journeys bound the search: nothing arrives earlier, and whatever
    # could only arrive later for more cost (and rides) is dominated by them (their
    # rides and costs are those of the journeys, without building their legs)
    lab_r, found = _round_search(p, request)
    known = [
        _Known(*path_cost(p, round_path(p, lab_r, k, q.egress_stops.item(i)), i))
        for k, i, _ in found
    ]
    give_round_labels(lab_r)
    del lab_r
    if not found:
        return []
    arrivals = [t for _, _, t in found]
    ea_min = float(min(arrivals))
    # bounds reaching the dearest cost seeded below prune as exact ones would; the
    # labels tested against them already cost the cheapest access and a boarding (one
    # cost unit, and 1e-11 of the cost, kept as margin for rounding: costs may reach
    # 1e15), so the bounds need reach that much less
    dearest = max(seed_cost(kj.cost) for kj in known)
    least_label = _shared(p, "least_label", lambda: _least_label(q))
    keep = 1.0 + 1e-11 * abs(dearest)
    bounds = lower_bounds(p, request, dearest - max(least_label - keep, 0.0))
    pref = route_prefix(p.timetable)
    rates = _shared(
        p, "time_rates",
        lambda: time_rates(q, walk_rate(request.transfer_time_s, request.transfer_cost)),
    )  # fmt: skip
    # the pool is the thread's (at least this large, see _label_pools); what the search
    # finds does not depend on its capacities: when one overflows, it runs again
    cap, dest_cap = max(_LEAST_LABELS, _LABELS_PER_STOP * n_stops), _LEAST_DEST + len(known)
    rb_cap = _FIRST_ROUTE_BAG
    while True:
        lab = take_mc_labels(n_rounds, n_stops, cap, dest_cap, rb_cap)
        for i, (kj, t) in enumerate(zip(known, arrivals, strict=True)):
            lab.d_label[i], lab.d_egress[i], lab.d_time[i] = -1, -1, t
            lab.d_cost[i], lab.d_round[i], lab.d_alive[i] = seed_cost(kj.cost), kj.n_rides, 1
        lab.used[1] = len(known)
        status = run_mc(p.timetable, q, lab, bounds, ea_min, pref, *rates)
        if status == 0:
            break
        give_mc_labels(lab)
        if status == OVERFLOW_LABELS:
            cap = 4 * lab.time.shape[0]
        elif status == OVERFLOW_DEST:
            dest_cap = 4 * lab.d_time.shape[0]
        else:
            rb_cap *= 4
    out: list[RaptorJourney] = []
    d_alive, d_label = lab.d_alive.item, lab.d_label.item
    for i in range(lab.used.item(1)):
        if d_alive(i) and d_label(i) >= 0:
            raw = mc_path(lab, d_label(i))
            out.append(journey(p, raw, lab.d_egress.item(i), lab.d_cost.item(i)))
    give_mc_labels(lab)
    return out


def route(timetable: RaptorTimetable, request: RaptorRequest) -> list[RaptorJourney]:
    """Pareto-optimal journeys from the access stops to the egress stops.

    Parameters
    ----------
    timetable
        Timetable of the search date.
    request
        The search.

    Returns
    -------
    list of RaptorJourney
        ``criteria="arrival"``: one journey per number of rides that arrives strictly
        earlier than with fewer rides; ``criteria="cost"``: the (arrival, rides, cost)
        Pareto set.  For ``arrive_by`` the criteria are a later departure, rides and cost.
        Sorted by arrival (departure, latest first, for ``arrive_by``), then rides, then
        cost.  Access legs end at the first boarding (minus board slack); for
        ``arrive_by`` egress legs start right after the last alighting.
    """
    p = prepare(timetable, request)
    journeys = _route_cost(p, request) if request.criteria == "cost" else _route_arrival(p, request)
    if p.onboard is not None:
        # the kernels charged boarding the on-board trip: the same for every journey
        q = p.query
        offset = onboard_cost_offset(q.board_cost, q.initial_wait_factor * q.wait_reluctance,
                                     request.board_slack_s)  # fmt: skip
        journeys = [dataclasses.replace(j, cost=j.cost - offset) for j in journeys]
    return _sorted(journeys, p.reverse)


def _as_times(o_time: IntArray, reverse: bool) -> FloatArray:
    out = o_time.astype(np.float64)
    out[o_time >= INF] = np.inf
    return -out if reverse else out


def _check_arrivals(arrivals: str) -> bool:
    if arrivals not in ("any", "ride"):
        msg = f"arrivals must be 'any' or 'ride', not {arrivals!r}"
        raise ValueError(msg)
    return arrivals == "ride"


def earliest_arrivals(
    timetable: RaptorTimetable,
    request: RaptorRequest,
    *,
    arrivals: Literal["any", "ride"] = "any",
) -> FloatArray:
    """Best arrival time at every stop, over all rounds (access, rides and walking transfers).

    Parameters
    ----------
    timetable
        Timetable of the search date.
    request
        The search; egress stops are not used.
    arrivals
        ``"any"``: by any leg; ``"ride"``: only arrivals whose last leg is a ride, the
        ones an egress may start from (``inf`` at stops reached only on foot).

    Returns
    -------
    numpy.ndarray
        Seconds since the epoch per stop, ``inf`` where unreachable; for ``arrive_by``
        the latest departure from each stop that still arrives in time (``-inf``: none).
        Ride arrivals include the alight slack.
    """
    ride = _check_arrivals(arrivals)
    p = prepare(timetable, request)
    lab = take_round_labels(p.query.max_rounds + 1, p.timetable.n_stops)
    run_rounds(p.timetable, p.query, lab, p.query.time, False, NO_RIDDEN, NO_LAST)
    labels = lab.r_time if ride else lab.o_time
    out = _as_times(labels[p.query.max_rounds], p.reverse)
    give_round_labels(lab)
    return out


def range_raptor(
    timetable: RaptorTimetable,
    request: RaptorRequest,
    departure_times: IntArray,
    *,
    arrivals: Literal["any", "ride"] = "any",
    max_duration_s: int | None = None,
) -> FloatArray:
    """Earliest arrivals for several departure times, by range RAPTOR.

    Departures are processed latest first and labels are reused.  The boarding
    window is anchored at the latest departure ``t_max``, so row ``i`` equals
    ``earliest_arrivals`` with ``time=departure_times[i]`` and
    ``search_window_s = t_max + request.search_window_s - departure_times[i]``.

    Parameters
    ----------
    timetable
        Timetable of the search date.
    request
        The search (``criteria="arrival"``, forward); ``request.time`` is not used.
    departure_times
        Seconds since the epoch, in any order.
    arrivals
        ``"any"`` or ``"ride"``, as for :func:`earliest_arrivals`.
    max_duration_s
        Arrivals later than ``departure_times[i] + max_duration_s`` are reported as
        unreachable (``inf``) in row ``i``; the others are unchanged.  The search then
        skips what cannot arrive in time (with transfers.txt rules, whose searches do
        not reuse labels, the rows are only clipped).

    Returns
    -------
    numpy.ndarray
        ``(len(departure_times), n_stops)`` arrival times (``inf``: unreachable), rows in
        the order of ``departure_times``.
    """
    if request.arrive_by or request.criteria != "arrival":
        msg = "range_raptor supports forward searches with criteria='arrival' only"
        raise ValueError(msg)
    ride = _check_arrivals(arrivals)
    if max_duration_s is not None and max_duration_s < 0:
        msg = "max_duration_s must not be negative"
        raise ValueError(msg)
    limit = INF if max_duration_s is None else min(int(max_duration_s), INF)
    times = np.ascontiguousarray(departure_times, dtype=np.int64).ravel()
    n_stops = int(timetable.n_stops)
    out = np.full((len(times), n_stops), np.inf)
    if len(times) == 0:
        return out
    p = prepare(timetable, request, time=int(times.max()))
    order = np.argsort(-times, kind="stable")
    if request.rules is not None and len(request.rules):
        # rules depend on which ride a label came from: no label reuse across departures
        for i in order:
            lab = new_round_labels(p.query.max_rounds + 1, n_stops)
            run_rounds(p.timetable, p.query, lab, int(times[i]), False, NO_RIDDEN, NO_LAST)
            labels = lab.r_time if ride else lab.o_time
            out[i] = _as_times(labels[p.query.max_rounds], False)
            if max_duration_s is not None:
                out[i][out[i] > times[i] + limit] = np.inf
        return out
    lab = new_round_labels(p.query.max_rounds + 1, n_stops)
    ridden = new_ridden(p.query.max_rounds + 1, p.timetable.n_route_trips)
    block = np.empty((len(times), n_stops))
    latest_first = np.ascontiguousarray(times[order])
    range_rounds(p.timetable, p.query, lab, ridden, latest_first, block, ride, limit)
    out[order] = block
    return out
