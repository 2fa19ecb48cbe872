"""Schemathesis against a live server: no 5xx, every answer as the OpenAPI document says.

The bounded run of ``benchmarks/fuzz_service.py`` (which fuzzes the demo city and
Atlanta with many more examples, positive and negative, for every operation): here
every operation gets a few positive requests on the demo city, and the operations
with the richest parameter tables (plan, index, routers, analyst) negative ones too;
a stateful run creates scenarios and follows the document's links to them.
The seed is fixed, so a failure reproduces.
"""

from __future__ import annotations

import base64
import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _bench_modules import bench_module

from otpa.testing.demo import demo_network
from service.auth import ROLE_ROUTERS, UserEntry, hash_password
from service.config import ServiceConfig
from service.server import start_in_thread

pytestmark = pytest.mark.http

POSITIVE_EXAMPLES = 3
NEGATIVE_PATHS = ("/plan", "/index/stops", "/index/routes", "/otp/routers/{routerId}", "/isochrone")


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, dict[str, Any]]]:
    url, stop = start_in_thread(ServiceConfig(port=0), {"demo": demo_network()})
    base = url.removesuffix("/otp/routers/default")
    with urllib.request.urlopen(f"{base}/otp/openapi.json") as resp:
        document = json.load(resp)
    yield base, document
    stop()


def test_positive_fuzz_of_every_operation(served: tuple[str, dict[str, Any]]) -> None:
    fuzz = bench_module("fuzz_service")
    base, document = served
    report = fuzz.fuzz(
        base,
        document,
        examples=POSITIVE_EXAMPLES,
        seed=0,
        modes=(fuzz.GenerationMode.POSITIVE,),
        path_parameters={"routerId": "demo"},
    )
    assert report.operations >= 70  # every documented operation but the script runner
    assert report.requests >= report.operations
    assert report.server_errors == 0
    assert report.failures == []
    assert report.by_status[200] > 0


def test_negative_fuzz_of_the_main_operations(served: tuple[str, dict[str, Any]]) -> None:
    fuzz = bench_module("fuzz_service")
    base, document = served
    paths = {
        path: item
        for path, item in document["paths"].items()
        if any(path.endswith(p) for p in NEGATIVE_PATHS)
    }
    assert len(paths) >= 5
    report = fuzz.fuzz(
        base,
        {**document, "paths": paths},
        examples=2,
        seed=0,
        modes=(fuzz.GenerationMode.NEGATIVE,),
        path_parameters={"routerId": "demo"},
    )
    assert report.requests > 0
    assert report.server_errors == 0
    assert report.failures == []


def test_stateful_fuzz_follows_the_links_of_created_scenarios(tmp_path: Path) -> None:
    fuzz = bench_module("fuzz_service")
    users = {"fuzz": UserEntry("fuzz", hash_password("pw", n=2**4), frozenset({ROLE_ROUTERS}))}
    config = ServiceConfig(
        port=0, users=users, allow_basic_auth_over_http=True, scenarios_dir=tmp_path
    )
    url, stop = start_in_thread(config, {"demo": demo_network()})
    base = url.removesuffix("/otp/routers/default")
    try:
        with urllib.request.urlopen(f"{base}/otp/openapi.json") as resp:
            document = json.load(resp)
        post = document["paths"]["/otp/routers/{routerId}/scenarios"]["post"]
        links = post["responses"]["201"]["links"]
        assert {link["parameters"]["scenarioId"] for link in links.values()} == {
            "$response.body#/id"
        }
        scenarios = {p: item for p, item in document["paths"].items() if "/scenarios" in p}
        auth = base64.b64encode(b"fuzz:pw").decode()
        report = fuzz.fuzz_links(
            base,
            {**document, "paths": scenarios},
            examples=8,
            headers={"Authorization": f"Basic {auth}"},
            path_parameters={"routerId": "demo"},
        )
    finally:
        stop()
    assert report.server_errors == 0
    created = report.calls[("POST", "/otp/routers/{routerId}/scenarios", 201)]
    assert created > 0
    # the created scenarios were read (or deleted) through the links: 200, never 404
    by_id = "/otp/routers/{routerId}/scenarios/{scenarioId}"
    followed = sum(n for (m, p, status), n in report.calls.items() if p == by_id and status == 200)
    assert followed > 0
