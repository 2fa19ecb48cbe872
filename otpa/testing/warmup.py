"""Compile the numba kernels ahead of time, into numba's on-disk cache.

Every kernel is compiled with ``cache=True``: the first process that calls it with a
given argument signature compiles it (seconds to tens of seconds each) and writes the
machine code next to the source; later processes load it.  :func:`warm_kernels` calls
the kernels a session normally meets — the network build, street plans for each mode,
transit plans in both directions, a travel-time surface with and without a departure
window, a matrix, isochrones and accessibility — on the generated demo city, so a
container image (``python -m otpa.testing.warmup`` in its build step) or a test run
(started in the background, see ``tests/fixtures/early_jobs.py``) does not pay the
compile time in its first requests.
"""

from __future__ import annotations

import datetime as dt
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from otpa.testing.demo import write_demo_city

__all__ = ["warm_kernels"]

#: Two places in the demo city a bus connects (also used by the kernel bounds test).
_ORIGIN = (53.299166, 4.2006564)
_DESTINATION = (53.3066659, 4.2110954)
_DEPARTURE = dt.datetime(2026, 3, 4, 8, 0)
_PLAN_MODES = ("WALK", "BICYCLE", "CAR", "WALK,TRANSIT", "BICYCLE,TRANSIT")


def warm_kernels(folder: Path | None = None) -> dict[str, int]:
    """Build the demo city and run each kind of search once, compiling the kernels.

    Parameters
    ----------
    folder
        Where to write the demo city and its saved graph; a temporary folder (removed
        afterwards) when ``None``.

    Returns
    -------
    dict of str to int
        What the searches found (``itineraries``, ``cells`` reached by the surfaces,
        ``pairs`` of the matrix, ``isochrones``): each above zero when all went well.
    """
    if folder is None:
        with tempfile.TemporaryDirectory(prefix="otpa-warmup-") as tmp:
            return warm_kernels(Path(tmp))
    from otpa.analysis import (
        AnalysisRequest,
        PointSet,
        accessibility,
        compute_time_surface,
        travel_time_matrix,
    )
    from otpa.network import TransportNetwork, build_network
    from otpa.routing import Location, PlanRequest
    from otpa.routing.parse import parse_modes
    from otpa.routing.planner import plan

    city = write_demo_city(folder / "city")
    graph = folder / "demo.graph"
    build_network(city.directory).save(graph)
    network = TransportNetwork.load(graph)

    itineraries = 0
    for modes in _PLAN_MODES:
        for arrive_by in (False, True):
            request = PlanRequest(
                Location(*_ORIGIN),
                Location(*_DESTINATION),
                _DEPARTURE,
                arrive_by=arrive_by,
                modes=parse_modes(modes),
            )
            itineraries += len(plan(network, request).itineraries)

    cells = 0
    surface = compute_time_surface(network, _ORIGIN, _DEPARTURE)
    cells += int(np.isfinite(surface["travel_time"].values).sum())
    windowed = AnalysisRequest(departure=_DEPARTURE, window_s=1800, step_s=60)
    surface = compute_time_surface(network, _ORIGIN, request=windowed)
    cells += int(np.isfinite(surface["travel_time"].values).sum())
    shapes = surface.otpa.isochrones([600, 1200])

    lat = np.linspace(_ORIGIN[0], _DESTINATION[0], 4)
    lon = np.linspace(_ORIGIN[1], _DESTINATION[1], 4)
    points = PointSet.from_frame(pd.DataFrame({"lat": lat, "lon": lon, "jobs": np.arange(4.0)}))
    matrix = travel_time_matrix(network, points, departure=_DEPARTURE)
    reached = accessibility(matrix, points, cutoffs=[1800])
    return {
        "itineraries": itineraries,
        "cells": cells,
        "pairs": int(np.isfinite(matrix.values).sum()),
        "isochrones": len(shapes),
        "accessible": int(np.isfinite(reached.values).sum()),
    }


def main() -> None:
    """``python -m otpa.testing.warmup [FOLDER]``: print what the searches found."""
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else None
    counts = warm_kernels(folder)
    print("OK " + " ".join(f"{key}={value}" for key, value in counts.items()), flush=True)


if __name__ == "__main__":
    main()
