"""Per-search work that depends only on unchanging arrays, done once.

Planners pass the network's arrays (walking transfers, transfers.txt rules) with every
search, read-only; checking or deriving them again for each search costs more than a
small search.  Results are remembered by identity while the array is alive, for
arrays whose values cannot change (read-only, and so is the buffer they view: their
own memory, ``bytes`` or a memory map opened read-only, as a graph loaded from disk).
"""

from __future__ import annotations

import mmap
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from functools import lru_cache
from typing import Any, TypeVar

import numpy as np

__all__ = ["constant", "frozen", "known_valid", "remember_valid", "remembered"]

_SIZE = 64
_LOCK = threading.Lock()
_VALID: OrderedDict[tuple[int, str], weakref.ref[Any]] = OrderedDict()
_VALUES: OrderedDict[tuple[Any, ...], tuple[tuple[weakref.ref[Any], ...], Any]] = OrderedDict()
_NETWORK_SIZE = 8
_NETWORK_VALUES: OrderedDict[tuple[Any, ...], tuple[tuple[weakref.ref[Any], ...], Any]] = (
    OrderedDict()
)
_T = TypeVar("_T")


def _unchanging_buffer(value: Any) -> bool:
    """``value`` is a buffer whose bytes cannot change: ``bytes``, or a read-only view of
    ``bytes`` or of a memory map opened read-only (a saved graph loaded with mmap)."""
    if isinstance(value, bytes):
        return True
    if not isinstance(value, memoryview) or not value.readonly:
        return False
    obj = value.obj
    if isinstance(obj, bytes):
        return True
    if isinstance(obj, mmap.mmap):
        # a read-only view may be taken of a writable map: ask the map itself
        try:
            with memoryview(obj) as whole:
                return whole.readonly
        except ValueError:  # closed
            return False
    return False


def frozen(value: Any) -> bool:
    """``value`` is an array whose values cannot change.

    It is read-only, and so is every array it views; the chain ends in no buffer (the
    array owns its data), in ``bytes`` or in a read-only memory map.
    """
    while isinstance(value, np.ndarray):
        if value.flags.writeable:
            return False
        value = value.base
    return value is None or _unchanging_buffer(value)


def known_valid(value: Any, check: str) -> bool:
    """``value`` is an unchanging array that passed ``check`` before."""
    if not frozen(value):
        return False
    with _LOCK:
        hit = _VALID.get((id(value), check))
    return hit is not None and hit() is value


def remember_valid(value: Any, check: str) -> None:
    """Remember that ``value`` passed ``check`` (if its values cannot change)."""
    if not frozen(value):
        return
    with _LOCK:
        _VALID[(id(value), check)] = weakref.ref(value)
        _VALID.move_to_end((id(value), check))
        while len(_VALID) > _SIZE:
            _VALID.popitem(last=False)


def remembered(
    arrays: tuple[Any, ...], name: str, build: Callable[[], _T], *, network: bool = False
) -> _T:
    """``build()``, remembered under ``name`` while ``arrays`` are alive and unchanging.

    The value is kept by the identity of ``arrays`` (weakly: it does not keep them
    alive) when every one of them is :func:`frozen`; otherwise it is built for this
    call alone.  The last :data:`_SIZE` values are kept; ``network``: values of a
    network's own arrays (its walking transfers), dear to build and few, are kept apart
    (the last :data:`_NETWORK_SIZE`), so that the values of many timetables or requests
    do not push them out.
    """
    if not all(frozen(a) for a in arrays):
        return build()
    store, size = (_NETWORK_VALUES, _NETWORK_SIZE) if network else (_VALUES, _SIZE)
    key = (name, *(id(a) for a in arrays))
    with _LOCK:
        hit = store.get(key)
    if hit is not None and all(ref() is a for ref, a in zip(hit[0], arrays, strict=True)):
        value: _T = hit[1]
        return value
    value = build()
    with _LOCK:
        store[key] = (tuple(weakref.ref(a) for a in arrays), value)
        store.move_to_end(key)
        while len(store) > size:
            store.popitem(last=False)
    return value


@lru_cache(maxsize=32)
def constant(value: float, n: int, dtype: str) -> np.ndarray[Any, Any]:
    """A read-only array of ``n`` times ``value`` (shared: the neutral filters and costs)."""
    out = np.full(n, value, dtype=np.dtype(dtype))
    out.flags.writeable = False
    return out
