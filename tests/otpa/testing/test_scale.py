"""The synthetic scale region: deterministic, proportional to ``scale``, buildable, routable."""

from __future__ import annotations

import datetime as dt
import zipfile
from pathlib import Path

import pytest

from otpa.errors import InvalidArgumentError
from otpa.network import TransportNetwork, build_network
from otpa.routing import Location, PlanRequest
from otpa.routing.planner import plan
from otpa.testing.scale import ScaleCity, generate_scale_city

TINY = 8  # blocks per town side: 2 bus lines per axis, 3 stops each


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> ScaleCity:
    return generate_scale_city(tmp_path_factory.mktemp("s1"), scale=0.25, town_blocks=TINY)


@pytest.fixture(scope="module")
def network(small: ScaleCity) -> TransportNetwork:
    return build_network(small.directory)


def _members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def test_same_seed_same_bytes_other_seed_other_geometry_and_times(
    small: ScaleCity, tmp_path: Path
) -> None:
    again = generate_scale_city(tmp_path / "a", scale=0.25, town_blocks=TINY)
    assert again.osm_path.read_bytes() == small.osm_path.read_bytes()
    assert again.gtfs_path.read_bytes() == small.gtfs_path.read_bytes()
    other = generate_scale_city(tmp_path / "b", scale=0.25, seed=1, town_blocks=TINY)
    assert other.osm_path.read_bytes() != small.osm_path.read_bytes()
    a, b = _members(small.gtfs_path), _members(other.gtfs_path)
    assert a["stop_times.txt"] != b["stop_times.txt"]
    assert a["routes.txt"] == b["routes.txt"]  # the seed moves things, not the structure


def test_counts_grow_with_scale(small: ScaleCity, tmp_path: Path) -> None:
    big = generate_scale_city(tmp_path / "x4", scale=1.0, town_blocks=TINY)
    assert (small.n_towns, big.n_towns) == (2, 8)
    # 2 towns: 2 x 4 bus lines of 3 stops, 1 rail line of the 2 stations, both ways
    assert small.n_stops == 2 * 4 * 3 + 2
    assert small.n_routes == 2 * 4 + 1
    trips = _members(small.gtfs_path)["trips.txt"].decode().splitlines()[1:]
    bus = sum(t.startswith("bus-") for t in trips)
    rail = sum(t.startswith("rail-RE1,") for t in trips)
    assert bus + rail == len(trips) == small.n_trips
    assert 2 * 4 * 2 * 80 <= bus <= 2 * 4 * 2 * 84  # every 10-20 min, 05:00-24:00
    assert rail == 2 * 38  # every 30 min, 05:00-24:00
    assert small.n_stop_times == 3 * bus + 2 * rail
    with zipfile.ZipFile(big.gtfs_path) as zf:
        rows = zf.read("stop_times.txt").count(b"\n") - 1
    assert rows == big.n_stop_times
    assert 3.6 <= big.n_stop_times / small.n_stop_times <= 4.4
    assert 3.6 <= big.n_stops / small.n_stops <= 4.4
    assert 3.6 <= big.n_nodes / small.n_nodes <= 4.4


def test_bad_arguments_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgumentError, match="town_blocks"):
        generate_scale_city(tmp_path, town_blocks=12)
    with pytest.raises(InvalidArgumentError, match="scale"):
        generate_scale_city(tmp_path, scale=0)
    assert not any(tmp_path.iterdir())


def test_builds_and_plans_between_towns_by_rail(
    small: ScaleCity, network: TransportNetwork
) -> None:
    counts = network.meta["gtfs_counts"]
    assert counts["stop_times"] == small.n_stop_times
    assert counts["stops"] == small.n_stops
    (a_lat, a_lon), (b_lat, b_lon) = small.towns[0], small.towns[1]
    request = PlanRequest(
        from_place=Location(lat=a_lat, lon=a_lon),
        to_place=Location(lat=b_lat, lon=b_lon),
        date_time=dt.datetime.combine(small.sample_date, dt.time(8, 0)),
    )
    result = plan(network, request)
    assert result.itineraries
    best = result.itineraries[0]
    modes = [leg.mode for leg in best.legs]
    assert modes == ["WALK", "RAIL", "WALK"]
    rail = best.legs[1]
    assert rail.route_short_name == "RE1"
    assert rail.from_place.stop_id.endswith("t1-station")
    assert rail.to_place.stop_id.endswith("t2-station")
