"""Base and scenario matrices together (tiny/atlanta): the street searches shared, same cells.

FEATURE UNDER TEST: ``paired_travel_time_matrix(base, scenario, ...)`` does each origin's
street searches once when the scenario keeps the streets and stops (removing BLUE), and
gives exactly the matrices ``travel_time_matrix`` computes on each network alone; with
a new stop (the stops change) each version does its own searches, with the same result.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from otpa.analysis import (
    AddRoute,
    AnalysisRequest,
    Grid,
    NewStop,
    PointSet,
    RemoveRoutes,
    Scenario,
    _engine,
    _paired,
    compare_scenarios,
    paired_travel_time_matrix,
    travel_time_matrix,
)
from otpa.network import TransportNetwork
from tests.fixtures.networks import built_network

REQUEST = AnalysisRequest(
    departure=dt.datetime(2021, 9, 15, 8, 0),
    window_s=600,
    max_time_s=2700,
    percentiles=(10, 50, 90),
)


@pytest.fixture(scope="module")
def network(data_root: Path) -> TransportNetwork:
    return built_network(data_root, "tiny/atlanta")


@pytest.fixture(scope="module")
def points() -> PointSet:
    """Cell centres over central Atlanta (some off the streets: NaN rows), with jobs."""
    grid = Grid.from_bounds(-84.45, 33.742, -84.35, 33.772, cell_size_m=1200.0)
    lat, lon = grid.points()
    frame = pd.DataFrame({"id": [f"c{i}" for i in range(lat.size)], "lat": lat, "lon": lon,
                          "jobs": (np.arange(lat.size) * 37) % 11 + 1})  # fmt: skip
    return PointSet.from_frame(frame)


@pytest.fixture(scope="module")
def no_blue(network: TransportNetwork) -> TransportNetwork:
    routes = network.transit.routes
    blue = str(routes.loc[routes["short_name"] == "BLUE", "route_id"].iloc[0])
    return Scenario("no blue", (RemoveRoutes((blue,)),)).apply(network)


def _alone(net: TransportNetwork, points: PointSet) -> np.ndarray:
    return np.asarray(travel_time_matrix(net, points, request=REQUEST).values)


@pytest.fixture(scope="module")
def alone(
    network: TransportNetwork, no_blue: TransportNetwork, points: PointSet
) -> tuple[np.ndarray, np.ndarray]:
    """The base and no-BLUE matrices, each computed alone."""
    return _alone(network, points), _alone(no_blue, points)


def test_removed_route_shares_street_searches_and_equals_the_separate_matrices(
    network: TransportNetwork,
    no_blue: TransportNetwork,
    points: PointSet,
    alone: tuple[np.ndarray, np.ndarray],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[float, float]] = []
    real = _engine.origin_streets

    def counted(prep: _engine.Prepared, lat: float, lon: float) -> _engine.OriginStreets:
        calls.append((lat, lon))
        return real(prep, lat, lon)

    monkeypatch.setattr(_engine, "origin_streets", counted)
    monkeypatch.setattr(_paired, "origin_streets", counted)
    both = paired_travel_time_matrix(network, no_blue, points, request=REQUEST, n_threads=1)
    assert len(calls) == len(points)  # once per origin, not once per version
    monkeypatch.undo()

    assert both.dims == ("scenario", "origin", "destination", "percentile")
    assert list(both["scenario"].values) == ["a", "b"]
    base, scen = alone
    np.testing.assert_array_equal(both.sel(scenario="a").values, base)
    np.testing.assert_array_equal(both.sel(scenario="b").values, scen)
    changed = np.isfinite(base) & np.isfinite(scen) & (base != scen)
    assert changed.sum() > 0  # removing BLUE slows some trips: the pair is not trivial
    assert np.isnan(base).any()
    assert np.isfinite(base).any()
    labels = travel_time_matrix(network, points, request=REQUEST, chunks=len(points))
    assert both.sel(scenario="a", drop=True).coords.to_dataset().equals(
        labels.coords.to_dataset()
    )  # the labels of travel_time_matrix (lazy: nothing computed)

    # chunked: one dask task per chunk of origins computes both versions, same cells
    lazy = paired_travel_time_matrix(network, no_blue, points, request=REQUEST, chunks=7)
    assert lazy.data.to_delayed().size == -(-len(points) // 7)
    np.testing.assert_array_equal(lazy.compute().values, both.values)


def test_new_stop_does_separate_searches_with_the_same_result(
    network: TransportNetwork, points: PointSet
) -> None:
    stops = network.transit.stops
    first, last = stops.iloc[0], stops.iloc[5]
    new = NewStop(float(first["lat"]) + 0.004, float(first["lon"]), "New stop")
    route = AddRoute(
        name="shuttle", mode="BUS", stops=(str(first["stop_id"]), new, str(last["stop_id"])),
        headway_s=600, start_time=7 * 3600, end_time=10 * 3600, speed_kmh=25.0,
    )  # fmt: skip
    scenario = Scenario("shuttle", (route,))
    shuttle = scenario.apply(network)
    preps = [_engine.prepare(n, REQUEST, points.lat, points.lon) for n in (network, shuttle)]
    assert not _paired.shares_street_searches(*preps)
    both = paired_travel_time_matrix(network, shuttle, points, request=REQUEST, n_threads=1)
    np.testing.assert_array_equal(both.sel(scenario="b").values, _alone(shuttle, points))


def test_compare_scenarios_matrices_equal_the_separate_ones(
    network: TransportNetwork, points: PointSet, alone: tuple[np.ndarray, np.ndarray]
) -> None:
    routes = network.transit.routes
    blue = str(routes.loc[routes["short_name"] == "BLUE", "route_id"].iloc[0])
    ds = compare_scenarios(
        network, None, Scenario("no blue", (RemoveRoutes((blue,)),)), points,
        request=REQUEST, opportunities=points, cutoffs=(900, 1800),
    )  # fmt: skip
    np.testing.assert_array_equal(ds["travel_time"].sel(scenario="a").values, alone[0])
    np.testing.assert_array_equal(ds["travel_time"].sel(scenario="b").values, alone[1])
    assert float(ds["accessibility_difference"].min()) < 0
