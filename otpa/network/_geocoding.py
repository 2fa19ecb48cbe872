"""The network's geocoder index and municipality boundaries, built from its parts.

Entries: every stop (``location_type`` 0) with its name, code and id; clusters
(stations, and same-named stops of one feed within :data:`CLUSTER_RADIUS_M` of
each other, named after them and placed at their mean, with the id of the
station or of the first stop, as the index API's clusters); the corners of
differently named streets; named OSM places and points of interest.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.spatial import cKDTree

from otpa.errors import NetworkBuildError
from otpa.geocode import KINDS, GeocodeIndex, Municipality, MunicipalityIndex, street_corners
from otpa.osm import FLAG_BOGUS_NAME

if TYPE_CHECKING:
    from otpa.street import StreetGraph
    from otpa.transit.model import TransitModel

__all__ = ["CLUSTER_RADIUS_M", "build_geocode_index", "build_municipalities"]

#: Same-named stops closer than this (metres, chained) form one cluster (as the index API).
CLUSTER_RADIUS_M = 150.0
_STOP, _CLUSTER, _CORNER, _PLACE = (KINDS.index(k) for k in ("stop", "cluster", "corner", "place"))
_M_PER_DEG = 111_320.0


def _texts(stops: pd.DataFrame, column: str) -> list[str | None]:
    if column not in stops:
        return [None] * len(stops)
    values = stops[column].astype("string").str.strip()
    return [None if v is pd.NA or not v else str(v) for v in values.tolist()]


def _proximity_clusters(
    stops: pd.DataFrame, rows: np.ndarray, names: list[str | None]
) -> list[list[int]]:
    """Same-named stops of one feed chained within CLUSTER_RADIUS_M (members in input order)."""
    lat = stops.lat.to_numpy(float)
    lon = stops.lon.to_numpy(float)
    feeds = stops.feed.to_numpy() if "feed" in stops else np.zeros(len(stops))
    groups: dict[tuple[Any, str], list[int]] = {}
    for r in rows.tolist():
        name = names[r]
        if name and np.isfinite(lat[r] + lon[r]):
            groups.setdefault((feeds[r], name.casefold()), []).append(r)
    out: list[list[int]] = []
    for members in groups.values():
        idx = np.asarray(members)
        if len(idx) == 1:
            out.append(members)
            continue
        scale = np.cos(np.radians(lat[idx].mean()))
        xy = np.column_stack([lon[idx] * scale, lat[idx]]) * _M_PER_DEG
        pairs = cKDTree(xy).query_pairs(CLUSTER_RADIUS_M, output_type="ndarray")
        graph = coo_matrix(
            (np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(len(idx), len(idx))
        )
        _, label = connected_components(graph, directed=False)
        for comp in np.unique(label).tolist():
            out.append(idx[label == comp].tolist())
    out.sort(key=lambda m: m[0])
    return out


def _transit_entries(transit: TransitModel, add: Callable[..., None]) -> None:
    stops = transit.stops
    if not len(stops):
        return
    ids = _texts(stops, "stop_id")
    names = _texts(stops, "name")
    codes = _texts(stops, "code")
    parents = _texts(stops, "parent_station")
    ltype = (
        stops.location_type.to_numpy(np.int64)
        if "location_type" in stops
        else np.zeros(len(stops), dtype=np.int64)
    )
    lat = stops.lat.to_numpy(float)
    lon = stops.lon.to_numpy(float)
    ok = np.isfinite(lat) & np.isfinite(lon)
    for r in np.flatnonzero((ltype == 0) & ok).tolist():
        if names[r]:
            add(_STOP, lat[r], lon[r], names[r], ids[r], codes[r])
    for r in np.flatnonzero((ltype == 1) & ok).tolist():
        if names[r]:
            add(_CLUSTER, lat[r], lon[r], names[r], ids[r], codes[r])
    orphans = np.flatnonzero((ltype == 0) & np.array([p is None for p in parents]))
    for members in _proximity_clusters(stops, orphans, names):
        first = members[0]
        add(_CLUSTER, lat[members].mean(), lon[members].mean(), names[first], ids[first], None)


def build_geocode_index(
    transit: TransitModel,
    street: StreetGraph | None,
    places: Sequence[Mapping[str, Any]] = (),
) -> GeocodeIndex:
    """The geocoder index of a network's parts (see the module docstring)."""
    kind: list[int] = []
    lat: list[float] = []
    lon: list[float] = []
    names: list[str] = []
    ids: list[str | None] = []
    codes: list[str | None] = []
    pairs: list[tuple[str, str] | None] = []

    def add(
        k: int,
        la: float,
        lo: float,
        name: str,
        ident: str | None = None,
        code: str | None = None,
        pair: tuple[str, str] | None = None,
    ) -> None:
        kind.append(k)
        lat.append(float(la))
        lon.append(float(lo))
        names.append(name)
        ids.append(ident)
        codes.append(code)
        pairs.append(pair)

    _transit_entries(transit, add)
    if street is not None and street.n_edges:
        named = (np.asarray(street.edge_flags) & FLAG_BOGUS_NAME) == 0
        for c in street_corners(
            street.vertex_lat,
            street.vertex_lon,
            street.edge_from,
            street.edge_to,
            street.edge_name,
            street.names,
            named=named,
        ):
            add(_CORNER, c.lat, c.lon, c.name, pair=(c.street_a, c.street_b))
    for p in places:
        name = p.get("name")
        if isinstance(name, str) and name.strip():
            add(_PLACE, p["lat"], p["lon"], name.strip())
    return GeocodeIndex.from_entries(
        kind=kind, lat=lat, lon=lon, names=names, ids=ids, codes=codes, corner_streets=pairs
    )


def build_municipalities(
    osm_files: Sequence[Path], boundaries_file: Path | None, admin_level: int
) -> MunicipalityIndex | None:
    """Municipality boundaries: a GeoJSON file when given, else the OSM admin relations.

    Returns None when neither yields any boundary.

    Raises
    ------
    otpa.errors.NetworkBuildError
        If the GeoJSON file is unreadable or not a FeatureCollection.
    """
    if boundaries_file is not None:
        try:
            data = json.loads(boundaries_file.read_text(encoding="utf-8"))
            index = MunicipalityIndex.from_geojson(data)
        except (OSError, ValueError, AttributeError, TypeError) as exc:
            msg = f"{boundaries_file}: not usable municipality boundaries ({exc})"
            raise NetworkBuildError(msg) from None
        return index if len(index) else None
    if not osm_files:
        return None
    from otpa.osm import read_admin_boundaries

    found = read_admin_boundaries(osm_files, admin_levels=(admin_level,))
    if not found:
        return None
    return MunicipalityIndex(Municipality(b.name, b.geometry, b.admin_level) for b in found)
