"""A street tree bounded by weight reads the lowest-weight paths of the unbounded tree.

``street_tree(..., cut="weight")`` stops its search at the weight no path within the
time limit exceeds and labels an edge it entered within that bound but did not finish
from the edge's searched predecessors.  Its readings must be the unbounded search's,
bit for bit, wherever it reads a path, and it must read every point whose lowest-weight
path is within the limit.  tiny/herrenberg-vvs has turn restrictions, barriers and
one-way streets (the predecessors' turn costs and bans).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from otpa.routing.engine import snap_many
from otpa.routing.street_router import Snap, StreetOptions, snap_point
from otpa.routing.street_tree import street_tree, tree_times
from tests.conftest import require_data
from tests.fixtures.networks import built_network

OPTIONS = {
    "WALK": StreetOptions(mode="WALK", speed_mps=1.33, reluctance=2.0),
    "BICYCLE": StreetOptions(mode="BICYCLE", speed_mps=5.0, reluctance=2.0),
    "CAR": StreetOptions(mode="CAR", speed_mps=40.0, reluctance=2.0),
}


@pytest.mark.parametrize("mode", sorted(OPTIONS))
def test_weight_cut_reads_the_unbounded_trees_paths(mode: str) -> None:
    root = require_data("tiny", "herrenberg-vvs").parents[1]
    net = built_network(root, "tiny/herrenberg-vvs")
    graph = net.street
    assert graph is not None
    options = OPTIONS[mode]
    rng = np.random.default_rng(5)
    near = rng.choice(graph.n_vertices, 300)
    lat = graph.vertex_lat[near] + rng.normal(0.0, 0.0005, 300)
    lon = graph.vertex_lon[near] + rng.normal(0.0, 0.0007, 300)
    snaps = snap_many(graph, lat, lon, mode, 1000.0)
    origins: list[Snap | int] = [int(v) for v in rng.choice(graph.n_vertices, 4)]
    for k in rng.choice(300, 8, replace=False):
        s = snap_point(net, float(lat[k]), float(lon[k]), mode=mode, max_distance_m=1000.0)
        if s is not None:
            origins.append(s)
    within = entered = 0
    for limit in (60.0, 300.0, 900.0):
        for origin in origins:
            tree = street_tree(net, origin, options, max_time_s=limit, cut="weight")
            got = tree_times(tree, snaps)
            want = tree_times(street_tree(net, origin, options, max_time_s=math.inf), snaps)
            read = np.isfinite(got.weight)
            for name in ("time_s", "weight", "distance_m"):
                a, b = getattr(got, name)[read], getattr(want, name)[read]
                assert a.tobytes() == b.tobytes(), (limit, origin, name)
            assert read[want.time_s <= limit].all(), (limit, origin)
            within += int((want.time_s <= limit).sum())
            # points read off an edge the bounded search entered but did not label
            edge = np.asarray(snaps.edge)
            entered += int((read & (edge >= 0) & ~np.isfinite(tree.weight[edge])).sum())
    assert within > 500
    assert entered > 0


@pytest.mark.parametrize("mode", sorted(OPTIONS))
def test_entered_edges_skip_only_start_vertices_nothing_reached(mode: str) -> None:
    """``_entered_points`` skips an unlabelled edge whose start vertex has no weight (no
    labelled edge leads there): the labels equal those of the loop over every edge."""
    from otpa.routing.street_tree import _entered_points

    root = require_data("tiny", "herrenberg-vvs").parents[1]
    net = built_network(root, "tiny/herrenberg-vvs")
    graph = net.street
    assert graph is not None
    rng = np.random.default_rng(11)
    # every edge of the graph, both ways, as the points' edges
    p_edge = np.arange(graph.n_edges, dtype=np.int32)
    origins: list[Snap | int] = [int(v) for v in rng.choice(graph.n_vertices, 6)]
    for k in rng.choice(graph.n_vertices, 6, replace=False):
        s = snap_point(
            net, float(graph.vertex_lat[k]) + 0.0003, float(graph.vertex_lon[k]),
            mode=mode, max_distance_m=1000.0,
        )  # fmt: skip
        if s is not None:
            origins.append(s)
    skipped = entered = 0
    for limit in (60.0, 300.0, 900.0):
        for origin in origins:
            tree = street_tree(net, origin, OPTIONS[mode], max_time_s=limit, cut="weight")
            b = tree.bounded
            assert b is not None
            s = b.inputs

            def run(v_w: np.ndarray, tree=tree, b=b, s=s) -> np.ndarray:  # type: ignore[no-untyped-def]
                return _entered_points(
                    tree.weight, tree.time_s, tree.distance_m, tree.edge_weight,
                    tree.edge_time_ceil_s, tree.edge_length_m, tree.edge_reverse,
                    tree.edge_from, v_w, p_edge, s.in_indptr, s.in_edges, s.ban_bit,
                    s.ban_indptr, s.ban_to, s.ban_modes, s.use_bans, s.blocked,
                    s.free_flowing, s.in_deg, s.out_deg, s.car_speed, s.turn_speed,
                    s.driving, s.drive_on_right, s.turn_costs, b.seed_edge, b.seed_weight,
                    b.seed_time_s, b.seed_distance_m,
                )  # fmt: skip

            got = run(tree.vertex_weight)
            want = run(np.zeros_like(tree.vertex_weight))  # zeros: nothing skipped
            assert got.tobytes() == want.tobytes(), (limit, origin)
            unlabelled = np.isfinite(tree.edge_weight) & ~np.isfinite(tree.weight)
            no_start = ~np.isfinite(tree.vertex_weight[tree.edge_from])
            skipped += int((unlabelled & no_start).sum())
            entered += int(np.isfinite(want[:, 0, 0]).sum())
    assert skipped > 0
    assert entered > 0
