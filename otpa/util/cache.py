"""One cache for data derived from an object: weakly keyed on the object, bounded LRU per object.

Derived data -- a timetable of a date, column tables, a fare index, destination links --
belongs to the object it was derived from (a network, a transit model, a timetable's
arrays): it must go when that object goes, and stay bounded while it lives.  The owner is
held by a weak reference and identified by identity, so owners need not be hashable
(numpy arrays are not).  Values are built outside the lock (builds may take seconds and
run in worker threads); when two threads build the same entry, the first stored wins and
both get it.

Examples
--------
>>> import numpy as np
>>> cache: OwnerCache[str, int] = OwnerCache(max_entries=2)
>>> owner = np.arange(3)
>>> cache.get_or_build(owner, "sum", lambda: int(owner.sum()))
3
>>> cache.get_or_build(owner, "sum", lambda: -1)  # cached
3
>>> del owner
>>> len(cache)  # gone with its owner
0
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar, cast

from otpa.errors import InvalidArgumentError

__all__ = ["OwnerCache"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
_MISSING = object()


class OwnerCache(Generic[K, V]):
    """Values per ``(owner, key)``: weakly keyed on the owner, at most ``max_entries`` per owner.

    Parameters
    ----------
    max_entries
        Entries kept per owner, least recently used dropped first; ``None``: no bound
        (for a fixed set of keys, such as one value per owner).
    """

    def __init__(self, max_entries: int | None = None) -> None:
        if max_entries is not None and max_entries < 1:
            msg = f"max_entries must be at least 1, got {max_entries}"
            raise InvalidArgumentError(msg)
        self._max = max_entries
        # reentrant: a weak-reference callback may run in this thread while it holds the lock
        self._lock = threading.RLock()
        self._owners: dict[int, tuple[weakref.ref[Any], OrderedDict[K, V]]] = {}

    def __len__(self) -> int:
        """Number of owners with entries."""
        with self._lock:
            return len(self._owners)

    def get(self, owner: object, key: K) -> V | None:
        """The cached value, or ``None``."""
        with self._lock:
            entries = self._entries(owner)
            if entries is None or key not in entries:
                return None
            entries.move_to_end(key)
            return entries[key]

    def get_or_build(self, owner: object, key: K, build: Callable[[], V]) -> V:
        """The cached value of ``(owner, key)``, built by ``build()`` on a miss.

        Parameters
        ----------
        owner
            The object the value derives from (weakly referenced; compared by identity).
        key
            What of the owner's derived data this is.
        build
            Computes the value (called without the lock held).

        Returns
        -------
        The value.
        """
        if self._max is None:  # no LRU order to keep: a hit needs no lock (dict reads are atomic)
            hit = self._owners.get(id(owner))
            if hit is not None and hit[0]() is owner:
                found = hit[1].get(key, _MISSING)
                if found is not _MISSING:
                    return cast(V, found)
        with self._lock:
            entries = self._entries(owner)
            if entries is not None and key in entries:
                entries.move_to_end(key)
                return entries[key]
        value = build()
        with self._lock:
            entries = self._entries(owner)
            if entries is None:
                entries = OrderedDict()
                ident = id(owner)
                self._owners[ident] = (weakref.ref(owner, self._dropper(ident)), entries)
            elif key in entries:  # built meanwhile by another thread: keep the first
                entries.move_to_end(key)
                return entries[key]
            entries[key] = value
            evicted = []
            while self._max is not None and len(entries) > self._max:
                evicted.append(entries.popitem(last=False))
        del evicted  # freed outside the lock
        return value

    def forget(self, where: Callable[[K], bool]) -> None:
        """Drop every owner's entries whose key satisfies ``where``."""
        with self._lock:
            dropped = [
                entries.pop(key)
                for _, entries in self._owners.values()
                for key in [k for k in entries if where(k)]
            ]
        del dropped  # freed outside the lock

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            owners = dict(self._owners)
            self._owners.clear()
        del owners  # freed outside the lock

    def _entries(self, owner: object) -> OrderedDict[K, V] | None:
        """The owner's entries (lock held); a dead owner's reused id does not match."""
        hit = self._owners.get(id(owner))
        if hit is None or hit[0]() is not owner:
            return None
        return hit[1]

    def _dropper(self, ident: int) -> Callable[[weakref.ref[Any]], None]:
        owners = self._owners
        lock = self._lock

        def drop(ref: weakref.ref[Any]) -> None:
            with lock:
                hit = owners.get(ident)
                entry = owners.pop(ident) if hit is not None and hit[0] is ref else None
            # freed outside the lock: freeing it may run this callback again (its arrays)
            del entry

        return drop
