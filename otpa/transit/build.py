"""Build a :class:`~otpa.transit.model.TransitModel` from parsed GTFS feeds."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from otpa.errors import InvalidArgumentError
from otpa.transit.model import TransitModel
from otpa.transit.modes import modes_for_route_types
from otpa.transit.patterns import patterns_of

if TYPE_CHECKING:
    from otpa.gtfs import GtfsFeed

__all__ = ["build_transit_model", "empty_transit_model"]


def _scope(feed_id: str, ids: pd.Series[Any]) -> pd.Series[Any]:
    out = feed_id + ":" + ids.astype("string")
    return out.where(ids.notna(), pd.NA).astype("string")


def _col(frame: pd.DataFrame, name: str, default: Any = pd.NA) -> pd.Series[Any]:
    if name in frame.columns:
        return frame[name]
    return pd.Series([default] * len(frame), index=frame.index, dtype=object)


def _text(frame: pd.DataFrame, name: str) -> pd.Series[Any]:
    return _col(frame, name).astype("string")


def _int(frame: pd.DataFrame, name: str, default: int) -> pd.Series[Any]:
    col = pd.to_numeric(_col(frame, name, default), errors="coerce")
    return col.fillna(default).astype(np.int64)


def _index_of(keys: pd.Series[Any], universe: pd.Series[Any]) -> np.ndarray:
    """Positions of ``keys`` in ``universe`` (-1 where absent)."""
    lookup = pd.Index(universe.astype("string"))
    return np.asarray(lookup.get_indexer(keys.astype("string")), dtype=np.int64)


def _service_matrix(
    feeds: Sequence[GtfsFeed],
) -> tuple[list[str], int, np.ndarray]:
    cals = [(f.feed_id, f.service_calendar()) for f in feeds]
    firsts = [c.first_date.toordinal() for _, c in cals if len(c.service_ids)]
    if not firsts:
        return [], dt.date(2000, 1, 1).toordinal(), np.zeros((0, 0), dtype=bool)
    first = min(firsts)
    last = max(
        c.first_date.toordinal() + c.active.shape[1] - 1 for _, c in cals if len(c.service_ids)
    )
    ids: list[str] = []
    rows: list[np.ndarray] = []
    for feed_id, cal in cals:
        for i, sid in enumerate(cal.service_ids):
            row = np.zeros(last - first + 1, dtype=bool)
            off = cal.first_date.toordinal() - first
            row[off : off + cal.active.shape[1]] = cal.active[i]
            ids.append(f"{feed_id}:{sid}")
            rows.append(row)
    matrix = np.vstack(rows) if rows else np.zeros((0, last - first + 1), dtype=bool)
    return ids, first, matrix


def _entities(feeds: Sequence[GtfsFeed]) -> dict[str, pd.DataFrame]:
    feed_rows, agencies, stops, routes, trips = [], [], [], [], []
    for fi, feed in enumerate(feeds):
        fid = feed.feed_id
        info = feed.feed_info
        feed_rows.append(
            {
                "feed_id": fid,
                "path": str(feed.path),
                "publisher_name": None if info.empty else _first(info, "feed_publisher_name"),
                "version": None if info.empty else _first(info, "feed_version"),
            }
        )
        a = feed.agency
        agencies.append(
            pd.DataFrame(
                {
                    "agency_id": _scope(fid, _text(a, "agency_id")),
                    "feed": fi,
                    "raw_id": _text(a, "agency_id"),
                    "name": _text(a, "agency_name"),
                    "url": _text(a, "agency_url"),
                    "timezone": _text(a, "agency_timezone"),
                    "lang": _text(a, "agency_lang"),
                    "phone": _text(a, "agency_phone"),
                    "fare_url": _text(a, "agency_fare_url"),
                }
            )
        )
        s = feed.stops
        stops.append(
            pd.DataFrame(
                {
                    "stop_id": _scope(fid, _text(s, "stop_id")),
                    "feed": fi,
                    "raw_id": _text(s, "stop_id"),
                    "code": _text(s, "stop_code"),
                    "name": _text(s, "stop_name"),
                    "desc": _text(s, "stop_desc"),
                    "lat": pd.to_numeric(_col(s, "stop_lat"), errors="coerce").astype(float),
                    "lon": pd.to_numeric(_col(s, "stop_lon"), errors="coerce").astype(float),
                    "zone_id": _text(s, "zone_id"),
                    "url": _text(s, "stop_url"),
                    "location_type": _int(s, "location_type", 0).astype(np.int8),
                    "parent_station": _scope(fid, _text(s, "parent_station")),
                    "wheelchair_boarding": _int(s, "wheelchair_boarding", 0).astype(np.int8),
                    "platform_code": _text(s, "platform_code"),
                    "timezone": _text(s, "stop_timezone"),
                }
            )
        )
        r = feed.routes
        routes.append(
            pd.DataFrame(
                {
                    "route_id": _scope(fid, _text(r, "route_id")),
                    "feed": fi,
                    "raw_id": _text(r, "route_id"),
                    "agency_id": _scope(fid, _text(r, "agency_id")),
                    "short_name": _text(r, "route_short_name"),
                    "long_name": _text(r, "route_long_name"),
                    "desc": _text(r, "route_desc"),
                    "route_type": _int(r, "route_type", 3).astype(np.int32),
                    "url": _text(r, "route_url"),
                    "color": _text(r, "route_color"),
                    "text_color": _text(r, "route_text_color"),
                    "sort_order": _int(r, "route_sort_order", -1).astype(np.int32),
                }
            )
        )
        t = feed.trips
        trips.append(
            pd.DataFrame(
                {
                    "trip_id": _scope(fid, _text(t, "trip_id")),
                    "feed": fi,
                    "raw_id": _text(t, "trip_id"),
                    "route_id": _scope(fid, _text(t, "route_id")),
                    "service_id": _scope(fid, _text(t, "service_id")),
                    "headsign": _text(t, "trip_headsign"),
                    "short_name": _text(t, "trip_short_name"),
                    "direction_id": _int(t, "direction_id", -1).astype(np.int8),
                    "block_id": _text(t, "block_id"),
                    "shape_id": _scope(fid, _text(t, "shape_id")),
                    "wheelchair_accessible": _int(t, "wheelchair_accessible", 0).astype(np.int8),
                    "bikes_allowed": _int(t, "bikes_allowed", 0).astype(np.int8),
                    "frequency_headway_s": _int(t, "frequency_headway_s", 0).astype(np.int32),
                    "exact_times": _int(t, "exact_times", 0).astype(np.int8),
                    "template_trip_id": _scope(fid, _text(t, "template_trip_id")),
                }
            )
        )
    return {
        "feeds": pd.DataFrame(feed_rows, columns=["feed_id", "path", "publisher_name", "version"]),
        "agencies": pd.concat(agencies, ignore_index=True),
        "stops": pd.concat(stops, ignore_index=True),
        "routes": pd.concat(routes, ignore_index=True),
        "trips": pd.concat(trips, ignore_index=True),
    }


def _first(frame: pd.DataFrame, column: str) -> str | None:
    if column not in frame.columns or frame[column].isna().all():
        return None
    return str(frame[column].dropna().iloc[0])


def _stop_times(
    feeds: Sequence[GtfsFeed], stop_base: list[int], trip_base: list[int]
) -> dict[str, np.ndarray]:
    cols: dict[str, list[np.ndarray]] = {
        k: [] for k in ("trip", "stop", "arr", "dep", "seq", "pick", "drop")
    }
    for feed, sb, tb in zip(feeds, stop_base, trip_base, strict=True):
        st = feed.stop_times
        cols["trip"].append(st["trip_index"].to_numpy(np.int64) + tb)
        cols["stop"].append(st["stop_index"].to_numpy(np.int64) + sb)
        cols["arr"].append(st["arrival_time"].to_numpy(np.int64))
        cols["dep"].append(st["departure_time"].to_numpy(np.int64))
        cols["seq"].append(pd.to_numeric(st["stop_sequence"]).to_numpy(np.int64))
        cols["pick"].append(_int(st, "pickup_type", 0).to_numpy(np.int64))
        cols["drop"].append(_int(st, "drop_off_type", 0).to_numpy(np.int64))
    out = {k: np.concatenate(v) if v else np.zeros(0, np.int64) for k, v in cols.items()}
    order = np.lexsort((out["seq"], out["trip"]))
    return {k: v[order] for k, v in out.items()}


def _transfer_rules(feeds: Sequence[GtfsFeed], ent: dict[str, pd.DataFrame]) -> pd.DataFrame:
    frames = []
    for feed in feeds:
        t = feed.transfers
        if t.empty:
            continue
        fid = feed.feed_id
        frame = pd.DataFrame(
            {
                "from_stop": _index_of(_scope(fid, _text(t, "from_stop_id")), ent["stops"].stop_id),
                "to_stop": _index_of(_scope(fid, _text(t, "to_stop_id")), ent["stops"].stop_id),
                "from_route": _index_of(
                    _scope(fid, _text(t, "from_route_id")), ent["routes"].route_id
                ),
                "to_route": _index_of(_scope(fid, _text(t, "to_route_id")), ent["routes"].route_id),
                "from_trip": _index_of(_scope(fid, _text(t, "from_trip_id")), ent["trips"].trip_id),
                "to_trip": _index_of(_scope(fid, _text(t, "to_trip_id")), ent["trips"].trip_id),
                "transfer_type": _int(t, "transfer_type", 0).astype(np.int8),
                "min_transfer_time": _int(t, "min_transfer_time", -1).astype(np.int32),
            }
        )
        frames.append(frame)
    cols = [
        "from_stop",
        "to_stop",
        "from_route",
        "to_route",
        "from_trip",
        "to_trip",
        "transfer_type",
        "min_transfer_time",
    ]
    if not frames:
        return pd.DataFrame({c: np.zeros(0, np.int64) for c in cols})
    return pd.concat(frames, ignore_index=True)[cols]


def _fares(feeds: Sequence[GtfsFeed]) -> tuple[pd.DataFrame, pd.DataFrame]:
    attrs, rules = [], []
    for fi, feed in enumerate(feeds):
        fid = feed.feed_id
        fa = feed.fare_attributes
        if not fa.empty:
            attrs.append(
                pd.DataFrame(
                    {
                        "fare_id": _scope(fid, _text(fa, "fare_id")),
                        "feed": fi,
                        "price": pd.to_numeric(_col(fa, "price"), errors="coerce").astype(float),
                        "currency_type": _text(fa, "currency_type"),
                        "payment_method": _int(fa, "payment_method", 0).astype(np.int8),
                        "transfers": _int(fa, "transfers", -1).astype(np.int8),
                        "agency_id": _scope(fid, _text(fa, "agency_id")),
                        "transfer_duration": _int(fa, "transfer_duration", -1).astype(np.int32),
                    }
                )
            )
        fr = feed.fare_rules
        if not fr.empty:
            rules.append(
                pd.DataFrame(
                    {
                        "fare_id": _scope(fid, _text(fr, "fare_id")),
                        "feed": fi,
                        "route_id": _scope(fid, _text(fr, "route_id")),
                        "origin_id": _text(fr, "origin_id"),
                        "destination_id": _text(fr, "destination_id"),
                        "contains_id": _text(fr, "contains_id"),
                    }
                )
            )
    acols = [
        "fare_id",
        "feed",
        "price",
        "currency_type",
        "payment_method",
        "transfers",
        "agency_id",
        "transfer_duration",
    ]
    rcols = ["fare_id", "feed", "route_id", "origin_id", "destination_id", "contains_id"]
    fa_out = pd.concat(attrs, ignore_index=True) if attrs else _empty(acols)
    fr_out = pd.concat(rules, ignore_index=True) if rules else _empty(rcols)
    return fa_out, fr_out


def _empty(columns: list[str]) -> pd.DataFrame:
    return pd.DataFrame({c: pd.array([], dtype="string") for c in columns})


def _shapes(feeds: Sequence[GtfsFeed]) -> tuple[list[str], dict[str, np.ndarray]]:
    ids: list[str] = []
    lat, lon, dist, counts = [], [], [], []
    for feed in feeds:
        sh = feed.shapes
        if sh.empty:
            continue
        sid = sh["shape_id"].astype("string").to_numpy()
        starts = np.flatnonzero(np.r_[True, sid[1:] != sid[:-1]])
        ids.extend(f"{feed.feed_id}:{s}" for s in sid[starts])
        counts.append(np.diff(np.r_[starts, len(sid)]))
        lat.append(sh["shape_pt_lat"].to_numpy(float))
        lon.append(sh["shape_pt_lon"].to_numpy(float))
        d = pd.to_numeric(_col(sh, "shape_dist_traveled"), errors="coerce")
        dist.append(d.to_numpy(float, na_value=np.nan))
    if not ids:
        z = np.zeros(0)
        return [], {"offsets": np.zeros(1, np.int64), "lat": z, "lon": z, "dist": z}
    return ids, {
        "offsets": np.r_[0, np.cumsum(np.concatenate(counts))].astype(np.int64),
        "lat": np.concatenate(lat),
        "lon": np.concatenate(lon),
        "dist": np.concatenate(dist),
    }


def _flex_locations(feeds: Sequence[GtfsFeed]) -> dict[str, Any]:
    """The feeds' ``locations.geojson`` features in one collection, ids feed-scoped."""
    features = []
    for feed in feeds:
        doc = feed.locations if isinstance(feed.locations, dict) else {}
        for feature in doc.get("features") or []:
            if isinstance(feature, dict) and feature.get("id") is not None:
                features.append({**feature, "id": f"{feed.feed_id}:{feature['id']}"})
    return {"type": "FeatureCollection", "features": features} if features else {}


def _flex_services(feeds: Sequence[GtfsFeed]) -> dict[str, Any]:
    """Each feed's GTFS-Flex data (raw ids) and its routes' continuous / eligibility values."""
    out: dict[str, Any] = {}
    for feed in feeds:
        flex = feed.flex
        routes = feed.routes
        extra: dict[str, dict[str, int]] = {}
        if len(routes):
            cols = {
                c: routes[c]
                for c in ("continuous_pickup", "continuous_drop_off", "eligibility_restricted")
                if c in routes
            }
            for k, rid in enumerate(routes["route_id"].astype(str)):
                values = {c: col.iloc[k] for c, col in cols.items()}
                row = {c: int(v) for c, v in values.items() if not pd.isna(v)}
                continuous = (row.get("continuous_pickup", 1), row.get("continuous_drop_off", 1))
                if continuous != (1, 1) or row.get("eligibility_restricted", 0) == 1:
                    extra[rid] = row
        overrides = _continuous_stop_times(feed.stop_times)
        if flex.trips or extra or overrides:
            out[feed.feed_id] = {**flex.to_json(), "routes": extra}
            if overrides:
                out[feed.feed_id]["continuous_stop_times"] = overrides
            messages = _continuous_messages(feed.trips)
            if messages:
                out[feed.feed_id]["continuous_messages"] = messages
    return out


def _continuous_messages(trips: pd.DataFrame) -> dict[str, list[str | None]]:
    """Trip id -> trips.txt ``[continuous_pickup_message, continuous_drop_off_message]``."""
    cols = [c for c in ("continuous_pickup_message", "continuous_drop_off_message") if c in trips]
    if not len(trips) or not cols:
        return {}
    out: dict[str, list[str | None]] = {}
    for rec in trips[["trip_id", *cols]].to_dict("records"):
        values = [rec.get(c) for c in ("continuous_pickup_message", "continuous_drop_off_message")]
        texts = [None if v is None or pd.isna(v) or not str(v).strip() else str(v) for v in values]
        if any(texts):
            out[str(rec["trip_id"])] = texts
    return out


def _continuous_stop_times(stop_times: pd.DataFrame) -> dict[str, list[list[int]]]:
    """Trip id -> ``[stop_sequence, continuous_pickup, continuous_drop_off]`` of the fixed
    stop_times rows that set either (-1: empty, the route's value applies)."""
    cols = ("continuous_pickup", "continuous_drop_off")
    if not len(stop_times) or not all(c in stop_times for c in cols):
        return {}
    pick, drop = stop_times[cols[0]], stop_times[cols[1]]
    given = (pick.notna() | drop.notna()).to_numpy(bool)
    if not given.any():
        return {}
    rows = stop_times.loc[given, ["trip_id", "stop_sequence", *cols]]
    out: dict[str, list[list[int]]] = {}
    for trip, seq, p, d in rows.itertuples(index=False, name=None):
        values = [-1 if pd.isna(v) else int(v) for v in (p, d)]
        out.setdefault(str(trip), []).append([int(seq), *values])
    return out


def build_transit_model(feeds: Sequence[GtfsFeed]) -> TransitModel:
    """Merge parsed feeds into one transit model.

    Frequency-based trips are expanded into concrete trips first, so every
    trip in the model has its own times.

    Parameters
    ----------
    feeds
        Parsed GTFS feeds with distinct feed ids.

    Returns
    -------
    TransitModel
        Entities with feed-scoped ids, services, patterns and timetables.
    """
    if not feeds:
        msg = "build_transit_model needs at least one feed"
        raise InvalidArgumentError(msg)
    feeds = [f.expand_frequencies() for f in feeds]
    ent = _entities(feeds)
    stop_base = np.r_[0, np.cumsum([len(f.stops) for f in feeds])][:-1].tolist()
    trip_base = np.r_[0, np.cumsum([len(f.trips) for f in feeds])][:-1].tolist()

    routes, trips, stops, agencies = ent["routes"], ent["trips"], ent["stops"], ent["agencies"]
    routes["agency_index"] = _index_of(routes.agency_id, agencies.agency_id).astype(np.int32)
    routes["mode"] = pd.array(modes_for_route_types(routes.route_type.to_numpy()), dtype="string")
    stops["parent_index"] = _index_of(stops.parent_station, stops.stop_id).astype(np.int32)
    trips["route_index"] = _index_of(trips.route_id, routes.route_id).astype(np.int32)

    service_ids, first_day, active = _service_matrix(feeds)
    trips["service_index"] = _index_of(trips.service_id, pd.Series(service_ids, dtype="string"))
    trips["service_index"] = trips["service_index"].astype(np.int32)

    timezones = sorted(set(agencies.timezone.dropna().astype(str)))
    agency_tz = pd.Index(timezones).get_indexer(agencies.timezone.astype(str))
    trips["tz_index"] = agency_tz[routes.agency_index.to_numpy()[trips.route_index.to_numpy()]]
    trips["tz_index"] = trips["tz_index"].astype(np.int16)

    st = _stop_times(feeds, stop_base, trip_base)
    pats = patterns_of(trips.route_index.to_numpy(np.int32), st)
    trips["pattern_index"] = pats.trip_pattern
    fare_attributes, fare_rules = _fares(feeds)
    shape_ids, shapes = _shapes(feeds)
    return TransitModel(
        feeds=ent["feeds"],
        agencies=agencies,
        stops=stops,
        routes=routes,
        trips=trips,
        transfer_rules=_transfer_rules(feeds, ent),
        fare_attributes=fare_attributes,
        fare_rules=fare_rules,
        timezones=timezones,
        service_ids=service_ids,
        service_first_day=first_day,
        service_active=active,
        **pats.model_fields(len(stops)),
        shape_ids=shape_ids,
        shape_offsets=shapes["offsets"],
        shape_lat=shapes["lat"],
        shape_lon=shapes["lon"],
        shape_dist_m=shapes["dist"],
        flex_locations=_flex_locations(feeds),
        flex=_flex_services(feeds),
    )


def empty_transit_model() -> TransitModel:
    """A transit model with no feeds (street-only networks)."""
    z64 = np.zeros(1, dtype=np.int64)
    e32 = np.zeros(0, dtype=np.int32)
    e8 = np.zeros(0, dtype=np.uint8)
    ef = np.zeros(0, dtype=np.float64)

    def table(columns: dict[str, str]) -> pd.DataFrame:
        return pd.DataFrame({c: pd.array([], dtype=t) for c, t in columns.items()})

    return TransitModel(
        feeds=table({"feed_id": "string", "path": "string"}),
        agencies=table({"agency_id": "string", "name": "string", "timezone": "string"}),
        stops=table({"stop_id": "string", "name": "string", "lat": "float64", "lon": "float64"}),
        routes=table({"route_id": "string", "route_type": "int32", "mode": "string"}),
        trips=table({"trip_id": "string", "route_index": "int32", "service_index": "int32"}),
        transfer_rules=table({"from_stop": "int64", "to_stop": "int64"}),
        fare_attributes=table({"fare_id": "string"}),
        fare_rules=table({"fare_id": "string"}),
        timezones=[],
        service_ids=[],
        service_first_day=0,
        service_active=np.zeros((0, 0), dtype=bool),
        pattern_route=e32,
        pattern_stop_offsets=z64,
        pattern_stops=e32,
        pattern_pickup=e8,
        pattern_dropoff=e8,
        pattern_trip_offsets=z64,
        pattern_trips=e32,
        pattern_time_offsets=z64,
        arrival_s=e32,
        departure_s=e32,
        stop_sequence=e32,
        stop_pattern_offsets=z64,
        stop_patterns=e32,
        stop_pattern_pos=e32,
        shape_ids=[],
        shape_offsets=z64,
        shape_lat=ef,
        shape_lon=ef,
        shape_dist_m=ef,
    )
