"""The numba kernels are memory-safe for any value a request object can hold.

``_kernel_extremes.py`` runs RAPTOR (both criteria, both directions, range RAPTOR), the
planner (street searches, access/egress, transit, itineraries) and a travel-time surface
(propagation) with every cost, factor, speed, slack and limit at the end of its valid
range, in a subprocess with ``NUMBA_BOUNDSCHECK=1`` and an empty numba cache (started when the
session starts, see ``tests/fixtures/early_jobs.py``), so each
kernel is compiled with bounds checks and an out-of-range index raises instead of
corrupting memory (issue 10: ``walkReluctance=1e19`` crashed the process).
"""

from __future__ import annotations

import pytest

from tests.fixtures.early_jobs import EARLY_JOBS


@pytest.mark.early_job("kernel_bounds")
def test_kernels_with_extreme_values_under_boundscheck() -> None:
    # the subprocess (tests/fixtures/early_jobs.py) starts right after collection
    done = EARLY_JOBS.result("kernel_bounds")
    assert done.returncode == 0, done.stderr[-4000:]
    summary = done.stdout.strip().splitlines()[-1]
    assert summary.startswith("OK "), done.stdout
    counts = dict(part.split("=") for part in summary.split()[1:])
    assert int(counts["journeys"]) > 0  # the searches found journeys despite the extremes
    assert int(counts["itineraries"]) > 0
    assert int(counts["cells"]) > 0
