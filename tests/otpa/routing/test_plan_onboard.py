"""Depart on board (``startTransitTripId``) on the MMRI case 2f feed (``tiny/mmri/2f``).

FEATURE UNDER TEST: OTP 1.x ``OnBoardDepartService``.  The intercity runs 2f1 00:01
-> 2f3 00:04 (stop_times.txt).  On board at 00:02 without an origin point, the rider
is a third of the way along that hop (interpolated between the stops'
coordinates) and reaches 2f3 on time; with an origin point the position comes from
the point and the trip runs on from the requested time with its running time.
Itinerary ``transfers`` counts the boardings (the on-board start is none, and OTP
does not subtract one then).  Expected values are read from the text files here.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from _plan_helpers import GtfsText, feed_id_of, gtfs_text, raw_id

from otpa.network import BuildConfig, TransportNetwork, build_network
from otpa.routing import Location, PlanRequest, WalkPreferences
from otpa.routing.errors import InvalidRequestError, PathNotFoundError
from otpa.routing.planner import plan

AMS = ZoneInfo("Europe/Amsterdam")
TRIP = "2f|intercity"


@pytest.fixture(scope="module")
def folder(data_root: Path) -> Path:
    return data_root / "tiny" / "mmri" / "2f"


@pytest.fixture(scope="module")
def network(folder: Path) -> TransportNetwork:
    return build_network(folder, config=BuildConfig(max_transfer_distance_m=0.0))


@pytest.fixture(scope="module")
def gtfs(folder: Path) -> GtfsText:
    return gtfs_text(folder)


def _at(seconds: int) -> dt.datetime:
    return dt.datetime(2014, 1, 1, tzinfo=AMS) + dt.timedelta(seconds=seconds)


def _request(
    network: TransportNetwork, folder: Path, to: str, seconds: int, **kw: object
) -> PlanRequest:
    feed = feed_id_of(network, folder)
    return PlanRequest(
        from_place=None,
        to_place=Location(label=f"{feed}:{to}"),
        date_time=_at(seconds),
        walk=WalkPreferences(board_cost=30.0),
        start_transit_trip_id=f"{feed}:{TRIP}",
        **kw,  # type: ignore[arg-type]
    )


def test_on_board_without_a_point(network: TransportNetwork, folder: Path, gtfs: GtfsText) -> None:
    a, b = gtfs.stop_times[TRIP]  # the intercity's only hop
    now = a.departure + 60
    assert a.departure <= now < b.arrival
    result = plan(network, _request(network, folder, b.stop_id, now))
    it = result.itineraries[0]
    (leg,) = it.legs
    assert raw_id(leg.trip_id) == TRIP
    assert (leg.start_time, leg.end_time) == (_at(now), _at(b.arrival))
    assert raw_id(leg.to_place.stop_id) == b.stop_id
    # a third of the hop, interpolated between the two stops
    share = (now - a.departure) / (b.arrival - a.departure)
    lat_a, lat_b = (
        float(gtfs.stops[a.stop_id]["stop_lat"]),
        float(gtfs.stops[b.stop_id]["stop_lat"]),
    )
    assert leg.from_place.lat == pytest.approx(lat_a + share * (lat_b - lat_a), abs=1e-9)
    assert leg.from_place.stop_id is None
    assert result.from_place.lat == pytest.approx(leg.from_place.lat)
    # no boarding, no board cost, nothing but riding
    assert it.transfers == 0
    assert it.generalized_cost == b.arrival - now


def test_transfers_count_boardings_after_the_start(
    network: TransportNetwork, folder: Path, gtfs: GtfsText
) -> None:
    # MMRI 2f1: ride on to 2f3, then 2f|slt|2 to 2f2: one boarding, one transfer (OTP)
    result = plan(
        network, _request(network, folder, "2f2", gtfs.stop_times[TRIP][0].departure + 60)
    )
    it = result.itineraries[0]
    assert [raw_id(leg.trip_id) for leg in it.legs] == [TRIP, "2f|slt|2"]
    assert it.transfers == 1


def test_on_board_at_a_point(network: TransportNetwork, folder: Path, gtfs: GtfsText) -> None:
    a, b = gtfs.stop_times[TRIP]
    lat_a, lat_b = (
        float(gtfs.stops[a.stop_id]["stop_lat"]),
        float(gtfs.stops[b.stop_id]["stop_lat"]),
    )
    lon = float(gtfs.stops[a.stop_id]["stop_lon"])
    now = a.departure + 60
    req = _request(network, folder, b.stop_id, now)
    req = dataclasses.replace(req, from_place=Location(lat=lat_a + 0.75 * (lat_b - lat_a), lon=lon))
    (leg,) = plan(network, req).itineraries[0].legs
    # three quarters along: a quarter of the hop's running time is left from now
    rest = round(0.25 * (b.arrival - a.departure))
    assert (leg.start_time, leg.end_time) == (_at(now), _at(now + rest))


def test_unknown_trip(network: TransportNetwork, folder: Path) -> None:
    req = dataclasses.replace(
        _request(network, folder, "2f2", 120), start_transit_trip_id="2f:no-such-trip"
    )
    with pytest.raises(InvalidRequestError) as err:
        plan(network, req)
    assert err.value.parameter == "startTransitTripId"


def test_trip_not_running_then(network: TransportNetwork, folder: Path, gtfs: GtfsText) -> None:
    after = gtfs.stop_times[TRIP][-1].arrival + 60
    with pytest.raises(PathNotFoundError, match="not running"):
        plan(network, _request(network, folder, "2f2", after))
