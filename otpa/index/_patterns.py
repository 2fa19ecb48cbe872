"""OTP trip patterns from the model's RAPTOR patterns.

The transit model splits the trips of one stop pattern until none overtakes
another (what RAPTOR needs); OTP's index shows one pattern per route and stop
pattern (stops, pick-up and drop-off rules).  This module merges the model
patterns back, orders and numbers them the way OTP coded them
(``feedId:routeId:direction:NN``) and names them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from otpa.transit.model import TransitModel
from otpa.types import IntArray

__all__ = ["PatternGroup", "group_patterns"]


@dataclass(frozen=True)
class PatternGroup:
    """One OTP pattern, as rows of the model.

    Attributes
    ----------
    id
        The pattern code.
    route
        Route row.
    direction
        Direction of the first trip (-1: none).
    model_patterns
        The model patterns merged into this one.
    gtfs_trips
        GTFS trip positions, by first departure.
    stops
        Stop rows in calling order.
    desc
        The pattern's name.
    """

    id: str
    route: int
    direction: int
    model_patterns: tuple[int, ...]
    gtfs_trips: tuple[int, ...]
    stops: tuple[int, ...]
    desc: str


def _names(transit: TransitModel, route: int, members: list[tuple[int, ...]]) -> list[str]:
    """OTP-style names: "<route> to <last stop>", then "from <first stop>", then "like <n>"."""
    routes = transit.routes
    short, long_ = routes.short_name.iloc[route], routes.long_name.iloc[route]
    route_name = next(
        (str(v) for v in (short, long_, routes.raw_id.iloc[route]) if not pd.isna(v)), ""
    )
    stop_names = transit.stops.name.astype(object).to_numpy()

    def name_of(stop: int) -> str:
        v = stop_names[stop]
        return str(transit.stops.stop_id.iloc[stop]) if pd.isna(v) else str(v)

    names = [f"{route_name} to {name_of(s[-1])}" for s in members]
    for level in ("from", "like"):
        counts: dict[str, int] = defaultdict(int)
        for n in names:
            counts[n] += 1
        if all(c == 1 for c in counts.values()):
            break
        seen: dict[str, int] = defaultdict(int)
        for i, n in enumerate(names):
            if counts[n] > 1:
                seen[n] += 1
                names[i] = (
                    f"{n} from {name_of(members[i][0])}" if level == "from" else f"{n} ({seen[n]})"
                )
    return names


def group_patterns(
    transit: TransitModel, trip_gtfs: IntArray, n_gtfs: int
) -> tuple[list[PatternGroup], IntArray]:
    """Merge, order, code and name the OTP patterns of a transit model.

    Parameters
    ----------
    transit
        The transit model.
    trip_gtfs
        GTFS trip position of each model trip.
    n_gtfs
        Number of GTFS trips.

    Returns
    -------
    groups
        The patterns, ordered by route then code.
    gtfs_pattern
        Position in ``groups`` of each GTFS trip's pattern (-1: none).
    """
    by_key: dict[tuple[int, bytes, bytes, bytes], list[int]] = defaultdict(list)
    so = transit.pattern_stop_offsets
    for p in range(transit.n_patterns):
        a, b = int(so[p]), int(so[p + 1])
        key = (
            int(transit.pattern_route[p]),
            transit.pattern_stops[a:b].tobytes(),
            transit.pattern_pickup[a:b].tobytes(),
            transit.pattern_dropoff[a:b].tobytes(),
        )
        by_key[key].append(p)

    raw_route = transit.routes.raw_id.astype(str).to_numpy()
    feed_ids = transit.feeds.feed_id.astype(str).to_numpy()
    route_feed = transit.routes.feed.to_numpy(np.int64)
    direction = transit.trips.direction_id.to_numpy(np.int64)
    # (route, direction) -> [(sort key, stops, model patterns, gtfs trips)]
    buckets: dict[
        tuple[int, int], list[tuple[tuple[int, int, bytes], tuple[int, ...], list[int], list[int]]]
    ]
    buckets = defaultdict(list)
    for (route, stops_b, _, _), models in by_key.items():
        first_dep: dict[int, int] = {}
        first_trip: dict[int, int] = {}
        for p in models:
            trips = transit.pattern_trip_indices(p)
            dep = transit.pattern_times(p)[1][:, 0]
            for t, d in zip(trips.tolist(), dep.tolist(), strict=True):
                g = int(trip_gtfs[t])
                if g not in first_dep or d < first_dep[g]:
                    first_dep[g], first_trip[g] = d, t
        gtfs = sorted(first_dep, key=lambda g: (first_dep[g], g))
        d = int(direction[first_trip[gtfs[0]]]) if gtfs else -1
        stops = tuple(np.frombuffer(stops_b, dtype=np.int32).tolist())
        sort_key = (-len(gtfs), first_dep[gtfs[0]] if gtfs else 0, stops_b)
        buckets[(route, d)].append((sort_key, stops, sorted(models), gtfs))

    groups: list[PatternGroup] = []
    for route, d in sorted(buckets):
        entries = sorted(buckets[(route, d)], key=lambda e: e[0])
        prefix = f"{feed_ids[route_feed[route]]}:{raw_route[route]}:{'' if d < 0 else d}"
        for n, (_, stops, models, gtfs) in enumerate(entries, start=1):
            groups.append(
                PatternGroup(f"{prefix}:{n:02d}", route, d, tuple(models), tuple(gtfs), stops, "")
            )
    # names are unique per route, over all its directions
    by_route: dict[int, list[int]] = defaultdict(list)
    for i, group in enumerate(groups):
        by_route[group.route].append(i)
    for route, members in by_route.items():
        names = _names(transit, route, [groups[i].stops for i in members])
        for i, name in zip(members, names, strict=True):
            groups[i] = replace(groups[i], desc=name)
    gtfs_pattern = np.full(n_gtfs, -1, dtype=np.int64)
    for i, group in enumerate(groups):
        gtfs_pattern[list(group.gtfs_trips)] = i
    return groups, gtfs_pattern
