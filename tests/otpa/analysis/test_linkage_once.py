"""What every task of a matrix shares is built once: the egress table and its sorted arrays.

A matrix's dask tasks each call :func:`otpa.analysis._engine.prepare`; the first two
start together and used to run every stop's street search twice.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from otpa.analysis import AnalysisRequest, Grid
from otpa.analysis import _linkage as linkage
from otpa.analysis._engine import _link_arrays, prepare
from otpa.network import TransportNetwork
from otpa.routing.engine import street_options
from tests.fixtures.networks import built_network

_DEPARTURE = dt.datetime(2021, 9, 15, 8, 0)


@pytest.fixture(scope="module")
def atlanta(data_root: Path) -> TransportNetwork:
    return built_network(data_root, "tiny/atlanta")


def _link_together(
    atlanta: TransportNetwork, monkeypatch: pytest.MonkeyPatch, cell_size_m: float, n: int
) -> tuple[list[Any], list[int]]:
    grid = Grid.from_bounds(-84.43, 33.73, -84.36, 33.77, cell_size_m=cell_size_m)
    lat, lon = (np.asarray(a) for a in grid.points())
    options = street_options(AnalysisRequest(departure=_DEPARTURE).plan_request(), "WALK")
    builds: list[int] = []
    real = linkage._link

    def slow_link(*args: Any, **kw: Any) -> Any:
        builds.append(1)
        time.sleep(0.3)  # every other thread asks meanwhile
        return real(*args, **kw)

    monkeypatch.setattr(linkage, "_link", slow_link)
    start = threading.Barrier(n)
    results: list[Any] = [None] * n

    def link(k: int) -> None:
        start.wait()
        results[k] = linkage.link_targets(
            atlanta, lat, lon, options, max_time_s=1200.0, max_distance_m=1500.0
        )

    threads = [threading.Thread(target=link, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results, builds


def test_concurrent_links_build_once(
    atlanta: TransportNetwork, monkeypatch: pytest.MonkeyPatch
) -> None:
    results, builds = _link_together(atlanta, monkeypatch, 530.0, 3)
    assert len(builds) == 1
    assert all(r is results[0] for r in results)
    assert results[0].egress.n_links > 0
    assert not linkage._ONE_BUILD._held  # the key's lock is gone with its last holder


def test_a_failed_build_is_retried_by_the_next_thread(
    atlanta: TransportNetwork, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = linkage._link
    failed: list[int] = []

    def fail_once(*args: Any, **kw: Any) -> Any:
        if not failed:
            failed.append(1)
            msg = "first build fails"
            raise RuntimeError(msg)
        return real(*args, **kw)

    monkeypatch.setattr(linkage, "_link", fail_once)
    grid = Grid.from_bounds(-84.43, 33.73, -84.36, 33.77, cell_size_m=610.0)
    lat, lon = (np.asarray(a) for a in grid.points())
    options = street_options(AnalysisRequest(departure=_DEPARTURE).plan_request(), "WALK")
    limits = {"max_time_s": 1200.0, "max_distance_m": 1500.0}
    with pytest.raises(RuntimeError, match="first build fails"):
        linkage.link_targets(atlanta, lat, lon, options, **limits)
    assert not linkage._ONE_BUILD._held
    assert linkage.link_targets(atlanta, lat, lon, options, **limits).egress.n_links > 0


def test_prepared_analyses_share_the_sorted_egress_arrays(atlanta: TransportNetwork) -> None:
    """Each dask task prepares; the sorted egress arrays are built once per table and
    connector times, and are what sorting that table gives."""
    grid = Grid.from_bounds(-84.43, 33.73, -84.36, 33.77, cell_size_m=560.0)
    lat, lon = (np.asarray(a) for a in grid.points())
    request = AnalysisRequest(departure=_DEPARTURE, max_time_s=1800, window_s=600)
    first = prepare(atlanta, request, lat, lon)
    again = prepare(atlanta, request, lat, lon)
    assert again.links is first.links
    assert again.link_stop is first.link_stop
    assert again.link_time_s is first.link_time_s
    assert not first.link_stop.flags.writeable  # shared by every task: read-only
    assert not first.link_time_s.flags.writeable
    stop, time_s = _link_arrays(first.links, first.connector_s)
    assert first.link_stop.tobytes() == stop.tobytes()
    assert first.link_time_s.tobytes() == time_s.tobytes()
    assert np.any(first.connector_s > 0)
    # other connector times over the same table: arrays of their own
    bare = prepare(atlanta, request.replace(walk_connectors=False), lat, lon)
    assert bare.links.egress is first.links.egress
    assert not np.any(bare.connector_s)
    stop, time_s = _link_arrays(bare.links, bare.connector_s)
    assert bare.link_time_s.tobytes() == time_s.tobytes()
    assert bare.link_time_s.tobytes() != first.link_time_s.tobytes()
