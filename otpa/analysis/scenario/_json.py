"""Field readers for the JSON form of scenarios.

Each reader takes a decoded JSON value and returns the Python value a
modification field holds, or raises :class:`FieldError` with a sentence saying
what was expected.  Writers do the reverse for the few types that differ
(tuples become lists, times become ``HH:MM:SS``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from otpa.analysis.scenario.validate import format_time

__all__ = [
    "FieldError",
    "Reader",
    "boolean",
    "id_list",
    "integer",
    "integer_list",
    "number",
    "optional",
    "text",
    "time_of_day",
    "to_json_value",
]

Reader = Callable[[Any], Any]

_TIME = re.compile(r"^(\d{1,2}):([0-5]\d)(?::([0-5]\d))?$")


class FieldError(ValueError):
    """A JSON value of the wrong type or form."""


def text(value: Any) -> str:
    """A string."""
    if not isinstance(value, str):
        msg = f"must be a string, got {_kind(value)}"
        raise FieldError(msg)
    return value


def boolean(value: Any) -> bool:
    """``true`` or ``false``."""
    if not isinstance(value, bool):
        msg = f"must be true or false, got {_kind(value)}"
        raise FieldError(msg)
    return value


def integer(value: Any) -> int:
    """A whole number (``600`` or ``600.0``)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        msg = f"must be a whole number, got {_kind(value)}"
        raise FieldError(msg)
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        msg = f"must be a whole number, got {value!r}"
        raise FieldError(msg)
    return int(value)


def number(value: Any) -> float:
    """A finite number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        msg = f"must be a number, got {_kind(value)}"
        raise FieldError(msg)
    if not math.isfinite(value):
        msg = f"must be a finite number, got {value!r}"
        raise FieldError(msg)
    return float(value)


def time_of_day(value: Any) -> int:
    """Service-day seconds from ``"HH:MM[:SS]"`` (hours may exceed 24) or a number."""
    if isinstance(value, str):
        match = _TIME.match(value.strip())
        if match is None:
            msg = f"must be a time 'HH:MM:SS', got {value!r}"
            raise FieldError(msg)
        h, m, s = match.groups()
        return int(h) * 3600 + int(m) * 60 + int(s or 0)
    return integer(value)


def id_list(value: Any) -> tuple[str, ...]:
    """A list of non-empty strings."""
    if not isinstance(value, list):
        msg = f"must be a list of ids, got {_kind(value)}"
        raise FieldError(msg)
    bad = [v for v in value if not isinstance(v, str) or not v]
    if bad:
        msg = f"must be a list of non-empty strings, got {bad[0]!r} in it"
        raise FieldError(msg)
    return tuple(value)


def integer_list(value: Any) -> tuple[int, ...]:
    """A list of whole numbers."""
    if not isinstance(value, list):
        msg = f"must be a list of whole numbers, got {_kind(value)}"
        raise FieldError(msg)
    return tuple(integer(v) for v in value)


def optional(reader: Reader) -> Reader:
    """``null`` or what ``reader`` accepts."""

    def read(value: Any) -> Any:
        return None if value is None else reader(value)

    return read


def to_json_value(value: Any, *, time: bool = False) -> Any:
    """The JSON form of a field value (tuples as lists, times as ``HH:MM:SS``)."""
    if value is None:
        return None
    if time:
        return format_time(int(value))
    if isinstance(value, tuple):
        return [to_json_value(v) for v in value]
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    return value


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    for t, name in names.items():
        if isinstance(value, t):
            return name
    if isinstance(value, int | float):
        return f"the number {value!r}"
    return type(value).__name__
