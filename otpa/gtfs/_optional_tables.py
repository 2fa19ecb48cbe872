"""Cleaning of frequencies.txt, transfers.txt, shapes.txt and the fares v1 files."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from otpa.gtfs._convert import TypedTable
from otpa.gtfs._keys import drop_rows, index_in, require_values, unique_key
from otpa.gtfs.report import ValidationReport

__all__ = [
    "clean_fare_attributes",
    "clean_fare_rules",
    "clean_frequencies",
    "clean_shapes",
    "clean_transfers",
]


def _mask(arr: pa.Array) -> np.ndarray:
    return np.asarray(pc.fill_null(arr, False).to_numpy(zero_copy_only=False), dtype=bool)


def clean_frequencies(tt: TypedTable, trip_ids: pa.Array, report: ValidationReport) -> TypedTable:
    """frequencies.txt: known trips, parseable times, positive headways, sorted by trip/start."""
    for col in ("start_time", "end_time"):
        tt = drop_rows(
            tt,
            tt.bad(col),
            report,
            f"malformed time '{{value}}' in {col}; row dropped",
            severity="error",
            field=col,
            values=tt.raw_values(col),
        )
        tt = require_values(tt, col, report, severity="error")
    tt = require_values(tt, "headway_secs", report, severity="error")
    tt = require_values(tt, "trip_id", report)
    _, found = index_in(tt.col("trip_id"), trip_ids)
    tt = drop_rows(
        tt,
        ~found,
        report,
        "unknown or dropped trip_id '{value}'; row dropped",
        field="trip_id",
        values=tt.col("trip_id"),
    )
    headway = tt.numpy("headway_secs")
    tt = drop_rows(
        tt, headway <= 0, report, "headway_secs must be positive; row dropped", field="headway_secs"
    )
    start, end = tt.numpy("start_time"), tt.numpy("end_time")
    tt = drop_rows(
        tt, end <= start, report, "end_time is not after start_time; row dropped", field="end_time"
    )
    exact = tt.numpy("exact_times")
    odd = (exact != 0) & (exact != 1)
    if odd.any():
        report.add_rows(
            "warning",
            tt.file,
            tt.lines[odd],
            "exact_times must be 0 or 1; read as 0",
            field="exact_times",
        )
        tt.set("exact_times", pa.array(np.where(odd, 0, exact).astype(np.int8)))
    if len(tt) == 0:
        return tt
    order = pc.sort_indices(tt.table, [("trip_id", "ascending"), ("start_time", "ascending")])
    tt = tt.take(order.to_numpy())
    same = pc.equal(tt.col("trip_id")[1:], tt.col("trip_id")[:-1]).to_numpy(zero_copy_only=False)
    start, end, headway = tt.numpy("start_time"), tt.numpy("end_time"), tt.numpy("headway_secs")
    last_departure = start + (-(-(end - start) // headway) - 1) * headway
    overlap = np.zeros(len(tt), dtype=bool)
    overlap[1:] = same & (start[1:] <= last_departure[:-1])
    report.add_rows(
        "warning",
        tt.file,
        tt.lines[overlap],
        "frequency period starts before the last departure of the previous one",
        field="start_time",
    )
    return tt


_NEEDS_STOPS = (0, 1, 2, 3)


def clean_transfers(
    tt: TypedTable,
    stop_ids: pa.Array,
    route_ids: pa.Array,
    trip_ids: pa.Array,
    report: ValidationReport,
) -> TypedTable:
    """transfers.txt: types 0..5, references to known stops / routes / trips."""
    ttype = tt.numpy("transfer_type")
    tt = drop_rows(
        tt,
        (ttype < 0) | (ttype > 5),
        report,
        "transfer_type '{value}' is not 0..5; row dropped",
        field="transfer_type",
        values=tt.col("transfer_type"),
    )
    needs_stops = np.isin(tt.numpy("transfer_type"), _NEEDS_STOPS)
    for col in ("from_stop_id", "to_stop_id"):
        missing = needs_stops & tt.col(col).is_null().to_numpy(zero_copy_only=False)
        tt = drop_rows(tt, missing, report, f"missing {col}; row dropped", field=col)
        needs_stops = np.isin(tt.numpy("transfer_type"), _NEEDS_STOPS)
    in_seat = ~np.isin(tt.numpy("transfer_type"), _NEEDS_STOPS)
    for col in ("from_trip_id", "to_trip_id"):
        missing = in_seat & tt.col(col).is_null().to_numpy(zero_copy_only=False)
        tt = drop_rows(
            tt, missing, report, f"in-seat transfer without {col}; row dropped", field=col
        )
        in_seat = ~np.isin(tt.numpy("transfer_type"), _NEEDS_STOPS)
    refs = (
        ("from_stop_id", stop_ids),
        ("to_stop_id", stop_ids),
        ("from_route_id", route_ids),
        ("to_route_id", route_ids),
        ("from_trip_id", trip_ids),
        ("to_trip_id", trip_ids),
    )
    for col, keys in refs:
        values = tt.col(col)
        _, found = index_in(values, keys)
        unknown = values.is_valid().to_numpy(zero_copy_only=False) & ~found
        tt = drop_rows(
            tt, unknown, report, f"unknown {col} '{{value}}'; row dropped", field=col, values=values
        )
    mtt = tt.col("min_transfer_time")
    negative = _mask(pc.less(mtt, 0))
    if negative.any():
        report.add_rows(
            "warning",
            tt.file,
            tt.lines[negative],
            "negative min_transfer_time; read as empty",
            field="min_transfer_time",
        )
        tt.set("min_transfer_time", pc.if_else(pa.array(negative), pa.scalar(None, mtt.type), mtt))
    return tt


def clean_shapes(tt: TypedTable, report: ValidationReport) -> TypedTable:
    """shapes.txt: complete points only, sorted by (shape_id, shape_pt_sequence)."""
    for col in ("shape_id", "shape_pt_lat", "shape_pt_lon", "shape_pt_sequence"):
        tt = require_values(tt, col, report)
    if len(tt) == 0:
        return tt
    order = pc.sort_indices(
        tt.table, [("shape_id", "ascending"), ("shape_pt_sequence", "ascending")]
    ).to_numpy()
    if not np.array_equal(order, np.arange(len(tt))):
        tt = tt.take(order)
    same = pc.equal(tt.col("shape_id")[1:], tt.col("shape_id")[:-1]).to_numpy(zero_copy_only=False)
    seq = tt.numpy("shape_pt_sequence")
    dup = np.zeros(len(tt), dtype=bool)
    dup[1:] = same & (seq[1:] == seq[:-1])
    return drop_rows(
        tt,
        dup,
        report,
        "repeated shape_pt_sequence; the first point is kept",
        field="shape_pt_sequence",
    )


def clean_fare_attributes(tt: TypedTable, report: ValidationReport) -> TypedTable:
    """fare_attributes.txt: unique fare ids with a price and currency."""
    tt = unique_key(tt, "fare_id", report)
    tt = require_values(tt, "price", report)
    return require_values(tt, "currency_type", report)


def clean_fare_rules(
    tt: TypedTable, fare_ids: pa.Array, route_ids: pa.Array, report: ValidationReport
) -> TypedTable:
    """fare_rules.txt: rules of known fares and routes."""
    tt = require_values(tt, "fare_id", report)
    for col, keys in (("fare_id", fare_ids), ("route_id", route_ids)):
        values = tt.col(col)
        _, found = index_in(values, keys)
        unknown = values.is_valid().to_numpy(zero_copy_only=False) & ~found
        tt = drop_rows(
            tt, unknown, report, f"unknown {col} '{{value}}'; row dropped", field=col, values=values
        )
    return tt
