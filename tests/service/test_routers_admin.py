"""Router admin: load, reload all, evict, evict all, upload, save."""

from __future__ import annotations

import dataclasses
import io
import json
import zipfile
from pathlib import Path

import pytest
from _fakes import ALICE, ALPHA, FakeNetwork, Service, basic, fake_builder, graph_bytes

pytestmark = pytest.mark.http

AUTH = basic(*ALICE)
OCTET = {**AUTH, "Content-Type": "application/octet-stream"}
ZIP = {**AUTH, "Content-Type": "application/zip"}
NEW_ALPHA = dataclasses.replace(ALPHA, build_time_ms=1_800_000_000_000, transit_modes=["FERRY"])


def build_time(svc: Service, router_id: str) -> int:
    resp = svc.get(f"/otp/routers/{router_id}")
    assert resp.status == 200, resp.text
    return resp.json()["buildTime"]


def staging_leftovers(svc: Service) -> list[str]:
    staging = svc.graphs_dir / ".incoming"
    return sorted(p.name for p in staging.iterdir()) if staging.exists() else []


# -- PUT ------------------------------------------------------------------------------------


def test_put_reloads_from_disk(service: Service) -> None:
    NEW_ALPHA.save(service.graphs_dir / "alpha" / "graph")
    resp = service.request("PUT", "/otp/routers/alpha", headers=AUTH)
    assert (resp.status, resp.text) == (201, "graph already registered, reloaded.\n")
    assert resp.header("Content-Type").startswith("text/plain")
    assert build_time(service, "alpha") == NEW_ALPHA.build_time_ms


def test_put_registers_new_router(service: Service) -> None:
    FakeNetwork(name="gamma").save(service.graphs_dir / "gamma" / "graph")
    resp = service.request("PUT", "/otp/routers/gamma?preEvict=false", headers=AUTH)
    assert (resp.status, resp.text) == (201, "graph registered.\n")
    assert service.get("/otp/routers/gamma").status == 200


def test_put_missing_graph_404(service: Service) -> None:
    resp = service.request("PUT", "/otp/routers/nothere", headers=AUTH)
    assert resp.status == 404
    assert "graph not found" in resp.json()["message"]


def test_put_corrupt_graph_keeps_old(service: Service) -> None:
    (service.graphs_dir / "alpha" / "graph").write_bytes(b"garbage")
    resp = service.request("PUT", "/otp/routers/alpha", headers=AUTH)
    assert resp.status == 404
    assert "still serving" in resp.json()["message"]
    assert build_time(service, "alpha") == ALPHA.build_time_ms


def test_put_path_traversal_400(service: Service) -> None:
    resp = service.request("PUT", "/otp/routers/..%2Fbeta", headers=AUTH)
    assert resp.status == 400


def test_put_without_graphs_dir_409(make_service) -> None:
    svc = make_service(graphs_dir=None, networks={"mem": ALPHA})
    resp = svc.request("PUT", "/otp/routers/mem", headers=AUTH)
    assert resp.status == 409
    assert "graphs directory" in resp.json()["message"]


def test_reload_all(service: Service) -> None:
    NEW_ALPHA.save(service.graphs_dir / "alpha" / "graph")
    FakeNetwork(name="gamma").save(service.graphs_dir / "gamma" / "graph")
    (service.graphs_dir / "beta" / "graph").unlink()
    resp = service.request("PUT", "/otp/routers?preEvict=true&force=true", headers=AUTH)
    assert (resp.status, resp.body) == (200, b"")
    ids = [r["routerId"] for r in service.get("/otp/routers").json()["routerInfo"]]
    assert sorted(ids) == ["alpha", "gamma"]  # beta's file is gone: evicted
    assert build_time(service, "alpha") == NEW_ALPHA.build_time_ms


def test_reload_all_bad_boolean_400(service: Service) -> None:
    resp = service.request("PUT", "/otp/routers?preEvict=maybe", headers=AUTH)
    assert resp.status == 400


# -- DELETE ---------------------------------------------------------------------------------


def test_delete_one(service: Service) -> None:
    resp = service.request("DELETE", "/otp/routers/beta", headers=AUTH)
    assert (resp.status, resp.text) == (200, "graph evicted.\n")
    assert service.get("/otp/routers/beta").status == 404
    again = service.request("DELETE", "/otp/routers/beta", headers=AUTH)
    assert again.status == 404
    assert again.json()["message"].startswith("graph did not exist")


def test_delete_all(service: Service) -> None:
    resp = service.request("DELETE", "/otp/routers", headers=AUTH)
    assert (resp.status, resp.text) == (200, "2 graphs evicted.\n")
    assert service.get("/otp/routers").json() == {"routerInfo": []}
    assert service.request("DELETE", "/otp/routers", headers=AUTH).text == "0 graphs evicted.\n"


# -- POST upload ----------------------------------------------------------------------------


def test_upload_graph_replaces_and_persists(service: Service) -> None:
    resp = service.request("POST", "/otp/routers/alpha", body=graph_bytes(NEW_ALPHA), headers=OCTET)
    assert (resp.status, resp.text) == (201, "graph registered.\n")
    assert build_time(service, "alpha") == NEW_ALPHA.build_time_ms
    on_disk = FakeNetwork.load(service.graphs_dir / "alpha" / "graph")
    assert on_disk == NEW_ALPHA
    assert not (service.graphs_dir / "alpha" / "graph.bak").exists()
    assert staging_leftovers(service) == []


def test_upload_new_router(service: Service) -> None:
    resp = service.request("POST", "/otp/routers/gamma", body=graph_bytes(ALPHA), headers=OCTET)
    assert resp.status == 201
    assert service.get("/otp/routers/gamma").json()["routerId"] == "gamma"


def test_upload_garbage_400_old_still_serving(service: Service) -> None:
    before = (service.graphs_dir / "alpha" / "graph").read_bytes()
    resp = service.request("POST", "/otp/routers/alpha", body=b"\x00not a graph", headers=OCTET)
    assert resp.status == 400
    message = resp.json()["message"]
    assert "not a valid otpa graph" in message
    assert ".incoming" not in message  # no server paths in messages
    assert build_time(service, "alpha") == ALPHA.build_time_ms
    assert (service.graphs_dir / "alpha" / "graph").read_bytes() == before
    assert staging_leftovers(service) == []


def test_upload_too_large_413(make_service) -> None:
    svc = make_service(max_upload_bytes=1024)
    before = (svc.graphs_dir / "alpha" / "graph").read_bytes()
    resp = svc.request("POST", "/otp/routers/alpha", body=b"x" * 4096, headers=OCTET)
    assert resp.status == 413
    assert "exceeds the limit of 1024 bytes" in resp.json()["message"]
    assert build_time(svc, "alpha") == ALPHA.build_time_ms
    assert (svc.graphs_dir / "alpha" / "graph").read_bytes() == before
    assert staging_leftovers(svc) == []


def test_upload_wrong_type_415(service: Service) -> None:
    resp = service.request(
        "POST",
        "/otp/routers/alpha",
        body=b"{}",
        headers={**AUTH, "Content-Type": "application/json"},
    )
    assert resp.status == 415


def test_upload_invalid_id_400(service: Service) -> None:
    resp = service.request("POST", "/otp/routers/a.b", body=graph_bytes(ALPHA), headers=OCTET)
    assert resp.status == 400


def test_upload_without_graphs_dir_409(make_service) -> None:
    svc = make_service(graphs_dir=None, networks={"mem": ALPHA})
    resp = svc.request("POST", "/otp/routers/mem", body=graph_bytes(ALPHA), headers=OCTET)
    assert resp.status == 409


# -- POST zip (GTFS + OSM build) --------------------------------------------------------------


def make_zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def test_zip_refused_without_builder(service: Service) -> None:
    resp = service.request("POST", "/otp/routers/alpha", body=make_zip({"a": b""}), headers=ZIP)
    assert resp.status == 415
    assert "zip" in resp.json()["message"]


def test_zip_builds_registers_and_persists(make_service) -> None:
    svc = make_service(builder=fake_builder)
    spec = json.dumps({"name": "built", "build_time_ms": 1_900_000_000_000}).encode()
    body = make_zip({"network.json": spec, "feed.zip": b"PK"})
    resp = svc.request("POST", "/otp/routers/delta", body=body, headers=ZIP)
    assert (resp.status, resp.text) == (201, "graph registered.\n")
    assert build_time(svc, "delta") == 1_900_000_000_000
    assert FakeNetwork.load(svc.graphs_dir / "delta" / "graph").name == "built"
    assert staging_leftovers(svc) == []


@pytest.mark.parametrize(
    "members", [{"../evil.txt": b"x"}, {"sub/stops.txt": b"x"}, {"sub/": b""}, {"..": b"x"}]
)
def test_zip_unsafe_members_400(make_service, members: dict[str, bytes]) -> None:
    svc = make_service(builder=fake_builder)
    resp = svc.request("POST", "/otp/routers/delta", body=make_zip(members), headers=ZIP)
    assert resp.status == 400
    assert not (svc.graphs_dir.parent / "evil.txt").exists()
    assert svc.get("/otp/routers/delta").status == 404
    assert staging_leftovers(svc) == []


def test_zip_bomb_limited(make_service) -> None:
    svc = make_service(builder=fake_builder, max_unzipped_bytes=10_000)
    body = make_zip({"network.json": b" " * 50_000})
    resp = svc.request("POST", "/otp/routers/delta", body=body, headers=ZIP)
    assert resp.status == 400
    assert "size limit" in resp.json()["message"]


def test_zip_not_a_zip_400(make_service) -> None:
    svc = make_service(builder=fake_builder)
    resp = svc.request("POST", "/otp/routers/delta", body=b"not a zip", headers=ZIP)
    assert resp.status == 400


def test_zip_build_error_400(make_service) -> None:
    svc = make_service(builder=fake_builder)
    resp = svc.request("POST", "/otp/routers/delta", body=make_zip({"x.txt": b""}), headers=ZIP)
    assert resp.status == 400
    assert "nothing to build" in resp.json()["message"]


# -- POST save --------------------------------------------------------------------------------


def test_save_writes_without_loading(service: Service) -> None:
    resp = service.request(
        "POST", "/otp/routers/save?routerId=alpha", body=graph_bytes(NEW_ALPHA), headers=OCTET
    )
    assert (resp.status, resp.text) == (201, "graph saved.\n")
    assert FakeNetwork.load(service.graphs_dir / "alpha" / "graph") == NEW_ALPHA
    assert not (service.graphs_dir / "alpha" / "graph.bak").exists()
    assert build_time(service, "alpha") == ALPHA.build_time_ms  # not loaded
    service.request("PUT", "/otp/routers/alpha", headers=AUTH)
    assert build_time(service, "alpha") == NEW_ALPHA.build_time_ms


def test_save_new_router_folder(service: Service) -> None:
    resp = service.request(
        "POST", "/otp/routers/save?routerId=omega", body=graph_bytes(ALPHA), headers=OCTET
    )
    assert resp.status == 201
    assert (service.graphs_dir / "omega" / "graph").is_file()
    assert service.get("/otp/routers/omega").status == 404


def test_save_garbage_400_nothing_written(service: Service) -> None:
    before = (service.graphs_dir / "alpha" / "graph").read_bytes()
    resp = service.request(
        "POST", "/otp/routers/save?routerId=alpha", body=b"garbage", headers=OCTET
    )
    assert resp.status == 400
    assert (service.graphs_dir / "alpha" / "graph").read_bytes() == before
    assert staging_leftovers(service) == []


@pytest.mark.parametrize("query", ["", "?routerId=", "?routerId=..%2F..%2Fx", "?routerId=a%2Fb"])
def test_save_needs_valid_router_id(service: Service, query: str) -> None:
    resp = service.request("POST", f"/otp/routers/save{query}", body=b"x", headers=OCTET)
    assert resp.status == 400
    assert not any(Path(service.graphs_dir).parent.glob("x*"))


def test_unexpected_error_500_json_without_traceback(make_service, caplog) -> None:
    def loader(path: Path) -> FakeNetwork:
        if path.parent.name == "gamma":
            msg = "secret internal detail"
            raise RuntimeError(msg)
        return FakeNetwork.load(path)

    svc = make_service(loader=loader)
    FakeNetwork(name="gamma").save(svc.graphs_dir / "gamma" / "graph")
    resp = svc.request("PUT", "/otp/routers/gamma", headers=AUTH)
    assert resp.status == 500
    assert resp.json() == {
        "status": 500,
        "error": "Internal Server Error",
        "message": "Internal server error.",
        "requestId": resp.headers["X-Request-Id"],
    }
    assert b"Traceback" not in resp.body
    assert b"secret" not in resp.body
    assert svc.get("/otp/routers/alpha").status == 200
