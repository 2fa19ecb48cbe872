"""Result types of a RAPTOR search (re-exported by :mod:`otpa.transit.raptor.api`).

Times are seconds since the timetable's epoch; stops, routes and route-trips are
timetable indices.  Legs are always in travel order, for arrive-by searches too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

__all__ = ["AccessLeg", "EgressLeg", "Leg", "RaptorJourney", "TransferLeg", "TransitLeg"]


@dataclass(frozen=True)
class AccessLeg:
    """From the origin to the first boarding stop (``index`` into the request's access arrays)."""

    stop: int
    index: int
    duration_s: int
    start: int
    end: int


@dataclass(frozen=True)
class TransitLeg:
    """A ride on route-trip ``trip`` of ``route`` from position ``board_pos`` to ``alight_pos``.

    ``interline``: the rider stayed seated from the previous leg, whose vehicle continues
    as this trip (:class:`~otpa.transit.raptor.spi.StaySeated`); no boarding, no transfer.
    ``onboard``: the journey starts on board this trip at ``start``, after it left
    position ``board_pos`` (:class:`~otpa.transit.raptor.api.OnBoard`); no boarding.
    """

    route: int
    trip: int
    board_pos: int
    alight_pos: int
    board_stop: int
    alight_stop: int
    start: int
    end: int
    interline: bool = False
    onboard: bool = False


@dataclass(frozen=True)
class TransferLeg:
    """A walking transfer between two stops (``edge`` into the request's transfer arrays)."""

    from_stop: int
    to_stop: int
    duration_s: int
    start: int
    end: int
    edge: int = -1


@dataclass(frozen=True)
class EgressLeg:
    """From the last alighting stop to the destination (``index`` into the egress arrays)."""

    stop: int
    index: int
    duration_s: int
    start: int
    end: int


Leg: TypeAlias = AccessLeg | TransitLeg | TransferLeg | EgressLeg


@dataclass(frozen=True)
class RaptorJourney:
    """One Pareto-optimal journey: access, rides and transfers, egress.

    Attributes
    ----------
    legs
        In travel order: access first (none when the journey starts on board), egress last.
    departure
        ``legs[0].start``.
    arrival
        ``legs[-1].end``.
    n_rides
        Number of rides (RAPTOR rounds): transit legs, less those entered by staying
        seated (``TransitLeg.interline``); an on-board start counts as one.
    cost
        Generalized cost (access, boardings, waits, rides, walks and egress), computed
        with the request's cost parameters in both criteria modes.
    """

    legs: tuple[Leg, ...]
    departure: int
    arrival: int
    n_rides: int
    cost: float

    @property
    def transit_legs(self) -> tuple[TransitLeg, ...]:
        """The rides, in travel order."""
        return tuple(leg for leg in self.legs if isinstance(leg, TransitLeg))

    @property
    def duration_s(self) -> int:
        """``arrival - departure``."""
        return self.arrival - self.departure
