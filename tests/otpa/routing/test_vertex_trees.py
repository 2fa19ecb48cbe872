"""Many vertex trees in one loop read exactly what one ``street_tree`` per vertex reads.

tiny/herrenberg-vvs has turn restrictions, barriers and one-way streets: the reused
label buffers must be reset completely between vertices for the readings to match.
"""

from __future__ import annotations

import numpy as np
import pytest

from otpa.routing.engine import SnapArrays, snap_many
from otpa.routing.street_router import StreetOptions
from otpa.routing.street_tree import street_tree, tree_times
from otpa.routing.vertex_trees import vertex_tree_readings
from tests.conftest import require_data
from tests.fixtures.networks import built_network

OPTIONS = {
    "WALK": StreetOptions(mode="WALK", speed_mps=1.33, reluctance=2.0),
    "BICYCLE": StreetOptions(mode="BICYCLE", speed_mps=5.0, reluctance=2.0),
    "CAR": StreetOptions(mode="CAR", speed_mps=40.0, reluctance=2.0),
}


@pytest.mark.parametrize("mode", sorted(OPTIONS))
def test_readings_equal_one_tree_per_vertex(mode: str) -> None:
    root = require_data("tiny", "herrenberg-vvs").parents[1]
    net = built_network(root, "tiny/herrenberg-vvs")
    graph = net.street
    assert graph is not None
    options = OPTIONS[mode]
    rng = np.random.default_rng(3)
    vertices = np.sort(rng.choice(graph.n_vertices, 25, replace=False))
    # 12 points within ~300 m of each vertex
    lat = np.repeat(graph.vertex_lat[vertices], 12) + rng.uniform(-0.003, 0.003, 300)
    lon = np.repeat(graph.vertex_lon[vertices], 12) + rng.uniform(-0.004, 0.004, 300)
    snaps = snap_many(graph, lat, lon, mode, 1000.0)
    # each vertex reads its own points and a random subset of the others (some none)
    picks = [
        np.concatenate((np.arange(12 * i, 12 * i + 12)[: int(rng.integers(0, 13))],
                        rng.choice(300, int(rng.integers(0, 20)), replace=False)))
        for i in range(vertices.size)
    ]  # fmt: skip
    indptr = np.concatenate(([0], np.cumsum([p.size for p in picks]))).astype(np.int64)
    rows = np.concatenate(picks).astype(np.int64)
    got = vertex_tree_readings(
        net, vertices, options, max_time_s=900.0, point_indptr=indptr,
        point_edge=snaps.edge[rows], point_fraction=snaps.fraction[rows], workers=2,
    )  # fmt: skip
    reached = 0
    for i, v in enumerate(vertices):
        p = picks[i]
        tree = street_tree(net, int(v), options, max_time_s=900.0)
        want = tree_times(tree, SnapArrays(*(np.asarray(a)[p] for a in snaps)))
        sl = slice(int(indptr[i]), int(indptr[i + 1]))
        for name in ("time_s", "weight", "distance_m"):
            assert getattr(got, name)[sl].tobytes() == getattr(want, name).tobytes(), (v, name)
        reached += int(np.isfinite(want.time_s).sum())
    assert reached > 50  # the comparison covers reached points, not only inf
