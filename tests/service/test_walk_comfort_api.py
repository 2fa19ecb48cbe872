"""``GET /otp/routers/{id}/walk_comfort`` (ibi): reload walk-comfort rules, plans follow them."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _analyst_helpers import analyst_server, get
from _fakes import ALICE, BOB, Service, basic

from otpa.network import TransportNetwork
from otpa.routing._street_costs import edge_costs
from otpa.routing.street_router import StreetOptions
from otpa.walkcomfort import segment_walk_comfort
from service.auth import UserEntry
from tests.conftest import DATA_ROOT, require_data
from tests.fixtures.networks import built_network

pytestmark = pytest.mark.http

WALK = StreetOptions(mode="WALK", speed_mps=1.33, reluctance=2.0)
RULES = {"rules": [{"key": "highway", "value": ["primary", "secondary"], "factor": 3}]}
PLAN = (
    "/otp/routers/atl/plan?fromPlace=33.7539,-84.3916&toPlace=33.7597,-84.3877"
    "&mode=WALK&date=2021-09-15&time=8:00am"
)


@pytest.fixture(scope="module")
def graphs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("graphs")
    (base / "atl").mkdir()
    (base / "bare").mkdir()
    return base


@pytest.fixture(scope="module")
def networks() -> dict[str, TransportNetwork]:
    """Private copies of Atlanta (the test changes their rules) and one without walk tags."""
    require_data("tiny", "atlanta")
    shared = built_network(DATA_ROOT, "tiny/atlanta")
    atl = TransportNetwork.from_bytes(shared.to_bytes())
    bare = TransportNetwork.from_bytes(shared.to_bytes())
    object.__setattr__(bare, "walk_comfort", None)
    return {"atl": atl, "bare": bare}


@pytest.fixture(scope="module")
def svc(
    networks: dict[str, TransportNetwork], graphs: Path, users: Mapping[str, UserEntry]
) -> Iterator[Service]:
    with analyst_server(networks, graphs_dir=graphs, users=users) as service:
        yield service


def reload(svc: Service, status: int = 200, router: str = "atl") -> Any:
    resp = svc.request("GET", f"/otp/routers/{router}/walk_comfort", headers=basic(*ALICE))
    assert resp.status == status, resp.body[:300]
    return resp.json()


def plan_walk(svc: Service) -> tuple[str, float]:
    """The walk's encoded geometry and distance."""
    itinerary = get(svc, PLAN).json()["plan"]["itineraries"][0]
    return itinerary["legs"][0]["legGeometry"]["points"], itinerary["walkDistance"]


def test_reload_puts_each_routers_rules_in_force(
    svc: Service, graphs: Path, networks: dict[str, TransportNetwork]
) -> None:
    atl = networks["atl"]
    g = atl.street
    assert g is not None
    shape0, distance0 = plan_walk(svc)
    (graphs / "atl" / "walk-config.json").write_text(json.dumps(RULES))
    body = reload(svc)
    assert body["success"] is True
    assert isinstance(body["time"], int)
    walkable = int(np.count_nonzero(np.asarray(g.edge_perm) & 1))
    assert body["routers"] == [
        {"routerId": "atl", "edgesUpdated": walkable, "rulesLoaded": 1},
        {"routerId": "bare", "edgesUpdated": 0, "rulesLoaded": 0},
    ]
    factors = segment_walk_comfort(atl)
    assert factors is not None
    kinds = np.array(g.highway_kinds)[np.asarray(g.seg_highway)]
    np.testing.assert_array_equal(
        factors, np.where(np.isin(kinds, ["primary", "secondary"]), 3.0, 1.0)
    )
    # plans over HTTP follow: this walk used a secondary street, now it takes quieter ones
    shape1, distance1 = plan_walk(svc)
    assert shape1 != shape0
    assert distance1 > distance0
    # the file removed: rules off again, the first plan back
    (graphs / "atl" / "walk-config.json").unlink()
    assert reload(svc)["routers"][0] == {
        "routerId": "atl",
        "edgesUpdated": walkable,
        "rulesLoaded": 0,
    }
    assert segment_walk_comfort(atl) is None
    assert plan_walk(svc) == (shape0, distance0)


def test_a_bad_config_is_a_400_and_changes_nothing(
    svc: Service, graphs: Path, networks: dict[str, TransportNetwork]
) -> None:
    atl = networks["atl"]
    (graphs / "atl" / "walk-config.json").write_text(json.dumps(RULES))
    reload(svc)
    g = atl.street
    assert g is not None
    before = edge_costs(g, WALK).weight.copy()
    (graphs / "atl" / "walk-config.json").write_text('{"rules": [{"type": "near", "factor": 2}]}')
    body = reload(svc, 400)
    assert "Router 'atl'" in body["message"]
    assert "unknown test type 'near'" in body["message"]
    np.testing.assert_array_equal(edge_costs(g, WALK).weight, before)
    (graphs / "atl" / "walk-config.json").write_text("not json")
    assert "not JSON" in reload(svc, 400)["message"]
    (graphs / "atl" / "walk-config.json").unlink()
    reload(svc)


def test_reload_needs_the_routers_role(svc: Service) -> None:
    resp = svc.request("GET", "/otp/routers/atl/walk_comfort")
    assert resp.status == 401
    resp = svc.request("GET", "/otp/routers/atl/walk_comfort", headers=basic(*BOB))
    assert resp.status == 403
    assert reload(svc, 404, router="nowhere")["message"] == "Graph id 'nowhere' not registered."
