"""The search-direction view of a request that the numba kernels read.

:class:`SearchQuery` is a flat named tuple (numba types it field by field).  It is
always expressed in the *search direction*: for an arrive-by request the
timetable is reversed (times negated), so ``access`` here means the request's
egress, ``board_slack`` its alight slack, and so on (see :mod:`._prepare`).
"""

from __future__ import annotations

from typing import NamedTuple

from otpa.types import FloatArray, Int32Array, IntArray, UInt8Array

__all__ = ["INF", "SearchQuery"]

#: "Unreached" in the int64 time labels; far from overflow when durations are added.
INF = 1 << 60


class SearchQuery(NamedTuple):
    """A validated request in search direction; every array is present (no ``None``)."""

    access_stops: Int32Array
    access_time: Int32Array
    access_cost: FloatArray
    egress_stops: Int32Array
    egress_time: Int32Array
    egress_cost: FloatArray
    time: int  # search-direction departure
    max_rounds: int
    cap: int  # latest boarding departure (search direction)
    board_slack: int
    alight_slack: int
    gap: int  # minimum alight -> board gap of a transfer: max(transfer, board + alight slack)
    tr_offsets: IntArray
    tr_to: Int32Array
    tr_time: Int32Array
    tr_cost: FloatArray
    route_allowed: UInt8Array
    trip_allowed: UInt8Array
    stop_board: UInt8Array
    stop_alight: UInt8Array
    stop_pass: UInt8Array
    trip_stop_bans: IntArray
    has_rules: bool
    r_key: IntArray
    r_from_route: Int32Array
    r_to_route: Int32Array
    r_from_trip: Int32Array
    r_to_trip: Int32Array
    r_kind: UInt8Array
    r_min: Int32Array
    has_preferred: bool
    board_cost: float
    transfer_penalty: float
    nonpreferred_penalty: float
    wait_reluctance: float
    initial_wait_factor: float  # wait_reluctance factor of the wait before the first boarding
    route_penalty: FloatArray
    trip_board_cost: FloatArray  # per route-trip, added to each boarding
    stop_cost: FloatArray  # per stop, added to each boarding and alighting there
    first_route: int  # >= 0: in round 1 only this route is boarded, and never after (on board)
    # per route position of ``timetable``: least and greatest departure there or later
    # (``_floor``); empty: route scans are not skipped by them
    dep_floor: Int32Array
    dep_ceil: Int32Array
