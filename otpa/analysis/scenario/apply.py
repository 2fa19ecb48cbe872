"""Apply modifications, in order, to a copy of a network.

Each modification is checked against the network as the earlier ones left it,
then applied to the working copy (:class:`~otpa.analysis.scenario._draft.Draft`).
Only when every modification is valid is a new network built; the base network
is never changed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from otpa.analysis.scenario._apply_add import add_route
from otpa.analysis.scenario._apply_remove import remove_routes, remove_stops, remove_trips
from otpa.analysis.scenario._apply_timetable import (
    adjust_dwell_time,
    adjust_frequency,
    adjust_speed,
)
from otpa.analysis.scenario._draft import Draft
from otpa.analysis.scenario.errors import ScenarioError
from otpa.analysis.scenario.modifications import (
    AddRoute,
    AdjustDwellTime,
    AdjustFrequency,
    AdjustSpeed,
    Modification,
    RemoveRoutes,
    RemoveStops,
    RemoveTrips,
)
from otpa.network import TransportNetwork
from otpa.network.transport_network import compute_convex_hull

__all__ = ["apply_modifications", "check_modifications"]

_APPLY: dict[type[Any], Callable[[Draft, Any], None]] = {
    RemoveRoutes: remove_routes,
    RemoveTrips: remove_trips,
    RemoveStops: remove_stops,
    AdjustFrequency: adjust_frequency,
    AdjustSpeed: adjust_speed,
    AdjustDwellTime: adjust_dwell_time,
    AddRoute: add_route,
}


def check_modifications(
    network: TransportNetwork, modifications: Sequence[Modification]
) -> tuple[Draft, list[str]]:
    """Check and apply each modification in turn to a working copy of ``network``.

    A modification with problems is not applied, so later ones are checked
    against the network without it.

    Returns
    -------
    tuple
        ``(draft, problems)``: the working copy with every valid modification
        applied, and the problems, each prefixed with the modification's
        position and type (``"modification 2 (adjust-speed): ..."``).
    """
    draft = Draft(network)
    problems: list[str] = []
    for k, mod in enumerate(modifications):
        found = mod.problems(draft)
        if found:
            problems += [f"modification {k} ({mod.type}): {p}" for p in found]
            continue
        seen = len(draft.warnings)
        _APPLY[type(mod)](draft, mod)
        draft.warnings[seen:] = [
            f"modification {k} ({mod.type}): {w}" for w in draft.warnings[seen:]
        ]
    return draft, problems


def apply_modifications(
    network: TransportNetwork,
    modifications: Sequence[Modification],
    *,
    meta: Mapping[str, Any] | None = None,
) -> TransportNetwork:
    """A new network: ``network`` with ``modifications`` applied in order.

    Parameters
    ----------
    network
        The base network (unchanged).
    modifications
        The modifications, applied in order.
    meta
        Entries for the new network's metadata (e.g. the scenario's name).

    Returns
    -------
    TransportNetwork
        The modified copy.  It shares the base network's unchanged parts (the
        street graph unless stops were added, the shapes, fares and features).

    Raises
    ------
    ScenarioError
        If any modification does not fit; ``.problems`` lists them all.
    """
    draft, problems = check_modifications(network, modifications)
    if problems:
        msg = f"{len(problems)} problem(s) with the modifications"
        raise ScenarioError(msg, problems)
    extra = dict(meta or {})
    if draft.warnings:
        extra["scenario_warnings"] = list(draft.warnings)
    result = draft.to_network(extra)
    if len(result.transit.stops) != len(network.transit.stops):
        _refresh_extent(result)
    return result


def _refresh_extent(network: TransportNetwork) -> None:
    """Recompute the stored bounds and hull when stops were added (they may lie outside)."""
    lat = network.transit.stops["lat"].to_numpy(dtype=float)
    lon = network.transit.stops["lon"].to_numpy(dtype=float)
    if network.street is not None:
        lat = np.r_[lat, np.asarray(network.street.vertex_lat)]
        lon = np.r_[lon, np.asarray(network.street.vertex_lon)]
    ok = np.isfinite(lat) & np.isfinite(lon)
    lat, lon = lat[ok], lon[ok]
    if lat.size:
        network.meta["bounds"] = [
            float(lon.min()),
            float(lat.min()),
            float(lon.max()),
            float(lat.max()),
        ]
        network.meta["convex_hull"] = compute_convex_hull(lat, lon)
