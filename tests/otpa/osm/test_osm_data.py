"""``read_osm`` on the real extracts, checked against what pyosmium sees directly."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import osmium
import pytest

from otpa.osm import (
    BICYCLE,
    CAR,
    FLAG_AREA,
    FLAG_ROUNDABOUT,
    WALK,
    OsmStreetData,
    read_osm,
)
from otpa.osm._ways import ROUTABLE_HIGHWAYS
from otpa.util.geo import haversine_m

HERRENBERG = ("tiny", "herrenberg-vvs")


Relation = tuple[int, dict[str, str], list[tuple[str, int, str]]]


def _raw(path: Path) -> tuple[dict[int, dict[str, str]], dict[int, list[int]], list[Relation]]:
    """Tags and node lists of all ways, and the restriction relations, straight from pyosmium."""
    tags: dict[int, dict[str, str]] = {}
    nodes: dict[int, list[int]] = {}
    rels: list[Relation] = []
    for obj in osmium.FileProcessor(path):
        if isinstance(obj, osmium.osm.Way):
            tags[obj.id] = dict(obj.tags)
            nodes[obj.id] = [n.ref for n in obj.nodes]
        elif isinstance(obj, osmium.osm.Relation) and obj.tags.get("type") == "restriction":
            rels.append((obj.id, dict(obj.tags), [(m.type, m.ref, m.role) for m in obj.members]))
    return tags, nodes, rels


def _check_geometry(d: OsmStreetData) -> None:
    off = d.seg_geom_offsets
    assert off[0] == 0
    assert off[-1] == d.geom_lat.size == d.geom_lon.size
    assert np.all(np.diff(off) >= 2)
    assert np.array_equal(d.geom_lat[off[:-1]], d.vertex_lat[d.seg_from])
    assert np.array_equal(d.geom_lon[off[-1:0:-1] - 1][::-1], d.vertex_lon[d.seg_to])
    assert np.all(d.seg_length_m >= 0.0)
    assert np.all((d.seg_perm_fwd | d.seg_perm_back) > 0)
    assert np.all(np.diff(d.vertex_osm_id) > 0)  # unique, sorted
    assert np.all(d.seg_bike_safety_fwd > 0)
    assert np.all(d.seg_bike_safety_back > 0)
    assert np.all(d.seg_car_speed_mps > 0)


@pytest.mark.parametrize(
    "parts",
    [
        ("tiny", "herrenberg-vvs", "herrenberg-minimal.osm.pbf"),
        ("tiny", "herrenberg-vvs", "boeblingen-minimal.osm.pbf"),
        ("tiny", "beatty", "beatty.osm.pbf"),
        ("tiny", "atlanta", "central-atlanta-filtered.osm.pbf"),
    ],
)
def test_segment_lengths_match_way_lengths(data_root: Path, parts: tuple[str, ...]) -> None:
    path = data_root.joinpath(*parts)
    d = read_osm(path)
    _check_geometry(d)
    # Independent way lengths from pyosmium locations.
    lengths: dict[int, float] = {}
    for obj in osmium.FileProcessor(path).with_locations():
        if isinstance(obj, osmium.osm.Way):
            try:
                lat = np.array([n.lat for n in obj.nodes])
                lon = np.array([n.lon for n in obj.nodes])
            except osmium.InvalidLocationError:
                continue
            lengths[obj.id] = float(np.sum(haversine_m(lat[:-1], lon[:-1], lat[1:], lon[1:])))
    area_ways = set(d.seg_way_id[(d.seg_flags & FLAG_AREA) > 0].tolist())
    kept = sorted(set(d.seg_way_id.tolist()) - area_ways)
    assert len(kept) > 10
    sel = np.isin(d.seg_way_id, kept)
    ours = np.bincount(
        np.searchsorted(kept, d.seg_way_id[sel]), weights=d.seg_length_m[sel], minlength=len(kept)
    )
    theirs = np.array([lengths.get(w, np.nan) for w in kept])
    complete = ~np.isnan(theirs)
    assert complete.mean() > 0.9
    np.testing.assert_allclose(ours[complete], theirs[complete], rtol=1e-6, atol=1e-6)


def test_split_at_shared_nodes(data_root: Path) -> None:
    path = data_root.joinpath(*HERRENBERG, "herrenberg-minimal.osm.pbf")
    d = read_osm(path)
    _, nodes, _ = _raw(path)
    kept = set(d.seg_way_id.tolist())
    use: dict[int, int] = {}
    for w in kept:
        refs = nodes[w][:-1] if nodes[w][0] == nodes[w][-1] else nodes[w]
        for r in set(refs):
            use[r] = use.get(r, 0) + 1
    shared = {r for r, n in use.items() if n >= 2}
    vertices = set(d.vertex_osm_id.tolist())
    assert shared <= vertices
    # Interior geometry points are never shared nodes.
    off = d.seg_geom_offsets
    interior = np.ones(d.geom_lat.size, dtype=bool)
    interior[off[:-1]] = False
    interior[off[1:] - 1] = False
    vlookup = {
        (la, lo) for la, lo in zip(d.vertex_lat.tolist(), d.vertex_lon.tolist(), strict=True)
    }
    pts = zip(d.geom_lat[interior].tolist(), d.geom_lon[interior].tolist(), strict=True)
    assert sum(p in vlookup for p in pts) <= 2  # only coincident distinct nodes, if any


def test_under_construction_way_absent(data_root: Path) -> None:
    path = data_root.joinpath(*HERRENBERG, "herrenberg-hindenburgstr-under-construction.osm.pbf")
    d = read_osm(path)
    tags, _, _ = _raw(path)
    construction = {w for w, t in tags.items() if t.get("highway") == "construction"}
    assert len(construction) >= 5
    assert not construction & set(d.seg_way_id.tolist())
    assert "Hindenburgstraße" not in d.names or all(
        tags[int(w)].get("highway") != "construction"
        for w in d.seg_way_id[np.asarray(d.names)[d.seg_name] == "Hindenburgstraße"]
    )


@pytest.mark.parametrize(
    "name",
    ["herrenberg-minimal.osm.pbf", "boeblingen-minimal.osm.pbf", "deufringen-minimal.osm.pbf"],
)
def test_turn_restrictions_match_pyosmium(data_root: Path, name: str) -> None:
    path = data_root.joinpath(*HERRENBERG, name)
    d = read_osm(path)
    tags, nodes, rels = _raw(path)
    routable = {w for w, t in tags.items() if t.get("highway") in ROUTABLE_HIGHWAYS}
    expected = set()
    for rel_id, rtags, members in rels:
        frm = [r for t, r, role in members if t == "w" and role == "from"]
        to = [r for t, r, role in members if t == "w" and role == "to"]
        via = [r for t, r, role in members if t == "n" and role == "via"]
        if len(via) != 1 or not frm or not to:
            continue
        if not set(frm + to) <= routable:
            continue
        if not all(via[0] in nodes[w] for w in frm + to):
            continue
        for f in frm:
            for t in to:
                expected.add((rel_id, f, t, via[0], rtags["restriction"]))
    ours = {
        (r.relation_id, r.from_way, r.to_way, int(d.vertex_osm_id[r.via_vertex]), r.restriction)
        for r in d.restrictions
        if r.via_vertex >= 0
    }
    assert ours == expected
    assert len(ours) > 0
    rel_tags = {rel_id: rtags for rel_id, rtags, _ in rels}
    for r in d.restrictions:
        assert r.kind == r.restriction.split("_")[0]
        excepted = "bicycle" in rel_tags[r.relation_id].get("except", "").split(";")
        assert r.modes == (int(CAR) if excepted else int(CAR) | int(BICYCLE))
    dropped = {rel_id for rel_id, _, _ in rels} - {r.relation_id for r in d.restrictions}
    for rel_id in dropped:
        assert any(str(rel_id) in w for w in d.warnings)


def test_barrier_gates(data_root: Path) -> None:
    path = data_root.joinpath(*HERRENBERG, "herrenberg-barrier-gates.osm.pbf")
    d = read_osm(path)
    blocked = dict(zip(d.vertex_osm_id.tolist(), d.vertex_barrier.tolist(), strict=True))
    # gate + bicycle=no + foot=yes: bikes blocked; a bare bollard blocks cars.
    for gate in (683070343, 683070347, 683070350):
        assert blocked[gate] == int(BICYCLE)
    assert blocked[4311806838] == int(CAR)
    # The cycle/foot paths stay walkable and bikeable.
    path_segs = d.seg_way_id == 24527128
    assert np.all(d.seg_perm_fwd[path_segs] == int(WALK) | int(BICYCLE))


def test_roundabout_file(data_root: Path) -> None:
    path = data_root.joinpath(*HERRENBERG, "roundabout.osm.pbf")
    d = read_osm(path)
    tags, _, _ = _raw(path)
    roundabouts = {w for w, t in tags.items() if t.get("junction") == "roundabout"}
    flagged = set(d.seg_way_id[(d.seg_flags & FLAG_ROUNDABOUT) > 0].tolist())
    assert flagged == roundabouts & set(d.seg_way_id.tolist())
    # The pedestrian square (way 38290549) is an area; the two bike parkings are features.
    area = d.seg_way_id == 38290549
    assert area.any()
    assert np.all(d.seg_flags[area] & FLAG_AREA)
    assert sorted(f.osm_id for f in d.bike_parking) == [977530772, 1245470653]
    assert all(f.osm_type == "way" for f in d.bike_parking)
    # The one-way tertiary road with a cycle lane on its right side.
    vitamin = np.flatnonzero(d.seg_way_id == 146987523)
    assert np.all(d.seg_perm_back[vitamin] == int(WALK))
    assert np.allclose(d.seg_bike_safety_fwd[vitamin], 0.87)


def test_roundabout_flags_herrenberg(data_root: Path) -> None:
    path = data_root.joinpath(*HERRENBERG, "herrenberg-minimal.osm.pbf")
    d = read_osm(path)
    tags, _, _ = _raw(path)
    roundabouts = {w for w, t in tags.items() if t.get("junction") == "roundabout"}
    flagged = set(d.seg_way_id[(d.seg_flags & FLAG_ROUNDABOUT) > 0].tolist())
    assert flagged
    assert flagged == roundabouts & set(d.seg_way_id.tolist())
    sel = (d.seg_flags & FLAG_ROUNDABOUT) > 0
    assert np.all((d.seg_perm_back[sel] & int(CAR)) == 0)


@pytest.mark.slow
def test_rnv_reads(data_root: Path) -> None:
    # its speed is measured in benchmarks/bench_build.py, not asserted here
    path = data_root / "small" / "rnv" / "rnv.osm.pbf"
    d = read_osm(path)
    _check_geometry(d)
    assert d.n_segments > 50_000
    assert d.n_vertices > 40_000
