"""Connect transit to streets: link stops, prune islands, compute walking transfers.

Without streets, stops are joined only by transfers.txt rows and within their
parent station (OTP 1.x); straight-line walks between nearby stops are the
``straight_line_transfers`` build option.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.spatial import cKDTree

from otpa.network.config import BuildConfig
from otpa.transit.model import TransitModel
from otpa.types import FloatArray, Int32Array, IntArray
from otpa.util.geo import EARTH_RADIUS_M, haversine_m

if TYPE_CHECKING:
    from otpa.osm.model import OsmStreetData
    from otpa.street import StreetGraph

__all__ = ["Links", "link_network"]


@dataclass(frozen=True)
class Links:
    """The street graph with stops linked in, and the stop-to-stop transfers."""

    street: StreetGraph | None
    stop_vertex: Int32Array
    stop_link_distance_m: FloatArray
    transfer_offsets: IntArray
    transfer_to: Int32Array
    transfer_distance_m: FloatArray
    elevation_meta: dict[str, Any] | None


def _boarding_stops(transit: TransitModel) -> np.ndarray:
    """Indices of stops where vehicles stop (location_type 0, or 4 boarding areas)."""
    if transit.n_stops == 0:
        return np.zeros(0, dtype=np.int64)
    lt = transit.stops["location_type"].to_numpy(np.int64)
    lat = transit.stops.lat.to_numpy(float)
    ok = np.isin(lt, (0, 4)) & np.isfinite(lat)
    return np.flatnonzero(ok)


def _local_xy(lat: np.ndarray, lon: np.ndarray, lat0_deg: float) -> np.ndarray:
    """Equirectangular metres around latitude ``lat0_deg`` (fine for KD-tree radius queries)."""
    lat0 = np.radians(lat0_deg)
    return np.column_stack(
        [np.radians(lon) * np.cos(lat0) * EARTH_RADIUS_M, np.radians(lat) * EARTH_RADIUS_M]
    )


def _csr(
    n: int, src: np.ndarray, dst: np.ndarray, dist: np.ndarray
) -> tuple[IntArray, Int32Array, FloatArray]:
    order = np.lexsort((dist, src))
    src, dst, dist = src[order], dst[order], dist[order]
    offsets = np.r_[0, np.cumsum(np.bincount(src, minlength=n))].astype(np.int64)
    return offsets, dst.astype(np.int32), dist.astype(np.float64)


def add_rule_transfers(
    transit: TransitModel, offsets: IntArray, to: Int32Array, dist: FloatArray
) -> tuple[IntArray, Int32Array, FloatArray]:
    """Add a transfer for every transfers.txt row between two different stops.

    OTP 1.x created a transfer edge for such rows, so a transfer the feed
    declares exists even where no street path (or straight-line transfer
    within the distance limit) joins the stops.  Forbidden transfers (type 3)
    add nothing; pairs already present keep their distance.
    """
    rules = transit.transfer_rules
    n = transit.n_stops
    if not len(rules) or n == 0:
        return offsets, to, dist
    a = rules["from_stop"].to_numpy(np.int64)
    b = rules["to_stop"].to_numpy(np.int64)
    kind = rules["transfer_type"].to_numpy(np.int64)
    ok = (a >= 0) & (b >= 0) & (a != b) & (kind != 3)
    if not ok.any():
        return offsets, to, dist
    a, b = a[ok], b[ok]
    lat = transit.stops.lat.to_numpy(float)
    lon = transit.stops.lon.to_numpy(float)
    d_new = np.asarray(haversine_m(lat[a], lon[a], lat[b], lon[b]), dtype=float)
    d_new = np.where(np.isfinite(d_new), d_new, 0.0)
    src = np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets))
    all_src = np.r_[src, a]
    all_dst = np.r_[np.asarray(to, dtype=np.int64), b]
    all_d = np.r_[np.asarray(dist, dtype=float), d_new]
    key = all_src * n + all_dst
    _, first = np.unique(key, return_index=True)  # existing pairs come first
    return _csr(n, all_src[first], all_dst[first], all_d[first])


def straight_line_transfers(
    transit: TransitModel, stops: np.ndarray, max_distance_m: float
) -> tuple[IntArray, Int32Array, FloatArray]:
    """Transfers between stops closer than ``max_distance_m`` as the crow flies.

    Used for networks without streets, as OTP did without OSM data.
    """
    n = transit.n_stops
    if len(stops) < 2:
        e = np.zeros(0, dtype=np.int64)
        return _csr(n, e, e, e.astype(float))
    lat = transit.stops.lat.to_numpy(float)[stops]
    lon = transit.stops.lon.to_numpy(float)[stops]
    pairs = cKDTree(_local_xy(lat, lon, float(lat.mean()))).query_pairs(
        max_distance_m * 1.01, output_type="ndarray"
    )
    a = np.r_[stops[pairs[:, 0]], stops[pairs[:, 1]]] if len(pairs) else np.zeros(0, np.int64)
    b = np.r_[stops[pairs[:, 1]], stops[pairs[:, 0]]] if len(pairs) else np.zeros(0, np.int64)
    all_lat = transit.stops.lat.to_numpy(float)
    all_lon = transit.stops.lon.to_numpy(float)
    d = np.asarray(haversine_m(all_lat[a], all_lon[a], all_lat[b], all_lon[b]), dtype=float)
    keep = d <= max_distance_m
    return _csr(n, a[keep], b[keep], d[keep])


def station_transfers(
    transit: TransitModel, stops: np.ndarray
) -> tuple[IntArray, Int32Array, FloatArray]:
    """Transfers between the boarding ``stops`` of one parent station (straight-line distance).

    A boarding area (location_type 4) belongs to the station of its platform.
    """
    n = transit.n_stops
    e = np.zeros(0, dtype=np.int64)
    if len(stops) < 2 or "parent_index" not in transit.stops.columns:
        return _csr(n, e, e, e.astype(float))
    parent = transit.stops["parent_index"].to_numpy(np.int64, na_value=-1)
    kind = transit.stops["location_type"].to_numpy(np.int64)
    station = parent[stops]
    up = (station >= 0) & (kind[np.maximum(station, 0)] != 1)
    station[up] = parent[station[up]]
    has = station >= 0
    members, groups = stops[has], station[has]
    order = np.argsort(groups, kind="stable")
    members, groups = members[order], groups[order]
    a_parts: list[np.ndarray] = []
    b_parts: list[np.ndarray] = []
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    for lo, hi in zip(starts, np.r_[starts[1:], groups.size], strict=True):
        if hi - lo < 2:
            continue
        group = members[lo:hi]
        a_parts.append(np.repeat(group, group.size))
        b_parts.append(np.tile(group, group.size))
    if not a_parts:
        return _csr(n, e, e, e.astype(float))
    a, b = np.concatenate(a_parts), np.concatenate(b_parts)
    keep = a != b
    a, b = a[keep], b[keep]
    lat = transit.stops.lat.to_numpy(float)
    lon = transit.stops.lon.to_numpy(float)
    d = np.asarray(haversine_m(lat[a], lon[a], lat[b], lon[b]), dtype=float)
    return _csr(n, a, b, np.where(np.isfinite(d), d, 0.0))


def streetless_transfers(
    transit: TransitModel, stops: np.ndarray, config: BuildConfig
) -> tuple[IntArray, Int32Array, FloatArray]:
    """The transfers of a network without streets.

    As in OTP 1.x: between the stops of one parent station and along
    transfers.txt rows (:func:`add_rule_transfers`); straight-line walks between
    any stops within ``max_transfer_distance_m`` only with
    ``config.straight_line_transfers``.
    """
    n = transit.n_stops
    offs, to, dist = station_transfers(transit, stops)
    if config.straight_line_transfers:
        s_offs, s_to, s_dist = straight_line_transfers(
            transit, stops, config.max_transfer_distance_m
        )
        src = np.r_[
            np.repeat(np.arange(n, dtype=np.int64), np.diff(offs)),
            np.repeat(np.arange(n, dtype=np.int64), np.diff(s_offs)),
        ]
        dst = np.r_[np.asarray(to, dtype=np.int64), np.asarray(s_to, dtype=np.int64)]
        d = np.r_[np.asarray(dist, dtype=float), np.asarray(s_dist, dtype=float)]
        _, first = np.unique(src * n + dst, return_index=True)
        offs, to, dist = _csr(n, src[first], dst[first], d[first])
    return add_rule_transfers(transit, offs, to, dist)


def link_network(
    transit: TransitModel,
    osm: OsmStreetData | None,
    elevation_paths: Sequence[Path],
    config: BuildConfig,
    *,
    start_step: Callable[[str], None],
    warn: Callable[[str], None],
) -> Links:
    """Build the street graph (if any), link stops to it and compute transfers.

    Parameters
    ----------
    transit
        The transit model.
    osm
        Street data, or None for a transit-only network.
    elevation_paths
        GeoTIFFs to sample per street segment.
    config
        Build options.
    start_step
        Progress callback, called with each step's name.
    warn
        Receives warnings.
    """
    stops = _boarding_stops(transit)
    n = transit.n_stops
    if osm is None:
        start_step("compute transfers")
        if len(elevation_paths):
            warn("elevation files ignored: there is no street network to apply them to")
        offs, to, dist = streetless_transfers(transit, stops, config)
        return Links(
            street=None,
            stop_vertex=np.full(n, -1, dtype=np.int32),
            stop_link_distance_m=np.full(n, np.nan),
            transfer_offsets=offs,
            transfer_to=to,
            transfer_distance_m=dist,
            elevation_meta=None,
        )
    return _link_streets(transit, osm, elevation_paths, config, stops, start_step, warn)


def _nearest_vertices(
    osm: OsmStreetData, lat: np.ndarray, lon: np.ndarray, max_distance_m: float
) -> np.ndarray:
    """OSM vertex nearest to each point (within ``max_distance_m``), for island pruning."""
    if len(lat) == 0 or osm.n_vertices == 0:
        return np.zeros(0, dtype=np.int64)
    lat0 = float(np.mean(osm.vertex_lat))
    dist, idx = cKDTree(_local_xy(osm.vertex_lat, osm.vertex_lon, lat0)).query(
        _local_xy(lat, lon, lat0), distance_upper_bound=max_distance_m
    )
    return np.unique(idx[np.isfinite(dist)]).astype(np.int64)


def _elevation(
    osm: OsmStreetData, paths: Sequence[Path], start_step: Callable[[str], None]
) -> tuple[Any, dict[str, Any] | None]:
    if not paths:
        return None, None
    from otpa.elevation import edge_elevation_profiles
    from otpa.osm.model import CAR, FLAG_SLOPE_OVERRIDE

    start_step("sample elevation")
    elevation = edge_elevation_profiles(
        list(paths),
        osm.seg_geom_offsets,
        osm.geom_lat,
        osm.geom_lon,
        osm.seg_length_m,
        slope_limit=((osm.seg_perm_fwd | osm.seg_perm_back) & CAR) != 0,
        slope_override=(osm.seg_flags & FLAG_SLOPE_OVERRIDE) != 0,
    )
    return elevation, elevation.metadata.to_dict()


def _link_streets(
    transit: TransitModel,
    osm: OsmStreetData,
    elevation_paths: Sequence[Path],
    config: BuildConfig,
    stops: np.ndarray,
    start_step: Callable[[str], None],
    warn: Callable[[str], None],
) -> Links:
    from otpa.osm.model import WALK
    from otpa.street import build_street_graph, walk_transfers

    elevation, elevation_meta = _elevation(osm, elevation_paths, start_step)
    start_step("build street graph")
    lat = transit.stops.lat.to_numpy(float)[stops]
    lon = transit.stops.lon.to_numpy(float)[stops]
    graph = build_street_graph(
        osm,
        elevation=elevation,
        prune_islands=True,
        island_min_vertices=config.island_without_stops_max_size,
        island_with_kept_min_vertices=config.island_with_stops_max_size,
        keep_vertices=_nearest_vertices(osm, lat, lon, config.stop_link_max_distance_m),
    )
    start_step("link stops")
    n = transit.n_stops
    stop_vertex = np.full(n, -1, dtype=np.int32)
    stop_dist = np.full(n, np.nan)
    if len(stops):
        linked = graph.link_points(
            lat, lon, modes=int(WALK), max_distance_m=config.stop_link_max_distance_m
        )
        graph = linked.graph
        stop_vertex[stops] = linked.vertices
        stop_dist[stops] = np.where(linked.vertices >= 0, linked.distances_m, np.nan)
        unlinked = int((linked.vertices < 0).sum())
        if unlinked:
            warn(
                f"{unlinked} stops are farther than {config.stop_link_max_distance_m:.0f} m "
                "from any walkable street and stay unlinked"
            )
    if elevation_paths:
        # heights of the final vertices (split and linked ones included), for walk steps
        from otpa.elevation import sample_raster

        heights = sample_raster(list(elevation_paths), graph.vertex_lon, graph.vertex_lat)
        graph = dataclasses.replace(graph, vertex_elevation_m=heights.astype(np.float32))
    start_step("compute transfers")
    wt = walk_transfers(
        graph,
        stop_vertex[stops],
        max_distance_m=config.max_transfer_distance_m,
        speed_mps=config.walk_speed_mps,
    )
    offs, to, dist = _csr(
        n,
        stops[wt.from_stop].astype(np.int64),
        stops[wt.to_stop].astype(np.int64),
        np.asarray(wt.distance_m, dtype=float),
    )
    offs, to, dist = add_rule_transfers(transit, offs, to, dist)
    return Links(
        street=graph,
        stop_vertex=stop_vertex,
        stop_link_distance_m=stop_dist,
        transfer_offsets=offs,
        transfer_to=to,
        transfer_distance_m=dist,
        elevation_meta=elevation_meta,
    )
