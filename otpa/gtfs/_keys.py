"""Id handling shared by the table cleaners: missing ids, duplicates, lookups."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from otpa.gtfs._convert import TypedTable
from otpa.gtfs.report import Severity, ValidationReport
from otpa.types import BoolArray, Int32Array

__all__ = ["drop_rows", "index_in", "require_values", "unique_key"]


def drop_rows(
    tt: TypedTable,
    drop: BoolArray,
    report: ValidationReport,
    message: str,
    *,
    severity: Severity = "warning",
    field: str | None = None,
    values: pa.Array | None = None,
) -> TypedTable:
    """Report every row where ``drop`` is true (``{value}`` in ``message`` from ``values``)
    and return the table without them."""
    if not drop.any():
        return tt
    shown = None if values is None else values.filter(pa.array(drop)).to_pylist()
    report.add_rows(severity, tt.file, tt.lines[drop], message, field=field, values=shown)
    return tt.filter(~drop)


def require_values(
    tt: TypedTable, column: str, report: ValidationReport, *, severity: Severity = "warning"
) -> TypedTable:
    """Drop rows whose ``column`` is empty (or was unparseable)."""
    missing = tt.col(column).is_null().to_numpy(zero_copy_only=False)
    return drop_rows(
        tt, missing, report, f"missing {column}; row dropped", severity=severity, field=column
    )


def unique_key(tt: TypedTable, column: str, report: ValidationReport) -> TypedTable:
    """Drop rows with an empty ``column`` and every repeat of an id (the first one is kept)."""
    tt = require_values(tt, column, report)
    if len(tt) == 0:
        return tt
    codes = pc.dictionary_encode(tt.col(column)).indices.to_numpy(zero_copy_only=False)
    _, first = np.unique(codes, return_index=True)
    dup = np.ones(len(tt), dtype=bool)
    dup[first] = False
    return drop_rows(
        tt,
        dup,
        report,
        f"duplicate {column} '{{value}}'; the first one is kept",
        field=column,
        values=tt.col(column),
    )


def index_in(values: pa.Array, keys: pa.Array) -> tuple[Int32Array, BoolArray]:
    """Position of each of ``values`` in ``keys`` (unique), and where it was found."""
    if len(values) == 0:
        return np.zeros(0, dtype=np.int32), np.zeros(0, dtype=bool)
    if len(keys) == 0:
        return np.full(len(values), -1, dtype=np.int32), np.zeros(len(values), dtype=bool)
    pos = pc.index_in(values, value_set=keys)
    found = pos.is_valid().to_numpy(zero_copy_only=False)
    return pos.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int32), found
