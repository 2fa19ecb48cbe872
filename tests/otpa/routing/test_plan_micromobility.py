"""MICROMOBILITY and MICROMOBILITY_RENT on the demo city (the ibi fork's power model).

The demo city is flat at sea level: a 250 W, 105 kg vehicle would reach 9.47 m/s there
(the ibi fork's ``calculateMicromobilitySpeed``, checked against its own test values in
the module's doctests), so ``maximumMicromobilitySpeed`` (5 m/s by default) or the
street's speed limit bounds it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt

import numpy as np
import pytest

from otpa import plan
from otpa.mobility import (
    FreeVehicles,
    GbfsError,
    GeofencingZone,
    GeofencingZones,
    RentalSnapshot,
    SystemInformation,
    ZoneRule,
    dropoff_region,
    mobility_store_for,
)
from otpa.network import TransportNetwork
from otpa.routing import Itinerary, Leg, Location, PlanRequest
from otpa.routing.parse import parse_modes, rental_preferences
from otpa.routing.preferences import MicromobilityPreferences

WHEN = dt.datetime(2026, 3, 3, 8, 0)
A = (53.2995, 4.1995)
B = (53.3065, 4.2110)


@pytest.fixture(scope="module")
def net() -> TransportNetwork:
    from otpa.testing.demo import demo_network

    return demo_network()


def _request(modes: str, **micro: float) -> PlanRequest:
    m = parse_modes(modes)
    return PlanRequest(
        Location(lat=A[0], lon=A[1]),
        Location(lat=B[0], lon=B[1]),
        WHEN,
        modes=m,
        rental=rental_preferences(m),
        micromobility=MicromobilityPreferences(**micro),
    )


def _ride(it: Itinerary) -> tuple[float, float]:
    (leg,) = [leg for leg in it.legs if leg.mode == "MICROMOBILITY"]
    return leg.duration, leg.distance


def test_micromobility_rides_at_the_speed_bounds(net: TransportNetwork) -> None:
    (it,) = plan(net, _request("MICROMOBILITY")).itineraries
    assert [leg.mode for leg in it.legs] == ["MICROMOBILITY"]
    assert not it.legs[0].transit_leg
    duration, distance = _ride(it)
    # at most 5 m/s (the default maximum); turns and whole seconds per edge add a little
    assert duration >= distance / 5.0
    assert duration <= distance / 5.0 + 90
    (slow,) = plan(net, _request("MICROMOBILITY", max_speed_mps=2.5)).itineraries
    s_duration, s_distance = _ride(slow)
    assert s_duration >= s_distance / 2.5
    assert s_duration > duration


def test_power_and_weight_set_the_speed_below_the_maximum(net: TransportNetwork) -> None:
    fast = _ride(plan(net, _request("MICROMOBILITY", max_speed_mps=30.0)).itineraries[0])
    weak = _ride(
        plan(net, _request("MICROMOBILITY", watts=60.0, max_speed_mps=30.0)).itineraries[0]
    )
    heavy = _ride(
        plan(
            net, _request("MICROMOBILITY", watts=60.0, weight_kg=300.0, max_speed_mps=30.0)
        ).itineraries[0]
    )
    # on the flat, rolling resistance grows with weight: 60 W moves 300 kg slower than 105 kg
    assert fast[0] < weak[0] <= heavy[0]
    # the minimum speed is a floor however weak the vehicle
    floor = _ride(
        plan(
            net, _request("MICROMOBILITY", watts=1.0, min_speed_mps=4.0, max_speed_mps=30.0)
        ).itineraries[0]
    )
    assert floor[0] <= floor[1] / 4.0 + 90


def test_micromobility_rent_takes_a_free_floating_scooter(net: TransportNetwork) -> None:
    store = mobility_store_for(net)
    snap = RentalSnapshot(
        network="Scoot",
        kind="vehicle-rental",
        system=SystemInformation(system_id="scoot", name="Scoot"),
        vehicles=FreeVehicles(
            ids=("sc1",),
            network=("Scoot",),
            vehicle_type_id=("es",),
            lat=np.array([A[0]]),
            lon=np.array([A[1] + 0.0004]),
            form_factor=("SCOOTER",),
            propulsion=("electric",),
            current_range_m=np.array([20000.0]),
            is_reserved=np.array([False]),
            is_disabled=np.array([False]),
        ),
    )
    try:
        store.publish("test-scooters", snap)
        req = _request("MICROMOBILITY_RENT")
        (it,) = plan(net, req).itineraries
        rides = [leg for leg in it.legs if leg.rented_vehicle]
        assert [leg.mode for leg in rides] == ["MICROMOBILITY"]
        assert rides[0].from_place.vertex_type == "VEHICLERENTAL"
        assert rides[0].from_place.networks == ("Scoot",)
        assert not any(leg.rented_bike for leg in it.legs)
        # the bike-share stations are not scooters: without the scooter, no rented leg
        store.remove("test-scooters")
        (walk,) = plan(net, dataclasses.replace(req)).itineraries
        assert not any(leg.rented_vehicle for leg in walk.legs)
    finally:
        store.remove("test-scooters")


# ----------------------------------------------------------------------- geofencing
def _scooter(
    net: TransportNetwork, zones: GeofencingZones, region: GeofencingZone | None = None
) -> None:
    snap = RentalSnapshot(
        network="Scoot",
        kind="vehicle-rental",
        system=SystemInformation(system_id="scoot", name="Scoot"),
        vehicles=FreeVehicles(
            ids=("sc1",),
            network=("Scoot",),
            vehicle_type_id=("es",),
            lat=np.array([A[0]]),
            lon=np.array([A[1] + 0.0004]),
            form_factor=("SCOOTER",),
            propulsion=("electric",),
            current_range_m=np.array([20000.0]),
            is_reserved=np.array([False]),
            is_disabled=np.array([False]),
        ),
        zones=zones,
        dropoff_region=region,
    )
    mobility_store_for(net).publish("test-scooters", snap)


def _square(lat: float, lon: float, half: float, *, through: bool, end: bool) -> GeofencingZone:
    ring = np.array([(lon - half, lat - half), (lon + half, lat - half),
                     (lon + half, lat + half), (lon - half, lat + half),
                     (lon - half, lat - half)])  # fmt: skip
    rule = ZoneRule(ride_through_allowed=through, ride_end_allowed=end)
    box = (lon - half, lat - half, lon + half, lat + half)
    return GeofencingZone("zone", ((ring,),), (rule,), box)


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


def _points(leg: Leg) -> np.ndarray:
    return _decode(leg.leg_geometry.points)


def test_a_rented_scooter_keeps_out_of_no_ride_zones_and_is_not_left_in_them(
    net: TransportNetwork,
) -> None:
    """GBFS geofencing for MICROMOBILITY_RENT as for bikes: ``ride_through_allowed=false``
    closes the zone's streets to the scooter, ``ride_end_allowed=false`` keeps it from
    being left there (the rider walks out of the zone instead)."""
    req = _request("MICROMOBILITY_RENT")
    try:
        _scooter(net, GeofencingZones())
        (free,) = plan(net, req).itineraries
        (ride,) = [leg for leg in free.legs if leg.rented_vehicle]
        free_left = ride.to_place
        pts = _points(ride)
        mid = pts[len(pts) // 2]
        closed = _square(float(mid[0]), float(mid[1]), 0.0012, through=False, end=False)
        assert closed.contains(pts[:, 0], pts[:, 1]).any()  # the free ride crosses it
        _scooter(net, GeofencingZones((closed,)))
        (fenced,) = plan(net, req).itineraries
        (ride,) = [leg for leg in fenced.legs if leg.rented_vehicle]
        pts = _points(ride)
        assert not closed.contains(pts[:, 0], pts[:, 1]).any()
        assert fenced.duration >= free.duration
        # no parking around the destination: ridden into, but left outside
        end = _square(B[0], B[1], 0.0015, through=True, end=False)
        assert end.contains(np.array([free_left.lat]), np.array([free_left.lon])).all()
        _scooter(net, GeofencingZones((end,)))
        (parked,) = plan(net, req).itineraries
        (ride,) = [leg for leg in parked.legs if leg.rented_vehicle]
        left = ride.to_place
        assert not end.contains(np.array([left.lat]), np.array([left.lon])).any()
        assert parked.legs[-1].mode == "WALK"
    finally:
        mobility_store_for(net).remove("test-scooters")


def test_a_rented_scooter_is_left_inside_the_networks_region(net: TransportNetwork) -> None:
    """The ibi fork's ``regionsGeoJson`` (its ``VehicleRentalRegion``): a free-floating
    vehicle is only left inside its network's region; the rider walks on from its edge."""
    (lat_a, lon_a), (lat_b, lon_b) = A, B
    half = 0.4 * max(abs(lat_b - lat_a), abs(lon_b - lon_a))
    ring = [[lon_a - half, lat_a - half], [lon_a + half, lat_a - half],
            [lon_a + half, lat_a + half], [lon_a - half, lat_a + half]]  # fmt: skip
    feature = {"type": "Feature", "properties": {},
               "geometry": {"type": "Polygon", "coordinates": [ring]}}  # fmt: skip
    region = dropoff_region({"type": "FeatureCollection", "features": [feature]})
    assert region.contains(np.array([lat_a]), np.array([lon_a])).all()
    assert not region.contains(np.array([lat_b]), np.array([lon_b])).any()
    req = _request("MICROMOBILITY_RENT")
    try:
        _scooter(net, GeofencingZones())
        (free,) = plan(net, req).itineraries
        (ride,) = [leg for leg in free.legs if leg.rented_vehicle]
        left = ride.to_place
        assert not region.contains(np.array([left.lat]), np.array([left.lon])).any()
        _scooter(net, GeofencingZones(), region)
        (kept,) = plan(net, req).itineraries
        (ride,) = [leg for leg in kept.legs if leg.rented_vehicle]
        left = ride.to_place
        assert region.contains(np.array([left.lat]), np.array([left.lon])).all()
        assert kept.legs[-1].mode == "WALK"
        assert kept.legs[-1].distance > 100.0
        assert kept.duration > free.duration
    finally:
        mobility_store_for(net).remove("test-scooters")


@pytest.mark.parametrize(
    "geojson",
    [None, [], {"type": "Point"}, {"type": "Feature", "geometry": {"type": "Point",
                                                                    "coordinates": [4.2, 53.3]}},
     {"type": "FeatureCollection", "features": []}],
)  # fmt: skip
def test_a_bad_region_is_a_clear_error(geojson: object) -> None:
    with pytest.raises(GbfsError, match="regionsGeoJson"):
        dropoff_region(geojson)
