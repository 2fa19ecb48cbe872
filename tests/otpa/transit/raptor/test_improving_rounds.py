"""FEATURE UNDER TEST: the arrival search's journeys, one per round that arrives earlier.

``improving_rounds`` (compiled) gives the rows the plain loop over rounds gives: per
round the first egress entry with the least arrival, kept when earlier than every
round before; ties, unreached stops and no egress at all included.
"""

from __future__ import annotations

import numpy as np

from otpa.transit.raptor._query import INF
from otpa.transit.raptor._round_kernel import improving_rounds


def _plain(
    r_time: np.ndarray, egress_stops: np.ndarray, egress_time: np.ndarray, n_rounds: int
) -> list[tuple[int, int, int]]:
    found: list[tuple[int, int, int]] = []
    if len(egress_stops) == 0:
        return found
    best = INF
    for k in range(1, n_rounds + 1):
        at_egress = r_time[k, egress_stops] + egress_time
        i = int(np.argmin(at_egress))
        if at_egress[i] < best:
            best = int(at_egress[i])
            found.append((k, i, best))
    return found


def test_rows_equal_the_plain_loop() -> None:
    rng = np.random.default_rng(3)
    checked = with_ties = 0
    for _ in range(400):
        n_stops, n_rounds = int(rng.integers(1, 12)), int(rng.integers(1, 6))
        r_time = rng.integers(0, 40, size=(n_rounds + 1, n_stops)).astype(np.int64)
        r_time[rng.random(r_time.shape) < 0.3] = INF
        n_e = int(rng.integers(0, 6))
        egress_stops = rng.integers(0, n_stops, size=n_e).astype(np.int32)
        egress_time = rng.integers(0, 5, size=n_e).astype(np.int32)
        got = improving_rounds(r_time, egress_stops, egress_time, n_rounds)
        expected = _plain(r_time, egress_stops, egress_time, n_rounds)
        assert [tuple(int(x) for x in row) for row in got] == expected
        checked += len(expected)
        for k in range(1, n_rounds + 1):
            at = r_time[k, egress_stops] + egress_time
            with_ties += n_e > 1 and int((at == at.min()).sum()) > 1
    assert checked > 300
    assert with_ties > 50
