"""Cleaning of calendar.txt and calendar_dates.txt (dates are int32 YYYYMMDD)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from otpa.gtfs._convert import TypedTable
from otpa.gtfs._keys import drop_rows, require_values, unique_key
from otpa.gtfs.report import ValidationReport

__all__ = ["WEEKDAYS", "clean_calendar", "clean_calendar_dates", "service_ids"]

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def _drop_bad_dates(tt: TypedTable, column: str, report: ValidationReport) -> TypedTable:
    tt = drop_rows(
        tt,
        tt.bad(column),
        report,
        f"invalid {column} '{{value}}' (expected YYYYMMDD); row dropped",
        severity="error",
        field=column,
        values=tt.raw_values(column),
    )
    return require_values(tt, column, report, severity="error")


def clean_calendar(tt: TypedTable, report: ValidationReport) -> TypedTable:
    """calendar.txt: unique service ids, valid dates, weekday flags 0/1."""
    tt = unique_key(tt, "service_id", report)
    tt = _drop_bad_dates(tt, "start_date", report)
    tt = _drop_bad_dates(tt, "end_date", report)
    for day in WEEKDAYS:
        flags = tt.numpy(day)
        odd = (flags != 0) & (flags != 1)
        if odd.any():
            report.add_rows(
                "warning",
                tt.file,
                tt.lines[odd],
                f"{day} must be 0 or 1, got '{{value}}'; read as 0",
                field=day,
                values=flags[odd],
            )
            tt.set(day, pa.array(np.where(odd, 0, flags).astype(np.int8)))
    backwards = tt.numpy("end_date") < tt.numpy("start_date")
    report.add_rows(
        "warning",
        tt.file,
        tt.lines[backwards],
        "end_date is before start_date; the service never runs",
        field="end_date",
    )
    return tt


def clean_calendar_dates(tt: TypedTable, report: ValidationReport) -> TypedTable:
    """calendar_dates.txt: valid dates, exception_type 1 or 2, one row per (service, date)."""
    tt = require_values(tt, "service_id", report)
    tt = _drop_bad_dates(tt, "date", report)
    ex = tt.col("exception_type")
    bad = ~pc.fill_null(pc.is_in(ex, pa.array([1, 2], pa.int8())), False).to_numpy(
        zero_copy_only=False
    )
    tt = drop_rows(
        tt, bad, report, "exception_type must be 1 or 2; row dropped", field="exception_type"
    )
    if len(tt) == 0:
        return tt
    sid = pc.dictionary_encode(tt.col("service_id")).indices.to_numpy(zero_copy_only=False)
    key = sid.astype(np.int64) * 100_000_000 + tt.numpy("date").astype(np.int64)
    _, first = np.unique(key, return_index=True)
    dup = np.ones(len(tt), dtype=bool)
    dup[first] = False
    return drop_rows(
        tt, dup, report, "repeated (service_id, date); the first row is kept", field="date"
    )


def service_ids(calendar: TypedTable | None, calendar_dates: TypedTable | None) -> pa.Array:
    """All service ids defined by the two files (calendar order first), unique."""
    parts = [t.col("service_id") for t in (calendar, calendar_dates) if t is not None]
    if not parts:
        return pa.array([], pa.string())
    return pc.unique(pa.concat_arrays(parts))
