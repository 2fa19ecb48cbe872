"""Walkable areas: straight edges across a pedestrian area between its entrances.

Like OTP's ``WalkableAreaBuilder`` (much simplified): the outline of a closed
``area=yes`` way is kept as ordinary segments flagged ``FLAG_AREA``; in addition, every
pair of *entrances* (outline nodes shared with another routable way) is joined by a
straight segment when that straight line stays inside the polygon, so that people can
cut across a square instead of walking around its edge.  Pairs already joined by a
straight outline segment are skipped, and at most :data:`MAX_ENTRANCES` entrances per
area are used (the rest keep only the outline).
"""

from __future__ import annotations

import numpy as np
import shapely

from otpa.types import BoolArray, FloatArray, IntArray

__all__ = ["MAX_ENTRANCES", "visible_pairs"]

#: Most entrances per area joined pairwise (pairs grow quadratically).
MAX_ENTRANCES = 200

# Tolerance (degrees, ~1 cm) so that lines along the outline count as inside.
_TOLERANCE_DEG = 1e-7


def visible_pairs(
    ring_lat: FloatArray,
    ring_lon: FloatArray,
    entrance_lat: FloatArray,
    entrance_lon: FloatArray,
) -> tuple[IntArray, IntArray] | None:
    """Index pairs ``(i, j)``, ``i < j``, of entrances that see each other inside the ring.

    Returns ``None`` when the ring is not a usable polygon.

    Examples
    --------
    A U-shaped square: the two tips of the U do not see each other across the gap.

    >>> lat = np.array([0, 0, 3, 3, 2, 2, 3, 3, 0], dtype=float)
    >>> lon = np.array([0, 3, 3, 2, 2, 1, 1, 0, 0], dtype=float)
    >>> i, j = visible_pairs(lat, lon, np.array([3.0, 3.0, 0.0]), np.array([0.5, 2.5, 1.5]))
    >>> sorted(zip(i.tolist(), j.tolist()))
    [(0, 2), (1, 2)]
    """
    polygon = shapely.Polygon(np.column_stack([ring_lon, ring_lat]))
    if polygon.is_empty or not polygon.is_valid or polygon.area <= 0.0:
        return None
    n = int(entrance_lat.shape[0])
    i, j = np.triu_indices(n, k=1)
    if i.size == 0:
        return i.astype(np.int64), j.astype(np.int64)
    starts = np.column_stack([entrance_lon[i], entrance_lat[i]])
    ends = np.column_stack([entrance_lon[j], entrance_lat[j]])
    lines = shapely.linestrings(np.stack([starts, ends], axis=1))
    inside: BoolArray = np.asarray(
        shapely.covers(polygon.buffer(_TOLERANCE_DEG), lines), dtype=bool
    )
    return i[inside].astype(np.int64), j[inside].astype(np.int64)
