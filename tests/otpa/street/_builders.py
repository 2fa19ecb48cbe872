"""Hand-built :class:`OsmStreetData` for the street graph tests."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from otpa.osm.model import BICYCLE, WALK, OsmStreetData, TurnRestriction
from otpa.util.geo import EARTH_RADIUS_M, haversine_m

LAT0 = 49.5
LON0 = 8.5
M_PER_DEG = EARTH_RADIUS_M * math.pi / 180.0
ALL = 7


def to_latlon(x_m: float | np.ndarray, y_m: float | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Local metres (east, north) around (LAT0, LON0) to degrees."""
    lat = LAT0 + np.asarray(y_m, dtype=np.float64) / M_PER_DEG
    lon = LON0 + np.asarray(x_m, dtype=np.float64) / (M_PER_DEG * math.cos(math.radians(LAT0)))
    return lat, lon


@dataclass
class Seg:
    """One segment: vertices, permissions, optional geometry (x, y metres) in between."""

    a: int
    b: int
    fwd: int = ALL
    back: int = ALL
    way: int | None = None
    car_speed: float = 10.0
    via: Sequence[tuple[float, float]] = ()
    length: float | None = None
    safety_fwd: float = 1.0
    safety_back: float = 1.0
    name: int = 0


def make_osm(
    xy: Sequence[tuple[float, float]],
    segs: Sequence[Seg],
    *,
    restrictions: Sequence[TurnRestriction] = (),
    barriers: dict[int, int] | None = None,
) -> OsmStreetData:
    """Build OSM street data from local metre coordinates."""
    xs = np.array([p[0] for p in xy], dtype=np.float64)
    ys = np.array([p[1] for p in xy], dtype=np.float64)
    vlat, vlon = to_latlon(xs, ys)
    glat: list[float] = []
    glon: list[float] = []
    offsets = [0]
    lengths = []
    for s in segs:
        px = [xs[s.a], *(p[0] for p in s.via), xs[s.b]]
        py = [ys[s.a], *(p[1] for p in s.via), ys[s.b]]
        la, lo = to_latlon(np.array(px), np.array(py))
        glat.extend(la.tolist())
        glon.extend(lo.tolist())
        offsets.append(len(glat))
        if s.length is None:
            lengths.append(float(np.sum(haversine_m(la[:-1], lo[:-1], la[1:], lo[1:]))))
        else:
            lengths.append(s.length)
    n = len(segs)
    barrier = np.zeros(len(xy), dtype=np.uint8)
    for v, bits in (barriers or {}).items():
        barrier[v] = bits
    return OsmStreetData(
        vertex_osm_id=np.arange(len(xy), dtype=np.int64) + 1000,
        vertex_lat=vlat,
        vertex_lon=vlon,
        vertex_barrier=barrier,
        seg_from=np.array([s.a for s in segs], dtype=np.int32),
        seg_to=np.array([s.b for s in segs], dtype=np.int32),
        seg_way_id=np.array(
            [s.way if s.way is not None else i + 1 for i, s in enumerate(segs)], dtype=np.int64
        ),
        seg_length_m=np.array(lengths, dtype=np.float64),
        seg_perm_fwd=np.array([s.fwd for s in segs], dtype=np.uint8),
        seg_perm_back=np.array([s.back for s in segs], dtype=np.uint8),
        seg_car_speed_mps=np.array([s.car_speed for s in segs], dtype=np.float32),
        seg_bike_safety_fwd=np.array([s.safety_fwd for s in segs], dtype=np.float32),
        seg_bike_safety_back=np.array([s.safety_back for s in segs], dtype=np.float32),
        seg_name=np.array([s.name for s in segs], dtype=np.int32),
        seg_highway=np.zeros(n, dtype=np.int16),
        seg_flags=np.zeros(n, dtype=np.uint16),
        seg_geom_offsets=np.array(offsets, dtype=np.int64),
        geom_lat=np.array(glat, dtype=np.float64),
        geom_lon=np.array(glon, dtype=np.float64),
        names=["street", "other"],
        highway_kinds=["residential"],
        restrictions=list(restrictions),
    )


def grid_osm(nx: int, ny: int, spacing_m: float = 100.0, *, x0: float = 0.0) -> OsmStreetData:
    """An ``nx`` by ``ny`` grid of two-way streets open to every mode."""
    xy = [(x0 + i * spacing_m, j * spacing_m) for j in range(ny) for i in range(nx)]
    segs = []
    for j in range(ny):
        for i in range(nx):
            v = j * nx + i
            if i + 1 < nx:
                segs.append(Seg(v, v + 1))
            if j + 1 < ny:
                segs.append(Seg(v, v + nx))
    return make_osm(xy, segs)


def random_osm(seed: int, n_vertices: int = 200, n_segments: int = 600) -> OsmStreetData:
    """Random vertices in a 2 km square joined by random segments with random permissions."""
    rng = np.random.default_rng(seed)
    xy = rng.uniform(0, 2000, size=(n_vertices, 2))
    a = rng.integers(0, n_vertices, n_segments)
    # join mostly nearby vertices so paths have several hops
    b = (a + rng.integers(1, 12, n_segments)) % n_vertices
    perms = rng.choice([0, 1, 3, 5, 7, 7, 7], size=(n_segments, 2))
    segs = [
        Seg(int(a[i]), int(b[i]), int(perms[i, 0]), int(perms[i, 1]),
            car_speed=float(rng.uniform(5, 30)))
        for i in range(n_segments)
    ]  # fmt: skip
    segs = [s for s in segs if s.fwd or s.back]
    return make_osm([tuple(p) for p in xy], segs)


def transposed(osm: OsmStreetData) -> OsmStreetData:
    """The same streets with every direction reversed."""
    return replace(
        osm,
        seg_perm_fwd=osm.seg_perm_back.copy(),
        seg_perm_back=osm.seg_perm_fwd.copy(),
        seg_bike_safety_fwd=osm.seg_bike_safety_back.copy(),
        seg_bike_safety_back=osm.seg_bike_safety_fwd.copy(),
    )


def restriction(
    from_way: int, via: int, to_way: int, value: str, modes: int = 4, via_ways: tuple[int, ...] = ()
) -> TurnRestriction:
    """A turn restriction relation."""
    return TurnRestriction(
        relation_id=1,
        from_way=from_way,
        to_way=to_way,
        via_vertex=via,
        kind=value.split("_", 1)[0],
        restriction=value,
        modes=modes,
        via_ways=via_ways,
    )


# Junction J with arms: A south (one-way A -> J for cars), W west (two-way),
# E east (one-way J -> E), N north (one-way J -> N); a ring N - NW - W and
# N - NE - E lets cars get round.  Blocks are 100 m at 10 m/s: 10 s each.
A, J, W, E, N, NW, NE = range(7)
_XY = [(0, -100), (0, 0), (-100, 0), (100, 0), (0, 100), (-100, 100), (100, 100)]
WAY_AJ, WAY_JW, WAY_JE, WAY_JN = 1, 2, 3, 4


def junction_osm(value: str | None, to_way: int, *, flip: bool = False) -> OsmStreetData:
    """The junction above, optionally with a restriction from way A-J at J to ``to_way``."""

    def seg(a: int, b: int, fwd: int, back: int, way: int) -> Seg:
        if flip:
            return Seg(b, a, back, fwd, way=way, length=100.0)
        return Seg(a, b, fwd, back, way=way, length=100.0)

    walk_only = int(WALK | BICYCLE)
    segs = [
        seg(A, J, 7, walk_only, WAY_AJ),
        seg(J, W, 7, 7, WAY_JW),
        seg(J, E, 7, walk_only, WAY_JE),
        seg(J, N, 7, walk_only, WAY_JN),
        seg(N, NW, 7, 7, 5),
        seg(NW, W, 7, 7, 6),
        seg(N, NE, 7, 7, 7),
        seg(NE, E, 7, 7, 8),
    ]
    rs = [] if value is None else [restriction(WAY_AJ, J, to_way, value)]
    return make_osm(_XY, segs, restrictions=rs)


@dataclass
class Elev:
    """Per-segment elevation arrays (satisfies ``otpa.street.SegmentElevation``)."""

    max_slope: np.ndarray
    rise_m: np.ndarray
    fall_m: np.ndarray
    slope_speed_effective_length_fwd_m: np.ndarray
    slope_speed_effective_length_back_m: np.ndarray
    slope_work_cost_fwd: np.ndarray
    slope_work_cost_back: np.ndarray
    slope_safety_cost_fwd_m: np.ndarray
    slope_safety_cost_back_m: np.ndarray
    effective_walk_length_fwd_m: np.ndarray
    effective_walk_length_back_m: np.ndarray


def elevation_for(n: int) -> Elev:
    """Distinct made-up elevation values per segment and direction."""
    r = np.arange(n, dtype=np.float64)
    return Elev(
        r * 0.01, r + 1.0, r * 2.0, r + 100.0, r + 110.0, r + 200.0, r + 220.0,
        r + 300.0, r + 330.0, r + 400.0, r + 440.0,
    )  # fmt: skip
