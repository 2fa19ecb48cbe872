"""Transit lines of the synthetic demo city (private).

* Bus lines run along every fourth avenue and street (the ``secondary`` and
  ``primary`` ones), except the streets beside the railways, and along the
  Grand Diagonal; stops every second intersection, one stop per location for
  both directions.
* One east-west railway per tile row, in a tunnel half a block south of the
  primary street, with stations under every third avenue.  The one through the
  core tile is the *Harbour Line* (Westgate - Old Town - Central Station -
  Market Square - ... - Harbour); Central Station is a parent station with one
  platform per direction and timed transfers to the 7th Avenue bus stop.
* The University Express Shuttle loops Central Station -> University ->
  Central Station (a frequency-based trip).

The railways are also written to OSM (tracks, station nodes, route relations).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from otpa.testing._demo_model import (
    TILE,
    Line,
    Pattern,
    Relation,
    Stop,
    avenue_name,
    cumlen,
    rail_v,
    street_base,
    street_name,
)
from otpa.testing._demo_streets import StreetBuilder

__all__ = ["Transit", "add_transit"]

_STOP_SIDE_M = 6.0  # bus stops sit on the kerb, right of the direction-0 travel
_PLATFORM_OFFSET_M = 12.0
_TRANSFER_S = 180
_BUS_COLORS = (
    "E53935", "1E88E5", "43A047", "FB8C00", "8E24AA", "00897B", "6D4C41", "3949AB",
    "C0CA33", "D81B60", "5E35B1", "039BE5",
)  # fmt: skip
_RAIL_COLORS = ("003F87", "7B1FA2", "00695C", "BF360C")
_SHUTTLE_COLOR = "F9A825"


def _side(
    p0: tuple[float, float], p1: tuple[float, float], t: float, side: float
) -> tuple[float, float]:
    """Point at ``t`` from ``p0`` to ``p1``, shifted ``side`` metres to the right."""
    dx, dy = p1[0] - p0[0], p1[1] - p0[1]
    length = math.hypot(dx, dy) or 1.0
    return (p0[0] + t * dx + side * dy / length, p0[1] + t * dy - side * dx / length)


class Transit:
    """Stops, lines and transfers, built on a finished street layout."""

    def __init__(self, b: StreetBuilder) -> None:
        self.b = b
        self.stops: dict[str, Stop] = {}
        self.lines: list[Line] = []
        self.transfers: list[tuple[str, str, int]] = []

    def zone(self, x: float, y: float) -> str:
        """Fare zone: ``"1"`` in the central 70 % of the city (Chebyshev), else ``"2"``."""
        half = 0.35 * TILE * self.b.k * 150.0
        return "1" if max(abs(x), abs(y)) <= half else "2"

    def add_stop(
        self,
        stop_id: str,
        name: str,
        xy: tuple[float, float],
        *,
        location_type: int = 0,
        parent_station: str = "",
        platform_code: str = "",
    ) -> str:
        """Register a stop (the first registration of an id wins) and return its id."""
        if stop_id not in self.stops:
            x, y = round(xy[0], 2), round(xy[1], 2)
            self.stops[stop_id] = Stop(
                stop_id, name, x, y, self.zone(x, y), location_type, parent_station, platform_code
            )
        return stop_id

    def corridor(
        self, pts: Sequence[tuple[int, int]], prefix: str, names: Sequence[str]
    ) -> tuple[list[str], list[float]]:
        """Bus stops every second intersection along a street: ids and distances (m)."""
        b = self.b
        xy = np.array([b.node_xy(b.nid(i, j)) for i, j in pts])
        cum = cumlen(xy)
        last = len(pts) - 1
        params = [(k, 0.2) for k in range(0, last, 2)] + [(last - 1, 0.8)]
        ids: list[str] = []
        dists: list[float] = []
        for k, t in params:
            p0 = (float(xy[k, 0]), float(xy[k, 1]))
            p1 = (float(xy[k + 1, 0]), float(xy[k + 1, 1]))
            near = k if t < 0.5 else k + 1
            sid = f"{prefix}_{pts[near][0]}_{pts[near][1]}"
            ids.append(self.add_stop(sid, names[near], _side(p0, p1, t, _STOP_SIDE_M)))
            dists.append(float(cum[k] + t * (cum[k + 1] - cum[k])))
        return ids, [round(d - dists[0], 1) for d in dists]

    def bus_line(self, number: int, long_name: str, ids: list[str], dists: list[float]) -> None:
        """A two-way bus route over the given stops."""
        names = [self.stops[s].name for s in ids]
        back = [round(dists[-1] - d, 1) for d in reversed(dists)]
        pats = (
            Pattern(0, names[-1], tuple(ids), tuple(dists)),
            Pattern(1, names[0], tuple(reversed(ids)), tuple(back)),
        )
        color = _BUS_COLORS[(number - 1) % len(_BUS_COLORS)]
        self.lines.append(Line(str(number), str(number), long_name, "bus", color, pats))


def _bus_network(tr: Transit) -> None:
    b = tr.b
    n, o = b.n, b.o
    special = {(o + 6, o + 6): "Central Station", (o + 10, o + 10): "University"}
    number = 0
    for c in range(2, n, 4):  # north-south avenues
        pts = [(c, j) for j in range(n + 1)]
        names = [special.get(p, f"{avenue_name(c)} & {street_name(p[1])}") for p in pts]
        number += 1
        long_name = f"{avenue_name(c)}: {street_name(0)} – {street_name(n)}"
        tr.bus_line(number, long_name, *tr.corridor(pts, "bus_c", names))
    for r in range(2, n, 4):  # east-west streets, except beside the railways
        if r % TILE == 6:
            continue
        pts = [(i, r) for i in range(n + 1)]
        names = [special.get(p, f"{street_name(r)} & {avenue_name(p[0])}") for p in pts]
        number += 1
        long_name = f"{street_name(r)}: {avenue_name(0)} – {avenue_name(n)}"
        tr.bus_line(number, long_name, *tr.corridor(pts, "bus_r", names))
    m = b.main_diag
    pts = b.diagonals[m]
    diag = b.diag_name(m)
    names = [special.get(p, f"{diag} & {avenue_name(p[0])}") for p in pts]
    number += 1
    long_name = f"{diag}: {avenue_name(pts[0][0])} – {avenue_name(pts[-1][0])}"
    tr.bus_line(number, long_name, *tr.corridor(pts, f"bus_d{m}", names))


def _shuttle(tr: Transit) -> None:
    """The University Express: a loop up 7th Avenue and east along the university road."""
    b, o = tr.b, tr.b.o
    central, univ = tr.stops[f"bus_c_{o + 6}_{o + 6}"], tr.stops[f"bus_r_{o + 10}_{o + 10}"]
    up = [b.node_xy(b.nid(o + 6, j)) for j in range(o + 7, o + 11)]
    across = [b.node_xy(b.nid(i, o + 10)) for i in range(o + 7, o + 11)]
    path = np.array([(central.x, central.y), *up, *across, (univ.x, univ.y)])
    d = round(float(cumlen(path)[-1]), 1)
    ids = (central.stop_id, univ.stop_id, central.stop_id)
    loop = Pattern(0, "University", ids, (0.0, d, round(2 * d, 1)))
    name = "University Express Shuttle"
    tr.lines.append(Line("S", "S", name, "shuttle", _SHUTTLE_COLOR, (loop,)))


def _station_name(b: StreetBuilder, m: int, u: int) -> str:
    o = b.o
    if m == b.k // 2:
        fixed = {0: "Westgate", b.n: "Harbour", o + 3: "Old Town", o + 6: "Central Station"}
        fixed[o + 9] = "Market Square"
        return fixed.get(u, f"{avenue_name(u)} Station")
    return f"{street_name(TILE * m + 6)} / {avenue_name(u)}"


def _rail_osm(b: StreetBuilder, m: int, name: str) -> int:
    """The railway track of line ``m`` as an OSM way (in a tunnel); returns its id."""
    us = np.arange(0.0, b.n + 0.001, 0.25)
    vs = rail_v(m, us)
    track = [b.new_node(b.pos(float(u), float(v))) for u, v in zip(us, vs, strict=True)]
    tags = {"railway": "rail", "name": name, "tunnel": "yes", "layer": "-1", "usage": "main"}
    tags.update(electrified="contact_line", gauge="1435")
    return b.add_way(track, tags)


def _central_station(tr: Transit, name: str, xy: tuple[float, float]) -> tuple[str, str]:
    """Parent station, one platform per direction, transfers to the bus; platform ids."""
    o = tr.b.o
    parent = tr.add_stop("central_station", name, xy, location_type=1)
    tr.b.places[name] = xy
    bus = f"bus_c_{o + 6}_{o + 6}"
    plats: list[str] = []
    for k, side in ((1, -_PLATFORM_OFFSET_M), (2, _PLATFORM_OFFSET_M)):
        pid = f"central_station_{k}"
        pxy = (xy[0], xy[1] + side)
        plats.append(
            tr.add_stop(
                pid, f"{name} Platform {k}", pxy, parent_station=parent, platform_code=str(k)
            )
        )
        tr.transfers.extend([(pid, bus, _TRANSFER_S), (bus, pid, _TRANSFER_S)])
    return plats[0], plats[1]


def _rail_line(tr: Transit, m: int) -> None:
    """Railway ``m``: OSM track, stations and route relation; GTFS stops, shape, route."""
    b = tr.b
    n, o, main = b.n, b.o, b.k // 2
    line_name = "Harbour Line" if m == main else f"{street_base(TILE * m + 6)} Line"
    members: list[tuple[str, int, str]] = [("way", _rail_osm(b, m, line_name), "")]
    stop_u: list[float] = []
    ids0: list[str] = []
    ids1: list[str] = []
    for u in range(0, n + 1, 3):
        su = u + 0.2 if u < n else u - 0.2  # platforms just beside the avenue above
        stop_u.append(su)
        xy = b.pos(su, float(rail_v(m, su)))
        name = _station_name(b, m, u)
        st_tags = (("name", name), ("public_transport", "station"), ("railway", "station"))
        members.append(("node", b.new_node(xy, (*st_tags, ("train", "yes"))), "stop"))
        if m == main and u == o + 6:
            p1, p2 = _central_station(tr, name, xy)
            ids0.append(p1)
            ids1.append(p2)
            continue
        sid = tr.add_stop(f"rail_{m + 1}_{u}", name, xy)
        ids0.append(sid)
        ids1.append(sid)
        if m == main and u in (0, n):
            b.places[name] = xy
    color = _RAIL_COLORS[m % len(_RAIL_COLORS)]
    rel_tags = {"type": "route", "route": "train", "name": line_name, "ref": f"R{m + 1}"}
    rel_tags["colour"] = f"#{color}"
    rel = Relation(len(b.relations) + 1, tuple(members), tuple(sorted(rel_tags.items())))
    b.relations.append(rel)
    # the GTFS shape runs from the first to the last stop through every stop position
    su_all = np.unique(np.concatenate([np.arange(stop_u[0], stop_u[-1], 0.25), stop_u]))
    sv = rail_v(m, su_all)
    pts = np.array([b.pos(float(u), float(v)) for u, v in zip(su_all, sv, strict=True)])
    cum = cumlen(pts)
    at = {round(float(u), 6): float(cum[k]) for k, u in enumerate(su_all)}
    dists = tuple(round(at[round(u, 6)], 1) for u in stop_u)
    shape = tuple(
        (round(float(p[0]), 2), round(float(p[1]), 2), round(float(c), 1))
        for p, c in zip(pts, cum, strict=True)
    )
    total = shape[-1][2]
    back_shape = tuple((x, y, round(total - d, 1)) for x, y, d in reversed(shape))
    back = tuple(round(total - d, 1) for d in reversed(dists))
    first, last = tr.stops[ids0[0]].name, tr.stops[ids0[-1]].name
    pats = (
        Pattern(0, last, tuple(ids0), dists, shape),
        Pattern(1, first, tuple(reversed(ids1)), back, back_shape),
    )
    long_name = f"{line_name}: {first} – {last}"
    tr.lines.append(Line(f"R{m + 1}", f"R{m + 1}", long_name, "rail", color, pats))


def add_transit(b: StreetBuilder) -> Transit:
    """Add bus lines, the shuttle and the railways to a finished street layout."""
    tr = Transit(b)
    _bus_network(tr)
    _shuttle(tr)
    for m in range(b.k):
        _rail_line(tr, m)
    return tr
