"""The OSM tags kept per way after the build: the ones walk-comfort rules read.

Only a fixed set of keys is kept (:data:`WALK_TAG_KEYS`, plus any a ``walk-config.json``
names at build time), and identical tag subsets are stored once (ways point at them).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import numpy as np

from otpa.osm.model import WayTags

__all__ = ["WALK_TAG_KEYS", "select_way_tags"]

#: Keys kept by default: what describes walking along a street (sidewalks, lighting,
#: traffic, crossings, surface, width...).
WALK_TAG_KEYS: frozenset[str] = frozenset({
    "highway", "footway", "sidewalk", "sidewalk:left", "sidewalk:right", "sidewalk:both",
    "lit", "maxspeed", "lanes", "surface", "crossing", "foot", "segregated", "width",
    "incline", "traffic_calming", "tunnel", "cycleway", "wheelchair", "tactile_paving",
})  # fmt: skip


def select_way_tags(
    way_ids: Sequence[int] | np.ndarray,
    tags: Sequence[Mapping[str, str] | None],
    keys: Collection[str],
) -> WayTags:
    """Intern the ``keys`` subset of each way's tags.

    Parameters
    ----------
    way_ids
        The kept ways' ids.
    tags
        Each way's tags (None: unknown, e.g. synthetic multipolygon rings).
    keys
        The tag keys to keep.

    Examples
    --------
    >>> wt = select_way_tags([7, 3], [{"highway": "primary", "name": "A"}, None], {"highway"})
    >>> wt.tag_sets, wt.way_id.tolist(), wt.tag_set.tolist()
    ([{}, {'highway': 'primary'}], [3, 7], [0, 1])
    """
    wanted = frozenset(keys)
    index: dict[tuple[tuple[str, str], ...], int] = {(): 0}
    sets: list[dict[str, str]] = [{}]
    code = np.zeros(len(tags), dtype=np.int32)
    for i, way in enumerate(tags):
        if not way:
            continue
        kept = tuple(sorted((k, v) for k, v in way.items() if k in wanted))
        k = index.get(kept)
        if k is None:
            k = index[kept] = len(sets)
            sets.append(dict(kept))
        code[i] = k
    ids = np.asarray(way_ids, dtype=np.int64)
    order = np.argsort(ids, kind="stable")
    return WayTags(way_id=ids[order], tag_set=code[order], tag_sets=sets)
