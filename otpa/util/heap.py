"""A binary min-heap on two parallel arrays, for numba kernels (street searches).

``hc`` holds costs and ``hi`` items; ``n`` is the heap size.  ``heap_push``
grows the arrays when full and returns them, so callers rebind all three.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from otpa.types import FloatArray, IntArray

__all__ = ["heap_pop", "heap_push"]


@njit(cache=True, inline="always")  # type: ignore[misc]
def heap_push(
    hc: FloatArray, hi: IntArray, n: int, c: float, item: int
) -> tuple[FloatArray, IntArray, int]:
    if n == hc.shape[0]:
        nhc = np.empty(2 * n, dtype=np.float64)
        nhi = np.empty(2 * n, dtype=np.int64)
        nhc[:n] = hc
        nhi[:n] = hi
        hc = nhc
        hi = nhi
    i = n
    while i > 0:
        p = (i - 1) >> 1
        if hc[p] <= c:
            break
        hc[i] = hc[p]
        hi[i] = hi[p]
        i = p
    hc[i] = c
    hi[i] = item
    return hc, hi, n + 1


@njit(cache=True, inline="always")  # type: ignore[misc]
def heap_pop(hc: FloatArray, hi: IntArray, n: int) -> tuple[float, int, int]:
    c0 = hc[0]
    it0 = hi[0]
    n -= 1
    if n > 0:
        c = hc[n]
        item = hi[n]
        i = 0
        while True:
            left = 2 * i + 1
            if left >= n:
                break
            m = left
            right = left + 1
            if right < n and hc[right] < hc[left]:
                m = right
            if hc[m] >= c:
                break
            hc[i] = hc[m]
            hi[i] = hi[m]
            i = m
        hc[i] = c
        hi[i] = item
    return c0, it0, n
