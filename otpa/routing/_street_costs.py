"""Per-edge traversal costs of a street mode, as OTP 1.x ``StreetEdge.doTraverse`` has them.

For every directed edge (``inf`` where the mode cannot use it):

WALK
    time = effective walk length (Tobler, with elevation) / speed; weight = time
    x ``reluctance``, or x ``stairs_reluctance`` on steps (OTP *replaces* the walk
    reluctance by the stairs reluctance), x the edge's walk-comfort factor when the
    network has walk-comfort rules (ibi's ``walkComfortScore``; :mod:`otpa.walkcomfort`;
    the weight only, not the time).  Wheelchair (no walk comfort, as in ibi's fork): no steps, no
    ``wheelchair=no`` edges, no edge steeper than ``max_slope``; time = length /
    speed, weight = slope-speed effective length / speed x reluctance; leaving an
    OSM elevator node adds its elevator cost (or it cannot be passed through).
BICYCLE
    time = slope-speed effective length / speed; weight by ``optimize``: QUICK
    as time; SAFE safety x length / speed; GREENWAYS as SAFE, x 0.66 where the
    safety factor is at most 0.1; FLAT length / speed + slope work cost (OTP adds
    metres to seconds there); TRIANGLE (time-factor x slope-speed length +
    slope-factor x work cost + safety-factor x safety length) / speed; then x
    ``reluctance`` (x ``stairs_reluctance`` on steps).  The safety factor
    includes OTP's slope safety cost when the graph has elevation (OTP also
    scales it by the 3-D length multiplier, which the graph does not keep; it is
    within a fraction of a percent of 1 on streets).  Edges a bike
    may not use but a pedestrian may -- and edges touching a barrier that blocks
    bicycles but not pedestrians -- are *walked*: at 0.8 x walk speed, with the
    walk weight x 2.7 x walk reluctance, on steps x 5 x stairs reluctance (OTP's
    ``bikeWalkingOptions``).
CAR
    time = length / min(edge car speed, ``speed_mps``); weight = time x reluctance.

Arrays are computed with numpy once per graph and cost-relevant options, and
kept in a small LRU cache on the graph.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from otpa.errors import InvalidArgumentError
from otpa.osm.model import (
    BICYCLE,
    CAR,
    ELEVATOR_INACCESSIBLE,
    ELEVATOR_UNKNOWN,
    FLAG_STAIRS,
    FLAG_WHEELCHAIR_NO,
    WALK,
)
from otpa.routing.preferences import AccessibilityPreferences, Optimize
from otpa.street import StreetGraph
from otpa.types import BoolArray, FloatArray, UInt8Array
from otpa.util.cache import OwnerCache
from otpa.walkcomfort import edge_walk_comfort

if TYPE_CHECKING:
    from otpa.routing._street_types import StreetOptions

__all__ = [
    "BIKE_WALK_RELUCTANCE_FACTOR",
    "BIKE_WALK_SPEED_FACTOR",
    "EdgeCosts",
    "edge_costs",
    "weight_of",
]

#: OTP 1.x: a walked bicycle goes at this share of the walk speed...
BIKE_WALK_SPEED_FACTOR = 0.8
#: ...and walking it is this much more painful than walking.
BIKE_WALK_RELUCTANCE_FACTOR = 2.7
#: OTP 1.x: carrying a bicycle on stairs is this much worse than taking the stairs.
BIKE_CARRY_STAIRS_FACTOR = 5.0
#: OTP 1.x ``StreetEdge.GREENWAY_SAFETY_FACTOR``.
GREENWAY_SAFETY_FACTOR = 0.1
#: OTP 1.x: greenways count as this much safer than their safety factor says.
GREENWAY_BONUS = 0.66
#: Edge costs kept per graph (sets of options), least recently used dropped first.
_COSTS: OwnerCache[tuple[Any, ...], EdgeCosts] = OwnerCache(max_entries=8)


@dataclass(frozen=True, eq=False)
class EdgeCosts:
    """Traversal costs of every edge for one mode and set of options.

    Attributes
    ----------
    weight
        Generalized cost (``inf``: the mode cannot use the edge).
    time_s
        Traversal time in seconds (exact).
    time_ceil_s
        OTP rounds each traversal up to whole seconds: ``ceil(time_s)``.
    walking
        Edges where a cyclist walks the bicycle.
    ban_bit
        Permission bit the turn bans are checked with when entering the edge
        (WALK on walked edges).
    turn_speed
        Speed (m/s) OTP divides non-driving turn costs by when entering the edge.
    blocked
        Vertices the mode may not pass through (barriers).
    driving
        Whether the mode is CAR (the driving turn cost model).
    min_weight_per_m
        Smallest weight per metre of any usable edge (a lower bound for A*).
    exit_cost
        Weight in ``weight`` for passing through the edge's start vertex (a
        wheelchair's elevator cost), or None (all zero).  A path does not pay it on
        its first edge (it starts there), see :func:`weight_of`.
    """

    weight: FloatArray
    time_s: FloatArray
    time_ceil_s: FloatArray
    walking: BoolArray
    ban_bit: UInt8Array
    turn_speed: FloatArray
    blocked: BoolArray
    driving: bool
    min_weight_per_m: float
    exit_cost: FloatArray | None = None


def _cost_key(options: StreetOptions) -> tuple[Any, ...]:
    return (
        options.mode,
        options.speed_mps,
        options.reluctance,
        options.optimize,
        options.triangle,
        options.wheelchair,
        options.max_slope,
        options.elevator if options.wheelchair else None,
        options.stairs_reluctance,
        options.walk_speed_mps,
        options.walk_reluctance,
        options.drive_time_reluctance if options.mode == "CAR" else None,
        options.drive_distance_reluctance if options.mode == "CAR" else None,
    )


def edge_costs(graph: StreetGraph, options: StreetOptions) -> EdgeCosts:
    """The :class:`EdgeCosts` of ``options`` on ``graph`` (cached on the graph)."""
    comfort = edge_walk_comfort(graph) if _uses_walk_comfort(options) else None
    key = (*_cost_key(options), None if comfort is None else comfort[0])
    factors = None if comfort is None else comfort[1]
    return _COSTS.get_or_build(graph, key, lambda: _compute(graph, options, factors))


def _has(bits: Any, bit: np.uint8) -> BoolArray:
    out: BoolArray = (np.asarray(bits) & bit) != 0
    return out


def _uses_walk_comfort(options: StreetOptions) -> bool:
    return options.mode == "WALK" and not options.wheelchair


def _compute(
    graph: StreetGraph, options: StreetOptions, comfort: FloatArray | None = None
) -> EdgeCosts:
    length = np.asarray(graph.edge_length_m, dtype=np.float64)
    stairs = (np.asarray(graph.edge_flags) & FLAG_STAIRS) != 0
    barrier = np.asarray(graph.vertex_barrier)
    if options.mode == "WALK":
        return _walk(graph, options, length, stairs, barrier, comfort)
    if options.mode == "BICYCLE":
        return _bicycle(graph, options, length, stairs, barrier)
    if options.mode == "CAR":
        return _car(graph, options, length, barrier)
    msg = f"unknown street mode {options.mode!r}; expected WALK, BICYCLE or CAR"
    raise InvalidArgumentError(msg)


def _elevation(graph: StreetGraph, length: FloatArray) -> tuple[FloatArray, ...]:
    """Slope-speed length, work cost, walk length and slope safety cost (flat defaults)."""
    if not graph.has_elevation:
        return length, length, length, np.zeros_like(length)
    assert graph.edge_slope_speed_effective_length_m is not None
    assert graph.edge_slope_work_cost is not None
    assert graph.edge_effective_walk_length_m is not None
    assert graph.edge_slope_safety_cost_m is not None
    return (
        np.asarray(graph.edge_slope_speed_effective_length_m),
        np.asarray(graph.edge_slope_work_cost),
        np.asarray(graph.edge_effective_walk_length_m),
        np.asarray(graph.edge_slope_safety_cost_m),
    )


def _finish(
    length: FloatArray,
    weight: FloatArray,
    time: FloatArray,
    usable: BoolArray,
    *,
    walking: BoolArray,
    ban_bit: UInt8Array,
    turn_speed: FloatArray,
    blocked: BoolArray,
    driving: bool,
) -> EdgeCosts:
    weight = np.where(usable, weight, np.inf)
    time = np.where(usable, time, np.inf)
    ratio_ok = usable & (length > 0)
    ratio = weight[ratio_ok] / length[ratio_ok]
    return EdgeCosts(
        weight=np.ascontiguousarray(weight, dtype=np.float64),
        time_s=np.ascontiguousarray(time, dtype=np.float64),
        time_ceil_s=np.ceil(time),
        walking=np.ascontiguousarray(walking & usable),
        ban_bit=np.ascontiguousarray(ban_bit, dtype=np.uint8),
        turn_speed=np.ascontiguousarray(turn_speed, dtype=np.float64),
        blocked=np.ascontiguousarray(blocked),
        driving=driving,
        min_weight_per_m=float(ratio.min()) if ratio.size else 0.0,
    )


def _walk(
    graph: StreetGraph,
    options: StreetOptions,
    length: FloatArray,
    stairs: BoolArray,
    barrier: UInt8Array,
    comfort: FloatArray | None = None,
) -> EdgeCosts:
    speed = float(options.speed_mps)
    slope_len, _, walk_len, _ = _elevation(graph, length)
    usable = _has(graph.edge_perm, WALK)
    if options.wheelchair:
        usable &= (np.asarray(graph.edge_flags) & (FLAG_WHEELCHAIR_NO | FLAG_STAIRS)) == 0
        if graph.edge_max_slope is not None and math.isfinite(options.max_slope):
            usable &= np.asarray(graph.edge_max_slope) <= options.max_slope
        time = length / speed
        base = slope_len / speed
    else:
        time = walk_len / speed
        base = time
    weight = base * np.where(stairs, options.stairs_reluctance, options.reluctance)
    if comfort is not None:
        weight = weight * comfort
    n = length.size
    blocked = _has(barrier, WALK)
    exit_cost = None
    if options.wheelchair and graph.vertex_elevator is not None:
        vertex_cost, forbidden = _elevator_costs(graph.vertex_elevator, options.elevator)
        exit_cost = vertex_cost[np.asarray(graph.edge_from)]
        weight = weight + exit_cost
        blocked = blocked | forbidden
    out = _finish(
        length,
        weight,
        time,
        usable,
        walking=np.zeros(n, dtype=bool),
        ban_bit=np.full(n, WALK, dtype=np.uint8),
        turn_speed=np.full(n, speed),
        blocked=blocked,
        driving=False,
    )
    if exit_cost is None:
        return out
    return dataclasses.replace(out, exit_cost=np.ascontiguousarray(exit_cost))


def _elevator_costs(
    elevator: UInt8Array, prefs: AccessibilityPreferences
) -> tuple[FloatArray, BoolArray]:
    """Per vertex: the weight of passing through it, and whether that is forbidden.

    OTP 2's ``ElevatorHopEdge``: an elevator not known to be accessible may not be
    used with ``only_consider_accessible``; else one without ``wheelchair`` tag costs
    ``unknown_cost`` and one tagged ``wheelchair=no`` ``inaccessible_cost``.
    """
    code = np.asarray(elevator)
    unknown = code == ELEVATOR_UNKNOWN
    inaccessible = code == ELEVATOR_INACCESSIBLE
    cost = np.where(
        unknown, prefs.unknown_cost, np.where(inaccessible, prefs.inaccessible_cost, 0.0)
    )
    if prefs.only_consider_accessible:
        return np.zeros(code.shape, dtype=np.float64), unknown | inaccessible
    return cost.astype(np.float64), np.zeros(code.shape, dtype=bool)


def weight_of(costs: EdgeCosts, edges: Any, used: Any, first: Any) -> FloatArray:
    """Weights of travelling ``used`` (share) of ``edges``; ``first``: the path starts there.

    The share scales the edge's weight without its exit cost, which is paid in
    full on every edge but a path's first (it passes through the start vertex).
    """
    w = np.asarray(costs.weight)[edges]
    used_a = np.asarray(used, dtype=np.float64)
    if costs.exit_cost is None:
        out: FloatArray = w * used_a
        return out
    exit_cost = np.asarray(costs.exit_cost)[edges]
    return np.asarray((w - exit_cost) * used_a + np.where(first, 0.0, exit_cost), np.float64)


def _bike_weight(
    options: StreetOptions,
    length: FloatArray,
    slope_len: FloatArray,
    work: FloatArray,
    safety_len: FloatArray,
) -> FloatArray:
    speed = float(options.speed_mps)
    optimize = options.optimize
    if optimize in (Optimize.SAFE, Optimize.GREENWAYS):
        weight = safety_len / speed
        if optimize is Optimize.GREENWAYS:
            with np.errstate(divide="ignore", invalid="ignore"):
                factor = np.where(length > 0, safety_len / length, np.inf)
            weight = np.where(factor <= GREENWAY_SAFETY_FACTOR, weight * GREENWAY_BONUS, weight)
        return weight
    if optimize is Optimize.FLAT:
        return length / speed + work
    if optimize is Optimize.TRIANGLE:
        t = options.triangle
        if t is None:
            msg = "optimize=TRIANGLE needs triangle factors"
            raise InvalidArgumentError(msg)
        return (slope_len * t.time + work * t.slope + safety_len * t.safety) / speed
    return slope_len / speed  # QUICK (and the obsolete TRANSFERS)


def _bicycle(
    graph: StreetGraph,
    options: StreetOptions,
    length: FloatArray,
    stairs: BoolArray,
    barrier: UInt8Array,
) -> EdgeCosts:
    slope_len, work, walk_len, slope_safety = _elevation(graph, length)
    edge_from, edge_to = np.asarray(graph.edge_from), np.asarray(graph.edge_to)
    bike_barrier = _has(barrier, BICYCLE)
    walk_barrier = _has(barrier, WALK)
    touches = bike_barrier[edge_from] | bike_barrier[edge_to]
    ride = _has(graph.edge_perm, BICYCLE) & ~touches
    walk = _has(graph.edge_perm, WALK) & ~ride
    safety_len = np.asarray(graph.edge_bike_safety, dtype=np.float64) * length + slope_safety
    ride_w = _bike_weight(options, length, slope_len, work, safety_len)
    ride_w = ride_w * np.where(stairs, options.stairs_reluctance, options.reluctance)
    walk_speed = options.walk_speed_mps * BIKE_WALK_SPEED_FACTOR
    walk_t = walk_len / walk_speed
    walk_rel = options.walk_reluctance * BIKE_WALK_RELUCTANCE_FACTOR
    walk_stairs = options.stairs_reluctance * BIKE_CARRY_STAIRS_FACTOR
    walk_w = walk_t * np.where(stairs, walk_stairs, walk_rel)
    return _finish(
        length,
        np.where(ride, ride_w, walk_w),
        np.where(ride, slope_len / options.speed_mps, walk_t),
        ride | walk,
        walking=walk,
        ban_bit=np.where(ride, BICYCLE, WALK).astype(np.uint8),
        turn_speed=np.where(ride, float(options.speed_mps), walk_speed),
        blocked=bike_barrier & walk_barrier,
        driving=False,
    )


def _car(
    graph: StreetGraph, options: StreetOptions, length: FloatArray, barrier: UInt8Array
) -> EdgeCosts:
    speed = np.minimum(np.asarray(graph.edge_car_speed_mps, dtype=np.float64), options.speed_mps)
    usable = _has(graph.edge_perm, CAR) & (speed > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        time = np.where(speed > 0, length / speed, np.inf)
    weight = time * options.reluctance
    # ibi-group OTP 1.x: each driven edge also costs driveTimeReluctance x its time
    # and driveDistanceReluctance x its length, when those are > 0
    if options.drive_time_reluctance > 0:
        weight = weight + time * options.drive_time_reluctance
    if options.drive_distance_reluctance > 0:
        weight = weight + length * options.drive_distance_reluctance
    n = length.size
    return _finish(
        length,
        weight,
        time,
        usable,
        walking=np.zeros(n, dtype=bool),
        ban_bit=np.full(n, CAR, dtype=np.uint8),
        turn_speed=speed,
        blocked=_has(barrier, CAR),
        driving=True,
    )
