"""Errors of trip planning.

Each error class corresponds to one OTP 1.x ``Message`` code (the HTTP layer
maps them in one table).  Invalid requests raise :class:`InvalidRequestError`,
naming the offending parameter by its OTP 1.x query-parameter name.
"""

from __future__ import annotations

from otpa.errors import OtpaError

__all__ = [
    "InvalidRequestError",
    "LocationNotAccessibleError",
    "NoPathsAfterFilteringError",
    "NoTransitTimesError",
    "OutsideBoundsError",
    "PathNotFoundError",
    "PlanningError",
    "SearchTimeoutError",
    "TncConfigInvalidError",
    "TncUnavailableError",
    "TrivialPathError",
]


class PlanningError(OtpaError):
    """A plan request was valid but no itinerary can be given."""


class InvalidRequestError(ValueError, OtpaError):
    """A plan request parameter is invalid.

    Parameters
    ----------
    message
        What is wrong.
    parameter
        The OTP 1.x query parameter name (``"maxWalkDistance"``).
    code
        An OTP 1.x ``Message`` name when one describes the problem
        (``"TRIANGLE_NOT_AFFINE"``, ``"BOGUS_PARAMETER"``).
    """

    def __init__(self, message: str, *, parameter: str, code: str | None = None) -> None:
        super().__init__(message)
        self.parameter = parameter
        self.code = code


class OutsideBoundsError(PlanningError, ValueError):
    """Origin and/or destination is not in (or not linkable to) the network.

    Attributes
    ----------
    missing
        ``("from",)``, ``("to",)`` or ``("from", "to")``.
    """

    def __init__(self, message: str, *, missing: tuple[str, ...]) -> None:
        super().__init__(message)
        self.missing = missing


class PathNotFoundError(PlanningError):
    """No path between origin and destination under the request's constraints."""


class NoTransitTimesError(PlanningError):
    """Transit was requested at a time outside the network's service period."""


class TrivialPathError(PlanningError):
    """Origin and destination are (almost) the same place."""


class NoPathsAfterFilteringError(PlanningError):
    """Paths were found but the itinerary filters removed them all."""


class LocationNotAccessibleError(PlanningError):
    """A location cannot be reached in the requested way (e.g. wheelchair)."""


class TncUnavailableError(PlanningError):
    """Ride hailing was asked for and no company can pick the rider up (ibi, message 480)."""


class TncConfigInvalidError(PlanningError):
    """Ride hailing was asked for and the router has no usable TNC configuration (482)."""


class SearchTimeoutError(PlanningError, TimeoutError):
    """The search ran past its deadline (:mod:`otpa.routing.deadline`) and stopped.

    OTP 1.x's ``REQUEST_TIMEOUT`` (408).  A :class:`TimeoutError` too, so a worker
    pool can count the jobs that stopped themselves at their deadline.
    """
