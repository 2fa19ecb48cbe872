"""Walk comfort on real data: rules, the OSM tags kept at build time, walking costs, plans."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import osmium
import pytest

from otpa.errors import NetworkBuildError
from otpa.network import TransportNetwork, build_network
from otpa.osm import WALK_TAG_KEYS
from otpa.routing._street_costs import edge_costs
from otpa.routing.street_router import StreetOptions, snap_point, street_path
from otpa.walkcomfort import (
    WalkComfortConfigError,
    WalkComfortRules,
    load_walk_config,
    segment_walk_comfort,
    set_walk_comfort_rules,
)
from tests.conftest import require_data

FIVE_POINTS = (33.7539, -84.3916)
PEACHTREE_CENTER = (33.7597, -84.3877)
WALK = StreetOptions(mode="WALK", speed_mps=1.33, reluctance=2.0)
#: Busy streets 3x worse, streets with sidewalks on both sides 0.8x.
CONFIG = {
    "rules": [
        {"type": "equal", "key": "highway", "value": ["primary", "secondary"], "factor": 3},
        {"key": "sidewalk", "value": "both", "factor": 0.8},
    ]
}


def rules(*items: dict) -> WalkComfortRules:  # type: ignore[type-arg]
    return WalkComfortRules.from_document({"rules": list(items)})


# -- rules ------------------------------------------------------------------------------------


def test_every_test_type() -> None:
    r = rules(
        {"type": "equal", "key": "highway", "value": "primary", "factor": 2},
        {"type": "absent", "key": "sidewalk", "factor": 3},
        {"type": "numeric-equal", "key": "lanes", "value": 2, "factor": 5},
        {"type": "greater", "key": "maxspeed", "value": 50, "factor": 7},
        {"type": "less", "key": "width", "value": 1.5, "factor": 11},
        {"type": "greater-equal", "key": "incline", "value": 10, "factor": 13},
        {"type": "less-equal", "key": "lanes", "value": 1, "factor": 17},
    )
    assert r.factor_of({}) == 3
    assert r.factor_of({"highway": "primary", "sidewalk": "both"}) == 2
    assert r.factor_of({"sidewalk": "no", "lanes": "2.0"}) == 5
    assert r.factor_of({"sidewalk": "no", "maxspeed": "60"}) == 7
    assert r.factor_of({"sidewalk": "no", "maxspeed": "50"}) == 1  # not greater
    assert r.factor_of({"sidewalk": "no", "maxspeed": "50 mph"}) == 1  # not a number
    assert r.factor_of({"sidewalk": "no", "width": "1.2"}) == 11
    assert r.factor_of({"sidewalk": "no", "incline": "10"}) == 13
    assert r.factor_of({"sidewalk": "no", "lanes": "1"}) == 17
    assert r.keys == {"highway", "sidewalk", "lanes", "maxspeed", "width", "incline"}


def test_and_or_nest_and_factors_multiply() -> None:
    # ibi's documented example: primary, or secondary/tertiary with more than two lanes
    r = rules(
        {
            "type": "or",
            "tests": [
                {"type": "equal", "key": "highway", "value": "primary"},
                {
                    "type": "and",
                    "tests": [
                        {"type": "equal", "key": "highway", "value": ["secondary", "tertiary"]},
                        {"type": "greater", "key": "lanes", "value": 2},
                    ],
                },
            ],
            "factor": 1.5,
        },
        {"key": "sidewalk", "value": "both", "factor": 0.9},
    )
    assert r.factor_of({"highway": "primary"}) == 1.5
    assert r.factor_of({"highway": "tertiary", "lanes": "3"}) == 1.5
    assert r.factor_of({"highway": "tertiary", "lanes": "2"}) == 1.0
    assert r.factor_of({"highway": "primary", "sidewalk": "both"}) == pytest.approx(1.35)
    np.testing.assert_allclose(
        r.factors_of([{}, {"highway": "primary"}, {"sidewalk": "both"}]), [1.0, 1.5, 0.9]
    )


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        ([], "a walk configuration is"),
        ({"rules": "x"}, "a walk configuration is"),
        ({"rules": [{"key": "highway", "value": "primary"}]}, "'factor' must be a positive"),
        ({"rules": [{"key": "a", "value": "b", "factor": 0}]}, "'factor' must be a positive"),
        ({"rules": [{"key": "a", "value": "b", "factor": True}]}, "'factor' must be"),
        ({"rules": [{"type": "near", "key": "a", "factor": 2}]}, "unknown test type 'near'"),
        ({"rules": [{"value": "b", "factor": 2}]}, "needs a tag 'key'"),
        ({"rules": [{"key": "a", "value": 3, "factor": 2}]}, "a string or strings"),
        ({"rules": [{"type": "greater", "key": "a", "value": "x", "factor": 2}]}, "numeric"),
        ({"rules": [{"type": "and", "tests": [], "factor": 2}]}, "non-empty list 'tests'"),
        ({"rules": [{"type": "or", "tests": [{"type": "x"}], "factor": 2}]},
         "rules[0].tests[0]: unknown test type"),
    ],
)  # fmt: skip
def test_bad_configurations_name_each_problem(document: object, problem: str) -> None:
    with pytest.raises(WalkComfortConfigError) as err:
        WalkComfortRules.from_document(document)
    assert any(problem in p for p in err.value.problems), err.value.problems


def test_every_problem_is_reported(tmp_path: Path) -> None:
    bad = {"rules": [{"type": "near", "factor": 2}, {"key": "a", "value": "b", "factor": -1}]}
    with pytest.raises(WalkComfortConfigError) as err:
        WalkComfortRules.from_document(bad)
    assert [p.split(":")[0] for p in err.value.problems] == ["rules[0]", "rules[1]"]
    path = tmp_path / "walk-config.json"
    path.write_text("{not json")
    with pytest.raises(WalkComfortConfigError, match="not JSON"):
        load_walk_config(path)


# -- a network built with a walk-config.json ----------------------------------------------------


@pytest.fixture(scope="module")
def atlanta_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = require_data("tiny", "atlanta")
    folder = tmp_path_factory.mktemp("atlanta")
    for f in src.iterdir():
        shutil.copy(f, folder / f.name)
    (folder / "walk-config.json").write_text(json.dumps(CONFIG))
    return folder


@pytest.fixture(scope="module")
def atlanta(atlanta_dir: Path) -> TransportNetwork:
    """A private network (its rules are changed by the tests; no other test shares it)."""
    return build_network(atlanta_dir)


def osm_tags(path: Path, way_ids: set[int]) -> dict[int, dict[str, str]]:
    """Tags of some ways, read with pyosmium directly."""
    out: dict[int, dict[str, str]] = {}
    for obj in osmium.FileProcessor(str(path)).with_filter(
        osmium.filter.EntityFilter(osmium.osm.WAY)
    ):
        if obj.id in way_ids:
            out[obj.id] = dict(obj.tags)
    return out


def test_the_build_keeps_the_walk_tags_of_each_way(
    atlanta: TransportNetwork, atlanta_dir: Path
) -> None:
    wc = atlanta.walk_comfort
    assert wc is not None
    assert wc.rules is not None
    assert wc.rules.document == CONFIG
    g = atlanta.street
    assert g is not None
    way_ids = np.unique(np.asarray(g.seg_way_id))
    sample = set(way_ids[way_ids > 0][::25].tolist())
    truth = osm_tags(next(atlanta_dir.glob("*.pbf")), sample)
    assert len(truth) == len(sample) > 20
    sets = wc.tags.lookup(np.array(sorted(truth)))
    for way_id, k in zip(sorted(truth), sets.tolist(), strict=True):
        expected = {key: v for key, v in truth[way_id].items() if key in WALK_TAG_KEYS}
        assert wc.tags.tag_sets[k] == expected
    # the name and other keys are not kept
    assert not any("name" in t for t in wc.tags.tag_sets)


def test_segment_factors_follow_the_rules(atlanta: TransportNetwork) -> None:
    wc = atlanta.walk_comfort
    assert wc is not None
    g = atlanta.street
    assert g is not None
    factors = segment_walk_comfort(atlanta)
    assert factors is not None
    tags = [wc.tags.tag_sets[k] for k in wc.tags.lookup(np.asarray(g.seg_way_id)).tolist()]
    expected = np.array([
        (3.0 if t.get("highway") in ("primary", "secondary") else 1.0)
        * (0.8 if t.get("sidewalk") == "both" else 1.0)
        for t in tags
    ])  # fmt: skip
    np.testing.assert_allclose(factors, expected)
    assert (expected == 3.0).sum() > 50  # busy streets exist in central Atlanta


def test_walk_costs_are_multiplied_by_the_factor_and_times_unchanged(
    atlanta: TransportNetwork,
) -> None:
    g = atlanta.street
    assert g is not None
    set_walk_comfort_rules(atlanta, None)
    plain = edge_costs(g, WALK)
    update = set_walk_comfort_rules(
        atlanta, rules({"key": "highway", "value": "secondary", "factor": 4})
    )
    assert update.rules_loaded == 1
    assert update.edges_updated == int(np.count_nonzero(np.asarray(g.edge_perm) & 1))
    comfy = edge_costs(g, WALK)
    kinds = np.array(g.highway_kinds)[np.asarray(g.seg_highway)[np.asarray(g.edge_segment)]]
    usable = np.isfinite(plain.weight)
    secondary = usable & (kinds == "secondary")
    assert secondary.sum() > 20
    np.testing.assert_allclose(comfy.weight[secondary], 4 * plain.weight[secondary])
    np.testing.assert_array_equal(
        comfy.weight[usable & ~secondary], plain.weight[usable & ~secondary]
    )
    np.testing.assert_array_equal(comfy.time_s, plain.time_s)
    # wheelchair routing ignores walk comfort (as ibi's fork)
    wheel = StreetOptions(mode="WALK", speed_mps=1.33, reluctance=2.0, wheelchair=True)
    before = edge_costs(g, wheel).weight
    set_walk_comfort_rules(atlanta, None)
    np.testing.assert_array_equal(edge_costs(g, wheel).weight, before)


def test_walking_avoids_the_streets_the_rules_penalise(atlanta: TransportNetwork) -> None:
    g = atlanta.street
    assert g is not None
    a = snap_point(atlanta, *FIVE_POINTS, mode="WALK")
    b = snap_point(atlanta, *PEACHTREE_CENTER, mode="WALK")
    assert a is not None
    assert b is not None
    set_walk_comfort_rules(atlanta, None)
    plain = street_path(atlanta, a, b, WALK)
    assert plain is not None
    kinds = np.array(g.highway_kinds)[np.asarray(g.seg_highway)[np.asarray(g.edge_segment)]]
    used = sorted(set(kinds[plain.edges].tolist()) - {"footway", "pedestrian"})
    assert used
    # every way equally 2x worse: the same path at twice the edge costs, the same time
    set_walk_comfort_rules(atlanta, rules({"type": "absent", "key": "no-such-tag", "factor": 2}))
    doubled = street_path(atlanta, a, b, WALK)
    assert doubled is not None
    np.testing.assert_array_equal(doubled.edges, plain.edges)
    assert doubled.duration_s == plain.duration_s
    assert doubled.cost > 1.9 * plain.cost
    # the streets it used 5x worse: a different, longer but more comfortable way
    set_walk_comfort_rules(atlanta, rules({"key": "highway", "value": used, "factor": 5}))
    detour = street_path(atlanta, a, b, WALK)
    assert detour is not None
    assert not np.array_equal(detour.edges, plain.edges)
    assert detour.distance_m > plain.distance_m
    share = lambda p: np.isin(kinds[p.edges], used).mean()  # noqa: E731
    assert share(detour) < share(plain)
    set_walk_comfort_rules(atlanta, None)
    again = street_path(atlanta, a, b, WALK)
    assert again is not None
    np.testing.assert_array_equal(again.edges, plain.edges)


def test_save_and_load_keep_tags_and_rules(atlanta: TransportNetwork, tmp_path: Path) -> None:
    set_walk_comfort_rules(atlanta, WalkComfortRules.from_document(CONFIG))
    atlanta.save(tmp_path / "graph")
    loaded = TransportNetwork.load(tmp_path / "graph")
    assert loaded.walk_comfort is not None
    assert loaded.walk_comfort.rules is not None
    assert loaded.walk_comfort.rules.document == CONFIG
    assert loaded.walk_comfort.tags.tag_sets == atlanta.walk_comfort.tags.tag_sets  # type: ignore[union-attr]
    np.testing.assert_array_equal(segment_walk_comfort(loaded), segment_walk_comfort(atlanta))
    g, h = loaded.street, atlanta.street
    assert g is not None
    assert h is not None
    np.testing.assert_allclose(edge_costs(g, WALK).weight, edge_costs(h, WALK).weight, atol=0.01)
    set_walk_comfort_rules(atlanta, None)


def test_a_bad_walk_config_fails_the_build(atlanta_dir: Path, tmp_path: Path) -> None:
    for f in atlanta_dir.iterdir():
        shutil.copy(f, tmp_path / f.name)
    (tmp_path / "walk-config.json").write_text(json.dumps({"rules": [{"key": "x", "factor": 2}]}))
    with pytest.raises(NetworkBuildError, match=r"walk-config\.json.*rules\[0\]"):
        build_network(tmp_path)


def test_without_a_walk_config_walk_comfort_is_off() -> None:
    from tests.conftest import DATA_ROOT
    from tests.fixtures.networks import built_network

    net = built_network(DATA_ROOT, "tiny/atlanta")
    assert net.walk_comfort is not None
    assert net.walk_comfort.rules is None
    assert segment_walk_comfort(net) is None
