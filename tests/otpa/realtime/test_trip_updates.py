"""GTFS-RT trip updates: matching, OTP 1.x delay propagation, refusals and snapshots.

The expected values are read independently of otpa: the feeds with the protobuf
bindings, the timetables with the :mod:`csv` module.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import zipfile
from dataclasses import replace
from functools import cache
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np
import pytest
from google.transit import gtfs_realtime_pb2

from otpa.analysis import PointSet, travel_time_matrix
from otpa.index import TransitIndex
from otpa.network import BuildConfig, TransportNetwork, build_network
from otpa.realtime import (
    FeedError,
    current_snapshot,
    parse_feed,
    realtime_stop_times,
    store_for,
    trip_updates,
)
from otpa.realtime.store import trip_update_applier
from otpa.routing import Leg, Location, PlanRequest
from otpa.routing.errors import PathNotFoundError
from otpa.routing.planner import plan
from tests.conftest import require_data

AMS = ZoneInfo("Europe/Amsterdam")
LA = ZoneInfo("America/Los_Angeles")


def _hms(text: str) -> int:
    h, m, s = (int(x) for x in text.split(":"))
    return h * 3600 + m * 60 + s


# -- BART: the whole feed, counted independently -------------------------------------------


@cache
def _bart() -> tuple[TransportNetwork, bytes, dict[str, list[dict[str, str]]], set[str]]:
    folder = require_data("extras", "gtfs-rt")
    network = build_network(gtfs=[folder / "bart.zip"])
    with zipfile.ZipFile(folder / "bart.zip") as zf:
        rows = csv.DictReader(io.StringIO(zf.read("stop_times.txt").decode("utf-8-sig")))
        calls: dict[str, list[dict[str, str]]] = {}
        for row in rows:
            calls.setdefault(row["trip_id"], []).append(row)
        trips = csv.DictReader(io.StringIO(zf.read("trips.txt").decode("utf-8-sig")))
        weekday = {row["trip_id"] for row in trips if row["service_id"] == "WKDY"}
    for stops in calls.values():
        stops.sort(key=lambda r: int(r["stop_sequence"]))
    return network, (folder / "bart-tripupdates.pb").read_bytes(), calls, weekday


def _expected_times(
    calls: list[dict[str, str]], updates: list[tuple[int, int]]
) -> tuple[list[int], list[int]] | None:
    """OTP 1.x propagation of departure-only delays ``(stop_sequence, delay)``; None: refused."""
    arr = [_hms(c["arrival_time"]) for c in calls]
    dep = [_hms(c["departure_time"]) for c in calls]
    by_seq = dict(updates)
    delay: int | None = None
    for i, c in enumerate(calls):
        seq = int(c["stop_sequence"])
        if delay is not None:
            arr[i] += delay
        if seq in by_seq:
            delay = by_seq[seq]
        if delay is not None:
            dep[i] = _hms(c["departure_time"]) + delay
    ok = all(d >= a for a, d in zip(arr, dep, strict=True)) and all(
        arr[i + 1] >= dep[i] for i in range(len(arr) - 1)
    )
    return (arr, dep) if ok else None


def test_bart_trip_updates_counts_and_times() -> None:
    network, data, calls, weekday = _bart()
    feed = gtfs_realtime_pb2.FeedMessage()
    feed.ParseFromString(data)
    service_date = dt.datetime.fromtimestamp(feed.header.timestamp, LA).date()
    assert service_date == dt.date(2016, 12, 29)  # a Thursday: WKDY service
    expected: dict[str, tuple[list[int], list[int]] | None] = {}
    unmatched = 0
    for entity in feed.entity:
        tu = entity.trip_update
        if tu.trip.trip_id not in weekday:
            unmatched += 1
            continue
        assert all(not u.HasField("arrival") for u in tu.stop_time_update)
        updates = [(u.stop_sequence, u.departure.delay) for u in tu.stop_time_update]
        expected[tu.trip.trip_id] = _expected_times(calls[tu.trip.trip_id], updates)
    invalid = sum(1 for v in expected.values() if v is None)

    result = trip_updates(network.transit, parse_feed(data), "bart", network.time_zone)

    assert result.counts["trip_updates"] == len(feed.entity) == 72
    assert (result.applied, result.unmatched, result.invalid) == (
        len(expected) - invalid,
        unmatched,
        invalid,
    )
    # 7 updates lower the delay at a stop by more than its dwell: arriving with the old
    # delay after leaving with the new one, which OTP 1.x refuses as times going backwards
    assert invalid == 7
    raw = network.transit.trips["raw_id"].to_numpy()
    for (trip, day), rt in result.trips.items():
        assert day == service_date.toordinal()
        times = expected[str(raw[trip])]
        assert times is not None
        assert rt.arrival_s.tolist() == times[0]
        assert rt.departure_s.tolist() == times[1]


# -- MMRI 3c: refusals, skipped stops, cancellations, snapshots ----------------------------

EPOCH = dt.datetime(2014, 1, 1, tzinfo=AMS)


@cache
def _network(folder: str) -> TransportNetwork:
    return build_network(
        require_data("tiny", "mmri", folder), config=BuildConfig(max_transfer_distance_m=0.0)
    )


def _feed(*updates: tuple[str, str, list[tuple[int, str, int | None]]]) -> bytes:
    """Trip updates ``(trip_id, start_date, [(stop_sequence, kind, delay)])``.

    ``kind`` is ``"arrival"``, ``"departure"``, ``"SKIPPED"`` or ``"CANCELED"`` (whole trip).
    """
    msg = gtfs_realtime_pb2.FeedMessage()
    msg.header.gtfs_realtime_version = "1.0"
    msg.header.timestamp = int(EPOCH.timestamp())
    for trip_id, date, stops in updates:
        entity = msg.entity.add(id=f"{trip_id}@{date}")
        entity.trip_update.trip.trip_id = trip_id
        entity.trip_update.trip.start_date = date
        for seq, kind, delay in stops:
            if kind == "CANCELED":
                entity.trip_update.trip.schedule_relationship = (
                    gtfs_realtime_pb2.TripDescriptor.CANCELED
                )
                continue
            stu = entity.trip_update.stop_time_update.add(stop_sequence=seq)
            if kind == "SKIPPED":
                stu.schedule_relationship = gtfs_realtime_pb2.TripUpdate.StopTimeUpdate.SKIPPED
            else:
                getattr(stu, kind).delay = delay or 0
    return msg.SerializeToString()


def _ride(network: TransportNetwork, a: str, b: str, clock: str) -> tuple[str, str, str, bool]:
    h, m = (int(x) for x in clock.split(":"))
    req = PlanRequest(
        Location(label=f"3c:{a}"), Location(label=f"3c:{b}"), EPOCH.replace(hour=h, minute=m)
    )
    legs = [leg for leg in plan(network, req).itineraries[0].legs if leg.transit_leg]
    assert len(legs) == 1
    leg = legs[0]
    return (
        str(leg.trip_id).split(":")[-1],
        leg.start_time.strftime("%H:%M"),
        leg.end_time.strftime("%H:%M"),
        leg.real_time,
    )


def test_refused_entities_change_nothing_else() -> None:
    network = _network("3c")
    model = network.transit
    data = _feed(
        ("no-such-trip", "20140101", [(1, "departure", 60)]),  # unknown trip
        ("3c|2", "20140105", [(1, "departure", 60)]),  # 3c runs on 2014-01-01 only
        ("3c|1", "2014-01-01", [(1, "departure", 60)]),  # not YYYYMMDD
        ("3c|1", "20140101", [(2, "arrival", -120)]),  # 3c2 at 00:00, before leaving 3c1
        ("3c|2", "20140101", [(9, "departure", 60)]),  # stop_sequence 9: no such stop
        ("3c|2", "20140101", [(2, "departure", 60)]),  # valid: 3c2 00:06, 3c3 00:07
    )
    result = trip_updates(model, parse_feed(data), "3c", network.time_zone)
    assert (result.applied, result.unmatched, result.invalid) == (1, 2, 3)
    assert result.counts["unknown trip"] == 1
    assert result.counts["not running"] == 1
    assert result.counts["times go backwards"] == 1
    assert result.counts["stop mismatch"] == 1
    assert result.counts["invalid start date"] == 1
    (rt,) = result.trips.values()
    raw = model.trips["raw_id"].to_numpy()
    assert raw[rt.trip] == "3c|2"
    assert rt.departure_s.tolist() == [240, 360, 420]  # 00:04, 00:06 (+60), 00:07 (+60)
    assert rt.arrival_s.tolist() == [240, 300, 420]  # 3c2 arrival keeps 00:05


def _added(
    trip_id: str,
    route_id: str | None,
    calls: list[tuple[str, str | None, str | None]],
    start_date: str | None = "20140101",
) -> gtfs_realtime_pb2.FeedEntity:
    """An ADDED trip update: ``calls`` are ``(stop_id, arrival "HH:MM", departure "HH:MM")``."""
    entity = gtfs_realtime_pb2.FeedEntity(id=f"added {trip_id}")
    td = entity.trip_update.trip
    td.trip_id = trip_id
    td.schedule_relationship = gtfs_realtime_pb2.TripDescriptor.ADDED
    if route_id is not None:
        td.route_id = route_id
    if start_date is not None:
        td.start_date = start_date
    day = int(EPOCH.timestamp())  # 2014-01-01 00:00 Amsterdam: noon minus 12 h
    for stop_id, arrive, depart in calls:
        stu = entity.trip_update.stop_time_update.add(stop_id=stop_id)
        if arrive is not None:
            stu.arrival.time = day + _hms(arrive + ":00")
        if depart is not None:
            stu.departure.time = day + _hms(depart + ":00")
    return entity


def test_added_trips_are_checked_as_otp1() -> None:
    network = _network("3c")
    model = network.transit
    msg = gtfs_realtime_pb2.FeedMessage()
    msg.header.gtfs_realtime_version = "1.0"
    msg.header.timestamp = int(EPOCH.timestamp())
    ok = [("3c1", None, "00:10"), ("3c2", "00:12", "00:13"), ("3c3", "00:15", None)]
    msg.entity.extend(
        [
            _added("new-1", "3c", ok),
            _added("3c|1", "3c", ok),  # the trip id exists
            _added("new-2", "no-route", ok),  # unknown route
            _added("new-3", None, ok),  # no route id
            _added("new-4", "3c", ok, start_date=None),  # no service day
            _added("new-5", "3c", [("3c1", None, "00:10"), ("nowhere", "00:12", None)]),
            _added("new-6", "3c", ok[:1]),  # one stop
            _added("new-7", "3c", [("3c1", None, "00:10"), ("3c2", "00:09", None)]),
            _added("new-8", "3c", [("3c1", None, "00:10"), ("3c2", None, None)]),
            _added("new-9", "3c", ok, start_date="20140102"),  # calendar_dates: no service
        ]
    )
    result = trip_updates(model, msg, "3c", network.time_zone)
    assert (result.applied, result.unmatched, result.invalid) == (1, 0, 9)
    for key in (
        "added",
        "trip exists",
        "unknown route",
        "no route id",
        "no start date",
        "unknown stop",
        "too few stops",
        "times go backwards",
        "no time",
        "no service",
    ):
        assert result.counts[key] == 1, key
    assert not result.trips  # nothing else changes
    ((key, added),) = result.added.items()
    assert key == ("new-1", dt.date(2014, 1, 1).toordinal())
    assert added.state == "ADDED"
    assert model.routes["raw_id"].to_numpy()[added.route] == "3c"
    assert model.stops["raw_id"].to_numpy()[added.stops].tolist() == ["3c1", "3c2", "3c3"]
    # a missing arrival or departure takes the other one (service-day seconds)
    assert added.arrival_s.tolist() == [600, 720, 900]
    assert added.departure_s.tolist() == [600, 780, 900]
    assert added.sequence.tolist() == [1, 2, 3]  # no stop_sequence in the feed: positions


def _plan_legs(network: TransportNetwork, a: str, b: str, clock: str) -> list[Leg]:
    h, m = (int(x) for x in clock.split(":"))
    req = PlanRequest(
        Location(label=f"3c:{a}"), Location(label=f"3c:{b}"), EPOCH.replace(hour=h, minute=m)
    )
    its = plan(network, req).itineraries
    return [leg for leg in its[0].legs if leg.transit_leg] if its else []


def test_added_trips_are_routed_and_listed() -> None:
    """3c's stop_times.txt: 3c|1 3c1 00:01, 3c2 00:02, 3c3 00:03; 3c|2 00:04, 00:05, 00:06.
    new-1 runs the same stops at 00:02, 00:03, 00:04 (between them: it joins their RAPTOR
    route); new-2 runs backwards, 3c3 00:02 -> 3c1 00:05 (a pattern of its own)."""
    network = _network("3c")
    model = network.transit
    msg = gtfs_realtime_pb2.FeedMessage()
    msg.header.gtfs_realtime_version = "1.0"
    msg.header.timestamp = int(EPOCH.timestamp())
    msg.entity.extend(
        [
            _added(
                "new-1",
                "3c",
                [("3c1", None, "00:02"), ("3c2", "00:03", None), ("3c3", "00:04", None)],
            ),
            _added("new-2", "3c", [("3c3", None, "00:02"), ("3c1", "00:05", None)]),
        ]
    )
    msg.entity[1].trip_update.stop_time_update[0].stop_sequence = 10
    msg.entity[1].trip_update.stop_time_update[1].stop_sequence = 20
    store = store_for(network)
    report = trip_update_applier(network, "3c", "test-added")(msg.SerializeToString())
    try:
        assert (report.applied, report.unmatched, report.invalid) == (2, 0, 0)
        assert report.details["added"] == 2
        snap = store.snapshot
        # new-1 rides with 3c|1 and 3c|2 (no overtaking), new-2 in a route of its own
        tt = snap.raptor_timetable(dt.date(2014, 1, 1), network.time_zone)
        today = np.flatnonzero(np.asarray(tt.route_day) == 0)
        trips = [
            np.asarray(tt.route_trip_ref[tt.route_trip_offsets[r] : tt.route_trip_offsets[r + 1]])
            for r in today
        ]
        n = model.n_trips
        assert sorted(t.tolist() for t in trips) == [[0, n, 1], [n + 1]]
        first = snap.added_trip(n)
        assert first is not None
        assert first.trip_id == "new-1"
        assert snap.pattern_stops(snap.added_trip_pattern(n + 1)).tolist() == [2, 0]

        assert _ride(network, "3c1", "3c2", "00:02") == ("new-1", "00:02", "00:03", True)
        (leg,) = _plan_legs(network, "3c3", "3c1", "00:01")
        assert (leg.trip_id, leg.route_id, leg.real_time) == ("3c:new-2", "3c:3c", True)
        assert (leg.start_time.strftime("%H:%M"), leg.end_time.strftime("%H:%M")) == (
            "00:02",
            "00:05",
        )
        assert (leg.from_place.stop_sequence, leg.to_place.stop_sequence) == (10, 20)
        assert (leg.arrival_delay, leg.departure_delay) == (0, 0)
        # the scheduled timetable has no trip from 3c3 to 3c1
        req = PlanRequest(
            Location(label="3c:3c3"), Location(label="3c:3c1"), EPOCH.replace(minute=1)
        )
        scheduled = replace(req, itineraries=replace(req.itineraries, ignore_realtime_updates=True))
        with pytest.raises(PathNotFoundError):
            plan(network, scheduled)
        # the analysis searches the snapshot too: 3c3 -> 3c1 only by new-2 (00:02 -> 00:05)
        points = PointSet(np.array(["3c3", "3c1"]), np.array([3.303, 3.301]), np.array([3.3, 3.3]))
        options = {"board_slack_s": 0, "max_walk_time_s": 60, "max_rides": 1}
        matrix = travel_time_matrix(network, points, departure=EPOCH.replace(minute=1), **options)
        assert float(matrix.sel(percentile=50).values[0, 1]) == 240.0
        # bannedTrips names added trips as any other
        req = PlanRequest(
            Location(label="3c:3c1"), Location(label="3c:3c2"), EPOCH.replace(minute=2)
        )
        banned = replace(req, filters=replace(req.filters, banned_trips={"3c:new-1": ()}))
        legs = [leg for leg in plan(network, banned).itineraries[0].legs if leg.transit_leg]
        assert [leg.trip_id for leg in legs] == ["3c:3c|2"]

        # the index's stop times list them, ADDED, with the feed's times
        index = TransitIndex.of(network)
        start = int(EPOCH.timestamp())
        found = realtime_stop_times(
            network,
            snap,
            index.find_stop_times("3c:3c3", start_time=start, time_range_s=3600),
            stop_id="3c:3c3",
            window=(start, start + 3600),
            limit=2,
        )
        calls = {
            t.trip_id: (f.pattern.id, t.realtime_state, t.scheduled_departure, t.stop_index)
            for f in found
            for t in f.times
        }
        assert calls["3c:new-2"] == ("3c:3c::rt#1", "ADDED", 120, 0)
        assert calls["3c:new-1"][1:] == ("ADDED", 240, 2)
        on_day = realtime_stop_times(
            network,
            snap,
            index.find_stop_times_for_date("3c:3c1", dt.date(2014, 1, 1)),
            stop_id="3c:3c1",
            date=dt.date(2014, 1, 1),
        )
        times = sorted(
            (t.scheduled_departure, t.trip_id, t.realtime_state) for f in on_day for t in f.times
        )
        assert times == [
            (60, "3c:3c|1", "SCHEDULED"),
            (120, "3c:new-1", "ADDED"),
            (240, "3c:3c|2", "SCHEDULED"),
            (300, "3c:new-2", "ADDED"),
        ]
    finally:
        store.publish("test-added", {})


def test_new_and_duplicated_trips() -> None:
    """NEW is ADDED's later name; DUPLICATED copies 3c|1 (stop_times.txt: 3c1 00:01, 3c2
    00:02, 3c3 00:03) to start at 00:30, with the copy 60 s late from 3c2 on."""
    network = _network("3c")
    msg = gtfs_realtime_pb2.FeedMessage()
    msg.header.gtfs_realtime_version = "2.0"
    msg.header.timestamp = int(EPOCH.timestamp())
    new = _added("new-3", "3c", [("3c2", None, "00:20"), ("3c3", "00:22", None)])
    new.trip_update.trip.schedule_relationship = gtfs_realtime_pb2.TripDescriptor.NEW
    msg.entity.append(new)
    for copy_id, source in (("3c|1-copy", "3c|1"), ("3c|2", "3c|1"), ("x", "no-such-trip")):
        tu = msg.entity.add(id=f"dup {copy_id}").trip_update
        tu.trip.trip_id, tu.trip.start_date = source, "20140101"
        tu.trip.schedule_relationship = gtfs_realtime_pb2.TripDescriptor.DUPLICATED
        tu.trip_properties.trip_id, tu.trip_properties.start_time = copy_id, "00:30:00"
        tu.stop_time_update.add(stop_sequence=2).arrival.delay = 60
    result = trip_updates(network.transit, msg, "3c", network.time_zone)
    assert (result.applied, result.unmatched, result.invalid) == (2, 0, 2)
    assert (result.counts["added"], result.counts["duplicated"]) == (1, 1)
    assert (result.counts["trip exists"], result.counts["unknown trip"]) == (1, 1)
    copy = result.added[("3c|1-copy", dt.date(2014, 1, 1).toordinal())]
    assert copy.arrival_s.tolist() == [1800, 1920, 1980]
    assert copy.departure_s.tolist() == [1800, 1920, 1980]
    assert copy.sequence.tolist() == [1, 2, 3]
    store = store_for(network)
    trip_update_applier(network, "3c", "test-duplicated")(msg.SerializeToString())
    try:
        assert _ride(network, "3c1", "3c3", "00:25") == ("3c|1-copy", "00:30", "00:33", True)
        assert _ride(network, "3c2", "3c3", "00:15") == ("new-3", "00:20", "00:22", True)
    finally:
        store.publish("test-duplicated", {})


def test_feed_errors_keep_the_last_good_snapshot() -> None:
    network = _network("3c")
    apply = trip_update_applier(network, "3c", "test-errors")
    apply(_feed(("3c|1", "20140101", [(1, "CANCELED", None)])))
    good = current_snapshot(network)
    assert good is not None
    assert len(good) == 1
    with pytest.raises(FeedError, match="not a GTFS-RT FeedMessage"):
        apply(b"\x0a\xff\xff garbage")
    with pytest.raises(FeedError, match="matches no feed"):
        trip_update_applier(network, "nope", "test-errors")(_feed())
    assert current_snapshot(network) is good
    store_for(network).publish("test-errors", {})


def test_skipped_and_canceled_trips_in_plans() -> None:
    network = _network("3c")
    store = store_for(network)
    assert _ride(network, "3c1", "3c2", "00:01") == ("3c|1", "00:01", "00:02", False)
    apply = trip_update_applier(network, "3c", "test-plans")
    apply(_feed(("3c|1", "20140101", [(2, "SKIPPED", None)])))
    before = store.snapshot
    # 3c|1 no longer stops at 3c2: 3c|2 (00:04 -> 00:05) instead; 3c1 -> 3c3 still rides 3c|1
    assert _ride(network, "3c1", "3c2", "00:01") == ("3c|2", "00:04", "00:05", False)
    assert _ride(network, "3c1", "3c3", "00:01") == ("3c|1", "00:01", "00:03", True)
    apply(_feed(("3c|1", "20140101", [(1, "CANCELED", None)])))
    assert _ride(network, "3c1", "3c3", "00:01") == ("3c|2", "00:04", "00:06", False)
    # the earlier snapshot is unchanged: a search that took it still sees the skipped stop
    tt = before.raptor_timetable(dt.date(2014, 1, 1), network.time_zone)
    raw = network.transit.trips["raw_id"].to_numpy()
    assert sorted(raw[np.asarray(tt.route_trip_ref)].tolist()) == ["3c|1", "3c|2"]
    store.publish("test-plans", {})
    assert _ride(network, "3c1", "3c2", "00:01") == ("3c|1", "00:01", "00:02", False)


# -- King County Metro: updates by stop_id and absolute time -------------------------------


def _csv(zf: zipfile.ZipFile, name: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(zf.read(name).decode("utf-8-sig"))))


def _runs(zf: zipfile.ZipFile, service_id: str, day: dt.date) -> bool:
    """calendar.txt and calendar_dates.txt, read with the csv module."""
    key = day.strftime("%Y%m%d")
    for row in _csv(zf, "calendar_dates.txt"):
        if row["service_id"] == service_id and row["date"] == key:
            return row["exception_type"] == "1"
    weekday = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
    return any(
        row["service_id"] == service_id
        and row["start_date"] <= key <= row["end_date"]
        and row[weekday[day.weekday()]] == "1"
        for row in _csv(zf, "calendar.txt")
    )


def test_kcm_trip_updates_counts() -> None:
    """Each update names stops by ``stop_id`` with absolute departure times; an update
    naming a stop the trip does not call at (in order) is refused, as OTP 1.x does."""
    path = require_data("tiny", "transit-only", "kcm_gtfs.zip")
    data = Path(f"{path}.pb").read_bytes()
    feed = gtfs_realtime_pb2.FeedMessage()
    feed.ParseFromString(data)
    with zipfile.ZipFile(path) as zf:
        service = {row["trip_id"]: row["service_id"] for row in _csv(zf, "trips.txt")}
        calls: dict[str, list[tuple[int, str]]] = {}
        for row in _csv(zf, "stop_times.txt"):
            calls.setdefault(row["trip_id"], []).append((int(row["stop_sequence"]), row["stop_id"]))
        applied = unmatched = invalid = 0
        for entity in feed.entity:
            td = entity.trip_update.trip
            day = dt.datetime.strptime(td.start_date, "%Y%m%d").date()
            if td.trip_id not in service or not _runs(zf, service[td.trip_id], day):
                unmatched += 1
                continue
            stops = [s for _, s in sorted(calls[td.trip_id])]
            wanted = [u.stop_id for u in entity.trip_update.stop_time_update]
            it = iter(stops)
            in_order = all(any(s == w for s in it) for w in wanted)
            applied, invalid = (applied + 1, invalid) if in_order else (applied, invalid + 1)
    network = build_network(gtfs=[path])

    result = trip_updates(network.transit, parse_feed(data), None, network.time_zone)

    assert (result.applied, result.unmatched, result.invalid) == (applied, unmatched, invalid)
    assert result.applied + result.unmatched + result.invalid == len(feed.entity) == 114
    assert result.applied > 0
    assert result.invalid > 0
    assert result.counts.get("stop mismatch", 0) == invalid
    # absolute times: seconds after the service day's start ("noon minus 12 h" in Seattle)
    noon = dt.datetime(2016, 4, 27, 12, tzinfo=LA)
    day_start = int(noon.timestamp()) - 12 * 3600
    raw = network.transit.trips["raw_id"].to_numpy()
    stop_raw = network.transit.stops["raw_id"].to_numpy()
    by_trip = {e.trip_update.trip.trip_id: e.trip_update for e in feed.entity}
    for rt in result.trips.values():
        tu = by_trip[str(raw[rt.trip])]
        pattern = int(network.transit.trips["pattern_index"].iat[rt.trip])
        stops = [str(stop_raw[i]) for i in network.transit.pattern_stop_indices(pattern)]
        for u in tu.stop_time_update:
            assert rt.departure_s[stops.index(u.stop_id)] == u.departure.time - day_start
