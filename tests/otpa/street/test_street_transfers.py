"""Stop-to-stop walking transfers."""

from __future__ import annotations

import numpy as np
from _builders import Seg, grid_osm, junction_osm, make_osm, to_latlon

from otpa.osm.model import CAR
from otpa.street import build_street_graph, one_to_many, walk_transfers


def _brute_force(g, stops, max_d):  # type: ignore[no-untyped-def]
    out = {}
    for i, v in enumerate(stops):
        if v < 0:
            continue
        d = one_to_many(
            g, [v], edge_cost_s=np.where(g.edge_perm & 1, g.edge_length_m, np.inf)
        ).cost_s
        for j, w in enumerate(stops):
            if j != i and w >= 0 and d[w] <= max_d:
                out[(i, j)] = d[w]
    return out


def test_matches_brute_force() -> None:
    g = build_street_graph(grid_osm(12, 12, 80.0))
    rng = np.random.default_rng(1)
    lat, lon = to_latlon(rng.uniform(0, 880, 40), rng.uniform(0, 880, 40))
    g2, stops, _ = g.link_points(lat, lon)
    stops = np.concatenate([stops, [stops[0], -1, 5]])  # a shared vertex and an unlinked stop
    res = walk_transfers(g2, stops, max_distance_m=400.0, speed_mps=1.25)
    expected = _brute_force(g2, stops, 400.0)
    got = {
        (int(a), int(b)): float(d)
        for a, b, d in zip(res.from_stop, res.to_stop, res.distance_m, strict=True)
    }
    assert got.keys() == expected.keys()
    for k, d in expected.items():
        np.testing.assert_allclose(got[k], d, rtol=1e-12)
    np.testing.assert_allclose(res.time_s, res.distance_m / 1.25)
    assert got[(0, len(stops) - 3)] == 0.0
    order = np.lexsort((res.to_stop, res.from_stop))
    assert np.array_equal(order, np.arange(order.size))
    assert res.from_stop.dtype == np.int32


def test_walk_permissions_and_barriers() -> None:
    # 0 - 1 car only; 1 - 2 walkable with a barrier for walkers at 2 - 3
    osm = make_osm(
        [(0, 0), (100, 0), (200, 0), (300, 0)],
        [Seg(0, 1, fwd=int(CAR), back=int(CAR)), Seg(1, 2), Seg(2, 3)],
        barriers={2: 1},
    )
    g = build_street_graph(osm, prune_islands=False)
    res = walk_transfers(g, [0, 1, 2, 3])
    pairs = set(zip(res.from_stop.tolist(), res.to_stop.tolist(), strict=True))
    assert pairs == {(1, 2), (2, 1), (2, 3), (3, 2)}


def test_empty_and_walk_bans() -> None:
    g = build_street_graph(junction_osm("no_left_turn", 2), prune_islands=False)
    res = walk_transfers(g, [-1, -1])
    assert res.from_stop.size == 0
    res = walk_transfers(g, [0, 2])
    assert res.from_stop.size == 2
