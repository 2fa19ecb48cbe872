"""Every routing preference means the same for an analysis as for a plan.

An :class:`~otpa.analysis.AnalysisRequest` carries the plan's
:class:`~otpa.routing.RoutingPreferences`.  For each OTP parameter the analyst
endpoints read: where it changes arrival times (``alightSlack``, ``minTransferTime``,
``boardSlack``), the travel time of the analysis is the plan's earliest arrival, with
and without it; where it changes only costs (``walkReluctance``, ``optimize`` and the
triangle, ``maxSlope``), the street path the analysis follows is the plan's chosen one,
with and without it (its travel time is that path's duration), and the parameter does
change some chosen path.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import otpa
from otpa.analysis import AnalysisRequest, PointSet, compute_time_surface
from otpa.network import TransportNetwork
from otpa.routing import (
    ItineraryPreferences,
    Location,
    Optimize,
    RoutingPreferences,
    TriangleFactors,
)
from otpa.routing.errors import PlanningError
from otpa.routing.parse import parse_modes
from tests.fixtures.networks import built_network

#: A Wednesday inside MARTA's weekday service (see test_plan_atlanta).
DEPARTURE = dt.datetime(2021, 9, 15, 8, 0)
#: Near Vine City station.
ORIGIN = (33.758491, -84.404276)
#: Near King Memorial, Ashby, Georgia State stations, and a few streets between them.
TARGETS = [
    (33.748114, -84.375885),
    (33.758166, -84.417526),
    (33.748816, -84.384114),
    (33.7490, -84.3963),
    (33.7560, -84.3880),
    (33.7635, -84.3950),
    (33.7530, -84.4100),
]


@pytest.fixture(scope="module")
def atlanta(data_root: Path) -> TransportNetwork:
    return built_network(data_root, "tiny/atlanta")


@pytest.fixture(scope="module")
def targets() -> PointSet:
    lat, lon = zip(*TARGETS, strict=True)
    return PointSet.from_frame(pd.DataFrame({"id": range(len(TARGETS)), "lat": lat, "lon": lon}))


def _request(modes: str, preferences: RoutingPreferences) -> AnalysisRequest:
    # the planner links points to the streets for free, as OTP 1.x does
    return AnalysisRequest(
        departure=DEPARTURE, modes=modes, preferences=preferences, walk_connectors=False
    )


def _analysis(net: TransportNetwork, targets: PointSet, request: AnalysisRequest) -> np.ndarray:
    ds = compute_time_surface(net, ORIGIN, target=targets, request=request)
    out: np.ndarray = ds.travel_time.sel(percentile=50).to_numpy()
    return out


def _plan_request(request: AnalysisRequest, j: int) -> otpa.PlanRequest:
    return request.plan_request(
        Location(lat=ORIGIN[0], lon=ORIGIN[1]), Location(lat=TARGETS[j][0], lon=TARGETS[j][1])
    )


def _earliest_arrival(net: TransportNetwork, request: otpa.PlanRequest) -> float:
    """Earliest arrival (s after departure) of any itinerary ``plan`` returns."""
    best = math.inf
    variants = [
        dataclasses.replace(
            request,
            itineraries=ItineraryPreferences(num_itineraries=20, path_comparator="duration"),
        ),
        dataclasses.replace(request, modes=parse_modes(request.modes.access_mode)),
    ]
    for req in variants:
        try:
            plan = otpa.plan(net, req)
        except PlanningError:
            continue
        for it in plan.itineraries:
            asked = request.date_time.replace(tzinfo=it.end_time.tzinfo)
            best = min(best, (it.end_time - asked).total_seconds())
    return best


def _chosen_duration(net: TransportNetwork, request: otpa.PlanRequest) -> float:
    """Duration of the street path the planner chooses (its one street-only itinerary)."""
    plan = otpa.plan(net, request)
    it = plan.itineraries[0]
    assert [leg.mode for leg in it.legs] == [request.modes.access_mode]
    return float((it.end_time - it.start_time).total_seconds())


def _check_arrivals(
    net: TransportNetwork, targets: PointSet, modes: str, prefs: RoutingPreferences
) -> np.ndarray:
    request = _request(modes, prefs)
    got = _analysis(net, targets, request)
    for j in range(len(TARGETS)):
        expected = _earliest_arrival(net, _plan_request(request, j))
        if expected > request.max_time_s:
            assert np.isnan(got[j]), j
        else:
            assert got[j] == expected, (j, got[j], expected)
    return got


def _check_paths(
    net: TransportNetwork, targets: PointSet, modes: str, prefs: RoutingPreferences
) -> np.ndarray:
    request = _request(modes, prefs)
    got = _analysis(net, targets, request)
    for j in range(len(TARGETS)):
        assert got[j] == _chosen_duration(net, _plan_request(request, j)), j
    return got


BASE = AnalysisRequest(departure=DEPARTURE).preferences


@pytest.mark.parametrize(
    ("name", "changed"),
    [
        ("alightSlack", {"alight_slack_s": 240}),
        ("boardSlack", {"board_slack_s": 900}),
        ("minTransferTime", {"min_transfer_time_s": 900, "board_slack_s": 60}),
    ],
)
def test_transit_slacks_give_the_plans_earliest_arrival(
    atlanta: TransportNetwork, targets: PointSet, name: str, changed: dict[str, int]
) -> None:
    without = _check_arrivals(atlanta, targets, "WALK,TRANSIT", BASE)
    prefs = BASE.replace(transit=dataclasses.replace(BASE.transit, **changed))
    with_it = _check_arrivals(atlanta, targets, "WALK,TRANSIT", prefs)
    if name != "minTransferTime":  # no trip here needs a transfer: it changes nothing
        assert np.nanmax(with_it - without) > 0, name  # it delays some ride


def test_walk_reluctance_follows_the_plans_path(
    atlanta: TransportNetwork, targets: PointSet
) -> None:
    low = _check_paths(atlanta, targets, "BICYCLE", BASE)
    high = _check_paths(
        atlanta,
        targets,
        "BICYCLE",
        BASE.replace(walk=dataclasses.replace(BASE.walk, reluctance=8.0)),
    )
    assert not np.array_equal(low, high)  # walking the bike costs more: other paths
    _check_arrivals(
        atlanta,
        targets,
        "WALK,TRANSIT",
        BASE.replace(walk=dataclasses.replace(BASE.walk, reluctance=8.0)),
    )


@pytest.mark.parametrize(
    "bike",
    [
        {"optimize": Optimize.SAFE},
        {"optimize": Optimize.TRIANGLE, "triangle": TriangleFactors(0.8, 0.1, 0.1)},
    ],
    ids=["SAFE", "TRIANGLE"],
)
def test_optimize_and_triangle_follow_the_plans_path(
    atlanta: TransportNetwork, targets: PointSet, bike: dict[str, object]
) -> None:
    quick = _check_paths(atlanta, targets, "BICYCLE", BASE)
    other = _check_paths(
        atlanta, targets, "BICYCLE", BASE.replace(bike=dataclasses.replace(BASE.bike, **bike))
    )
    assert not np.array_equal(quick, other)  # a safer path is a slower one somewhere


#: Porto Alegre (with its elevation raster): a hexagon on a hillside and eight
#: hexagons a wheelchair user reaches only over slopes above 3 % (below OTP's 8.33 %).
POA_ORIGIN = (-30.0437537876839, -51.22781349812)
POA_HILLSIDE = [
    "89a901281abffff", "89a9012889bffff", "89a90128e07ffff", "89a90128eb7ffff",
    "89a90128e13ffff", "89a901283a7ffff", "89a90128c73ffff", "89a90128ccfffff",
]  # fmt: skip


@pytest.fixture(scope="module")
def poa(data_root: Path) -> TransportNetwork:
    return built_network(data_root, "small/porto-alegre")


def test_max_slope_limits_analysis_and_plan_alike(poa: TransportNetwork, data_root: Path) -> None:
    """Where no path keeps to ``maxSlope`` the planner walks the steeper one (``tooSloped``,
    OTP 1.x's retry without the limit); the analysis follows the same path."""
    hexgrid = PointSet.from_csv(data_root / "small" / "porto-alegre" / "poa_hexgrid.csv")
    hill = hexgrid.subset(POA_HILLSIDE)
    sloped = {}
    for slope in (BASE.wheelchair.max_slope, 0.03):
        wheelchair = dataclasses.replace(BASE.wheelchair, enabled=True, max_slope=slope)
        request = AnalysisRequest(
            departure=dt.datetime(2019, 5, 13, 14, 0),
            modes="WALK",
            preferences=BASE.replace(wheelchair=wheelchair),
            walk_connectors=False,
            max_time_s=3600,
        )
        ds = compute_time_surface(poa, POA_ORIGIN, target=hill, request=request)
        got = ds.travel_time.sel(percentile=50).to_numpy()
        for j in range(len(hill)):
            plan_req = request.plan_request(
                Location(lat=POA_ORIGIN[0], lon=POA_ORIGIN[1]),
                Location(lat=float(hill.lat[j]), lon=float(hill.lon[j])),
            )
            assert got[j] == _chosen_duration(poa, plan_req), (slope, j)
            sloped[slope, j] = otpa.plan(poa, plan_req).itineraries[0].too_sloped
    n = len(POA_HILLSIDE)
    assert [sloped[BASE.wheelchair.max_slope, j] for j in range(n)] == [False] * n
    assert [sloped[0.03, j] for j in range(n)] == [True] * n
