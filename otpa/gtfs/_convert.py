"""Typing of raw (all-text) GTFS tables: Arrow strings -> typed Arrow arrays -> pandas."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from otpa.gtfs._csv import RawTable, column_or_null, strip_strings
from otpa.gtfs._schema import ColumnSpec, FileSpec
from otpa.gtfs._times import parse_times
from otpa.gtfs.report import ValidationReport
from otpa.types import BoolArray, Int32Array

__all__ = ["STRING", "TypedTable", "arrow_type", "empty_frame", "to_frame", "type_table"]

#: pandas dtype of every text / id column
STRING = pd.StringDtype("pyarrow")

_INT_RE = r"^[+-]?\d+(\.0*)?$"
_FLOAT_RE = r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$"
_INT_TYPES = {8: pa.int8(), 16: pa.int16(), 32: pa.int32()}


def arrow_type(spec: ColumnSpec) -> pa.DataType:
    """Arrow type of a typed column."""
    if spec.kind == "str":
        return pa.string()
    if spec.kind == "float":
        return pa.float64()
    if spec.kind in ("time", "date"):
        return pa.int32()
    return _INT_TYPES[spec.width]


@dataclass
class TypedTable:
    """A GTFS file with typed columns.

    Attributes
    ----------
    file
        File name.
    table
        Every column of the spec (absent ones all-null), then kept extra columns (text).
    lines
        1-based line of each row.
    present
        Spec columns that were in the file.
    invalid
        Per column: rows whose non-empty value could not be parsed (now null).
    raw
        The original text of the columns listed in ``invalid`` (for messages).
    """

    file: str
    table: pa.Table
    lines: Int32Array
    present: set[str]
    invalid: dict[str, BoolArray] = field(default_factory=dict)
    raw: dict[str, pa.Array] = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.table.num_rows)

    def col(self, name: str) -> pa.Array:
        """One column as a single Arrow array."""
        c = self.table.column(name)
        if isinstance(c, pa.ChunkedArray):
            return c.chunk(0) if c.num_chunks == 1 else c.combine_chunks()
        return c

    def numpy(self, name: str, fill: float = 0) -> np.ndarray:
        """One numeric column as numpy, nulls replaced by ``fill``."""
        c = self.col(name)
        if fill != fill and not pa.types.is_floating(c.type):  # NaN: needs a float column
            c = c.cast(pa.float64())
        if c.null_count:
            c = c.fill_null(pa.scalar(fill, c.type))
        return np.asarray(c.to_numpy(zero_copy_only=False))

    def filter(self, keep: BoolArray) -> TypedTable:
        """Rows where ``keep`` is true."""
        if bool(keep.all()):
            return self
        return TypedTable(
            self.file,
            self.table.filter(pa.array(keep)),
            self.lines[keep],
            self.present,
            {k: v[keep] for k, v in self.invalid.items()},
            {k: v.filter(pa.array(keep)) for k, v in self.raw.items()},
        )

    def take(self, order: np.ndarray) -> TypedTable:
        """Rows in the given order (positions)."""
        return TypedTable(
            self.file,
            self.table.take(pa.array(order)),
            self.lines[order],
            self.present,
            {k: v[order] for k, v in self.invalid.items()},
            {k: v.take(pa.array(order)) for k, v in self.raw.items()},
        )

    def bad(self, name: str) -> BoolArray:
        """Rows whose value of ``name`` was present but unparseable."""
        return self.invalid.get(name, np.zeros(len(self), dtype=bool))

    def raw_values(self, name: str) -> pa.Array | None:
        """Original text of ``name`` if it had unparseable values."""
        return self.raw.get(name)

    def set(self, name: str, values: pa.Array | np.ndarray) -> None:
        """Replace or add a column."""
        arr = values if isinstance(values, pa.Array) else pa.array(values)
        names = self.table.column_names
        if name in names:
            self.table = self.table.set_column(names.index(name), name, arr)
        else:
            self.table = self.table.append_column(name, arr)


def _parse_numbers(
    arr: pa.Array, target: pa.DataType, pattern: str
) -> tuple[pa.Array, BoolArray | None]:
    """Cast text to numbers; values not matching ``pattern`` become null (and are flagged)."""
    if arr.null_count == len(arr):
        return pa.nulls(len(arr), target), None
    try:
        return pc.cast(arr, target), None
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    good = pc.fill_null(pc.match_substring_regex(arr, pattern), True)
    bad = ~good.to_numpy(zero_copy_only=False)
    clean = pc.if_else(good, arr, pa.scalar(None, pa.string()))
    if pa.types.is_integer(target):
        clean = pc.replace_substring_regex(clean, r"\.0*$", "")
        wide = pc.cast(clean, pa.int64())
        info = np.iinfo(target.to_pandas_dtype())
        inside = pc.fill_null(
            pc.and_(pc.greater_equal(wide, info.min), pc.less_equal(wide, info.max)), True
        )
        bad |= ~inside.to_numpy(zero_copy_only=False)
        wide = pc.if_else(inside, wide, pa.scalar(None, pa.int64()))
        return pc.cast(wide, target), bad
    return pc.cast(clean, target), bad


def _valid_dates(values: np.ndarray) -> BoolArray:
    """Which YYYYMMDD integers are real calendar dates (years 1900..2199)."""
    y, md = np.divmod(values.astype(np.int64), 10000)
    m, d = np.divmod(md, 100)
    ok = (y >= 1900) & (y < 2200) & (m >= 1) & (m <= 12) & (d >= 1)
    month = (np.where(ok, y, 1970) - 1970) * 12 + np.where(ok, m, 1) - 1
    start = month.astype("datetime64[M]").astype("datetime64[D]")
    days = ((month + 1).astype("datetime64[M]").astype("datetime64[D]") - start).astype(int)
    return np.asarray(ok & (d <= days), dtype=bool)


def _convert(arr: pa.Array, spec: ColumnSpec) -> tuple[pa.Array, BoolArray | None]:
    arr = strip_strings(arr)
    if spec.kind == "str":
        return arr, None
    if spec.kind == "time":
        seconds, missing, malformed = parse_times(arr, trim=False)
        return pa.array(seconds, mask=missing | malformed), malformed
    if spec.kind == "float":
        return _parse_numbers(arr, pa.float64(), _FLOAT_RE)
    if spec.kind == "date":
        values, bad = _parse_numbers(arr, pa.int32(), r"^\d{8}$")
        nums = values.fill_null(19700101).to_numpy(zero_copy_only=False)
        real = _valid_dates(nums) | np.asarray(values.is_null().to_numpy(zero_copy_only=False))
        if bad is None and bool(real.all()):
            return values, None
        bad = (np.zeros(len(arr), dtype=bool) if bad is None else bad) | ~real
        return pc.if_else(pa.array(real), values, pa.scalar(None, pa.int32())), bad
    values, bad = _parse_numbers(arr, _INT_TYPES[spec.width], _INT_RE)
    if spec.default is not None and values.null_count:
        values = values.fill_null(pa.scalar(spec.default, values.type))
    return values, bad


def type_table(
    raw: RawTable,
    spec: FileSpec,
    report: ValidationReport,
    *,
    keep_extra: bool = False,
) -> TypedTable:
    """Type every known column of ``raw``; report unparseable ints/floats as warnings.

    Unparseable times and dates are only flagged in :attr:`TypedTable.invalid`: the caller
    decides what to drop and reports it.
    """
    names = raw.columns
    rename = {a: c for a, c in spec.aliases.items() if a in names and c not in names}
    present = {rename.get(n, n) for n in names} & set(spec.columns)
    arrays: dict[str, pa.Array] = {}
    invalid: dict[str, BoolArray] = {}
    raw_text: dict[str, pa.Array] = {}
    for name, col_spec in spec.columns.items():
        source = next((a for a, c in rename.items() if c == name), name)
        arr, bad = _convert(column_or_null(raw, source), col_spec)
        arrays[name] = arr.cast(arrow_type(col_spec))
        if bad is None or not bad.any():
            continue
        invalid[name] = bad
        raw_text[name] = strip_strings(column_or_null(raw, source))
        if col_spec.kind in ("int", "float"):
            shown = column_or_null(raw, source).filter(pa.array(bad)).to_pylist()
            report.add_rows(
                "warning",
                raw.file,
                raw.lines[bad],
                f"invalid {col_spec.kind} '{{value}}' in {name}; read as empty",
                field=name,
                values=shown,
            )
    if keep_extra:
        for name in names:
            if name not in rename and name not in spec.columns and not name.startswith("_"):
                arrays[name] = strip_strings(column_or_null(raw, name))
    table = pa.Table.from_pydict(arrays) if arrays else pa.table({})
    return TypedTable(raw.file, table, raw.lines, present, invalid, raw_text)


def _series(arr: pa.Array | pa.ChunkedArray, spec: ColumnSpec | None) -> object:
    if spec is None or spec.kind == "str":
        return STRING.__from_arrow__(arr.cast(pa.string()))
    if spec.kind == "float":
        return arr.to_numpy(zero_copy_only=False).astype(np.float64)
    if spec.nullable:
        dtype = pd.api.types.pandas_dtype(f"Int{spec.width}")
        return dtype.__from_arrow__(arr)  # type: ignore[union-attr]
    return arr.to_numpy(zero_copy_only=False)


def to_frame(
    table: pa.Table,
    specs: dict[str, ColumnSpec],
    columns: list[str] | None = None,
) -> pd.DataFrame:
    """Convert typed Arrow columns to a pandas frame with the documented dtypes.

    Parameters
    ----------
    table
        Typed table (nullable ints may hold nulls; non-nullable ones must not).
    specs
        Column specs; columns without a spec are text (or already typed numeric extras).
    columns
        Output column order; defaults to the table's.
    """
    names = table.column_names if columns is None else columns
    data: dict[str, object] = {}
    for name in names:
        arr = table.column(name)
        spec = specs.get(name)
        if spec is None and not pa.types.is_string(arr.type):
            data[name] = arr.to_numpy()
            continue
        data[name] = _series(arr, spec)
    return pd.DataFrame(data, index=pd.RangeIndex(table.num_rows))


def empty_frame(spec: FileSpec) -> pd.DataFrame:
    """An empty frame with every column of ``spec`` and the documented dtypes."""
    arrays = {name: pa.array([], arrow_type(s)) for name, s in spec.columns.items()}
    return to_frame(pa.table(arrays), spec.columns)
