"""``read_gtfs``: read, type, validate and clean a GTFS feed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from otpa.errors import GtfsError
from otpa.gtfs._convert import TypedTable, empty_frame, to_frame
from otpa.gtfs._core_tables import clean_agency, clean_routes, clean_stops, clean_trips
from otpa.gtfs._loader import FeedFiles, flex_location_ids
from otpa.gtfs._optional_tables import (
    clean_fare_attributes,
    clean_fare_rules,
    clean_frequencies,
    clean_shapes,
    clean_transfers,
)
from otpa.gtfs._schema import SPECS, ColumnSpec
from otpa.gtfs._service_tables import clean_calendar, clean_calendar_dates, service_ids
from otpa.gtfs._source import FeedSource
from otpa.gtfs._stop_times import StopTimesResult, clean_stop_times
from otpa.gtfs.feed import GtfsFeed
from otpa.gtfs.flex import read_flex
from otpa.gtfs.ids import default_feed_id, sanitize_feed_id
from otpa.gtfs.report import ValidationReport
from otpa.types import PathLike

__all__ = ["read_gtfs"]

_STOP_TIMES_COLUMNS = (
    "trip_id",
    "arrival_time",
    "departure_time",
    "stop_id",
    "stop_sequence",
    "stop_headsign",
    "pickup_type",
    "drop_off_type",
    "continuous_pickup",
    "continuous_drop_off",
    "shape_dist_traveled",
    "timepoint",
)
_FLEX_COLUMNS = (
    "trip_id",
    "stop_id",
    "location_group_id",
    "location_id",
    "stop_sequence",
    "arrival_time",
    "departure_time",
    "start_pickup_drop_off_window",
    "end_pickup_drop_off_window",
    "pickup_type",
    "drop_off_type",
    "pickup_booking_rule_id",
    "drop_off_booking_rule_id",
    "shape_dist_traveled",
    "timepoint",
    "stop_headsign",
    "continuous_pickup",
    "continuous_drop_off",
    "mean_duration_factor",
    "mean_duration_offset",
    "safe_duration_factor",
    "safe_duration_offset",
)
_INDEX = ColumnSpec("int", 32, 0)
_STOP_TIMES_SPECS = SPECS["stop_times.txt"].columns | {
    "arrival_time": _INDEX,
    "departure_time": _INDEX,
    "trip_index": _INDEX,
    "stop_index": _INDEX,
}
_FLEX_SPECS = SPECS["stop_times.txt"].columns | {"trip_index": _INDEX}


def _feed_id(explicit: str | None, feed_info: TypedTable, path: PathLike) -> str:
    if explicit is not None:
        if not explicit or ":" in explicit or explicit != explicit.strip():
            msg = f"invalid feed_id {explicit!r}: must be non-empty, without ':' or spaces"
            raise GtfsError(msg)
        return explicit
    ids = [v for v in feed_info.col("feed_id").to_pylist() if v]
    return sanitize_feed_id(ids[0]) if ids else default_feed_id(path)


def _stop_times_frames(
    st: TypedTable,
    res: StopTimesResult,
    new_pos: np.ndarray,
    ids: tuple[pa.Array, pa.Array],
    keep_extra: bool,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The stop_times and flex_stop_times frames; ``ids`` are the final trip and stop ids."""
    trip_ids, stop_ids = ids
    extra = [c for c in st.table.column_names if c not in SPECS["stop_times.txt"].columns]
    extra = extra if keep_extra else []
    rebuilt = {"trip_id", "arrival_time", "departure_time", "stop_id"}
    taken = st.table.select([c for c in (*_STOP_TIMES_COLUMNS, *extra) if c not in rebuilt]).take(
        pa.array(res.rows)
    )
    trip_index = pa.array(new_pos[res.trip_pos].astype(np.int32))
    stop_index = pa.array(res.stop_pos)
    columns = {
        "trip_id": trip_ids.take(trip_index),
        "arrival_time": pa.array(res.arrival),
        "departure_time": pa.array(res.departure),
        "stop_id": stop_ids.take(stop_index),
    }
    columns |= {name: taken.column(name) for name in taken.column_names}
    if res.interpolated.any():  # interpolated times are not exact: timepoint 0
        timepoint = taken.column("timepoint").to_numpy()
        columns["timepoint"] = pa.array(np.where(res.interpolated, 0, timepoint).astype(np.int8))
    columns |= {"trip_index": trip_index, "stop_index": stop_index}
    order = [*_STOP_TIMES_COLUMNS, *extra, "trip_index", "stop_index"]
    main = pa.table({name: columns[name] for name in order})
    flex = st.table.select([*_FLEX_COLUMNS, *extra]).take(pa.array(res.flex_rows))
    flex = flex.append_column("trip_index", pa.array(new_pos[res.flex_trip_pos].astype(np.int32)))
    return to_frame(main, _STOP_TIMES_SPECS), to_frame(flex, _FLEX_SPECS)


def _frame(tt: TypedTable, name: str) -> pd.DataFrame:
    spec = SPECS[name]
    if tt.table.num_columns == 0:
        return empty_frame(spec)
    return to_frame(tt.table, spec.columns)


def read_gtfs(
    path: PathLike, feed_id: str | None = None, *, keep_extra_columns: bool = False
) -> GtfsFeed:
    """Read a GTFS feed from a ``.zip`` file or a folder of ``.txt`` files.

    Parameters
    ----------
    path
        The zip archive (files may sit in one subfolder) or the folder.
    feed_id
        Feed id; defaults to ``feed_info.txt``'s ``feed_id``, else the file / folder name
        without ``.zip`` / ``.gtfs``.
    keep_extra_columns
        Keep columns the reader does not know (as text) instead of dropping them.

    Returns
    -------
    GtfsFeed
        The cleaned feed; ``feed.report`` lists what was questionable or dropped.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    GtfsError
        If the feed cannot be used: corrupt or truncated archive, missing required file or
        column, no agency or agency timezone, no usable stop_times row.
    """
    report = ValidationReport()
    with FeedSource(path) as src, FeedFiles(src, keep_extra=keep_extra_columns) as files:
        extras = files.flex_extras(report)
        feed = _build(files, feed_id, str(path), extras, report)
        report.issues[:0] = files.read_issues()  # reading issues first, in file order
    return feed


def _build(
    files: FeedFiles,
    feed_id: str | None,
    where: str,
    extras: dict[str, Any],
    report: ValidationReport,
) -> GtfsFeed:
    """Clean the tables in dependency order, each as soon as its file has been read."""
    feed_info = files.typed("feed_info.txt", report)
    fid = _feed_id(feed_id, feed_info, where)
    agency = clean_agency(files.typed("agency.txt", report), fid, report)
    stops = clean_stops(files.typed("stops.txt", report), report)
    routes = clean_routes(files.typed("routes.txt", report), agency, report)
    calendar = clean_calendar(files.typed("calendar.txt", report), report)
    calendar_dates = clean_calendar_dates(files.typed("calendar_dates.txt", report), report)
    services = service_ids(calendar, calendar_dates)
    trips = clean_trips(files.typed("trips.txt", report), routes, services, report)
    if len(trips):
        trips = trips.take(pc.sort_indices(trips.table, [("trip_id", "ascending")]).to_numpy())
    st = files.typed("stop_times.txt", report)
    res = clean_stop_times(st, trips, stops, flex_location_ids(extras), report)
    if res.rows.size == 0 and res.flex_rows.size == 0:
        first = "; ".join(i.message for i in report.errors[:3]) or "no rows"
        msg = f"{where}: stop_times.txt has no usable row ({first})"
        raise GtfsError(msg)
    new_pos = np.cumsum(res.usable_trips) - 1
    trips = trips.filter(res.usable_trips)
    trip_ids, route_ids = trips.col("trip_id"), routes.col("route_id")
    stop_times, flex_stop_times = _stop_times_frames(
        st, res, new_pos, (trip_ids, stops.col("stop_id")), files.keep_extra
    )
    frequencies = clean_frequencies(files.typed("frequencies.txt", report), trip_ids, report)
    transfers = clean_transfers(
        files.typed("transfers.txt", report), stops.col("stop_id"), route_ids, trip_ids, report
    )
    fare_attributes = clean_fare_attributes(files.typed("fare_attributes.txt", report), report)
    fare_rules = clean_fare_rules(
        files.typed("fare_rules.txt", report), fare_attributes.col("fare_id"), route_ids, report
    )
    trips_frame = _frame(trips, "trips.txt")
    return GtfsFeed(
        feed_id=fid,
        path=where,
        report=report,
        agency=_frame(agency, "agency.txt"),
        stops=_frame(stops, "stops.txt"),
        routes=_frame(routes, "routes.txt"),
        trips=trips_frame,
        stop_times=stop_times,
        calendar=_frame(calendar, "calendar.txt"),
        calendar_dates=_frame(calendar_dates, "calendar_dates.txt"),
        frequencies=_frame(frequencies, "frequencies.txt"),
        transfers=_frame(transfers, "transfers.txt"),
        shapes=_frame(clean_shapes(files.typed("shapes.txt", report), report), "shapes.txt"),
        fare_attributes=_frame(fare_attributes, "fare_attributes.txt"),
        fare_rules=_frame(fare_rules, "fare_rules.txt"),
        feed_info=_frame(feed_info, "feed_info.txt"),
        flex_stop_times=flex_stop_times,
        locations=extras.get("locations"),
        booking_rules=extras.get("booking_rules"),
        location_groups=extras.get("location_groups"),
        flex=read_flex(
            locations=extras.get("locations"),
            location_groups=extras.get("location_groups"),
            location_group_stops=extras.get("location_group_stops"),
            booking_rules=extras.get("booking_rules"),
            flex_stop_times=flex_stop_times,
            stop_ids=set(stops.col("stop_id").to_pylist()),
            report=report,
            trips=trips_frame,
        ),
    )
