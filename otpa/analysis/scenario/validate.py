"""Checks shared by the modifications: limits, ids, times.

Every check returns a list of problems (one sentence each, naming the field and
the offending value) instead of raising, so a scenario reports all its
problems at once.  Checks that need a network look ids up in a
:class:`~otpa.analysis.scenario._draft.Draft`: the network as the earlier
modifications of the scenario left it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

from otpa.analysis.scenario._draft import Draft

__all__ = [
    "MAX_DAY_S",
    "MAX_MODIFICATIONS",
    "MAX_ROUTE_STOPS",
    "MIN_HEADWAY_S",
    "SAFE_ID",
    "WEEKDAYS",
    "check_ids",
    "check_number",
    "check_safe_id",
    "check_text",
    "check_window",
    "format_time",
]

#: Most modifications a scenario may hold.
MAX_MODIFICATIONS = 200
#: Most stops an added route may call at.
MAX_ROUTE_STOPS = 2000
#: Shortest headway of added or adjusted service (seconds).
MIN_HEADWAY_S = 60
#: Latest service-day time accepted (GTFS times may run past midnight).
MAX_DAY_S = 48 * 3600
#: Day names accepted by ``AddRoute.days``, Monday first.
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

_TABLE_WORD = {"stops": "stop", "routes": "route", "trips": "trip"}


def format_time(seconds: int) -> str:
    """``HH:MM:SS`` of service-day seconds (hours may exceed 24)."""
    h, rest = divmod(int(seconds), 3600)
    return f"{h:02d}:{rest // 60:02d}:{rest % 60:02d}"


def check_text(value: object, field: str) -> list[str]:
    """A non-empty string."""
    if not isinstance(value, str) or not value.strip():
        return [f"{field} must be a non-empty string, got {value!r}"]
    return []


def check_number(
    value: object,
    field: str,
    *,
    low: float,
    high: float,
    low_inclusive: bool = True,
    unit: str = "",
) -> list[str]:
    """A finite number in ``[low, high]`` (or ``(low, high]``)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return [f"{field} must be a finite number, got {value!r}"]
    too_low = value < low if low_inclusive else value <= low
    if too_low or value > high:
        left = "[" if low_inclusive else "("
        return [f"{field} must be in {left}{low:g}, {high:g}]{unit}, got {value!r}"]
    return []


def check_window(start: object, end: object) -> list[str]:
    """``0 <= start < end <= MAX_DAY_S`` (service-day seconds)."""
    problems = [
        *check_number(start, "start_time", low=0, high=MAX_DAY_S, unit=" s"),
        *check_number(end, "end_time", low=0, high=MAX_DAY_S, unit=" s"),
    ]
    if problems or not isinstance(start, int | float) or not isinstance(end, int | float):
        return problems
    if end <= start:
        problems.append(
            f"end_time {format_time(int(end))} must be after start_time {format_time(int(start))}"
        )
    return problems


def check_ids(draft: Draft, table: str, ids: Iterable[str], field: str) -> list[str]:
    """Every id names a row of ``table`` (``"stops"``, ``"routes"`` or ``"trips"``)."""
    word = _TABLE_WORD[table]
    problems = []
    for entity_id in ids:
        if table == "trips":
            known = len(draft.trip_indices(entity_id)) > 0
        else:
            known = draft.has_id(table, entity_id)
        if not known:
            problems.append(f"{field}: unknown {word} id {entity_id!r}{_hint(entity_id)}")
    return problems


def _hint(entity_id: str) -> str:
    if ":" not in entity_id:
        return " (ids are feed-scoped: 'feedId:id')"
    return ""


#: Ids of scenarios and routers: safe as file names on every platform.
SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


def check_safe_id(value: object, field: str) -> list[str]:
    """An id usable as a file name: letters, digits, ``_`` and ``-``, at most 64."""
    if not isinstance(value, str) or not SAFE_ID.match(value):
        return [
            f"{field} must be 1 to 64 letters, digits, '_' or '-' (starting with a letter "
            f"or digit), got {value!r}"
        ]
    return []
