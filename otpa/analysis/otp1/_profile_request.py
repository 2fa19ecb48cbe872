"""``ProfileRequest``: what a profile search asks, with OpenTripPlanner 1.x's defaults."""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from dataclasses import dataclass, field
from typing import Literal
from zoneinfo import ZoneInfo

import numpy as np

from otpa.errors import InvalidArgumentError
from otpa.routing import Location, PlanRequest
from otpa.routing.preferences import (
    BikePreferences,
    CarPreferences,
    Optimize,
    TransitPreferences,
    TriangleFactors,
    WalkPreferences,
)
from otpa.routing.request import RequestModes, TransitFilters
from otpa.transit.modes import TRANSIT_MODES
from otpa.types import IntArray

__all__ = ["MAX_SEARCHES", "MAX_WINDOW_S", "ORDER_BY", "PROFILE_STREET_MODES", "ProfileRequest"]

#: Street modes of access, egress and direct trips.
PROFILE_STREET_MODES = ("WALK", "BICYCLE", "CAR")
#: How options are ordered: by their minimum, average or maximum travel time.
ORDER_BY = ("MIN", "AVG", "MAX")
#: Longest time window one search covers (three hours of departure minutes).
MAX_WINDOW_S = 3 * 3600
#: Most departure minutes times (access x egress) mode pairs one search may run RAPTOR for.
MAX_SEARCHES = 540
#: Latest end of the window: times of the service day run past midnight.
_MAX_CLOCK_S = 48 * 3600

OrderBy = Literal["MIN", "AVG", "MAX"]


def _check_range(problems: list[str], name: str, value: float, lo: float, hi: float) -> None:
    if not (math.isfinite(value) and lo <= value <= hi):
        problems.append(f"{name} must be between {lo:g} and {hi:g}, not {value!r}")


@dataclass(frozen=True)
class ProfileRequest:
    """A profile search: every reasonable way between two places over a time window.

    Defaults are OpenTripPlanner 1.x's ``/profile`` defaults (minutes there, seconds here).

    Attributes
    ----------
    from_lat, from_lon, to_lat, to_lon
        Origin and destination (degrees).
    date
        The service day.
    start_time_s, end_time_s
        The window of departure times, seconds after midnight of ``date`` (local);
        departures every ``step_s`` from ``start_time_s`` while before ``end_time_s``.
    walk_speed_mps, bike_speed_mps, car_speed_mps
        Street speeds.
    street_time_s
        Longest trip without transit.
    max_walk_time_s, max_bike_time_s, max_car_time_s
        Longest access or egress leg by each mode.
    min_bike_time_s, min_car_time_s
        Shortest bicycle or car access or egress leg (stops closer than that by bicycle
        or car are reached on foot only).
    order_by, limit
        Transit options are ordered by their ``MIN``, ``AVG`` or ``MAX`` travel time and at
        most ``limit`` are kept per access mode (0: all).
    suboptimal_s
        An option counts at a departure minute when it is at most this much slower than
        the fastest option of the same access and egress modes.
    bike_safe, bike_slope, bike_time
        Weights of the cycling triangle (normalised; at least one must be positive).
    access_modes, egress_modes, direct_modes
        Street modes (``WALK``, ``BICYCLE``, ``CAR``) to reach transit, to leave it, and
        for trips without transit.
    transit_modes
        Transit modes allowed (empty: no transit).
    banned_agencies
        Agency ids (feed-scoped or not) whose trips are not used.
    max_rides
        Most vehicles boarded (OTP 1.x's profile router: 3).
    max_duration_s
        Longest trip counted (OTP 1.x's profile router: 90 minutes).
    board_slack_s
        Minimum time between reaching a stop and boarding (OTP 1.x: 60 s).
    step_s
        Spacing of the departure minutes.
    """

    from_lat: float
    from_lon: float
    to_lat: float
    to_lon: float
    date: dt.date
    start_time_s: int = 7 * 3600 + 1800
    end_time_s: int = 8 * 3600 + 1800
    walk_speed_mps: float = 1.4
    bike_speed_mps: float = 4.1
    car_speed_mps: float = 20.0
    street_time_s: int = 90 * 60
    max_walk_time_s: int = 15 * 60
    max_bike_time_s: int = 20 * 60
    max_car_time_s: int = 30 * 60
    min_bike_time_s: int = 60
    min_car_time_s: int = 60
    order_by: OrderBy = "AVG"
    limit: int = 15
    suboptimal_s: int = 5 * 60
    bike_safe: int = 1
    bike_slope: int = 1
    bike_time: int = 1
    access_modes: tuple[str, ...] = ("WALK", "BICYCLE")
    egress_modes: tuple[str, ...] = ("WALK",)
    direct_modes: tuple[str, ...] = ("WALK", "BICYCLE")
    transit_modes: frozenset[str] = field(default_factory=lambda: frozenset(TRANSIT_MODES))
    banned_agencies: frozenset[str] = frozenset()
    max_rides: int = 3
    max_duration_s: int = 90 * 60
    board_slack_s: int = 60
    step_s: int = 60

    def __post_init__(self) -> None:
        for name in ("access_modes", "egress_modes", "direct_modes"):
            object.__setattr__(self, name, tuple(dict.fromkeys(getattr(self, name))))
        object.__setattr__(self, "transit_modes", frozenset(self.transit_modes))
        object.__setattr__(self, "banned_agencies", frozenset(self.banned_agencies))
        problems = self.problems()
        if problems:
            raise InvalidArgumentError("; ".join(problems))

    def problems(self) -> list[str]:
        """Every invalid value, one sentence each (empty when the request is valid)."""
        p: list[str] = []
        _check_range(p, "from_lat", self.from_lat, -90, 90)
        _check_range(p, "from_lon", self.from_lon, -180, 180)
        _check_range(p, "to_lat", self.to_lat, -90, 90)
        _check_range(p, "to_lon", self.to_lon, -180, 180)
        _check_range(p, "walk_speed_mps", self.walk_speed_mps, 0.5, 7)
        _check_range(p, "bike_speed_mps", self.bike_speed_mps, 1, 21)
        _check_range(p, "car_speed_mps", self.car_speed_mps, 1, 36)
        for name in ("street_time_s", "max_walk_time_s", "max_bike_time_s", "max_car_time_s"):
            _check_range(p, name, getattr(self, name), 60, 480 * 60)
        _check_range(p, "min_bike_time_s", self.min_bike_time_s, 0, self.max_bike_time_s)
        _check_range(p, "min_car_time_s", self.min_car_time_s, 0, self.max_car_time_s)
        _check_range(p, "suboptimal_s", self.suboptimal_s, 0, 30 * 60)
        _check_range(p, "limit", self.limit, 0, math.inf)
        for name in ("bike_safe", "bike_slope", "bike_time"):
            _check_range(p, name, getattr(self, name), 0, 1000)
        if self.bike_safe + self.bike_slope + self.bike_time <= 0:
            p.append("bike_safe, bike_slope and bike_time cannot all be 0")
        if self.order_by not in ORDER_BY:
            p.append(f"order_by must be one of {', '.join(ORDER_BY)}, not {self.order_by!r}")
        for name in ("access_modes", "egress_modes", "direct_modes"):
            bad = [m for m in getattr(self, name) if m not in PROFILE_STREET_MODES]
            if bad:
                p.append(f"{name}: {bad} not among {', '.join(PROFILE_STREET_MODES)}")
        bad_transit = sorted(set(self.transit_modes) - set(TRANSIT_MODES))
        if bad_transit:
            p.append(f"transit_modes: unknown {bad_transit}")
        if not 0 <= self.start_time_s < self.end_time_s <= _MAX_CLOCK_S:
            p.append("the window must satisfy 0 <= start_time_s < end_time_s <= 48 h")
        elif self.end_time_s - self.start_time_s > MAX_WINDOW_S:
            p.append(f"the window is longer than {MAX_WINDOW_S // 60} minutes")
        _check_range(p, "step_s", self.step_s, 1, MAX_WINDOW_S)
        if not p and self.n_searches > MAX_SEARCHES:
            p.append(
                f"{self.n_searches} searches (departures x access modes x egress modes) "
                f"exceed {MAX_SEARCHES}"
            )
        _check_range(p, "max_rides", self.max_rides, 1, 8)
        _check_range(p, "max_duration_s", self.max_duration_s, 60, 24 * 3600)
        _check_range(p, "board_slack_s", self.board_slack_s, 0, 3600)
        return p

    def replace(self, **changes: object) -> ProfileRequest:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    # -- derived ----------------------------------------------------------------------------
    @property
    def n_departures(self) -> int:
        """Departure minutes in the window."""
        return len(range(self.start_time_s, self.end_time_s, self.step_s))

    @property
    def n_searches(self) -> int:
        """RAPTOR departures searched: minutes times access and egress mode pairs."""
        return self.n_departures * len(self.access_modes) * len(self.egress_modes)

    def departure_epochs(self, time_zone: str) -> IntArray:
        """Unix times of the departure minutes (local wall-clock times of ``date``)."""
        zone = ZoneInfo(time_zone)
        midnight = dt.datetime(self.date.year, self.date.month, self.date.day)
        steps = range(self.start_time_s, self.end_time_s, self.step_s)
        return np.array(
            [int((midnight + dt.timedelta(seconds=s)).replace(tzinfo=zone).timestamp())
             for s in steps],
            dtype=np.int64,
        )  # fmt: skip

    def max_access_time_s(self, mode: str) -> int:
        """Longest access or egress leg by ``mode``."""
        return {"WALK": self.max_walk_time_s, "BICYCLE": self.max_bike_time_s}.get(
            mode, self.max_car_time_s
        )

    def min_access_time_s(self, mode: str) -> int:
        """Shortest access or egress leg by ``mode`` (walks have no minimum)."""
        return {"BICYCLE": self.min_bike_time_s, "CAR": self.min_car_time_s}.get(mode, 0)

    def speed_mps(self, mode: str) -> float:
        """Speed of a street mode."""
        return {"WALK": self.walk_speed_mps, "BICYCLE": self.bike_speed_mps}.get(
            mode, self.car_speed_mps
        )

    def plan_request(self, when: dt.datetime) -> PlanRequest:
        """The planner's request with the same street and transit parameters."""
        total = self.bike_safe + self.bike_slope + self.bike_time
        slope = self.bike_slope / total
        time = self.bike_time / total
        triangle = TriangleFactors(safety=max(0.0, 1.0 - slope - time), slope=slope, time=time)
        streets = {*self.access_modes, *self.egress_modes, *self.direct_modes, "WALK"}
        return PlanRequest(
            from_place=Location(lat=self.from_lat, lon=self.from_lon),
            to_place=Location(lat=self.to_lat, lon=self.to_lon),
            date_time=when,
            modes=RequestModes(street=frozenset(streets), transit_modes=self.transit_modes),
            walk=WalkPreferences(speed_mps=self.walk_speed_mps),
            bike=BikePreferences(
                speed_mps=self.bike_speed_mps, optimize=Optimize.TRIANGLE, triangle=triangle
            ),
            car=CarPreferences(speed_mps=self.car_speed_mps),
            transit=TransitPreferences(
                max_transfers=self.max_rides - 1, board_slack_s=self.board_slack_s
            ),
            filters=TransitFilters(banned_agencies=self.banned_agencies),
        )
