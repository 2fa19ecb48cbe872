"""Mapping the transit model onto RAPTOR's timetable and transfer rules (``raptor_data``)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np
import pytest
from _raptor_net import service_date_with_trips, stop_index

from otpa.transit.build import empty_transit_model
from otpa.transit.model import TransitModel
from otpa.transit.raptor.api import RaptorRequest, route
from otpa.transit.raptor.spi import RaptorTimetable
from otpa.transit.raptor_data import raptor_timetable, transfer_rules
from tests.fixtures.networks import built_network


def _expected_routes(model: TransitModel, date: dt.date, tz: str) -> dict[tuple[int, int], tuple]:
    """(pattern, day) -> (trips, arrival, departure) recomputed with plain loops."""
    epoch = int(dt.datetime(date.year, date.month, date.day, tzinfo=ZoneInfo(tz)).timestamp())
    out = {}
    for d in (-1, 0, 1):
        day = date + dt.timedelta(days=d)
        running = model.services_on(day)
        for p in range(model.n_patterns):
            trips = model.pattern_trip_indices(p)
            sid = model.trips["service_index"].to_numpy()[trips]
            arr, dep = model.pattern_times(p)
            sane = (dep >= arr).all(axis=1) & (arr[:, 1:] >= dep[:, :-1]).all(axis=1)
            keep = sane & np.asarray([s >= 0 and running[s] for s in sid], bool)
            if not keep.any():
                continue
            tz_name = model.timezones[model.trips["tz_index"].to_numpy()[trips[0]]]
            shift = model.service_day_start(day, tz_name) - epoch
            out[(p, d)] = (trips[keep], arr[keep] + shift, dep[keep] + shift)
    return out


def _check_against_model(tt: RaptorTimetable, model: TransitModel, date: dt.date, tz: str) -> None:
    expected = _expected_routes(model, date, tz)
    got = {}
    for r in range(tt.n_routes):
        a, b = tt.route_stop_offsets[r], tt.route_stop_offsets[r + 1]
        t0, t1 = tt.route_trip_offsets[r], tt.route_trip_offsets[r + 1]
        ns, nt = b - a, t1 - t0
        base = tt.route_time_offsets[r]
        p = int(tt.route_pattern[r])
        np.testing.assert_array_equal(tt.route_stops[a:b], model.pattern_stop_indices(p))
        assert tt.route_gtfs_route[r] == model.pattern_route[p]
        pa, pb = model.pattern_stop_offsets[p], model.pattern_stop_offsets[p + 1]
        np.testing.assert_array_equal(tt.route_board[a:b], model.pattern_pickup[pa:pb] != 1)
        np.testing.assert_array_equal(tt.route_alight[a:b], model.pattern_dropoff[pa:pb] != 1)
        got[(p, int(tt.route_day[r]))] = (
            tt.route_trip_ref[t0:t1],
            tt.arrival[base : base + ns * nt].reshape(nt, ns),
            tt.departure[base : base + ns * nt].reshape(nt, ns),
        )
    assert got.keys() == expected.keys()
    for key, (trips, arr, dep) in expected.items():
        np.testing.assert_array_equal(got[key][0], trips)
        np.testing.assert_array_equal(got[key][1], arr)
        np.testing.assert_array_equal(got[key][2], dep)
    # the stop -> (route, position) index
    for s in range(tt.n_stops):
        for x in range(tt.stop_route_offsets[s], tt.stop_route_offsets[s + 1]):
            r, j = tt.stop_routes[x], tt.stop_route_pos[x]
            assert tt.route_stops[tt.route_stop_offsets[r] + j] == s
    assert tt.stop_route_offsets[-1] == len(tt.route_stops)


@pytest.mark.parametrize("name", ["tiny/atlanta", "tiny/beatty", "tiny/transit-only"])
def test_timetable_matches_the_model(data_root: Path, name: str) -> None:
    model = built_network(data_root, name).transit
    date = service_date_with_trips(model)
    tz = model.timezones[0]
    tt = raptor_timetable(model, date, tz)
    assert tt.n_routes > 0
    _check_against_model(tt, model, date, tz)
    assert tt.epoch == int(
        dt.datetime(date.year, date.month, date.day, tzinfo=ZoneInfo(tz)).timestamp()
    )


def test_daylight_saving_day(data_root: Path) -> None:
    # 2021-11-07: US clocks go back at 02:00; the service day starts at noon minus 12 h
    model = built_network(data_root, "tiny/atlanta").transit
    date = dt.date(2021, 11, 7)
    tt = raptor_timetable(model, date, "America/New_York")
    assert tt.epoch == 1636257600  # 04:00 UTC = midnight EDT
    shifts = {-1: -86400, 0: 3600, 1: 86400 + 3600}
    seen = set()
    for r in range(tt.n_routes):
        p, d = int(tt.route_pattern[r]), int(tt.route_day[r])
        t0, t1 = tt.route_trip_offsets[r], tt.route_trip_offsets[r + 1]
        ns = tt.route_stop_offsets[r + 1] - tt.route_stop_offsets[r]
        trips = list(model.pattern_trip_indices(p))
        base = tt.route_time_offsets[r]
        for k, trip in enumerate(tt.route_trip_ref[t0:t1]):
            arr = model.pattern_times(p)[0][trips.index(trip)]
            got = tt.arrival[base + k * ns : base + (k + 1) * ns]
            np.testing.assert_array_equal(got - arr, shifts[d])
        seen.add(d)
    assert seen == {-1, 0, 1}
    _check_against_model(tt, model, date, "America/New_York")


def test_agencies_in_two_time_zones(data_root: Path) -> None:
    model = built_network(data_root, "tiny/transit-only").transit
    ny = set(
        np.flatnonzero(model.agencies["timezone"].astype(str).to_numpy() == "America/New_York")
    )
    route_agency = model.routes["agency_index"].to_numpy()
    date = dt.date(2016, 6, 1)
    tt = raptor_timetable(model, date, "America/Los_Angeles")
    checked = [0, 0]
    for r in range(tt.n_routes):
        if tt.route_day[r] != 0:
            continue
        p = int(tt.route_pattern[r])
        t0 = tt.route_trip_offsets[r]
        trip = int(tt.route_trip_ref[t0])
        k = list(model.pattern_trip_indices(p)).index(trip)
        first = model.pattern_times(p)[0][k, 0]
        # New York's service day starts 3 h before Los Angeles' midnight
        in_ny = route_agency[model.pattern_route[p]] in ny
        assert tt.arrival[tt.route_time_offsets[r]] == (first - 3 * 3600 if in_ny else first)
        checked[in_ny] += 1
    assert min(checked) > 0


def test_timetables_are_cached_and_read_only(data_root: Path) -> None:
    model = built_network(data_root, "tiny/beatty").transit
    date = service_date_with_trips(model)
    tt = raptor_timetable(model, date, "America/Los_Angeles")
    assert raptor_timetable(model, date, "America/Los_Angeles") is tt
    assert raptor_timetable(model, date + dt.timedelta(days=1), "America/Los_Angeles") is not tt
    with pytest.raises(ValueError, match="read-only"):
        tt.arrival[0] = 0


def test_trips_travelling_back_in_time_are_left_out(data_root: Path) -> None:
    model = built_network(data_root, "tiny/transit-only").transit
    bogus = int(np.flatnonzero(model.trips["raw_id"].astype(str).to_numpy() == "18.bogus")[0])
    date = dt.date(2009, 3, 4)
    assert model.services_on(date)[model.trips["service_index"][bogus]]
    tt = raptor_timetable(model, date, "America/Los_Angeles")
    assert bogus not in set(tt.route_trip_ref.tolist())


def test_transfer_rules_with_parent_stations(data_root: Path) -> None:
    model = built_network(data_root, "tiny/beatty").transit
    rules = transfer_rules(model)
    n = model.n_stops
    museum_station = stop_index(model, "PARENT_OF_MUSEUM")
    museum = stop_index(model, "MUSEUM")
    next_station = stop_index(model, "PARENT_OF_NEXT_TO_MUSEUM")
    next_to = stop_index(model, "NEXT_TO_MUSEUM")
    airport = stop_index(model, "BEATTY_AIRPORT")
    ab = int(np.flatnonzero(model.routes["raw_id"].astype(str).to_numpy() == "AB")[0])
    parents = sorted(
        [
            (museum_station * n + next_station, 0, -1, -1, 2, 600),
            (museum * n + next_station, 1, -1, -1, 2, 600),
            (museum_station * n + next_to, 2, -1, -1, 2, 600),
            (museum * n + next_to, 3, -1, -1, 2, 600),
        ]
    )
    rows = [
        *parents,
        # one stop pair: route rules (file order) before the stop rule
        (airport * n + airport, 0, -1, ab, 2, 0),
        (airport * n + airport, 0, ab, -1, 2, 1200),
        (airport * n + airport, 0, -1, -1, 2, 660),
    ]
    got = list(
        zip(
            rules.key.tolist(),
            rules.level.tolist(),
            rules.from_route.tolist(),
            rules.to_route.tolist(),
            rules.kind.tolist(),
            rules.min_time_s.tolist(),
            strict=True,
        )
    )
    assert got == rows
    assert rules.n_stops == n
    assert not rules.has_preferred


def test_empty_model() -> None:
    model = empty_transit_model()
    assert len(transfer_rules(model)) == 0
    tt = raptor_timetable(model, dt.date(2024, 1, 1), "UTC")
    assert tt.n_routes == 0
    req = RaptorRequest(
        access_stops=np.zeros(0, np.int32),
        access_time_s=np.zeros(0, np.int32),
        access_cost=np.zeros(0),
        egress_stops=np.zeros(0, np.int32),
        egress_time_s=np.zeros(0, np.int32),
        egress_cost=np.zeros(0),
        time=0,
    )
    assert route(tt, req) == []
