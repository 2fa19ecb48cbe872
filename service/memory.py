"""Give freed heap memory back to the operating system (glibc), so RSS follows what is live.

A served network is hundreds of megabytes of numpy arrays; reloading a graph (``PUT
/routers/{id}``) frees the old one, and every analysis allocates and frees large
temporary arrays in its worker threads.  glibc's ``malloc`` keeps much of that freed
memory mapped: its mmap threshold grows with every large block freed (up to 32 MiB), so
later large arrays come from the thread arenas' heaps, whose free pages stay resident.
Under a load test with a reload every 10 s the server's RSS grew by ~200 MB a minute
although no network stayed alive; ``malloc_trim(0)`` handed ~220 MB of it back at once.

Three measures; the first two are no-ops where the C library is not glibc:

* :func:`tune_malloc` (at start-up) fixes the mmap threshold at :data:`MMAP_THRESHOLD`,
  so blocks that large (network arrays, analysis grids) are always separate mappings,
  unmapped when freed;
* :class:`MemoryReleaser` calls ``malloc_trim(0)`` shortly after a served network is
  dropped (the registry watches the networks it replaces or evicts) or an analysis ends,
  at most once per :data:`TRIM_INTERVAL_S`; first it lets go of the street searches'
  free pooled label arrays (:func:`otpa.street.edge_search.release_free_labels`), which
  a replaced network's graph size would otherwise keep;
* :func:`freeze_served_objects` (at start-up, once the routers are loaded) moves every
  object alive then -- the served networks above all -- out of the cyclic garbage
  collector's reach (``gc.freeze``).  A full collection walks every tracked object: on
  RNV that is ~100-230 ms with the GIL held, stalling every request in flight, and one
  falls due soon after the first plans (their caches).  Frozen objects are still freed by
  reference counting; the first time a network stops being served (a reload or an
  eviction) they are unfrozen (``gc.unfreeze``), so a dropped network's reference cycles
  are collected as before.

Examples
--------
>>> releaser = MemoryReleaser(interval_s=0.0, settle_s=0.0)
>>> releaser.release_soon()
>>> releaser.close()
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import gc
import logging
import sys
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

from otpa.street.edge_search import release_free_labels

__all__ = [
    "MMAP_THRESHOLD",
    "TRIM_INTERVAL_S",
    "MemoryReleaser",
    "freeze_served_objects",
    "tune_malloc",
]

logger = logging.getLogger(__name__)

#: Blocks at least this large are mapped on their own and unmapped when freed.
MMAP_THRESHOLD = 1 << 20
#: Least time between two trims (a trim walks every arena's free lists).
TRIM_INTERVAL_S = 5.0
#: ``mallopt`` parameter numbers (glibc ``malloc.h``).
_M_MMAP_THRESHOLD = -3


def _glibc() -> ctypes.CDLL | None:
    """The C library when it is glibc (``malloc_trim`` and ``mallopt``), else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None
    if not hasattr(libc, "malloc_trim") or not hasattr(libc, "mallopt"):
        return None  # musl and others
    return libc


_LIBC = _glibc()


def tune_malloc(mmap_threshold: int = MMAP_THRESHOLD) -> bool:
    """Fix glibc's mmap threshold (no dynamic growth); return whether it was set.

    Parameters
    ----------
    mmap_threshold
        Bytes; allocations this large or larger get their own mapping.
    """
    if _LIBC is None:
        return False
    return bool(_LIBC.mallopt(_M_MMAP_THRESHOLD, ctypes.c_int(mmap_threshold)))


def freeze_served_objects(add_drop_listener: Callable[[Callable[[Any], None]], None]) -> int:
    """Collect, then freeze every object alive (``gc.freeze``) until a network is dropped.

    Call it once the served networks are loaded (the command-line server does, before it
    listens).  Later full collections skip the frozen objects (see the module docstring);
    the first dropped network unfreezes them all, and collection is as before.

    Parameters
    ----------
    add_drop_listener
        Registers a callback called with each network that stops being served
        (:meth:`service.registry.RouterRegistry.add_drop_listener`).

    Returns
    -------
    int
        The number of objects frozen.

    Examples
    --------
    >>> listeners = []
    >>> freeze_served_objects(listeners.append) > 0
    True
    >>> listeners[0](None)  # a network was dropped
    >>> gc.get_freeze_count()
    0
    """
    gc.collect()
    gc.freeze()
    add_drop_listener(_unfreeze)
    return gc.get_freeze_count()


def _unfreeze(network: object) -> None:
    """A network stopped being served: let the collector see every object again."""
    gc.unfreeze()


def release_memory() -> bool:
    """Drop the street searches' free pooled label arrays, then :func:`trim_heap`."""
    release_free_labels()
    return trim_heap()


def trim_heap() -> bool:
    """``malloc_trim(0)``: return free heap pages of every arena to the system."""
    if _LIBC is None:
        return False
    return bool(_LIBC.malloc_trim(ctypes.c_size_t(0)))


class MemoryReleaser:
    """Trims the heap in a background thread, soon after it is asked to (debounced).

    Parameters
    ----------
    interval_s
        Least time between two trims; requests meanwhile wait for the next one.
    settle_s
        Delay before a trim (the memory that asked for it is still being freed).
    trim
        The trimming function (default :func:`release_memory`: pooled labels, then
        :func:`trim_heap`).
    """

    def __init__(
        self,
        *,
        interval_s: float = TRIM_INTERVAL_S,
        settle_s: float = 0.5,
        trim: Callable[[], object] = release_memory,
    ) -> None:
        self.interval_s = interval_s
        self.settle_s = settle_s
        self._trim = trim
        self._lock = threading.Lock()
        self._wanted = threading.Event()
        self._closed = False
        self._last = -float("inf")
        self.trims = 0
        self._thread: threading.Thread | None = None
        self._retired: weakref.WeakSet[object] = weakref.WeakSet()

    def release_soon(self) -> None:
        """Ask for a trim (within ``interval_s``); cheap, callable from any thread."""
        with self._lock:
            if self._closed:
                return
            self._wanted.set()
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="otpa-memory-release", daemon=True
                )
                self._thread.start()

    def watch(self, obj: object) -> None:
        """Trim soon after ``obj`` is freed (a network that stopped being served)."""
        with contextlib.suppress(TypeError):  # not weakly referenceable
            weakref.finalize(obj, self.release_soon)
            self._retired.add(obj)

    def stats(self) -> dict[str, int]:
        """``trims`` done, and ``retiredAlive``: watched objects not freed yet.

        A network that stopped being served stays in memory while requests that
        started on it run (a reload under load can keep several alive).
        """
        return {"trims": self.trims, "retiredAlive": len(self._retired)}

    def _run(self) -> None:
        while self._wanted.wait():
            with self._lock:
                if self._closed:
                    return
            # let the freeing that asked for it finish, and trim at most once an interval
            time.sleep(max(self.settle_s, self._last + self.interval_s - time.monotonic()))
            self._wanted.clear()
            try:
                self._trim()
            except Exception:  # a failed trim only leaves memory resident
                logger.exception("malloc_trim failed")
            self._last = time.monotonic()
            self.trims += 1

    def close(self) -> None:
        """Stop the background thread."""
        with self._lock:
            self._closed = True
        self._wanted.set()
