"""Data model, naming and projection of the synthetic demo city (private).

The generator works in a local metric plane (``x`` east, ``y`` north, metres,
origin at the middle of the grid); :func:`to_latlon` projects to WGS84 only
when files are written.  The city is a square grid of ``12 * scale`` blocks a
side, made of 12 x 12 block *tiles*.  Grid positions are given in *index
coordinates* ``(u, v)``: ``u`` counts avenues from the west, ``v`` streets
from the south; fractional values interpolate inside a block.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from otpa.types import FloatArray
from otpa.util.geo import EARTH_RADIUS_M

__all__ = [
    "CENTER_LAT",
    "CENTER_LON",
    "TILE",
    "CityPlan",
    "Line",
    "Pattern",
    "Relation",
    "Stop",
    "Tags",
    "Way",
    "avenue_name",
    "cumlen",
    "ordinal",
    "rail_v",
    "street_base",
    "street_class",
    "street_name",
    "to_latlon",
    "tree",
]

#: Projection origin: open North Sea, about 40 km west of Texel (no real streets).
CENTER_LAT = 53.30
CENTER_LON = 4.20
#: Blocks per tile side.
TILE = 12

Tags = tuple[tuple[str, str], ...]

_TREES = (
    "Maple", "Oak", "Elm", "Birch", "Cedar", "Willow", "Ash", "Pine", "Chestnut", "Linden",
    "Poplar", "Alder", "Hazel", "Rowan", "Spruce", "Juniper", "Magnolia", "Beech", "Cherry",
    "Walnut", "Holly", "Laurel", "Sycamore", "Hawthorn", "Larch", "Cypress", "Hornbeam",
    "Acacia", "Olive", "Mulberry",
)  # fmt: skip
_PREFIXES = ("", "North ", "South ", "Upper ", "Lower ", "Old ", "New ", "Little ", "Great ")


@dataclass(frozen=True)
class Way:
    """An OSM way: ordered node ids and tags."""

    way_id: int
    nodes: tuple[int, ...]
    tags: Tags


@dataclass(frozen=True)
class Relation:
    """An OSM relation: ``(type, ref, role)`` members and tags."""

    relation_id: int
    members: tuple[tuple[str, int, str], ...]
    tags: Tags


@dataclass(frozen=True)
class Stop:
    """A GTFS stop in the metric plane."""

    stop_id: str
    name: str
    x: float
    y: float
    zone_id: str
    location_type: int = 0
    parent_station: str = ""
    platform_code: str = ""


@dataclass(frozen=True)
class Pattern:
    """The stops of one direction of a line, with distances along its path.

    ``dist_m`` starts at 0 at the first stop.  ``shape`` holds
    ``(x, y, dist_m)`` points from the first to the last stop, or is empty.
    """

    direction_id: int
    headsign: str
    stop_ids: tuple[str, ...]
    dist_m: tuple[float, ...]
    shape: tuple[tuple[float, float, float], ...] = ()


@dataclass(frozen=True)
class Line:
    """A transit route and its stop patterns (one per direction; a loop has one)."""

    route_id: str
    short_name: str
    long_name: str
    mode: Literal["bus", "rail", "shuttle"]
    color: str
    patterns: tuple[Pattern, ...]


@dataclass(frozen=True)
class CityPlan:
    """The whole synthetic city in the metric plane, ready to be written."""

    n_blocks: int
    nodes: dict[int, tuple[float, float]]
    node_tags: dict[int, Tags]
    ways: tuple[Way, ...]
    relations: tuple[Relation, ...]
    stops: tuple[Stop, ...]
    lines: tuple[Line, ...]
    transfers: tuple[tuple[str, str, int], ...]  # (from_stop, to_stop, min_transfer_time_s)
    places: dict[str, tuple[float, float]]


def to_latlon(x: FloatArray, y: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Project metric plane coordinates to WGS84 degrees (local equirectangular)."""
    lat = CENTER_LAT + np.degrees(np.asarray(y, dtype=np.float64) / EARTH_RADIUS_M)
    scale = EARTH_RADIUS_M * math.cos(math.radians(CENTER_LAT))
    lon = CENTER_LON + np.degrees(np.asarray(x, dtype=np.float64) / scale)
    return lat, lon


def cumlen(points: FloatArray) -> FloatArray:
    """Cumulative length (metres) along a polyline of ``(m, 2)`` points."""
    steps = np.hypot(np.diff(points[:, 0]), np.diff(points[:, 1]))
    return np.concatenate([[0.0], np.cumsum(steps)])


def rail_v(m: int, u: float | FloatArray) -> FloatArray:
    """Index ``v`` of railway ``m`` at avenue position ``u``: a gentle curve mid-block."""
    phase = 0.7 * m + 0.3
    return np.asarray(TILE * m + 5.5 + 0.12 * np.sin(2.0 * math.pi * np.asarray(u) / 9.0 + phase))


def ordinal(n: int) -> str:
    """``1 -> '1st'``, ``12 -> '12th'``, ``22 -> '22nd'``."""
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"


def street_class(index: int) -> str:
    """Highway class of the avenue or street with this grid index."""
    if index % TILE == 6:
        return "primary"
    if index % 4 == 2:
        return "secondary"
    return "residential"


def avenue_name(i: int) -> str:
    """Name of the north-south avenue ``i`` (``'1st Avenue'``, ...)."""
    return f"{ordinal(i + 1)} Avenue"


def street_base(j: int) -> str:
    """The name of east-west street ``j`` without its suffix (``'Maple'``)."""
    return _PREFIXES[(j // len(_TREES)) % len(_PREFIXES)] + _TREES[j % len(_TREES)]


def street_name(j: int) -> str:
    """Name of the east-west street ``j`` (``'Maple Street'``, ``'Elm Road'``...)."""
    suffix = {"primary": "Boulevard", "secondary": "Road"}.get(street_class(j), "Street")
    return f"{street_base(j)} {suffix}"


def tree(k: int) -> str:
    """A tree name, for parks."""
    return _TREES[k % len(_TREES)]
