"""The otpa error hierarchy.

Every exception the library raises on purpose derives from :class:`OtpaError`.
Errors about bad input also derive from the matching builtin (``ValueError``,
``LookupError``) so callers can catch either; a failed internal invariant (a bug in
otpa, not the caller's input) is an :class:`InternalError`, a ``RuntimeError``.
Questionable but usable input gets an :class:`OtpaWarning` subclass instead of an
exception.
"""

from __future__ import annotations

__all__ = [
    "ArgumentTypeError",
    "ElevationError",
    "GraphFormatError",
    "GtfsError",
    "InternalError",
    "InvalidArgumentError",
    "NetworkBuildError",
    "OsmError",
    "OtpaError",
    "OtpaWarning",
    "OutOfRangeError",
    "UnknownIdError",
    "UnknownNameError",
]


class OtpaError(Exception):
    """Base class of every error raised by otpa."""


class OtpaWarning(UserWarning):
    """Base class of every warning emitted by otpa."""


class GtfsError(ValueError, OtpaError):
    """A GTFS feed cannot be used (missing required file, unreadable archive...)."""


class OsmError(ValueError, OtpaError):
    """An OpenStreetMap file cannot be used (unreadable, no highways...)."""


class ElevationError(ValueError, OtpaError):
    """An elevation raster cannot be used."""


class NetworkBuildError(ValueError, OtpaError):
    """A transport network cannot be built from the given inputs."""


class GraphFormatError(ValueError, OtpaError):
    """A saved graph is corrupt, truncated, not a graph, or of an incompatible version."""


class UnknownIdError(LookupError, OtpaError):
    """An entity id (stop, route, trip, router...) is not known."""


class InvalidArgumentError(ValueError, OtpaError):
    """An argument has an unusable value (out of range, wrong shape, unknown option...)."""


class InternalError(RuntimeError, OtpaError):
    """An internal invariant of otpa failed: a bug, not a problem of the caller's input.

    Never a ``ValueError``, so a service does not answer it as a bad request (OTP 1.x
    answered such failures of a plan with its ``SYSTEM_ERROR``).
    """


class ArgumentTypeError(TypeError, OtpaError):
    """An argument has the wrong type."""


class UnknownNameError(KeyError, OtpaError):
    """A name (a column, a key, a modification) is not known."""


class OutOfRangeError(IndexError, OtpaError):
    """A position is outside the sequence it indexes."""
