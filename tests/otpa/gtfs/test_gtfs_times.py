"""Vectorised time parsing / formatting."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from otpa.gtfs._times import format_times, parse_times

GOOD = [
    ("5:52:00", 5 * 3600 + 52 * 60),
    ("05:52:00", 5 * 3600 + 52 * 60),
    ("25:10:00", 90600),
    (" 07:01:02 ", 7 * 3600 + 62),
    ("23:59:59", 86399),
    ("100:00:00", 360000),
    ("0:00:00", 0),
]
BAD = ["25:6x:00", "1:2:3", "12:60:00", "12:00:60", "abc", "1000:00:00", ":00:00:00", "1x:00:00",
       "12-00-00", "12:00"]  # fmt: skip


@pytest.mark.parametrize(("text", "seconds"), GOOD)
def test_good(text: str, seconds: int) -> None:
    values, missing, malformed = parse_times(pa.array([text]))
    assert values.tolist() == [seconds]
    assert not missing[0]
    assert not malformed[0]


@pytest.mark.parametrize("text", BAD)
def test_bad(text: str) -> None:
    values, missing, malformed = parse_times(pa.array([text, "10:00:00"]))
    assert malformed.tolist() == [True, False]
    assert not missing.any()
    assert values.tolist() == [0, 36000]


@pytest.mark.parametrize("width", [7, 8, 9])
def test_fixed_width_fast_path_with_nulls(width: int) -> None:
    hours = {7: [5, 9], 8: [5, 29], 9: [105, 125]}[width]
    texts = [f"{h:0{width - 6}d}:07:09" for h in hours]
    arr = pa.array([texts[0], None, texts[1], None])
    values, missing, malformed = parse_times(arr)
    assert values.tolist() == [hours[0] * 3600 + 429, 0, hours[1] * 3600 + 429, 0]
    assert missing.tolist() == [False, True, False, True]
    assert not malformed.any()
    bad = pa.array([texts[0].replace("07", "7x")])
    assert parse_times(bad)[2].tolist() == [True]


def test_mixed_widths_and_empty() -> None:
    values, missing, malformed = parse_times(pa.array(["5:00:00", "", None, "10:00:00"]))
    assert values.tolist() == [18000, 0, 0, 36000]
    assert missing.tolist() == [False, True, True, False]
    assert not malformed.any()
    assert parse_times(pa.array([], pa.string()))[0].size == 0


def test_sliced_array() -> None:
    arr = pa.array(["01:00:00", "02:00:00", "03:00:00"]).slice(1)
    assert parse_times(arr)[0].tolist() == [7200, 10800]


def test_format_round_trip() -> None:
    seconds = np.array([0, 59, 3600, 90600, 360000])
    text = format_times(seconds)
    assert text.tolist() == ["00:00:00", "00:00:59", "01:00:00", "25:10:00", "100:00:00"]
    assert parse_times(pa.array(text.tolist()))[0].tolist() == seconds.tolist()
    assert format_times(np.zeros(0, dtype=np.int64)).size == 0
