"""Off-road distance: how far places are from the nearest street of a network.

OTP's sample grids carry, per cell, the distance walked off the street network to reach
it (the blue channel of ``/timegrid``), and drop cells farther than
``offRoadDistanceMeters`` from any street. Here the distance is the straight line from a
place to the nearest street segment's geometry (any mode), measured in a local
equirectangular projection around the network (accurate to well under a metre at city
scale). The segment index (a shapely STRtree) is built once per network.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import shapely
import xarray as xr

from otpa.analysis._layout import grid_of
from otpa.errors import InvalidArgumentError
from otpa.network import TransportNetwork
from otpa.types import FloatArray
from otpa.util.cache import OwnerCache
from otpa.util.geo import EARTH_RADIUS_M

__all__ = ["limit_offroad", "offroad_distance_m"]

_M_PER_DEG = math.pi * EARTH_RADIUS_M / 180.0


@dataclass(frozen=True, eq=False)
class _StreetIndex:
    lat0: float
    cos0: float
    tree: shapely.STRtree


_INDEXES: OwnerCache[str, _StreetIndex | None] = OwnerCache()


def _project(index_lat0: float, cos0: float, lat: FloatArray, lon: FloatArray) -> FloatArray:
    x = lon * cos0 * _M_PER_DEG
    y = (lat - index_lat0) * _M_PER_DEG
    return np.column_stack([x, y])


def _build(network: TransportNetwork) -> _StreetIndex | None:
    street = network.street
    if street is None or street.n_segments == 0:
        return None
    lat = np.asarray(street.geom_lat, dtype=np.float64)
    lon = np.asarray(street.geom_lon, dtype=np.float64)
    lat0 = float(np.mean(lat))
    cos0 = math.cos(math.radians(lat0))
    offsets = np.asarray(street.seg_geom_offsets, dtype=np.int64)
    counts = np.diff(offsets)
    keep = counts >= 2
    indices = np.repeat(np.arange(counts.size), counts)
    coords = _project(lat0, cos0, lat, lon)
    point_keep = np.repeat(keep, counts)
    lines = shapely.linestrings(coords[point_keep], indices=indices[point_keep])
    return _StreetIndex(lat0, cos0, shapely.STRtree(lines))


def _index_of(network: TransportNetwork) -> _StreetIndex | None:
    return _INDEXES.get_or_build(network, "streets", lambda: _build(network))


def offroad_distance_m(
    network: TransportNetwork,
    lat: npt.ArrayLike,
    lon: npt.ArrayLike,
    *,
    max_distance_m: float | None = None,
) -> FloatArray:
    """Straight-line distance in metres from each place to the nearest street segment.

    Parameters
    ----------
    network
        The network (its street graph's segment geometries).
    lat, lon
        Places in degrees (same shape).
    max_distance_m
        Look no farther: places with no street this close get ``inf`` (a bounded
        search, much faster where many places lie far from the streets).

    Returns
    -------
    numpy.ndarray
        float64 metres, the shape of ``lat``; ``inf`` when the network has no streets or
        for non-finite coordinates.
    """
    lat_a = np.asarray(lat, dtype=np.float64)
    lon_a = np.asarray(lon, dtype=np.float64)
    if lat_a.shape != lon_a.shape:
        msg = f"lat and lon must have the same shape, got {lat_a.shape} and {lon_a.shape}"
        raise InvalidArgumentError(msg)
    out = np.full(lat_a.size, np.inf)
    index = _index_of(network)
    flat_lat, flat_lon = lat_a.ravel(), lon_a.ravel()
    finite = np.isfinite(flat_lat) & np.isfinite(flat_lon)
    if index is None or not finite.any():
        return out.reshape(lat_a.shape)
    xy = _project(index.lat0, index.cos0, flat_lat[finite], flat_lon[finite])
    points = shapely.points(xy)
    bound = None if max_distance_m is None else max_distance_m * (1.0 + 1e-9) + 1e-6
    (which, _), distance = index.tree.query_nearest(
        points, max_distance=bound, return_distance=True, all_matches=False
    )
    found = np.full(points.size, np.inf)
    found[which] = distance
    if max_distance_m is not None:
        found[found > max_distance_m] = np.inf
    out[np.flatnonzero(finite)] = found
    return out.reshape(lat_a.shape)


def limit_offroad(
    surface: xr.Dataset,
    network: TransportNetwork,
    max_distance_m: float | None,
    *,
    all_distances: bool = True,
) -> tuple[xr.Dataset, FloatArray]:
    """Make the cells of a grid surface farther than ``max_distance_m`` from a street unreachable.

    OTP's ``offRoadDistanceMeters``: places too far from any street are left out of
    isochrones and timegrids.

    Parameters
    ----------
    surface
        A grid time surface.
    network
        Its network.
    max_distance_m
        The off-road limit; None keeps every cell.
    all_distances
        Measure every cell's distance (timegrids encode it); False: only the reached
        cells', and only up to the limit (``inf`` otherwise) -- enough to limit the
        surface (isochrones), and much faster on a large grid.

    Returns
    -------
    tuple of (xarray.Dataset, numpy.ndarray)
        The surface (a new Dataset; travel times NaN beyond the limit) and the ``(ny, nx)``
        off-road distances of its cells in metres.
    """
    grid = grid_of(surface)
    lat, lon = grid.points()
    if all_distances or max_distance_m is None:
        distance = offroad_distance_m(network, lat, lon).reshape(grid.shape)
    else:
        times = np.asarray(surface["travel_time"].transpose(..., "y", "x").values)
        reached = np.isfinite(times.reshape(-1, *grid.shape)).any(axis=0).ravel()
        flat = np.full(grid.shape[0] * grid.shape[1], np.inf)
        flat[reached] = offroad_distance_m(
            network, lat[reached], lon[reached], max_distance_m=max_distance_m
        )
        distance = flat.reshape(grid.shape)
    if max_distance_m is None:
        return surface, distance
    near = xr.DataArray(distance <= max_distance_m, dims=("y", "x"))
    out = surface.copy()
    out["travel_time"] = surface["travel_time"].where(near)
    return out, distance
