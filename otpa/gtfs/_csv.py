"""Fast, tolerant reading of one GTFS CSV file into an Arrow table of strings.

Every column is read as text (``pyarrow.csv``, multi-threaded); typing happens later so that a
bad value never makes a whole file unreadable.  Tolerated: UTF-8 BOM, CRLF, quoted fields,
spaces around header names, non-UTF-8 bytes (read as Latin-1, with a warning), rows with
missing trailing fields (read as empty) and rows with extra fields (skipped, with a warning).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

from otpa.gtfs._source import FeedSource
from otpa.gtfs.report import ValidationReport
from otpa.types import Int32Array

__all__ = ["RawTable", "read_raw_table"]

_BOM = b"\xef\xbb\xbf"


@dataclass
class RawTable:
    """A GTFS file as read: all columns are Arrow strings (empty -> null).

    Attributes
    ----------
    file
        File name (``"stops.txt"``).
    table
        The data rows.
    lines
        1-based line number of each row in the file (header = line 1).  Exact unless quoted
        fields span several lines or blank lines sit between rows.
    """

    file: str
    table: pa.Table
    lines: Int32Array

    @property
    def columns(self) -> list[str]:
        """Column names (stripped)."""
        return list(self.table.column_names)

    def __len__(self) -> int:
        return int(self.table.num_rows)


def _parse_header(first_line: bytes, file: str, report: ValidationReport) -> list[str]:
    """Return the column names of a header line (BOM, quotes and spaces removed)."""
    raw = first_line.rstrip(b"\r\n")
    if raw.startswith(_BOM):
        raw = raw[len(_BOM) :]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    row = next(csv.reader([text]), [])
    names: list[str] = []
    for i, name in enumerate(row):
        clean = name.strip().strip("\ufeff").strip().strip('"').strip()
        if not clean:
            clean = f"_unnamed_{i}"
        if clean in names:
            report.add("warning", file, f"duplicate column {clean!r}; later one ignored", line=1)
            clean = f"_duplicate_{i}_{clean}"
        names.append(clean)
    return names


def _arrow_read(
    stream: pa.NativeFile, names: list[str], *, encoding: str, threads: bool, skip_rows: int = 0
) -> tuple[pa.Table, list[tuple[int | None, int, str]]]:
    bad: list[tuple[int | None, int, str]] = []

    def on_invalid(row: pcsv.InvalidRow) -> str:
        bad.append((row.number, row.actual_columns, row.text))
        return "skip"

    table = pcsv.read_csv(
        stream,
        read_options=pcsv.ReadOptions(
            column_names=names, encoding=encoding, use_threads=threads, skip_rows=skip_rows
        ),
        parse_options=pcsv.ParseOptions(invalid_row_handler=on_invalid),
        convert_options=pcsv.ConvertOptions(
            column_types=dict.fromkeys(names, pa.string()),
            strings_can_be_null=True,
            quoted_strings_can_be_null=True,
            null_values=[""],
        ),
    )
    return table, bad


def _pandas_read(body: bytes, names: list[str], encoding: str) -> pa.Table:
    """Slow path for files with short rows: the C parser pads them with empty values."""
    df = pd.read_csv(
        io.BytesIO(body),
        header=None,
        names=names,
        dtype=str,
        keep_default_na=False,
        na_values=[""],
        engine="c",
        on_bad_lines="skip",
        index_col=False,
        encoding=encoding,
    )
    arrays = [pa.array(df[c].to_numpy(dtype=object, na_value=None), pa.string()) for c in names]
    return pa.Table.from_arrays(arrays, names=names)


def _drop_empty_rows(table: pa.Table, lines: Int32Array) -> tuple[pa.Table, Int32Array]:
    if table.num_rows == 0 or table.num_columns == 0:
        return table, lines
    empty = np.ones(table.num_rows, dtype=bool)
    for col in table.itercolumns():
        if col.null_count == 0:
            return table, lines
        empty &= col.is_null().to_numpy(zero_copy_only=False)
    if not empty.any():
        return table, lines
    keep = ~empty
    return table.filter(pa.array(keep)), lines[keep]


def read_raw_table(source: FeedSource, file: str, report: ValidationReport) -> RawTable:
    """Read ``file`` from ``source`` as a :class:`RawTable` (the file must exist).

    The common case goes straight through the multi-threaded Arrow parser; odd files (bad
    UTF-8, rows with a wrong number of fields) are parsed again on a slower, more tolerant
    path.
    """
    header = source.header_line(file)
    names = _parse_header(header, file, report)
    if not names:
        return RawTable(file, pa.table({}), np.zeros(0, dtype=np.int32))
    empty = RawTable(
        file, pa.table({n: pa.array([], pa.string()) for n in names}), np.zeros(0, np.int32)
    )
    try:
        table, bad = _arrow_read(
            source.arrow_stream(file), names, encoding="utf8", threads=True, skip_rows=1
        )
    except pa.ArrowInvalid as exc:
        text = str(exc).lower()
        if "empty csv" in text or "could not skip initial" in text:
            return empty  # header only
        if "utf8" not in text and "utf-8" not in text:
            raise
        table, bad = pa.table({}), [(None, -1, "")]
    except OSError as exc:  # e.g. "zlib inflate failed: incorrect data check"
        raise source.corrupt(exc) from exc
    if not bad:
        lines = np.arange(table.num_rows, dtype=np.int32) + 2
        return RawTable(file, *_drop_empty_rows(table, lines))
    data = source.read_bytes(file)
    body = pa.py_buffer(data).slice(len(header))
    encoding = "utf8"
    if any(n == -1 for _, n, _ in bad):
        encoding = "latin-1"
        report.add("warning", file, "file is not valid UTF-8; read as Latin-1")
    table, bad = _arrow_read(pa.BufferReader(body), names, encoding=encoding, threads=False)
    skipped = np.zeros(0, dtype=np.int64)
    n_cols = len(names)
    long_rows = sorted((n or 0) + 1 for n, a, _ in bad if a > n_cols)
    if len(long_rows) < len(bad):
        table = _pandas_read(data[len(header) :], names, encoding)
        report.add(
            "warning",
            file,
            f"{len(bad) - len(long_rows)} row(s) have fewer fields than the header; "
            "missing fields read as empty",
        )
    if long_rows:
        skipped = np.array(long_rows, dtype=np.int64)
        report.add_rows(
            "warning",
            file,
            skipped,
            f"row has more fields than the {n_cols} header columns; row skipped",
        )
    lines = np.arange(table.num_rows, dtype=np.int64) + 2
    if skipped.size:
        # the i-th kept row lies after every skipped line L_k with L_k - k - 2 <= i
        shifted = skipped - np.arange(skipped.size) - 2
        lines += np.searchsorted(shifted, lines - 2, side="right")
    return RawTable(file, *_drop_empty_rows(table, lines.astype(np.int32)))


def _one_chunk(col: pa.ChunkedArray) -> pa.Array:
    return col.chunk(0) if col.num_chunks == 1 else col.combine_chunks()


def column_or_null(raw: RawTable, name: str) -> pa.Array:
    """Return column ``name`` as one Arrow string array, or all nulls if absent."""
    if name in raw.table.column_names:
        return _one_chunk(raw.table.column(name))
    return pa.nulls(len(raw), pa.string())


def strip_strings(arr: pa.Array) -> pa.Array:
    """Trim whitespace around every value (only when needed) and turn empty strings to null."""
    if len(arr) == 0 or arr.null_count == len(arr):
        return arr
    if not _has_outer_space(arr):
        return arr
    trimmed = pc.utf8_trim_whitespace(arr)
    return pc.if_else(pc.equal(trimmed, ""), pa.scalar(None, pa.string()), trimmed)


def _has_outer_space(arr: pa.Array) -> bool:
    """Cheap check on the raw buffers: does any value start or end with whitespace?"""
    if arr.type != pa.string():
        return True
    buffers = arr.buffers()
    if buffers[2] is None:
        return False
    offsets = np.frombuffer(buffers[1], dtype=np.int32)[arr.offset : arr.offset + len(arr) + 1]
    data = np.frombuffer(buffers[2], dtype=np.uint8)
    if not (data[offsets[0] : offsets[-1]] <= 32).any():  # no blank byte at all: done
        return False
    starts, ends = offsets[:-1], offsets[1:]
    nonempty = ends > starts
    if not nonempty.any():
        return False
    first = data[starts[nonempty]]
    last = data[ends[nonempty] - 1]
    space = (first <= 32) | (last <= 32)
    return bool(space.any())
