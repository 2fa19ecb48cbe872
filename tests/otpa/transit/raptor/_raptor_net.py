"""Helpers for RAPTOR tests on real networks (stop lookups, requests, an independent oracle)."""

from __future__ import annotations

import bisect
import datetime as dt
import heapq
import itertools
import math
import random
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np

from otpa.network import TransportNetwork
from otpa.testing.timetable import TestTimetable
from otpa.transit.model import TransitModel
from otpa.transit.raptor.api import RaptorJourney, RaptorRequest, TransitLeg
from otpa.transit.raptor.spi import RaptorTimetable

WALK_SPEED = 1.33  # OTP 1.x default walkSpeed

#: Three lines over stops A-E (for :func:`otpa.testing.timetable.parse_timetable`): R1
#: A-B-C-D, R2 B-E-D, R3 A-E, two trips on R1 and R2: several journeys from A to D.
SMALL_LINES = """
R1 A 08:00 B 08:10 C 08:20 D 08:30
R1 A 08:15 B 08:25 C 08:35 D 08:45
R2 B 08:12 E 08:22 D 08:40
R2 B 08:30 E 08:40 D 08:58
R3 A 08:05 E 08:25
"""


def trip_line(route: str, stops: Sequence[str], start_s: int, hops_s: Sequence[int]) -> str:
    """One trip as a line of :func:`otpa.testing.timetable.parse_timetable`: ``route``, then
    each stop with its time (``HH:MM``), leaving ``stops[0]`` at ``start_s`` and taking
    ``hops_s[i]`` seconds from ``stops[i]`` to ``stops[i + 1]``."""
    t, parts = start_s, []
    for s, h in zip(stops, [0, *hops_s], strict=True):
        t += h
        parts.append(f"{s} {t // 3600:02d}:{t // 60 % 60:02d}")
    return f"{route} " + " ".join(parts)


def random_lines(
    rng: random.Random,
    stops: Sequence[str],
    routes: int,
    stops_per_route: tuple[int, int],
    hop_minutes: tuple[int, int],
    hours: int,
    headways_s: Sequence[int],
) -> list[str]:
    """Trips of ``routes`` random routes (lines of :func:`trip_line`): each a random
    sequence of ``stops_per_route`` stops (inclusive range), whole-minute hops in
    ``hop_minutes``, a trip every ``headways_s`` (one drawn per route) from a start in the
    first 9 minutes until ``hours`` hours."""
    lines = []
    for r in range(routes):
        seq = rng.sample(stops, rng.randint(*stops_per_route))
        hops = [rng.randint(*hop_minutes) * 60 for _ in seq[1:]]
        for start in range(rng.randint(0, 9) * 60, hours * 3600, rng.choice(headways_s)):
            lines.append(trip_line(f"R{r}", seq, start, hops))
    return lines


def random_walks(
    rng: random.Random, stops: Sequence[str], share: float, max_minutes: int
) -> list[tuple[str, str, int]]:
    """Walking transfers between a random ``share`` of the ordered stop pairs, each 1 to
    ``max_minutes`` whole minutes."""
    pairs = [(a, b) for a, b in itertools.permutations(stops, 2) if rng.random() < share]
    return [(a, b, rng.randint(1, max_minutes) * 60) for a, b in pairs]


def cost_requests(
    tt: TestTimetable, walks: list[tuple[str, str, int]], seed: int, n: int
) -> list[RaptorRequest]:
    """``n`` random cost-criteria requests on ``tt`` (drawn with ``seed``): one access stop
    (30 s), two egress stops (45 and 300 s), arrive-by in about 30 %, 2 or 4 rounds."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        a, b, c = rng.sample(tt.stop_names, 3)
        arrive_by = rng.random() < 0.3
        time = rng.randint(0, 3600) + (5400 if arrive_by else 0)
        rounds = rng.choice([2, 4])
        access, egress = {a: 30}, {b: 45, c: 300}
        kind = {"arrive_by": arrive_by, "max_rounds": rounds}
        out.append(tt.request(access, egress, time, transfers=walks, criteria="cost", **kind))
    return out


def stop_index(model: TransitModel, raw_id: str) -> int:
    """Model index of the stop with GTFS id ``raw_id``."""
    hits = np.flatnonzero(model.stops["raw_id"].astype(str).to_numpy() == raw_id)
    assert len(hits) == 1, raw_id
    return int(hits[0])


def walk_transfers(net: TransportNetwork) -> dict[str, Any]:
    """The network's walking transfers as RaptorRequest arguments (1.33 m/s, reluctance 2)."""
    t = np.ceil(np.asarray(net.transfer_distance_m) / WALK_SPEED).astype(np.int32)
    return {
        "transfer_offsets": np.asarray(net.transfer_offsets),
        "transfer_to": np.asarray(net.transfer_to),
        "transfer_time_s": t,
        "transfer_cost": 2.0 * t,
    }


def csr(n: int, edges: Iterable[tuple[int, int, int]]) -> dict[str, Any]:
    """Walking transfers ``(from, to, seconds)`` (cost = seconds) as RaptorRequest arguments."""
    rows = sorted(edges)
    counts = np.bincount([a for a, _, _ in rows], minlength=n) if rows else np.zeros(n, int)
    t = np.asarray([s for _, _, s in rows], np.int32)
    return {
        "transfer_offsets": np.r_[0, np.cumsum(counts)].astype(np.int64),
        "transfer_to": np.asarray([b for _, b, _ in rows], np.int32),
        "transfer_time_s": t,
        "transfer_cost": t.astype(np.float64),
    }


def point_request(
    origin: Mapping[int, int], destination: Mapping[int, int], time: int, **options: Any
) -> RaptorRequest:
    """A request from ``{stop: street seconds}`` to ``{stop: street seconds}`` (cost = time)."""
    return RaptorRequest(
        access_stops=np.asarray(list(origin), np.int32),
        access_time_s=np.asarray(list(origin.values()), np.int32),
        access_cost=np.asarray(list(origin.values()), np.float64),
        egress_stops=np.asarray(list(destination), np.int32),
        egress_time_s=np.asarray(list(destination.values()), np.int32),
        egress_cost=np.asarray(list(destination.values()), np.float64),
        time=time,
        **options,
    )


def transit_legs(tt: RaptorTimetable, model: TransitModel, j: RaptorJourney) -> list[tuple[Any]]:
    """``(start, end, from stop id, to stop id)`` of every ride (seconds since the epoch)."""
    ids = model.stops["raw_id"].astype(str).to_numpy()
    return [
        (leg.start, leg.end, ids[leg.board_stop], ids[leg.alight_stop])
        for leg in j.legs
        if isinstance(leg, TransitLeg)
    ]


def service_date_with_trips(model: TransitModel, weekday: int = 2) -> dt.date:
    """A date (preferably of ``weekday``) on which most trips run."""
    first, last = model.service_dates or (dt.date(2000, 1, 1), dt.date(2000, 1, 1))
    service = model.trips["service_index"].to_numpy()
    best, best_n = first, -1
    day = first
    while day <= last and (day - first).days < 400:
        n = int(model.services_on(day)[service[service >= 0]].sum())
        if n > best_n or (n == best_n and day.weekday() == weekday and best.weekday() != weekday):
            best, best_n = day, n
        day += dt.timedelta(days=1)
    return best


@dataclass(frozen=True)
class Oracle:
    """A time-dependent Dijkstra over (stop, rides, how reached), straight from the model.

    Independent of the RAPTOR code: it instantiates trips per service day from the
    model's pattern arrays and, at each stop, boards the first departure of each
    (pattern, day) at or after the passenger is ready (patterns never overtake).
    """

    n_stops: int
    boardings: dict[int, list[tuple[int, int]]]  # stop -> [(instance, position)]
    # per (pattern, day) instance: stops, pickups, drop-offs, departures, arrivals (trip x stop)
    instances: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]
    walks: dict[int, list[tuple[int, int]]]

    @classmethod
    def build(
        cls, net: TransportNetwork, date: dt.date, time_zone: str, walks: dict[str, Any]
    ) -> Oracle:
        m = net.transit
        epoch = dt.datetime(date.year, date.month, date.day, tzinfo=ZoneInfo(time_zone))
        service = m.trips["service_index"].to_numpy()
        tz_of_trip = m.trips["tz_index"].to_numpy()
        instances: list[Any] = []
        boardings: dict[int, list[tuple[int, int]]] = defaultdict(list)
        for d in (-1, 0, 1):
            day = date + dt.timedelta(days=d)
            running = m.services_on(day)
            for p in range(m.n_patterns):
                trips = m.pattern_trip_indices(p)
                arr, dep = m.pattern_times(p)
                # trips travelling back in time cannot be ridden
                sane = (dep >= arr).all(axis=1) & (arr[:, 1:] >= dep[:, :-1]).all(axis=1)
                active = sane & np.asarray([service[t] >= 0 and running[service[t]] for t in trips])
                if not active.any():
                    continue
                start = m.service_day_start(day, m.timezones[tz_of_trip[trips[0]]])
                shift = start - int(epoch.timestamp())
                a, b = m.pattern_stop_offsets[p], m.pattern_stop_offsets[p + 1]
                inst = (
                    m.pattern_stops[a:b],
                    m.pattern_pickup[a:b],
                    m.pattern_dropoff[a:b],
                    dep[active].astype(np.int64) + shift,
                    arr[active].astype(np.int64) + shift,
                )
                for j, s in enumerate(inst[0]):
                    boardings[int(s)].append((len(instances), j))
                instances.append(inst)
        adjacency: dict[int, list[tuple[int, int]]] = defaultdict(list)
        off, to, secs = walks["transfer_offsets"], walks["transfer_to"], walks["transfer_time_s"]
        for s in range(len(off) - 1):
            for e in range(off[s], off[s + 1]):
                adjacency[s].append((int(to[e]), int(secs[e])))
        return cls(m.n_stops, dict(boardings), instances, dict(adjacency))

    def search(
        self, origin: int, time: int, *, max_rides: int, window_s: int = 24 * 3600
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(earliest arrival by any means, earliest arrival by a ride)`` per stop."""
        inf = math.inf
        any_arrival = np.full(self.n_stops, inf)
        ride_arrival = np.full(self.n_stops, inf)
        done: set[tuple[int, int, int]] = set()
        heap = [(time, origin, 0, 0)]  # kind 0: access, 1: ride, 2: walk
        while heap:
            t, s, k, kind = heapq.heappop(heap)
            if (s, k, kind) in done:
                continue
            done.add((s, k, kind))
            any_arrival[s] = min(any_arrival[s], t)
            if kind == 1:
                ride_arrival[s] = min(ride_arrival[s], t)
                for u, w in self.walks.get(s, ()):
                    heapq.heappush(heap, (t + w, u, k, 2))
            if k == max_rides:
                continue
            for inst, j in self.boardings.get(s, ()):
                stops, pickup, dropoff, dep, arr = self.instances[inst]
                if pickup[j] == 1:
                    continue
                col = dep[:, j].tolist()
                i = bisect.bisect_left(col, t)
                if i == len(col) or col[i] > time + window_s:
                    continue
                for j2 in range(j + 1, len(stops)):
                    if dropoff[j2] != 1:
                        heapq.heappush(heap, (int(arr[i, j2]), int(stops[j2]), k + 1, 1))
        return any_arrival, ride_arrival


def check_legs(tt: RaptorTimetable, j: RaptorJourney) -> None:
    """Every ride's trip, positions and stops agree with its times in the timetable."""
    for leg in j.transit_legs:
        r = leg.route
        soff = int(tt.route_stop_offsets[r])
        ns = int(tt.route_stop_offsets[r + 1]) - soff
        t0, t1 = int(tt.route_trip_offsets[r]), int(tt.route_trip_offsets[r + 1])
        assert t0 <= leg.trip < t1
        assert 0 <= leg.board_pos < leg.alight_pos < ns
        base = int(tt.route_time_offsets[r]) + (leg.trip - t0) * ns
        assert tt.departure[base + leg.board_pos] == leg.start
        assert tt.arrival[base + leg.alight_pos] == leg.end
        assert tt.route_stops[soff + leg.board_pos] == leg.board_stop
        assert tt.route_stops[soff + leg.alight_pos] == leg.alight_stop
    times = [t for leg in j.legs for t in (leg.start, leg.end)]
    assert times == sorted(times)
    assert (j.departure, j.arrival) == (j.legs[0].start, j.legs[-1].end)
