"""The value types of the street router: options, snapped points, paths, access results.

Re-exported by :mod:`otpa.routing.street_router`, the public module.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, NamedTuple

import numpy as np

from otpa.errors import InvalidArgumentError
from otpa.routing.preferences import (
    MAX_SLOPE,
    STAIRS_RELUCTANCE,
    WALK_RELUCTANCE,
    AccessibilityPreferences,
    Optimize,
    TriangleFactors,
    default_elevator,
)
from otpa.street import WALK_SPEED_MPS
from otpa.types import BoolArray, FloatArray, Int32Array

if TYPE_CHECKING:
    from otpa.routing._street_access import AccessPaths
    from otpa.routing.request import PlanRequest

__all__ = [
    "AccessResult",
    "ElevationProfile",
    "Snap",
    "StreetMode",
    "StreetOptions",
    "StreetPath",
]

StreetMode = Literal["WALK", "BICYCLE", "CAR"]
_MODES = ("WALK", "BICYCLE", "CAR")


@dataclass(frozen=True)
class StreetOptions:
    """How a street mode is routed (cost model inputs; OTP 1.x defaults).

    Attributes
    ----------
    mode
        WALK, BICYCLE or CAR.
    speed_mps
        Walking or cycling speed; for CAR a cap on the edges' car speeds.
    reluctance
        Multiplier from time to generalized cost.  OTP 1.x applies its
        ``walkReluctance`` to every street mode, so :meth:`from_request` uses the
        walk reluctance (times the bike/car reluctance) for all modes.
    optimize, triangle
        What a bicycle route optimises (ignored for WALK and CAR).
    wheelchair, max_slope
        Avoid steps, ``wheelchair=no`` ways and slopes steeper than ``max_slope``
        (WALK only); when no path exists the slope limit is dropped and the path
        is marked ``too_sloped``.
    elevator
        Wheelchair only: passing through an OSM elevator node costs ``unknown_cost``
        (no ``wheelchair`` tag) or ``inaccessible_cost`` (``wheelchair=no``) on top,
        or is forbidden for both with ``only_consider_accessible``.
    stairs_reluctance
        Replaces ``reluctance`` on steps (as in OTP 1.x).
    turn_restrictions
        Honour OSM turn restrictions.
    walk_speed_mps, walk_reluctance
        Walking when a cyclist walks the bike (at 0.8 x speed, 2.7 x reluctance)
        and, for CAR, on the link between a street and a stop.
    turn_costs
        Add OTP 1.x's turn costs at intersections.
    drive_on_right
        Traffic side for the driving turn costs.
    drive_time_reluctance, drive_distance_reluctance
        CAR only: extra generalized cost per second and per metre driven on each
        street edge (the ibi-group OTP 1.x ``driveTimeReluctance`` and
        ``driveDistanceReluctance``; a value <= 0 disables the term).  Turn times
        are not weighted, as in that fork.
    """

    mode: StreetMode
    speed_mps: float
    reluctance: float
    optimize: Optimize = Optimize.QUICK
    triangle: TriangleFactors | None = None
    wheelchair: bool = False
    max_slope: float = MAX_SLOPE
    elevator: AccessibilityPreferences = field(default_factory=default_elevator)
    stairs_reluctance: float = STAIRS_RELUCTANCE
    turn_restrictions: bool = True
    walk_speed_mps: float = WALK_SPEED_MPS
    walk_reluctance: float = WALK_RELUCTANCE
    turn_costs: bool = True
    drive_on_right: bool = True
    drive_time_reluctance: float = -1.0
    drive_distance_reluctance: float = -1.0

    def __post_init__(self) -> None:
        if self.mode not in _MODES:
            msg = f"unknown street mode {self.mode!r}; expected WALK, BICYCLE or CAR"
            raise InvalidArgumentError(msg)
        for name in ("speed_mps", "walk_speed_mps"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                msg = f"{name} must be a positive number, got {value!r}"
                raise InvalidArgumentError(msg)
        for name in ("drive_time_reluctance", "drive_distance_reluctance"):
            if not math.isfinite(getattr(self, name)):
                msg = f"{name} must be a finite number, got {getattr(self, name)!r}"
                raise InvalidArgumentError(msg)
        for name in ("reluctance", "stairs_reluctance", "walk_reluctance", "max_slope"):
            value = getattr(self, name)
            if math.isnan(value) or value < 0:
                msg = f"{name} must be >= 0, got {value!r}"
                raise InvalidArgumentError(msg)
        if self.optimize is Optimize.TRIANGLE and self.triangle is None:
            msg = "optimize=TRIANGLE needs triangle factors"
            raise InvalidArgumentError(msg)

    @classmethod
    def from_request(cls, request: PlanRequest, mode: str) -> StreetOptions:
        """The options of ``mode`` (WALK, BICYCLE or CAR) in a plan request.

        Examples
        --------
        >>> import datetime as dt
        >>> from otpa.routing import PlanRequest
        >>> req = PlanRequest(None, None, dt.datetime(2026, 1, 1))
        >>> o = StreetOptions.from_request(req, "BICYCLE")
        >>> o.speed_mps, o.reluctance, o.optimize.value
        (5.0, 2.0, 'QUICK')
        """
        walk = request.walk
        wheel = request.wheelchair
        common = cls(
            mode="WALK",
            speed_mps=walk.speed_mps,
            reluctance=walk.reluctance,
            stairs_reluctance=walk.stairs_reluctance,
            walk_speed_mps=walk.speed_mps,
            walk_reluctance=walk.reluctance,
        )
        if mode == "WALK":
            return dataclasses.replace(
                common,
                wheelchair=wheel.enabled,
                max_slope=wheel.max_slope,
                elevator=wheel.elevator,
            )
        if mode == "BICYCLE":
            bike = request.bike
            optimize = Optimize.QUICK if bike.optimize is Optimize.TRANSFERS else bike.optimize
            return dataclasses.replace(
                common,
                mode="BICYCLE",
                speed_mps=bike.speed_mps,
                reluctance=walk.reluctance * bike.reluctance,
                optimize=optimize,
                triangle=bike.triangle,
            )
        if mode == "CAR":
            car = request.car
            return dataclasses.replace(
                common,
                mode="CAR",
                speed_mps=car.speed_mps,
                reluctance=walk.reluctance * car.reluctance,
                drive_time_reluctance=car.drive_time_reluctance,
                drive_distance_reluctance=car.drive_distance_reluctance,
            )
        msg = f"no street routing for mode {mode!r}; expected WALK, BICYCLE or CAR"
        raise InvalidArgumentError(msg)


@dataclass(frozen=True)
class Snap:
    """A point on a street edge (the graph is not modified).

    Attributes
    ----------
    lat, lon
        The requested point.
    edge
        A directed edge the mode may use (either direction of the segment).
    fraction
        Position along ``edge`` (0 at its start, 1 at its end).
    snap_lat, snap_lon, distance_m
        The projection of the point on the edge and its distance from the point.
    """

    lat: float
    lon: float
    edge: int
    fraction: float
    snap_lat: float
    snap_lon: float
    distance_m: float


@dataclass(frozen=True, eq=False)
class StreetPath:
    """A path over the streets from one place to another.

    Attributes
    ----------
    mode
        WALK, BICYCLE or CAR.
    edges
        Directed edges in travel order (the first and last possibly partial).
    start_fraction, end_fraction
        Share of the first edge skipped, and of the last edge used (for a
        one-edge path, the part ``start_fraction..end_fraction`` is used).
    duration_s, cost, distance_m
        Time (OTP's whole seconds), generalized cost and street length (the
        connectors from the points to the streets are free).
    lat, lon
        Geometry, including partial ends and the connectors.
    elevation_gained_m, elevation_lost_m
        Climb and descent along the path (0 without elevation data).
    too_sloped
        The wheelchair slope limit had to be dropped.
    edge_time_s, edge_cost, edge_distance_m
        Per edge of ``edges`` (turn costs count on the edge entered).
    walking
        Per edge: a cyclist walks the bicycle there.
    """

    mode: str
    edges: Int32Array
    start_fraction: float
    end_fraction: float
    duration_s: float
    cost: float
    distance_m: float
    lat: FloatArray
    lon: FloatArray
    elevation_gained_m: float
    elevation_lost_m: float
    too_sloped: bool = False
    edge_time_s: FloatArray = field(default_factory=lambda: np.zeros(0))
    edge_cost: FloatArray = field(default_factory=lambda: np.zeros(0))
    edge_distance_m: FloatArray = field(default_factory=lambda: np.zeros(0))
    walking: BoolArray = field(default_factory=lambda: np.zeros(0, dtype=bool))

    def used_fractions(self) -> tuple[FloatArray, FloatArray]:
        """``(start, end)`` fraction of each edge of the path that is travelled."""
        n = self.edges.size
        start = np.zeros(n)
        end = np.ones(n)
        if n:
            start[0] = self.start_fraction
            end[-1] = self.end_fraction
        return start, end


class AccessResult(NamedTuple):
    """Stops reachable from (or to) a place, sorted by stop index.

    Attributes
    ----------
    stops
        Stop indices.
    time_s
        Whole seconds, including the link between the stop and the street.
    cost
        Generalized cost.
    distance_m
        Street distance plus the link.
    paths
        The street search behind it
        (:class:`~otpa.routing._street_access.AccessPaths`), if any.
    """

    stops: Int32Array
    time_s: Int32Array
    cost: FloatArray
    distance_m: FloatArray
    paths: AccessPaths | None = None


class ElevationProfile(NamedTuple):
    """Heights along a path: ``distance_m`` from its start and ``elevation_m``."""

    distance_m: FloatArray
    elevation_m: FloatArray
