"""Way-property rules of ``read_osm`` on small hand-written OSM XML files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from _osm_xml import OsmXml, xy

from otpa.errors import OsmError
from otpa.osm import (
    BICYCLE,
    CAR,
    FLAG_AREA,
    FLAG_BOGUS_NAME,
    FLAG_LINK,
    FLAG_MOTORROAD,
    FLAG_ROUNDABOUT,
    FLAG_SLOPE_OVERRIDE,
    FLAG_STAIRS,
    FLAG_TOLL,
    FLAG_WHEELCHAIR_NO,
    WALK,
    OsmStreetData,
    read_osm,
)
from otpa.util.geo import haversine_m

W, B, C = int(WALK), int(BICYCLE), int(CAR)
ALL = W | B | C


def _seg(d: OsmStreetData, way_id: int) -> np.ndarray:
    idx = np.flatnonzero(d.seg_way_id == way_id)
    assert idx.size > 0, f"way {way_id} has no segment"
    return idx


def _perm(d: OsmStreetData, way_id: int) -> tuple[int, int]:
    i = _seg(d, way_id)[0]
    return int(d.seg_perm_fwd[i]), int(d.seg_perm_back[i])


def _read_ways(tmp_path: Path, ways: dict[int, dict[str, str]]) -> OsmStreetData:
    """Each way gets its own two nodes, 100 m long, laid out in parallel rows."""
    osm = OsmXml()
    for k, (way_id, tags) in enumerate(ways.items()):
        a = osm.node(2 * k + 1, 0.0, 50.0 * k)
        b = osm.node(2 * k + 2, 100.0, 50.0 * k)
        osm.way(way_id, [a, b], **tags)
    return read_osm(osm.write(tmp_path / "ways.osm"))


def test_default_permissions_by_class(tmp_path: Path) -> None:
    d = _read_ways(
        tmp_path,
        {
            1: {"highway": "footway"},
            2: {"highway": "footway", "footway": "sidewalk"},
            3: {"highway": "steps"},
            4: {"highway": "cycleway"},
            5: {"highway": "path"},
            6: {"highway": "residential"},
            7: {"highway": "motorway", "oneway": "no"},
            8: {"highway": "trunk"},
            9: {"highway": "pedestrian"},
            10: {"highway": "service"},
            11: {"highway": "platform"},
            12: {"railway": "platform"},
        },
    )
    # OTP 1.x: footway/cycleway/path/pedestrian walk+bike, sidewalks and steps walk only,
    # motorway and trunk car only.
    assert _perm(d, 1) == (W | B, W | B)
    assert _perm(d, 2) == (W, W)
    assert _perm(d, 3) == (W, W)
    assert _perm(d, 4) == (W | B, W | B)
    assert _perm(d, 5) == (W | B, W | B)
    assert _perm(d, 6) == (ALL, ALL)
    assert _perm(d, 7) == (C, C)
    assert _perm(d, 8) == (C, C)
    assert _perm(d, 9) == (W | B, W | B)
    assert _perm(d, 10) == (ALL, ALL)
    assert _perm(d, 11) == (W, W)
    assert _perm(d, 12) == (W, W)
    flags = {w: int(d.seg_flags[_seg(d, w)[0]]) for w in (3, 7)}
    assert flags[3] & FLAG_STAIRS
    assert flags[3] & FLAG_WHEELCHAIR_NO
    assert flags[7] & FLAG_MOTORROAD


def test_oneway_rules(tmp_path: Path) -> None:
    d = _read_ways(
        tmp_path,
        {
            1: {"highway": "residential", "oneway": "yes"},
            2: {"highway": "residential", "oneway": "-1"},
            3: {"highway": "residential", "oneway": "yes", "oneway:bicycle": "no"},
            4: {"highway": "residential", "oneway": "yes", "cycleway": "opposite_lane"},
            5: {"highway": "cycleway", "oneway:bicycle": "yes"},
            6: {"highway": "residential", "junction": "roundabout"},
            7: {"highway": "footway", "oneway:foot": "yes"},
            8: {"highway": "motorway"},
            9: {"highway": "residential", "oneway": "true"},
        },
    )
    assert _perm(d, 1) == (ALL, W)  # walking ignores oneway
    assert _perm(d, 2) == (W, ALL)
    assert _perm(d, 3) == (ALL, W | B)
    assert _perm(d, 4) == (ALL, W | B)
    assert _perm(d, 5) == (W | B, W)
    assert _perm(d, 6) == (ALL, W)
    assert d.seg_flags[_seg(d, 6)[0]] & FLAG_ROUNDABOUT
    assert _perm(d, 7) == (W | B, B)
    assert _perm(d, 8) == (C, 0)  # motorways are implicitly oneway
    assert _perm(d, 9) == (ALL, W)


def test_access_tags(tmp_path: Path) -> None:
    d = _read_ways(
        tmp_path,
        {
            1: {"highway": "residential", "access": "private"},
            2: {"highway": "residential", "access": "private", "foot": "yes"},
            3: {"highway": "residential", "access": "no", "bicycle": "designated"},
            4: {"highway": "cycleway", "bicycle": "dismount"},
            5: {"highway": "primary", "motorroad": "yes"},
            6: {"highway": "residential", "motor_vehicle": "no"},
            7: {"highway": "footway", "access": "yes"},
            8: {"highway": "trunk", "foot": "yes"},
            9: {"highway": "residential", "vehicle": "no"},
            10: {"highway": "footway", "access": "no"},
            11: {"highway": "trunk", "sidewalk": "both"},
            12: {"highway": "residential", "bicycle": "use_sidepath"},
            13: {"highway": "residential", "access": "destination"},
            14: {"highway": "track", "motor_vehicle": "agricultural;forestry"},
        },
    )
    assert 1 not in set(d.seg_way_id.tolist())  # nobody may use it: dropped
    assert 10 not in set(d.seg_way_id.tolist())
    assert _perm(d, 2) == (W, W)
    assert _perm(d, 3) == (B, B)
    assert _perm(d, 4) == (W, W)  # walk the bike
    assert _perm(d, 5) == (C, C)
    assert d.seg_flags[_seg(d, 5)[0]] & FLAG_MOTORROAD
    assert _perm(d, 6) == (W | B, W | B)
    assert _perm(d, 7) == (W | B, W | B)  # access=yes adds no mode
    assert _perm(d, 8) == (W | C, W | C)
    assert _perm(d, 9) == (W, W)
    assert _perm(d, 11) == (W | C, W | C)
    assert _perm(d, 12) == (W | C, W | C)
    assert _perm(d, 13) == (ALL, ALL)
    assert _perm(d, 14) == (W | B, W | B)


def test_wildcard_rule_keeps_class_permission(tmp_path: Path) -> None:
    d = _read_ways(
        tmp_path,
        {
            1: {"highway": "unclassified", "cycleway": "lane"},
            2: {"highway": "living_street", "cycleway": "opposite"},
            3: {"highway": "trunk", "cycleway": "lane"},
        },
    )
    assert _perm(d, 1) == (ALL, ALL)
    assert d.seg_bike_safety_fwd[_seg(d, 1)[0]] == pytest.approx(0.87)
    assert _perm(d, 2) == (ALL, ALL)
    assert _perm(d, 3) == (B | C, B | C)  # OTP: a cycle lane opens a trunk to bikes


def test_bike_safety(tmp_path: Path) -> None:
    d = _read_ways(
        tmp_path,
        {
            1: {"highway": "primary"},
            2: {"highway": "residential", "cycleway:right": "lane"},
            3: {"highway": "secondary", "cycleway": "track"},
            4: {"highway": "cycleway", "surface": "gravel"},
            5: {"highway": "primary", "cycleway": "opposite_lane"},
            6: {"highway": "path", "bicycle": "designated"},
            7: {"highway": "residential", "cycleway:both": "lane"},
        },
    )

    def safety(w: int) -> tuple[float, float]:
        i = _seg(d, w)[0]
        return float(d.seg_bike_safety_fwd[i]), float(d.seg_bike_safety_back[i])

    assert safety(1) == pytest.approx((2.06, 2.06))
    assert safety(2) == pytest.approx((0.77, 0.98))  # right side = forward
    assert safety(3) == pytest.approx((0.8, 0.8))
    assert safety(4) == pytest.approx((0.6 * 1.5, 0.6 * 1.5))
    assert safety(5) == pytest.approx((2.06, 1.15))
    assert safety(6) == pytest.approx((0.6, 0.6))
    assert safety(7) == pytest.approx((0.77, 0.77))


def test_speeds(tmp_path: Path) -> None:
    d = _read_ways(
        tmp_path,
        {
            1: {"highway": "residential", "maxspeed": "50"},
            2: {"highway": "primary", "maxspeed": "30 mph"},
            3: {"highway": "secondary", "maxspeed": "DE:urban"},
            4: {"highway": "motorway", "maxspeed": "none"},
            5: {"highway": "tertiary", "maxspeed": "70;50"},
            6: {"highway": "service"},
            7: {"highway": "living_street", "maxspeed": "walk"},
            8: {"highway": "trunk", "maxspeed": "fast"},
            9: {"highway": "primary"},
        },
    )

    def speed(w: int) -> float:
        return float(d.seg_car_speed_mps[_seg(d, w)[0]])

    assert speed(1) == pytest.approx(50 / 3.6, rel=1e-6)
    assert speed(2) == pytest.approx(30 * 0.44704, rel=1e-6)
    assert speed(3) == pytest.approx(50 / 3.6, rel=1e-6)
    assert speed(4) == pytest.approx(29.0)  # no limit: OTP's motorway speed
    assert speed(5) == pytest.approx(70 / 3.6, rel=1e-6)
    assert speed(6) == pytest.approx(6.7)
    assert speed(7) == pytest.approx(7 / 3.6, rel=1e-6)
    assert speed(8) == pytest.approx(24.6)
    assert speed(9) == pytest.approx(20.0)


def test_names_and_flags(tmp_path: Path) -> None:
    d = _read_ways(
        tmp_path,
        {
            1: {"highway": "residential", "name": "Hauptstraße"},
            2: {"highway": "primary", "ref": "B 14"},
            3: {"highway": "service"},
            4: {"highway": "footway", "footway": "sidewalk"},
            5: {"highway": "cycleway"},
            6: {"highway": "steps"},
            7: {"highway": "motorway_link", "toll": "yes"},
            8: {"highway": "residential", "name": "Hauptstraße", "bridge": "yes"},
            9: {"highway": "track", "wheelchair": "no"},
        },
    )

    def name(w: int) -> tuple[str, bool]:
        i = _seg(d, w)[0]
        return d.names[d.seg_name[i]], bool(d.seg_flags[i] & FLAG_BOGUS_NAME)

    assert name(1) == ("Hauptstraße", False)
    assert name(2) == ("B 14", False)
    assert name(3) == ("service road", True)
    assert name(4) == ("sidewalk", True)
    assert name(5) == ("bike path", True)
    assert name(6) == ("steps", True)
    assert name(7) == ("ramp", True)
    assert d.names.count("Hauptstraße") == 1  # names are deduplicated
    assert d.seg_name[_seg(d, 1)[0]] == d.seg_name[_seg(d, 8)[0]]
    f7 = int(d.seg_flags[_seg(d, 7)[0]])
    assert f7 & FLAG_TOLL
    assert f7 & FLAG_LINK
    assert f7 & FLAG_MOTORROAD
    assert d.seg_flags[_seg(d, 8)[0]] & FLAG_SLOPE_OVERRIDE
    assert not d.seg_flags[_seg(d, 1)[0]] & FLAG_SLOPE_OVERRIDE
    assert d.seg_flags[_seg(d, 9)[0]] & FLAG_WHEELCHAIR_NO
    assert d.highway_kinds[d.seg_highway[_seg(d, 7)[0]]] == "motorway_link"


def test_split_at_shared_nodes_and_geometry(tmp_path: Path) -> None:
    osm = OsmXml()
    # A long street 1-2-3-4-5 crossed at node 3 by a street 6-3-7; node 2 is interior.
    for nid, (x, y) in {1: (0, 0), 2: (50, 5), 3: (100, 0), 4: (150, -5), 5: (200, 0)}.items():
        osm.node(nid, x, y)
    osm.node(6, 100, 100)
    osm.node(7, 100, -100)
    osm.way(10, [1, 2, 3, 4, 5], highway="residential", name="Long")
    osm.way(11, [6, 3, 7], highway="residential", name="Cross")
    d = read_osm(osm.write(tmp_path / "x.osm"))
    assert d.n_segments == 4
    assert sorted(d.vertex_osm_id.tolist()) == [1, 3, 5, 6, 7]
    for i in range(d.n_segments):
        lo, hi = d.seg_geom_offsets[i], d.seg_geom_offsets[i + 1]
        glat, glon = d.geom_lat[lo:hi], d.geom_lon[lo:hi]
        assert (glat[0], glon[0]) == (d.vertex_lat[d.seg_from[i]], d.vertex_lon[d.seg_from[i]])
        assert (glat[-1], glon[-1]) == (d.vertex_lat[d.seg_to[i]], d.vertex_lon[d.seg_to[i]])
        expected = float(np.sum(haversine_m(glat[:-1], glon[:-1], glat[1:], glon[1:])))
        assert d.seg_length_m[i] == pytest.approx(expected, rel=1e-12)
    first = _seg(d, 10)[0]
    assert d.seg_geom_offsets[first + 1] - d.seg_geom_offsets[first] == 3  # keeps node 2
    assert d.vertex_osm_id[d.seg_from[first]] == 1
    assert d.vertex_osm_id[d.seg_to[first]] == 3
    lon1 = xy(0, 0)[1]
    assert d.bounds[0] == pytest.approx(lon1)
    assert d.bounds[1] == pytest.approx(xy(0, -100)[0])


def test_closed_way_is_split_in_two(tmp_path: Path) -> None:
    osm = OsmXml()
    for nid, (x, y) in {1: (0, 0), 2: (50, 0), 3: (50, 50), 4: (0, 50)}.items():
        osm.node(nid, x, y)
    osm.way(1, [1, 2, 3, 4, 1], highway="residential", junction="roundabout")
    d = read_osm(osm.write(tmp_path / "ring.osm"))
    assert d.n_segments == 2
    assert np.all(d.seg_from != d.seg_to)
    assert float(d.seg_length_m.sum()) == pytest.approx(200.0, rel=2e-3)


def test_barriers(tmp_path: Path) -> None:
    osm = OsmXml()
    osm.node(1, 0, 0)
    osm.node(2, 50, 0, barrier="bollard")
    osm.node(3, 100, 0, barrier="gate", access="no")
    osm.node(4, 150, 0, barrier="gate")
    osm.node(5, 200, 0, barrier="lift_gate", access="private", foot="yes")
    osm.node(6, 250, 0, barrier="kerb")
    osm.node(7, 300, 0, barrier="bollard", motorcar="yes")
    osm.node(8, 350, 0, barrier="stile")
    osm.node(9, 400, 0)
    osm.way(1, list(range(1, 10)), highway="residential")
    d = read_osm(osm.write(tmp_path / "barriers.osm"))
    blocked = dict(zip(d.vertex_osm_id.tolist(), d.vertex_barrier.tolist(), strict=True))
    assert blocked == {1: 0, 2: C, 3: ALL, 4: 0, 5: B | C, 6: 0, 7: 0, 8: B | C, 9: 0}
    assert d.n_segments == 8  # every barrier node is a vertex


def test_construction_and_non_routable_skipped(tmp_path: Path) -> None:
    d = _read_ways(
        tmp_path,
        {
            1: {"highway": "construction", "construction": "primary"},
            2: {"highway": "proposed"},
            3: {"highway": "residential"},
            4: {"highway": "abandoned"},
            5: {"building": "yes"},
        },
    )
    assert set(d.seg_way_id.tolist()) == {3}


def test_pedestrian_area_visibility_edges(tmp_path: Path) -> None:
    osm = OsmXml()
    # A 100 m square, entrances in the middle of each side with a footway leading away.
    ring = {1: (0, 0), 2: (50, 0), 3: (100, 0), 4: (100, 50), 5: (100, 100), 6: (50, 100)}
    ring |= {7: (0, 100), 8: (0, 50)}
    for nid, (x, y) in ring.items():
        osm.node(nid, x, y)
    osm.way(100, [1, 2, 3, 4, 5, 6, 7, 8, 1], highway="pedestrian", area="yes", name="Platz")
    outside = {2: (50, -50), 4: (150, 50), 6: (50, 150), 8: (-50, 50)}
    for k, (entrance, (x, y)) in enumerate(outside.items()):
        osm.node(20 + k, x, y)
        osm.way(200 + k, [entrance, 20 + k], highway="footway")
    d = read_osm(osm.write(tmp_path / "area.osm"))
    area = _seg(d, 100)
    assert np.all(d.seg_flags[area] & FLAG_AREA)
    assert np.all(d.seg_perm_fwd[area] == W | B)
    assert np.all(d.seg_perm_back[area] == W | B)
    pairs = {
        frozenset((int(d.vertex_osm_id[d.seg_from[i]]), int(d.vertex_osm_id[d.seg_to[i]])))
        for i in area
        if d.seg_geom_offsets[i + 1] - d.seg_geom_offsets[i] == 2
    }
    # All six pairs of the four entrances see each other across the square.
    assert {frozenset(p) for p in [(2, 6), (4, 8), (2, 4), (4, 6), (6, 8), (2, 8)]} <= pairs
    ends = set(np.searchsorted(d.vertex_osm_id, [2, 6]).tolist())
    cross = next(i for i in area if {int(d.seg_from[i]), int(d.seg_to[i])} == ends)
    assert d.seg_length_m[cross] == pytest.approx(100.0, rel=2e-3)
    assert d.names[d.seg_name[cross]] == "Platz"
    # Outline 1-2, 2-3-4, 4-5-6, 6-7-8, 8-1 plus the six crossings.
    assert area.size == 5 + 6
    expected = 400.0 + 4 * 50.0 * np.sqrt(2.0) + 2 * 100.0
    assert float(d.seg_length_m[area].sum()) == pytest.approx(expected, rel=2e-3)


def test_concave_area_blocks_hidden_pairs(tmp_path: Path) -> None:
    osm = OsmXml()
    # U shape open to the north: tips 2 and 5 cannot see each other across the notch.
    ring = {1: (0, 0), 2: (0, 100), 3: (30, 100), 4: (30, 30), 9: (70, 30), 10: (70, 100)}
    ring |= {5: (100, 100), 6: (100, 0), 12: (85, 0), 11: (15, 0)}
    for nid, (x, y) in ring.items():
        osm.node(nid, x, y)
    osm.way(100, [1, 2, 3, 4, 9, 10, 5, 6, 12, 11, 1], highway="footway", area="yes")
    for k, entrance in enumerate([2, 5, 11, 12]):
        osm.node(50 + k, -10 - 5 * k, 200)
        osm.way(300 + k, [entrance, 50 + k], highway="footway")
    d = read_osm(osm.write(tmp_path / "u.osm"))
    straight = {
        frozenset((int(d.vertex_osm_id[d.seg_from[i]]), int(d.vertex_osm_id[d.seg_to[i]])))
        for i in _seg(d, 100)
        if d.seg_geom_offsets[i + 1] - d.seg_geom_offsets[i] == 2
    }
    assert frozenset((2, 5)) not in straight
    assert frozenset((2, 12)) not in straight
    assert frozenset((5, 11)) not in straight
    assert frozenset((2, 11)) in straight
    assert frozenset((5, 12)) in straight
    assert frozenset((11, 12)) in straight  # the outline edge itself


def test_road_area_is_skipped(tmp_path: Path) -> None:
    osm = OsmXml()
    for nid, (x, y) in {1: (0, 0), 2: (50, 0), 3: (50, 50), 4: (0, 50)}.items():
        osm.node(nid, x, y)
    osm.way(1, [1, 2, 3, 4, 1], highway="service", area="yes")
    osm.way(2, [1, 3], highway="residential")
    d = read_osm(osm.write(tmp_path / "a.osm"))
    assert set(d.seg_way_id.tolist()) == {2}


def test_features(tmp_path: Path) -> None:
    osm = OsmXml()
    osm.node(1, 0, 0)
    osm.node(2, 100, 0)
    osm.way(1, [1, 2], highway="residential")
    osm.node(10, 10, 10, amenity="bicycle_parking", name="Racks")
    osm.node(11, 20, 10, amenity="bicycle_rental", name="Bikes")
    osm.node(12, 30, 10, amenity="parking", park_ride="bus", name="P1")
    osm.node(13, 40, 10, amenity="parking")  # ordinary parking: not P+R
    for nid, (x, y) in {20: (0, 50), 21: (40, 50), 22: (40, 90), 23: (0, 90)}.items():
        osm.node(nid, x, y)
    osm.way(30, [20, 21, 22, 23, 20], amenity="parking", parking="park_and_ride", name="Lot")
    d = read_osm(osm.write(tmp_path / "f.osm"))
    assert [(f.osm_id, f.osm_type, f.name) for f in d.bike_parking] == [(10, "node", "Racks")]
    assert [(f.osm_id, f.name) for f in d.bike_rental] == [(11, "Bikes")]
    pr = {f.osm_id: f for f in d.park_and_ride}
    assert set(pr) == {12, 30}
    lat, lon = xy(20, 70)
    assert pr[30].osm_type == "way"
    assert pr[30].lat == pytest.approx(lat, abs=1e-7)
    assert pr[30].lon == pytest.approx(lon, abs=1e-7)
    assert pr[12].tags["park_ride"] == "bus"


def test_restrictions_xml(tmp_path: Path) -> None:
    osm = OsmXml()
    # A cross: west 1 - centre 5 - east 2, north 3 - centre - south 4; via node 6 mid-way.
    for nid, (x, y) in {1: (-100, 0), 2: (100, 0), 3: (0, 100), 4: (0, -100), 5: (0, 0)}.items():
        osm.node(nid, x, y)
    osm.node(6, -50, 0)
    osm.way(11, [1, 6, 5], highway="residential")
    osm.way(12, [5, 2], highway="residential")
    osm.way(13, [3, 5], highway="residential")
    osm.way(14, [5, 4], highway="residential")
    osm.relation(
        100,
        [("way", 11, "from"), ("node", 5, "via"), ("way", 13, "to")],
        type="restriction",
        restriction="no_left_turn",
    )
    osm.relation(
        101,
        [("way", 11, "from"), ("node", 5, "via"), ("way", 12, "to")],
        type="restriction",
        restriction="only_straight_on",
        **{"except": "bicycle"},
    )
    osm.node(7, 100, 100)
    osm.way(15, [2, 7], highway="residential")
    osm.relation(
        102,
        [("way", 13, "from"), ("way", 12, "via"), ("way", 15, "to")],
        type="restriction",
        restriction__bicycle="no_left_turn",
    )
    osm.relation(  # broken: the to way leaves the via way where the from way joins it
        106,
        [("way", 13, "from"), ("way", 12, "via"), ("way", 14, "to")],
        type="restriction",
        restriction="no_u_turn",
    )
    osm.relation(  # broken: the to way does not exist
        103,
        [("way", 11, "from"), ("node", 5, "via"), ("way", 999, "to")],
        type="restriction",
        restriction="no_right_turn",
    )
    osm.relation(  # broken: via node not on the from way
        104,
        [("way", 12, "from"), ("node", 6, "via"), ("way", 13, "to")],
        type="restriction",
        restriction="no_left_turn",
    )
    d = read_osm(osm.write(tmp_path / "r.osm"))
    by_id = {r.relation_id: r for r in d.restrictions}
    assert set(by_id) == {100, 101, 102}
    r = by_id[100]
    assert (r.from_way, r.to_way, r.kind, r.restriction) == (11, 13, "no", "no_left_turn")
    assert d.vertex_osm_id[r.via_vertex] == 5
    assert r.modes == C | B
    assert by_id[101].kind == "only"
    assert by_id[101].modes == C
    r = by_id[102]
    assert (r.via_vertex, r.via_ways, r.modes) == (-1, (12,), B)
    assert [int(d.vertex_osm_id[v]) for v in r.via_path] == [5, 2]
    (s,) = r.via_segments
    assert int(d.seg_way_id[s]) == 12
    assert {int(d.seg_from[s]), int(d.seg_to[s])} == set(r.via_path)
    assert any("106" in w and "do not join" in w for w in d.warnings)
    assert any("103" in w for w in d.warnings)
    assert any("104" in w for w in d.warnings)
    # The via node of a restriction on an interior node becomes a vertex.
    osm.relation(
        105,
        [("way", 11, "from"), ("node", 6, "via"), ("way", 11, "to")],
        type="restriction",
        restriction="no_u_turn",
    )
    d = read_osm(osm.write(tmp_path / "r2.osm"))
    assert 6 in d.vertex_osm_id.tolist()


def test_missing_nodes_split_the_way(tmp_path: Path) -> None:
    osm = OsmXml()
    for nid, x in {1: 0, 2: 50, 4: 150, 5: 200, 6: 250}.items():
        osm.node(nid, x, 0)
    osm.way(1, [1, 2, 3, 4, 5, 6], highway="residential")  # node 3 is not in the file
    d = read_osm(osm.write(tmp_path / "clipped.osm"))
    assert d.n_segments == 2
    assert 3 not in d.vertex_osm_id.tolist()
    assert float(d.seg_length_m.sum()) == pytest.approx(50 + 100, rel=2e-3)
    assert any("missing" in w for w in d.warnings)


def test_several_files_merge(tmp_path: Path) -> None:
    a = OsmXml()
    a.node(1, 0, 0)
    a.node(2, 100, 0)
    a.way(1, [1, 2], highway="residential")
    b = OsmXml()
    b.node(2, 100, 0)
    b.node(3, 200, 0)
    b.way(1, [1, 2], highway="residential")  # duplicate way id: ignored
    b.way(2, [2, 3], highway="residential")
    d = read_osm([a.write(tmp_path / "a.osm"), b.write(tmp_path / "b.osm")])
    assert sorted(d.seg_way_id.tolist()) == [1, 2]
    assert sorted(d.vertex_osm_id.tolist()) == [1, 2, 3]


def test_no_highways_is_an_error(tmp_path: Path) -> None:
    osm = OsmXml()
    osm.node(1, 0, 0)
    osm.node(2, 100, 0)
    osm.way(1, [1, 2], building="yes")
    path = osm.write(tmp_path / "nohw.osm")
    with pytest.raises(OsmError, match="contains no routable highways"):
        read_osm(path)


def test_corrupt_and_missing_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pbf"
    bad.write_bytes(np.random.default_rng(0).integers(0, 256, 4096, dtype=np.uint8).tobytes())
    with pytest.raises(OsmError, match=r"bad\.pbf"):
        read_osm(bad)
    with pytest.raises(OsmError, match=r"nothere\.osm\.pbf"):
        read_osm(tmp_path / "nothere.osm.pbf")
    broken = tmp_path / "broken.osm"
    broken.write_text("<osm><node id='1' lat='0' lon='0'>", encoding="utf-8")
    with pytest.raises(OsmError, match=r"broken\.osm"):
        read_osm(broken)
