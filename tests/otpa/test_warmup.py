"""``otpa.testing.warmup`` compiles the kernels by running each kind of search once.

The run starts in the background right after collection (``tests/fixtures/early_jobs.py``)
and writes numba's cache that the tests after it load; this test checks it came back with
results from every kind of search.
"""

from __future__ import annotations

import pytest

from tests.fixtures.early_jobs import EARLY_JOBS


@pytest.mark.early_job("warm_kernels")
def test_warmup_runs_every_kind_of_search() -> None:
    done = EARLY_JOBS.result("warm_kernels")
    assert done.returncode == 0, done.stderr[-4000:]
    summary = done.stdout.strip().splitlines()[-1]
    assert summary.startswith("OK "), done.stdout
    counts = {key: int(value) for key, value in (p.split("=") for p in summary.split()[1:])}
    assert set(counts) == {"itineraries", "cells", "pairs", "isochrones", "accessible"}
    # 5 mode sets x 2 directions, each with at least one itinerary
    assert counts["itineraries"] >= 10
    assert counts["pairs"] == 16  # 4 points on the demo city's streets reach each other
    assert counts["isochrones"] == 2
    assert counts["cells"] > 0
