"""The router registry flows over real HTTP, on real graphs built and saved by the pipeline.

The other service tests use ``FakeNetwork``; here the graphs folder holds files
written by ``TransportNetwork.save`` (the demo city and the tiny Atlanta data
set) and the server loads them with the real ``TransportNetwork.load``.
"""

from __future__ import annotations

import io
import json
import shutil
import threading
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from _fakes import ALICE, Service, basic

from otpa.network import TransportNetwork, build_network
from otpa.network._container import FORMAT_VERSION
from otpa.testing.demo import write_demo_city
from tests.conftest import require_data

pytestmark = pytest.mark.http

AUTH = basic(*ALICE)
OCTET = {**AUTH, "Content-Type": "application/octet-stream"}
LONG_MAX = 9223372036854775807

READERS = 4
MAX_READS_PER_READER = 200  # bound on the reads made while the upload runs
READS_AFTER_UPLOAD = 5


@dataclass(frozen=True)
class RealGraphs:
    """A pristine graphs folder (``demo/graph``, ``atlanta/graph``) and the networks read back."""

    base: Path
    networks: dict[str, TransportNetwork]

    def graph_bytes(self, router_id: str) -> bytes:
        return (self.base / router_id / "graph").read_bytes()


@pytest.fixture(scope="session")
def real_graphs(tmp_path_factory: pytest.TempPathFactory) -> RealGraphs:
    """Build the demo city and Atlanta once per session and save them as a graphs folder."""
    atlanta_src = require_data("tiny", "atlanta")
    root = tmp_path_factory.mktemp("real-graphs")
    base = root / "graphs"
    city = write_demo_city(root / "demo-city")
    build_network(city.directory).save(base / "demo" / "graph")
    build_network(atlanta_src).save(base / "atlanta" / "graph")
    networks = {rid: TransportNetwork.load(base / rid / "graph") for rid in ("demo", "atlanta")}
    return RealGraphs(base, networks)


@pytest.fixture
def real_service(make_service, real_graphs: RealGraphs, tmp_path: Path) -> Service:
    """A server on a private copy of the real graphs folder, with the real loader."""
    graphs_dir = shutil.copytree(real_graphs.base, tmp_path / "real-graphs")
    return make_service(loader=None, graphs_dir=graphs_dir)


def info_of(svc: Service, router_id: str) -> dict[str, Any]:
    resp = svc.get(f"/otp/routers/{router_id}")
    assert resp.status == 200, resp.text
    return resp.json()


def without_id(info: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in info.items() if k != "routerId"}


def check_info(info: dict[str, Any], router_id: str, net: TransportNetwork) -> None:
    """The RouterInfo fields that follow directly from the saved network."""
    min_lon, min_lat, max_lon, max_lat = net.bounds
    assert info["routerId"] == router_id
    assert (
        info["lowerLeftLongitude"],
        info["lowerLeftLatitude"],
        info["upperRightLongitude"],
        info["upperRightLatitude"],
    ) == (min_lon, min_lat, max_lon, max_lat)
    assert min_lat <= info["centerLatitude"] <= max_lat
    assert min_lon <= info["centerLongitude"] <= max_lon
    assert info["buildTime"] == net.build_time_ms
    starts, ends = net.transit_service_range or (LONG_MAX, 0)
    assert (info["transitServiceStarts"], info["transitServiceEnds"]) == (starts, ends)
    assert info["transitModes"] == list(net.transit_modes)
    assert info["hasParkRide"] is net.has_park_ride
    assert info["hasBikePark"] is net.has_bike_park
    assert info["hasBikeSharing"] is (net.bike_rental_station_count > 1)
    options = [o["name"] for o in info["travelOptions"]]
    assert options[: 1 + len(net.transit_modes)] == ["TRANSIT", *net.transit_modes]
    assert info["travelOptions"][0] == {"value": "TRANSIT,WALK", "name": "TRANSIT"}
    polygon = info["polygon"]
    assert polygon["type"] == "Polygon"
    (ring,) = polygon["coordinates"]
    assert len(ring) >= 4
    assert ring[0] == ring[-1]
    for lon, lat in ring:
        assert min_lon <= lon <= max_lon
        assert min_lat <= lat <= max_lat


# -- reading ----------------------------------------------------------------------------------


def test_router_list_real_graphs(real_service: Service, real_graphs: RealGraphs) -> None:
    resp = real_service.get("/otp/routers")
    assert resp.status == 200
    infos = {r["routerId"]: r for r in resp.json()["routerInfo"]}
    assert sorted(infos) == ["atlanta", "demo"]
    for router_id, info in infos.items():
        check_info(info, router_id, real_graphs.networks[router_id])
        assert info_of(real_service, router_id) == info

    atlanta, demo = infos["atlanta"], infos["demo"]
    assert "SUBWAY" in atlanta["transitModes"]
    assert atlanta["transitServiceStarts"] < atlanta["transitServiceEnds"]
    assert {"BUS", "RAIL"} <= set(demo["transitModes"])
    assert demo["hasBikeSharing"] is True  # two bike-share stations
    assert demo["hasParkRide"] is True
    demo_options = [o["name"] for o in demo["travelOptions"]]
    assert {"BICYCLERENT", "TRANSIT_BICYCLERENT", "PARKRIDE"} <= set(demo_options)


def test_default_and_unknown(real_service: Service) -> None:
    first = real_service.get("/otp/routers").json()["routerInfo"][0]["routerId"]
    assert first == "atlanta"  # routers are discovered in sorted order
    assert info_of(real_service, "default")["routerId"] == first
    resp = real_service.get("/otp/routers/nope")
    assert resp.status == 404
    assert resp.header("Content-Type") == "application/json"
    assert resp.json()["message"] == "Graph id 'nope' not registered."


# -- writing ----------------------------------------------------------------------------------


def test_put_reloads_real_graph(real_service: Service) -> None:
    before = info_of(real_service, "atlanta")
    resp = real_service.request("PUT", "/otp/routers/atlanta", headers=AUTH)
    assert (resp.status, resp.text) == (201, "graph already registered, reloaded.\n")
    assert info_of(real_service, "atlanta") == before


def test_upload_real_graph_under_new_id(real_service: Service, real_graphs: RealGraphs) -> None:
    body = real_graphs.graph_bytes("demo")
    resp = real_service.request("POST", "/otp/routers/uploaded", body=body, headers=OCTET)
    assert (resp.status, resp.text) == (201, "graph registered.\n")
    uploaded = info_of(real_service, "uploaded")
    assert uploaded["routerId"] == "uploaded"
    assert without_id(uploaded) == without_id(info_of(real_service, "demo"))
    assert (real_service.graphs_dir / "uploaded" / "graph").read_bytes() == body
    ids = [r["routerId"] for r in real_service.get("/otp/routers").json()["routerInfo"]]
    assert sorted(ids) == ["atlanta", "demo", "uploaded"]


def test_upload_garbage_keeps_real_graph(real_service: Service, real_graphs: RealGraphs) -> None:
    before = info_of(real_service, "atlanta")
    resp = real_service.request(
        "POST", "/otp/routers/atlanta", body=b"PK\x03\x04 definitely not a graph", headers=OCTET
    )
    assert resp.status == 400
    assert "not a valid otpa graph" in resp.json()["message"]
    assert info_of(real_service, "atlanta") == before
    on_disk = (real_service.graphs_dir / "atlanta" / "graph").read_bytes()
    assert on_disk == real_graphs.graph_bytes("atlanta")


def with_format_version(graph: bytes, version: int) -> bytes:
    """Rewrite a saved graph's ``manifest.json`` with another ``format_version``."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(graph)) as src,
        zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as dst,
    ):
        names = src.namelist()
        assert names[0] == "manifest.json"
        for name in names:
            data = src.read(name)
            if name == "manifest.json":
                manifest = json.loads(data)
                manifest["format_version"] = version
                data = json.dumps(manifest, indent=1).encode()
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            dst.writestr(info, data)
    return out.getvalue()


def test_upload_future_format_version_400(real_service: Service, real_graphs: RealGraphs) -> None:
    before = info_of(real_service, "atlanta")
    future = FORMAT_VERSION + 1
    body = with_format_version(real_graphs.graph_bytes("demo"), future)
    resp = real_service.request("POST", "/otp/routers/atlanta", body=body, headers=OCTET)
    assert resp.status == 400
    message = resp.json()["message"]
    assert "version" in message
    assert str(future) in message
    assert ".incoming" not in message
    assert info_of(real_service, "atlanta") == before
    on_disk = (real_service.graphs_dir / "atlanta" / "graph").read_bytes()
    assert on_disk == real_graphs.graph_bytes("atlanta")
    # Also refused under a new id: nothing is created.
    resp = real_service.request("POST", "/otp/routers/future", body=body, headers=OCTET)
    assert resp.status == 400
    assert real_service.get("/otp/routers/future").status == 404
    assert not (real_service.graphs_dir / "future" / "graph").exists()


def test_replace_during_concurrent_reads(real_service: Service, real_graphs: RealGraphs) -> None:
    old = without_id(info_of(real_service, "atlanta"))
    new = without_id(info_of(real_service, "demo"))
    assert old != new
    lock = threading.Lock()
    failures: list[str] = []
    seen: list[str] = []
    started = threading.Barrier(READERS + 1)
    uploaded = threading.Event()

    def reader() -> None:
        started.wait()
        after = 0
        for _ in range(MAX_READS_PER_READER):
            if uploaded.is_set():
                after += 1
                if after > READS_AFTER_UPLOAD:
                    return
            try:
                resp = real_service.get("/otp/routers/atlanta")
                info = without_id(resp.json()) if resp.status == 200 else None
                outcome = "old" if info == old else "new" if info == new else None
                problem = None if outcome else f"{resp.status}: {resp.text[:200]}"
            except Exception as exc:  # any transport error is a failed read
                outcome, problem = None, repr(exc)
            with lock:
                if outcome is None:
                    failures.append(problem or "?")
                else:
                    seen.append(outcome)

    threads = [threading.Thread(target=reader) for _ in range(READERS)]
    for t in threads:
        t.start()
    started.wait()
    resp = real_service.request(
        "POST", "/otp/routers/atlanta", body=real_graphs.graph_bytes("demo"), headers=OCTET
    )
    uploaded.set()
    for t in threads:
        t.join(timeout=30)

    assert (resp.status, resp.text) == (201, "graph registered.\n")
    assert failures == []
    assert len(seen) >= READERS * READS_AFTER_UPLOAD
    assert "new" in seen  # reads after the upload see the demo graph
    assert without_id(info_of(real_service, "atlanta")) == new


def test_delete_real_router(real_service: Service) -> None:
    resp = real_service.request("DELETE", "/otp/routers/atlanta", headers=AUTH)
    assert (resp.status, resp.text) == (200, "graph evicted.\n")
    assert real_service.get("/otp/routers/atlanta").status == 404
    ids = [r["routerId"] for r in real_service.get("/otp/routers").json()["routerInfo"]]
    assert ids == ["demo"]
    assert info_of(real_service, "default")["routerId"] == "demo"


def test_save_real_graph(real_service: Service, real_graphs: RealGraphs) -> None:
    body = real_graphs.graph_bytes("atlanta")
    resp = real_service.request("POST", "/otp/routers/save?routerId=x", body=body, headers=OCTET)
    assert (resp.status, resp.text) == (201, "graph saved.\n")
    path = real_service.graphs_dir / "x" / "graph"
    assert path.read_bytes() == body
    loaded = TransportNetwork.load(path)
    assert loaded.bounds == real_graphs.networks["atlanta"].bounds
    assert loaded.summary() == real_graphs.networks["atlanta"].summary()
    # Saved, not registered: a PUT then serves it.
    assert real_service.get("/otp/routers/x").status == 404
    resp = real_service.request("PUT", "/otp/routers/x", headers=AUTH)
    assert (resp.status, resp.text) == (201, "graph registered.\n")
    expected = without_id(info_of(real_service, "atlanta"))
    assert without_id(info_of(real_service, "x")) == expected
