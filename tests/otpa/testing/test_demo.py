"""The synthetic demo city: determinism, valid OSM, internally consistent GTFS."""

from __future__ import annotations

import io
import itertools
import json
import math
import zipfile
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import osmium
import pandas as pd
import pytest

from otpa.testing.demo import (
    DEMO_CITY_VERSION,
    GTFS_FILENAME,
    OSM_FILENAME,
    DemoCity,
    demo_city_dir,
    write_demo_city,
)

R_EARTH = 6_371_010.0


@pytest.fixture(scope="module", params=["demo", "large2"])
def city(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> DemoCity:
    out = tmp_path_factory.mktemp(request.param)
    if request.param == "demo":
        return write_demo_city(out)
    return write_demo_city(out, size="large", scale=2)


class _Collect(osmium.SimpleHandler):  # type: ignore[misc]
    def __init__(self) -> None:
        super().__init__()
        self.nodes: dict[int, tuple[float, float, dict[str, str]]] = {}
        self.ways: dict[int, tuple[list[int], dict[str, str], bool]] = {}
        self.relations: list[tuple[int, list[tuple[str, int, str]], dict[str, str]]] = []

    def node(self, n: Any) -> None:
        self.nodes[n.id] = (n.location.lat, n.location.lon, dict(n.tags))

    def way(self, w: Any) -> None:
        valid = all(nd.location.valid() for nd in w.nodes)
        self.ways[w.id] = ([nd.ref for nd in w.nodes], dict(w.tags), valid)

    def relation(self, r: Any) -> None:
        members = [(m.type, m.ref, m.role) for m in r.members]
        self.relations.append((r.id, members, dict(r.tags)))


@pytest.fixture(scope="module")
def osm(city: DemoCity) -> _Collect:
    handler = _Collect()
    handler.apply_file(str(city.osm_path), locations=True)
    return handler


def _read_gtfs(path: Path) -> dict[str, pd.DataFrame]:
    with zipfile.ZipFile(path) as zf:
        return {
            name.removesuffix(".txt"): pd.read_csv(
                io.BytesIO(zf.read(name)), dtype=str, keep_default_na=False
            )
            for name in zf.namelist()
        }


@pytest.fixture(scope="module")
def gtfs(city: DemoCity) -> dict[str, pd.DataFrame]:
    return _read_gtfs(city.gtfs_path)


def _seconds(hms: pd.Series) -> np.ndarray:
    parts = hms.str.split(":", expand=True).astype(int)
    return np.asarray(parts[0] * 3600 + parts[1] * 60 + parts[2], dtype=np.int64)


def _metres(lat: np.ndarray, lon: np.ndarray, lat0: float, lon0: float) -> np.ndarray:
    """Equirectangular offsets in metres, shape (..., 2)."""
    k = math.pi / 180.0 * R_EARTH
    return np.stack([(lon - lon0) * k * math.cos(math.radians(lat0)), (lat - lat0) * k], axis=-1)


# -- determinism and arguments ------------------------------------------------


def test_same_seed_gives_identical_bytes(tmp_path: Path) -> None:
    a = write_demo_city(tmp_path / "a")
    b = write_demo_city(tmp_path / "b")
    for name in (OSM_FILENAME, GTFS_FILENAME):
        assert (a.directory / name).read_bytes() == (b.directory / name).read_bytes()
    assert a.places == b.places
    assert a.bounds == b.bounds


def test_other_seed_changes_geometry_not_structure(tmp_path: Path) -> None:
    a = write_demo_city(tmp_path / "a", seed=7)
    b = write_demo_city(tmp_path / "b", seed=8)
    assert a.osm_path.read_bytes() != b.osm_path.read_bytes()
    assert (a.n_routes, a.n_stops) == (b.n_routes, b.n_stops)
    assert a.places.keys() == b.places.keys()


def test_writes_osm_gtfs_gbfs_and_router_config(tmp_path: Path) -> None:
    city = write_demo_city(tmp_path / "new" / "folder")
    assert sorted(p.name for p in city.directory.iterdir()) == [
        GTFS_FILENAME,
        OSM_FILENAME,
        "gbfs",
        "router-config.json",
    ]
    assert city.osm_path == tmp_path / "new" / "folder" / OSM_FILENAME


def test_zip_members_have_fixed_timestamps(city: DemoCity) -> None:
    with zipfile.ZipFile(city.gtfs_path) as zf:
        infos = zf.infolist()
    assert [i.filename for i in infos] == sorted(i.filename for i in infos)
    assert {i.date_time for i in infos} == {(2026, 1, 1, 0, 0, 0)}


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"size": "huge"}, ValueError),
        ({"size": "demo", "scale": 2}, ValueError),
        ({"size": "large", "scale": 0}, ValueError),
        ({"size": "large", "scale": 1.5}, TypeError),
        ({"seed": -1}, ValueError),
    ],
)
def test_bad_arguments_raise(
    tmp_path: Path, kwargs: dict[str, Any], error: type[Exception]
) -> None:
    with pytest.raises(error):
        write_demo_city(tmp_path, **kwargs)
    assert not any(tmp_path.iterdir())


# -- OSM ----------------------------------------------------------------------


def test_osm_has_the_expected_street_kinds(osm: _Collect) -> None:
    kinds = Counter(tags.get("highway") for _, tags, _ in osm.ways.values())
    for kind in ("primary", "secondary", "residential", "footway", "cycleway", "steps"):
        assert kinds[kind] >= 1, kind
    assert kinds["residential"] > kinds["primary"]
    named = [t for _, t, _ in osm.ways.values() if t.get("highway") in ("primary", "residential")]
    assert all(t.get("name") and t.get("maxspeed") for t in named)
    assert any(t.get("name") == "Maple Street" for t in named)
    assert any(t.get("oneway") == "yes" for _, t, _ in osm.ways.values())
    plazas = [
        (nodes, t)
        for nodes, t, _ in osm.ways.values()
        if t.get("highway") == "pedestrian" and t.get("area") == "yes"
    ]
    assert len(plazas) == 1
    assert plazas[0][0][0] == plazas[0][0][-1]  # closed


def test_osm_every_way_node_exists_with_a_location(osm: _Collect) -> None:
    for way_id, (nodes, _, valid) in osm.ways.items():
        assert valid, way_id
        assert len(nodes) >= 2
        assert all(n in osm.nodes for n in nodes)


def test_osm_street_graph_is_connected(osm: _Collect) -> None:
    parent: dict[int, int] = {}

    def find(a: int) -> int:
        while parent.setdefault(a, a) != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for nodes, tags, _ in osm.ways.values():
        if "highway" in tags:
            for a, b in itertools.pairwise(nodes):
                parent[find(a)] = find(b)
    assert len({find(n) for n in parent}) == 1


def test_osm_bounds_enclose_every_node(city: DemoCity, osm: _Collect) -> None:
    min_lon, min_lat, max_lon, max_lat = city.bounds
    lat = np.array([v[0] for v in osm.nodes.values()])
    lon = np.array([v[1] for v in osm.nodes.values()])
    assert (lat > min_lat).all()
    assert (lat < max_lat).all()
    assert (lon > min_lon).all()
    assert (lon < max_lon).all()
    head = city.osm_path.read_text(encoding="utf-8")[:400]
    assert '<osm version="0.6"' in head
    assert f'minlat="{min_lat:.7f}"' in head


def test_osm_turn_restriction_members_exist(osm: _Collect) -> None:
    restrictions = [r for r in osm.relations if r[2].get("type") == "restriction"]
    assert len(restrictions) == 1
    _, members, tags = restrictions[0]
    assert tags["restriction"] == "no_left_turn"
    roles = {role: (kind, ref) for kind, ref, role in members}
    assert roles["from"][0] == roles["to"][0] == "w"
    assert roles["via"][0] == "n"
    via = roles["via"][1]
    from_nodes, to_nodes = osm.ways[roles["from"][1]][0], osm.ways[roles["to"][1]][0]
    assert via in osm.nodes
    assert via in (from_nodes[0], from_nodes[-1])
    assert via in (to_nodes[0], to_nodes[-1])
    assert roles["from"][1] != roles["to"][1]


def test_osm_features_present(osm: _Collect) -> None:
    node_tags = [t for _, _, t in osm.nodes.values() if t]
    rental = [t for t in node_tags if t.get("amenity") == "bicycle_rental"]
    assert rental
    assert all(t.get("name") and int(t["capacity"]) > 0 for t in rental)
    assert any(t.get("amenity") == "bicycle_parking" for t in node_tags)
    assert any(t.get("barrier") == "bollard" for t in node_tags)
    pr = [
        (nodes, t)
        for nodes, t, _ in osm.ways.values()
        if t.get("amenity") == "parking" and t.get("park_ride") == "yes"
    ]
    assert len(pr) == 1
    assert pr[0][1]["name"] == "Westgate P+R"
    assert pr[0][0][0] == pr[0][0][-1]
    # the bollard sits inside a residential street
    bollard = next(i for i, (_, _, t) in osm.nodes.items() if t.get("barrier") == "bollard")
    carriers = [t for nodes, t, _ in osm.ways.values() if bollard in nodes[1:-1]]
    assert [t["highway"] for t in carriers] == ["residential"]


def test_osm_rail_route_relation(osm: _Collect) -> None:
    routes = [r for r in osm.relations if r[2].get("route") == "train"]
    assert routes
    for _, members, _ in routes:
        ways = [ref for kind, ref, _ in members if kind == "w"]
        assert ways
        assert all(osm.ways[w][1]["railway"] == "rail" for w in ways)
        stops = [ref for kind, ref, role in members if kind == "n" and role == "stop"]
        assert all(osm.nodes[s][2]["railway"] == "station" for s in stops)


# -- GTFS ---------------------------------------------------------------------


def test_gtfs_files_and_metadata(city: DemoCity, gtfs: dict[str, pd.DataFrame]) -> None:
    expected = {
        "agency", "calendar", "calendar_dates", "fare_attributes", "fare_rules", "feed_info",
        "frequencies", "routes", "shapes", "stop_times", "stops", "transfers", "trips",
    }  # fmt: skip
    assert set(gtfs) == expected
    assert gtfs["feed_info"]["feed_id"].tolist() == ["demo"]
    assert len(gtfs["agency"]) == 1
    assert gtfs["agency"]["agency_timezone"].tolist() == ["Europe/Amsterdam"]
    assert len(gtfs["stops"]) == city.n_stops
    assert len(gtfs["routes"]) == city.n_routes
    assert len(gtfs["trips"]) == city.n_trips


def test_gtfs_routes(gtfs: dict[str, pd.DataFrame]) -> None:
    routes = gtfs["routes"]
    kinds = routes["route_type"].value_counts()
    assert kinds["3"] >= 3
    assert kinds["2"] >= 1
    assert (routes["route_short_name"] != "").all()
    assert (routes["route_long_name"] != "").all()
    assert routes["route_color"].str.fullmatch("[0-9A-F]{6}").all()
    assert routes["route_id"].is_unique
    # every scheduled route runs both ways
    trips = gtfs["trips"]
    freq_trips = set(gtfs["frequencies"]["trip_id"])
    scheduled = trips[~trips["trip_id"].isin(freq_trips)]
    for _, dirs in scheduled.groupby("route_id")["direction_id"]:
        assert set(dirs) == {"0", "1"}


def test_gtfs_references_resolve(gtfs: dict[str, pd.DataFrame]) -> None:
    stops, trips, st = gtfs["stops"], gtfs["trips"], gtfs["stop_times"]
    stop_ids = set(stops["stop_id"])
    assert stops["stop_id"].is_unique
    assert trips["trip_id"].is_unique
    assert set(st["stop_id"]) <= stop_ids
    assert set(st["trip_id"]) == set(trips["trip_id"])
    assert set(trips["route_id"]) == set(gtfs["routes"]["route_id"])
    assert set(trips["service_id"]) == set(gtfs["calendar"]["service_id"])
    assert set(gtfs["calendar_dates"]["service_id"]) <= set(gtfs["calendar"]["service_id"])
    shapes = set(gtfs["shapes"]["shape_id"])
    assert set(trips["shape_id"]) - {""} == shapes
    assert set(gtfs["transfers"]["from_stop_id"]) | set(gtfs["transfers"]["to_stop_id"]) <= stop_ids
    assert set(gtfs["frequencies"]["trip_id"]) <= set(trips["trip_id"])
    rules = gtfs["fare_rules"]
    assert set(rules["fare_id"]) == set(gtfs["fare_attributes"]["fare_id"])
    assert set(rules["route_id"]) == set(gtfs["routes"]["route_id"])
    zones = set(stops["zone_id"]) - {""}
    assert (set(rules["origin_id"]) | set(rules["destination_id"])) - {""} <= zones
    # boarding stops are never stations; every parent is a station
    used = stops[stops["stop_id"].isin(set(st["stop_id"]))]
    assert (used["location_type"] == "0").all()
    parents = stops.loc[stops["parent_station"] != "", "parent_station"]
    assert len(parents) >= 2
    loc = stops.set_index("stop_id")["location_type"]
    assert (loc[parents.unique()] == "1").all()


def test_gtfs_stop_times_are_ordered(gtfs: dict[str, pd.DataFrame]) -> None:
    st = gtfs["stop_times"]
    arr, dep = _seconds(st["arrival_time"]), _seconds(st["departure_time"])
    seq = st["stop_sequence"].astype(int).to_numpy()
    trip = st["trip_id"].to_numpy()
    assert (arr <= dep).all()
    same = trip[1:] == trip[:-1]
    assert (seq[1:][same] == seq[:-1][same] + 1).all()  # rows grouped per trip, in order
    assert (arr[1:][same] >= dep[:-1][same]).all()
    assert (seq[np.r_[True, ~same]] == 1).all()
    # service roughly 05:00 - 24:30, with times past midnight
    first = dep[np.r_[True, ~same]]
    assert first.min() == pytest.approx(5 * 3600, abs=900)
    assert 24 * 3600 <= first.max() <= 24 * 3600 + 1800
    assert arr.max() > 24 * 3600
    # realistic running speeds: 10-60 km/h between consecutive stops
    dist = st["shape_dist_traveled"].replace("", np.nan).astype(float).to_numpy()
    rail = ~np.isnan(dist[1:]) & same
    speed = (dist[1:] - dist[:-1])[rail] / (arr[1:] - dep[:-1])[rail] * 3.6
    assert speed.size
    assert (speed > 20).all()
    assert (speed < 100).all()


def test_gtfs_weekday_and_weekend_differ(gtfs: dict[str, pd.DataFrame]) -> None:
    cal = gtfs["calendar"].set_index("service_id")
    assert cal.loc["WKD", ["monday", "friday", "saturday"]].tolist() == ["1", "1", "0"]
    assert cal.loc["WKE", ["monday", "saturday", "sunday"]].tolist() == ["0", "1", "1"]
    assert (cal["start_date"] <= "20260101").all()
    assert (cal["end_date"] >= "20271231").all()
    counts = gtfs["trips"]["service_id"].value_counts()
    assert counts["WKD"] > 1.5 * counts["WKE"]
    cd = gtfs["calendar_dates"]
    removed = cd[(cd["service_id"] == "WKD") & (cd["exception_type"] == "2")]["date"]
    added = cd[(cd["service_id"] == "WKE") & (cd["exception_type"] == "1")]["date"]
    assert len(removed) >= 1
    assert set(removed) == set(added)
    assert all(date(int(d[:4]), int(d[4:6]), int(d[6:])).weekday() < 5 for d in removed)


def test_gtfs_frequencies_transfers_fares(gtfs: dict[str, pd.DataFrame]) -> None:
    freq = gtfs["frequencies"]
    assert len(freq) == 1
    assert freq["exact_times"].tolist() == ["0"]
    assert int(freq["headway_secs"].iloc[0]) > 0
    tr = gtfs["transfers"]
    assert len(tr) >= 1
    assert set(tr["transfer_type"]) == {"2"}
    assert (tr["min_transfer_time"].astype(int) > 0).all()
    fares = gtfs["fare_attributes"].set_index("fare_id")
    assert float(fares.loc["bus", "price"]) < float(fares.loc["rail_z12", "price"])
    shapes = gtfs["shapes"]
    for _, grp in shapes.groupby("shape_id"):
        assert (np.diff(grp["shape_pt_sequence"].astype(int)) == 1).all()
        assert (np.diff(grp["shape_dist_traveled"].astype(float)) >= 0).all()


def test_gtfs_stops_lie_on_the_street_network(
    city: DemoCity, osm: _Collect, gtfs: dict[str, pd.DataFrame]
) -> None:
    stops = gtfs["stops"]
    lat, lon = (
        stops["stop_lat"].astype(float).to_numpy(),
        stops["stop_lon"].astype(float).to_numpy(),
    )
    min_lon, min_lat, max_lon, max_lat = city.bounds
    assert ((lat > min_lat) & (lat < max_lat) & (lon > min_lon) & (lon < max_lon)).all()
    street = {n for nodes, t, _ in osm.ways.values() if "highway" in t for n in nodes}
    nlat = np.array([osm.nodes[n][0] for n in street])
    nlon = np.array([osm.nodes[n][1] for n in street])
    lat0, lon0 = city.center
    s, n = _metres(lat, lon, lat0, lon0), _metres(nlat, nlon, lat0, lon0)
    nearest = np.array([np.hypot(*(n - p).T).min() for p in s])
    assert nearest.max() < 100.0


# -- the DemoCity record, scale and cache ------------------------------------


def test_places_are_inside_the_city(city: DemoCity) -> None:
    min_lon, min_lat, max_lon, max_lat = city.bounds
    for name in ("Central Station", "Westgate", "Harbour", "University", "Westgate P+R"):
        lat, lon = city.places[name]
        assert min_lat < lat < max_lat, name
        assert min_lon < lon < max_lon, name
    assert min_lat < city.center[0] < max_lat
    assert min_lon < city.center[1] < max_lon
    assert city.sample_date.weekday() < 5


def test_large_scale_grows(tmp_path: Path) -> None:
    demo = write_demo_city(tmp_path / "demo")
    large = write_demo_city(tmp_path / "large", size="large", scale=3)
    assert large.n_stops > 5 * demo.n_stops
    assert large.n_routes > 2 * demo.n_routes
    assert large.n_trips > 2 * demo.n_trips
    width = lambda c: c.bounds[2] - c.bounds[0]  # noqa: E731
    assert width(large) == pytest.approx(3 * width(demo), rel=0.1)
    assert large.osm_path.stat().st_size > 5 * demo.osm_path.stat().st_size


@pytest.mark.slow
def test_scale_ten_city_has_many_lines(tmp_path: Path) -> None:
    city = write_demo_city(tmp_path, size="large", scale=10)
    assert city.n_routes > 50


def test_demo_city_dir_generates_once(tmp_path: Path) -> None:
    folder = demo_city_dir(tmp_path)
    assert folder == tmp_path / f"demo-city-{DEMO_CITY_VERSION}"
    osm_file = folder / OSM_FILENAME
    stamp = osm_file.stat().st_mtime_ns
    assert demo_city_dir(tmp_path) == folder
    assert osm_file.stat().st_mtime_ns == stamp
    assert sorted(p.name for p in tmp_path.iterdir()) == [folder.name]  # no temp folders left
    reference = write_demo_city(tmp_path / "ref")
    assert osm_file.read_bytes() == reference.osm_path.read_bytes()


def test_demo_city_dir_uses_otpa_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTPA_CACHE", str(tmp_path / "cache"))
    folder = demo_city_dir()
    assert folder.parent == tmp_path / "cache"
    assert (folder / GTFS_FILENAME).is_file()


def test_demo_city_dir_replaces_an_incomplete_folder(tmp_path: Path) -> None:
    stale = tmp_path / f"demo-city-{DEMO_CITY_VERSION}"
    stale.mkdir()
    (stale / OSM_FILENAME).write_text("partial")
    folder = demo_city_dir(tmp_path)
    assert (folder / GTFS_FILENAME).is_file()
    assert (folder / OSM_FILENAME).read_text(encoding="utf-8").startswith("<?xml")


def test_gbfs_feed_holds_the_osm_bike_share_stations(city: DemoCity, osm: _Collect) -> None:
    """Each OSM ``amenity=bicycle_rental`` node is a GBFS station at the same place."""
    from otpa.mobility import load_gbfs

    rental = {
        nid: (lat, lon, tags)
        for nid, (lat, lon, tags) in osm.nodes.items()
        if tags.get("amenity") == "bicycle_rental"
    }
    assert city.gbfs_dir is not None
    snap = load_gbfs(city.gbfs_dir)
    assert city.n_bike_stations == len(rental) == len(snap.stations) >= 2
    assert (snap.network, snap.version, snap.messages) == ("DemoBike", "2.3", ())
    for i, sid in enumerate(snap.stations.ids):
        lat, lon, tags = rental[int(sid.removeprefix("station-"))]
        assert snap.stations.names[i] == tags["name"]
        assert abs(snap.stations.lat[i] - lat) < 1e-6
        assert abs(snap.stations.lon[i] - lon) < 1e-6
        cap = int(tags["capacity"])
        assert snap.stations.capacity[i] == cap
        assert snap.stations.vehicles_available[i] == cap * 2 // 5 > 0
        assert snap.stations.spaces_available[i] == cap - cap * 2 // 5
    assert snap.pricing_plans[0].per_min == ((0.0, 0.1, 1.0, None),)
    config = json.loads((city.directory / "router-config.json").read_text(encoding="utf-8"))
    assert config["updaters"][0]["file"] == "gbfs"
    # ride-hail as OTP 1.x configures it: an updater entry (the old top-level
    # transportationNetworkCompanies list still works, tests/otpa/routing/test_plan_ride_hail.py)
    kind = "transportation-network-company-updater"
    (tnc,) = [u for u in config["updaters"] if u["type"] == kind]
    assert tnc["sourceType"] == "no-api"
    assert "transportationNetworkCompanies" not in config
