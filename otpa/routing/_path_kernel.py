"""Compiled assembly of a street path: per-edge costs, totals and polyline in one pass.

:func:`otpa.routing._street_core.assemble` turns the edges of a search's path into a
:class:`~otpa.routing._street_types.StreetPath`.  Written with numpy it took some
thirty small array operations per path (a plan assembles several); this kernel does
the same arithmetic, in the same order, in one call:

* the share ``used`` of each edge (partial first and last edge), its weight (the
  exit cost paid on every edge but the first), time (whole seconds; a partial edge
  rounds up its share of the exact time) and distance, the turn costs added;
* a first or last edge of which nothing is travelled dropped (the last one's
  weight and time moved on to the edge before it);
* the totals summed as ``numpy.sum`` sums (pairwise, :func:`pairwise_sum`), so
  they are bit for bit the numpy ones;
* the polyline: the used part of the first and last edge (interpolated ends, as
  ``numpy.interp`` computes them), the whole edges between, the given head and
  tail points, consecutive repeated points once.

The kernels here (and in :mod:`otpa.routing._step_kernel`) run for microseconds: they
keep the GIL (``nogil`` would hand it to a waiting thread on every call, and getting
it back can take a whole switch interval, 5 ms, under load).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from otpa.types import BoolArray, FloatArray, Int32Array, IntArray, UInt8Array

__all__ = ["assemble_path", "edge_part", "pairwise_sum"]

#: numpy's ``PW_BLOCKSIZE``: the pairwise summation's unrolled block.
_BLOCK = 128


@njit(cache=True)  # type: ignore[misc]
def _block_sum(a: FloatArray, lo: int, n: int) -> float:
    """numpy's ``pairwise_sum`` of ``a[lo:lo + n]`` for ``n <= 128`` (8 partial sums)."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[lo + i]
        return res  # type: ignore[no-any-return]
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    stop = n - n % 8
    while i < stop:
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res  # type: ignore[no-any-return]


@njit(cache=True)  # type: ignore[misc]
def pairwise_sum(a: FloatArray) -> float:
    """``float(numpy.sum(a))`` of a 1-D float64 array, bit for bit (its summation order).

    Examples
    --------
    >>> x = np.linspace(0.1, 7.3, 301) ** 3
    >>> pairwise_sum(x) == float(np.sum(x))
    True
    """
    # numpy's recursion (halves, the first a multiple of 8 long) as a loop with a stack:
    # numba's cache does not keep recursive functions reliably
    lo_s = np.empty(64, dtype=np.int64)
    n_s = np.empty(64, dtype=np.int64)
    stage = np.zeros(64, dtype=np.int64)
    vals = np.empty(64)
    sp, vp = 0, 0
    lo_s[0], n_s[0] = 0, a.shape[0]
    while sp >= 0:
        lo, n = lo_s[sp], n_s[sp]
        if n <= _BLOCK:
            vals[vp] = _block_sum(a, lo, n)
            vp += 1
            sp -= 1
            continue
        half = n // 2
        half -= half % 8
        if stage[sp] == 0:  # the first half
            stage[sp] = 1
            sp += 1
            lo_s[sp], n_s[sp], stage[sp] = lo, half, 0
        elif stage[sp] == 1:  # the second half
            stage[sp] = 2
            sp += 1
            lo_s[sp], n_s[sp], stage[sp] = lo + half, n - half, 0
        else:  # both done: their sum
            vals[vp - 2] = vals[vp - 2] + vals[vp - 1]
            vp -= 1
            sp -= 1
    return 0.0 + vals[0]  # type: ignore[no-any-return]


@njit(cache=True)  # type: ignore[misc]
def _interp(x: float, xp: FloatArray, fp: FloatArray) -> float:
    """``numpy.interp(x, xp, fp)`` for non-decreasing ``xp`` (its arithmetic and ends)."""
    n = xp.shape[0]
    if n == 1:
        return fp[0]  # type: ignore[no-any-return]
    if math.isnan(x):
        return x
    if x < xp[0]:
        return fp[0]  # type: ignore[no-any-return]
    if x > xp[n - 1]:
        return fp[n - 1]  # type: ignore[no-any-return]
    j = 0  # the last index with xp[j] <= x
    while j + 1 < n and x >= xp[j + 1]:
        j += 1
    if j == n - 1 or xp[j] == x:
        return fp[j]  # type: ignore[no-any-return]
    slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j])
    res = slope * (x - xp[j]) + fp[j]
    if math.isnan(res):
        res = slope * (x - xp[j + 1]) + fp[j + 1]
        if math.isnan(res) and fp[j] == fp[j + 1]:
            res = fp[j]
    return res  # type: ignore[no-any-return]


@njit(cache=True)  # type: ignore[misc]
def edge_part(
    out_lat: FloatArray,
    out_lon: FloatArray,
    n: int,
    edge: int,
    d0: float,
    d1: float,
    offsets: IntArray,
    geom_lat: FloatArray,
    geom_lon: FloatArray,
    edge_segment: Int32Array,
    edge_backward: UInt8Array,
    cum_m: FloatArray,
    seg_len_m: FloatArray,
) -> int:
    """Write the part ``d0..d1`` (fractions, travel direction) of an edge at ``n``; the new count.

    ``out_lat``/``out_lon`` need room for the segment's points plus two.

    ``_street_geometry.edge_part_points``: the polyline cut at the two distances
    (interpolated ends), the geometry points strictly between them.
    """
    s = edge_segment[edge]
    lo = offsets[s]
    hi = offsets[s + 1]
    m = hi - lo
    total = seg_len_m[s]
    lat = np.empty(m)
    lon = np.empty(m)
    cum = np.empty(m)
    back = edge_backward[edge] != 0
    for k in range(m):
        j = hi - 1 - k if back else lo + k
        lat[k] = geom_lat[j]
        lon[k] = geom_lon[j]
        cum[k] = total - cum_m[j] if back else cum_m[j]
    a = d0 * total
    b = d1 * total
    if cum[m - 1] > cum[0]:
        out_lat[n] = _interp(a, cum, lat)
        out_lon[n] = _interp(a, cum, lon)
        end_lat = _interp(b, cum, lat)
        end_lon = _interp(b, cum, lon)
    else:
        out_lat[n], out_lon[n] = lat[0], lon[0]
        end_lat, end_lon = lat[m - 1], lon[m - 1]
    n += 1
    for k in range(m):
        if cum[k] > a and cum[k] < b:
            out_lat[n] = lat[k]
            out_lon[n] = lon[k]
            n += 1
    out_lat[n] = end_lat
    out_lon[n] = end_lon
    return n + 1


@njit(cache=True)  # type: ignore[misc]
def _edge_values(
    edges: Int32Array,
    start: float,
    end: float,
    turns: FloatArray,
    weight: FloatArray,
    exit_cost: FloatArray,
    time_s: FloatArray,
    time_ceil_s: FloatArray,
    length_m: FloatArray,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Share used, weight, time and distance of each edge of a path."""
    n = edges.shape[0]
    used = np.ones(n)
    if n:
        used[0] -= start
        used[n - 1] -= 1.0 - end
    w = np.empty(n)
    t = np.empty(n)
    d = np.empty(n)
    has_exit = exit_cost.shape[0] > 0
    for i in range(n):
        u = min(max(used[i], 0.0), 1.0)
        used[i] = u
        e = edges[i]
        if has_exit:
            w[i] = ((weight[e] - exit_cost[e]) * u + (0.0 if i == 0 else exit_cost[e])) + turns[i]
        else:
            w[i] = weight[e] * u + turns[i]
        t[i] = (np.ceil(time_s[e] * u) if u < 1.0 else time_ceil_s[e]) + np.ceil(turns[i])
        d[i] = length_m[e] * u
    return used, w, t, d


@njit(cache=True)  # type: ignore[misc]
def _polyline(
    kept: Int32Array,
    start: float,
    end: float,
    offsets: IntArray,
    geom_lat: FloatArray,
    geom_lon: FloatArray,
    edge_segment: Int32Array,
    edge_backward: UInt8Array,
    cum_m: FloatArray,
    seg_len_m: FloatArray,
    head: FloatArray,
    tail: FloatArray,
) -> tuple[FloatArray, FloatArray]:
    """The polyline of a path: head, first part, whole edges, last part, tail (deduplicated)."""
    k = kept.shape[0]
    size = 4 + head.shape[0] // 2 + tail.shape[0] // 2
    for i in range(k):
        s = edge_segment[kept[i]]
        size += offsets[s + 1] - offsets[s]
    lat = np.empty(size)
    lon = np.empty(size)
    m = 0
    if head.shape[0]:
        lat[0], lon[0] = head[0], head[1]
        m = 1
    geo = (offsets, geom_lat, geom_lon, edge_segment, edge_backward, cum_m, seg_len_m)
    if k == 1:
        m = edge_part(lat, lon, m, kept[0], start, end, *geo)
    elif k > 1:
        m = edge_part(lat, lon, m, kept[0], start, 1.0, *geo)
        for i in range(1, k - 1):
            e = kept[i]
            s = edge_segment[e]
            lo = offsets[s]
            hi = offsets[s + 1]
            for q in range(hi - lo):
                j = hi - 1 - q if edge_backward[e] else lo + q
                lat[m] = geom_lat[j]
                lon[m] = geom_lon[j]
                m += 1
        m = edge_part(lat, lon, m, kept[k - 1], 0.0, end, *geo)
    if tail.shape[0]:
        lat[m], lon[m] = tail[0], tail[1]
        m += 1
    # consecutive repeated points once (the first of each run kept)
    r = 0
    for i in range(m):
        if i == 0 or lat[i] != lat[r - 1] or lon[i] != lon[r - 1]:
            lat[r] = lat[i]
            lon[r] = lon[i]
            r += 1
    return lat[:r].copy(), lon[:r].copy()


@njit(cache=True)  # type: ignore[misc]
def assemble_path(
    edges: Int32Array,
    start: float,
    end: float,
    turns: FloatArray,
    weight: FloatArray,
    exit_cost: FloatArray,
    time_s: FloatArray,
    time_ceil_s: FloatArray,
    length_m: FloatArray,
    walking: BoolArray,
    rise_m: FloatArray,
    fall_m: FloatArray,
    offsets: IntArray,
    geom_lat: FloatArray,
    geom_lon: FloatArray,
    edge_segment: Int32Array,
    edge_backward: UInt8Array,
    cum_m: FloatArray,
    seg_len_m: FloatArray,
    head: FloatArray,
    tail: FloatArray,
) -> tuple[
    Int32Array, FloatArray, FloatArray, FloatArray, BoolArray, FloatArray, FloatArray, FloatArray
]:
    """Per-edge values, totals and polyline of a path (see the module docstring).

    Parameters
    ----------
    edges
        The path's edges in travel order.
    start, end
        Share of the first edge skipped, share of the last edge used.
    turns
        Turn cost paid on entering each edge.
    weight, exit_cost, time_s, time_ceil_s, walking
        The mode's edge costs (``exit_cost`` empty: none).
    length_m, rise_m, fall_m
        Edge lengths, climbs and descents (``rise_m``/``fall_m`` empty: no elevation).
    offsets, geom_lat, geom_lon, edge_segment, edge_backward, cum_m, seg_len_m
        The graph's geometry (``cum_m``/``seg_len_m`` of its ``GraphGeometry``).
    head, tail
        ``(lat, lon)`` put before and after the edges' polyline, or empty.

    Returns
    -------
    tuple
        The edges kept, per edge time, weight and distance, walking flags,
        ``[start, end, duration, cost, distance, rise, fall]``, and the polyline's
        latitudes and longitudes.
    """
    n = edges.shape[0]
    used, w, t, d = _edge_values(edges, start, end, turns, weight, exit_cost, time_s,
                                 time_ceil_s, length_m)  # fmt: skip
    first = 0
    last = n  # edges[first:last] are kept
    if n > 1 and used[0] <= 0.0:
        first, start = 1, 0.0
    if n > 1 and used[n - 1] <= 0.0 and n - 1 > first:
        last, end = n - 1, 1.0
        w[n - 2] += w[n - 1]
        t[n - 2] += t[n - 1]
    kept = edges[first:last].copy()
    used_k = used[first:last]
    w_k = w[first:last].copy()
    t_k = t[first:last].copy()
    d_k = d[first:last].copy()
    k = kept.shape[0]
    walk_k = np.empty(k, dtype=np.bool_)
    for i in range(k):
        walk_k[i] = walking[kept[i]]
    totals = np.zeros(7)
    totals[0], totals[1] = start, end
    totals[2], totals[3], totals[4] = pairwise_sum(t_k), pairwise_sum(w_k), pairwise_sum(d_k)
    if rise_m.shape[0] and fall_m.shape[0]:
        prod = np.empty(k)
        for i in range(k):
            prod[i] = rise_m[kept[i]] * used_k[i]
        totals[5] = pairwise_sum(prod)
        for i in range(k):
            prod[i] = fall_m[kept[i]] * used_k[i]
        totals[6] = pairwise_sum(prod)
    lat, lon = _polyline(
        kept, start, end, offsets, geom_lat, geom_lon, edge_segment, edge_backward, cum_m,
        seg_len_m, head, tail,
    )  # fmt: skip
    return kept, t_k, w_k, d_k, walk_k, totals, lat, lon
