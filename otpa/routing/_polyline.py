"""Compiled Google polyline encoding for itinerary geometries.

The same output as :func:`otpa.util.polyline.encode_polyline` (precision 5,
coordinates rounded half to even like ``numpy.round``), written by a numba
kernel into a byte buffer: walking legs carry hundreds of points and the
per-value Python loop was a visible share of a plan's time.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from otpa.errors import InvalidArgumentError
from otpa.types import FloatArray, UInt8Array

__all__ = ["encode", "encode_into"]


@njit(cache=True, nogil=True)  # type: ignore[misc]
def encode_into(lat: FloatArray, lon: FloatArray, out: UInt8Array) -> int:
    """Write the polyline of ``lat``/``lon`` into ``out`` (room for 14 bytes a point);
    returns the number of bytes (compiled code calls it: :func:`encode` for Python)."""
    n = 0
    prev_a = np.int64(0)
    prev_o = np.int64(0)
    for i in range(lat.shape[0]):
        a = np.int64(np.round(lat[i] * 1e5))
        o = np.int64(np.round(lon[i] * 1e5))
        for value in (a - prev_a, o - prev_o):
            v = ~(value << 1) if value < 0 else value << 1
            while v >= 0x20:
                out[n] = (0x20 | (v & 0x1F)) + 63
                n += 1
                v >>= 5
            out[n] = v + 63
            n += 1
        prev_a = a
        prev_o = o
    return n


def encode(lat: npt.ArrayLike, lon: npt.ArrayLike) -> str:
    """Encode coordinates (degrees) as a Google polyline string.

    Examples
    --------
    >>> encode([38.5, 40.7, 43.252], [-120.2, -120.95, -126.453])
    '_p~iF~ps|U_ulLnnqC_mqNvxq`@'
    """
    la = np.ascontiguousarray(lat, dtype=np.float64)
    lo = np.ascontiguousarray(lon, dtype=np.float64)
    if la.shape != lo.shape:
        msg = f"lat and lon must have the same length, got {la.shape} and {lo.shape}"
        raise InvalidArgumentError(msg)
    out = np.empty(14 * la.size, dtype=np.uint8)  # at most 7 bytes per value
    n = encode_into(la, lo, out)
    return out[:n].tobytes().decode("ascii")
