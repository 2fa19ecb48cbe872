"""GTFS-Flex routing on the Cobb County, Aspen and Lincoln County feeds.

Expected times come from the feeds' windows (read with the csv module) and the street
time of the ride: the car search's time to the stop (Cobb, no duration factors), or
OTP 2's straight-line time without streets (the distance at 8 m/s plus 5 minutes)
times ``mean_duration_factor`` plus ``mean_duration_offset`` (Aspen, Lincoln County).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import math
import zipfile
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from otpa import plan
from otpa.network import TransportNetwork, build_network
from otpa.routing import Location, PlanRequest
from otpa.routing.errors import PathNotFoundError
from otpa.routing.model import Itinerary, Leg
from otpa.routing.preferences import FlexPreferences
from otpa.routing.street_router import StreetOptions, access_stops, snap_point
from tests.conftest import DATA_ROOT, require_data
from tests.fixtures.networks import built_network

NY = ZoneInfo("America/New_York")
COBB_FLEX = "cobblinc-scheduled-deviated-flex"
#: inside CobbLinc's Flex Zone 1, away from its stops
IN_ZONE = (33.86456, -84.62386)
#: outside every zone (east of zone 3), on the streets of the Cobb extract
OUTSIDE = (33.83249, -84.57590)
MARTA_STOP = "MARTA:78002"
DAY = dt.date(2021, 12, 14)  # a Tuesday: CobbLinc flex, bus 30 and MARTA weekday services


@pytest.fixture(scope="module")
def cobb() -> TransportNetwork:
    require_data("tiny", "cobb-flex")
    return built_network(DATA_ROOT, "tiny/cobb-flex")


def _secs(text: str) -> int:
    h, m, s = (int(x) for x in text.split(":"))
    return h * 3600 + m * 60 + s


def _windows() -> dict[str, tuple[int, int]]:
    """Zone 1 pickup window (first zone row) of every CobbLinc flex trip, from the csv."""
    path = DATA_ROOT / "tiny/cobb-flex" / f"{COBB_FLEX}.gtfs.zip"
    with zipfile.ZipFile(path) as zf:
        rows = csv.DictReader(io.StringIO(zf.read("stop_times.txt").decode("utf-8-sig")))
        out: dict[str, tuple[int, int]] = {}
        for r in rows:
            if r["stop_id"] == "zone_1" and r["trip_id"] not in out:
                start, end = r["start_pickup_dropoff_window"], r["end_pickup_dropoff_window"]
                out[r["trip_id"]] = (_secs(start), _secs(end))
    return out


def _at(hour: int, minute: int = 0, day: dt.date = DAY, tz: ZoneInfo = NY) -> dt.datetime:
    return dt.datetime(day.year, day.month, day.day, hour, minute, tzinfo=tz)


def _request(
    origin: tuple[float, float], to: Location, when: dt.datetime, **flex: object
) -> PlanRequest:
    return PlanRequest(Location(*origin), to, when, flex=FlexPreferences(**flex))  # type: ignore[arg-type]


def _flex_legs(it: Itinerary) -> list[Leg]:
    return [leg for leg in it.legs if leg.trip_id and leg.trip_id.startswith(f"{COBB_FLEX}:")]


def _day_s(when: dt.datetime) -> int:
    local = when.astimezone(NY)
    return local.hour * 3600 + local.minute * 60 + local.second


def test_zone_to_marta_rides_flex_then_the_bus(cobb: TransportNetwork) -> None:
    # booked at 05:00: at least 120 and at most 1440 minutes before the ride
    result = plan(cobb, _request(IN_ZONE, Location(label=MARTA_STOP), _at(7), booking_time=_at(5)))
    first = result.itineraries[0]
    ride, bus = first.legs[0], first.legs[1]
    assert ride.trip_id is not None
    assert ride.trip_id.startswith(f"{COBB_FLEX}:")
    assert (ride.from_place.lat, ride.from_place.lon) == IN_ZONE
    assert ride.from_place.board_alight_type == "DEVIATED"
    assert ride.to_place.board_alight_type == "DEVIATED"  # set down at a stop inside the zone
    assert ride.call_and_ride is None  # a deviated route, not call-and-ride
    assert ride.flex_drt_advance_book_min == 120.0
    assert ride.flex_drt_pickup_message == "Call reservationist to schedule."
    assert ride.board_rule == "mustPhone"
    # the ride's time is the car's street time to the stop (no duration factors in this feed)
    snap = snap_point(cobb, *IN_ZONE, mode="CAR", max_distance_m=1000.0)
    assert snap is not None
    car = StreetOptions.from_request(PlanRequest(None, None, _at(7)), "CAR")
    cars = access_stops(cobb, snap, car, max_time_s=3 * 3600.0)
    stop = int(list(cobb.transit.stops["stop_id"]).index(ride.to_place.stop_id))
    car_s = int(dict(zip(cars.stops.tolist(), cars.time_s.tolist(), strict=True))[stop])
    assert ride.duration == car_s
    # inside its trip's window, leaving as late as still catches bus 30 there
    trip = ride.trip_id.split(":", 1)[1]
    w_start, w_end = _windows()[trip]
    assert w_start <= _day_s(ride.start_time)
    assert _day_s(ride.end_time) <= w_end
    assert (w_start, w_end) == (7 * 3600, 7 * 3600 + 1800)  # the first window after 07:00
    assert bus.route == "30"
    assert bus.from_place.stop_id == ride.to_place.stop_id
    assert bus.start_time == ride.end_time
    assert first.legs[-1].to_place.stop_id == MARTA_STOP


def test_without_flex_there_is_no_way(cobb: TransportNetwork) -> None:
    req = _request(IN_ZONE, Location(label=MARTA_STOP), _at(7), enabled=False)
    with pytest.raises(PathNotFoundError):
        plan(cobb, req)


def test_outside_every_zone_no_flex_leg(cobb: TransportNetwork) -> None:
    req = _request(OUTSIDE, Location(label=MARTA_STOP), _at(7), ignore_drt_advance_book_min=True)
    try:
        result = plan(cobb, req)
    except PathNotFoundError:
        return
    assert all(not _flex_legs(it) for it in result.itineraries)


def test_booking_notice(cobb: TransportNetwork) -> None:
    to = Location(label=MARTA_STOP)
    # booked at 06:00: the 120 minutes' notice allows no ride before 08:00
    result = plan(cobb, _request(IN_ZONE, to, _at(7), booking_time=_at(6)))
    rides = [leg for it in result.itineraries for leg in _flex_legs(it)]
    assert rides
    assert min(leg.start_time for leg in rides) >= _at(8)
    # booked after the day's last window: no on-demand leg at all ...
    with pytest.raises(PathNotFoundError):
        plan(cobb, _request(IN_ZONE, to, _at(7), booking_time=_at(19)))
    # ... unless the advance booking is ignored
    result = plan(
        cobb,
        _request(IN_ZONE, to, _at(7), booking_time=_at(19), ignore_drt_advance_book_min=True),
    )
    assert _flex_legs(result.itineraries[0])
    assert result.itineraries[0].legs[0].start_time < _at(7, 30)


def test_reservation_services_can_be_refused(cobb: TransportNetwork) -> None:
    req = _request(IN_ZONE, Location(label=MARTA_STOP), _at(7), use_reservation_services=False,
                   ignore_drt_advance_book_min=True)  # fmt: skip
    with pytest.raises(PathNotFoundError):
        plan(cobb, req)


def _single_feed(tmp: Path, file_name: str) -> TransportNetwork:
    folder = tmp / file_name.removesuffix(".gtfs.zip")
    folder.mkdir()
    (folder / file_name).symlink_to(DATA_ROOT / "tiny/cobb-flex" / file_name)
    return build_network(folder)


def _straight_ride_s(a: tuple[float, float], b: tuple[float, float], offset_s: float) -> int:
    """OTP 2's direct flex time (8 m/s + 5 min), times factor 1, plus the offset."""
    lat1, lon1, lat2, lon2 = map(math.radians, (*a, *b))
    h = (
        math.sin((lat2 - lat1) / 2) ** 2
        + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    )
    d = 2 * 6371008.8 * math.asin(math.sqrt(h))
    return math.ceil(d / 8.0 + 300 + offset_s)


def test_aspen_downtowner_on_demand(tmp_path: Path) -> None:
    require_data("tiny", "cobb-flex")
    net = _single_feed(tmp_path, "aspen-flex-on-demand.gtfs.zip")
    denver = ZoneInfo("America/Denver")
    a, b = (39.1886, -106.8159), (39.1896, -106.8202)  # both inside area_294
    when = _at(12, day=dt.date(2021, 7, 14), tz=denver)  # off-season service, window 11:00-23:00
    result = plan(net, _request(a, Location(*b), when))
    (leg,) = result.itineraries[0].legs
    assert leg.trip_id == "1696:t_1289262_b_29084_tn_0"
    assert leg.call_and_ride is True
    assert leg.route_long_name == "Downtowner"
    assert leg.start_time == when
    assert leg.duration == _straight_ride_s(a, b, 9 * 60)  # mean_duration_offset 9.00 minutes
    assert leg.flex_drt_advance_book_min == 0.0  # booking_type 0: real time
    assert leg.flex_drt_pickup_message is not None
    assert leg.flex_drt_pickup_message.startswith("The Downtowner provides free door-to-door")
    # before the window opens (11:00), the ride waits for it
    early = plan(net, _request(a, Location(*b), when.replace(hour=10)))
    assert early.itineraries[0].legs[0].start_time == when.replace(hour=11)


def test_lincoln_county_dial_a_ride(tmp_path: Path) -> None:
    require_data("tiny", "cobb-flex")
    net = _single_feed(tmp_path, "lincoln-county-flex.gtfs.zip")
    pacific = ZoneInfo("America/Los_Angeles")
    a, b = (44.6220, -124.0437), (44.6236, -124.0515)  # both inside area_271
    day = dt.date(2021, 7, 14)
    when = _at(6, day=day, tz=pacific)  # window 00:00-07:30 on weekdays
    day_before = when - dt.timedelta(days=1)  # booking_type 2, "24:00:00" of notice
    result = plan(net, _request(a, Location(*b), when, booking_time=day_before))
    (leg,) = result.itineraries[0].legs
    assert leg.trip_id == "lincolncounty-or-us:t_748719_b_26748_tn_0"
    assert leg.call_and_ride is True
    assert leg.start_time == when
    assert leg.duration == _straight_ride_s(a, b, 10 * 60)  # mean_duration_offset 00:10:00
    assert leg.flex_drt_advance_book_min == 24 * 60.0
    # booked the same morning: a day's notice is missing
    with pytest.raises(PathNotFoundError):
        plan(net, _request(a, Location(*b), when, booking_time=when - dt.timedelta(hours=1)))
    ignored = plan(net, _request(a, Location(*b), when, booking_time=when,
                                 ignore_drt_advance_book_min=True))  # fmt: skip
    assert ignored.itineraries[0].legs[0].start_time == when


def _synthetic_zone_feed(tmp: Path, restricted: int, safe: str = "") -> TransportNetwork:
    """One on-demand zone (08:00-18:00, factor 2, offset 2 minutes), no streets.

    ``safe``: the trip's ``safe_duration_factor,safe_duration_offset`` in trips.txt.
    """
    ring = [[9.0, 48.0], [9.05, 48.0], [9.05, 48.05], [9.0, 48.05], [9.0, 48.0]]
    zones = {
        "type": "FeatureCollection",
        "features": [
            {"type": "Feature", "id": "Z", "geometry": {"type": "Polygon", "coordinates": [ring]}}
        ],
    }
    files = {
        "agency.txt": "agency_id,agency_name,agency_url,agency_timezone\n"
        "A,Agency,http://a.example,Europe/Berlin\n",
        "stops.txt": "stop_id,stop_name,stop_lat,stop_lon\nS1,One,48.01,9.01\n",
        "routes.txt": "route_id,agency_id,route_short_name,route_type,eligibility_restricted\n"
        f"R1,A,Call,3,{restricted}\n",
        "trips.txt": "route_id,service_id,trip_id,safe_duration_factor,safe_duration_offset\n"
        f"R1,WK,F1,{safe or ','}\n",
        "calendar.txt": "service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,"
        "start_date,end_date\nWK,1,1,1,1,1,0,0,20240101,20241231\n",
        "stop_times.txt": "trip_id,stop_id,stop_sequence,pickup_type,drop_off_type,"
        "start_pickup_drop_off_window,end_pickup_drop_off_window,mean_duration_factor,"
        "mean_duration_offset\nF1,Z,1,2,2,08:00:00,18:00:00,2,2\n",
        "locations.geojson": json.dumps(zones),
    }
    folder = tmp / f"zone{restricted}{'safe' if safe else ''}"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    return build_network(folder)


def test_duration_factor_and_eligibility(tmp_path: Path) -> None:
    berlin = ZoneInfo("Europe/Berlin")
    a, b = (48.005, 9.005), (48.04, 9.04)
    when = _at(9, day=dt.date(2024, 3, 5), tz=berlin)
    open_net = _synthetic_zone_feed(tmp_path, 0)
    (leg,) = plan(open_net, _request(a, Location(*b), when)).itineraries[0].legs
    lat1, lon1, lat2, lon2 = map(math.radians, (*a, *b))
    h = (
        math.sin((lat2 - lat1) / 2) ** 2
        + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    )
    straight = 2 * 6371008.8 * math.asin(math.sqrt(h)) / 8.0 + 300
    assert leg.duration == math.ceil(straight * 2 + 120)  # factor 2, offset 2 minutes
    assert leg.start_time == when
    restricted = _synthetic_zone_feed(tmp_path, 1)
    assert plan(restricted, _request(a, Location(*b), when)).itineraries
    with pytest.raises(PathNotFoundError):
        plan(restricted, _request(a, Location(*b), when, use_eligibility_services=False))
    # outside the window (before 08:00 the ride waits; after 18:00 there is none)
    late = _at(18, 30, day=dt.date(2024, 3, 5), tz=berlin)
    with pytest.raises(PathNotFoundError):
        plan(open_net, _request(a, Location(*b), late))


def test_safe_duration_bounds_the_ride(tmp_path: Path) -> None:
    """trips.txt's safe travel time (factor x drive + offset seconds, OTP 2's time penalty)
    is the arrival the plan relies on; the leg shows the mean (expected) time."""
    berlin = ZoneInfo("Europe/Berlin")
    a, b = (48.005, 9.005), (48.04, 9.04)
    when = _at(9, day=dt.date(2024, 3, 5), tz=berlin)
    net = _synthetic_zone_feed(tmp_path, 0, safe="3,600")
    (doc,) = net.transit.flex.values()
    assert doc["safe_durations"] == {"F1": [3.0, 600.0]}
    lat1, lon1, lat2, lon2 = map(math.radians, (*a, *b))
    h = (
        math.sin((lat2 - lat1) / 2) ** 2
        + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    )
    drive = 2 * 6371008.8 * math.asin(math.sqrt(h)) / 8.0 + 300  # OTP 2's drive without streets
    mean, safe = math.ceil(drive * 2 + 120), math.ceil(drive * 3 + 600)
    assert (mean, safe) == (1891, 3256)
    (leg,) = plan(net, _request(a, Location(*b), when)).itineraries[0].legs
    assert leg.start_time == when
    assert leg.duration == mean  # the expected time (factor 2, offset 2 minutes)
    # arriving by 17:55, the ride leaves its safe time before (and is expected earlier)
    by = when.replace(hour=17, minute=55)
    (back,) = (
        plan(net, PlanRequest(Location(*a), Location(*b), by, arrive_by=True)).itineraries[0].legs
    )
    assert back.start_time == by - dt.timedelta(seconds=safe)
    assert back.end_time == back.start_time + dt.timedelta(seconds=mean)
    # leaving at 17:20 the expected arrival (17:51:31) is inside the window (to 18:00),
    # the safe one (18:14:16) is not: no ride
    with pytest.raises(PathNotFoundError):
        plan(net, _request(a, Location(*b), when.replace(hour=17, minute=20)))
