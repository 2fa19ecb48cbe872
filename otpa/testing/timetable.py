"""A small text language for RAPTOR timetables, used by feature tests and docs.

Each non-empty line is one trip: a route name, then ``stop time`` pairs::

    R1  A 00:10  B 00:20  C 00:30
    R1  A 00:40  B 00:50  C 01:00
    R2  B 00:25/00:27  D(no-alight) 00:35  E 00:40

* lines with the same route name are trips of one route and must list the same stops;
* a time is ``HH:MM`` or ``HH:MM:SS``, or ``arrival/departure``; hours may exceed 23;
* ``(no-board)`` / ``(no-alight)`` after a stop forbid boarding / alighting there;
* ``#`` starts a comment.

Times are seconds since the epoch (0), stops and routes are numbered in order of
first appearance, a route-trip's model trip index is its route-trip index and a
route's GTFS route index is its route index (so transfer rules can name them).

Examples
--------
>>> tt = parse_timetable("R1 A 00:10 B 00:20")
>>> from otpa.transit.raptor.api import route
>>> [tt.path(j) for j in route(tt.timetable, tt.request("A", "B", "00:00"))]
['A ~ R1 00:10 00:20 ~ B']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from otpa.errors import InvalidArgumentError, OutOfRangeError, UnknownNameError
from otpa.transit.raptor.api import (
    AccessLeg,
    EgressLeg,
    RaptorJourney,
    RaptorRequest,
    TransferLeg,
    TransitLeg,
)
from otpa.transit.raptor.spi import RaptorTimetable, TransferRules

__all__ = ["TestRule", "TestTimetable", "format_duration", "format_time", "parse_timetable"]

_STOP = re.compile(r"^(?P<name>[^()\s]+)(?:\((?P<flag>no-board|no-alight)\))?$")


def _seconds(text: str) -> int:
    parts = text.split(":")
    if len(parts) not in (2, 3) or not all(p.isdigit() for p in parts):
        msg = f"bad time {text!r}: expected HH:MM or HH:MM:SS"
        raise InvalidArgumentError(msg)
    h, m, s = (int(p) for p in [*parts, "0"][:3])
    return h * 3600 + m * 60 + s


def format_time(t: int) -> str:
    """``HH:MM`` (``HH:MM:SS`` when seconds are not zero; ``-`` before negative times)."""
    sign, t = ("-", -t) if t < 0 else ("", t)
    h, rest = divmod(t, 3600)
    m, s = divmod(rest, 60)
    return f"{sign}{h:02d}:{m:02d}" + (f":{s:02d}" if s else "")


def format_duration(d: int) -> str:
    """``45s``, ``2m``, ``1m30s``, ``1h5m``."""
    h, rest = divmod(d, 3600)
    m, s = divmod(rest, 60)
    out = (f"{h}h" if h else "") + (f"{m}m" if m else "") + (f"{s}s" if s else "")
    return out or "0s"


@dataclass(frozen=True)
class TestRule:
    """One transfers.txt row by names (``None``: any route/trip; trips as ``("R1", 0)``)."""

    __test__ = False  # not a pytest test class

    from_stop: str
    to_stop: str
    kind: int
    min_time_s: int = 0
    from_route: str | None = None
    to_route: str | None = None
    from_trip: tuple[str, int] | None = None
    to_trip: tuple[str, int] | None = None


@dataclass(frozen=True, eq=False)
class TestTimetable:
    """A parsed timetable with name lookups, request/rules builders and path strings."""

    __test__ = False  # not a pytest test class

    timetable: RaptorTimetable
    stop_names: tuple[str, ...]
    route_names: tuple[str, ...]

    def stop(self, name: str) -> int:
        """Index of a stop (``KeyError`` if unknown)."""
        if name not in self.stop_names:
            msg = f"unknown stop {name!r}; stops that no trip serves go in parse_timetable(stops=)"
            raise UnknownNameError(msg)
        return self.stop_names.index(name)

    def route(self, name: str) -> int:
        """Index of a route (``KeyError`` if unknown)."""
        if name not in self.route_names:
            msg = f"unknown route {name!r}"
            raise UnknownNameError(msg)
        return self.route_names.index(name)

    def trip(self, route: str, k: int) -> int:
        """Route-trip index of the ``k``-th trip (by departure) of ``route``."""
        r = self.route(route)
        t0, t1 = self.timetable.route_trip_offsets[r], self.timetable.route_trip_offsets[r + 1]
        if not 0 <= k < t1 - t0:
            msg = f"route {route} has {t1 - t0} trips, no trip {k}"
            raise OutOfRangeError(msg)
        return int(t0 + k)

    def _points(self, where: str | Mapping[str, int]) -> tuple[list[int], list[int]]:
        items = {where: 0} if isinstance(where, str) else dict(where)
        return [self.stop(s) for s in items], list(items.values())

    def request(
        self,
        origin: str | Mapping[str, int],
        destination: str | Mapping[str, int],
        time: str | int,
        *,
        transfers: Iterable[tuple[str, str, int]] = (),
        **options: Any,
    ) -> RaptorRequest:
        """A request; origin/destination are a stop or ``{stop: street seconds}``.

        Street and walking costs equal their durations; ``options`` go to
        :class:`~otpa.transit.raptor.api.RaptorRequest` (``time`` may be ``"HH:MM"``).
        """
        a_stops, a_time = self._points(origin)
        e_stops, e_time = self._points(destination)
        n = self.timetable.n_stops
        rows = sorted((self.stop(a), self.stop(b), int(s)) for a, b, s in transfers)
        counts = np.bincount([r[0] for r in rows], minlength=n) if rows else np.zeros(n, int)
        return RaptorRequest(
            access_stops=np.asarray(a_stops, np.int32),
            access_time_s=np.asarray(a_time, np.int32),
            access_cost=np.asarray(a_time, np.float64),
            egress_stops=np.asarray(e_stops, np.int32),
            egress_time_s=np.asarray(e_time, np.int32),
            egress_cost=np.asarray(e_time, np.float64),
            time=_seconds(time) if isinstance(time, str) else int(time),
            transfer_offsets=np.r_[0, np.cumsum(counts)].astype(np.int64),
            transfer_to=np.asarray([r[1] for r in rows], np.int32),
            transfer_time_s=np.asarray([r[2] for r in rows], np.int32),
            transfer_cost=np.asarray([r[2] for r in rows], np.float64),
            **options,
        )

    def rules(self, *rows: TestRule) -> TransferRules:
        """transfers.txt rules (rows in file order)."""
        n = self.timetable.n_stops
        key = [self.stop(r.from_stop) * n + self.stop(r.to_stop) for r in rows]

        def route(name: str | None) -> int:
            return -1 if name is None else self.route(name)

        def trip(ref: tuple[str, int] | None) -> int:
            return -1 if ref is None else self.trip(*ref)

        cols = {
            "from_route": [route(r.from_route) for r in rows],
            "to_route": [route(r.to_route) for r in rows],
            "from_trip": [trip(r.from_trip) for r in rows],
            "to_trip": [trip(r.to_trip) for r in rows],
            "kind": [r.kind for r in rows],
            "min_time_s": [r.min_time_s for r in rows],
        }
        spec = [
            -(2 if t >= 0 else 1 if r >= 0 else 0) - (2 if t2 >= 0 else 1 if r2 >= 0 else 0)
            for r, r2, t, t2 in zip(
                cols["from_route"],
                cols["to_route"],
                cols["from_trip"],
                cols["to_trip"],
                strict=True,
            )
        ]
        order = np.lexsort((np.arange(len(rows)), np.asarray(spec), np.asarray(key)))
        arrays = {k: np.asarray(v)[order] for k, v in cols.items()}
        return TransferRules(key=np.asarray(key, np.int64)[order], n_stops=n, **arrays)

    def path(self, journey: RaptorJourney) -> str:
        """The journey as a path string, e.g. ``A ~ R1 00:10 00:20 ~ B ~ Walk 2m ~ C``.

        Access/egress legs appear as ``Access 2m`` / ``Egress 30s`` when they take time.
        """
        parts: list[str] = []
        for leg in journey.legs:
            if isinstance(leg, AccessLeg):
                if leg.duration_s:
                    parts.append(f"Access {format_duration(leg.duration_s)}")
                parts.append(self.stop_names[leg.stop])
            elif isinstance(leg, TransitLeg):
                name = self.route_names[leg.route]
                parts.append(f"{name} {format_time(leg.start)} {format_time(leg.end)}")
                parts.append(self.stop_names[leg.alight_stop])
            elif isinstance(leg, TransferLeg):
                parts.append(f"Walk {format_duration(leg.duration_s)}")
                parts.append(self.stop_names[leg.to_stop])
            elif isinstance(leg, EgressLeg) and leg.duration_s:
                parts.append(f"Egress {format_duration(leg.duration_s)}")
        return " ~ ".join(parts)


def _parse_line(line: str) -> tuple[str, list[tuple[str, str]], list[tuple[int, int]]]:
    tokens = line.split()
    if len(tokens) < 5 or len(tokens) % 2 == 0:
        msg = f"bad trip line {line!r}: expected 'ROUTE STOP TIME STOP TIME ...' (>= 2 stops)"
        raise InvalidArgumentError(msg)
    stops: list[tuple[str, str]] = []
    times: list[tuple[int, int]] = []
    for stop, time in zip(tokens[1::2], tokens[2::2], strict=True):
        m = _STOP.match(stop)
        if m is None:
            msg = f"bad stop {stop!r} in {line!r}"
            raise InvalidArgumentError(msg)
        stops.append((m["name"], m["flag"] or ""))
        arr, _, dep = time.partition("/")
        a = _seconds(arr)
        d = _seconds(dep) if dep else a
        if d < a or (times and a < times[-1][1]):
            msg = f"times go backwards in {line!r}"
            raise InvalidArgumentError(msg)
        times.append((a, d))
    return tokens[0], stops, times


def parse_timetable(text: str, *, stops: Sequence[str] = ()) -> TestTimetable:
    """Parse the timetable language (see the module docstring).

    Parameters
    ----------
    text
        One trip per line.
    stops
        Stop names to number first (for stops that no trip serves, or a fixed order).

    Returns
    -------
    TestTimetable
        The timetable (epoch 0, service day 0) and name lookups.
    """
    stop_names: list[str] = list(stops)
    routes: dict[str, tuple[list[tuple[str, str]], list[list[tuple[int, int]]]]] = {}
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        name, seq, times = _parse_line(line)
        if name in routes and routes[name][0] != seq:
            msg = f"route {name}: every trip must call at the same stops with the same flags"
            raise InvalidArgumentError(msg)
        routes.setdefault(name, (seq, []))[1].append(times)
        stop_names.extend(s for s, _ in seq if s not in stop_names)
    return _build(stop_names, routes)


def _build(
    stop_names: list[str],
    routes: dict[str, tuple[list[tuple[str, str]], list[list[tuple[int, int]]]]],
) -> TestTimetable:
    r_stops: list[int] = []
    board: list[int] = []
    alight: list[int] = []
    arr: list[int] = []
    dep: list[int] = []
    stop_off, trip_off, time_off = [0], [0], []
    for name, (seq, trips) in routes.items():
        trips.sort(key=lambda t: (t[0][1], t[0][0]))
        block = np.asarray(trips)  # (n_trips, n_stops, 2)
        if np.any(np.diff(block, axis=0) < 0):
            msg = f"route {name}: trips overtake each other; give them different route names"
            raise InvalidArgumentError(msg)
        time_off.append(len(arr))
        r_stops.extend(stop_names.index(s) for s, _ in seq)
        board.extend(int(f != "no-board") for _, f in seq)
        alight.extend(int(f != "no-alight") for _, f in seq)
        arr.extend(block[:, :, 0].ravel().tolist())
        dep.extend(block[:, :, 1].ravel().tolist())
        stop_off.append(len(r_stops))
        trip_off.append(trip_off[-1] + len(trips))
    n_routes = len(routes)
    route_stops = np.asarray(r_stops, np.int32)
    lengths = np.diff(stop_off)
    pat = np.repeat(np.arange(n_routes, dtype=np.int32), lengths)
    pos = (np.arange(len(r_stops)) - np.repeat(stop_off[:-1], lengths)).astype(np.int32)
    order = np.lexsort((pos, pat, route_stops))
    counts = np.bincount(route_stops, minlength=len(stop_names))
    tt = RaptorTimetable(
        n_stops=len(stop_names),
        route_stop_offsets=np.asarray(stop_off, np.int64),
        route_stops=route_stops,
        route_board=np.asarray(board, np.uint8),
        route_alight=np.asarray(alight, np.uint8),
        route_trip_offsets=np.asarray(trip_off, np.int64),
        route_trip_ref=np.arange(trip_off[-1], dtype=np.int32),
        route_time_offsets=np.asarray(time_off, np.int64),
        arrival=np.asarray(arr, np.int32),
        departure=np.asarray(dep, np.int32),
        route_pattern=np.arange(n_routes, dtype=np.int32),
        route_day=np.zeros(n_routes, np.int32),
        stop_route_offsets=np.r_[0, np.cumsum(counts)].astype(np.int64),
        stop_routes=pat[order],
        stop_route_pos=pos[order],
        epoch=0,
        route_gtfs_route=np.arange(n_routes, dtype=np.int32),
    )
    return TestTimetable(tt, tuple(stop_names), tuple(routes))
