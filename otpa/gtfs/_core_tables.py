"""Cleaning of agency.txt, stops.txt, routes.txt and trips.txt."""

from __future__ import annotations

import zoneinfo

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from otpa.errors import GtfsError
from otpa.gtfs._convert import TypedTable
from otpa.gtfs._keys import drop_rows, index_in, require_values, unique_key
from otpa.gtfs.report import ValidationReport

__all__ = ["clean_agency", "clean_routes", "clean_stops", "clean_trips", "is_valid_route_type"]

_BASIC_ROUTE_TYPES = (0, 1, 2, 3, 4, 5, 6, 7, 11, 12)


def is_valid_route_type(values: np.ndarray) -> np.ndarray:
    """Basic GTFS route types and the extended (HVT) ones, 100..1799."""
    return np.isin(values, _BASIC_ROUTE_TYPES) | ((values >= 100) & (values < 1800))


def _known_timezone(name: str) -> bool:
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return False
    return True


def _str_array(values: list[str | None]) -> pa.Array:
    return pa.array(values, pa.string())


def clean_agency(tt: TypedTable, feed_id: str, report: ValidationReport) -> TypedTable:
    """Agencies: timezone required, ids filled in, duplicates dropped."""
    if len(tt) == 0:
        msg = "agency.txt has no agency"
        raise GtfsError(msg)
    tz = tt.col("agency_timezone")
    if tz.null_count == len(tt):
        msg = "agency.txt: agency_timezone is empty for every agency"
        raise GtfsError(msg)
    if tz.null_count:
        first = next(v for v in tz.to_pylist() if v)
        missing = tz.is_null().to_numpy(zero_copy_only=False)
        report.add_rows(
            "warning",
            tt.file,
            tt.lines[missing],
            f"missing agency_timezone; using {first!r}",
            field="agency_timezone",
        )
        tt.set("agency_timezone", tz.fill_null(first))
    for line, name in zip(tt.lines, tt.col("agency_timezone").to_pylist(), strict=True):
        if not _known_timezone(name):
            report.add(
                "warning",
                tt.file,
                f"unknown agency_timezone {name!r}",
                line=int(line),
                field="agency_timezone",
            )
    ids = tt.col("agency_id")
    if ids.null_count:
        names = tt.col("agency_name").to_pylist()
        filled = [
            v if v is not None else (feed_id if len(tt) == 1 else (names[k] or f"agency{k + 1}"))
            for k, v in enumerate(ids.to_pylist())
        ]
        if len(tt) > 1:
            missing = ids.is_null().to_numpy(zero_copy_only=False)
            report.add_rows(
                "warning",
                tt.file,
                tt.lines[missing],
                "missing agency_id in a feed with several agencies; using the name",
                field="agency_id",
            )
        tt.set("agency_id", _str_array(filled))
    return unique_key(tt, "agency_id", report)


def clean_stops(tt: TypedTable, report: ValidationReport) -> TypedTable:
    """Stops: unique ids, coordinates checked, parents resolved, wheelchair inherited."""
    tt = unique_key(tt, "stop_id", report)
    loc = tt.numpy("location_type")
    bad_type = (loc < 0) | (loc > 4)
    if bad_type.any():
        report.add_rows(
            "warning",
            tt.file,
            tt.lines[bad_type],
            "unknown location_type '{value}'; kept",
            field="location_type",
            values=loc[bad_type],
        )
    lat = tt.numpy("stop_lat", np.nan)
    lon = tt.numpy("stop_lon", np.nan)
    needs_coords = loc <= 2
    no_coords = needs_coords & (np.isnan(lat) | np.isnan(lon))
    report.add_rows(
        "warning", tt.file, tt.lines[no_coords], "stop without coordinates", field="stop_lat"
    )
    with np.errstate(invalid="ignore"):
        out_of_range = (np.abs(lat) > 90) | (np.abs(lon) > 180)
    zero = (lat == 0) | (lon == 0)
    odd = ~no_coords & (out_of_range | zero)
    report.add_rows(
        "warning",
        tt.file,
        tt.lines[odd],
        "questionable coordinates ({value}); kept",
        field="stop_lat",
        values=[f"{a}, {o}" for a, o in zip(lat[odd], lon[odd], strict=True)],
    )
    parent = tt.col("parent_station")
    if parent.null_count < len(tt):
        pos, found = index_in(parent, tt.col("stop_id"))
        has_parent = parent.is_valid().to_numpy(zero_copy_only=False)
        unknown = has_parent & ~found
        if unknown.any():
            report.add_rows(
                "warning",
                tt.file,
                tt.lines[unknown],
                "unknown parent_station '{value}'; ignored",
                field="parent_station",
                values=parent.filter(pa.array(unknown)).to_pylist(),
            )
            parent = pc.if_else(pa.array(unknown), pa.scalar(None, pa.string()), parent)
            tt.set("parent_station", parent)
            found &= ~unknown
        # GTFS: a child stop's wheelchair_boarding 0 (no information) inherits the parent's
        wb = tt.numpy("wheelchair_boarding")
        inherit = found & (wb == 0)
        if inherit.any():
            wb = wb.copy()
            wb[inherit] = wb[pos[inherit]]
            tt.set("wheelchair_boarding", pa.array(wb, pa.int8()))
    return tt


def clean_routes(tt: TypedTable, agency: TypedTable, report: ValidationReport) -> TypedTable:
    """Routes: unique ids, route_type required, agency resolved."""
    tt = unique_key(tt, "route_id", report)
    tt = require_values(tt, "route_type", report, severity="error")
    rt = tt.numpy("route_type")
    unknown = ~is_valid_route_type(rt)
    report.add_rows(
        "warning",
        tt.file,
        tt.lines[unknown],
        "unknown route_type '{value}'; kept",
        field="route_type",
        values=rt[unknown],
    )
    agency_ids = agency.col("agency_id")
    aid = tt.col("agency_id")
    if aid.null_count:
        missing = aid.is_null().to_numpy(zero_copy_only=False)
        if len(agency) > 1:
            report.add_rows(
                "warning",
                tt.file,
                tt.lines[missing],
                "missing agency_id in a feed with several agencies; using the first",
                field="agency_id",
            )
        tt.set("agency_id", aid.fill_null(agency_ids[0]))
    _, found = index_in(tt.col("agency_id"), agency_ids)
    report.add_rows(
        "warning",
        tt.file,
        tt.lines[~found],
        "unknown agency_id '{value}'; kept",
        field="agency_id",
        values=tt.col("agency_id").filter(pa.array(~found)),
    )
    return tt


def clean_trips(
    tt: TypedTable, routes: TypedTable, service_ids: pa.Array, report: ValidationReport
) -> TypedTable:
    """Trips: unique ids, known route required, unknown services reported."""
    tt = unique_key(tt, "trip_id", report)
    _, found = index_in(tt.col("route_id"), routes.col("route_id"))
    tt = drop_rows(
        tt,
        ~found,
        report,
        "unknown route_id '{value}'; trip dropped",
        field="route_id",
        values=tt.col("route_id"),
    )
    tt = require_values(tt, "service_id", report)
    _, known = index_in(tt.col("service_id"), service_ids)
    if not known.all():
        report.add_rows(
            "warning",
            tt.file,
            tt.lines[~known],
            "service_id '{value}' is in neither calendar.txt nor calendar_dates.txt; "
            "the trip never runs",
            field="service_id",
            values=tt.col("service_id").filter(pa.array(~known)),
        )
    direction = tt.col("direction_id")
    bad_dir = pc.fill_null(pc.greater(direction, 1), False).to_numpy(zero_copy_only=False)
    bad_dir |= pc.fill_null(pc.less(direction, 0), False).to_numpy(zero_copy_only=False)
    if bad_dir.any():
        report.add_rows(
            "warning",
            tt.file,
            tt.lines[bad_dir],
            "direction_id must be 0 or 1; read as empty",
            field="direction_id",
        )
        tt.set("direction_id", pc.if_else(pa.array(bad_dir), pa.scalar(None, pa.int8()), direction))
    return tt
