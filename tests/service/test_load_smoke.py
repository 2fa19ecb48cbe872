"""The load test's smoke run: mixed traffic on the demo city while its graph is reloaded."""

from __future__ import annotations

import pytest
from _bench_modules import bench_module

from otpa.testing.demo import demo_city_dir, demo_network, write_demo_city

pytestmark = pytest.mark.http

CLIENTS = 8
SECONDS = 5.0
RELOAD_EVERY_S = 1.5


def test_mixed_load_while_reloading_has_no_errors(tmp_path) -> None:
    load = bench_module("load_service")
    demo_network()  # builds and saves the demo graph once
    day = write_demo_city(tmp_path / "city").sample_date.isoformat()
    with load.serving(demo_city_dir() / "graph", "demo", heavy_workers=2) as server:
        workload = load.Workload(server, day, plans_only=False, seed=3)
        result = load.run_load(
            server, workload, clients=CLIENTS, seconds=SECONDS, reload_every=RELOAD_EVERY_S
        )
    assert result.error_samples == []
    assert (result.errors, result.server_errors) == (0, 0)
    assert set(result.counts) == {"plan", "index", "graphql", "isochrone"}
    assert all(n > 0 for n in result.counts.values()), result.counts
    total = sum(result.counts.values()) + result.shed
    assert result.shed <= 0.01 * total  # the pools hold 8 clients without shedding
    assert result.reloads >= 2
    assert result.reload_failures == 0
