"""Wheelchair walks and OSM elevator nodes (router-config ``wheelchairAccessibility.elevator``).

A tiny OSM file: a 100 m footway A-E-B through an elevator node E (where the
ways of two levels meet), and a 300 m detour A-C-D-B around it.  A wheelchair
user pays the elevator's cost for passing through E (OTP 2: 20 s without
``wheelchair`` tag, 3600 s with ``wheelchair=no``, none with ``wheelchair=yes``)
or may not pass it with ``onlyConsiderAccessible``.
"""

from __future__ import annotations

import dataclasses
import itertools
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from otpa.osm import read_osm
from otpa.osm.model import (
    ELEVATOR_ACCESSIBLE,
    ELEVATOR_INACCESSIBLE,
    ELEVATOR_NONE,
    ELEVATOR_UNKNOWN,
)
from otpa.routing._street_costs import edge_costs
from otpa.routing.preferences import AccessibilityPreferences
from otpa.routing.street_router import Snap, StreetOptions, street_path
from otpa.street import StreetGraph, build_street_graph
from tests.otpa.osm._osm_xml import OsmXml, xy

A, E, B, C, D = 1, 2, 3, 4, 5
OPTS = StreetOptions(mode="WALK", speed_mps=1.0, reluctance=1.0, turn_costs=False)


def _graph(tmp_path: Path, **elevator_tags: str) -> StreetGraph:
    osm = OsmXml()
    osm.node(A, 0, 0)
    osm.node(E, 50, 0, highway="elevator", **elevator_tags)
    osm.node(B, 100, 0)
    osm.node(C, 0, 100)
    osm.node(D, 100, 100)
    osm.way(1, [A, E], highway="footway", level="0")
    osm.way(2, [E, B], highway="footway", level="1")
    osm.way(3, [A, C, D, B], highway="footway")
    return build_street_graph(read_osm(osm.write(tmp_path / "elevator.osm")), prune_islands=False)


def _net(g: StreetGraph) -> Any:
    return types.SimpleNamespace(
        street=g, stop_vertex=np.zeros(0, dtype=np.int32), stop_link_distance_m=np.zeros(0)
    )


def _v(g: StreetGraph, osm_id: int) -> int:
    return int(np.flatnonzero(g.vertex_osm_id == osm_id)[0])


def _length(g: StreetGraph, *osm_ids: int) -> float:
    """Length of the edges along the OSM nodes ``osm_ids`` (C, D: shape points of A-B)."""
    total = 0.0
    for a, b in itertools.pairwise(osm_ids):
        e = np.flatnonzero((g.edge_from == _v(g, a)) & (g.edge_to == _v(g, b)))
        total += float(g.edge_length_m[e[0]])
    return total


def _wheelchair(only: bool = False, unknown: float = 20.0, inaccessible: float = 3600.0) -> Any:
    return dataclasses.replace(
        OPTS, wheelchair=True, elevator=AccessibilityPreferences(only, unknown, inaccessible)
    )


def _through_elevator(g: StreetGraph, path: Any) -> bool:
    return bool(np.any(g.edge_to[path.edges] == _v(g, E)))


def test_elevator_nodes_are_vertices_with_their_wheelchair_tag(tmp_path: Path) -> None:
    osm = OsmXml()
    for i, tag in enumerate(("yes", "no", None, "limited")):
        tags = {} if tag is None else {"wheelchair": tag}
        osm.node(10 + i, 0, 20 * i, highway="elevator", **tags)
    osm.node(20, 0, 100)
    osm.node(21, 10, 100, highway="elevator")  # inside a way: not a vertex
    for i, (a, b) in enumerate(itertools.pairwise([10, 11, 12, 13, 20])):
        osm.way(1 + i, [a, b], highway="footway")
    osm.way(9, [20, 21, 22], highway="footway")
    osm.node(22, 20, 100)
    d = read_osm(osm.write(tmp_path / "elevators.osm"))
    assert d.vertex_elevator is not None
    codes = dict(zip(d.vertex_osm_id.tolist(), d.vertex_elevator.tolist(), strict=True))
    assert codes == {
        10: ELEVATOR_ACCESSIBLE,
        11: ELEVATOR_INACCESSIBLE,
        12: ELEVATOR_UNKNOWN,
        13: ELEVATOR_UNKNOWN,
        20: ELEVATOR_NONE,
        22: ELEVATOR_NONE,
    }
    # no elevator in the data: no array (and none saved with the graph)
    plain = OsmXml()
    plain.node(1, 0, 0)
    plain.node(2, 0, 50)
    plain.way(1, [1, 2], highway="footway")
    assert read_osm(plain.write(tmp_path / "plain.osm")).vertex_elevator is None


def test_inaccessible_elevator_is_avoided_while_the_detour_is_cheaper(tmp_path: Path) -> None:
    g = _graph(tmp_path, wheelchair="no")
    net, a, b = _net(g), _v(g, A), _v(g, B)
    direct, detour = _length(g, A, E, B), _length(g, A, B)
    assert detour == pytest.approx(300.0, rel=1e-2)
    assert direct == pytest.approx(100.0, rel=1e-2)
    # walking (no wheelchair): straight through the elevator, no cost for it
    walk = street_path(net, a, b, OPTS)
    assert walk is not None
    assert _through_elevator(g, walk)
    assert walk.cost == direct
    # wheelchair, OTP 2's 3600 s for an inaccessible elevator: the 300 m detour
    path = street_path(net, a, b, _wheelchair())
    assert path is not None
    assert not _through_elevator(g, path)
    assert path.cost == pytest.approx(detour, abs=1e-9)
    # an inaccessible cost below the detour's extra 200 s: through the elevator
    cheap = street_path(net, a, b, _wheelchair(inaccessible=150.0))
    assert cheap is not None
    assert _through_elevator(g, cheap)
    assert cheap.cost == pytest.approx(direct + 150.0, abs=1e-9)
    assert cheap.duration_s == walk.duration_s  # a cost, not a time
    # strict mode: never through it, whatever the cost
    strict = street_path(net, a, b, _wheelchair(only=True, inaccessible=0.0))
    assert strict is not None
    assert not _through_elevator(g, strict)
    assert strict.cost == pytest.approx(detour, abs=1e-9)
    # arrive-by direction (B to A) alike
    back = street_path(net, b, a, _wheelchair(inaccessible=150.0))
    assert back is not None
    assert back.cost == pytest.approx(direct + 150.0, abs=1e-9)


@pytest.mark.parametrize(
    ("tags", "extra"),
    [({}, 20.0), ({"wheelchair": "yes"}, 0.0), ({"wheelchair": "no"}, None)],
)
def test_elevator_cost_by_wheelchair_tag(
    tmp_path: Path, tags: dict[str, str], extra: float | None
) -> None:
    g = _graph(tmp_path, **tags)
    path = street_path(_net(g), _v(g, A), _v(g, B), _wheelchair())
    assert path is not None
    if extra is None:
        assert not _through_elevator(g, path)
        assert path.cost == pytest.approx(_length(g, A, B), abs=1e-9)
    else:
        assert _through_elevator(g, path)
        assert path.cost == pytest.approx(_length(g, A, E, B) + extra, abs=1e-9)
    # unknown elevators are forbidden in strict mode too; accessible ones are not
    strict = street_path(_net(g), _v(g, A), _v(g, B), _wheelchair(only=True))
    assert strict is not None
    assert _through_elevator(g, strict) == (extra == 0.0)


def test_paths_starting_or_ending_at_the_elevator_do_not_pay_it(tmp_path: Path) -> None:
    g = _graph(tmp_path)  # unknown: 20 s
    net, wheel = _net(g), _wheelchair()
    e, b = _v(g, E), _v(g, B)
    from_elevator = street_path(net, e, b, wheel)
    to_elevator = street_path(net, _v(g, A), e, wheel)
    assert from_elevator is not None
    assert to_elevator is not None
    assert from_elevator.cost == pytest.approx(_length(g, E, B), abs=1e-9)
    assert to_elevator.cost == pytest.approx(_length(g, A, E), abs=1e-9)
    # snapped points on the edge E-B: starting there passes no elevator, ending
    # there after coming from A passes it (in full)
    edge = int(np.flatnonzero((g.edge_from == e) & (g.edge_to == b))[0])
    lat = float(g.vertex_lat[e] + g.vertex_lat[b]) / 2
    lon = float(g.vertex_lon[e] + g.vertex_lon[b]) / 2
    mid = Snap(lat, lon, edge, 0.5, lat, lon, 0.0)
    half = float(g.edge_length_m[edge]) / 2
    start_mid = street_path(net, mid, b, wheel)
    end_mid = street_path(net, _v(g, A), mid, wheel)
    assert start_mid is not None
    assert end_mid is not None
    assert start_mid.cost == pytest.approx(half, abs=1e-9)
    assert end_mid.cost == pytest.approx(_length(g, A, E) + 20.0 + half, abs=1e-9)


def test_saved_graph_keeps_elevators_and_old_graphs_have_none(tmp_path: Path) -> None:
    g = _graph(tmp_path, wheelchair="no")
    arrays, meta = g.to_arrays(), g.meta()
    assert "vertex_elevator" in arrays
    loaded = StreetGraph.from_arrays(arrays, meta)
    assert loaded.vertex_elevator is not None
    assert np.array_equal(loaded.vertex_elevator, np.asarray(g.vertex_elevator))
    old = {k: v for k, v in arrays.items() if k != "vertex_elevator"}
    plain = StreetGraph.from_arrays(old, meta)
    assert plain.vertex_elevator is None
    path = street_path(_net(plain), _v(g, A), _v(g, B), _wheelchair())
    assert path is not None
    assert path.cost == pytest.approx(_length(g, A, E, B), abs=1e-9)
    # searches other than wheelchair walks get the very same edge weights
    for opts in (OPTS, dataclasses.replace(OPTS, mode="BICYCLE")):
        assert edge_costs(g, opts).weight.tobytes() == edge_costs(plain, opts).weight.tobytes()
        assert edge_costs(g, opts).exit_cost is None
    assert edge_costs(plain, _wheelchair()).exit_cost is None
    # linking appends vertices that are no elevators
    lat, lon = xy(2.0, 50.0)  # next to A-C
    linked = g.link_points([lat], [lon]).graph
    assert linked.n_vertices > g.n_vertices
    assert linked.vertex_elevator is not None
    assert linked.vertex_elevator.shape == (linked.n_vertices,)
    assert np.flatnonzero(linked.vertex_elevator).tolist() == [_v(g, E)]
