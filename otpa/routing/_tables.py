"""Fast row access to the transit model's tables while assembling itineraries.

``DataFrame.iloc[i]`` costs tens of microseconds (more with Arrow-backed
strings); an itinerary reads dozens of rows.  The columns are converted once
per model to plain numpy object arrays and cached.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

import numpy as np

from otpa.transit.model import TransitModel

__all__ = ["Row", "columns", "row", "shape_index"]

_CACHE: weakref.WeakKeyDictionary[TransitModel, dict[str, dict[str, Any]]] = (
    weakref.WeakKeyDictionary()
)
_LOCK = threading.Lock()


def columns(model: TransitModel, table: str) -> dict[str, Any]:
    """Columns of ``model.<table>`` as numpy object arrays (cached per model)."""
    with _LOCK:
        per_model = _CACHE.setdefault(model, {})
        cols = per_model.get(table)
        if cols is None:
            df = getattr(model, table)
            cols = {}
            for name in df.columns:
                values = df[name].to_numpy(dtype=object, na_value=None)
                cols[str(name)] = np.asarray(values, dtype=object)
            per_model[table] = cols
        return cols


def shape_index(model: TransitModel) -> dict[str, int]:
    """Index of every shape id in ``model.shape_ids`` (cached per model)."""
    with _LOCK:
        per_model = _CACHE.setdefault(model, {})
        index = per_model.get("__shape_index__")
        if index is None:
            index = {}
            for i, shape_id in enumerate(model.shape_ids):
                index.setdefault(shape_id, i)  # the first, as list.index
            per_model["__shape_index__"] = index
        return index


class Row:
    """Read-only view of one table row (``row["name"]``, ``row.get("name")``)."""

    __slots__ = ("_cols", "_i")

    def __init__(self, cols: dict[str, Any], i: int) -> None:
        self._cols = cols
        self._i = i

    def __getitem__(self, key: str) -> Any:
        return self._cols[key][self._i]

    def get(self, key: str, default: Any = None) -> Any:
        """The value of column ``key``, or ``default`` when there is no such column."""
        col = self._cols.get(key)
        return default if col is None else col[self._i]


def row(model: TransitModel, table: str, i: int) -> Row:
    """Row ``i`` of ``model.<table>``."""
    return Row(columns(model, table), int(i))
