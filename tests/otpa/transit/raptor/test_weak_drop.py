"""The caches' weak-reference callback drops its entry, with lock and table bound."""

from __future__ import annotations

import gc
import threading
import weakref
from typing import Any

import numpy as np

from otpa.transit.raptor._weak_drop import pop_when_dead


def test_the_entry_goes_when_its_array_dies_even_while_the_lock_is_held() -> None:
    lock = threading.RLock()
    table: dict[Any, Any] = {}
    arr = np.arange(3)
    table[id(arr)] = (weakref.ref(arr, pop_when_dead(lock, table, id(arr))), "kept")
    table["other"] = "stays"
    with lock:  # the callback may run in a thread that holds the lock (reentrant)
        del arr
        gc.collect()
    assert table == {"other": "stays"}
