"""The built-in geocoder: stops, stations, street corners and places by name.

:class:`GeocodeIndex` is built with the network (see
:func:`otpa.network.build_network`), saved in the graph file and searched with
OTP 1.x's semantics (``autocomplete``, quoted phrases, fuzzy terms, exact stop
codes, ``stops``/``clusters``/``corners`` switches, 10 results).
:class:`MunicipalityIndex` answers which municipality a point lies in.
"""

from __future__ import annotations

from otpa.geocode._normalize import fold, tokens
from otpa.geocode.corners import StreetCorner, street_corners
from otpa.geocode.index import (
    INDEX_VERSION,
    KINDS,
    MAX_QUERY_CHARS,
    MAX_RESULTS,
    GeocodeIndex,
    GeocodeQueryError,
    GeocodeResult,
)
from otpa.geocode.municipalities import Municipality, MunicipalityIndex

__all__ = [
    "INDEX_VERSION",
    "KINDS",
    "MAX_QUERY_CHARS",
    "MAX_RESULTS",
    "GeocodeIndex",
    "GeocodeQueryError",
    "GeocodeResult",
    "Municipality",
    "MunicipalityIndex",
    "StreetCorner",
    "fold",
    "street_corners",
    "tokens",
]
