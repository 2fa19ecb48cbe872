"""Stop clusters: what a rider calls "one stop" (OTP 1.x's ``StopCluster``).

* every station (``location_type`` 1) is a cluster of its child stops;
* stops without a parent station are clustered as OTP's proximity mode did:
  stops of one feed with the same name (ignoring case and surrounding spaces)
  chain together when each is within :data:`CLUSTER_RADIUS_M` of another; the
  cluster takes the id of its first stop in ``stops.txt`` order.

Entrances, generic nodes and boarding areas belong to their parent's cluster.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pandas as pd

from otpa.index.model import StopCluster
from otpa.util.geo import haversine_m

__all__ = ["CLUSTER_RADIUS_M", "build_clusters"]

#: Same-named stops closer than this (metres) form one cluster.
CLUSTER_RADIUS_M = 150.0


def _components(lat: np.ndarray, lon: np.ndarray) -> list[list[int]]:
    """Single-linkage groups of points within CLUSTER_RADIUS_M, members in input order."""
    n = len(lat)
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    dist = haversine_m(lat[:, None], lon[:, None], lat[None, :], lon[None, :])
    close = np.argwhere(np.triu(np.asarray(dist) <= CLUSTER_RADIUS_M, k=1))
    for i, j in close.tolist():
        ri, rj = find(i), find(j)
        if ri != rj:
            parent[max(ri, rj)] = min(ri, rj)
    groups: dict[int, list[int]] = defaultdict(list)
    for i in range(n):
        groups[find(i)].append(i)
    return [groups[r] for r in sorted(groups)]


def _proximity_groups(stops: pd.DataFrame, rows: np.ndarray) -> list[list[int]]:
    names = stops.name.astype("string").str.strip().str.casefold().to_numpy(dtype=object)
    feeds = stops.feed.to_numpy()
    lat = stops.lat.to_numpy(float)
    lon = stops.lon.to_numpy(float)
    by_key: dict[tuple[int, str], list[int]] = defaultdict(list)
    groups: list[list[int]] = []
    for r in rows.tolist():
        name = names[r]
        if name is None or name is pd.NA or not name or not np.isfinite(lat[r] + lon[r]):
            groups.append([r])
        else:
            by_key[(int(feeds[r]), str(name))].append(r)
    for members in by_key.values():
        idx = np.asarray(members)
        groups.extend([int(idx[i]) for i in comp] for comp in _components(lat[idx], lon[idx]))
    groups.sort(key=lambda g: g[0])
    return groups


def build_clusters(stops: pd.DataFrame) -> tuple[list[StopCluster], list[str | None]]:
    """Clusters of a stops table and the cluster id of every stop row.

    Parameters
    ----------
    stops
        The transit model's stops table (``stop_id``, ``name``, ``lat``, ``lon``,
        ``location_type``, ``parent_index``, ``feed``).

    Returns
    -------
    clusters
        Ordered by the row of the stop that gives each its id.
    stop_cluster
        Cluster id per stop row (None for stops in no cluster).
    """
    ids = stops.stop_id.astype(str).to_list()
    names = [None if pd.isna(n) else str(n) for n in stops.name.to_list()]
    lat = stops.lat.to_numpy(float)
    lon = stops.lon.to_numpy(float)
    ltype = stops.location_type.to_numpy(np.int64)
    parent = stops.parent_index.to_numpy(np.int64)
    n = len(stops)
    is_station = ltype == 1
    has_station = (parent >= 0) & is_station[np.maximum(parent, 0)]
    children: dict[int, list[int]] = defaultdict(list)
    for r in np.flatnonzero((ltype == 0) & has_station).tolist():
        children[int(parent[r])].append(r)
    owner: list[tuple[int, list[int]]] = [
        (int(s), children[int(s)]) for s in np.flatnonzero(is_station)
    ]
    loose = np.flatnonzero((ltype == 0) & ~has_station)
    owner.extend((g[0], g) for g in _proximity_groups(stops, loose))
    owner.sort(key=lambda o: o[0])

    stop_cluster: list[str | None] = [None] * n
    clusters: list[StopCluster] = []
    for head, members in owner:
        cid = ids[head]
        if is_station[head]:
            c_lat, c_lon = float(lat[head]), float(lon[head])
        else:
            c_lat, c_lon = float(np.mean(lat[members])), float(np.mean(lon[members]))
        clusters.append(StopCluster(cid, names[head], c_lat, c_lon, tuple(ids[m] for m in members)))
        stop_cluster[head] = cid
        for m in members:
            stop_cluster[m] = cid
    # entrances, nodes, boarding areas: the parent's cluster (boarding area, platform, station)
    for _ in range(2):
        for r in np.flatnonzero((ltype >= 2) & (parent >= 0)).tolist():
            if stop_cluster[r] is None:
                stop_cluster[r] = stop_cluster[int(parent[r])]
    return clusters, stop_cluster
