"""OTP 1.x ``ElevationUtils.getSlopeCosts``, vectorised over the steps of many profiles.

For every step between two consecutive profile samples (``run`` metres along the edge,
``rise`` metres up), OTP 1.x computes:

* ``slope = rise / run``; a step steeper than 35 % on an edge cars may use
  (``slope_limit``), or steeper than 100 % on any edge, counts as flat (``flattened``);
* work: ``hypotenuse * (1 + 4000 * max(slope, 0) ** 3)`` (energy per metre: 1 on the
  flat, rising with the cube of the climb; descents cost as flat);
* speed: ``run / c(slope, altitude)`` where ``c`` is the bike speed coefficient, a
  quadratic tensor B-spline fitted (with ZunZun) to analyticcycling.com speeds, over
  altitude 0..5000 m and slope -0.35..0.35 (extrapolated outside);
* safety: ``max(hypotenuse * (c - 1) / 4, 0)``;
* walking: ``run * min(exp(3.5 * |slope + 0.05| - 0.175), 3)`` (Tobler's hiking
  function normalised to 1 on the flat, capped at 3 like OTP), using the raw slope.

Steps of zero run are skipped.  Sums are per edge and direction; OTP divides them by the
flat length to get factors, here they stay metres (factor x length).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.interpolate import BSpline

from otpa.types import BoolArray, FloatArray, IntArray

__all__ = [
    "SlopeSums",
    "slope_costs",
    "slope_speed_coefficient",
    "sum_by",
    "tobler_multiplier",
]

# Knots and coefficients of OTP's slope/altitude speed spline (kx = ky = 2).
_TX = np.array([0.0, 0.0, 0.0, 2798.7785324442748, 5000.0, 5000.0, 5000.0])
_TY = np.array(
    [
        -0.35,
        -0.35,
        -0.35,
        -0.072695627831828688,
        -0.0024945814335295903,
        0.053500304527448035,
        0.12191105175593375,
        0.35,
        0.35,
        0.35,
    ]
)
_COEFF = np.array(
    [
        [4.3843513168660255, 3.6904323727375652, 1.6791850199667697, 0.55077866957024113,
         0.17977766419113900, 0.080906832222762959, 0.060239305785343762],
        [4.6782343053423814, 3.9250580214736304, 1.7924585866601270, 0.53426170441723031,
         0.18787442260720733, 0.074706427576152687, 0.062201805553147201],
        [5.3131908923568787, 4.4703901299120750, 2.0085381385545351, 0.54611063530784010,
         0.18034042959223889, 0.081456939988273691, 0.059806795955995307],
        [5.6384893192212662, 4.7732222200176633, 2.1021485412233019, 0.57862890496126462,
         0.16358571778476885, 0.094846184210137130, 0.055464612133430242],
    ]
)  # fmt: skip
_K = 2

#: Slope above which a step on a car-accessible edge counts as flat (Baldwin St, 35 %).
CAR_SLOPE_LIMIT = 0.35
#: Slope above which any step counts as flat.
ANY_SLOPE_LIMIT = 1.0
#: OTP's cap on Tobler's walking distance multiplier.
MAX_WALK_FACTOR = 3.0
_ENERGY_SLOPE_FACTOR = 4000.0


def slope_speed_coefficient(slope: FloatArray, altitude: FloatArray) -> FloatArray:
    """OTP's bike speed coefficient ``c(slope, altitude)`` (about 1 on the flat, at sea level).

    Examples
    --------
    >>> c = slope_speed_coefficient(np.array([-0.05, 0.0, 0.05]), np.zeros(3))
    >>> bool(c[0] > c[1] > c[2])
    True
    """
    bx = BSpline.design_matrix(np.asarray(altitude, dtype=np.float64), _TX, _K, extrapolate=True)
    by = BSpline.design_matrix(np.asarray(slope, dtype=np.float64), _TY, _K, extrapolate=True)
    values = np.asarray(bx @ _COEFF, dtype=np.float64)
    return np.asarray(by.multiply(values).sum(axis=1), dtype=np.float64).ravel()


def tobler_multiplier(slope: FloatArray) -> FloatArray:
    """Tobler's walking distance multiplier, 1 on the flat, capped at 3.

    Examples
    --------
    >>> np.round(tobler_multiplier(np.array([0.0, 0.1, -0.05, 0.5])), 2).tolist()
    [1.0, 1.42, 0.84, 3.0]
    """
    factor = np.exp(3.5 * np.abs(np.asarray(slope, dtype=np.float64) + 0.05) - 0.175)
    return np.minimum(factor, MAX_WALK_FACTOR)


def sum_by(group: IntArray, weights: FloatArray, n: int) -> FloatArray:
    """Sum ``weights`` per group index (``0 <= group < n``) as float64."""
    return np.bincount(group, weights=weights, minlength=n).astype(np.float64)


@dataclass(frozen=True)
class SlopeSums:
    """Per-edge sums for one direction (arrays over edges)."""

    speed_length: FloatArray
    work: FloatArray
    safety: FloatArray
    walk_length: FloatArray
    max_slope: FloatArray
    flattened: BoolArray


def slope_costs(
    step_edge: IntArray,
    run: FloatArray,
    rise: FloatArray,
    altitude: FloatArray,
    step_slope_limit: BoolArray,
    n_edges: int,
) -> SlopeSums:
    """Sum OTP's slope costs of the steps of every edge in one travel direction.

    ``altitude`` is the height at the start of each step in the travel direction;
    ``step_slope_limit`` whether the 35 % limit applies (the edge allows cars).
    """
    ok = run != 0.0
    edge = step_edge[ok]
    run, rise, altitude = run[ok], rise[ok], altitude[ok]
    raw_slope = rise / run
    limit = np.where(step_slope_limit[ok], CAR_SLOPE_LIMIT, ANY_SLOPE_LIMIT)
    flat = np.abs(raw_slope) > limit
    slope = np.where(flat, 0.0, raw_slope)
    hyp = np.hypot(rise, run)
    uphill = np.maximum(slope, 0.0)
    work = hyp * (1.0 + _ENERGY_SLOPE_FACTOR * uphill**3)
    coef = slope_speed_coefficient(slope, altitude)
    safety = np.maximum(hyp * (coef - 1.0) * 0.25, 0.0)
    walk = np.abs(run) * tobler_multiplier(raw_slope)
    max_slope = np.zeros(n_edges)
    np.maximum.at(max_slope, edge, np.abs(slope))
    flattened = np.zeros(n_edges, dtype=bool)
    flattened[edge[flat]] = True
    return SlopeSums(
        speed_length=sum_by(edge, run / coef, n_edges),
        work=sum_by(edge, work, n_edges),
        safety=sum_by(edge, safety, n_edges),
        walk_length=sum_by(edge, walk, n_edges),
        max_slope=max_slope,
        flattened=flattened,
    )
