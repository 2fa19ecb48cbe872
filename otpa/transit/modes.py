"""GTFS ``route_type`` to OTP ``TraverseMode`` names.

Basic GTFS route types map one to one; the extended (Hierarchical Vehicle
Type) codes follow the ranges OTP 1.x's ``GtfsLibrary`` used.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["TRANSIT_MODES", "mode_for_route_type", "modes_for_route_types"]

#: Every transit mode name OTP 1.x clients know, in OTP's order.
TRANSIT_MODES = (
    "TRAM",
    "SUBWAY",
    "RAIL",
    "BUS",
    "FERRY",
    "CABLE_CAR",
    "GONDOLA",
    "FUNICULAR",
    "AIRPLANE",
)

_BASIC = {
    0: "TRAM",
    1: "SUBWAY",
    2: "RAIL",
    3: "BUS",
    4: "FERRY",
    5: "CABLE_CAR",
    6: "GONDOLA",
    7: "FUNICULAR",
    11: "BUS",  # trolleybus
    12: "RAIL",  # monorail
}

# (first code, last code inclusive, mode) for extended route types.
_EXTENDED = (
    (100, 199, "RAIL"),
    (200, 299, "BUS"),
    (300, 499, "RAIL"),
    (500, 699, "SUBWAY"),
    (700, 899, "BUS"),
    (900, 999, "TRAM"),
    (1000, 1099, "FERRY"),
    (1100, 1199, "AIRPLANE"),
    (1200, 1299, "FERRY"),
    (1300, 1399, "GONDOLA"),
    (1400, 1499, "FUNICULAR"),
    (1500, 1599, "BUS"),  # taxi services run on the road network
    (1700, 1799, "BUS"),
)


def mode_for_route_type(route_type: int) -> str:
    """OTP mode name for a GTFS route type (``"BUS"`` for unknown codes).

    Examples
    --------
    >>> mode_for_route_type(1), mode_for_route_type(109), mode_for_route_type(715)
    ('SUBWAY', 'RAIL', 'BUS')
    """
    if route_type in _BASIC:
        return _BASIC[route_type]
    for first, last, mode in _EXTENDED:
        if first <= route_type <= last:
            return mode
    return "BUS"


def modes_for_route_types(route_types: npt.ArrayLike) -> npt.NDArray[np.str_]:
    """Vectorised :func:`mode_for_route_type`."""
    codes = np.asarray(route_types, dtype=np.int64)
    uniq, inverse = np.unique(codes, return_inverse=True)
    names = np.array([mode_for_route_type(int(c)) for c in uniq], dtype="<U9")
    return names[inverse]
