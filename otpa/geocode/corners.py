"""Street corners: vertices where two differently named streets meet."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["StreetCorner", "street_corners"]


@dataclass(frozen=True)
class StreetCorner:
    """One named corner: the two street names and where they meet."""

    lat: float
    lon: float
    street_a: str
    street_b: str

    @property
    def name(self) -> str:
        """``"A & B"``, as OTP 1.x named corners."""
        return f"{self.street_a} & {self.street_b}"


def street_corners(
    vertex_lat: npt.ArrayLike,
    vertex_lon: npt.ArrayLike,
    edge_from: npt.ArrayLike,
    edge_to: npt.ArrayLike,
    edge_name: npt.ArrayLike,
    names: Sequence[str],
    *,
    named: npt.ArrayLike | None = None,
) -> list[StreetCorner]:
    """Every pair of distinct street names meeting at a vertex, once per pair.

    Parameters
    ----------
    vertex_lat, vertex_lon
        Vertex positions.
    edge_from, edge_to
        Edge end vertices.
    edge_name
        Index of each edge's name in ``names``.
    names
        The street names.
    named
        Boolean per edge: whether its name is a real one (not generated from the
        highway kind); all by default.

    Returns
    -------
    list of StreetCorner
        Sorted by name pair; a pair meeting at several vertices (dual
        carriageways, loops) keeps its first vertex.

    Examples
    --------
    >>> c = street_corners([0.0, 1.0, 2.0], [0.0, 0.0, 0.0], [0, 1], [1, 2], [0, 1],
    ...                    ["Main St", "5th Ave"])
    >>> [(x.name, x.lat) for x in c]
    [('5th Ave & Main St', 1.0)]
    """
    lat = np.asarray(vertex_lat, dtype=np.float64)
    lon = np.asarray(vertex_lon, dtype=np.float64)
    name = np.asarray(edge_name, dtype=np.int64)
    keep = name >= 0
    if named is not None:
        keep &= np.asarray(named, dtype=bool)
    ends = np.concatenate([np.asarray(edge_from)[keep], np.asarray(edge_to)[keep]])
    street = np.concatenate([name[keep], name[keep]])
    # one (vertex, street) pair per distinct street name (by text, not index)
    text_id = np.unique(np.asarray(names, dtype=object).astype(str), return_inverse=True)[1]
    street = text_id[street] if street.size else street
    pairs = np.unique(np.stack([ends.astype(np.int64), street.astype(np.int64)], axis=1), axis=0)
    if pairs.size == 0:
        return []
    vertex, street = pairs[:, 0], pairs[:, 1]
    starts = np.flatnonzero(np.r_[True, vertex[1:] != vertex[:-1]])
    counts = np.diff(np.r_[starts, len(vertex)])
    canonical = {int(text_id[i]): names[i] for i in range(len(names) - 1, -1, -1)}
    seen: dict[tuple[int, int], int] = {}
    for s, c in zip(starts[counts >= 2].tolist(), counts[counts >= 2].tolist(), strict=True):
        v = int(vertex[s])
        group = street[s : s + c].tolist()
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                seen.setdefault((a, b) if canonical[a] <= canonical[b] else (b, a), v)
    corners = [
        StreetCorner(float(lat[v]), float(lon[v]), canonical[a], canonical[b])
        for (a, b), v in seen.items()
    ]
    corners.sort(key=lambda c: (c.street_a, c.street_b))
    return corners
