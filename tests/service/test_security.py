"""Security review items (``docs/security.md``), each with a test that fails without it.

Covered elsewhere and referenced from the threat model: CORS only as configured
(``test_cors.py``), JSONP callbacks (``test_geocode_api.py``), bad point-set and
scenario uploads change nothing (``test_analyst_pointsets.py``,
``test_scenarios_api.py``), graph uploads validated before install
(``test_routers_admin.py``), zip members (``test_storage.py``).
"""

from __future__ import annotations

import hmac
import urllib.parse
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from _fakes import ALICE, ALPHA, Service, basic

from service.auth import check_credentials
from service.handlers.index import IndexHandler
from service.otp1.xml import to_xml

pytestmark = pytest.mark.http

TRAVERSALS = ("..", "../outside", "..%2Foutside", "%2e%2e%2Foutside", "a/../../outside")


def _quote(raw: str) -> str:
    return raw if "%" in raw else urllib.parse.quote(raw, safe="/")


@pytest.mark.parametrize("raw", TRAVERSALS)
def test_router_ids_cannot_reach_outside_the_graphs_folder(make_service: Any, raw: str) -> None:
    svc: Service = make_service()
    outside = svc.graphs_dir.parent / "outside"
    outside.mkdir(exist_ok=True)
    ALPHA.save(outside / "graph")  # a loadable graph, one level above the graphs folder
    resp = svc.request("PUT", f"/otp/routers/{_quote(raw)}", headers=basic(*ALICE))
    assert resp.status in (400, 404)
    resp = svc.request(
        "POST",
        f"/otp/routers/{_quote(raw)}",
        body=b"x",
        headers={**basic(*ALICE), "Content-Type": "application/octet-stream"},
    )
    assert resp.status in (400, 404)
    assert sorted(svc.registry.ids()) == ["alpha", "beta"]  # nothing loaded from outside
    assert (outside / "graph").read_bytes()  # and nothing written there
    assert not (svc.graphs_dir.parent / "graph").exists()


@pytest.mark.parametrize("raw", TRAVERSALS)
def test_scenario_and_surface_ids_cannot_name_outside_files(
    make_service: Any, tmp_path: Path, raw: str
) -> None:
    scenarios = tmp_path / "scenarios"
    svc: Service = make_service(scenarios_dir=scenarios)
    victim = scenarios / "outside.json"  # what "../outside" would name from a router folder
    victim.parent.mkdir(parents=True)
    victim.write_text('{"version": 1, "name": "x", "modifications": []}')
    for method in ("GET", "DELETE"):
        resp = svc.request(
            method, f"/otp/routers/alpha/scenarios/{_quote(raw)}", headers=basic(*ALICE)
        )
        assert resp.status in (400, 404), (method, resp.status)
    assert victim.exists()
    assert svc.get(f"/otp/surfaces/{_quote(raw)}").status in (400, 404)
    assert svc.get(f"/otp/pointsets/{_quote(raw)}").status in (400, 404)


def test_xml_output_escapes_markup_and_entities() -> None:
    hostile = '<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>&x; </name><b a="1">\x01'
    document = to_xml("stop", {"name": hostile, "id": "1:<&>"})
    assert b"<!DOCTYPE" not in document
    assert b"<!ENTITY" not in document
    parsed = ET.fromstring(document)
    assert parsed.tag == "stop"
    assert parsed.findtext("name") == hostile.replace("\x01", "")  # text, not markup
    assert parsed.findtext("id") == "1:<&>"
    assert [child.tag for child in parsed] == ["name", "id"]


def test_passwords_are_compared_in_constant_time(
    users: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: Any, b: Any) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    assert check_credentials(users, ALICE[0], ALICE[1]) is not None
    assert check_credentials(users, ALICE[0], "wrong") is None
    assert len(calls) == 2
    # and stored hashed: the user entry holds no password, only a salted scrypt hash
    entry = users[ALICE[0]]
    assert ALICE[1] not in entry.password_hash
    assert entry.password_hash.startswith("scrypt$")


def test_a_server_error_leaks_no_traceback_and_no_path(
    make_service: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    svc: Service = make_service()
    secret = str(svc.graphs_dir)

    def broken(self: Any, *args: Any) -> Any:
        raise RuntimeError(f"cannot read {secret}/alpha/graph")

    monkeypatch.setattr(IndexHandler, "_answer", broken)
    resp = svc.get("/otp/routers/alpha/index/routes")
    assert resp.status == 500
    body = resp.json()
    assert body["message"] == "Internal server error."
    assert body["requestId"] == resp.header("X-Request-Id")
    assert "Traceback" not in resp.text
    assert secret not in resp.text
    assert "RuntimeError" not in resp.text


def test_a_bad_graph_upload_names_no_server_path(service: Service) -> None:
    resp = service.request(
        "POST",
        "/otp/routers/alpha",
        body=b"not a graph at all",
        headers={**basic(*ALICE), "Content-Type": "application/octet-stream"},
    )
    assert resp.status == 400
    assert str(service.graphs_dir) not in resp.text
    assert ".incoming" not in resp.text
