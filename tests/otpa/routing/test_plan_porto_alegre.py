"""Porto Alegre plans (``small/porto-alegre``): the soft walk limit, stop links, numItineraries.

Hexagon centres of ``poa_hexgrid.csv`` as origin and destination, Wednesday
2019-05-15 14:00 (America/Sao_Paulo), modes WALK,TRANSIT, as the R
``opentripplanner`` package asks.  Every transit leg is checked against the
feed's ``stop_times.txt`` (read with :mod:`csv`), every walk leg against the
stops' coordinates and the walk speed.
"""

from __future__ import annotations

import csv
import datetime as dt
import math
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from _plan_helpers import hms, raw_id, read_rows, service_time

from otpa.network import TransportNetwork
from otpa.routing import (
    ItineraryPreferences,
    Location,
    PlanRequest,
    WalkPreferences,
    _transit_plan,
    deadline,
)
from otpa.routing.errors import SearchTimeoutError
from otpa.routing.model import Itinerary, TripPlan
from otpa.routing.planner import plan
from otpa.util.polyline import decode_polyline
from tests.fixtures.networks import built_network

TZ = "America/Sao_Paulo"
DATE = dt.date(2019, 5, 15)
WHEN = dt.datetime(2019, 5, 15, 14, 0)
WALK_SPEED = 1.33
#: OTP 1.x's soft walk limit: softWalkPenalty once, softWalkOverageRate per metre over.
SOFT_WALK_PENALTY = 60.0
SOFT_WALK_OVERAGE_RATE = 5.0


@pytest.fixture(scope="module")
def poa(data_root: Path) -> TransportNetwork:
    return built_network(data_root, "small/porto-alegre")


@pytest.fixture(scope="module")
def folder(data_root: Path) -> Path:
    return data_root / "small" / "porto-alegre"


def _hex(folder: Path, hex_id: str) -> Location:
    """The centre of a hexagon of ``poa_hexgrid.csv``."""
    with (folder / "poa_hexgrid.csv").open(encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if row["id"] == hex_id:
                return Location(lat=float(row["lat"]), lon=float(row["lon"]))
    raise AssertionError(hex_id)


def _plan(
    poa: TransportNetwork, folder: Path, a: str, b: str, *, max_walk: float | None, n: int = 3
) -> TripPlan:
    return plan(
        poa,
        PlanRequest(
            from_place=_hex(folder, a),
            to_place=_hex(folder, b),
            date_time=WHEN,
            walk=WalkPreferences(max_distance_m=max_walk),
            itineraries=ItineraryPreferences(num_itineraries=n),
        ),
    )


@cache
def _calls(source: Path) -> dict[str, list[tuple[str, int | None, int | None]]]:
    """``trip -> [(stop_id, arrival, departure)]`` of a feed; None where no time is given."""

    def seconds(value: str) -> int | None:
        return hms(value) if value else None

    trips: dict[str, list[tuple[int, str, int | None, int | None]]] = {}
    for row in read_rows(source, "stop_times.txt"):
        trips.setdefault(row["trip_id"], []).append(
            (
                int(row["stop_sequence"]),
                row["stop_id"],
                seconds(row["arrival_time"]),
                seconds(row["departure_time"]),
            )
        )
    return {t: [c[1:] for c in sorted(calls)] for t, calls in trips.items()}


def _check_timetable(folder: Path, itinerary: Itinerary) -> None:
    """Each transit leg is a ride of its trip in the feed's stop_times.txt on DATE.

    A call without times (the feed leaves most of them blank) lies between the
    timepoints around it.
    """

    def at(calls: list[tuple[str, int | None, int | None]], stop: str, when: dt.datetime) -> None:
        i = next(k for k, c in enumerate(calls) if c[0] == stop)
        _, arr, dep = calls[i]
        if dep is not None:
            assert when in (service_time(DATE, dep, TZ), service_time(DATE, arr or dep, TZ))
            return
        before = next(c[2] for c in reversed(calls[:i]) if c[2] is not None)
        after = next(c[1] for c in calls[i + 1 :] if c[1] is not None)
        assert service_time(DATE, before, TZ) <= when <= service_time(DATE, after, TZ)

    for leg in itinerary.legs:
        if not leg.transit_leg:
            continue
        feed = str(leg.trip_id).split(":", 1)[0]
        calls = _calls(folder / f"{feed}.zip")[str(raw_id(leg.trip_id))]
        at(calls, str(raw_id(leg.from_place.stop_id)), leg.start_time)
        at(calls, str(raw_id(leg.to_place.stop_id)), leg.end_time)
        assert leg.start_time < leg.end_time


def _stop_point(folder: Path, scoped: str) -> tuple[float, float]:
    feed, stop_id = scoped.split(":", 1)
    (row,) = [r for r in read_rows(folder / f"{feed}.zip", "stops.txt") if r["stop_id"] == stop_id]
    return float(row["stop_lat"]), float(row["stop_lon"])


def _rides(itinerary: Itinerary) -> list[tuple[str | None, dt.datetime, dt.datetime]]:
    return [(leg.trip_id, leg.start_time, leg.end_time) for leg in itinerary.legs]


def _overage(distance: float, limit: float) -> float:
    over = distance - limit
    return SOFT_WALK_PENALTY + SOFT_WALK_OVERAGE_RATE * over if over > 0 else 0.0


def test_walk_limit_is_soft(poa: TransportNetwork, folder: Path) -> None:
    # With a hard maxWalkDistance=1000 this pair was a 2.6 h walk: the stop 1.4 km from
    # the origin was out of reach.  OTP 1.x's soft limit charges the overage instead.
    a, b = "89a901286c3ffff", "89a9012982fffff"
    limited = _plan(poa, folder, a, b, max_walk=1000.0, n=1).itineraries
    free = _plan(poa, folder, a, b, max_walk=None, n=1).itineraries
    assert len(limited) == len(free) == 1
    it, ref = limited[0], free[0]
    assert sum(leg.transit_leg for leg in it.legs) == 3
    _check_timetable(folder, it)
    assert _rides(it) == _rides(ref)  # the same journey...
    first = it.legs[0]
    assert first.mode == "WALK"
    assert first.distance > 1000.0
    # ...whose cost carries the overage of its access walk (60 + 5 per metre over)
    assert it.generalized_cost is not None
    assert ref.generalized_cost is not None
    assert it.generalized_cost - ref.generalized_cost == pytest.approx(
        _overage(first.distance, 1000.0), abs=0.003  # leg distances are rounded to mm
    )
    assert it.walk_distance > 1000.0
    assert (it.walk_limit_exceeded, ref.walk_limit_exceeded) == (True, False)


def test_access_walk_reaches_the_stop(poa: TransportNetwork, folder: Path) -> None:
    # poa_eptc:965 lies 260 m from the street it is linked to: the walk to it counts
    # that link in its distance, its time and its line, which ends at the stop.
    result = _plan(poa, folder, "89a9012a063ffff", "89a90129a8bffff", max_walk=1000.0)
    walks = []
    for it in result.itineraries:
        _check_timetable(folder, it)
        walks += [leg for leg in it.legs if leg.to_place.stop_id == "poa_eptc:965"]
    assert walks
    walk = walks[0]
    assert walk.mode == "WALK"
    lats, lons = decode_polyline(walk.leg_geometry.points)
    s_lat, s_lon = _stop_point(folder, "poa_eptc:965")
    assert (lats[-1], lons[-1]) == pytest.approx((s_lat, s_lon), abs=1e-5)
    # the street part plus the 260 m link, walked at 1.33 m/s
    street_end = (lats[-2], lons[-2])
    link = _haversine(street_end, (s_lat, s_lon))
    assert link > 250.0
    assert walk.distance > link
    assert abs(walk.duration - walk.distance / WALK_SPEED) <= 2.0


def _haversine(p: tuple[float, float], q: tuple[float, float]) -> float:
    la1, lo1, la2, lo2 = (math.radians(x) for x in (*p, *q))
    h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin(
        (lo2 - lo1) / 2
    ) ** 2
    return 2 * 6_371_010.0 * math.asin(math.sqrt(h))


def test_num_itineraries_bounds_the_answer(poa: TransportNetwork, folder: Path) -> None:
    # This pair has a walk-only itinerary as good as transit and three transit ones:
    # numItineraries=3 returned 4 (the walk on top of three transit searches).
    a, b = "89a90129e67ffff", "89a90129ea3ffff"
    three = _plan(poa, folder, a, b, max_walk=None, n=3).itineraries
    one = _plan(poa, folder, a, b, max_walk=None, n=1).itineraries
    assert len(three) == 3
    assert len(one) == 1
    for it in three:
        _check_timetable(folder, it)
    # sorted by arrival as OTP 1.x sorts them
    assert [it.end_time for it in three] == sorted(it.end_time for it in three)
    # numItineraries=1 answers the best (lowest generalized cost) itinerary of the
    # three, as OTP 1.x's first search finds the lowest-weight path
    best = min(three, key=lambda it: it.generalized_cost or 0.0)
    assert _rides(one[0]) == _rides(best)
    assert one[0].generalized_cost == best.generalized_cost
    zone = ZoneInfo(TZ)
    assert one[0].start_time.tzinfo is not None
    assert one[0].start_time.astimezone(zone).date() == DATE


def test_a_plan_stops_at_its_deadline(
    poa: TransportNetwork, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plan checks its deadline between its steps, and stops."""
    # on this clock each access (egress) search takes 1 s and each RAPTOR search 10 s
    clock = [0.0]
    monkeypatch.setattr(deadline, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    calls: list[str] = []

    def timed(name: str, fn: Any, seconds: float) -> Any:
        def step(*args: Any, **kwargs: Any) -> Any:
            calls.append(name)
            out = fn(*args, **kwargs)
            clock[0] += seconds
            return out

        return step

    monkeypatch.setattr(_transit_plan, "route", timed("raptor", _transit_plan.route, 10.0))
    access = timed("access", _transit_plan.find_access, 1.0)
    monkeypatch.setattr(_transit_plan, "find_access", access)
    a, b = "89a90129e67ffff", "89a90129ea3ffff"

    def run(seconds: float | None) -> list[Itinerary]:
        calls.clear()
        clock[0] = 0.0
        with deadline.search_deadline(seconds):
            return _plan(poa, folder, a, b, max_walk=None, n=3).itineraries

    free = run(None)
    assert (calls, len(free)) == (["access", "access", "raptor", "raptor"], 3)
    # past the deadline during the first RAPTOR search: no second search, the best
    # journey found so far is the answer (as searchTimeout in OTP 1.x)
    stopped = run(5.0)
    assert calls == ["access", "access", "raptor"]
    assert len(stopped) == 1
    best = min(free, key=lambda it: it.generalized_cost or 0.0)
    assert _rides(stopped[0]) == _rides(best)
    # past it during the access searches: nothing found, the plan stops before RAPTOR
    # with OTP's REQUEST_TIMEOUT error (otpa.routing.errors.SearchTimeoutError)
    with pytest.raises(SearchTimeoutError, match="before the transit search"):
        run(1.5)
    assert calls == ["access", "access"]
    # a deadline already passed: not even the access search
    with pytest.raises(SearchTimeoutError, match="before the access search"):
        run(0.0)
    assert calls == []
