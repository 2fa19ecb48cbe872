"""Apply the timetable changes: frequency, speed and dwell adjustments."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from otpa.analysis.scenario._draft import Draft, PatternBlock
from otpa.analysis.scenario.modifications import AdjustDwellTime, AdjustFrequency, AdjustSpeed
from otpa.analysis.scenario.validate import format_time
from otpa.gtfs.frequencies import departures
from otpa.types import IntArray

__all__ = ["adjust_dwell_time", "adjust_frequency", "adjust_speed", "chain_times", "round_half_up"]


def round_half_up(x: npt.ArrayLike) -> IntArray:
    """Nearest whole second, halves rounded up (Java's ``Math.round``)."""
    out: IntArray = np.floor(np.asarray(x, dtype=np.float64) + 0.5).astype(np.int64)
    return out


def chain_times(
    first_arrival: npt.ArrayLike, dwell: npt.ArrayLike, hop: npt.ArrayLike
) -> tuple[IntArray, IntArray]:
    """Times of trips from their first arrival, dwells and hops (possibly fractional).

    The running total ``first arrival, + dwell[0], + hop[0], + dwell[1], ...`` is
    accumulated in floating point, left to right, and each arrival and
    departure is that total rounded half up, so rounding never drifts.

    Parameters
    ----------
    first_arrival
        ``(n_trips,)`` arrival at the first stop.
    dwell
        ``(n_trips, n_stops)`` dwell at each stop.
    hop
        ``(n_trips, n_stops - 1)`` running time between consecutive stops.

    Returns
    -------
    tuple
        ``(arrival, departure)``, each ``(n_trips, n_stops)``.
    """
    dwell = np.asarray(dwell, dtype=np.float64)
    n_trips, n_stops = dwell.shape
    steps = np.empty((n_trips, 2 * n_stops), dtype=np.float64)
    steps[:, 0] = first_arrival
    steps[:, 1::2] = dwell
    steps[:, 2::2] = hop
    total = np.cumsum(steps, axis=1)
    return round_half_up(total[:, 0::2]), round_half_up(total[:, 1::2])


def _parts(block: PatternBlock) -> tuple[IntArray, IntArray, IntArray]:
    arr = np.asarray(block.arrival, dtype=np.int64)
    dep = np.asarray(block.departure, dtype=np.int64)
    return arr, dep - arr, arr[:, 1:] - dep[:, :-1]


def adjust_speed(draft: Draft, mod: AdjustSpeed) -> None:
    """Divide the hop times of the routes' trips by ``scale``; dwells stay."""
    routes = {draft.route_index(r) for r in mod.routes}
    for i in draft.route_blocks(routes):
        block = draft.blocks[i]
        arr, dwell, hop = _parts(block)
        new_arr, new_dep = chain_times(arr[:, 0], dwell, hop / mod.scale)
        draft.blocks[i] = block.with_times(new_arr, new_dep)


def adjust_dwell_time(draft: Draft, mod: AdjustDwellTime) -> None:
    """Set or scale dwells at the stops on the routes' trips; hops stay."""
    routes = None if mod.routes is None else {draft.route_index(r) for r in mod.routes}
    stops = None if mod.stops is None else [draft.stop_index(s) for s in mod.stops]
    for i in draft.route_blocks(routes):
        block = draft.blocks[i]
        selected = np.ones(block.n_stops, bool) if stops is None else np.isin(block.stops, stops)
        if not selected.any():
            continue
        arr, dwell, hop = _parts(block)
        if mod.dwell_s is not None:
            changed = np.full(dwell.shape, float(mod.dwell_s))
        else:
            changed = round_half_up(dwell * float(mod.scale or 0.0)).astype(np.float64)
        new_dwell = np.where(selected[None, :], changed, dwell)
        new_arr, new_dep = chain_times(arr[:, 0], new_dwell, hop.astype(np.float64))
        draft.blocks[i] = block.with_times(new_arr, new_dep)


def _templates(
    draft: Draft, mod: AdjustFrequency
) -> tuple[list[tuple[int, int]], dict[tuple[int, int], tuple[int, int]]]:
    """Trips in the window as ``(block, row)``, and the template of each (service, direction)."""
    r = draft.route_index(mod.route)
    service = draft.trips["service_index"].to_numpy(dtype=np.int64)
    if "direction_id" in draft.trips.columns:
        direction = draft.trips["direction_id"].to_numpy(dtype=np.int64, na_value=-1)
    else:
        direction = np.full(len(draft.trips), -1, dtype=np.int64)
    in_window: list[tuple[int, int]] = []
    groups: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
    for b in draft.route_blocks({r}):
        block = draft.blocks[b]
        first = np.asarray(block.departure[:, 0], dtype=np.int64)
        for row in np.flatnonzero((first >= mod.start_time) & (first < mod.end_time)).tolist():
            trip = int(block.trips[row])
            in_window.append((b, row))
            key = (int(service[trip]), int(direction[trip]))
            groups.setdefault(key, []).append((int(first[row]), b, row))
    templates = {}
    for key, members in sorted(groups.items()):
        counts = Counter(b for _, b, _ in members)
        earliest = {b: min(m for m in members if m[1] == b) for b in counts}
        best = min(counts, key=lambda b: (-counts[b], earliest[b][0], b))
        _, b, row = earliest[best]
        templates[key] = (b, row)
    return in_window, templates


def _unique_ids(draft: Draft, wanted: list[str]) -> list[str]:
    out, taken = [], set()
    for trip_id in wanted:
        candidate, k = trip_id, 1
        while candidate in taken or draft.has_id("trips", candidate):
            k += 1
            candidate = f"{trip_id}~{k}"
        taken.add(candidate)
        out.append(candidate)
    return out


def _set(frame: pd.DataFrame, column: str, values: Any) -> None:
    if column in frame.columns:
        frame[column] = pd.array(values, dtype=frame[column].dtype)


def adjust_frequency(draft: Draft, mod: AdjustFrequency) -> None:
    """Replace the route's trips starting in the window by trips every ``headway_s``."""
    in_window, templates = _templates(draft, mod)
    old_trips = np.asarray([draft.blocks[b].trips[row] for b, row in in_window], dtype=np.int64)
    _, grid = departures(
        np.asarray([mod.start_time]), np.asarray([mod.end_time]), np.asarray([mod.headway_s])
    )
    n = len(grid)
    for b, row in templates.values():
        block = draft.blocks[b]
        template = int(block.trips[row])
        shift = grid - int(block.departure[row, 0])
        rows = draft.trips.iloc[np.full(n, template)].reset_index(drop=True)
        base = rows["template_trip_id"].iloc[0] if "template_trip_id" in rows.columns else None
        base_id = str(base) if base is not None and not pd.isna(base) else str(rows.trip_id[0])
        ids = _unique_ids(draft, [f"{base_id}@{format_time(int(t))}" for t in grid])
        _set(rows, "trip_id", ids)
        _set(rows, "raw_id", [i.split(":", 1)[-1] for i in ids])
        _set(rows, "frequency_headway_s", np.zeros(n, dtype=np.int64))
        _set(rows, "pattern_index", np.full(n, -1))
        first_new = len(draft.trips)
        draft.set_tables(trips=pd.concat([draft.trips, rows], ignore_index=True))
        draft.blocks.append(
            PatternBlock(
                route=block.route,
                stops=block.stops,
                pickup=block.pickup,
                dropoff=block.dropoff,
                trips=np.arange(first_new, first_new + n, dtype=np.int64),
                arrival=(block.arrival[row][None, :] + shift[:, None]).astype(np.int32),
                departure=(block.departure[row][None, :] + shift[:, None]).astype(np.int32),
                sequence=np.repeat(block.sequence[row][None, :], n, axis=0),
            )
        )
    draft.remove_trips(old_trips)
