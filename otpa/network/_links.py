"""Connect transit to streets: link stops, prune islands, compute walking transfers."""

from __future__ import annotations

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


def _csr(n: int, src: np.ndarray, dst: np.ndarray, dist: np.ndarray) -> tuple[
    IntArray, Int32Array, FloatArray
]:
    order = np.lexsort((dist, src))
    src, dst, dist = src[order], dst[order], dist[order]
    offsets = np.r_[0, np.cumsum(np.bincount(src, minlength=n))].astype(np.int64)
    return offsets, dst.astype(np.int32), dist.astype(np.float64)


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
    lat0 = np.radians(lat.mean())
    xy = np.column_stack(
        [np.radians(lon) * np.cos(lat0) * EARTH_RADIUS_M, np.radians(lat) * EARTH_RADIUS_M]
    )
    pairs = cKDTree(xy).query_pairs(max_distance_m * 1.01, output_type="ndarray")
    a = np.r_[stops[pairs[:, 0]], stops[pairs[:, 1]]] if len(pairs) else np.zeros(0, np.int64)
    b = np.r_[stops[pairs[:, 1]], stops[pairs[:, 0]]] if len(pairs) else np.zeros(0, np.int64)
    all_lat = transit.stops.lat.to_numpy(float)
    all_lon = transit.stops.lon.to_numpy(float)
    d = np.asarray(haversine_m(all_lat[a], all_lon[a], all_lat[b], all_lon[b]), dtype=float)
    keep = d <= max_distance_m
    return _csr(n, a[keep], b[keep], d[keep])


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
        offs, to, dist = straight_line_transfers(transit, stops, config.max_transfer_distance_m)
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


def _link_streets(
    transit: TransitModel,
    osm: OsmStreetData,
    elevation_paths: Sequence[Path],
    config: BuildConfig,
    stops: np.ndarray,
    start_step: Callable[[str], None],
    warn: Callable[[str], None],
) -> Links:
    raise RuntimeError("street linking is wired in once otpa.street lands")
