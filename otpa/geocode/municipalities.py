"""``MunicipalityIndex``: which municipality a point lies in (the municoder).

Boundaries come from OSM ``boundary=administrative`` relations read at build
time (see :func:`otpa.osm.read_admin_boundaries`) or from a GeoJSON file of
polygons with a ``name`` property; they are stored in the graph as GeoJSON
geometries.  Where boundaries nest, the deepest one wins (highest
``admin_level``, then the smallest area).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely
from shapely.geometry import shape

from otpa.errors import InvalidArgumentError

__all__ = ["Municipality", "MunicipalityIndex"]

_POLYGONAL = ("Polygon", "MultiPolygon")


@dataclass(frozen=True)
class Municipality:
    """A named area.

    Attributes
    ----------
    name
        Its name.
    geometry
        A GeoJSON ``Polygon`` or ``MultiPolygon`` (lon, lat order).
    admin_level
        OSM ``admin_level`` when known.
    """

    name: str
    geometry: Mapping[str, Any]
    admin_level: int | None = None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (the stored form)."""
        return {"name": self.name, "admin_level": self.admin_level, "geometry": self.geometry}


class MunicipalityIndex:
    """Point-in-polygon lookups over municipality boundaries (shapely STRtree).

    Examples
    --------
    >>> square = {"type": "Polygon", "coordinates": [[[8, 49], [9, 49], [9, 50], [8, 50], [8, 49]]]}
    >>> idx = MunicipalityIndex([Municipality("Mannheim", square, 6)])
    >>> idx.locate(49.5, 8.5).name
    'Mannheim'
    >>> idx.locate(0.0, 0.0) is None
    True
    """

    def __init__(self, municipalities: Iterable[Municipality]) -> None:
        self.municipalities: tuple[Municipality, ...] = tuple(municipalities)
        geoms = []
        for m in self.municipalities:
            if m.geometry.get("type") not in _POLYGONAL:
                msg = f"municipality {m.name!r}: geometry must be a Polygon or MultiPolygon"
                raise InvalidArgumentError(msg)
            geoms.append(shapely.make_valid(shape(m.geometry)))
        self._geoms = np.array(geoms, dtype=object)
        self._tree = shapely.STRtree(self._geoms)
        self._area = shapely.area(self._geoms) if geoms else np.zeros(0)

    def __len__(self) -> int:
        return len(self.municipalities)

    def locate(self, lat: float, lon: float) -> Municipality | None:
        """The municipality containing a point, or None."""
        if not len(self.municipalities):
            return None
        hits = self._tree.query(shapely.points(lon, lat), predicate="intersects")
        if not len(hits):
            return None
        best: int = min(
            hits.tolist(),
            key=lambda i: (-(self.municipalities[i].admin_level or 0), float(self._area[i]), i),
        )
        return self.municipalities[best]

    # -- stored form --------------------------------------------------------------------------
    def to_document(self) -> list[dict[str, Any]]:
        """The JSON list stored in the graph."""
        return [m.to_json() for m in self.municipalities]

    @classmethod
    def from_document(cls, doc: Sequence[Mapping[str, Any]]) -> MunicipalityIndex:
        """Read :meth:`to_document`'s list (ValueError when malformed)."""
        out = []
        for item in doc:
            name, geometry = item.get("name"), item.get("geometry")
            level = item.get("admin_level")
            if not isinstance(name, str) or not isinstance(geometry, Mapping):
                msg = "municipality entries need a name and a geometry"
                raise InvalidArgumentError(msg)
            out.append(Municipality(name, geometry, int(level) if level is not None else None))
        return cls(out)

    @classmethod
    def from_geojson(
        cls, data: Mapping[str, Any], *, name_property: str = "name"
    ) -> MunicipalityIndex:
        """Municipalities from a GeoJSON FeatureCollection of (multi)polygons.

        Features without a name or with another geometry type are skipped;
        ``admin_level`` is read from the properties when present.
        """
        if data.get("type") != "FeatureCollection" or not isinstance(data.get("features"), list):
            msg = "municipality boundaries must be a GeoJSON FeatureCollection"
            raise InvalidArgumentError(msg)
        out = []
        for feature in data["features"]:
            if not isinstance(feature, Mapping):
                continue
            props = feature.get("properties") or {}
            geometry = feature.get("geometry") or {}
            name = props.get(name_property) if isinstance(props, Mapping) else None
            if not isinstance(name, str) or not name or geometry.get("type") not in _POLYGONAL:
                continue
            level = props.get("admin_level")
            try:
                admin_level = int(level) if level is not None else None
            except (TypeError, ValueError):
                admin_level = None
            out.append(Municipality(name, dict(geometry), admin_level))
        return cls(out)
