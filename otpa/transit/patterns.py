"""Group trips into non-overtaking trip patterns (RAPTOR's unit of scanning)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from otpa.types import Int32Array, IntArray, UInt8Array

__all__ = ["PatternArrays", "build_patterns", "patterns_of", "stop_pattern_index"]


@dataclass(frozen=True)
class PatternArrays:
    """Pattern arrays as described in :mod:`otpa.transit.model`, plus ``trip_pattern``."""

    pattern_route: Int32Array
    pattern_stop_offsets: IntArray
    pattern_stops: Int32Array
    pattern_pickup: UInt8Array
    pattern_dropoff: UInt8Array
    pattern_trip_offsets: IntArray
    pattern_trips: Int32Array
    pattern_time_offsets: IntArray
    arrival_s: Int32Array
    departure_s: Int32Array
    stop_sequence: Int32Array
    trip_pattern: Int32Array

    def model_fields(self, n_stops: int) -> dict[str, Any]:
        """The :class:`~otpa.transit.model.TransitModel` fields of these patterns.

        The pattern arrays and the stop -> pattern index over ``n_stops`` stops
        (``trip_pattern`` is not a model field).
        """
        sp_off, sp_pat, sp_pos = stop_pattern_index(
            n_stops, self.pattern_stop_offsets, self.pattern_stops
        )
        fields = {k: v for k, v in vars(self).items() if k != "trip_pattern"}
        fields.update(stop_pattern_offsets=sp_off, stop_patterns=sp_pat, stop_pattern_pos=sp_pos)
        return fields


def _split_overtaking(order: list[int], dep: np.ndarray, arr: np.ndarray) -> list[list[int]]:
    """Split trips (sorted by first departure) so that no trip overtakes another.

    Each trip goes into the first group whose last trip it neither overtakes
    nor is overtaken by at any stop; groups stay FIFO, which RAPTOR's
    binary-search boarding needs.
    """
    groups: list[list[int]] = []
    for t in order:
        for group in groups:
            last = group[-1]
            if np.all(dep[t] >= dep[last]) and np.all(arr[t] >= arr[last]):
                group.append(t)
                break
        else:
            groups.append([t])
    return groups


def build_patterns(
    *,
    n_trips: int,
    trip_route: Int32Array,
    st_trip: Int32Array,
    st_stop: Int32Array,
    st_arrival: Int32Array,
    st_departure: Int32Array,
    st_sequence: Int32Array,
    st_pickup: UInt8Array,
    st_dropoff: UInt8Array,
) -> PatternArrays:
    """Build trip patterns from stop times sorted by (trip, stop_sequence).

    Parameters
    ----------
    n_trips
        Number of trips; trips without stop times get pattern -1.
    trip_route
        Route index of each trip.
    st_trip, st_stop, st_arrival, st_departure, st_sequence, st_pickup, st_dropoff
        Stop-time columns, sorted by trip then stop sequence.

    Returns
    -------
    PatternArrays
        The pattern arrays.
    """
    trip_pattern = np.full(n_trips, -1, dtype=np.int32)
    if len(st_trip) == 0:
        z64 = np.zeros(1, dtype=np.int64)
        e32 = np.zeros(0, dtype=np.int32)
        e8 = np.zeros(0, dtype=np.uint8)
        return PatternArrays(e32, z64, e32, e8, e8, z64, e32, z64, e32, e32, e32, trip_pattern)
    starts = np.flatnonzero(np.r_[True, st_trip[1:] != st_trip[:-1]])
    ends = np.r_[starts[1:], len(st_trip)]
    keys: dict[bytes, list[int]] = {}
    for a, b in zip(starts.tolist(), ends.tolist(), strict=True):
        trip = int(st_trip[a])
        key = (
            int(trip_route[trip]).to_bytes(4, "little", signed=True)
            + st_stop[a:b].tobytes()
            + st_pickup[a:b].tobytes()
            + st_dropoff[a:b].tobytes()
        )
        keys.setdefault(key, []).append(a)

    out_route: list[int] = []
    stop_chunks: list[np.ndarray] = []
    pickup_chunks: list[np.ndarray] = []
    dropoff_chunks: list[np.ndarray] = []
    trip_chunks: list[np.ndarray] = []
    arr_chunks: list[np.ndarray] = []
    dep_chunks: list[np.ndarray] = []
    seq_chunks: list[np.ndarray] = []
    for starts_of_key in keys.values():
        a0 = starts_of_key[0]
        trip0 = int(st_trip[a0])
        n = int(ends[np.searchsorted(starts, a0)] - a0)
        rows = np.asarray(starts_of_key)[:, None] + np.arange(n)[None, :]
        dep = st_departure[rows]
        arr = st_arrival[rows]
        order = np.lexsort((arr[:, 0], dep[:, 0])).tolist()
        for group in _split_overtaking(order, dep, arr):
            pattern = len(out_route)
            group_rows = rows[group]
            group_trips = st_trip[group_rows[:, 0]]
            trip_pattern[group_trips] = pattern
            out_route.append(int(trip_route[trip0]))
            stop_chunks.append(st_stop[a0 : a0 + n])
            pickup_chunks.append(st_pickup[a0 : a0 + n])
            dropoff_chunks.append(st_dropoff[a0 : a0 + n])
            trip_chunks.append(group_trips.astype(np.int32))
            arr_chunks.append(st_arrival[group_rows].ravel())
            dep_chunks.append(st_departure[group_rows].ravel())
            seq_chunks.append(st_sequence[group_rows].ravel())

    def offsets(chunks: list[np.ndarray]) -> IntArray:
        out: IntArray = np.r_[0, np.cumsum([len(c) for c in chunks])].astype(np.int64)
        return out

    return PatternArrays(
        pattern_route=np.asarray(out_route, dtype=np.int32),
        pattern_stop_offsets=offsets(stop_chunks),
        pattern_stops=np.concatenate(stop_chunks).astype(np.int32),
        pattern_pickup=np.concatenate(pickup_chunks).astype(np.uint8),
        pattern_dropoff=np.concatenate(dropoff_chunks).astype(np.uint8),
        pattern_trip_offsets=offsets(trip_chunks),
        pattern_trips=np.concatenate(trip_chunks).astype(np.int32),
        pattern_time_offsets=offsets(arr_chunks),
        arrival_s=np.concatenate(arr_chunks).astype(np.int32),
        departure_s=np.concatenate(dep_chunks).astype(np.int32),
        stop_sequence=np.concatenate(seq_chunks).astype(np.int32),
        trip_pattern=trip_pattern,
    )


def patterns_of(trip_route: Int32Array, st: Mapping[str, np.ndarray]) -> PatternArrays:
    """:func:`build_patterns` over a stop-times table given as columns ``trip``, ``stop``,
    ``arr``, ``dep``, ``seq``, ``pick``, ``drop`` (trip indices into ``trip_route``)."""
    return build_patterns(
        n_trips=len(trip_route),
        trip_route=np.asarray(trip_route, dtype=np.int32),
        st_trip=st["trip"].astype(np.int32),
        st_stop=st["stop"].astype(np.int32),
        st_arrival=st["arr"].astype(np.int32),
        st_departure=st["dep"].astype(np.int32),
        st_sequence=st["seq"].astype(np.int32),
        st_pickup=st["pick"].astype(np.uint8),
        st_dropoff=st["drop"].astype(np.uint8),
    )


def stop_pattern_index(
    n_stops: int, pattern_stop_offsets: IntArray, pattern_stops: Int32Array
) -> tuple[IntArray, Int32Array, Int32Array]:
    """CSR of the patterns calling at each stop: ``(offsets, patterns, positions)``."""
    n_patterns = len(pattern_stop_offsets) - 1
    lengths = np.diff(pattern_stop_offsets)
    pat = np.repeat(np.arange(n_patterns, dtype=np.int32), lengths)
    pos = (np.arange(len(pattern_stops)) - np.repeat(pattern_stop_offsets[:-1], lengths)).astype(
        np.int32
    )
    order = np.lexsort((pos, pat, pattern_stops))
    counts = np.bincount(pattern_stops, minlength=n_stops)
    offs = np.r_[0, np.cumsum(counts)].astype(np.int64)
    return offs, pat[order], pos[order]
