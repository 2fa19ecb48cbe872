"""Street access to and egress from transit, and the street paths behind them."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from otpa.network import TransportNetwork
from otpa.routing._legs import StreetLegGeometry, stop_coords, straight_geometry
from otpa.routing._places import Endpoint
from otpa.routing._street_access import no_stop_within
from otpa.routing._transfers import transfer_times, transfers_from, transfers_to
from otpa.routing._walk_steps import steps_of_table
from otpa.routing.errors import OutsideBoundsError
from otpa.routing.model import EncodedPolyline
from otpa.routing.preferences import DEFAULT_MAX_WALK_M
from otpa.routing.request import PlanRequest
from otpa.routing.street_router import (
    AccessPaths,
    AccessResult,
    Snap,
    StreetOptions,
    StreetPath,
    access_stops,
    snap_point,
    stops_near,
    street_path,
    walk_steps,
)
from otpa.types import FloatArray, Int32Array
from otpa.util.cache import OwnerCache

__all__ = [
    "Access",
    "StreetEnd",
    "access_radius",
    "find_access",
    "leg_geometry",
    "no_stop_near",
    "path_geometry",
    "street_end",
    "transfer_geometry",
    "walk_limit",
    "walk_overage_cost",
    "with_stop_link",
]

#: How far a coordinate may be from the street it is linked to (metres).
MAX_SNAP_M = 1000.0

#: OTP 1.x's soft walk limit (``RoutingRequest.softWalkPenalty``, ``softWalkOverageRate``):
#: walking beyond ``maxWalkDistance`` costs this once, plus the rate per metre over.
SOFT_WALK_PENALTY = 60.0
SOFT_WALK_OVERAGE_RATE = 5.0


def walk_limit(request: PlanRequest) -> float | None:
    """The request's soft walk limit in metres: its ``maxWalkDistance``.

    None when unlimited or when the limit is hard (``WalkPreferences.soft_limit`` off).
    """
    limit = request.walk.max_distance_m
    if limit is None or limit >= 1e300 or not request.walk.soft_limit:
        return None
    return float(limit)


def access_radius(request: PlanRequest) -> float:
    """How far the access and egress searches walk (metres).

    The request's limit is soft (OTP 1.x's default): the searches reach at least
    OTP 1.x's default limit of 2 km (:data:`~otpa.routing.preferences.DEFAULT_MAX_WALK_M`),
    farther when the request allows more (clamped at 15 km), and walking beyond the
    request's own limit costs :func:`walk_overage_cost`.  A hard limit
    (``WalkPreferences.soft_limit`` off) is the radius itself.
    """
    limit = request.walk.effective_max_distance_m
    return max(limit, DEFAULT_MAX_WALK_M) if request.walk.soft_limit else limit


def walk_overage_cost(distance_m: FloatArray | float, limit_m: float | None) -> FloatArray:
    """Cost of walking ``distance_m`` under the soft limit ``limit_m`` (0 within it).

    As OTP 1.x's ``StreetEdge.calculateOverageWeight``: ``softWalkPenalty`` once the
    limit is crossed plus ``softWalkOverageRate`` per metre beyond it.
    """
    d = np.asarray(distance_m, dtype=np.float64)
    if limit_m is None:
        return np.zeros_like(d)
    over = d - limit_m
    return np.where(over > 0.0, SOFT_WALK_PENALTY + SOFT_WALK_OVERAGE_RATE * over, 0.0)


@dataclass(frozen=True)
class StreetEnd:
    """Where a street search starts or ends: a snapped point or a vertex (or nothing)."""

    endpoint: Endpoint
    where: Snap | int | None


def street_end(network: TransportNetwork, endpoint: Endpoint, mode: str, role: str) -> StreetEnd:
    """Link an endpoint to the streets for ``mode`` (no-op without streets)."""
    if network.street is None:
        return StreetEnd(endpoint, None)
    if endpoint.vertex is not None:
        return StreetEnd(endpoint, endpoint.vertex)
    snap = snap_point(network, endpoint.lat, endpoint.lon, mode=mode, max_distance_m=MAX_SNAP_M)
    if snap is None:
        if endpoint.stop is not None:
            return StreetEnd(endpoint, None)
        msg = f"{role} place {endpoint.lat},{endpoint.lon} is not near any street usable by {mode}"
        raise OutsideBoundsError(msg, missing=(role,))
    return StreetEnd(endpoint, snap)


@dataclass(frozen=True, eq=False)
class Access:
    """Stops reachable from (or, reversed, to) a place, with times and costs."""

    stops: Int32Array
    time_s: Int32Array
    cost: FloatArray
    distance_m: FloatArray
    by_stop: dict[int, int] = field(default_factory=dict)
    paths: AccessPaths | None = None  # the street search, for the legs' paths

    @classmethod
    def empty(cls) -> Access:
        """No stops."""
        z = np.zeros(0)
        return cls(z.astype(np.int32), z.astype(np.int32), z, z)


def no_stop_near(network: TransportNetwork, end: StreetEnd, max_distance_m: float) -> bool:
    """Whether a place (not a stop) provably has no stop within ``max_distance_m`` (streets).

    :func:`find_access` would find none: its street search is not needed.
    """
    if network.street is None or end.endpoint.stop is not None or end.where is None:
        return False
    return no_stop_within(network, end.where, max_distance_m)


def find_access(
    network: TransportNetwork,
    end: StreetEnd,
    options: StreetOptions,
    *,
    max_distance_m: float,
    reverse: bool,
    bound_checked: bool = False,
) -> Access:
    """Stops within the access limit of ``end`` (a stop endpoint includes itself at 0 s).

    ``bound_checked``: the caller found :func:`no_stop_near` false for these same
    ``network``, ``end`` and ``max_distance_m`` (a plan checks the destination first),
    so the search runs without computing that bound again.
    """
    max_time = max_distance_m / options.speed_mps
    ep = end.endpoint
    res: AccessResult | None = None
    if network.street is None and ep.stop is not None:
        # without streets, a stop's only walks are its transfers (generated or transfers.txt)
        idx, other = (transfers_to if reverse else transfers_from)(network, ep.stop)
        t = transfer_times(network, options.speed_mps)[idx]
        d = np.asarray(network.transfer_distance_m)[idx]
        keep = (t <= max_time) & (d <= max_distance_m)
        res = AccessResult(
            other[keep].astype(np.int32),
            t[keep].astype(np.int32),
            t[keep] * options.reluctance,
            d[keep],
        )
    elif network.street is None:
        res = stops_near(
            network,
            ep.lat,
            ep.lon,
            max_distance_m=max_distance_m,
            speed_mps=options.speed_mps,
            reluctance=options.reluctance,
        )
    elif end.where is not None:
        if not bound_checked and no_stop_near(network, end, max_distance_m):
            return Access.empty()  # what the search would find: no stop within reach
        res = access_stops(
            network,
            end.where,
            options,
            max_time_s=max_time,
            max_distance_m=max_distance_m,
            reverse=reverse,
        )
    if ep.stop is None and res is not None and len(res.stops):  # the search's stops as they are
        s = np.asarray(res.stops, dtype=np.int32)
        return Access(
            s,
            np.asarray(res.time_s, dtype=np.int32),
            np.asarray(res.cost, dtype=np.float64),
            np.asarray(res.distance_m, dtype=np.float64),
            dict(zip(s.tolist(), range(s.size), strict=True)),
            res.paths,
        )
    stops: list[Any] = []
    times: list[Any] = []
    costs: list[Any] = []
    dists: list[Any] = []
    if ep.stop is not None:
        stops.append(np.array([ep.stop]))
        times.append(np.array([0]))
        costs.append(np.array([0.0]))
        dists.append(np.array([0.0]))
    if res is not None and len(res.stops):
        keep = np.asarray(res.stops) != (ep.stop if ep.stop is not None else -1)
        stops.append(np.asarray(res.stops)[keep])
        times.append(np.asarray(res.time_s)[keep])
        costs.append(np.asarray(res.cost)[keep])
        dists.append(np.asarray(res.distance_m)[keep])
    if not stops:
        return Access.empty()
    s = np.concatenate(stops).astype(np.int32)
    t = np.concatenate(times).astype(np.int32)
    c = np.concatenate(costs).astype(np.float64)
    d = np.concatenate(dists).astype(np.float64)
    paths = None if res is None else res.paths
    return Access(s, t, c, d, dict(zip(s.tolist(), range(s.size), strict=True)), paths)


def leg_geometry(
    network: TransportNetwork,
    a: StreetEnd | int,
    b: StreetEnd | int,
    options: StreetOptions,
    coords: tuple[float, float, float, float],
    paths: AccessPaths | None = None,
) -> tuple[StreetLegGeometry, bool]:
    """Street geometry (and steps) between two ends; straight line when no street path.

    ``a``/``b`` are street ends or stop indices.  ``paths``: the access (or egress)
    search of the street end, whose path to the stop is used when it reached it (the
    path its time came from).  Returns the geometry and the ``too_sloped`` flag of
    the path.
    """
    if paths is not None and network.street is not None:
        stop = b if isinstance(b, int) else a if isinstance(a, int) else -1
        # the search's own options (the usual case) need no hashing in the key
        key = ("leg", stop, isinstance(b, int), None if options is paths.options else options)
        known = paths.derived.get(key)
        if known is not None:  # this stop's leg of another itinerary of the plan
            return cast("tuple[StreetLegGeometry, bool]", known)
        v = int(network.stop_vertex[stop]) if stop >= 0 and network.stop_vertex.size else -1
        leg = _tree_leg(network, paths, v, stop, isinstance(b, int)) if v >= 0 else None
        if leg is None:
            path = paths.path(v) if v >= 0 else None
            if path is not None:
                leg = (with_stop_link(network, path_geometry(network, path), a, b), path.too_sloped)
        if leg is not None:
            paths.derived[key] = leg
            return leg

    def where(x: StreetEnd | int) -> Snap | int | None:
        if isinstance(x, StreetEnd):
            return x.where
        v = int(network.stop_vertex[x]) if network.stop_vertex.size else -1
        return v if v >= 0 else None

    wa, wb = where(a), where(b)
    if network.street is not None and wa is not None and wb is not None:
        path = street_path(network, wa, wb, options)
        if path is not None:
            geometry = path_geometry(network, path)
            if isinstance(a, StreetEnd) or isinstance(b, StreetEnd):
                geometry = with_stop_link(network, geometry, a, b)
            return geometry, path.too_sloped
    return straight_geometry(*coords), False


_NO_LINK = np.zeros(0)


def _tree_leg(
    network: TransportNetwork, paths: AccessPaths, v: int, stop: int, stop_last: bool
) -> tuple[StreetLegGeometry, bool] | None:
    """:func:`leg_geometry` of a stop's access (egress) path, by one compiled call.

    The same geometry as :func:`path_geometry` of ``paths.path(v)`` with
    :func:`with_stop_link` (``stop_last``: the stop ends the leg) and its encoded
    polyline (:meth:`AccessPaths.leg <otpa.routing._street_access.AccessPaths.leg>`);
    None where that call does not apply.  An assembled path is never ``too_sloped``.
    """
    link_m = network.stop_link_distance_m
    link = float(link_m[stop]) if link_m.size else math.nan
    linked = math.isfinite(link) and link > 0.0  # (as with_stop_link decides)
    point = np.array(stop_coords(network, stop)) if linked else _NO_LINK
    table = paths.leg(v, point, stop_last)
    if table is None:
        return None
    ints, floats, lat, lon, totals, code = table
    _, _, _, _, distance, rise, fall = totals.tolist()
    steps = steps_of_table(paths.graph, ints, floats)
    geometry = StreetLegGeometry(
        lat, lon, distance + link if linked else distance, steps, rise, fall
    )
    # the cached property's value, as it would compute it (the same compiled encoder)
    geometry.__dict__["encoded"] = EncodedPolyline(code.tobytes().decode("ascii"), int(lat.size))
    return geometry, False


#: Per network: the geometry of walking transfers, by (from stop, to stop, options).
_TRANSFERS: OwnerCache[tuple[int, int, StreetOptions], tuple[StreetLegGeometry, bool]] = OwnerCache(
    max_entries=4096
)


def transfer_geometry(
    network: TransportNetwork,
    from_stop: int,
    to_stop: int,
    options: StreetOptions,
    coords: tuple[float, float, float, float],
) -> tuple[StreetLegGeometry, bool]:
    """:func:`leg_geometry` of a walking transfer between two stops, found once per network.

    ``coords``: the two stops' ``(lat, lon, lat, lon)`` (the straight line without a
    street path).  The geometry is the same for every itinerary with that transfer.
    """
    key = (int(from_stop), int(to_stop), options)
    return _TRANSFERS.get_or_build(
        network, key, lambda: leg_geometry(network, key[0], key[1], options, coords)
    )


def with_stop_link(
    network: TransportNetwork, geometry: StreetLegGeometry, a: StreetEnd | int, b: StreetEnd | int
) -> StreetLegGeometry:
    """An access (egress) path with the link from its last (first) street vertex to the stop.

    The access search timed that link (``stop_link_distance_m`` at the mode's speed,
    :func:`~otpa.routing.street_router.access_stops`), so the leg's distance and line
    include it too.
    """
    stop = b if isinstance(b, int) else a if isinstance(a, int) else -1
    if stop < 0 or not network.stop_link_distance_m.size:
        return geometry
    link = float(network.stop_link_distance_m[stop])
    if not np.isfinite(link) or link <= 0.0:
        return geometry
    s_lat, s_lon = stop_coords(network, stop)
    n = len(geometry.lat)
    lat, lon = np.empty(n + 1), np.empty(n + 1)
    at, rest = (n, slice(0, n)) if stop == b else (0, slice(1, n + 1))
    lat[at], lon[at] = s_lat, s_lon
    lat[rest], lon[rest] = geometry.lat, geometry.lon
    return StreetLegGeometry(
        lat,
        lon,
        geometry.distance_m + link,
        geometry.steps,
        geometry.elevation_gained,
        geometry.elevation_lost,
    )


def path_geometry(network: TransportNetwork, path: StreetPath) -> StreetLegGeometry:
    """Geometry, walk steps and elevation change of a street path."""
    return StreetLegGeometry(
        lat=path.lat,
        lon=path.lon,
        distance_m=path.distance_m,
        steps=walk_steps(network, path),
        elevation_gained=path.elevation_gained_m,
        elevation_lost=path.elevation_lost_m,
    )
