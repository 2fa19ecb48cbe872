"""``WalkComfort``: a network's way tags and its current walk-comfort rules.

A network built from OSM keeps the walk-relevant tags of its ways (:class:`WayTags`) in a
:class:`WalkComfort`, with the rules of the build folder's ``walk-config.json`` when there
was one.  The rules can be replaced while the network serves (:meth:`WalkComfort.set_rules`,
the service's ``/walk_comfort``); every graph of the network reads its per-edge factors
through :func:`edge_walk_comfort`, recomputed once per rules version.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from otpa.errors import InvalidArgumentError
from otpa.osm.model import WayTags
from otpa.walkcomfort.rules import WalkComfortRules

if TYPE_CHECKING:
    from otpa.street import StreetGraph
    from otpa.types import FloatArray

__all__ = ["WalkComfort", "attach_walk_comfort", "edge_walk_comfort", "segment_factors"]

_MEMBER_PREFIX = "walk."
_HOLDER_KEY = "walk_comfort"
_FACTORS_KEY = "walk_comfort_factors"


class WalkComfort:
    """The walk-comfort data of a network (thread-safe; shared by the networks derived from it).

    Parameters
    ----------
    tags
        The kept tags of the network's ways.
    rules
        The rules in force, or None (walk comfort off: every factor 1).
    """

    def __init__(self, tags: WayTags, rules: WalkComfortRules | None = None) -> None:
        self.tags = tags
        self._rules = rules
        self._version = 0
        self._set_factors: FloatArray | None = None
        self._lock = threading.Lock()

    @property
    def rules(self) -> WalkComfortRules | None:
        """The rules in force (None: walk comfort is off)."""
        return self._rules

    @property
    def version(self) -> int:
        """Increases each time the rules change."""
        return self._version

    def set_rules(self, rules: WalkComfortRules | None) -> None:
        """Replace the rules (None turns walk comfort off)."""
        with self._lock:
            self._rules = rules
            self._version += 1
            self._set_factors = None

    def tag_set_factors(self) -> tuple[int, FloatArray | None]:
        """``(version, factor of each tag set)``; None when walk comfort is off."""
        with self._lock:
            if self._rules is None:
                return self._version, None
            if self._set_factors is None:
                self._set_factors = self._rules.factors_of(self.tags.tag_sets)
            return self._version, self._set_factors

    # -- persistence (members of the network file) -----------------------------------------
    def to_members(self) -> tuple[dict[str, npt.NDArray[Any]], dict[str, Any]]:
        """Arrays and documents to store in the network file."""
        arrays: dict[str, npt.NDArray[Any]] = {
            f"{_MEMBER_PREFIX}way_id": self.tags.way_id,
            f"{_MEMBER_PREFIX}tag_set": self.tags.tag_set,
        }
        rules = self._rules
        docs: dict[str, Any] = {
            f"{_MEMBER_PREFIX}tag_sets": self.tags.tag_sets,
            f"{_MEMBER_PREFIX}rules": None if rules is None else rules.document,
        }
        return arrays, docs

    @classmethod
    def from_members(
        cls, arrays: Mapping[str, npt.NDArray[Any]], docs: Mapping[str, Any]
    ) -> WalkComfort | None:
        """Read back what :meth:`to_members` stored (None for files without it)."""
        key = f"{_MEMBER_PREFIX}way_id"
        if key not in arrays:
            return None
        tag_sets = [dict(t) for t in docs[f"{_MEMBER_PREFIX}tag_sets"]]
        tag_set = np.asarray(arrays[f"{_MEMBER_PREFIX}tag_set"], dtype=np.int32)
        if tag_set.size and (tag_set.min() < 0 or tag_set.max() >= len(tag_sets)):
            msg = "walk comfort tag sets out of range"
            raise InvalidArgumentError(msg)
        tags = WayTags(np.asarray(arrays[key], dtype=np.int64), tag_set, tag_sets)
        document = docs.get(f"{_MEMBER_PREFIX}rules")
        rules = None if document is None else WalkComfortRules.from_document(document)
        return cls(tags, rules)


def attach_walk_comfort(graph: StreetGraph, walk_comfort: WalkComfort | None) -> None:
    """Make ``graph``'s walking costs follow ``walk_comfort`` (None: detach)."""
    if walk_comfort is None:
        graph._cache.pop(_HOLDER_KEY, None)
    else:
        graph._cache[_HOLDER_KEY] = walk_comfort


def segment_factors(graph: StreetGraph) -> tuple[tuple[int, int], FloatArray] | None:
    """``(key, factor of each segment)`` of a graph, or None when walk comfort is off.

    ``key`` changes whenever the factors do (it identifies the rules version).
    """
    holder: WalkComfort | None = graph._cache.get(_HOLDER_KEY)
    if holder is None:
        return None
    version, per_set = holder.tag_set_factors()
    if per_set is None:
        return None
    key = (id(holder), version)
    cached = graph._cache.get(_FACTORS_KEY)
    if cached is not None and cached[0] == key:
        result: tuple[tuple[int, int], FloatArray] = cached
        return result
    sets = holder.tags.lookup(np.asarray(graph.seg_way_id))
    factors = per_set[sets]
    factors.setflags(write=False)
    graph._cache[_FACTORS_KEY] = (key, factors)
    return key, factors


def edge_walk_comfort(graph: StreetGraph) -> tuple[tuple[int, int], FloatArray] | None:
    """``(key, walk-comfort factor of each edge)`` (its segment's), or None when off."""
    seg = segment_factors(graph)
    if seg is None:
        return None
    key, factors = seg
    per_edge: FloatArray = factors[np.asarray(graph.edge_segment)]
    return key, per_edge
