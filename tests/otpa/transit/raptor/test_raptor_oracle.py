"""RAPTOR against an independent time-dependent Dijkstra on real feeds.

For random (origin, destination, time) triples, the oracle of ``_raptor_net``
(built from the transit model, not from the RAPTOR timetable) must give the
same earliest arrival at every stop as :func:`earliest_arrivals`, the same
earliest arrival at the destination as the first journey of :func:`route` in
both criteria, and arrive-by searches must find the latest departure that
still arrives in time.
"""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from _raptor_net import (
    Oracle,
    check_legs,
    point_request,
    service_date_with_trips,
    walk_transfers,
)

from otpa.network import TransportNetwork
from otpa.transit.raptor.api import RaptorRequest, earliest_arrivals, route
from otpa.transit.raptor.spi import RaptorTimetable
from otpa.transit.raptor_data import raptor_timetable
from tests.conftest import DATA_ROOT
from tests.fixtures.networks import built_network

MMRI = sorted(p.name for p in (DATA_ROOT / "tiny" / "mmri").glob("*") if p.is_dir()) or ["1a"]
CASES = [(f"tiny/mmri/{name}", 8) for name in MMRI] + [
    ("tiny/atlanta", 50),
    ("tiny/beatty", 50),
    ("tiny/transit-only", 25),
]
MAX_RIDES = 4


@cache
def _setup(root: Path, name: str) -> tuple[TransportNetwork, RaptorTimetable, Oracle, dict]:
    net = built_network(root, name)
    m = net.transit
    date = service_date_with_trips(m)
    tz = m.timezones[0]
    walks = walk_transfers(net)
    return net, raptor_timetable(m, date, tz), Oracle.build(net, date, tz, walks), walks


def _request(origin: int, dest: int, time: int, walks: dict, **kw: object) -> RaptorRequest:
    return point_request({origin: 0}, {dest: 0}, time, max_rounds=MAX_RIDES, **walks, **kw)


@pytest.mark.parametrize(("name", "n_queries"), CASES)
def test_matches_the_oracle(data_root: Path, name: str, n_queries: int) -> None:
    _, tt, oracle, walks = _setup(data_root, name)
    served = np.flatnonzero(np.diff(tt.stop_route_offsets) > 0)
    if len(served) < 2:
        pytest.skip("no transit on the chosen day")
    rng = random.Random(name)
    for _ in range(n_queries):
        origin, dest = (int(s) for s in rng.sample(list(served), 2))
        time = 0 if "mmri" in name else rng.randint(4 * 3600, 22 * 3600)
        any_arrival, ride_arrival = oracle.search(origin, time, max_rides=MAX_RIDES)
        req = _request(origin, dest, time, walks)
        np.testing.assert_array_equal(earliest_arrivals(tt, req), any_arrival)
        fastest = route(tt, req)
        best = fastest[0].arrival if fastest else np.inf
        for j in fastest:
            check_legs(tt, j)
        assert best == ride_arrival[dest]
        cheapest = route(tt, _request(origin, dest, time, walks, criteria="cost"))
        assert min((j.arrival for j in cheapest), default=np.inf) == best
        for j in cheapest:
            check_legs(tt, j)
        if not fastest:
            continue
        # arrive by that time: the latest departure still makes it, one second later does not
        backwards = route(tt, _request(origin, dest, int(best), walks, arrive_by=True))
        backwards += route(
            tt, _request(origin, dest, int(best), walks, arrive_by=True, criteria="cost")
        )
        for j in backwards:
            check_legs(tt, j)
            assert j.arrival <= best
        latest = backwards[0]
        assert latest.departure >= time
        assert oracle.search(origin, latest.departure, max_rides=MAX_RIDES)[1][dest] <= best
        later = oracle.search(origin, latest.departure + 1, max_rides=MAX_RIDES)[1][dest]
        assert later > best
