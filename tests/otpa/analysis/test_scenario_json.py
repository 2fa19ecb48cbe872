"""Scenario documents: JSON round trip, clear errors for malformed documents, the store.

No network is needed here: these are the checks a server runs on an uploaded
scenario before it ever touches a graph.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from otpa.analysis.scenario import (
    AddRoute,
    AdjustDwellTime,
    AdjustFrequency,
    AdjustSpeed,
    NewStop,
    RemoveRoutes,
    RemoveStops,
    RemoveTrips,
    Scenario,
    ScenarioError,
    ScenarioStore,
)
from otpa.errors import UnknownIdError


def _every_kind() -> Scenario:
    return Scenario(
        name="Every kind",
        description="one of each modification",
        id="every-kind_1",
        modifications=(
            RemoveRoutes(("f:BLUE", "f:RED")),
            RemoveTrips(("f:t1",), routes=("f:GREEN",)),
            RemoveStops(("f:s1", "f:s2"), route="f:GREEN", seconds_saved_s=15),
            AdjustFrequency("f:GREEN", headway_s=300, start_time=7 * 3600, end_time=25 * 3600),
            AdjustSpeed(("f:GREEN",), scale=1.25),
            AdjustDwellTime(stops=("f:s3",), dwell_s=45),
            AdjustDwellTime(routes=("f:GREEN",), scale=0.5),
            AddRoute(
                name="X1",
                mode="TRAM",
                stops=(NewStop(33.75, -84.39, "New A"), "f:s3", NewStop(33.76, -84.38, "B", "f:b")),
                headway_s=600,
                start_time=6 * 3600 + 30 * 60,
                end_time=22 * 3600,
                days=("monday", "saturday"),
                hop_times_s=(120, 95),
                dwell_s=20,
                agency_id="f:MARTA",
                route_id="f:X1",
                bidirectional=True,
            ),
        ),
    )


def _problems(document: Any) -> tuple[str, ...]:
    with pytest.raises(ScenarioError) as info:
        Scenario.from_json(document)
    return info.value.problems


def _doc(*modifications: dict[str, Any], **top: Any) -> dict[str, Any]:
    return {"name": "s", "modifications": list(modifications), **top}


def test_round_trip_keeps_every_field() -> None:
    scenario = _every_kind()
    text = scenario.to_json()
    assert Scenario.from_json(text) == scenario
    assert Scenario.from_json(text.encode()) == scenario
    data = json.loads(text)
    assert [m["type"] for m in data["modifications"]] == [
        "remove-routes",
        "remove-trips",
        "remove-stops",
        "adjust-frequency",
        "adjust-speed",
        "adjust-dwell-time",
        "adjust-dwell-time",
        "add-route",
    ]
    # times are written as service-day clock times, hours past 24 included
    assert data["modifications"][3]["end_time"] == "25:00:00"
    added = data["modifications"][7]
    assert added["start_time"] == "06:30:00"
    assert added["stops"] == [
        {"lat": 33.75, "lon": -84.39, "name": "New A"},
        "f:s3",
        {"lat": 33.76, "lon": -84.38, "name": "B", "stop_id": "f:b"},
    ]


def test_times_may_be_given_as_seconds_and_lists_become_tuples() -> None:
    doc = _doc(
        {"type": "adjust-frequency", "route": "f:R", "headway_s": 600.0,
         "start_time": 25200, "end_time": "09:30"},
        {"type": "remove-routes", "routes": ["f:R"]},
    )  # fmt: skip
    scenario = Scenario.from_json(doc)
    first, second = scenario.modifications
    assert first == AdjustFrequency("f:R", 600, 7 * 3600, 9 * 3600 + 1800)
    assert second == RemoveRoutes(("f:R",))
    # Python callers may pass lists too; the dataclasses keep tuples (hashable, comparable)
    assert RemoveRoutes(["f:R"]) == second  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not a string"):
        RemoveRoutes("f:R")  # type: ignore[arg-type]


def test_unknown_type_is_named_with_the_known_ones() -> None:
    (problem,) = _problems(_doc({"type": "teleport", "routes": []}))
    assert problem.startswith("modification 0: unknown type 'teleport'")
    assert "remove-routes" in problem
    assert "add-route" in problem


def test_missing_and_extra_fields_and_bad_values_are_all_listed() -> None:
    problems = _problems(
        _doc(
            {"type": "adjust-speed", "routes": ["f:R"], "factor": 2},
            {"type": "remove-stops", "stops": "f:s1"},
            {"type": "adjust-frequency", "route": "f:R", "headway_s": 30,
             "start_time": "08:00", "end_time": "07:00"},
            {"type": "add-route", "name": "N", "mode": "BUS", "stops": [],
             "headway_s": 600, "start_time": "6:00", "end_time": "7:00", "speed_kmh": 20},
            {"type": "add-route", "name": "N", "mode": "BUS", "stops": ["f:a", {"lat": 1}],
             "headway_s": 600, "start_time": "6:00", "end_time": "7:00", "speed_kmh": 20},
            extra_top=1,
        )
    )  # fmt: skip
    assert set(problems) == {
        "unknown field 'extra_top'",
        "modification 0: unknown field 'factor'",
        "modification 0: missing field 'scale'",
        "modification 1: field 'stops' must be a list of ids, got a string",
        "modification 2 (adjust-frequency): headway_s must be in [60, 86400] s, got 30",
        "modification 2 (adjust-frequency): end_time 07:00:00 must be after start_time 08:00:00",
        "modification 3 (add-route): stops must list 2 to 2000 stops, got 0",
        "modification 4: field 'stops' a new stop needs exactly lat, lon, name (and optionally "
        "stop_id); missing ['lon', 'name'], unknown []",
    }, problems


def test_size_limits() -> None:
    too_many = _doc(*[{"type": "remove-routes", "routes": ["f:R"]}] * 201)
    assert _problems(too_many) == ("a scenario holds at most 200 modifications, got 201",)
    long_route = _doc(
        {"type": "add-route", "name": "N", "mode": "BUS", "stops": [f"f:{k}" for k in range(2001)],
         "headway_s": 59, "start_time": "6:00", "end_time": "7:00", "speed_kmh": 20}
    )  # fmt: skip
    assert set(_problems(long_route)) == {
        "modification 0 (add-route): headway_s must be in [60, 86400] s, got 59",
        "modification 0 (add-route): stops must list 2 to 2000 stops, got 2001",
    }


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        (json.dumps({"modifications": []}), "missing field 'name'"),
        (json.dumps({"name": "s", "modifications": [], "version": 9}), "unsupported version 9"),
        (json.dumps({"name": "s", "modifications": [], "id": "../etc"}), "id must be 1 to 64"),
        (json.dumps({"name": " ", "modifications": []}), "name must be a non-empty string"),
    ],
)
def test_malformed_documents(document: str, expected: str) -> None:
    with pytest.raises(ScenarioError) as info:
        Scenario.from_json(document)
    assert expected in str(info.value)
    assert isinstance(info.value, ValueError)


def test_add_route_value_checks() -> None:
    mod = AddRoute(
        name="N",
        mode="HOVERCRAFT",
        stops=("f:a", NewStop(95.0, 10.0, "")),
        headway_s=600,
        start_time=0,
        end_time=3600,
        speed_kmh=20,
        hop_times_s=(1,),
        days=("monday", "funday"),
    )
    assert set(mod.check()) == {
        "mode must be one of TRAM, SUBWAY, RAIL, BUS, FERRY, CABLE_CAR, GONDOLA, FUNICULAR, "
        "AIRPLANE, got 'HOVERCRAFT'",
        "stops[1].lat must be in [-90, 90], got 95.0",
        "stops[1].name must be a non-empty string, got ''",
        "give exactly one of speed_kmh and hop_times_s",
        "days: unknown day names ['funday'] (use monday, tuesday, wednesday, thursday, "
        "friday, saturday, sunday)",
    }


# -- the store ------------------------------------------------------------------------------
def test_store_save_get_list_delete(tmp_path: Path) -> None:
    store = ScenarioStore(tmp_path / "scenarios")
    assert store.list("atlanta") == []
    named = _every_kind()
    assert store.save("atlanta", named) == "every-kind_1"
    anonymous = Scenario("no blue", (RemoveRoutes(("f:BLUE",)),))
    new_id = store.save("atlanta", anonymous)
    assert new_id
    assert new_id != "every-kind_1"
    assert store.get("atlanta", new_id).modifications == anonymous.modifications
    assert store.get("atlanta", new_id).id == new_id
    assert store.get("atlanta", "every-kind_1") == named
    assert sorted(s.id or "" for s in store.list("atlanta")) == sorted([new_id, "every-kind_1"])
    assert store.list("other-router") == []
    # saving again under the same id replaces the document
    store.save("atlanta", Scenario("renamed", id=new_id))
    assert store.get("atlanta", new_id).name == "renamed"
    store.delete("atlanta", new_id)
    assert [s.id for s in store.list("atlanta")] == ["every-kind_1"]
    with pytest.raises(UnknownIdError):
        store.get("atlanta", new_id)
    with pytest.raises(UnknownIdError):
        store.delete("atlanta", new_id)
    # documents are plain JSON, written atomically (no temporary files left behind)
    files = sorted(p.name for p in (tmp_path / "scenarios" / "atlanta").iterdir())
    assert files == ["every-kind_1.json"]
    on_disk = json.loads((tmp_path / "scenarios" / "atlanta" / files[0]).read_text())
    assert on_disk["name"] == "Every kind"


@pytest.mark.parametrize(
    "bad", ["../escape", "..", "a/b", "a\\b", "", ".hidden", "x" * 65, "a b", "/abs", "é"]
)
def test_store_rejects_unsafe_ids(tmp_path: Path, bad: str) -> None:
    store = ScenarioStore(tmp_path / "store")
    scenario = Scenario("s")
    with pytest.raises(ScenarioError):
        store.save(bad, scenario)
    with pytest.raises(ScenarioError):
        store.save("router", Scenario("s", id=bad))
    with pytest.raises(ScenarioError):
        store.get("router", bad)
    with pytest.raises(ScenarioError):
        store.get(bad, "ok")
    with pytest.raises(ScenarioError):
        store.delete("router", bad)
    with pytest.raises(ScenarioError):
        store.list(bad)
    assert not (tmp_path / "escape").exists()
    assert not (tmp_path / "store").exists() or not any((tmp_path / "store").rglob("*.json"))
