"""The compiled path assembly repeats numpy's arithmetic bit for bit.

Street paths (their totals and polylines) must be the ones the numpy code gave:
:func:`~otpa.routing._path_kernel.pairwise_sum` sums as ``numpy.sum`` does (pairwise,
8 partial sums, halves above 128 values) and the interpolated ends of partial edges
are ``numpy.interp``'s.
"""

from __future__ import annotations

import struct

import numpy as np

from otpa.routing._path_kernel import _interp, pairwise_sum


def _bits(x: float) -> bytes:
    return struct.pack("<d", float(x))


def test_pairwise_sum_is_numpy_sum_bit_for_bit() -> None:
    rng = np.random.default_rng(3)
    for n in [*range(140), 255, 256, 257, 1000, 1031, 5000]:
        for _ in range(3):
            # magnitudes over 16 decades: the summation order shows in the last bits
            a = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)
            assert _bits(pairwise_sum(a)) == _bits(np.sum(a)), n
    assert _bits(pairwise_sum(np.array([-0.0, -0.0]))) == _bits(np.sum(np.array([-0.0, -0.0])))


def test_interp_is_numpy_interp_bit_for_bit() -> None:
    rng = np.random.default_rng(4)
    for n in (1, 2, 3, 5, 9, 40):
        for _ in range(20):
            xp = np.cumsum(rng.choice([0.0, 0.5, 1.7, 13.1], n))  # repeated positions too
            fp = rng.standard_normal(n) * 50.0
            xs = np.concatenate((xp, rng.uniform(-1.0, xp[-1] + 1.0, 10), [np.nan]))
            for x in xs:
                assert _bits(_interp(float(x), xp, fp)) == _bits(np.interp(x, xp, fp)), (x, xp)
