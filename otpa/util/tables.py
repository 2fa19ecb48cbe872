"""Store pandas tables as plain arrays and JSON lists (no pickle).

Numeric and boolean columns become numpy arrays (nullable ones with a
``.__na__`` mask).  Text columns whose values repeat become a dictionary: the
distinct strings in the JSON document (``categories``) and one ``int32`` code
per row (``.__codes__`` array, ``-1`` for missing).  Other text columns become
JSON lists of strings (``text``, ``None`` for missing).  Either way a text
column reads back with pandas' ``"string"`` dtype.  Used by the saved-graph
format.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa

from otpa.errors import InvalidArgumentError

__all__ = ["frame_from_members", "frame_to_members"]


def _is_numeric(series: pd.Series[Any]) -> bool:
    return bool(
        pd.api.types.is_numeric_dtype(series.dtype) or pd.api.types.is_bool_dtype(series.dtype)
    ) and not isinstance(series.dtype, pd.CategoricalDtype)


#: A text column is dictionary-encoded when it has at most this share of distinct values.
_MAX_DISTINCT_SHARE = 0.5


def _text_values(series: pd.Series[Any]) -> list[str | None]:
    values = series.astype(object).where(series.notna(), None).tolist()
    return [None if v is None else str(v) for v in values]


def frame_to_members(
    name: str, frame: pd.DataFrame
) -> tuple[dict[str, npt.NDArray[Any]], dict[str, Any]]:
    """Split a table into arrays and one JSON document.

    Parameters
    ----------
    name
        Table name; member names are ``f"{name}.{column}"`` (plus the
        ``.__na__`` and ``.__codes__`` suffixes).
    frame
        The table.

    Returns
    -------
    tuple
        ``(arrays, documents)`` ready for the container writer.
    """
    arrays: dict[str, npt.NDArray[Any]] = {}
    text: dict[str, list[str | None]] = {}
    categories: dict[str, list[str]] = {}
    for column in frame.columns:
        series = frame[column]
        if _is_numeric(series) and not pd.api.types.is_extension_array_dtype(series.dtype):
            arrays[f"{name}.{column}"] = series.to_numpy()
        elif _is_numeric(series):
            # nullable integers / booleans: store values plus a validity mask
            mask = series.isna().to_numpy()
            kind = np.dtype(getattr(series.dtype, "numpy_dtype", np.int64))
            arrays[f"{name}.{column}"] = series.to_numpy(dtype=kind, na_value=kind.type(0))
            arrays[f"{name}.{column}.__na__"] = mask
        else:
            values = _text_values(series)
            distinct = dict.fromkeys(v for v in values if v is not None)
            if len(distinct) > _MAX_DISTINCT_SHARE * len(values):
                text[str(column)] = values
                continue
            lookup = {v: i for i, v in enumerate(distinct)}
            codes = [-1 if v is None else lookup[v] for v in values]
            categories[str(column)] = list(distinct)
            arrays[f"{name}.{column}.__codes__"] = np.asarray(codes, dtype=np.int32)
    doc = {
        "columns": [str(c) for c in frame.columns],
        "length": len(frame),
        "text": text,
        "categories": categories,
    }
    return arrays, {f"table.{name}": doc}


def _decode_categories(
    categories: Any, codes: npt.NDArray[Any], length: int
) -> pd.api.extensions.ExtensionArray:
    if not isinstance(categories, list) or not all(isinstance(c, str) for c in categories):
        msg = "table categories must be a list of strings"
        raise InvalidArgumentError(msg)
    codes = np.asarray(codes)
    if codes.dtype.kind not in "iu" or codes.shape != (length,):
        msg = "table category codes have the wrong dtype or length"
        raise InvalidArgumentError(msg)
    if length and (int(codes.min()) < -1 or int(codes.max()) >= len(categories)):
        msg = "table category codes out of range"
        raise InvalidArgumentError(msg)
    # arrow "take" builds the column without a Python object per row
    indices = pa.array(codes, mask=codes < 0)
    return pd.array(pa.array(categories, type=pa.large_string()).take(indices), dtype="string")


def _decode_text(values: Any) -> pd.api.extensions.ExtensionArray:
    if not isinstance(values, list):
        msg = "a table text column must be a list"
        raise InvalidArgumentError(msg)
    try:
        column = pa.array(values, type=pa.large_string())
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        msg = f"a table text column holds non-strings ({exc})"
        raise InvalidArgumentError(msg) from None
    return pd.array(column, dtype="string")


def frame_from_members(
    name: str, arrays: Mapping[str, npt.NDArray[Any]], documents: Mapping[str, Any]
) -> pd.DataFrame:
    """Rebuild a table written by :func:`frame_to_members`.

    Raises
    ------
    KeyError
        If a member is missing.
    ValueError
        If a member is malformed.
    """
    doc = documents[f"table.{name}"]
    categories = doc.get("categories", {})
    data: dict[str, Any] = {}
    for column in doc["columns"]:
        if column in doc["text"]:
            data[column] = _decode_text(doc["text"][column])
            continue
        if column in categories:
            codes = arrays[f"{name}.{column}.__codes__"]
            data[column] = _decode_categories(categories[column], codes, doc["length"])
            continue
        values = arrays[f"{name}.{column}"]
        mask = arrays.get(f"{name}.{column}.__na__")
        if mask is not None:
            # numpy ints / floats / bools become pandas' masked Int* / Float* / boolean
            data[column] = pd.array(np.array(values))
            data[column][np.asarray(mask, dtype=bool)] = pd.NA
        else:
            data[column] = values
    return pd.DataFrame(data, columns=doc["columns"], index=pd.RangeIndex(doc["length"]))
