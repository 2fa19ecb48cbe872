"""ValidationReport and feed ids."""

from __future__ import annotations

from pathlib import Path

import pytest

from otpa.errors import GtfsError
from otpa.gtfs import ValidationIssue, ValidationReport, default_feed_id, scoped_id
from otpa.gtfs.ids import sanitize_feed_id


def test_report_api() -> None:
    report = ValidationReport()
    assert report.ok
    assert len(report) == 0
    assert "no issues" in report.summary()
    report.add("warning", "stops.txt", "odd", line=3, field="stop_lat")
    report.add("error", "stop_times.txt", "bad", line=17)
    assert len(report) == 2
    assert not report.ok
    assert report.errors == [
        ValidationIssue("error", "stop_times.txt", 17, None, "stop_times.txt line 17: bad")
    ]
    assert [w.field for w in report.warnings] == ["stop_lat"]
    text = report.summary()
    assert "1 error(s), 1 warning(s)" in text
    assert "stop_times.txt line 17: bad" in text
    assert str(report.errors[0]) == "error: stop_times.txt line 17: bad"


def test_add_rows_values_and_cap() -> None:
    report = ValidationReport()
    report.add_rows("warning", "trips.txt", range(2, 102), "unknown route_id '{value}'",
                    field="route_id", values=[f"R{i}" for i in range(100)])  # fmt: skip
    assert len(report) == 51
    assert report.issues[0].message == "trips.txt line 2: unknown route_id 'R0'"
    assert report.issues[-1].line is None
    assert "50 more rows" in report.issues[-1].message


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("caltrain_gtfs.zip", "caltrain_gtfs"),
        ("vvs-bus-751-only.gtfs.zip", "vvs-bus-751-only"),
        ("sample-feed", "sample-feed"),
        ("My Feed (2024).ZIP", "My_Feed_2024"),
        ("a:b.zip", "a_b"),
    ],
)
def test_default_feed_id(name: str, expected: str) -> None:
    assert default_feed_id(Path("/x") / name) == expected


def test_sanitize_and_scope() -> None:
    assert scoped_id("rnv", "123") == "rnv:123"
    with pytest.raises(GtfsError):
        sanitize_feed_id("::")
