"""The numba kernels are memory-safe for any value a request object can hold.

``_kernel_extremes.py`` runs RAPTOR (both criteria, both directions, range RAPTOR), the
planner (street searches, access/egress, transit, itineraries) and a travel-time surface
(propagation) with every cost, factor, speed, slack and limit at the end of its valid
range, in a subprocess with ``NUMBA_BOUNDSCHECK=1`` and an empty numba cache, so each
kernel is compiled with bounds checks and an out-of-range index raises instead of
corrupting memory (issue 10: ``walkReluctance=1e19`` crashed the process).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from otpa.network import build_network
from otpa.testing.demo import write_demo_city


def test_kernels_with_extreme_values_under_boundscheck(tmp_path: Path) -> None:
    city = write_demo_city(tmp_path / "city")
    graph = tmp_path / "demo.graph"
    build_network(city.directory).save(graph)
    env = {
        **os.environ,
        "NUMBA_BOUNDSCHECK": "1",
        "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache"),  # compiled afresh, with the checks
    }
    script = Path(__file__).with_name("_kernel_extremes.py")
    done = subprocess.run(
        [sys.executable, str(script), str(graph)],
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    summary = done.stdout.strip().splitlines()[-1]
    assert summary.startswith("OK "), done.stdout
    counts = dict(part.split("=") for part in summary.split()[1:])
    assert int(counts["journeys"]) > 0  # the searches found journeys despite the extremes
    assert int(counts["itineraries"]) > 0
    assert int(counts["cells"]) > 0
