"""Label arrays reused between street searches, so a search costs what it reaches.

A search over a street graph of millions of edges needs label arrays of the graph's
size.  Filling fresh ones (``inf``, ``-1``) costs far more than a search that reaches
a few thousand edges (an access walk, a direct walk): at 3.3 M edges, 8 ms against
1 ms.  A :class:`LabelPool` keeps sets of label arrays in their clean state and hands
them out again:

* a set is free once nothing refers to any of its arrays (CPython reference counts:
  a search result, a tree built on its labels or any view of an array keeps the set
  in use), so a result's labels stay valid for as long as anyone can read them;
* before a free set is handed out, the entries written since it was handed out are
  reset: the searcher lists them (:meth:`Lease.written`: the entries the kernel
  touched, plus those a caller may set afterwards); a lease whose list was never
  given is reset in full.

Callers of a search may write into a result's labels only where the searcher's list
covers it (see :func:`otpa.street.edge_search.run_search`).  With :data:`CHECK_CLEAN`
on (the test suite sets it), every set handed out is first checked to be clean, so a
write outside the list fails loudly instead of corrupting a later search.
"""

from __future__ import annotations

import os
import sys
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from otpa.types import FloatArray, Int32Array, IntArray

__all__ = ["CHECK_CLEAN", "LabelPool", "Lease", "scratch_indices"]

#: Check every set handed out for clean labels (``OTPA_CHECK_LABEL_POOL=1``).
CHECK_CLEAN = os.environ.get("OTPA_CHECK_LABEL_POOL", "") not in ("", "0")


@dataclass(eq=False)
class Lease:
    """A set of label arrays handed out by a :class:`LabelPool`.

    ``arrays``: three float64 arrays (clean: ``inf``) and an int32 one (clean: -1),
    clean when handed out; the holder reports what it wrote with :meth:`written`
    before it lets the arrays go.
    """

    arrays: tuple[FloatArray, FloatArray, FloatArray, Int32Array]
    #: the entries to reset before the next hand-out (None: all of them)
    dirty: IntArray | None = field(default=None)

    def written(self, *indices: npt.NDArray[np.integer[Any]]) -> None:
        """The entries written (in every array of the set), as one or more index arrays.

        They are copied: a caller may reuse its index arrays afterwards.
        """
        if len(indices) == 1:
            self.dirty = np.array(indices[0], dtype=np.int64).ravel()
            return
        parts = [np.asarray(i, dtype=np.int64).ravel() for i in indices]
        self.dirty = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

    def _reset(self) -> None:
        a, b, c, d = self.arrays
        dirty = self.dirty
        if dirty is None or dirty.size * 8 > a.shape[0]:
            a.fill(np.inf)
            b.fill(np.inf)
            c.fill(np.inf)
            d.fill(-1)
        elif dirty.size:
            _reset_entries(a, b, c, d, dirty)
        self.dirty = None

    def _check(self) -> None:
        a, b, c, d = self.arrays
        bad = np.flatnonzero(~np.isposinf(a) | ~np.isposinf(b) | ~np.isposinf(c) | (d != -1))
        if bad.size:
            msg = f"label pool: entries {bad[:10].tolist()} written outside the searcher's list"
            raise AssertionError(msg)


@njit(cache=True, nogil=True)  # type: ignore[misc]
def _reset_entries(
    a: FloatArray, b: FloatArray, c: FloatArray, d: Int32Array, idx: IntArray
) -> None:
    for k in range(idx.shape[0]):
        i = idx[k]
        a[i] = np.inf
        b[i] = np.inf
        c[i] = np.inf
        d[i] = -1


def _max_refs(lease: Lease) -> int:
    """The largest reference count among the lease's arrays (as seen from here)."""
    a, b, c, d = lease.arrays
    return max(sys.getrefcount(a), sys.getrefcount(b), sys.getrefcount(c), sys.getrefcount(d))


def _free_refs() -> int:
    probe = Lease((np.zeros(1), np.zeros(1), np.zeros(1), np.zeros(1, dtype=np.int32)))
    return _max_refs(probe)


#: What :func:`_max_refs` reports for an array only the pool refers to.
_FREE_REFS = _free_refs()


class LabelPool:
    """Clean label sets (three float64 arrays of ``inf``, one int32 array of -1) by length.

    Parameters
    ----------
    keep_free
        Free sets kept per length (more are dropped when found free).
    max_lengths
        Lengths kept (the least recently used length's sets are dropped beyond it).
    """

    def __init__(self, *, keep_free: int = 2, max_lengths: int = 4) -> None:
        self._keep_free = keep_free
        self._max_lengths = max_lengths
        self._sets: OrderedDict[int, list[Lease]] = OrderedDict()
        self._lock = threading.Lock()

    def take(
        self, length: int
    ) -> tuple[Lease, tuple[FloatArray, FloatArray, FloatArray, Int32Array]]:
        """A clean set of arrays of ``length``, and the lease to report its writes on.

        The returned tuple is the caller's reference to the arrays: the set is in use
        while it (or anything built on the arrays) is alive.
        """
        with self._lock:
            leases = self._sets.get(length)
            if leases is None:
                leases = self._sets[length] = []
                while len(self._sets) > self._max_lengths:
                    self._sets.popitem(last=False)
            else:
                self._sets.move_to_end(length)
            chosen: Lease | None = None
            spare = 0
            for lease in list(leases):
                if _max_refs(lease) > _FREE_REFS:
                    continue
                if chosen is None:
                    chosen = lease
                elif spare < self._keep_free:
                    spare += 1
                else:
                    leases.remove(lease)
            if chosen is None:
                arrays = (
                    np.full(length, np.inf),
                    np.full(length, np.inf),
                    np.full(length, np.inf),
                    np.full(length, -1, dtype=np.int32),
                )
                chosen = Lease(arrays, dirty=np.zeros(0, dtype=np.int64))
                leases.append(chosen)
            # a new tuple: its references mark the set as in use before the lock goes
            a, b, c, d = chosen.arrays
        # reset outside the lock (a full reset of a large graph's set takes milliseconds;
        # no other thread can take this set while the tuple below refers to it)
        chosen._reset()
        if CHECK_CLEAN:
            chosen._check()
        return chosen, (a, b, c, d)

    def drop_free(self) -> int:
        """Let go of every set nothing refers to (they are allocated again when needed);
        the number dropped."""
        dropped = 0
        with self._lock:
            for length, leases in list(self._sets.items()):
                busy = [lease for lease in leases if _max_refs(lease) > _FREE_REFS]
                dropped += len(leases) - len(busy)
                if busy:
                    self._sets[length] = busy
                else:
                    del self._sets[length]
        return dropped


def scratch_indices(length: int, slot: str) -> IntArray:
    """This thread's uninitialised index array of ``length`` for ``slot`` (a kernel's
    touched list; one search fills its edge and vertex lists at once, so each has a
    slot of its own even when the graph has as many edges as vertices)."""
    cache: dict[tuple[str, int], IntArray] | None = getattr(_SCRATCH, "by_length", None)
    if cache is None:
        cache = _SCRATCH.by_length = {}
    key = (slot, length)
    arr = cache.get(key)
    if arr is None:
        if len(cache) >= 8:
            cache.clear()
        arr = cache[key] = np.empty(length, dtype=np.int64)
    return arr


_SCRATCH = threading.local()
