"""Several feeds (Porto Alegre), GTFS-Flex zones (Cobb County), clusters and calendars."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import math
import zipfile
from collections import defaultdict
from pathlib import Path

from otpa.index import TransitIndex
from otpa.index._flex import flex_areas_from_geojson
from otpa.network import TransportNetwork
from tests.conftest import DATA_ROOT, require_data
from tests.fixtures.networks import built_network, count_rows
from tests.otpa.index._flex_geojson import COBB_FEEDS, cobb_flex_zones
from tests.otpa.index._gtfs_csv import csv_feeds


def index_of(name: str) -> TransitIndex:
    require_data(*name.split("/"))
    return TransitIndex.of(built_network(DATA_ROOT, name))


def test_porto_alegre_has_two_feeds_both_reachable() -> None:
    index = index_of("small/porto-alegre")
    feeds = csv_feeds("small/porto-alegre")
    assert sorted(f.id for f in index.list_feeds()) == ["poa_eptc", "poa_trensurb"]
    assert sorted(f.feed_id for f in feeds) == ["poa_eptc", "poa_trensurb"]
    for feed in feeds:
        assert index.get_feed(feed.feed_id).id == feed.feed_id
        agencies = index.find_agencies(feed_id=feed.feed_id)
        assert [a.id for a in agencies] == [
            feed.scoped(r["agency_id"]) for r in feed.rows("agency.txt")
        ]
        routes = index.find_routes(agency_id=agencies[0].id)
        assert len(routes) == count_rows(feed.files["routes.txt"])
        for row in feed.rows("stops.txt")[::50]:
            assert index.get_stop(feed.scoped(row["stop_id"])).name == row["stop_name"].strip()
        trips = [t for t in index.list_trips() if t.id.startswith(feed.feed_id + ":")]
        assert len(trips) == count_rows(feed.files["trips.txt"])
        patterns = [p for p in index.list_patterns() if p.id.startswith(feed.feed_id + ":")]
        assert len(patterns) == len(feed.stop_patterns())
    # the rail feed's first route, its patterns and a departure from its first stop
    rail = next(f for f in feeds if f.feed_id == "poa_trensurb")
    route = index.get_route(rail.scoped(rail.rows("routes.txt")[0]["route_id"]))
    assert route.mode == "RAIL"
    pattern = index.find_patterns(route_id=route.id)[0]
    date = next(
        c.start_date
        for c in index.list_service_calendars()
        if c.id.startswith("poa_trensurb:") and c.start_date
    )
    found = index.find_stop_times_for_date(pattern.stop_ids[0], date)
    assert any(p.times for p in found)


def test_flex_areas_come_from_locations_geojson() -> None:
    index = index_of("tiny/cobb-flex")
    assert sorted(f.id for f in index.list_feeds()) == sorted(COBB_FEEDS.values())
    expected = cobb_flex_zones()
    assert len(expected) > 10
    areas = index.list_flex_areas()
    assert sorted(a.id for a in areas) == sorted(expected)
    for area in areas:
        assert [[list(ring) for ring in polygon] for polygon in area.polygons] == expected[area.id]
        assert index.get_flex_area(area.id) == area
    # zones with holes: the boundary runs through the exterior ring, then each hole
    holed = [a for a in areas if len(a.polygons[0]) > 1]
    assert holed
    for area in holed:
        assert area.boundary == [p for ring in expected[area.id][0] for p in ring]


def test_flex_areas_survive_save_and_load(tmp_path: Path) -> None:
    """The saved graph carries the zones itself: the feed files are not read again."""
    require_data("tiny", "cobb-flex")
    net = built_network(DATA_ROOT, "tiny/cobb-flex")
    path = net.save(tmp_path / "graph")
    with zipfile.ZipFile(path) as zf:
        member = json.loads(zf.read("json/transit.flex_locations.json"))
    assert {f["id"] for f in member["features"]} >= set(cobb_flex_zones())
    # a graph whose recorded feed paths lead nowhere still has every zone
    moved = dataclasses.replace(
        net.transit, feeds=net.transit.feeds.assign(path="/nonexistent/feed.zip")
    )
    path = dataclasses.replace(net, transit=moved).save(tmp_path / "moved")
    loaded = TransitIndex.of(TransportNetwork.load(path))
    assert loaded.list_flex_areas() == TransitIndex.of(net).list_flex_areas()


def test_malformed_flex_features_are_skipped() -> None:
    ring = [[8, 49], [9, 49], [8, 50], [8, 49]]
    good = {"id": "f:ok", "geometry": {"type": "MultiPolygon", "coordinates": [[ring], [ring]]}}
    bad = [
        {"geometry": {"type": "Polygon", "coordinates": [ring]}},  # no id
        {"id": "f:point", "geometry": {"type": "Point", "coordinates": [8, 49]}},
        {"id": "f:nan", "geometry": {"type": "Polygon", "coordinates": [[["x", 1]]]}},
        {"id": "f:empty", "geometry": {"type": "Polygon", "coordinates": []}},
        {"id": "f:flat", "geometry": {"type": "Polygon", "coordinates": [[1, 2]]}},
        {"id": "f:none"},
        "not a feature",
    ]
    areas = flex_areas_from_geojson({"features": [*bad, good]})
    assert [(a.id, len(a.polygons)) for a in areas] == [("f:ok", 2)]
    assert len(areas[0].boundary) == 2 * len(ring)
    assert flex_areas_from_geojson({"features": "nope"}) == []


def test_clusters_group_same_named_stops_nearby() -> None:
    index = index_of("tiny/atlanta")
    feed = csv_feeds("tiny/atlanta")[0]
    rows = {feed.scoped(r["stop_id"]): r for r in feed.rows("stops.txt")}
    members: dict[str, list[str]] = defaultdict(list)
    for cluster in index.list_clusters():
        assert index.get_cluster(cluster.id) == cluster
        names = {rows[s]["stop_name"].strip().casefold() for s in cluster.stop_ids}
        assert len(names) == 1
        for s in cluster.stop_ids:
            members[s].append(cluster.id)
            assert index.get_stop(s).cluster == cluster.id
    # every stop is in exactly one cluster (Atlanta has no parent stations)
    assert {s: len(c) for s, c in members.items()} == dict.fromkeys(rows, 1)
    # the two Hamilton E Holmes platforms, 49 m apart, are one cluster
    a, b = index.get_stop(feed.scoped("27")), index.get_stop(feed.scoped("40"))
    assert a.cluster == b.cluster
    cluster = index.get_cluster(a.cluster or "")
    assert sorted(cluster.stop_ids) == sorted([a.id, b.id])
    assert math.isclose(cluster.lat, (a.lat + b.lat) / 2)


def test_service_calendars_follow_calendar_files() -> None:
    index = index_of("tiny/atlanta")
    feed = csv_feeds("tiny/atlanta")[0]
    for row in feed.rows("calendar.txt"):
        calendar = index.get_service_calendar(feed.scoped(row["service_id"]))
        start = dt.datetime.strptime(row["start_date"], "%Y%m%d").date()
        end = dt.datetime.strptime(row["end_date"], "%Y%m%d").date()
        expected = [
            start + dt.timedelta(days=d)
            for d in range((end - start).days + 1)
            if feed.rows("calendar.txt")
            and row["service_id"] in feed.active_services(start + dt.timedelta(days=d))
        ]
        assert list(calendar.dates) == expected
        assert calendar.start_date == (expected[0] if expected else None)
        assert calendar.feed_id == feed.feed_id
