"""Walk comfort of a whole network: its factors per segment, and replacing its rules."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from otpa.osm.model import WALK
from otpa.walkcomfort.model import segment_factors
from otpa.walkcomfort.rules import WalkComfortRules

if TYPE_CHECKING:
    from otpa.network import TransportNetwork
    from otpa.types import FloatArray

__all__ = [
    "WalkComfortUpdate",
    "segment_walk_comfort",
    "set_walk_comfort_rules",
    "walk_comfort_version",
]


@dataclass(frozen=True)
class WalkComfortUpdate:
    """What :func:`set_walk_comfort_rules` did.

    Attributes
    ----------
    edges_updated
        Walkable street edges whose factor was recomputed (0 when the network keeps no
        way tags, e.g. built without OSM or before walk comfort existed).
    rules_loaded
        Number of rules now in force.
    """

    edges_updated: int
    rules_loaded: int


def set_walk_comfort_rules(
    network: TransportNetwork, rules: WalkComfortRules | None
) -> WalkComfortUpdate:
    """Put ``rules`` in force on a network (None: walk comfort off, every factor 1).

    Plans started afterwards use the new factors; the network file is not rewritten
    (save the network to keep them).
    """
    wc = network.walk_comfort
    if wc is None or network.street is None:
        return WalkComfortUpdate(0, 0 if rules is None else len(rules))
    wc.set_rules(rules)
    walkable = int(np.count_nonzero(np.asarray(network.street.edge_perm) & WALK))
    return WalkComfortUpdate(walkable, 0 if rules is None else len(rules))


def segment_walk_comfort(network: TransportNetwork) -> FloatArray | None:
    """Walk-comfort factor of each street segment, or None when walk comfort is off."""
    if network.street is None:
        return None
    found = segment_factors(network.street)
    return None if found is None else found[1]


def walk_comfort_version(network: TransportNetwork) -> int:
    """A number that changes whenever the network's walk-comfort rules do."""
    wc = network.walk_comfort
    return -1 if wc is None else wc.version
