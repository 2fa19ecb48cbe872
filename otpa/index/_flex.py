"""GTFS-Flex zones of a network, from the ``locations.geojson`` it was built with.

The transit model keeps every feed's ``locations.geojson`` features in one
GeoJSON FeatureCollection with feed-scoped ids (``TransitModel.flex_locations``),
and the saved graph stores it as a JSON member, so a loaded graph has the same
zones as the network it was saved from.  A graph may come from elsewhere (an
upload), so features are read defensively: one that is not a usable polygon
zone is skipped, never an error.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from otpa.errors import ArgumentTypeError, InvalidArgumentError
from otpa.index.model import FlexArea, FlexPolygon, FlexRing

__all__ = ["flex_areas_from_geojson"]


def _ring(positions: Any) -> FlexRing:
    ring = tuple((float(p[1]), float(p[0])) for p in positions)
    if not ring or not all(math.isfinite(v) for point in ring for v in point):
        msg = "empty ring or a position that is not a finite number"
        raise InvalidArgumentError(msg)
    return ring


def _polygons(geometry: Mapping[str, Any]) -> tuple[FlexPolygon, ...]:
    kind = geometry.get("type")
    coords: Any = geometry.get("coordinates")
    if kind == "Polygon":
        coords = [coords]
    elif kind != "MultiPolygon":
        msg = f"not a polygon ({kind})"
        raise InvalidArgumentError(msg)
    polygons = tuple(tuple(_ring(ring) for ring in polygon) for polygon in coords)
    if not polygons or not all(polygons):
        msg = "a polygon without rings"
        raise InvalidArgumentError(msg)
    return polygons


def _area(feature: Any) -> FlexArea:
    if not isinstance(feature, Mapping) or feature.get("id") is None:
        msg = "not a feature with an id"
        raise ArgumentTypeError(msg)
    geometry = feature.get("geometry")
    if not isinstance(geometry, Mapping):
        msg = "a feature without geometry"
        raise ArgumentTypeError(msg)
    props = feature.get("properties")
    name = props.get("stop_name") if isinstance(props, Mapping) else None
    return FlexArea(str(feature["id"]), None if name is None else str(name), _polygons(geometry))


def flex_areas_from_geojson(collection: Mapping[str, Any]) -> list[FlexArea]:
    """The polygon zones of a GeoJSON FeatureCollection whose feature ids are feed-scoped.

    Features without an id, without a Polygon or MultiPolygon geometry, or with
    malformed coordinates are left out.

    Examples
    --------
    >>> ring = [[8, 49], [9, 49], [8, 50], [8, 49]]
    >>> doc = {"features": [{"id": "f:z", "properties": {"stop_name": "Zone"},
    ...     "geometry": {"type": "Polygon", "coordinates": [ring]}},
    ...     {"id": "f:p", "geometry": {"type": "Point", "coordinates": [8, 49]}}]}
    >>> [(a.id, a.name, a.polygons[0][0][:2]) for a in flex_areas_from_geojson(doc)]
    [('f:z', 'Zone', ((49.0, 8.0), (49.0, 9.0)))]
    """
    features = collection.get("features")
    areas: list[FlexArea] = []
    for feature in features if isinstance(features, list) else []:
        try:
            areas.append(_area(feature))
        except (TypeError, ValueError, IndexError, KeyError):
            continue
    return areas
