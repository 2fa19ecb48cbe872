"""Run the numba kernels with extreme but valid inputs (run by ``test_kernel_bounds.py``).

Started in a subprocess with ``NUMBA_BOUNDSCHECK=1`` and an empty ``NUMBA_CACHE_DIR``, so
every kernel is compiled with bounds checks: an out-of-range index raises ``IndexError``
instead of reading or writing memory it does not own.  Argument: a saved network (the
demo city; a folder is filled with the demo city and its saved network first, built in a
child process without the checks).  Prints ``OK`` and a summary when every search came back.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from numba.core import config

from otpa.analysis import AnalysisRequest, compute_time_surface
from otpa.network import TransportNetwork
from otpa.routing import Location, PlanRequest
from otpa.routing.parse import parse_modes
from otpa.routing.planner import plan
from otpa.routing.preferences import (
    MAX_COST,
    MAX_FACTOR,
    MAX_SLACK_S,
    MAX_TRANSFERS,
    PARAMETER_RANGES,
    BikePreferences,
    TransitPreferences,
    WalkPreferences,
)
from otpa.testing.timetable import parse_timetable
from otpa.transit.raptor import api as raptor

TIMETABLE = """
R1 A 00:00 B 00:10 C 00:20
R1 A 00:05 B 00:15 C 00:25
R2 B 00:12 D 00:30
R3 C 00:21 D 00:26
R4 D 00:40 A 01:00
"""


def raptor_extremes() -> int:
    """Every RAPTOR entry point with costs, factors, times and rounds at their maxima."""
    tt = parse_timetable(TIMETABLE)
    a, b, c, d = (tt.stop(s) for s in "ABCD")
    n = tt.timetable.n_stops
    big_t, big_c = raptor.MAX_DURATION_S, raptor.MAX_COST
    offsets = np.zeros(n + 1, np.int64)
    offsets[b + 1 :] += 1  # one transfer B -> C
    offsets[c + 1 :] += 1  # one transfer C -> B
    found = 0
    for criteria in ("arrival", "cost"):
        for arrive_by in (False, True):
            req = raptor.RaptorRequest(
                access_stops=[d, a, a] if arrive_by else [a, a, b],
                access_time_s=[0, big_t, 0],
                access_cost=[big_c, 0.0, big_c],
                egress_stops=[a, d, c],
                egress_time_s=[big_t, 0, 60],
                egress_cost=[0.0, big_c, big_c],
                time=3600 if arrive_by else 0,
                arrive_by=arrive_by,
                max_rounds=raptor.MAX_ROUNDS,
                search_window_s=big_t,
                board_slack_s=big_t if criteria == "cost" else 0,
                alight_slack_s=0,
                transfer_slack_s=big_t,
                transfer_offsets=offsets,
                transfer_to=[c, b],
                transfer_time_s=[big_t, 0],
                transfer_cost=[big_c, big_c],
                board_cost=big_c,
                transfer_penalty=big_c,
                nonpreferred_transfer_penalty=big_c,
                wait_reluctance=raptor.MAX_FACTOR,
                wait_at_beginning_factor=raptor.MAX_FACTOR,
                route_penalty=np.full(tt.timetable.n_routes, big_c),
                criteria=criteria,  # type: ignore[arg-type]
            )
            journeys = raptor.route(tt.timetable, req)
            assert all(np.isfinite(j.cost) and j.cost >= 0 for j in journeys), journeys
            found += len(journeys)
            if not arrive_by:
                times = raptor.earliest_arrivals(tt.timetable, req)
                assert times.shape == (n,)
    forward = raptor.RaptorRequest(
        access_stops=[a, b], access_time_s=[0, big_t], access_cost=[0.0, big_c],
        egress_stops=[d], egress_time_s=[0], egress_cost=[0.0], time=0,
        max_rounds=raptor.MAX_ROUNDS, search_window_s=big_t,
    )  # fmt: skip
    grid = raptor.range_raptor(tt.timetable, forward, np.arange(0, 3600, 60, dtype=np.int64))
    assert grid.shape == (60, n)
    return found


def planner_extremes(network: TransportNetwork) -> int:
    """Plans on the demo city with every preference at the ends of its range."""
    day = dt.datetime(2026, 3, 4, 8, 0)
    origin, destination = Location(53.299166, 4.2006564), Location(53.3066659, 4.2110954)
    itineraries = 0
    for speed, reluctance in ((PARAMETER_RANGES["walkSpeed"][0], MAX_FACTOR), (10.0, 0.0)):
        walk = WalkPreferences(speed_mps=speed, reluctance=reluctance, board_cost=MAX_COST,
                               max_distance_m=1e300, stairs_reluctance=MAX_FACTOR)  # fmt: skip
        transit = TransitPreferences(
            max_transfers=MAX_TRANSFERS,
            min_transfer_time_s=MAX_SLACK_S,
            board_slack_s=MAX_SLACK_S // 2,
            alight_slack_s=MAX_SLACK_S // 2,
            transfer_penalty=MAX_COST,
            nonpreferred_transfer_penalty=MAX_COST,
            wait_reluctance=MAX_FACTOR,
            wait_at_beginning_factor=MAX_FACTOR,
            other_than_preferred_routes_penalty=MAX_COST,
            unpreferred_routes_penalty=MAX_COST,
        )
        bike = BikePreferences(speed_mps=PARAMETER_RANGES["bikeSpeed"][1], board_cost=MAX_COST,
                               switch_time_s=MAX_SLACK_S, switch_cost=MAX_COST,
                               reluctance=MAX_FACTOR)  # fmt: skip
        for modes in ("WALK,TRANSIT", "BICYCLE,TRANSIT", "WALK", "CAR"):
            for arrive_by in (False, True):
                request = PlanRequest(
                    origin, destination, day, arrive_by=arrive_by, modes=parse_modes(modes),
                    walk=walk, transit=transit, bike=bike,
                )  # fmt: skip
                itineraries += len(plan(network, request).itineraries)
    return itineraries


def analysis_extremes(network: TransportNetwork) -> int:
    """A travel-time surface with the most rides and the longest street times allowed."""
    request = AnalysisRequest(
        departure=dt.datetime(2026, 3, 4, 8, 0),
        modes="WALK,TRANSIT",
        window_s=600,
        step_s=60,
        max_time_s=24 * 3600,
        walk_speed_mps=PARAMETER_RANGES["walkSpeed"][0],
        max_walk_time_s=24 * 3600,
        max_bike_time_s=24 * 3600,
        max_rides=MAX_TRANSFERS + 1,
        board_slack_s=MAX_SLACK_S,
    )
    surface = compute_time_surface(network, (53.299166, 4.2006564), request=request)
    return int(np.isfinite(surface["travel_time"].values).sum())


_BUILD_DEMO = """
import sys
from pathlib import Path
from otpa.network import build_network
from otpa.testing.demo import write_demo_city
folder = Path(sys.argv[1])
build_network(write_demo_city(folder / "city").directory).save(folder / "demo.graph")
"""


def _saved_network(path: Path) -> Path:
    """``path`` if it is a saved network, else the demo city's, built into the folder."""
    if path.is_file():
        return path
    path.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_BOUNDSCHECK", "NUMBA_CACHE_DIR")}
    subprocess.run([sys.executable, "-c", _BUILD_DEMO, str(path)], env=env, check=True)
    return path / "demo.graph"


def main() -> None:
    """Run everything; any IndexError from a bounds check fails the run."""
    assert config.BOUNDSCHECK, "run with NUMBA_BOUNDSCHECK=1"
    network = TransportNetwork.load(_saved_network(Path(sys.argv[1])))
    journeys = raptor_extremes()
    itineraries = planner_extremes(network)
    cells = analysis_extremes(network)
    print(f"OK journeys={journeys} itineraries={itineraries} cells={cells}", flush=True)


if __name__ == "__main__":
    main()
