"""Small vectorised helpers on numpy arrays (ragged ranges, runs, group ordering)."""

from __future__ import annotations

import numpy as np

from otpa.types import IntArray

__all__ = ["group_order", "group_starts", "ragged_arange"]


def ragged_arange(counts: np.ndarray) -> IntArray:
    """``[0..counts[0]), [0..counts[1]), ...`` concatenated."""
    counts = np.asarray(counts, dtype=np.int64)
    starts = np.cumsum(counts) - counts
    out = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(starts, counts)
    return np.asarray(out, dtype=np.int64)


def group_starts(keys: np.ndarray) -> IntArray:
    """Start positions of the runs of equal values in ``keys``."""
    if keys.size == 0:
        return np.zeros(0, dtype=np.int64)
    change = np.flatnonzero(keys[1:] != keys[:-1]) + 1
    return np.concatenate([np.zeros(1, dtype=np.int64), change])


def group_order(group: np.ndarray, seq: np.ndarray) -> IntArray:
    """Stable ordering of rows by (``group``, ``seq``).

    Fast paths: already sorted (identity), or each group contiguous and ordered by ``seq``
    inside (then only the blocks are reordered); otherwise a stable argsort of a packed key.
    """
    n = group.size
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    change = group[1:] != group[:-1]
    if bool((change | (seq[1:] > seq[:-1])).all()):
        starts = np.concatenate([np.zeros(1, dtype=np.int64), np.flatnonzero(change) + 1])
        block_group = group[starts]
        if bool((block_group[1:] > block_group[:-1]).all()):
            return np.arange(n, dtype=np.int64)
        if np.unique(block_group).size == block_group.size:
            lengths = np.diff(np.append(starts, n))
            border = np.argsort(block_group, kind="stable")
            return np.repeat(starts[border], lengths[border]) + ragged_arange(lengths[border])
    s = seq.astype(np.int64)
    key = (group.astype(np.int64) << 32) | (s - int(s.min()))
    return np.argsort(key, kind="stable")
