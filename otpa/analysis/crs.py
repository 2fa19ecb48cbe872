"""Coordinate reference systems named by users (``"EPSG:4326"``, ``"EPSG:32616"``, WKT...)."""

from __future__ import annotations

from otpa.errors import OtpaError

__all__ = ["UnknownCrsError", "check_crs"]


class UnknownCrsError(ValueError, OtpaError):
    """A CRS name that pyproj does not know."""


def check_crs(name: str) -> str:
    """Return ``name`` when pyproj knows the CRS it names.

    Raises
    ------
    UnknownCrsError
        Otherwise.

    Examples
    --------
    >>> check_crs("EPSG:3857")
    'EPSG:3857'
    """
    from pyproj import CRS
    from pyproj.exceptions import CRSError

    try:
        CRS.from_user_input(name)
    except CRSError as exc:
        msg = f"unknown CRS {name!r}: {exc}"
        raise UnknownCrsError(msg) from None
    return name
