"""OTP's German street cases (tiny/herrenberg-vvs): restrictions, barriers, works, roundabouts.

Expected values are read from the OSM files with osmium (relation members, barrier
tags, the roundabout's node order), never from the router.
"""

from __future__ import annotations

import dataclasses
import types
from functools import cache
from typing import Any

import numpy as np
import osmium
import pytest

from otpa.network import TransportNetwork
from otpa.osm import read_osm
from otpa.routing.model import RelativeDirection
from otpa.routing.street_router import StreetOptions, snap_point, street_path, walk_steps
from otpa.street import StreetGraph, build_street_graph
from tests.conftest import require_data
from tests.fixtures.networks import built_network

WALK_OPTS = StreetOptions(mode="WALK", speed_mps=1.33, reluctance=2.0)
BIKE_OPTS = StreetOptions(mode="BICYCLE", speed_mps=5.0, reluctance=2.0)
CAR_OPTS = StreetOptions(mode="CAR", speed_mps=40.0, reluctance=2.0)
CAR_HIGHWAYS = {
    "motorway", "trunk", "primary", "secondary", "tertiary", "unclassified", "residential",
    "living_street", "service", "motorway_link", "trunk_link", "primary_link",
    "secondary_link", "tertiary_link", "road",
}  # fmt: skip


class _Osm(osmium.SimpleHandler):  # type: ignore[misc]
    """Nodes (location, tags), highway ways (tags, node ids) and restriction relations."""

    def __init__(self) -> None:
        super().__init__()
        self.loc: dict[int, tuple[float, float]] = {}
        self.node_tags: dict[int, dict[str, str]] = {}
        self.ways: dict[int, tuple[dict[str, str], list[int]]] = {}
        self.restrictions: list[tuple[dict[str, str], dict[str, list[int]]]] = []

    def node(self, n: Any) -> None:
        self.loc[n.id] = (n.location.lat, n.location.lon)
        if len(n.tags):
            self.node_tags[n.id] = dict(n.tags)

    def way(self, w: Any) -> None:
        tags = dict(w.tags)
        if "highway" in tags:
            self.ways[w.id] = (tags, [n.ref for n in w.nodes])

    def relation(self, r: Any) -> None:
        tags = dict(r.tags)
        if tags.get("type") == "restriction":
            members: dict[str, list[int]] = {}
            for m in r.members:
                members.setdefault(m.role, []).append(m.ref)
            self.restrictions.append((tags, members))


@cache
def _osm(name: str) -> _Osm:
    handler = _Osm()
    handler.apply_file(str(require_data("tiny", "herrenberg-vvs", name)))
    return handler


@cache
def _graph(name: str, prune: bool) -> StreetGraph:
    return build_street_graph(
        read_osm(require_data("tiny", "herrenberg-vvs", name)), prune_islands=prune
    )


def _net(graph: StreetGraph) -> Any:
    return types.SimpleNamespace(street=graph)


@pytest.fixture(scope="module")
def herrenberg() -> TransportNetwork:
    return built_network(require_data(), "tiny/herrenberg-vvs")


def _vertex_of(g: StreetGraph) -> dict[int, int]:
    return {int(osm): v for v, osm in enumerate(g.vertex_osm_id) if osm >= 0}


def _way_of(g: StreetGraph, edges: np.ndarray) -> np.ndarray:
    return np.asarray(g.seg_way_id[g.edge_segment[edges]])


def _neighbour(osm: _Osm, vid: dict[int, int], way: int, node: int) -> int | None:
    """The nearest graph vertex along ``way`` away from ``node`` (which ends the way)."""
    nodes = osm.ways[way][1]
    if nodes[-1] == node:
        nodes = nodes[::-1]
    elif nodes[0] != node:
        return None
    for n in nodes[1:]:
        if n in vid:
            return vid[n]
    return None


# ------------------------------------------------------------ restrictions
@pytest.mark.parametrize("name", ["boeblingen-minimal.osm.pbf", "deufringen-minimal.osm.pbf"])
def test_car_routes_obey_turn_restrictions(name: str) -> None:
    g = _graph(name, prune=False)
    net = _net(g)
    osm = _osm(name)
    vid = _vertex_of(g)
    checked = differs = 0
    for tags, members in osm.restrictions:
        kind = tags.get("restriction", "")
        if "motorcar" in tags.get("except", "") or not members.get("via"):
            continue
        (frm,), (to,), (via,) = members["from"], members["to"], members["via"]
        if via not in vid or frm not in osm.ways or to not in osm.ways:
            continue
        origin = _neighbour(osm, vid, frm, via)
        target = _neighbour(osm, vid, to, via)
        if origin is None or target is None or origin == target:
            continue
        v = vid[via]

        def violates(
            edges: np.ndarray, *, v: int = v, frm: int = frm, to: int = to, kind: str = kind
        ) -> bool:
            ways = _way_of(g, edges)
            for i in range(edges.size - 1):
                if g.edge_to[edges[i]] != v or ways[i] != frm:
                    continue
                if kind.startswith("no_") and ways[i + 1] == to:
                    return True
                if kind.startswith("only_") and ways[i + 1] != to:
                    return True
            return False

        restricted = street_path(net, origin, target, CAR_OPTS)
        free = street_path(
            net, origin, target, dataclasses.replace(CAR_OPTS, turn_restrictions=False)
        )
        assert free is not None
        if restricted is not None:
            assert not violates(restricted.edges)
            assert restricted.cost >= free.cost - 1e-9
        if violates(free.edges):
            differs += 1
            assert restricted is None or restricted.edges.tolist() != free.edges.tolist()
        # restrictions are for vehicles only
        walk = street_path(net, origin, target, WALK_OPTS)
        walk_free = street_path(
            net, origin, target, dataclasses.replace(WALK_OPTS, turn_restrictions=False)
        )
        assert (walk is None) == (walk_free is None)
        if walk is not None and walk_free is not None:
            assert walk.cost == pytest.approx(walk_free.cost)
        checked += 1
    assert checked >= 1
    if name.startswith("boeblingen"):
        assert differs >= 2  # ignoring the restrictions, cars take the banned turns


# ---------------------------------------------------------------- barriers
def test_bollards_block_cars_not_pedestrians(herrenberg: TransportNetwork) -> None:
    g = herrenberg.street
    assert g is not None
    osm = _osm("boeblingen-minimal.osm.pbf")
    vid = _vertex_of(g)
    tested = 0
    for node, tags in osm.node_tags.items():
        motor = tags.get("motor_vehicle", tags.get("motorcar", tags.get("access", "no")))
        if tags.get("barrier") != "bollard" or motor not in ("no", "private") or node not in vid:
            continue
        car_ways = [
            w for w, (t, ns) in osm.ways.items()
            if node in (ns[0], ns[-1]) and t["highway"] in CAR_HIGHWAYS
        ]  # fmt: skip
        if len(car_ways) < 2:
            continue
        a = _neighbour(osm, vid, car_ways[0], node)
        b = _neighbour(osm, vid, car_ways[1], node)
        if a is None or b is None:
            continue
        v = vid[node]
        car = street_path(herrenberg, a, b, CAR_OPTS)
        if car is not None:
            assert v not in g.edge_to[car.edges[:-1]].tolist()
        walk = street_path(herrenberg, a, b, WALK_OPTS)
        assert walk is not None
        assert v in g.edge_to[walk.edges[:-1]].tolist()
        tested += 1
    assert tested >= 1


def test_gates_make_cyclists_walk_or_detour() -> None:
    """OTP's BarrierRoutingTest places: the gates are ``bicycle=no, foot=yes``."""
    name = "herrenberg-barrier-gates.osm.pbf"
    g = _graph(name, prune=False)
    net = _net(g)
    osm = _osm(name)
    vid = _vertex_of(g)
    gates = {
        vid[n] for n, t in osm.node_tags.items()
        if t.get("barrier") == "gate" and t.get("bicycle") == "no" and n in vid
    }  # fmt: skip
    assert len(gates) == 3
    a = snap_point(net, 48.59384, 8.86848, mode="BICYCLE")
    b = snap_point(net, 48.59370, 8.87079, mode="BICYCLE")
    assert a is not None
    assert b is not None
    # default costs: a detour around the gates, all of it ridden (OTP's first polyline)
    detour = street_path(net, a, b, BIKE_OPTS)
    assert detour is not None
    assert not set(g.edge_to[detour.edges[:-1]].tolist()) & gates
    assert not detour.walking.any()
    assert np.isclose(detour.lat, 48.59271, atol=2e-5).any()
    # walking the bike made cheap: straight through two gates, walked next to them
    cheap = street_path(net, a, b, dataclasses.replace(BIKE_OPTS, walk_reluctance=0.1))
    assert cheap is not None
    passed = set(g.edge_to[cheap.edges[:-1]].tolist()) & gates
    assert len(passed) == 2
    touches = np.isin(g.edge_from[cheap.edges], list(gates)) | np.isin(
        g.edge_to[cheap.edges], list(gates)
    )
    assert np.array_equal(cheap.walking, touches)
    walking = [s.street_name for s in walk_steps(net, cheap)]
    assert walking
    # pedestrians go straight through
    wa = snap_point(net, 48.59384, 8.86848, mode="WALK")
    wb = snap_point(net, 48.59370, 8.87079, mode="WALK")
    assert wa is not None
    assert wb is not None
    walk = street_path(net, wa, wb, WALK_OPTS)
    assert walk is not None
    assert len(set(g.edge_to[walk.edges[:-1]].tolist()) & gates) == 2


def test_road_under_construction_is_not_used() -> None:
    name = "herrenberg-hindenburgstr-under-construction.osm.pbf"
    g = _graph(name, prune=False)
    net = _net(g)
    osm = _osm(name)
    building = {w for w, (t, _) in osm.ways.items() if t["highway"] == "construction"}
    assert building
    assert not np.isin(g.seg_way_id, list(building)).any()
    # points along the Hindenburgstraße works are routed over other streets (or not at all)
    nodes = max((ns for w, (_, ns) in osm.ways.items() if w in building), key=len)
    lat0, lon0 = osm.loc[nodes[0]]
    lat1, lon1 = osm.loc[nodes[-1]]
    for opts in (WALK_OPTS, CAR_OPTS):
        a = snap_point(net, lat0, lon0, mode=opts.mode, max_distance_m=300)
        b = snap_point(net, lat1, lon1, mode=opts.mode, max_distance_m=300)
        if a is None or b is None:
            continue
        path = street_path(net, a, b, opts)
        if path is not None:
            assert not np.isin(_way_of(g, path.edges), list(building)).any()


# -------------------------------------------------------------- roundabout
def _ring_is_counterclockwise(osm: _Osm, nodes: list[int]) -> bool:
    lat = np.array([osm.loc[n][0] for n in nodes])
    lon = np.array([osm.loc[n][1] for n in nodes])
    return float(np.sum(lon[:-1] * lat[1:] - lon[1:] * lat[:-1])) > 0


def test_roundabout_steps_and_exit_numbers() -> None:
    name = "herrenberg-minimal.osm.pbf"
    osm = _osm(name)
    g = _graph(name, prune=True)
    net = _net(g)
    vid = _vertex_of(g)
    ring_id, (ring_tags, ring) = next(
        (w, v) for w, v in osm.ways.items()
        if v[0].get("junction") == "roundabout" and v[0]["highway"] in CAR_HIGHWAYS
        and v[0].get("ref") == "K 1047"
    )  # fmt: skip
    assert ring[0] == ring[-1]
    cycle = ring[:-1]
    # arms: two-way car roads ending at a roundabout node, in driving (node) order
    arms = []
    for i, node in enumerate(cycle):
        for w, (t, ns) in osm.ways.items():
            if w == ring_id or t["highway"] not in CAR_HIGHWAYS or node not in (ns[0], ns[-1]):
                continue
            if t.get("oneway", "no") in ("yes", "-1"):
                continue
            arms.append((i, w, t.get("name", "")))
    assert len(arms) == 4
    counterclockwise = _ring_is_counterclockwise(osm, ring)
    expected_sense = (
        RelativeDirection.CIRCLE_COUNTERCLOCKWISE
        if counterclockwise
        else RelativeDirection.CIRCLE_CLOCKWISE
    )
    tested = 0
    for i_in, w_in, name_in in arms:
        for i_out, w_out, name_out in arms:
            if w_in == w_out:
                continue
            # exits passed: arms met strictly between entry and exit, plus the exit taken
            steps_round = (i_out - i_in) % len(cycle)
            passed = sum(1 for i, _, _ in arms if 0 < (i - i_in) % len(cycle) < steps_round)
            a = _neighbour(osm, vid, w_in, cycle[i_in])
            b = _neighbour(osm, vid, w_out, cycle[i_out])
            assert a is not None
            assert b is not None
            path = street_path(net, a, b, CAR_OPTS)
            assert path is not None
            steps = walk_steps(net, path)
            circles = [s for s in steps if s.exit is not None]
            assert len(circles) == 1
            circle = circles[0]
            assert circle.relative_direction == expected_sense
            assert circle.exit == str(passed + 1)
            assert circle.street_name == ring_tags["ref"]
            after = steps[steps.index(circle) + 1]
            assert after.street_name == name_out
            assert steps[0].relative_direction == RelativeDirection.DEPART
            assert steps[0].street_name == name_in
            tested += 1
    assert tested == 12


def test_walk_steps_on_a_real_route(herrenberg: TransportNetwork) -> None:
    g = herrenberg.street
    assert g is not None
    linked = [int(v) for v in herrenberg.stop_vertex if v >= 0]
    checked = 0
    for va, vb in zip(linked[:20], linked[3:23], strict=False):
        a = snap_point(herrenberg, g.vertex_lat[va] + 2e-4, g.vertex_lon[va], mode="WALK")
        b = snap_point(herrenberg, g.vertex_lat[vb], g.vertex_lon[vb] - 2e-4, mode="WALK")
        assert a is not None
        assert b is not None
        path = street_path(herrenberg, a, b, WALK_OPTS)
        if path is None or path.edges.size < 5:
            continue
        steps = walk_steps(herrenberg, path)
        assert steps[0].relative_direction == RelativeDirection.DEPART
        assert steps[0].lat == pytest.approx(a.snap_lat)
        assert steps[0].lon == pytest.approx(a.snap_lon)
        assert sum(s.distance for s in steps) == pytest.approx(path.distance_m)
        assert all(s.absolute_direction is not None for s in steps)
        assert all(s.elevation == () for s in steps)  # no elevation data
        assert steps[-1].street_name == g.names[g.edge_name[path.edges[-1]]]
        checked += 1
    assert checked >= 3
