"""Bike-share and park & ride access in surfaces and matrices equal the planner's times.

On the demo city (OSM bike-share stations, the Westgate P+R): the travel time of each
destination is the earliest arrival of any itinerary :func:`otpa.plan` returns for the
same request (every distinct trip sequence by duration, and the street-only trip).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math

import numpy as np
import pandas as pd
import pytest

import otpa
from otpa.analysis import AnalysisRequest, PointSet, compute_time_surface, travel_time_matrix
from otpa.network import TransportNetwork
from otpa.routing import ItineraryPreferences, Location, PlanRequest
from otpa.routing.errors import PlanningError

DEP = dt.datetime(2026, 3, 3, 8, 0)
TARGETS = [(53.3065, 4.2110), (53.3100, 4.2000), (53.2950, 4.2100), (53.3030, 4.1900),
           (53.3120, 4.2200), (53.2990, 4.2150)]  # fmt: skip
NEAR_CENTRAL_BIKES = (53.2995, 4.1995)
NEAR_PARK_AND_RIDE = (53.2960, 4.1850)
NEAR_WESTGATE = (53.2990, 4.1880)  # by rail to Central Station, then rent towards University


@pytest.fixture(scope="module")
def net() -> TransportNetwork:
    from otpa.testing.demo import demo_network

    return demo_network()


@pytest.fixture(scope="module")
def targets() -> PointSet:
    frame = pd.DataFrame(
        {
            "id": [str(i) for i in range(len(TARGETS))],
            "lat": [p[0] for p in TARGETS],
            "lon": [p[1] for p in TARGETS],
        }
    )
    return PointSet.from_frame(frame)


def _earliest(net: TransportNetwork, req: PlanRequest) -> float:
    best = math.inf
    by_duration = ItineraryPreferences(num_itineraries=20, path_comparator="duration")
    variants = [dataclasses.replace(req, itineraries=by_duration)]
    if not req.transit.only_transit_trips:  # the street-only trip (walking or renting)
        street = dataclasses.replace(req.modes, transit_modes=frozenset())
        variants.append(dataclasses.replace(req, modes=street))
    for r in variants:
        try:
            found = otpa.plan(net, r)
        except PlanningError:
            continue
        for it in found.itineraries:
            asked = r.date_time.replace(tzinfo=it.end_time.tzinfo)
            best = min(best, (it.end_time - asked).total_seconds())
    return best


@pytest.mark.parametrize(
    ("modes", "origin"),
    [
        ("BICYCLE_RENT,TRANSIT", NEAR_CENTRAL_BIKES),
        ("BICYCLE_RENT,TRANSIT", NEAR_WESTGATE),
        ("BICYCLE_RENT", NEAR_CENTRAL_BIKES),
        ("CAR_PARK,TRANSIT", NEAR_PARK_AND_RIDE),
    ],
)
def test_surface_equals_the_plans_earliest_arrival(
    net: TransportNetwork, targets: PointSet, modes: str, origin: tuple[float, float]
) -> None:
    request = AnalysisRequest(departure=DEP, walk_connectors=False, modes=modes)
    ds = compute_time_surface(net, origin, target=targets, request=request)
    got = ds.travel_time.sel(percentile=50).to_numpy()
    for j, (lat, lon) in enumerate(TARGETS):
        preq = request.plan_request(
            Location(lat=origin[0], lon=origin[1]), Location(lat=lat, lon=lon)
        )
        assert got[j] == _earliest(net, preq), (modes, j)


def test_renting_is_faster_than_walking_in_a_matrix(
    net: TransportNetwork, targets: PointSet
) -> None:
    lat, lon = NEAR_CENTRAL_BIKES
    origins = PointSet.from_frame(pd.DataFrame({"id": ["o"], "lat": [lat], "lon": [lon]}))
    rent = travel_time_matrix(net, origins, targets, DEP, modes="BICYCLE_RENT,TRANSIT",
                              walk_connectors=False).sel(percentile=50)  # fmt: skip
    walk = travel_time_matrix(net, origins, targets, DEP, modes="WALK,TRANSIT",
                              walk_connectors=False).sel(percentile=50)  # fmt: skip
    assert bool((rent <= walk).all())
    assert bool((rent < walk).any())


def test_renting_after_transit_in_a_matrix(net: TransportNetwork, targets: PointSet) -> None:
    """Egress by bike share: rail from Westgate to Central Station, rent at Central Station
    Bikes, return at University Bikes, walk -- the plan's earliest arrival, which walking
    from the station (and renting before boarding, no station being near) cannot match."""
    lat, lon = NEAR_WESTGATE
    origins = PointSet.from_frame(pd.DataFrame({"id": ["o"], "lat": [lat], "lon": [lon]}))
    rent = travel_time_matrix(net, origins, targets, DEP, modes="BICYCLE_RENT,TRANSIT",
                              walk_connectors=False).sel(percentile=50)  # fmt: skip
    walk = travel_time_matrix(net, origins, targets, DEP, modes="WALK,TRANSIT",
                              walk_connectors=False).sel(percentile=50)  # fmt: skip
    got = rent.to_numpy().ravel().tolist()
    assert got == [1306.0, 1504.0, 1331.0, 747.0, 1522.0, 850.0]
    assert walk.to_numpy().ravel().tolist() == [1425.0, 1504.0, 1331.0, 747.0, 1609.0, 850.0]
    # the plan to the first target rides the rail, then the rented bike to the destination
    request = AnalysisRequest(departure=DEP, walk_connectors=False, modes="BICYCLE_RENT,TRANSIT")
    to = Location(lat=TARGETS[0][0], lon=TARGETS[0][1])
    preq = request.plan_request(Location(lat=lat, lon=lon), to)
    assert got[0] == _earliest(net, preq)
    best = otpa.plan(net, preq).itineraries[0]
    modes = [leg.mode for leg in best.legs]
    assert modes[modes.index("RAIL") + 1 :] == ["WALK", "BICYCLE", "WALK"]
    assert [leg.rented_bike for leg in best.legs if leg.mode == "BICYCLE"] == [True]


def _scooter(net: TransportNetwork) -> None:
    """One free-floating scooter by Central Station (no station: left anywhere)."""
    from otpa.mobility import FreeVehicles, RentalSnapshot, SystemInformation, mobility_store_for

    snap = RentalSnapshot(
        network="TestScoot",
        kind="vehicle-rental",
        system=SystemInformation(system_id="scoot", name="Scoot"),
        vehicles=FreeVehicles(
            ids=("sc1",),
            network=("TestScoot",),
            vehicle_type_id=(None,),
            lat=np.array([53.2995]),
            lon=np.array([4.1998]),
            form_factor=("SCOOTER",),
            propulsion=("electric",),
            current_range_m=np.array([np.nan]),
            is_reserved=np.array([False]),
            is_disabled=np.array([False]),
        ),
    )
    mobility_store_for(net).publish("test-scooter", snap)


def test_a_free_floating_scooter_after_transit_in_a_matrix(
    net: TransportNetwork, targets: PointSet
) -> None:
    """Egress by a free-floating scooter: rail from Westgate to Central Station, take the
    scooter there, leave it by the destination -- the plan's earliest arrival to every
    target (target 4 leaves it at the destination's own street vertex)."""
    from otpa.mobility import mobility_store_for

    lat, lon = NEAR_WESTGATE
    origins = PointSet.from_frame(pd.DataFrame({"id": ["o"], "lat": [lat], "lon": [lon]}))
    modes = "MICROMOBILITY_RENT,TRANSIT"
    try:
        _scooter(net)
        got = travel_time_matrix(net, origins, targets, DEP, modes=modes,
                                 walk_connectors=False).sel(percentile=50)  # fmt: skip
        got_list = got.to_numpy().ravel().tolist()
        # walking from the station: [1425, 1504, 1331, 747, 1609, 850] (above)
        assert got_list == [1006.0, 982.0, 956.0, 747.0, 1029.0, 850.0]
        request = AnalysisRequest(departure=DEP, walk_connectors=False, modes=modes)
        for j, (t_lat, t_lon) in enumerate(TARGETS):
            preq = request.plan_request(Location(lat=lat, lon=lon), Location(lat=t_lat, lon=t_lon))
            assert got_list[j] == _earliest(net, preq), j
        preq = request.plan_request(
            Location(lat=lat, lon=lon), Location(lat=TARGETS[0][0], lon=TARGETS[0][1])
        )
        best = otpa.plan(net, preq).itineraries[0]
        modes_of = [leg.mode for leg in best.legs]
        assert modes_of[modes_of.index("RAIL") + 1 :] == ["WALK", "MICROMOBILITY", "WALK"]
        (ride,) = [leg for leg in best.legs if leg.rented_vehicle]
        assert ride.from_place.name == "sc1"
    finally:
        mobility_store_for(net).remove("test-scooter")
