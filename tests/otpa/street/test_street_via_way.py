"""Via-way turn restrictions: copies of the via-way segments, checked with the street router.

FEATURE UNDER TEST: a ``type=restriction`` relation whose ``via`` is one or more ways
forbids (``no_*``) or prescribes (``only_*``) the exit onto the ``to`` way only for
traffic that came from the ``from`` way along the via ways.  Synthetic OSM XML grids
(100 m blocks, coordinates in metres) give hand-computed car distances.
"""

from __future__ import annotations

import heapq
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from otpa.network import TransportNetwork, build_network
from otpa.osm.model import CAR, FLAG_RESTRICTION_COPY, WALK, TurnRestriction
from otpa.routing.street_router import (
    StreetOptions,
    StreetPath,
    snap_point,
    street_path,
    walk_steps,
)
from otpa.street import StreetGraph, build_street_graph, one_to_many
from tests.otpa.osm._osm_xml import OsmXml, xy
from tests.otpa.street._builders import Seg, make_osm, restriction

CAR_OPTS = StreetOptions(mode="CAR", speed_mps=40.0, reluctance=2.0)
FREE_CAR_OPTS = StreetOptions(mode="CAR", speed_mps=40.0, reluctance=2.0, turn_restrictions=False)
BIKE_OPTS = StreetOptions(mode="BICYCLE", speed_mps=5.0, reluctance=2.0)
WALK_OPTS = StreetOptions(mode="WALK", speed_mps=1.33, reluctance=2.0)

# Junction grid (x east, y north, metres):
#
#   W(0,0) -- a(100,0) -- m(150,0) -- b(200,0) -- e(300,0)
#                |           |           |            |
#             s(100,-100) q(150,-100)  t(200,100) -- f(300,100)
#
# F = s-a "South St", via V1 = a-m and V2 = m-b "Main St", T = b-t "North St";
# b-e "East St", e-f, f-t "Ring"; W-a "West St"; m-q "Side St".
S, A, M, B, T, E, F, W, Q = 1, 2, 3, 4, 5, 6, 7, 8, 9
WAY_F, WAY_V1, WAY_V2, WAY_T, WAY_BE = 10, 11, 12, 13, 14


def _junction(tmp_path: Path, restriction: str | None, to_way: int, **tags: str) -> Path:
    osm = OsmXml()
    for nid, (x, y) in {
        S: (100, -100), A: (100, 0), M: (150, 0), B: (200, 0), T: (200, 100),
        E: (300, 0), F: (300, 100), W: (0, 0), Q: (150, -100),
    }.items():  # fmt: skip
        osm.node(nid, x, y)
    road = {"highway": "residential"}
    osm.way(WAY_F, [S, A], name="South St", **road)
    osm.way(WAY_V1, [A, M], name="Main St", **road)
    osm.way(WAY_V2, [M, B], name="Main St", **road)
    osm.way(WAY_T, [B, T], name="North St", **road)
    osm.way(WAY_BE, [B, E], name="East St", **road)
    osm.way(15, [E, F], name="Ring", **road)
    osm.way(16, [F, T], name="Ring", **road)
    osm.way(17, [W, A], name="West St", **road)
    osm.way(18, [M, Q], name="Side St", **road)
    if restriction is not None:
        # via members deliberately listed out of order
        members = [("way", WAY_F, "from"), ("way", WAY_V2, "via"), ("way", WAY_V1, "via")]
        osm.relation(
            100,
            [*members, ("way", to_way, "to")],
            type="restriction",
            restriction=restriction,
            **tags,
        )
    return osm.write(tmp_path / "junction.osm")


def _network(path: Path) -> TransportNetwork:
    return build_network(osm=[path])


def _graph(net: TransportNetwork) -> StreetGraph:
    assert net.street is not None
    return net.street


def _v(net: TransportNetwork, node: int) -> int:
    (hit,) = np.flatnonzero(_graph(net).vertex_osm_id == node)
    return int(hit)


def _path(net: TransportNetwork, a: int, b: int, opts: StreetOptions) -> StreetPath:
    p = street_path(net, _v(net, a), _v(net, b), opts)
    assert p is not None
    return p


def _ways(net: TransportNetwork, p: StreetPath) -> list[int]:
    """OSM ways of a path, consecutive repeats merged (copies count as their way)."""
    ways = _graph(net).seg_way_id[_graph(net).edge_segment[p.edges]].tolist()
    return [w for i, w in enumerate(ways) if i == 0 or w != ways[i - 1]]


def test_no_left_turn_via_two_ways(tmp_path: Path) -> None:
    net = _network(_junction(tmp_path, "no_left_turn", WAY_T))
    g = _graph(net)
    r = g.report
    assert (r.restrictions_resolved, r.restrictions_via_way, r.restrictions_unresolved) == (1, 1, 0)
    # one copy per chain edge (a->m, m->b), car and bicycle only, same geometry and name
    copies = np.flatnonzero(g.edge_flags & FLAG_RESTRICTION_COPY)
    assert r.restriction_copy_segments == copies.size == 2
    assert {(int(g.vertex_osm_id[g.edge_from[e]]), int(g.vertex_osm_id[g.edge_to[e]]))
            for e in copies} == {(A, M), (M, B)}  # fmt: skip
    assert set(g.edge_perm[copies].tolist()) == {int(CAR) | 2}
    assert g.n_vertices == 9  # no vertex is added

    # from South St the car may not turn left onto North St after Main St: round the block
    p = _path(net, S, T, CAR_OPTS)
    assert p.distance_m == pytest.approx(500.0, abs=0.05)
    assert _ways(net, p) == [WAY_F, WAY_V1, WAY_V2, WAY_BE, 15, 16]
    free = _path(net, S, T, FREE_CAR_OPTS)
    assert free.distance_m == pytest.approx(300.0, abs=0.05)
    assert _ways(net, free) == [WAY_F, WAY_V1, WAY_V2, WAY_T]
    assert _path(net, S, T, BIKE_OPTS).distance_m == pytest.approx(500.0, abs=0.05)
    assert _path(net, S, T, WALK_OPTS).distance_m == pytest.approx(300.0, abs=0.05)
    # traffic that did not come from South St turns freely
    assert _path(net, W, T, CAR_OPTS).distance_m == pytest.approx(300.0, abs=0.05)
    assert _path(net, Q, T, CAR_OPTS).distance_m == pytest.approx(250.0, abs=0.05)
    # the chain's vertices and the exits along it stay reachable from South St
    assert _path(net, S, M, CAR_OPTS).distance_m == pytest.approx(150.0, abs=0.05)
    assert _path(net, S, B, CAR_OPTS).distance_m == pytest.approx(200.0, abs=0.05)
    assert _path(net, S, Q, CAR_OPTS).distance_m == pytest.approx(250.0, abs=0.05)
    assert _path(net, S, E, CAR_OPTS).distance_m == pytest.approx(300.0, abs=0.05)


def test_no_left_turn_plain_kernel_and_reverse(tmp_path: Path) -> None:
    net = _network(_junction(tmp_path, "no_left_turn", WAY_T))
    g = _graph(net)
    speed = 11.2  # OTP's residential car speed
    cost = one_to_many(g, [_v(net, S)], mode=CAR).cost_s
    assert cost[_v(net, T)] == pytest.approx(500.0 / speed, rel=1e-4)
    assert cost[_v(net, M)] == pytest.approx(150.0 / speed, rel=1e-4)
    back = one_to_many(g, [_v(net, T)], mode=CAR, reverse=True).cost_s
    assert back[_v(net, S)] == pytest.approx(500.0 / speed, rel=1e-4)
    assert back[_v(net, W)] == pytest.approx(300.0 / speed, rel=1e-4)
    free = one_to_many(g, [_v(net, S)], mode=CAR, turn_restrictions=False).cost_s
    assert free[_v(net, T)] == pytest.approx(300.0 / speed, rel=1e-4)


def test_steps_and_snapping_ignore_copies(tmp_path: Path) -> None:
    net = _network(_junction(tmp_path, "no_left_turn", WAY_T))
    g = _graph(net)
    p = _path(net, S, Q, CAR_OPTS)
    assert any(g.edge_flags[e] & FLAG_RESTRICTION_COPY for e in p.edges)
    names = [s.street_name for s in walk_steps(net, p)]
    assert names == ["South St", "Main St", "Side St"]
    assert len(p.lat) == len(p.lon) == 4  # s, a, m, q: no doubled geometry
    # points along Main St snap to the original segment, for cars and walkers
    lat, lon = xy(125, 3)
    for mode in ("CAR", "WALK"):
        snapped = snap_point(net, lat, lon, mode=mode)
        assert snapped is not None
        assert not g.edge_flags[snapped.edge] & FLAG_RESTRICTION_COPY
        assert snapped.distance_m == pytest.approx(3.0, abs=0.05)
    # linking splits the original; the copy keeps its ends and the ban still holds
    linked = g.link_points(np.array([lat]), np.array([lon]), modes=int(CAR))
    assert linked.graph.n_vertices == g.n_vertices + 1
    assert linked.graph.n_segments == g.n_segments + 1
    cost = one_to_many(linked.graph, [_v(net, S)], mode=CAR).cost_s
    assert cost[_v(net, T)] == pytest.approx(500.0 / 11.2, rel=1e-4)


def test_only_straight_on_via_ways(tmp_path: Path) -> None:
    net = _network(_junction(tmp_path, "only_straight_on", WAY_BE))
    assert _graph(net).report.restrictions_via_way == 1
    # from South St along Main St, East St is the only way on at b
    assert _path(net, S, T, CAR_OPTS).distance_m == pytest.approx(500.0, abs=0.05)
    assert _path(net, S, E, CAR_OPTS).distance_m == pytest.approx(300.0, abs=0.05)
    assert _path(net, S, Q, CAR_OPTS).distance_m == pytest.approx(250.0, abs=0.05)
    assert _path(net, W, T, CAR_OPTS).distance_m == pytest.approx(300.0, abs=0.05)


def test_except_and_mode_keys(tmp_path: Path) -> None:
    net = _network(_junction(tmp_path, "no_left_turn", WAY_T, **{"except": "bicycle"}))
    assert _path(net, S, T, CAR_OPTS).distance_m == pytest.approx(500.0, abs=0.05)
    assert _path(net, S, T, BIKE_OPTS).distance_m == pytest.approx(300.0, abs=0.05)


def _dual_carriageway(tmp_path: Path) -> Path:
    """Two one-way carriageways 20 m apart joined by median connectors at x = 100, 200."""
    osm = OsmXml()
    for i, x in enumerate((0, 100, 200, 300)):
        osm.node(21 + i, x, 0)
        osm.node(28 - i, x, 20)
    road = {"highway": "primary", "oneway": "yes"}
    osm.way(31, [21, 22, 23, 24], name="Eastbound", **road)
    osm.way(32, [25, 26, 27, 28], name="Westbound", **road)
    osm.way(33, [22, 27], name="Crossover 1", **road)
    osm.way(34, [23, 26], name="Crossover 2", **road)
    osm.way(35, [24, 25], name="Crossover 3", **road)
    osm.relation(
        100,
        [("way", 31, "from"), ("way", 33, "via"), ("way", 32, "to")],
        type="restriction",
        restriction="no_u_turn",
    )
    return osm.write(tmp_path / "dual.osm")


def test_no_u_turn_across_the_median(tmp_path: Path) -> None:
    net = _network(_dual_carriageway(tmp_path))
    assert _graph(net).report.restrictions_via_way == 1
    # 21 -> 28 through the first crossover is a banned U-turn: use the second one
    p = _path(net, 21, 28, CAR_OPTS)
    assert p.distance_m == pytest.approx(420.0, abs=0.05)
    assert _ways(net, p) == [31, 34, 32]
    assert _path(net, 21, 28, FREE_CAR_OPTS).distance_m == pytest.approx(220.0, abs=0.05)
    # starting on the crossover's first vertex is not "coming from" the carriageway
    assert _path(net, 22, 28, CAR_OPTS).distance_m == pytest.approx(120.0, abs=0.05)
    # the crossover's end vertex is still reachable, and the carriageway beyond it
    assert _path(net, 21, 27, CAR_OPTS).distance_m == pytest.approx(120.0, abs=0.05)
    # walking is not restricted
    assert _path(net, 21, 28, WALK_OPTS).distance_m == pytest.approx(220.0, abs=0.05)


def test_restrictions_sharing_a_chain(tmp_path: Path) -> None:
    """Two via-way restrictions from the same way along the same via ways."""
    path = _junction(tmp_path, "no_left_turn", WAY_T)
    text = path.read_text().replace(
        "</osm>",
        '<relation id="101" version="1"><member type="way" ref="10" role="from"/>'
        '<member type="way" ref="11" role="via"/><member type="way" ref="12" role="via"/>'
        '<member type="way" ref="14" role="to"/>'
        '<tag k="type" v="restriction"/><tag k="restriction" v="no_straight_on"/>'
        "</relation></osm>",
    )
    path.write_text(text)
    net = _network(path)
    assert _graph(net).report.restrictions_via_way == 2
    # neither North St nor East St after Main St, and no U-turn: b is a dead end then
    assert _path(net, S, B, CAR_OPTS).distance_m == pytest.approx(200.0, abs=0.05)
    assert street_path(net, _v(net, S), _v(net, T), CAR_OPTS) is None
    assert street_path(net, _v(net, S), _v(net, E), CAR_OPTS) is None
    assert _path(net, W, E, CAR_OPTS).distance_m == pytest.approx(300.0, abs=0.05)
    assert _path(net, Q, T, CAR_OPTS).distance_m == pytest.approx(250.0, abs=0.05)


def test_street_graph_without_network(tmp_path: Path) -> None:
    """``build_street_graph`` keeps walk islands apart; copies carry no WALK bit."""
    from otpa.osm import read_osm

    osm = read_osm(_junction(tmp_path, "no_left_turn", WAY_T))
    (r,) = osm.restrictions
    assert [int(osm.vertex_osm_id[v]) for v in r.via_path] == [A, M, B]
    assert [int(osm.seg_way_id[s]) for s in r.via_segments] == [WAY_V1, WAY_V2]
    g = build_street_graph(osm, prune_islands=False)
    copies = (g.edge_flags & FLAG_RESTRICTION_COPY) != 0
    assert not np.any(g.edge_perm[copies] & WALK)
    assert g.seg_source[g.edge_segment[copies]].tolist() == sorted(r.via_segments)


# ------------------------------------------------------------------ oracle
def _random_case(seed: int) -> tuple[Any, list[TurnRestriction]]:
    """A 5 x 5 grid with random one-way streets and speeds, via-node and via-way bans."""
    rng = np.random.default_rng(seed)
    nx = 5
    pts = [(i * 100.0, j * 100.0) for j in range(nx) for i in range(nx)]
    segs = []
    for j in range(nx):
        for i in range(nx):
            v = j * nx + i
            for w in ([v + 1] if i + 1 < nx else []) + ([v + nx] if j + 1 < nx else []):
                fwd, back = [(7, 7), (7, 7), (7, 3), (3, 7)][int(rng.integers(4))]
                segs.append(Seg(v, w, fwd, back, car_speed=float(rng.uniform(5, 20))))
    car = int(CAR)
    # directed CAR steps: vertex -> [(next vertex, segment)]
    steps: dict[int, list[tuple[int, int]]] = {}
    for k, s in enumerate(segs):
        if s.fwd & car:
            steps.setdefault(s.a, []).append((s.b, k))
        if s.back & car:
            steps.setdefault(s.b, []).append((s.a, k))
    at: dict[int, list[int]] = {}
    for k, s in enumerate(segs):
        at.setdefault(s.a, []).append(k)
        at.setdefault(s.b, []).append(k)
    rs: list[TurnRestriction] = []
    for _ in range(int(rng.integers(1, 4))):
        v = int(rng.integers(len(pts)))
        ways = at[v]
        f, t = (int(x) for x in rng.choice(ways, 2, replace=False))
        kind = "no_left_turn" if rng.random() < 0.6 else "only_right_turn"
        rs.append(restriction(f + 1, v, t + 1, kind))
    for _ in range(int(rng.integers(1, 4))):
        a = int(rng.integers(len(pts)))
        path, chain = [a], []
        for _ in range(int(rng.integers(1, 4))):
            options = [(w, k) for w, k in steps.get(path[-1], []) if w not in path]
            if not options:
                break
            w, k = options[int(rng.integers(len(options)))]
            path.append(w)
            chain.append(k)
        if not chain:
            continue
        entries = [k for k in at[a] if k not in chain]
        exits = [k for k in at[path[-1]] if k not in chain]
        if not entries or not exits:
            continue
        f = int(entries[int(rng.integers(len(entries)))])
        t = int(exits[int(rng.integers(len(exits)))])
        kind = "no_straight_on" if rng.random() < 0.6 else "only_straight_on"
        r = restriction(f + 1, -1, t + 1, kind, via_ways=tuple(k + 1 for k in chain))
        rs.append(replace(r, via_path=tuple(path), via_segments=tuple(chain)))
    return make_osm(pts, segs), rs


def _oracle(g0: StreetGraph, vias: list[TurnRestriction], origin: int) -> np.ndarray:
    """CAR costs over states (edge, progress along every via-way restriction)."""
    car = int(CAR)
    cost = np.asarray(g0.edge_length_m) / g0.edge_car_speed_mps.astype(np.float64)
    usable = (g0.edge_perm & car) != 0
    f_, t_, m_ = g0.turn_bans()
    banned = {(int(a), int(b)) for a, b, m in zip(f_, t_, m_, strict=True) if m & car}
    edge_of = {(int(g0.edge_segment[e]), int(g0.edge_backward[e])): e for e in range(g0.n_edges)}
    way = g0.seg_way_id[g0.edge_segment]
    specs = []
    for r in vias:
        chain = []
        for i, s in enumerate(r.via_segments):
            back = int(g0.seg_from[s] != r.via_path[i])
            chain.append(edge_of.get((s, back), -1))
        a, b = r.via_path[0], r.via_path[-1]
        entries = {e for e in g0.in_edges_of(a).tolist() if way[e] == r.from_way}
        outs = g0.out_edges(b).tolist()
        to = {e for e in outs if way[e] == r.to_way}
        forbidden = to if r.kind == "no" else set(outs) - to
        specs.append((chain, entries, forbidden))

    def step(e: int, ks: tuple[int, ...], f: int) -> tuple[int, ...] | None:
        out = []
        for (chain, entries, forbidden), k in zip(specs, ks, strict=True):
            if k >= 1 and f == int(g0.edge_reverse[chain[k - 1]]):
                return None
            if k == len(chain) and f in forbidden:
                return None
            if k >= 1 and k < len(chain) and f == chain[k]:
                out.append(k + 1)
            elif k == 0 and e in entries and chain and f == chain[0]:
                out.append(1)
            else:
                out.append(0)
        return tuple(out)

    best = np.full(g0.n_vertices, np.inf)
    best[origin] = 0.0
    zero = tuple(0 for _ in specs)
    heap = [(float(cost[f]), f, zero) for f in g0.out_edges(origin).tolist() if usable[f]]
    heapq.heapify(heap)
    done: set[tuple[int, tuple[int, ...]]] = set()
    while heap:
        c, e, ks = heapq.heappop(heap)
        if (e, ks) in done:
            continue
        done.add((e, ks))
        v = int(g0.edge_to[e])
        best[v] = min(best[v], c)
        for f in g0.out_edges(v).tolist():
            if not usable[f] or (e, f) in banned:
                continue
            nks = step(e, ks, f)
            if nks is not None and (f, nks) not in done:
                heapq.heappush(heap, (c + float(cost[f]), f, nks))
    return best


@pytest.mark.parametrize("seed", range(40))
def test_copies_match_state_expanded_oracle(seed: int) -> None:
    osm, rs = _random_case(seed)
    vias = [r for r in rs if r.via_vertex < 0]
    g0 = build_street_graph(replace(osm, restrictions=[r for r in rs if r not in vias]),
                            prune_islands=False)  # fmt: skip
    g = build_street_graph(replace(osm, restrictions=rs), prune_islands=False)
    assert g.n_vertices == g0.n_vertices
    forward = np.array([one_to_many(g, [o], mode=CAR).cost_s for o in range(g.n_vertices)])
    for origin in range(0, g.n_vertices, 3):
        np.testing.assert_allclose(forward[origin], _oracle(g0, vias, origin), rtol=1e-9)
    # arrive-by searches over the copies agree with the forward ones
    for dest in range(g.n_vertices):
        back = one_to_many(g, [dest], mode=CAR, reverse=True).cost_s
        np.testing.assert_allclose(back, forward[:, dest], rtol=1e-9)


# --------------------------------------------------------------- real data
def _compressed(ways: list[int]) -> list[int]:
    return [w for i, w in enumerate(ways) if i == 0 or w != ways[i - 1]]


def _contains(seq: list[int], pattern: list[int]) -> bool:
    n = len(pattern)
    return any(seq[i : i + n] == pattern for i in range(len(seq) - n + 1))


@pytest.mark.parametrize(
    ("name", "pbf", "n_via_way"),
    [
        ("tiny/cobb-flex", "cobb-county.filtered.osm.pbf", 3),
        ("tiny/atlanta", "central-atlanta-filtered.osm.pbf", 3),
    ],
)
def test_real_via_way_restrictions(name: str, pbf: str, n_via_way: int) -> None:
    import osmium

    from otpa.osm import read_osm
    from tests.conftest import require_data
    from tests.fixtures.networks import built_network

    path = require_data(name, pbf)
    # independent count: restriction relations with a via way (pyosmium)
    raw = {
        rel.id
        for rel in osmium.FileProcessor(str(path), osmium.osm.RELATION)
        if rel.tags.get("type") == "restriction"
        and any(m.role == "via" and m.type == "w" for m in rel.members)
    }
    osm = read_osm(path)
    vias = [r for r in osm.restrictions if r.via_vertex < 0]
    kept = {r.relation_id for r in vias}
    assert len(vias) == n_via_way
    assert kept <= raw
    for rel_id in raw - kept:  # dropped ones are reported
        assert any(str(rel_id) in w for w in osm.warnings)
    net = built_network(require_data(), name)
    g = _graph(net)
    assert g.report.restrictions_via_way == n_via_way
    assert g.report.restrictions_unresolved == 0
    way = g.seg_way_id[g.edge_segment]
    vertex_of = {int(o): v for v, o in enumerate(g.vertex_osm_id.tolist()) if o >= 0}
    changed = 0
    for r in vias:
        a = vertex_of[int(osm.vertex_osm_id[r.via_path[0]])]
        b = vertex_of[int(osm.vertex_osm_id[r.via_path[-1]])]
        chain = _compressed([int(osm.seg_way_id[s]) for s in r.via_segments])
        pattern = [r.from_way, *chain, r.to_way]
        for e0 in [int(e) for e in g.in_edges_of(a) if way[e] == r.from_way]:
            for y in [int(e) for e in g.out_edges(b) if way[e] == r.to_way]:
                o, d = int(g.edge_from[e0]), int(g.edge_to[y])
                p = street_path(net, o, d, CAR_OPTS)
                free = street_path(net, o, d, FREE_CAR_OPTS)
                assert free is not None
                if p is None:
                    continue
                assert p.distance_m >= free.distance_m - 1e-6
                ways = _compressed(way[p.edges].tolist())
                if r.kind == "no":
                    assert not _contains(ways, pattern)
                    changed += _contains(_compressed(way[free.edges].tolist()), pattern)
    assert changed >= 1  # some restriction changes a real car route


def test_saved_graph_keeps_copies(tmp_path: Path) -> None:
    net = _network(_junction(tmp_path, "no_left_turn", WAY_T))
    net.save(tmp_path / "graph")
    back = TransportNetwork.load(tmp_path / "graph")
    assert _graph(back).report == _graph(net).report
    assert _path(back, S, T, CAR_OPTS).distance_m == pytest.approx(500.0, abs=0.05)
    assert _path(back, W, T, CAR_OPTS).distance_m == pytest.approx(300.0, abs=0.05)
