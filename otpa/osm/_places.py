"""Named places and points of interest kept for the geocoder.

A node or way is kept when it has a ``name`` and one of the POI keys below
(an amenity, shop, tourism, leisure, historic, office or place feature, a
railway/public-transport station, an aerodrome).  Only the ``name`` and the
tag that made it a place are kept, to keep saved graphs small; ways are placed
at the mean of their located nodes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

from otpa.osm.model import OsmFeature

if TYPE_CHECKING:
    from otpa.osm._scan import RawData

__all__ = ["PLACE_KEYS", "collect_places", "place_kind"]

#: Keys that make a named object a place (any value).
PLACE_KEYS = ("amenity", "shop", "tourism", "leisure", "historic", "office", "place")
#: Keys that make a named object a place only with these values.
_PLACE_VALUES = {
    "railway": frozenset({"station", "halt", "tram_stop"}),
    "public_transport": frozenset({"station"}),
    "aeroway": frozenset({"aerodrome", "terminal"}),
}


class _Tags(Protocol):
    def get(self, key: str, default: None = None, /) -> str | None: ...


def place_kind(tags: _Tags) -> str | None:
    """The ``key=value`` that makes a named object a place, or None.

    Examples
    --------
    >>> place_kind({"name": "Café Zentral", "amenity": "cafe"})
    'amenity=cafe'
    >>> place_kind({"name": "Ringstraße", "highway": "residential"}) is None
    True
    """
    if not tags.get("name"):
        return None
    for key in PLACE_KEYS:
        value = tags.get(key)
        if value and value != "no":
            return f"{key}={value}"
    for key, values in _PLACE_VALUES.items():
        value = tags.get(key)
        if value in values:
            return f"{key}={value}"
    return None


def _kept_tags(tags: Mapping[str, str], kind: str) -> dict[str, str]:
    key, _, value = kind.partition("=")
    return {"name": tags["name"], key: value}


def collect_places(data: RawData) -> list[OsmFeature]:
    """Named places: nodes first, then ways, each in id order."""
    out: list[OsmFeature] = []
    for node_id in sorted(data.place_nodes):
        lat, lon, tags = data.place_nodes[node_id]
        kind = place_kind(tags)
        if kind is not None:
            out.append(OsmFeature(node_id, "node", lat, lon, tags["name"], _kept_tags(tags, kind)))
    for way_id in sorted(data.place_ways):
        raw = data.place_ways[way_id]
        kind = place_kind(raw.tags)
        if kind is None:
            continue
        centre = data.way_centre(raw)
        if centre is None:
            continue
        lat, lon = centre
        tags = _kept_tags(raw.tags, kind)
        out.append(OsmFeature(way_id, "way", lat, lon, raw.tags["name"], tags))
    return out
