"""Array codecs of the saved-graph container: compact, mostly lossless, cheap to decode.

An array is stored as the ``.npy`` of an *encoded* array plus a list of
*steps* (recorded in the manifest) that turn it back into the original.  Each
step is a small JSON object ``{"op": ..., "dtype": ...}`` where ``dtype`` is
the dtype the step decodes *to*; steps are listed in encoding order and
decoded in reverse:

``grid``
    A float array as integers on a grid: ``value = k * mul`` or
    ``value = k / div``.  Values the grid does not reproduce bit for bit
    (split points, NaN, infinities) are kept exactly in a *patch* member, a
    structured array of ``(index, value)`` pairs.  With a requested number of
    steps per unit (:func:`encode_array`'s ``quantize``) every finite value is
    rounded to the grid instead: the only lossy step, used for measures where
    a millimetre is far below the precision of the data.
``delta``
    Integers as differences of consecutive values (sorted ids, CSR pointers,
    stop times); decoded with a cumulative sum.
``cast``
    Integers in the narrowest integer dtype that holds their range.
``shuffle``
    The bytes of each value split into planes (all first bytes, then all
    second bytes...), which DEFLATE compresses much better for numbers.

The encoder tries the plausible step combinations on each array and keeps the
one whose bytes compress best (a quick DEFLATE level 1 trial), so the choice
adapts to the data.  Decoding validates every step and raises
:class:`ValueError` on anything malformed.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from otpa.errors import InvalidArgumentError

__all__ = ["PATCH_DTYPE", "Encoded", "decode_array", "encode_array"]

#: Dtypes an encoded array may decode to (little-endian, no objects).
_ALLOWED_DTYPES = frozenset(
    ("|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "<f4", "<f8")
)
#: The patch of a ``grid`` step: exact values at the given positions.
PATCH_DTYPE = np.dtype([("index", "<i8"), ("value", "<f8")])
#: Arrays smaller than this are stored as they are (encoding would not pay).
_MIN_ENCODED_BYTES = 256
#: Grids tried for lossless float encoding: OSM's 1e-7 degree multiplier, then decimals.
_LOSSLESS_GRIDS: tuple[tuple[str, float], ...] = (
    ("mul", 1e-7),
    *(("div", float(10**d)) for d in range(10)),
)
#: A lossless grid is used only when it reproduces at least this share of the values.
_MIN_GRID_SHARE = 0.75
#: Grids are screened on this many evenly spaced values before a full check.
_GRID_SAMPLE = 2048
#: Integers up to this magnitude are exact in float64.
_EXACT_INT = float(2**53)
_INT_LADDER = tuple(np.dtype(t) for t in ("i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8"))


@dataclass(frozen=True)
class Encoded:
    """An array ready to store: the array to write, its steps and an optional patch.

    Attributes
    ----------
    stored
        The array written to the ``.npy`` member.
    steps
        The encoding steps, in encoding order (empty: stored as is).
    patch
        Exact values for the ``grid`` step (:data:`PATCH_DTYPE`), or None.
    """

    stored: npt.NDArray[Any]
    steps: list[dict[str, Any]]
    patch: npt.NDArray[Any] | None = None


def _trial_size(array: npt.NDArray[Any]) -> int:
    return len(zlib.compress(np.ascontiguousarray(array).data, 1))


def _narrowest(lo: int, hi: int) -> np.dtype[Any]:
    for dtype in _INT_LADDER:
        info = np.iinfo(dtype)
        if info.min <= lo and hi <= info.max:
            return dtype
    msg = f"integer range [{lo}, {hi}] does not fit 64 bits"
    raise InvalidArgumentError(msg)


def _shuffled(array: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
    n, size = array.shape[0], array.dtype.itemsize
    return np.ascontiguousarray(array).view(np.uint8).reshape(n, size).T.copy()


def _int_candidates(
    array: npt.NDArray[Any], steps: list[dict[str, Any]]
) -> list[tuple[npt.NDArray[Any], list[dict[str, Any]]]]:
    """Plain / delta, narrowed, with and without byte shuffling."""
    bases: list[tuple[npt.NDArray[Any], list[dict[str, Any]]]] = []
    lo, hi = int(array.min()), int(array.max())
    bases.append((array, steps))
    if hi - lo <= np.iinfo(np.int64).max and hi <= np.iinfo(np.int64).max:
        delta = np.diff(array.astype(np.int64), prepend=np.int64(0))
        bases.append((delta, [*steps, {"op": "delta", "dtype": array.dtype.str}]))
    out: list[tuple[npt.NDArray[Any], list[dict[str, Any]]]] = []
    for base, base_steps in bases:
        narrow = _narrowest(int(base.min()), int(base.max()))
        if narrow.itemsize < base.dtype.itemsize:
            cast_steps = [*base_steps, {"op": "cast", "dtype": base.dtype.str}]
            base, base_steps = base.astype(narrow), cast_steps
        out.append((base, base_steps))
        if base.dtype.itemsize > 1:
            out.append((_shuffled(base), [*base_steps, {"op": "shuffle", "dtype": base.dtype.str}]))
    return out


def _grid_ints(
    values: npt.NDArray[np.floating[Any]], kind: str, factor: float, *, rounding: bool
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """Grid integers of ``values`` and the mask of values they reproduce."""
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = values * (1.0 / factor if kind == "mul" else factor)
        usable = np.isfinite(scaled) & (np.abs(scaled) < _EXACT_INT)
        k = np.rint(np.where(usable, scaled, 0.0)).astype(np.int64)
        if rounding:
            return k, usable
        back = k * factor if kind == "mul" else k / factor
        return k, usable & (back.view(np.uint64) == values.view(np.uint64))


def _grid_candidate(
    array: npt.NDArray[Any], kind: str, factor: float, k: npt.NDArray[np.int64], exact: Any
) -> list[tuple[npt.NDArray[Any], list[dict[str, Any]], npt.NDArray[Any] | None]]:
    bad = np.flatnonzero(~exact)
    patch = None
    if len(bad):
        patch = np.empty(len(bad), dtype=PATCH_DTYPE)
        patch["index"] = bad
        patch["value"] = array[bad]
        # repeat the previous good value where the grid fails: keeps deltas small
        last_good = np.maximum.accumulate(np.where(exact, np.arange(len(k)), -1))
        k = np.where(last_good >= 0, k[np.maximum(last_good, 0)], 0)
    step = {"op": "grid", "dtype": array.dtype.str, kind: factor}
    return [(c, s, patch) for c, s in _int_candidates(k, [step])]


def _lossless_grid_candidates(
    array: npt.NDArray[np.float64],
) -> list[tuple[npt.NDArray[Any], list[dict[str, Any]], npt.NDArray[Any] | None]]:
    """Candidates for the grid reproducing the most values exactly (if any is good enough)."""
    sample = array[:: max(1, len(array) // _GRID_SAMPLE)]
    best: tuple[int, str, float, Any, Any] | None = None
    for kind, factor in _LOSSLESS_GRIDS:
        _, ok = _grid_ints(sample, kind, factor, rounding=False)
        if ok.mean() < _MIN_GRID_SHARE:
            continue
        k, ok = _grid_ints(array, kind, factor, rounding=False)
        hits = int(ok.sum())
        if hits >= _MIN_GRID_SHARE * len(array) and (best is None or hits > best[0]):
            best = (hits, kind, factor, k, ok)
            if hits == len(array):
                break
    return [] if best is None else _grid_candidate(array, *best[1:])


def encode_array(array: npt.NDArray[Any], *, quantize: int | None = None) -> Encoded:
    """Encode an array compactly, losslessly unless ``quantize`` is given.

    Parameters
    ----------
    array
        Any non-object array; only 1-D numeric arrays are transformed.
    quantize
        For float arrays: steps per unit to round finite values to (``1000``:
        millimetres for metres); None keeps every value exactly.

    Returns
    -------
    Encoded
        The array to store with its decoding steps.
    """
    array = np.ascontiguousarray(array)
    if array.dtype.str not in _ALLOWED_DTYPES or array.dtype.kind == "b":
        return Encoded(array, [])
    if array.ndim != 1 or array.nbytes < _MIN_ENCODED_BYTES:
        return Encoded(array, [])
    candidates: list[tuple[npt.NDArray[Any], list[dict[str, Any]], npt.NDArray[Any] | None]]
    if array.dtype.kind in "iu":
        candidates = [(c, s, None) for c, s in _int_candidates(array, [])]
    else:
        candidates = [
            (array, [], None),
            (_shuffled(array), [{"op": "shuffle", "dtype": array.dtype.str}], None),
        ]
    if quantize is not None and array.dtype == np.float64:
        if not quantize > 0:
            msg = f"quantize must be a positive number of steps per unit, got {quantize!r}"
            raise InvalidArgumentError(msg)
        k, ok = _grid_ints(array, "div", float(quantize), rounding=True)
        candidates += _grid_candidate(array, "div", float(quantize), k, ok)
    elif array.dtype == np.float64:
        candidates += _lossless_grid_candidates(array)
    stored, steps, patch = min(
        candidates,
        key=lambda c: _trial_size(c[0]) + (0 if c[2] is None else _trial_size(c[2])),
    )
    return Encoded(stored, steps, patch)


def _step_dtype(step: Mapping[str, Any]) -> np.dtype[Any]:
    name = step.get("dtype")
    if not isinstance(name, str) or name not in _ALLOWED_DTYPES:
        msg = f"encoding step has an unsupported dtype {name!r}"
        raise InvalidArgumentError(msg)
    return np.dtype(name)


def _decode_step(
    array: npt.NDArray[Any], step: Mapping[str, Any], patch: npt.NDArray[Any] | None
) -> npt.NDArray[Any]:
    dtype = _step_dtype(step)
    op = step.get("op")
    if op == "shuffle":
        if array.dtype != np.uint8 or array.ndim != 2 or array.shape[0] != dtype.itemsize:
            msg = "shuffled array has the wrong shape"
            raise InvalidArgumentError(msg)
        planes = np.empty((array.shape[1], dtype.itemsize), dtype=np.uint8)
        for i in range(dtype.itemsize):  # one strided copy per byte plane: fast
            planes[:, i] = array[i]
        return planes.view(dtype).reshape(-1)
    if array.ndim != 1:
        msg = f"{op} step needs a 1-D array"
        raise InvalidArgumentError(msg)
    if op == "cast":
        if array.dtype.kind not in "iu" or dtype.kind not in "iu":
            msg = "cast step needs integers"
            raise InvalidArgumentError(msg)
        return array.astype(dtype, copy=False)
    if op == "delta":
        if array.dtype.kind not in "iu" or dtype.kind not in "iu":
            msg = "delta step needs integers"
            raise InvalidArgumentError(msg)
        return np.cumsum(array, dtype=np.int64).astype(dtype, copy=False)
    if op == "grid":
        return _decode_grid(array, step, dtype, patch)
    msg = f"unknown encoding step {op!r}"
    raise InvalidArgumentError(msg)


def _decode_grid(
    array: npt.NDArray[Any],
    step: Mapping[str, Any],
    dtype: np.dtype[Any],
    patch: npt.NDArray[Any] | None,
) -> npt.NDArray[Any]:
    if array.dtype.kind not in "iu" or dtype.kind != "f":
        msg = "grid step needs integers decoding to floats"
        raise InvalidArgumentError(msg)
    kinds = [k for k in ("mul", "div") if k in step]
    factor = step.get(kinds[0]) if len(kinds) == 1 else None
    if isinstance(factor, int) and not isinstance(factor, bool):
        factor = float(factor)
    if not isinstance(factor, float) or not (np.isfinite(factor) and factor > 0):
        msg = "grid step needs one positive finite 'mul' or 'div' factor"
        raise InvalidArgumentError(msg)
    values = array.astype(np.float64)
    if kinds[0] == "mul":
        np.multiply(values, factor, out=values)
    else:
        np.divide(values, factor, out=values)
    if patch is not None:
        if patch.dtype != PATCH_DTYPE or patch.ndim != 1:
            msg = "grid patch has the wrong dtype"
            raise InvalidArgumentError(msg)
        index = patch["index"]
        if len(index) and (int(index.min()) < 0 or int(index.max()) >= len(values)):
            msg = "grid patch index out of range"
            raise InvalidArgumentError(msg)
        values[index] = patch["value"]
    return values.astype(dtype, copy=False)


def decode_array(
    stored: npt.NDArray[Any],
    steps: Sequence[Mapping[str, Any]],
    patch: npt.NDArray[Any] | None = None,
) -> npt.NDArray[Any]:
    """Undo :func:`encode_array`.

    Parameters
    ----------
    stored
        The array read from the member.
    steps
        Its encoding steps, in encoding order.
    patch
        The ``grid`` step's patch, if it has one.

    Returns
    -------
    numpy.ndarray
        The decoded array (a new array unless ``steps`` is empty).

    Raises
    ------
    ValueError
        If a step is unknown or does not fit the array.
    """
    array = stored
    todo = list(reversed(steps))
    for i, step in enumerate(todo):
        if not isinstance(step, Mapping):
            msg = "encoding step is not an object"
            raise InvalidArgumentError(msg)
        nxt = todo[i + 1] if i + 1 < len(todo) else None
        if step.get("op") == "cast" and isinstance(nxt, Mapping) and nxt.get("op") == "delta":
            _step_dtype(step)
            if array.dtype.kind in "iu":
                continue  # the cumulative sum reads narrow integers directly
        array = _decode_step(array, step, patch if step.get("op") == "grid" else None)
    return array
