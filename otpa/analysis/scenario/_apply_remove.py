"""Apply the removals: routes, trips, and stops skipped by trips."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from otpa.analysis.scenario._draft import Draft, PatternBlock
from otpa.analysis.scenario.modifications import RemoveRoutes, RemoveStops, RemoveTrips
from otpa.types import BoolArray, IntArray

__all__ = ["remove_routes", "remove_stops", "remove_trips", "skip_stop_times"]


def remove_routes(draft: Draft, mod: RemoveRoutes) -> None:
    """Remove every trip of the routes."""
    routes = [draft.route_index(r) for r in mod.routes]
    trips = np.flatnonzero(np.isin(draft.trip_routes(), routes) & ~draft.removed)
    draft.remove_trips(trips)


def remove_trips(draft: Draft, mod: RemoveTrips) -> None:
    """Remove the trips (and the trips expanded from listed frequency templates)."""
    found = [draft.trip_indices(t) for t in mod.trips]
    draft.remove_trips(np.unique(np.concatenate(found)) if found else np.zeros(0, np.int64))


def skip_stop_times(
    arrival: npt.ArrayLike, departure: npt.ArrayLike, keep: BoolArray, seconds_saved_s: int
) -> tuple[IntArray, IntArray]:
    """Times of trips that skip the stop positions where ``keep`` is False.

    The first kept stop keeps its times.  Each later hop between kept stops
    runs from the previous kept departure to the next kept arrival minus the
    dwells at the skipped stops in between, minus ``seconds_saved_s`` per
    skipped stop (a hop that saves time never drops below 1 s, or below its
    original length if that was shorter).

    Parameters
    ----------
    arrival, departure
        ``(n_trips, n_stops)`` service-day seconds.
    keep
        Positions kept (at least one).
    seconds_saved_s
        Running time saved at each skipped stop.

    Returns
    -------
    tuple
        ``(arrival, departure)`` of shape ``(n_trips, keep.sum())``.
    """
    arr = np.asarray(arrival, dtype=np.int64)
    dep = np.asarray(departure, dtype=np.int64)
    dwell = dep - arr
    kept = np.flatnonzero(keep)
    new_arr = np.empty((arr.shape[0], kept.size), dtype=np.int64)
    new_dep = np.empty_like(new_arr)
    new_arr[:, 0] = arr[:, kept[0]]
    new_dep[:, 0] = dep[:, kept[0]]
    for j in range(1, kept.size):
        a, b = int(kept[j - 1]), int(kept[j])
        skipped = b - a - 1
        raw = arr[:, b] - dep[:, a] - dwell[:, a + 1 : b].sum(axis=1)
        hop = raw - seconds_saved_s * skipped
        if seconds_saved_s * skipped > 0:
            hop = np.maximum(hop, np.minimum(raw, 1))
        new_arr[:, j] = new_dep[:, j - 1] + hop
        new_dep[:, j] = new_arr[:, j] + dwell[:, b]
    return new_arr, new_dep


def remove_stops(draft: Draft, mod: RemoveStops) -> None:
    """Trips of the route (or every route) skip the stops; trips left with < 2 stops go."""
    stops = np.asarray([draft.stop_index(s) for s in mod.stops], dtype=np.int64)
    route = None if mod.route is None else draft.route_index(mod.route)
    blocks: list[PatternBlock] = []
    dropped: list[IntArray] = []
    for block in draft.blocks:
        skip = np.isin(block.stops, stops)
        if (route is not None and block.route != route) or not skip.any():
            blocks.append(block)
            continue
        keep = ~skip
        if keep.sum() < 2:
            dropped.append(block.trips)
            continue
        arr, dep = skip_stop_times(block.arrival, block.departure, keep, mod.seconds_saved_s)
        blocks.append(
            PatternBlock(
                route=block.route,
                stops=block.stops[keep],
                pickup=block.pickup[keep],
                dropoff=block.dropoff[keep],
                trips=block.trips,
                arrival=arr.astype(np.int32),
                departure=dep.astype(np.int32),
                sequence=block.sequence[:, keep],
            )
        )
    draft.blocks = blocks
    if dropped:
        draft.remove_trips(np.concatenate(dropped))
