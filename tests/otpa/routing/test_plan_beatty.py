"""Plans on frequency-based routes of the GTFS sample feed (``tiny/beatty``, with OSM).

``frequencies.txt`` runs STBA (Stagecoach -> Airport -> Stagecoach) every 30 min
from 06:00 to 22:00, and CITY1 every 30 or 10 min depending on the time of day.
A trip of a frequency route leaves its first stop at ``start_time + k *
headway_secs`` (before ``end_time``) and keeps the template trip's offsets
from ``stop_times.txt``.  The expected rides are computed that way from the
text files (csv module); the tests also check the arithmetic directly.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from _plan_helpers import (
    GtfsText,
    Ride,
    assert_ride,
    describe,
    feed_id_of,
    gtfs_text,
    hms,
    service_time,
)

from otpa.network import TransportNetwork
from otpa.routing import Itinerary, Location, PlanRequest, TransitPreferences
from otpa.routing.planner import plan
from tests.fixtures.networks import built_network

TZ = "America/Los_Angeles"
#: A Tuesday: service FULLW (every day 2007-01-01 .. 2010-12-31, not 2007-06-04).
DATE = dt.date(2010, 6, 1)


@pytest.fixture(scope="module")
def source(data_root: Path) -> Path:
    return data_root / "tiny" / "beatty" / "sample-feed"


@pytest.fixture(scope="module")
def network(data_root: Path) -> TransportNetwork:
    return built_network(data_root, "tiny/beatty")


@pytest.fixture(scope="module")
def gtfs(source: Path) -> GtfsText:
    text = gtfs_text(source)
    assert text.time_zone == TZ
    assert "FULLW" in text.services_on(DATE)
    return text


@pytest.fixture(scope="module")
def feed(network: TransportNetwork, source: Path) -> str:
    return feed_id_of(network, source)


def _plan(
    network: TransportNetwork,
    feed: str,
    board: str,
    alight: str,
    clock: str,
    *,
    arrive_by: bool = False,
) -> Itinerary:
    result = plan(
        network,
        PlanRequest(
            from_place=Location(label=f"{feed}:{board}"),
            to_place=Location(label=f"{feed}:{alight}"),
            date_time=service_time(DATE, hms(clock), TZ),
            arrive_by=arrive_by,
            transit=TransitPreferences(only_transit_trips=True),
        ),
    )
    itinerary = result.itineraries[0]
    assert len(itinerary.legs) == 1, describe(result.itineraries)
    return itinerary


def _assert_on_frequency_grid(gtfs: GtfsText, ride: Ride) -> None:
    """The ride's departure is ``start + k * headway`` of a frequencies.txt row, shifted."""
    template = gtfs.stop_times[ride.trip_id]
    offset = next(c.departure for c in template if c.stop_id == ride.board) - template[0].departure
    first_stop = ride.departure - offset
    assert any(
        start <= first_stop < end and (first_stop - start) % headway == 0
        for start, end, headway in gtfs.frequencies[ride.trip_id]
    )
    run_time = next(c.arrival for c in template if c.stop_id == ride.alight) - (
        template[0].departure + offset
    )
    assert ride.arrival - ride.departure == run_time


def test_depart_on_a_30_minute_route(network: TransportNetwork, gtfs: GtfsText, feed: str) -> None:
    # STBA leaves Stagecoach at 06:00 + k * 30 min: after 13:05 the next is 13:30 (airport 13:50)
    itinerary = _plan(network, feed, "STAGECOACH", "BEATTY_AIRPORT", "13:05:00")
    expected = gtfs.first_ride_after(DATE, "STAGECOACH", "BEATTY_AIRPORT", hms("13:05:00"))
    assert expected.trip_id == "STBA"
    _assert_on_frequency_grid(gtfs, expected)
    assert_ride(itinerary.legs[0], expected, feed, DATE, TZ, gtfs)
    # the route's fare (fare_rules.txt by route_id)
    _, cents, currency = gtfs.route_fare("STBA")
    assert itinerary.fare is not None
    regular = itinerary.fare.fare["regular"]
    assert (regular.cents, regular.currency.currency_code) == (cents, currency)


def test_arrive_by_on_a_30_minute_route(
    network: TransportNetwork, gtfs: GtfsText, feed: str
) -> None:
    # arrive by 14:00: STBA from 13:30 arrives 13:50; the 14:00 one arrives 14:20
    itinerary = _plan(network, feed, "STAGECOACH", "BEATTY_AIRPORT", "14:00:00", arrive_by=True)
    expected = gtfs.last_ride_before(DATE, "STAGECOACH", "BEATTY_AIRPORT", hms("14:00:00"))
    _assert_on_frequency_grid(gtfs, expected)
    assert_ride(itinerary.legs[0], expected, feed, DATE, TZ, gtfs)


def test_depart_in_a_10_minute_window(network: TransportNetwork, gtfs: GtfsText, feed: str) -> None:
    # CITY1 runs every 10 min from 16:00 to 18:59:59: after 16:03 it leaves Stagecoach at
    # 16:10 and reaches North Ave / D Ave N (+12 min in stop_times.txt) at 16:22
    itinerary = _plan(network, feed, "STAGECOACH", "NADAV", "16:03:00")
    expected = gtfs.first_ride_after(DATE, "STAGECOACH", "NADAV", hms("16:03:00"))
    assert expected.trip_id == "CITY1"
    assert (expected.departure, expected.arrival) == (hms("16:10:00"), hms("16:22:00"))
    _assert_on_frequency_grid(gtfs, expected)
    assert_ride(itinerary.legs[0], expected, feed, DATE, TZ, gtfs)
