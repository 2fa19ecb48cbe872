"""The built-in geocoder: ranking, switches, corners, persistence, real names."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from otpa.geocode import (
    MAX_QUERY_CHARS,
    GeocodeIndex,
    GeocodeQueryError,
    Municipality,
    MunicipalityIndex,
    fold,
    street_corners,
)
from otpa.network import TransportNetwork, build_network
from otpa.osm import read_admin_boundaries, read_osm
from tests.conftest import require_data
from tests.fixtures.networks import built_network


@pytest.fixture(scope="module")
def small() -> GeocodeIndex:
    return GeocodeIndex.from_entries(
        kind=[0, 0, 1, 2, 3, 0],
        lat=[49.479, 49.480, 49.4795, 49.49, 49.41, 49.41],
        lon=[8.469, 8.470, 8.4695, 8.46, 8.69, 8.69],
        names=[
            "MA Hauptbahnhof",
            "MA Hauptbahnhof",
            "MA Hauptbahnhof",
            "Kaiserring & Moltkestraße",
            "Café Zentral",
            "HD Hauptbahnhof",
        ],
        ids=["rnv:1", "rnv:2", "rnv:1", None, None, "rnv:9"],
        codes=["4711", None, None, None, None, None],
        corner_streets=[None, None, None, ("Kaiserring", "Moltkestraße"), None, None],
    )


def test_fold_removes_accents_case_and_punctuation() -> None:
    assert fold("Estação  São Pedro!") == "estacao sao pedro"
    assert fold("Moltkestraße") == "moltkestrasse"


def test_exact_names_rank_first_and_switches_filter(small: GeocodeIndex) -> None:
    found = small.search("ma hauptbahnhof")
    assert [r.id for r in found] == ["rnv:1", "rnv:2", "rnv:9"]  # stops only: clusters off
    assert found[0].to_otp() == {
        "lat": 49.479,
        "lng": 8.469,
        "description": "stop MA Hauptbahnhof (4711)",
        "id": "rnv:1",
    }
    with_clusters = small.search("ma hauptbahnhof", clusters=True)
    assert with_clusters[0].kind == "cluster"  # a station before its platforms
    assert small.search("ma hauptbahnhof", stops=False) == []
    assert [r.kind for r in small.search("MA Hauptbahnhof", stops=False, clusters=True)] == [
        "cluster"
    ]


def test_abbreviated_city_prefix(small: GeocodeIndex) -> None:
    found = small.search("Mannheim Hauptbahnhof")
    assert found[0].name == "MA Hauptbahnhof"
    assert found[0].tier < found[-1].tier  # HD Hauptbahnhof ranks below


def test_stop_code_is_exact(small: GeocodeIndex) -> None:
    assert [r.id for r in small.search("4711")] == ["rnv:1"]
    assert small.search("471") == []


def test_corner_either_order_and_connectors(small: GeocodeIndex) -> None:
    for query in (
        "Kaiserring & Moltkestraße",
        "moltkestrasse and kaiserring",
        "Moltkestr @ Kaiserring",
    ):
        found = small.search(query)
        assert found, query
        assert found[0].description == "corner Kaiserring & Moltkestraße", query
        assert "id" not in found[0].to_otp()
    assert small.search("Kaiserring & Moltkestraße", corners=False) == []


def test_autocomplete_prefix_and_quoted_phrase(small: GeocodeIndex) -> None:
    names = [r.name for r in small.search("Hauptb", autocomplete=True)]
    assert names[:3] == ["MA Hauptbahnhof"] * 2 + ["HD Hauptbahnhof"]
    assert [r.name for r in small.search('"Cafe Zentral"')] == ["Café Zentral"]
    assert small.search('"Zentral Cafe"') == []


def test_bbox_limit_and_bad_input(small: GeocodeIndex) -> None:
    assert {r.name for r in small.search("hauptbahnhof", bbox=(49.4, 8.6, 49.45, 8.8))} == {
        "HD Hauptbahnhof"
    }
    assert len(small.search("hauptbahnhof", limit=1)) == 1
    assert small.search("") == []
    assert small.search('  "" ') == []
    with pytest.raises(GeocodeQueryError, match="longer than"):
        small.search("x" * (MAX_QUERY_CHARS + 1))
    with pytest.raises(GeocodeQueryError, match="bbox"):
        small.search("hauptbahnhof", bbox=(49.0, 8.0, 95.0, 9.0))


def test_street_corners_once_per_pair() -> None:
    # two vertices where A and B meet (a dual carriageway): one corner, at the first
    corners = street_corners(
        [0.0, 1.0, 2.0, 3.0],
        [0.0, 0.0, 0.0, 0.0],
        [0, 1, 1, 2, 3],
        [1, 2, 3, 3, 1],
        [0, 1, 0, 1, 2],
        ["A", "B", "path"],
        named=[True, True, True, True, False],
    )
    assert [(c.name, c.lat) for c in corners] == [("A & B", 1.0)]


OSM = """<?xml version='1.0' encoding='UTF-8'?>
<osm version="0.6">
 <node id="1" lat="49.0" lon="8.0"/><node id="2" lat="49.0" lon="8.01"/>
 <node id="3" lat="49.01" lon="8.01"/><node id="4" lat="49.01" lon="8.0"/>
 <node id="5" lat="49.005" lon="8.005"><tag k="amenity" v="cafe"/>
  <tag k="name" v="Café Zentral"/></node>
 <node id="6" lat="49.006" lon="8.006"><tag k="shop" v="bakery"/></node>
 <way id="10"><nd ref="1"/><nd ref="2"/><nd ref="3"/><tag k="highway" v="residential"/>
  <tag k="name" v="Ringstraße"/></way>
 <way id="11"><nd ref="3"/><nd ref="4"/><nd ref="1"/><tag k="highway" v="residential"/>
  <tag k="name" v="Am Markt"/></way>
 <relation id="100"><member type="way" ref="10" role="outer"/>
  <member type="way" ref="11" role="outer"/>
  <tag k="type" v="boundary"/><tag k="boundary" v="administrative"/><tag k="admin_level" v="8"/>
  <tag k="name" v="Testhausen"/></relation>
</osm>
"""


@pytest.fixture(scope="module")
def osm_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("geo-osm")
    (folder / "town.osm").write_text(OSM, encoding="utf-8")
    return folder


def test_osm_keeps_named_places_and_admin_boundaries(osm_folder: Path) -> None:
    data = read_osm(osm_folder / "town.osm")
    assert [(p.osm_id, p.name, p.tags) for p in data.places] == [
        (5, "Café Zentral", {"name": "Café Zentral", "amenity": "cafe"})
    ]  # the unnamed bakery is not a place
    (town,) = read_admin_boundaries(osm_folder / "town.osm")
    assert (town.name, town.admin_level, town.relation_id) == ("Testhausen", 8, 100)
    assert read_admin_boundaries(osm_folder / "town.osm", admin_levels=(6,)) == []


def test_network_build_saves_geocoder_and_municipalities(osm_folder: Path, tmp_path: Path) -> None:
    net = build_network(osm_folder)
    assert net.geocode is not None
    assert net.municipalities is not None
    assert net.geocode.counts() == {"stop": 0, "cluster": 0, "corner": 1, "place": 1}
    saved = TransportNetwork.load(net.save(tmp_path / "graph"))
    assert saved.geocode is not None
    assert [r.description for r in saved.geocode.search("cafe zentral")] == ["place Café Zentral"]
    assert [r.name for r in saved.geocode.search("am markt & ringstrasse")] == [
        "Am Markt & Ringstraße"
    ]
    assert saved.municipalities is not None
    assert saved.municipalities.locate(49.005, 8.005).name == "Testhausen"
    assert saved.municipalities.locate(48.0, 8.0) is None


def test_boundaries_geojson_wins_over_osm(osm_folder: Path, tmp_path: Path) -> None:
    folder = tmp_path / "src"
    folder.mkdir()
    (folder / "town.osm").write_text(OSM, encoding="utf-8")
    square = [[[8.0, 49.0], [8.02, 49.0], [8.02, 49.02], [8.0, 49.02], [8.0, 49.0]]]
    doc = {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "properties": {"name": "Großstadt", "admin_level": 6},
                "geometry": {"type": "Polygon", "coordinates": square},
            },
            {
                "type": "Feature",
                "properties": {},
                "geometry": {"type": "Polygon", "coordinates": square},
            },
        ],
    }
    (folder / "boundaries.geojson").write_text(json.dumps(doc), encoding="utf-8")
    net = build_network(folder)
    assert net.municipalities is not None
    assert len(net.municipalities) == 1
    assert net.municipalities.locate(49.005, 8.005).name == "Großstadt"


def test_deepest_municipality_wins() -> None:
    big = {"type": "Polygon", "coordinates": [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]]}
    small = {"type": "Polygon", "coordinates": [[[1, 1], [2, 1], [2, 2], [1, 2], [1, 1]]]}
    index = MunicipalityIndex([Municipality("Kreis", big, 6), Municipality("Dorf", small, 8)])
    assert index.locate(1.5, 1.5).name == "Dorf"
    assert index.locate(5.0, 5.0).name == "Kreis"
    assert MunicipalityIndex.from_document(index.to_document()).locate(1.5, 1.5).name == "Dorf"


def _without_geocode(src: Path, dest: Path) -> Path:
    """A copy of a saved graph as an older build wrote it: no geocode members."""
    with zipfile.ZipFile(src) as zin:
        manifest = json.loads(zin.read("manifest.json"))
        names = [n for n in zin.namelist() if "geocode" not in n and n != "manifest.json"]
        manifest["members"] = {k: v for k, v in manifest["members"].items() if "geocode" not in k}
        with zipfile.ZipFile(dest, "w") as zout:
            zout.writestr("manifest.json", json.dumps(manifest))
            for n in names:
                zout.writestr(zin.getinfo(n), zin.read(n))
    return dest


@pytest.fixture(scope="module")
def atlanta() -> TransportNetwork:
    return built_network(require_data(), "tiny/atlanta")


def test_old_graph_without_index_builds_it_on_demand(
    atlanta: TransportNetwork, tmp_path: Path
) -> None:
    saved = atlanta.save(tmp_path / "graph")
    old = TransportNetwork.load(_without_geocode(saved, tmp_path / "old-graph"))
    assert old.geocode is None
    lazy = old.geocoder()
    assert lazy is old.geocoder()  # cached
    assert atlanta.geocode is not None
    assert lazy.counts() == atlanta.geocode.counts()


def test_atlanta_codes_stations_corners_and_places(atlanta: TransportNetwork) -> None:
    g = atlanta.geocoder()
    by_code = g.search("908963")
    assert [(r.name, r.code) for r in by_code] == [("ASHBY STATION", "908963")]
    assert g.search("ashby station")[0].name == "ASHBY STATION"
    assert g.search("Ashbee Station")[0].name == "ASHBY STATION"  # misspelled
    park = g.search("Woodruf Park")[0]  # misspelled POI
    assert (park.kind, park.name) == ("place", "Woodruff Park")
    assert g.search("centennial olympic", autocomplete=True)[0].name == "Centennial Olympic Park"
    corner = g.search("Forsyth Street Southwest & Alabama Street Southwest")[0]
    assert corner.description == "corner Alabama Street Southwest & Forsyth Street Southwest"


@pytest.fixture(scope="module")
def rnv() -> TransportNetwork:
    return built_network(require_data(), "small/rnv")


def test_rnv_real_names(rnv: TransportNetwork) -> None:
    g = rnv.geocoder()
    first = g.search("Mannheim Hauptbahnhof")[0]
    assert (first.name, first.kind) == ("MA Hauptbahnhof", "stop")
    assert {r.name for r in g.search("bismark platz")[:5]} == {"Bismarckplatz"}  # misspelled
    assert g.search("moltkestr. & Kaiserring")[0].name == "Kaiserring & Moltkestraße"
    assert g.search("Pettenko", autocomplete=True)[0].name == "Pettenkoferstraße"
    clusters = g.search("Paradeplatz", clusters=True, stops=False)
    assert [r.kind for r in clusters] == ["cluster"]
    assert clusters[0].id in {r.id for r in g.search("Paradeplatz")}  # first platform's id


def test_porto_alegre_accents() -> None:
    g = built_network(require_data(), "small/porto-alegre").geocoder()
    assert g.search("Estação Aeroporto")[0].name == "ESTACAO AEROPORTO"
    assert g.search("estacao farapos")[0].name == "ESTACAO FARRAPOS"  # misspelled
    assert g.search("Protásio Alves")[0].name == "PROTASIO ALVES"
    assert np.all([r.kind == "stop" for r in g.search("Protásio Alves", corners=False)])


def test_clusters_are_the_index_apis_clusters(atlanta: TransportNetwork) -> None:
    from otpa.index import TransitIndex

    g = atlanta.geocoder()
    mine = {g.ids[i]: (g.lat[i], g.lon[i]) for i in np.flatnonzero(np.asarray(g.kind) == 1)}
    theirs = {c.id: (c.lat, c.lon) for c in TransitIndex(atlanta).list_clusters()}
    assert set(mine) == set(theirs)
    for cid, (lat, lon) in theirs.items():
        assert mine[cid] == pytest.approx((lat, lon), abs=1e-9)
