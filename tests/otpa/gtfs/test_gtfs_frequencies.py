"""Frequency expansion (Beatty, Atlanta, synthetic exact_times cases)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _gtfs_builders import hms, raw_rows, write_feed

from otpa.gtfs import GtfsFeed, read_gtfs
from otpa.gtfs.frequencies import departures


@pytest.fixture(scope="module")
def beatty(data_root: Path) -> tuple[Path, GtfsFeed]:
    path = data_root / "tiny" / "beatty" / "sample-feed"
    return path, read_gtfs(path)


def _expected_count(path: Path) -> int:
    rows = raw_rows(path, "frequencies.txt") or []
    return sum(
        math.ceil((hms(r["end_time"]) - hms(r["start_time"])) / int(r["headway_secs"]))
        for r in rows
    )


def test_beatty_expansion_counts(beatty: tuple[Path, GtfsFeed]) -> None:
    path, feed = beatty
    expanded = feed.expand_frequencies()
    templates = set(feed.frequencies["trip_id"])
    n_scheduled = len(feed.trips) - len(templates)
    assert len(expanded.trips) == n_scheduled + _expected_count(path)
    assert len(expanded.trips) == 16 + 136
    assert not set(expanded.trips["trip_id"]) & templates
    assert expanded.frequencies.empty
    # the original feed is untouched
    assert len(feed.trips) == 19
    assert len(feed.frequencies) == 11


def test_beatty_expanded_trip_ids_and_times(beatty: tuple[Path, GtfsFeed]) -> None:
    _, feed = beatty
    ex = feed.expand_frequencies()
    trips = ex.trips.set_index("trip_id")
    stba = trips[trips["template_trip_id"] == "STBA"]
    assert len(stba) == 32  # 6:00 .. 21:30 every 30 min
    assert stba.index[0] == "STBA@06:00:00"
    assert stba.index[-1] == "STBA@21:30:00"
    assert (stba["frequency_headway_s"] == 1800).all()  # exact_times 0: headway kept
    assert (stba["exact_times"] == 0).all()
    assert trips.loc["AB1", "frequency_headway_s"] == 0
    assert pd.isna(trips.loc["AB1", "exact_times"])
    assert pd.isna(trips.loc["AB1", "template_trip_id"])
    st = ex.stop_times
    first = st[st["trip_id"] == "STBA@06:00:00"]
    # template STBA: 0:00 / 0:20-0:30 / 0:50-1:00, shifted to 6:00
    assert first["arrival_time"].tolist() == [hms("6:00:00"), hms("6:20:00"), hms("6:50:00")]
    assert first["departure_time"].tolist() == [hms("6:00:00"), hms("6:30:00"), hms("7:00:00")]
    city = st[st["trip_id"] == "CITY1@08:10:00"]
    assert city["arrival_time"].tolist()[1] == hms("8:15:00")
    # invariants of a feed still hold
    assert ex.trips["trip_id"].is_monotonic_increasing
    key = st["trip_index"].to_numpy().astype(np.int64) * 2**32 + st["stop_sequence"].to_numpy()
    assert np.all(np.diff(key) >= 0)
    assert (ex.trips["trip_id"].to_numpy()[st["trip_index"]] == st["trip_id"].to_numpy()).all()
    assert ex.trips["frequency_headway_s"].dtype == np.int32
    assert ex.service_calendar().services_on(20070605) == feed.service_calendar().services_on(
        20070605
    )


def test_atlanta_exact_times(data_root: Path) -> None:
    path = data_root / "tiny" / "atlanta" / "atlanta-blue-green-line.gtfs.zip"
    feed = read_gtfs(path)
    ex = feed.expand_frequencies()
    templates = set(feed.frequencies["trip_id"])
    assert len(ex.trips) == len(feed.trips) - len(templates) + _expected_count(path)
    made = ex.trips[ex.trips["template_trip_id"] == "6548386"]
    # 04:52 + k*5040 < 21:40 (12), then 21:43 + k*6000 < 26:43 (3)
    assert len(made) == 15
    assert (made["frequency_headway_s"] == 0).all()
    assert (made["exact_times"] == 1).all()
    assert "6548386@25:03:00" in set(made["trip_id"])
    tpl = feed.stop_times[feed.stop_times["trip_id"] == "6548386"]
    new = ex.stop_times[ex.stop_times["trip_id"] == "6548386@25:03:00"]
    shift = hms("25:03:00") - tpl["departure_time"].iloc[0]
    assert (new["arrival_time"].to_numpy() == tpl["arrival_time"].to_numpy() + shift).all()
    assert new["stop_id"].tolist() == tpl["stop_id"].tolist()


def test_large_headways_and_exact_times(tmp_path: Path) -> None:
    freq = ("trip_id,start_time,end_time,headway_secs,exact_times\n"
            "T1,06:00:00,30:00:00,40000,1\nT2,10:00:00,10:30:00,600,0\n")  # fmt: skip
    feed = read_gtfs(write_feed(tmp_path, {"frequencies.txt": freq}))
    assert feed.frequencies["headway_secs"].tolist() == [40000, 600]  # no int16 overflow
    ex = feed.expand_frequencies()
    assert ex.trips["trip_id"].tolist() == [
        "T1@06:00:00", "T1@17:06:40", "T1@28:13:20", "T2@10:00:00", "T2@10:10:00",
        "T2@10:20:00",
    ]  # fmt: skip
    assert ex.trips["frequency_headway_s"].tolist() == [0, 0, 0, 600, 600, 600]
    t1 = ex.stop_times[ex.stop_times["trip_id"] == "T1@28:13:20"]
    assert t1["arrival_time"].tolist() == [hms("28:13:20"), hms("28:23:20"), hms("28:33:20")]


def test_departures_helper() -> None:
    period, times = departures(np.array([0, 100]), np.array([10, 100]), np.array([3, 5]))
    assert period.tolist() == [0, 0, 0, 0]
    assert times.tolist() == [0, 3, 6, 9]


def test_feed_without_frequencies_is_unchanged(data_root: Path) -> None:
    feed = read_gtfs(data_root / "tiny" / "mmri" / "1a")
    ex = feed.expand_frequencies()
    assert ex.trips["trip_id"].tolist() == feed.trips["trip_id"].tolist()
    assert (ex.stop_times["arrival_time"] == feed.stop_times["arrival_time"]).all()
    assert (ex.trips["frequency_headway_s"] == 0).all()
