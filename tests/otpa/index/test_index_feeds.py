"""Several feeds (Porto Alegre), GTFS-Flex zones (Cobb County), clusters and calendars."""

from __future__ import annotations

import datetime as dt
import json
import math
import zipfile
from collections import defaultdict

from otpa.index import TransitIndex
from tests.conftest import DATA_ROOT, require_data
from tests.fixtures.networks import built_network, count_rows
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


def _polygon_features(path: str) -> list[tuple[str, list[tuple[float, float]]]]:
    with zipfile.ZipFile(path) as zf:
        names = [n for n in zf.namelist() if n.endswith("locations.geojson")]
        if not names:
            return []
        doc = json.loads(zf.read(names[0]))
    out = []
    for f in doc["features"]:
        geom = f.get("geometry") or {}
        if "id" not in f or geom.get("type") not in ("Polygon", "MultiPolygon"):
            continue
        first = geom["coordinates"][0] if geom["type"] == "Polygon" else geom["coordinates"][0][0]
        out.append((str(f["id"]), [(float(p[1]), float(p[0])) for p in first]))
    return out


#: Feed ids of the Cobb County files (feed_info.feed_id, else the file name).
COBB_FEEDS = {
    "aspen-flex-on-demand.gtfs.zip": "1696",
    "cobblinc-bus-30-only.gtfs.zip": "cobblinc-bus-30-only",
    "cobblinc-scheduled-deviated-flex.gtfs.zip": "cobblinc-scheduled-deviated-flex",
    "lincoln-county-flex.gtfs.zip": "lincolncounty-or-us",
    "marta-bus-856-only.gtfs.zip": "MARTA",
}


def test_flex_areas_come_from_locations_geojson() -> None:
    index = index_of("tiny/cobb-flex")
    assert sorted(f.id for f in index.list_feeds()) == sorted(COBB_FEEDS.values())
    expected: dict[str, list[tuple[float, float]]] = {}
    for file_name, feed_id in COBB_FEEDS.items():
        for area_id, ring in _polygon_features(str(DATA_ROOT / "tiny" / "cobb-flex" / file_name)):
            expected[f"{feed_id}:{area_id}"] = ring
    assert len(expected) > 10
    areas = index.list_flex_areas()
    assert sorted(a.id for a in areas) == sorted(expected)
    for area in areas[::7]:
        assert list(area.rings[0]) == expected[area.id]
        assert index.get_flex_area(area.id) == area


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
