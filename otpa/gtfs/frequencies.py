"""Expansion of frequency-based trips (frequencies.txt) into concrete trips."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from otpa.gtfs._arrays import ragged_arange
from otpa.gtfs._convert import STRING
from otpa.gtfs._times import format_times
from otpa.gtfs.report import ValidationReport
from otpa.types import IntArray

if TYPE_CHECKING:
    from otpa.gtfs.feed import GtfsFeed

__all__ = ["departures", "expand_frequencies"]


def departures(start: IntArray, end: IntArray, headway: IntArray) -> tuple[IntArray, IntArray]:
    """Departures of frequency periods: ``start + k * headway`` for every ``k`` with the
    departure in ``[start, end)``.

    Returns
    -------
    period
        Index of the period (row) of each departure.
    time
        Departure time in seconds.
    """
    start = np.asarray(start, dtype=np.int64)
    headway = np.asarray(headway, dtype=np.int64)
    counts = np.maximum(-(-(np.asarray(end, dtype=np.int64) - start) // headway), 0)
    period = np.repeat(np.arange(start.size), counts)
    return period, start[period] + ragged_arange(counts) * headway[period]


def expand_frequencies(feed: GtfsFeed) -> GtfsFeed:
    """Return a copy of ``feed`` where every trip with frequencies.txt rows is replaced by
    one concrete trip per departure.

    Each period yields departures at ``start_time + k * headway_secs`` before ``end_time``
    (for ``exact_times`` 0 as well as 1).  A new trip is the template trip with id
    ``"{trip_id}@{HH:MM:SS}"`` (its first departure) and stop times shifted so that offsets
    from the template's first departure are kept.  ``trips`` gains ``frequency_headway_s``
    (int32: the headway for ``exact_times`` 0 trips, which only approximate a schedule; 0 for
    scheduled and exact-times trips), ``exact_times`` (Int8, ``<NA>`` for scheduled trips) and
    ``template_trip_id`` (``<NA>`` for scheduled trips).  The frequencies frame of the result
    keeps only rows that could not be expanded (templates without scheduled stop times).
    """
    trips, st, freq = feed.trips, feed.stop_times, feed.frequencies
    n_trips = len(trips)
    tpos = pd.Index(trips["trip_id"]).get_indexer(freq["trip_id"])
    counts = np.bincount(st["trip_index"].to_numpy(), minlength=n_trips)
    offsets = np.concatenate([[0], np.cumsum(counts)])
    expandable = (tpos >= 0) & (counts[np.maximum(tpos, 0)] >= 2)
    f = freq.loc[expandable]
    tpos = tpos[expandable]
    period, dep = departures(
        f["start_time"].to_numpy(), f["end_time"].to_numpy(), f["headway_secs"].to_numpy()
    )
    template = tpos[period]
    exact = f["exact_times"].to_numpy()[period]
    headway = f["headway_secs"].to_numpy()[period]
    template_ids = trips["trip_id"].to_numpy(dtype=object)[template]
    new_ids = template_ids + "@" + format_times(dep)
    report = ValidationReport(list(feed.report.issues))  # issues are immutable
    _, first = np.unique(new_ids.astype(str), return_index=True)
    if first.size < new_ids.size:
        first.sort()
        report.add(
            "warning",
            "frequencies.txt",
            f"{new_ids.size - first.size} departures repeated by overlapping periods were dropped",
        )
        template, exact, headway, new_ids, dep = (
            a[first] for a in (template, exact, headway, new_ids, dep)
        )

    is_template = np.zeros(n_trips, dtype=bool)
    is_template[tpos] = True
    kept = np.flatnonzero(~is_template)
    new_trips = pd.concat(
        [trips.iloc[kept], trips.iloc[template].assign(trip_id=pd.array(new_ids, dtype=STRING))],
        ignore_index=True,
    )
    n_kept = kept.size
    new_trips["frequency_headway_s"] = np.concatenate(
        [np.zeros(n_kept, np.int32), np.where(exact == 0, headway, 0).astype(np.int32)]
    )
    new_trips["exact_times"] = pd.arrays.IntegerArray(
        np.concatenate([np.zeros(n_kept, np.int8), exact.astype(np.int8)]),
        np.concatenate([np.ones(n_kept, bool), np.zeros(template.size, bool)]),
    )
    new_trips["template_trip_id"] = pd.array(
        np.concatenate(
            [np.full(n_kept, None, dtype=object), trips["trip_id"].to_numpy(dtype=object)[template]]
        ),
        dtype=STRING,
    )
    order = np.argsort(new_trips["trip_id"].to_numpy(dtype=str), kind="stable")
    new_trips = new_trips.iloc[order].reset_index(drop=True)
    new_pos = np.empty(order.size, dtype=np.int64)
    new_pos[order] = np.arange(order.size)

    # stop times: kept trips' rows, then template rows repeated per departure
    old_tidx = st["trip_index"].to_numpy()
    kept_rows = np.flatnonzero(~is_template[old_tidx])
    old_to_kept = np.full(n_trips, -1, dtype=np.int64)
    old_to_kept[kept] = np.arange(n_kept)
    reps = counts[template]
    rows = np.repeat(offsets[template], reps) + ragged_arange(reps)
    first_dep = st["departure_time"].to_numpy()[offsets[template]].astype(np.int64)
    shift = np.repeat(dep - first_dep, reps)
    gather = np.concatenate([kept_rows, rows])
    new_st = st.iloc[gather].reset_index(drop=True)
    n_kept_rows = kept_rows.size
    for col in ("arrival_time", "departure_time"):
        values = new_st[col].to_numpy().astype(np.int64)
        values[n_kept_rows:] += shift
        new_st[col] = values.astype(np.int32)
    trip_index = np.concatenate(
        [
            new_pos[old_to_kept[old_tidx[kept_rows]]],
            new_pos[n_kept + np.repeat(np.arange(template.size), reps)],
        ]
    ).astype(np.int32)
    new_st["trip_id"] = new_trips["trip_id"].to_numpy()[trip_index]
    new_st["trip_index"] = trip_index
    st_order = np.lexsort((new_st["stop_sequence"].to_numpy(), trip_index))
    new_st = new_st.iloc[st_order].reset_index(drop=True)
    new_st["trip_id"] = new_st["trip_id"].astype(STRING)

    flex = feed.flex_stop_times
    if len(flex):
        flex = flex.copy()
        flex["trip_index"] = (
            pd.Index(new_trips["trip_id"]).get_indexer(flex["trip_id"]).astype(np.int32)
        )
    return dataclasses.replace(
        feed,
        report=report,
        trips=new_trips,
        stop_times=new_st,
        frequencies=freq.loc[~expandable].reset_index(drop=True),
        flex_stop_times=flex,
    )
