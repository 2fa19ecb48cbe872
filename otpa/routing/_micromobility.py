"""Micromobility (e-scooters and the like): speed from power, weight and slope, as the ibi fork.

The ibi fork of OTP 1.x rides MICROMOBILITY at the speed where the vehicle's
sustained power balances rolling resistance, the slope's pull and air drag
(``StreetEdge.calculateMicromobilitySpeed``, after gribble.org's power/speed model):

    P = V * (CdA * rho / 2 * V^2 + Frg + V * Crvn)

with ``P = watts * 0.8`` (drivetrain losses, not always full power), ``Frg = g * weight
* (Crr * cos(beta) + sin(beta))``, ``Crvn = 0.1 * cos(beta)``, ``Crr = 0.005``,
``CdA = 0.63 * 0.6`` m^2 and the dry-air density at the altitude (``101325 Pa *
exp(-g M h / (R T)) / (R_d T)`` with ``T = 293 K - 9.8 K/km``); the cubic is solved
with Cardano's formulas.  The speed is then bounded by ``minimumMicromobilitySpeed`` and
``maximumMicromobilitySpeed`` and by the street's car speed (the speed limit).

Slope bins (the ibi fork's ``StreetWithElevationEdge.calculateSpeed``): the fork splits
each edge's elevation profile into bins of whole-percent grade (``round(100 * slope)``,
capped at +-100 %), rides each bin at its own speed (bounded by the speed limit) and adds
the times.  The graph keeps no per-edge profile, only each edge's total climb and descent
(``edge_rise_m``, ``edge_fall_m``, summed over the build's DEM profile in travel
direction), so an edge here has at most two bins that keep both totals: climbing at
``+g`` over ``length * rise / (rise + fall)`` and descending at ``-g`` over the rest,
``g = (rise + fall) / length`` rounded to the whole percent as the fork rounds (an edge
that only climbs or only descends is its one exact bin).  The air density is that of the
edge's lower end (the fork meant the lowest altitude of each bin but passes the distance
along the edge instead, which makes its drag sea level's); without elevation the street
is flat at sea level.

Vehicles ride where bicycles may, as in the ibi fork (its OSM rules give ``BICYCLE`` and
``MICROMOBILITY`` together: a way closed to bicycles -- motorways and trunks without
``bicycle=yes``, ``footway=sidewalk``, ``bicycle=no`` or ``dismount`` -- is closed to
them, a ``bicycle=yes``/``designated`` footway is open); where a cyclist would walk, the
rider walks the vehicle (the bicycle cost model's walking).  Time is OTP's (whole
seconds per edge) and the weight the time x ``walkReluctance``, as OTP 1.x weighs every
street mode.
"""

from __future__ import annotations

import math

import numpy as np

from otpa.routing._street_costs import EdgeCosts, edge_costs
from otpa.routing._street_types import StreetOptions
from otpa.routing.preferences import MicromobilityPreferences
from otpa.street import StreetGraph
from otpa.types import FloatArray
from otpa.util.cache import OwnerCache

__all__ = ["drag_component", "micromobility_costs", "micromobility_speed", "slope_bins"]

G = 9.80665
_CDA = 0.63 * 0.6
_P0 = 101325.0
_MOLAR_MASS = 0.0289644
_R = 8.3144598
_R_DRY = 287.058
_T0 = 293.0
_CRR = 0.005
_CRV = 0.1


def drag_component(altitude_m: FloatArray | float) -> FloatArray:
    """``Cd * A * rho`` at an altitude (metres), dry air.

    Examples
    --------
    >>> round(float(drag_component(0)), 4), round(float(drag_component(2000)), 4)
    (0.4554, 0.3801)
    """
    h = np.asarray(altitude_m, dtype=np.float64)
    t = _T0 - 9.8 * h / 1000.0
    rho = _P0 * np.exp(-G * _MOLAR_MASS * h / (_R * t)) / (_R_DRY * t)
    out: FloatArray = _CDA * rho
    return out


def micromobility_speed(
    watts: float,
    weight_kg: float,
    beta: FloatArray | float,
    cda_rho: FloatArray | float,
    min_speed: float,
    max_speed: float,
    crr: float = _CRR,
) -> FloatArray:
    """Speed (m/s) on inclination ``beta`` (radians), bounded by ``[min_speed, max_speed]``.

    Examples
    --------
    >>> round(float(micromobility_speed(250 / 0.8, 105, 0.0, 0.4553, -1e9, 1e9)), 2)
    9.47
    >>> round(float(micromobility_speed(250 / 0.8, 105, math.atan(0.07), 0.4553, -1e9, 1e9)), 2)
    3.15
    """
    b_ = np.asarray(beta, dtype=np.float64)
    k = np.asarray(cda_rho, dtype=np.float64)
    p = watts * 0.8
    crvn = _CRV * np.cos(b_)
    frg = G * weight_kg * (crr * np.cos(b_) + np.sin(b_))
    a = -(crvn**3) / 27.0 + 2.0 * frg * crvn / (3.0 * k**2) + p / k
    b = 2.0 / (9.0 * k) * (3.0 * frg - 2.0 * crvn / k)
    check = a**2 + b**3
    roll = 2.0 / 3.0 * crvn / k
    root = np.sqrt(np.maximum(check, 0.0))
    cardano = np.cbrt(a + root) + np.cbrt(a - root) - roll
    neg_b = np.maximum(-b, 0.0)
    denom = np.sqrt(neg_b**3)
    ratio = np.divide(a, denom, out=np.zeros(np.broadcast(a, denom).shape), where=denom > 0)
    trig = 2.0 * np.sqrt(neg_b) * np.cos(np.arccos(np.clip(ratio, -1.0, 1.0)) / 3.0)
    speed = np.where(check >= 0, cardano, trig - roll)
    out: FloatArray = np.maximum(np.minimum(speed, max_speed), min_speed)
    return out


def slope_bins(graph: StreetGraph) -> tuple[FloatArray, FloatArray]:
    """Per edge: the share of its length that climbs and the grade of its bins.

    The climbing bin is at ``+grade`` over ``share`` of the edge, the descending one at
    ``-grade`` over the rest; ``grade = (rise + fall) / length`` rounded to the whole
    percent and capped at 1 (the ibi fork's bins); 0 without elevation (one flat bin).
    """
    length = np.asarray(graph.edge_length_m, dtype=np.float64)
    share = np.ones_like(length)
    grade = np.zeros_like(length)
    if graph.edge_rise_m is None or graph.edge_fall_m is None:
        return share, grade
    rise = np.nan_to_num(np.asarray(graph.edge_rise_m, dtype=np.float64))
    fall = np.nan_to_num(np.asarray(graph.edge_fall_m, dtype=np.float64))
    change = rise + fall
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(change > 0, rise / change, 1.0)
        g = np.where(length > 0, change / length, 0.0)
    grade = np.minimum(np.floor(np.nan_to_num(g) * 100.0 + 0.5), 100.0) / 100.0  # Math.round
    return share, grade


def micromobility_costs(
    graph: StreetGraph, options: StreetOptions, prefs: MicromobilityPreferences
) -> EdgeCosts:
    """Edge costs of riding a micromobility vehicle (see the module docstring).

    ``options`` are the request's BICYCLE options (permissions, walking the vehicle,
    reluctance); the riding edges get the power-model time.
    """
    return _COSTS.get_or_build(graph, (options, prefs), lambda: _costs(graph, options, prefs))


#: Per street graph: the riding costs of the last few option sets.
_COSTS: OwnerCache[tuple[StreetOptions, MicromobilityPreferences], EdgeCosts] = OwnerCache(
    max_entries=4
)


def _costs(
    graph: StreetGraph, options: StreetOptions, prefs: MicromobilityPreferences
) -> EdgeCosts:
    bike = edge_costs(graph, options)
    length = np.asarray(graph.edge_length_m, dtype=np.float64)
    up_share, grade = slope_bins(graph)
    altitude = np.zeros_like(length)
    if graph.vertex_elevation_m is not None:
        z = np.asarray(graph.vertex_elevation_m, dtype=np.float64)
        ends = np.minimum(z[np.asarray(graph.edge_from)], z[np.asarray(graph.edge_to)])
        altitude = np.nan_to_num(ends)
    car = np.asarray(graph.edge_car_speed_mps, dtype=np.float64)
    limit = np.where(car > 0, car, np.inf)
    k = drag_component(altitude)

    def bin_speed(g: FloatArray) -> FloatArray:
        v = micromobility_speed(prefs.watts, prefs.weight_kg, np.arctan(g), k,
                                prefs.min_speed_mps, prefs.max_speed_mps)  # fmt: skip
        out: FloatArray = np.minimum(v, limit)
        return out

    v_up, v_down = bin_speed(grade), bin_speed(-grade)
    ride_time = length * up_share / v_up + length * (1.0 - up_share) / v_down
    speed = np.divide(length, ride_time, out=v_up.copy(), where=ride_time > 0)
    ride = np.isfinite(bike.weight) & ~np.asarray(bike.walking)
    time = np.where(ride, ride_time, bike.time_s)
    weight = np.where(ride, time * options.walk_reluctance, bike.weight)
    usable = np.isfinite(weight) & (length > 0)
    per_m = weight[usable] / length[usable]
    return EdgeCosts(
        weight=weight,
        time_s=time,
        time_ceil_s=np.ceil(time),
        walking=bike.walking,
        ban_bit=bike.ban_bit,
        turn_speed=np.where(ride, speed, bike.turn_speed),
        blocked=bike.blocked,
        driving=False,
        min_weight_per_m=float(per_m.min()) if per_m.size else math.inf,
    )
