"""Via-way turn restrictions by segment copies (node splitting without new vertices).

A via-way restriction forbids a *sequence* of three or more edges: the entry edge
``e0`` of the from way into vertex ``a``, the chain ``x1 .. xn`` along the via ways
to vertex ``b``, and an exit onto the to way (``no_*``), or every exit but the to way
(``only_*``).  Banned ``(incoming, outgoing)`` pairs cannot say "only after this chain",
so the chain is duplicated for the traffic the restriction concerns
(``docs/decisions/0003-via-way-restrictions.md``):

* every chain edge ``xi`` gets a one-way copy ``ci``: a new segment with the same ends,
  geometry and attributes, usable in ``xi``'s direction by the restricted modes only,
  flagged ``FLAG_RESTRICTION_COPY`` (linking and snapping skip it);
* ``(e0, x1)`` is banned for those modes, so they must enter the copy; ``(ci, x(i+1))``
  is banned so they stay on it; ``ci`` inherits every ban of ``xi`` (via-node
  restrictions at the chain's vertices) and may not U-turn onto ``xi``'s reverse;
* a copy is entered only from its own predecessor (``e0`` for ``c1``): every other
  in-edge at its start is banned onto it;
* at ``b`` the copy's forbidden exits are banned (``no_*``: the to way; ``only_*``:
  everything else).

Copies end at the original vertices, so vertex ids do not change and a vertex on the
chain stays reachable; every ban is an ordinary pair, so both street searches and
everything built on the CSR are unchanged.  Restrictions are applied one after the
other to the table as it grows: an entry or chain edge may itself be a copy made for an
earlier restriction (it is then copied again), and a chain the restricted modes can take
in several ways (original and copy) gets one copy chain per way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from otpa.osm.model import FLAG_RESTRICTION_COPY, TurnRestriction
from otpa.street._csr import csr_indptr, stable_order
from otpa.street._segments import SegmentTable
from otpa.types import IntArray

__all__ = ["ViaWayResult", "apply_via_way_restrictions"]


@dataclass(frozen=True)
class ViaWayResult:
    """The table with the copies and their bans, and counts."""

    table: SegmentTable
    resolved: int
    unresolved: int
    copy_segments: int


@dataclass
class _Growing:
    """A segment table plus the copies and bans added so far (raw direction ids)."""

    table: SegmentTable
    out_ptr: IntArray
    out_raw: IntArray
    in_ptr: IntArray
    in_raw: IntArray
    ban_from: IntArray  # base bans sorted by from-raw
    ban_to: IntArray
    ban_modes: IntArray
    copy_parent: list[int] = field(default_factory=list)  # base segment of each copy
    copy_dir: list[int] = field(default_factory=list)
    copy_perm: list[int] = field(default_factory=list)
    out_extra: dict[int, list[int]] = field(default_factory=dict)
    in_extra: dict[int, list[int]] = field(default_factory=dict)
    new_bans: dict[int, dict[int, int]] = field(default_factory=dict)

    @property
    def n_base(self) -> int:
        return self.table.n_segments

    def origin(self, raw: int) -> int:
        """The original (base table) direction a raw id is, or is a copy of."""
        seg = raw >> 1
        if seg < self.n_base:
            return raw
        k = seg - self.n_base
        return 2 * self.copy_parent[k] + self.copy_dir[k]

    def perm(self, raw: int) -> int:
        seg = raw >> 1
        if seg < self.n_base:
            return int(self.table.dir_perm[seg, raw & 1])
        k = seg - self.n_base
        return self.copy_perm[k] if (raw & 1) == self.copy_dir[k] else 0

    def way(self, raw: int) -> int:
        return int(self.table.seg_way_id[self.origin(raw) >> 1])

    def outs(self, v: int) -> list[int]:
        base: list[int] = self.out_raw[self.out_ptr[v] : self.out_ptr[v + 1]].tolist()
        return base + self.out_extra.get(v, [])

    def ins(self, v: int) -> list[int]:
        base: list[int] = self.in_raw[self.in_ptr[v] : self.in_ptr[v + 1]].tolist()
        return base + self.in_extra.get(v, [])

    def bans_from(self, raw: int) -> dict[int, int]:
        lo, hi = np.searchsorted(self.ban_from, [raw, raw + 1])
        out: dict[int, int] = {}
        for t, m in zip(self.ban_to[lo:hi].tolist(), self.ban_modes[lo:hi].tolist(), strict=True):
            out[t] = out.get(t, 0) | m
        for t, m in self.new_bans.get(raw, {}).items():
            out[t] = out.get(t, 0) | m
        return out

    def ban(self, frm: int, to: int, modes: int) -> None:
        if modes:
            row = self.new_bans.setdefault(frm, {})
            row[to] = row.get(to, 0) | modes

    def add_copy(self, raw: int, perm: int, tail: int, head: int) -> int:
        origin = self.origin(raw)
        self.copy_parent.append(origin >> 1)
        self.copy_dir.append(origin & 1)
        self.copy_perm.append(perm)
        new = 2 * (self.n_base + len(self.copy_parent) - 1) + (origin & 1)
        self.out_extra.setdefault(tail, []).append(new)
        self.in_extra.setdefault(head, []).append(new)
        return new


def _growing(table: SegmentTable) -> _Growing:
    raw = np.flatnonzero(table.dir_perm.reshape(-1))
    tail = table.raw_tail()[raw]
    head = table.raw_head()[raw]
    out_order = stable_order(tail)
    in_order = stable_order(head)
    ban_order = np.argsort(table.ban_from_raw, kind="stable")
    return _Growing(
        table=table,
        out_ptr=csr_indptr(tail[out_order], table.n_vertices),
        out_raw=raw[out_order],
        in_ptr=csr_indptr(head[in_order], table.n_vertices),
        in_raw=raw[in_order],
        ban_from=table.ban_from_raw[ban_order],
        ban_to=table.ban_to_raw[ban_order],
        ban_modes=table.ban_modes[ban_order].astype(np.int64),
    )


def _chain_raws(
    table: SegmentTable, r: TurnRestriction, old_to_new_vertex: IntArray, seg_of_source: IntArray
) -> tuple[list[int], list[int]] | None:
    """Vertices (new numbering) and base raw directions of the restriction's via path."""
    if len(r.via_path) != len(r.via_segments) + 1 or not r.via_segments:
        return None
    n_old = old_to_new_vertex.shape[0]
    vertices = [int(old_to_new_vertex[v]) if 0 <= v < n_old else -1 for v in r.via_path]
    n_src = seg_of_source.shape[0]
    segments = [int(seg_of_source[s]) if 0 <= s < n_src else -1 for s in r.via_segments]
    if min(vertices) < 0 or min(segments) < 0:
        return None
    raws = []
    for i, s in enumerate(segments):
        a, b = int(table.seg_from[s]), int(table.seg_to[s])
        if (a, b) == (vertices[i], vertices[i + 1]):
            raws.append(2 * s)
        elif (b, a) == (vertices[i], vertices[i + 1]):
            raws.append(2 * s + 1)
        else:
            return None
    return vertices, raws


def _instances(
    g: _Growing, r: TurnRestriction, vertices: list[int], raws: list[int]
) -> list[tuple[list[int], int]]:
    """Every ``([e0, x1 .. xn], modes)`` the restricted modes can drive in the graph now."""
    modes = int(r.modes) & 0x7
    partial = [
        ([e0], g.perm(e0) & modes)
        for e0 in g.ins(vertices[0])
        if g.way(e0) == r.from_way and g.perm(e0) & modes
    ]
    for i, raw in enumerate(raws):
        grown = []
        for edges, mm in partial:
            banned = g.bans_from(edges[-1])
            for y in g.outs(vertices[i]):
                if g.origin(y) != raw:
                    continue
                allowed = g.perm(y) & mm & ~banned.get(y, 0)
                if allowed:
                    grown.append(([*edges, y], allowed))
        partial = grown
    return partial


def _forbidden_exits(g: _Growing, r: TurnRestriction, b: int, last: int, mm: int) -> list[int]:
    """Exits at ``b`` the restriction forbids after ``last`` (those still open for ``mm``)."""
    banned = g.bans_from(last)
    outs = g.outs(b)
    to_exits = {y for y in outs if g.way(y) == r.to_way}
    chosen = to_exits if r.kind == "no" else set(outs) - to_exits
    return [y for y in outs if y in chosen and g.perm(y) & mm & ~banned.get(y, 0)]


def _copy_chain(
    g: _Growing, vertices: list[int], edges: list[int], mm: int, exits: list[int]
) -> None:
    """Add the copies ``c1 .. cn`` of ``edges[1:]`` for modes ``mm`` and their bans."""
    e0, chain = edges[0], edges[1:]
    g.ban(e0, chain[0], mm)
    pred = e0
    for i, x in enumerate(chain):
        tail, head = vertices[i], vertices[i + 1]
        c = g.add_copy(x, g.perm(x) & mm, tail, head)
        for z in g.ins(tail):
            if z not in (pred, c):
                g.ban(z, c, mm)
        for y, bm in g.bans_from(x).items():
            g.ban(c, y, bm & mm)
        reverse = g.origin(x) ^ 1
        if g.perm(reverse):
            g.ban(c, reverse, mm)
        if i + 1 < len(chain):
            g.ban(c, chain[i + 1], mm)
        pred = c
    for y in exits:
        g.ban(pred, y, mm)


def _finish(g: _Growing) -> SegmentTable:
    t = g.table
    n_copy = len(g.copy_parent)
    bans_f, bans_t, bans_m = [], [], []
    for frm, row in g.new_bans.items():
        for to, modes in row.items():
            bans_f.append(frm)
            bans_t.append(to)
            bans_m.append(modes)
    ban_from = np.concatenate([t.ban_from_raw, np.asarray(bans_f, dtype=np.int64)])
    ban_to = np.concatenate([t.ban_to_raw, np.asarray(bans_t, dtype=np.int64)])
    ban_modes = np.concatenate([t.ban_modes, np.asarray(bans_m, dtype=np.uint8)])
    if n_copy == 0:
        return replace(t, ban_from_raw=ban_from, ban_to_raw=ban_to, ban_modes=ban_modes)
    copy_parent = np.asarray(g.copy_parent, dtype=np.int64)
    parent = np.concatenate([np.arange(t.n_segments, dtype=np.int64), copy_parent])
    off = t.seg_geom_offsets
    counts = np.diff(off)[copy_parent]
    starts = np.repeat(off[copy_parent] - np.cumsum(counts) + counts, counts)
    gidx = starts + np.arange(int(counts.sum()), dtype=np.int64)
    new_off = np.concatenate([off, off[-1] + np.cumsum(counts)])
    dir_perm = np.zeros((n_copy, 2), dtype=np.uint8)
    dir_perm[np.arange(n_copy), np.asarray(g.copy_dir)] = np.asarray(g.copy_perm, np.uint8)
    flags = t.seg_flags[parent].copy()
    flags[t.n_segments :] |= np.uint16(FLAG_RESTRICTION_COPY)
    elev = None
    if t.dir_elevation is not None:
        elev = {k: v[parent] for k, v in t.dir_elevation.items()}
    return replace(
        t,
        seg_from=t.seg_from[parent],
        seg_to=t.seg_to[parent],
        seg_way_id=t.seg_way_id[parent],
        seg_length_m=t.seg_length_m[parent],
        seg_highway=t.seg_highway[parent],
        seg_source=t.seg_source[parent],
        seg_source_start=t.seg_source_start[parent],
        seg_source_end=t.seg_source_end[parent],
        seg_car_speed_mps=t.seg_car_speed_mps[parent],
        seg_name=t.seg_name[parent],
        seg_flags=flags,
        seg_geom_offsets=new_off,
        geom_lat=np.concatenate([t.geom_lat, t.geom_lat[gidx]]),
        geom_lon=np.concatenate([t.geom_lon, t.geom_lon[gidx]]),
        dir_perm=np.concatenate([t.dir_perm, dir_perm]),
        dir_bike_safety=t.dir_bike_safety[parent],
        dir_elevation=elev,
        ban_from_raw=ban_from,
        ban_to_raw=ban_to,
        ban_modes=ban_modes,
    )


def apply_via_way_restrictions(
    table: SegmentTable,
    restrictions: Sequence[TurnRestriction],
    old_to_new_vertex: IntArray,
) -> ViaWayResult:
    """Model the via-way ``restrictions`` with segment copies (see the module docstring).

    ``table`` must not contain split segments yet (each OSM segment at most once);
    its via-node bans are taken over by the copies.  A restriction is unresolved when
    its path is gone (pruned) or its from (to) way does not enter (leave) the path; one
    the restricted modes cannot drive anyway (one-way streets, via-node bans) is
    resolved without copies.
    """
    via_way = [r for r in restrictions if r.via_vertex < 0]
    if not via_way:
        return ViaWayResult(table, 0, 0, 0)
    g = _growing(table)
    n_src = int(table.seg_source.max()) + 1 if table.n_segments else 0
    seg_of_source = np.full(n_src, -1, dtype=np.int64)
    seg_of_source[table.seg_source] = np.arange(table.n_segments)
    resolved = unresolved = 0
    for r in via_way:
        found = _chain_raws(table, r, old_to_new_vertex, seg_of_source)
        if found is None or r.kind not in ("no", "only"):
            unresolved += 1
            continue
        vertices, raws = found
        a, b = vertices[0], vertices[-1]
        if not any(g.way(x) == r.from_way for x in g.ins(a)) or not any(
            g.way(y) == r.to_way for y in g.outs(b)
        ):
            unresolved += 1
            continue
        # no instance: the restricted modes cannot drive the sequence anyway (one-way
        # streets, or a via-node ban such as "no turn from the from way onto the via way")
        for edges, mm in _instances(g, r, vertices, raws):
            exits = _forbidden_exits(g, r, b, edges[-1], mm)
            if exits:
                _copy_chain(g, vertices, edges, mm, exits)
        resolved += 1
    return ViaWayResult(_finish(g), resolved, unresolved, len(g.copy_parent))
