"""A deadline for the searches of the current thread: stop mid-plan instead of finishing unread.

A service that answers "too late" at its per-request time limit wants the search
behind the request to stop too, not to keep a worker thread busy until it ends.
:func:`search_deadline` sets a deadline for the plans run in its ``with`` block (in
this thread, or this :mod:`contextvars` context); the planner checks it between its
steps -- before each RAPTOR search (the first one and each search for more
itineraries), before each itinerary is assembled, before the street-only search --
and raises :class:`~otpa.routing.errors.SearchTimeoutError` when it has passed and
nothing is ready yet; itineraries already assembled are the answer otherwise (as
``searchTimeout`` does).  A single RAPTOR search or street search (numba kernels)
is not interrupted: the plan stops at most one such step after the deadline.

Examples
--------
>>> with search_deadline(0.0):
...     deadline_passed()
True
>>> deadline_passed()  # no deadline outside the block
False
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Callable, Iterator
from typing import ParamSpec, TypeVar

from otpa.routing.errors import SearchTimeoutError

__all__ = [
    "check_deadline",
    "deadline_passed",
    "search_deadline",
    "seconds_left",
    "under_this_deadline",
]

P = ParamSpec("P")
T = TypeVar("T")

#: time.monotonic() value after which searches stop; None: no deadline
_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "otpa_search_deadline", default=None
)


@contextlib.contextmanager
def search_deadline(seconds: float | None) -> Iterator[None]:
    """Plans in the block stop once ``seconds`` (from now) have passed.

    Parameters
    ----------
    seconds
        Time allowed; None: no deadline (an enclosing block's still applies).
        Nested blocks keep the earlier of their deadlines.
    """
    outer = _DEADLINE.get()
    at = None if seconds is None else time.monotonic() + max(seconds, 0.0)
    if outer is not None and (at is None or outer < at):
        at = outer
    token = _DEADLINE.set(at)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def seconds_left() -> float | None:
    """Seconds left before the current deadline (<= 0: passed); None without a deadline."""
    at = _DEADLINE.get()
    return None if at is None else at - time.monotonic()


def deadline_passed() -> bool:
    """Whether the current deadline has passed (False without one)."""
    at = _DEADLINE.get()
    return at is not None and time.monotonic() >= at


def check_deadline(step: str) -> None:
    """Raise :class:`SearchTimeoutError` when the current deadline has passed.

    Parameters
    ----------
    step
        What the search was about to do (in the message).
    """
    if deadline_passed():
        msg = f"the search ran out of time before {step}"
        raise SearchTimeoutError(msg)


def under_this_deadline(fn: Callable[P, T]) -> Callable[P, T]:
    """``fn`` made to run under the current deadline in whatever thread calls it.

    Worker threads (a ``ThreadPoolExecutor`` of the search) do not inherit the
    caller's :mod:`contextvars`; wrap their jobs in the calling thread.

    Examples
    --------
    >>> import concurrent.futures
    >>> with search_deadline(0.0), concurrent.futures.ThreadPoolExecutor(1) as pool:
    ...     pool.submit(under_this_deadline(deadline_passed)).result()
    True
    """
    at = _DEADLINE.get()

    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        token = _DEADLINE.set(at)
        try:
            return fn(*args, **kwargs)
        finally:
            _DEADLINE.reset(token)

    return run
