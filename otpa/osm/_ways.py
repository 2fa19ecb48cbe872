"""Per-way attributes: routability, per-direction permissions, speed, safety, name, flags."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from otpa.osm._access import is_false, is_true, tag_verdict, way_permissions
from otpa.osm._names import way_name
from otpa.osm._speeds import car_speed_mps
from otpa.osm._tags import way_class_properties
from otpa.osm.model import (
    BICYCLE,
    CAR,
    FLAG_AREA,
    FLAG_BOGUS_NAME,
    FLAG_LINK,
    FLAG_MOTORROAD,
    FLAG_ROUNDABOUT,
    FLAG_SLOPE_OVERRIDE,
    FLAG_STAIRS,
    FLAG_TOLL,
    FLAG_WHEELCHAIR_NO,
    WALK,
)

__all__ = ["ROUTABLE_HIGHWAYS", "WayAttributes", "routable_kind", "way_attributes"]

_WALK = int(WALK)
_BIKE = int(BICYCLE)
_CAR = int(CAR)
_VEHICLE = _BIKE | _CAR

#: ``highway`` values kept as streets (everything else, e.g. ``construction``,
#: ``proposed``, ``abandoned``, ``bus_stop``, ``elevator``, is skipped).
ROUTABLE_HIGHWAYS = frozenset(
    {
        "motorway",
        "motorway_link",
        "trunk",
        "trunk_link",
        "primary",
        "primary_link",
        "secondary",
        "secondary_link",
        "tertiary",
        "tertiary_link",
        "unclassified",
        "residential",
        "residential_link",
        "living_street",
        "service",
        "track",
        "road",
        "byway",
        "pedestrian",
        "footway",
        "cycleway",
        "path",
        "bridleway",
        "steps",
        "corridor",
        "platform",
        "crossing",
    }
)

#: Kinds whose closed ``area=yes`` ways are walkable areas; ``area=yes`` on any other
#: kind (a road surface polygon) is skipped.
AREA_KINDS = frozenset(
    {"pedestrian", "footway", "path", "cycleway", "platform", "corridor", "bridleway"}
)

_ONEWAY_REVERSE = frozenset({"-1", "reverse"})
_ROUNDABOUT = frozenset({"roundabout", "circular"})
_NOT_SLOPE_OVERRIDE = frozenset({"no", "false", "0"})


@dataclass(frozen=True)
class WayAttributes:
    """Everything the segment builder needs to know about one routable way."""

    kind: str
    perm_fwd: int
    perm_back: int
    car_speed_mps: float
    safety_fwd: float
    safety_back: float
    name: str
    flags: int
    is_area: bool


class TagLookup(Protocol):
    """Anything with a dict-like ``get`` (a dict, or pyosmium's ``TagList``)."""

    def get(self, key: str, default: str | None = None, /) -> str | None:
        """Value of ``key``, or ``default``."""


def routable_kind(tags: TagLookup | Mapping[str, str]) -> str | None:
    """The highway kind of a routable way, ``"platform"`` for bare platforms, else ``None``.

    Examples
    --------
    >>> routable_kind({"highway": "residential"}), routable_kind({"highway": "construction"})
    ('residential', None)
    >>> routable_kind({"railway": "platform"}), routable_kind({"building": "yes"})
    ('platform', None)
    """
    highway = tags.get("highway")
    if highway is not None:
        return highway if highway in ROUTABLE_HIGHWAYS else None
    if tags.get("railway") == "platform" or tags.get("public_transport") == "platform":
        if tags.get("usability") == "no":
            return None
        return "platform"
    return None


def _oneway_permissions(tags: Mapping[str, str], kind: str, perm: int) -> tuple[int, int]:
    fwd = back = perm
    oneway = tags.get("oneway", "").strip().lower()
    roundabout = tags.get("junction") in _ROUNDABOUT
    implied = (roundabout or kind == "motorway") and oneway == ""
    if is_true(oneway) or implied:
        back &= ~_VEHICLE
    elif oneway in _ONEWAY_REVERSE:
        fwd &= ~_VEHICLE

    bike_oneway = tags.get("oneway:bicycle", "").strip().lower()
    bike_backward = tag_verdict(tags.get("bicycle:backward"))
    opposite = any(
        tags.get(key, "").startswith("opposite")
        for key in ("cycleway", "cycleway:left", "cycleway:right", "cycleway:both")
    )
    if is_true(bike_oneway) or bike_backward is False:
        back &= ~_BIKE
    elif bike_oneway in _ONEWAY_REVERSE:
        fwd &= ~_BIKE
    elif (is_false(bike_oneway) or bike_backward is True or opposite) and perm & _BIKE:
        fwd |= _BIKE
        back |= _BIKE

    foot_oneway = tags.get("oneway:foot", "").strip().lower()
    if is_true(foot_oneway):
        back &= ~_WALK
    elif foot_oneway in _ONEWAY_REVERSE:
        fwd &= ~_WALK
    return fwd, back


def _flags(tags: Mapping[str, str], kind: str, *, bogus: bool, is_area: bool) -> int:
    flags = 0
    if bogus:
        flags |= FLAG_BOGUS_NAME
    if kind == "steps":
        flags |= FLAG_STAIRS | FLAG_WHEELCHAIR_NO
    if tags.get("wheelchair") == "no":
        flags |= FLAG_WHEELCHAIR_NO
    if is_area:
        flags |= FLAG_AREA
    if tags.get("junction") in _ROUNDABOUT:
        flags |= FLAG_ROUNDABOUT
    if is_true(tags.get("motorroad")) or kind in ("motorway", "motorway_link"):
        flags |= FLAG_MOTORROAD
    if is_true(tags.get("toll")) or is_true(tags.get("toll:motorcar")):
        flags |= FLAG_TOLL
    if kind.endswith("_link"):
        flags |= FLAG_LINK
    if any(
        tags.get(key, "no").strip().lower() not in _NOT_SLOPE_OVERRIDE
        for key in ("bridge", "tunnel", "embankment")
    ):
        flags |= FLAG_SLOPE_OVERRIDE
    return flags


# Every tag key the attribute rules read, except the name keys: the cache key.
_ATTRIBUTE_KEYS = (
    "highway",
    "railway",
    "public_transport",
    "usability",
    "area",
    "access",
    "foot",
    "bicycle",
    "vehicle",
    "motor_vehicle",
    "motorcar",
    "motorroad",
    "sidewalk",
    "sidewalk:both",
    "sidewalk:left",
    "sidewalk:right",
    "cycleway",
    "cycleway:left",
    "cycleway:right",
    "cycleway:both",
    "footway",
    "footway:left",
    "footway:right",
    "footway:both",
    "surface",
    "surface:left",
    "surface:right",
    "surface:both",
    "highway:left",
    "highway:right",
    "highway:both",
    "bicycle:left",
    "bicycle:right",
    "bicycle:both",
    "area:left",
    "area:right",
    "area:both",
    "public_transport:left",
    "public_transport:right",
    "public_transport:both",
    "railway:left",
    "railway:right",
    "railway:both",
    "oneway",
    "oneway:bicycle",
    "oneway:foot",
    "bicycle:backward",
    "junction",
    "maxspeed",
    "maxspeed:motorcar",
    "maxspeed:forward",
    "maxspeed:backward",
    "maxspeed:lanes",
    "wheelchair",
    "toll",
    "toll:motorcar",
    "bridge",
    "tunnel",
    "embankment",
)

_ATTRIBUTE_KEY_SET = frozenset(_ATTRIBUTE_KEYS)
_CACHE: dict[tuple[object, ...], tuple[WayAttributes, bool] | None] = {}


def _core_attributes(tags: Mapping[str, str], *, closed: bool) -> tuple[WayAttributes, bool] | None:
    kind = routable_kind(tags)
    if kind is None:
        return None
    is_area = is_true(tags.get("area")) and closed
    if is_area and kind not in AREA_KINDS:
        return None
    props = way_class_properties(tags)
    perm = way_permissions(tags, props.permission)
    if perm == 0:
        return None
    if is_area:
        fwd = back = perm
    else:
        fwd, back = _oneway_permissions(tags, kind, perm)
    if fwd == 0 and back == 0:
        return None
    attrs = WayAttributes(
        kind=kind,
        perm_fwd=fwd,
        perm_back=back,
        car_speed_mps=car_speed_mps(tags, kind),
        safety_fwd=props.safety_fwd,
        safety_back=props.safety_back,
        name="",
        flags=_flags(tags, kind, bogus=False, is_area=is_area),
        is_area=is_area,
    )
    return attrs, is_area


def way_attributes(tags: Mapping[str, str], *, closed: bool) -> WayAttributes | None:
    """Attributes of a way, or ``None`` when no mode can use it.

    ``closed`` says whether the way's first and last node are the same (with at least
    three distinct nodes): only then can ``area=yes`` make it a walkable area.

    Examples
    --------
    >>> a = way_attributes({"highway": "residential", "oneway": "yes"}, closed=False)
    >>> (a.perm_fwd, a.perm_back, a.name)
    (7, 1, 'road')
    >>> way_attributes({"highway": "footway", "access": "no"}, closed=False) is None
    True
    """
    key = (closed, *sorted((k, v) for k, v in tags.items() if k in _ATTRIBUTE_KEY_SET))
    if key in _CACHE:
        core = _CACHE[key]
    else:
        core = _core_attributes(tags, closed=closed)
        _CACHE[key] = core
    if core is None:
        return None
    a, _ = core
    name, bogus = way_name(tags, a.kind)
    return WayAttributes(
        kind=a.kind,
        perm_fwd=a.perm_fwd,
        perm_back=a.perm_back,
        car_speed_mps=a.car_speed_mps,
        safety_fwd=a.safety_fwd,
        safety_back=a.safety_back,
        name=name,
        flags=a.flags | (FLAG_BOGUS_NAME if bogus else 0),
        is_area=a.is_area,
    )
