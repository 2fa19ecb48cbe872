"""Scenario modifications on MARTA rail (tiny/atlanta), checked against the GTFS text.

FEATURE UNDER TEST: removals and timetable changes produce exactly the stop
times one computes by hand from the feed's text files.  Expected values come
from ``stops.txt``/``trips.txt``/``stop_times.txt``/``frequencies.txt`` read
with the csv module (frequencies expanded as ``start + k * headway < end``),
transformed by the rules each modification documents; the scenario network is
read back trip by trip from its pattern arrays.  The base network must come
out of every scenario unchanged.

Geography: BLUE and GREEN share the central stations (Vine City, 470, is one);
Hamilton E Holmes (27) is BLUE's western terminus and West Lake (28) the next
station, both served by BLUE only.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import itertools
import json
import math
import zipfile
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from otpa.analysis.scenario import (
    AdjustDwellTime,
    AdjustFrequency,
    AdjustSpeed,
    RemoveRoutes,
    RemoveStops,
    RemoveTrips,
    Scenario,
)
from otpa.network import TransportNetwork
from otpa.routing import Location, PlanRequest
from otpa.routing.errors import PathNotFoundError
from otpa.routing.planner import plan
from otpa.transit.raptor_data import raptor_timetable
from tests.conftest import require_data
from tests.fixtures.networks import built_network

TZ = "America/New_York"
#: A Wednesday of the weekday service (calendar.txt service 5).
DATE = dt.date(2021, 9, 15)


# -- the feed, read with the csv module -----------------------------------------------------
@dataclass(frozen=True)
class Run:
    """One trip as it runs (frequency trips expanded), ids without the feed prefix."""

    trip_id: str
    route: str
    service: str
    direction: str
    stops: tuple[str, ...]
    arr: tuple[int, ...]
    dep: tuple[int, ...]

    def timetable(self) -> tuple[Any, ...]:
        """Everything but the trip id."""
        return (self.route, self.service, self.direction, self.stops, self.arr, self.dep)


def _hms(text: str) -> int:
    h, m, s = (int(x) for x in text.split(":"))
    return h * 3600 + m * 60 + s


def _clock(seconds: int) -> str:
    return f"{seconds // 3600:02d}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


class Feed:
    """The text files of the MARTA feed."""

    def __init__(self, source: Path) -> None:
        with zipfile.ZipFile(source) as zf:
            files = {
                Path(n).name: list(csv.DictReader(io.StringIO(zf.read(n).decode("utf-8-sig"))))
                for n in zf.namelist()
                if n.endswith(".txt")
            }
        self.routes = {r["route_id"]: r for r in files["routes.txt"]}
        self.trips = {r["trip_id"]: r for r in files["trips.txt"]}
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
        self.runs: dict[str, Run] = {}
        for trip_id, rows in calls.items():
            rows.sort()
            trip = self.trips[trip_id]
            stops = tuple(r[1] for r in rows)
            arr, dep = [r[2] for r in rows], [r[3] for r in rows]
            starts = [(trip_id, 0)]
            if trip_id in periods:
                starts = []
                for start, end, headway in periods[trip_id]:
                    t = start
                    while t < end:
                        starts.append((f"{trip_id}@{_clock(t)}", t - dep[0]))
                        t += headway
            for run_id, shift in starts:
                self.runs[run_id] = Run(
                    run_id, trip["route_id"], trip["service_id"], trip.get("direction_id", ""),
                    stops, tuple(a + shift for a in arr), tuple(d + shift for d in dep),
                )  # fmt: skip

    def route_named(self, short_name: str) -> str:
        (route,) = [r for r, row in self.routes.items() if row["route_short_name"] == short_name]
        return route


@pytest.fixture(scope="module")
def source() -> Path:
    return require_data("tiny", "atlanta", "atlanta-blue-green-line.gtfs.zip")


@pytest.fixture(scope="module")
def feed_text(source: Path) -> Feed:
    return Feed(source)


@pytest.fixture(scope="module")
def network(data_root: Path) -> TransportNetwork:
    return built_network(data_root, "tiny/atlanta")


@pytest.fixture(scope="module")
def feed(network: TransportNetwork) -> str:
    (feed_id,) = network.transit.feeds["feed_id"].tolist()
    return str(feed_id)


@pytest.fixture(scope="module")
def blue(feed_text: Feed) -> str:
    return feed_text.route_named("BLUE")


@pytest.fixture(scope="module")
def green(feed_text: Feed) -> str:
    return feed_text.route_named("GREEN")


# -- reading a network back, trip by trip ----------------------------------------------------
def _raw(scoped: Any) -> str:
    return str(scoped).split(":", 1)[1]


def model_runs(network: TransportNetwork) -> dict[str, Run]:
    """Every trip of the network's patterns as a :class:`Run`."""
    m = network.transit
    stop_ids = [_raw(s) for s in m.stops["stop_id"]]
    trips = m.trips
    out = {}
    for p in range(m.n_patterns):
        arr, dep = m.pattern_times(p)
        stops = tuple(stop_ids[s] for s in m.pattern_stop_indices(p))
        for k, t in enumerate(m.pattern_trip_indices(p)):
            row = trips.iloc[int(t)]
            assert int(row["pattern_index"]) == p
            direction = int(row["direction_id"])
            out[_raw(row["trip_id"])] = Run(
                _raw(row["trip_id"]), _raw(row["route_id"]), _raw(row["service_id"]),
                "" if direction < 0 else str(direction), stops,
                tuple(int(x) for x in arr[k]), tuple(int(x) for x in dep[k]),
            )  # fmt: skip
    return out


def fingerprint(network: TransportNetwork) -> dict[str, str]:
    """SHA-256 of every array and document of a network (its saved-graph members)."""
    arrays, docs = network.transit.to_members()
    if network.street is not None:
        street_arrays, street_docs = network.street.to_members()
        arrays.update(street_arrays)
        docs.update(street_docs)
    for name in ("stop_vertex", "stop_link_distance_m", "transfer_offsets", "transfer_to",
                 "transfer_distance_m"):  # fmt: skip
        arrays[name] = getattr(network, name)
    out = {
        k: hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest() for k, a in arrays.items()
    }
    out.update(
        {k: hashlib.sha256(json.dumps(d, sort_keys=True, default=str).encode()).hexdigest()
         for k, d in docs.items()}
    )  # fmt: skip
    out["meta"] = json.dumps(network.meta, sort_keys=True, default=str)
    return out


@pytest.fixture(scope="module")
def base_fingerprint(network: TransportNetwork) -> dict[str, str]:
    return fingerprint(network)


@pytest.fixture(scope="module")
def base_runs(network: TransportNetwork, feed_text: Feed) -> dict[str, Run]:
    runs = model_runs(network)
    assert runs == feed_text.runs  # the base network is the feed, trip for trip
    return runs


def _apply(network: TransportNetwork, *mods: Any) -> dict[str, Run]:
    return model_runs(Scenario("test", mods).apply(network))


def _at(clock: str) -> dt.datetime:
    h, m = (int(x) for x in clock.split(":"))
    return dt.datetime(2021, 9, 15, h, m, tzinfo=ZoneInfo(TZ))


def _service_seconds(when: dt.datetime) -> int:
    start = dt.datetime(2021, 9, 15, 12, tzinfo=ZoneInfo(TZ)).timestamp() - 12 * 3600
    return round(when.timestamp() - start)


# -- expected transformations (the documented rules, by hand) --------------------------------
def skip_expected(run: Run, skipped: set[str], saved: int) -> Run | None:
    """R5's RemoveStops: skipped dwells go, ``saved`` s per skipped stop, hops >= 1 s."""
    kept = [i for i, s in enumerate(run.stops) if s not in skipped]
    if len(kept) == len(run.stops):
        return run
    if len(kept) < 2:
        return None
    arr, dep = [run.arr[kept[0]]], [run.dep[kept[0]]]
    for a, b in itertools.pairwise(kept):
        raw = run.arr[b] - run.dep[a] - sum(run.dep[i] - run.arr[i] for i in range(a + 1, b))
        hop = raw - saved * (b - a - 1)
        if saved * (b - a - 1) > 0:
            hop = max(hop, min(raw, 1))
        arr.append(dep[-1] + hop)
        dep.append(arr[-1] + run.dep[b] - run.arr[b])
    return replace(run, stops=tuple(run.stops[i] for i in kept), arr=tuple(arr), dep=tuple(dep))


def chained(run: Run, dwell: Callable[[str, int], float], hop: Callable[[int], float]) -> Run:
    """Times from the first arrival, adding dwells and hops left to right, rounded half up."""
    t = float(run.arr[0])
    arr, dep = [], []
    for i in range(len(run.stops)):
        arr.append(math.floor(t + 0.5))
        t += dwell(run.stops[i], run.dep[i] - run.arr[i])
        dep.append(math.floor(t + 0.5))
        if i + 1 < len(run.stops):
            t += hop(run.arr[i + 1] - run.dep[i])
    return replace(run, arr=tuple(arr), dep=tuple(dep))


# -- tests -----------------------------------------------------------------------------------
def test_removing_blue_leaves_blue_only_stations_without_blue(
    network: TransportNetwork, feed_text: Feed, feed: str, blue: str, green: str,
    base_runs: dict[str, Run], base_fingerprint: dict[str, str],
) -> None:  # fmt: skip
    served: dict[str, set[str]] = defaultdict(set)
    for run in feed_text.runs.values():
        for stop in run.stops:
            served[stop].add(run.route)
    first_blue = min(
        (r for r in feed_text.runs.values() if r.route == blue and r.service == "5"),
        key=lambda r: r.dep[0],
    )
    blue_only = [s for s in first_blue.stops if served[s] == {blue}]
    board, alight = blue_only[0], blue_only[-1]
    assert first_blue.stops.index(alight) - first_blue.stops.index(board) > 3
    request = PlanRequest(
        from_place=Location(label=f"{feed}:{board}"),
        to_place=Location(label=f"{feed}:{alight}"),
        date_time=_at("08:00"),
    )
    before = plan(network, request)
    assert any(leg.route_id == f"{feed}:{blue}" for leg in before.itineraries[0].legs)

    modified = Scenario("no blue", (RemoveRoutes((f"{feed}:{blue}",)),)).apply(network)
    runs = model_runs(modified)
    assert runs == {k: r for k, r in base_runs.items() if r.route != blue}
    assert any(r.route == green for r in runs.values())
    try:
        after = plan(modified, request)
    except PathNotFoundError:
        pass  # no BLUE, and no street between these outlying stations: no trip at all
    else:
        for itinerary in after.itineraries:
            assert all(leg.route_id != f"{feed}:{blue}" for leg in itinerary.legs)
    # the base network still plans with BLUE, and nothing in it changed
    again = plan(network, request)
    assert any(leg.route_id == f"{feed}:{blue}" for leg in again.itineraries[0].legs)
    assert fingerprint(network) == base_fingerprint
    # RAPTOR timetables are cached per transit model: the copy gets its own, without BLUE
    blue_index = int(np.flatnonzero(network.transit.routes["raw_id"].astype(str) == blue)[0])
    base_tt = raptor_timetable(network.transit, DATE, TZ)
    new_tt = raptor_timetable(modified.transit, DATE, TZ)
    assert new_tt is not base_tt
    assert blue_index in set(base_tt.route_gtfs_route.tolist())
    assert blue_index not in set(new_tt.route_gtfs_route.tolist())
    assert raptor_timetable(network.transit, DATE, TZ) is base_tt


def test_remove_trips_by_frequency_template_and_route_guard(
    network: TransportNetwork, feed: str, blue: str, base_runs: dict[str, Run]
) -> None:
    template = min(r.trip_id for r in base_runs.values() if r.route == blue and "@" in r.trip_id)
    template = template.split("@")[0]
    scheduled = min(k for k, r in base_runs.items() if "@" not in k and r.route != blue)
    runs = _apply(network, RemoveTrips((f"{feed}:{template}", f"{feed}:{scheduled}")))
    gone = {k for k in base_runs if k.split("@")[0] in (template, scheduled)}
    assert len(gone) > 5
    assert runs == {k: r for k, r in base_runs.items() if k not in gone}
    problems = Scenario(
        "guard", (RemoveTrips((f"{feed}:{scheduled}",), routes=(f"{feed}:{blue}",)),)
    ).validate(network)
    route = base_runs[scheduled].route
    assert problems == [
        f"modification 0 (remove-trips): trips: trip '{feed}:{scheduled}' runs on route "
        f"'{feed}:{route}', not on one of routes ['{feed}:{blue}']"
    ]


def test_remove_stops_on_one_route(
    network: TransportNetwork, feed: str, blue: str, base_runs: dict[str, Run]
) -> None:
    skipped = {"470", "27"}  # Vine City (BLUE and GREEN) and BLUE's western terminus
    runs = _apply(
        network,
        RemoveStops(tuple(f"{feed}:{s}" for s in sorted(skipped)), route=f"{feed}:{blue}",
                    seconds_saved_s=30),
    )  # fmt: skip
    expected = {}
    for k, r in base_runs.items():
        new = skip_expected(r, skipped, 30) if r.route == blue else r
        if new is not None:
            expected[k] = new
    assert runs == expected
    changed = [k for k in expected if expected[k] != base_runs[k]]
    assert len(changed) > 20
    # GREEN still calls at Vine City; BLUE no longer does
    assert any("470" in r.stops for r in runs.values() if r.route != blue)
    assert not any(skipped & set(r.stops) for r in runs.values() if r.route == blue)


def test_remove_stops_everywhere_updates_the_stop_index(
    network: TransportNetwork, feed: str, base_runs: dict[str, Run]
) -> None:
    modified = Scenario("no vine city", (RemoveStops((f"{feed}:470",)),)).apply(network)
    assert model_runs(modified) == {
        k: v for k, v in ((k, skip_expected(r, {"470"}, 0)) for k, r in base_runs.items()) if v
    }
    m = modified.transit
    vine = int(np.flatnonzero(m.stops["raw_id"].astype(str) == "470")[0])
    assert m.stop_pattern_offsets[vine + 1] == m.stop_pattern_offsets[vine]
    base = network.transit
    assert base.stop_pattern_offsets[vine + 1] > base.stop_pattern_offsets[vine]


def test_adjust_speed_scales_hops_only(
    network: TransportNetwork, feed: str, blue: str, base_runs: dict[str, Run]
) -> None:
    runs = _apply(
        network,
        AdjustDwellTime(stops=(f"{feed}:470",), dwell_s=40),  # give the trips a dwell to keep
        AdjustSpeed((f"{feed}:{blue}",), scale=1.6),  # 60 s hops -> 37.5 s,
    )
    expected = {}
    for k, r in base_runs.items():
        r = chained(r, lambda stop, d: 40 if stop == "470" else d, lambda h: h)
        if r.route == blue:
            r = chained(r, lambda stop, d: d, lambda h: h / 1.6)
        expected[k] = r
    assert runs == expected
    blue_run = next(r for r in runs.values() if r.route == blue and "470" in r.stops)
    i = blue_run.stops.index("470")
    assert blue_run.dep[i] - blue_run.arr[i] == 40


def test_adjust_dwell_time_set_then_scale(
    network: TransportNetwork, feed: str, green: str, base_runs: dict[str, Run]
) -> None:
    runs = _apply(
        network,
        AdjustDwellTime(stops=(f"{feed}:470", f"{feed}:28"), dwell_s=35),
        AdjustDwellTime(routes=(f"{feed}:{green}",), scale=1.5),
    )
    expected = {}
    for k, r in base_runs.items():
        r = chained(r, lambda stop, d: 35 if stop in ("470", "28") else d, lambda h: h)
        if r.route == green:
            r = chained(r, lambda stop, d: math.floor(d * 1.5 + 0.5), lambda h: h)
        expected[k] = r
    assert runs == expected
    dwells = Counter(
        r.dep[r.stops.index("470")] - r.arr[r.stops.index("470")]
        for r in runs.values()
        if "470" in r.stops
    )
    assert set(dwells) == {35, 53}  # BLUE 35 s; GREEN 35 * 1.5 = 52.5 -> 53 (halves up)


def _expected_frequency(
    base_runs: dict[str, Run], route: str, headway: int, start: int, end: int
) -> tuple[dict[str, Run], Counter[tuple[Any, ...]]]:
    """Runs left outside the window, and the new runs' timetables (as a multiset)."""
    kept = {
        k: r for k, r in base_runs.items() if not (r.route == route and start <= r.dep[0] < end)
    }
    groups: dict[tuple[str, str], list[Run]] = defaultdict(list)
    for r in base_runs.values():
        if r.route == route and start <= r.dep[0] < end:
            groups[(r.service, r.direction)].append(r)
    new: Counter[tuple[Any, ...]] = Counter()
    for members in groups.values():
        shapes = Counter(r.stops for r in members)
        top = max(shapes.values())
        candidates = [r for r in members if shapes[r.stops] == top]
        template = min(candidates, key=lambda r: r.dep[0])
        t = start
        while t < end:
            shift = t - template.dep[0]
            new[replace(
                template, arr=tuple(a + shift for a in template.arr),
                dep=tuple(d + shift for d in template.dep),
            ).timetable()] += 1  # fmt: skip
            t += headway
    return kept, new


def test_adjust_frequency_replaces_the_window(
    network: TransportNetwork, feed: str, blue: str, base_runs: dict[str, Run]
) -> None:
    start, end, headway = 7 * 3600, 9 * 3600, 600
    modified = Scenario(
        "blue every 10 min", (AdjustFrequency(f"{feed}:{blue}", headway, start, end),)
    ).apply(network)
    runs = model_runs(modified)
    kept, new = _expected_frequency(base_runs, blue, headway, start, end)
    assert len({(k[1], k[2]) for k in new}) >= 4  # several services and both directions
    assert {k: r for k, r in runs.items() if k in kept} == kept
    added = Counter(r.timetable() for k, r in runs.items() if k not in kept)
    assert added == new
    # a ride from the western terminus at 07:01 boards the first 10-minute departure
    ride = min(
        (t for t in new if t[1] == "5" and t[3][:2] == ("27", "28") and t[5][0] >= 7 * 3600 + 60),
        key=lambda t: t[5][0],
    )
    result = plan(
        modified,
        PlanRequest(
            from_place=Location(label=f"{feed}:27"),
            to_place=Location(label=f"{feed}:28"),
            date_time=_at("07:01"),
        ),
    )
    leg = result.itineraries[0].legs[0]
    assert leg.route_id == f"{feed}:{blue}"
    assert (_service_seconds(leg.start_time), _service_seconds(leg.end_time)) == (
        ride[5][0],
        ride[4][1],
    )


def test_scenarios_never_write_into_a_memory_mapped_base(
    network: TransportNetwork, feed: str, blue: str, green: str, tmp_path: Path,
    base_fingerprint: dict[str, str],
) -> None:  # fmt: skip
    network.save(tmp_path / "graph", compress=False)
    loaded = TransportNetwork.load(tmp_path / "graph")
    assert not loaded.transit.arrival_s.flags.writeable
    mods = (
        RemoveTrips((f"{feed}:6548386",)),
        RemoveStops((f"{feed}:28",), route=f"{feed}:{blue}"),
        AdjustFrequency(f"{feed}:{green}", 900, 6 * 3600, 10 * 3600),
        AdjustSpeed((f"{feed}:{blue}",), 0.8),
        AdjustDwellTime(scale=2.0),
    )
    from_loaded = Scenario("all", mods).apply(loaded)
    from_built = Scenario("all", mods).apply(network)
    assert model_runs(from_loaded) == model_runs(from_built)
    assert fingerprint(network) == base_fingerprint
    # the result is an ordinary network: it saves and loads
    from_built.save(tmp_path / "scenario-graph")
    reloaded = TransportNetwork.load(tmp_path / "scenario-graph")
    assert model_runs(reloaded) == model_runs(from_built)
    assert from_built.meta["scenario"]["name"] == "all"
    assert from_built.street is network.street  # no stops added: the streets are shared
