"""Store pandas tables as plain arrays and JSON lists (no pickle).

Numeric and boolean columns become numpy arrays; text columns become JSON
lists of strings (``None`` for missing).  Used by the saved-graph format.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

__all__ = ["frame_from_members", "frame_to_members"]


def _is_numeric(series: pd.Series[Any]) -> bool:
    return bool(
        pd.api.types.is_numeric_dtype(series.dtype) or pd.api.types.is_bool_dtype(series.dtype)
    ) and not isinstance(series.dtype, pd.CategoricalDtype)


def frame_to_members(
    name: str, frame: pd.DataFrame
) -> tuple[dict[str, npt.NDArray[Any]], dict[str, Any]]:
    """Split a table into arrays and one JSON document.

    Parameters
    ----------
    name
        Table name; member names are ``f"{name}.{column}"``.
    frame
        The table.

    Returns
    -------
    tuple
        ``(arrays, documents)`` ready for the container writer.
    """
    arrays: dict[str, npt.NDArray[Any]] = {}
    text: dict[str, list[str | None]] = {}
    for column in frame.columns:
        series = frame[column]
        if _is_numeric(series) and not pd.api.types.is_extension_array_dtype(series.dtype):
            arrays[f"{name}.{column}"] = series.to_numpy()
        elif _is_numeric(series):
            # nullable integers / booleans: store values plus a validity mask
            mask = series.isna().to_numpy()
            kind = series.dtype.numpy_dtype if hasattr(series.dtype, "numpy_dtype") else np.int64
            arrays[f"{name}.{column}"] = series.fillna(0).to_numpy(dtype=kind)
            arrays[f"{name}.{column}.__na__"] = mask
        else:
            values = series.astype(object).where(series.notna(), None).tolist()
            text[str(column)] = [None if v is None else str(v) for v in values]
    doc = {"columns": [str(c) for c in frame.columns], "length": len(frame), "text": text}
    return arrays, {f"table.{name}": doc}


def frame_from_members(
    name: str, arrays: Mapping[str, npt.NDArray[Any]], documents: Mapping[str, Any]
) -> pd.DataFrame:
    """Rebuild a table written by :func:`frame_to_members`."""
    doc = documents[f"table.{name}"]
    data: dict[str, Any] = {}
    for column in doc["columns"]:
        if column in doc["text"]:
            data[column] = pd.array(doc["text"][column], dtype="string")
            continue
        values = arrays[f"{name}.{column}"]
        mask = arrays.get(f"{name}.{column}.__na__")
        if mask is not None:
            data[column] = pd.array(
                np.asarray(values), dtype=pd.api.types.pandas_dtype(values.dtype.name.capitalize())
            )
            data[column][np.asarray(mask)] = pd.NA
        else:
            data[column] = values
    return pd.DataFrame(data, columns=doc["columns"], index=pd.RangeIndex(doc["length"]))
