"""Which stops a surface links to its destinations, and that the times do not depend on it.

A street-only surface links no stop; a single-origin transit surface links only the stops
its transit search reaches (the rows of those stops are the full table's).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from otpa.analysis import AnalysisRequest, Grid, compute_time_surface
from otpa.analysis import _linkage as linkage
from otpa.analysis._engine import origin_times, prepare
from otpa.network import TransportNetwork
from otpa.routing.engine import street_options
from tests.fixtures.networks import built_network

#: A Wednesday inside MARTA's weekday service (see test_plan_atlanta).
ATL_DEPARTURE = dt.datetime(2021, 9, 15, 8, 0)
HERE = (33.758491, -84.404276)


@pytest.fixture(scope="module")
def atlanta(data_root: Path) -> TransportNetwork:
    return built_network(data_root, "tiny/atlanta")


def _grid(cell_size_m: float) -> Grid:
    """A grid of its own per test: the egress tables are cached per points and options."""
    return Grid.from_bounds(-84.43, 33.73, -84.36, 33.77, cell_size_m=cell_size_m)


@pytest.fixture
def searched(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The stop vertices each call of the stop trees searched from (one entry per call)."""
    calls: list[int] = []
    real = linkage.vertex_tree_readings

    def counting(network: TransportNetwork, vertices: Any, *args: Any, **kw: Any) -> Any:
        calls.append(len(vertices))
        return real(network, vertices, *args, **kw)

    monkeypatch.setattr(linkage, "vertex_tree_readings", counting)
    return calls


def test_walking_surface_builds_no_stop_trees(
    atlanta: TransportNetwork, searched: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    grid = _grid(410.0)
    walk = compute_time_surface(atlanta, HERE, ATL_DEPARTURE, target=grid, modes="WALK")
    assert searched == []
    times = walk.travel_time.to_numpy()
    assert 20 < np.isfinite(times).sum() < times.size
    # the same surface with every stop linked (as before): the same bytes
    real = linkage.link_targets

    def link_all(*args: Any, **kw: Any) -> Any:
        return real(*args, **{**kw, "stops": None})

    monkeypatch.setattr("otpa.analysis._engine.link_targets", link_all)
    before = compute_time_surface(atlanta, HERE, ATL_DEPARTURE, target=grid, modes="WALK")
    assert searched
    assert searched[0] > 10  # every stop's tree ran
    assert before.travel_time.to_numpy().tobytes() == times.tobytes()


def test_single_origin_surface_links_only_the_reached_stops(
    atlanta: TransportNetwork, searched: list[int]
) -> None:
    grid = _grid(310.0)
    request = AnalysisRequest(departure=ATL_DEPARTURE, max_time_s=1200, window_s=600)
    surface = compute_time_surface(atlanta, HERE, target=grid, request=request)
    times = surface.travel_time.to_numpy()
    assert len(searched) == 1
    lat, lon = grid.points()
    full = prepare(atlanta, request, np.asarray(lat), np.asarray(lon))
    n_vertices = np.unique(atlanta.stop_vertex[atlanta.stop_vertex >= 0]).size
    assert searched[1] == n_vertices > 3 * searched[0] > 0  # a 20-minute reach: a few stops
    expected = origin_times(full, *HERE).times
    assert expected.reshape(times.shape).tobytes() == times.tobytes()
    # transit reaches cells that walking does not
    walk = compute_time_surface(atlanta, HERE, target=grid, request=request.replace(modes="WALK"))
    assert np.isfinite(times).sum() > np.isfinite(walk.travel_time.to_numpy()).sum()


def test_a_subset_of_stops_gets_the_rows_of_the_full_table(atlanta: TransportNetwork) -> None:
    grid = _grid(510.0)
    lat, lon = (np.asarray(a) for a in grid.points())
    options = street_options(AnalysisRequest(departure=ATL_DEPARTURE).plan_request(), "WALK")
    limits = {"max_time_s": 1500.0, "max_distance_m": 2000.0}
    full = linkage.link_targets(atlanta, lat, lon, options, **limits).egress
    some = np.unique(full.stop)[::3]
    part = linkage.link_targets(atlanta, lat, lon, options, **limits, stops=some).egress
    keep = np.isin(full.stop, some)
    point = np.repeat(np.arange(lat.size), np.diff(full.indptr))
    assert part.n_links == int(keep.sum()) > 0
    assert part.stop.tobytes() == full.stop[keep].tobytes()
    assert part.time_s.tobytes() == full.time_s[keep].tobytes()
    counts = np.bincount(point[keep], minlength=lat.size)
    assert np.diff(part.indptr).tolist() == counts.tolist()
    none = linkage.link_targets(atlanta, lat, lon, options, **limits, stops=some[:0])
    assert none.egress.n_links == 0
    assert none.snaps is not None
    assert none.snaps.edge.tobytes() == part_snaps(atlanta, lat, lon)


def part_snaps(network: TransportNetwork, lat: np.ndarray, lon: np.ndarray) -> bytes:
    """The snaps' edges as :func:`otpa.routing.engine.snap_many` gives them."""
    from otpa.routing.engine import snap_many

    assert network.street is not None
    return snap_many(network.street, lat, lon, "WALK", linkage.LINK_RADIUS_M).edge.tobytes()
