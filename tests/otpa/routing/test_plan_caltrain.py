"""Stop-to-stop Caltrain plans (``tiny/transit-only``, no streets): exact times and fares.

Expected rides are looked up in ``caltrain_gtfs.zip`` with the csv module: the
earliest arrival among the direct rides leaving after the requested time
(depart-at), the latest departure among those arriving by it (arrive-by).  For
the two questions asked here a change of train does no better (checked once
with a connection scan over the same stop_times: 16:44 earliest arrival from
16:00; nothing leaving after 17:14 arrives by 18:00).  The fare is the
``fare_attributes.txt`` price of the zone pair's ``fare_rules.txt`` row.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from _plan_helpers import GtfsText, assert_ride, describe, feed_id_of, gtfs_text, service_time

from otpa.network import TransportNetwork
from otpa.routing import Itinerary, Location, PlanRequest
from otpa.routing.planner import plan
from tests.fixtures.networks import built_network

TZ = "America/Los_Angeles"
#: A Wednesday: weekday service WD20090831 (Mon-Fri, 2009-08-31 .. 2019-08-31).
DATE = dt.date(2010, 3, 10)
ORIGIN = "San Francisco Caltrain"
DESTINATION = "Palo Alto Caltrain"


@pytest.fixture(scope="module")
def source(data_root: Path) -> Path:
    return data_root / "tiny" / "transit-only" / "caltrain_gtfs.zip"


@pytest.fixture(scope="module")
def network(data_root: Path) -> TransportNetwork:
    return built_network(data_root, "tiny/transit-only")


@pytest.fixture(scope="module")
def gtfs(source: Path) -> GtfsText:
    text = gtfs_text(source)
    assert text.time_zone == TZ
    assert text.services_on(DATE) == {"WD20090831"}
    return text


@pytest.fixture(scope="module")
def feed(network: TransportNetwork, source: Path) -> str:
    return feed_id_of(network, source)


def _clock(clock: str) -> int:
    h, m = clock.split(":")
    return int(h) * 3600 + int(m) * 60


def _plan(network: TransportNetwork, feed: str, clock: str, *, arrive_by: bool) -> Itinerary:
    result = plan(
        network,
        PlanRequest(
            from_place=Location(label=f"{feed}:{ORIGIN}"),
            to_place=Location(label=f"{feed}:{DESTINATION}"),
            date_time=service_time(DATE, _clock(clock), TZ),
            arrive_by=arrive_by,
        ),
    )
    itinerary = result.itineraries[0]
    assert len(itinerary.legs) == 1, describe(result.itineraries)
    return itinerary


def test_depart_at(network: TransportNetwork, gtfs: GtfsText, feed: str) -> None:
    # 16:00: the bullet leaving 16:09 reaches Palo Alto at 16:44 (before the 16:19 limited)
    itinerary = _plan(network, feed, "16:00", arrive_by=False)
    expected = gtfs.first_ride_after(DATE, ORIGIN, DESTINATION, _clock("16:00"))
    assert_ride(itinerary.legs[0], expected, feed, DATE, TZ, gtfs)
    assert itinerary.legs[0].trip_short_name == gtfs.trips[expected.trip_id]["trip_short_name"]


def test_arrive_by(network: TransportNetwork, gtfs: GtfsText, feed: str) -> None:
    # by 18:00: the bullet leaving 17:14 (arriving 17:49) is the last to make it
    itinerary = _plan(network, feed, "18:00", arrive_by=True)
    expected = gtfs.last_ride_before(DATE, ORIGIN, DESTINATION, _clock("18:00"))
    assert_ride(itinerary.legs[0], expected, feed, DATE, TZ, gtfs)


def test_fare_is_the_zone_pair_price(network: TransportNetwork, gtfs: GtfsText, feed: str) -> None:
    itinerary = _plan(network, feed, "16:00", arrive_by=False)
    fare_id, cents, currency = gtfs.zone_fare(
        gtfs.stops[ORIGIN]["zone_id"], gtfs.stops[DESTINATION]["zone_id"]
    )
    assert itinerary.fare is not None
    regular = itinerary.fare.fare["regular"]
    assert (regular.cents, regular.currency.currency_code) == (cents, currency)
    components = itinerary.fare.details["regular"]
    assert [(c.fare_id, c.price.cents) for c in components] == [(f"{feed}:{fare_id}", cents)]
