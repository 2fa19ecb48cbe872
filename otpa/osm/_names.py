"""Street names: ``name``, else ``ref``, else OTP's generated ("creative") name for the kind.

Generated names are OTP 1.x's ``createNames`` rules with the English strings of its
``WayProperties.properties``; the best-scoring rule wins (ties: the first listed), and
a way with no matching rule is named after its highway kind.  Generated names are
flagged ``FLAG_BOGUS_NAME`` by the reader.

==========================================  ===================
rule                                        name
==========================================  ===================
highway=cycleway, cycleway=track            bike path
highway=pedestrian, highway=footway         path
highway=pedestrian;area=yes                 open area
highway=path                                path
highway=bridleway                           bridleway
(highway|railway)=platform, public_transport=platform  platform
highway=footway|path|pedestrian;bridge=*    footbridge
highway=footway|path|pedestrian;tunnel=*    underpass
motorway, trunk, primary, secondary, tertiary, unclassified, residential,
living_street, road                         road
motorway_link, trunk_link                   ramp
primary/secondary/tertiary_link             link
service                                     service road
service;service=alley / parking_aisle       alley / parking aisle
byway / track / steps                       byway / track / steps
highway=footway;footway=sidewalk            sidewalk
highway=path;path=sidewalk                  sidewalk
==========================================  ===================
"""

from __future__ import annotations

from collections.abc import Mapping

from otpa.osm._specifier import match_score, parse_specifier

__all__ = ["way_name"]

_NAME_RULES_RAW: tuple[tuple[str, str], ...] = (
    ("highway=cycleway", "bike path"),
    ("cycleway=track", "bike path"),
    ("highway=pedestrian", "path"),
    ("highway=pedestrian;area=yes", "open area"),
    ("highway=path", "path"),
    ("highway=footway", "path"),
    ("highway=bridleway", "bridleway"),
    ("highway=footway;bicycle=no", "path"),
    ("railway=platform;highway=footway;footway=sidewalk", "platform"),
    ("railway=platform;highway=path;path=sidewalk", "platform"),
    ("railway=platform;highway=pedestrian", "platform"),
    ("railway=platform;highway=path", "platform"),
    ("railway=platform;highway=footway", "platform"),
    ("highway=platform", "platform"),
    ("railway=platform", "platform"),
    ("public_transport=platform", "platform"),
    ("railway=platform;highway=footway;bicycle=no", "platform"),
    ("highway=pedestrian;bridge=*", "footbridge"),
    ("highway=path;bridge=*", "footbridge"),
    ("highway=footway;bridge=*", "footbridge"),
    ("highway=pedestrian;tunnel=*", "underpass"),
    ("highway=path;tunnel=*", "underpass"),
    ("highway=footway;tunnel=*", "underpass"),
    ("highway=motorway", "road"),
    ("highway=motorway_link", "ramp"),
    ("highway=trunk", "road"),
    ("highway=trunk_link", "ramp"),
    ("highway=primary", "road"),
    ("highway=primary_link", "link"),
    ("highway=secondary", "road"),
    ("highway=secondary_link", "link"),
    ("highway=tertiary", "road"),
    ("highway=tertiary_link", "link"),
    ("highway=unclassified", "road"),
    ("highway=residential", "road"),
    ("highway=living_street", "road"),
    ("highway=road", "road"),
    ("highway=service", "service road"),
    ("highway=service;service=alley", "alley"),
    ("highway=service;service=parking_aisle", "parking aisle"),
    ("highway=byway", "byway"),
    ("highway=track", "track"),
    ("highway=footway;footway=sidewalk", "sidewalk"),
    ("highway=path;path=sidewalk", "sidewalk"),
    ("highway=steps", "steps"),
)
_NAME_RULES = tuple((parse_specifier(spec), name) for spec, name in _NAME_RULES_RAW)
_NAME_KEYS = tuple(sorted({key for spec, _ in _NAME_RULES for key, _ in spec}))
_CACHE: dict[tuple[str | None, ...], str | None] = {}


def _creative_name(tags: Mapping[str, str]) -> str | None:
    sig = tuple(tags.get(k) for k in _NAME_KEYS)
    if sig in _CACHE:
        return _CACHE[sig]
    best = 0
    found: str | None = None
    for spec, name in _NAME_RULES:
        score = match_score(spec, tags)
        if score > best:
            best, found = score, name
    _CACHE[sig] = found
    return found


def way_name(tags: Mapping[str, str], kind: str) -> tuple[str, bool]:
    """``(name, bogus)`` for a way: ``bogus`` when the name was generated.

    Examples
    --------
    >>> way_name({"highway": "residential", "name": "Main St"}, "residential")
    ('Main St', False)
    >>> way_name({"highway": "primary", "ref": "B 14"}, "primary")
    ('B 14', False)
    >>> way_name({"highway": "footway", "footway": "sidewalk"}, "footway")
    ('sidewalk', True)
    >>> way_name({"highway": "corridor"}, "corridor")
    ('corridor', True)
    """
    for key in ("name", "ref"):
        value = tags.get(key)
        if value is not None and value.strip():
            return value.strip(), False
    creative = _creative_name(tags)
    return (creative if creative is not None else kind.replace("_", " ")), True
