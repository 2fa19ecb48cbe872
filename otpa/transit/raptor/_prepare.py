"""Turn a (timetable, request) pair into the search-direction inputs of the kernels.

Forward searches use the timetable as is.  Arrive-by searches run forward on the
reversed view (:mod:`._reverse`): access and egress swap, so do board and alight
slacks and flags, walking transfers are transposed and transfers.txt rules are
looked up with their stops swapped (OTP 1.x ``TransferTable.getTransferTime``
swaps them back, so the same rule applies in both directions).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from otpa.transit.raptor._floor import departure_bounds
from otpa.transit.raptor._memo import constant, known_valid, remember_valid
from otpa.transit.raptor._onboard import OnBoardRoute, add_onboard
from otpa.transit.raptor._query import SearchQuery
from otpa.transit.raptor._reverse import (
    flip_positions,
    flip_route_trips,
    normalized,
    readonly,
    reversed_timetable,
    transposed_transfers,
)
from otpa.transit.raptor._stay_seated import StaySeatedView, extend_filters, stay_seated_view
from otpa.transit.raptor.spi import RaptorTimetable, TransferRules
from otpa.types import FloatArray, IntArray, UInt8Array

if TYPE_CHECKING:
    from otpa.transit.raptor.api import RaptorRequest

__all__ = ["Prepared", "prepare", "same_but_trips"]

_EMPTY_I64 = readonly(np.zeros(0, np.int64), np.int64)
_EMPTY_I32 = readonly(np.zeros(0, np.int32), np.int32)


class Prepared(NamedTuple):
    """Kernel inputs: the timetable searched, the query, and whether it is reversed.

    ``edge_map`` maps the query's transfer edges to the request's (arrive-by only);
    ``stay`` maps the extra routes of interlined trips back to the request's timetable,
    ``onboard`` the route of an on-board start.  ``shared`` keeps what the searches
    derive from everything but the trip flags (:func:`.api._shared`): the searches
    prepared from this one for requests with other trip flags (:func:`_other_trips`)
    share it.
    """

    timetable: RaptorTimetable
    query: SearchQuery
    reverse: bool
    edge_map: IntArray | None = None
    stay: StaySeatedView | None = None
    onboard: OnBoardRoute | None = None
    shared: dict[str, Any] | None = None


def _check_length(name: str, a: np.ndarray[Any, Any] | None, n: int, what: str) -> None:
    if a is not None and a.shape[0] != n:
        msg = f"RaptorRequest.{name} has length {a.shape[0]}, expected {n} ({what})"
        raise ValueError(msg)


def _check_stops(name: str, a: np.ndarray[Any, Any], n_stops: int) -> None:
    check = f"stops<{n_stops}"
    if not a.shape[0] or known_valid(a, check):
        return
    if int(a.min()) < 0 or int(a.max()) >= n_stops:
        msg = f"RaptorRequest.{name} holds stop indices outside 0..{n_stops - 1}"
        raise ValueError(msg)
    remember_valid(a, check)


def _validate(tt: RaptorTimetable, req: RaptorRequest) -> None:
    n = tt.n_stops
    _check_stops("access_stops", req.access_stops, n)
    _check_stops("egress_stops", req.egress_stops, n)
    if req.transfer_offsets.shape[0]:
        _check_length("transfer_offsets", req.transfer_offsets, n + 1, "n_stops + 1")
        _check_stops("transfer_to", req.transfer_to, n)
    _check_length("route_allowed", req.route_allowed, tt.n_routes, "n_routes")
    _check_length("route_penalty", req.route_penalty, tt.n_routes, "n_routes")
    _check_length("trip_allowed", req.trip_allowed, tt.n_route_trips, "n_route_trips")
    _check_length("trip_board_cost", req.trip_board_cost, tt.n_route_trips, "n_route_trips")
    _check_length("stop_cost", req.stop_cost, tt.n_stops, "n_stops")
    for name in ("stop_board_allowed", "stop_alight_allowed", "stop_pass_allowed"):
        _check_length(name, getattr(req, name), n, "n_stops")
    rules = req.rules
    if rules is not None and rules.n_stops not in (-1, n):
        msg = f"RaptorRequest.rules were built for {rules.n_stops} stops, the timetable has {n}"
        raise ValueError(msg)


def _append_one(a: Any, n: int, dtype: Any, value: float) -> Any:
    """``a`` (``None``: ``n`` neutral values) with ``value`` appended."""
    if a is None:
        return None
    return np.r_[np.asarray(a, dtype), np.asarray([value], dtype)]


def _flags(a: np.ndarray[Any, Any] | None, n: int) -> np.ndarray[Any, Any]:
    return constant(1, n, "uint8") if a is None else readonly(a, np.uint8)


def _reverse_bans(tt: RaptorTimetable, bans: IntArray) -> IntArray:
    if bans.shape[0] == 0:
        return bans
    trips = bans >> 16
    pos = bans & 0xFFFF
    routes = np.searchsorted(tt.route_trip_offsets, trips, side="right") - 1
    out: IntArray = np.sort(flip_route_trips(tt)[trips] * 65536 + flip_positions(tt, routes, pos))
    return out


#: The query's rule arrays without transfers.txt rules (shared, read-only).
_NO_RULES: Mapping[str, Any] = MappingProxyType(
    {
        "has_rules": False,
        "r_key": _EMPTY_I64,
        "r_from_route": _EMPTY_I32,
        "r_to_route": _EMPTY_I32,
        "r_from_trip": _EMPTY_I32,
        "r_to_trip": _EMPTY_I32,
        "r_kind": readonly(np.zeros(0, np.uint8), np.uint8),
        "r_min": _EMPTY_I32,
        "has_preferred": False,
    }
)


def _rule_arrays(rules: TransferRules | None, n: int, reverse: bool) -> Mapping[str, Any]:
    if rules is None or len(rules) == 0:
        return _NO_RULES
    parts = [rules.from_route, rules.to_route, rules.from_trip, rules.to_trip]
    key = rules.key
    if reverse:
        key = (key % n) * n + key // n
        parts = [rules.to_route, rules.from_route, rules.to_trip, rules.from_trip]
    order = np.argsort(key, kind="stable")
    names = ("r_from_route", "r_to_route", "r_from_trip", "r_to_trip")
    out: dict[str, Any] = {
        k: readonly(v[order], np.int32) for k, v in zip(names, parts, strict=True)
    }
    out.update(
        has_rules=True,
        r_key=readonly(key[order], np.int64),
        r_kind=readonly(rules.kind[order], np.uint8),
        r_min=readonly(np.maximum(rules.min_time_s[order], 0), np.int32),
        has_preferred=rules.has_preferred,
    )
    return out


_LOCK = threading.Lock()
#: Per request: the request it was derived from by ``with_trip_allowed`` (the same but
#: its ``trip_allowed``), and the timetable and search it was last prepared for.  A
#: derived request keeps its root alive (the first request of the chain, whose search
#: serves every request derived from it, and none in between): a plan's loop that rebinds
#: one name to each next search's request would otherwise drop the parent before its
#: child is prepared, and a chain of derived requests holds one search, not one per link.
_PARENT: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
_PREPARED: weakref.WeakKeyDictionary[Any, tuple[RaptorTimetable, Prepared]] = (
    weakref.WeakKeyDictionary()
)


def same_but_trips(req: RaptorRequest, parent: RaptorRequest) -> None:
    """Note that ``req`` is ``parent`` with other ``trip_allowed`` flags, every other
    field the same object (:meth:`.api.RaptorRequest.with_trip_allowed`)."""
    with _LOCK:
        _PARENT[req] = _PARENT.get(parent, parent)


def _other_trips(timetable: RaptorTimetable, req: RaptorRequest) -> Prepared | None:
    """The search of ``req`` from that of the request it differs from only in its
    ``trip_allowed`` (:func:`same_but_trips`), if that was prepared for ``timetable``
    without interlined or on-board routes; else ``None``.

    Everything but the query's ``trip_allowed`` depends on the fields the two share
    (validated then, as :meth:`.api.RaptorRequest.with_trip_allowed` says), so only
    that is checked and built again, as :func:`prepare` does.
    """
    with _LOCK:
        parent = _PARENT.get(req)
        hit = None if parent is None else _PREPARED.get(parent)
    if hit is None or hit[0] is not timetable:
        return None
    p = hit[1]
    if p.stay is not None or p.onboard is not None:
        return None
    tt = p.timetable  # a reversed view keeps the route-trip offsets
    _check_length("trip_allowed", req.trip_allowed, tt.n_route_trips, "n_route_trips")
    trip_allowed = _flags(req.trip_allowed, tt.n_route_trips)
    if p.reverse:
        trip_allowed = trip_allowed[flip_route_trips(tt)]
    q = p.query._replace(trip_allowed=readonly(trip_allowed, np.uint8))
    return p._replace(query=q)


def prepare(timetable: RaptorTimetable, req: RaptorRequest, *, time: int | None = None) -> Prepared:
    """Validate ``req`` against ``timetable`` and build the search-direction query.

    A request that differs from one prepared before only in its ``trip_allowed``
    (:func:`same_but_trips`) reuses that one's search (:func:`_other_trips`).

    Parameters
    ----------
    timetable
        The timetable of the search date.
    req
        The request.
    time
        Overrides ``req.time`` as the anchor of the search window (range RAPTOR).

    Returns
    -------
    Prepared
        The searched timetable (reversed for arrive-by), the query and the direction.
    """
    out = _other_trips(timetable, req) if time is None else None
    if out is None:
        out = _prepare(timetable, req, time)
    if time is None:
        with _LOCK:
            _PREPARED[req] = (timetable, out)
    return out


def _prepare(timetable: RaptorTimetable, req: RaptorRequest, time: int | None) -> Prepared:
    """:func:`prepare` in full."""
    tt = normalized(timetable)
    _validate(tt, req)
    n = tt.n_stops
    reverse = req.arrive_by
    off, to = req.transfer_offsets, req.transfer_to
    tr_time, tr_cost = req.transfer_time_s, req.transfer_cost
    if off.shape[0] == 0:
        off = constant(0, n + 1, "int64")
    route_allowed: UInt8Array | None = req.route_allowed
    trip_allowed: UInt8Array | None = req.trip_allowed
    bans: IntArray | None = req.trip_stop_bans
    route_penalty: FloatArray | None = req.route_penalty
    trip_cost = (
        constant(0.0, tt.n_route_trips, "float64")
        if req.trip_board_cost is None
        else req.trip_board_cost
    )
    view = None
    if req.stay_seated is not None and len(req.stay_seated):
        view = stay_seated_view(timetable, req.stay_seated)
    if view is not None:
        # interlined trips ride extra routes: searched like any other
        route_allowed, trip_allowed, bans, route_penalty = extend_filters(
            view, route_allowed, trip_allowed, bans, route_penalty
        )
        # an interlined run costs what its costliest trip does
        parts = np.asarray(trip_cost, np.float64)[view.tp_base]
        trip_cost = np.r_[trip_cost, np.maximum.reduceat(parts, view.tp_offsets[:-1])]
        timetable = tt = view.timetable
    access = (req.access_stops, req.access_time_s, req.access_cost)
    onboard = None
    start, max_rounds = req.time, req.max_rounds
    if req.onboard is not None:
        # the rider rides route R* first (see _onboard): the only access is its first stop,
        # the board slack before it leaves; the on-board start is no boarding (one more round)
        next_trip = None if view is None else view.next_trip
        timetable, onboard = add_onboard(tt, req.onboard, req.time, next_trip)
        n_old, tt = tt.n_routes, timetable
        route_allowed = _append_one(route_allowed, n_old, np.uint8, 1)
        trip_allowed = _append_one(trip_allowed, tt.n_route_trips - 1, np.uint8, 1)
        route_penalty = _append_one(route_penalty, n_old, np.float64, 0)
        trip_cost = np.r_[trip_cost, 0.0]
        first_stop = tt.route_stops[tt.route_stop_offsets[onboard.route]]
        access = (np.array([first_stop]), np.zeros(1, np.int32), np.zeros(1))
        start, max_rounds = req.time - req.board_slack_s, max_rounds + 1
    trip_allowed = _flags(trip_allowed, tt.n_route_trips)
    bans = bans if bans is not None else _EMPTY_I64
    egress = (req.egress_stops, req.egress_time_s, req.egress_cost)
    board_slack, alight_slack = req.board_slack_s, req.alight_slack_s
    stop_board, stop_alight = req.stop_board_allowed, req.stop_alight_allowed
    anchor = req.time if time is None else time
    edge = None
    if reverse:
        off, to, edge = transposed_transfers(off, to, n)
        tr_time, tr_cost = tr_time[edge], tr_cost[edge]
        trip_allowed = trip_allowed[flip_route_trips(tt)]
        trip_cost = np.asarray(trip_cost)[flip_route_trips(tt)]
        bans = _reverse_bans(tt, bans)
        access, egress = egress, access
        board_slack, alight_slack = alight_slack, board_slack
        stop_board, stop_alight = stop_alight, stop_board
        anchor = -anchor
        tt = reversed_timetable(timetable)
    penalty = constant(0.0, tt.n_routes, "float64") if route_penalty is None else route_penalty
    departures = departure_bounds(tt) if onboard is None else (_EMPTY_I32, _EMPTY_I32)
    q = SearchQuery(
        access_stops=readonly(access[0], np.int32),
        access_time=readonly(access[1], np.int32),
        access_cost=readonly(access[2], np.float64),
        egress_stops=readonly(egress[0], np.int32),
        egress_time=readonly(egress[1], np.int32),
        egress_cost=readonly(egress[2], np.float64),
        time=-req.time if reverse else start,
        max_rounds=max_rounds,
        cap=anchor + req.search_window_s,
        board_slack=board_slack,
        alight_slack=alight_slack,
        gap=max(req.transfer_slack_s, req.board_slack_s + req.alight_slack_s),
        tr_offsets=readonly(off, np.int64),
        tr_to=readonly(to, np.int32),
        tr_time=readonly(tr_time, np.int32),
        tr_cost=readonly(tr_cost, np.float64),
        route_allowed=_flags(route_allowed, tt.n_routes),
        trip_allowed=readonly(trip_allowed, np.uint8),
        stop_board=_flags(stop_board, n),
        stop_alight=_flags(stop_alight, n),
        stop_pass=_flags(req.stop_pass_allowed, n),
        trip_stop_bans=readonly(bans, np.int64),
        board_cost=float(req.board_cost),
        transfer_penalty=float(req.transfer_penalty),
        nonpreferred_penalty=float(req.nonpreferred_transfer_penalty),
        wait_reluctance=float(req.wait_reluctance),
        initial_wait_factor=float(req.wait_at_beginning_factor),
        route_penalty=readonly(penalty, np.float64),
        trip_board_cost=readonly(trip_cost, np.float64),
        stop_cost=readonly(
            constant(0.0, n, "float64") if req.stop_cost is None else req.stop_cost, np.float64
        ),
        first_route=-1 if onboard is None else onboard.route,
        # an on-board start's timetable is built for one search (and prunes no scans)
        dep_floor=departures[0],
        dep_ceil=departures[1],
        **_rule_arrays(req.rules, n, reverse),
    )
    return Prepared(tt, q, reverse, edge, view, onboard, {})
