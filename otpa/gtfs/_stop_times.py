"""Cleaning of stop_times.txt: references, flex rows, malformed / missing times, interpolation.

Everything is vectorised over the rows; Python loops only run over reported issues (capped).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from otpa.gtfs._arrays import group_order, group_starts
from otpa.gtfs._convert import TypedTable
from otpa.gtfs._keys import index_in
from otpa.gtfs.report import Severity, ValidationReport
from otpa.types import BoolArray, Int32Array, IntArray

__all__ = ["StopTimesResult", "clean_stop_times"]


@dataclass
class StopTimesResult:
    """Outcome of :func:`clean_stop_times` (row positions refer to the typed stop_times).

    Attributes
    ----------
    rows
        Scheduled rows kept, sorted by (trip position, stop_sequence).
    arrival, departure
        Their times in seconds (interpolated where they were blank).
    trip_pos, stop_pos
        Their trip position in ``trips`` and stop position in ``stops``.
    flex_rows
        Rows of flex trips (kept whole), sorted the same way.
    flex_trip_pos
        Their trip positions.
    usable_trips
        Per trip: has at least two scheduled rows, or is a flex trip.
    interpolated
        Per kept scheduled row: its times were blank and have been interpolated.
    """

    rows: IntArray
    arrival: Int32Array
    departure: Int32Array
    trip_pos: Int32Array
    stop_pos: Int32Array
    flex_rows: IntArray
    flex_trip_pos: Int32Array
    usable_trips: BoolArray
    interpolated: BoolArray


def _null_mask(arr: pa.Array) -> BoolArray:
    if arr.null_count == 0:
        return np.zeros(len(arr), dtype=bool)
    return np.asarray(arr.is_null().to_numpy(zero_copy_only=False), dtype=bool)


def _ints(tt: TypedTable, name: str) -> tuple[Int32Array, BoolArray]:
    """Integer column as int32 numpy (nulls -> 0) and its null mask."""
    col = tt.col(name)
    missing = _null_mask(col)
    if col.null_count:
        col = col.fill_null(0)
    return col.to_numpy(zero_copy_only=False).astype(np.int32, copy=False), missing


class _Cleaner:
    """Reporting helpers shared by the steps below (one instance per call)."""

    def __init__(self, st: TypedTable, trips: TypedTable, report: ValidationReport) -> None:
        self.st = st
        self.trips = trips
        self.report = report
        self.trip_ids = trips.col("trip_id")
        self.bad_trip = np.zeros(len(trips), dtype=bool)

    def rows(
        self,
        severity: Severity,
        mask: BoolArray,
        message: str,
        *,
        field: str | None = None,
        values: pa.Array | None = None,
    ) -> None:
        if not mask.any():
            return
        shown = None if values is None else values.filter(pa.array(mask)).to_pylist()
        self.report.add_rows(
            severity, self.st.file, self.st.lines[mask], message, field=field, values=shown
        )

    def per_trip(self, severity: Severity, rows: IntArray, tpos: np.ndarray, message: str) -> None:
        """One issue per trip, at stop_times row ``rows``; ``{trip}`` names the trip."""
        if rows.size == 0:
            return
        names = self.trip_ids.take(pa.array(tpos)).to_pylist()
        self.report.add_rows(
            severity,
            self.st.file,
            self.st.lines[rows],
            message.replace("{trip}", "'{value}'"),
            field="trip_id",
            values=names,
        )


def _interpolate(
    arr: Int32Array, dep: Int32Array, missing: BoolArray, dist: np.ndarray, starts: IntArray
) -> None:
    """Fill missing times in place, linearly between the surrounding timed stops of a trip.

    By ``shape_dist_traveled`` when the trip has it on every row (and it grows between the
    two timed stops), else evenly by stop index.  First and last rows must be timed.
    """
    n = arr.size
    idx = np.arange(n)
    prev = np.maximum.accumulate(np.where(missing, -1, idx))
    nxt = np.minimum.accumulate(np.where(missing, n, idx)[::-1])[::-1]
    counts = np.diff(np.append(starts, n))
    trip_has_dist = np.logical_and.reduceat(~np.isnan(dist), starts)
    x = np.where(np.repeat(trip_has_dist, counts), dist, idx.astype(np.float64))
    i = np.flatnonzero(missing)
    p, q = prev[i], nxt[i]
    span = x[q] - x[p]
    frac = (x[i] - x[p]) / np.where(span > 0, span, 1.0)
    frac = np.where((span <= 0) | (frac < 0) | (frac > 1), (i - p) / (q - p), frac)
    t = np.round(dep[p] + frac * (arr[q] - dep[p])).astype(np.int32)
    arr[i] = t
    dep[i] = t


def clean_stop_times(
    st: TypedTable,
    trips: TypedTable,
    stops: TypedTable,
    flex_locations: pa.Array,
    report: ValidationReport,
) -> StopTimesResult:
    """Validate and normalise stop_times (see ``otpa/gtfs/README.md``)."""
    c = _Cleaner(st, trips, report)
    n_trips = len(trips)
    trip_id = st.col("trip_id")
    tpos, tfound = index_in(trip_id, c.trip_ids)
    keep = ~_null_mask(trip_id)
    c.rows("warning", ~keep, "missing trip_id; row dropped", field="trip_id")
    c.rows(
        "warning",
        keep & ~tfound,
        "unknown or dropped trip_id '{value}'; row dropped",
        field="trip_id",
        values=trip_id,
    )
    keep &= tfound
    tsafe = np.where(keep, tpos, 0)

    stop_id = st.col("stop_id")
    spos, sfound = index_in(stop_id, stops.col("stop_id"))
    arr, arr_missing = _ints(st, "arrival_time")
    dep, dep_missing = _ints(st, "departure_time")
    arr_missing &= ~st.bad("arrival_time")
    dep_missing &= ~st.bad("departure_time")
    flex_row = _flex_rows(st, stop_id, sfound, flex_locations, arr_missing & dep_missing)
    flex_row &= keep
    flex_trip = np.zeros(n_trips, dtype=bool)
    flex_trip[tpos[flex_row]] = True
    is_flex = keep & flex_trip[tsafe]
    sched = keep & ~is_flex

    no_stop = _null_mask(stop_id)
    c.rows("warning", sched & no_stop, "missing stop_id; row dropped", field="stop_id")
    c.rows(
        "warning",
        sched & ~sfound & ~no_stop,
        "unknown stop_id '{value}'; row dropped",
        field="stop_id",
        values=stop_id,
    )
    sched &= sfound
    for col in ("arrival_time", "departure_time"):
        bad = sched & st.bad(col)
        c.rows(
            "error",
            bad,
            f"malformed time '{{value}}' in {col}; its trip is dropped",
            field=col,
            values=st.raw_values(col),
        )
        c.bad_trip[tpos[bad]] = True
    seq_all, seq_missing = _ints(st, "stop_sequence")
    no_seq = sched & seq_missing
    c.rows(
        "error",
        no_seq,
        "missing or invalid stop_sequence; its trip is dropped",
        field="stop_sequence",
    )
    c.bad_trip[tpos[no_seq]] = True
    sched &= ~c.bad_trip[tsafe]

    rows = np.flatnonzero(sched)
    rows = rows[group_order(tpos[rows], seq_all[rows])]
    tp = tpos[rows]
    _report_repeated_sequence(c, rows, tp, seq_all[rows])
    # a missing arrival takes the departure and vice versa
    a, d = arr[rows], dep[rows]
    am, dm = arr_missing[rows], dep_missing[rows]
    a = np.where(am, d, a)
    d = np.where(dm, a, d)
    missing = am & dm
    keep_rows = _check_trips(c, rows, tp, missing, flex_trip)
    rows, tp, a, d, missing = (
        rows[keep_rows],
        tp[keep_rows],
        a[keep_rows],
        d[keep_rows],
        missing[keep_rows],
    )
    starts = group_starts(tp)
    if missing.any():
        dist = st.numpy("shape_dist_traveled", np.nan)[rows]
        _interpolate(a, d, missing, dist, starts)
        n_trips_interp = int(np.unique(tp[missing]).size)
        report.add(
            "warning",
            st.file,
            f"interpolated {int(missing.sum())} missing times in {n_trips_interp} trip(s)",
            field="arrival_time",
        )
    _report_backwards(c, rows, tp, a, d)

    usable = np.zeros(n_trips, dtype=bool)
    usable[tp] = True
    usable |= flex_trip & ~c.bad_trip
    flex = np.flatnonzero(is_flex)
    flex = flex[group_order(tpos[flex], seq_all[flex])]
    return StopTimesResult(
        rows=rows.astype(np.int64),
        arrival=a.astype(np.int32),
        departure=d.astype(np.int32),
        trip_pos=tp.astype(np.int32),
        stop_pos=spos[rows].astype(np.int32),
        flex_rows=flex.astype(np.int64),
        flex_trip_pos=tpos[flex].astype(np.int32),
        usable_trips=usable,
        interpolated=missing,
    )


def _flex_rows(
    st: TypedTable,
    stop_id: pa.Array,
    is_stop: BoolArray,
    flex_locations: pa.Array,
    untimed: BoolArray,
) -> BoolArray:
    """Rows served by a flex zone / location group, or untimed with a pickup window."""
    _, is_location = index_in(stop_id, flex_locations)
    flex = (is_location & ~is_stop) | ~_null_mask(st.col("location_id"))
    flex |= ~_null_mask(st.col("location_group_id"))
    window = ~_null_mask(st.col("start_pickup_drop_off_window"))
    window |= ~_null_mask(st.col("end_pickup_drop_off_window"))
    return flex | (untimed & window)


def _report_repeated_sequence(c: _Cleaner, rows: IntArray, tp: np.ndarray, seq: np.ndarray) -> None:
    dup = (tp[1:] == tp[:-1]) & (seq[1:] == seq[:-1])
    if dup.any():
        # both rows are kept, in file order (the ordering is stable): one warning per trip
        at = np.flatnonzero(dup) + 1
        _, first = np.unique(tp[at], return_index=True)
        at = at[first]
        c.per_trip(
            "warning",
            rows[at],
            tp[at],
            "stop_sequence repeats in trip {trip}; rows kept in file order",
        )


def _check_trips(
    c: _Cleaner, rows: IntArray, tp: np.ndarray, missing: BoolArray, flex_trip: BoolArray
) -> BoolArray:
    """Which rows to keep: trips with < 2 rows or an untimed first/last stop are dropped."""
    counts = np.bincount(tp, minlength=len(c.trips))
    none = (counts == 0) & ~flex_trip & ~c.bad_trip
    c.report.add_rows(
        "warning",
        "trips.txt",
        c.trips.lines[none],
        "trip '{value}' has no usable stop_times; trip dropped",
        field="trip_id",
        values=c.trip_ids.filter(pa.array(none)).to_pylist(),
    )
    starts = group_starts(tp)
    ends = np.append(starts[1:], rows.size)[: starts.size] - 1
    several = counts[tp[starts]] > 1
    single = ~several & ~flex_trip[tp[starts]]
    c.per_trip(
        "warning",
        rows[starts[single]],
        tp[starts[single]],
        "trip {trip} has only one stop_time; trip dropped",
    )
    first_missing = missing[starts] & several
    last_missing = missing[ends] & several & ~first_missing
    c.per_trip(
        "error",
        rows[starts[first_missing]],
        tp[starts[first_missing]],
        "no time at the first stop of trip {trip}; trip dropped",
    )
    c.per_trip(
        "error",
        rows[ends[last_missing]],
        tp[ends[last_missing]],
        "no time at the last stop of trip {trip}; trip dropped",
    )
    untimed = first_missing | last_missing
    c.bad_trip[tp[starts[untimed]]] = True
    drop = np.zeros(len(c.trips), dtype=bool)
    drop[tp[starts[single | untimed]]] = True
    return np.asarray(~drop[tp], dtype=bool)


def _report_backwards(
    c: _Cleaner, rows: IntArray, tp: np.ndarray, arr: Int32Array, dep: Int32Array
) -> None:
    """Warn (once per trip, at the first offending row) about times going backwards."""
    if rows.size == 0:
        return
    back = dep < arr
    back[1:] |= (arr[1:] < dep[:-1]) & (tp[1:] == tp[:-1])
    if not back.any():
        return
    offending = np.flatnonzero(back)
    _, first = np.unique(tp[offending], return_index=True)
    at = offending[first]
    c.per_trip("warning", rows[at], tp[at], "times go backwards in trip {trip}; kept as is")
