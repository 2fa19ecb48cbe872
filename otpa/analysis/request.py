"""What an analysis computes: departure window, modes, limits and the routing parameters.

Defaults follow R5/r5r, the reference analysis engines: walking at 3.6 km/h, a
60-second minimum wait before every boarding, at most 3 rides, a 120-minute trip
limit.  :meth:`AnalysisRequest.plan_request` gives the :class:`~otpa.routing.PlanRequest`
with the same parameters, so a travel time of a surface or matrix can be checked
against :func:`otpa.plan`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass, field
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np

from otpa.routing import Location, PlanRequest
from otpa.routing.parse import parse_modes, rental_preferences
from otpa.routing.preferences import (
    MAX_TRANSFERS,
    AccessibilityPreferences,
    BikePreferences,
    TransitPreferences,
    WalkPreferences,
    WheelchairPreferences,
)
from otpa.routing.request import RequestModes, TransitFilters
from otpa.types import IntArray

__all__ = ["MAX_DEPARTURES", "AnalysisRequest", "as_seconds"]

#: Most departure times one request may sample (a day at one-minute steps).
MAX_DEPARTURES = 1440
#: Percentiles must lie in [0, 100].
_PCT_RANGE = (0, 100)


def as_seconds(value: float | dt.timedelta, name: str) -> int:
    """Whole seconds of a duration given in seconds or as a :class:`datetime.timedelta`."""
    if isinstance(value, dt.timedelta):
        return round(value.total_seconds())
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        msg = f"{name} must be a number of seconds or a timedelta, not {value!r}"
        raise TypeError(msg)
    if not np.isfinite(value):
        msg = f"{name} must be finite"
        raise ValueError(msg)
    return round(float(value))


@dataclass(frozen=True)
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
    walk_speed_mps, bike_speed_mps
        Street speeds (r5r: 3.6 and 12 km/h).
    max_walk_time_s, max_bike_time_s
        Longest access or egress leg in that mode.
    max_rides
        Most transit vehicles boarded.
    board_slack_s
        Minimum wait before each boarding (R5 uses 60 s).
    wheelchair
        Accessible trips and stops only (travel times cannot weigh accessibility
        costs: the strict mode of :class:`~otpa.routing.WheelchairPreferences`), no steps.
    walk_connectors
        Walk (at the street mode's speed; CAR: walking speed) the straight line between
        a point and the street it is linked to, as R5 does.  False treats it as free,
        as OTP 1.x's planner does (``otpa.plan`` gives the same times then).
    filters
        Banned/whitelisted routes, agencies, stops, as for planning.
    """

    departure: dt.datetime
    modes: str = "WALK,TRANSIT"
    window_s: int = 0
    step_s: int = 60
    max_time_s: int = 7200
    percentiles: tuple[int, ...] = (50,)
    walk_speed_mps: float = 1.0
    bike_speed_mps: float = 12.0 / 3.6
    max_walk_time_s: int = 1800
    max_bike_time_s: int = 1800
    max_rides: int = 3
    board_slack_s: int = 60
    wheelchair: bool = False
    walk_connectors: bool = True
    filters: TransitFilters = field(default_factory=TransitFilters)

    def __post_init__(self) -> None:
        if not isinstance(self.departure, dt.datetime):
            msg = f"departure must be a datetime, not {type(self.departure).__name__}"
            raise TypeError(msg)
        for name in ("window_s", "step_s", "max_time_s", "max_walk_time_s", "max_bike_time_s",
                     "board_slack_s"):  # fmt: skip
            object.__setattr__(self, name, as_seconds(getattr(self, name), name))
        pcts = (self.percentiles,) if isinstance(self.percentiles, int) else self.percentiles
        object.__setattr__(self, "percentiles", tuple(int(p) for p in pcts))
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
        for name in ("walk_speed_mps", "bike_speed_mps"):
            v = getattr(self, name)
            if not (np.isfinite(v) and v > 0):
                problems.append(f"{name} must be positive")
        if self.max_walk_time_s < 0 or self.max_bike_time_s < 0 or self.board_slack_s < 0:
            problems.append("street time limits and board slack must not be negative")
        if not 1 <= self.max_rides <= MAX_TRANSFERS + 1:  # bounds the searches' memory
            problems.append(f"max_rides must be from 1 to {MAX_TRANSFERS + 1}")
        if max(self.max_walk_time_s, self.max_bike_time_s, self.board_slack_s) > 24 * 3600:
            problems.append("street time limits and board slack must be at most 24 h")
        if problems:
            raise ValueError("; ".join(problems))

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
        speed = self.bike_speed_mps if self.street_mode == "BICYCLE" else self.walk_speed_mps
        rental = rental_preferences(self.request_modes)
        return PlanRequest(
            from_place=from_place,
            to_place=to_place,
            date_time=self.departure if departure is None else departure,
            modes=self.request_modes,
            walk=WalkPreferences(
                speed_mps=self.walk_speed_mps,
                max_distance_m=self.max_access_time_s * speed,
                soft_limit=False,  # the access limit of travel-time analysis is hard
            ),
            bike=BikePreferences(speed_mps=self.bike_speed_mps),
            wheelchair=WheelchairPreferences(
                enabled=self.wheelchair,
                trip=AccessibilityPreferences(only_consider_accessible=True),
                stop=AccessibilityPreferences(only_consider_accessible=True),
            ),
            transit=TransitPreferences(
                max_transfers=self.max_rides - 1,
                board_slack_s=self.board_slack_s,
                # park and ride, kiss and ride: transit trips only, as OTP 1.x
                only_transit_trips=rental.park_and_ride or rental.kiss_and_ride,
            ),
            filters=self.filters,
            rental=rental,
        )
