"""``/otp/routers/{id}/scenarios`` over real HTTP, on the Atlanta network.

FEATURE UNDER TEST: scenarios are created (ROUTERS role), listed, read and deleted per
router; invalid documents are refused with every problem listed; the stored scenarios
drive ``scenario_network`` (what plan, profile and surface endpoints use).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _fakes import ALICE, BOB, Service, basic

from otpa.network import TransportNetwork
from service.config import ServiceConfig
from service.handlers.base import ServiceContext
from service.handlers.scenarios import scenario_network
from service.otp1.errors import ApiError
from tests.fixtures.networks import built_network

pytestmark = pytest.mark.http

JSON = {"Content-Type": "application/json"}
ALICE_JSON = {**basic(*ALICE), **JSON}
BOB_JSON = {**basic(*BOB), **JSON}
LIST = "/otp/routers/atlanta/scenarios"


@pytest.fixture(scope="module")
def atlanta(data_root: Path) -> TransportNetwork:
    return built_network(data_root, "tiny/atlanta")


@pytest.fixture(scope="module")
def blue(atlanta: TransportNetwork) -> str:
    routes = atlanta.transit.routes
    return str(routes.loc[routes["short_name"] == "BLUE", "route_id"].iloc[0])


@pytest.fixture
def svc(make_service: Any, atlanta: TransportNetwork, tmp_path: Path) -> Service:
    service: Service = make_service(
        networks={"atlanta": atlanta}, graphs_dir=None, scenarios_dir=tmp_path / "scenarios"
    )
    return service


def _post(svc: Service, document: Any, headers: dict[str, str]) -> Any:
    body = document if isinstance(document, bytes) else json.dumps(document).encode()
    return svc.request("POST", LIST, body=body, headers=headers)


def _no_blue(blue: str, **extra: Any) -> dict[str, Any]:
    return {
        "name": "no blue",
        "description": "MARTA without the BLUE line",
        "modifications": [{"type": "remove-routes", "routes": [blue]}],
        **extra,
    }


def test_create_list_read_delete(svc: Service, blue: str, tmp_path: Path) -> None:
    doc = _no_blue(blue)
    resp = _post(svc, doc, JSON)
    assert resp.status == 401
    assert resp.header("WWW-Authenticate") == 'Basic realm="OpenTripPlanner"'
    assert resp.json()["status"] == 401
    assert _post(svc, doc, BOB_JSON).status == 403
    assert svc.get(LIST).json() == {}

    created = _post(svc, doc, ALICE_JSON)
    assert created.status == 201, created.text
    sid = created.json()["id"]
    assert created.header("Location") == f"{LIST}/{sid}"
    assert (tmp_path / "scenarios" / "atlanta" / f"{sid}.json").is_file()
    assert svc.get(LIST).json() == {sid: "MARTA without the BLUE line"}
    assert svc.get("/otp/routers/default/scenarios").json() == {sid: "MARTA without the BLUE line"}
    got = svc.get(f"{LIST}/{sid}")
    assert got.status == 200
    assert got.json() == {"version": 1, "id": sid, **doc}

    # an id of one's own; taken ids are refused
    named = _post(svc, _no_blue(blue, id="no-blue", description=""), ALICE_JSON)
    assert (named.status, named.json()) == (201, {"id": "no-blue"})
    assert svc.get(LIST).json() == {sid: "MARTA without the BLUE line", "no-blue": "no blue"}
    assert _post(svc, _no_blue(blue, id="no-blue"), ALICE_JSON).status == 409

    path = f"{LIST}/{sid}"
    assert svc.request("DELETE", path).status == 401
    assert svc.request("DELETE", path, headers=basic(*BOB)).status == 403
    deleted = svc.request("DELETE", path, headers=basic(*ALICE))
    assert (deleted.status, deleted.json()) == (200, {"id": sid, "deleted": True})
    assert svc.get(path).status == 404
    again = svc.request("DELETE", path, headers=basic(*ALICE))
    assert again.status == 404
    assert again.json()["message"] == f"Router 'atlanta' has no scenario '{sid}'."
    assert svc.get(LIST).json() == {"no-blue": "no blue"}


def test_invalid_scenarios_list_every_problem(svc: Service, blue: str) -> None:
    doc = {
        "name": "broken",
        "modifications": [
            {"type": "remove-routes", "routes": ["atlanta-blue-green-line:nope"]},
            {"type": "adjust-speed", "routes": [blue], "scale": 1.5},
            {"type": "remove-trips", "trips": ["atlanta-blue-green-line:no-such-trip"]},
        ],
    }
    resp = _post(svc, doc, ALICE_JSON)
    assert resp.status == 400
    body = resp.json()
    assert body["status"] == 400
    assert body["error"] == "Bad Request"
    problems = body["problems"]
    assert len(problems) == 2, problems
    assert problems[0].startswith("modification 0 (remove-routes)")
    assert "atlanta-blue-green-line:nope" in problems[0]
    assert problems[1].startswith("modification 2 (remove-trips)")
    # documents that do not read: every field problem at once
    unreadable = _post(svc, {"modifications": [{"type": "teleport"}], "colour": 1}, ALICE_JSON)
    assert unreadable.status == 400
    found = unreadable.json()["problems"]
    assert any("colour" in p for p in found)
    assert any("name" in p for p in found)
    assert any("teleport" in p for p in found)
    not_json = _post(svc, b"{nope", ALICE_JSON)
    assert not_json.status == 400
    assert "not valid JSON" in not_json.json()["problems"][0]
    assert _post(svc, b"{}", {**basic(*ALICE), "Content-Type": "text/csv"}).status == 415
    assert _post(svc, _no_blue(blue, id="../x"), ALICE_JSON).status == 400
    assert svc.get(LIST).json() == {}  # nothing was stored


def test_unknown_router_and_scenario(svc: Service, blue: str) -> None:
    assert svc.get("/otp/routers/nowhere/scenarios").status == 404
    assert svc.get(f"{LIST}/nothing-here").status == 404
    assert svc.get(f"{LIST}/..%2Fsecrets").status == 404
    resp = svc.request(
        "POST", "/otp/routers/nowhere/scenarios", json.dumps(_no_blue(blue)).encode(), ALICE_JSON
    )
    assert resp.status == 404


def test_scenario_network_for_plan_and_surfaces(
    svc: Service, atlanta: TransportNetwork, blue: str, tmp_path: Path
) -> None:
    sid = _post(svc, _no_blue(blue), ALICE_JSON).json()["id"]
    config = ServiceConfig(scenarios_dir=tmp_path / "scenarios")  # the store svc writes to
    ctx = ServiceContext(config=config, registry=svc.registry, server_info={})
    modified = scenario_network(ctx, "atlanta", sid)
    assert modified is not atlanta
    assert modified.meta["scenario"]["id"] == sid
    assert blue not in set(modified.transit.trips["route_id"].astype(str))
    assert blue in set(atlanta.transit.trips["route_id"].astype(str))
    assert scenario_network(ctx, "default", sid) is modified  # cached per graph and scenario
    with pytest.raises(ApiError) as missing:
        scenario_network(ctx, "atlanta", "nothing-here")
    assert missing.value.status_code == 404
    # profile accepts scenario=<id>: no option rides BLUE any more
    query = (
        "/otp/routers/atlanta/profile?from=33.753838,-84.391396&to=33.75014,-84.38588"
        "&date=2021-09-15&startTime=08:00&endTime=08:30&accessModes=WALK"
    )
    with_blue = svc.get(query).json()["options"]
    without = svc.get(f"{query}&scenario={sid}").json()["options"]
    routes = {r["id"] for o in with_blue for s in o.get("transit", []) for r in s["routes"]}
    assert blue in routes
    routes = {r["id"] for o in without for s in o.get("transit", []) for r in s["routes"]}
    assert routes
    assert blue not in routes
    assert svc.get(f"{query}&scenario=nothing-here").status == 404
    # plan accepts scenario=<id> too: the same trip no longer rides BLUE
    plan = (
        "/otp/routers/atlanta/plan?fromPlace=33.753838,-84.391396&toPlace=33.75014,-84.38588"
        "&date=2021-09-15&time=08:00&mode=WALK,TRANSIT&numItineraries=5"
    )
    legs = [leg for it in svc.get(plan).json()["plan"]["itineraries"] for leg in it["legs"]]
    assert blue in {leg.get("routeId") for leg in legs}
    legs = [
        leg
        for it in svc.get(f"{plan}&scenario={sid}").json()["plan"]["itineraries"]
        for leg in it["legs"]
    ]
    assert blue not in {leg.get("routeId") for leg in legs}
    assert svc.get(f"{plan}&scenario=nothing-here").status == 404
    svc.request("DELETE", f"{LIST}/{sid}", headers=basic(*ALICE))
    with pytest.raises(ApiError):
        scenario_network(ctx, "atlanta", sid)


def test_default_folder_beside_the_graphs_and_no_folder(
    make_service: Any, atlanta: TransportNetwork, blue: str, tmp_path: Path
) -> None:
    # make_service's graphs folder is tmp_path / "graphs" (fake alpha and beta graphs)
    svc = make_service(networks={"atlanta": atlanta})
    sid = _post(svc, _no_blue(blue), ALICE_JSON).json()["id"]
    assert (tmp_path / "scenarios" / "atlanta" / f"{sid}.json").is_file()
    bare = make_service(networks={"atlanta": atlanta}, graphs_dir=None)
    assert bare.get(LIST).json() == {}
    refused = _post(bare, _no_blue(blue), ALICE_JSON)
    assert refused.status == 409
    assert "scenarios_dir" in refused.json()["message"]
