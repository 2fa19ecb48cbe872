"""Access tags (``access``, ``vehicle``, ``motorcar``, ``bicycle``, ``foot``...) to permission bits.

The rules follow OTP 1.x (``OSMFilter.getPermissionsForEntity`` / ``getPermissionsForWay``)
with the OSM access hierarchy made explicit: the most specific tag that says something
decides for a mode.

========  =====================================================================
mode      tags looked at, most specific first
========  =====================================================================
WALK      ``foot``, then ``access``
BICYCLE   ``bicycle``, then ``vehicle``, then ``access``
CAR       ``motorcar``, then ``motor_vehicle``, then ``vehicle``, then ``access``
========  =====================================================================

A mode-specific tag (``foot``, ``bicycle``, ``motorcar``, ``motor_vehicle``) with an
*allowed* value adds the mode even where the highway class does not allow it (OTP:
``foot=yes`` on a trunk makes it walkable).  The general tags ``access`` and ``vehicle``
only ever *remove* modes: ``access=yes`` on a footway does not let cars on it.

Allowed values: ``yes``, ``true``, ``1``, ``designated``, ``official``, ``permissive``,
``destination``, ``unknown``.  Denied values: ``no``, ``private``, ``agricultural``,
``forestry``, ``military``, ``emergency``, ``use_sidepath``, ``dismount`` (the last two only
mean something for ``bicycle``; ``foot=use_sidepath`` is neutral, as in OTP 1.x).
``private`` is denied because the street data
has no "no through traffic" notion (OTP keeps such ways with a no-through-traffic flag).
Any other value (``customers``, ``delivery``, ``discouraged``...) is neutral and the next,
less specific tag decides.  Semicolon lists (``agricultural;forestry``) are allowed if any
part is allowed, denied if every part is denied.
"""

from __future__ import annotations

from collections.abc import Mapping

from otpa.osm.model import BICYCLE, CAR, WALK

__all__ = [
    "ALL",
    "is_false",
    "is_true",
    "node_permissions",
    "tag_verdict",
    "way_permissions",
]

_WALK = int(WALK)
_BIKE = int(BICYCLE)
_CAR = int(CAR)
ALL = _WALK | _BIKE | _CAR

_ALLOWED = frozenset(
    {"yes", "true", "1", "designated", "official", "permissive", "destination", "unknown"}
)
_DENIED = frozenset(
    {
        "no",
        "false",
        "0",
        "private",
        "agricultural",
        "forestry",
        "military",
        "emergency",
        "use_sidepath",
        "dismount",
    }
)

_TRUE = frozenset({"yes", "true", "1"})
_FALSE = frozenset({"no", "false", "0"})


def is_true(value: str | None) -> bool:
    """Whether an OSM tag value means yes (``yes``, ``true``, ``1``)."""
    return value is not None and value.strip().lower() in _TRUE


def is_false(value: str | None) -> bool:
    """Whether an OSM tag value means no (``no``, ``false``, ``0``)."""
    return value is not None and value.strip().lower() in _FALSE


def tag_verdict(value: str | None) -> bool | None:
    """``True`` if an access value allows, ``False`` if it denies, ``None`` if neutral.

    Examples
    --------
    >>> tag_verdict("designated"), tag_verdict("private"), tag_verdict("customers")
    (True, False, None)
    >>> tag_verdict("agricultural;forestry"), tag_verdict("no;destination")
    (False, True)
    """
    if value is None:
        return None
    parts = [p.strip().lower() for p in value.split(";") if p.strip()]
    if not parts:
        return None
    if any(p in _ALLOWED for p in parts):
        return True
    if all(p in _DENIED for p in parts):
        return False
    return None


def _general_denied(tags: Mapping[str, str], keys: tuple[str, ...]) -> bool:
    return any(tag_verdict(tags.get(k)) is False for k in keys)


def _apply(
    perm: int,
    bit: int,
    tags: Mapping[str, str],
    specific: tuple[str, ...],
    general: tuple[str, ...],
) -> int:
    for key in specific:
        verdict = tag_verdict(tags.get(key))
        if verdict is True:
            return perm | bit
        if verdict is False:
            return perm & ~bit
    if _general_denied(tags, general):
        return perm & ~bit
    return perm


def entity_permissions(tags: Mapping[str, str], default: int) -> int:
    """Apply the access hierarchy to the permission bits ``default``.

    Examples
    --------
    >>> entity_permissions({"access": "no", "foot": "yes"}, ALL) == _WALK
    True
    >>> entity_permissions({"access": "yes"}, _WALK) == _WALK
    True
    >>> entity_permissions({"motor_vehicle": "no", "motorcar": "yes"}, ALL) == ALL
    True
    """
    perm = default
    if tags.get("foot") == "use_sidepath":
        # OTP 1.x denies pedestrians only for foot=no|license: a separately mapped
        # sidewalk may be missing from the extract, so the road stays walkable.
        tags = {k: v for k, v in tags.items() if k != "foot"}
    perm = _apply(perm, _WALK, tags, ("foot",), ("access",))
    perm = _apply(perm, _BIKE, tags, ("bicycle",), ("vehicle", "access"))
    return _apply(perm, _CAR, tags, ("motorcar", "motor_vehicle"), ("vehicle", "access"))


_SIDEWALK_KEYS = ("sidewalk", "sidewalk:both", "sidewalk:left", "sidewalk:right")
_SIDEWALK_YES = frozenset({"both", "left", "right", "yes"})


def has_sidewalk(tags: Mapping[str, str]) -> bool:
    """Whether the way carries a sidewalk mapped on it (not ``separate``/``no``)."""
    return any(tags.get(k, "").strip().lower() in _SIDEWALK_YES for k in _SIDEWALK_KEYS)


def way_permissions(tags: Mapping[str, str], default: int) -> int:
    """Permission bits of a way, before oneway rules.

    ``default`` is the highway class's permission from the way-property table.  On top of
    the access hierarchy: ``bicycle=dismount`` / ``cycleway=dismount`` removes BICYCLE (the
    router walks the bike where walking is allowed), ``motorroad=yes`` removes WALK and
    BICYCLE unless ``foot``/``bicycle`` explicitly allow them, and a sidewalk tagged on the
    way (``sidewalk=both|left|right|yes``) adds WALK when ``foot`` does not deny it.
    """
    perm = entity_permissions(tags, default)
    foot = tag_verdict(tags.get("foot"))
    bike = tag_verdict(tags.get("bicycle"))
    if tags.get("bicycle") == "dismount" or tags.get("cycleway") == "dismount":
        perm &= ~_BIKE
    if is_true(tags.get("motorroad")):
        if foot is not True:
            perm &= ~_WALK
        if bike is not True:
            perm &= ~_BIKE
    elif (
        not perm & _WALK
        and foot is None
        and not _general_denied(tags, ("access",))
        and has_sidewalk(tags)
    ):
        perm |= _WALK
    return perm


def node_permissions(tags: Mapping[str, str], default: int) -> int:
    """Permission bits allowed through a node with access tags (barriers)."""
    return entity_permissions(tags, default)
