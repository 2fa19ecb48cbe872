"""JSON output as OTP 1.x's Jackson mapper wrote it: null fields omitted everywhere."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

__all__ = ["drop_nulls", "dumps_json"]


def drop_nulls(value: Any) -> Any:
    """Return ``value`` with None-valued mapping entries removed, recursively.

    Mirrors Jackson's ``NON_NULL`` inclusion: a property whose value is null is
    left out.  Non-finite floats (NaN, infinities) count as null, because JSON
    cannot carry them.  Tuples become lists; ``None`` items inside lists stay.

    Parameters
    ----------
    value
        Any JSON-like structure (mappings, lists, tuples, scalars).

    Returns
    -------
    Any
        A new structure of plain dicts and lists.

    Examples
    --------
    >>> drop_nulls({"a": 1, "b": None, "c": [{"d": None}]})
    {'a': 1, 'c': [{}]}
    """
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            cleaned = drop_nulls(item)
            if cleaned is not None:
                out[key] = cleaned
        return out
    if isinstance(value, list | tuple):
        return [drop_nulls(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def dumps_json(value: Any) -> bytes:
    """Serialize ``value`` to compact UTF-8 JSON, null fields omitted.

    Parameters
    ----------
    value
        A JSON-like structure.

    Returns
    -------
    bytes
        The encoded document.

    Examples
    --------
    >>> dumps_json({"routerId": "default", "polygon": None})
    b'{"routerId":"default"}'
    """
    text = json.dumps(drop_nulls(value), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.encode("utf-8")
