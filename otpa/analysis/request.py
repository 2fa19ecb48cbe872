"""What an analysis computes: departure window, modes, limits and the routing preferences.

An :class:`AnalysisRequest` is a :class:`~otpa.routing.RoutingPreferences` (the walk,
bike, car, wheelchair, transit and filter preferences a trip plan has too) plus what
only an analysis has: the departure window and step, the percentiles, the trip limit
and the access limits.  :meth:`AnalysisRequest.plan_request` gives the
:class:`~otpa.routing.PlanRequest` with the same preferences, so a travel time of a
surface or matrix can be checked against :func:`otpa.plan`; every preference means
the same for both.

Defaults follow R5/r5r, the reference analysis engines (:data:`ANALYSIS_PREFERENCES`):
walking at 3.6 km/h, cycling at 12 km/h, a 60-second minimum wait before every
boarding, at most 3 rides, a 120-minute trip limit; OTP 1.x's for the rest.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np

from otpa.errors import ArgumentTypeError, InvalidArgumentError
from otpa.routing import Location, PlanRequest, RoutingPreferences
from otpa.routing.parse import parse_modes, rental_preferences
from otpa.routing.preferences import (
    MAX_TRANSFERS,
    AccessibilityPreferences,
    BikePreferences,
    ItineraryPreferences,
    TransitPreferences,
    WalkPreferences,
)
from otpa.routing.request import RequestModes, TransitFilters
from otpa.types import IntArray

__all__ = [
    "ANALYSIS_PREFERENCES",
    "MAX_DEPARTURES",
    "PREFERENCE_KEYWORDS",
    "AnalysisRequest",
    "as_seconds",
]

#: Most departure times one request may sample (a day at one-minute steps).
MAX_DEPARTURES = 1440
#: Percentiles must lie in [0, 100].
_PCT_RANGE = (0, 100)
#: The analysis defaults (R5/r5r): walking at 3.6 km/h, cycling at 12 km/h, a 60 s
#: minimum wait before every boarding, at most 3 rides; OTP 1.x's for the rest.
ANALYSIS_PREFERENCES = RoutingPreferences(
    walk=WalkPreferences(speed_mps=1.0),
    bike=BikePreferences(speed_mps=12.0 / 3.6),
    transit=TransitPreferences(max_transfers=2, board_slack_s=60),
)
#: Travel times cannot weigh accessibility costs: a wheelchair analysis uses only
#: trips and stops marked accessible (the strict mode of the plan's preferences).
_STRICT = AccessibilityPreferences(only_consider_accessible=True)
#: Keywords of :class:`AnalysisRequest` that set one of its preferences.
PREFERENCE_KEYWORDS = (
    "walk_speed_mps",
    "bike_speed_mps",
    "max_rides",
    "board_slack_s",
    "wheelchair",
    "filters",
)


def as_seconds(value: float | dt.timedelta, name: str) -> int:
    """Whole seconds of a duration given in seconds or as a :class:`datetime.timedelta`."""
    if isinstance(value, dt.timedelta):
        return round(value.total_seconds())
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        msg = f"{name} must be a number of seconds or a timedelta, not {value!r}"
        raise ArgumentTypeError(msg)
    if not np.isfinite(value):
        msg = f"{name} must be finite"
        raise InvalidArgumentError(msg)
    return round(float(value))


@dataclass(frozen=True, init=False)
class AnalysisRequest:
    """Parameters shared by time surfaces and travel-time matrices.

    Attributes
    ----------
    departure
        First departure time (naive: in the network's time zone).
    modes
        OTP mode string: ``"WALK,TRANSIT"``, ``"BICYCLE,TRANSIT"``, ``"BUS,WALK"``,
        ``"WALK"``, ``"BICYCLE"``, ``"CAR"``.
    window_s, step_s
        Departures every ``step_s`` from ``departure`` while before
        ``departure + window_s`` (``window_s = 0``: one departure).
    max_time_s
        Longest trip; longer ones count as unreachable.
    percentiles
        Percentiles of the travel times over the departures (R5's non-interpolated
        definition: the value at index ``round(p / 100 * (n - 1))`` of the sorted times).
    preferences
        How the traveller moves, as for planning (:class:`~otpa.routing.RoutingPreferences`:
        speeds, reluctances, optimisation and triangle, slacks, minimum transfer time,
        penalties, wheelchair and ``maxSlope``, filters); default
        :data:`ANALYSIS_PREFERENCES`.  The walk limit is not read: the access limits
        below are.  With wheelchair on, only trips and stops marked accessible are
        used (travel times cannot weigh accessibility costs).
    max_walk_time_s, max_bike_time_s
        Longest access or egress leg in that mode (a hard limit).
    walk_connectors
        Walk (at the street mode's speed; CAR: walking speed) the straight line between
        a point and the street it is linked to, as R5 does.  False treats it as free,
        as OTP 1.x's planner does (``otpa.plan`` gives the same times then).
    ignore_realtime_updates
        Search the scheduled timetable; by default the network's current real-time
        snapshot (:mod:`otpa.realtime`), as ``otpa.plan`` does.

    The keywords ``walk_speed_mps``, ``bike_speed_mps``, ``max_rides`` (rides = transfers
    + 1), ``board_slack_s``, ``wheelchair`` and ``filters`` set those preferences (and are
    read back as properties).
    """

    departure: dt.datetime
    modes: str
    window_s: int
    step_s: int
    max_time_s: int
    percentiles: tuple[int, ...]
    preferences: RoutingPreferences
    max_walk_time_s: int
    max_bike_time_s: int
    walk_connectors: bool
    ignore_realtime_updates: bool

    def __init__(
        self,
        departure: dt.datetime,
        modes: str = "WALK,TRANSIT",
        window_s: float | dt.timedelta = 0,
        step_s: float | dt.timedelta = 60,
        max_time_s: float | dt.timedelta = 7200,
        percentiles: int | tuple[int, ...] = (50,),
        preferences: RoutingPreferences | None = None,
        max_walk_time_s: float | dt.timedelta = 1800,
        max_bike_time_s: float | dt.timedelta = 1800,
        walk_connectors: bool = True,
        ignore_realtime_updates: bool = False,
        *,
        walk_speed_mps: float | None = None,
        bike_speed_mps: float | None = None,
        max_rides: int | None = None,
        board_slack_s: float | dt.timedelta | None = None,
        wheelchair: bool | None = None,
        filters: TransitFilters | None = None,
    ) -> None:
        if not isinstance(departure, dt.datetime):
            msg = f"departure must be a datetime, not {type(departure).__name__}"
            raise ArgumentTypeError(msg)
        prefs = ANALYSIS_PREFERENCES if preferences is None else preferences
        if not isinstance(prefs, RoutingPreferences):
            msg = f"preferences must be RoutingPreferences, not {type(prefs).__name__}"
            raise ArgumentTypeError(msg)
        prefs = _with_keywords(
            prefs, walk_speed_mps, bike_speed_mps, max_rides, board_slack_s, wheelchair, filters
        )
        pcts = (percentiles,) if isinstance(percentiles, int) else percentiles
        values: dict[str, Any] = {
            "departure": departure,
            "modes": modes,
            "window_s": as_seconds(window_s, "window_s"),
            "step_s": as_seconds(step_s, "step_s"),
            "max_time_s": as_seconds(max_time_s, "max_time_s"),
            "percentiles": tuple(int(p) for p in pcts),
            "preferences": prefs,
            "max_walk_time_s": as_seconds(max_walk_time_s, "max_walk_time_s"),
            "max_bike_time_s": as_seconds(max_bike_time_s, "max_bike_time_s"),
            "walk_connectors": walk_connectors,
            "ignore_realtime_updates": bool(ignore_realtime_updates),
        }
        for name, value in values.items():
            object.__setattr__(self, name, value)
        self._check()
        parse_modes(self.modes)  # raises InvalidRequestError on unknown modes

    def _check(self) -> None:
        problems = []
        if self.window_s < 0:
            problems.append("window must not be negative")
        if self.step_s <= 0:
            problems.append("step must be positive")
        elif self.n_departures > MAX_DEPARTURES:
            problems.append(
                f"{self.n_departures} departures (window / step) exceed {MAX_DEPARTURES}"
            )
        if not 0 < self.max_time_s <= 24 * 3600:
            problems.append("max_time must be in (0, 24 h]")
        if not self.percentiles:
            problems.append("at least one percentile is needed")
        if any(not _PCT_RANGE[0] <= p <= _PCT_RANGE[1] for p in self.percentiles):
            problems.append("percentiles must be in [0, 100]")
        if len(set(self.percentiles)) != len(self.percentiles):
            problems.append("percentiles must be distinct")
        if self.max_walk_time_s < 0 or self.max_bike_time_s < 0 or self.board_slack_s < 0:
            problems.append("street time limits and board slack must not be negative")
        if not 1 <= self.max_rides <= MAX_TRANSFERS + 1:  # bounds the searches' memory
            problems.append(f"max_rides must be from 1 to {MAX_TRANSFERS + 1}")
        if max(self.max_walk_time_s, self.max_bike_time_s, self.board_slack_s) > 24 * 3600:
            problems.append("street time limits and board slack must be at most 24 h")
        if problems:
            raise InvalidArgumentError("; ".join(problems))

    # ------------------------------------------------------------ preferences
    @property
    def walk_speed_mps(self) -> float:
        """Walking speed (``preferences.walk.speed_mps``)."""
        return self.preferences.walk.speed_mps

    @property
    def bike_speed_mps(self) -> float:
        """Cycling speed (``preferences.bike.speed_mps``)."""
        return self.preferences.bike.speed_mps

    @property
    def max_rides(self) -> int:
        """Most transit vehicles boarded (``preferences.transit.max_transfers + 1``)."""
        return self.preferences.transit.max_transfers + 1

    @property
    def board_slack_s(self) -> int:
        """Minimum wait before each boarding (``preferences.transit.board_slack_s``)."""
        return self.preferences.transit.board_slack_s

    @property
    def wheelchair(self) -> bool:
        """Accessible trips and stops only (``preferences.wheelchair.enabled``)."""
        return self.preferences.wheelchair.enabled

    @property
    def filters(self) -> TransitFilters:
        """Banned/whitelisted routes, agencies, stops, trips (``preferences.filters``)."""
        return self.preferences.filters

    # ------------------------------------------------------------------ derived
    @property
    def request_modes(self) -> RequestModes:
        """The parsed mode set."""
        return parse_modes(self.modes)

    @property
    def n_departures(self) -> int:
        """How many departure times the window samples."""
        return max(1, -(-self.window_s // self.step_s)) if self.step_s > 0 else 1

    @property
    def street_mode(self) -> str:
        """Street mode of access, egress and street-only trips (renting: walking)."""
        modes = self.request_modes
        return "WALK" if "BICYCLE_RENT" in modes.qualifiers else modes.access_mode

    @property
    def max_access_time_s(self) -> int:
        """Longest access/egress leg in the street mode."""
        return self.max_bike_time_s if self.street_mode == "BICYCLE" else self.max_walk_time_s

    def local_departure(self, tz: str) -> dt.datetime:
        """The first departure, aware, in ``tz``."""
        zone = ZoneInfo(tz)
        d = self.departure
        return d.replace(tzinfo=zone) if d.tzinfo is None else d.astimezone(zone)

    def departure_epochs(self, tz: str) -> IntArray:
        """Unix times of every departure."""
        t0 = int(self.local_departure(tz).timestamp())
        return t0 + self.step_s * np.arange(self.n_departures, dtype=np.int64)

    def attrs(self, tz: str) -> dict[str, Any]:
        """JSON-safe description of the request for a result's ``attrs``."""
        return {
            "departure": self.local_departure(tz).isoformat(),
            "time_zone": tz,
            "window_s": self.window_s,
            "step_s": self.step_s,
            "n_departures": self.n_departures,
            "max_time_s": self.max_time_s,
            "modes": self.modes,
            "walk_speed_mps": self.walk_speed_mps,
            "max_rides": self.max_rides,
        }

    def replace(self, **changes: Any) -> AnalysisRequest:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    def plan_request(
        self,
        from_place: Location | None = None,
        to_place: Location | None = None,
        *,
        departure: dt.datetime | None = None,
    ) -> PlanRequest:
        """The trip-planning request with the same parameters (for one departure).

        Parameters
        ----------
        from_place, to_place
            Origin and destination; ``None`` (the default) for the preferences alone,
            as one-to-many searches use them.
        departure
            Departure time (default: the first departure).
        """
        prefs = self.preferences
        speed = self.bike_speed_mps if self.street_mode == "BICYCLE" else self.walk_speed_mps
        walk = dataclasses.replace(
            prefs.walk,
            max_distance_m=self.max_access_time_s * speed,
            soft_limit=False,  # the access limit of travel-time analysis is hard
        )
        wheelchair = dataclasses.replace(prefs.wheelchair, trip=_STRICT, stop=_STRICT)
        rental = rental_preferences(self.request_modes)
        # park and ride, kiss and ride: transit trips only, as OTP 1.x
        transit = prefs.transit
        if rental.park_and_ride or rental.kiss_and_ride:
            transit = dataclasses.replace(transit, only_transit_trips=True)
        return PlanRequest(
            from_place=from_place,
            to_place=to_place,
            date_time=self.departure if departure is None else departure,
            modes=self.request_modes,
            **prefs.replace(walk=walk, wheelchair=wheelchair, transit=transit).as_fields(),
            rental=rental,
            itineraries=ItineraryPreferences(ignore_realtime_updates=self.ignore_realtime_updates),
        )


def _with_keywords(
    prefs: RoutingPreferences,
    walk_speed_mps: float | None,
    bike_speed_mps: float | None,
    max_rides: int | None,
    board_slack_s: float | dt.timedelta | None,
    wheelchair: bool | None,
    filters: TransitFilters | None,
) -> RoutingPreferences:
    """``prefs`` with the values of the preference keywords that are given."""
    for name, value in (("walk_speed_mps", walk_speed_mps), ("bike_speed_mps", bike_speed_mps)):
        if value is not None and not (np.isfinite(value) and value > 0):
            msg = f"{name} must be positive"
            raise InvalidArgumentError(msg)
    changes: dict[str, Any] = {}
    if walk_speed_mps is not None:
        changes["walk"] = dataclasses.replace(prefs.walk, speed_mps=float(walk_speed_mps))
    if bike_speed_mps is not None:
        changes["bike"] = dataclasses.replace(prefs.bike, speed_mps=float(bike_speed_mps))
    transit: dict[str, Any] = {}
    if max_rides is not None:
        if not 1 <= int(max_rides) <= MAX_TRANSFERS + 1:  # bounds the searches' memory
            msg = f"max_rides must be from 1 to {MAX_TRANSFERS + 1}"
            raise InvalidArgumentError(msg)
        transit["max_transfers"] = int(max_rides) - 1
    if board_slack_s is not None:
        slack = as_seconds(board_slack_s, "board_slack_s")
        if not 0 <= slack <= 24 * 3600:
            msg = "street time limits and board slack must not be negative or over 24 h"
            raise InvalidArgumentError(msg)
        transit["board_slack_s"] = slack
    if transit:
        changes["transit"] = dataclasses.replace(prefs.transit, **transit)
    if wheelchair is not None:
        changes["wheelchair"] = dataclasses.replace(prefs.wheelchair, enabled=bool(wheelchair))
    if filters is not None:
        changes["filters"] = filters
    return prefs.replace(**changes) if changes else prefs
