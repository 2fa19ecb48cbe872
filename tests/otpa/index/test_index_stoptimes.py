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

from otpa.index import TransitIndex
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


def test_omit_non_pickups() -> None:
    index, feed, _ = _setup("tiny/atlanta")
    # at the last stop of a pattern nobody boards when pickup_type is 1; Atlanta has no such
    # rows, so omitting non-pickups changes nothing there
    last = index.list_patterns()[0].stop_ids[-1]
    date = dt.date(2021, 10, 6)
    assert index.find_stop_times_for_date(
        last, date, omit_non_pickups=True
    ) == index.find_stop_times_for_date(last, date)
    assert all(r.pickup == "0" for rows in feed.stop_times_by_trip().values() for r in rows)


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
