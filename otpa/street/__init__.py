"""The routable street graph: build, link points, search.

>>> from otpa.street import build_street_graph, one_to_many  # doctest: +SKIP
"""

from __future__ import annotations

from otpa.street._elevation import SegmentElevation
from otpa.street.build import (
    ISLAND_MIN_VERTICES,
    ISLAND_WITH_KEPT_MIN_VERTICES,
    build_street_graph,
    prune_graph_islands,
)
from otpa.street.graph import BuildReport, StreetGraph
from otpa.street.linking import LinkResult, link_points
from otpa.street.search import (
    BIKE_SPEED_MPS,
    WALK_SPEED_MPS,
    StreetMode,
    StreetSearchResult,
    edge_costs,
    mode_bit,
    one_to_many,
    shortest_path,
)
from otpa.street.transfers import WalkTransfers, walk_transfers

__all__ = [
    "BIKE_SPEED_MPS",
    "ISLAND_MIN_VERTICES",
    "ISLAND_WITH_KEPT_MIN_VERTICES",
    "WALK_SPEED_MPS",
    "BuildReport",
    "LinkResult",
    "SegmentElevation",
    "StreetGraph",
    "StreetMode",
    "StreetSearchResult",
    "WalkTransfers",
    "build_street_graph",
    "edge_costs",
    "link_points",
    "mode_bit",
    "one_to_many",
    "prune_graph_islands",
    "shortest_path",
    "walk_transfers",
]
