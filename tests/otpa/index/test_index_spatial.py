"""Stops in a circle and in a box equal a brute-force filter over stops.txt."""

from __future__ import annotations

import math

import numpy as np
import pytest

from otpa.index import TransitIndex
from otpa.index._spatial import StopSpatialIndex
from tests.conftest import DATA_ROOT, require_data
from tests.fixtures.networks import built_network
from tests.otpa.index._gtfs_csv import csv_feeds

R = 6_371_010.0  # the Earth radius of OTP's (and otpa's) spherical distance


def great_circle_m(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * R * math.asin(math.sqrt(a))


def all_stops(name: str) -> list[tuple[str, float, float]]:
    return [
        (feed.scoped(r["stop_id"]), float(r["stop_lat"]), float(r["stop_lon"]))
        for feed in csv_feeds(name)
        for r in feed.rows("stops.txt")
    ]


@pytest.mark.parametrize("name", ["tiny/atlanta", "small/rnv", "small/porto-alegre"])
@pytest.mark.parametrize("radius", [0.0, 150.0, 800.0, 5000.0])
def test_circle_equals_brute_force(name: str, radius: float) -> None:
    require_data(*name.split("/"))
    index = TransitIndex.of(built_network(DATA_ROOT, name))
    stops = all_stops(name)
    centres = [stops[0][1:], stops[len(stops) // 2][1:], (stops[1][1] + 0.003, stops[1][2])]
    for lat, lon in centres:
        expected = {
            sid: d
            for sid, la, lo in stops
            if (d := great_circle_m(lat, lon, la, lo)) <= radius
            and abs(d - radius) > 1e-6  # leave out stops exactly on the circle (rounding)
        }
        found = index.find_stops_in_circle(lat, lon, radius)
        got = {f.stop.id: f.distance_m for f in found if abs(f.distance_m - radius) > 1e-6}
        assert got.keys() == expected.keys()
        for sid, d in got.items():
            assert d == pytest.approx(expected[sid], abs=1e-6)
        distances = [f.distance_m for f in found]
        assert distances == sorted(distances)


@pytest.mark.parametrize("name", ["tiny/atlanta", "small/porto-alegre"])
def test_box_equals_brute_force(name: str) -> None:
    require_data(*name.split("/"))
    index = TransitIndex.of(built_network(DATA_ROOT, name))
    stops = all_stops(name)
    lats = sorted(s[1] for s in stops)
    lons = sorted(s[2] for s in stops)
    box = (
        lats[len(lats) // 4],
        lons[len(lons) // 4],
        lats[3 * len(lats) // 4],
        lons[len(lons) // 2],
    )
    expected = {sid for sid, la, lo in stops if box[0] <= la <= box[2] and box[1] <= lo <= box[3]}
    got = [s.id for s in index.find_stops_in_box(*box)]
    assert set(got) == expected
    assert len(got) == len(expected)
    assert expected


def test_index_handles_missing_coordinates_and_the_antimeridian() -> None:
    nan = float("nan")
    index = StopSpatialIndex(
        lat=np.array([0.0, nan, 0.0, 10.0]),
        lon=np.array([179.999, 5.0, -179.999, 20.0]),
    )
    rows, dist = index.within_circle(0.0, 180.0, 500.0)
    assert sorted(rows.tolist()) == [0, 2]
    assert dist[0] == pytest.approx(111.19, abs=0.01)
    assert index.within_circle(0.0, 0.0, -1.0)[0].size == 0
    assert index.within_box(-1.0, 179.0, 1.0, 180.0).tolist() == [0]
