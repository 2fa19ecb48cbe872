"""``/otp/health`` (liveness) and ``/otp/health/ready`` (readiness)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from _fakes import Service

MakeService = Callable[..., Service]

pytestmark = pytest.mark.http


def test_liveness_and_readiness_with_routers(service: Service) -> None:
    resp = service.get("/otp/health")
    assert resp.status == 200
    body = resp.json()
    assert body["status"] == "UP"
    assert set(body["work"]) == {"light", "heavy", "analysis"}  # the work pools' counters
    assert body["work"]["heavy"]["shed"] == 0
    assert body["memory"]["retiredAlive"] == 0  # no reloaded network still in memory
    assert resp.header("Cache-Control") == "no-store"
    resp = service.get("/otp/health/ready")
    assert resp.status == 200
    assert resp.json() == {"status": "UP", "routers": ["alpha", "beta"]}


def test_not_ready_without_routers_then_ready_after_a_load(make_service: MakeService) -> None:
    svc = make_service(routers=())
    svc.registry.evict_all()
    resp = svc.get("/otp/health/ready")
    assert resp.status == 503
    assert resp.json() == {"status": "DOWN", "routers": []}
    assert resp.header("Retry-After") == "5"
    assert svc.get("/otp/health").status == 200  # alive all the same
    svc.registry.load("alpha")
    assert svc.get("/otp/health/ready").json() == {"status": "UP", "routers": ["alpha"]}


def test_not_ready_while_a_configured_router_is_missing(make_service: MakeService) -> None:
    svc = make_service(routers=("alpha", "beta"))
    svc.registry.evict("beta")
    resp = svc.get("/otp/health/ready")
    assert resp.status == 503
    assert resp.json() == {"status": "DOWN", "routers": ["alpha"], "missing": ["beta"]}
    svc.registry.load("beta")
    assert svc.get("/otp/health/ready").status == 200
