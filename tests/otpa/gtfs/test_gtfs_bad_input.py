"""Unusable and questionable input: clear GtfsErrors, tolerated quirks, report contents."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from _gtfs_builders import AGENCY, STOP_TIMES, STOPS, TRIPS, write_feed

from otpa.errors import GtfsError, OtpaError
from otpa.gtfs import ValidationReport, read_gtfs
from otpa.gtfs.report import MAX_ROW_ISSUES


def _messages(report: ValidationReport) -> str:
    return "\n".join(str(i) for i in report)


def test_truncated_zip(data_root: Path, tmp_path: Path) -> None:
    data = (data_root / "tiny" / "transit-only" / "caltrain_gtfs.zip").read_bytes()
    cut = tmp_path / "cut.zip"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(GtfsError, match="corrupt or truncated") as info:
        read_gtfs(cut)
    assert isinstance(info.value, OtpaError)
    assert isinstance(info.value, ValueError)


def test_corrupt_member_crc(tmp_path: Path) -> None:
    path = write_feed(tmp_path, as_zip=True)
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo("stop_times.txt")
    data[info.header_offset + 30 + len(b"stop_times.txt") + 5] ^= 0xFF  # inside the data
    path.write_bytes(bytes(data))
    with pytest.raises(GtfsError, match="corrupt or truncated"):
        read_gtfs(path)


def test_not_a_zip(tmp_path: Path) -> None:
    path = tmp_path / "feed.zip"
    path.write_text("hello")
    with pytest.raises(GtfsError, match="corrupt or truncated"):
        read_gtfs(path)


def test_missing_path(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_gtfs(tmp_path / "nope.zip")


@pytest.mark.parametrize("as_zip", [False, True])
def test_missing_stops(tmp_path: Path, as_zip: bool) -> None:
    path = write_feed(tmp_path, {"stops.txt": None}, as_zip=as_zip)
    with pytest.raises(GtfsError, match=r"missing required file\(s\) stops\.txt"):
        read_gtfs(path)


def test_missing_both_calendars(tmp_path: Path) -> None:
    path = write_feed(tmp_path, {"calendar.txt": None})
    with pytest.raises(GtfsError, match=r"calendar\.txt or calendar_dates\.txt"):
        read_gtfs(path)


def test_missing_required_column(tmp_path: Path) -> None:
    path = write_feed(tmp_path, {"trips.txt": TRIPS.replace("trip_id", "trip")})
    with pytest.raises(GtfsError, match=r"trips\.txt line 1: missing required column\(s\) trip_id"):
        read_gtfs(path)


def test_missing_timezone_column(tmp_path: Path) -> None:
    path = write_feed(tmp_path, {"agency.txt": "agency_id,agency_name\nA,x\n"})
    with pytest.raises(GtfsError, match="agency_timezone"):
        read_gtfs(path)


def test_malformed_time_names_file_and_line(tmp_path: Path) -> None:
    bad = STOP_TIMES.replace("T2,09:10:00,09:10:00", "T2,09:1x:00,09:10:00")
    feed = read_gtfs(write_feed(tmp_path, {"stop_times.txt": bad}))
    errors = feed.report.errors
    assert len(errors) == 1
    assert errors[0].file == "stop_times.txt"
    assert errors[0].line == 6
    assert errors[0].field == "arrival_time"
    assert "malformed time '09:1x:00'" in errors[0].message
    assert "stop_times.txt line 6" in errors[0].message
    assert not feed.report.ok
    assert feed.trips["trip_id"].tolist() == ["T1"]  # the trip is dropped
    assert set(feed.stop_times["trip_id"]) == {"T1"}


def test_all_rows_unusable(tmp_path: Path) -> None:
    bad = STOP_TIMES.replace(":00:00,", ":0x:00,")
    with pytest.raises(GtfsError, match=r"no usable row.*malformed time"):
        read_gtfs(write_feed(tmp_path, {"stop_times.txt": bad}))


def test_bom_crlf_quotes_spaces(tmp_path: Path) -> None:
    def crlf(text: str) -> bytes:
        return b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode()

    stops = STOPS.replace("stop_id,stop_name", ' stop_id , "stop_name"').replace(
        "S2,Two", 'S2,"Two, the second"'
    )
    times = STOP_TIMES.replace("T1,08:10:00,08:10:00", "T1, 8:10:00 , 8:10:00")
    feed = read_gtfs(
        write_feed(tmp_path, {"stops.txt": crlf(stops), "stop_times.txt": crlf(times)},
                   as_zip=True)
    )  # fmt: skip
    assert feed.report.ok
    assert feed.stops.set_index("stop_id").loc["S2", "stop_name"] == "Two, the second"
    t1 = feed.stop_times[feed.stop_times["trip_id"] == "T1"]
    assert t1["arrival_time"].tolist() == [8 * 3600, 8 * 3600 + 600, 8 * 3600 + 1200]


def test_zip_with_subfolder_and_extra_columns(tmp_path: Path) -> None:
    stops = STOPS.replace("stop_lon\n", "stop_lon,my_column\n").replace("9.0\n", "9.0,x\n")
    path = write_feed(tmp_path, {"stops.txt": stops}, as_zip=True, subfolder="gtfs/")
    feed = read_gtfs(path)
    assert len(feed.stops) == 4
    assert "my_column" not in feed.stops
    kept = read_gtfs(path, keep_extra_columns=True)
    assert kept.stops["my_column"].tolist()[0] == "x"


def test_latin1_file(tmp_path: Path) -> None:
    stops = STOPS.replace("One", "Müller").encode("latin-1")
    feed = read_gtfs(write_feed(tmp_path, {"stops.txt": stops}))
    assert feed.stops["stop_name"].iloc[0] == "Müller"
    assert any("Latin-1" in w.message for w in feed.report.warnings)


def test_short_and_long_rows(tmp_path: Path) -> None:
    stops = STOPS.replace("stop_lon\n", "stop_lon,zone_id\n").replace(
        "S4,Four,48.03,9.03", "S4,Four,48.03,9.03,z,extra"
    )
    feed = read_gtfs(write_feed(tmp_path, {"stops.txt": stops}))
    assert feed.stops["stop_id"].tolist() == ["S1", "S2", "S3"]  # short rows padded
    long_row = [w for w in feed.report.warnings if "more fields" in w.message]
    assert len(long_row) == 1
    assert long_row[0].line == 5
    # S4 is gone, so is the row that used it... none did: the feed still loads
    assert feed.report.ok


def test_unknown_references_are_warnings_with_lines(tmp_path: Path) -> None:
    times = STOP_TIMES + "T9,10:00:00,10:00:00,S1,1\nT1,08:30:00,08:30:00,NOPE,4\n"
    trips = TRIPS + "R9,WK,T3\nR1,NOSERVICE,T4\n"
    times += "T4,07:00:00,07:00:00,S1,1\nT4,07:05:00,07:05:00,S2,2\n"
    feed = read_gtfs(write_feed(tmp_path, {"stop_times.txt": times, "trips.txt": trips}))
    warnings = {(w.file, w.line, w.field) for w in feed.report.warnings}
    assert ("stop_times.txt", 7, "trip_id") in warnings
    assert ("stop_times.txt", 8, "stop_id") in warnings
    assert ("trips.txt", 4, "route_id") in warnings
    assert ("trips.txt", 5, "service_id") in warnings
    assert feed.report.ok
    assert feed.trips["trip_id"].tolist() == ["T1", "T2", "T4"]  # unknown service: kept


def test_duplicates_and_questionable_rows(tmp_path: Path) -> None:
    stops = STOPS + "S1,Again,1,1\nS5,Zero,0,0\nS6,Far,95,9\n"
    routes = "route_id,agency_id,route_short_name,route_type\nR1,A,1,3\nR2,A,2,99\nR3,A,3,\n"
    feed = read_gtfs(write_feed(tmp_path, {"stops.txt": stops, "routes.txt": routes}))
    by_line = {w.line: w.message for w in feed.report}
    assert "duplicate stop_id 'S1'" in by_line[6]
    assert "questionable coordinates" in by_line[7]
    assert "questionable" in by_line[8]
    assert "unknown route_type '99'" in by_line[3]
    assert [e.line for e in feed.report.errors] == [4]  # missing route_type: route dropped
    assert feed.stops.set_index("stop_id").loc["S1", "stop_name"] == "One"
    assert feed.routes["route_id"].tolist() == ["R1", "R2"]


def test_single_trip_stop_time_dropped(tmp_path: Path) -> None:
    times = STOP_TIMES + "T3,10:00:00,10:00:00,S1,1\n"
    trips = TRIPS + "R1,WK,T3\nR1,WK,T4\n"
    feed = read_gtfs(write_feed(tmp_path, {"stop_times.txt": times, "trips.txt": trips}))
    assert feed.trips["trip_id"].tolist() == ["T1", "T2"]
    messages = _messages(feed.report)
    assert "only one stop_time" in messages
    assert "no usable stop_times" in messages


def test_agency_defaults(tmp_path: Path) -> None:
    agency = "agency_name,agency_url,agency_timezone\nSolo,http://s.example,America/Chicago\n"
    routes = "route_id,route_short_name,route_type\nR1,1,3\n"
    feed = read_gtfs(write_feed(tmp_path, {"agency.txt": agency, "routes.txt": routes}),
                     feed_id="solo")  # fmt: skip
    assert feed.agency["agency_id"].tolist() == ["solo"]
    assert feed.routes["agency_id"].tolist() == ["solo"]
    assert feed.agency_timezone("solo") == feed.default_timezone == "America/Chicago"


def test_report_is_capped(tmp_path: Path) -> None:
    n = MAX_ROW_ISSUES + 30
    times = STOP_TIMES + "".join(f"X{i},10:00:00,10:00:00,S1,1\n" for i in range(n))
    feed = read_gtfs(write_feed(tmp_path, {"stop_times.txt": times}))
    unknown = [w for w in feed.report.warnings if w.field == "trip_id"]
    assert len(unknown) == MAX_ROW_ISSUES + 1
    assert unknown[-1].line is None
    assert "30 more rows" in unknown[-1].message
    assert "warning" in feed.report.summary()


def test_empty_optional_file(tmp_path: Path) -> None:
    header_only = "from_stop_id,to_stop_id,transfer_type\n"
    feed = read_gtfs(write_feed(tmp_path, {"transfers.txt": header_only, "agency.txt": AGENCY}))
    assert feed.transfers.empty
    assert "transfer_type" in feed.transfers
