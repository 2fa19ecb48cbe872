"""Agencies, routes, stops, trips and patterns of the index equal the GTFS files.

Expected values come from the raw files read with the csv module
(``_gtfs_csv``), never from otpa's GTFS reader.
"""

from __future__ import annotations

import pytest

from otpa.errors import UnknownIdError
from otpa.index import TransitIndex
from tests.conftest import DATA_ROOT, require_data
from tests.fixtures.networks import count_rows, gtfs_sources
from tests.otpa.index._gtfs_csv import CsvFeed, csv_feeds, value

SETS = ["tiny/atlanta", "small/rnv", "small/porto-alegre"]


def index_of(name: str) -> TransitIndex:
    from tests.fixtures.networks import built_network

    require_data(*name.split("/"))
    return TransitIndex.of(built_network(DATA_ROOT, name))


def _int(text: str | None, default: int) -> int:
    v = value(text)
    return default if v is None else int(v)


@pytest.mark.parametrize("name", SETS)
def test_counts_equal_the_files(name: str) -> None:
    index = index_of(name)
    expected = dict.fromkeys(("agency", "routes", "stops", "trips"), 0)
    for _, files in gtfs_sources(DATA_ROOT / name):
        for key in expected:
            expected[key] += count_rows(files[f"{key}.txt"])
    got = {
        "agency": len(index.list_agencies()),
        "routes": len(index.list_routes()),
        "stops": len(index.list_stops()),
        "trips": len(index.list_trips()),
    }
    assert got == expected
    n_patterns = sum(len(f.stop_patterns()) for f in csv_feeds(name))
    assert len(index.list_patterns()) == n_patterns


@pytest.mark.parametrize("name", SETS)
def test_agency_and_route_fields(name: str) -> None:
    index = index_of(name)
    for feed in csv_feeds(name):
        for row in feed.rows("agency.txt"):
            agency = index.get_agency(feed.scoped(row["agency_id"]))
            assert agency.feed_id == feed.feed_id
            assert (agency.name, agency.url, agency.timezone) == (
                value(row["agency_name"]),
                value(row["agency_url"]),
                value(row["agency_timezone"]),
            )
            assert (agency.lang, agency.phone, agency.fare_url) == (
                value(row.get("agency_lang")),
                value(row.get("agency_phone")),
                value(row.get("agency_fare_url")),
            )
        for row in feed.rows("routes.txt"):
            route = index.get_route(feed.scoped(row["route_id"]))
            assert route.agency_id == feed.scoped(row["agency_id"])
            assert route.type == int(row["route_type"])
            got = (route.short_name, route.long_name, route.desc, route.url)
            assert got == tuple(
                value(row.get(k))
                for k in ("route_short_name", "route_long_name", "route_desc", "route_url")
            )
            assert (route.color, route.text_color) == (
                value(row.get("route_color")),
                value(row.get("route_text_color")),
            )
            sort = value(row.get("route_sort_order"))
            assert route.sort_order == (None if sort is None else int(sort))


@pytest.mark.parametrize("name", SETS)
def test_stop_fields(name: str) -> None:
    index = index_of(name)
    for feed in csv_feeds(name):
        for row in feed.rows("stops.txt"):
            stop = index.get_stop(feed.scoped(row["stop_id"]))
            assert (stop.lat, stop.lon) == (float(row["stop_lat"]), float(row["stop_lon"]))
            assert (stop.code, stop.name, stop.desc, stop.zone_id) == tuple(
                value(row.get(k)) for k in ("stop_code", "stop_name", "stop_desc", "zone_id")
            )
            assert stop.location_type == _int(row.get("location_type"), 0)
            assert stop.wheelchair_boarding == _int(row.get("wheelchair_boarding"), 0)
            parent = value(row.get("parent_station"))
            assert stop.parent_station == (None if parent is None else feed.scoped(parent))


@pytest.mark.parametrize("name", SETS)
def test_trip_fields(name: str) -> None:
    index = index_of(name)
    for feed in csv_feeds(name):
        routes = {r["route_id"].strip(): r for r in feed.rows("routes.txt")}
        for row in feed.rows("trips.txt"):
            trip = index.get_trip(feed.scoped(row["trip_id"]))
            assert trip.route_id == feed.scoped(row["route_id"])
            assert trip.service_id == feed.scoped(row["service_id"])
            assert (trip.trip_headsign, trip.trip_short_name, trip.block_id) == tuple(
                value(row.get(k)) for k in ("trip_headsign", "trip_short_name", "block_id")
            )
            shape = value(row.get("shape_id"))
            assert trip.shape_id == (None if shape is None else feed.scoped(shape))
            direction = value(row.get("direction_id"))
            assert trip.direction_id == (None if direction is None else int(direction))
            assert trip.wheelchair_accessible == _int(row.get("wheelchair_accessible"), 0)
            route_row = routes[row["route_id"].strip()]
            assert trip.route_short_name == value(route_row.get("route_short_name"))


def _pattern_key(feed: CsvFeed, index: TransitIndex, pattern_id: str) -> tuple:
    pattern = index.get_pattern(pattern_id)
    prefix = len(feed.feed_id) + 1
    return (
        pattern.route_id[prefix:],
        tuple(s[prefix:] for s in pattern.stop_ids),
        tuple(str(p) for p in pattern.pickup_types),
        tuple(str(d) for d in pattern.drop_off_types),
    )


@pytest.mark.parametrize("name", SETS)
def test_patterns_group_the_trips_of_each_stop_pattern(name: str) -> None:
    index = index_of(name)
    for feed in csv_feeds(name):
        expected = {k: sorted(feed.scoped(t) for t in v) for k, v in feed.stop_patterns().items()}
        got = {}
        for pattern in index.list_patterns():
            if pattern.id.startswith(feed.feed_id + ":"):
                got[_pattern_key(feed, index, pattern.id)] = sorted(pattern.trip_ids)
        assert got == expected
    for pattern in index.list_patterns():
        feed_id, route, direction, counter = pattern.id.split(":")
        assert pattern.route_id == f"{feed_id}:{route}"
        assert direction == ("" if pattern.direction_id is None else str(pattern.direction_id))
        assert len(counter) == 2
        assert counter.isdigit()
        for trip_id in pattern.trip_ids:
            assert index.get_trip(trip_id).pattern_id == pattern.id


def test_pattern_codes_count_per_route_and_direction() -> None:
    index = index_of("tiny/atlanta")
    codes = [p.id for p in index.find_patterns(route_id="atlanta-blue-green-line:15787")]
    by_direction: dict[str, list[str]] = {}
    for code in codes:
        _, _, direction, counter = code.split(":")
        by_direction.setdefault(direction, []).append(counter)
    assert by_direction
    for counters in by_direction.values():
        assert counters == [f"{n:02d}" for n in range(1, len(counters) + 1)]
    # the pattern with the most trips comes first in each direction
    for direction in by_direction:
        sizes = [len(index.get_pattern(c).trip_ids) for c in codes if c.split(":")[2] == direction]
        assert sizes == sorted(sizes, reverse=True)


def test_lookups_by_route_stop_and_agency() -> None:
    index = index_of("tiny/atlanta")
    feed = csv_feeds("tiny/atlanta")[0]
    by_trip = feed.stop_times_by_trip()
    trips = {r["trip_id"].strip(): r for r in feed.rows("trips.txt")}
    stop = "797"  # Five Points, served by the Blue and Green lines
    serving = {
        trips[t]["route_id"].strip()
        for t, rows in by_trip.items()
        if any(r.stop_id == stop for r in rows)
    }
    got = index.find_routes(stop_ids=[feed.scoped(stop)])
    assert sorted(r.id for r in got) == sorted(feed.scoped(r) for r in serving)
    assert len(serving) == 2
    route = feed.scoped("15787")
    route_trips = sorted(feed.scoped(t) for t, r in trips.items() if r["route_id"] == "15787")
    assert sorted(t.id for t in index.find_trips(route_id=route)) == route_trips
    route_stops = {
        feed.scoped(r.stop_id)
        for t, rows in by_trip.items()
        if trips[t]["route_id"] == "15787"
        for r in rows
    }
    assert {s.id for s in index.find_stops(route_id=route)} == route_stops
    agency_routes = index.find_routes(agency_id=feed.scoped("MARTA"))
    assert len(agency_routes) == count_rows(feed.files["routes.txt"])


@pytest.mark.parametrize(
    "getter",
    [
        "get_feed",
        "get_agency",
        "get_route",
        "get_pattern",
        "get_trip",
        "get_stop",
        "get_cluster",
        "get_flex_area",
        "get_service_calendar",
        "get_pattern_geometry",
        "get_trip_geometry",
        "get_pattern_semantic_hash",
    ],
)
def test_unknown_ids_raise(getter: str) -> None:
    index = index_of("tiny/atlanta")
    with pytest.raises(UnknownIdError, match="no-such-id"):
        getattr(index, getter)("no-such-id")


def test_find_with_unknown_ids_raises() -> None:
    index = index_of("tiny/atlanta")
    with pytest.raises(UnknownIdError):
        index.find_routes(stop_ids=["atlanta-blue-green-line:797", "nope"])
    with pytest.raises(UnknownIdError):
        index.find_agencies(feed_id="nope")
    with pytest.raises(UnknownIdError):
        index.find_stop_times("nope", start_time=0)
    with pytest.raises(ValueError, match="negative"):
        index.find_stop_times("atlanta-blue-green-line:797", start_time=0, time_range_s=-1)


def test_index_is_cached_per_network() -> None:
    from tests.fixtures.networks import built_network

    require_data("tiny", "atlanta")
    net = built_network(DATA_ROOT, "tiny/atlanta")
    assert TransitIndex.of(net) is TransitIndex.of(net)


def test_street_only_network_has_an_empty_index() -> None:
    import gc
    import weakref

    import numpy as np

    from otpa.network import TransportNetwork
    from otpa.transit.build import empty_transit_model

    net = TransportNetwork(
        transit=empty_transit_model(),
        street=None,
        stop_vertex=np.zeros(0, np.int32),
        stop_link_distance_m=np.zeros(0),
        transfer_offsets=np.zeros(1, np.int64),
        transfer_to=np.zeros(0, np.int32),
        transfer_distance_m=np.zeros(0),
    )
    index = TransitIndex.of(net)
    assert index.list_feeds() == index.list_stops() == index.list_trips() == []
    assert index.list_patterns() == index.list_clusters() == index.list_flex_areas() == []
    assert index.find_stops_in_circle(0.0, 0.0, 1000.0) == []
    assert index.find_stops_in_box(-1.0, -1.0, 1.0, 1.0) == []
    # the index does not keep its network alive
    ref = weakref.ref(net)
    del net, index
    gc.collect()
    assert ref() is None
