"""Decay functions: exact weights at hand-picked travel times, R5's formulas, validation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from otpa.analysis.decay import DECAY_KINDS, check_decay, decay_weights

NAN = float("nan")
INF = float("inf")


def test_step_includes_the_cutoff() -> None:
    times = [0.0, 1799.0, 1800.0, 1800.5, 7200.0, NAN, INF, -5.0]
    assert decay_weights(times, 1800).tolist() == [1, 1, 1, 0, 0, 0, 0, 1]
    assert decay_weights(times, 1800).dtype == np.float64


def test_linear_ramp() -> None:
    times = [0.0, 1500.0, 1650.0, 1800.0, 1950.0, 2100.0, 2400.0, NAN]
    weights = decay_weights(times, 1800, "linear", width_s=600)
    assert weights.tolist() == [1.0, 1.0, 0.75, 0.5, 0.25, 0.0, 0.0, 0.0]
    # zero width is the step
    same = [1799.0, 1800.0, 1800.001]
    assert decay_weights(same, 1800, "linear", width_s=0).tolist() == [1.0, 1.0, 0.0]


def test_logistic_is_r5s_normalised_logistic_survival() -> None:
    cutoff, std = 1800.0, 600.0
    times = np.array([0.0, 600.0, 1200.0, 1800.0, 2400.0, 3600.0, 7200.0, 1e9])
    weights = decay_weights(times, cutoff, "logistic", std_s=std)
    # a logistic distribution with standard deviation std has scale std * sqrt(3) / pi
    scale = std * math.sqrt(3.0) / math.pi
    survival = stats.logistic.sf(times, loc=cutoff, scale=scale)
    expected = survival / stats.logistic.sf(0.0, cutoff, scale)
    np.testing.assert_allclose(weights, expected, rtol=1e-12, atol=0)
    assert weights[0] == 1.0
    k = math.pi / (std * math.sqrt(3.0))
    assert weights[3] == pytest.approx(0.5 * (1 + math.exp(-cutoff * k)), rel=1e-15)
    assert weights[3] == pytest.approx(0.5, abs=0.003)
    assert np.all(np.diff(weights) < 0)
    assert weights[-1] == 0.0  # no overflow warning (warnings are errors in otpa)
    assert decay_weights([NAN], cutoff, "logistic", std_s=std).tolist() == [0.0]


def test_exponential_uses_the_cutoff_as_half_life() -> None:
    times = [0.0, 900.0, 1800.0, 3600.0, 5400.0, NAN, -10.0]
    weights = decay_weights(times, 1800, "exponential")
    np.testing.assert_allclose(weights, [1.0, 2**-0.5, 0.5, 0.25, 0.125, 0.0, 1.0], rtol=1e-15)
    # a fixed half-life ignores the cutoff (R5's fixed-exponential)
    for cutoff in (600, 3600):
        fixed = decay_weights([1200.0], cutoff, "exponential", half_life_s=600)
        assert fixed.tolist() == [0.25]


def test_shape_is_kept() -> None:
    times = np.arange(12.0).reshape(3, 4) * 300
    for kind, params in (
        ("step", {}),
        ("linear", {"width_s": 300.0}),
        ("logistic", {"std_s": 300.0}),
        ("exponential", {}),
    ):
        weights = decay_weights(times, 1800, kind, **params)
        assert weights.shape == (3, 4)
        assert np.all((weights >= 0) & (weights <= 1))
        assert np.all(np.diff(weights.ravel()) <= 0)  # never increasing with time


@pytest.mark.parametrize(
    ("kind", "cutoff", "params", "message"),
    [
        ("gaussian", 1800, {}, "unknown decay function 'gaussian'"),
        ("linear", 1800, {}, "linear decay needs width_s"),
        ("logistic", 1800, {}, "logistic decay needs std_s"),
        ("step", 1800, {"width_s": 60.0}, "step decay takes no width_s"),
        ("linear", 1800, {"std_s": 60.0, "width_s": 60.0}, "takes no std_s"),
        ("linear", 1800, {"width_s": -1.0}, "width_s must be a non-negative"),
        ("logistic", 1800, {"std_s": 0.0}, "std_s must be a positive"),
        ("logistic", 1800, {"std_s": NAN}, "std_s must be a positive"),
        ("exponential", 1800, {"half_life_s": -5.0}, "half_life_s must be a positive"),
        ("exponential", 0, {}, "half-life: it must be positive"),
        ("step", -1, {}, "must not be negative"),
        ("step", NAN, {}, "finite"),
    ],
)
def test_validation(kind: str, cutoff: float, params: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_decay(kind, cutoff, **params)
    with pytest.raises(ValueError, match=message):
        decay_weights([0.0], cutoff, kind, **params)


def test_check_decay_describes_the_function() -> None:
    assert set(DECAY_KINDS) == {"step", "linear", "logistic", "exponential"}
    assert check_decay("linear", 1800, width_s=600) == {"decay": "linear", "width_s": 600.0}
    assert check_decay("step", 0) == {"decay": "step"}
    assert check_decay("exponential", 0, half_life_s=60) == {
        "decay": "exponential",
        "half_life_s": 60.0,
    }
