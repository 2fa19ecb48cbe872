"""The ``otp`` object scripts get (run in-process here; the sandbox is tested over HTTP)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
import xarray as xr

from otpa.analysis import compute_time_surface
from otpa.network import TransportNetwork
from service.scripting.entry import CsvOutput, ScriptEntry, _answer
from tests.conftest import require_data
from tests.fixtures.networks import built_network


@pytest.fixture(scope="module")
def entry(tmp_path_factory: pytest.TempPathFactory) -> ScriptEntry:
    graph = tmp_path_factory.mktemp("entry") / "graph"
    built_network(require_data(), "tiny/atlanta").save(graph)
    return ScriptEntry({"atlanta": str(graph)}, str(require_data("extras", "pointsets")))


def test_routers_and_plans(entry: ScriptEntry) -> None:
    assert entry.routers == ["atlanta"]
    assert isinstance(entry.get_router(), TransportNetwork)
    assert entry.getRouter("default") is entry.get_router("atlanta")
    with pytest.raises(LookupError, match="unknown router"):
        entry.get_router("nowhere")
    plan = entry.plan(33.749, -84.388, 33.752, -84.385, modes="WALK", when="2021-11-15T12:00")
    assert plan.itineraries
    assert plan.itineraries[0].walk_distance > 0


def test_time_surface_and_point_sets(entry: ScriptEntry) -> None:
    departure = dt.datetime(2021, 11, 15, 8)
    surface = entry.time_surface(33.749, -84.388, departure=departure)
    direct = compute_time_surface(entry.get_router(), (33.749, -84.388), departure)
    xr.testing.assert_identical(surface, direct)
    assert float(surface.travel_time.min()) > 0
    schools = entry.load_pointset("schools")
    assert len(schools) == 9
    assert len(entry.loadPointSet("population.geo")) > 0  # population.geo.json
    with pytest.raises(LookupError, match="no point set"):
        entry.load_pointset("../../etc/passwd")


def test_answers() -> None:
    out = CsvOutput()
    out.setHeader(["a", "b"])
    out.addRow([1, "x,y"])
    assert _answer(out) == {"ok": True, "content_type": "text/csv", "body": 'a,b\n1,"x,y"\n'}
    assert _answer("hi")["content_type"] == "text/plain"
    assert json.loads(_answer({"n": [1, 2]})["body"]) == {"n": [1, 2]}
    assert _answer(None)["body"] == ""
    assert _answer(Path("/x"))["body"] == "/x"  # not JSON: its text
