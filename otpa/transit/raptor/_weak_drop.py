"""Weak-reference callbacks of the package's caches.

(The raptor package is sealed: it keeps its own helper rather than importing
:mod:`otpa.util.cache`.)
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any

__all__ = ["pop_when_dead"]


def pop_when_dead(
    lock: threading.RLock, table: dict[Any, Any], key: Any
) -> Callable[[weakref.ref[Any]], None]:
    """A weak-reference callback that drops ``table[key]`` (under ``lock``) when its referent dies.

    The lock and table are bound in the callback, not looked up as module globals, which
    may already be gone when the last objects die at interpreter exit.  ``lock`` must be
    reentrant: the callback may run in a thread that holds it.
    """

    def _drop(_: weakref.ref[Any]) -> None:
        with lock:
            table.pop(key, None)

    return _drop
