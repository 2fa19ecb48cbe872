"""Propagation: transit arrivals at stops -> travel times at destinations (numba).

For each destination and departure the travel time is the best of the street-only
time and, over the destination's egress links, the ride arrival at the stop plus the
egress time, minus the departure.  Times over the limit count as unreachable.  The
per-destination times over the departures are then reduced to percentiles with R5's
non-interpolated definition (index ``round(p / 100 * (n - 1))`` of the sorted times).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numba import njit

from otpa.types import Float32Array, FloatArray, Int32Array, IntArray

__all__ = ["percentile_ranks", "propagate"]


def percentile_ranks(percentiles: Sequence[int], n: int) -> IntArray:
    """Index into ``n`` sorted times of each percentile (round half up)."""
    return np.array([math.floor(p / 100.0 * (n - 1) + 0.5) for p in percentiles], dtype=np.int64)


@njit(cache=True, nogil=True)
def _best_per_stop(arr_t: FloatArray, dep: FloatArray) -> FloatArray:
    """Shortest time from any departure to each stop (links that cannot beat the limit
    with it are skipped)."""
    n_stops, n_dep = arr_t.shape
    best = np.empty(n_stops)
    for s in range(n_stops):
        b = math.inf
        for d in range(n_dep):
            t = arr_t[s, d] - dep[d]
            if t < b:
                b = t
        best[s] = b
    return best


@njit(cache=True, nogil=True)
def _propagate(
    arr_t: FloatArray,
    dep: FloatArray,
    indptr: IntArray,
    link_stop: Int32Array,
    link_time: Int32Array,
    direct: FloatArray,
    max_time: float,
    ranks: IntArray,
    out: Float32Array,
    by_dep: Float32Array,
    keep_by_dep: bool,
) -> None:
    n_pts = indptr.shape[0] - 1
    n_dep = dep.shape[0]
    best = _best_per_stop(arr_t, dep)
    buf = np.empty(n_dep)
    for p in range(n_pts):
        d0 = direct[p]
        for d in range(n_dep):
            buf[d] = d0
        for k in range(indptr[p], indptr[p + 1]):
            s = link_stop[k]
            lt = link_time[k]
            if best[s] + lt > max_time:
                continue
            row = arr_t[s]
            for d in range(n_dep):
                t = row[d] + lt - dep[d]
                if t < buf[d]:
                    buf[d] = t
        reached = False
        for d in range(n_dep):
            if buf[d] > max_time:
                buf[d] = math.inf
            else:
                reached = True
            if keep_by_dep:
                by_dep[d, p] = buf[d] if buf[d] < math.inf else math.nan
        if not reached:
            for j in range(ranks.shape[0]):
                out[j, p] = math.nan
            continue
        buf.sort()
        for j in range(ranks.shape[0]):
            v = buf[ranks[j]]
            out[j, p] = v if v < math.inf else math.nan


def propagate(
    arrivals: FloatArray,
    departures: FloatArray,
    indptr: IntArray,
    link_stop: Int32Array,
    link_time: Int32Array,
    direct_s: FloatArray,
    *,
    max_time_s: float,
    percentiles: Sequence[int],
    keep_by_departure: bool = False,
) -> tuple[Float32Array, Float32Array | None]:
    """Travel-time percentiles (and optionally every departure's times) per destination.

    Parameters
    ----------
    arrivals
        ``(n_departures, n_stops)`` ride arrival times (``inf``: not reached), in the
        same clock as ``departures``.
    departures
        The departure times.
    indptr, link_stop, link_time
        Egress table (CSR over destinations).
    direct_s
        Street-only travel time per destination (``inf``: none).
    max_time_s
        Longer trips are unreachable.
    percentiles
        Percentiles to report.
    keep_by_departure
        Also return the ``(n_departures, n_points)`` times.

    Returns
    -------
    (times, by_departure)
        ``float32`` seconds, NaN where unreachable: ``(n_percentiles, n_points)`` and
        the per-departure array or None.
    """
    n_dep = int(departures.shape[0])
    n_pts = int(indptr.shape[0]) - 1
    arr_t = np.ascontiguousarray(np.asarray(arrivals, dtype=np.float64).T)
    out = np.empty((len(percentiles), n_pts), dtype=np.float32)
    by_dep = np.empty((n_dep, n_pts) if keep_by_departure else (0, 0), dtype=np.float32)
    _propagate(
        arr_t, np.ascontiguousarray(departures, dtype=np.float64),
        np.ascontiguousarray(indptr, dtype=np.int64),
        np.ascontiguousarray(link_stop, dtype=np.int32),
        np.ascontiguousarray(link_time, dtype=np.int32),
        np.ascontiguousarray(direct_s, dtype=np.float64), float(max_time_s),
        percentile_ranks(percentiles, n_dep), out, by_dep, bool(keep_by_departure),
    )  # fmt: skip
    return out, (by_dep if keep_by_departure else None)
