"""OTP 1.x ``DefaultWayPropertySetSource``: default permissions and bike safety per way.

Each rule is ``(specifier, permission, safety_forward, safety_backward)``; the best-scoring
rule (see :mod:`otpa.osm._specifier`) gives the permission and the bike safety factors,
separately for the forward (right-hand side tags) and backward (left-hand side tags)
direction.  Safety *mixins* (surface) multiply the result.  Values are OTP 1.x's "default"
set (the one used outside Germany, Norway, the UK...), as tuned by TriMet for Portland:
lower is safer, 1.0 is neutral.

Main rules (safety factor in brackets)::

    PEDESTRIAN          corridor, steps, crossing, platform (highway/railway/public_transport),
                        footway=sidewalk
    PEDESTRIAN+BICYCLE  cycleway (0.6), path (0.75), pedestrian (0.9), footway (1.1),
                        bridleway (1.3)
    ALL                 living_street (0.9), unclassified, road, tertiary(_link) (1.0),
                        byway, track (1.3), service (1.1), residential(_link) (0.98),
                        secondary(_link) (1.5), primary(_link) (2.06)
    CAR                 trunk_link, motorway_link (2.06), trunk (7.47), motorway (8)

    cycleway=lane       any 0.87 | service, residential 0.77 | tertiary 0.87 |
                        secondary 0.96 | primary 1.15 | trunk 1.5, motorway 2 (+BICYCLE)
    cycleway=track      any 0.75 | service, residential 0.65 | tertiary 0.75 |
                        secondary 0.8 | primary 0.85 | trunk 0.95 (+BICYCLE)
    cycleway=shared_lane / share_busway / opposite* : see the table below
    bicycle=designated  any 0.97 | path 0.6 | footway, pedestrian 0.75 | service 0.84 |
                        residential, unclassified 0.95 | secondary 1.46 | primary 2 | ...
    surface mixins      unpaved/compacted/wood x1.18; cobblestone/grass_paver/pebblestone/
                        metal x1.3; ground/dirt/earth/grass/mud/woodchip/gravel x1.5;
                        sand x100

OTP lets a rule whose specifier holds a ``*`` wildcard (``highway=*;cycleway=lane``)
outscore the plain class rule, so in OTP an unclassified road with a cycle lane loses
its CAR permission (OTP issues #1878, #5838).  Here a wildcard rule keeps the class
rule's permission as well (the union of both): its safety factors still apply.  The
Portland-only ``RLIS:*``/``CCGIS:*`` mixins are left out.  ``cycleway:both`` is read as
both ``cycleway:left`` and ``cycleway:right``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from otpa.osm._access import ALL as _ALL
from otpa.osm._specifier import Specifier, match_scores, parse_specifier
from otpa.osm.model import BICYCLE, CAR, WALK

__all__ = ["WayClassProperties", "class_properties", "way_class_properties"]

_P = int(WALK)
_B = int(BICYCLE)
_C = int(CAR)
_PB = _P | _B
_BC = _B | _C
_NONE = 0

# (specifier, permission, safety forward, safety backward); order matters for ties.
_RULES: tuple[tuple[str, int, float, float], ...] = (
    ("highway=raceway", _NONE, 1.0, 1.0),
    ("highway=construction", _NONE, 1.0, 1.0),
    # PEDESTRIAN
    ("highway=corridor", _P, 1.0, 1.0),
    ("highway=steps", _P, 1.0, 1.0),
    ("highway=crossing", _P, 1.0, 1.0),
    ("highway=platform", _P, 1.0, 1.0),
    ("public_transport=platform", _P, 1.0, 1.0),
    ("railway=platform", _P, 1.0, 1.0),
    ("footway=sidewalk;highway=footway", _P, 1.0, 1.0),
    # PEDESTRIAN_AND_BICYCLE
    ("highway=cycleway", _PB, 0.6, 0.6),
    ("highway=path", _PB, 0.75, 0.75),
    ("highway=pedestrian", _PB, 0.9, 0.9),
    ("highway=footway", _PB, 1.1, 1.1),
    ("highway=bridleway", _PB, 1.3, 1.3),
    # ALL
    ("highway=living_street", _ALL, 0.9, 0.9),
    ("highway=unclassified", _ALL, 1.0, 1.0),
    ("highway=road", _ALL, 1.0, 1.0),
    ("highway=byway", _ALL, 1.3, 1.3),
    ("highway=track", _ALL, 1.3, 1.3),
    ("highway=service", _ALL, 1.1, 1.1),
    ("highway=residential", _ALL, 0.98, 0.98),
    ("highway=residential_link", _ALL, 0.98, 0.98),
    ("highway=tertiary", _ALL, 1.0, 1.0),
    ("highway=tertiary_link", _ALL, 1.0, 1.0),
    ("highway=secondary", _ALL, 1.5, 1.5),
    ("highway=secondary_link", _ALL, 1.5, 1.5),
    ("highway=primary", _ALL, 2.06, 2.06),
    ("highway=primary_link", _ALL, 2.06, 2.06),
    # DRIVING ONLY
    ("highway=trunk_link", _C, 2.06, 2.06),
    ("highway=motorway_link", _C, 2.06, 2.06),
    ("highway=trunk", _C, 7.47, 7.47),
    ("highway=motorway", _C, 8.0, 8.0),
    # cycleway=lane
    ("highway=*;cycleway=lane", _PB, 0.87, 0.87),
    ("highway=service;cycleway=lane", _ALL, 0.77, 0.77),
    ("highway=residential;cycleway=lane", _ALL, 0.77, 0.77),
    ("highway=residential_link;cycleway=lane", _ALL, 0.77, 0.77),
    ("highway=tertiary;cycleway=lane", _ALL, 0.87, 0.87),
    ("highway=tertiary_link;cycleway=lane", _ALL, 0.87, 0.87),
    ("highway=secondary;cycleway=lane", _ALL, 0.96, 0.96),
    ("highway=secondary_link;cycleway=lane", _ALL, 0.96, 0.96),
    ("highway=primary;cycleway=lane", _ALL, 1.15, 1.15),
    ("highway=primary_link;cycleway=lane", _ALL, 1.15, 1.15),
    ("highway=trunk;cycleway=lane", _BC, 1.5, 1.5),
    ("highway=trunk_link;cycleway=lane", _BC, 1.15, 1.15),
    ("highway=motorway;cycleway=lane", _BC, 2.0, 2.0),
    ("highway=motorway_link;cycleway=lane", _BC, 1.15, 1.15),
    # cycleway=share_busway
    ("highway=*;cycleway=share_busway", _PB, 0.92, 0.92),
    ("highway=service;cycleway=share_busway", _ALL, 0.85, 0.85),
    ("highway=residential;cycleway=share_busway", _ALL, 0.85, 0.85),
    ("highway=residential_link;cycleway=share_busway", _ALL, 0.85, 0.85),
    ("highway=tertiary;cycleway=share_busway", _ALL, 0.92, 0.92),
    ("highway=tertiary_link;cycleway=share_busway", _ALL, 0.92, 0.92),
    ("highway=secondary;cycleway=share_busway", _ALL, 0.99, 0.99),
    ("highway=secondary_link;cycleway=share_busway", _ALL, 0.99, 0.99),
    ("highway=primary;cycleway=share_busway", _ALL, 1.25, 1.25),
    ("highway=primary_link;cycleway=share_busway", _ALL, 1.25, 1.25),
    ("highway=trunk;cycleway=share_busway", _BC, 1.75, 1.75),
    ("highway=trunk_link;cycleway=share_busway", _BC, 1.25, 1.25),
    ("highway=motorway;cycleway=share_busway", _BC, 2.5, 2.5),
    ("highway=motorway_link;cycleway=share_busway", _BC, 1.25, 1.25),
    # cycleway=opposite_lane
    ("highway=*;cycleway=opposite_lane", _PB, 1.0, 0.87),
    ("highway=service;cycleway=opposite_lane", _ALL, 1.1, 0.77),
    ("highway=residential;cycleway=opposite_lane", _ALL, 0.98, 0.77),
    ("highway=residential_link;cycleway=opposite_lane", _ALL, 0.98, 0.77),
    ("highway=tertiary;cycleway=opposite_lane", _ALL, 1.0, 0.87),
    ("highway=tertiary_link;cycleway=opposite_lane", _ALL, 1.0, 0.87),
    ("highway=secondary;cycleway=opposite_lane", _ALL, 1.5, 0.96),
    ("highway=secondary_link;cycleway=opposite_lane", _ALL, 1.5, 0.96),
    ("highway=primary;cycleway=opposite_lane", _ALL, 2.06, 1.15),
    ("highway=primary_link;cycleway=opposite_lane", _ALL, 2.06, 1.15),
    ("highway=trunk;cycleway=opposite_lane", _BC, 7.47, 1.5),
    ("highway=trunk_link;cycleway=opposite_lane", _BC, 2.06, 1.15),
    # cycleway=track
    ("highway=*;cycleway=track", _PB, 0.75, 0.75),
    ("highway=service;cycleway=track", _ALL, 0.65, 0.65),
    ("highway=residential;cycleway=track", _ALL, 0.65, 0.65),
    ("highway=residential_link;cycleway=track", _ALL, 0.65, 0.65),
    ("highway=tertiary;cycleway=track", _ALL, 0.75, 0.75),
    ("highway=tertiary_link;cycleway=track", _ALL, 0.75, 0.75),
    ("highway=secondary;cycleway=track", _ALL, 0.8, 0.8),
    ("highway=secondary_link;cycleway=track", _ALL, 0.8, 0.8),
    ("highway=primary;cycleway=track", _ALL, 0.85, 0.85),
    ("highway=primary_link;cycleway=track", _ALL, 0.85, 0.85),
    ("highway=trunk;cycleway=track", _BC, 0.95, 0.95),
    ("highway=trunk_link;cycleway=track", _BC, 0.85, 0.85),
    # cycleway=opposite_track
    ("highway=*;cycleway=opposite_track", _PB, 1.0, 0.75),
    ("highway=service;cycleway=opposite_track", _ALL, 1.1, 0.65),
    ("highway=residential;cycleway=opposite_track", _ALL, 0.98, 0.65),
    ("highway=residential_link;cycleway=opposite_track", _ALL, 0.98, 0.65),
    ("highway=tertiary;cycleway=opposite_track", _ALL, 1.0, 0.75),
    ("highway=tertiary_link;cycleway=opposite_track", _ALL, 1.0, 0.75),
    ("highway=secondary;cycleway=opposite_track", _ALL, 1.5, 0.8),
    ("highway=secondary_link;cycleway=opposite_track", _ALL, 1.5, 0.8),
    ("highway=primary;cycleway=opposite_track", _ALL, 2.06, 0.85),
    ("highway=primary_link;cycleway=opposite_track", _ALL, 2.06, 0.85),
    ("highway=trunk;cycleway=opposite_track", _BC, 7.47, 0.95),
    ("highway=trunk_link;cycleway=opposite_track", _BC, 2.06, 0.85),
    # cycleway=shared_lane (bike boulevards, neighbourhood greenways)
    ("highway=*;cycleway=shared_lane", _PB, 0.77, 0.77),
    ("highway=service;cycleway=shared_lane", _ALL, 0.73, 0.73),
    ("highway=residential;cycleway=shared_lane", _ALL, 0.77, 0.77),
    ("highway=residential_link;cycleway=shared_lane", _ALL, 0.77, 0.77),
    ("highway=tertiary;cycleway=shared_lane", _ALL, 0.83, 0.83),
    ("highway=tertiary_link;cycleway=shared_lane", _ALL, 0.83, 0.83),
    ("highway=secondary;cycleway=shared_lane", _ALL, 1.25, 1.25),
    ("highway=secondary_link;cycleway=shared_lane", _ALL, 1.25, 1.25),
    ("highway=primary;cycleway=shared_lane", _ALL, 1.75, 1.75),
    ("highway=primary_link;cycleway=shared_lane", _ALL, 1.75, 1.75),
    # cycleway=opposite
    ("highway=*;cycleway=opposite", _PB, 1.0, 1.4),
    ("highway=service;cycleway=opposite", _ALL, 1.1, 1.1),
    ("highway=residential;cycleway=opposite", _ALL, 0.98, 0.98),
    ("highway=residential_link;cycleway=opposite", _ALL, 0.98, 0.98),
    ("highway=tertiary;cycleway=opposite", _ALL, 1.0, 1.0),
    ("highway=tertiary_link;cycleway=opposite", _ALL, 1.0, 1.0),
    ("highway=secondary;cycleway=opposite", _ALL, 1.5, 1.71),
    ("highway=secondary_link;cycleway=opposite", _ALL, 1.5, 1.71),
    ("highway=primary;cycleway=opposite", _ALL, 2.06, 2.99),
    ("highway=primary_link;cycleway=opposite", _ALL, 2.06, 2.99),
    # multi-use paths, footways and pedestrian streets open to bikes
    ("highway=path;bicycle=designated", _PB, 0.6, 0.6),
    ("highway=footway;bicycle=designated", _PB, 0.75, 0.75),
    ("highway=footway;bicycle=yes;area=yes", _PB, 0.9, 0.9),
    ("highway=pedestrian;bicycle=designated", _PB, 0.75, 0.75),
    # sidewalks and crossings
    ("footway=sidewalk;highway=footway;bicycle=yes", _PB, 2.5, 2.5),
    ("footway=sidewalk;highway=footway;bicycle=designated", _PB, 1.1, 1.1),
    ("highway=footway;footway=crossing", _PB, 2.5, 2.5),
    ("highway=footway;footway=crossing;bicycle=designated", _PB, 1.1, 1.1),
    # bikes on tracks
    ("highway=track;bicycle=yes", _PB, 1.18, 1.18),
    ("highway=track;bicycle=designated", _PB, 0.99, 0.99),
    ("highway=track;bicycle=yes;surface=*", _PB, 1.18, 1.18),
    ("highway=track;bicycle=designated;surface=*", _PB, 0.99, 0.99),
    ("highway=track;surface=*", _PB, 1.3, 1.3),
    # bicycle=designated without bike infrastructure
    ("highway=*;bicycle=designated", _ALL, 0.97, 0.97),
    ("highway=service;bicycle=designated", _ALL, 0.84, 0.84),
    ("highway=residential;bicycle=designated", _ALL, 0.95, 0.95),
    ("highway=unclassified;bicycle=designated", _ALL, 0.95, 0.95),
    ("highway=residential_link;bicycle=designated", _ALL, 0.95, 0.95),
    ("highway=tertiary;bicycle=designated", _ALL, 0.97, 0.97),
    ("highway=tertiary_link;bicycle=designated", _ALL, 0.97, 0.97),
    ("highway=secondary;bicycle=designated", _ALL, 1.46, 1.46),
    ("highway=secondary_link;bicycle=designated", _ALL, 1.46, 1.46),
    ("highway=primary;bicycle=designated", _ALL, 2.0, 2.0),
    ("highway=primary_link;bicycle=designated", _ALL, 2.0, 2.0),
    ("highway=trunk;bicycle=designated", _BC, 7.25, 7.25),
    ("highway=trunk_link;bicycle=designated", _BC, 2.0, 2.0),
    ("highway=motorway;bicycle=designated", _BC, 7.76, 7.76),
    ("highway=motorway_link;bicycle=designated", _BC, 2.0, 2.0),
)

# Surface mixins: multiply the safety factor of the matching side(s).
_MIXINS: tuple[tuple[str, float, float], ...] = (
    ("surface=unpaved", 1.18, 1.18),
    ("surface=compacted", 1.18, 1.18),
    ("surface=wood", 1.18, 1.18),
    ("surface=cobblestone", 1.3, 1.3),
    ("surface=cobblestone:flattened", 1.3, 1.3),
    ("surface=grass_paver", 1.3, 1.3),
    ("surface=pebblestone", 1.3, 1.3),
    ("surface=metal", 1.3, 1.3),
    ("surface=ground", 1.5, 1.5),
    ("surface=dirt", 1.5, 1.5),
    ("surface=earth", 1.5, 1.5),
    ("surface=grass", 1.5, 1.5),
    ("surface=mud", 1.5, 1.5),
    ("surface=woodchip", 1.5, 1.5),
    ("surface=gravel", 1.5, 1.5),
    ("surface=artifical_turf", 1.5, 1.5),
    ("surface=sand", 100.0, 100.0),
)


@dataclass(frozen=True)
class _Rule:
    spec: Specifier
    permission: int
    safety_fwd: float
    safety_back: float
    wildcard: bool
    class_rule: bool


_PARSED_RULES = tuple(
    _Rule(
        parse_specifier(spec),
        perm,
        fwd,
        back,
        "*" in spec,
        ";" not in spec,
    )
    for spec, perm, fwd, back in _RULES
)
_PARSED_MIXINS = tuple((parse_specifier(spec), fwd, back) for spec, fwd, back in _MIXINS)

# Tag keys (and their :left/:right forms) that any rule looks at: the cache key.
_BASE_KEYS = sorted(
    {key for rule in _PARSED_RULES for key, _ in rule.spec}
    | {key for spec, _, _ in _PARSED_MIXINS for key, _ in spec}
)
_KEYS = tuple(k + suffix for k in _BASE_KEYS for suffix in ("", ":left", ":right", ":both"))


@dataclass(frozen=True)
class WayClassProperties:
    """Permission and bike safety of a way from the OTP way-property table.

    ``permission`` is before access tags and oneway rules.
    """

    permission: int
    safety_fwd: float
    safety_back: float


def _signature(tags: Mapping[str, str]) -> tuple[str | None, ...]:
    return tuple(tags.get(k) for k in _KEYS)


def _relevant_tags(signature: tuple[str | None, ...]) -> dict[str, str]:
    tags = {k: v for k, v in zip(_KEYS, signature, strict=True) if v is not None}
    for key in _BASE_KEYS:
        both = tags.get(key + ":both")
        if both is not None:
            tags.setdefault(key + ":left", both)
            tags.setdefault(key + ":right", both)
    return tags


def _evaluate(tags: Mapping[str, str]) -> WayClassProperties:
    best_left = best_right = 0
    left_rule: _Rule | None = None
    right_rule: _Rule | None = None
    best_class = 0
    class_perm: int | None = None
    for rule in _PARSED_RULES:
        left, right = match_scores(rule.spec, tags)
        if left > best_left:
            best_left, left_rule = left, rule
        if right > best_right:
            best_right, right_rule = right, rule
        if rule.class_rule and max(left, right) > best_class:
            best_class, class_perm = max(left, right), rule.permission
    if right_rule is None:
        permission, fwd = _ALL, 1.0
    else:
        permission, fwd = right_rule.permission, right_rule.safety_fwd
        if right_rule.wildcard and class_perm is not None:
            permission |= class_perm
    back = 1.0 if left_rule is None else left_rule.safety_back
    for spec, mix_fwd, mix_back in _PARSED_MIXINS:
        left, right = match_scores(spec, tags)
        if right > 0:
            fwd *= mix_fwd
        if left > 0:
            back *= mix_back
    return WayClassProperties(permission, fwd, back)


_CACHE: dict[tuple[str | None, ...], WayClassProperties] = {}


def way_class_properties(tags: Mapping[str, str]) -> WayClassProperties:
    """Best-matching OTP way properties for a way's tags (cached by the relevant tags).

    Examples
    --------
    >>> p = way_class_properties({"highway": "residential", "cycleway:right": "lane"})
    >>> p.safety_fwd, p.safety_back
    (0.77, 0.98)
    >>> way_class_properties({"highway": "unclassified", "cycleway": "lane"}).permission == 7
    True
    """
    sig = _signature(tags)
    props = _CACHE.get(sig)
    if props is None:
        props = _evaluate(_relevant_tags(sig))
        _CACHE[sig] = props
    return props


def class_properties(highway: str) -> WayClassProperties:
    """Properties of a bare ``highway=<kind>`` way (no other tags)."""
    return way_class_properties({"highway": highway})
