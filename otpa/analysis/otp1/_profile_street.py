"""Street legs of profile options: the planner's street paths as OTP 1.x ``StreetSegment``s.

Access and egress paths are the ones the planner's access search found (the same
search that gave their times); a direct trip is the planner's least-cost street
path.  Each edge becomes a :class:`StreetEdge`; the walk steps (built by the planner's
step builder) are attached to the first edge of each step, as OTP 1.x's
``StreetEdgeInfo`` carried them.
"""

from __future__ import annotations

import math

import numpy as np

from otpa.analysis.otp1._profile_model import StreetEdge, StreetSegment
from otpa.network import TransportNetwork
from otpa.routing.engine import Access, StreetEnd, edge_part_points
from otpa.routing.model import WalkStep
from otpa.routing.street_router import StreetOptions, StreetPath, street_path, walk_steps

__all__ = ["access_segment", "direct_segment", "path_segment"]

#: Two coordinates closer than this (degrees) are the same point.
_SAME_POINT = 1e-9


def _edge_starts(network: TransportNetwork, path: StreetPath) -> list[tuple[float, float]]:
    """Where each edge of the path starts (a partial first edge: at the snapped point)."""
    graph = network.street
    assert graph is not None
    starts, _ = path.used_fractions()
    out = []
    for i, e in enumerate(path.edges.tolist()):
        if i == 0 and starts[0] > 0.0:
            lat, lon = edge_part_points(graph, int(e), float(starts[0]), 1.0)
            out.append((float(lat[0]), float(lon[0])))
        else:
            v = int(graph.edge_from[e])
            out.append((float(graph.vertex_lat[v]), float(graph.vertex_lon[v])))
    return out


def _step_edges(starts: list[tuple[float, float]], steps: tuple[WalkStep, ...]) -> dict[int, int]:
    """Edge index (into the path) at which each step begins: the step's start point."""
    found: dict[int, int] = {}
    i = 0
    for k, step in enumerate(steps):
        j = i
        while j < len(starts) and not (
            abs(starts[j][0] - step.lat) < _SAME_POINT
            and abs(starts[j][1] - step.lon) < _SAME_POINT
        ):
            j += 1
        if j == len(starts):  # not found (never expected): the next edge carries it
            j = min(i, len(starts) - 1)
        found[j] = k
        i = j + 1
    return found


def path_segment(
    network: TransportNetwork,
    path: StreetPath | None,
    *,
    mode: str,
    time_s: int,
    distance_m: float,
    stop_id: str | None = None,
) -> StreetSegment:
    """A street segment for ``path`` (no edges when there is no street path)."""
    if path is None or network.street is None or path.edges.size == 0:
        return StreetSegment(mode, time_s, distance_m, (), stop_id)
    graph = network.street
    starts, ends = path.used_fractions()
    steps = walk_steps(network, path)
    at_step = _step_edges(_edge_starts(network, path), steps)
    lengths = path.edge_distance_m.tolist() if path.edge_distance_m.size else None
    edges = []
    for i, e in enumerate(path.edges.tolist()):
        lat, lon = edge_part_points(graph, int(e), float(starts[i]), float(ends[i]))
        length = lengths[i] if lengths is not None else 0.0
        k = at_step.get(i)
        if k is None:
            edges.append(StreetEdge(int(e), length, tuple(lat.tolist()), tuple(lon.tolist())))
            continue
        step = steps[k]
        walking = bool(path.walking[i]) if path.walking.size else False
        edges.append(
            StreetEdge(
                int(e),
                length,
                tuple(lat.tolist()),
                tuple(lon.tolist()),
                mode="WALK" if walking else path.mode,
                street_name=step.street_name,
                relative_direction=step.relative_direction,
                absolute_direction=step.absolute_direction,
                stay_on=step.stay_on,
                area=step.area,
                bogus_name=step.bogus_name,
            )
        )
    return StreetSegment(mode, time_s, distance_m, tuple(edges), stop_id)


def access_segment(
    network: TransportNetwork, access: Access, stop: int, mode: str, stop_id: str
) -> StreetSegment:
    """The access (or egress) leg to (from) ``stop`` found by the planner's access search."""
    i = access.by_stop[stop]
    path = None
    if access.paths is not None and network.stop_vertex.size:
        v = int(network.stop_vertex[stop])
        path = access.paths.path(v) if v >= 0 else None
    return path_segment(
        network,
        path,
        mode=mode,
        time_s=int(access.time_s[i]),
        distance_m=float(access.distance_m[i]),
        stop_id=stop_id,
    )


def direct_segment(
    network: TransportNetwork,
    origin: StreetEnd,
    destination: StreetEnd,
    options: StreetOptions,
    *,
    max_time_s: float,
) -> StreetSegment | None:
    """The planner's street path between the two ends, or None beyond ``max_time_s``."""
    if network.street is None or origin.where is None or destination.where is None:
        return None
    path = street_path(network, origin.where, destination.where, options)
    if path is None or not math.isfinite(path.duration_s) or path.duration_s > max_time_s:
        return None
    return path_segment(
        network,
        path,
        mode=options.mode,
        time_s=round(path.duration_s),
        distance_m=float(np.round(path.distance_m, 3)),
    )
