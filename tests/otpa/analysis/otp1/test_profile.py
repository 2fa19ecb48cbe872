"""Profile routing on MARTA rail (tiny/atlanta), checked against the GTFS text.

FEATURE UNDER TEST: the options between two stations over a time window, with the
statistics one computes by hand from ``stop_times.txt`` + ``frequencies.txt`` (read
with the csv module, frequencies expanded as ``start + k * headway < end``):

* at each departure minute ``t`` the rider reaches the boarding stop at ``t + access``
  (the access leg's time, read from the result), boards the first run of the route
  leaving at least the board slack (60 s) later, and arrives ``egress`` after the run
  reaches the alighting stop;
* an option counts at a minute when it is at most ``suboptimal`` slower than the best
  option there; its statistics (min, floor of the mean, max, count) are over those
  minutes; ``nTrips`` counts the runs ridden, per stop pattern.

Geography: West Lake (``28``) is served by BLUE only; Five Points (``797``) to Georgia
State (``201``) is served by BLUE and GREEN, a stop apart.  Streets cover the centre
only (West Lake's platforms are linked 660 m away).
"""

from __future__ import annotations

import csv
import dataclasses
import datetime as dt
import io
import math
import zipfile
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np
import pytest

import otpa
from otpa.analysis import Grid, compute_time_surface
from otpa.analysis.otp1.profile import (
    ProfileOption,
    ProfileRequest,
    Stats,
    busiest_service_day,
    compare_range_raptor,
    profile_analysis_request,
    profile_route,
    profile_surfaces,
)
from otpa.index import TransitIndex
from otpa.network import TransportNetwork
from otpa.routing import Location
from otpa.routing.errors import OutsideBoundsError, PlanningError
from otpa.routing.parse import parse_modes
from otpa.routing.preferences import ItineraryPreferences
from tests.conftest import require_data
from tests.fixtures.networks import built_network

TZ = "America/New_York"
#: A Wednesday of the weekday service (calendar.txt service 5).
DATE = dt.date(2021, 9, 15)
EIGHT, NINE = 8 * 3600, 9 * 3600
SLACK = 60
WEST_LAKE, ASHBY = ("28", (33.753326, -84.445330)), ("485", (33.756477, -84.41723))
FIVE_POINTS, GEORGIA_STATE = ("797", (33.753838, -84.391396)), ("201", (33.75014, -84.38588))


# -- the feed, read with the csv module -------------------------------------------------------
def _hms(text: str) -> int:
    h, m, s = (int(x) for x in text.split(":"))
    return h * 3600 + m * 60 + s


def _clock(seconds: int) -> str:
    return f"{seconds // 3600:02d}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


@dataclass(frozen=True)
class Run:
    """One departure of a trip (frequencies expanded), ids without the feed prefix."""

    run_id: str
    route: str
    service: str
    stops: tuple[str, ...]
    arr: tuple[int, ...]
    dep: tuple[int, ...]


class Feed:
    """The MARTA feed's text files."""

    def __init__(self, source: Path) -> None:
        with zipfile.ZipFile(source) as zf:
            files = {
                Path(n).name: list(csv.DictReader(io.StringIO(zf.read(n).decode("utf-8-sig"))))
                for n in zf.namelist()
                if n.endswith(".txt")
            }
        self.files = files
        self.routes = {r["route_short_name"]: r["route_id"] for r in files["routes.txt"]}
        trips = {r["trip_id"]: r for r in files["trips.txt"]}
        calls: dict[str, list[tuple[int, str, int, int]]] = defaultdict(list)
        for r in files["stop_times.txt"]:
            calls[r["trip_id"]].append(
                (int(r["stop_sequence"]), r["stop_id"], _hms(r["arrival_time"]),
                 _hms(r["departure_time"]))
            )  # fmt: skip
        periods: dict[str, list[tuple[int, int, int]]] = defaultdict(list)
        for r in files["frequencies.txt"]:
            periods[r["trip_id"]].append(
                (_hms(r["start_time"]), _hms(r["end_time"]), int(r["headway_secs"]))
            )
        self.runs: list[Run] = []
        for trip_id, rows in calls.items():
            rows.sort()
            dep0 = rows[0][3]
            starts = [(trip_id, 0)]
            if trip_id in periods:
                starts = [
                    (f"{trip_id}@{_clock(t)}", t - dep0)
                    for start, end, headway in periods[trip_id]
                    for t in range(start, end, headway)
                ]
            trip = trips[trip_id]
            for run_id, shift in starts:
                self.runs.append(
                    Run(
                        run_id, trip["route_id"], trip["service_id"],
                        tuple(r[1] for r in rows),
                        tuple(r[2] + shift for r in rows), tuple(r[3] + shift for r in rows),
                    )
                )  # fmt: skip

    def services_on(self, day: dt.date) -> set[str]:
        """Service ids running on ``day`` (calendar.txt and calendar_dates.txt)."""
        names = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
        key = day.strftime("%Y%m%d")
        out = {
            r["service_id"]
            for r in self.files["calendar.txt"]
            if r["start_date"] <= key <= r["end_date"] and r[names[day.weekday()]] == "1"
        }
        for r in self.files.get("calendar_dates.txt", []):
            if r["date"] == key:
                (out.add if r["exception_type"] == "1" else out.discard)(r["service_id"])
        return out


@dataclass(frozen=True)
class Sample:
    """One departure minute of an option, computed from the feed."""

    total: int
    wait: int
    ride: int
    run: Run
    board_pos: int
    alight_pos: int


def follow(
    feed: Feed, route: str, board: str, alight: str, minute: int, access: int, egress: int
) -> Sample | None:
    """The first run of ``route`` from ``board`` to ``alight`` catchable at ``minute``."""
    at_stop = minute + access
    best: Sample | None = None
    running = feed.services_on(DATE)
    for run in feed.runs:
        if run.route != route or run.service not in running or board not in run.stops:
            continue
        i = run.stops.index(board)
        if alight not in run.stops[i + 1 :]:
            continue
        j = run.stops.index(alight, i + 1)
        if run.dep[i] < at_stop + SLACK:
            continue
        sample = Sample(run.arr[j] + egress - minute, run.dep[i] - at_stop,
                        run.arr[j] - run.dep[i], run, i, j)  # fmt: skip
        if best is None or (sample.total, -sample.wait) < (best.total, -best.wait):
            best = sample
    return best


def stats(values: Iterable[int]) -> Stats:
    v = list(values)
    return Stats(min(v), math.floor(sum(v) / len(v)), max(v), len(v))


def route_id(network: TransportNetwork, raw: str) -> str:
    routes = network.transit.routes
    return str(routes.loc[routes["raw_id"].astype(str) == raw, "route_id"].iloc[0])


def check_option(
    network: TransportNetwork, option: ProfileOption, samples: list[Sample], feed_id: str
) -> None:
    """The option's statistics and patterns are the samples'."""
    (seg,) = option.transit
    assert option.stats == stats(s.total for s in samples)
    assert seg.wait == stats(s.wait for s in samples)
    assert seg.ride == stats(s.ride for s in samples)
    assert seg.walk_time_s == 0
    index = TransitIndex.of(network)
    runs: dict[tuple[str, int, int], set[str]] = defaultdict(set)
    for s in samples:
        pattern = index.get_trip(f"{feed_id}:{s.run.run_id}").pattern_id
        assert pattern is not None
        runs[(pattern, s.board_pos, s.alight_pos)].add(s.run.run_id)
    got = {(p.pattern_id, p.from_index, p.to_index): p.n_trips for p in seg.patterns}
    assert got == {k: len(v) for k, v in runs.items()}
    assert [p.n_trips for p in seg.patterns] == sorted(
        (p.n_trips for p in seg.patterns), reverse=True
    )


# -- fixtures ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def feed_text() -> Feed:
    return Feed(require_data("tiny", "atlanta", "atlanta-blue-green-line.gtfs.zip"))


@pytest.fixture(scope="module")
def network(data_root: Path) -> TransportNetwork:
    return built_network(data_root, "tiny/atlanta")


@pytest.fixture(scope="module")
def feed_id(network: TransportNetwork) -> str:
    (fid,) = network.transit.feeds["feed_id"].tolist()
    return str(fid)


def _request(a: tuple[float, float], b: tuple[float, float], **changes: object) -> ProfileRequest:
    base = ProfileRequest(*a, *b, DATE, start_time_s=EIGHT, end_time_s=NINE)
    return base.replace(**changes)


# -- tests ------------------------------------------------------------------------------------
def test_one_line_one_option_with_the_timetable_statistics(
    network: TransportNetwork, feed_text: Feed, feed_id: str
) -> None:
    req = _request(WEST_LAKE[1], ASHBY[1], access_modes=("WALK",), direct_modes=())
    result = profile_route(network, req)
    assert result.departures == 60
    (option,) = result.options  # West Lake has BLUE only: one way to ride to Ashby
    (seg,) = option.transit
    assert (seg.from_stop_id, seg.to_stop_id) == (f"{feed_id}:28", f"{feed_id}:485")
    assert seg.route_id == route_id(network, feed_text.routes["BLUE"])
    assert (seg.mode, seg.from_name, seg.to_name) == (
        "SUBWAY",
        "WEST LAKE STATION",
        "ASHBY STATION",
    )
    assert option.summary == "routes BLUE"
    (access,), (egress,) = option.access, option.egress
    assert (access.mode, access.stop_id, egress.stop_id) == (
        "WALK",
        seg.from_stop_id,
        seg.to_stop_id,
    )
    samples = [
        follow(feed_text, feed_text.routes["BLUE"], "28", "485", t, access.time_s, egress.time_s)
        for t in range(EIGHT, NINE, 60)
    ]
    assert all(s is not None for s in samples)
    check_option(network, option, [s for s in samples if s is not None], feed_id)
    # every run takes the scheduled 3 minutes; waits follow the headways
    assert seg.ride == Stats(180, 180, 180, 60)
    assert seg.wait.min >= SLACK


def test_two_routes_between_the_same_stations_and_the_suboptimal_margin(
    network: TransportNetwork, feed_text: Feed, feed_id: str
) -> None:
    # BLUE and GREEN alternate about every 6 minutes: a 10-minute margin lets both count
    for margin in (0, 600):
        req = _request(FIVE_POINTS[1], GEORGIA_STATE[1], access_modes=("WALK",),
                       direct_modes=(), suboptimal_s=margin)  # fmt: skip
        options = profile_route(network, req).options
        direct = [
            o for o in options if len(o.transit) == 1
            and (o.transit[0].from_stop_id, o.transit[0].to_stop_id)
            == (f"{feed_id}:797", f"{feed_id}:201")
        ]  # fmt: skip
        by_route = {o.transit[0].route_id: o for o in direct}
        assert len(by_route) == len(direct)
        blue, green = (route_id(network, feed_text.routes[n]) for n in ("BLUE", "GREEN"))
        assert {blue, green} <= set(by_route)  # (with a wide margin, bus 21 counts too)
        access, egress = by_route[blue].access[0].time_s, by_route[blue].egress[0].time_s
        minutes = range(EIGHT, NINE, 60)
        per_route = {
            name: [follow(feed_text, feed_text.routes[name], "797", "201", t, access, egress)
                   for t in minutes]
            for name in ("BLUE", "GREEN")
        }  # fmt: skip
        best = [
            min(s.total for s in (per_route["BLUE"][k], per_route["GREEN"][k]) if s is not None)
            for k in range(len(minutes))
        ]
        for name, rid in (("BLUE", blue), ("GREEN", green)):
            counted = [
                s
                for k, s in enumerate(per_route[name])
                if s is not None and s.total <= best[k] + margin
            ]
            check_option(network, by_route[rid], counted, feed_id)
        total = by_route[blue].stats.num + by_route[green].stats.num
        assert total >= 60 if margin == 0 else total > 60


def test_the_best_option_equals_the_planner(network: TransportNetwork) -> None:
    """At every minute the fastest option is the planner's earliest transit arrival."""
    req = _request(
        FIVE_POINTS[1], GEORGIA_STATE[1], access_modes=("WALK",), direct_modes=(),
        suboptimal_s=0, end_time_s=EIGHT + 900,
    )  # fmt: skip
    options = profile_route(network, req).options
    zone = ZoneInfo(TZ)
    earliest = []
    for minute in range(EIGHT, EIGHT + 900, 60):
        when = dt.datetime.combine(DATE, dt.time()).replace(tzinfo=zone) + dt.timedelta(
            seconds=minute
        )
        plan_req = dataclasses.replace(
            req.plan_request(when),
            itineraries=ItineraryPreferences(num_itineraries=20, path_comparator="duration"),
            transit=dataclasses.replace(req.plan_request(when).transit, only_transit_trips=True),
        )
        try:
            plan = otpa.plan(network, plan_req)
        except PlanningError:
            continue
        earliest.append(min((it.end_time - when).total_seconds() for it in plan.itineraries))
    assert earliest
    assert min(o.stats.min for o in options) == min(earliest)
    assert sum(o.stats.num for o in options) >= len(earliest)  # suboptimal 0: the best (ties)
    assert max(o.stats.max for o in options) == max(earliest)


def test_order_limit_and_access_modes(network: TransportNetwork) -> None:
    req = _request(FIVE_POINTS[1], GEORGIA_STATE[1])
    full = profile_route(network, req).options
    transit = [o for o in full if o.transit]
    assert {o.access_mode for o in transit} == {"WALK", "BICYCLE"}
    direct = full[-1]
    assert (direct.transit, direct.summary) == ((), "Non-transit options")
    assert [s.mode for s in direct.access] == ["WALK", "BICYCLE"]
    assert direct.stats == stats(s.time_s for s in direct.access)
    for order, key in (("MIN", "min"), ("AVG", "avg"), ("MAX", "max")):
        got = [o for o in profile_route(network, req.replace(order_by=order)).options if o.transit]
        values = [getattr(o.stats, key) for o in got]
        assert values == sorted(values)
    limited = [o for o in profile_route(network, req.replace(limit=1)).options if o.transit]
    assert sorted(o.access_mode for o in limited) == ["BICYCLE", "WALK"]
    # bicycle access legs are at least min_bike_time long
    assert all(o.access[0].time_s >= req.min_bike_time_s for o in transit
               if o.access_mode == "BICYCLE")  # fmt: skip
    # no transit modes: only the direct trips
    only_street = profile_route(network, req.replace(transit_modes=frozenset())).options
    assert [o.summary for o in only_street] == ["Non-transit options"]


def test_street_segments_carry_the_planners_walk_steps(network: TransportNetwork) -> None:
    req = _request(ASHBY[1], FIVE_POINTS[1], direct_modes=("WALK",), access_modes=("WALK",))
    direct = profile_route(network, req).options[-1]
    (walk,) = direct.access
    assert walk.mode == "WALK"
    assert walk.edges
    assert sum(e.distance_m for e in walk.edges) == pytest.approx(walk.distance_m, abs=1.0)
    plan_req = dataclasses.replace(
        req.plan_request(dt.datetime(2021, 9, 15, 8, tzinfo=ZoneInfo(TZ))),
        modes=parse_modes("WALK"),
    )
    (itinerary,) = otpa.plan(network, plan_req).itineraries
    (leg,) = itinerary.legs
    assert walk.time_s == round(leg.duration)
    named = [e for e in walk.edges if e.street_name is not None]
    assert [e.street_name for e in named] == [s.street_name for s in leg.steps]
    assert [e.relative_direction for e in named] == [s.relative_direction for s in leg.steps]
    assert named[0] is walk.edges[0]
    for e in walk.edges:  # consecutive edges join up
        assert len(e.lat) >= 2
    for a, b in zip(walk.edges, walk.edges[1:], strict=False):
        assert (a.lat[-1], a.lon[-1]) == pytest.approx((b.lat[0], b.lon[0]), abs=1e-9)


def test_bad_requests(network: TransportNetwork) -> None:
    with pytest.raises(ValueError, match="walk_speed_mps"):
        _request(FIVE_POINTS[1], ASHBY[1], walk_speed_mps=9.0)
    with pytest.raises(ValueError, match="window"):
        _request(FIVE_POINTS[1], ASHBY[1], end_time_s=EIGHT)
    with pytest.raises(ValueError, match="longer than"):
        _request(FIVE_POINTS[1], ASHBY[1], end_time_s=EIGHT + 4 * 3600)
    with pytest.raises(ValueError, match="searches"):
        _request(FIVE_POINTS[1], ASHBY[1], end_time_s=EIGHT + 3 * 3600,
                 access_modes=("WALK", "BICYCLE", "CAR"), egress_modes=("WALK", "CAR"))  # fmt: skip
    with pytest.raises(ValueError, match="access_modes"):
        _request(FIVE_POINTS[1], ASHBY[1], access_modes=("BICYCLE_RENT",))
    with pytest.raises(ValueError, match="bike_safe"):
        _request(FIVE_POINTS[1], ASHBY[1], bike_safe=0, bike_slope=0, bike_time=0)
    with pytest.raises(OutsideBoundsError):
        profile_route(network, _request((10.0, 10.0), ASHBY[1]))


def test_repeated_and_range_raptor_agree(network: TransportNetwork, feed_text: Feed) -> None:
    report = compare_range_raptor(network, Location(lat=FIVE_POINTS[1][0], lon=FIVE_POINTS[1][1]))
    assert report.departures == 60
    assert report.compared == 60 * network.transit.n_stops
    assert report.agreeing == report.compared
    assert report.first_difference is None
    assert report.reached > 0
    assert report.access_stops > 0
    # the default day is the first with most runs, counted from the feed
    first, last = network.transit.service_dates
    days = [first + dt.timedelta(days=k) for k in range((last - first).days + 1)]
    count = {d: sum(r.service in feed_text.services_on(d) for r in feed_text.runs) for d in days}
    expected = max(days, key=lambda d: (count[d], -d.toordinal()))
    assert report.date == expected == busiest_service_day(network.transit)
    assert np.isfinite(report.repeated_s)
    assert report.range_s >= 0


def test_analyst_surfaces_are_min_avg_max_over_the_departures(network: TransportNetwork) -> None:
    req = _request(FIVE_POINTS[1], ASHBY[1], end_time_s=EIGHT + 600)
    grid = Grid.from_bounds(-84.42, 33.745, -84.38, 33.765, cell_size_m=500.0)
    surfaces = profile_surfaces(network, req, grid)
    assert list(surfaces) == ["min", "avg", "max"]
    areq = profile_analysis_request(req)
    assert (areq.window_s, areq.modes, areq.max_time_s) == (600, "WALK,TRANSIT", 5400)
    minutes = [areq.departure + dt.timedelta(minutes=k) for k in range(10)]
    single = np.stack(
        [
            compute_time_surface(
                network, FIVE_POINTS[1], target=grid, request=areq.replace(window_s=0, departure=d)
            )["travel_time"]
            .sel(percentile=50)
            .to_numpy()
            for d in minutes
        ]
    )
    never = np.isnan(single).all(axis=0)
    sometimes = np.isnan(single).any(axis=0)
    expected = {
        "min": np.where(never, np.nan, np.nanmin(np.where(never, 0, single), axis=0)),
        "avg": np.where(sometimes, np.nan, np.where(sometimes, 0, single).mean(axis=0)),
        "max": np.where(sometimes, np.nan, np.where(sometimes, 0, single).max(axis=0)),
    }
    for name, ds in surfaces.items():
        assert ds.attrs["statistic"] == name
        assert ds["travel_time"].dims == ("y", "x")
        np.testing.assert_allclose(ds["travel_time"].to_numpy(), expected[name], rtol=0, atol=1e-3)
    assert np.nanmax(expected["max"] - expected["min"]) > 0  # waiting matters somewhere
