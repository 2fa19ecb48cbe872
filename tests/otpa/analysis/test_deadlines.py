"""Analyses stop at the search deadline of otpa.routing.deadline, checked between their steps.

A fake clock stands in for ``time.monotonic`` in the deadline module: each origin of a
matrix "takes" one second, so the deadline falls between known origins.
"""

from __future__ import annotations

import datetime as dt
import threading
from typing import Any

import numpy as np
import pandas as pd
import pytest

from otpa.analysis import PointSet, compute_time_surface, indicator, isochrones
from otpa.analysis import matrix as matrix_module
from otpa.analysis import surface as surface_module
from otpa.analysis._layout import surface_dataset
from otpa.analysis.grid import Grid
from otpa.network import TransportNetwork
from otpa.routing import deadline, vertex_trees
from otpa.routing.deadline import search_deadline
from otpa.routing.errors import SearchTimeoutError
from otpa.testing.demo import demo_network, write_demo_city


class FakeClock:
    """``time.monotonic`` that moves only when told (shared by every thread)."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.lock = threading.Lock()

    def monotonic(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        with self.lock:
            self.now += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(deadline, "time", fake)
    return fake


@pytest.fixture(scope="module")
def demo() -> TransportNetwork:
    return demo_network()


@pytest.fixture(scope="module")
def city(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return write_demo_city(tmp_path_factory.mktemp("city"))


@pytest.fixture(scope="module")
def points(city: Any) -> PointSet:
    names = sorted(city.places)[:6]
    frame = pd.DataFrame(
        {
            "id": names,
            "lat": [city.places[n][0] for n in names],
            "lon": [city.places[n][1] for n in names],
            "jobs": np.arange(len(names)) * 10.0,
        }
    )
    return PointSet.from_frame(frame, id_column="id")


def _departure(city: Any) -> dt.datetime:
    return dt.datetime.combine(city.sample_date, dt.time(8, 0))


def test_a_matrix_stops_between_origins_at_its_deadline(
    demo: TransportNetwork, city: Any, points: PointSet, clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    done: list[float] = []
    real_one = matrix_module._one

    def one(prep: Any, lat: float, lon: float) -> Any:
        done.append(lat)
        clock.advance(1.0)  # each origin takes a second
        return real_one(prep, lat, lon)

    monkeypatch.setattr(matrix_module, "_one", one)
    full = matrix_module.travel_time_matrix(demo, points, departure=_departure(city), n_threads=1)
    assert len(done) == len(points) == 6  # no deadline: every origin
    done.clear()
    with search_deadline(2.5), pytest.raises(SearchTimeoutError, match="before origin 4 of 6"):
        matrix_module.travel_time_matrix(demo, points, departure=_departure(city), n_threads=1)
    assert len(done) == 3  # origins at t = 0, 1, 2 ran; the one at t = 3 did not start
    assert np.isfinite(full.values).any()


def test_a_matrix_in_threads_sees_the_deadline(
    demo: TransportNetwork, city: Any, points: PointSet, clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    done: list[float] = []
    real_prepare = matrix_module.prepare

    def prepare(*args: Any, **kwargs: Any) -> Any:
        prep = real_prepare(*args, **kwargs)
        clock.advance(2.0)  # the deadline passes while linking, before the first origin
        return prep

    monkeypatch.setattr(matrix_module, "prepare", prepare)
    monkeypatch.setattr(matrix_module, "_one", lambda *a: done.append(1.0))
    with search_deadline(1.0), pytest.raises(SearchTimeoutError, match="before origin"):
        matrix_module.travel_time_matrix(demo, points, departure=_departure(city), n_threads=3)
    assert done == []  # no worker thread started an origin


def test_a_surface_stops_before_its_transit_search(
    demo: TransportNetwork, city: Any, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_prepare = surface_module.prepare
    searched: list[int] = []

    def prepare(*args: Any, **kwargs: Any) -> Any:
        prep = real_prepare(*args, **kwargs)
        clock.advance(5.0)  # linking the destinations takes longer than the time left
        return prep

    monkeypatch.setattr(surface_module, "prepare", prepare)
    monkeypatch.setattr(surface_module, "origin_times", lambda *a, **k: searched.append(1))
    origin = city.places["Westgate"]
    with search_deadline(3.0), pytest.raises(SearchTimeoutError, match="before the transit"):
        compute_time_surface(demo, origin, _departure(city), max_time=1800)
    assert searched == []
    with search_deadline(0.0), pytest.raises(SearchTimeoutError, match="before linking"):
        compute_time_surface(demo, origin, _departure(city))


def test_isochrones_and_indicators_stop_between_contours_and_columns(
    points: PointSet, clock: FakeClock
) -> None:
    grid = Grid.around(float(points.lat[0]), float(points.lon[0]), 2000.0, cell_size_m=100.0)
    glat, glon = grid.points()
    tt = (np.hypot(glat - points.lat[0], glon - points.lon[0]) * 1e5)[None, :]
    surface = surface_dataset(grid, tt, [50], attrs={})
    assert len(isochrones(surface, [300, 600])) == 2  # no deadline
    with search_deadline(0.0), pytest.raises(SearchTimeoutError, match="before the 300 s"):
        isochrones(surface, [300, 600])
    assert set(indicator(surface, points).histograms) == {"jobs"}
    with search_deadline(0.0), pytest.raises(SearchTimeoutError, match="histogram of jobs"):
        indicator(surface, points)


def test_linking_stops_between_the_stops_egress_searches(
    demo: TransportNetwork, city: Any, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    searches: list[int] = []
    real_chunk = vertex_trees._run_chunk

    def run_chunk(*args: Any, **kwargs: Any) -> Any:
        searches.append(1)
        clock.advance(1.0)  # each chunk of stop trees takes a second
        return real_chunk(*args, **kwargs)

    monkeypatch.setattr(vertex_trees, "_run_chunk", run_chunk)
    # destinations no earlier test linked (the links are cached per network and points)
    grid = Grid.around(*city.places["Harbour"], 1500.0, cell_size_m=137.0)
    with search_deadline(2.5), pytest.raises(SearchTimeoutError, match="egress searches"):
        compute_time_surface(demo, city.places["Westgate"], _departure(city), target=grid)
    stopped_after = len(searches)
    searches.clear()
    compute_time_surface(demo, city.places["Westgate"], _departure(city), target=grid)
    # the chunks that began before the deadline (at most one per worker thread past it)
    assert 3 <= stopped_after < len(searches)
