"""Link stops added by a scenario to the streets and give them walking transfers.

A new stop is linked to the nearer end vertex of the nearest walkable edge (within
``stop_link_max_distance_m``), with the straight line to it as its link, instead of
splitting the edge as the build does: the scenario network then shares the base
network's street graph unchanged, so every street time that does not involve a new
stop stays exactly what it was (splitting an edge re-rounds its whole seconds).
Transfers come from :func:`otpa.street.walk_transfers` over the street graph, or
straight lines for networks without streets, with the options the base network was
built with; only pairs involving a new stop are added to the existing transfers.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from scipy.spatial import cKDTree

from otpa.analysis.scenario._draft import Draft
from otpa.network.transfers import streetless_transfers
from otpa.routing.engine import snap_many
from otpa.street import walk_transfers
from otpa.types import FloatArray, IntArray
from otpa.util.geo import EARTH_RADIUS_M, haversine_m

__all__ = ["link_new_stops"]

#: Slack on the straight-line pre-filter of transfer candidates (projection error).
_CANDIDATE_SLACK = 1.1


def _boarding(draft: Draft) -> IntArray:
    """Stops vehicles serve (location_type 0 or 4) with a position, as the build links."""
    stops = draft.stops
    lat = stops["lat"].to_numpy(dtype=float)
    if "location_type" in stops.columns:
        kind = stops["location_type"].to_numpy(dtype=np.int64)
    else:
        kind = np.zeros(len(stops), dtype=np.int64)
    out: IntArray = np.flatnonzero(np.isin(kind, (0, 4)) & np.isfinite(lat))
    return out


def _xy(lat: FloatArray, lon: FloatArray, lat0: float) -> FloatArray:
    c = np.cos(np.radians(lat0))
    out: FloatArray = np.column_stack(
        [np.radians(lon) * c * EARTH_RADIUS_M, np.radians(lat) * EARTH_RADIUS_M]
    )
    return out


def _merge(draft: Draft, n: int, src: IntArray, dst: IntArray, dist: FloatArray) -> None:
    """Add transfers to the CSR, keeping the build's order (origin, then distance)."""
    old_src = np.repeat(
        np.arange(len(draft.transfer_offsets) - 1, dtype=np.int64), np.diff(draft.transfer_offsets)
    )
    all_src = np.r_[old_src, src].astype(np.int64)
    all_dst = np.r_[np.asarray(draft.transfer_to, dtype=np.int64), dst]
    all_d = np.r_[np.asarray(draft.transfer_distance_m, dtype=float), dist]
    order = np.lexsort((all_d, all_src))
    draft.transfer_offsets = np.r_[0, np.cumsum(np.bincount(all_src, minlength=n))].astype(np.int64)
    draft.transfer_to = all_dst[order].astype(np.int32)
    draft.transfer_distance_m = all_d[order].astype(np.float64)


def _street_transfers(
    draft: Draft, new: IntArray, vertex: IntArray
) -> tuple[IntArray, IntArray, FloatArray]:
    graph = draft.street
    assert graph is not None
    config = draft.config
    boarding = _boarding(draft)
    old = boarding[~np.isin(boarding, new) & (vertex[boarding] >= 0)]
    fresh = new[vertex[new] >= 0]
    if fresh.size == 0:
        e = np.zeros(0, dtype=np.int64)
        return e, e, e.astype(float)
    v_lat, v_lon = np.asarray(graph.vertex_lat), np.asarray(graph.vertex_lon)
    if old.size:
        lat0 = float(np.mean(v_lat[vertex[fresh]]))
        tree = cKDTree(_xy(v_lat[vertex[old]], v_lon[vertex[old]], lat0))
        near = tree.query_ball_point(
            _xy(v_lat[vertex[fresh]], v_lon[vertex[fresh]], lat0),
            config.max_transfer_distance_m * _CANDIDATE_SLACK + 1.0,
        )
        hits = np.unique(np.concatenate([np.asarray(h, dtype=np.int64) for h in near]))
        old = old[hits]
    subset = np.r_[fresh, old].astype(np.int64)
    wt = walk_transfers(
        graph,
        vertex[subset],
        max_distance_m=config.max_transfer_distance_m,
        speed_mps=config.walk_speed_mps,
    )
    a = subset[np.asarray(wt.from_stop, dtype=np.int64)]
    b = subset[np.asarray(wt.to_stop, dtype=np.int64)]
    keep = np.isin(a, new) | np.isin(b, new)
    return a[keep], b[keep], np.asarray(wt.distance_m, dtype=float)[keep]


def link_new_stops(draft: Draft, new: IntArray) -> None:
    """Link the stops ``new`` (rows appended to ``draft.stops``) and add their transfers.

    Updates the draft's stop vertices, link distances and transfer arrays (the street
    graph is left as it is); unlinked stops are noted in ``draft.warnings``.
    """
    config = draft.config
    n = len(draft.stops)
    n_old = len(draft.stop_vertex)
    vertex = np.r_[np.asarray(draft.stop_vertex, dtype=np.int64), np.full(n - n_old, -1)]
    link_m = np.r_[np.asarray(draft.stop_link_distance_m, dtype=float), np.full(n - n_old, np.nan)]
    if draft.street is None:
        model = replace(draft.base.transit, stops=draft.stops)
        offs, to, dist = streetless_transfers(model, _boarding(draft), config)
        src = np.repeat(np.arange(n, dtype=np.int64), np.diff(offs))
        dst = np.asarray(to, dtype=np.int64)
        keep = np.isin(src, new) | np.isin(dst, new)
        src, dst, d = src[keep], dst[keep], np.asarray(dist, dtype=float)[keep]
    else:
        graph = draft.street
        lat = draft.stops["lat"].to_numpy(dtype=float)[new]
        lon = draft.stops["lon"].to_numpy(dtype=float)[new]
        snaps = snap_many(graph, lat, lon, "WALK", config.stop_link_max_distance_m)
        ok = snaps.edge >= 0
        edge = np.maximum(snaps.edge, 0)
        e_from, e_to = np.asarray(graph.edge_from), np.asarray(graph.edge_to)
        nearer = np.where(snaps.fraction <= 0.5, e_from[edge], e_to[edge])
        linked_vertex = np.where(ok, nearer, -1)
        vertex[new] = linked_vertex
        v = np.maximum(linked_vertex, 0)
        v_lat, v_lon = np.asarray(graph.vertex_lat)[v], np.asarray(graph.vertex_lon)[v]
        dist = haversine_m(lat, lon, v_lat, v_lon)
        link_m[new] = np.where(ok, dist, np.nan)
        if not ok.all():
            ids = draft.stops["stop_id"].astype(str).to_numpy()[new[~ok]]
            draft.warnings.append(
                f"new stops {list(ids)} are farther than {config.stop_link_max_distance_m:.0f} m "
                "from any walkable street and stay unlinked"
            )
        src, dst, d = _street_transfers(draft, new, vertex)
    draft.stop_vertex = vertex.astype(np.int32)
    draft.stop_link_distance_m = link_m
    _merge(draft, n, src, dst, d)
