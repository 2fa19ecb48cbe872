"""Label arrays that the searches of one thread hand on to the next one.

A WALK,TRANSIT plan runs two or three arrival searches and as many McRAPTOR
searches.  Each used to allocate its labels: 16 arrays of ``rounds x stops`` filled
with "unreached" for the round search, a McRAPTOR pool of 13 arrays for ~16 k labels
(``8 x n_stops``), and a McRAPTOR search whose pool overflowed ran again from the
start with a pool four times as large (the next-morning requests on RNV: three runs
of up to 160 k labels thrown away before the one that fits).  Each thread now keeps
one set of each and lends it to its next search:

* **round labels** (:class:`~._round_kernel.RoundLabels`) are given back in their
  fresh state (:func:`~._round_kernel.clear_round_labels` fills the arrays again, without
  allocating them; kept up to :data:`KEEP_ROUND_CELLS`);
* **McRAPTOR pools** (:class:`~._mc_labels.McLabels`): the kernel writes every label
  before it reads it, so only the bag heads and the counters are reset.  A thread's
  first pool has room for :data:`FIRST_LABELS` labels (its pages become resident only
  once written); a pool that had to grow past :data:`KEEP_LABELS` serves its search
  and is then dropped.

Pools are lent, not shared: a search borrows the thread's pool (the thread has none
while it is out) and gives it back when its results are read, so plans running
concurrently in a server's threads never see each other's labels, and a nested or
failed search just allocates its own.  What a search finds does not depend on the
capacities: a search that overflows returns nothing and runs again with more room.
"""

from __future__ import annotations

import threading

import numpy as np

from otpa.transit.raptor._mc_labels import McLabels, new_mc_labels
from otpa.transit.raptor._round_kernel import RoundLabels, clear_round_labels, new_round_labels

__all__ = [
    "FIRST_LABELS",
    "KEEP_LABELS",
    "KEEP_ROUND_CELLS",
    "give_mc_labels",
    "give_round_labels",
    "take_mc_labels",
    "take_round_labels",
]

#: Label capacity of a thread's first McRAPTOR pool (~15 MB of address space, resident
#: only where written): RNV's slowest bench request needs ~196 k.
FIRST_LABELS = 1 << 18
#: Largest McRAPTOR pool a thread keeps for its next search.
KEEP_LABELS = 1 << 19
#: Destination capacity of a thread's first pool.
_FIRST_DEST = 256
#: Largest round labels (rounds x stops cells, ~71 bytes each) a thread keeps: RNV's
#: 6 x 2,057 and the 4x region's 6 x 9,824 are kept, larger networks allocate per search.
KEEP_ROUND_CELLS = 1 << 17

_LOCAL = threading.local()


def take_round_labels(n_rounds: int, n_stops: int) -> RoundLabels:
    """Fresh round labels: the thread's own when their shape fits, else new ones."""
    lab: RoundLabels | None = getattr(_LOCAL, "round", None)
    if lab is not None and lab.o_time.shape == (n_rounds, n_stops):
        _LOCAL.round = None
        return lab
    return new_round_labels(n_rounds, n_stops)


def give_round_labels(lab: RoundLabels) -> None:
    """Give labels back for the thread's next search, once their search is read."""
    if lab.o_time.size > KEEP_ROUND_CELLS:
        return
    clear_round_labels(lab)
    _LOCAL.round = lab


def take_mc_labels(n_rounds: int, n_stops: int, cap: int, dest_cap: int, rb_cap: int) -> McLabels:
    """An empty McRAPTOR pool with room for at least ``cap`` labels and ``dest_cap``
    journeys, route bags of ``rb_cap``: the thread's own when it is large enough."""
    kept: McLabels | None = getattr(_LOCAL, "mc", None)
    if kept is None or kept.time.shape[0] < cap or kept.d_time.shape[0] < dest_cap:
        # a new pool, no smaller than the thread's (which it replaces when given back)
        least = (FIRST_LABELS, _FIRST_DEST) if kept is None else kept.time.shape + kept.d_time.shape
        cap, dest_cap = max(cap, least[0]), max(dest_cap, least[1])
        return new_mc_labels(n_rounds, n_stops, cap, dest_cap, rb_cap)
    _LOCAL.mc = None
    kept.used[:] = 0
    kept.rb_size[0] = rb_cap
    if kept.head.shape == (n_rounds, n_stops):
        kept.head.fill(-1)
        return kept
    head = np.full((n_rounds, n_stops), -1, np.int32)
    return kept._replace(head=head)


def give_mc_labels(lab: McLabels) -> None:
    """Keep a pool for the thread's next search (unless it grew past :data:`KEEP_LABELS`)."""
    kept: McLabels | None = getattr(_LOCAL, "mc", None)
    if lab.time.shape[0] > KEEP_LABELS:
        return
    if kept is None or kept.time.shape[0] <= lab.time.shape[0]:
        _LOCAL.mc = lab
