"""The router's street search: :mod:`otpa.street.edge_search` under the names the router uses.

The search itself (an edge-labelling Dijkstra with OTP 1.x turn handling) and its
kernel live in :mod:`otpa.street`; this module keeps the router's names.
"""

from __future__ import annotations

from otpa.street.edge_search import (
    SearchInputs,
    SearchResult,
    Seeds,
    banned,
    path_turn_costs,
    run_search,
    turn_cost,
)

__all__ = [
    "SearchInputs",
    "SearchResult",
    "Seeds",
    "banned",
    "path_turn_costs",
    "run_search",
    "turn_cost",
]
