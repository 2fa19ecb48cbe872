"""OSM parking and rental features of real cities, counted in the build summary.

The expected counts come from a separate minimal pyosmium handler written here (nodes
and ways with a located node; OTP's park-and-ride rule), never from the build's code.
Atlanta is built once per session (shared with the build tests); Porto Alegre and the
RNV region are slow builds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import osmium
import pytest

from otpa.mobility import current_rental, near_transit, osm_rental_snapshot, parking_lots
from tests.conftest import DATA_ROOT, require_data
from tests.fixtures.networks import built_network

KINDS = ("park_and_ride", "bike_parking", "bike_rental")


class _Count(osmium.SimpleHandler):  # type: ignore[misc]
    def __init__(self) -> None:
        super().__init__()
        self.counts = dict.fromkeys(KINDS, 0)

    @staticmethod
    def _kind(tags: Any) -> str | None:
        amenity = tags.get("amenity")
        if amenity == "bicycle_rental":
            return "bike_rental"
        if amenity == "bicycle_parking":
            return "bike_parking"
        if amenity == "parking":
            park_ride = tags.get("park_ride")
            parking = tags.get("parking")
            if (park_ride is not None and park_ride.lower() != "no") or (
                parking is not None and "park_and_ride" in parking
            ):
                return "park_and_ride"
        return None

    def node(self, n: Any) -> None:
        kind = self._kind(n.tags)
        if kind is not None:
            self.counts[kind] += 1

    def way(self, w: Any) -> None:
        kind = self._kind(w.tags)
        if kind is not None and any(nd.location.valid() for nd in w.nodes):
            self.counts[kind] += 1


def _independent(folder: Path) -> dict[str, int]:
    total = dict.fromkeys(KINDS, 0)
    for path in sorted(folder.glob("*.pbf")) + sorted(folder.glob("*.osm")):
        handler = _Count()
        handler.apply_file(str(path), locations=True)
        for k, v in handler.counts.items():
            total[k] += v
    return total


CITIES = [
    "tiny/atlanta",
    pytest.param("small/porto-alegre", marks=pytest.mark.slow),
    pytest.param("small/rnv", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("name", CITIES)
def test_build_summary_counts_the_osm_parking_and_rental_features(name: str) -> None:
    folder = require_data(*name.split("/"))
    expected = _independent(folder)
    net = built_network(DATA_ROOT, name)
    summary = net.summary()
    assert {k: summary[k] for k in KINDS} == expected
    assert net.has_park_ride == (expected["park_and_ride"] > 0)
    assert net.has_bike_park == (expected["bike_parking"] > 0)
    lots = parking_lots(net, "park_and_ride")
    assert len(lots) == expected["park_and_ride"]
    assert len(parking_lots(net, "bike_parking")) == expected["bike_parking"]
    assert (osm_rental_snapshot(net) is None) == (expected["bike_rental"] == 0)


def test_atlanta_park_and_ride_lots_and_their_transit_distance() -> None:
    require_data("tiny", "atlanta")
    net = built_network(DATA_ROOT, "tiny/atlanta")
    lots = parking_lots(net, "park_and_ride")
    assert len(lots) == 3
    assert all(i.startswith("osm:") for i in lots.ids)
    # distance to the nearest stop, computed here with an equirectangular approximation
    stops = net.transit.stops
    slat, slon = stops.lat.to_numpy(float), stops.lon.to_numpy(float)
    nearest = []
    for la, lo in zip(lots.lat, lots.lon, strict=True):
        dx = np.radians(slon - lo) * np.cos(np.radians(la)) * 6371008.8
        dy = np.radians(slat - la) * 6371008.8
        nearest.append(float(np.hypot(dx, dy).min()))
    for cutoff in (50.0, 400.0, 2000.0, 1e7):
        got = near_transit(net, lots, cutoff).tolist()
        assert got == [d <= cutoff for d in nearest], cutoff
    assert near_transit(net, lots, 1e7).all()
    assert len(current_rental(net).snapshots) == 0  # no rental station in this extract
