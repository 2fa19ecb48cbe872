"""Fast row access to the transit model's tables while assembling itineraries.

``DataFrame.iloc[i]`` costs tens of microseconds (more with Arrow-backed
strings); an itinerary reads dozens of rows.  The columns are converted once
per model to plain numpy object arrays and cached.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from otpa.transit.model import TransitModel
from otpa.util.cache import OwnerCache

__all__ = ["Row", "columns", "row", "shape_index"]

_COLUMNS: OwnerCache[str, dict[str, Any]] = OwnerCache()
_SHAPES: OwnerCache[str, dict[str, int]] = OwnerCache()


def _columns(model: TransitModel, table: str) -> dict[str, Any]:
    df = getattr(model, table)
    cols = {}
    for name in df.columns:
        values = df[name].to_numpy(dtype=object, na_value=None)
        cols[str(name)] = np.asarray(values, dtype=object)
    return cols


def columns(model: TransitModel, table: str) -> dict[str, Any]:
    """Columns of ``model.<table>`` as numpy object arrays (cached per model)."""
    return _COLUMNS.get_or_build(model, table, lambda: _columns(model, table))


def _shape_index(model: TransitModel) -> dict[str, int]:
    index: dict[str, int] = {}
    for i, shape_id in enumerate(model.shape_ids):
        index.setdefault(shape_id, i)  # the first, as list.index
    return index


def shape_index(model: TransitModel) -> dict[str, int]:
    """Index of every shape id in ``model.shape_ids`` (cached per model)."""
    return _SHAPES.get_or_build(model, "shapes", lambda: _shape_index(model))


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
