"""The street network of the synthetic demo city (private).

A perturbed grid of avenues (north-south) and streets (east-west), with a few
residential segments removed at random, an anti-diagonal boulevard and a park
in every 12 x 12 block tile, and the one-off features of the *core* (middle)
tile: the one-way street, the bollard, the turn restriction, Station Square
with its steps, the university campus, the park-and-ride next to the west
rail terminus, and bike-share and bike-parking nodes.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Sequence

import numpy as np

from otpa.testing._demo_model import (
    TILE,
    Relation,
    Tags,
    Way,
    avenue_name,
    rail_v,
    street_class,
    street_name,
    tree,
)
from otpa.types import BoolArray, FloatArray, IntArray

__all__ = ["Seg", "StreetBuilder", "lay_out_streets"]

Seg = tuple[str, int, int]  # ("h", i, j): (i, j)-(i+1, j); ("v", i, j): (i, j)-(i, j+1)

_BLOCK_MIN_M = 130.0
_BLOCK_MAX_M = 170.0
_NOISE_SD_M = 7.0
_NOISE_MAX_M = 18.0
_REMOVE_P = 0.05
_BOULEVARDS = (
    "Harbour", "Canal", "Lighthouse", "Dune", "Tide", "Beacon", "Windmill", "Polder",
    "Anchor", "Compass", "Meridian", "Seagull", "Mariner", "Coral", "Pier", "Breakwater",
    "Lantern", "Sextant", "Starboard", "Keel",
)  # fmt: skip


def _grid(seed: int, n: int) -> tuple[FloatArray, FloatArray]:
    """Perturbed intersection positions, arrays indexed ``[i, j]``."""
    rng = np.random.default_rng([seed, 1])
    widths = rng.uniform(_BLOCK_MIN_M, _BLOCK_MAX_M, size=(2, n))
    cx = np.concatenate([[0.0], np.cumsum(widths[0])])
    cy = np.concatenate([[0.0], np.cumsum(widths[1])])
    cx -= cx[n // 2]
    cy -= cy[n // 2]
    gx, gy = np.meshgrid(cx, cy, indexing="ij")
    phase = rng.uniform(0.0, 2.0 * math.pi, size=2)
    noise = np.clip(
        rng.normal(0.0, _NOISE_SD_M, size=(2, n + 1, n + 1)), -_NOISE_MAX_M, _NOISE_MAX_M
    )
    # a gentle large-scale warp keeps streets from being ruler-straight
    x = gx + 18.0 * np.sin(2.0 * math.pi * gy / 1700.0 + phase[0]) + noise[0]
    y = gy + 14.0 * np.sin(2.0 * math.pi * gx / 2100.0 + phase[1]) + noise[1]
    return x, y


class StreetBuilder:
    """Accumulates the OSM side of the city; one instance per generation."""

    def __init__(self, seed: int, scale: int) -> None:
        self.seed = seed
        self.k = scale
        self.n = n = TILE * scale
        self.o = TILE * (scale // 2)  # index offset of the core tile
        self.gx, self.gy = _grid(seed, n)
        self.h: BoolArray = np.ones((n, n + 1), dtype=bool)
        self.v: BoolArray = np.ones((n + 1, n), dtype=bool)
        self.h_keep: BoolArray = np.zeros((n, n + 1), dtype=bool)
        self.v_keep: BoolArray = np.zeros((n + 1, n), dtype=bool)
        arterial = np.array([street_class(i) != "residential" for i in range(n + 1)])
        self.h_keep[:, arterial] = True
        self.v_keep[arterial, :] = True
        self.mid: dict[Seg, list[tuple[float, int]]] = {}
        self.extra: dict[int, tuple[float, float]] = {}
        self.node_tags: dict[int, Tags] = {}
        self.next_node = (n + 1) ** 2 + 1
        self.ways: list[Way] = []
        self.relations: list[Relation] = []
        self.oneway: set[Seg] = set()
        self.split_nodes: set[int] = set()
        self.seg_way: dict[Seg, int] = {}
        self.places: dict[str, tuple[float, float]] = {}
        self.diagonals: dict[int, list[tuple[int, int]]] = {}  # m -> intersections

    # -- geometry -------------------------------------------------------------

    def nid(self, i: int, j: int) -> int:
        """OSM id of intersection ``(i, j)``."""
        return 1 + j * (self.n + 1) + i

    def pos(self, u: float, v: float) -> tuple[float, float]:
        """Metric position of index coordinates, bilinear inside the block."""
        i = min(max(math.floor(u), 0), self.n - 1)
        j = min(max(math.floor(v), 0), self.n - 1)
        fu, fv = u - i, v - j
        w = ((1 - fu) * (1 - fv), fu * (1 - fv), (1 - fu) * fv, fu * fv)
        cs = ((i, j), (i + 1, j), (i, j + 1), (i + 1, j + 1))
        x = sum(wk * float(self.gx[c]) for wk, c in zip(w, cs, strict=True))
        y = sum(wk * float(self.gy[c]) for wk, c in zip(w, cs, strict=True))
        return x, y

    def node_xy(self, node: int, digits: int | None = None) -> tuple[float, float]:
        """Metric position of any node, optionally rounded."""
        if node in self.extra:
            return self.extra[node]
        j, i = divmod(node - 1, self.n + 1)
        x, y = float(self.gx[i, j]), float(self.gy[i, j])
        return (x, y) if digits is None else (round(x, digits), round(y, digits))

    def new_node(self, xy: tuple[float, float], tags: Tags = ()) -> int:
        """Create a free-standing node."""
        node = self.next_node
        self.next_node += 1
        self.extra[node] = (round(xy[0], 3), round(xy[1], 3))
        if tags:
            self.node_tags[node] = tags
        return node

    def mid_node(self, seg: Seg, t: float, tags: Tags = ()) -> int:
        """Insert a node at fraction ``t`` along a grid segment (and protect it)."""
        axis, i, j = seg
        a = self.node_xy(self.nid(i, j))
        b = self.node_xy(self.nid(i + 1, j) if axis == "h" else self.nid(i, j + 1))
        node = self.new_node((a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])), tags)
        self.mid.setdefault(seg, []).append((t, node))
        self.keep(seg)
        return node

    def keep(self, seg: Seg) -> None:
        """Protect a grid segment from random removal."""
        axis, i, j = seg
        (self.h_keep if axis == "h" else self.v_keep)[i, j] = True

    def add_way(self, nodes: Sequence[int], tags: dict[str, str]) -> int:
        """Append a way and return its id."""
        way_id = len(self.ways) + 1
        self.ways.append(Way(way_id, tuple(nodes), tuple(sorted(tags.items()))))
        return way_id

    def diag_blocks(self) -> Iterable[tuple[int, int]]:
        """Blocks crossed by an anti-diagonal boulevard (``i + j + 1 = 12 m``)."""
        for i in range(self.n):
            for j in range((TILE - 1 - i) % TILE, self.n, TILE):
                yield i, j

    # -- street network -------------------------------------------------------

    def carve_superblock(self, a: int, b: int) -> None:
        """Remove the streets inside the 2 x 2 blocks with south-west corner ``(a, b)``."""
        self.v[a + 1, b : b + 2] = False
        self.h[a : a + 2, b + 1] = False

    def remove_random_segments(self) -> None:
        """Drop a few residential segments, keeping every intersection reachable."""
        rng = np.random.default_rng([self.seed, 2])
        draw_h, draw_v = rng.random(self.h.shape), rng.random(self.v.shape)
        deg = self._degrees()
        removed: list[Seg] = []
        for axis, arr, keep, draw in (
            ("h", self.h, self.h_keep, draw_h),
            ("v", self.v, self.v_keep, draw_v),
        ):
            for i, j in np.argwhere(arr & ~keep & (draw < _REMOVE_P)).tolist():
                a, b = (i, j), ((i + 1, j) if axis == "h" else (i, j + 1))
                if deg[a] > 2 and deg[b] > 2:
                    arr[i, j] = False
                    deg[a] -= 1
                    deg[b] -= 1
                    removed.append((axis, i, j))
        while True:
            unreached = self._unreached(deg)
            restore = [
                s
                for s in removed
                if (s[1], s[2]) in unreached
                or ((s[1] + 1, s[2]) if s[0] == "h" else (s[1], s[2] + 1)) in unreached
            ]
            if not restore:
                return
            for axis, i, j in restore:
                (self.h if axis == "h" else self.v)[i, j] = True
                removed.remove((axis, i, j))
            deg = self._degrees()

    def _degrees(self) -> IntArray:
        n = self.n
        deg = np.zeros((n + 1, n + 1), dtype=np.int64)
        h, v = self.h.astype(np.int64), self.v.astype(np.int64)
        deg[:-1, :] += h
        deg[1:, :] += h
        deg[:, :-1] += v
        deg[:, 1:] += v
        for i, j in self.diag_blocks():
            deg[i, j + 1] += 1
            deg[i + 1, j] += 1
        return deg

    def _unreached(self, deg: IntArray) -> set[tuple[int, int]]:
        n = self.n
        diag: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for i, j in self.diag_blocks():
            diag.setdefault((i, j + 1), []).append((i + 1, j))
            diag.setdefault((i + 1, j), []).append((i, j + 1))
        start = (self.o + 6, self.o + 6)
        seen = {start}
        queue = deque([start])
        while queue:
            i, j = queue.popleft()
            nxt = list(diag.get((i, j), ()))
            if i < n and self.h[i, j]:
                nxt.append((i + 1, j))
            if i > 0 and self.h[i - 1, j]:
                nxt.append((i - 1, j))
            if j < n and self.v[i, j]:
                nxt.append((i, j + 1))
            if j > 0 and self.v[i, j - 1]:
                nxt.append((i, j - 1))
            for p in nxt:
                if p not in seen:
                    seen.add(p)
                    queue.append(p)
        return {(int(i), int(j)) for i, j in np.argwhere(deg > 0).tolist()} - seen

    def emit_grid_line(self, axis: str, line: int) -> None:
        """Ways of one avenue (``axis='v'``) or street (``'h'``), split at gaps and tag changes."""
        cls = street_class(line)
        base = {"highway": cls, "name": avenue_name(line) if axis == "v" else street_name(line)}
        base["maxspeed"] = "30" if cls == "residential" else "50"
        base["surface"] = "asphalt"
        if cls != "residential":
            base["lanes"] = "4" if cls == "primary" else "2"
            base["sidewalk"] = "both"
        if cls == "secondary":
            base["cycleway"] = "lane"
        nodes: list[int] = []
        segs: list[Seg] = []
        current: bool | None = None

        def flush() -> None:
            if len(nodes) >= 2:
                tags = dict(base, oneway="yes") if current else base
                way_id = self.add_way(nodes, tags)
                for s in segs:
                    self.seg_way[s] = way_id
            nodes.clear()
            segs.clear()

        for k in range(self.n):
            seg: Seg = (axis, k, line) if axis == "h" else (axis, line, k)
            a = self.nid(k, line) if axis == "h" else self.nid(line, k)
            b = self.nid(k + 1, line) if axis == "h" else self.nid(line, k + 1)
            present = bool((self.h if axis == "h" else self.v)[seg[1], seg[2]])
            oneway = seg in self.oneway
            if not present or oneway != current or a in self.split_nodes:
                flush()
            if not present:
                current = None
                continue
            current = oneway
            if not nodes:
                nodes.append(a)
            nodes.extend(node for _, node in sorted(self.mid.get(seg, [])))
            nodes.append(b)
            segs.append(seg)
        flush()

    def emit_diagonals(self) -> dict[int, list[tuple[int, int]]]:
        """Anti-diagonal boulevards; returns their intersection lists by ``m``."""
        lines: dict[int, list[tuple[int, int]]] = {}
        for m in range(1, 2 * self.k):
            pts = [(i, TILE * m - i) for i in range(self.n + 1) if 0 <= TILE * m - i <= self.n]
            lines[m] = pts
            tags = {"highway": "secondary", "name": self.diag_name(m), "maxspeed": "50"}
            tags.update(lanes="2", surface="asphalt", sidewalk="both")
            self.add_way([self.nid(i, j) for i, j in pts], tags)
        return lines

    def diag_name(self, m: int) -> str:
        """Name of the anti-diagonal boulevard ``i + j = 12 m``."""
        if m == self.main_diag:
            return "Grand Diagonal"
        base = _BOULEVARDS[m % len(_BOULEVARDS)]
        return f"{base} Boulevard" + (
            f" {m // len(_BOULEVARDS) + 1}" if m >= len(_BOULEVARDS) else ""
        )

    @property
    def main_diag(self) -> int:
        """``m`` of the boulevard through the core tile (and Central Station)."""
        return (2 * self.o) // TILE + 1

    def area(self, corners: Sequence[tuple[float, float]], tags: dict[str, str]) -> list[int]:
        """A closed way through fractional-index corners; returns its distinct nodes."""
        ring = [self.new_node(self.pos(u, v)) for u, v in corners]
        self.add_way([*ring, ring[0]], tags)
        return ring

    def emit_park(self, a: int, b: int, name: str) -> None:
        """Park on the 2 x 2 superblock ``(a, b)``: area, footway and cycleway."""
        self.area(
            [(a + 0.1, b + 0.1), (a + 1.9, b + 0.1), (a + 1.9, b + 1.9), (a + 0.1, b + 1.9)],
            {"leisure": "park", "name": name},
        )
        centre = self.nid(a + 1, b + 1)
        walk = [self.nid(a, b), centre, self.nid(a + 2, b + 2)]
        self.add_way(walk, {"highway": "footway", "name": f"{name} Walk", "surface": "paved"})
        cycle = [self.nid(a, b + 2), centre, self.nid(a + 2, b)]
        self.add_way(
            cycle, {"highway": "cycleway", "name": f"{name} Cycle Path", "surface": "asphalt"}
        )


def _park_name(b: StreetBuilder, tx: int, ty: int) -> str:
    if TILE * tx == b.o and TILE * ty == b.o:
        return "City Park"
    return f"{tree(7 * tx + 3 * ty)} Park" + (f" {tx + 1}-{ty + 1}" if b.k > 1 else "")


def _core_features(b: StreetBuilder) -> tuple[int, int]:
    """Mark the core tile's one-off street features.

    Returns the turn restriction's via node and the park-and-ride access node.
    """
    o = b.o
    # one-way street, bollard, turn-restriction anchor
    for i in range(o + 3, o + 5):
        b.oneway.add(("h", i, o + 7))
        b.keep(("h", i, o + 7))
    b.mid_node(("v", o + 3, o + 8), 0.5, (("barrier", "bollard"),))
    via = b.nid(o + 6, o + 2)
    b.split_nodes.add(via)
    # park-and-ride access road from 1st Avenue, next to the west rail terminus
    pr_access = b.mid_node(("v", 0, o + 4), 0.5)
    # the avenues above the railway tunnels get a node where the track passes under
    for m in range(b.k):
        for u in range(0, b.n + 1, 3):
            b.mid_node(("v", u, TILE * m + 5), float(rail_v(m, u)) - (TILE * m + 5))
    return via, pr_access


def _core_areas(b: StreetBuilder, pr_access: int) -> None:
    """Plaza with steps, university campus, park-and-ride, bike-share and bike parking."""
    o = b.o
    c = float(o)
    # Station Square: a pedestrian area linked to 7th Avenue and, by steps, to City Park
    ring = b.area(
        [(c + 6.2, c + 6.2), (c + 6.8, c + 6.2), (c + 6.8, c + 6.8), (c + 6.2, c + 6.8)],
        {
            "highway": "pedestrian",
            "area": "yes",
            "name": "Station Square",
            "surface": "paving_stones",
        },
    )
    b.add_way([b.nid(o + 6, o + 6), ring[0]], {"highway": "footway", "footway": "link"})
    steps = {"highway": "steps", "incline": "up", "step_count": "14", "handrail": "yes"}
    b.add_way([ring[2], b.nid(o + 7, o + 7)], steps)
    b.places["Station Square"] = b.pos(c + 6.5, c + 6.5)
    # University campus (its inner streets were carved away)
    b.area(
        [(c + 10.1, c + 10.1), (c + 11.9, c + 10.1), (c + 11.9, c + 11.9), (c + 10.1, c + 11.9)],
        {"amenity": "university", "name": "Demo University"},
    )
    centre = b.nid(o + 11, o + 11)
    walk = [b.nid(o + 10, o + 10), centre, b.nid(o + 12, o + 12)]
    b.add_way(walk, {"highway": "footway", "name": "University Walk", "surface": "paved"})
    b.add_way(
        [b.nid(o + 10, o + 12), centre, b.nid(o + 12, o + 10)],
        {"highway": "cycleway", "name": "Campus Cycle Path", "surface": "asphalt"},
    )
    b.places["University"] = b.node_xy(centre)
    b.places["City Park"] = b.node_xy(b.nid(o + 8, o + 8))
    # park-and-ride beside the west rail terminus, reached by a short service road
    pr = {"amenity": "parking", "park_ride": "yes", "name": "Westgate P+R", "capacity": "250"}
    pr.update(parking="surface", access="yes", fee="no")
    lo, hi = c + 4.2, c + 4.8
    ring = b.area([(0.2, lo), (0.8, lo), (0.8, hi), (0.2, hi), (0.2, c + 4.5)], pr)
    b.add_way([pr_access, ring[4]], {"highway": "service", "service": "parking_aisle"})
    b.places["Westgate P+R"] = b.pos(0.5, c + 4.5)
    # bike share and bike parking
    bikes = (
        ("amenity", "bicycle_rental"),
        ("capacity", "20"),
        ("name", "Central Station Bikes"),
        ("network", "DemoBike"),
        ("operator", "Demo City Transit"),
    )
    b.new_node(b.pos(c + 6.1, c + 6.45), bikes)
    b.places["Central Station Bikes"] = b.pos(c + 6.1, c + 6.45)
    bikes2 = (
        ("amenity", "bicycle_rental"),
        ("capacity", "12"),
        ("name", "University Bikes"),
        ("network", "DemoBike"),
        ("operator", "Demo City Transit"),
    )
    b.new_node(b.pos(c + 10.3, c + 10.15), bikes2)
    parking = (
        ("amenity", "bicycle_parking"),
        ("bicycle_parking", "stands"),
        ("capacity", "40"),
        ("covered", "yes"),
        ("name", "University Bike Parking"),
    )
    b.new_node(b.pos(c + 10.15, c + 10.3), parking)


def lay_out_streets(seed: int, scale: int) -> StreetBuilder:
    """Build the street network of ``scale x scale`` tiles (no transit yet)."""
    b = StreetBuilder(seed, scale)
    o = b.o
    for tx in range(scale):
        for ty in range(scale):
            b.carve_superblock(TILE * tx + 7, TILE * ty + 7)
    b.carve_superblock(o + 10, o + 10)
    via, pr_access = _core_features(b)
    b.remove_random_segments()
    for i in range(b.n + 1):
        b.emit_grid_line("v", i)
    for j in range(b.n + 1):
        b.emit_grid_line("h", j)
    b.diagonals = b.emit_diagonals()
    for tx in range(scale):
        for ty in range(scale):
            b.emit_park(TILE * tx + 7, TILE * ty + 7, _park_name(b, tx, ty))
    _core_areas(b, pr_access)
    # no left turn from 7th Avenue northbound into the street westwards
    from_way = b.seg_way[("v", o + 6, o + 1)]
    to_way = b.seg_way[("h", o + 5, o + 2)]
    members = (("way", from_way, "from"), ("node", via, "via"), ("way", to_way, "to"))
    rtags = (("restriction", "no_left_turn"), ("type", "restriction"))
    b.relations.append(Relation(len(b.relations) + 1, members, rtags))
    return b
