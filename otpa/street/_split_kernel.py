"""Numba kernel cutting segment geometries at split points."""

from __future__ import annotations

import numpy as np
from numba import njit

from otpa.types import FloatArray, IntArray

__all__ = ["split_geometry"]


@njit(cache=True, inline="always")  # type: ignore[misc]
def _interior(i_a: int, i_b: int, t_b: float) -> tuple[int, int]:
    """Original geometry points strictly between split ``a`` and split ``b``."""
    lo = i_a + 1
    hi = i_b if t_b > 0.0 else i_b - 1
    return lo, hi


@njit(cache=True)  # type: ignore[misc]
def split_geometry(
    offsets: IntArray,
    geom_lat: FloatArray,
    geom_lon: FloatArray,
    g_seg: IntArray,
    g_sub: IntArray,
    g_t: FloatArray,
    g_lat: FloatArray,
    g_lon: FloatArray,
) -> tuple[IntArray, FloatArray, FloatArray]:
    """Geometry of the segments after cutting at split points.

    Split ``g`` lies on segment ``g_seg[g]``, on its geometry piece between
    local points ``g_sub[g]`` and ``g_sub[g] + 1`` at fraction ``g_t[g]``
    (``0 <= t < 1``), at ``(g_lat[g], g_lon[g])``; splits are sorted along each
    segment.  New segment ``s < n_segments`` is the first piece of ``s`` (all of
    it when unsplit); new segment ``n_segments + g`` is the piece starting at
    split ``g``.  Returns the new ``(offsets, lat, lon)``.
    """
    n_s = offsets.shape[0] - 1
    n_g = g_seg.shape[0]
    counts = np.empty(n_s + n_g, dtype=np.int64)
    for s in range(n_s):
        counts[s] = offsets[s + 1] - offsets[s]
    for g in range(n_g):
        s = g_seg[g]
        first = g == 0 or g_seg[g - 1] != s
        last = g == n_g - 1 or g_seg[g + 1] != s
        i_a = 0 if first else g_sub[g - 1]
        lo, hi = _interior(i_a, g_sub[g], g_t[g])
        piece = s if first else n_s + g - 1
        counts[piece] = 2 + max(0, hi - lo + 1)
        if last:
            m = offsets[s + 1] - offsets[s]
            lo, hi = _interior(g_sub[g], m - 1, 0.0)
            counts[n_s + g] = 2 + max(0, hi - lo + 1)
    new_off = np.zeros(n_s + n_g + 1, dtype=np.int64)
    for j in range(n_s + n_g):
        new_off[j + 1] = new_off[j] + counts[j]
    lat = np.empty(new_off[-1], dtype=np.float64)
    lon = np.empty(new_off[-1], dtype=np.float64)
    split_seg = np.zeros(n_s, dtype=np.bool_)
    for g in range(n_g):
        split_seg[g_seg[g]] = True
    for s in range(n_s):
        if not split_seg[s]:
            o = new_off[s]
            for k in range(offsets[s], offsets[s + 1]):
                lat[o] = geom_lat[k]
                lon[o] = geom_lon[k]
                o += 1
    for g in range(n_g):
        s = g_seg[g]
        base = offsets[s]
        first = g == 0 or g_seg[g - 1] != s
        last = g == n_g - 1 or g_seg[g + 1] != s
        piece = s if first else n_s + g - 1
        o = new_off[piece]
        if first:
            lat[o] = geom_lat[base]
            lon[o] = geom_lon[base]
            i_a = 0
        else:
            lat[o] = g_lat[g - 1]
            lon[o] = g_lon[g - 1]
            i_a = g_sub[g - 1]
        o += 1
        lo, hi = _interior(i_a, g_sub[g], g_t[g])
        for p in range(lo, hi + 1):
            lat[o] = geom_lat[base + p]
            lon[o] = geom_lon[base + p]
            o += 1
        lat[o] = g_lat[g]
        lon[o] = g_lon[g]
        if last:
            m = offsets[s + 1] - offsets[s]
            o = new_off[n_s + g]
            lat[o] = g_lat[g]
            lon[o] = g_lon[g]
            o += 1
            lo, hi = _interior(g_sub[g], m - 1, 0.0)
            for p in range(lo, hi + 1):
                lat[o] = geom_lat[base + p]
                lon[o] = geom_lon[base + p]
                o += 1
            lat[o] = geom_lat[base + m - 1]
            lon[o] = geom_lon[base + m - 1]
    return new_off, lat, lon
