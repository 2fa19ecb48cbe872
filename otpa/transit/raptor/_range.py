"""Range RAPTOR: earliest arrivals for many departure times, latest first, reusing labels.

A journey that departs at ``t2`` can also be made by someone ready at ``t1 < t2``
(they wait at the origin), so the labels of a later departure are upper bounds
for an earlier one.  The round kernel keeps per-round labels (at most ``k``
rides) and rescans only what improves, which makes every row of the result
equal to a fresh search from that departure time, provided the boarding window
is the same: it is anchored at the latest departure (see
:func:`otpa.transit.raptor.api.range_raptor`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from otpa.transit.raptor._query import INF, SearchQuery
from otpa.transit.raptor._round_kernel import RoundLabels, run_rounds
from otpa.transit.raptor.spi import RaptorTimetable
from otpa.types import FloatArray, Int32Array, IntArray

__all__ = ["range_rounds"]


@njit(cache=True, nogil=True)  # type: ignore[misc]
def range_rounds(
    tt: RaptorTimetable,
    q: SearchQuery,
    lab: RoundLabels,
    ridden: Int32Array,
    times: IntArray,
    out: FloatArray,
    ride: bool,
) -> None:
    """Fill ``out[i]`` with the earliest arrivals from departure ``times[i]``.

    ``times`` must be sorted in decreasing order; ``lab`` must start unreached and
    ``ridden`` (:func:`~._round_kernel.new_ridden`) fresh.  With
    ``ride`` the arrivals are those whose last leg is a ride (where egress may start).
    The loop over departures is compiled too: a call from Python unboxes the named
    tuples of arrays, which costs about as much as a search of a later departure.
    """
    last = q.max_rounds
    labels = lab.r_time if ride else lab.o_time
    n = labels.shape[1]
    for i in range(times.shape[0]):
        run_rounds(tt, q, lab, times[i], False, ridden)
        for s in range(n):
            v = labels[last, s]
            out[i, s] = np.inf if v >= INF else np.float64(v)
