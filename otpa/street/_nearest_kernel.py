"""Numba kernel of one point's nearest street piece among k-d tree candidates."""

from __future__ import annotations

import math

from numba import njit

from otpa.types import FloatArray, IntArray

__all__ = ["best_piece"]


@njit(cache=True, nogil=True)  # type: ignore[misc]
def best_piece(
    samples: IntArray,
    sample_sub: IntArray,
    sub: IntArray,
    geom_lat: FloatArray,
    geom_lon: FloatArray,
    lat: float,
    lon: float,
    cp: float,
    m_per_deg: float,
) -> tuple[int, float, float]:
    """The piece nearest to ``(lat, lon)`` among the candidate samples: ``(k, t, dist_m)``.

    Candidate ``i`` is the piece starting at geometry point ``sub[sample_sub[samples[i]]]``;
    the point is projected onto it in the local equirectangular frame (``cp``: metres per
    degree of longitude at ``lat``, ``m_per_deg`` per degree of latitude), ``t`` the
    clamped fraction along it and ``dist_m`` the distance to the projection.  The
    same operations, in the same order, as the vectorised numpy form (each element's
    arithmetic is IEEE-exact and ``math.hypot`` is the C library's ``hypot``, as
    ``numpy.hypot``), so the same values; the nearest is the smallest ``(dist, k)``
    (``numpy.lexsort((k, dist))[0]``: a NaN distance sorts last).  ``k = -1`` without
    candidates.
    """
    best_k = -1
    best_t = 0.0
    best_d = math.inf
    for i in range(samples.shape[0]):
        k = sub[sample_sub[samples[i]]]
        ax = (geom_lon[k] - lon) * cp
        ay = (geom_lat[k] - lat) * m_per_deg
        dx = (geom_lon[k + 1] - lon) * cp - ax
        dy = (geom_lat[k + 1] - lat) * m_per_deg - ay
        len2 = dx * dx + dy * dy
        t = -(ax * dx + ay * dy) / len2 if len2 > 0 else 0.0
        if t < 0.0:  # numpy.clip (a NaN stays NaN)
            t = 0.0
        elif t > 1.0:
            t = 1.0
        d = math.hypot(ax + t * dx, ay + t * dy)
        if best_k < 0:
            better = True
        elif d != d:  # NaN: last
            better = best_d != best_d and k < best_k
        elif best_d != best_d:
            better = True
        else:
            better = d < best_d or (d == best_d and k < best_k)
        if better:
            best_k, best_t, best_d = k, t, d
    return best_k, best_t, best_d
