"""Propagation: the whole-second kernel gives exactly the float kernel's times.

The float kernel (``_propagate``) is the definition: per point and departure the best of
the street-only time and every link's ``arrival + egress - departure``, over the limit
unreachable, then R5's non-interpolated percentiles.  ``propagate`` takes an integer
path (durations clipped at the limit, far links skipped, quickselect) for whole
seconds; both must agree bit for bit, and fractional inputs must still be right.
"""

from __future__ import annotations

import numpy as np
import pytest

from otpa.analysis._propagate import (
    _durations,
    _propagate,
    percentile_ranks,
    propagate,
    sort_links,
)


def _case(seed: int, n_dep: int = 37, n_stops: int = 50, n_pts: int = 80) -> tuple:
    rng = np.random.default_rng(seed)
    deps = 50_000.0 + 60.0 * np.arange(n_dep)
    # rides of a few trips: one stop keeps its arrival over several departures
    arr = 50_000.0 + rng.integers(0, 9_000, (n_dep, n_stops)).astype(np.float64)
    arr = np.maximum(arr, deps[:, None] + rng.integers(0, 600, (n_dep, n_stops)))
    arr[rng.random((n_dep, n_stops)) < 0.2] = np.inf
    arr[:, :3] = np.inf  # never reached
    counts = rng.integers(0, 12, n_pts)
    indptr = np.r_[0, np.cumsum(counts)].astype(np.int64)
    stop = rng.integers(0, n_stops, indptr[-1]).astype(np.int32)
    time = rng.integers(0, 1_500, indptr[-1]).astype(np.int32)
    direct = rng.integers(0, 9_000, n_pts).astype(np.float64)
    direct[rng.random(n_pts) < 0.6] = np.inf
    return arr, deps, indptr, stop, time, direct


def _reference(arr, deps, indptr, stop, time, direct, max_time, percentiles):  # type: ignore[no-untyped-def]
    n_pts = indptr.shape[0] - 1
    out = np.empty((len(percentiles), n_pts), dtype=np.float32)
    by_dep = np.empty((deps.shape[0], n_pts), dtype=np.float32)
    _propagate(
        np.ascontiguousarray(arr.T), deps, indptr, stop, time, direct, float(max_time),
        percentile_ranks(percentiles, deps.shape[0]), out, by_dep, True,
    )  # fmt: skip
    return out, by_dep


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("percentiles", [(50,), (5, 50, 95), (1, 10, 25, 50, 75, 90, 99)])
def test_whole_seconds_equal_the_float_kernel(seed: int, percentiles: tuple[int, ...]) -> None:
    arr, deps, indptr, stop, time, direct = _case(seed)
    want, want_dep = _reference(arr, deps, indptr, stop, time, direct, 7200, percentiles)
    s, t = sort_links(indptr, stop, time)
    for links in ((stop, time), (s, t)):  # any order of a point's links
        got, got_dep = propagate(
            arr, deps, indptr, *links, direct, max_time_s=7200, percentiles=percentiles,
            keep_by_departure=True,
        )  # fmt: skip
        assert got.tobytes() == want.tobytes()
        assert got_dep is not None
        assert got_dep.tobytes() == want_dep.tobytes()
    assert np.isnan(want).any()
    assert np.isfinite(want).any()


def test_limits_and_fractions_fall_back_to_the_float_kernel() -> None:
    arr, deps, indptr, stop, time, direct = _case(7)
    # a limit that is not a whole number, fractional arrivals, fractional street times
    cases = [
        (arr, direct, 3600.5),
        (arr + 0.25, direct, 7200),
        (arr, direct + 0.5, 7200),
    ]
    for a, d, limit in cases:
        want, want_dep = _reference(a, deps, indptr, stop, time, d, limit, (25, 50))
        got, got_dep = propagate(
            a, deps, indptr, stop, time, d, max_time_s=limit, percentiles=(25, 50),
            keep_by_departure=True,
        )  # fmt: skip
        assert got.tobytes() == want.tobytes()
        assert got_dep is not None
        assert got_dep.tobytes() == want_dep.tobytes()


def test_sort_links_orders_each_point_by_egress_time() -> None:
    indptr = np.array([0, 3, 3, 5])
    stop = np.array([7, 8, 9, 4, 5], dtype=np.int32)
    time = np.array([300, 100, 200, 50, 50], dtype=np.int32)
    s, t = sort_links(indptr, stop, time)
    assert s.tolist() == [8, 9, 7, 4, 5]
    assert t.tolist() == [100, 200, 300, 50, 50]


def _durations_reference(arr: np.ndarray, deps: np.ndarray, over: int) -> tuple[list, bool]:
    """The definition: ``arr - dep`` per stop, ``over`` at or above it; any other time must be
    a whole number of seconds, at least 0 (else the float kernel is used)."""
    rows = []
    for s in range(arr.shape[1]):
        row = []
        for d in range(arr.shape[0]):
            t = float(arr[d, s] - deps[d])
            if t >= over:
                row.append(over)
            elif t == np.floor(t) and t >= 0:
                row.append(int(t))
            else:
                return [], False
        rows.append(row)
    return rows, True


@pytest.mark.parametrize("dtype", [np.int16, np.int32])
def test_durations_flag_exactly_the_times_the_integer_kernel_cannot_take(dtype: type) -> None:
    arr, deps, *_ = _case(3, n_dep=9, n_stops=40)
    over = 3601
    like = np.empty(0, dtype)
    # whole times, inf, and fractional or negative times at or above ``over`` (clipped)
    fine = arr.copy()
    fine[2, 5] = deps[2] + over + 0.5
    fine[4, 6] = deps[4] + over
    fine[1, 7] = deps[1] + over - 1
    fine[0, 8] = deps[0]
    want, ok = _durations_reference(fine, deps, over)
    dur, got_ok = _durations(fine, deps, over, like)
    assert ok
    assert got_ok
    assert dur.dtype == dtype
    assert dur.tolist() == want
    # one time within ``over`` that the integer kernel cannot take, anywhere: flagged
    for value in (0.5, over - 0.5, -1.0, -np.inf, np.nan):
        for d, s in ((0, 0), (8, 39), (4, 17)):
            bad = fine.copy()
            bad[d, s] = deps[d] + value
            assert _durations_reference(bad, deps, over)[1] is False
            assert _durations(bad, deps, over, like)[1] is False, (value, d, s)
    # fractional departures are flagged too
    assert _durations(fine, deps + 0.5, over, like)[1] is False
