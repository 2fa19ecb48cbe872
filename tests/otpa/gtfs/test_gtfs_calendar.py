"""ServiceCalendar against a plain-Python reading of calendar.txt + calendar_dates.txt."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _gtfs_builders import raw_rows, write_feed

from otpa.errors import UnknownIdError
from otpa.gtfs import ServiceCalendar, read_gtfs

WEEK = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def _date(text: str) -> dt.date:
    return dt.datetime.strptime(text, "%Y%m%d").date()


def _oracle(feed_path: Path, day: dt.date) -> set[str]:
    """Services running on ``day``, the slow obvious way."""
    running = set()
    for row in raw_rows(feed_path, "calendar.txt") or []:
        within = _date(row["start_date"]) <= day <= _date(row["end_date"])
        if within and row[WEEK[day.weekday()]] == "1":
            running.add(row["service_id"])
    for row in raw_rows(feed_path, "calendar_dates.txt") or []:
        if _date(row["date"]) == day:
            if row["exception_type"] == "1":
                running.add(row["service_id"])
            else:
                running.discard(row["service_id"])
    return running


FEEDS = [
    (("tiny", "transit-only", "caltrain_gtfs.zip"), dt.date(2009, 8, 20), 140),
    (("tiny", "atlanta", "atlanta-blue-green-line.gtfs.zip"), dt.date(2021, 8, 10), 130),
    (("tiny", "herrenberg-vvs", "vvs-bus-751-only.gtfs.zip"), dt.date(2020, 2, 1), 320),
    (("tiny", "mmri", "1a"), dt.date(2013, 12, 30), 5),  # calendar_dates only
    (("tiny", "beatty", "sample-feed"), dt.date(2007, 5, 30), 20),
]


@pytest.mark.parametrize(("parts", "start", "days"), FEEDS, ids=lambda p: str(p))
def test_matches_raw_files(data_root: Path, parts: tuple[str, ...], start: dt.date, days: int
                           ) -> None:  # fmt: skip
    path = data_root.joinpath(*parts)
    cal = read_gtfs(path).service_calendar()
    for k in range(days):
        day = start + dt.timedelta(days=k)
        assert cal.services_on(day) == _oracle(path, day), day


def test_caltrain_exceptions(data_root: Path) -> None:
    feed = read_gtfs(data_root / "tiny" / "transit-only" / "caltrain_gtfs.zip")
    cal = feed.service_calendar()
    assert cal is feed.service_calendar()  # cached
    labor_day, tuesday, saturday = dt.date(2009, 9, 7), dt.date(2009, 9, 8), dt.date(2009, 9, 12)
    assert cal.services_on(labor_day) == {"SN20090831"}  # Monday run as Sunday
    assert not cal.is_active("WD20090831", labor_day)
    assert cal.services_on(tuesday) == {"WD20090831"}
    assert cal.services_on(saturday) == {"SN20090831", "ST20090831"}
    assert cal.is_active("WD20090831", 20090908)  # int YYYYMMDD accepted
    assert cal.date_range == (dt.date(2009, 3, 2), dt.date(2019, 8, 31))
    assert cal.active.shape == (6, (cal.last_date - cal.first_date).days + 1)
    assert cal.services_on(dt.date(2030, 1, 1)) == set()
    with pytest.raises(UnknownIdError):
        cal.is_active("nope", tuesday)


def test_atlanta_weekday_weekend(data_root: Path) -> None:
    path = data_root / "tiny" / "atlanta" / "atlanta-blue-green-line.gtfs.zip"
    cal = read_gtfs(path).service_calendar()
    assert cal.services_on(dt.date(2021, 9, 6)) == _oracle(path, dt.date(2021, 9, 6))
    assert "5" not in cal.services_on(dt.date(2021, 9, 6))  # removed by calendar_dates
    assert "5" in cal.services_on(dt.date(2021, 9, 7))
    assert cal.services_on(dt.date(2021, 12, 9)) == _oracle(path, dt.date(2021, 12, 9))


def test_only_calendar_dates(tmp_path: Path) -> None:
    dates = "service_id,date,exception_type\nWK,20240102,1\nWK,20240105,1\nX,20240103,2\n"
    feed = read_gtfs(write_feed(tmp_path, {"calendar.txt": None, "calendar_dates.txt": dates}))
    cal = feed.service_calendar()
    assert cal.service_ids == ["WK", "X"]
    assert cal.date_range == (dt.date(2024, 1, 2), dt.date(2024, 1, 5))
    assert cal.active.tolist() == [[True, False, False, True], [False, False, False, False]]
    assert feed.calendar.empty
    assert feed.calendar["start_date"].dtype == np.int32


def test_invalid_dates_are_errors(tmp_path: Path) -> None:
    cal = (
        "service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date\n"
        "WK,1,1,1,1,1,0,0,20240101,20241231\nBAD,1,1,1,1,1,0,0,20240230,20241231\n"
    )
    feed = read_gtfs(write_feed(tmp_path, {"calendar.txt": cal}))
    [error] = feed.report.errors
    assert error.line == 3
    assert "invalid start_date '20240230'" in error.message
    assert feed.calendar["service_id"].tolist() == ["WK"]


def test_from_tables_directly() -> None:
    calendar = pd.DataFrame(
        {"service_id": ["A"], **{d: [1 if d == "monday" else 0] for d in WEEK},
         "start_date": [20240101], "end_date": [20240114]}
    )  # fmt: skip
    dates = pd.DataFrame({"service_id": ["B"], "date": [20240110], "exception_type": [1]})
    cal = ServiceCalendar.from_tables(calendar, dates)
    assert cal.services_on(dt.date(2024, 1, 8)) == {"A"}
    assert cal.services_on(dt.date(2024, 1, 10)) == {"B"}
    assert cal.active_on(dt.date(2024, 1, 1)).tolist() == [True, False]
