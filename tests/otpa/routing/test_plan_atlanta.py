"""Walk + transit plans in central Atlanta (MARTA Blue/Green rail + OSM streets).

Expected rides come from the feed's text files (csv module, frequencies.txt
expanded as ``start + k * headway < end``), never from otpa: given when the
traveller reaches the boarding platform (request time + the access walk), the
leg must be the first ride of the timetable from there to the alighting
platform.

Geography: Vine City (platform 470, eastbound), King Memorial (798,
eastbound), Ashby (485, eastbound) and Georgia State (201, eastbound) are all
served by BLUE and GREEN.  Only BLUE trips are wheelchair accessible
(trips.txt ``wheelchair_accessible``), and only Ashby and Georgia State have
``wheelchair_boarding`` 1.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from _plan_helpers import (
    GtfsText,
    TripRun,
    assert_ride,
    describe,
    feed_id_of,
    gtfs_text,
    raw_id,
    service_time,
    transit_legs,
)

from otpa.network import TransportNetwork
from otpa.routing import (
    AccessibilityPreferences,
    Itinerary,
    ItineraryPreferences,
    Location,
    PlanRequest,
    RouteSpec,
    TransitFilters,
    WheelchairPreferences,
)
from otpa.routing.planner import plan
from tests.fixtures.networks import built_network

TZ = "America/New_York"
#: A Wednesday inside the weekday service (calendar.txt service 5: Mon-Fri,
#: 2021-08-16 .. 2021-12-03, no calendar_dates exception on this day).
DATE = dt.date(2021, 9, 15)
#: ~210 m north of Vine City station.
NEAR_VINE_CITY = Location(lat=33.758491, lon=-84.404276)
#: ~205 m south of King Memorial station.
NEAR_KING_MEMORIAL = Location(lat=33.748114, lon=-84.375885)
#: ~190 m north of Ashby station.
NEAR_ASHBY = Location(lat=33.758166, lon=-84.417526)
#: ~220 m south-east of Georgia State station.
NEAR_GEORGIA_STATE = Location(lat=33.748816, lon=-84.384114)


@pytest.fixture(scope="module")
def source(data_root: Path) -> Path:
    return data_root / "tiny" / "atlanta" / "atlanta-blue-green-line.gtfs.zip"


@pytest.fixture(scope="module")
def network(data_root: Path) -> TransportNetwork:
    return built_network(data_root, "tiny/atlanta")


@pytest.fixture(scope="module")
def gtfs(source: Path) -> GtfsText:
    text = gtfs_text(source)
    assert text.time_zone == TZ
    assert "5" in text.services_on(DATE)
    return text


@pytest.fixture(scope="module")
def feed(network: TransportNetwork, source: Path) -> str:
    return feed_id_of(network, source)


def _at(clock: str) -> dt.datetime:
    h, m = clock.split(":")
    return service_time(DATE, int(h) * 3600 + int(m) * 60, TZ)


def _seconds(when: dt.datetime) -> int:
    """Service-day seconds of ``when`` on DATE."""
    return round(when.timestamp() - service_time(DATE, 0, TZ).timestamp())


def _one_ride(itinerary: Itinerary, shown: str) -> None:
    """WALK, one transit ride, WALK."""
    assert len(itinerary.legs) == 3, shown
    assert itinerary.legs[0].mode == itinerary.legs[2].mode == "WALK", shown
    assert itinerary.legs[1].transit_leg, shown


def _ready(itinerary: Itinerary, requested: dt.datetime) -> int:
    """When the traveller can board: the request time plus the access walk."""
    walk = itinerary.legs[0]
    assert walk.mode == "WALK"
    assert walk.start_time >= requested
    return _seconds(requested) + round(walk.duration)


def test_walk_rail_walk_takes_the_first_train(
    network: TransportNetwork, gtfs: GtfsText, feed: str
) -> None:
    requested = _at("08:00")
    result = plan(
        network,
        PlanRequest(from_place=NEAR_VINE_CITY, to_place=NEAR_KING_MEMORIAL, date_time=requested),
    )
    itinerary = result.itineraries[0]
    shown = describe(result.itineraries)
    _one_ride(itinerary, shown)
    walk_in, ride, walk_out = itinerary.legs
    assert walk_in.to_place.stop_id == ride.from_place.stop_id == f"{feed}:470", shown
    assert walk_out.from_place.stop_id == ride.to_place.stop_id == f"{feed}:798", shown
    assert 100.0 < walk_in.distance < 600.0, shown
    assert 100.0 < walk_out.distance < 600.0, shown
    assert walk_in.end_time <= ride.start_time, shown
    assert walk_out.start_time >= ride.end_time, shown

    expected = gtfs.first_ride_after(DATE, "470", "798", _ready(itinerary, requested))
    assert_ride(ride, expected, feed, DATE, TZ, gtfs)
    assert ride.route == gtfs.routes[expected.route_id]["route_short_name"]
    assert itinerary.transfers == 0


#: Strict mode: only trips and stops marked accessible (OTP 2's onlyConsiderAccessible).
STRICT = WheelchairPreferences(
    enabled=True,
    trip=AccessibilityPreferences(only_consider_accessible=True),
    stop=AccessibilityPreferences(only_consider_accessible=True),
)


@pytest.mark.parametrize("strict", [True, False], ids=["strict", "costs"])
def test_wheelchair_uses_accessible_trips_and_stops(
    network: TransportNetwork, gtfs: GtfsText, feed: str, strict: bool
) -> None:
    requested = _at("08:05")
    result = plan(
        network,
        PlanRequest(
            from_place=NEAR_ASHBY,
            to_place=NEAR_GEORGIA_STATE,
            date_time=requested,
            wheelchair=STRICT if strict else WheelchairPreferences(enabled=True),
            # with costs, the best itinerary (an unknown GREEN trip costs 600 s more)
            itineraries=ItineraryPreferences(num_itineraries=3 if strict else 1),
        ),
    )
    shown = describe(result.itineraries)
    for itinerary in result.itineraries:
        for leg in transit_legs(itinerary):
            trip = gtfs.trips[str(raw_id(leg.trip_id))]
            assert trip["wheelchair_accessible"] == "1", shown
            for place in (leg.from_place, leg.to_place):
                assert gtfs.stops[str(raw_id(place.stop_id))]["wheelchair_boarding"] == "1", shown
    itinerary = result.itineraries[0]
    _one_ride(itinerary, shown)
    ride = itinerary.legs[1]
    ready = _ready(itinerary, requested)

    def accessible(run: TripRun) -> bool:
        return gtfs.trips[run.trip_id]["wheelchair_accessible"] == "1"

    # the check means something: the first train after the walk is not accessible
    anyone = gtfs.first_ride_after(DATE, "485", "201", ready)
    assert gtfs.trips[anyone.trip_id]["wheelchair_accessible"] != "1"
    expected = gtfs.first_ride_after(DATE, "485", "201", ready, keep=accessible)
    assert_ride(ride, expected, feed, DATE, TZ, gtfs)


@pytest.mark.parametrize(("banned", "other"), [("BLUE", "GREEN"), ("GREEN", "BLUE")])
def test_banning_a_route_moves_the_trip_to_the_other_line(
    network: TransportNetwork, gtfs: GtfsText, feed: str, banned: str, other: str
) -> None:
    requested = _at("08:00")
    result = plan(
        network,
        PlanRequest(
            from_place=NEAR_VINE_CITY,
            to_place=NEAR_KING_MEMORIAL,
            date_time=requested,
            filters=TransitFilters(banned_routes=(RouteSpec(name=banned),)),
        ),
    )
    shown = describe(result.itineraries)
    for itinerary in result.itineraries:
        assert all(leg.route_short_name != banned for leg in transit_legs(itinerary)), shown
    itinerary = result.itineraries[0]
    _one_ride(itinerary, shown)
    ride = itinerary.legs[1]
    assert ride.route_short_name == other, shown

    def on_other(run: TripRun) -> bool:
        return gtfs.routes[run.route_id]["route_short_name"] == other

    expected = gtfs.first_ride_after(
        DATE, "470", "798", _ready(itinerary, requested), keep=on_other
    )
    assert_ride(ride, expected, feed, DATE, TZ, gtfs)


def test_start_stop_without_accessibility_data_gets_a_trip(
    network: TransportNetwork, gtfs: GtfsText, feed: str
) -> None:
    # GWCC-CNN Center (796) has no wheelchair_boarding: it costs 600 s, it is not closed
    assert gtfs.stops["796"]["wheelchair_boarding"] == ""
    requested = _at("08:05")

    def request(wheelchair: WheelchairPreferences) -> PlanRequest:
        return PlanRequest(
            from_place=Location(label=f"{feed}:796"),
            to_place=Location(label=f"{feed}:201"),
            date_time=requested,
            wheelchair=wheelchair,
            itineraries=ItineraryPreferences(num_itineraries=1),
        )

    result = plan(network, request(WheelchairPreferences(enabled=True)))
    shown = describe(result.itineraries)
    (itinerary,) = result.itineraries
    (ride,) = transit_legs(itinerary)
    assert ride.from_place.stop_id == f"{feed}:796", shown

    def accessible(run: TripRun) -> bool:
        return gtfs.trips[run.trip_id]["wheelchair_accessible"] == "1"

    expected = gtfs.first_ride_after(DATE, "796", "201", _seconds(requested), keep=accessible)
    assert_ride(ride, expected, feed, DATE, TZ, gtfs)
    # ibi's accessibilityScore: mean of trip (1), from stop (unknown 0.5), to stop (1);
    # the itinerary's is its least accessible leg's
    assert ride.accessibility_score == pytest.approx((1.0 + 0.5 + 1.0) / 3)
    assert itinerary.accessibility_score == ride.accessibility_score
    # strict mode: no boarding at 796
    strict = plan(network, request(STRICT))
    for it in strict.itineraries:
        assert all(leg.from_place.stop_id != f"{feed}:796" for leg in transit_legs(it))
    # no score without wheelchair=true
    plain = plan(network, request(WheelchairPreferences()))
    assert plain.itineraries[0].accessibility_score is None


def test_inaccessible_stop_is_avoided_for_an_accessible_one(
    network: TransportNetwork, gtfs: GtfsText, feed: str
) -> None:
    # to Five Points: its platform 797 is marked inaccessible (2); Georgia State's
    # platform 201, one stop further on the same trains, is accessible (1)
    assert (gtfs.stops["797"]["wheelchair_boarding"], gtfs.stops["201"]["wheelchair_boarding"]) == (
        "2",
        "1",
    )
    five_points = Location(
        lat=float(gtfs.stops["797"]["stop_lat"]), lon=float(gtfs.stops["797"]["stop_lon"])
    )
    requested = _at("08:05")

    def best(wheelchair: WheelchairPreferences) -> Itinerary:
        result = plan(
            network,
            PlanRequest(
                from_place=Location(label=f"{feed}:485"),
                to_place=five_points,
                date_time=requested,
                wheelchair=wheelchair,
                itineraries=ItineraryPreferences(num_itineraries=1),
            ),
        )
        return result.itineraries[0]

    plain = best(WheelchairPreferences())
    (ride,) = transit_legs(plain)
    assert ride.to_place.stop_id == f"{feed}:797", describe([plain])
    assert_ride(
        ride, gtfs.first_ride_after(DATE, "485", "797", _seconds(requested)), feed, DATE, TZ, gtfs
    )

    chair = best(WheelchairPreferences(enabled=True))
    (ride,) = transit_legs(chair)
    assert ride.to_place.stop_id == f"{feed}:201", describe([chair])

    def accessible(run: TripRun) -> bool:
        return gtfs.trips[run.trip_id]["wheelchair_accessible"] == "1"

    expected = gtfs.first_ride_after(DATE, "485", "201", _seconds(requested), keep=accessible)
    assert_ride(ride, expected, feed, DATE, TZ, gtfs)
    assert chair.accessibility_score == ride.accessibility_score == 1.0
