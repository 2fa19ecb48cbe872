"""What RAPTOR consumes: a one-date timetable and the transfers.txt rules, as plain arrays.

The transit model is mapped onto these types outside the component
(:mod:`otpa.transit.raptor_data`), so RAPTOR depends on nothing but numpy.

A *route* here is RAPTOR's unit of scanning: one trip pattern instantiated on
one service day, with only the trips that run that day, sorted by departure.
Trips of a route never overtake each other, so at every stop position both
departures and arrivals are non-decreasing in trip order; boarding can use a
binary search.  All times are integer seconds since :attr:`RaptorTimetable.epoch`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from otpa.types import Int32Array, IntArray, UInt8Array

__all__ = [
    "TRANSFER_FORBIDDEN",
    "TRANSFER_MIN_TIME",
    "TRANSFER_PREFERRED",
    "TRANSFER_TIMED",
    "RaptorTimetable",
    "StaySeated",
    "TransferRules",
]

#: GTFS ``transfer_type`` values, as used in :attr:`TransferRules.kind`.
TRANSFER_PREFERRED = 0
TRANSFER_TIMED = 1
TRANSFER_MIN_TIME = 2
TRANSFER_FORBIDDEN = 3


class RaptorTimetable(NamedTuple):
    """Timetable of one search date: every (pattern, service day) pair with active trips is a route.

    Attributes
    ----------
    n_stops
        Number of stops (the model's stop indices are used unchanged).
    route_stop_offsets
        CSR offsets (``n_routes + 1``) into ``route_stops``, ``route_board`` and ``route_alight``.
    route_stops
        Stop index of every route position.
    route_board
        1 where boarding is possible (GTFS ``pickup_type != 1``), per route position.
    route_alight
        1 where alighting is possible (GTFS ``drop_off_type != 1``), per route position.
    route_trip_offsets
        CSR offsets (``n_routes + 1``) into ``route_trip_ref``; a position in ``route_trip_ref``
        is a *route-trip index*.
    route_trip_ref
        Model trip index of each route-trip (trips of a route sorted by departure).
    route_time_offsets
        Start (``n_routes``) of each route's block in ``arrival``/``departure``.
    arrival, departure
        Seconds since ``epoch``, trip-major: trip ``k`` of route ``r`` at position ``j`` is at
        ``route_time_offsets[r] + k * n_positions(r) + j``.
    route_pattern
        Model pattern index of each route.
    route_day
        Service-day offset of each route relative to the search date (-1, 0, +1).
    stop_route_offsets, stop_routes, stop_route_pos
        CSR over stops: the routes calling at each stop and the stop's position in them,
        one entry per route position (a route that visits a stop twice is listed twice:
        the kernels board a route only at the positions listed for marked stops).
    epoch
        Unix seconds of the search date at 00:00 local time in the network's time zone.
    route_gtfs_route
        Model (GTFS) route index of each route; used by route-level transfer rules.
    """

    n_stops: int
    route_stop_offsets: IntArray
    route_stops: Int32Array
    route_board: UInt8Array
    route_alight: UInt8Array
    route_trip_offsets: IntArray
    route_trip_ref: Int32Array
    route_time_offsets: IntArray
    arrival: Int32Array
    departure: Int32Array
    route_pattern: Int32Array
    route_day: Int32Array
    stop_route_offsets: IntArray
    stop_routes: Int32Array
    stop_route_pos: Int32Array
    epoch: int
    route_gtfs_route: Int32Array

    @property
    def n_routes(self) -> int:
        """Number of routes (pattern, service day pairs)."""
        return int(self.route_stop_offsets.shape[0] - 1)

    @property
    def n_route_trips(self) -> int:
        """Number of route-trips (trip instances of the search date)."""
        return int(self.route_trip_ref.shape[0])


@dataclass(frozen=True, eq=False)
class TransferRules:
    """GTFS ``transfers.txt`` rules as sorted arrays (one row per rule).

    A rule applies to a transfer from alighting at stop ``A`` to boarding at stop
    ``B`` (``A == B`` for an in-station transfer).  For one ``(A, B)`` pair the
    rule used is, as in OpenTripPlanner 1.x, the first matching row of the lowest
    ``level`` with the highest specificity (trip beats route beats stop, counted
    separately on the from and to side).

    Attributes
    ----------
    key
        ``from_stop * n_stops + to_stop``, sorted (ties ordered by ``level``,
        then decreasing specificity, then file order).
    from_route, to_route
        Model route index the rule is restricted to, -1 for any.
    from_trip, to_trip
        Model trip index the rule is restricted to, -1 for any.
    kind
        GTFS ``transfer_type``: 0 recommended/preferred, 1 timed, 2 minimum time, 3 forbidden.
    min_time_s
        ``min_transfer_time`` for kind 2 (0 otherwise).
    level
        0 for rules between the stops themselves; 1, 2, 3 for rules inherited from the
        parent station of the from stop, of the to stop, or of both (OTP 1.x looks them
        up in that order when the stops themselves have no matching rule).
    n_stops
        Number of stops ``key`` was computed with (-1: unknown, not checked).
    """

    key: IntArray
    from_route: Int32Array
    to_route: Int32Array
    from_trip: Int32Array
    to_trip: Int32Array
    kind: UInt8Array
    min_time_s: Int32Array
    level: UInt8Array | None = None
    n_stops: int = -1

    def __post_init__(self) -> None:
        n = len(self.key)
        coerced: dict[str, np.ndarray[Any, Any]] = {
            "key": np.ascontiguousarray(self.key, dtype=np.int64),
            "from_route": np.ascontiguousarray(self.from_route, dtype=np.int32),
            "to_route": np.ascontiguousarray(self.to_route, dtype=np.int32),
            "from_trip": np.ascontiguousarray(self.from_trip, dtype=np.int32),
            "to_trip": np.ascontiguousarray(self.to_trip, dtype=np.int32),
            "kind": np.ascontiguousarray(self.kind, dtype=np.uint8),
            "min_time_s": np.ascontiguousarray(self.min_time_s, dtype=np.int32),
            "level": np.ascontiguousarray(
                np.zeros(n, np.uint8) if self.level is None else self.level, dtype=np.uint8
            ),
        }
        for name, value in coerced.items():
            if value.ndim != 1 or value.shape[0] != n:
                msg = f"TransferRules.{name} must be one-dimensional of length {n} (len(key))"
                raise ValueError(msg)
            object.__setattr__(self, name, value)
        key = coerced["key"]
        if n > 1 and np.any(key[1:] < key[:-1]):
            msg = "TransferRules.key must be sorted"
            raise ValueError(msg)
        if n and int(coerced["kind"].max()) > TRANSFER_FORBIDDEN:
            msg = "TransferRules.kind must be 0, 1, 2 or 3 (GTFS transfer_type)"
            raise ValueError(msg)

    def __len__(self) -> int:
        return int(self.key.shape[0])

    @property
    def has_preferred(self) -> bool:
        """True when some rule is preferred or timed.

        OpenTripPlanner 1.x penalises non-preferred transfers only then
        (``TransferTable.determineTransferPenalty``).
        """
        return bool(np.any(self.kind <= TRANSFER_TIMED))


@dataclass(frozen=True, eq=False)
class StaySeated:
    """Interlined trips of a timetable: riders may stay on board from one trip into the next.

    When the vehicle of route-trip ``from_trip[i]`` continues as route-trip ``to_trip[i]``
    (GTFS ``block_id``), a rider arriving at the last stop of the first may stay seated
    and ride on from the first stop of the second: no alighting and boarding, no slack,
    no board cost, the dwell counted as riding time, and no transfer (OpenTripPlanner 1.x
    ``PatternInterlineDwell``).  Pairs whose second trip leaves before the first
    arrives are ignored; a trip continues into at most one trip (the first pair listing
    it) and is continued from at most one.

    Attributes
    ----------
    from_trip, to_trip
        Route-trip indices of the timetable the pairs were made for.
    """

    from_trip: Int32Array
    to_trip: Int32Array

    def __post_init__(self) -> None:
        a = np.array(self.from_trip, dtype=np.int32)  # copies: frozen below
        b = np.array(self.to_trip, dtype=np.int32)
        if a.ndim != 1 or a.shape != b.shape:
            msg = "StaySeated.from_trip and to_trip must be one-dimensional of the same length"
            raise ValueError(msg)
        a.flags.writeable = False
        b.flags.writeable = False
        object.__setattr__(self, "from_trip", a)
        object.__setattr__(self, "to_trip", b)

    def __len__(self) -> int:
        return int(self.from_trip.shape[0])
