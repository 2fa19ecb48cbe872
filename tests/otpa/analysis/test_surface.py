"""Time surfaces on real data: agreement with the planner, windows, percentiles, limits."""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from pathlib import Path

import numpy as np
import pytest

import otpa
from otpa.analysis import AnalysisRequest, Grid, PointSet, compute_time_surface
from otpa.network import TransportNetwork
from otpa.routing import Location
from otpa.routing.errors import OutsideBoundsError, PlanningError
from otpa.routing.parse import parse_modes
from otpa.routing.preferences import ItineraryPreferences
from otpa.util.geo import haversine_m
from tests.fixtures.networks import built_network

#: A Monday inside the EPTC weekday service (calendar.txt: 2019-04-15 .. 2019-07-15).
POA_DEPARTURE = dt.datetime(2019, 5, 13, 14, 0)
#: A Wednesday inside MARTA's weekday service (see test_plan_atlanta).
ATL_DEPARTURE = dt.datetime(2021, 9, 15, 8, 0)
#: Porto Alegre's public market (r5r's points of interest).
PUBLIC_MARKET = (-30.027565, -51.227811)


@pytest.fixture(scope="module")
def poa(data_root: Path) -> TransportNetwork:
    return built_network(data_root, "small/porto-alegre")


@pytest.fixture(scope="module")
def hexgrid(data_root: Path) -> PointSet:
    return PointSet.from_csv(data_root / "small" / "porto-alegre" / "poa_hexgrid.csv")


@pytest.fixture(scope="module")
def atlanta(data_root: Path) -> TransportNetwork:
    return built_network(data_root, "tiny/atlanta")


def _earliest_plan(network: TransportNetwork, request: otpa.PlanRequest) -> float:
    """Earliest arrival of any itinerary ``plan`` returns, in seconds after departure.

    The transit plan asks for every distinct trip sequence ordered by duration; the
    walk-only plan covers destinations where walking is fastest.
    """
    best = math.inf
    asked = request.date_time
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
            arrival = (it.end_time - asked.replace(tzinfo=it.end_time.tzinfo)).total_seconds()
            best = min(best, arrival)
    return best


def test_surface_equals_the_earliest_arrival_of_plan(
    poa: TransportNetwork, hexgrid: PointSet
) -> None:
    rng = np.random.default_rng(7)
    origins = rng.choice(len(hexgrid), 3, replace=False)
    targets = hexgrid.subset(hexgrid.ids[rng.choice(len(hexgrid), 12, replace=False)])
    # the planner links points to the streets for free, as OTP 1.x does
    request = AnalysisRequest(departure=POA_DEPARTURE, walk_connectors=False)
    compared = transit = 0
    for o in origins:
        here = (float(hexgrid.lat[o]), float(hexgrid.lon[o]))
        ds = compute_time_surface(poa, here, target=targets, request=request)
        got = ds.travel_time.sel(percentile=50).to_numpy()
        for j in range(len(targets)):
            plan_req = request.plan_request(
                Location(lat=here[0], lon=here[1]),
                Location(lat=float(targets.lat[j]), lon=float(targets.lon[j])),
            )
            expected = _earliest_plan(poa, plan_req)
            if expected > request.max_time_s:
                assert np.isnan(got[j]), (o, j)
            else:
                assert got[j] == expected, (o, j)
                compared += 1
                straight = haversine_m(here[0], here[1], targets.lat[j], targets.lon[j])
                transit += bool(expected < straight / request.walk_speed_mps)
    assert compared >= 30
    assert transit >= 10  # most of them are faster than walking: transit is in play


def test_window_rows_equal_single_departures_and_percentiles(
    atlanta: TransportNetwork,
) -> None:
    grid = Grid.from_bounds(-84.43, 33.73, -84.36, 33.77, cell_size_m=400.0)
    here = (33.758491, -84.404276)  # near Vine City station
    ds = compute_time_surface(
        atlanta, here, ATL_DEPARTURE, target=grid, window=1200, step=120,
        percentiles=(0, 25, 50, 100), keep_departures=True,
    )  # fmt: skip
    by_dep = ds.travel_time_by_departure.to_numpy()
    assert by_dep.shape[0] == 10
    for i in (0, 3, 9):
        single = compute_time_surface(
            atlanta, here, ATL_DEPARTURE + dt.timedelta(seconds=120 * i), target=grid
        )
        np.testing.assert_array_equal(single.travel_time.sel(percentile=50), by_dep[i])
    # R5's non-interpolated percentiles over the 10 departures, NaN sorting last
    flat = by_dep.reshape(10, -1)
    ordered = np.sort(np.where(np.isnan(flat), np.inf, flat), axis=0)
    for p in (0, 25, 50, 100):
        rank = math.floor(p / 100 * 9 + 0.5)
        expected = np.where(np.isinf(ordered[rank]), np.nan, ordered[rank])
        got = ds.travel_time.sel(percentile=p).to_numpy().ravel()
        np.testing.assert_array_equal(got, expected)
    # waiting for a train makes some departures slower than others somewhere
    seen = np.flatnonzero(~np.isnan(flat).all(axis=0))
    spread = np.nanmax(flat[:, seen], axis=0) - np.nanmin(flat[:, seen], axis=0)
    assert spread.max() > 0


def test_max_time_and_walk_only(atlanta: TransportNetwork) -> None:
    grid = Grid.from_bounds(-84.43, 33.73, -84.36, 33.77, cell_size_m=400.0)
    here = (33.758491, -84.404276)
    walk = compute_time_surface(atlanta, here, ATL_DEPARTURE, target=grid, modes="WALK")
    both = compute_time_surface(atlanta, here, ATL_DEPARTURE, target=grid, max_time=1800)
    w = walk.travel_time.to_numpy()
    b = both.travel_time.to_numpy()
    assert np.nanmax(b) <= 1800
    # transit only ever helps, and walking alone does not depend on the time of day
    reached = ~np.isnan(w) & (w <= 1800)
    assert np.all(b[reached] <= w[reached])
    assert np.sum(~np.isnan(b)) > np.sum(reached)
    # the cell holding the origin is reached almost at once
    row = int(np.argmin(np.abs(grid.y - here[0])))
    col = int(np.argmin(np.abs(grid.x - here[1])))
    assert w[0, row, col] < 400 / 1.0


def test_bad_origin_and_options(atlanta: TransportNetwork) -> None:
    grid = Grid.from_bounds(-84.43, 33.73, -84.36, 33.77, cell_size_m=400.0)
    with pytest.raises(OutsideBoundsError):
        compute_time_surface(atlanta, (10.0, 10.0), ATL_DEPARTURE, target=grid)
    with pytest.raises(TypeError, match="unknown analysis option"):
        compute_time_surface(atlanta, (33.75, -84.4), ATL_DEPARTURE, target=grid, speed=3)
    with pytest.raises(ValueError, match="percentiles"):
        compute_time_surface(atlanta, (33.75, -84.4), ATL_DEPARTURE, percentiles=(120,))
    with pytest.raises(ValueError, match="departures"):
        compute_time_surface(atlanta, (33.75, -84.4), ATL_DEPARTURE, window=86400, step=1)
    with pytest.raises(TypeError, match="departure"):
        compute_time_surface(atlanta, (33.75, -84.4))


def test_transit_only_network_uses_straight_line_walks(data_root: Path) -> None:
    net = built_network(data_root, "tiny/transit-only")
    stops = net.transit.stops
    # Caltrain's stops (the Bay Area) as the destinations, from the first one
    bay = stops[(stops.lat > 37.0) & (stops.lat < 38.0) & (stops.lon < -121.0)]
    pts = PointSet.from_frame(bay[["lat", "lon"]].reset_index(names="id"))
    lat0, lon0 = float(pts.lat[0]), float(pts.lon[0])
    request = AnalysisRequest(departure=dt.datetime(2010, 3, 10, 16, 0))  # a Caltrain weekday
    ds = compute_time_surface(net, (lat0, lon0), target=pts, request=request)
    tt = ds.travel_time.sel(percentile=50).to_numpy()
    # the origin stop itself is no walk away
    assert tt[0] == 0.0
    # stops beyond walking reach (1.8 km at 1 m/s) are reached by train
    dist = np.asarray(haversine_m(lat0, lon0, pts.lat, pts.lon))
    far = ~np.isnan(tt) & (dist > 1800.0)
    assert far.sum() >= 5
    assert np.all(tt[far] >= 60)  # at least the minimum boarding wait


def test_porto_alegre_isochrones_are_valid_nested_and_hold_the_origin(
    poa: TransportNetwork,
) -> None:
    import shapely

    from otpa.analysis import isochrones

    grid = Grid.around(PUBLIC_MARKET[0], PUBLIC_MARKET[1], 12_000, cell_size_m=150.0)
    ds = compute_time_surface(
        poa, PUBLIC_MARKET, POA_DEPARTURE, target=grid, window=1800, percentiles=(25, 50, 75)
    )
    origin = shapely.Point(PUBLIC_MARKET[1], PUBLIC_MARKET[0])
    for p in (25, 50, 75):
        gdf = isochrones(ds, [900, 1800, 2700, 3600], percentile=p)
        geoms = list(gdf.geometry)
        assert list(gdf.time) == [900, 1800, 2700, 3600]
        assert all(g.is_valid and not g.is_empty for g in geoms)
        # strictly nested: every isochrone covers the smaller ones (no sliver outside)
        assert all(geoms[i + 1].covers(geoms[i]) for i in range(len(geoms) - 1))
        assert geoms[0].contains(origin)
        areas = [g.area for g in geoms]
        assert areas == sorted(areas)
        assert areas[0] < areas[-1]
