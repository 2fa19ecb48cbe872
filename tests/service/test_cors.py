"""CORS headers as OTP 1.x's CorsFilter sent them."""

from __future__ import annotations

import pytest
from _fakes import Service

pytestmark = pytest.mark.http


def test_origin_echoed_on_every_response(service: Service) -> None:
    for path, status in [("/otp", 200), ("/otp/routers/alpha", 200), ("/otp/routers/nope", 404)]:
        resp = service.get(path, Origin="https://app.example.org")
        assert resp.status == status
        assert resp.header("Access-Control-Allow-Origin") == "https://app.example.org"
        assert resp.header("Access-Control-Allow-Credentials") == "false"
        assert resp.header("Vary").startswith("Origin")


def test_vary_single_header(service: Service) -> None:
    resp = service.get("/otp/routers/alpha", Origin="https://a.org")
    assert resp.headers.get_all("Vary") == ["Origin, Accept"]
    assert service.get("/otp").headers.get_all("Vary") == ["Accept"]


def test_no_origin_no_allow_origin(service: Service) -> None:
    resp = service.get("/otp/routers")
    assert resp.header("Access-Control-Allow-Origin") is None
    assert resp.header("Access-Control-Allow-Credentials") == "false"


def test_preflight(service: Service) -> None:
    resp = service.request(
        "OPTIONS",
        "/otp/routers/alpha",
        headers={
            "Origin": "https://app.example.org",
            "Access-Control-Request-Method": "PUT",
            "Access-Control-Request-Headers": "authorization, content-type",
        },
    )
    assert resp.status == 200
    assert resp.body == b""
    assert resp.header("Access-Control-Allow-Origin") == "https://app.example.org"
    assert resp.header("Access-Control-Allow-Headers") == "authorization, content-type"
    assert resp.header("Access-Control-Allow-Method") == "GET,POST"  # OTP's header, sic
    methods = {m.strip() for m in resp.header("Access-Control-Allow-Methods").split(",")}
    assert {"GET", "PUT", "POST", "DELETE", "OPTIONS"} <= methods


def test_preflight_needs_no_credentials_even_for_write_paths(service: Service) -> None:
    resp = service.request("OPTIONS", "/otp/routers", headers={"Origin": "http://x"})
    assert resp.status == 200
    assert "PUT" in resp.header("Access-Control-Allow-Methods")


def test_cors_can_be_disabled(make_service) -> None:
    svc = make_service(cors=False)
    resp = svc.get("/otp/routers", Origin="https://app.example.org")
    assert resp.header("Access-Control-Allow-Origin") is None
    assert resp.header("Access-Control-Allow-Credentials") is None
