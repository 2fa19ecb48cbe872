"""``bike-rental`` updaters (``sourceType: gbfs``) polling a real Tornado server on loopback.

The server serves OTP's Helsinki GBFS v1 sample (its ``gbfs.json`` lists ``file:`` URLs of
another machine, so the files are read next to ``gbfs.json`` on the server); the test
changes a station's status, breaks a file, then stops the server: the store follows the
good feeds and keeps the last good snapshot otherwise, the status says why.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import tornado.web

from otpa.mobility import current_rental, mobility_store_for, start_rental_updaters
from otpa.network import BuildConfig, TransportNetwork, build_network
from tests.conftest import require_data
from tests.fixtures.loopback import serve_app

pytestmark = pytest.mark.http


class _Files(tornado.web.RequestHandler):
    def initialize(self, files: dict[str, bytes]) -> None:
        self.files = files

    def get(self, name: str) -> None:
        if name not in self.files:
            raise tornado.web.HTTPError(404)
        self.set_header("Content-Type", "application/json")
        self.finish(self.files[name])


@pytest.fixture(scope="module")
def network() -> TransportNetwork:
    data = require_data("tiny", "mmri")
    return build_network(data / "3b", config=BuildConfig(max_transfer_distance_m=0.0))


def test_http_feed_is_followed_and_a_feed_that_goes_away_keeps_the_last_data(
    network: TransportNetwork, tmp_path: Path
) -> None:
    folder = require_data("extras", "gbfs", "helsinki")
    files = {p.name: p.read_bytes() for p in folder.glob("*.json")}
    base, stop = serve_app(tornado.web.Application([(r"/gbfs/(.*)", _Files, {"files": files})]))
    stopped = False
    try:
        config = {
            "updaters": [
                {
                    "type": "bike-rental",
                    "sourceType": "gbfs",
                    "url": f"{base}/gbfs/gbfs.json",
                    "frequencySec": 1,
                    "network": "hsl",
                }
            ]
        }
        (updater,) = start_rental_updaters(network, config, tmp_path, start=False)
        assert updater.poll_once()
        state = current_rental(network, include_osm=False)
        assert state.networks == ("hsl",)
        stations = state.snapshots["hsl"].stations
        first = (len(stations), stations.ids[0], int(stations.vehicles_available[0]))
        assert first == (7, "001", 2)
        assert set(stations.network) == {"hsl"}
        report = updater.status().last_report
        assert report is not None
        counts = (report.applied, report.details["stations"], report.snapshot)
        assert counts == (7, 7, state.version)
        assert any("station '010' has no valid position" in m for m in report.messages)

        # station 001 runs empty: the next poll publishes it
        status = json.loads(files["station_status.json"])
        status["data"]["stations"][0]["num_bikes_available"] = 0
        files["station_status.json"] = json.dumps(status).encode()
        assert updater.poll_once()
        state2 = current_rental(network, include_osm=False)
        assert state2.version == state.version + 1
        assert state2.stations.vehicles_available[0] == 0
        assert not state2.stations.pickup_mask()[0]
        assert state2.stations.pickup_mask()[1]

        # a broken station file: nothing is published, the status names the file
        files["station_status.json"] = b"{oops"
        assert not updater.poll_once()
        assert current_rental(network, include_osm=False).version == state2.version
        err = updater.status().last_error
        assert err is not None
        assert err.startswith("GbfsError: station_status: station_status.json is not JSON")

        # the server goes away: the last good data keeps serving
        stop()
        stopped = True
        assert not updater.poll_once()
        st = updater.status()
        assert st.last_error is not None
        assert "gbfs.json cannot be read" in st.last_error
        assert (st.successes, st.failures, st.consecutive_failures) == (2, 2, 2)
        kept = current_rental(network, include_osm=False)
        assert kept.version == state2.version
        assert kept is current_rental(network, include_osm=False)
        assert kept.stations.vehicles_available[0] == 0
    finally:
        if not stopped:
            stop()


def test_file_source_folder_and_unknown_files(network: TransportNetwork, tmp_path: Path) -> None:
    shutil.copytree(require_data("extras", "gbfs", "ridecheck", "almere"), tmp_path / "almere")
    config = {
        "updaters": [
            {"type": "vehicle-rental", "sourceType": "gbfs", "file": "almere", "frequencySec": 0}
        ]
    }
    (updater,) = start_rental_updaters(network, config, tmp_path, start=False)
    assert updater.config.supported
    assert updater.poll_once()
    snap = current_rental(network, include_osm=False).snapshots["check_almere"]
    assert (snap.kind, len(snap.vehicles), len(snap.zones)) == ("vehicle-rental", 6, 14)
    # the listed file disappears: free-floating data is core, so the poll fails
    (tmp_path / "almere" / "vehicle_status.json").unlink()
    assert not updater.poll_once()
    err = updater.status().last_error
    assert err is not None
    assert "vehicle_status: cannot be read" in err
    assert len(current_rental(network, include_osm=False).snapshots["check_almere"].vehicles) == 6


def test_v3_feed_with_absolute_http_urls(network: TransportNetwork, tmp_path: Path) -> None:
    """gbfs.json listing the server's own http URLs (as real feeds do): read as written."""
    folder = require_data("extras", "gbfs", "duplicate-stations-v3")
    files = {p.name: p.read_bytes() for p in folder.glob("*.json")}
    base, stop = serve_app(tornado.web.Application([(r"/v3/(.*)", _Files, {"files": files})]))
    try:
        doc = json.loads(files["gbfs.json"])
        for feed in doc["data"]["feeds"]:
            feed["url"] = f"{base}/v3/{feed['name']}.json"
        files["gbfs.json"] = json.dumps(doc).encode()
        del files["system_information.json"]  # listed but gone: a warning, not fatal
        config = {
            "updaters": [{"type": "bike-rental", "url": f"{base}/v3/gbfs.json", "network": "dup3"}]
        }
        (updater,) = start_rental_updaters(network, config, tmp_path, start=False)
        assert updater.poll_once(), updater.status().last_error
        snap = current_rental(network, include_osm=False).snapshots["dup3"]
        assert (snap.version, snap.stations.ids) == (
            "3.0",
            ("station_1", "station_duplicate", "station_3"),
        )
        report = updater.status().last_report
        assert report is not None
        assert any(
            m.startswith("warning: system_information: cannot be read (http://127.0.0.1:")
            and "404" in m
            for m in report.messages
        )
    finally:
        stop()


def test_the_ibi_region_of_a_feed_comes_from_the_updater_entry(
    network: TransportNetwork, tmp_path: Path
) -> None:
    """``regionsGeoJson`` (the ibi fork's drop-off region) rides along with the snapshot;
    a region that is not (Multi)Polygon GeoJSON fails the poll and says so."""
    shutil.copytree(require_data("extras", "gbfs", "ridecheck", "almere"), tmp_path / "almere")
    ring = [[5.0, 52.0], [5.5, 52.0], [5.5, 52.6], [5.0, 52.6], [5.0, 52.0]]
    region = {"type": "Feature", "properties": {"name": "Almere"},
              "geometry": {"type": "Polygon", "coordinates": [ring]}}  # fmt: skip
    entry = {"type": "vehicle-rental", "sourceType": "gbfs", "file": "almere",
             "frequencySec": 0, "regionsGeoJson": region}  # fmt: skip
    (updater,) = start_rental_updaters(network, {"updaters": [entry]}, tmp_path, start=False)
    try:
        assert updater.poll_once(), updater.status().last_error
        snap = current_rental(network, include_osm=False).snapshots["check_almere"]
        assert snap.dropoff_region is not None
        inside = snap.dropoff_region.contains(snap.vehicles.lat, snap.vehicles.lon)
        assert inside.tolist() == [
            5.0 <= lo <= 5.5 and 52.0 <= la <= 52.6
            for la, lo in zip(snap.vehicles.lat, snap.vehicles.lon, strict=True)
        ]
        bad = {**entry, "regionsGeoJson": {"type": "Feature", "geometry": {"type": "Point"}}}
        (broken,) = start_rental_updaters(network, {"updaters": [bad]}, tmp_path, start=False)
        assert not broken.poll_once()
        assert "regionsGeoJson" in (broken.status().last_error or "")
    finally:
        mobility_store_for(network).remove(f"updater-{updater.config.index}")
