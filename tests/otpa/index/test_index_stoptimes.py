"""Departures at a stop: per service day and in a time window, against stop_times.txt.

FEATURE UNDER TEST: the calls listed at the busiest stop of a network on one
service day are exactly the stop_times.txt rows of that stop whose trip's
service runs that day (frequency-based trips once per departure), with the
service day starting at noon minus 12 h in the agency's time zone.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter

import pytest

from otpa.index import StopTimesInPattern, TransitIndex
from tests.conftest import DATA_ROOT, require_data
from tests.fixtures.networks import built_network
from tests.otpa.index._gtfs_csv import CsvFeed, csv_feeds

#: (data set, service day): a weekday inside each feed's calendar.
CASES = [("tiny/atlanta", dt.date(2021, 10, 6)), ("small/rnv", dt.date(2016, 11, 16))]


def _setup(name: str) -> tuple[TransitIndex, CsvFeed, str]:
    require_data(*name.split("/"))
    index = TransitIndex.of(built_network(DATA_ROOT, name))
    feed = csv_feeds(name)[0]
    counts = Counter(r.stop_id for rows in feed.stop_times_by_trip().values() for r in rows)
    busiest = min(counts, key=lambda s: (-counts[s], s))
    return index, feed, busiest


@pytest.mark.parametrize(("name", "date"), CASES)
def test_departures_on_a_service_day_match_stop_times(name: str, date: dt.date) -> None:
    index, feed, stop = _setup(name)
    expected = feed.stop_calls(stop, date)
    assert sum(expected.values()) > 20  # a busy stop on a day with service
    found = index.find_stop_times_for_date(feed.scoped(stop), date)
    got = Counter(
        (t.trip_id, t.scheduled_arrival, t.scheduled_departure) for p in found for t in p.times
    )
    assert got == expected
    day_start = feed.service_day_start(date)
    for p in found:
        departures = [t.scheduled_departure for t in p.times]
        assert departures == sorted(departures)
        for t in p.times:
            assert t.service_day == day_start
            assert t.stop_id == feed.scoped(stop)
            assert p.pattern.stop_ids[t.stop_index] == t.stop_id
            assert t.stop_count == len(p.pattern.stop_ids)
            assert t.trip_id in p.pattern.trip_ids
    # every pattern calling at the stop is listed, as OTP did
    assert [p.pattern.id for p in found] == [
        p.id for p in index.find_patterns(stop_id=feed.scoped(stop))
    ]


@pytest.mark.parametrize(("name", "date"), CASES)
def test_departures_in_a_window(name: str, date: dt.date) -> None:
    index, feed, stop = _setup(name)
    start = feed.service_day_start(date) + 7 * 3600 + 1234
    time_range = 2 * 3600
    # expected: the calls of this day and the day before (after-midnight trips) in the window
    expected = Counter()
    for day in (date - dt.timedelta(days=1), date):
        base = feed.service_day_start(day)
        for (trip, arr, dep), n in feed.stop_calls(stop, day).items():
            if start <= base + dep <= start + time_range:
                expected[(trip, base + arr, base + dep)] += n
    assert expected
    found = index.find_stop_times(
        feed.scoped(stop), start_time=start, time_range_s=time_range, number_of_departures=10_000
    )
    got = Counter(
        (t.trip_id, t.service_day + t.scheduled_arrival, t.service_day + t.scheduled_departure)
        for p in found
        for t in p.times
    )
    assert got == expected
    # numberOfDepartures keeps the earliest departures of each pattern
    two = index.find_stop_times(
        feed.scoped(stop), start_time=start, time_range_s=time_range, number_of_departures=2
    )
    assert [p.pattern.id for p in two] == [p.pattern.id for p in found]
    for few, every in zip(two, found, strict=True):
        assert few.times == every.times[:2]


def test_window_reaches_after_midnight_trips_of_the_previous_day() -> None:
    index, feed, stop = _setup("tiny/atlanta")
    date = dt.date(2021, 10, 6)
    late = [
        (trip, dep)
        for (trip, _, dep) in feed.stop_calls(stop, date - dt.timedelta(days=1))
        if dep >= 24 * 3600
    ]
    assert late  # MARTA runs past midnight
    trip, dep = min(late, key=lambda c: c[1])
    at = feed.service_day_start(date - dt.timedelta(days=1)) + dep
    found = index.find_stop_times(feed.scoped(stop), start_time=at, time_range_s=0)
    times = [t for p in found for t in p.times]
    assert (times[0].trip_id, times[0].scheduled_departure) == (trip, dep)


#: VVS bus 751 (Herrenberg): three trips end at this stop with pickup_type 1 (no boarding).
VVS = "tiny/herrenberg-vvs"
NO_BOARDING_STOP = "de:08115:7100:10:13"
VVS_DAY = dt.date(2020, 3, 4)  # a Wednesday


def test_omit_non_pickups_on_a_service_day() -> None:
    require_data("tiny", "herrenberg-vvs")
    index = TransitIndex.of(built_network(DATA_ROOT, VVS))
    feed = next(f for f in csv_feeds(VVS) if f.feed_id == "vvs-bus-751-only")
    stop = feed.scoped(NO_BOARDING_STOP)
    every = feed.stop_calls(NO_BOARDING_STOP, VVS_DAY)
    boarding = feed.stop_calls(NO_BOARDING_STOP, VVS_DAY, pickups_only=True)
    assert sum(every.values()) > sum(boarding.values())  # the file has non-pickup calls here

    def calls(found: list[StopTimesInPattern]) -> Counter[tuple[str, int, int]]:
        return Counter(
            (t.trip_id, t.scheduled_arrival, t.scheduled_departure) for p in found for t in p.times
        )

    all_calls = index.find_stop_times_for_date(stop, VVS_DAY)
    pickups = index.find_stop_times_for_date(stop, VVS_DAY, omit_non_pickups=True)
    assert calls(all_calls) == every
    assert calls(pickups) == boarding
    assert all(
        t.pickup_type == 1
        for p in all_calls
        for t in p.times
        if (t.trip_id, t.scheduled_arrival, t.scheduled_departure) not in boarding
    )
    # every pattern of the stop is still listed, as OTP did
    assert [p.pattern.id for p in pickups] == [p.pattern.id for p in all_calls]


def test_omit_non_pickups_in_a_window() -> None:
    require_data("tiny", "herrenberg-vvs")
    index = TransitIndex.of(built_network(DATA_ROOT, VVS))
    feed = next(f for f in csv_feeds(VVS) if f.feed_id == "vvs-bus-751-only")
    stop = feed.scoped(NO_BOARDING_STOP)
    start = feed.service_day_start(VVS_DAY)
    found = index.find_stop_times(stop, start_time=start, number_of_departures=100)
    assert sum(len(p.times) for p in found) == sum(
        feed.stop_calls(NO_BOARDING_STOP, VVS_DAY).values()
    )
    boarding = index.find_stop_times(
        stop, start_time=start, number_of_departures=100, omit_non_pickups=True
    )
    # a window lists only patterns with departures left
    assert sum(len(p.times) for p in boarding) == sum(
        feed.stop_calls(NO_BOARDING_STOP, VVS_DAY, pickups_only=True).values()
    )
    assert all(p.times for p in boarding)


def test_trip_times_follow_the_stop_times_rows() -> None:
    index, feed, _ = _setup("small/rnv")
    by_trip = feed.stop_times_by_trip()
    for trip_id in sorted(by_trip)[:50]:
        rows = by_trip[trip_id]
        times = index.find_trip_times(feed.scoped(trip_id))
        assert [t.stop_id for t in times] == [feed.scoped(r.stop_id) for r in rows]
        assert [(t.scheduled_arrival, t.scheduled_departure) for t in times] == [
            (_seconds(r.arrival), _seconds(r.departure)) for r in rows
        ]
        assert {t.service_day for t in times} == {0}


def test_trip_times_on_a_date() -> None:
    index, feed, _ = _setup("small/rnv")
    date = dt.date(2016, 11, 16)
    active = feed.active_services(date)
    trips = feed.rows("trips.txt")[:200]
    for row in trips:
        times = index.find_trip_times(feed.scoped(row["trip_id"]), date=date)
        if row["service_id"].strip() in active:
            assert times
            assert {t.service_day for t in times} == {feed.service_day_start(date)}
        else:
            assert times == []


def _seconds(text: str) -> int:
    h, m, s = text.strip().split(":")
    return int(h) * 3600 + int(m) * 60 + int(s)


@pytest.mark.parametrize(("name", "date"), CASES)
def test_trips_found_by_route_date_and_first_departure(name: str, date: dt.date) -> None:
    """OTP's fuzzy trip match; a frequency-based trip is found by any of its departures."""
    index, feed, _ = _setup(name)
    active = feed.active_services(date)
    by_trip = feed.stop_times_by_trip()
    starts = {  # every first departure of each GTFS trip (one per run of a frequency trip)
        feed.scoped(t): {
            shift + _seconds(rows[0].departure) for shift, _ in feed.departures(t, rows)
        }
        for t, rows in by_trip.items()
    }
    rows = [r for r in feed.rows("trips.txt") if r["trip_id"].strip() in by_trip]
    rows = rows[:: max(1, len(rows) // 60)]
    assert len(rows) > 5
    for row in rows:
        trip_id = feed.scoped(row["trip_id"])
        direction = row.get("direction_id", "").strip()
        for first in sorted(starts[trip_id])[-2:]:
            found = index.find_trips_departing(
                feed.scoped(row["route_id"]),
                date,
                first,
                direction_id=int(direction) if direction else None,
            )
            ids = [t.id for t in found]
            assert (trip_id in ids) == (row["service_id"].strip() in active)
            for trip in found:  # every match is of the route, runs that day and starts then
                assert trip.route_id == feed.scoped(row["route_id"])
                assert first in starts[trip.id]
                assert index.find_trip_times(trip.id, date=date)
