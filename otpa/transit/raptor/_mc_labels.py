"""McRAPTOR labels: the pool of parallel arrays, bags per (round, stop) and dominance.

Labels live in a pool and are chained into one *bag* per (round, stop).  Three
kinds: access (round 0), ride (passenger arrival after alighting) and walk
(after a walking transfer that follows a ride).

Dominance.  Waiting before the next boarding is charged ``wait_reluctance`` per
second, so an earlier label only dominates a later one when it is still cheaper
after waiting for it: ``t1 <= t2 and c1 + w * (t2 - t1) <= c2``.  Ride labels are
compared with ride labels only (they alone lead to egress and walking
transfers); a walk label is dominated by any label.  The helpers take arrays,
not the named tuple, and are inlined: attribute access inside the kernel's
loops would cost reference counting.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from otpa.transit.raptor._query import SearchQuery
from otpa.types import FloatArray, Int32Array, IntArray, UInt8Array

__all__ = [
    "KIND_ACCESS",
    "KIND_RIDE",
    "KIND_WALK",
    "OVERFLOW_DEST",
    "OVERFLOW_LABELS",
    "OVERFLOW_ROUTE_BAG",
    "McLabels",
    "beats",
    "dest_beats",
    "dominated",
    "egress_index",
    "new_mc_labels",
    "unlink_beaten",
]

KIND_ACCESS = 0
KIND_RIDE = 1
KIND_WALK = 2
OVERFLOW_LABELS = 1
OVERFLOW_ROUTE_BAG = 2
OVERFLOW_DEST = 3


class McLabels(NamedTuple):
    """Label pool, bags and destination set of one McRAPTOR search."""

    time: IntArray
    cost: FloatArray
    stop: Int32Array
    kind: UInt8Array
    parent: Int32Array  # ride: label boarded from; walk: ride walked from
    route: Int32Array
    trip: Int32Array  # route-trip index
    bpos: Int32Array
    apos: Int32Array
    ref: IntArray  # access index (access) or transfer edge (walk)
    rnd: Int32Array
    alive: UInt8Array
    nxt: Int32Array  # next label in the same bag
    head: Int32Array  # (max_rounds + 1, n_stops) first label of each bag
    used: IntArray  # [labels used, destinations used]
    d_label: Int32Array
    d_egress: Int32Array
    d_time: IntArray
    d_cost: FloatArray
    d_round: Int32Array
    d_alive: UInt8Array
    rb_size: IntArray  # [route bag capacity]


def new_mc_labels(n_rounds: int, n_stops: int, cap: int, dest_cap: int, rb_cap: int) -> McLabels:
    """Empty pool with room for ``cap`` labels and ``dest_cap`` journeys."""
    return McLabels(
        time=np.empty(cap, np.int64),
        cost=np.empty(cap, np.float64),
        stop=np.empty(cap, np.int32),
        kind=np.empty(cap, np.uint8),
        parent=np.empty(cap, np.int32),
        route=np.empty(cap, np.int32),
        trip=np.empty(cap, np.int32),
        bpos=np.empty(cap, np.int32),
        apos=np.empty(cap, np.int32),
        ref=np.empty(cap, np.int64),
        rnd=np.empty(cap, np.int32),
        alive=np.empty(cap, np.uint8),
        nxt=np.empty(cap, np.int32),
        head=np.full((n_rounds, n_stops), -1, np.int32),
        used=np.zeros(2, np.int64),
        d_label=np.empty(dest_cap, np.int32),
        d_egress=np.empty(dest_cap, np.int32),
        d_time=np.empty(dest_cap, np.int64),
        d_cost=np.empty(dest_cap, np.float64),
        d_round=np.empty(dest_cap, np.int32),
        d_alive=np.empty(dest_cap, np.uint8),
        rb_size=np.full(1, rb_cap, np.int64),
    )


@njit(cache=True, inline="always")  # type: ignore[misc]
def beats(t1: int | np.int64, c1: float, t2: int | np.int64, c2: float, w: float) -> bool:
    """Label (t1, c1) is at least as good as (t2, c2) for anything that follows."""
    return bool(t1 <= t2 and c1 + w * (t2 - t1) <= c2)


@njit(cache=True, inline="always")  # type: ignore[misc]
def dest_beats(
    d_alive: UInt8Array,
    d_time: IntArray,
    d_cost: FloatArray,
    d_round: Int32Array,
    n: int,
    t: float,
    c: float,
    rides: float,
) -> bool:
    """A journey found arrives no later than ``t`` for no more than ``c`` and ``rides``."""
    for i in range(n):
        if d_alive[i] != 0 and d_time[i] <= t and d_cost[i] <= c and d_round[i] <= rides:
            return True
    return False


@njit(cache=True, inline="always")  # type: ignore[misc]
def dominated(
    head: Int32Array,
    nxt: Int32Array,
    alive: UInt8Array,
    kind: UInt8Array,
    time: IntArray,
    cost: FloatArray,
    k: int,
    s: int,
    t: int | np.int64,
    c: float,
    ride: bool,
    w: float,
    f: float,
) -> bool:
    """Some label at ``s`` of round ``<= k`` beats ``(t, c)`` (only ride labels if ``ride``)."""
    for kk in range(k + 1):
        li = head[kk, s]
        while li >= 0:
            if alive[li] != 0 and (not ride or kind[li] == KIND_RIDE):
                if kind[li] != KIND_ACCESS:
                    if beats(time[li], cost[li], t, c, w):
                        return True
                elif f <= w and beats(time[li], cost[li], t, c, f):
                    return True
            li = nxt[li]
    return False


@njit(cache=True, inline="always")  # type: ignore[misc]
def unlink_beaten(
    head: Int32Array,
    nxt: Int32Array,
    alive: UInt8Array,
    kind: UInt8Array,
    time: IntArray,
    cost: FloatArray,
    k: int,
    s: int,
    t: int | np.int64,
    c: float,
    ride: bool,
    w: float,
) -> None:
    """Drop from bag (k, s) the labels a new ride (or walk) label ``(t, c)`` beats."""
    prev = -1
    x = head[k, s]
    while x >= 0:
        nx = nxt[x]
        dead = alive[x] == 0
        if not dead and (ride or kind[x] == KIND_WALK) and beats(t, c, time[x], cost[x], w):
            alive[x] = 0
            dead = True
        if dead:
            if prev < 0:
                head[k, s] = nx
            else:
                nxt[prev] = nx
        else:
            prev = x
        x = nx


@njit(cache=True)  # type: ignore[misc]
def egress_index(q: SearchQuery, n: int) -> tuple[IntArray, IntArray]:
    """CSR over stops of the egress entries."""
    ne = q.egress_stops.shape[0]
    e_off = np.zeros(n + 1, np.int64)
    for i in range(ne):
        e_off[q.egress_stops[i] + 1] += 1
    for s in range(n):
        e_off[s + 1] += e_off[s]
    e_idx = np.empty(ne, np.int64)
    fill = e_off[:-1].copy()
    for i in range(ne):
        s = q.egress_stops[i]
        e_idx[fill[s]] = i
        fill[s] += 1
    return e_off, e_idx
