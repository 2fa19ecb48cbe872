"""The tile layers: what each draws, in which colours, and its legend.

A layer sorts the network's street segments (or, for the directed layers, its edges) into
classes, each with a colour and a line width; :data:`LAYERS` describes every layer and its
legend, in drawing order (a later class is drawn over an earlier one).

``basemap``
    Streets by OSM class (motorways to paths), transit lines (rail and other modes) and
    stops on an opaque background: map context with no internet.
``bike-safety``
    Each edge by OTP's bicycle safety factor (below 1: preferred, above: avoided), drawn on
    the right-hand side of its direction; edges bicycles may not use in grey.
``traversal``
    Each edge by the modes allowed on it (OTP's traversal permissions), right-hand side.
``wheelchair``
    Walkable segments: accessible, steep (steepest slope above 8.33 %, the ADA ramp limit),
    or not accessible (steps, ``wheelchair=no``).
``elevation``
    Segments by their steepest slope (needs a DEM at build time; grey without one).
``walk-comfort``
    Walkable segments by their walk-comfort factor (:mod:`otpa.walkcomfort`; below 1
    preferred, above 1 avoided; grey while the network has no walk-comfort rules).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from otpa.osm.model import FLAG_STAIRS, FLAG_WHEELCHAIR_NO
from otpa.types import Int16Array
from otpa.util.cache import OwnerCache
from otpa.walkcomfort import segment_walk_comfort, walk_comfort_version

if TYPE_CHECKING:
    from otpa.network import TransportNetwork
    from otpa.street import StreetGraph

__all__ = ["LAYERS", "LayerInfo", "LegendEntry", "StreetStyle", "street_style"]

_WALK, _BICYCLE = 1, 2
#: Steepest slope a wheelchair ramp may have (ADA: 1:12).
WHEELCHAIR_MAX_SLOPE = 1.0 / 12.0


@dataclass(frozen=True)
class LegendEntry:
    """One class of a layer.

    Attributes
    ----------
    label
        What the class means.
    color
        ``"#rrggbb"``.
    width
        Line width in pixels at zoom 16 (scaled with the zoom).
    min_zoom
        Not drawn below this zoom.
    casing
        ``"#rrggbb"`` of an outline drawn under the line, or None.
    """

    label: str
    color: str
    width: float = 3.0
    min_zoom: int = 0
    casing: str | None = None

    def width_at(self, z: int) -> int:
        """Line width in pixels at zoom ``z`` (at least 1)."""
        scaled = self.width * 2.0 ** ((z - 16) * 0.6)
        return int(min(max(round(scaled), 1), 4 * self.width))

    def to_dict(self) -> dict[str, str]:
        """``{label, color}`` (the legend as the service sends it)."""
        return {"label": self.label, "color": self.color}


@dataclass(frozen=True)
class LayerInfo:
    """A tile layer.

    Attributes
    ----------
    key
        Its name in URLs (``bike-safety``...).
    name
        Human-readable name.
    legend
        Street classes in drawing order.
    directed
        Classes are per edge, each direction drawn on its right-hand side.
    background
        ``"#rrggbb"`` fill of the whole tile, or None (transparent).
    extra
        Classes drawn over the streets (the basemap's transit lines and stops).
    """

    key: str
    name: str
    legend: tuple[LegendEntry, ...]
    directed: bool = False
    background: str | None = None
    extra: tuple[LegendEntry, ...] = ()

    def to_dict(self) -> dict[str, object]:
        """``{key, name, legend: [{label, color}]}``."""
        entries = [e.to_dict() for e in (*self.legend, *self.extra) if e.label]
        return {"key": self.key, "name": self.name, "legend": entries}


_MINOR_CASING = "#c9c1b5"
_BASEMAP_STREETS = (
    LegendEntry("path, footway, cycleway", "#e08a7a", 1.0, 15),
    LegendEntry("service road", "#ffffff", 2.0, 15, _MINOR_CASING),
    LegendEntry("residential, unclassified", "#ffffff", 3.0, 13, _MINOR_CASING),
    LegendEntry("tertiary", "#ffffff", 4.0, 12, _MINOR_CASING),
    LegendEntry("secondary", "#f7fabf", 5.0, 10, "#bfc38f"),
    LegendEntry("primary", "#fcd6a4", 5.0, 8, "#cfa46e"),
    LegendEntry("trunk", "#f9b29c", 6.0, 6, "#c98e7c"),
    LegendEntry("motorway", "#e892a2", 6.0, 5, "#c06d7e"),
)
_BASEMAP_EXTRA = (
    LegendEntry("bus and other transit lines", "#3a7bd5", 2.0, 11),
    LegendEntry("rail transit lines", "#6a3d9a", 3.0, 8),
    LegendEntry("", "#333333", 8.0, 14),  # stop outline
    LegendEntry("transit stop", "#ffffff", 6.0, 14),
)
#: Class of each OSM highway value in the basemap (others: residential).
_HIGHWAY_CLASS: dict[str, int] = {
    **dict.fromkeys(
        ("footway", "path", "pedestrian", "steps", "cycleway", "bridleway", "track",
         "corridor", "platform", "elevator", "sidewalk", "crossing"), 0),
    "service": 1,
    "tertiary": 3, "tertiary_link": 3,
    "secondary": 4, "secondary_link": 4,
    "primary": 5, "primary_link": 5,
    "trunk": 6, "trunk_link": 6,
    "motorway": 7, "motorway_link": 7,
}  # fmt: skip
_RESIDENTIAL = 2

_BIKE_SAFETY = (
    LegendEntry("no bicycles", "#bdbdbd", 2.0),
    LegendEntry("preferred (safety factor < 0.95)", "#1a9641"),
    LegendEntry("neutral (0.95 to 1.05)", "#a6d96a"),
    LegendEntry("fair (1.05 to 1.6)", "#fee08b"),
    LegendEntry("poor (1.6 to 3)", "#fdae61"),
    LegendEntry("hostile (3 or more)", "#d7191c"),
)
_BIKE_SAFETY_BINS = np.array([0.95, 1.05, 1.6, 3.0])

#: Traversal classes, by permission bits (WALK=1, BICYCLE=2, CAR=4); class = order below.
_TRAVERSAL_PERMS = (7, 1, 2, 3, 4, 5, 6)
_TRAVERSAL = (
    LegendEntry("walk, bicycle, car", "#4d4d4d"),
    LegendEntry("walk", "#33a02c"),
    LegendEntry("bicycle", "#1f78b4"),
    LegendEntry("walk, bicycle", "#00bcd4"),
    LegendEntry("car", "#e31a1c"),
    LegendEntry("walk, car", "#ff7f00"),
    LegendEntry("bicycle, car", "#6a3d9a"),
)

_WHEELCHAIR = (
    LegendEntry("accessible", "#1a9641"),
    LegendEntry("steep (steepest slope above 8.33 %)", "#fdae61"),
    LegendEntry("not accessible (steps, wheelchair=no)", "#d7191c"),
)

_SLOPE_BINS = np.array([0.02, 0.04, 0.06, 0.08, 0.12])
_ELEVATION = (
    LegendEntry("no elevation data", "#bdbdbd", 2.0),
    LegendEntry("slope below 2 %", "#1a9850"),
    LegendEntry("2 to 4 %", "#91cf60"),
    LegendEntry("4 to 6 %", "#d9ef8b"),
    LegendEntry("6 to 8 %", "#fee08b"),
    LegendEntry("8 to 12 %", "#fc8d59"),
    LegendEntry("12 % or more", "#d73027"),
)

_WALK_COMFORT = (
    LegendEntry("no walk-comfort rules", "#bdbdbd", 2.0),
    LegendEntry("very comfortable (factor below 0.8)", "#1a9641"),
    LegendEntry("comfortable (0.8 to 0.95)", "#a6d96a"),
    LegendEntry("neutral (0.95 to 1.05)", "#4d4d4d"),
    LegendEntry("uncomfortable (1.05 to 1.25)", "#fdae61"),
    LegendEntry("very uncomfortable (1.25 or more)", "#d7191c"),
)
_COMFORT_BINS = np.array([0.8, 0.95, 1.05, 1.25])

#: Every layer, by key (the inspector's three OTP layers first).
LAYERS: dict[str, LayerInfo] = {
    "bike-safety": LayerInfo("bike-safety", "Bike safety", _BIKE_SAFETY, directed=True),
    "traversal": LayerInfo("traversal", "Traversal permissions", _TRAVERSAL, directed=True),
    "wheelchair": LayerInfo("wheelchair", "Wheelchair access", _WHEELCHAIR),
    "elevation": LayerInfo("elevation", "Elevation (slope)", _ELEVATION),
    "walk-comfort": LayerInfo("walk-comfort", "Walk comfort", _WALK_COMFORT),
    "basemap": LayerInfo(
        "basemap", "Basemap (streets, transit)", _BASEMAP_STREETS,
        background="#f2efe9", extra=_BASEMAP_EXTRA,
    ),
}  # fmt: skip


# -- classes per segment / edge ---------------------------------------------------------------


def _segment_max(street: StreetGraph, values: np.ndarray) -> np.ndarray:
    """Largest per-edge value over each segment's edges (NaN for segments without edges)."""
    out = np.full(street.n_segments, -np.inf)
    np.maximum.at(out, np.asarray(street.edge_segment), values)
    out[np.isneginf(out)] = np.nan
    return out


def _segment_walkable(street: StreetGraph) -> np.ndarray:
    walk = np.zeros(street.n_segments, dtype=bool)
    ok = (np.asarray(street.edge_perm) & _WALK) != 0
    walk[np.asarray(street.edge_segment)[ok]] = True
    return walk


def _basemap(network: TransportNetwork, street: StreetGraph) -> Int16Array:
    kinds = np.array(
        [_HIGHWAY_CLASS.get(k, _RESIDENTIAL) for k in street.highway_kinds] or [0],
        dtype=np.int16,
    )
    return kinds[np.asarray(street.seg_highway)].astype(np.int16)


def _bike_safety(network: TransportNetwork, street: StreetGraph) -> Int16Array:
    cls = 1 + np.searchsorted(_BIKE_SAFETY_BINS, np.asarray(street.edge_bike_safety), "right")
    bike = (np.asarray(street.edge_perm) & _BICYCLE) != 0
    return np.where(bike, cls, 0).astype(np.int16)


def _traversal(network: TransportNetwork, street: StreetGraph) -> Int16Array:
    lookup = np.full(8, -1, dtype=np.int16)
    for cls, perm in enumerate(_TRAVERSAL_PERMS):
        lookup[perm] = cls
    classes: Int16Array = lookup[np.asarray(street.edge_perm) & 7]
    return classes


def _wheelchair(network: TransportNetwork, street: StreetGraph) -> Int16Array:
    flags = np.asarray(street.edge_flags)
    blocked = _segment_max(street, ((flags & (FLAG_WHEELCHAIR_NO | FLAG_STAIRS)) != 0) * 1.0)
    cls = np.zeros(street.n_segments, dtype=np.int16)
    if street.edge_max_slope is not None:
        slope = _segment_max(street, np.abs(np.asarray(street.edge_max_slope)))
        cls[np.nan_to_num(slope) > WHEELCHAIR_MAX_SLOPE] = 1
    cls[blocked > 0] = 2
    cls[~_segment_walkable(street)] = -1
    return cls


def _elevation(network: TransportNetwork, street: StreetGraph) -> Int16Array:
    if street.edge_max_slope is None:
        return np.zeros(street.n_segments, dtype=np.int16)
    slope = _segment_max(street, np.abs(np.asarray(street.edge_max_slope)))
    cls = 1 + np.searchsorted(_SLOPE_BINS, np.nan_to_num(slope, nan=0.0), "right")
    return np.where(np.isfinite(slope), cls, 0).astype(np.int16)


def _walk_comfort(network: TransportNetwork, street: StreetGraph) -> Int16Array:
    factor = segment_walk_comfort(network)
    if factor is None:
        cls = np.zeros(street.n_segments, dtype=np.int16)
    else:
        cls = (1 + np.searchsorted(_COMFORT_BINS, factor, "right")).astype(np.int16)
    cls[~_segment_walkable(street)] = -1
    return cls


_CLASSIFIERS: dict[str, Callable[[TransportNetwork, StreetGraph], Int16Array]] = {
    "basemap": _basemap,
    "bike-safety": _bike_safety,
    "traversal": _traversal,
    "wheelchair": _wheelchair,
    "elevation": _elevation,
    "walk-comfort": _walk_comfort,
}


@dataclass(frozen=True)
class StreetStyle:
    """The class of every street segment (or edge, for directed layers); -1 = not drawn.

    ``version`` is the walk-comfort version it was computed for (styles of other layers
    never go stale).
    """

    classes: Int16Array
    version: int = 0


#: Per network and (layer, walk-comfort version); an outdated version is dropped as least used.
_STYLE_CACHE: OwnerCache[tuple[str, int], StreetStyle] = OwnerCache(max_entries=32)


def street_style(network: TransportNetwork, key: str) -> StreetStyle | None:
    """The street classes of layer ``key`` for a network (cached with it); None: no streets."""
    street = network.street
    if street is None:
        return None
    version = walk_comfort_version(network) if key == "walk-comfort" else 0
    return _STYLE_CACHE.get_or_build(
        network, (key, version), lambda: StreetStyle(_CLASSIFIERS[key](network, street), version)
    )
