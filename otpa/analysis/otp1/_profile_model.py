"""What profile routing returns: options, their segments and min/avg/max statistics.

The shapes are OpenTripPlanner 1.x's profile response (``Option``, ``Segment``,
``StreetSegment``, ``StreetEdgeInfo``, ``Stats``) in the library's snake case; the
service writes OTP's JSON names.  Times are whole seconds.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from otpa.errors import InvalidArgumentError
from otpa.routing.model import AbsoluteDirection, RelativeDirection

__all__ = [
    "ProfileOption",
    "ProfileResult",
    "SegmentPattern",
    "Stats",
    "StreetEdge",
    "StreetSegment",
    "TransitSegment",
]


@dataclass(frozen=True)
class Stats:
    """Minimum, average and maximum of some durations (seconds), and how many there were.

    ``avg`` is the mean rounded down to a whole second, as OTP 1.x's ``Stats``.
    """

    min: int
    avg: int
    max: int
    num: int

    @classmethod
    def of(cls, values: Iterable[float]) -> Stats:
        """The statistics of some durations (at least one).

        Examples
        --------
        >>> Stats.of([60, 120, 121])
        Stats(min=60, avg=100, max=121, num=3)
        """
        ints = [round(v) for v in values]
        if not ints:
            msg = "statistics of no values are undefined"
            raise InvalidArgumentError(msg)
        return cls(min(ints), math.floor(sum(ints) / len(ints)), max(ints), len(ints))


@dataclass(frozen=True)
class StreetEdge:
    """One street edge of a street segment (OTP ``StreetEdgeInfo``).

    The walk-step fields (``mode`` ... ``bogus_name``) are set on the first edge of each
    walk step only, as OTP 1.x did, and are None on the others.

    Attributes
    ----------
    edge_id
        Index of the directed edge in the network's street graph.
    distance_m
        The part of the edge travelled (partial at the ends of the path).
    lat, lon
        Its geometry in travel order.
    """

    edge_id: int
    distance_m: float
    lat: tuple[float, ...]
    lon: tuple[float, ...]
    mode: str | None = None
    street_name: str | None = None
    relative_direction: RelativeDirection | None = None
    absolute_direction: AbsoluteDirection | None = None
    stay_on: bool | None = None
    area: bool | None = None
    bogus_name: bool | None = None


@dataclass(frozen=True)
class StreetSegment:
    """A street leg: access to transit, egress from it, or a trip without transit.

    Attributes
    ----------
    mode
        ``WALK``, ``BICYCLE`` or ``CAR``.
    time_s
        Its duration (the street search's whole seconds, the stop's link included).
    distance_m
        Its length.
    edges
        The edges followed, with the walk steps (empty when there is no street path,
        e.g. a network without streets).
    stop_id
        The stop it reaches (access) or leaves from (egress); None for a direct trip.
    """

    mode: str
    time_s: int
    distance_m: float
    edges: tuple[StreetEdge, ...] = ()
    stop_id: str | None = None


@dataclass(frozen=True)
class SegmentPattern:
    """A trip pattern serving a transit segment.

    Attributes
    ----------
    pattern_id
        OTP pattern code (``feedId:routeId:direction:NN``, as the index API).
    from_index, to_index
        Positions of the boarding and alighting stops in the pattern.
    n_trips
        Distinct trips of this pattern the option rides over the time window.
    """

    pattern_id: str
    from_index: int
    to_index: int
    n_trips: int


@dataclass(frozen=True)
class TransitSegment:
    """One ride of an option: a route between two stops (OTP ``Segment``).

    Attributes
    ----------
    from_stop_id, to_stop_id, from_name, to_name
        Boarding and alighting stops.
    route_id, mode
        The route (feed-scoped id) and its OTP mode (``BUS``, ``SUBWAY``...).
    walk_time_s, walk_distance_m
        The walking transfer before this ride (0 for the first ride and for a transfer
        at the same stop).
    wait
        Waiting at the boarding stop, board slack included.
    ride
        Time on board, from the departure at the boarding stop to the arrival at the
        alighting stop.
    patterns
        The patterns ridden, most trips first.
    """

    from_stop_id: str
    to_stop_id: str
    from_name: str
    to_name: str
    route_id: str
    mode: str
    walk_time_s: int
    walk_distance_m: float
    wait: Stats
    ride: Stats
    patterns: tuple[SegmentPattern, ...]


@dataclass(frozen=True)
class ProfileOption:
    """One way to make the trip over the time window (OTP ``Option``).

    Attributes
    ----------
    transit
        The rides in order; empty for the option without transit, whose ``access``
        lists the direct street trip of each direct mode.
    access, egress
        Street legs to the first and from the last ride.
    stats
        Total travel time (departure at the origin to arrival at the destination) over
        the departure minutes where this option is the fastest of its access and egress
        modes or within the ``suboptimal`` margin of it; for the option without transit,
        over its direct modes.
    summary
        ``"routes BLUE, 21 via FIVE POINTS STATION"`` (OTP's summary).
    """

    transit: tuple[TransitSegment, ...]
    access: tuple[StreetSegment, ...]
    egress: tuple[StreetSegment, ...]
    stats: Stats
    summary: str

    @property
    def access_mode(self) -> str | None:
        """Street mode of the access (None for the option without transit)."""
        return self.access[0].mode if self.transit and self.access else None


@dataclass(frozen=True)
class ProfileResult:
    """The options of a profile search, in the requested order.

    Attributes
    ----------
    options
        Transit options ordered by ``order_by`` (at most ``limit`` per access mode), then
        the option without transit when some direct mode reaches the destination.
    departures
        Number of departure minutes searched.
    """

    options: tuple[ProfileOption, ...]
    departures: int
