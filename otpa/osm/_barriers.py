"""Barrier nodes: which modes a ``barrier=*`` node blocks.

Default blocked modes by barrier kind (then the node's own access tags override, with the
same hierarchy as ways: ``access``, ``foot``, ``bicycle``, ``vehicle``, ``motor_vehicle``,
``motorcar``):

=====================================================  ==================
barrier                                                blocks
=====================================================  ==================
bollard, block, jersey_barrier, cycle_barrier,         CAR
motorcycle_barrier, bus_trap, chain, log, planter,
rope, sump_buster, barrier_board, spikes, debris
stile, turnstile, full-height_turnstile,               CAR + BICYCLE
kissing_gate, step_over, horse_stile
gate, lift_gate, swing_gate, sliding_gate, entrance,   nothing (OTP: a gate
kerb, cattle_grid, toll_booth, border_control, ...     without access tags
                                                       is passable)
=====================================================  ==================

So ``barrier=gate`` + ``access=no`` blocks everything, ``barrier=bollard`` + ``motorcar=yes``
blocks nothing, and ``barrier=gate`` + ``access=private`` + ``foot=yes`` blocks cars and
bikes.  Nodes with access tags but no ``barrier`` tag (crossings with ``bicycle=no``...)
are not barriers.
"""

from __future__ import annotations

from collections.abc import Mapping

from otpa.osm._access import ALL, node_permissions
from otpa.osm.model import BICYCLE, CAR

__all__ = ["barrier_blocked_bits"]

_CAR = int(CAR)
_BIKE = int(BICYCLE)

_BLOCK_CAR = frozenset(
    {
        "bollard",
        "block",
        "jersey_barrier",
        "cycle_barrier",
        "motorcycle_barrier",
        "bus_trap",
        "chain",
        "log",
        "planter",
        "rope",
        "sump_buster",
        "barrier_board",
        "spikes",
        "debris",
    }
)
_BLOCK_CAR_BIKE = frozenset(
    {"stile", "turnstile", "full-height_turnstile", "kissing_gate", "step_over", "horse_stile"}
)


def barrier_blocked_bits(tags: Mapping[str, str]) -> int:
    """Permission bits blocked at a node (0 when passable or not a barrier).

    Examples
    --------
    >>> barrier_blocked_bits({"barrier": "bollard"}) == _CAR
    True
    >>> barrier_blocked_bits({"barrier": "gate"})
    0
    >>> barrier_blocked_bits({"barrier": "gate", "access": "no"})
    7
    """
    kind = tags.get("barrier")
    if kind is None:
        return 0
    kind = kind.strip().lower()
    default = ALL
    if kind in _BLOCK_CAR:
        default = ALL & ~_CAR
    elif kind in _BLOCK_CAR_BIKE:
        default = ALL & ~(_CAR | _BIKE)
    allowed = node_permissions(tags, default)
    return ALL & ~allowed
