"""Array codecs of the saved-graph container: exact round trips, compactness, bad input."""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from otpa.network._codecs import PATCH_DTYPE, decode_array, encode_array

RNG = np.random.default_rng(7)


def _round_trip(array: npt.NDArray[Any], quantize: int | None = None) -> npt.NDArray[Any]:
    enc = encode_array(array, quantize=quantize)
    assert enc.stored.dtype != object
    out = decode_array(enc.stored, enc.steps, enc.patch)
    assert out.dtype == array.dtype
    assert out.shape == array.shape
    return out


def _ops(array: npt.NDArray[Any], quantize: int | None = None) -> list[str]:
    return [s["op"] for s in encode_array(array, quantize=quantize).steps]


OSM_LAT = np.cumsum(RNG.integers(-300, 300, 5000)) + 493_000_000
LOSSLESS_CASES: dict[str, npt.NDArray[Any]] = {
    "sorted int64 (CSR pointer)": np.cumsum(RNG.integers(0, 5, 10_000)).astype(np.int64),
    "random int32 ids": RNG.integers(0, 50_000, 10_000).astype(np.int32),
    "int64 extremes": np.array([np.iinfo(np.int64).min, 0, np.iinfo(np.int64).max] * 40),
    "huge uint64": np.array([2**64 - 1, 0, 2**63] * 40, dtype=np.uint64),
    "negative int16": RNG.integers(-30_000, 30_000, 1000).astype(np.int16),
    "uint8 flags": RNG.integers(0, 4, 1000).astype(np.uint8),
    "constant": np.full(1000, 42, dtype=np.int64),
    "stop times": np.sort(RNG.integers(0, 100_000, 20_000)).astype(np.int32),
    "OSM coordinates (k * 1e-7)": OSM_LAT * 1e-7,
    "GTFS decimals (k / 1e6)": (OSM_LAT // 10) / 1e6,
    "grid with split points": np.where(
        np.arange(5000) % 50 == 0, OSM_LAT * 1.000000001e-7, OSM_LAT * 1e-7
    ),
    "random float64": RNG.random(5000) * 1000,
    "float64 with NaN, inf and -0.0": np.r_[
        np.arange(1000) / 10.0, [np.nan, np.inf, -np.inf, -0.0, 1e300, 5e-324]
    ],
    "all NaN": np.full(1000, np.nan),
    "float32": (RNG.random(5000) * 30).astype(np.float32),
    "bool": RNG.random(1000) < 0.5,
    "2-D": RNG.integers(0, 9, (40, 30)).astype(np.int64),
    "tiny": np.array([3, 1, 2], dtype=np.int64),
    "empty": np.zeros(0, dtype=np.float64),
}


@pytest.mark.parametrize("name", list(LOSSLESS_CASES))
def test_lossless_round_trip_is_bit_exact(name: str) -> None:
    array = LOSSLESS_CASES[name]
    assert _round_trip(array).tobytes() == array.tobytes()


def test_sorted_integers_use_deltas_and_shrink() -> None:
    array = LOSSLESS_CASES["sorted int64 (CSR pointer)"]
    enc = encode_array(array)
    assert "delta" in _ops(array)
    assert len(zlib.compress(enc.stored.tobytes())) < array.nbytes / 20


def test_osm_coordinates_use_the_grid_without_patch() -> None:
    array = LOSSLESS_CASES["OSM coordinates (k * 1e-7)"]
    enc = encode_array(array)
    assert enc.steps[0] == {"op": "grid", "dtype": "<f8", "mul": 1e-7}
    assert enc.patch is None
    assert enc.stored.nbytes <= array.nbytes // 2


def test_off_grid_values_go_to_the_patch() -> None:
    array = LOSSLESS_CASES["grid with split points"]
    enc = encode_array(array)
    assert enc.steps[0]["op"] == "grid"
    assert enc.patch is not None
    assert enc.patch.dtype == PATCH_DTYPE
    assert enc.patch["index"].tolist() == list(range(0, 5000, 50))


def test_random_floats_are_not_gridded() -> None:
    assert "grid" not in _ops(LOSSLESS_CASES["random float64"])


def test_quantize_rounds_to_the_step_and_is_idempotent() -> None:
    array = np.r_[np.sort(RNG.random(5000) * 2000), [np.nan, np.inf, 0.0]]
    out = _round_trip(array, quantize=1000)
    finite = np.isfinite(array)
    assert np.all(np.abs(out[finite] - array[finite]) <= 0.0005 + 1e-12)
    assert np.array_equal(np.isnan(out), np.isnan(array))
    assert out[-2] == np.inf
    assert out[-1] == 0.0
    assert np.all(np.diff(out[:5000]) >= 0)  # rounding is monotone
    assert _round_trip(out, quantize=1000).tobytes() == out.tobytes()
    assert np.array_equal(out[finite], np.round(array[finite], 3))


def test_quantize_only_touches_float64() -> None:
    ints = np.arange(1000, dtype=np.int64)
    assert _round_trip(ints, quantize=10).tobytes() == ints.tobytes()
    f32 = LOSSLESS_CASES["float32"]
    assert _round_trip(f32, quantize=10).tobytes() == f32.tobytes()


def test_quantize_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        encode_array(np.arange(1000, dtype=np.float64) / 3, quantize=0)


def _encoded(array: npt.NDArray[Any]) -> tuple[npt.NDArray[Any], list[dict[str, Any]]]:
    enc = encode_array(array)
    return enc.stored, enc.steps


@pytest.mark.parametrize(
    ("steps", "match"),
    [
        ([{"op": "explode", "dtype": "<i8"}], "unknown encoding step"),
        ([{"op": "delta", "dtype": "|O"}], "unsupported dtype"),
        ([{"op": "delta", "dtype": ">i8"}], "unsupported dtype"),
        ([{"op": "delta"}], "unsupported dtype"),
        ([{"op": "shuffle", "dtype": "<i8"}], "wrong shape"),
        ([{"op": "grid", "dtype": "<f8"}], "factor"),
        ([{"op": "grid", "dtype": "<f8", "mul": -1.0}], "factor"),
        ([{"op": "grid", "dtype": "<f8", "mul": 1.0, "div": 2.0}], "factor"),
        ([{"op": "grid", "dtype": "<i8", "div": 10.0}], "grid step needs"),
        ([{"op": "cast", "dtype": "<f8"}], "cast step needs integers"),
        (["delta"], "not an object"),
    ],
)
def test_decode_rejects_malformed_steps(steps: list[Any], match: str) -> None:
    stored = np.arange(100, dtype=np.int32)
    with pytest.raises(ValueError, match=match):
        decode_array(stored, steps)


def test_decode_rejects_patch_out_of_range() -> None:
    patch = np.zeros(1, dtype=PATCH_DTYPE)
    patch["index"] = 100
    with pytest.raises(ValueError, match="out of range"):
        decode_array(np.arange(100), [{"op": "grid", "dtype": "<f8", "div": 10.0}], patch)


def test_decode_rejects_2d_input_for_1d_steps() -> None:
    with pytest.raises(ValueError, match="1-D"):
        decode_array(np.zeros((3, 4), dtype=np.int8), [{"op": "delta", "dtype": "<i8"}])
