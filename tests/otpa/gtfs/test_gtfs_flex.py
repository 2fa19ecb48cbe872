"""GTFS-Flex v2 reading: zones, location groups, windows, booking rules, duration factors.

Expected values are the feeds' own rows (read with the csv / json modules or written
here); the bad-input cases check that the report names the problem and that the rest
of the feed is still read.
"""

from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path

import pytest
from _gtfs_builders import write_feed

from otpa.gtfs import read_gtfs
from tests.conftest import DATA_ROOT, require_data

_RING = [[9.0, 48.0], [9.02, 48.0], [9.02, 48.02], [9.0, 48.02], [9.0, 48.0]]


def _zones(*features: object) -> str:
    return json.dumps({"type": "FeatureCollection", "features": list(features)})


def _zone(zone_id: str, ring: list[list[float]] = _RING) -> dict[str, object]:
    return {
        "type": "Feature",
        "id": zone_id,
        "properties": {"stop_name": f"Zone {zone_id}"},
        "geometry": {"type": "Polygon", "coordinates": [ring]},
    }


_FLEX_TRIPS = "route_id,service_id,trip_id\nR1,WK,T1\nR1,WK,T2\nR1,WK,F1\n"
_FLEX_ST = (
    "trip_id,arrival_time,departure_time,stop_id,stop_sequence,pickup_type,drop_off_type,"
    "start_pickup_drop_off_window,end_pickup_drop_off_window,pickup_booking_rule_id,"
    "drop_off_booking_rule_id,mean_duration_factor,mean_duration_offset\n"
    "T1,08:00:00,08:00:00,S1,1,0,0,,,,,,\nT1,08:10:00,08:10:00,S2,2,0,0,,,,,,\n"
    "T2,09:00:00,09:00:00,S1,1,0,0,,,,,,\nT2,09:10:00,09:10:00,S2,2,0,0,,,,,,\n"
    "F1,,,Z,1,2,1,07:00:00,09:00:00,B,,1.5,00:05:00\n"
    "F1,,,Z,2,1,2,07:00:00,09:00:00,,B,1.5,00:05:00\n"
)
_RULES = (
    "booking_rule_id,booking_type,prior_notice_duration_min,prior_notice_last_day,"
    "prior_notice_last_time,message,pickup_message,drop_off_message,phone_number,info_url\n"
    "B,1,90,,,Call us,Pick-up msg,,555-0100,https://x.example\n"
    "D,2,,1,17:00:00,Book the day before,,,,\n"
)


def test_zone_to_zone_trip_is_read_with_windows_rules_and_factors(tmp_path: Path) -> None:
    path = write_feed(
        tmp_path,
        {
            "trips.txt": _FLEX_TRIPS,
            "stop_times.txt": _FLEX_ST,
            "locations.geojson": _zones(_zone("Z")),
            "booking_rules.txt": _RULES,
        },
    )
    feed = read_gtfs(path)
    flex = feed.flex
    assert list(flex.zones) == ["Z"]
    assert flex.zones["Z"]["name"] == "Zone Z"
    assert flex.zones["Z"]["polygons"] == [[_RING]]
    rows = flex.trips["F1"]
    assert [(r.location_id, r.start_s, r.end_s) for r in rows] == [
        ("Z", 7 * 3600, 9 * 3600),
        ("Z", 7 * 3600, 9 * 3600),
    ]
    assert [(r.pickup_type, r.drop_off_type) for r in rows] == [(2, 1), (1, 2)]
    assert rows[0].pickup_booking_rule_id == "B"
    assert rows[1].drop_off_booking_rule_id == "B"
    assert (rows[0].mean_duration_factor, rows[0].mean_duration_offset_s) == (1.5, 300.0)
    b = flex.booking_rules["B"]
    assert (b.booking_type, b.prior_notice_min, b.message, b.pickup_message) == (
        1,
        90.0,
        "Call us",
        "Pick-up msg",
    )
    assert (b.phone_number, b.info_url) == ("555-0100", "https://x.example")
    d = flex.booking_rules["D"]
    assert (d.booking_type, d.prior_notice_last_day, d.prior_notice_last_time_s) == (
        2,
        1,
        17 * 3600,
    )
    # the scheduled trips are untouched
    assert sorted(set(feed.stop_times["trip_id"])) == ["T1", "T2"]


def test_location_groups_old_and_new_layouts(tmp_path: Path) -> None:
    st = _FLEX_ST.replace("F1,,,Z,2,1,2", "F1,,,G,2,1,2")
    old = write_feed(
        tmp_path / "old",
        {
            "trips.txt": _FLEX_TRIPS,
            "stop_times.txt": st,
            "locations.geojson": _zones(_zone("Z")),
            "location_groups.txt": "location_group_id,location_id,location_group_name\n"
            "G,S3,Group\nG,Z,Group\nG,nowhere,Group\n",
        },
    )
    feed = read_gtfs(old)
    assert feed.flex.groups == {"G": ("S3", "Z")}
    assert feed.flex.group_names == {"G": "Group"}
    assert feed.flex.trips["F1"][1].group_id == "G"
    assert any("unknown location or stop 'nowhere'" in i.message for i in feed.report)
    new = write_feed(
        tmp_path / "new",
        {
            "trips.txt": _FLEX_TRIPS,
            "stop_times.txt": st,
            "locations.geojson": _zones(_zone("Z")),
            "location_groups.txt": "location_group_id,location_group_name\nG,Group\n",
            "location_group_stops.txt": "location_group_id,stop_id\nG,S3\nG,S4\n",
        },
    )
    assert read_gtfs(new).flex.groups == {"G": ("S3", "S4")}


def test_invalid_geojson_is_reported_and_the_feed_still_builds(tmp_path: Path) -> None:
    path = write_feed(
        tmp_path,
        {"trips.txt": _FLEX_TRIPS, "stop_times.txt": _FLEX_ST, "locations.geojson": "{nope"},
    )
    feed = read_gtfs(path)
    assert any(
        i.file == "locations.geojson" and "unreadable GeoJSON" in i.message for i in feed.report
    )
    assert feed.flex.zones == {}
    assert feed.flex.trips == {}  # its rows name a zone that is not there
    assert sorted(set(feed.stop_times["trip_id"])) == ["T1", "T2"]


def test_a_zone_that_is_no_polygon_is_left_out(tmp_path: Path) -> None:
    point = {"type": "Feature", "id": "P", "geometry": {"type": "Point", "coordinates": [9, 48]}}
    bad_ring = _zone("Q", [[9.0, 48.0], [9.1, 48.0]])
    path = write_feed(
        tmp_path,
        {
            "trips.txt": _FLEX_TRIPS,
            "stop_times.txt": _FLEX_ST,
            "locations.geojson": _zones(_zone("Z"), point, bad_ring),
        },
    )
    feed = read_gtfs(path)
    assert list(feed.flex.zones) == ["Z"]
    messages = [i.message for i in feed.report if i.file == "locations.geojson"]
    assert any("zone P is not a valid polygon (geometry is Point" in m for m in messages)
    assert any("zone Q is not a valid polygon" in m for m in messages)
    assert "F1" in feed.flex.trips


def test_stop_time_at_an_unknown_location_is_dropped_with_an_error(tmp_path: Path) -> None:
    st = _FLEX_ST.replace("F1,,,Z,2,1,2", "F1,,,ZZ,2,1,2")
    path = write_feed(
        tmp_path,
        {"trips.txt": _FLEX_TRIPS, "stop_times.txt": st, "locations.geojson": _zones(_zone("Z"))},
    )
    feed = read_gtfs(path)
    errors = [i.message for i in feed.report.errors if i.file == "stop_times.txt"]
    assert any("'ZZ'" in m and "row dropped" in m for m in errors), errors
    # one zone row is left: rides within zone Z
    assert [r.stop_sequence for r in feed.flex.trips["F1"]] == [1]
    assert sorted(set(feed.stop_times["trip_id"])) == ["T1", "T2"]


def test_overlapping_windows_of_one_zone_are_reported(tmp_path: Path) -> None:
    st = _FLEX_ST.replace("F1,,,Z,2,1,2,07:00:00,09:00:00", "F1,,,Z,2,1,2,08:00:00,10:00:00")
    path = write_feed(
        tmp_path,
        {"trips.txt": _FLEX_TRIPS, "stop_times.txt": st, "locations.geojson": _zones(_zone("Z"))},
    )
    feed = read_gtfs(path)
    overlaps = [i for i in feed.report if "overlapping windows" in i.message]
    assert len(overlaps) == 1
    assert "trip F1 serves Z" in overlaps[0].message
    assert overlaps[0].severity == "warning"
    assert len(feed.flex.trips["F1"]) == 2  # kept


def test_reversed_window_and_unknown_rule(tmp_path: Path) -> None:
    st = _FLEX_ST.replace(
        "F1,,,Z,2,1,2,07:00:00,09:00:00,,B", "F1,,,Z,2,1,2,09:00:00,07:00:00,,B"
    ).replace("F1,,,Z,1,2,1,07:00:00,09:00:00,B", "F1,,,Z,1,2,1,07:00:00,09:00:00,X")
    path = write_feed(
        tmp_path,
        {
            "trips.txt": _FLEX_TRIPS,
            "stop_times.txt": st,
            "locations.geojson": _zones(_zone("Z")),
            "booking_rules.txt": _RULES,
        },
    )
    feed = read_gtfs(path)
    messages = [i.message for i in feed.report]
    assert any("window starts after it ends" in m for m in messages)
    assert any("unknown booking rule 'X'" in m for m in messages)
    assert feed.flex.trips["F1"][0].pickup_booking_rule_id is None


def test_safe_durations_and_continuous_windows(tmp_path: Path) -> None:
    trips = (
        "route_id,service_id,trip_id,safe_duration_factor,safe_duration_offset\n"
        "R1,WK,T1,,\nR1,WK,T2,fast,60\nR1,WK,F1,1.5,120\n"
    )
    st = _FLEX_ST.replace("mean_duration_offset\n", "mean_duration_offset,continuous_pickup\n")
    st = "\n".join(
        line + ("" if k == 0 else ",0" if line.startswith("F1,,,Z,1") else ",")
        for k, line in enumerate(st.strip().split("\n"))
    )
    zones = _zones(_zone("Z"))
    files = {"trips.txt": trips, "stop_times.txt": st + "\n", "locations.geojson": zones}
    feed = read_gtfs(write_feed(tmp_path, files))
    # trips.txt's safe travel time of flex trips (offset in seconds); T2 is no flex trip
    assert feed.flex.safe_durations == {"F1": (1.5, 120.0)}
    messages = [i.message for i in feed.report]
    assert any("trip T2: safe_duration_factor/offset 'fast'/'60' unusable" in m for m in messages)
    # a window row may not stop continuously: reported, the value dropped
    assert any("F1 stop_sequence 1: continuous pickup/drop-off with a" in m for m in messages)
    assert feed.flex.trips["F1"][0].continuous_pickup is None


def _csv_rows(zip_path: Path, name: str) -> list[dict[str, str]]:
    with zipfile.ZipFile(zip_path) as zf:
        text = zf.read(name).decode("utf-8-sig")
    return list(csv.DictReader(io.StringIO(text)))


def test_cobblinc_deviated_trips_match_the_feed() -> None:
    folder = require_data("tiny", "cobb-flex")
    path = folder / "cobblinc-scheduled-deviated-flex.gtfs.zip"
    feed = read_gtfs(path)
    rows = [r for r in _csv_rows(path, "stop_times.txt") if r["trip_id"].startswith("4d838cf4")]
    flex = feed.flex.trips["4d838cf4-d44d-4e08-a364-f22c34a8c89e"]
    assert [r.stop_id or r.location_id for r in flex] == [r["stop_id"] for r in rows]

    def secs(text: str) -> int:
        h, m, s = (int(x) for x in text.split(":"))
        return h * 3600 + m * 60 + s

    expected = [
        (secs(r["start_pickup_dropoff_window"]), secs(r["end_pickup_dropoff_window"]))
        if r["start_pickup_dropoff_window"]
        else (secs(r["arrival_time"]), secs(r["departure_time"]))
        for r in rows
    ]
    assert [(r.start_s, r.end_s) for r in flex] == expected
    rule = feed.flex.booking_rules["1"]
    (raw,) = _csv_rows(path, "booking_rules.txt")
    assert rule.prior_notice_min == float(raw["prior_notice_duration_min"]) == 120.0
    assert rule.prior_notice_max == float(raw["prior_notice_duration_max"])
    assert rule.phone_number == raw["phone_number"]


@pytest.mark.parametrize(
    ("file_name", "trip", "offset_s"),
    [
        ("aspen-flex-on-demand.gtfs.zip", "t_1289262_b_29084_tn_0", 9 * 60.0),  # minutes
        ("lincoln-county-flex.gtfs.zip", "t_748719_b_26748_tn_0", 10 * 60.0),  # HH:MM:SS
    ],
)
def test_on_demand_feeds_drafts(file_name: str, trip: str, offset_s: float) -> None:
    path = DATA_ROOT / "tiny" / "cobb-flex" / file_name
    require_data("tiny", "cobb-flex")
    feed = read_gtfs(path)
    rows = feed.flex.trips[trip]
    assert all(r.location_id for r in rows)
    assert rows[0].mean_duration_offset_s == offset_s
    # Lincoln's deviated loops have rows with neither times nor windows: reported, unroutable
    if file_name.startswith("lincoln"):
        assert any("neither times nor a pickup/drop-off window" in i.message for i in feed.report)
        rule = feed.flex.booking_rules["booking_route_13317"]
        assert (rule.booking_type, rule.prior_notice_min) == (2, 24 * 60.0)  # "24:00:00"
