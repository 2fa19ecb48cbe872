"""``numberOfDepartures`` cuts a pattern's departures in (time, trip id) order, ties included.

FEATURE UNDER TEST: a window search keeps only the first departures of each pattern
per service day and model pattern, then merges them; t1 and t2 leave S1 together,
but t2 overtakes t1 by S2, so the model keeps them in two timetables of one OTP
pattern. With any ``number_of_departures`` the answer equals a full sort by (time,
trip id) cut to size, on a tiny hand-written feed.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from otpa.index import TransitIndex
from otpa.network import build_network

FEED = {
    "agency.txt": "agency_id,agency_name,agency_url,agency_timezone\nA,Tiny,http://x.org,UTC\n",
    "stops.txt": "stop_id,stop_name,stop_lat,stop_lon\nS1,One,49.0,8.0\nS2,Two,49.01,8.0\n",
    "routes.txt": "route_id,agency_id,route_short_name,route_type\nR,A,1,3\n",
    "calendar.txt": (
        "service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date\n"
        "W,1,1,1,1,1,1,1,20240101,20241231\n"
    ),
    # t1 and t2 leave S1 together, t2 is faster; t3 leaves later
    "trips.txt": "route_id,service_id,trip_id\nR,W,t2\nR,W,t1\nR,W,t3\n",
    "stop_times.txt": (
        "trip_id,arrival_time,departure_time,stop_id,stop_sequence\n"
        "t2,08:00:00,08:00:00,S1,1\nt2,08:04:00,08:04:00,S2,2\n"
        "t1,08:00:00,08:00:00,S1,1\nt1,08:05:00,08:05:00,S2,2\n"
        "t3,08:10:00,08:10:00,S1,1\nt3,08:15:00,08:15:00,S2,2\n"
    ),
}
DAY = dt.date(2024, 3, 6)


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> TransitIndex:
    folder = Path(tmp_path_factory.mktemp("tiny")) / "gtfs"
    folder.mkdir()
    for name, text in FEED.items():
        (folder / name).write_text(text)
    return TransitIndex.of(build_network(folder.parent))  # the folder holds only the feed


@pytest.mark.parametrize(
    ("limit", "expected"), [(0, []), (1, ["t1"]), (2, ["t1", "t2"]), (3, ["t1", "t2", "t3"])]
)
def test_ties_at_the_cut_are_broken_by_trip_id(
    index: TransitIndex, limit: int, expected: list[str]
) -> None:
    [feed] = index.list_feeds()
    assert len(index.list_patterns()) == 1  # one OTP pattern over two model timetables
    start = int(dt.datetime(2024, 3, 6, 7, 0, tzinfo=dt.UTC).timestamp())
    found = index.find_stop_times(
        f"{feed.id}:S1", start_time=start, time_range_s=7200, number_of_departures=limit
    )
    assert [t.trip_id for p in found for t in p.times] == [f"{feed.id}:{t}" for t in expected]
    day = index.find_stop_times_for_date(f"{feed.id}:S1", DAY)
    assert [t.trip_id for t in day[0].times] == [f"{feed.id}:{t}" for t in ("t1", "t2", "t3")]
