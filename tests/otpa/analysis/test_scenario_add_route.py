"""``AddRoute`` on the synthetic demo city: a new bus across the city, planned with.

FEATURE UNDER TEST: a new route with new stops is linked to the streets like
a build links stops, gets walking transfers, runs on its headway grid with
hop times from the straight-line distance at its speed, and the trip planner
uses it; the base network knows nothing of it.

The city (``otpa.testing.demo``) is a 1.8 km grid; no existing line runs from
its south-west to its north-east corner, so the new bus is the obvious ride.
Expected times are computed here with an independent haversine.
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from otpa.analysis.scenario import AddRoute, NewStop, Scenario
from otpa.network import TransportNetwork, build_network
from otpa.routing import Location, PlanRequest
from otpa.routing.planner import plan
from otpa.testing.demo import DemoCity, write_demo_city
from otpa.transit.raptor_data import raptor_timetable

#: Near the south-west and north-east corners of the demo grid.
SOUTH_WEST = (53.2915, 4.1865)
NORTH_EAST = (53.3080, 4.2135)
MIDDLE = "demo:bus_c_6_6"  # the 7th Avenue bus stop at Central Station
SPEED_KMH, DWELL_S, HEADWAY_S = 30.0, 20, 600
START_S, END_S = 6 * 3600, 22 * 3600


def _haversine_m(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    r = 6_371_010.0
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * r * math.asin(math.sqrt(a))


@pytest.fixture(scope="module")
def city(tmp_path_factory: pytest.TempPathFactory) -> DemoCity:
    return write_demo_city(tmp_path_factory.mktemp("scenario-demo"))


@pytest.fixture(scope="module")
def network(city: DemoCity) -> TransportNetwork:
    return build_network(city.directory)


def _route(**changes: object) -> AddRoute:
    values: dict[str, object] = {
        "name": "X9",
        "mode": "BUS",
        "stops": (NewStop(*SOUTH_WEST, "Southwest End"), MIDDLE, NewStop(*NORTH_EAST, "NE End")),
        "headway_s": HEADWAY_S,
        "start_time": START_S,
        "end_time": END_S,
        "speed_kmh": SPEED_KMH,
        "dwell_s": DWELL_S,
        "bidirectional": True,
    }
    values.update(changes)
    return AddRoute(**values)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def modified(network: TransportNetwork) -> TransportNetwork:
    return Scenario("diagonal bus", (_route(),)).apply(network)


def _expected_hops(network: TransportNetwork) -> list[int]:
    stops = network.transit.stops
    row = stops.index[stops["stop_id"] == MIDDLE][0]
    points = [SOUTH_WEST, (float(stops.lat[row]), float(stops.lon[row])), NORTH_EAST]
    v = SPEED_KMH / 3.6
    return [math.floor(_haversine_m(*a, *b) / v + 0.5) for a, b in itertools.pairwise(points)]


def _service_seconds(when: dt.datetime, date: dt.date, tz: str) -> int:
    noon = dt.datetime(date.year, date.month, date.day, 12, tzinfo=ZoneInfo(tz))
    return round(when.timestamp() - (noon.timestamp() - 12 * 3600))


def test_planner_rides_the_new_route_on_its_headway(
    network: TransportNetwork, modified: TransportNetwork, city: DemoCity
) -> None:
    hops = _expected_hops(network)
    ride_s = hops[0] + DWELL_S + hops[1]
    tz = ZoneInfo(city.timezone)
    when = dt.datetime.combine(city.sample_date, dt.time(8, 3), tzinfo=tz)
    request = PlanRequest(
        from_place=Location(lat=SOUTH_WEST[0] - 0.0003, lon=SOUTH_WEST[1] - 0.0003),
        to_place=Location(lat=NORTH_EAST[0] + 0.0003, lon=NORTH_EAST[1] + 0.0003),
        date_time=when,
    )
    route_id = "demo:scenario-x9"
    best = plan(modified, request).itineraries[0]
    rides = [leg for leg in best.legs if leg.transit_leg]
    assert len(rides) == 1, best.legs
    ride = rides[0]
    assert (ride.route_id, ride.route_short_name, ride.mode) == (route_id, "X9", "BUS")
    assert (ride.from_place.name, ride.to_place.name) == ("Southwest End", "NE End")
    assert (ride.end_time - ride.start_time).total_seconds() == ride_s
    board = _service_seconds(ride.start_time, city.sample_date, city.timezone)
    assert (board - START_S) % HEADWAY_S == 0
    ready = _service_seconds(best.legs[0].end_time, city.sample_date, city.timezone)
    assert ready <= board < ready + HEADWAY_S
    # the traveller walks to the new stop (linked to the streets) and from the other one
    assert [best.legs[0].mode, best.legs[-1].mode] == ["WALK", "WALK"]
    assert best.legs[0].to_place.name == "Southwest End"
    assert best.legs[0].duration < 300
    assert best.legs[-1].duration < 300
    # the base network has no such route
    for itinerary in plan(network, request).itineraries:
        assert all(leg.route_id != route_id for leg in itinerary.legs)


def test_trips_tables_and_timetable(network: TransportNetwork, modified: TransportNetwork) -> None:
    hops = _expected_hops(network)
    m = modified.transit
    route = int(np.flatnonzero(m.routes["route_id"] == "demo:scenario-x9")[0])
    assert m.routes["mode"][route] == "BUS"
    assert int(m.routes["route_type"][route]) == 3
    patterns = np.flatnonzero(m.pattern_route == route)
    assert len(patterns) == 2  # out and back
    departures = list(range(START_S, END_S, HEADWAY_S))
    out = [0, hops[0], hops[0] + DWELL_S + hops[1]]
    back = [0, hops[1], hops[1] + DWELL_S + hops[0]]
    offsets = {  # direction -> (arrival offsets, departure offsets)
        0: (out, [0, out[1] + DWELL_S, out[2]]),
        1: (back, [0, back[1] + DWELL_S, back[2]]),
    }
    for p in patterns:
        arr, dep = m.pattern_times(int(p))
        trips = m.trips.iloc[m.pattern_trip_indices(int(p))]
        (direction,) = set(trips["direction_id"].tolist())
        stops = m.stops["stop_id"].to_numpy()[m.pattern_stop_indices(int(p))].tolist()
        if direction == 0:
            assert stops == ["demo:scenario-x9-1", MIDDLE, "demo:scenario-x9-3"]
        else:
            assert stops == ["demo:scenario-x9-3", MIDDLE, "demo:scenario-x9-1"]
        want_arr, want_dep = offsets[direction]
        assert arr.tolist() == [[t + o for o in want_arr] for t in departures]
        assert dep.tolist() == [[t + o for o in want_dep] for t in departures]
        assert trips["trip_id"].iloc[0] == f"demo:scenario-x9-{['out', 'back'][direction]}@06:00:00"
    # one new service, running every day of the feed's period
    service = m.service_ids.index("demo:scenario-x9-service")
    assert m.service_active[service].all()
    assert len(m.service_ids) == len(network.transit.service_ids) + 1
    # the existing timetable is untouched
    assert m.n_trips == network.transit.n_trips + 2 * len(departures)


def test_new_stops_are_linked_with_transfers(
    network: TransportNetwork, modified: TransportNetwork
) -> None:
    n = network.transit.n_stops
    m = modified.transit
    assert m.n_stops == n + 2
    new = [n, n + 1]
    assert m.stops["stop_id"].iloc[new].tolist() == ["demo:scenario-x9-1", "demo:scenario-x9-3"]
    assert (modified.stop_vertex[new] >= 0).all()
    assert np.isfinite(modified.stop_link_distance_m[new]).all()
    assert (modified.stop_link_distance_m[new] < 100).all()
    # existing stops keep their links and transfers
    np.testing.assert_array_equal(modified.stop_vertex[:n], network.stop_vertex)
    for s in range(n):
        a, b = network.transfer_offsets[s], network.transfer_offsets[s + 1]
        c, d = modified.transfer_offsets[s], modified.transfer_offsets[s + 1]
        old = dict(
            zip(network.transfer_to[a:b].tolist(), network.transfer_distance_m[a:b], strict=True)
        )
        now = dict(
            zip(modified.transfer_to[c:d].tolist(), modified.transfer_distance_m[c:d], strict=True)
        )
        assert {k: v for k, v in now.items() if k < n} == pytest.approx(old)
        assert np.all(np.diff(modified.transfer_distance_m[c:d]) >= 0)  # nearest first
    # the new stops reach nearby stops on foot, and are reached from them
    for s in new:
        a, b = modified.transfer_offsets[s], modified.transfer_offsets[s + 1]
        assert b - a > 0
        assert modified.transfer_distance_m[a] < 500
        nearest = int(modified.transfer_to[a])
        c, d = modified.transfer_offsets[nearest], modified.transfer_offsets[nearest + 1]
        assert s in modified.transfer_to[c:d].tolist()
    assert modified.street is not None
    assert network.street is not None
    assert modified.street.n_vertices >= network.street.n_vertices
    _lon_min, lat_min, lon_max, _lat_max = modified.bounds
    assert lat_min <= SOUTH_WEST[0]
    assert lon_max >= NORTH_EAST[1]


def test_raptor_timetable_is_fresh(
    network: TransportNetwork, modified: TransportNetwork, city: DemoCity
) -> None:
    route = int(np.flatnonzero(modified.transit.routes["route_id"] == "demo:scenario-x9")[0])
    base_tt = raptor_timetable(network.transit, city.sample_date, city.timezone)
    new_tt = raptor_timetable(modified.transit, city.sample_date, city.timezone)
    assert new_tt is not base_tt
    assert route in set(new_tt.route_gtfs_route.tolist())
    assert route not in set(base_tt.route_gtfs_route.tolist())
    assert new_tt.n_stops == base_tt.n_stops + 2


def test_weekend_route_and_given_hop_times(network: TransportNetwork, city: DemoCity) -> None:
    mod = _route(days=("saturday", "sunday"), speed_kmh=None, hop_times_s=(100, 200),
                 bidirectional=False, route_id="W1")  # fmt: skip
    m = Scenario("weekend", (mod,)).apply(network).transit
    service = m.service_ids.index("demo:W1-service")
    days = [dt.date.fromordinal(m.service_first_day + d) for d in range(m.service_active.shape[1])]
    assert m.service_active[service].tolist() == [d.weekday() >= 5 for d in days]
    route = int(np.flatnonzero(m.routes["route_id"] == "demo:W1")[0])
    (p,) = np.flatnonzero(m.pattern_route == route)
    arr, dep = m.pattern_times(int(p))
    assert arr[0].tolist() == [START_S, START_S + 100, START_S + 100 + DWELL_S + 200]
    assert dep[0].tolist() == [START_S, START_S + 100 + DWELL_S, START_S + 320]
    assert city.sample_date.weekday() == 2  # a Wednesday: not running
    assert not m.services_on(city.sample_date)[service]


def test_round_trip_through_a_saved_graph(modified: TransportNetwork, tmp_path: Path) -> None:
    modified.save(tmp_path / "graph")
    loaded = TransportNetwork.load(tmp_path / "graph")
    assert loaded.transit.n_stops == modified.transit.n_stops
    assert (
        loaded.transit.routes["route_id"].tolist() == modified.transit.routes["route_id"].tolist()
    )
    np.testing.assert_array_equal(loaded.transit.arrival_s, modified.transit.arrival_s)
    np.testing.assert_array_equal(loaded.transfer_to, modified.transfer_to)


def test_stations_cannot_be_served(network: TransportNetwork) -> None:
    assert _route(stops=("demo:central_station", MIDDLE)).validate(network) == [
        "stops: 'demo:central_station' is a station or entrance, not a boarding stop"
    ]
