"""``read_gtfs`` on every feed of the shared data, checked against the raw files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _gtfs_builders import hms, raw_rows

from otpa.errors import GtfsError
from otpa.gtfs import GtfsFeed, read_gtfs, scoped_id

MMRI_CASES = (
    "1a", "1g", "2a1", "2a2", "2b", "2c", "2d", "2e1", "2e2", "2e3", "2e4", "2f", "3b", "3c",
    "3d", "3e", "3f", "3g1", "3g2", "3i", "plannerstack_scenario",
)  # fmt: skip
FEEDS = [
    ("tiny", "atlanta", "atlanta-blue-green-line.gtfs.zip"),
    ("tiny", "beatty", "sample-feed"),
    ("tiny", "beatty", "another-sample-feed"),
    ("tiny", "transit-only", "caltrain_gtfs.zip"),
    ("tiny", "transit-only", "kcm_gtfs.zip"),
    ("tiny", "transit-only", "farecomponent_gtfs.zip"),
    ("tiny", "transit-only", "testagency.zip"),
    ("tiny", "cobb-flex", "cobblinc-scheduled-deviated-flex.gtfs.zip"),
    ("tiny", "cobb-flex", "aspen-flex-on-demand.gtfs.zip"),
    ("tiny", "cobb-flex", "cobblinc-bus-30-only.gtfs.zip"),
    ("tiny", "cobb-flex", "lincoln-county-flex.gtfs.zip"),
    ("tiny", "cobb-flex", "marta-bus-856-only.gtfs.zip"),
    ("tiny", "herrenberg-vvs", "vvs-bus-751-only.gtfs.zip"),
    ("tiny", "herrenberg-vvs", "vvs-bus-764-only.gtfs.zip"),
    ("small", "porto-alegre", "poa_eptc.zip"),
    ("small", "porto-alegre", "poa_trensurb.zip"),
    ("extras", "gtfs-rt", "bart.zip"),
    *[("tiny", "mmri", case) for case in MMRI_CASES],
]
RNV = ("small", "rnv", "rnv.zip")
TABLES = (
    "agency", "stops", "routes", "trips", "calendar", "calendar_dates", "frequencies",
    "transfers", "shapes", "fare_attributes", "fare_rules",
)  # fmt: skip

FeedReader = Callable[[tuple[str, ...]], tuple[Path, GtfsFeed]]


@pytest.fixture(scope="module")
def feed_of(data_root: Path) -> FeedReader:
    """Read a shared feed once per module."""
    cache: dict[tuple[str, ...], tuple[Path, GtfsFeed]] = {}

    def get(parts: tuple[str, ...]) -> tuple[Path, GtfsFeed]:
        if parts not in cache:
            path = data_root.joinpath(*parts)
            cache[parts] = (path, read_gtfs(path))
        return cache[parts]

    return get


@pytest.mark.parametrize("parts", [*FEEDS, RNV], ids=lambda p: p[-1])
def test_every_row_of_every_table_is_kept(feed_of: FeedReader, parts: tuple[str, ...]) -> None:
    path, feed = feed_of(parts)
    for table in TABLES:
        rows = raw_rows(path, f"{table}.txt")
        expected = 0 if rows is None else len(rows)
        assert len(getattr(feed, table)) == expected, table
    st_rows = raw_rows(path, "stop_times.txt")
    assert st_rows is not None
    assert len(feed.stop_times) + len(feed.flex_stop_times) == len(st_rows)
    assert feed.report.ok, feed.report.summary()


@pytest.mark.parametrize("parts", [*FEEDS, RNV], ids=lambda p: p[-1])
def test_structural_invariants(feed_of: FeedReader, parts: tuple[str, ...]) -> None:
    _, feed = feed_of(parts)
    st, trips, stops = feed.stop_times, feed.trips, feed.stops
    assert trips["trip_id"].is_monotonic_increasing
    assert trips["trip_id"].is_unique
    assert stops["stop_id"].is_unique
    key = st["trip_index"].to_numpy().astype(np.int64) * 2**32 + st["stop_sequence"].to_numpy()
    assert np.all(np.diff(key) >= 0)
    assert (trips["trip_id"].to_numpy()[st["trip_index"]] == st["trip_id"].to_numpy()).all()
    assert (stops["stop_id"].to_numpy()[st["stop_index"]] == st["stop_id"].to_numpy()).all()
    counts = np.bincount(st["trip_index"], minlength=len(trips))
    flex_trips = np.zeros(len(trips), dtype=bool)
    flex_trips[feed.flex_stop_times["trip_index"].to_numpy()] = True
    assert np.all((counts >= 2) | flex_trips)
    assert st["arrival_time"].dtype == np.int32
    assert st["departure_time"].dtype == np.int32
    assert (st["departure_time"] >= st["arrival_time"]).all() or not feed.report.ok
    assert trips["route_id"].isin(feed.routes["route_id"]).all()
    assert feed.routes["agency_id"].isin(feed.agency["agency_id"]).all()
    assert (
        feed.shapes.groupby("shape_id", sort=False)["shape_pt_sequence"]
        .apply(lambda s: s.is_monotonic_increasing)
        .all()
    )


def test_dtypes(feed_of: FeedReader) -> None:
    _, feed = feed_of(("tiny", "transit-only", "testagency.zip"))
    string = pd.StringDtype("pyarrow")
    assert feed.stops["stop_id"].dtype == string
    assert feed.stops["stop_lat"].dtype == np.float64
    assert feed.stops["location_type"].dtype == np.int8
    assert feed.routes["route_type"].dtype == np.int32
    assert feed.trips["direction_id"].dtype == pd.Int8Dtype()
    assert feed.stop_times["stop_sequence"].dtype == np.int32
    assert feed.stop_times["trip_index"].dtype == np.int32
    assert feed.stop_times["stop_index"].dtype == np.int32
    assert feed.calendar["start_date"].dtype == np.int32
    assert feed.frequencies["headway_secs"].dtype == np.int32
    assert feed.transfers["min_transfer_time"].dtype == pd.Int32Dtype()
    # absent files: empty frames with the right columns
    assert feed.fare_rules.empty
    assert list(feed.fare_rules.columns)[:2] == ["fare_id", "route_id"]
    assert feed.fare_attributes["price"].dtype == np.float64


@pytest.mark.parametrize(
    ("parts", "feed_id"),
    [
        (("tiny", "transit-only", "caltrain_gtfs.zip"), "caltrain_gtfs"),
        (("tiny", "herrenberg-vvs", "vvs-bus-751-only.gtfs.zip"), "vvs-bus-751-only"),
        (("tiny", "beatty", "sample-feed"), "sample-feed"),
        (("tiny", "cobb-flex", "marta-bus-856-only.gtfs.zip"), "MARTA"),  # feed_info.feed_id
        (("tiny", "cobb-flex", "cobblinc-scheduled-deviated-flex.gtfs.zip"),
         "cobblinc-scheduled-deviated-flex"),  # empty feed_info.feed_id
    ],
)  # fmt: skip
def test_feed_ids(feed_of: FeedReader, parts: tuple[str, ...], feed_id: str) -> None:
    _, feed = feed_of(parts)
    assert feed.feed_id == feed_id
    assert feed.scoped("X") == scoped_id(feed_id, "X") == f"{feed_id}:X"


def test_explicit_feed_id(data_root: Path) -> None:
    feed = read_gtfs(data_root / "tiny" / "beatty" / "sample-feed", feed_id="beatty")
    assert feed.feed_id == "beatty"
    with pytest.raises(GtfsError, match="feed_id"):
        read_gtfs(data_root / "tiny" / "beatty" / "sample-feed", feed_id="a:b")


def _times_of(feed: GtfsFeed, trip_id: str) -> list[tuple[str, int, int, int]]:
    st = feed.stop_times[feed.stop_times["trip_id"] == trip_id]
    return list(
        zip(st["stop_id"], st["stop_sequence"], st["arrival_time"], st["departure_time"],
            strict=True)
    )  # fmt: skip


@pytest.mark.parametrize(
    ("parts", "trip_id"),
    [
        (("tiny", "transit-only", "caltrain_gtfs.zip"), "10120090831"),  # H:MM:SS, unsorted
        (("tiny", "cobb-flex", "marta-bus-856-only.gtfs.zip"), "6546441"),  # past 24:00
        (("tiny", "atlanta", "atlanta-blue-green-line.gtfs.zip"), "6548386"),
        (("tiny", "transit-only", "testagency.zip"), "4.3"),  # 24:40:00
    ],
)  # fmt: skip
def test_times_match_the_raw_file(
    feed_of: FeedReader, parts: tuple[str, ...], trip_id: str
) -> None:
    path, feed = feed_of(parts)
    rows = [r for r in raw_rows(path, "stop_times.txt") or [] if r["trip_id"] == trip_id]
    expected = sorted(
        (r["stop_id"], int(r["stop_sequence"]), hms(r["arrival_time"]), hms(r["departure_time"]))
        for r in rows
    )
    assert len(expected) >= 2
    assert _times_of(feed, trip_id) == sorted(expected, key=lambda e: e[1])


def test_times_past_midnight(feed_of: FeedReader) -> None:
    _, feed = feed_of(("tiny", "cobb-flex", "marta-bus-856-only.gtfs.zip"))
    first = _times_of(feed, "6546441")[0]
    assert first[2] == 24 * 3600 + 34 * 60  # 24:34:00
    assert (feed.stop_times["arrival_time"] > 24 * 3600).any()


def test_caltrain_fares(feed_of: FeedReader) -> None:
    path, feed = feed_of(("tiny", "transit-only", "caltrain_gtfs.zip"))
    fa = feed.fare_attributes.set_index("fare_id")
    raw = {r["fare_id"]: r for r in raw_rows(path, "fare_attributes.txt") or []}
    assert set(fa.index) == set(raw)
    for fare_id, row in raw.items():
        assert fa.loc[fare_id, "price"] == pytest.approx(float(row["price"]))
        assert fa.loc[fare_id, "currency_type"] == "USD"
        assert fa.loc[fare_id, "payment_method"] == int(row["payment_method"])
        assert pd.isna(fa.loc[fare_id, "transfers"])  # empty = unlimited transfers
    assert fa.loc["OW_2", "price"] == 4.25
    rules = feed.fare_rules
    ow2 = rules[rules["fare_id"] == "OW_2"]
    assert {(o, d) for o, d in zip(ow2["origin_id"], ow2["destination_id"], strict=True)} >= {
        ("1", "2")
    }
    assert rules["route_id"].isna().all()


def test_beatty_fares_and_transfers(feed_of: FeedReader) -> None:
    _, feed = feed_of(("tiny", "beatty", "sample-feed"))
    assert feed.fare_attributes.set_index("fare_id").loc["a", "price"] == 5.25
    assert feed.fare_attributes["transfers"].tolist() == [0, 0]
    tr = feed.transfers
    assert tr["transfer_type"].tolist() == [2, 2, 2]
    assert tr["min_transfer_time"].tolist() == [660, 0, 1200]
    assert tr["to_route_id"].isna().tolist() == [True, False, True]
    assert tr["from_route_id"].isna().tolist() == [True, True, False]


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("1a", [("1a2", "1a3", 2, 0), ("1a4", "1a5", 2, 0)]),
        ("2a2", [("2a4", "2a5", 2, 300)]),
        ("2c", [("2c1", "2c4", 2, 60), ("2c5", "2c3", 2, 60)]),
        ("2d", [("2d3", "2d3", 1, None)]),
        ("2e3", [("2e33", "2e33", 3, None)]),
        ("3g2", [("3g24", "3g24", 3, None)]),
    ],
)
def test_mmri_transfers(
    feed_of: FeedReader, case: str, expected: list[tuple[str, str, int, int | None]]
) -> None:
    _, feed = feed_of(("tiny", "mmri", case))
    tr = feed.transfers
    got = [
        (f, t, int(k), None if pd.isna(m) else int(m))
        for f, t, k, m in zip(tr["from_stop_id"], tr["to_stop_id"], tr["transfer_type"],
                              tr["min_transfer_time"], strict=True)
    ]  # fmt: skip
    assert got == expected


def test_in_seat_and_trip_transfers(feed_of: FeedReader) -> None:
    _, feed = feed_of(("tiny", "transit-only", "testagency.zip"))
    tr = feed.transfers
    assert set(tr["transfer_type"]) <= {0, 1, 2, 3, 4, 5}
    assert {"from_trip_id", "to_trip_id", "from_route_id", "to_route_id"} <= set(tr.columns)
    assert tr.loc[tr["min_transfer_time"].notna(), "min_transfer_time"].tolist() == [15, 13000]


def test_agencies_and_timezones(feed_of: FeedReader) -> None:
    _, kcm = feed_of(("tiny", "transit-only", "kcm_gtfs.zip"))
    assert kcm.default_timezone == "America/Los_Angeles"
    assert kcm.agency_timezone("23") == "America/Los_Angeles"
    _, test = feed_of(("tiny", "transit-only", "testagency.zip"))  # routes without agency_id
    assert (test.routes["agency_id"] == "agency").all()
    _, rnv_like = feed_of(("tiny", "herrenberg-vvs", "vvs-bus-751-only.gtfs.zip"))
    assert rnv_like.agency_timezone() == "Europe/Berlin"


def test_stations(feed_of: FeedReader) -> None:
    _, test = feed_of(("tiny", "transit-only", "testagency.zip"))
    assert test.stations() == {"station": ["A"]}
    stops = test.stops.set_index("stop_id")
    assert stops.loc["station", "location_type"] == 1
    assert stops.loc["entrance_b", "location_type"] == 2


def test_flex_feeds_load(feed_of: FeedReader) -> None:
    _path, feed = feed_of(("tiny", "cobb-flex", "cobblinc-scheduled-deviated-flex.gtfs.zip"))
    assert feed.locations is not None
    assert feed.locations["type"] == "FeatureCollection"
    assert feed.booking_rules is not None
    assert len(feed.booking_rules) == 1
    flex = feed.flex_stop_times
    first = flex[flex["trip_id"] == "4d838cf4-d44d-4e08-a364-f22c34a8c89e"]
    assert first["stop_sequence"].tolist() == [0, 1, 2, 3]
    assert first["arrival_time"].tolist()[0] == 7 * 3600 + 30 * 60
    assert pd.isna(first["arrival_time"].tolist()[1])
    assert first["start_pickup_drop_off_window"].tolist()[1] == 7 * 3600 + 30 * 60
    assert first["end_pickup_drop_off_window"].tolist()[1] == 8 * 3600
    assert flex["trip_id"].isin(feed.trips["trip_id"]).all()
    _, lincoln = feed_of(("tiny", "cobb-flex", "lincoln-county-flex.gtfs.zip"))
    assert lincoln.feed_id == "lincolncounty-or-us"
    assert len(lincoln.flex_stop_times) == 1022


def test_fares_poa_is_not_a_feed(data_root: Path) -> None:
    with pytest.raises(GtfsError, match=r"not a usable GTFS feed.*agency\.txt.*fares_per_route"):
        read_gtfs(data_root / "small" / "porto-alegre" / "fares_poa.zip")


def test_blank_times_interpolated_in_porto_alegre(feed_of: FeedReader) -> None:
    _path, feed = feed_of(("small", "porto-alegre", "poa_eptc.zip"))
    assert any("interpolated" in w.message for w in feed.report.warnings)
    st = feed.stop_times
    first = st[st["trip_id"] == "T1-2@1#1202"]
    assert first["arrival_time"].iloc[0] == hms("12:02:00")
    assert first["arrival_time"].is_monotonic_increasing
    assert (first["timepoint"].iloc[1:-1] == 0).all()


def test_rnv(feed_of: FeedReader) -> None:
    path, feed = feed_of(RNV)
    assert (len(feed.stops), len(feed.routes)) == (2057, 100)
    assert len(feed.stop_times) == 424_266
    assert len(feed.trips) == len(raw_rows(path, "trips.txt") or [])
    assert feed.report.ok
    assert len(feed.report) == 0
    assert _times_of(feed, "133162_merged_890836")[:2] == [
        ("570001", 1, hms("20:00:00"), hms("20:00:00")),
        ("216501", 2, hms("20:01:00"), hms("20:01:00")),
    ]
    assert feed.default_timezone == "Europe/Berlin"


def test_frames_are_plain_mutable_pandas(feed_of: FeedReader) -> None:
    _, feed = feed_of(("tiny", "beatty", "sample-feed"))
    st = feed.stop_times.copy()
    st.loc[0, "arrival_time"] = 5
    st["pickup_type"] += 1
    assert st.loc[0, "arrival_time"] == 5
    assert feed.stop_times.loc[0, "arrival_time"] != 5
    stops = feed.stops.copy()
    stops.loc[0, "stop_name"] = "renamed"
    assert stops.loc[0, "stop_name"] == "renamed"
