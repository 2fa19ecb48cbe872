"""Compressed sparse row helpers (vectorised numpy)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from otpa.types import IntArray

__all__ = ["csr_indptr", "stable_order"]


def csr_indptr(sorted_keys: npt.NDArray[np.integer], n_rows: int) -> IntArray:
    """Row pointer (``int64``, length ``n_rows + 1``) of keys already sorted by row.

    Examples
    --------
    >>> csr_indptr(np.array([0, 0, 2]), 4).tolist()
    [0, 2, 2, 3, 3]
    """
    counts = np.bincount(sorted_keys, minlength=n_rows)
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return indptr


def stable_order(keys: npt.NDArray[np.integer]) -> IntArray:
    """Indices that sort ``keys`` stably (ties keep their input order).

    Examples
    --------
    >>> stable_order(np.array([2, 0, 2, 1])).tolist()
    [1, 3, 0, 2]
    """
    return np.argsort(keys, kind="stable").astype(np.int64, copy=False)
