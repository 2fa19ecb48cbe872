"""GTFS-RT service alerts, alert patches and vehicle positions.

Facts come from the data, read independently of otpa: MMRI case 3i (one route
``3i|1``, stops ``3i1``/``3i2``, trip ``3i|1`` 00:01 -> 00:02 on 2014-01-01) and its
``3i.pb`` (one alert on route ``3i|1``, header "Unknown effect"), read with the
protobuf bindings; King County Metro's GTFS (``csv``) and a vehicle-positions feed.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import zipfile
from functools import cache
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from google.transit import gtfs_realtime_pb2

from otpa.network import TransportNetwork, build_network
from otpa.realtime import (
    AlertPatchError,
    AlertPatchFile,
    FeedError,
    alert_applier,
    alerts_from_feed,
    current_snapshot,
    current_vehicles,
    parse_feed,
    patch_from_json,
    patch_to_json,
    store_for,
    vehicle_position_applier,
    vehicle_positions,
)
from otpa.routing import Location, PlanRequest
from otpa.routing.planner import plan
from tests.conftest import require_data

AMS = ZoneInfo("Europe/Amsterdam")
#: 2014-01-01 00:00 in Amsterdam (the MMRI epoch).
EPOCH = 1388530800


@cache
def _network_3i() -> TransportNetwork:
    return build_network(require_data("tiny", "mmri") / "3i")


def _fresh_3i() -> TransportNetwork:
    return build_network(require_data("tiny", "mmri") / "3i")


def _feed(*alerts: gtfs_realtime_pb2.Alert) -> bytes:
    msg = gtfs_realtime_pb2.FeedMessage()
    msg.header.gtfs_realtime_version = "2.0"
    msg.header.timestamp = EPOCH
    for i, alert in enumerate(alerts):
        msg.entity.add(id=f"a{i}").alert.CopyFrom(alert)
    return msg.SerializeToString()


def _alert(header: str, **entity: str) -> gtfs_realtime_pb2.Alert:
    alert = gtfs_realtime_pb2.Alert()
    alert.header_text.translation.add(text=header)
    if entity:
        sel = alert.informed_entity.add()
        for key, value in entity.items():
            if key == "trip_id":
                sel.trip.trip_id = value
            else:
                setattr(sel, key, value)
    return alert


def _plan_leg(network: TransportNetwork, **itineraries: object) -> object:
    request = PlanRequest(
        from_place=Location(label="3i:3i1"),
        to_place=Location(label="3i:3i2"),
        date_time=dt.datetime(2014, 1, 1, 0, 1, tzinfo=AMS),
    )
    if itineraries:
        from dataclasses import replace

        request = replace(request, itineraries=replace(request.itineraries, **itineraries))
    (leg,) = plan(network, request).itineraries[0].legs
    return leg


def test_3i_feed_alert_matches_its_route() -> None:
    data = (require_data("tiny", "mmri") / "3i.pb").read_bytes()
    raw = gtfs_realtime_pb2.FeedMessage()
    raw.ParseFromString(data)
    (entity,) = raw.entity
    result = alerts_from_feed(_network_3i().transit, parse_feed(data), "3i", "updater-0")
    assert (result.applied, result.unmatched, result.invalid) == (1, 0, 0)
    (alert,) = result.alerts
    assert alert.id == entity.id == "3i"
    assert alert.header.text("en") == entity.alert.header_text.translation[0].text
    assert [e.route for e in alert.entities] == ["3i:" + entity.alert.informed_entity[0].route_id]
    assert alert.periods == ()
    assert alert.effective_start is None


def test_alerts_reach_legs_by_agency_route_trip_and_stop() -> None:
    network = _fresh_3i()
    apply = alert_applier(network, "3i", "updater-0")
    feed = _feed(
        _alert("agency", agency_id="MMRI"),
        _alert("trip", trip_id="3i|1"),
        _alert("board", stop_id="3i1"),
        _alert("route at alight", route_id="3i|1", stop_id="3i2"),
        _alert("other route at alight", route_id="nope", stop_id="3i2"),
    )
    report = apply(feed)
    # the last alert's route is unknown: its only informed entity is unmatched, it is dropped
    assert (report.applied, report.unmatched, report.invalid) == (4, 1, 0)
    assert report.details["unknown route"] == 1
    leg = _plan_leg(network)
    assert [a.alert_header_text for a in leg.alerts] == [  # type: ignore[attr-defined]
        "agency",
        "trip",
        "board",
        "route at alight",
    ]
    # the same bytes again publish nothing
    version = current_snapshot(network).version  # type: ignore[union-attr]
    assert apply(feed) is report
    assert current_snapshot(network).version == version  # type: ignore[union-attr]


def test_active_periods_locale_and_alert_filtering() -> None:
    network = _fresh_3i()
    now = _alert("Now", route_id="3i|1")
    now.header_text.translation.add(text="Nu", language="nl")
    now.description_text.translation.add(text="Details", language="en")
    now.active_period.add(start=EPOCH, end=EPOCH + 3600)
    later = _alert("Tomorrow", route_id="3i|1")
    later.active_period.add(start=EPOCH + 86400)
    assert alert_applier(network, "3i", "updater-0")(_feed(now, later)).applied == 2
    leg = _plan_leg(network)
    (alert,) = leg.alerts  # type: ignore[attr-defined]
    assert (alert.alert_header_text, alert.alert_description_text) == ("Now", "Details")
    assert alert.effective_start_date == dt.datetime.fromtimestamp(EPOCH, dt.UTC)
    (dutch,) = _plan_leg(network, locale="nl_NL").alerts  # type: ignore[attr-defined]
    assert (dutch.alert_header_text, dutch.alert_description_text) == ("Nu", "Details")
    unfiltered = _plan_leg(network, disable_alert_filtering=True).alerts  # type: ignore[attr-defined]
    assert [a.alert_header_text for a in unfiltered] == ["Now", "Tomorrow"]
    # ignoreRealtimeUpdates keeps the scheduled timetable, not the alerts away
    kept = _plan_leg(network, ignore_realtime_updates=True).alerts  # type: ignore[attr-defined]
    assert [a.alert_header_text for a in kept] == ["Now"]


def test_bad_alert_feeds_change_nothing() -> None:
    network = _fresh_3i()
    apply = alert_applier(network, "3i", "updater-0")
    assert apply(_feed(_alert("kept", route_id="3i|1"))).applied == 1
    snap = current_snapshot(network)
    with pytest.raises(FeedError):
        apply(b"\x0a\xff not a protobuf")
    with pytest.raises(FeedError, match="matches no feed"):
        alert_applier(network, "bart", "updater-1")(_feed(_alert("x", route_id="3i|1")))
    assert current_snapshot(network) is snap
    # an alert informing nothing is invalid, a bad period too; nothing else changes
    backwards = _alert("backwards", route_id="3i|1")
    backwards.active_period.add(start=EPOCH + 10, end=EPOCH)
    report = apply(_feed(_alert("no entity"), backwards, _alert("kept", route_id="3i|1")))
    assert (report.applied, report.unmatched, report.invalid) == (1, 0, 2)
    assert report.details["no informed entity"] == 1
    assert report.details["invalid active period"] == 1
    assert [a.alert_header_text for a in _plan_leg(network).alerts] == ["kept"]  # type: ignore[attr-defined]


# -- alert patches ---------------------------------------------------------------------------


def _patch(**fields: object) -> dict[str, object]:
    base: dict[str, object] = {
        "id": "lift",
        "alert": {"alertHeaderText": "Lift out of order"},
        "stop": "3i:3i2",
        "timePeriods": [{"startTime": EPOCH, "endTime": EPOCH + 3600}],
    }
    base.update(fields)
    return base


def test_patch_refusals_are_otp_statuses() -> None:
    model = _network_3i().transit
    with pytest.raises(AlertPatchError, match=r"^Every patch must have an id$"):
        patch_from_json(_patch(id=None), model)
    with pytest.raises(AlertPatchError, match=r"^Every route patch must have a route id$"):
        patch_from_json(_patch(route="3i:"), model)
    with pytest.raises(AlertPatchError, match="unknown stop"):
        patch_from_json(_patch(stop="3i:nope"), model)
    with pytest.raises(AlertPatchError, match="ends before it starts"):
        patch_from_json(_patch(timePeriods=[{"startTime": EPOCH, "endTime": EPOCH - 1}]), model)
    with pytest.raises(AlertPatchError, match="must name"):
        patch_from_json(_patch(stop=None), model)


def test_patches_persist_and_reach_legs(tmp_path: Path) -> None:
    network = _fresh_3i()
    store = AlertPatchFile(tmp_path / "alert-patches.json")
    assert store.load() == []
    lift = patch_from_json(
        _patch(alert={"alertHeaderText": {"en": "Lift out of order", "nl": "Lift defect"}}),
        network.transit,
    )
    route = patch_from_json(
        _patch(id="works", stop=None, route="3i|1", feedId="3i", timePeriods=[]),
        network.transit,
    )
    stored = store.add([lift, route])
    assert [p.id for p in stored] == ["lift", "works"]
    again = AlertPatchFile(tmp_path / "alert-patches.json").load()
    assert again == stored  # read back as written (the file is the patches' JSON)
    assert patch_to_json(again[0], "nl")["alert"]["alertHeaderText"] == "Lift defect"
    written = json.loads((tmp_path / "alert-patches.json").read_text())
    assert written["alertPatches"][1]["route"] == "3i:3i|1"
    # feed alerts and patches merge; a feed poll keeps the patches
    store_for(network).publish_alerts("patch", again)
    apply = alert_applier(network, "3i", "updater-0")
    apply(_feed(_alert("feed", route_id="3i|1")))
    leg = _plan_leg(network, locale="nl")
    # route alerts (patch first: it was published first), then the alight stop's
    assert [a.alert_header_text for a in leg.alerts] == [  # type: ignore[attr-defined]
        "Lift out of order",
        "feed",
        "Lift defect",
    ]
    apply(_feed(_alert("feed 2", route_id="3i|1")))  # the next poll replaces the feed's alerts
    leg = _plan_leg(network, locale="nl")
    assert [a.alert_header_text for a in leg.alerts] == [  # type: ignore[attr-defined]
        "Lift out of order",
        "feed 2",
        "Lift defect",
    ]
    assert store.remove("works")
    assert not store.remove("works")
    assert [p.id for p in store.load()] == ["lift"]


# -- vehicle positions -----------------------------------------------------------------------


@cache
def _kcm() -> tuple[TransportNetwork, set[str], set[str]]:
    zip_path = require_data("tiny", "transit-only") / "kcm_gtfs.zip"
    with zipfile.ZipFile(zip_path) as zf:
        trips = csv.DictReader(io.StringIO(zf.read("trips.txt").decode("utf-8-sig")))
        trip_ids = {r["trip_id"] for r in trips}
        routes = csv.DictReader(io.StringIO(zf.read("routes.txt").decode("utf-8-sig")))
        route_ids = {r["route_id"] for r in routes}
    return build_network(gtfs=[zip_path]), trip_ids, route_ids


def test_kcm_vehicle_positions_match_their_routes() -> None:
    network, trip_ids, route_ids = _kcm()
    data = (require_data("extras", "gtfs-rt") / "kcm-vehiclepositions-1.pb").read_bytes()
    raw = gtfs_realtime_pb2.FeedMessage()
    raw.ParseFromString(data)
    vehicles = [e.vehicle for e in raw.entity if e.HasField("vehicle")]
    by_trip = [v for v in vehicles if v.trip.trip_id in trip_ids]
    by_route = [
        v for v in vehicles if v.trip.trip_id not in trip_ids and v.trip.route_id in route_ids
    ]
    feed = str(network.transit.feeds["feed_id"].iat[0])
    result = vehicle_positions(network.transit, parse_feed(data), feed)
    assert result.applied == len(by_trip) + len(by_route) > 0
    assert result.unmatched == len(vehicles) - result.applied
    assert result.invalid == 0
    # published: the vehicles of one route, with their reported positions
    vehicle_position_applier(network, feed, "updater-0")(data)
    route = by_route[0].trip.route_id
    expected = sorted(
        (v.vehicle.id, round(v.position.latitude, 5), round(v.position.longitude, 5))
        for v in vehicles
        if v.trip.route_id == route and v.trip.trip_id not in trip_ids
    )
    shown = current_vehicles(network).on_route(f"{feed}:{route}")
    assert sorted((v.vehicle_id, round(v.lat, 5), round(v.lon, 5)) for v in shown) == expected
    assert {v.seconds for v in shown} <= {int(v.timestamp) for v in vehicles}


def test_vehicle_without_position_is_invalid() -> None:
    network = _network_3i()
    msg = gtfs_realtime_pb2.FeedMessage()
    msg.header.gtfs_realtime_version = "2.0"
    on_trip = msg.entity.add(id="v1").vehicle
    on_trip.trip.trip_id = "3i|1"
    on_trip.position.latitude, on_trip.position.longitude = 3.8015, 3.8
    on_trip.stop_id = "3i2"
    msg.entity.add(id="v2").vehicle.trip.trip_id = "3i|1"  # no position
    result = vehicle_positions(network.transit, msg, "3i")
    assert (result.applied, result.unmatched, result.invalid) == (1, 0, 1)
    (v,) = result.vehicles
    assert (v.trip_id, v.route_id, v.next_stop_id, v.next_stop_sequence) == (
        "3i:3i|1",
        "3i:3i|1",
        "3i:3i2",
        2,
    )
