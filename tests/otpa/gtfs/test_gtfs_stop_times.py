"""stop_times cleaning on synthetic feeds: interpolation, untimed ends, order, flex rows."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from _gtfs_builders import hms, write_feed

from otpa.gtfs import GtfsFeed, read_gtfs
from otpa.gtfs._arrays import group_order

HEADER = "trip_id,arrival_time,departure_time,stop_id,stop_sequence,shape_dist_traveled\n"


def _feed(tmp_path: Path, rows: str, trips: str | None = None) -> GtfsFeed:
    overrides: dict[str, str | bytes | None] = {"stop_times.txt": HEADER + rows}
    if trips is not None:
        overrides["trips.txt"] = "route_id,service_id,trip_id\n" + trips
    return read_gtfs(write_feed(tmp_path, overrides))


def test_interpolation_by_stop_index(tmp_path: Path) -> None:
    rows = (
        "T1,08:00:00,08:00:00,S1,1,\n"
        "T1,,,S2,2,\n"
        "T1,,,S3,3,\n"
        "T1,08:30:00,08:31:00,S4,4,\n"
        "T2,09:00:00,09:00:00,S1,1,\nT2,09:10:00,09:10:00,S2,2,\n"
    )
    feed = _feed(tmp_path, rows)
    t1 = feed.stop_times[feed.stop_times["trip_id"] == "T1"]
    assert t1["arrival_time"].tolist() == [hms("8:00:00"), hms("8:10:00"), hms("8:20:00"),
                                           hms("8:30:00")]  # fmt: skip
    assert t1["departure_time"].tolist()[1:3] == [hms("8:10:00"), hms("8:20:00")]
    assert t1["timepoint"].tolist() == [1, 0, 0, 1]
    [warning] = feed.report.warnings
    assert "interpolated 2 missing times in 1 trip" in warning.message


def test_interpolation_by_shape_distance(tmp_path: Path) -> None:
    rows = (
        "T1,08:00:00,08:00:00,S1,1,0\n"
        "T1,,,S2,2,100\n"
        "T1,08:20:00,08:20:00,S3,3,400\n"
        "T2,09:00:00,09:00:00,S1,1,\nT2,,,S2,2,\nT2,09:10:00,09:10:00,S3,3,50\n"
    )
    feed = _feed(tmp_path, rows)
    st = feed.stop_times
    assert st.loc[st["trip_id"] == "T1", "arrival_time"].tolist()[1] == hms("8:05:00")
    # T2 lacks distances on some rows: evenly by index
    assert st.loc[st["trip_id"] == "T2", "arrival_time"].tolist()[1] == hms("9:05:00")


def test_interpolation_uses_previous_departure(tmp_path: Path) -> None:
    rows = "T1,08:00:00,08:10:00,S1,1,\nT1,,,S2,2,\nT1,08:30:00,08:30:00,S3,3,\n"
    rows += "T2,09:00:00,09:00:00,S1,1,\nT2,09:10:00,09:10:00,S2,2,\n"
    st = _feed(tmp_path, rows).stop_times
    assert st.loc[st["trip_id"] == "T1", "arrival_time"].tolist()[1] == hms("8:20:00")


@pytest.mark.parametrize(("blank_seq", "which"), [(1, "first"), (3, "last")])
def test_untimed_first_or_last_stop_drops_trip(tmp_path: Path, blank_seq: int, which: str
                                               ) -> None:  # fmt: skip
    times = {1: "08:00:00", 2: "08:10:00", 3: "08:20:00"}
    rows = "".join(
        f"T1,{'' if s == blank_seq else t},{'' if s == blank_seq else t},S{s},{s},\n"
        for s, t in times.items()
    )
    rows += "T2,09:00:00,09:00:00,S1,1,\nT2,09:10:00,09:10:00,S2,2,\n"
    feed = _feed(tmp_path, rows)
    [error] = feed.report.errors
    assert error.file == "stop_times.txt"
    assert error.line == 1 + blank_seq
    assert f"no time at the {which} stop of trip 'T1'" in error.message
    assert feed.trips["trip_id"].tolist() == ["T2"]


def test_one_missing_time_copies_the_other(tmp_path: Path) -> None:
    rows = "T1,08:00:00,,S1,1,\nT1,,08:10:00,S2,2,\nT2,09:00:00,09:00:00,S1,1,\n"
    rows += "T2,09:10:00,09:10:00,S2,2,\n"
    feed = _feed(tmp_path, rows)
    t1 = feed.stop_times[feed.stop_times["trip_id"] == "T1"]
    assert t1["departure_time"].tolist() == [hms("8:00:00"), hms("8:10:00")]
    assert t1["arrival_time"].tolist() == [hms("8:00:00"), hms("8:10:00")]
    assert len(feed.report) == 0


def test_sorting_and_backwards_times(tmp_path: Path) -> None:
    rows = (
        "T2,09:10:00,09:10:00,S2,20,\n"
        "T1,08:20:00,08:20:00,S3,3,\n"
        "T2,09:00:00,09:00:00,S1,10,\n"
        "T1,08:00:00,08:00:00,S1,1,\n"
        "T1,07:50:00,07:50:00,S2,2,\n"
    )
    feed = _feed(tmp_path, rows)
    st = feed.stop_times
    assert st["trip_id"].tolist() == ["T1", "T1", "T1", "T2", "T2"]
    assert st["stop_sequence"].tolist() == [1, 2, 3, 10, 20]
    assert st["trip_index"].tolist() == [0, 0, 0, 1, 1]
    assert st["stop_index"].tolist() == [0, 1, 2, 0, 1]
    [warning] = feed.report.warnings
    assert "times go backwards in trip 'T1'" in warning.message
    assert warning.line == 6


def test_repeated_sequence_kept_in_file_order(tmp_path: Path) -> None:
    rows = "T1,08:00:00,08:00:00,S1,1,\nT1,08:10:00,08:10:00,S2,1,\n"
    rows += "T2,09:00:00,09:00:00,S1,1,\nT2,09:10:00,09:10:00,S2,2,\n"
    feed = _feed(tmp_path, rows)
    t1 = feed.stop_times[feed.stop_times["trip_id"] == "T1"]
    assert t1["stop_id"].tolist() == ["S1", "S2"]
    assert "repeats" in feed.report.warnings[0].message


def test_flex_rows_go_to_flex_stop_times(tmp_path: Path) -> None:
    header = ("trip_id,arrival_time,departure_time,stop_id,stop_sequence,"
              "start_pickup_drop_off_window,end_pickup_drop_off_window\n")  # fmt: skip
    rows = (
        "T1,08:00:00,08:00:00,S1,0,,\nT1,,,zone_1,1,08:00:00,08:30:00\n"
        "T1,08:30:00,08:30:00,S2,2,,\n"
        "T2,09:00:00,09:00:00,S1,1,,\nT2,09:10:00,09:10:00,S2,2,,\n"
    )
    ring = "[[9.0, 48.0], [9.02, 48.0], [9.02, 48.02], [9.0, 48.0]]"
    locations = (
        '{"type": "FeatureCollection", "features": [{"id": "zone_1", "type": "Feature", '
        f'"geometry": {{"type": "Polygon", "coordinates": [{ring}]}}}}]}}'
    )
    feed = read_gtfs(write_feed(tmp_path, {"stop_times.txt": header + rows,
                                           "locations.geojson": locations}))  # fmt: skip
    assert feed.report.ok
    assert len(feed.report) == 0
    assert set(feed.stop_times["trip_id"]) == {"T2"}
    flex = feed.flex_stop_times
    assert flex["stop_id"].tolist() == ["S1", "zone_1", "S2"]
    assert flex["start_pickup_drop_off_window"].tolist()[1] == hms("8:00:00")
    assert feed.trips["trip_id"].tolist() == ["T1", "T2"]
    assert flex["trip_index"].tolist() == [0, 0, 0]
    assert feed.locations is not None


def test_group_order_matches_lexsort() -> None:
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(0, 30))
        group = rng.integers(0, 5, n)
        seq = rng.integers(0, 4, n)
        if rng.random() < 0.5:  # contiguous blocks, ordered inside
            group = np.sort(group)
            seq = np.arange(n)
            perm = rng.permutation(5)
            group = perm[group]
        assert (group_order(group, seq) == np.lexsort((seq, group))).all()
