"""``bench_plan.py --passes``: each pass plans its requests from the same per-point state."""

from __future__ import annotations

from _bench_modules import bench_module

from otpa.routing import _access, _legs, street_router
from otpa.testing.demo import demo_network


def test_each_pass_forgets_the_points_planned_before() -> None:
    bench = bench_module("bench_plan")
    net = demo_network()
    assert net.street is not None
    lat, lon = float(net.street.vertex_lat[0]), float(net.street.vertex_lon[0])
    key = (lat, lon, "WALK", 500.0)
    assert street_router.snap_point(net, lat, lon, mode="WALK") is not None
    assert street_router._SNAPS.get(net.street, key) is not None  # kept for the next plan
    bench._forget_planned_points()
    assert street_router._SNAPS.get(net.street, key) is None
    assert len(street_router._SNAPS) == 0
    assert len(_access._TRANSFERS) == 0
    assert len(_legs._RIDE_GEOMETRY) == 0


def test_passes_option_defaults_to_one_pass() -> None:
    bench = bench_module("bench_plan")
    assert bench._parse_args([]).passes == 1
    assert bench._parse_args(["--passes", "5"]).passes == 5
