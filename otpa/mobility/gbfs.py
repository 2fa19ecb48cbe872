"""GBFS v1, v2.x and v3 feeds -> :class:`~otpa.mobility.model.RentalSnapshot`.

Reading a feed has two steps:

* :func:`discover` reads the auto-discovery file ``gbfs.json`` (feeds keyed by language
  in v1/v2, one list in v3) and fetches every file it lists that this module uses
  (``system_information``, ``station_information``, ``station_status``,
  ``free_bike_status`` / ``vehicle_status``, ``vehicle_types``, ``geofencing_zones``,
  ``system_pricing_plans``);
* :func:`parse_gbfs` turns those files (bytes, or the reason they could not be read)
  into a snapshot, with a :class:`~otpa.mobility.model.FeedMessage` for every problem:
  a missing or malformed file, a duplicate station id (the first is kept), a station or
  vehicle at 0,0 or without a valid position (skipped), a status for an unknown station.

A listed URL is used as written; where it cannot be used as such (a ``file:`` URL that
does not exist here, as in feeds copied from another machine), the file of the same
name next to ``gbfs.json`` is read instead.  :func:`load_gbfs` does both steps;
:func:`rental_applier` is the apply function of a ``bike-rental`` / ``vehicle-rental`` /
``car-rental`` updater (:mod:`otpa.updaters`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import math
import urllib.parse
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from otpa.errors import InvalidArgumentError, OtpaError
from otpa.mobility.model import (
    FeedMessage,
    FreeVehicles,
    GeofencingZone,
    GeofencingZones,
    PricingPlan,
    RentalSnapshot,
    RentalStations,
    SystemInformation,
    VehicleTypes,
    ZoneRule,
)
from otpa.updaters import ApplyReport, UpdaterConfig, fetch_source

__all__ = [
    "GBFS_FILES",
    "RENTAL_UPDATER_TYPES",
    "GbfsError",
    "discover",
    "dropoff_region",
    "load_gbfs",
    "parse_gbfs",
    "rental_applier",
]

#: The GBFS files this module reads (others listed in ``gbfs.json`` are ignored).
GBFS_FILES = (
    "system_information",
    "station_information",
    "station_status",
    "free_bike_status",
    "vehicle_status",
    "vehicle_types",
    "geofencing_zones",
    "system_pricing_plans",
)

#: The updater types that read GBFS, with the form factor of a vehicle without a type.
RENTAL_UPDATER_TYPES: Mapping[str, str] = {
    "bike-rental": "BICYCLE",
    "vehicle-rental": "SCOOTER",
    "car-rental": "CAR",
}

#: Messages an updater's status lists at most.
_MAX_MESSAGES = 20


class GbfsError(ValueError, OtpaError):
    """A GBFS feed that cannot be used at all (``gbfs.json`` unreadable, a core file broken)."""


Fetch = Callable[[UpdaterConfig], bytes]
#: A file's bytes, or why it could not be read.
FileResult = bytes | str


# -- discovery ------------------------------------------------------------------------------
def _json_doc(data: bytes, what: str) -> dict[str, Any]:
    try:
        doc = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        msg = f"{what} is not JSON: {exc}"
        raise GbfsError(msg) from exc
    if not isinstance(doc, dict):
        msg = f"{what} is not a JSON object"
        raise GbfsError(msg)
    return doc


def _feed_urls(doc: Mapping[str, Any], language: str | None) -> dict[str, str]:
    """``name -> url`` of a ``gbfs.json`` document (v3: one list; v1/v2: by language)."""
    data = doc.get("data")
    if not isinstance(data, Mapping):
        msg = "gbfs.json has no 'data' object"
        raise GbfsError(msg)
    feeds: Any = data.get("feeds")
    if feeds is None:  # v1/v2: {"en": {"feeds": [...]}, ...}
        langs = [k for k, v in data.items() if isinstance(v, Mapping) and "feeds" in v]
        if not langs:
            msg = "gbfs.json lists no feeds (neither data.feeds nor data.<language>.feeds)"
            raise GbfsError(msg)
        lang = language if language in langs else ("en" if "en" in langs else langs[0])
        feeds = data[lang]["feeds"]
    if not isinstance(feeds, list):
        msg = "gbfs.json: feeds is not a list"
        raise GbfsError(msg)
    out: dict[str, str] = {}
    for f in feeds:
        if not isinstance(f, Mapping):
            continue
        name, url = f.get("name"), f.get("url")
        if isinstance(name, str) and isinstance(url, str):
            out.setdefault(name, url)
    return out


def _locate(url: str, config: UpdaterConfig) -> list[UpdaterConfig]:
    """Where to read a listed file: as written, then the same name next to gbfs.json."""
    out: list[UpdaterConfig] = []
    parsed = urllib.parse.urlparse(url)
    name = Path(parsed.path).name
    if parsed.scheme in ("http", "https"):
        out.append(dataclasses.replace(config, url=url, file=None))
    elif parsed.scheme == "file" or not parsed.scheme:
        p = Path(urllib.parse.unquote(parsed.path))
        if p.is_absolute() and p.is_file():
            out.append(dataclasses.replace(config, url=None, file=p))
    if config.file is not None:
        here = config.file.parent / name
        if not any(c.file == here for c in out):
            out.append(dataclasses.replace(config, url=None, file=here))
    elif config.url is not None and not out:
        out.append(dataclasses.replace(config, url=urllib.parse.urljoin(config.url, name)))
    return out


def discover(
    config: UpdaterConfig,
    gbfs_json: bytes | None = None,
    *,
    fetch: Fetch = fetch_source,
    language: str | None = None,
) -> dict[str, FileResult]:
    """Read ``gbfs.json`` and fetch the files it lists.

    Parameters
    ----------
    config
        The updater (its ``url`` or ``file`` is ``gbfs.json``; a folder means its ``gbfs.json``).
    gbfs_json
        Its bytes when already fetched.
    fetch
        How one file is read (default: file or HTTP, :func:`otpa.updaters.fetch_source`).
    language
        The language of a v1/v2 feed to use (default: ``en`` when offered, else the first).

    Returns
    -------
    dict
        Per file name of :data:`GBFS_FILES` that ``gbfs.json`` lists: its bytes, or a
        string saying why it could not be read.

    Raises
    ------
    GbfsError
        ``gbfs.json`` cannot be read or lists no feeds.
    """
    if config.file is not None and config.file.is_dir():
        config = dataclasses.replace(config, file=config.file / "gbfs.json")
    if gbfs_json is None:
        try:
            gbfs_json = fetch(config)
        except OSError as exc:
            msg = f"gbfs.json cannot be read from {config.source}: {exc}"
            raise GbfsError(msg) from exc
    urls = _feed_urls(_json_doc(gbfs_json, "gbfs.json"), language)
    out: dict[str, FileResult] = {}
    for name in GBFS_FILES:
        if name not in urls:
            continue
        errors = []
        for where in _locate(urls[name], config):
            try:
                out[name] = fetch(where)
                break
            except OSError as exc:
                errors.append(f"{where.source}: {exc}")
        else:
            out[name] = "cannot be read (" + "; ".join(errors or [urls[name]]) + ")"
    out["gbfs"] = gbfs_json
    return out


# -- field helpers --------------------------------------------------------------------------
def _text(value: Any, language: str | None) -> str | None:
    """A plain string, or the best entry of a v3 localized list."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        texts = [v for v in value if isinstance(v, Mapping) and isinstance(v.get("text"), str)]
        for v in texts:
            if language is not None and v.get("language") == language:
                return str(v["text"])
        return str(texts[0]["text"]) if texts else None
    return str(value)


def _flag(row: Mapping[str, Any], *keys: str, default: bool = True) -> bool:
    for k in keys:
        if k in row and row[k] is not None:
            v = row[k]
            if isinstance(v, str):
                return v.strip().lower() in ("1", "true", "yes")
            return bool(v)
    return default


def _count(row: Mapping[str, Any], *keys: str) -> int:
    for k in keys:
        v = row.get(k)
        if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v):
            return max(int(v), 0)
    return -1


def _number(v: Any) -> float | None:
    if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v):
        return float(v)
    if isinstance(v, str):
        try:
            f = float(v)
        except ValueError:
            return None
        return f if math.isfinite(f) else None
    return None


def _epoch(v: Any) -> float:
    num = _number(v)
    if num is not None:
        return num
    if isinstance(v, str):  # v3: RFC 3339
        try:
            return dt.datetime.fromisoformat(v.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return 0.0
    return 0.0


def _upper(v: Any, default: str) -> str:
    return str(v).strip().upper() if isinstance(v, str) and v.strip() else default


class _Reader:
    """Collects the messages of one parse."""

    def __init__(self, files: Mapping[str, FileResult]) -> None:
        self.files = files
        self.messages: list[FeedMessage] = []
        self.skipped = 0
        self.last_updated = 0.0
        self.version: str | None = None

    def note(self, level: str, file: str, message: str) -> None:
        self.messages.append(FeedMessage(level, file, message))

    def data(self, name: str, key: str, *, core: bool) -> Any:
        """``data[key]`` of a file, or None (a message says why) when absent or broken."""
        raw = self.files.get(name)
        if raw is None:
            return None
        level = "error" if core else "warning"
        if isinstance(raw, str):
            self.note(level, name, raw)
            return None
        try:
            doc = _json_doc(raw, f"{name}.json")
        except GbfsError as exc:
            self.note(level, name, str(exc))
            return None
        self.last_updated = max(self.last_updated, _epoch(doc.get("last_updated")))
        if self.version is None and isinstance(doc.get("version"), str):
            self.version = doc["version"]
        data = doc.get("data")
        value = data.get(key) if isinstance(data, Mapping) else None
        if key == "" and isinstance(data, Mapping):
            value = data
        if value is None:
            self.note(level, name, f"has no data.{key}" if key else "has no data object")
        return value

    def position(self, row: Mapping[str, Any], file: str, what: str) -> tuple[float, float] | None:
        lat, lon = _number(row.get("lat")), _number(row.get("lon"))
        if lat is None or lon is None or not (-90 <= lat <= 90 and -180 <= lon <= 180):
            self.note("warning", file, f"{what} has no valid position (lat={row.get('lat')!r}, "
                      f"lon={row.get('lon')!r}): skipped")
            self.skipped += 1
            return None
        if lat == 0.0 and lon == 0.0:
            self.note("warning", file, f"{what} is at 0,0 (no real position): skipped")
            self.skipped += 1
            return None
        return lat, lon


# -- the files ------------------------------------------------------------------------------
def _system(r: _Reader, network: str | None, language: str | None) -> SystemInformation:
    data = r.data("system_information", "", core=False)
    if "system_information" not in r.files:
        r.note("warning", "system_information", "not listed in gbfs.json")
    d: Mapping[str, Any] = data if isinstance(data, Mapping) else {}
    system_id = d.get("system_id")
    sid = str(system_id) if system_id is not None else (network or "gbfs")
    return SystemInformation(
        system_id=sid,
        name=_text(d.get("name"), language) or sid,
        operator=_text(d.get("operator"), language),
        timezone=d.get("timezone") if isinstance(d.get("timezone"), str) else None,
        language=d.get("language") if isinstance(d.get("language"), str) else language,
        url=d.get("url") if isinstance(d.get("url"), str) else None,
    )


def _vehicle_types(r: _Reader, language: str | None) -> VehicleTypes:
    rows = r.data("vehicle_types", "vehicle_types", core=False)
    if not isinstance(rows, list):
        return VehicleTypes()
    ids, names, ff, prop, rng = [], [], [], [], []
    seen: set[str] = set()
    for row in rows:
        if not isinstance(row, Mapping) or row.get("vehicle_type_id") is None:
            r.note("warning", "vehicle_types", "a vehicle type without vehicle_type_id: skipped")
            continue
        tid = str(row["vehicle_type_id"])
        if tid in seen:
            r.note("warning", "vehicle_types", f"duplicate vehicle_type_id {tid!r}: kept the first")
            continue
        seen.add(tid)
        ids.append(tid)
        names.append(_text(row.get("name"), language))
        ff.append(_upper(row.get("form_factor"), "OTHER"))
        prop.append(_upper(row.get("propulsion_type"), "HUMAN"))
        mr = _number(row.get("max_range_meters"))
        rng.append(math.nan if mr is None else mr)
    arr = np.array(rng, dtype=np.float64)
    arr.setflags(write=False)
    return VehicleTypes(tuple(ids), tuple(names), tuple(ff), tuple(prop), arr)


def _status_index(r: _Reader, status: Any) -> dict[str, Mapping[str, Any]]:
    """``station_status`` rows by station id (the first of duplicates)."""
    status_by: dict[str, Mapping[str, Any]] = {}
    if isinstance(status, list):
        for row in status:
            if not isinstance(row, Mapping) or row.get("station_id") is None:
                r.note("warning", "station_status", "a status without station_id: skipped")
                continue
            sid = str(row["station_id"])
            if sid in status_by:
                r.note("warning", "station_status", f"duplicate station_id {sid!r}: kept the first")
                continue
            status_by[sid] = row
    elif "station_information" in r.files and "station_status" not in r.files:
        r.note("warning", "station_status", "not listed: availability unknown")
    return status_by


def _station_types(
    row: Mapping[str, Any], st: Mapping[str, Any]
) -> tuple[dict[str, int], list[str]]:
    """A station's vehicles per type (status) and the types it holds (status and information)."""
    vta = st.get("vehicle_types_available")
    avail: dict[str, int] = {}
    if isinstance(vta, list):
        for v in vta:
            if isinstance(v, Mapping) and v.get("vehicle_type_id") is not None:
                avail[str(v["vehicle_type_id"])] = max(_count(v, "count"), 0)
    type_ids = row.get("vehicle_types_capacity") or row.get("vehicle_type_capacity")
    tids: list[str] = list(avail)
    if isinstance(type_ids, list):
        tids += [str(v.get("vehicle_type_id")) for v in type_ids if isinstance(v, Mapping)]
    elif isinstance(type_ids, Mapping):
        tids += [str(k) for k in type_ids]
    return avail, list(dict.fromkeys(t for t in tids if t and t != "None"))


def _stations(
    r: _Reader, network: str, default_ff: str, types: VehicleTypes, language: str | None
) -> RentalStations:
    info = r.data("station_information", "stations", core=True)
    status = r.data("station_status", "stations", core=True)
    if "station_status" in r.files and "station_information" not in r.files:
        r.note("error", "station_information", "station_status is listed without it")
    if not isinstance(info, list):
        if info is not None:
            r.note("error", "station_information", "data.stations is not a list")
        return RentalStations()
    status_by = _status_index(r, status)
    ff_of = dict(zip(types.ids, types.form_factor, strict=True))
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    for row in info:
        sid = str(row.get("station_id") or "").strip() if isinstance(row, Mapping) else ""
        if not sid:
            r.note("warning", "station_information", "a station without station_id: skipped")
            r.skipped += 1
            continue
        if sid in seen:
            r.note("warning", "station_information", f"duplicate station_id {sid!r}: kept first")
            continue
        pos = r.position(row, "station_information", f"station {sid!r}")
        if pos is None:
            continue
        seen.add(sid)
        if not _text(row.get("name"), language):
            r.note("warning", "station_information", f"station {sid!r} has no name: its id is used")
        st = status_by.get(sid, {})
        avail, tids = _station_types(row, st)
        ffs = [ff_of[t] for t in tids if t in ff_of]
        rows.append(
            {
                "id": sid,
                "name": _text(row.get("name"), language) or sid,
                "network": network,
                "lat": pos[0],
                "lon": pos[1],
                "capacity": _count(row, "capacity"),
                "vehicles_available": _count(st, "num_vehicles_available", "num_bikes_available"),
                "spaces_available": _count(st, "num_docks_available"),
                "is_installed": _flag(st, "is_installed", "installed"),
                "is_renting": _flag(st, "is_renting", "renting"),
                "is_returning": _flag(st, "is_returning", "returning"),
                "real_time": sid in status_by,
                "vehicle_type_ids": tuple(tids),
                "vehicle_types_available": avail,
                "form_factor": ffs[0] if ffs else default_ff,
                "address": _text(row.get("address"), language),
            }
        )
    for sid in status_by:
        if sid not in seen:
            r.note("warning", "station_status", f"status for unknown station {sid!r}: ignored")
    return RentalStations.from_rows(rows)


def _vehicles(r: _Reader, network: str, default_ff: str, types: VehicleTypes) -> FreeVehicles:
    name = "vehicle_status" if "vehicle_status" in r.files else "free_bike_status"
    rows = r.data(name, "vehicles" if name == "vehicle_status" else "bikes", core=True)
    if not isinstance(rows, list):
        if rows is not None:
            r.note("error", name, "the vehicle list is not a list")
        return FreeVehicles()
    index = types.index()
    ids, tids, lat, lon, ff, prop, rng, res, dis = [], [], [], [], [], [], [], [], []
    seen: set[str] = set()
    for row in rows:
        if not isinstance(row, Mapping):
            continue
        vid = row.get("vehicle_id", row.get("bike_id"))
        if vid is None:
            r.note("warning", name, "a vehicle without id: skipped")
            r.skipped += 1
            continue
        vid = str(vid)
        if row.get("station_id") is not None:  # docked: counted at its station
            continue
        if vid in seen:
            r.note("warning", name, f"duplicate vehicle id {vid!r}: kept the first")
            continue
        pos = r.position(row, name, f"vehicle {vid!r}")
        if pos is None:
            continue
        seen.add(vid)
        tid = row.get("vehicle_type_id")
        tid = None if tid is None else str(tid)
        if tid is not None and index and tid not in index:
            r.note("warning", name, f"vehicle {vid!r} has unknown vehicle_type_id {tid!r}")
        i = index.get(tid) if tid is not None else None
        ids.append(vid)
        tids.append(tid)
        lat.append(pos[0])
        lon.append(pos[1])
        ff.append(types.form_factor[i] if i is not None else default_ff)
        prop.append(types.propulsion[i] if i is not None else "HUMAN")
        cr = _number(row.get("current_range_meters"))
        rng.append(math.nan if cr is None else cr)
        res.append(_flag(row, "is_reserved", default=False))
        dis.append(_flag(row, "is_disabled", default=False))

    def ro(a: list[Any], dtype: Any) -> Any:
        arr = np.array(a, dtype=dtype)
        arr.setflags(write=False)
        return arr

    return FreeVehicles(
        ids=tuple(ids),
        network=(network,) * len(ids),
        vehicle_type_id=tuple(tids),
        lat=ro(lat, np.float64),
        lon=ro(lon, np.float64),
        form_factor=tuple(ff),
        propulsion=tuple(prop),
        current_range_m=ro(rng, np.float64),
        is_reserved=ro(res, np.bool_),
        is_disabled=ro(dis, np.bool_),
    )


def _rule(row: Mapping[str, Any]) -> ZoneRule:
    types = row.get("vehicle_type_ids", row.get("vehicle_type_id"))
    tids = tuple(str(t) for t in types) if isinstance(types, list) else ()
    if "ride_allowed" in row and "ride_start_allowed" not in row:  # v2.2/2.3
        start = end = _flag(row, "ride_allowed")
    else:
        start = _flag(row, "ride_start_allowed")
        end = _flag(row, "ride_end_allowed")
    sp = row.get("station_parking")
    return ZoneRule(
        vehicle_type_ids=tids,
        ride_start_allowed=start,
        ride_end_allowed=end,
        ride_through_allowed=_flag(row, "ride_through_allowed"),
        maximum_speed_kph=_number(row.get("maximum_speed_kph")),
        station_parking=None if sp is None else bool(sp),
    )


def _rings(coords: Any) -> tuple[np.ndarray, ...] | None:
    if not isinstance(coords, list) or not coords:
        return None
    out = []
    for ring in coords:
        arr = np.asarray(ring, dtype=np.float64)
        if arr.ndim != 2 or arr.shape[0] < 3 or arr.shape[1] < 2:
            return None
        arr = arr[:, :2]
        if not np.array_equal(arr[0], arr[-1]):
            arr = np.vstack([arr, arr[:1]])
        arr.setflags(write=False)
        out.append(arr)
    return tuple(out)


def _zones(r: _Reader, language: str | None) -> GeofencingZones:
    data = r.data("geofencing_zones", "", core=False)
    if not isinstance(data, Mapping):
        return GeofencingZones()
    fc = data.get("geofencing_zones")
    features = fc.get("features") if isinstance(fc, Mapping) else None
    if not isinstance(features, list):
        r.note("warning", "geofencing_zones", "no geofencing_zones FeatureCollection")
        features = []
    zones = []
    for k, feat in enumerate(features):
        geom = feat.get("geometry") if isinstance(feat, Mapping) else None
        props = feat.get("properties") if isinstance(feat, Mapping) else None
        props = props if isinstance(props, Mapping) else {}
        gtype = geom.get("type") if isinstance(geom, Mapping) else None
        coords = geom.get("coordinates") if isinstance(geom, Mapping) else None
        polys_raw = {"Polygon": [coords], "MultiPolygon": coords}.get(str(gtype))
        polys = [_rings(p) for p in polys_raw] if isinstance(polys_raw, list) else [None]
        if not polys or any(p is None for p in polys):
            zname = _text(props.get("name"), language) or ""
            msg = f"zone {k} {zname!r} has no (Multi)Polygon: skipped"
            r.note("warning", "geofencing_zones", msg)
            continue
        rings = [p for p in polys if p is not None]
        allpts = np.vstack([ring for p in rings for ring in p])
        bbox = (
            float(allpts[:, 0].min()),
            float(allpts[:, 1].min()),
            float(allpts[:, 0].max()),
            float(allpts[:, 1].max()),
        )
        rules = props.get("rules")
        zones.append(
            GeofencingZone(
                name=_text(props.get("name"), language) or "",
                polygons=tuple(rings),
                rules=tuple(_rule(x) for x in rules if isinstance(x, Mapping))
                if isinstance(rules, list)
                else (),
                bbox=bbox,
            )
        )
    glob = data.get("global_rules")
    global_rules = (
        tuple(_rule(x) for x in glob if isinstance(x, Mapping)) if isinstance(glob, list) else ()
    )
    return GeofencingZones(tuple(zones), global_rules)


def _segments(v: Any) -> tuple[tuple[float, float, float, float | None], ...]:
    out = []
    if isinstance(v, list):
        for s in v:
            if isinstance(s, Mapping):
                out.append(
                    (
                        _number(s.get("start")) or 0.0,
                        _number(s.get("rate")) or 0.0,
                        _number(s.get("interval")) or 0.0,
                        _number(s.get("end")),
                    )
                )
    return tuple(out)


def _pricing(r: _Reader, language: str | None) -> tuple[PricingPlan, ...]:
    rows = r.data("system_pricing_plans", "plans", core=False)
    if not isinstance(rows, list):
        return ()
    out = []
    for row in rows:
        if not isinstance(row, Mapping) or row.get("plan_id") is None:
            r.note("warning", "system_pricing_plans", "a plan without plan_id: skipped")
            continue
        out.append(
            PricingPlan(
                plan_id=str(row["plan_id"]),
                name=_text(row.get("name"), language) or str(row["plan_id"]),
                currency=str(row.get("currency") or ""),
                price=_number(row.get("price")) or 0.0,
                is_taxable=_flag(row, "is_taxable", default=False),
                description=_text(row.get("description"), language) or "",
                per_min=_segments(row.get("per_min_pricing")),
                per_km=_segments(row.get("per_km_pricing")),
            )
        )
    return tuple(out)


# -- entry points ---------------------------------------------------------------------------
def parse_gbfs(
    files: Mapping[str, FileResult],
    *,
    kind: str = "bike-rental",
    network: str | None = None,
    language: str | None = None,
) -> RentalSnapshot:
    """A snapshot of a feed's files.

    Parameters
    ----------
    files
        Per GBFS file name (``station_information``...): its bytes, or why it could not be
        read (as :func:`discover` returns); ``gbfs`` may hold ``gbfs.json`` for its version.
    kind
        The updater type (``bike-rental``, ``vehicle-rental``, ``car-rental``): the form
        factor of stations and vehicles whose type the feed does not give.
    network
        Network name (default: the feed's ``system_id``).
    language
        Preferred language of v3 localized texts.

    Returns
    -------
    RentalSnapshot
        Its ``messages`` list every problem (level ``error`` for a station or vehicle file
        that could not be read, ``warning`` for the rest).
    """
    if kind not in RENTAL_UPDATER_TYPES:
        msg = f"kind must be one of {', '.join(RENTAL_UPDATER_TYPES)}, got {kind!r}"
        raise InvalidArgumentError(msg)
    default_ff = RENTAL_UPDATER_TYPES[kind]
    r = _Reader(files)
    gbfs_raw = files.get("gbfs")
    if isinstance(gbfs_raw, bytes):
        try:
            v = _json_doc(gbfs_raw, "gbfs.json").get("version")
            r.version = v if isinstance(v, str) else None
        except GbfsError:
            pass
    system = _system(r, network, language)
    name = network or system.system_id
    types = _vehicle_types(r, language)
    stations = _stations(r, name, default_ff, types, language)
    vehicles = (
        _vehicles(r, name, default_ff, types)
        if ("vehicle_status" in files or "free_bike_status" in files)
        else FreeVehicles()
    )
    if not any(k in files for k in ("station_information", "vehicle_status", "free_bike_status")):
        r.note("warning", "gbfs", "the feed lists neither stations nor free-floating vehicles")
    zones = _zones(r, language)
    plans = _pricing(r, language)
    return RentalSnapshot(
        network=name,
        kind=kind,
        system=system,
        stations=stations,
        vehicles=vehicles,
        vehicle_types=types,
        zones=zones,
        pricing_plans=plans,
        version=r.version or "1.0",
        last_updated=r.last_updated,
        messages=tuple(r.messages),
    )


def load_gbfs(
    source: str | Path,
    *,
    kind: str = "bike-rental",
    network: str | None = None,
    language: str | None = None,
) -> RentalSnapshot:
    """Read a GBFS feed from its ``gbfs.json`` (a path, a folder holding it, or an http(s) URL).

    Raises
    ------
    GbfsError
        ``gbfs.json`` cannot be read or lists no feeds (problems with the other files are
        the snapshot's ``messages``).
    """
    text = str(source)
    is_url = text.lower().startswith(("http://", "https://"))
    config = UpdaterConfig(
        index=0,
        type=kind,
        source_type="gbfs",
        url=text if is_url else None,
        file=None if is_url else Path(text),
        frequency_s=0.0,
        feed_id=None,
        network=network,
    )
    files = discover(config, language=language)
    return parse_gbfs(files, kind=kind, network=network, language=language)


def snapshot_report(snapshot: RentalSnapshot, version: int) -> ApplyReport:
    """What an updater's status shows of a snapshot it published."""
    st = snapshot.stations
    counts = {
        "stations": len(st),
        "vehicles": len(snapshot.vehicles),
        "vehicleTypes": len(snapshot.vehicle_types),
        "geofencingZones": len(snapshot.zones),
        "pricingPlans": len(snapshot.pricing_plans),
        "vehiclesAtStations": int(np.maximum(st.vehicles_available, 0).sum()),
        "warnings": sum(m.level == "warning" for m in snapshot.messages),
    }
    return ApplyReport(
        applied=len(st) + len(snapshot.vehicles),
        unmatched=0,
        invalid=sum("skipped" in m.message for m in snapshot.messages),
        details=counts,
        messages=tuple(str(m) for m in snapshot.messages[:_MAX_MESSAGES]),
        snapshot=version,
    )


def dropoff_region(geojson: Any, where: str = "regionsGeoJson") -> GeofencingZone:
    """The ibi fork's ``regionsGeoJson``: where a network's vehicles may be left.

    OTP 1.x (ibi) reads it from a rental updater's configuration, a GeoJSON ``Feature`` or
    ``FeatureCollection`` of (Multi)Polygons; a free-floating vehicle is only left inside
    (``VehicleRentalRegion``: "vehicles are only allowed to be dropped off within the
    operation region").  Without it, everywhere.

    Raises
    ------
    GbfsError
        Not a Feature or FeatureCollection of (Multi)Polygons.
    """
    if isinstance(geojson, Mapping) and geojson.get("type") == "Feature":
        features: Any = [geojson]
    elif isinstance(geojson, Mapping) and geojson.get("type") == "FeatureCollection":
        features = geojson.get("features")
    else:
        features = None
    if not isinstance(features, list) or not features:
        msg = f"{where}: a GeoJSON Feature or FeatureCollection of (Multi)Polygons is needed"
        raise GbfsError(msg)
    rings: list[tuple[np.ndarray, ...]] = []
    for k, feat in enumerate(features):
        geom = feat.get("geometry") if isinstance(feat, Mapping) else None
        gtype = geom.get("type") if isinstance(geom, Mapping) else None
        coords = geom.get("coordinates") if isinstance(geom, Mapping) else None
        raw = {"Polygon": [coords], "MultiPolygon": coords}.get(str(gtype))
        polys = [_rings(c) for c in raw] if isinstance(raw, list) and raw else [None]
        if any(poly is None for poly in polys):
            msg = f"{where}: feature {k} is not a (Multi)Polygon"
            raise GbfsError(msg)
        rings.extend(poly for poly in polys if poly is not None)
    pts = np.vstack([ring for poly in rings for ring in poly])
    bbox = (float(pts[:, 0].min()), float(pts[:, 1].min()),
            float(pts[:, 0].max()), float(pts[:, 1].max()))  # fmt: skip
    return GeofencingZone(name="region", polygons=tuple(rings), rules=(), bbox=bbox)


def rental_applier(
    publish: Callable[[RentalSnapshot], int],
    config: UpdaterConfig,
    *,
    fetch: Fetch = fetch_source,
) -> Callable[[bytes], ApplyReport]:
    """The apply function of a GBFS rental updater.

    It gets the bytes of ``gbfs.json`` (the updater's ``url``/``file``), fetches the files
    it lists, parses them and calls ``publish`` with the snapshot (which returns the
    published state's version).  A feed whose station or vehicle files cannot be read
    raises :class:`GbfsError` before publishing, so the last good snapshot keeps serving
    and the updater's status shows the error.

    Parameters
    ----------
    publish
        Swaps the snapshot in (e.g. ``lambda s: store.publish(key, s).version``).
    config
        The updater: ``type``, ``network``, ``language`` and ``regionsGeoJson`` (``raw``,
        :func:`dropoff_region`) are used.
    fetch
        How each listed file is read.
    """
    if config.type not in RENTAL_UPDATER_TYPES:
        msg = f"not a rental updater type: {config.type!r}"
        raise InvalidArgumentError(msg)
    lang = config.raw.get("language") if isinstance(config.raw.get("language"), str) else None
    region = config.raw.get("regionsGeoJson")

    def apply(data: bytes) -> ApplyReport:
        files = discover(config, data, fetch=fetch, language=lang)
        snap = parse_gbfs(files, kind=config.type, network=config.network, language=lang)
        if region is not None:  # the ibi fork's drop-off region of the network
            snap = dataclasses.replace(snap, dropoff_region=dropoff_region(region))
        errors = [m for m in snap.messages if m.level == "error"]
        if errors:
            msg = "; ".join(f"{m.file}: {m.message}" for m in errors[:5])
            raise GbfsError(msg)
        return snapshot_report(snap, publish(snap))

    return apply
