"""Every numeric preference is checked against its documented range when the object is made."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from otpa.routing._transfers import _COSTS, _TIMES, CACHE_SIZE, transfer_costs, transfer_times
from otpa.routing.errors import InvalidRequestError
from otpa.routing.preferences import (
    PARAMETER_RANGES,
    BikePreferences,
    CarPreferences,
    FlexPreferences,
    ItineraryPreferences,
    MicromobilityPreferences,
    TransitPreferences,
    TriangleFactors,
    WalkPreferences,
    WheelchairPreferences,
)

#: OTP parameter -> (preference class, field, other fields it needs).
FIELDS: dict[str, tuple[type, str, dict[str, Any]]] = {
    "walkSpeed": (WalkPreferences, "speed_mps", {}),
    "walkReluctance": (WalkPreferences, "reluctance", {}),
    "walkBoardCost": (WalkPreferences, "board_cost", {}),
    "stairsReluctance": (WalkPreferences, "stairs_reluctance", {}),
    "maxWalkDistance": (WalkPreferences, "max_distance_m", {}),
    "bikeSpeed": (BikePreferences, "speed_mps", {}),
    "bikeBoardCost": (BikePreferences, "board_cost", {}),
    "bikeSwitchTime": (BikePreferences, "switch_time_s", {}),
    "bikeSwitchCost": (BikePreferences, "switch_cost", {}),
    "bikeReluctance": (BikePreferences, "reluctance", {}),
    "carSpeed": (CarPreferences, "speed_mps", {}),
    "carReluctance": (CarPreferences, "reluctance", {}),
    "maxPreTransitTime": (CarPreferences, "max_pre_transit_time_s", {}),
    "driveDistanceReluctance": (CarPreferences, "drive_distance_reluctance", {}),
    "driveTimeReluctance": (CarPreferences, "drive_time_reluctance", {}),
    "maxSlope": (WheelchairPreferences, "max_slope", {}),
    "maxTransfers": (TransitPreferences, "max_transfers", {}),
    "minTransferTime": (TransitPreferences, "min_transfer_time_s", {}),
    "boardSlack": (TransitPreferences, "board_slack_s", {}),
    "alightSlack": (TransitPreferences, "alight_slack_s", {}),
    "transferPenalty": (TransitPreferences, "transfer_penalty", {}),
    "nonpreferredTransferPenalty": (TransitPreferences, "nonpreferred_transfer_penalty", {}),
    "waitReluctance": (TransitPreferences, "wait_reluctance", {}),
    "waitAtBeginningFactor": (TransitPreferences, "wait_at_beginning_factor", {}),
    "clampInitialWait": (TransitPreferences, "clamp_initial_wait_s", {}),
    "otherThanPreferredRoutesPenalty": (
        TransitPreferences, "other_than_preferred_routes_penalty", {}
    ),
    "useUnpreferredRoutesPenalty": (TransitPreferences, "unpreferred_routes_penalty", {}),
    "numItineraries": (ItineraryPreferences, "num_itineraries", {}),
    "maxHours": (ItineraryPreferences, "max_hours", {}),
    "searchTimeout": (ItineraryPreferences, "search_timeout_ms", {}),
    "minTransitDistance": (ItineraryPreferences, "min_transit_distance_pct", {}),
    "flexFlagStopBufferSize": (FlexPreferences, "flag_stop_buffer_size", {}),
    "watts": (MicromobilityPreferences, "watts", {}),
    "weight": (MicromobilityPreferences, "weight_kg", {}),
    "minimumMicromobilitySpeed": (MicromobilityPreferences, "min_speed_mps", {"max_speed_mps": 30}),
    "maximumMicromobilitySpeed": (MicromobilityPreferences, "max_speed_mps", {"min_speed_mps": 1}),
}  # fmt: skip
TRIANGLE = {"triangleSafetyFactor", "triangleSlopeFactor", "triangleTimeFactor", "aerodynamicDrag"}


def test_every_range_is_checked_by_a_preference_object() -> None:
    assert set(PARAMETER_RANGES) == set(FIELDS) | TRIANGLE


@pytest.mark.parametrize("parameter", sorted(FIELDS))
def test_range_ends_are_accepted_and_beyond_refused(parameter: str) -> None:
    cls, name, extra = FIELDS[parameter]
    low, high, low_open = PARAMETER_RANGES[parameter]
    inside = [high] if low_open else [low, high]
    for value in inside:
        if math.isfinite(value):
            assert getattr(cls(**{name: value, **extra}), name) == value
    beyond = [low if low_open else low - 1, math.nan]
    if math.isfinite(high):
        beyond.append(high * 2 + 1)
    for value in beyond:
        with pytest.raises(InvalidRequestError, match=parameter) as info:
            cls(**{name: value, **extra})
        assert info.value.parameter == parameter


def test_triangle_tolerance_and_normalisation() -> None:
    t = TriangleFactors(0.3333, 0.3333, 0.3292)  # OTP 1.x's web client: 0.9958
    assert t.safety + t.slope + t.time == pytest.approx(1.0, abs=1e-12)
    assert t.safety == pytest.approx(0.3333 / 0.9958)
    assert TriangleFactors(0.5, 0.3, 0.2) == TriangleFactors(0.5, 0.3, 0.2)
    assert TriangleFactors(0.5, 0.3, 0.2).safety == 0.5  # exact sums stay as given
    with pytest.raises(InvalidRequestError) as info:
        TriangleFactors(0.5, 0.5, 0.5)
    assert info.value.code == "TRIANGLE_NOT_AFFINE"
    with pytest.raises(InvalidRequestError, match="triangleTimeFactor"):
        TriangleFactors(0.5, 0.5, -0.01)


class _Network:
    """The few network fields the transfer caches read (weak-referenceable)."""

    def __init__(self) -> None:
        self.transfer_distance_m = np.array([100.0, 250.0])
        self.transfer_offsets = np.array([0, 1, 2])
        self.transfer_to = np.array([1, 0])
        self.transit = type("T", (), {"transfer_rules": [], "n_stops": 2})()


def test_walk_speed_caches_are_bounded() -> None:
    net = _Network()
    for i in range(3 * CACHE_SIZE):
        speed = 0.5 + i / 10
        assert transfer_times(net, speed).tolist() == [math.ceil(100 / speed), math.ceil(250 / speed)]  # type: ignore[arg-type]  # noqa: E501
        transfer_costs(net, speed, 2.0)  # type: ignore[arg-type]
    speeds = [0.5 + i / 10 for i in range(3 * CACHE_SIZE)]
    kept = [s for s in speeds if _TIMES.get(net, s) is not None]
    assert kept == speeds[-CACHE_SIZE:]  # the most recent ones, no more
    kept_costs = [s for s in speeds if _COSTS.get(net, (s, 2.0)) is not None]
    assert kept_costs == speeds[-CACHE_SIZE:]
