"""Walkable areas: multipolygon squares with holes, and corners of concave areas.

FEATURE UNDER TEST: a ``type=multipolygon`` relation with ``highway=pedestrian`` is a
walkable area like a closed ``area=yes`` way; walkers cross it in straight lines between
its entrances and around its holes (never through them), bending at the corners.
Distances are hand-computed from the synthetic coordinates (metres).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from otpa.network import TransportNetwork, build_network
from otpa.osm import FLAG_AREA, read_osm
from otpa.routing.street_router import StreetOptions, street_path
from tests.otpa.osm._osm_xml import OsmXml

WALK = StreetOptions(mode="WALK", speed_mps=1.33, reluctance=2.0)
AROUND_HOLE = 2 * math.hypot(80.0, 20.0) + 40.0  # (0,100) -> hole corners -> (200,100)


def _square(tmp_path: Path, *, hole: bool = True, outer_split: bool = True) -> Path:
    """A 200 m square (relation 200) with a 40 m building hole in its middle."""
    osm = OsmXml()
    ring = {1: (0, 0), 2: (200, 0), 3: (200, 200), 4: (0, 200)}
    ring |= {5: (0, 100), 6: (200, 100), 7: (0, 180), 8: (200, 180)}
    for nid, (x, y) in ring.items():
        osm.node(nid, x, y)
    if outer_split:  # two untagged member ways, the second against the ring's direction
        osm.way(101, [1, 2, 6, 8, 3])
        osm.way(102, [1, 5, 7, 4, 3])
        members = [("way", 101, "outer"), ("way", 102, "outer")]
    else:
        osm.way(101, [1, 2, 6, 8, 3, 4, 7, 5, 1])
        members = [("way", 101, "outer")]
    for nid, (x, y) in {11: (80, 80), 12: (120, 80), 13: (120, 120), 14: (80, 120)}.items():
        osm.node(nid, x, y)
    osm.way(103, [11, 12, 13, 14, 11], building="yes")
    if hole:
        members.append(("way", 103, "inner"))
    osm.relation(200, members, type="multipolygon", highway="pedestrian", name="Praça")
    # footways leading away from four entrances
    for k, (entrance, (x, y)) in enumerate(
        {5: (-50, 100), 6: (250, 100), 7: (-50, 180), 8: (250, 180)}.items()
    ):
        osm.node(21 + k, x, y)
        osm.way(300 + k, [entrance, 21 + k], highway="footway")
    return osm.write(tmp_path / "square.osm")


def _walk(net: TransportNetwork, a: int, b: int) -> float:
    assert net.street is not None
    ids = net.street.vertex_osm_id.tolist()
    p = street_path(net, ids.index(a), ids.index(b), WALK)
    assert p is not None
    return p.distance_m


def test_multipolygon_square_is_read(tmp_path: Path) -> None:
    d = read_osm(_square(tmp_path))
    area = d.seg_way_id == -200
    assert area.any()
    assert np.all(d.seg_flags[area] & FLAG_AREA)
    assert {d.names[k] for k in d.seg_name[area]} == {"Praça"}
    # the hole's corners are vertices; its outline is walkable (along the building)
    assert {11, 12, 13, 14} <= set(d.vertex_osm_id.tolist())
    vid = {int(o): v for v, o in enumerate(d.vertex_osm_id.tolist())}
    pairs = {frozenset((int(d.seg_from[s]), int(d.seg_to[s]))) for s in np.flatnonzero(area)}
    assert frozenset((vid[11], vid[12])) in pairs
    # nothing crosses the hole: the two mid-side entrances do not see each other
    assert frozenset((vid[5], vid[6])) not in pairs
    assert frozenset((vid[7], vid[8])) in pairs
    assert frozenset((vid[5], vid[11])) in pairs


@pytest.mark.parametrize("outer_split", [True, False])
def test_walk_across_square_with_hole(tmp_path: Path, outer_split: bool) -> None:
    net = build_network(osm=[_square(tmp_path, outer_split=outer_split)])
    # straight where the line misses the hole, around the hole's corners where it does not
    assert _walk(net, 23, 24) == pytest.approx(50 + 200 + 50, abs=1.0)
    assert _walk(net, 21, 24) == pytest.approx(100 + math.hypot(200, 80), abs=1.0)
    assert _walk(net, 21, 22) == pytest.approx(100 + AROUND_HOLE, abs=1.0)
    assert _walk(net, 22, 21) == pytest.approx(100 + AROUND_HOLE, abs=1.0)


def test_square_without_hole_is_crossed_straight(tmp_path: Path) -> None:
    net = build_network(osm=[_square(tmp_path, hole=False)])
    assert _walk(net, 21, 22) == pytest.approx(300.0, abs=1.0)


def test_open_ring_is_skipped_with_warning(tmp_path: Path) -> None:
    path = _square(tmp_path)
    text = path.read_text().replace('<member type="way" ref="102" role="outer"/>', "")
    path.write_text(text)
    d = read_osm(path)
    assert not np.any(d.seg_way_id == -200)
    assert any("200" in w and "incomplete" in w for w in d.warnings)


def test_concave_area_bends_at_its_reflex_corner(tmp_path: Path) -> None:
    """An L-shaped closed ``area=yes`` way: the path bends at the inner corner (100, 100)."""
    osm = OsmXml()
    ring = {1: (0, 0), 2: (200, 0), 3: (200, 50), 4: (200, 100), 5: (100, 100)}
    ring |= {6: (100, 200), 7: (50, 200), 8: (0, 200)}
    for nid, (x, y) in ring.items():
        osm.node(nid, x, y)
    osm.way(100, [1, 2, 3, 4, 5, 6, 7, 8, 1], highway="pedestrian", area="yes")
    osm.node(31, 250, 50)
    osm.node(32, 50, 250)
    osm.way(301, [3, 31], highway="footway")
    osm.way(302, [7, 32], highway="footway")
    net = build_network(osm=[osm.write(tmp_path / "l.osm")])
    assert _walk(net, 31, 32) == pytest.approx(100 + 2 * math.hypot(100, 50), abs=1.0)


def test_real_multipolygon_areas(data_root: Path) -> None:
    import osmium

    path = data_root / "small" / "porto-alegre" / "poa_osm.pbf"
    walkable = {
        rel.id
        for rel in osmium.FileProcessor(str(path), osmium.osm.RELATION)
        if rel.tags.get("type") == "multipolygon" and rel.tags.get("highway") == "pedestrian"
    }
    d = read_osm(path)
    read = {-int(w) for w in np.unique(d.seg_way_id[d.seg_way_id < 0])}
    skipped = {r for r in walkable if any(str(r) in w for w in d.warnings)}
    assert len(walkable) == 19
    assert read | skipped == walkable
    assert len(read) >= 15
    area = d.seg_way_id < 0
    assert np.all(d.seg_flags[area] & FLAG_AREA)
