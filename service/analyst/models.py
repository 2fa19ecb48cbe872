"""OTP 1.x's JSON shapes of the analyst API (TimeSurfaceShort, indicators, point sets...)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import shapely

from otpa.analysis import PointSet
from otpa.analysis.indicator import Indicator
from service.analyst.surfaces import StoredSurface

__all__ = [
    "MAX_FULL_POINT_SET",
    "contours_json",
    "geometry_json",
    "indicator_json",
    "point_set_json",
    "time_surface_short",
]

#: Point sets with more points are described by ``{id, n}`` only (OTP's rule).
MAX_FULL_POINT_SET = 200
#: How OTP 1.x's point-set times mark an unreachable point (``Integer.MAX_VALUE``; the R
#: ``opentripplanner`` package reads only this as NA).
UNREACHABLE_TIME = 2_147_483_647


def _number(value: float) -> int | float | None:
    """An integral value as an int (OTP wrote ints), others as floats, NaN as null."""
    if not math.isfinite(value):
        return None
    return int(value) if float(value).is_integer() else float(value)


def time_surface_short(surface: StoredSurface) -> dict[str, Any]:
    """OTP's ``TimeSurfaceShort``: ``{id, params}``."""
    return {"id": surface.id, "params": dict(surface.params)}


def indicator_json(indicator: Indicator, indicator_id: str, *, detail: bool) -> dict[str, Any]:
    """OTP's indicator (``ResultSet.writeJson``): one-minute histograms per property.

    ``{"properties": {"id"}, "data": {property: {"sums", "counts"}}, "times"}``; ``times``
    (whole seconds, :data:`UNREACHABLE_TIME` where unreachable, in point-set order) only
    with ``detail``.
    """
    data = {
        name: {
            "sums": [_number(v) for v in histogram.sums.tolist()],
            "counts": [int(v) for v in histogram.counts.tolist()],
        }
        for name, histogram in indicator.histograms.items()
    }
    body: dict[str, Any] = {"properties": {"id": indicator_id}, "data": data}
    if detail:
        finite = np.isfinite(indicator.times)
        seconds = np.rint(np.where(finite, indicator.times, 0.0)).astype(np.int64)
        body["times"] = np.where(finite, seconds, UNREACHABLE_TIME).tolist()
    return body


def point_set_json(point_set_id: str, points: PointSet) -> dict[str, Any]:
    """OTP's point set: ``{id, n}`` above :data:`MAX_FULL_POINT_SET` points, else GeoJSON.

    The FeatureCollection has ``properties`` ``{id, label, schema}`` (one schema entry per
    opportunity column) and Point features whose ``properties.structured`` hold the
    opportunity values.
    """
    n = len(points)
    if n > MAX_FULL_POINT_SET:
        return {"id": point_set_id, "n": n}
    columns = [str(c) for c in points.opportunities.columns]
    values = [points.opportunities[c].to_numpy(dtype=np.float64) for c in columns]
    features = [
        {
            "id": point_id,
            "type": "Feature",
            "geometry": {
                "type": "Point",
                "coordinates": [float(points.lon[i]), float(points.lat[i])],
            },
            "properties": {
                "structured": {
                    c: _number(float(v[i])) for c, v in zip(columns, values, strict=True)
                }
            },
        }
        for i, point_id in enumerate(points.ids.tolist())
    ]
    return {
        "type": "FeatureCollection",
        "properties": {
            "id": point_set_id,
            "label": points.name or point_set_id,
            "schema": {c: {"label": c, "style": {}} for c in columns},
        },
        "features": features,
    }


def geometry_json(geometry: shapely.Geometry) -> dict[str, Any]:
    """A shapely geometry as a GeoJSON geometry object."""
    value: dict[str, Any] = json.loads(shapely.to_geojson(geometry))
    return value


def contours_json(
    cutoffs_s: Sequence[int], geometries: Sequence[shapely.Geometry], *, time_property: str
) -> dict[str, Any]:
    """A FeatureCollection of one MultiPolygon per cutoff, ``{time_property: seconds}``."""
    return {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "geometry": geometry_json(geometry),
                "properties": {time_property: int(cutoff)},
            }
            for cutoff, geometry in zip(cutoffs_s, geometries, strict=True)
        ],
    }
