"""Point features: park-and-ride lots, bike parking and bike rental stations.

* park-and-ride: ``amenity=parking`` with ``park_ride`` other than ``no``, or with a
  ``parking`` value containing ``park_and_ride`` (OTP's ``isParkAndRide``);
* bike parking: ``amenity=bicycle_parking``;
* bike rental: ``amenity=bicycle_rental``.

Nodes give their own position, ways the mean of their distinct located nodes (a good
enough centroid for parking lots).  ``name`` is the raw ``name`` tag (``None`` if absent).
"""

from __future__ import annotations

from collections.abc import Mapping

from otpa.osm._scan import RawData
from otpa.osm.model import OsmFeature

__all__ = ["collect_features", "is_park_and_ride"]


def is_park_and_ride(tags: Mapping[str, str]) -> bool:
    """OTP's park-and-ride test.

    Examples
    --------
    >>> is_park_and_ride({"amenity": "parking", "park_ride": "bus"})
    True
    >>> is_park_and_ride({"amenity": "parking", "park_ride": "no"})
    False
    """
    if tags.get("amenity") != "parking":
        return False
    parking = tags.get("parking")
    park_ride = tags.get("park_ride")
    return (parking is not None and "park_and_ride" in parking) or (
        park_ride is not None and park_ride.lower() != "no"
    )


def _kind(tags: Mapping[str, str]) -> str | None:
    amenity = tags.get("amenity")
    if amenity == "bicycle_parking":
        return "bike_parking"
    if amenity == "bicycle_rental":
        return "bike_rental"
    if is_park_and_ride(tags):
        return "park_and_ride"
    return None


def collect_features(data: RawData) -> dict[str, list[OsmFeature]]:
    """Features by kind: ``park_and_ride``, ``bike_parking``, ``bike_rental``."""
    out: dict[str, list[OsmFeature]] = {"park_and_ride": [], "bike_parking": [], "bike_rental": []}
    for node_id in sorted(data.feature_nodes):
        lat, lon, tags = data.feature_nodes[node_id]
        kind = _kind(tags)
        if kind is not None:
            out[kind].append(OsmFeature(node_id, "node", lat, lon, tags.get("name"), tags))
    for way_id in sorted(data.feature_ways):
        raw = data.feature_ways[way_id]
        kind = _kind(raw.tags)
        if kind is None:
            continue
        centre = data.way_centre(raw)
        if centre is None:
            continue
        lat, lon = centre
        out[kind].append(OsmFeature(way_id, "way", lat, lon, raw.tags.get("name"), raw.tags))
    return out
