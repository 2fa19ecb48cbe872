"""otpa.routing.parse: OTP 1.x place, date/time, mode and id-list strings.

Expected values are worked out by hand from the OTP 1.x reference
(``otp1-api-reference.md`` sections 1.2-1.6): the date patterns and their
order, the two-digit-year window, the lenient calendar, the place regex.
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from otpa.routing.errors import InvalidRequestError
from otpa.routing.parse import (
    parse_agency_ids,
    parse_banned_trips,
    parse_date_time,
    parse_feed_scoped_id,
    parse_location,
    parse_modes,
    parse_route_specs,
    parse_stop_ids,
    rental_preferences,
)
from otpa.routing.request import Location, RouteSpec
from otpa.transit.modes import TRANSIT_MODES

AMS = ZoneInfo("Europe/Amsterdam")
# Wednesday 4 March 2026, 08:30:15 in Amsterdam (UTC+1; DST starts 29 March)
NOW = dt.datetime(2026, 3, 4, 8, 30, 15, tzinfo=AMS)
ALL_TRANSIT = frozenset(TRANSIT_MODES)


def local(
    year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0
) -> dt.datetime:
    return dt.datetime(year, month, day, hour, minute, second, tzinfo=AMS)


def when(date: str | None, time: str | None, **kwargs: str) -> dt.datetime:
    return parse_date_time(date, time, "Europe/Amsterdam", now=NOW, **kwargs)


# -- places -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "lat", "lon"),
    [
        ("45.5,-122.6", 45.5, -122.6),
        ("45.5, -122.6", 45.5, -122.6),
        ("45.5 ,  -122.6", 45.5, -122.6),
        ("45.5 -122.6", 45.5, -122.6),
        ("45.5\t-122.6", 45.5, -122.6),
        ("-33,151", -33.0, 151.0),
        ("+45.5,-122.6", 45.5, -122.6),  # the sign is skipped, as OTP's regex did
        ("(45.5,-122.6)", 45.5, -122.6),  # leading non-numeric characters are skipped
        ("heading=90 52.1,4.2", 90.0, 52.1),  # OTP quirk: the first pair of numbers counts
    ],
)
def test_coordinate_forms(text: str, lat: float, lon: float) -> None:
    loc = parse_location(text)
    assert (loc.lat, loc.lon, loc.label, loc.name) == (lat, lon, None, "")


def test_named_place() -> None:
    assert parse_location("Home::45.5,-122.6") == Location(lat=45.5, lon=-122.6, name="Home")
    # split at the first "::" only
    loc = parse_location("a::b::45,4")
    assert (loc.name, loc.lat, loc.lon) == ("a", 45.0, 4.0)
    assert parse_location("Central Station::demo:S1") == Location(
        label="demo:S1", name="Central Station"
    )


def test_heading_and_edge_id() -> None:
    loc = parse_location("45.5,-122.6 heading=-45.5 edgeId=1234")
    assert (loc.heading, loc.edge_id) == (-45.5, 1234)
    assert parse_location("45.5,-122.6").heading is None


@pytest.mark.parametrize("label", ["TriMet:8371", "osm:node:12345", "demo_stop", "lat 45.5 x"])
def test_labels(label: str) -> None:
    assert parse_location(label) == Location(label=label)


@pytest.mark.parametrize("text", ["", "95,4", "45,200", "Nowhere::"])
def test_unusable_places_are_outside_bounds(text: str) -> None:
    with pytest.raises(InvalidRequestError) as info:
        parse_location(text, parameter="toPlace")
    assert (info.value.parameter, info.value.code) == ("toPlace", "OUTSIDE_BOUNDS")


def test_edge_id_overflow() -> None:
    with pytest.raises(InvalidRequestError) as info:
        parse_location("45,4 edgeId=99999999999")
    assert (info.value.parameter, info.value.code) == ("fromPlace", None)


# -- dates --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("date", "expected"),
    [
        ("2019-05-01", local(2019, 5, 1, 13, 2)),  # yyyy.M.d
        ("2019/05/01", local(2019, 5, 1, 13, 2)),
        ("2019_05_01", local(2019, 5, 1, 13, 2)),
        ("2019:05:01", local(2019, 5, 1, 13, 2)),
        ("20190501", local(2019, 5, 1, 13, 2)),  # eight digits
        ("05-01-2019", local(2019, 5, 1, 13, 2)),  # M.d.yyyy
        ("05/01/2019", local(2019, 5, 1, 13, 2)),
        ("5/1/2019", local(2019, 5, 1, 13, 2)),
        ("5/1/19", local(2019, 5, 1, 13, 2)),  # short: M.d.yy
        ("19.5.1", local(2019, 5, 1, 13, 2)),  # short: yy.M.d (M.d.yy fails: month 19)
        ("5/1/20", local(2020, 5, 1, 13, 2)),  # "20" is no 20dd: short list
        (" 2019-5-1 ", local(2019, 5, 1, 13, 2)),  # trimmed, single digits
        ("2019-05-01T13:02:00", local(2019, 5, 1, 13, 2)),  # yyyy.M.d prefix; T... ignored
        ("2019-05-01-09-15", local(2019, 5, 1, 13, 2)),  # yyyy.MM.dd.HH.mm; time replaced
        ("05-01-2019 1:02 am", local(2019, 5, 1, 13, 2)),  # M.d.yyyy h.mm a
        ("05-01-2019 1:02am", local(2019, 5, 1, 13, 2)),  # M.d.yyyy h.mma
        ("05-01-2019 23:02", local(2019, 5, 1, 13, 2)),  # M.d.yyyy k.mm
        ("1:02 pm", local(1970, 1, 1, 13, 2)),  # h.mm a: a time, no date (1970)
        ("1/1/47", local(1947, 1, 1, 13, 2)),  # two-digit years: 1946-03-04 .. 2046-03-03
        ("3/5/46", local(1946, 3, 5, 13, 2)),
        ("1/1/46", local(2046, 1, 1, 13, 2)),  # before 1946-03-04 08:30 -> next century
        ("2/29/2024", local(2024, 2, 29, 13, 2)),
    ],
)
def test_date_formats(date: str, expected: dt.datetime) -> None:
    assert when(date, "13:02") == expected


@pytest.mark.parametrize(
    "date", ["2019-02-30", "13/01/2019", "2019-13-01", "garbage", "", "0019-05-01", "2/29/2023"]
)
def test_unreadable_dates_are_bogus(date: str) -> None:
    with pytest.raises(InvalidRequestError) as info:
        when(date, "13:02")
    assert (info.value.parameter, info.value.code) == ("date", "BOGUS_PARAMETER")


def test_invalid_date_strategy_use_current() -> None:
    assert when("garbage", "13:02", invalid_date_strategy="use_current") == local(2026, 3, 4, 13, 2)
    assert when("garbage", None, invalid_date_strategy="USE_CURRENT") == NOW
    with pytest.raises(InvalidRequestError):
        when("garbage", "13:02", invalid_date_strategy="SOMETHING_ELSE")


# -- times with a date --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("time", "expected"),
    [
        ("13:02", local(2019, 5, 1, 13, 2)),
        ("9:5", local(2019, 5, 1, 9, 5)),
        ("13:02:03", local(2019, 5, 1, 13, 2, 3)),
        ("1:02pm", local(2019, 5, 1, 13, 2)),  # h:mma
        ("1:02 pm", local(2019, 5, 1, 13, 2)),  # h:mm a
        ("01:02PM", local(2019, 5, 1, 13, 2)),  # hh:mmPM
        ("1:02 AM", local(2019, 5, 1, 1, 2)),
        ("12:05am", local(2019, 5, 1, 0, 5)),  # 12:xxam is 00:xx
        ("12:05pm", local(2019, 5, 1, 12, 5)),
        ("25:30", local(2019, 5, 2, 1, 30)),  # lenient calendar
        ("24:00", local(2019, 5, 2, 0, 0)),
        ("8:75", local(2019, 5, 1, 9, 15)),
        # unreadable: the current time of day (08:30:15)
        ("1:02:03pm", local(2019, 5, 1, 8, 30, 15)),  # AM/PM only after the minutes
        ("1300", local(2019, 5, 1, 8, 30, 15)),  # seconds past midnight never worked
        ("noon", local(2019, 5, 1, 8, 30, 15)),
        ("13:", local(2019, 5, 1, 8, 30, 15)),
    ],
)
def test_time_of_day(time: str, expected: dt.datetime) -> None:
    assert when("2019-05-01", time) == expected


def test_date_without_time_takes_the_current_time_of_day() -> None:
    assert when("2019-05-01", None) == local(2019, 5, 1, 8, 30, 15)


def test_neither_date_nor_time_is_now() -> None:
    assert when(None, None) == NOW
    utc_now = parse_date_time(None, None, "UTC", now=NOW)
    assert utc_now == NOW
    assert utc_now.utcoffset() == dt.timedelta(0)


def test_daylight_saving_gap_moves_forward() -> None:
    # 02:30 does not exist on 29 March 2026 in Amsterdam
    result = when("2026-03-29", "02:30")
    assert result == dt.datetime(2026, 3, 29, 1, 30, tzinfo=dt.UTC)
    assert result.utcoffset() == dt.timedelta(hours=2)


# -- time without a date: XML-Schema values -----------------------------------------------------


@pytest.mark.parametrize(
    ("time", "expected"),
    [
        ("2019-05-01T13:02:00", local(2019, 5, 1, 13, 2)),  # no offset: network zone
        ("2019-05-01T13:02:00Z", local(2019, 5, 1, 15, 2)),
        ("2019-05-01T13:02:00-07:00", local(2019, 5, 1, 22, 2)),
        ("2019-05-01T13:02:00+02:00", local(2019, 5, 1, 13, 2)),
        ("2019-05-01T13:02:00.250Z", local(2019, 5, 1, 15, 2, 0) + dt.timedelta(milliseconds=250)),
        ("2019-05-01T24:00:00", local(2019, 5, 2, 0, 0)),
        ("2019-05-01", local(2019, 5, 1, 0, 0)),  # xsd:date
        ("13:02:00", local(1970, 1, 1, 13, 2)),  # xsd:time: unset fields are 1970-01-01
        ("2019-05", local(2019, 5, 1, 0, 0)),  # gYearMonth
        ("2019", local(2019, 1, 1, 0, 0)),  # gYear
        ("--05-01", local(1970, 5, 1, 0, 0)),  # gMonthDay
    ],
)
def test_time_alone_is_an_xml_schema_value(time: str, expected: dt.datetime) -> None:
    result = when(None, time)
    assert result == expected
    assert result.tzinfo == AMS


@pytest.mark.parametrize(
    "time", ["1:02pm", "13:02", "2019-05-01 13:02:00", "2019-02-30T10:00:00", "tomorrow"]
)
def test_time_alone_otherwise_is_bogus(time: str) -> None:
    with pytest.raises(InvalidRequestError) as info:
        when(None, time)
    assert (info.value.parameter, info.value.code) == ("time", "BOGUS_PARAMETER")


def test_unknown_time_zone() -> None:
    with pytest.raises(ValueError, match="time zone"):
        parse_date_time(None, None, "Mars/Olympus", now=NOW)


# -- modes --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "street", "transit"),
    [
        ("WALK", {"WALK"}, set()),
        ("TRANSIT,WALK", {"WALK"}, ALL_TRANSIT),
        ("WALK,TRANSIT", {"WALK"}, ALL_TRANSIT),
        ("TRANSIT", set(), ALL_TRANSIT),  # no implicit WALK
        ("BUS,RAIL", set(), {"BUS", "RAIL"}),
        ("CABLE_CAR,WALK", {"WALK"}, {"CABLE_CAR"}),  # OTP 1.x could not parse CABLE_CAR
        (
            "GONDOLA,FUNICULAR,AIRPLANE,FERRY,TRAM,SUBWAY",
            set(),
            ALL_TRANSIT - {"BUS", "RAIL", "CABLE_CAR"},
        ),
        ("BICYCLE", {"BICYCLE"}, set()),
        ("BICYCLE,TRANSIT", {"BICYCLE"}, ALL_TRANSIT),
        ("BICYCLE_RENT", {"BICYCLE", "WALK"}, set()),
        ("BICYCLE_PARK,TRANSIT", {"BICYCLE"}, ALL_TRANSIT),
        ("CAR", {"CAR"}, set()),
        ("CAR,TRANSIT", {"CAR", "WALK"}, ALL_TRANSIT),  # kiss-and-ride walks after drop-off
        ("CAR_PARK,TRANSIT", {"CAR", "WALK"}, ALL_TRANSIT),
        ("CAR_PARK", {"CAR"}, set()),
        ("MICROMOBILITY", {"MICROMOBILITY"}, set()),
        ("MICROMOBILITY_RENT", {"MICROMOBILITY", "WALK"}, set()),
        ("WALK_HAVE,BICYCLE_KEEP", {"WALK", "BICYCLE"}, set()),
        (" WALK , BUS ", {"WALK"}, {"BUS"}),  # items and tokens are trimmed
        ("WALK,TRANSIT,", {"WALK"}, ALL_TRANSIT),  # trailing separators dropped (Java split)
        ("LEG_SWITCH,WALK", {"WALK"}, set()),
    ],
)
def test_modes(text: str, street: set[str], transit: set[str]) -> None:
    modes = parse_modes(text)
    assert modes.street == street
    assert modes.transit_modes == transit
    assert modes.transit is bool(transit)


def test_qualifiers_are_kept_per_mode() -> None:
    assert parse_modes("BICYCLE_RENT_PARK,TRANSIT").qualifiers == {"BICYCLE_RENT", "BICYCLE_PARK"}
    assert parse_modes("CABLE_CAR_HAVE").qualifiers == {"CABLE_CAR_HAVE"}
    assert parse_modes("WALK,BUS").qualifiers == frozenset()


@pytest.mark.parametrize("text", ["walk", "FOO", "BICYCLE_FOO", "WALK,,BUS", "", "WALK__RENT"])
def test_bad_modes(text: str) -> None:
    with pytest.raises(InvalidRequestError) as info:
        parse_modes(text)
    assert (info.value.parameter, info.value.code) == ("mode", None)


@pytest.mark.parametrize(
    ("text", "flags", "companies"),
    [
        ("WALK,TRANSIT", set(), ()),
        ("BICYCLE_RENT", {"bike_rental"}, ()),
        ("BICYCLE_RENT,TRANSIT", {"bike_rental"}, ()),
        ("BICYCLE_PARK,TRANSIT", {"bike_park"}, ()),
        ("BICYCLE_PARK", set(), ()),  # bike-and-ride needs transit
        ("CAR,TRANSIT", {"kiss_and_ride"}, ()),
        ("CAR_PARK,TRANSIT", {"park_and_ride"}, ()),
        ("CAR_HAIL,TRANSIT", {"ride_hail"}, ("NOAPI",)),
        ("CAR_RENT,TRANSIT", {"car_rental"}, ()),
        ("CAR_PARK", set(), ()),  # without transit: plain driving
        ("CAR", set(), ()),
        ("MICROMOBILITY_RENT", {"vehicle_rental"}, ()),
    ],
)
def test_rental_preferences(text: str, flags: set[str], companies: tuple[str, ...]) -> None:
    rental = rental_preferences(parse_modes(text))
    names = ["bike_rental", "car_rental", "vehicle_rental", "bike_park", "park_and_ride"]
    names += ["kiss_and_ride", "ride_hail"]
    assert {n for n in names if getattr(rental, n)} == flags
    assert rental.companies == companies


def test_companies_only_for_hailing_and_rentals() -> None:
    assert rental_preferences(parse_modes("CAR_HAIL,TRANSIT"), ["UBER"]).companies == ("UBER",)
    assert rental_preferences(parse_modes("CAR_RENT,TRANSIT"), ["CAR2GO"]).companies == ("CAR2GO",)
    assert rental_preferences(parse_modes("MICROMOBILITY_RENT"), ["BIRD"]).companies == ("BIRD",)
    assert rental_preferences(parse_modes("WALK,TRANSIT"), ["UBER"]).companies == ()


# -- route specs and id lists -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("TriMet_100", (RouteSpec(agency="TriMet", name="100"),)),
        ("TriMet__42", (RouteSpec(agency="TriMet", route_id="42"),)),
        ("_100", (RouteSpec(name="100"),)),
        ("TriMet_100_", (RouteSpec(agency="TriMet", name="100"),)),  # empty id = none
        (r"my\_agency_Blue\_Line", (RouteSpec(agency="my_agency", name="Blue Line"),)),
        (r"TriMet__4\_2", (RouteSpec(agency="TriMet", route_id="4_2"),)),
        ("TriMet__4_2", (RouteSpec(agency="TriMet", route_id="4_2"),)),  # at most 3 parts
        (",TriMet_1,,_2,TriMet_1", (RouteSpec(agency="TriMet", name="1"), RouteSpec(name="2"))),
        ("", ()),
    ],
)
def test_route_specs(text: str, expected: tuple[RouteSpec, ...]) -> None:
    assert parse_route_specs(text) == expected


@pytest.mark.parametrize("text", ["100", "TriMet_100_42", "__42", "_", "TriMet_"])
def test_bad_route_specs_are_bogus(text: str) -> None:
    with pytest.raises(InvalidRequestError) as info:
        parse_route_specs(text, "whiteListedRoutes")
    assert (info.value.parameter, info.value.code) == ("whiteListedRoutes", "BOGUS_PARAMETER")


def test_stop_ids() -> None:
    assert parse_stop_ids("TriMet:2107,TriMet:2108,") == {"TriMet:2107", "TriMet:2108"}
    assert parse_stop_ids("a:b:c") == {"a:b:c"}
    assert parse_stop_ids("") == frozenset()
    with pytest.raises(InvalidRequestError) as info:
        parse_stop_ids("TriMet:1,TriMet_2107", "bannedStopsHard")
    assert (info.value.parameter, info.value.code) == ("bannedStopsHard", "BOGUS_PARAMETER")


def test_agency_ids() -> None:
    assert parse_agency_ids("TriMet,,C-TRAN") == {"TriMet", "C-TRAN"}
    assert parse_agency_ids("") == frozenset()


def test_banned_trips() -> None:
    assert parse_banned_trips("TriMet:24601,TriMet:24602:0:1:17") == {
        "TriMet:24601": (),
        "TriMet:24602": (0, 1, 17),
    }
    assert parse_banned_trips("x,f:t:,a:b") == {"f:t": (), "a:b": ()}  # < 2 parts skipped
    assert parse_banned_trips("a:b,a:b:3") == {"a:b": (3,)}  # the later entry wins
    for bad in ("f:t:a", "f:t:-1", "f:t:1.5"):
        with pytest.raises(InvalidRequestError) as info:
            parse_banned_trips(bad)
        assert (info.value.parameter, info.value.code) == ("bannedTrips", None)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("TriMet_8371", "TriMet:8371"),
        ("TriMet_83_71", "TriMet:83_71"),
        ("TriMet:8_371", "TriMet:8_371"),
        ("demo:S1", "demo:S1"),
    ],
)
def test_feed_scoped_ids(text: str, expected: str) -> None:
    assert parse_feed_scoped_id(text) == expected


def test_feed_scoped_id_without_separator() -> None:
    with pytest.raises(InvalidRequestError) as info:
        parse_feed_scoped_id("8371", "startTransitTripId")
    assert (info.value.parameter, info.value.code) == ("startTransitTripId", "BOGUS_PARAMETER")


@pytest.mark.parametrize(
    ("text", "feed_ids", "expected"),
    [
        # feed ids derived from file names contain underscores: the double underscore
        # of ``feed__routeId`` separates them without knowing the feeds
        ("poa_eptc__281", (), RouteSpec(agency="poa_eptc", route_id="281")),
        ("poa_eptc__281", ("poa_eptc",), RouteSpec(agency="poa_eptc", route_id="281")),
        ("my_agency__4_2", (), RouteSpec(agency="my_agency", route_id="4_2")),
        # ``feed_routeName`` needs the known feed ids (longest match first)
        ("poa_eptc_T1", ("poa", "poa_eptc"), RouteSpec(agency="poa_eptc", name="T1")),
        ("poa_T1", ("poa_eptc",), RouteSpec(agency="poa", name="T1")),
    ],
)
def test_route_specs_with_underscored_feed_ids(
    text: str, feed_ids: tuple[str, ...], expected: RouteSpec
) -> None:
    assert parse_route_specs(text, feed_ids=feed_ids) == (expected,)


@pytest.mark.parametrize("text", ["poa_eptc_T1", "poa_eptc_T1_5"])
def test_underscored_feed_name_specs_without_the_feed_ids_are_bogus(text: str) -> None:
    with pytest.raises(InvalidRequestError) as info:
        parse_route_specs(text, feed_ids=("poa_eptc",) if text.endswith("_5") else ())
    assert info.value.code == "BOGUS_PARAMETER"
