"""GBFS v1/v2/v3 samples (OTP's test feeds) read into rental snapshots.

Counts are made here from the JSON files directly (station ids that are non-empty with a
real position, vehicles without a station), never with the reader's own code; zones are
checked against shapely.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import shapely.geometry

from otpa.mobility import GbfsError, load_gbfs
from tests.conftest import require_data

SAMPLES = {
    "helsinki": ("bike-rental", "1.0"),
    "lillestrombysykkel": ("bike-rental", "2.2"),
    "tieroslo": ("vehicle-rental", "2.3"),
    "ridecheck/almere": ("vehicle-rental", "3.0"),
    "duplicate-stations-v2": ("bike-rental", "2.2"),
    "duplicate-stations-v3": ("bike-rental", "3.0"),
}


def _doc(folder: Path, name: str) -> Any:
    path = folder / f"{name}.json"
    return json.loads(path.read_text(encoding="utf-8"))["data"] if path.is_file() else None


def _real_position(row: dict[str, Any]) -> bool:
    lat, lon = row.get("lat"), row.get("lon")
    ok = isinstance(lat, int | float) and isinstance(lon, int | float)
    return ok and not (lat == 0 and lon == 0)


def _expected(folder: Path) -> tuple[list[str], dict[str, int], int]:
    """Station ids, first status count per station, free vehicles: straight from the JSON."""
    info = _doc(folder, "station_information")
    ids: list[str] = []
    for row in info["stations"] if info else []:
        sid = row.get("station_id")
        if sid and _real_position(row) and sid not in ids:
            ids.append(sid)
    status = _doc(folder, "station_status")
    counts: dict[str, int] = {}
    for row in status["stations"] if status else []:
        n = row.get("num_vehicles_available", row.get("num_bikes_available"))
        counts.setdefault(row["station_id"], n)
    vehicles = 0
    for name, key in (("vehicle_status", "vehicles"), ("free_bike_status", "bikes")):
        doc = _doc(folder, name)
        vehicles += sum(
            1 for v in (doc[key] if doc else []) if not v.get("station_id") and _real_position(v)
        )
    return ids, counts, vehicles


@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_each_sample_parses_with_the_counts_its_files_hold(sample: str) -> None:
    folder = require_data("extras", "gbfs", sample)
    kind, version = SAMPLES[sample]
    snap = load_gbfs(folder, kind=kind)
    ids, counts, vehicles = _expected(folder)
    assert snap.version == version
    assert snap.kind == kind
    assert list(snap.stations.ids) == ids
    assert len(snap.vehicles) == vehicles
    got = dict(zip(snap.stations.ids, snap.stations.vehicles_available.tolist(), strict=True))
    assert got == {sid: counts.get(sid, -1) for sid in ids}
    system = _doc(folder, "system_information")
    assert snap.network == system["system_id"]
    assert not [m for m in snap.messages if m.level == "error"]


def test_sample_totals() -> None:
    """The totals the samples hold (7 Helsinki stations with an id and a position...)."""
    root = require_data("extras", "gbfs")
    snaps = {s: load_gbfs(root / s, kind=k) for s, (k, _) in SAMPLES.items()}
    totals = {s: (len(snap.stations), len(snap.vehicles)) for s, snap in snaps.items()}
    assert totals == {
        "helsinki": (7, 0),
        "lillestrombysykkel": (6, 0),
        "tieroslo": (0, 0),
        "ridecheck/almere": (0, 6),
        "duplicate-stations-v2": (3, 0),
        "duplicate-stations-v3": (3, 0),
    }


@pytest.mark.parametrize("sample", ["duplicate-stations-v2", "duplicate-stations-v3"])
def test_duplicate_station_ids_are_reported_not_fatal(sample: str) -> None:
    snap = load_gbfs(require_data("extras", "gbfs", sample))
    assert snap.stations.ids == ("station_1", "station_duplicate", "station_3")
    # station_status lists station_duplicate twice (10 then 8 vehicles): the first is kept
    assert snap.stations.vehicles_available.tolist() == [5, 10, 3]
    dupes = [m for m in snap.messages if "duplicate station_id 'station_duplicate'" in m.message]
    assert [(m.level, m.file) for m in dupes] == [("warning", "station_status")]
    assert snap.stations.names[1] == "Station Duplicate First"  # v3 localized names


def test_helsinki_v1_skips_stations_without_id_or_position() -> None:
    snap = load_gbfs(require_data("extras", "gbfs", "helsinki"))
    text = [str(m) for m in snap.messages]
    assert "warning: station_information: a station without station_id: skipped" in text
    assert any("station '010' has no valid position" in t for t in text)
    assert any("station '008' has no name" in t for t in text)
    i = snap.stations.ids.index("001")
    st = snap.stations
    assert (st.names[i], st.capacity[i], st.vehicles_available[i], st.spaces_available[i]) == (
        "Kaivopuisto",
        30,
        2,
        29,
    )
    assert st.real_time.all()


def test_vehicle_types_and_pricing_plans() -> None:
    snap = load_gbfs(require_data("extras", "gbfs", "lillestrombysykkel"))
    assert snap.vehicle_types.ids == ("YLS:VehicleType:CityBike",)
    assert (snap.vehicle_types.form_factor, snap.vehicle_types.propulsion) == (
        ("BICYCLE",),
        ("HUMAN",),
    )
    plans = {p.name: (p.currency, p.price) for p in snap.pricing_plans}
    assert plans == {"sesongkort": ("NOK", 50.0), "3-dagerskort": ("NOK", 10.0)}
    assert snap.stations.vehicle_types_available[0] == {"YLS:VehicleType:CityBike": 10}
    assert set(snap.stations.form_factor) == {"BICYCLE"}
    assert snap.system.language == "nb"


def test_free_floating_v3_vehicles_and_geofencing_against_shapely() -> None:
    folder = require_data("extras", "gbfs", "ridecheck", "almere")
    snap = load_gbfs(folder, kind="vehicle-rental")
    raw = _doc(folder, "vehicle_status")["vehicles"]
    assert snap.vehicles.ids == tuple(v["vehicle_id"] for v in raw)
    assert set(snap.vehicles.form_factor) == {"MOPED"}
    assert set(snap.vehicles.propulsion) == {"ELECTRIC"}
    assert snap.vehicles.current_range_m.tolist() == [v["current_range_meters"] for v in raw]
    assert snap.vehicles.available_mask().tolist() == [
        not (v["is_reserved"] or v["is_disabled"]) for v in raw
    ]
    feats = _doc(folder, "geofencing_zones")["geofencing_zones"]["features"]
    with_geometry = [f for f in feats if f["geometry"]]
    assert len(snap.zones) == len(with_geometry) == 14
    assert sum("has no (Multi)Polygon" in m.message for m in snap.messages) == 2
    # the global rule of the feed: nothing starts or ends outside a zone
    assert (snap.zones.global_rules[0].ride_start_allowed, len(snap.zones.global_rules)) == (
        False,
        1,
    )
    rng = np.random.default_rng(7)
    shapes = [shapely.geometry.shape(f["geometry"]) for f in with_geometry]
    for zone, shape in zip(snap.zones.zones, shapes, strict=True):
        x0, y0, x1, y1 = shape.bounds
        inner = shape.representative_point()  # one point surely inside, the rest at random
        lon = np.append(rng.uniform(x0, x1, 200), inner.x)
        lat = np.append(rng.uniform(y0, y1, 200), inner.y)
        points = [shapely.geometry.Point(a, b) for a, b in zip(lon, lat, strict=True)]
        expected = [shape.contains(p) for p in points]
        assert zone.contains(lat, lon).tolist() == expected
        assert expected[-1]
    # the rule in force: the first zone containing the point, else the global rule
    first = shapes[0].representative_point()
    tid = "check_moped_almere_60"
    rule = snap.zones.rules_at([first.y], [first.x], tid)[0]
    owner = next(z for z, s in zip(snap.zones.zones, shapes, strict=True) if s.contains(first))
    assert rule == owner.rules[0]
    far = snap.zones.rules_at([0.5], [0.5], tid)[0]
    assert far == snap.zones.global_rules[0]
    assert snap.zones.mask([0.5], [0.5], "ride_through_allowed", tid).tolist() == [True]


def test_v2_geofencing_ride_allowed() -> None:
    snap = load_gbfs(require_data("extras", "gbfs", "tieroslo"), kind="vehicle-rental")
    assert len(snap.zones) == 2
    rule = snap.zones.zones[0].rules[0]
    assert rule.vehicle_type_ids == (
        "YTI:VehicleType:escooter_oslo",
        "YTI:VehicleType:ebicycle_oslo",
    )
    assert (rule.ride_allowed, rule.ride_through_allowed) == (True, True)
    assert snap.zones.zones[0].name == "OSLO Summer 2021"
    assert [m.message for m in snap.messages] == [
        "the feed lists neither stations nor free-floating vehicles"
    ]


# -- bad input --------------------------------------------------------------------------
def _copy(sample: str, tmp_path: Path) -> Path:
    dest = tmp_path / sample.replace("/", "_")
    shutil.copytree(require_data("extras", "gbfs", sample), dest)
    return dest


def test_missing_and_malformed_files_give_clear_entries(tmp_path: Path) -> None:
    folder = _copy("lillestrombysykkel", tmp_path)
    (folder / "station_status.json").unlink()
    (folder / "vehicle_types.json").write_text("{not json", encoding="utf-8")
    snap = load_gbfs(folder)
    errors = [(m.level, m.file) for m in snap.messages]
    assert ("error", "station_status") in errors
    assert ("warning", "vehicle_types") in errors
    status_msg = next(m.message for m in snap.messages if m.file == "station_status")
    assert status_msg.startswith("cannot be read (")
    vt_msg = next(m.message for m in snap.messages if m.file == "vehicle_types")
    assert "is not JSON" in vt_msg
    # stations are still listed, their availability unknown
    assert len(snap.stations) == 6
    assert set(snap.stations.vehicles_available.tolist()) == {-1}


def test_broken_gbfs_json_raises(tmp_path: Path) -> None:
    folder = _copy("helsinki", tmp_path)
    (folder / "gbfs.json").write_text("[]", encoding="utf-8")
    with pytest.raises(GbfsError, match="not a JSON object"):
        load_gbfs(folder)
    (folder / "gbfs.json").write_text('{"data": {}}', encoding="utf-8")
    with pytest.raises(GbfsError, match="lists no feeds"):
        load_gbfs(folder)
    (folder / "gbfs.json").unlink()
    with pytest.raises(GbfsError, match="cannot be read"):
        load_gbfs(folder)


def test_station_at_zero_zero_is_skipped_and_reported(tmp_path: Path) -> None:
    folder = _copy("duplicate-stations-v2", tmp_path)
    path = folder / "station_information.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["data"]["stations"][2].update(lat=0.0, lon=0.0)
    path.write_text(json.dumps(doc), encoding="utf-8")
    snap = load_gbfs(folder)
    assert snap.stations.ids == ("station_1", "station_duplicate")
    assert "station 'station_3' is at 0,0 (no real position): skipped" in [
        m.message for m in snap.messages
    ]


def test_language_choice_and_unknown_kind(tmp_path: Path) -> None:
    snap = load_gbfs(require_data("extras", "gbfs", "lillestrombysykkel"), language="nb")
    assert snap.system.name == "Lillestrøm bysykkel"
    with pytest.raises(ValueError, match="kind must be one of"):
        load_gbfs(require_data("extras", "gbfs", "helsinki"), kind="boat-rental")
    # the newest last_updated of the files read (system_information's, 1631517912)
    assert load_gbfs(require_data("extras", "gbfs", "helsinki")).last_updated == 1631517912.0


def test_v2_free_bike_status_keeps_floating_bikes_only(tmp_path: Path) -> None:
    """A v2.2 feed written here: docked bikes count at their station, not as floating ones."""
    folder = tmp_path / "v2"
    folder.mkdir()

    def write(name: str, data: Any) -> None:
        doc = {"last_updated": 1700000000, "ttl": 0, "version": "2.2", "data": data}
        (folder / f"{name}.json").write_text(json.dumps(doc), encoding="utf-8")

    names = ["system_information", "vehicle_types", "free_bike_status"]
    write("gbfs", {"de": {"feeds": [{"name": n, "url": f"{n}.json"} for n in names]}})
    write("system_information", {"system_id": "v2x", "language": "de", "name": "V2"})
    write(
        "vehicle_types",
        {
            "vehicle_types": [
                {
                    "vehicle_type_id": "s",
                    "form_factor": "scooter_standing",
                    "propulsion_type": "electric",
                }
            ]
        },
    )
    bikes = [
        {"bike_id": "a", "lat": 49.4, "lon": 8.6, "vehicle_type_id": "s", "is_reserved": 0},
        {"bike_id": "b", "lat": 49.5, "lon": 8.7, "is_reserved": 1, "is_disabled": 0},
        {"bike_id": "c", "lat": 49.5, "lon": 8.7, "station_id": "st-1"},
        {"bike_id": "d", "lat": 0, "lon": 0},
        {"bike_id": "e", "lat": 49.6, "lon": 8.8, "vehicle_type_id": "nope"},
    ]
    write("free_bike_status", {"bikes": bikes})
    snap = load_gbfs(folder, kind="vehicle-rental", network="mine")
    v = snap.vehicles
    assert (snap.network, snap.version, v.ids) == ("mine", "2.2", ("a", "b", "e"))
    assert v.form_factor == ("SCOOTER_STANDING", "SCOOTER", "SCOOTER")
    assert v.available_mask().tolist() == [True, False, True]
    assert set(v.network) == {"mine"}
    text = [m.message for m in snap.messages]
    assert "vehicle 'd' is at 0,0 (no real position): skipped" in text
    assert "vehicle 'e' has unknown vehicle_type_id 'nope'" in text
