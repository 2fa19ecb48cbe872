"""Vectorised parsing and formatting of GTFS times ("H:MM:SS" / "HH:MM:SS", may pass 24:00)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from otpa.gtfs._csv import strip_strings
from otpa.types import BoolArray, Int32Array, IntArray

__all__ = ["format_times", "parse_times"]

_ZERO = ord("0")
_COLON = ord(":")
_FIVE = ord("5")
_NINE = ord("9")


def _parse_fixed_width(
    data: np.ndarray, offsets: np.ndarray, length: np.ndarray, missing: BoolArray
) -> tuple[Int32Array, BoolArray] | None:
    """Fast path when every present value has the same width (7, 8 or 9 bytes): the bytes
    then form an (n, width) matrix.  Returns (seconds, ok) or None if not applicable."""
    present = length[~missing]
    if present.size == 0:
        return None
    width = int(present[0])
    if width not in (7, 8, 9) or present.min() != width or present.max() != width:
        return None
    if int(length.sum()) != present.size * width:  # null slots holding bytes
        return None
    block = data[offsets[0] : offsets[0] + present.size * width].reshape(-1, width)
    hw = width - 6  # hour digits
    lo = np.array([*([_ZERO] * hw), _COLON, _ZERO, _ZERO, _COLON, _ZERO, _ZERO], np.uint8)
    hi = np.array([*([_NINE] * hw), _COLON, _FIVE, _NINE, _COLON, _FIVE, _NINE], np.uint8)
    ok = np.ones(present.size, dtype=bool)
    for col in range(width):
        column = block[:, col]
        ok &= (column >= lo[col]) & (column <= hi[col])
    weights = np.array(
        [*(3600 * 10 ** np.arange(hw - 1, -1, -1)), 0, 600, 60, 0, 10, 1], dtype=np.int32
    )
    seconds = block @ weights - np.int32(_ZERO * int(weights.sum()))
    seconds = np.where(ok, seconds, 0).astype(np.int32)
    if present.size == length.size:
        return seconds, ok
    full = np.zeros(length.size, dtype=np.int32)
    full_ok = np.zeros(length.size, dtype=bool)
    full[~missing] = seconds
    full_ok[~missing] = ok
    return full, full_ok


def parse_times(arr: pa.Array, *, trim: bool = True) -> tuple[Int32Array, BoolArray, BoolArray]:
    """Parse GTFS times to seconds after service-day midnight.

    Parameters
    ----------
    arr
        Arrow string array of times.
    trim
        Whether values may have surrounding spaces to ignore.

    Returns
    -------
    seconds
        int32 seconds (0 where missing or malformed).
    missing
        True where the value is empty.
    malformed
        True where a value is present but not ``H:MM:SS`` / ``HH:MM:SS`` / ``HHH:MM:SS``
        with minutes and seconds in 00..59.
    """
    arr = arr.cast(pa.string())
    if trim:
        arr = strip_strings(arr)
    n = len(arr)
    if n == 0 or arr.null_count == n:
        return np.zeros(n, dtype=np.int32), np.ones(n, dtype=bool), np.zeros(n, dtype=bool)
    buffers = arr.buffers()
    offsets = np.frombuffer(buffers[1], dtype=np.int32)[arr.offset : arr.offset + n + 1]
    data = np.frombuffer(buffers[2], dtype=np.uint8)
    if data.size < 16:
        data = np.concatenate([data, np.zeros(16, dtype=np.uint8)])
    ends = offsets[1:]
    length = ends - offsets[:-1]
    missing = length == 0  # nulls have no bytes
    if arr.null_count:
        missing |= arr.is_null().to_numpy(zero_copy_only=False)
    fast = _parse_fixed_width(data, offsets, length, missing)
    if fast is not None:
        return fast[0], missing, ~missing & ~fast[1]
    ok = (length >= 7) & (length <= 9)
    # rows of a wrong length read a harmless dummy window at the start of the buffer
    e = np.where(ok, ends, 9)
    hour_len = np.where(ok, length - 6, 1)
    s0 = e - 6 - hour_len

    def digit(pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        d = data[pos] - np.uint8(_ZERO)  # wraps around below '0': one compare tests both ends
        ok_d = d < 10
        return np.where(ok_d, d, 0).astype(np.int32), ok_d

    s1, k1 = digit(e - 2)
    s2, k2 = digit(e - 1)
    m1, k3 = digit(e - 5)
    m2, k4 = digit(e - 4)
    h1, k5 = digit(s0)
    h2, k6 = digit(s0 + 1)
    h3, k7 = digit(s0 + 2)
    ok &= k1 & k2 & k3 & k4 & k5 & (s1 < 6) & (m1 < 6)
    ok &= (data[e - 3] == _COLON) & (data[e - 6] == _COLON)
    ok &= (hour_len < 2) | k6
    ok &= (hour_len < 3) | k7
    hours = np.where(
        hour_len == 1, h1, np.where(hour_len == 2, h1 * 10 + h2, h1 * 100 + h2 * 10 + h3)
    )
    seconds = hours * 3600 + (m1 * 10 + m2) * 60 + s1 * 10 + s2
    seconds = np.where(ok, seconds, 0).astype(np.int32)
    malformed = ~missing & ~ok
    return seconds, missing, malformed


def format_times(seconds: IntArray | Int32Array) -> np.ndarray:
    """Format seconds as ``HH:MM:SS`` strings (hours may pass 24); returns an object array."""
    sec = np.asarray(seconds, dtype=np.int64)
    if sec.size == 0:
        return np.zeros(0, dtype=object)
    h, rem = np.divmod(sec, 3600)
    m, s = np.divmod(rem, 60)
    hh = np.char.zfill(h.astype(str), 2)
    mm = np.char.zfill(m.astype(str), 2)
    ss = np.char.zfill(s.astype(str), 2)
    out = np.char.add(np.char.add(np.char.add(np.char.add(hh, ":"), mm), ":"), ss)
    return out.astype(object)
