"""JSON output as OTP 1.x's Jackson mapper wrote it: null fields omitted everywhere.

Bodies are encoded with orjson (a plan answer is a few hundred nested objects:
the standard library's encoder and an ``isinstance``-per-value walk took ~2.4 ms
of a plan's ~37 ms of CPU on RNV, orjson and the exact-type walk below ~0.6 ms;
``benchmarks/load_service.py --plans-only``, ``docs/performance.md``).  What
orjson cannot encode (an integer beyond 64 bits...) falls back to :mod:`json`.

A body built without ``None`` values (the ``/plan`` answer,
:mod:`service.otp1.plan_response`) needs no walk at all: :func:`dumps_json` first
encodes the value as it is and keeps that when the output has no ``null`` in it
(orjson writes ``None`` and non-finite floats as ``null``, so then there was nothing
to drop and the bytes are those of the walk's result); otherwise it walks
(:func:`drop_nulls`) and encodes again.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import orjson

__all__ = ["drop_nulls", "dumps_json"]

_SCALARS = frozenset({str, int, bool})
_ORJSON_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY
#: How orjson writes ``None`` and non-finite floats (also found inside strings: then
#: :func:`dumps_json` walks, which is only slower).
_NULL = b"null"


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
    kind = type(value)  # exact types first: isinstance against ABCs is slow
    if kind is dict:
        return _clean_dict(value)
    if kind is list or kind is tuple:
        return _clean_list(value)
    if kind in _SCALARS or value is None:
        return value
    if kind is float:
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return _clean_dict(dict(value.items()))
    if isinstance(value, list | tuple):
        return _clean_list(value)
    if isinstance(value, float):  # float subclasses (numpy.float64)
        return float(value) if math.isfinite(value) else None
    return value


def _clean_dict(value: dict[Any, Any]) -> dict[Any, Any]:
    """:func:`drop_nulls` of a dict; scalar items are handled here, without a call each."""
    out = {}
    for key, item in value.items():
        kind = type(item)
        if kind in _SCALARS:
            out[key] = item
        elif item is None:
            continue
        elif kind is float:
            if math.isfinite(item):
                out[key] = item
        elif kind is dict:
            out[key] = _clean_dict(item)
        else:
            cleaned = drop_nulls(item)
            if cleaned is not None:
                out[key] = cleaned
    return out


def _clean_list(value: list[Any] | tuple[Any, ...]) -> list[Any]:
    """:func:`drop_nulls` of a list or tuple (``None`` items stay)."""
    return [item if item is None or type(item) in _SCALARS else drop_nulls(item) for item in value]


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
    try:  # nothing to drop (no null written): these are the bytes of the walk's result
        whole = orjson.dumps(value, option=_ORJSON_OPTIONS)
    except TypeError:  # (a mapping that is no dict...): walk first
        pass
    else:
        if _NULL not in whole:
            return whole
    cleaned = drop_nulls(value)
    try:
        return orjson.dumps(cleaned, option=_ORJSON_OPTIONS)
    except TypeError:  # orjson.JSONEncodeError: what only the standard library encodes
        text = json.dumps(cleaned, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        return text.encode("utf-8")
