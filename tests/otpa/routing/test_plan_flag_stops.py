"""Flag stops along continuous pickup / drop-off segments (tests/fixtures/flag_feed.py).

With no shape the path is the straight line between the stops, so a point a quarter of
the way from S1 (08:00) to S2 (08:10) is passed a quarter of the way into the 10 minutes.
"""

from __future__ import annotations

import datetime as dt
import math
import shutil
import zipfile
from zoneinfo import ZoneInfo

import pytest

from otpa import plan
from otpa.network import TransportNetwork, build_network
from otpa.routing import Location, PlanRequest
from otpa.routing.errors import PathNotFoundError
from otpa.routing.model import Itinerary, Leg
from otpa.routing.preferences import FlexPreferences, ItineraryPreferences
from otpa.routing.street_router import StreetOptions, snap_point, street_path
from otpa.testing.demo import demo_city_dir
from tests.fixtures.flag_feed import write_flag_feed

BERLIN = ZoneInfo("Europe/Berlin")
DAY = dt.date(2024, 3, 5)  # a Tuesday
#: 0.0005 degrees of latitude off the line: 55.6 m, walked in ceil(55.6 / 1.33) s
OFF = 0.0005
WALK_S = math.ceil(2 * 6371008.8 * math.asin(math.sin(math.radians(OFF) / 2)) / 1.33)


@pytest.fixture(scope="module")
def net(tmp_path_factory: pytest.TempPathFactory) -> TransportNetwork:
    return build_network(write_flag_feed(tmp_path_factory.mktemp("flag")))


def _at(h: int, m: int = 0, s: int = 0) -> dt.datetime:
    return dt.datetime(DAY.year, DAY.month, DAY.day, h, m, tzinfo=BERLIN) + dt.timedelta(seconds=s)


#: a quarter of the way from S1 to S2 (passed at 08:02:30 by T1), half way from S3 to S4
NEAR_1 = (48.0 + OFF, 9.005)
NEAR_3 = (48.0 - OFF, 9.05)


def _plan(
    net: TransportNetwork, a: Location, b: Location, when: dt.datetime, **kw: object
) -> list[Itinerary]:
    buffer = kw.pop("buffer", 100.0)
    flex = FlexPreferences(flag_stop_buffer_size=buffer)  # type: ignore[arg-type]
    return plan(net, PlanRequest(a, b, when, flex=flex, **kw)).itineraries  # type: ignore[arg-type]


def _stop(net: TransportNetwork, stop: str) -> Location:
    return Location(label=f"flag:{stop}")


def _is_flag(leg: Leg) -> bool:
    return "FLAG_STOP" in (leg.from_place.board_alight_type, leg.to_place.board_alight_type)


def _flagged(its: list[Itinerary]) -> list[Itinerary]:
    return [it for it in its if any(_is_flag(leg) for leg in it.legs)]


def _bus(it: Itinerary) -> Leg:
    (bus,) = [leg for leg in it.legs if leg.transit_leg]
    return bus


def test_board_along_the_route(net: TransportNetwork) -> None:
    shown = ItineraryPreferences(show_intermediate_stops=True)
    its = _flagged(_plan(net, Location(*NEAR_1), _stop(net, "S4"), _at(8), itineraries=shown))
    walk, bus = its[0].legs
    assert walk.mode == "WALK"
    assert (walk.start_time, walk.end_time) == (_at(8, 2, 30 - WALK_S), _at(8, 2, 30))
    assert bus.trip_id is not None
    assert bus.trip_id.endswith(":T1")
    assert bus.start_time == _at(8, 2, 30)  # 08:00 + 1/4 of 10 minutes
    assert bus.end_time == _at(8, 30)
    place = bus.from_place
    assert place.board_alight_type == "FLAG_STOP"
    assert place.stop_id is None
    assert (round(place.lat, 6), round(place.lon, 6)) == (48.0, 9.005)
    assert place.name == "F flag stop"  # no streets to name it after
    assert bus.flex_flag_stop_pickup_message == "Wave to the driver"
    assert str(bus.to_place.stop_id).endswith(":S4")
    # from the point along the line to S4: 0.055 degrees of longitude at 48 N
    along = 0.055 * math.radians(1) * 6371008.8 * math.cos(math.radians(48))
    assert bus.distance == pytest.approx(along, rel=1e-4)
    stops = [str(s.stop_id).split(":")[-1] for s in bus.intermediate_stops or ()]
    assert stops == ["S2", "S3"]


def test_alight_along_the_route(net: TransportNetwork) -> None:
    its = _flagged(_plan(net, _stop(net, "S1"), Location(*NEAR_3), _at(7, 58)))
    bus, walk = its[0].legs
    assert str(bus.from_place.stop_id).endswith(":S1")
    assert bus.start_time == _at(8)
    assert bus.end_time == _at(8, 25)  # 08:20 + 1/2 of 10 minutes
    assert bus.to_place.board_alight_type == "FLAG_STOP"
    assert (round(bus.to_place.lat, 6), round(bus.to_place.lon, 6)) == (48.0, 9.05)
    assert walk.end_time == _at(8, 25, WALK_S)


@pytest.mark.parametrize("arrive_by", [False, True])
def test_flag_to_flag_is_one_leg(net: TransportNetwork, arrive_by: bool) -> None:
    when = _at(8, 30) if arrive_by else _at(7, 55)
    its = _flagged(_plan(net, Location(*NEAR_1), Location(*NEAR_3), when, arrive_by=arrive_by))
    walk_in, bus, walk_out = its[0].legs
    assert bus.trip_id is not None
    assert bus.trip_id.endswith(":T1")
    assert (bus.start_time, bus.end_time) == (_at(8, 2, 30), _at(8, 25))
    assert bus.from_place.board_alight_type == bus.to_place.board_alight_type == "FLAG_STOP"
    assert walk_in.start_time == _at(8, 2, 30 - WALK_S)
    assert walk_out.end_time == _at(8, 25, WALK_S)


def test_stop_times_override_and_no_buffer(net: TransportNetwork) -> None:
    # after T1 has passed: T2 does not pick up on its first segment (stop_times.txt)
    late = _flagged(_plan(net, Location(*NEAR_1), _stop(net, "S4"), _at(8, 5)))
    assert not any(_bus(it).from_place.board_alight_type == "FLAG_STOP" for it in late)
    # without a buffer there are no flag stops
    try:
        its = _plan(net, Location(*NEAR_1), _stop(net, "S4"), _at(8), buffer=0.0)
    except PathNotFoundError:
        its = []
    assert not _flagged(its)


@pytest.mark.parametrize("arrive_by", [False, True])
def test_short_rides_without_a_stop_between(net: TransportNetwork, arrive_by: bool) -> None:
    """Within one segment (1/4 -> 3/4 of S1 -> S2) and across one stop (S2 -> 1/2 of S2 ->
    S3): no ride between stops for RAPTOR, an itinerary of its own."""
    near_s1b = (48.0 - OFF, 9.015)  # 3/4 of S1 -> S2: 08:07:30
    near_2 = (48.0 - OFF, 9.03)  # 1/2 of S2 -> S3: 08:15:00
    for to, ends in ((near_s1b, _at(8, 7, 30)), (near_2, _at(8, 15))):
        when = ends + dt.timedelta(seconds=WALK_S) if arrive_by else _at(7, 55)
        its = _flagged(_plan(net, Location(*NEAR_1), Location(*to), when, arrive_by=arrive_by))
        walk_in, bus, walk_out = its[0].legs
        assert (bus.start_time, bus.end_time) == (_at(8, 2, 30), ends)
        assert bus.from_place.board_alight_type == bus.to_place.board_alight_type == "FLAG_STOP"
        assert (walk_in.start_time, walk_out.end_time) == (
            _at(8, 2, 30 - WALK_S),
            ends + dt.timedelta(seconds=WALK_S),
        )
        # the path from point to point: a quarter (half, then half) of 0.02 degrees of lon
        along = (to[1] - NEAR_1[1]) * math.radians(1) * 6371008.8 * math.cos(math.radians(48))
        assert bus.distance == pytest.approx(along, rel=1e-4)


@pytest.fixture(scope="module")
def streets(tmp_path_factory: pytest.TempPathFactory) -> TransportNetwork:
    """The feed over the demo city's streets (S1 at 53.30 N 4.19 E, S2 2 km east)."""
    root = tmp_path_factory.mktemp("flag-streets")
    gtfs = write_flag_feed(root / "gtfs", 53.30, 4.19)
    with zipfile.ZipFile(root / "flag.gtfs.zip", "w") as zf:
        for f in sorted(gtfs.iterdir()):
            zf.write(f, f.name)
    shutil.rmtree(gtfs)
    (root / "demo-city.osm").symlink_to(demo_city_dir() / "demo-city.osm")
    return build_network(root)


def test_walks_to_the_flag_stop_over_the_streets(streets: TransportNetwork) -> None:
    a, b = (53.3006, 4.195), (53.2994, 4.205)  # 1/4 and 3/4 of the way from S1 to S2
    its = _flagged(_plan(streets, Location(*a), Location(*b), _at(7, 55), buffer=150.0))
    walk_in, bus, walk_out = its[0].legs
    assert (bus.start_time, bus.end_time) == (_at(8, 2, 30), _at(8, 7, 30))
    # the walk is the street path to the point on the route, named after its street
    flag = bus.from_place
    snap_a = snap_point(streets, *a, mode="WALK", max_distance_m=1000.0)
    snap_p = snap_point(streets, flag.lat, flag.lon, mode="WALK", max_distance_m=1000.0)
    assert snap_a is not None
    assert snap_p is not None
    walk = StreetOptions.from_request(PlanRequest(None, None, _at(8)), "WALK")
    path = street_path(streets, snap_a, snap_p, walk)
    assert path is not None
    assert walk_in.end_time - walk_in.start_time == dt.timedelta(seconds=math.ceil(path.duration_s))
    assert walk_in.distance == pytest.approx(path.distance_m, abs=0.01)
    assert walk_in.steps  # turn-by-turn, as any street leg
    assert flag.name not in ("F flag stop", "Origin")
    assert walk_out.start_time == bus.end_time
