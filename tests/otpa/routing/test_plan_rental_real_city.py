"""Renting, park and ride and ride-hail on a real city: central Atlanta (OSM, MARTA GTFS).

tiny/atlanta's OSM extract has no bike-share stations, so the test writes a GBFS v2 feed
(``gbfs.json``, ``system_information``, ``station_information``, ``station_status``) whose two
stations stand on real street vertices near Five Points and Georgia State, reads it with a
``bike-rental`` updater, and plans.  The expected ride is rebuilt from an independent street
path between the stations' vertices at OTP's rental speed (4.3 m/s) plus renting (60 s) and
returning (30 s).  An empty station by the origin is skipped.

Park and ride parks at one of the extract's OSM ``park_ride`` lots (Ashby) and boards MARTA
there; ride-hail starts with the hailed car, priced by the configured provider; a
free-floating bike (a snapshot the test publishes) rides around a GBFS no-ride zone.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from pathlib import Path

import numpy as np
import pytest

from otpa import plan
from otpa.mobility import (
    FreeVehicles,
    GeofencingZone,
    GeofencingZones,
    RentalSnapshot,
    SystemInformation,
    ZoneRule,
    configure_tnc,
    current_rental,
    estimate_eta,
    estimate_ride,
    mobility_store_for,
    parking_lots,
    start_rental_updaters,
)
from otpa.network import TransportNetwork
from otpa.routing import Leg, Location, PlanRequest
from otpa.routing.engine import street_options
from otpa.routing.parse import parse_modes, rental_preferences
from otpa.routing.street_router import snap_point, street_path
from tests.fixtures.networks import built_network

WHEN = dt.datetime(2026, 3, 3, 8, 0)
ORIGIN = (33.7560, -84.3935)  # west of Five Points
PICKUP_NEAR = (33.7560, -84.3920)  # by Five Points
DROPOFF_NEAR = (33.7500, -84.3790)  # by Georgia State


#: Park and ride, ride-hail: a weekday of the MARTA feed, from west of Ashby to Inman Park.
TRANSIT_WHEN = dt.datetime(2021, 10, 13, 8, 0)
WEST_END = (33.7470, -84.4250)
INMAN_PARK = (33.7610, -84.3560)
HAIL = {"sourceType": "no-api", "defaultArrivalTimeSeconds": 300, "currency": "USD",
        "baseFare": 2.5, "perKm": 1.2, "perMinute": 0.25, "minimumFare": 7.0}  # fmt: skip


def _vertex(net: TransportNetwork, lat: float, lon: float) -> int:
    s = snap_point(net, lat, lon, mode="BICYCLE")
    assert s is not None
    assert net.street is not None
    return int(net.street.edge_from[s.edge] if s.fraction < 0.5 else net.street.edge_to[s.edge])


def _write_feed(
    folder: Path, stations: list[tuple[str, str, float, float]], empty: tuple[str, ...] = ()
) -> None:
    def doc(data: object) -> str:
        return json.dumps({"last_updated": 1772524800, "ttl": 0, "version": "2.3", "data": data})

    names = ("system_information", "station_information", "station_status")
    feeds = [{"name": n, "url": f"{n}.json"} for n in names]
    system = {"system_id": "atl_test", "language": "en", "name": "ATL Test Bikes",
              "timezone": "America/New_York"}  # fmt: skip
    info = [
        {"station_id": sid, "name": name, "lat": lat, "lon": lon, "capacity": 10}
        for sid, name, lat, lon in stations
    ]
    flags = {"is_installed": True, "is_renting": True, "is_returning": True}
    counts = {"num_bikes_available": 5, "num_docks_available": 5, "last_reported": 1772524800}
    status = [{"station_id": sid, **counts, **flags} for sid, _, _, _ in stations]
    for row in status:
        if row["station_id"] in empty:
            row["num_bikes_available"] = 0
    files = {
        "gbfs": doc({"en": {"feeds": feeds}}),
        "system_information": doc(system),
        "station_information": doc({"stations": info}),
        "station_status": doc({"stations": status}),
    }
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / f"{name}.json").write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def network(data_root: Path) -> TransportNetwork:
    return built_network(data_root, "tiny/atlanta")


def test_bicycle_rent_rides_between_the_gbfs_stations(
    network: TransportNetwork, tmp_path: Path
) -> None:
    assert network.street is not None
    g = network.street
    pick_v = _vertex(network, *PICKUP_NEAR)
    drop_v = _vertex(network, *DROPOFF_NEAR)
    pick = (float(g.vertex_lat[pick_v]), float(g.vertex_lon[pick_v]))
    drop = (float(g.vertex_lat[drop_v]), float(g.vertex_lon[drop_v]))
    # an empty dock right at the origin: skipped for the one with bikes
    empty_v = _vertex(network, *ORIGIN)
    assert empty_v != pick_v
    empty = (float(g.vertex_lat[empty_v]), float(g.vertex_lon[empty_v]))
    _write_feed(tmp_path / "bikes", [("e", "Empty Dock", *empty), ("p", "Five Points Dock", *pick),
                                     ("d", "Georgia State Dock", *drop)], empty=("e",))  # fmt: skip
    config = {"updaters": [{"type": "bike-rental", "sourceType": "gbfs",
                            "file": "bikes/gbfs.json", "frequencySec": 0}]}  # fmt: skip
    (updater,) = start_rental_updaters(network, config, tmp_path, start=False)
    assert updater.poll_once(), updater.status().last_error
    try:
        (snap,) = [
            s for s in current_rental(network, include_osm=False).snapshots.values()
            if s.system.system_id == "atl_test"
        ]  # fmt: skip
        assert snap.stations.ids == ("e", "p", "d")
        assert snap.stations.vehicles_available.tolist() == [0, 5, 5]
        modes = parse_modes("BICYCLE_RENT")
        req = PlanRequest(
            Location(lat=ORIGIN[0], lon=ORIGIN[1]),
            Location(lat=DROPOFF_NEAR[0], lon=DROPOFF_NEAR[1]),
            WHEN,
            modes=modes,
            rental=rental_preferences(modes, ()),
        )
        req = dataclasses.replace(req, bike=dataclasses.replace(req.bike, speed_mps=4.3))
        its = plan(network, req).itineraries
        (it,) = [it for it in its if any(leg.rented_bike for leg in it.legs)]
        assert [leg.mode for leg in it.legs] == ["WALK", "BICYCLE", "WALK"]
        assert it.legs[0].distance > 0.0  # walked past the empty dock to the one with bikes
        bike = it.legs[1]
        assert bike.from_place.name == "Five Points Dock"
        assert bike.to_place.name == "Georgia State Dock"
        assert bike.from_place.vertex_type == bike.to_place.vertex_type == "BIKESHARE"
        ride = street_path(network, pick_v, drop_v, street_options(req, "BICYCLE"))
        assert ride is not None
        assert ride.distance_m > 800.0
        assert bike.duration == round(ride.duration_s) + 60 + 30
        assert bike.distance == pytest.approx(ride.distance_m, abs=0.01)
    finally:
        # the network is shared by the session: leave its rental store as it was
        mobility_store_for(network).remove(f"updater-{updater.config.index}")


def _transit_request(modes: str) -> PlanRequest:
    m = parse_modes(modes)
    return PlanRequest(
        Location(lat=WEST_END[0], lon=WEST_END[1]),
        Location(lat=INMAN_PARK[0], lon=INMAN_PARK[1]),
        TRANSIT_WHEN,
        modes=m,
        rental=rental_preferences(m, ()),
    )


def test_park_and_ride_parks_at_an_osm_lot_and_boards_marta(network: TransportNetwork) -> None:
    req = _transit_request("CAR_PARK,TRANSIT")
    req = dataclasses.replace(
        req, transit=dataclasses.replace(req.transit, only_transit_trips=True)
    )
    its = plan(network, req).itineraries
    assert its
    lots = parking_lots(network, "park_and_ride")
    ashby = lots.names.index("Ashby Park & Ride")
    for it in its:
        assert [leg.mode for leg in it.legs[:3]] == ["CAR", "WALK", "SUBWAY"]
        assert it.legs[0].to_place.name == "Ashby Park & Ride"
        assert it.legs[1].to_place.name == it.legs[2].from_place.name == "ASHBY STATION"
    drive = street_path(
        network,
        snap_point(network, *WEST_END, mode="CAR"),  # type: ignore[arg-type]
        _vertex(network, float(lots.lat[ashby]), float(lots.lon[ashby])),
        street_options(req, "CAR"),
    )
    assert drive is not None
    assert its[0].legs[0].duration == round(drive.duration_s) + 120  # carParkTime


def test_a_hailed_ride_is_priced_by_the_provider(network: TransportNetwork) -> None:
    config = {"transportationNetworkCompanies": [HAIL]}
    try:
        assert configure_tnc(network, config) is None
        (it,) = plan(network, _transit_request("CAR_HAIL,WALK")).itineraries
        first = it.legs[0]
        assert first.mode == "CAR"
        assert first.hailed_car
        (eta,) = estimate_eta(config, *WEST_END, ["NOAPI"])
        start = TRANSIT_WHEN.replace(tzinfo=first.start_time.tzinfo)
        assert first.start_time == start + dt.timedelta(seconds=eta.estimated_seconds)
        (ride,) = estimate_ride(
            config, first.from_place.lat, first.from_place.lon, first.to_place.lat,
            first.to_place.lon, ["NOAPI"],
        )  # fmt: skip
        tnc = first.tnc_data
        assert tnc is not None
        assert (tnc.company, tnc.currency) == ("NOAPI", "USD")
        assert (tnc.min_cost, tnc.max_cost) == (ride.min_cost, ride.max_cost)
        assert tnc.min_cost > HAIL["minimumFare"]  # priced by distance and time, not the minimum
    finally:
        configure_tnc(network, {})  # the network is shared by the session


def _floating_bike(network: TransportNetwork, zones: GeofencingZones) -> None:
    vlat, vlon = PICKUP_NEAR
    snap = RentalSnapshot(
        network="AtlFloat",
        kind="bike-rental",
        system=SystemInformation(system_id="atl_float", name="ATL Floating"),
        vehicles=FreeVehicles(
            ids=("b1",),
            network=("AtlFloat",),
            vehicle_type_id=(None,),
            lat=np.array([vlat]),
            lon=np.array([vlon]),
            form_factor=("BICYCLE",),
            propulsion=("human",),
            current_range_m=np.array([np.nan]),
            is_reserved=np.array([False]),
            is_disabled=np.array([False]),
        ),
        zones=zones,
    )
    mobility_store_for(network).publish("test-atl-float", snap)


def _no_ride(lat: float, lon: float, half: float) -> GeofencingZone:
    ring = np.array([(lon - half, lat - half), (lon + half, lat - half),
                     (lon + half, lat + half), (lon - half, lat + half),
                     (lon - half, lat - half)])  # fmt: skip
    rule = ZoneRule(ride_through_allowed=False, ride_end_allowed=False)
    return GeofencingZone("no ride", ((ring,),), (rule,), (lon - half, lat - half,
                                                          lon + half, lat + half))  # fmt: skip


def _line(leg: Leg) -> np.ndarray:
    """The leg's polyline, decoded here (Google's algorithm, not otpa's decoder)."""
    text, out, idx, lat, lon = leg.leg_geometry.points, [], 0, 0, 0
    while idx < len(text):
        for axis in range(2):
            shift = result = 0
            while True:
                b = ord(text[idx]) - 63
                idx += 1
                result |= (b & 0x1F) << shift
                shift += 5
                if b < 0x20:
                    break
            delta = ~(result >> 1) if result & 1 else result >> 1
            if axis == 0:
                lat += delta
            else:
                lon += delta
        out.append((lat / 1e5, lon / 1e5))
    return np.array(out)


def test_a_free_floating_bike_keeps_out_of_a_no_ride_zone(network: TransportNetwork) -> None:
    modes = parse_modes("BICYCLE_RENT")
    req = PlanRequest(
        Location(lat=PICKUP_NEAR[0], lon=PICKUP_NEAR[1]),
        Location(lat=DROPOFF_NEAR[0], lon=DROPOFF_NEAR[1]),
        WHEN,
        modes=modes,
        rental=rental_preferences(modes, ()),
    )
    try:
        _floating_bike(network, GeofencingZones())
        (free,) = [it for it in plan(network, req).itineraries
                   if any(leg.rented_bike for leg in it.legs)]  # fmt: skip
        (ride,) = [leg for leg in free.legs if leg.rented_bike]
        assert ride.from_place.name == "b1"
        pts = _line(ride)
        mid = pts[len(pts) // 2]
        zone = _no_ride(float(mid[0]), float(mid[1]), 0.0010)
        assert zone.contains(pts[:, 0], pts[:, 1]).any()  # the free ride crosses it
        _floating_bike(network, GeofencingZones((zone,)))
        rented = [it for it in plan(network, req).itineraries
                  if any(leg.rented_bike for leg in it.legs)]  # fmt: skip
        assert rented  # downtown's grid has a way around
        for it in rented:
            for leg in it.legs:
                if leg.rented_bike:
                    pts = _line(leg)
                    assert not zone.contains(pts[:, 0], pts[:, 1]).any()
            assert it.duration >= free.duration
    finally:
        mobility_store_for(network).remove("test-atl-float")
