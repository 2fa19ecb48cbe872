"""The transit index: entities of a network by id, place and time (OTP 1.x's index API).

>>> from otpa.index import TransitIndex
>>> index = TransitIndex.of(network)  # doctest: +SKIP
>>> index.get_stop("atlanta-blue-green-line:797").name  # doctest: +SKIP
'FIVE POINTS STATION'
"""

from __future__ import annotations

from otpa.index.model import (
    Agency,
    EncodedPolyline,
    FeedInfo,
    FlexArea,
    Pattern,
    Route,
    ServiceCalendar,
    Stop,
    StopAtDistance,
    StopCluster,
    StopTimesInPattern,
    Transfer,
    Trip,
    TripTime,
)
from otpa.index.transit_index import TransitIndex

__all__ = [
    "Agency",
    "EncodedPolyline",
    "FeedInfo",
    "FlexArea",
    "Pattern",
    "Route",
    "ServiceCalendar",
    "Stop",
    "StopAtDistance",
    "StopCluster",
    "StopTimesInPattern",
    "Transfer",
    "TransitIndex",
    "Trip",
    "TripTime",
]
