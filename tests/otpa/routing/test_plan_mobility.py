"""Bike rental, free-floating vehicles with geofencing, park/bike/kiss and ride on the demo city.

The demo city's OSM data has two bike-share stations (Central Station Bikes, University
Bikes), a park-and-ride lot (Westgate P+R) and a bike parking (University Bike Parking).
Expected times are rebuilt here from independent street paths between the places
(:func:`otpa.routing.street_router.street_path`) plus OTP 1.x's switch times: renting
60 s, returning 30 s, parking a car 120 s, a bike 60 s.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from otpa import plan
from otpa.mobility import (
    FreeVehicles,
    GeofencingZone,
    GeofencingZones,
    RentalSnapshot,
    RentalStations,
    SystemInformation,
    ZoneRule,
    mobility_store_for,
)
from otpa.network import TransportNetwork
from otpa.routing import Itinerary, Location, PlanRequest
from otpa.routing.engine import street_options
from otpa.routing.parse import parse_modes, rental_preferences
from otpa.routing.street_router import snap_point, street_path

WHEN = dt.datetime(2026, 3, 3, 8, 0)
NEAR_CENTRAL = (53.2995, 4.1995)  # 85 m from Central Station Bikes
NEAR_UNIVERSITY = (53.3065, 4.2110)
WEST = (53.2960, 4.1850)  # near Westgate P+R


@pytest.fixture(scope="module")
def net() -> Iterator[TransportNetwork]:
    from otpa.testing.demo import demo_network

    network = demo_network()  # a network object of its own: its rental store is this test's
    yield network
    store = mobility_store_for(network)
    for source in ("test-stations", "test-vehicles"):
        store.remove(source)


def _request(modes: str, a: tuple[float, float], b: tuple[float, float], **kw: Any) -> PlanRequest:
    m = parse_modes(modes)
    rental = rental_preferences(m, kw.pop("companies", ()))
    req = PlanRequest(
        Location(lat=a[0], lon=a[1]), Location(lat=b[0], lon=b[1]), WHEN, modes=m, rental=rental
    )
    if rental.park_and_ride or rental.kiss_and_ride or rental.bike_park:
        req = dataclasses.replace(
            req, transit=dataclasses.replace(req.transit, only_transit_trips=True)
        )
    return dataclasses.replace(req, **kw)


def _vertex(net: TransportNetwork, lat: float, lon: float) -> int:
    """A station's street vertex: the nearer end of the nearest edge a cyclist may use."""
    s = snap_point(net, lat, lon, mode="BICYCLE")
    assert s is not None
    assert net.street is not None
    e = s.edge
    return int(net.street.edge_from[e] if s.fraction < 0.5 else net.street.edge_to[e])


def _feature(net: TransportNetwork, kind: str, name: str) -> tuple[float, float]:
    (f,) = [f for f in net.features[kind] if f["name"] == name]
    return float(f["lat"]), float(f["lon"])


def _modes(it: Itinerary) -> list[str]:
    return [leg.mode for leg in it.legs]


def _contiguous(it: Itinerary) -> None:
    for a, b in zip(it.legs, it.legs[1:], strict=False):
        assert a.end_time <= b.start_time
        assert a.to_place.lat == pytest.approx(b.from_place.lat, abs=1e-6)


def _decode(points: str) -> np.ndarray:
    """Google polyline decoding (independent of otpa's encoder)."""
    out, idx, lat, lon = [], 0, 0, 0
    while idx < len(points):
        vals = []
        for _ in range(2):
            shift = result = 0
            while True:
                b = ord(points[idx]) - 63
                idx += 1
                result |= (b & 0x1F) << shift
                shift += 5
                if b < 0x20:
                    break
            vals.append(~(result >> 1) if result & 1 else result >> 1)
        lat += vals[0]
        lon += vals[1]
        out.append((lat / 1e5, lon / 1e5))
    return np.array(out)


# ------------------------------------------------------------------ docked bike rental
def test_bicycle_rent_picks_up_and_drops_off_at_the_osm_stations(net: TransportNetwork) -> None:
    req = _request("BICYCLE_RENT", NEAR_CENTRAL, NEAR_UNIVERSITY)
    (it,) = plan(net, req).itineraries
    assert _modes(it) == ["WALK", "BICYCLE", "WALK"]
    walk1, bike, walk2 = it.legs
    assert [leg.rented_bike for leg in it.legs] == [False, True, False]
    assert bike.from_place.name == "Central Station Bikes"
    assert bike.to_place.name == "University Bikes"
    assert bike.from_place.vertex_type == "BIKESHARE"
    assert bike.to_place.vertex_type == "BIKESHARE"
    assert bike.from_place.networks == ("DemoBike",)
    assert walk1.to_place.vertex_type == "BIKESHARE"
    _contiguous(it)
    # the ride: the street path between the stations' vertices, plus renting and returning
    p = _vertex(net, *_feature(net, "bike_rental", "Central Station Bikes"))
    d = _vertex(net, *_feature(net, "bike_rental", "University Bikes"))
    ride = street_path(net, p, d, street_options(req, "BICYCLE"))
    assert ride is not None
    assert bike.duration == round(ride.duration_s) + 60 + 30
    assert bike.distance == pytest.approx(ride.distance_m, abs=0.01)
    walk = street_path(net, d, snap_point(net, *NEAR_UNIVERSITY, mode="WALK"),  # type: ignore[arg-type]
                       street_options(req, "WALK"))  # fmt: skip
    assert walk is not None
    assert walk2.duration == round(walk.duration_s)
    # renting beats walking the whole way
    (walking,) = plan(net, _request("WALK", NEAR_CENTRAL, NEAR_UNIVERSITY)).itineraries
    assert it.duration < walking.duration


def test_bike_switch_time_and_cost_apply_at_both_ends(net: TransportNetwork) -> None:
    base = _request("BICYCLE_RENT", NEAR_CENTRAL, NEAR_UNIVERSITY)
    slow = dataclasses.replace(
        base, bike=dataclasses.replace(base.bike, switch_time_s=45, switch_cost=100.0)
    )
    (a,) = plan(net, base).itineraries
    (b,) = plan(net, slow).itineraries
    assert b.legs[1].duration == a.legs[1].duration + 2 * 45
    # the switch cost is added; the switch time costs nothing more than its time
    assert b.generalized_cost == pytest.approx((a.generalized_cost or 0) + 2 * 100.0)


def _stations(net: TransportNetwork, rows: list[dict[str, Any]]) -> None:
    snap = RentalSnapshot(
        network="TestBikes",
        kind="bike-rental",
        system=SystemInformation(system_id="test", name="Test Bikes"),
        stations=RentalStations.from_rows(rows),
    )
    mobility_store_for(net).publish("test-stations", snap)


def test_an_empty_station_is_skipped_and_a_full_one_not_returned_to(net: TransportNetwork) -> None:
    central = _feature(net, "bike_rental", "Central Station Bikes")
    uni = _feature(net, "bike_rental", "University Bikes")
    rows = [
        {"id": "c", "name": "Central", "network": "TestBikes", "lat": central[0],
         "lon": central[1], "vehicles_available": 0, "spaces_available": 5},
        {"id": "m", "name": "Market", "network": "TestBikes", "lat": 53.2990,
         "lon": 4.2030, "vehicles_available": 4, "spaces_available": 5},
        {"id": "u", "name": "Uni", "network": "TestBikes", "lat": uni[0], "lon": uni[1],
         "vehicles_available": 2, "spaces_available": 0},
        {"id": "u2", "name": "Uni North", "network": "TestBikes", "lat": 53.3072,
         "lon": 4.2090, "vehicles_available": 2, "spaces_available": 3},
    ]  # fmt: skip
    try:
        _stations(net, rows)
        req = _request("BICYCLE_RENT", NEAR_CENTRAL, NEAR_UNIVERSITY)
        (it,) = plan(net, req).itineraries
        bike = it.legs[1]
        assert bike.rented_bike
        assert (bike.from_place.name, bike.to_place.name) == ("Market", "Uni North")
        assert bike.from_place.bike_share_id == "m"
        assert bike.from_place.networks == ("TestBikes",)
        # with a bike at Central and a dock at Uni, the nearer stations are used
        rows[0]["vehicles_available"] = 3
        rows[2]["spaces_available"] = 4
        _stations(net, rows)
        (it,) = plan(net, req).itineraries
        assert (it.legs[1].from_place.name, it.legs[1].to_place.name) == ("Central", "Uni")
        # a station that does not rent (allowPickup false) is skipped too
        rows[0]["is_renting"] = False
        _stations(net, rows)
        (it,) = plan(net, req).itineraries
        assert it.legs[1].from_place.name == "Market"
        # companies: only the named rental networks
        other = _request("BICYCLE_RENT", NEAR_CENTRAL, NEAR_UNIVERSITY, companies=["Nobody"])
        (it,) = plan(net, other).itineraries
        assert _modes(it) == ["WALK"]
    finally:
        mobility_store_for(net).remove("test-stations")


# ----------------------------------------------------------- free-floating, geofencing
def _vehicle(net: TransportNetwork, zones: GeofencingZones) -> None:
    snap = RentalSnapshot(
        network="TestFloat",
        kind="bike-rental",
        system=SystemInformation(system_id="float", name="Floating"),
        vehicles=FreeVehicles(
            ids=("v1",),
            network=("TestFloat",),
            vehicle_type_id=(None,),
            lat=np.array([NEAR_CENTRAL[0]]),
            lon=np.array([NEAR_CENTRAL[1] + 0.0003]),
            form_factor=("BICYCLE",),
            propulsion=("human",),
            current_range_m=np.array([np.nan]),
            is_reserved=np.array([False]),
            is_disabled=np.array([False]),
        ),
        zones=zones,
    )
    mobility_store_for(net).publish("test-vehicles", snap)


def _square(lat: float, lon: float, half: float) -> GeofencingZone:
    ring = np.array(
        [
            (lon - half, lat - half),
            (lon + half, lat - half),
            (lon + half, lat + half),
            (lon - half, lat + half),
            (lon - half, lat - half),
        ]
    )
    rule = ZoneRule(ride_through_allowed=False, ride_end_allowed=False)
    return GeofencingZone(
        "no ride", ((ring,),), (rule,), (lon - half, lat - half, lon + half, lat + half)
    )


def test_a_free_floating_bike_avoids_a_no_ride_zone(net: TransportNetwork) -> None:
    far = (53.3120, 4.2200)
    try:
        _vehicle(net, GeofencingZones())
        req = _request("BICYCLE_RENT", NEAR_CENTRAL, far)
        (free,) = plan(net, req).itineraries
        rides = [leg for leg in free.legs if leg.rented_bike]
        assert [leg.from_place.name for leg in rides] == ["v1"]
        pts = _decode(rides[0].leg_geometry.points)
        mid = pts[len(pts) // 2]
        zone = _square(float(mid[0]), float(mid[1]), 0.0012)
        assert zone.contains(pts[:, 0], pts[:, 1]).any()  # the free ride crosses the zone
        _vehicle(net, GeofencingZones((zone,)))
        (fenced,) = plan(net, req).itineraries
        rides = [leg for leg in fenced.legs if leg.rented_bike]
        assert rides, _modes(fenced)
        pts = _decode(rides[0].leg_geometry.points)
        assert not zone.contains(pts[:, 0], pts[:, 1]).any()
        assert fenced.duration >= free.duration
    finally:
        mobility_store_for(net).remove("test-vehicles")


# ------------------------------------------------------------------ with transit
def test_park_and_ride_parks_at_the_lot_then_boards_transit(net: TransportNetwork) -> None:
    req = _request("CAR_PARK,TRANSIT", WEST, NEAR_UNIVERSITY)
    its = plan(net, req).itineraries
    assert its
    lot = _feature(net, "park_and_ride", "Westgate P+R")
    for it in its:
        assert it.legs[0].mode == "CAR"
        assert it.legs[0].to_place.name == "Westgate P+R"
        assert it.legs[1].mode == "WALK"
        assert any(leg.transit_leg for leg in it.legs)
        _contiguous(it)
    drive = street_path(
        net,
        snap_point(net, *WEST, mode="CAR"),  # type: ignore[arg-type]
        _vertex(net, *lot),
        street_options(req, "CAR"),
    )
    assert drive is not None
    assert its[0].legs[0].duration == round(drive.duration_s) + 120
    # without the P+R qualifier the same request walks to transit
    walk = plan(net, _request("TRANSIT,WALK", WEST, NEAR_UNIVERSITY)).itineraries
    assert all(it.legs[0].mode == "WALK" for it in walk)


def test_kiss_and_ride_is_driven_to_a_stop(net: TransportNetwork) -> None:
    its = plan(net, _request("CAR,TRANSIT", WEST, NEAR_UNIVERSITY)).itineraries
    assert its
    for it in its:
        assert it.legs[0].mode == "CAR"
        first_ride = next(i for i, leg in enumerate(it.legs) if leg.transit_leg)
        assert {leg.mode for leg in it.legs[:first_ride]} <= {"CAR", "WALK"}


def test_bike_and_ride_parks_the_bike(net: TransportNetwork) -> None:
    its = plan(net, _request("BICYCLE_PARK,TRANSIT", WEST, NEAR_UNIVERSITY)).itineraries
    assert its
    for it in its:
        assert it.legs[0].mode == "BICYCLE"
        assert it.legs[0].to_place.name == "University Bike Parking"
        assert it.legs[0].to_place.vertex_type == "BIKEPARK"
        assert not any(leg.mode == "BICYCLE" for leg in it.legs[1:])


def _with_limit(req: PlanRequest, limit_s: int) -> PlanRequest:
    car = dataclasses.replace(req.car, max_pre_transit_time_s=limit_s)
    return dataclasses.replace(req, car=car)


def _legs(it: Itinerary) -> list[tuple[str, float, str | None]]:
    return [(leg.mode, leg.duration, leg.to_place.name) for leg in it.legs]


def test_max_pre_transit_time_is_soft_and_counts_the_walk(net: TransportNetwork) -> None:
    """OTP 1.x: every street second before boarding (drive *and* walk) counts; past the
    limit the trip costs ``preTransitPenalty`` 300 once plus 10 per second over."""
    req = _request("CAR_PARK,TRANSIT", WEST, NEAR_UNIVERSITY)
    base = plan(net, req).itineraries[0]  # within the default 1800 s
    station = base.legs[2].from_place
    assert base.legs[0].mode == "CAR"
    assert base.legs[2].mode == "RAIL"
    # independently: the drive to the lot and the walk from it to the boarding stop
    lot = _vertex(net, *_feature(net, "park_and_ride", "Westgate P+R"))
    drive = street_path(
        net, snap_point(net, *WEST, mode="CAR"), lot, street_options(req, "CAR")  # type: ignore[arg-type]
    )
    (stop,) = np.flatnonzero(net.transit.stops["name"].to_numpy() == station.name)
    walk = street_path(net, lot, int(net.stop_vertex[stop]), street_options(req, "WALK"))
    assert drive is not None
    assert walk is not None
    pre = drive.duration_s + walk.duration_s
    assert (drive.duration_s, walk.duration_s) == (44.0, 145.0)
    # the drive alone is within 60 s, the drive and the walk are not: penalized
    for limit in (60, 30):
        its = plan(net, _with_limit(req, limit)).itineraries
        same = [it for it in its if _legs(it) == _legs(base)]
        assert len(same) == 1
        assert same[0].generalized_cost is not None
        assert base.generalized_cost is not None
        extra = same[0].generalized_cost - base.generalized_cost
        assert extra == pytest.approx(300.0 + 10.0 * (pre - limit), abs=1e-6)
    # at the limit exactly: no penalty
    its = plan(net, _with_limit(req, int(pre))).itineraries
    same = [it for it in its if _legs(it) == _legs(base)]
    assert same[0].generalized_cost == pytest.approx(base.generalized_cost, abs=1e-9)


def _drive_reluctances(req: PlanRequest, time_r: float, distance_r: float) -> PlanRequest:
    car = dataclasses.replace(
        req.car, drive_time_reluctance=time_r, drive_distance_reluctance=distance_r
    )
    return dataclasses.replace(req, car=car)


@pytest.mark.parametrize(
    ("time_r", "distance_r"), [(3.0, 0.0), (0.0, 5.0), (2.0, 1.5), (-1.0, 0.0)]
)
def test_drive_reluctances_weigh_the_drive_to_the_lot(
    net: TransportNetwork, time_r: float, distance_r: float
) -> None:
    """ibi OTP 1.x: each driven edge costs ``driveTimeReluctance`` x its time plus
    ``driveDistanceReluctance`` x its length on top (values <= 0 are off)."""
    req = _request("CAR_PARK,TRANSIT", WEST, NEAR_UNIVERSITY)
    base = plan(net, req).itineraries
    weighted = plan(net, _drive_reluctances(req, time_r, distance_r)).itineraries
    # the drive to the only lot, independently: its edges' lengths and car times
    lot = _feature(net, "park_and_ride", "Westgate P+R")
    drive = street_path(
        net,
        snap_point(net, *WEST, mode="CAR"),  # type: ignore[arg-type]
        _vertex(net, *lot),
        street_options(req, "CAR"),
    )
    assert drive is not None
    assert net.street is not None
    edges = np.asarray(drive.edges)
    share = np.ones(edges.size)
    share[0] -= drive.start_fraction
    share[-1] -= 1.0 - drive.end_fraction
    length = np.asarray(net.street.edge_length_m)[edges] * share
    speed = np.minimum(np.asarray(net.street.edge_car_speed_mps)[edges], req.car.speed_mps)
    extra = max(time_r, 0.0) * float((length / speed).sum()) + max(distance_r, 0.0) * float(
        length.sum()
    )
    assert extra == 0.0 or extra > 50.0
    assert len(weighted) == len(base)
    for a, b in zip(base, weighted, strict=True):
        assert [(leg.mode, leg.duration) for leg in b.legs] == [
            (leg.mode, leg.duration) for leg in a.legs
        ]
        assert b.legs[0].distance == pytest.approx(drive.distance_m, abs=1e-3)
        assert a.generalized_cost is not None
        assert b.generalized_cost is not None
        assert b.generalized_cost - a.generalized_cost == pytest.approx(extra, abs=1e-6)


def _shortest_drive(its: list[Itinerary]) -> float:
    return min(it.legs[0].distance for it in its if it.legs[0].mode == "CAR")


@pytest.mark.parametrize(("time_r", "distance_r"), [(0.0, 5.0), (20.0, 0.0)])
def test_expensive_driving_makes_kiss_and_ride_drop_off_sooner(
    net: TransportNetwork, time_r: float, distance_r: float
) -> None:
    req = _request("CAR,TRANSIT", WEST, NEAR_UNIVERSITY)
    base = plan(net, req).itineraries
    weighted = plan(net, _drive_reluctances(req, time_r, distance_r)).itineraries
    assert base
    assert weighted
    assert _shortest_drive(weighted) < _shortest_drive(base) - 1000.0
    # the weighted cost of each itinerary covers its drive's extra distance cost
    for it in weighted:
        car = it.legs[0]
        assert car.mode == "CAR"
        assert it.generalized_cost is not None
        assert it.generalized_cost > distance_r * car.distance


def test_max_pre_transit_time_penalizes_the_long_kiss_and_ride_drives(
    net: TransportNetwork,
) -> None:
    req = _request("CAR,TRANSIT", WEST, NEAR_UNIVERSITY)
    base = {tuple(_legs(it)): it for it in plan(net, req).itineraries}
    capped = plan(net, _with_limit(req, 240)).itineraries
    assert capped
    compared = penalized = 0
    for it in capped:
        before = base.get(tuple(_legs(it)))
        if before is None:
            continue
        compared += 1
        drive = it.legs[0].duration - 120  # the drop-off takes 120 s
        assert it.generalized_cost is not None
        assert before.generalized_cost is not None
        extra = it.generalized_cost - before.generalized_cost
        if drive > 240:
            penalized += 1
            assert extra >= 300.0 + 10.0 * (drive - 240) - 1e-6
        else:  # the few seconds of walking to the stop keep it within the limit
            assert extra == pytest.approx(0.0, abs=1e-6)
    assert compared >= 2
    assert penalized >= 1


def test_bike_rental_with_transit_rents_or_walks(net: TransportNetwork) -> None:
    its = plan(net, _request("BICYCLE_RENT,TRANSIT", NEAR_CENTRAL, NEAR_UNIVERSITY)).itineraries
    assert any(any(leg.rented_bike for leg in it.legs) for it in its)
    for it in its:
        _contiguous(it)
