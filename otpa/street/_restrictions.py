"""Resolve OSM turn restrictions to banned pairs of segment directions.

A via-node restriction ``(from_way, via, to_way)`` becomes bans on pairs
``(in, out)`` of directions entering and leaving the via vertex:

* ``no_*``: every direction of ``from_way`` entering the via vertex is banned
  from turning onto every direction of ``to_way`` leaving it;
* ``only_*``: it is banned from turning onto every *other* direction leaving
  the via vertex, the U-turn back onto the from-way included (as in OTP).

When the from- and to-way are the same way, only ``no_u_turn``/``only_u_turn``
style restrictions pair an entering direction with its own reverse; any other
restriction pairs it with the directions of that way that are not its reverse.
A way that passes *through* the via vertex (malformed per the OSM wiki)
contributes both its directions.

Restrictions with a via *way* are skipped here: a vertex-pair ban cannot say
"only after these edges", so :mod:`otpa.street._via_way` models them with
copies of the via-way segments once the via-node bans are in place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from otpa.osm.model import TurnRestriction
from otpa.street._csr import csr_indptr, stable_order
from otpa.street._segments import SegmentTable
from otpa.types import IntArray

__all__ = ["RestrictionResult", "resolve_restrictions"]


@dataclass(frozen=True)
class RestrictionResult:
    """The table with its raw bans set, and counts."""

    table: SegmentTable
    resolved: int
    unresolved: int


def _directions_at(
    table: SegmentTable,
) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """CSR of usable raw directions by tail vertex and by head vertex."""
    raw = np.flatnonzero(table.dir_perm.reshape(-1))
    tail = table.raw_tail()[raw]
    head = table.raw_head()[raw]
    out_order = stable_order(tail)
    in_order = stable_order(head)
    n_v = table.n_vertices
    return (
        csr_indptr(tail[out_order], n_v),
        raw[out_order],
        csr_indptr(head[in_order], n_v),
        raw[in_order],
    )


def resolve_restrictions(
    table: SegmentTable,
    restrictions: Sequence[TurnRestriction],
    old_to_new_vertex: IntArray,
) -> RestrictionResult:
    """Add the bans of the via-node ``restrictions`` (via vertices in OSM numbering) to ``table``.

    Via-way restrictions (``via_vertex < 0``) are left to :mod:`otpa.street._via_way`.
    """
    restrictions = [r for r in restrictions if r.via_vertex >= 0]
    if not restrictions:
        return RestrictionResult(table, 0, 0)
    out_ptr, out_raw, in_ptr, in_raw = _directions_at(table)
    way = table.seg_way_id
    froms: list[IntArray] = [table.ban_from_raw]
    tos: list[IntArray] = [table.ban_to_raw]
    modes: list[IntArray] = [table.ban_modes.astype(np.int64)]
    resolved = unresolved = 0
    n_old = old_to_new_vertex.shape[0]
    for r in restrictions:
        bits = int(r.modes) & 0x7
        v = int(old_to_new_vertex[r.via_vertex]) if r.via_vertex < n_old else -1
        if v < 0 or bits == 0 or r.kind not in ("no", "only"):
            unresolved += 1
            continue
        ins = in_raw[in_ptr[v] : in_ptr[v + 1]]
        ins = ins[way[ins >> 1] == r.from_way]
        outs = out_raw[out_ptr[v] : out_ptr[v + 1]]
        outs_to = outs[way[outs >> 1] == r.to_way]
        if ins.size == 0 or outs_to.size == 0:
            unresolved += 1
            continue
        u_turn = r.from_way == r.to_way and "u_turn" in r.restriction
        any_matched = False
        for e_in in ins.tolist():
            reverse = e_in ^ 1
            if u_turn:
                matched = outs_to[outs_to == reverse]
            elif r.from_way == r.to_way:
                matched = outs_to[outs_to != reverse]
            else:
                matched = outs_to
            if matched.size == 0:
                continue
            any_matched = True
            banned = matched if r.kind == "no" else outs[~np.isin(outs, matched)]
            froms.append(np.full(banned.size, e_in, dtype=np.int64))
            tos.append(banned.astype(np.int64))
            modes.append(np.full(banned.size, bits, dtype=np.int64))
        if any_matched:
            resolved += 1
        else:
            unresolved += 1
    new_table = replace(
        table,
        ban_from_raw=np.concatenate(froms),
        ban_to_raw=np.concatenate(tos),
        ban_modes=np.concatenate(modes).astype(np.uint8),
    )
    return RestrictionResult(new_table, resolved, unresolved)
