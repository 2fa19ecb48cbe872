"""Walk steps, turn costs and turn rules on small hand-built street graphs.

Coordinates are local metres (east, north), so every angle, distance and
expected instruction can be worked out by hand.
"""

from __future__ import annotations

import itertools
import math
import types
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pytest

from otpa.osm.model import (
    BICYCLE,
    CAR,
    FLAG_BOGUS_NAME,
    FLAG_ROUNDABOUT,
    WALK,
    OsmStreetData,
    TurnRestriction,
)
from otpa.routing._street_geometry import graph_geometry, otp_int_degrees, polyline_angles
from otpa.routing._walk_steps import relative_direction
from otpa.routing.model import AbsoluteDirection, RelativeDirection
from otpa.routing.street_router import (
    StreetOptions,
    access_stops,
    elevation_profile,
    street_path,
    walk_steps,
)
from otpa.street import StreetGraph, build_street_graph
from otpa.util.geo import EARTH_RADIUS_M

LAT0, LON0 = 48.6, 8.9
M_PER_DEG = EARTH_RADIUS_M * math.pi / 180.0
ALL = 7
WALK_OPTS = StreetOptions(mode="WALK", speed_mps=1.0, reluctance=1.0)
CAR_OPTS = StreetOptions(mode="CAR", speed_mps=40.0, reluctance=1.0)
NAMES = ["Main", "Side", "Ring", "path", "Other"]


@dataclass
class S:
    """A segment between vertices ``a`` and ``b`` of the coordinate list."""

    a: int
    b: int
    name: int = 0
    fwd: int = ALL
    back: int = ALL
    flags: int = 0
    speed: float = 10.0
    way: int | None = None
    via: Sequence[tuple[float, float]] = ()


def _ll(x: float, y: float) -> tuple[float, float]:
    return LAT0 + y / M_PER_DEG, LON0 + x / (M_PER_DEG * math.cos(math.radians(LAT0)))


def _graph(
    xy: Sequence[tuple[float, float]],
    segs: Sequence[S],
    restrictions: Sequence[TurnRestriction] = (),
) -> StreetGraph:
    glat: list[float] = []
    glon: list[float] = []
    offsets = [0]
    lengths = []
    for s in segs:
        pts = [xy[s.a], *s.via, xy[s.b]]
        ll = [_ll(*p) for p in pts]
        glat += [p[0] for p in ll]
        glon += [p[1] for p in ll]
        offsets.append(len(glat))
        lengths.append(sum(math.dist(p, q) for p, q in itertools.pairwise(pts)))
    vll = [_ll(*p) for p in xy]
    n = len(segs)
    osm = OsmStreetData(
        vertex_osm_id=np.arange(len(xy), dtype=np.int64) + 100,
        vertex_lat=np.array([p[0] for p in vll]),
        vertex_lon=np.array([p[1] for p in vll]),
        vertex_barrier=np.zeros(len(xy), dtype=np.uint8),
        seg_from=np.array([s.a for s in segs], dtype=np.int32),
        seg_to=np.array([s.b for s in segs], dtype=np.int32),
        seg_way_id=np.array(
            [s.way if s.way is not None else i + 1 for i, s in enumerate(segs)], dtype=np.int64
        ),
        seg_length_m=np.array(lengths),
        seg_perm_fwd=np.array([s.fwd for s in segs], dtype=np.uint8),
        seg_perm_back=np.array([s.back for s in segs], dtype=np.uint8),
        seg_car_speed_mps=np.array([s.speed for s in segs], dtype=np.float32),
        seg_bike_safety_fwd=np.ones(n, dtype=np.float32),
        seg_bike_safety_back=np.ones(n, dtype=np.float32),
        seg_name=np.array([s.name for s in segs], dtype=np.int32),
        seg_highway=np.zeros(n, dtype=np.int16),
        seg_flags=np.array([s.flags for s in segs], dtype=np.uint16),
        seg_geom_offsets=np.array(offsets, dtype=np.int64),
        geom_lat=np.array(glat),
        geom_lon=np.array(glon),
        names=list(NAMES),
        highway_kinds=["residential"],
        restrictions=list(restrictions),
    )
    return build_street_graph(osm, prune_islands=False)


def _net(g: StreetGraph) -> Any:
    return types.SimpleNamespace(
        street=g,
        stop_vertex=np.zeros(0, dtype=np.int32),
        stop_link_distance_m=np.zeros(0),
    )


def _vertex(g: StreetGraph, i: int) -> int:
    return int(np.flatnonzero(g.vertex_osm_id == i + 100)[0])


def _steps(g: StreetGraph, a: int, b: int, opts: StreetOptions = WALK_OPTS) -> list[Any]:
    path = street_path(_net(g), _vertex(g, a), _vertex(g, b), opts)
    assert path is not None
    return list(walk_steps(_net(g), path))


# --------------------------------------------------------------- directions
@pytest.mark.parametrize(
    ("turn_deg", "expected"),
    [
        (0, "CONTINUE"),
        (15, "CONTINUE"),
        (-15, "CONTINUE"),
        (30, "SLIGHTLY_RIGHT"),
        (-30, "SLIGHTLY_LEFT"),
        (90, "RIGHT"),
        (-90, "LEFT"),
        (150, "HARD_RIGHT"),
        (-150, "HARD_LEFT"),
    ],
)
def test_relative_direction_thresholds(turn_deg: float, expected: str) -> None:
    last = 0.7
    assert relative_direction(last, last + math.radians(turn_deg), False).value == expected


def test_otp_angle_quantisation() -> None:
    # azimuth 0 (north) is stored as brad 128 -> -128 -> -180 degrees "from south"
    got = otp_int_degrees(np.radians([0.0, 90.0, 180.0, -90.0, 45.0]))
    assert got.tolist() == [-180, -90, 0, 90, -135]
    first, last = polyline_angles(
        np.array([_ll(0, 0)[0], _ll(0, 3)[0], _ll(20, 3)[0]]),
        np.array([_ll(0, 0)[1], _ll(0, 3)[1], _ll(20, 3)[1]]),
    )
    # a 3 m stub is extended to 10 m: the first direction looks at the far point
    assert math.degrees(first) == pytest.approx(math.degrees(math.atan2(20, 3)), abs=0.1)
    assert math.degrees(last) == pytest.approx(90.0, abs=0.1)


def _cross() -> StreetGraph:
    """A plus-shaped crossing at 1: Main runs west (0) to east (2); Side south (3) to north (4)."""
    xy = [(-100, 0), (0, 0), (100, 0), (0, -100), (0, 100)]
    return _graph(xy, [S(0, 1, 0, way=1), S(1, 2, 0, way=2), S(3, 1, 1, way=3), S(1, 4, 1, way=4)])


def test_steps_depart_and_turns() -> None:
    g = _cross()
    steps = _steps(g, 0, 4)
    assert [s.relative_direction for s in steps] == [
        RelativeDirection.DEPART,
        RelativeDirection.LEFT,
    ]
    assert [s.absolute_direction for s in steps] == [
        AbsoluteDirection.EAST,
        AbsoluteDirection.NORTH,
    ]
    assert [s.street_name for s in steps] == ["Main", "Side"]
    assert [round(s.distance) for s in steps] == [100, 100]
    assert steps[1].lat == pytest.approx(_ll(0, 0)[0])
    right = _steps(g, 0, 3)
    assert right[1].relative_direction == RelativeDirection.RIGHT
    assert right[1].absolute_direction == AbsoluteDirection.SOUTH
    straight = _steps(g, 0, 2)
    assert len(straight) == 1  # same street: one step
    assert straight[0].distance == pytest.approx(200, abs=0.5)


def test_turn_costs_by_mode() -> None:
    """OTP 1.x: driving 8 s right/left, 5 s straight on; walking (degrees / 20) / speed."""
    g = _cross()
    net = _net(g)
    o, east, north, south = (_vertex(g, i) for i in (0, 2, 4, 3))
    drive = {t: street_path(net, o, t, CAR_OPTS) for t in (east, north, south)}
    base = {t: street_path(net, o, t, replace(CAR_OPTS, turn_costs=False)) for t in drive}
    extra = {t: p.cost - base[t].cost for t, p in drive.items() if p is not None}
    assert extra[east] == pytest.approx(5.0)
    assert extra[north] == pytest.approx(8.0)
    assert extra[south] == pytest.approx(8.0)
    assert drive[north] is not None
    assert drive[north].duration_s == 20 + 8  # 10 s + 10 s at 10 m/s, plus the turn
    walk = street_path(net, o, north, WALK_OPTS)
    walk0 = street_path(net, o, north, replace(WALK_OPTS, turn_costs=False))
    assert walk is not None
    assert walk0 is not None
    assert walk.cost - walk0.cost == pytest.approx(90 / 20 / 1.0, abs=0.05)
    # left-hand traffic swaps the driving turn sides (still 8 s both)
    left = street_path(net, o, north, replace(CAR_OPTS, drive_on_right=False))
    assert left is not None
    assert left.cost == pytest.approx(drive[north].cost)


def test_free_flowing_vertices_cost_nothing() -> None:
    # a one-way chain: the middle vertex has one way in and one way out
    g = _graph([(0, 0), (100, 0), (200, 50)], [S(0, 1, back=0), S(1, 2, back=0)])
    assert graph_geometry(g).free_flowing[_vertex(g, 1)]
    p = street_path(_net(g), _vertex(g, 0), _vertex(g, 2), CAR_OPTS)
    p0 = street_path(_net(g), _vertex(g, 0), _vertex(g, 2), replace(CAR_OPTS, turn_costs=False))
    assert p is not None
    assert p0 is not None
    assert p.cost == pytest.approx(p0.cost)


def test_no_u_turns_and_only_restrictions() -> None:
    """A car on Main (0 -> 1) may only turn right at 1: it must loop back around a block."""
    xy = [(-100, 0), (0, 0), (100, 0), (0, -100), (-100, -100)]
    segs = [
        S(0, 1, 0, way=1),
        S(1, 2, 0, way=2),
        S(1, 3, 1, way=3),
        S(3, 4, 4, way=4),
        S(4, 0, 4, way=5),
    ]
    only_right = TurnRestriction(
        relation_id=1, from_way=1, to_way=3, via_vertex=1, kind="only",
        restriction="only_right_turn", modes=int(CAR | BICYCLE),
    )  # fmt: skip
    g = _graph(xy, segs, [only_right])
    net = _net(g)
    a, b = _vertex(g, 0), _vertex(g, 2)
    path = street_path(net, a, b, CAR_OPTS)
    assert path is not None
    # 0 -> 1 -> 3 -> 4 -> 0 -> 1 is needed to go straight on... which is banned again,
    # and a U-turn at 3 is not allowed: no way to reach 2 from 0 by car
    ways = g.seg_way_id[g.edge_segment[path.edges]].tolist()
    assert ways[:1] == [5]  # around the block the other way: 0 -> 4 -> 3 -> 1 -> 2
    assert ways == [5, 4, 3, 2]
    walk = street_path(net, a, b, WALK_OPTS)
    assert walk is not None
    assert g.seg_way_id[g.edge_segment[walk.edges]].tolist() == [1, 2]


def _ring(clockwise: bool) -> tuple[StreetGraph, list[int]]:
    """A square roundabout (vertices 0-3) with four two-way arms (4-7) and a name."""
    r, arm = 20.0, 100.0
    ring = [(r, 0), (0, r), (-r, 0), (0, -r)]  # east, north, west, south
    arms = [(arm, 0), (0, arm), (-arm, 0), (0, -arm)]
    order = [0, 3, 2, 1] if clockwise else [0, 1, 2, 3]
    segs = []
    for k in range(4):
        a, b = order[k], order[(k + 1) % 4]
        mid = ((ring[a][0] + ring[b][0]) * 0.7, (ring[a][1] + ring[b][1]) * 0.7)
        segs.append(S(a, b, 2, back=WALK, flags=FLAG_ROUNDABOUT, way=100, via=[mid]))
    for k in range(4):
        segs.append(S(4 + k, k, 0 if k % 2 == 0 else 1, way=10 + k))
    return _graph(ring + arms, segs), order


@pytest.mark.parametrize("clockwise", [False, True])
def test_roundabout_exits(clockwise: bool) -> None:
    g, order = _ring(clockwise)
    expected_sense = (
        RelativeDirection.CIRCLE_CLOCKWISE
        if clockwise
        else RelativeDirection.CIRCLE_COUNTERCLOCKWISE
    )
    for entry in range(4):
        for leave in range(4):
            if entry == leave:
                continue
            steps = _steps(g, 4 + entry, 4 + leave, CAR_OPTS)
            ring = [s for s in steps if s.relative_direction in (
                RelativeDirection.CIRCLE_CLOCKWISE, RelativeDirection.CIRCLE_COUNTERCLOCKWISE
            )]  # fmt: skip
            assert len(ring) == 1
            exit_number = (order.index(leave) - order.index(entry)) % 4
            assert ring[0].relative_direction == expected_sense
            assert ring[0].exit == str(exit_number)
            assert ring[0].street_name == "Ring"
            assert steps[-1].street_name == NAMES[0 if leave % 2 == 0 else 1]
            # the arms on the same axis share a name: staying on it is flagged
            assert ring[0].stay_on == ((entry - leave) % 2 == 0)


def test_bogus_names_and_zags() -> None:
    # Main east, a 10 m jog north on a generated-name path, Main east again
    xy = [(0, 0), (100, 0), (100, 10), (200, 10), (100, 60)]
    segs = [
        S(0, 1, 0, way=1),
        S(1, 2, 3, flags=FLAG_BOGUS_NAME, way=2),
        S(2, 3, 0, way=3),
        S(2, 4, 3, flags=FLAG_BOGUS_NAME, way=4),
    ]
    g = _graph(xy, segs)
    steps = _steps(g, 0, 3)
    # the short jog is merged away: one step along Main
    assert [s.street_name for s in steps] == ["Main"]
    assert steps[0].distance == pytest.approx(210, abs=0.5)
    onto_path = _steps(g, 0, 4)
    assert [s.street_name for s in onto_path] == ["Main", "path"]
    assert onto_path[1].bogus_name
    assert onto_path[1].distance == pytest.approx(60, abs=0.5)


def test_u_turn_zag() -> None:
    # Main east, right onto a short connector, right again onto Main westbound (a U-turn)
    xy = [(0, 0), (100, 0), (100, -15), (0, -15)]
    segs = [S(0, 1, 0, way=1, back=0), S(1, 2, 1, way=2), S(2, 3, 0, way=3, back=0)]
    g = _graph(xy, segs)
    steps = _steps(g, 0, 3)
    assert [s.relative_direction for s in steps] == [
        RelativeDirection.DEPART,
        RelativeDirection.UTURN_RIGHT,
    ]
    assert steps[1].stay_on
    assert steps[1].distance == pytest.approx(115, abs=0.5)


def test_access_stops_on_a_hand_built_graph() -> None:
    g = _cross()
    net = _net(g)
    net.stop_vertex = np.array([_vertex(g, 2), _vertex(g, 4), -1], dtype=np.int32)
    net.stop_link_distance_m = np.array([5.0, 0.0, 0.0])
    res = access_stops(net, _vertex(g, 0), WALK_OPTS, max_time_s=300)
    assert res.stops.tolist() == [0, 1]
    # 200 m straight on + 5 m link; 200 m with a left turn (4.5 s)
    assert res.time_s.tolist() == [205, 205]
    assert res.cost.tolist() == pytest.approx([205.0, 204.5])
    back = access_stops(net, _vertex(g, 0), WALK_OPTS, max_time_s=300, reverse=True)
    assert back.stops.tolist() == [0, 1]
    short = access_stops(net, _vertex(g, 0), WALK_OPTS, max_time_s=204)
    assert short.stops.tolist() == []


def test_elevation_profile_without_profiles_is_empty() -> None:
    g = _cross()
    path = street_path(_net(g), _vertex(g, 0), _vertex(g, 4), WALK_OPTS)
    assert path is not None
    prof = elevation_profile(_net(g), path)
    assert prof.distance_m.size == 0
    assert path.elevation_gained_m == 0.0
