"""`build_network` / `otpa build` on every real data set, and the saved graph round trip."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import pytest

from otpa.cli import main
from otpa.errors import GtfsError, NetworkBuildError, OsmError
from otpa.network import TransportNetwork, build_network
from tests.conftest import DATA_ROOT, require_data
from tests.fixtures.networks import BUILD_SETS, built_network, count_rows, gtfs_sources

FAST_SETS = [s for s in BUILD_SETS if s.startswith("tiny/")]
SLOW_SETS = [pytest.param(s, marks=pytest.mark.slow) for s in BUILD_SETS if s.startswith("small/")]


@pytest.mark.parametrize("name", [*FAST_SETS, *SLOW_SETS])
def test_counts_equal_the_gtfs_files(name: str) -> None:
    folder = require_data(*name.split("/"))
    expected = {"stops": 0, "routes": 0, "trips": 0}
    for _, files in gtfs_sources(folder):
        for key in expected:
            expected[key] += count_rows(files[f"{key}.txt"])
    net = built_network(DATA_ROOT, name)
    summary = net.summary()
    assert {k: summary[k] for k in expected} == expected
    assert summary["patterns"] > 0


@pytest.mark.parametrize("name", FAST_SETS)
def test_saved_graph_round_trip(name: str, tmp_path: Path) -> None:
    require_data(*name.split("/"))
    net = built_network(DATA_ROOT, name)
    path = net.save(tmp_path / "graph")
    back = TransportNetwork.load(path)
    assert back.summary() == net.summary()
    np.testing.assert_array_equal(back.transit.departure_s, net.transit.departure_s)
    np.testing.assert_array_equal(back.stop_vertex, net.stop_vertex)
    assert back.transit.stops.stop_id.tolist() == net.transit.stops.stop_id.tolist()
    assert back.convex_hull == net.convex_hull
    assert back.transit_service_range == net.transit_service_range


def test_cli_build_writes_graph_and_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = require_data("tiny", "atlanta")
    out = tmp_path / "atlanta" / "graph"
    assert main(["build", str(folder), "--out", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "stops" in printed
    assert "street_edges" in printed
    net = TransportNetwork.load(out)
    assert net.summary()["routes"] == 4
    assert net.transit_modes == ["SUBWAY", "BUS"]  # MARTA rail (type 1) + two bus routes


def test_atlanta_router_properties() -> None:
    require_data("tiny", "atlanta")
    net = built_network(DATA_ROOT, "tiny/atlanta")
    min_lon, min_lat, max_lon, max_lat = net.bounds
    stops = net.transit.stops
    assert min_lon <= stops.lon.min() < stops.lon.max() <= max_lon
    assert min_lat <= stops.lat.min() < stops.lat.max() <= max_lat
    assert -85.0 < min_lon < max_lon < -84.0
    assert 33.5 < min_lat < max_lat < 34.2
    lat, lon = net.center
    assert lat == pytest.approx(stops.lat.mean())
    assert lon == pytest.approx(stops.lon.mean())
    start, end = net.transit_service_range or (0, 0)
    assert end > start
    assert dt.datetime.fromtimestamp(start, dt.UTC).hour in (4, 5)  # midnight in Atlanta


def test_directory_without_inputs(tmp_path: Path) -> None:
    (tmp_path / "README.txt").write_text("nothing here")
    with pytest.raises(NetworkBuildError, match="nothing to build"):
        build_network(tmp_path)


def test_truncated_gtfs_zip(tmp_path: Path) -> None:
    src = require_data("tiny", "atlanta", "atlanta-blue-green-line.gtfs.zip").read_bytes()
    (tmp_path / "feed.zip").write_bytes(src[: len(src) // 2])
    with pytest.raises((NetworkBuildError, GtfsError), match=r"corrupt|truncated"):
        build_network(tmp_path)


def test_gtfs_missing_stops(tmp_path: Path) -> None:
    feed = tmp_path / "feed"
    feed.mkdir()
    (feed / "agency.txt").write_text("agency_name,agency_url,agency_timezone\nA,http://a,UTC\n")
    (feed / "routes.txt").write_text("route_id,route_type\nR,3\n")
    (feed / "trips.txt").write_text("route_id,service_id,trip_id\nR,S,T\n")
    (feed / "stop_times.txt").write_text(
        "trip_id,arrival_time,departure_time,stop_id,stop_sequence\nT,08:00:00,08:00:00,A,1\n"
    )
    (feed / "calendar_dates.txt").write_text("service_id,date,exception_type\nS,20260101,1\n")
    with pytest.raises(GtfsError, match=r"stops\.txt"):
        build_network(tmp_path)


def test_osm_without_highways(tmp_path: Path) -> None:
    (tmp_path / "empty.osm").write_text(
        "<?xml version='1.0' encoding='UTF-8'?>\n<osm version='0.6'>\n"
        "<node id='1' lat='48.0' lon='9.0'><tag k='amenity' v='bench'/></node>\n</osm>\n"
    )
    with pytest.raises(OsmError, match="no routable highways"):
        build_network(tmp_path)


def test_failed_cli_build_keeps_existing_graph(tmp_path: Path) -> None:
    folder = require_data("tiny", "mmri", "1a")
    out = tmp_path / "graph"
    assert main(["build", str(folder), "--out", str(out), "--quiet"]) == 0
    before = out.read_bytes()
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "feed.zip").write_bytes(b"PK\x03\x04 truncated")
    assert main(["build", str(bad), "--out", str(out), "--quiet"]) == 2
    assert out.read_bytes() == before


def test_straight_line_transfers_build_option(tmp_path: Path) -> None:
    from otpa.network import BuildConfig, load_build_config

    assert BuildConfig().straight_line_transfers is False  # off by default (OTP 1.x)
    path = tmp_path / "build-config.json"
    path.write_text('{"straightLineTransfers": true, "maxTransferDistance": 500}')
    assert load_build_config(path) == BuildConfig(
        straight_line_transfers=True, max_transfer_distance_m=500.0
    )
    path.write_text('{"straightLineTransfers": "yes"}')
    with pytest.raises(NetworkBuildError, match="straightLineTransfers must be a"):
        load_build_config(path)
