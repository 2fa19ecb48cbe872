"""Scenario comparison on MARTA rail (tiny/atlanta): removing the BLUE line.

FEATURE UNDER TEST: ``compare_scenarios(network, None, no_blue, ...)`` changes travel
times exactly at the destinations whose fastest base trip needs BLUE.  That set is
found independently with the planner: for each destination, every itinerary
``otpa.plan`` returns (distinct trip sequences by duration, and the walk) with the
analysis request's parameters (``AnalysisRequest.plan_request``, connectors free as the
planner has them); the destination needs BLUE when every itinerary reaching it
earliest rides BLUE.  Accessibility then drops by exactly the opportunities pushed
past each cutoff, and never rises; the base network is left as it was.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import otpa
from otpa.analysis import AnalysisRequest, Grid, PointSet, RemoveRoutes, Scenario
from otpa.analysis.compare import compare_scenarios
from otpa.network import TransportNetwork
from otpa.routing import Location, PlanRequest
from otpa.routing.errors import PlanningError
from otpa.routing.parse import parse_modes
from otpa.routing.preferences import ItineraryPreferences
from tests.fixtures.networks import built_network

DEPARTURE = dt.datetime(2021, 9, 15, 8, 0)  # a Wednesday of the weekday service
WEST_LAKE = (33.753326, -84.445330)  # BLUE only: most trips from here need it
FIVE_POINTS = (33.753838, -84.391396)  # BLUE and GREEN: the first train decides
ORIGIN = WEST_LAKE
CUTOFFS = (600, 900, 1200, 1800)


@pytest.fixture(scope="module")
def network(data_root: Path) -> TransportNetwork:
    return built_network(data_root, "tiny/atlanta")


@pytest.fixture(scope="module")
def blue(network: TransportNetwork) -> str:
    routes = network.transit.routes
    return str(routes.loc[routes["short_name"] == "BLUE", "route_id"].iloc[0])


@pytest.fixture(scope="module")
def points() -> PointSet:
    """Cell centres over the streets of central Atlanta, with made-up jobs."""
    grid = Grid.from_bounds(-84.43, 33.742, -84.35, 33.772, cell_size_m=700.0)
    lat, lon = grid.points()
    jobs = (np.arange(lat.size) * 37) % 11 + 1
    frame = pd.DataFrame({"id": [f"c{i}" for i in range(lat.size)], "lat": lat, "lon": lon,
                          "jobs": jobs})  # fmt: skip
    return PointSet.from_frame(frame)


def fingerprint(network: TransportNetwork) -> dict[str, str]:
    """SHA-256 of every member of the network's saved form."""
    arrays, docs = network.transit.to_members()
    if network.street is not None:
        more_arrays, more_docs = network.street.to_members()
        arrays.update(more_arrays)
        docs.update(more_docs)
    out = {
        k: hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest() for k, a in arrays.items()
    }
    out.update(
        {k: hashlib.sha256(json.dumps(d, sort_keys=True, default=str).encode()).hexdigest()
         for k, d in docs.items()}
    )  # fmt: skip
    for name in ("stop_vertex", "transfer_offsets", "transfer_to", "transfer_distance_m"):
        out[name] = hashlib.sha256(
            np.ascontiguousarray(getattr(network, name)).tobytes()
        ).hexdigest()
    return out


def fastest_and_blue(
    network: TransportNetwork, request: PlanRequest, blue: str
) -> tuple[float, bool]:
    """Earliest arrival (s after departure) of the plans, and whether all such trips ride BLUE."""
    arrivals: list[tuple[float, bool]] = []
    variants = [
        dataclasses.replace(
            request,
            itineraries=ItineraryPreferences(num_itineraries=20, path_comparator="duration"),
        ),
        dataclasses.replace(request, modes=parse_modes(request.modes.access_mode)),
    ]
    for req in variants:
        try:
            plan = otpa.plan(network, req)
        except PlanningError:
            continue
        for it in plan.itineraries:
            seconds = (
                it.end_time - request.date_time.replace(tzinfo=it.end_time.tzinfo)
            ).total_seconds()
            arrivals.append((seconds, any(leg.route_id == blue for leg in it.legs)))
    if not arrivals:
        return math.inf, False
    best = min(t for t, _ in arrivals)
    return best, all(rides for t, rides in arrivals if t == best)


@pytest.mark.parametrize("origin", [WEST_LAKE, FIVE_POINTS], ids=["west-lake", "five-points"])
def test_removing_blue_changes_exactly_the_trips_that_need_it(
    network: TransportNetwork, blue: str, points: PointSet, origin: tuple[float, float]
) -> None:
    before = fingerprint(network)
    request = AnalysisRequest(departure=DEPARTURE, walk_connectors=False)
    no_blue = Scenario("no blue", (RemoveRoutes((blue,)),), id="no-blue")
    ds = compare_scenarios(
        network, None, no_blue, origin, target=points, opportunities=points,
        cutoffs=CUTOFFS, request=request,
    )  # fmt: skip
    assert fingerprint(network) == before  # the base network is untouched
    assert ds["travel_time"].dims == ("scenario", "percentile", "point")
    assert ds["scenario_name"].values.tolist() == ["base", "no blue"]
    assert ds["scenario_id"].values.tolist() == ["", "no-blue"]
    a = ds["travel_time"].sel(scenario="a", percentile=50).to_numpy()
    b = ds["travel_time"].sel(scenario="b", percentile=50).to_numpy()
    here = Location(lat=origin[0], lon=origin[1])
    needs_blue = np.zeros(len(points), dtype=bool)
    for j in range(len(points)):
        dest = Location(lat=float(points.lat[j]), lon=float(points.lon[j]))
        best, rides_blue = fastest_and_blue(network, request.plan_request(here, dest), blue)
        if best > request.max_time_s:
            assert np.isnan(a[j]), j
            continue
        assert a[j] == best, j  # the base surface is the planner's earliest arrival
        needs_blue[j] = rides_blue
    changed = ~((a == b) | (np.isnan(a) & np.isnan(b)))
    assert 5 <= needs_blue.sum() < len(points) - 5  # BLUE matters for some trips, not all
    np.testing.assert_array_equal(changed, needs_blue)
    # removing a line never makes anything faster or newly reachable
    diff = ds["difference"].sel(percentile=50).to_numpy()
    assert np.all(diff[~np.isnan(diff)] >= 0)
    assert not ds["newly_reachable"].any()
    lost = ds["no_longer_reachable"].sel(percentile=50).to_numpy()
    np.testing.assert_array_equal(lost, ~np.isnan(a) & np.isnan(b))
    np.testing.assert_array_equal(np.isnan(diff), np.isnan(a) | np.isnan(b))
    # accessibility drops by the jobs pushed past each cutoff, and nowhere rises
    jobs = points.opportunities["jobs"].to_numpy(float)
    drop = ds["accessibility_difference"].sel(percentile=50, opportunity="jobs")
    for cutoff in CUTOFFS:
        within_a = np.nan_to_num(a, nan=np.inf) <= cutoff
        within_b = np.nan_to_num(b, nan=np.inf) <= cutoff
        assert not np.any(within_b & ~within_a)
        assert float(drop.sel(cutoff=cutoff)) == -jobs[within_a & ~within_b].sum()
    assert float(drop.min()) < 0
    assert np.all(ds["accessibility"].sel(scenario="b") <= ds["accessibility"].sel(scenario="a"))


def test_matrices_grids_and_two_scenarios(
    network: TransportNetwork, blue: str, points: PointSet
) -> None:
    request = AnalysisRequest(departure=DEPARTURE, max_time_s=3600)
    no_blue = Scenario("no blue", (RemoveRoutes((blue,)),))
    origins = points.subset(points.ids[:4])
    m = compare_scenarios(network, None, no_blue, origins, target=points, opportunities=points,
                          request=request)  # fmt: skip
    assert m["travel_time"].dims == ("scenario", "origin", "destination", "percentile")
    assert m["accessibility"].dims == ("scenario", "origin", "percentile", "cutoff", "opportunity")
    for k in range(len(origins)):
        here = (float(origins.lat[k]), float(origins.lon[k]))
        s = compare_scenarios(network, None, no_blue, here, target=points, request=request)
        np.testing.assert_array_equal(
            m["travel_time"].isel(origin=k).transpose("scenario", "percentile", "destination"),
            s["travel_time"].to_numpy(),
        )
    # a grid target; the same scenario on both sides changes nothing
    grid = Grid.from_bounds(-84.42, 33.745, -84.37, 33.765, cell_size_m=800.0)
    g = compare_scenarios(network, no_blue, no_blue, ORIGIN, target=grid, request=request)
    assert g["travel_time"].dims == ("scenario", "percentile", "y", "x")
    assert float(np.nanmax(np.abs(g["difference"].to_numpy()))) == 0.0
    with pytest.raises(ValueError, match="point-set destinations"):
        compare_scenarios(network, None, no_blue, ORIGIN, target=grid, opportunities=points,
                          request=request)  # fmt: skip
    with pytest.raises(TypeError, match="point set of destinations"):
        compare_scenarios(network, None, no_blue, origins, target=grid, request=request)
