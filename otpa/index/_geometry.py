"""Geometries of patterns and trips: GTFS shapes, or straight lines from stop to stop."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from otpa.index.model import EncodedPolyline
from otpa.transit.model import TransitModel
from otpa.types import FloatArray
from otpa.util.polyline import encode_polyline

__all__ = ["encode", "representative_shape", "shape_coordinates", "stop_coordinates"]


def shape_coordinates(transit: TransitModel, shape: int) -> tuple[FloatArray, FloatArray]:
    """``(lat, lon)`` arrays of shape number ``shape`` (in ``shape_pt_sequence`` order)."""
    a, b = int(transit.shape_offsets[shape]), int(transit.shape_offsets[shape + 1])
    return np.asarray(transit.shape_lat[a:b]), np.asarray(transit.shape_lon[a:b])


def stop_coordinates(transit: TransitModel, stops: Sequence[int]) -> tuple[FloatArray, FloatArray]:
    """``(lat, lon)`` of stops, in the given order, skipping stops without coordinates."""
    idx = np.asarray(stops, dtype=np.int64)
    lat = transit.stops.lat.to_numpy(float)[idx]
    lon = transit.stops.lon.to_numpy(float)[idx]
    ok = np.isfinite(lat) & np.isfinite(lon)
    return lat[ok], lon[ok]


def representative_shape(shapes: Sequence[int]) -> int:
    """The most common shape of a pattern's trips (the earliest trip's on ties), or -1.

    Parameters
    ----------
    shapes
        Shape number of each trip of the pattern, in trip order (-1: no shape).

    Examples
    --------
    >>> representative_shape([3, 5, 5, -1]), representative_shape([-1, 2, 4])
    (5, 2)
    >>> representative_shape([])
    -1
    """
    counts = Counter(s for s in shapes if s >= 0)
    if not counts:
        return -1
    best = max(counts.values())
    return next(s for s in shapes if counts.get(s, 0) == best)


def encode(lat: FloatArray, lon: FloatArray) -> EncodedPolyline:
    """The encoded polyline of coordinate arrays."""
    return EncodedPolyline(points=encode_polyline(lat, lon), length=len(lat))
