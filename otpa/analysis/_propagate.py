"""Propagation: transit arrivals at stops -> travel times at destinations (numba).

For each destination and departure the travel time is the best of the street-only
time and, over the destination's egress links, the ride arrival at the stop plus the
egress time, minus the departure.  Times over the limit count as unreachable.  The
per-destination times over the departures are then reduced to percentiles with R5's
non-interpolated definition (index ``round(p / 100 * (n - 1))`` of the sorted times).

The times are whole seconds (RAPTOR labels, departures on the minute, street times
rounded up per edge, integer egress times), so the kernel normally works on int32
durations: ``arrival - departure`` per stop and departure is computed once per origin
(a stop's row of durations is then contiguous, and a link adds its egress time to
it in a vectorised minimum; int16 when the sums fit), and any duration over the limit
is stored as ``limit + 1``, which stays over the limit with an egress time added.  A
link that cannot improve the point's worst departure is skipped (a point's links are
given nearest first, :func:`sort_links`, so most far ones are).  Every value
that comes out equals the float computation's (integers are exact in both); inputs
with a fractional second fall back to the float kernel.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numba import njit

from otpa.types import Float32Array, FloatArray, Int32Array, IntArray

__all__ = ["percentile_ranks", "propagate", "sort_links"]


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


@njit(cache=True, nogil=True)
def _durations(
    arr: FloatArray, dep: FloatArray, over: int, like: np.ndarray
) -> tuple[np.ndarray, bool]:
    """``(n_stops, n_dep)`` ``arr[d, s] - dep[d]`` as ``like``'s integer type, ``over`` where
    larger.

    The flag is False when a time within ``over`` is not a whole number of seconds at
    least 0 (or is NaN): the float kernel is used and ``dur`` is not read.  The loop reads
    each departure's row in order and has no branch (it took half the time of one that
    tested each time and returned at the first bad one): every entry is written as the
    clamp of ``t`` to ``[0, over]``, which is ``t`` itself for a whole ``t`` in
    ``[0, over)`` and ``over`` for any ``t >= over`` (``inf`` included); any other
    ``t`` sets the flag (``not t >= over`` is true for NaN, and NaN is not whole).
    """
    n_dep, n_stops = arr.shape
    dur = np.empty((n_stops, n_dep), dtype=like.dtype)
    for d in range(n_dep):
        if dep[d] != math.floor(dep[d]) or abs(dep[d]) > 1e15:
            return dur, False
    top = float(over)
    bad = False
    for d in range(n_dep):
        dd = dep[d]
        for s in range(n_stops):
            t = arr[d, s] - dd
            bad |= (not t >= top) & ((t != math.floor(t)) | (t < 0.0))
            v = t if t < top else top  # a NaN becomes ``top``: every value cast is finite
            dur[s, d] = v if v > 0.0 else 0.0
    return dur, not bad


@njit(cache=True, nogil=True)
def _select(a: np.ndarray, k: int) -> int:
    """The ``k``-th smallest value of ``a`` (reorders ``a``; quickselect, then insertion sort).

    For a few percentiles of about a hundred departures it is several times faster than
    sorting; any order of ``a`` gives the same value as ``np.sort(a)[k]``.  Hoare's
    partition keeps runs of equal times (a point reached by one trip) cheap.
    """
    lo, hi = 0, a.shape[0] - 1
    while hi - lo > 16:
        x, y, z = a[lo], a[(lo + hi) >> 1], a[hi]
        pivot = max(min(x, y), min(max(x, y), z))  # the median of the three
        i, j = lo, hi
        while i <= j:
            while a[i] < pivot:
                i += 1
            while a[j] > pivot:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        # a[lo..j] <= pivot, a[i..hi] >= pivot, a[j+1..i-1] == pivot
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            return int(pivot)
    for i in range(lo + 1, hi + 1):
        v = a[i]
        j = i - 1
        while j >= lo and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v
    return int(a[k])


@njit(cache=True, nogil=True)
def _point_out(
    buf: np.ndarray,
    p: int,
    limit: int,
    ranks: IntArray,
    out: Float32Array,
    by_dep: Float32Array,
    keep_by_dep: bool,
) -> None:
    """Write point ``p``'s percentiles (and times per departure) from its durations."""
    reached = False
    for d in range(buf.shape[0]):
        if buf[d] <= limit:
            reached = True
        if keep_by_dep:
            by_dep[d, p] = np.float32(buf[d]) if buf[d] <= limit else np.float32(np.nan)
    if not reached:
        for j in range(ranks.shape[0]):
            out[j, p] = np.nan
        return
    if ranks.shape[0] > 3:
        buf.sort()
    for j in range(ranks.shape[0]):
        v = buf[ranks[j]] if ranks.shape[0] > 3 else _select(buf, ranks[j])
        out[j, p] = np.float32(v) if v <= limit else np.float32(np.nan)


@njit(cache=True, nogil=True)
def _propagate_int(
    dur: np.ndarray,
    indptr: IntArray,
    link_stop: Int32Array,
    link_time: Int32Array,
    direct: FloatArray,
    limit: int,
    ranks: IntArray,
    out: Float32Array,
    by_dep: Float32Array,
    keep_by_dep: bool,
) -> bool:
    """:func:`_propagate` on whole-second durations (``limit + 1``: over the limit).

    A link is skipped when its stop's best duration plus the egress time is no better
    than the worst departure's time so far (it improves no departure), so a point's
    links are best given nearest first.  Returns False (nothing written that counts)
    when a direct time is fractional.
    """
    n_stops, n_dep = dur.shape
    n_pts = indptr.shape[0] - 1
    over = limit + 1
    best = np.empty(n_stops, dtype=np.int64)
    for s in range(n_stops):
        b = over
        for d in range(n_dep):
            if dur[s, d] < b:
                b = int(dur[s, d])
        best[s] = b
    buf = np.empty(n_dep, dtype=dur.dtype)
    for p in range(n_pts):
        d0 = direct[p]
        if d0 > limit:
            v0 = over
        elif d0 == math.floor(d0) and d0 >= 0:
            v0 = int(d0)
        else:
            return False
        for d in range(n_dep):
            buf[d] = v0
        worst = np.int64(v0)  # no departure's time is above this
        for k in range(indptr[p], indptr[p + 1]):
            s = link_stop[k]
            lt = np.int64(link_time[k])
            if best[s] + lt >= worst:
                continue
            row = dur[s]
            ltc = buf.dtype.type(lt)
            for d in range(n_dep):
                buf[d] = min(buf[d], row[d] + ltc)
            hi = buf[0]
            for d in range(n_dep):
                hi = max(hi, buf[d])
            worst = np.int64(hi)
        _point_out(buf, p, limit, ranks, out, by_dep, keep_by_dep)
    return True


def sort_links(
    indptr: IntArray, link_stop: Int32Array, link_time: Int32Array
) -> tuple[Int32Array, Int32Array]:
    """Each point's links nearest first (what :func:`propagate` skips best after)."""
    point = np.repeat(np.arange(indptr.shape[0] - 1), np.diff(indptr))
    order = np.lexsort((link_time, point))
    stop: Int32Array = np.ascontiguousarray(link_stop[order], dtype=np.int32)
    time: Int32Array = np.ascontiguousarray(link_time[order], dtype=np.int32)
    return stop, time


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
    out = np.empty((len(percentiles), n_pts), dtype=np.float32)
    by_dep = np.empty((n_dep, n_pts) if keep_by_departure else (0, 0), dtype=np.float32)
    arr = np.ascontiguousarray(arrivals, dtype=np.float64)
    dep = np.ascontiguousarray(departures, dtype=np.float64)
    indptr = np.ascontiguousarray(indptr, dtype=np.int64)
    link_stop = np.ascontiguousarray(link_stop, dtype=np.int32)
    link_time = np.ascontiguousarray(link_time, dtype=np.int32)
    direct = np.ascontiguousarray(direct_s, dtype=np.float64)
    ranks = percentile_ranks(percentiles, n_dep)
    limit = math.floor(max_time_s)
    # whole seconds: integer durations (int16 when every sum fits); egress times must not
    # be negative (a duration over the limit then stays over it)
    lt_min = int(link_time.min()) if link_time.size else 0
    lt_max = int(link_time.max()) if link_time.size else 0
    if limit >= 0 and lt_min >= 0 and limit + 1 + lt_max < 1 << 30:
        like = np.empty(0, np.int16 if limit + 1 + lt_max < 1 << 15 else np.int32)
        dur, ok = _durations(arr, dep, limit + 1, like)
        if ok and _propagate_int(
            dur, indptr, link_stop, link_time, direct, limit, ranks, out, by_dep,
            bool(keep_by_departure),
        ):  # fmt: skip
            return out, (by_dep if keep_by_departure else None)
    _propagate(
        np.ascontiguousarray(arr.T), dep, indptr, link_stop, link_time, direct,
        float(max_time_s), ranks, out, by_dep, bool(keep_by_departure),
    )  # fmt: skip
    return out, (by_dep if keep_by_departure else None)
