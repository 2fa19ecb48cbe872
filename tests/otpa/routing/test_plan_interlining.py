"""Staying seated when a vehicle continues as the next trip of its GTFS block (``tiny/beatty``).

FEATURE UNDER TEST: OTP 1.x interlining.  In the sample feed block 1 (service FULLW)
runs AB1 (Beatty Airport 08:00 -> Bullfrog 08:10) and then BFC1 (Bullfrog 08:20 ->
Furnace Creek Resort 09:20); block 2 runs BFC2 then AB2 the other way.  A rider stays
on board through Bullfrog: two legs, the second with ``interlineWithPreviousLeg``,
no transfer counted, one boarding cost, the dwell on board counted as transit time.
AB3_NO_BLOCK / BFC3_NO_BLOCK make the same connection at 14:00 without a block: an
ordinary transfer there.

The block links are derived here from the text files (csv module) with OTP's rule:
trips of one (block_id, service_id) sorted by first departure, each linked to the
next when that one starts where it ends.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections import defaultdict
from pathlib import Path

import pytest
from _plan_helpers import GtfsText, describe, feed_id_of, gtfs_text, hms, raw_id, service_time

from otpa.network import TransportNetwork
from otpa.routing import Itinerary, Location, PlanRequest, TransitPreferences
from otpa.routing.planner import plan
from tests.fixtures.networks import built_network

TZ = "America/Los_Angeles"
#: A Tuesday: service FULLW runs.
DATE = dt.date(2010, 6, 1)


@pytest.fixture(scope="module")
def source(data_root: Path) -> Path:
    return data_root / "tiny" / "beatty" / "sample-feed"


@pytest.fixture(scope="module")
def network(data_root: Path) -> TransportNetwork:
    return built_network(data_root, "tiny/beatty")


@pytest.fixture(scope="module")
def gtfs(source: Path) -> GtfsText:
    return gtfs_text(source)


@pytest.fixture(scope="module")
def feed(network: TransportNetwork, source: Path) -> str:
    return feed_id_of(network, source)


def block_links(gtfs: GtfsText, date: dt.date) -> set[tuple[str, str]]:
    """``(trip, next trip)`` a rider may stay seated through on ``date`` (same stop)."""
    services = gtfs.services_on(date)
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for trip_id, trip in gtfs.trips.items():
        if trip.get("block_id") and trip["service_id"] in services:
            groups[(trip["block_id"], trip["service_id"])].append(trip_id)
    links = set()
    for trips in groups.values():
        trips.sort(key=lambda t: gtfs.stop_times[t][0].departure)
        for a, b in itertools.pairwise(trips):
            end, start = gtfs.stop_times[a][-1], gtfs.stop_times[b][0]
            if end.departure > start.arrival:
                break
            if end.stop_id == start.stop_id:
                links.add((a, b))
    return links


def _plan(
    network: TransportNetwork, feed: str, a: str, b: str, clock: str, *, arrive_by: bool = False
) -> list[Itinerary]:
    result = plan(
        network,
        PlanRequest(
            from_place=Location(label=f"{feed}:{a}"),
            to_place=Location(label=f"{feed}:{b}"),
            date_time=service_time(DATE, hms(clock), TZ),
            arrive_by=arrive_by,
            transit=TransitPreferences(only_transit_trips=True),
        ),
    )
    return list(result.itineraries)


def _clock(when: dt.datetime) -> int:
    return when.hour * 3600 + when.minute * 60 + when.second


def _assert_stays_seated(it: Itinerary, gtfs: GtfsText, first: str, second: str) -> None:
    a, b = gtfs.stop_times[first], gtfs.stop_times[second]
    legs = [leg for leg in it.legs if leg.transit_leg]
    assert len(legs) == 2, describe([it])
    assert [raw_id(leg.trip_id) for leg in legs] == [first, second]
    assert [leg.interline_with_previous_leg for leg in legs] == [False, True]
    stops = [(raw_id(leg.from_place.stop_id), raw_id(leg.to_place.stop_id)) for leg in legs]
    assert stops == [(a[0].stop_id, a[-1].stop_id), (b[0].stop_id, b[-1].stop_id)]
    assert (_clock(legs[0].start_time), _clock(legs[0].end_time)) == (a[0].departure, a[-1].arrival)
    assert (_clock(legs[1].start_time), _clock(legs[1].end_time)) == (b[0].departure, b[-1].arrival)
    # one boarding: no transfer; the dwell on board is transit time, nothing is waiting
    assert it.transfers == 0
    assert it.waiting_time == 0
    assert it.transit_time == b[-1].arrival - a[0].departure
    assert it.duration == b[-1].arrival - a[0].departure


def test_block_links_of_the_feed(gtfs: GtfsText) -> None:
    assert block_links(gtfs, DATE) == {("AB1", "BFC1"), ("BFC2", "AB2")}


def test_stay_seated_through_bullfrog(network: TransportNetwork, gtfs: GtfsText, feed: str) -> None:
    assert ("AB1", "BFC1") in block_links(gtfs, DATE)
    its = _plan(network, feed, "BEATTY_AIRPORT", "FUR_CREEK_RES", "07:50:00")
    # AB1 + BFC1 arrive 09:20; the direct ABBFC1 (one ride too) only at 09:30
    direct = gtfs.first_ride_after(
        DATE, "BEATTY_AIRPORT", "FUR_CREEK_RES", hms("07:50:00"), keep=lambda r: r.trip_id != "AB1"
    )
    assert direct.trip_id == "ABBFC1"
    assert direct.arrival > gtfs.stop_times["BFC1"][-1].arrival
    _assert_stays_seated(its[0], gtfs, "AB1", "BFC1")


def test_stay_seated_the_other_way_arrive_by(
    network: TransportNetwork, gtfs: GtfsText, feed: str
) -> None:
    assert ("BFC2", "AB2") in block_links(gtfs, DATE)
    its = _plan(network, feed, "FUR_CREEK_RES", "BEATTY_AIRPORT", "12:30:00", arrive_by=True)
    _assert_stays_seated(its[0], gtfs, "BFC2", "AB2")


def test_without_a_block_it_is_a_transfer(
    network: TransportNetwork, gtfs: GtfsText, feed: str
) -> None:
    its = _plan(network, feed, "BEATTY_AIRPORT", "FUR_CREEK_RES", "13:50:00")
    first = its[0]
    legs = [leg for leg in first.legs if leg.transit_leg]
    assert [raw_id(leg.trip_id) for leg in legs] == ["AB3_NO_BLOCK", "BFC3_NO_BLOCK"]
    assert [leg.interline_with_previous_leg for leg in legs] == [False, False]
    assert first.transfers == 1
    a, b = gtfs.stop_times["AB3_NO_BLOCK"], gtfs.stop_times["BFC3_NO_BLOCK"]
    assert first.waiting_time == b[0].departure - a[-1].arrival
