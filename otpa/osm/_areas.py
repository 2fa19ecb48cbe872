"""Walkable areas: straight edges across a pedestrian area between its visibility points.

Like OTP's ``WalkableAreaBuilder`` with area visibility: the rings of a closed
``area=yes`` way, or of a walkable multipolygon (:mod:`otpa.osm._multipolygons`: outer
rings and holes), are kept as ordinary segments flagged ``FLAG_AREA``; in addition every
pair of *visibility points* is joined by a straight segment when that straight line
stays inside the area (never through a hole), so that people can cut across a square
instead of walking around its edge.  Visibility points are the *entrances* (ring nodes
shared with another routable way) and the *corners* a shortest path can bend around
(:func:`ring_corners`: reflex corners of an outer ring, convex corners of a hole).
Pairs already joined by a straight outline segment are skipped, and at most
:data:`MAX_ENTRANCES` points per area are used, entrances first (the rest keep only the
outline).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely

from otpa.types import BoolArray, FloatArray, IntArray

__all__ = ["MAX_ENTRANCES", "ring_corners", "visible_pairs"]

#: Most visibility points per area joined pairwise (pairs grow quadratically).
MAX_ENTRANCES = 200

# A corner turns by more than this (sine of the angle, ~0.6 degrees); flatter ones are
# not corners a path needs to bend around.
_MIN_TURN_SINE = 0.01

# Tolerance (degrees, ~1 cm) so that lines along the outline count as inside.
_TOLERANCE_DEG = 1e-7


def ring_corners(lat: FloatArray, lon: FloatArray, *, hole: bool) -> BoolArray:
    """Which nodes of a ring (closing node not repeated) a shortest path may bend around.

    For an outer ring, the reflex corners (interior angle above 180 degrees); for a
    hole, its convex corners.

    Examples
    --------
    An L-shaped square: only the inner corner of the L is reflex.

    >>> lat = np.array([0, 0, 1, 1, 2, 2], dtype=float) * 1e-3
    >>> lon = np.array([0, 2, 2, 1, 1, 0], dtype=float) * 1e-3
    >>> ring_corners(lat, lon, hole=False).tolist()
    [False, False, False, True, False, False]
    >>> ring_corners(lat, lon, hole=True).tolist()
    [True, True, True, False, True, True]
    """
    n = int(lat.shape[0])
    if n < 3:
        return np.zeros(n, dtype=bool)
    x = np.asarray(lon, dtype=np.float64) * np.cos(np.radians(float(np.mean(lat))))
    y = np.asarray(lat, dtype=np.float64)
    area2 = float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))
    ax, ay = x - np.roll(x, 1), y - np.roll(y, 1)  # edge into each node
    bx, by = np.roll(x, -1) - x, np.roll(y, -1) - y  # edge out of it
    cross = (ax * by - ay * bx) * (1.0 if area2 > 0 else -1.0)  # > 0: left turn (CCW)
    scale = np.hypot(ax, ay) * np.hypot(bx, by)
    turn = np.divide(cross, scale, out=np.zeros(n), where=scale > 0)
    corners: BoolArray = turn > _MIN_TURN_SINE if hole else turn < -_MIN_TURN_SINE
    return corners


def visible_pairs(
    ring_lat: FloatArray,
    ring_lon: FloatArray,
    entrance_lat: FloatArray,
    entrance_lon: FloatArray,
    holes: Sequence[tuple[FloatArray, FloatArray]] = (),
) -> tuple[IntArray, IntArray] | None:
    """Index pairs ``(i, j)``, ``i < j``, of points that see each other inside the area.

    The area is the outer ring less the ``holes`` (``(lat, lon)`` rings).  Returns
    ``None`` when they do not make a usable polygon.

    Examples
    --------
    A U-shaped square: the two tips of the U do not see each other across the gap.

    >>> lat = np.array([0, 0, 3, 3, 2, 2, 3, 3, 0], dtype=float)
    >>> lon = np.array([0, 3, 3, 2, 2, 1, 1, 0, 0], dtype=float)
    >>> i, j = visible_pairs(lat, lon, np.array([3.0, 3.0, 0.0]), np.array([0.5, 2.5, 1.5]))
    >>> sorted(zip(i.tolist(), j.tolist()))
    [(0, 2), (1, 2)]
    """
    polygon = shapely.Polygon(
        np.column_stack([ring_lon, ring_lat]),
        [np.column_stack([h_lon, h_lat]) for h_lat, h_lon in holes],
    )
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
