"""Entity dataclasses from the transit model's tables (one pass per table, vectorised reads)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

import numpy as np
import pandas as pd

from otpa.index.model import Agency, FeedInfo, Route, ServiceCalendar, Stop, Trip
from otpa.transit.model import TransitModel

__all__ = [
    "agencies_of",
    "complete_tables",
    "feeds_of",
    "gtfs_trip_keys",
    "routes_of",
    "service_calendars_of",
    "stops_of",
    "trips_of",
]


#: Columns the index reads, per table (the tables of a street-only network have fewer).
_COLUMNS = {
    "feeds": ("feed_id", "path", "publisher_name", "version"),
    "agencies": ("agency_id", "feed", "name", "url", "timezone", "lang", "phone", "fare_url"),
    "stops": (
        *("stop_id", "feed", "raw_id", "code", "name", "desc", "lat", "lon", "zone_id", "url"),
        *("location_type", "parent_station", "parent_index", "wheelchair_boarding"),
        *("platform_code", "timezone"),
    ),
    "routes": (
        *("route_id", "feed", "raw_id", "agency_id", "agency_index", "short_name", "long_name"),
        *("desc", "route_type", "url", "color", "text_color", "sort_order", "mode"),
    ),
    "trips": (
        *("trip_id", "feed", "raw_id", "route_id", "service_id", "headsign", "short_name"),
        *("direction_id", "block_id", "shape_id", "wheelchair_accessible", "bikes_allowed"),
        *("template_trip_id", "route_index", "service_index", "tz_index", "pattern_index"),
    ),
}


def complete_tables(transit: TransitModel) -> TransitModel:
    """The model with every column the index reads (added, empty, to empty tables)."""
    changes: dict[str, pd.DataFrame] = {}
    for table, columns in _COLUMNS.items():
        frame: pd.DataFrame = getattr(transit, table)
        missing = [c for c in columns if c not in frame.columns]
        if missing and frame.empty:
            changes[table] = frame.assign(**{c: np.zeros(0, dtype=np.int64) for c in missing})
    return dataclasses.replace(transit, **changes) if changes else transit


def _texts(frame: pd.DataFrame, column: str) -> list[str | None]:
    """A column as Python strings, None for missing values (or a missing column)."""
    if column not in frame.columns:
        return [None] * len(frame)
    values = frame[column].astype(object).to_numpy()
    return [
        None if v is None or v is pd.NA or (isinstance(v, float) and np.isnan(v)) else str(v)
        for v in values
    ]


def _ints(frame: pd.DataFrame, column: str) -> list[int]:
    return [int(v) for v in frame[column].to_numpy(np.int64)]


def feeds_of(transit: TransitModel) -> list[FeedInfo]:
    """The feeds, in build order."""
    f = transit.feeds
    return [
        FeedInfo(id=str(fid), publisher_name=pub, version=ver)
        for fid, pub, ver in zip(
            _texts(f, "feed_id"), _texts(f, "publisher_name"), _texts(f, "version"), strict=True
        )
    ]


def agencies_of(transit: TransitModel) -> list[Agency]:
    """The agencies; an agency without ``agency_id`` gets its feed id as id."""
    a = transit.agencies
    feed_ids = [str(x) for x in transit.feeds.feed_id.to_list()]
    feeds = [feed_ids[i] for i in a.feed.to_numpy(np.int64)]
    ids = _texts(a, "agency_id")
    cols = {c: _texts(a, c) for c in ("name", "url", "timezone", "lang", "phone", "fare_url")}
    return [
        Agency(
            id=ids[i] or f"{feeds[i]}:{feeds[i]}",
            feed_id=feeds[i],
            **{c: cols[c][i] for c in cols},
        )
        for i in range(len(a))
    ]


def routes_of(transit: TransitModel, agencies: list[Agency]) -> list[Route]:
    """The routes; a route without ``agency_id`` belongs to its feed's first agency."""
    r = transit.routes
    agency_index = r.agency_index.to_numpy(np.int64)
    feed = r.feed.to_numpy(np.int64)
    first_agency: dict[str, str] = {}
    for a in agencies:
        first_agency.setdefault(a.feed_id, a.id)
    feed_ids = [str(x) for x in transit.feeds.feed_id.to_list()]
    cols = {
        c: _texts(r, c)
        for c in (
            "route_id",
            "short_name",
            "long_name",
            "desc",
            "url",
            "color",
            "text_color",
            "mode",
        )
    }
    types = _ints(r, "route_type")
    sort = _ints(r, "sort_order")
    out = []
    for i in range(len(r)):
        ai = int(agency_index[i])
        agency = agencies[ai].id if ai >= 0 else first_agency.get(feed_ids[int(feed[i])])
        out.append(
            Route(
                id=str(cols["route_id"][i]),
                agency_id=agency,
                short_name=cols["short_name"][i],
                long_name=cols["long_name"][i],
                desc=cols["desc"][i],
                type=types[i],
                mode=cols["mode"][i] or "BUS",
                url=cols["url"][i],
                color=cols["color"][i],
                text_color=cols["text_color"][i],
                sort_order=None if sort[i] < 0 else sort[i],
            )
        )
    return out


def stops_of(transit: TransitModel, stop_cluster: list[str | None]) -> list[Stop]:
    """Every row of ``stops.txt`` (all location types)."""
    s = transit.stops
    text = {
        c: _texts(s, c)
        for c in (
            *("stop_id", "code", "name", "desc", "zone_id", "url"),
            *("parent_station", "timezone", "platform_code"),
        )
    }
    lat = s.lat.to_numpy(float).tolist()
    lon = s.lon.to_numpy(float).tolist()
    ltype = _ints(s, "location_type")
    wheelchair = _ints(s, "wheelchair_boarding")
    return [
        Stop(
            id=str(text["stop_id"][i]),
            code=text["code"][i],
            name=text["name"][i],
            desc=text["desc"][i],
            lat=lat[i],
            lon=lon[i],
            zone_id=text["zone_id"][i],
            url=text["url"][i],
            location_type=ltype[i],
            parent_station=text["parent_station"][i],
            wheelchair_boarding=wheelchair[i],
            timezone=text["timezone"][i],
            platform_code=text["platform_code"][i],
            cluster=stop_cluster[i],
        )
        for i in range(len(s))
    ]


def gtfs_trip_keys(transit: TransitModel) -> tuple[list[str], np.ndarray]:
    """Group model trips by GTFS trip: frequency departures belong to their template trip.

    Returns
    -------
    ids
        GTFS trip ids, in order of first model trip.
    trip_gtfs
        For every model trip, the position of its GTFS trip in ``ids``.
    """
    t = transit.trips
    own = _texts(t, "trip_id")
    template = _texts(t, "template_trip_id")
    keys = [tm if tm is not None else str(o) for o, tm in zip(own, template, strict=True)]
    codes, uniques = pd.factorize(pd.Series(keys, dtype=object), sort=False)
    return [str(u) for u in uniques], np.asarray(codes, dtype=np.int64)


def trips_of(
    transit: TransitModel,
    ids: list[str],
    representative: np.ndarray,
    pattern_ids: list[str | None],
    routes: list[Route],
) -> list[Trip]:
    """One :class:`Trip` per GTFS trip, read from its representative model trip.

    Parameters
    ----------
    transit
        The transit model.
    ids
        GTFS trip ids.
    representative
        Model trip row of each GTFS trip (its first frequency departure if any).
    pattern_ids
        Index pattern id of each GTFS trip.
    routes
        Routes in model order.
    """
    t = transit.trips.iloc[representative]
    text = {
        c: _texts(t, c)
        for c in ("route_id", "service_id", "short_name", "headsign", "block_id", "shape_id")
    }
    template = _texts(t, "template_trip_id")
    route_index = t.route_index.to_numpy(np.int64)
    direction = _ints(t, "direction_id")
    wheelchair = _ints(t, "wheelchair_accessible")
    bikes = _ints(t, "bikes_allowed")
    out = []
    for i, trip_id in enumerate(ids):
        ri = int(route_index[i])
        out.append(
            Trip(
                id=trip_id,
                route_id=str(text["route_id"][i]),
                service_id=str(text["service_id"][i]),
                trip_short_name=text["short_name"][i],
                trip_headsign=text["headsign"][i],
                route_short_name=routes[ri].short_name if ri >= 0 else None,
                direction_id=None if direction[i] < 0 else direction[i],
                block_id=text["block_id"][i],
                shape_id=text["shape_id"][i],
                wheelchair_accessible=wheelchair[i],
                bikes_allowed=bikes[i],
                pattern_id=pattern_ids[i],
                frequency_based=template[i] is not None,
            )
        )
    return out


def service_calendars_of(transit: TransitModel) -> list[ServiceCalendar]:
    """The service calendars, in model order."""
    out = []
    first = transit.service_first_day
    for s, sid in enumerate(transit.service_ids):
        days = np.flatnonzero(np.asarray(transit.service_active[s])).tolist()
        dates = tuple(dt.date.fromordinal(first + d) for d in days)
        feed_id = sid.split(":", 1)[0]
        out.append(
            ServiceCalendar(
                id=sid,
                feed_id=feed_id,
                start_date=dates[0] if dates else None,
                end_date=dates[-1] if dates else None,
                dates=dates,
            )
        )
    return out


def row_lookup(ids: list[Any]) -> dict[str, int]:
    """``{id: row}`` for a list of ids (first row wins on duplicates)."""
    out: dict[str, int] = {}
    for i, v in enumerate(ids):
        out.setdefault(str(v), i)
    return out
