"""Distance-decay functions: how much an opportunity counts, given the travel time to it.

The four kinds follow R5/Conveyal's ``DecayFunction`` family (continuous forms in seconds):

``step``
    ``1`` when ``t <= cutoff``, else ``0`` (cumulative opportunities). R5 uses ``t < cutoff``
    on whole seconds; otpa includes the cutoff itself, like its isochrones.
``linear``
    ``clip((cutoff + width/2 - t) / width, 0, 1)``: ``1`` up to ``cutoff - width/2``,
    ``0`` from ``cutoff + width/2``, ``0.5`` at the cutoff. ``width = 0`` is the step.
    (R5 tabulates the same line at half-second offsets for whole-second times.)
``logistic``
    R5's normalised logistic CDF (Bauer and Groneberg, eq. 9) with inflection point at the
    cutoff and standard deviation ``std``:
    ``(1 + exp(-cutoff * k)) / (1 + exp((t - cutoff) * k))`` with ``k = pi / (std * sqrt(3))``;
    the weight is exactly 1 at ``t = 0`` and ``0.5 * (1 + exp(-cutoff * k))`` (about 0.5) at
    the cutoff.
``exponential``
    R5 treats the cutoff as the **half-life**: ``0.5 ** (t / cutoff)``. With ``half_life_s``
    the cutoff is ignored and that half-life is used (R5's ``fixed-exponential`` with decay
    constant ``ln 2 / half_life_s``). R5 also zeroes weights from two hours on; otpa does not,
    but travel times beyond the request's ``max_time_s`` are NaN and weigh 0.

Everywhere, NaN (unreachable) and infinite travel times weigh 0 and negative times count as 0.
"""

from __future__ import annotations

import math
from typing import Any, Literal, TypeAlias

import numpy as np
import numpy.typing as npt

from otpa.errors import InvalidArgumentError
from otpa.types import FloatArray

__all__ = ["DECAY_KINDS", "DecayKind", "check_decay", "decay_weights"]

DecayKind: TypeAlias = Literal["step", "linear", "logistic", "exponential"]
#: The decay kinds and the parameters each accepts (the first of a tuple is required).
DECAY_KINDS: dict[str, tuple[str, ...]] = {
    "step": (),
    "linear": ("width_s",),
    "logistic": ("std_s",),
    "exponential": ("half_life_s",),
}
_REQUIRED = {"linear": "width_s", "logistic": "std_s"}
# exp() overflows float64 beyond about 709; weights there are 0 to double precision anyway
_MAX_EXPONENT = 700.0


def check_decay(
    kind: str,
    cutoff_s: float,
    *,
    width_s: float | None = None,
    std_s: float | None = None,
    half_life_s: float | None = None,
) -> dict[str, Any]:
    """Validate a decay specification.

    Parameters
    ----------
    kind
        ``"step"``, ``"linear"``, ``"logistic"`` or ``"exponential"``.
    cutoff_s
        Cutoff in seconds (non-negative; positive for ``exponential`` without half-life).
    width_s
        ``linear`` only (required): width of the transition, seconds, ``>= 0``.
    std_s
        ``logistic`` only (required): standard deviation, seconds, ``> 0``.
    half_life_s
        ``exponential`` only (optional): fixed half-life, seconds, ``> 0``.

    Returns
    -------
    dict
        ``{"decay": kind, <given parameters>}``, JSON-safe (used as result attrs).

    Raises
    ------
    ValueError
        Unknown kind, a parameter the kind does not take, a missing or invalid parameter.
    """
    if kind not in DECAY_KINDS:
        msg = f"unknown decay function {kind!r}; choose one of {', '.join(DECAY_KINDS)}"
        raise InvalidArgumentError(msg)
    given = {
        name: value
        for name, value in (("width_s", width_s), ("std_s", std_s), ("half_life_s", half_life_s))
        if value is not None
    }
    extra = sorted(set(given) - set(DECAY_KINDS[kind]))
    if extra:
        msg = f"the {kind} decay takes no {', '.join(extra)}"
        raise InvalidArgumentError(msg)
    required = _REQUIRED.get(kind)
    if required is not None and required not in given:
        msg = f"the {kind} decay needs {required}"
        raise InvalidArgumentError(msg)
    if not (isinstance(cutoff_s, int | float | np.number) and math.isfinite(cutoff_s)):
        msg = f"decay cutoff must be a finite number of seconds, got {cutoff_s!r}"
        raise InvalidArgumentError(msg)
    if cutoff_s < 0:
        msg = f"decay cutoff must not be negative, got {cutoff_s}"
        raise InvalidArgumentError(msg)
    if kind == "exponential" and half_life_s is None and cutoff_s <= 0:
        msg = "the exponential decay uses the cutoff as half-life: it must be positive"
        raise InvalidArgumentError(msg)
    for name, value in given.items():
        low_ok = value >= 0 if name == "width_s" else value > 0
        if not (math.isfinite(value) and low_ok):
            bound = "non-negative" if name == "width_s" else "positive"
            msg = f"{name} must be a {bound} finite number of seconds, got {value!r}"
            raise InvalidArgumentError(msg)
    return {"decay": kind, **{name: float(value) for name, value in given.items()}}


def decay_weights(
    times_s: npt.ArrayLike,
    cutoff_s: float,
    kind: str = "step",
    *,
    width_s: float | None = None,
    std_s: float | None = None,
    half_life_s: float | None = None,
) -> FloatArray:
    """Weight in ``[0, 1]`` of opportunities reached after ``times_s`` seconds.

    Parameters
    ----------
    times_s
        Travel times in seconds; NaN means unreachable.
    cutoff_s
        Cutoff in seconds.
    kind
        ``"step"``, ``"linear"``, ``"logistic"`` or ``"exponential"`` (see the module
        docstring for the formulas).
    width_s, std_s, half_life_s
        Parameters of ``linear``, ``logistic`` and ``exponential``.

    Returns
    -------
    numpy.ndarray
        float64 weights, same shape as ``times_s``; 0 where the time is NaN or infinite.

    Examples
    --------
    >>> decay_weights([0.0, 1800.0, 1801.0, float("nan")], 1800).tolist()
    [1.0, 1.0, 0.0, 0.0]
    >>> decay_weights([1500.0, 1800.0, 2100.0], 1800, "linear", width_s=600).tolist()
    [1.0, 0.5, 0.0]
    >>> decay_weights([1800.0], 1800, "exponential").tolist()
    [0.5]
    """
    check_decay(kind, cutoff_s, width_s=width_s, std_s=std_s, half_life_s=half_life_s)
    t = np.asarray(times_s, dtype=np.float64)
    reachable = np.isfinite(t)
    t = np.where(reachable, np.maximum(t, 0.0), 0.0)
    cutoff = float(cutoff_s)
    if kind == "step" or (kind == "linear" and width_s == 0):
        weights = (t <= cutoff).astype(np.float64)
    elif kind == "linear":
        assert width_s is not None
        weights = np.clip((cutoff + width_s / 2.0 - t) / width_s, 0.0, 1.0)
    elif kind == "logistic":
        assert std_s is not None
        k = math.pi / (std_s * math.sqrt(3.0))
        top = 1.0 + math.exp(min(-cutoff * k, _MAX_EXPONENT))
        exponent = (t - cutoff) * k
        tail = exponent > _MAX_EXPONENT
        weights = np.where(tail, 0.0, top / (1.0 + np.exp(np.where(tail, 0.0, exponent))))
    else:
        half_life = cutoff if half_life_s is None else half_life_s
        weights = np.exp2(-t / half_life)
    return np.where(reachable, weights, 0.0)
