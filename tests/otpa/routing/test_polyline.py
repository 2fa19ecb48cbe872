"""The compiled polyline encoder of itinerary geometries equals the reference encoder."""

from __future__ import annotations

import numpy as np
import pytest

from otpa.routing._polyline import encode
from otpa.util.polyline import decode_polyline, encode_polyline


@pytest.mark.parametrize("n", [0, 1, 2, 7, 50, 400])
def test_same_as_reference_encoder(n: int) -> None:
    rng = np.random.default_rng(n)
    for _ in range(50):
        if rng.random() < 0.3:  # anywhere on earth: long jumps, both signs
            lat, lon = rng.uniform(-90, 90, n), rng.uniform(-180, 180, n)
        else:  # a street path: small steps, repeated points
            lat = 49.5 + np.cumsum(rng.normal(0, 2e-4, n))
            lon = 8.6 + np.cumsum(rng.normal(0, 2e-4, n))
            if n > 3:
                lat[2], lon[2] = lat[1], lon[1]
        assert encode(lat, lon) == encode_polyline(lat, lon)


def test_half_units_round_like_numpy() -> None:
    # x.5e-5 degrees: numpy rounds half to even, so must the compiled encoder
    vals = np.array([0.000005, 0.000015, -0.000025, 1.000005, 2.5e-5, -4.5e-5, 12.345675])
    got = encode(vals, vals[::-1])
    assert got == encode_polyline(vals, vals[::-1])
    lat, _ = decode_polyline(got)
    assert lat == pytest.approx(list(np.round(vals * 1e5) / 1e5))


def test_lengths_must_match() -> None:
    with pytest.raises(ValueError, match="same length"):
        encode([1.0, 2.0], [1.0])
