"""Turn restrictions: ``type=restriction`` relations resolved against the kept ways.

* ``restriction=no_*|only_*`` applies to CAR and BICYCLE (OSM: all vehicles; OTP 1.x does
  the same); ``restriction:motorcar``/``:motor_vehicle`` to CAR, ``restriction:bicycle``
  to BICYCLE, ``restriction:vehicle`` to both; other ``restriction:<mode>`` keys (hgv,
  psv...) concern no mode routed here and are ignored.
* ``except=bicycle;psv`` removes BICYCLE (``motorcar``/``motor_vehicle`` remove CAR,
  ``vehicle`` both).
* ``from``/``to`` may list several ways (``no_entry``/``no_exit``): one
  :class:`~otpa.osm.model.TurnRestriction` per pair.  ``via`` is one node, or one or
  more ways (kept with ``via_vertex = -1`` and the path along the via ways, see
  :mod:`otpa.osm._via_ways`; one restriction per path).
* A relation whose members are missing from the routable ways, whose via node is not on
  both the from and the to way, whose via ways do not join the from way to the to way,
  or that has no usable value is dropped with a warning.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from otpa.osm._scan import RawRelation
from otpa.osm._via_ways import ViaPath
from otpa.osm.model import BICYCLE, CAR, TurnRestriction

__all__ = ["PendingRestriction", "finish_restrictions", "resolve_restrictions"]

_CAR = int(CAR)
_BIKE = int(BICYCLE)
_MODE_KEYS = {
    "motorcar": _CAR,
    "motor_vehicle": _CAR,
    "vehicle": _CAR | _BIKE,
    "bicycle": _BIKE,
}


@dataclass(frozen=True)
class PendingRestriction:
    """A restriction resolved to OSM ids, waiting for vertex indices."""

    relation_id: int
    from_way: int
    to_way: int
    via_node: int | None
    via_ways: tuple[int, ...]
    kind: str
    restriction: str
    modes: int


def _values_and_modes(tags: Mapping[str, str]) -> dict[str, int]:
    found: dict[str, int] = {}
    plain = tags.get("restriction")
    if plain:
        found[plain.strip()] = _CAR | _BIKE
    for key, bits in _MODE_KEYS.items():
        value = tags.get(f"restriction:{key}")
        if value:
            found[value.strip()] = found.get(value.strip(), 0) | bits
    removed = 0
    for part in tags.get("except", "").split(";"):
        removed |= _MODE_KEYS.get(part.strip(), 0)
    return {value: bits & ~removed for value, bits in found.items() if bits & ~removed}


def resolve_restrictions(
    relations: Mapping[int, RawRelation],
    way_refs: Mapping[int, list[int]],
    warnings: list[str],
) -> list[PendingRestriction]:
    """Resolve relations against the kept ways (``way_refs``: way id -> node ids)."""
    out: list[PendingRestriction] = []
    for rel_id in sorted(relations):
        rel = relations[rel_id]
        values = _values_and_modes(rel.tags)
        values = {v: m for v, m in values.items() if v.split("_", 1)[0] in ("no", "only")}
        if not values:
            warnings.append(f"turn restriction relation {rel_id}: no usable restriction value")
            continue
        from_ways = [ref for typ, ref, role in rel.members if typ == "w" and role == "from"]
        to_ways = [ref for typ, ref, role in rel.members if typ == "w" and role == "to"]
        via_nodes = [ref for typ, ref, role in rel.members if typ == "n" and role == "via"]
        via_ways = tuple(ref for typ, ref, role in rel.members if typ == "w" and role == "via")
        problem = _check(from_ways, to_ways, via_nodes, via_ways, way_refs)
        if problem is not None:
            warnings.append(f"turn restriction relation {rel_id} ignored: {problem}")
            continue
        via_node = via_nodes[0] if via_nodes else None
        for value, modes in values.items():
            for from_way in from_ways:
                for to_way in to_ways:
                    out.append(
                        PendingRestriction(
                            relation_id=rel_id,
                            from_way=from_way,
                            to_way=to_way,
                            via_node=via_node,
                            via_ways=() if via_node is not None else via_ways,
                            kind=value.split("_", 1)[0],
                            restriction=value,
                            modes=modes,
                        )
                    )
    return out


def _check(
    from_ways: list[int],
    to_ways: list[int],
    via_nodes: list[int],
    via_ways: tuple[int, ...],
    way_refs: Mapping[int, list[int]],
) -> str | None:
    if not from_ways or not to_ways:
        return "missing from or to member"
    if len(via_nodes) + (1 if via_ways else 0) != 1 or len(via_nodes) > 1:
        return "needs exactly one via node or via ways"
    for way in (*from_ways, *to_ways, *via_ways):
        if way not in way_refs:
            return f"way {way} is not a routable way in the data"
    if via_nodes:
        via = via_nodes[0]
        for way in (*from_ways, *to_ways):
            if via not in way_refs[way]:
                return f"via node {via} is not on way {way}"
    return None


def finish_restrictions(
    pending: list[PendingRestriction],
    vertex_of_node: Mapping[int, int],
    via_paths: Mapping[int, list[ViaPath]],
) -> list[TurnRestriction]:
    """Attach vertex indices to the via nodes, and the paths to via-way restrictions.

    ``via_paths`` maps the index of a via-way restriction in ``pending`` to its paths
    (:class:`~otpa.osm._via_ways.ViaWayResolver`); one restriction is made per path,
    none when it has no path.
    """
    out = []
    for i, p in enumerate(pending):
        if p.via_node is not None:
            paths: list[ViaPath] = [((), ())]
            via_vertex = vertex_of_node[p.via_node]
        else:
            paths = via_paths.get(i, [])
            via_vertex = -1
        for path, segments in paths:
            out.append(
                TurnRestriction(
                    relation_id=p.relation_id,
                    from_way=p.from_way,
                    to_way=p.to_way,
                    via_vertex=via_vertex,
                    kind=p.kind,
                    restriction=p.restriction,
                    modes=p.modes,
                    via_ways=p.via_ways,
                    via_path=path,
                    via_segments=segments,
                )
            )
    return out
