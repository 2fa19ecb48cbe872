"""Pattern and trip geometries decode to the GTFS shapes (or stop-to-stop lines), and
semantic hashes are stable."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from otpa.index import TransitIndex
from otpa.index._hash import murmur3_32
from otpa.network import TransportNetwork
from otpa.util.polyline import decode_polyline
from tests.conftest import DATA_ROOT, require_data
from tests.fixtures.networks import built_network
from tests.otpa.index._gtfs_csv import csv_feeds

PRECISION = 1.000001e-5  # encoded polylines keep 5 decimals


def index_of(name: str) -> TransitIndex:
    require_data(*name.split("/"))
    return TransitIndex.of(built_network(DATA_ROOT, name))


def assert_line(points: str, expected: list[tuple[float, float]]) -> None:
    lats, lons = decode_polyline(points)
    assert len(lats) == len(expected)
    for la, lo, (ela, elo) in zip(lats, lons, expected, strict=True):
        assert abs(la - ela) <= PRECISION
        assert abs(lo - elo) <= PRECISION


def test_pattern_geometry_is_the_most_common_shape_of_its_trips() -> None:
    index = index_of("tiny/atlanta")
    feed = csv_feeds("tiny/atlanta")[0]
    shapes = feed.shapes()
    trip_shape = {feed.scoped(r["trip_id"]): r["shape_id"].strip() for r in feed.rows("trips.txt")}
    assert index.list_patterns()
    for pattern in index.list_patterns():
        counts = Counter(trip_shape[t] for t in pattern.trip_ids)
        best = max(counts.values())
        shape = next(trip_shape[t] for t in pattern.trip_ids if counts[trip_shape[t]] == best)
        line = index.get_pattern_geometry(pattern.id)
        assert line.length == len(shapes[shape])
        assert_line(line.points, shapes[shape])
        coords = index.get_pattern_coordinates(pattern.id)
        assert coords == [pytest.approx(p) for p in shapes[shape]]


def test_trip_geometry_is_its_own_shape() -> None:
    index = index_of("small/porto-alegre")
    for feed in csv_feeds("small/porto-alegre"):
        shapes = feed.shapes()
        for row in feed.rows("trips.txt")[::25]:
            line = index.get_trip_geometry(feed.scoped(row["trip_id"]))
            assert_line(line.points, shapes[row["shape_id"].strip()])


def test_geometry_without_shapes_runs_stop_to_stop() -> None:
    index = index_of("small/rnv")
    feed = csv_feeds("small/rnv")[0]
    assert "shapes.txt" not in feed.files
    stops = {
        feed.scoped(r["stop_id"]): (float(r["stop_lat"]), float(r["stop_lon"]))
        for r in feed.rows("stops.txt")
    }
    for pattern in index.list_patterns()[::20]:
        expected = [stops[s] for s in pattern.stop_ids]
        assert_line(index.get_pattern_geometry(pattern.id).points, expected)
        trip = pattern.trip_ids[0]
        assert index.get_trip_geometry(trip) == index.get_pattern_geometry(pattern.id)


def test_murmur3_matches_reference_vectors() -> None:
    assert murmur3_32(b"") == 0
    assert murmur3_32(b"", 1) == 0x514E28B7
    assert murmur3_32(b"hello") == 0x248BFA47
    assert murmur3_32(b"Hello, world!", 1234) == 0xFAF6CDB3
    assert murmur3_32(b"The quick brown fox jumps over the lazy dog") == 0x2E4FF723


def test_semantic_hashes(tmp_path: Path) -> None:
    index = index_of("tiny/atlanta")
    patterns = index.list_patterns()
    hashes = {p.id: index.get_pattern_semantic_hash(p.id) for p in patterns}
    assert len(set(hashes.values())) == len(patterns)  # every stop pattern differs
    for pattern in patterns:
        for trip_id in pattern.trip_ids:
            value = index.get_trip_semantic_hash(trip_id)
            assert value is not None
            prefix, _, times = value.partition(":")
            assert prefix == hashes[pattern.id]
            assert len(times) == 6  # 4 bytes, base64 without padding
    # stable across a save and load of the graph (nothing depends on internal numbering)
    net = built_network(DATA_ROOT, "tiny/atlanta")
    loaded = TransitIndex.of(TransportNetwork.load(net.save(tmp_path / "graph")))
    assert {p.id: loaded.get_pattern_semantic_hash(p.id) for p in patterns} == hashes
    trip = patterns[0].trip_ids[0]
    assert loaded.get_trip_semantic_hash(trip) == index.get_trip_semantic_hash(trip)
    assert loaded.list_stops() == index.list_stops()
    assert loaded.list_patterns() == patterns
