"""Property tests (hypothesis) of the request parsers: any text gives a value or a domain error.

A domain error (:class:`otpa.errors.OtpaError`) becomes a 400 or an OTP error object in
the service; anything else would be a 500.  Where a parser has an inverse or an obvious
meaning, the value read back is checked too.
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from otpa.errors import OtpaError
from otpa.gtfs._times import parse_times
from otpa.routing.parse import (
    _DATE_SEPARATORS,
    _date_by_patterns,
    _otp_parse_date,
    parse_agency_ids,
    parse_banned_trips,
    parse_date_time,
    parse_location,
    parse_modes,
    parse_route_specs,
    parse_stop_ids,
)
from otpa.util.polyline import decode_polyline, encode_polyline

NOW = dt.datetime(2026, 3, 4, 12, 0, tzinfo=dt.UTC)
#: text with the characters the parsers split on, plus anything else
texts = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=",:;_ .-/\\=0123456789aAmMpP", max_size=30),
)
lats = st.floats(min_value=-90, max_value=90, allow_nan=False)
lons = st.floats(min_value=-180, max_value=180, allow_nan=False)
FAST = settings(max_examples=60, deadline=None)


def _value_or_domain_error(parse, *args, **kwargs):  # type: ignore[no-untyped-def]
    try:
        return parse(*args, **kwargs)
    except OtpaError:
        return None


@FAST
@given(texts)
def test_any_place_text_reads_or_is_refused(text: str) -> None:
    _value_or_domain_error(parse_location, text)


@FAST
@given(lats, lons)
def test_a_coordinate_place_reads_back(lat: float, lon: float) -> None:
    # decimals as clients write them (OTP's pattern has no exponents)
    text_lat, text_lon = f"{lat:.7f}", f"{lon:.7f}"
    loc = parse_location(f"{text_lat}, {text_lon}")
    assert (loc.lat, loc.lon) == (float(text_lat), float(text_lon))


@FAST
@given(st.one_of(st.none(), texts), st.one_of(st.none(), texts))
def test_any_date_and_time_read_or_are_refused(date: str | None, time: str | None) -> None:
    value = _value_or_domain_error(parse_date_time, date, time, "Europe/Berlin", now=NOW)
    assert value is None or value.tzinfo is not None


@FAST
@given(st.dates(min_value=dt.date(2000, 1, 1), max_value=dt.date(2099, 12, 31)),
       st.integers(0, 23), st.integers(0, 59))  # fmt: skip
def test_an_iso_date_and_a_24_hour_time_read_back(day: dt.date, hour: int, minute: int) -> None:
    value = parse_date_time(day.isoformat(), f"{hour}:{minute:02d}", "Europe/Berlin", now=NOW)
    assert (value.date(), value.hour, value.minute) == (day, hour, minute)


@FAST
@given(texts)
def test_any_modes_read_or_are_refused(text: str) -> None:
    _value_or_domain_error(parse_modes, text)


@FAST
@given(texts)
def test_any_banned_lists_read_or_are_refused(text: str) -> None:
    _value_or_domain_error(parse_route_specs, text, feed_ids=("poa_eptc", "1"))
    _value_or_domain_error(parse_agency_ids, text)
    _value_or_domain_error(parse_stop_ids, text)
    _value_or_domain_error(parse_banned_trips, text)


@FAST
@given(st.lists(st.tuples(st.integers(0, 199), st.integers(0, 59), st.integers(0, 59)),
                min_size=1, max_size=20))  # fmt: skip
def test_gtfs_times_read_back(hms: list[tuple[int, int, int]]) -> None:
    text = [f"{h}:{m:02d}:{s:02d}" for h, m, s in hms]
    seconds, missing, malformed = parse_times(pa.array(text))
    assert seconds.tolist() == [h * 3600 + m * 60 + s for h, m, s in hms]
    assert not missing.any()
    assert not malformed.any()


@FAST
@given(st.lists(st.one_of(st.none(), texts), min_size=1, max_size=20))
def test_any_gtfs_time_text_is_read_or_flagged(values: list[str | None]) -> None:
    seconds, missing, malformed = parse_times(pa.array(values, type=pa.string()))
    assert seconds.shape == missing.shape == malformed.shape == (len(values),)
    assert not (missing & malformed).any()
    assert (seconds[missing | malformed] == 0).all()


@FAST
@given(st.lists(st.tuples(lats, lons), max_size=30))
def test_polylines_round_trip_to_five_decimals(points: list[tuple[float, float]]) -> None:
    lat = [p[0] for p in points]
    lon = [p[1] for p in points]
    back_lat, back_lon = decode_polyline(encode_polyline(lat, lon))
    assert np.allclose(back_lat, np.round(np.asarray(lat) * 1e5) / 1e5, atol=1e-9)
    assert np.allclose(back_lon, np.round(np.asarray(lon) * 1e5) / 1e5, atol=1e-9)


@FAST
@given(
    st.text(alphabet="0123456789", min_size=0, max_size=3),
    st.text(alphabet="0123456789", min_size=0, max_size=3),
    st.text(alphabet="0123456789", min_size=0, max_size=5),
    st.sampled_from("-/._: "),
)
def test_month_day_year_reads_as_the_pattern_list_does(
    month: str, day: str, year: str, sep: str
) -> None:
    # ``MM-dd-yyyy`` skips the patterns that cannot read it: same date as trying them all
    text = f"{month}{sep}{day}{sep}{year}"
    normalized = text.strip().translate(_DATE_SEPARATORS)
    assert _otp_parse_date(text, NOW) == _date_by_patterns(normalized, NOW)


def test_month_day_year_dates_read_back() -> None:
    # the fast form's edge cases: leap days, the month and day ranges, the year >= 1000 rule
    cases = {
        "02-29-2024": dt.date(2024, 2, 29),
        "02-29-2023": None,
        "1-2-2026": dt.date(2026, 1, 2),
        "12-31-9999": dt.date(9999, 12, 31),
        "13-01-2026": None,
        "00-10-2026": None,
        "11/27/2026": dt.date(2026, 11, 27),
    }
    for text, want in cases.items():
        normalized = text.translate(_DATE_SEPARATORS)
        assert _otp_parse_date(text, NOW) == want == _date_by_patterns(normalized, NOW), text
