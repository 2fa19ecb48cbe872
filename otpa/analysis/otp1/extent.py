"""The grid an origin's surface needs: the part of the network it can reach in time.

A surface limited to ``max_time_s`` cannot reach farther than ``max_time_s`` times the
fastest speed of its modes. :func:`reach_grid` covers that square around the origin,
clipped to the network's extent (plus a margin for places linked to its edge), with cells
of a given ground size aligned to a lattice through a point (by default the origin, as OTP's
sample grids are: then a cell centre lies exactly on the origin), or with the pixels of a
web mercator zoom level.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from otpa.analysis.grid import MAX_GRID_CELLS, Grid, GridCrs
from otpa.analysis.mercator import mercator_x, mercator_y
from otpa.analysis.request import AnalysisRequest
from otpa.errors import InvalidArgumentError, OtpaError
from otpa.network import TransportNetwork
from otpa.util.geo import EARTH_RADIUS_M

__all__ = [
    "CAR_MAX_SPEED_MPS",
    "TRANSIT_MAX_SPEED_MPS",
    "GridTooLargeError",
    "ReachBox",
    "TooManyTargetsError",
    "reach_box",
    "reach_grid",
    "reach_radius_m",
]

#: Fastest average speed assumed for a transit journey (rail and express buses).
TRANSIT_MAX_SPEED_MPS = 30.0
#: Fastest average speed assumed for driving.
CAR_MAX_SPEED_MPS = 35.0
#: Margin around the network's extent: places this close can still be linked to it.
NETWORK_MARGIN_M = 1000.0
_M_PER_DEG = math.pi * EARTH_RADIUS_M / 180.0


class TooManyTargetsError(ValueError, OtpaError):
    """A request needs more destinations (grid cells, points) than allowed.

    Attributes
    ----------
    n_targets
        Destinations the request would need.
    limit
        The limit.
    """

    def __init__(self, message: str, *, n_targets: int, limit: int) -> None:
        super().__init__(message)
        self.n_targets = n_targets
        self.limit = limit


class GridTooLargeError(TooManyTargetsError):
    """The grid a request needs has more cells than allowed."""


@dataclass(frozen=True)
class ReachBox:
    """Lon/lat bounds ``(west, south, east, north)`` an origin can reach, in degrees."""

    west: float
    south: float
    east: float
    north: float


def reach_radius_m(request: AnalysisRequest) -> float:
    """Farthest straight-line distance a trip of the request can cover, metres.

    Examples
    --------
    >>> import datetime as dt
    >>> reach_radius_m(AnalysisRequest(dt.datetime(2020, 1, 1), modes="WALK", max_time_s=600))
    600.0
    """
    modes = request.request_modes
    speeds = [request.walk_speed_mps]
    if "BICYCLE" in modes.street or "MICROMOBILITY" in modes.street:
        speeds.append(request.bike_speed_mps)
    if "CAR" in modes.street:
        speeds.append(CAR_MAX_SPEED_MPS)
    if modes.transit:
        speeds.append(TRANSIT_MAX_SPEED_MPS)
    return float(request.max_time_s) * max(speeds)


def reach_box(network: TransportNetwork, lat: float, lon: float, radius_m: float) -> ReachBox:
    """The square of half-side ``radius_m`` around a point, clipped to the network's extent.

    The extent is the network's bounds plus :data:`NETWORK_MARGIN_M`. A point outside it gets
    the square around itself (at most the margin wide), so that its grid stays small.
    """
    dlat = radius_m / _M_PER_DEG
    dlon = dlat / max(math.cos(math.radians(lat)), 1e-6)
    min_lon, min_lat, max_lon, max_lat = network.bounds
    mlat = NETWORK_MARGIN_M / _M_PER_DEG
    mlon = mlat / max(math.cos(math.radians((min_lat + max_lat) / 2.0)), 1e-6)
    west, east = max(lon - dlon, min_lon - mlon), min(lon + dlon, max_lon + mlon)
    south, north = max(lat - dlat, min_lat - mlat), min(lat + dlat, max_lat + mlat)
    if west > east or south > north:
        half_lat = min(dlat, mlat)
        half_lon = half_lat / max(math.cos(math.radians(lat)), 1e-6)
        return ReachBox(lon - half_lon, lat - half_lat, lon + half_lon, lat + half_lat)
    return ReachBox(west, south, east, north)


def _aligned_axis(lo: float, hi: float, anchor: float, step: float) -> tuple[float, int]:
    """First cell centre (on the lattice ``anchor + k step``) and count covering ``[lo, hi]``."""
    first = math.floor((lo - anchor) / step + 1e-9)
    last = math.ceil((hi - anchor) / step - 1e-9)
    return anchor + first * step, max(1, last - first + 1)


def reach_grid(
    network: TransportNetwork,
    lat: float,
    lon: float,
    request: AnalysisRequest,
    *,
    cell_size_m: float = 200.0,
    crs: GridCrs = "EPSG:4326",
    zoom: int | None = None,
    align_to: tuple[float, float] | None = None,
    max_cells: int = MAX_GRID_CELLS,
) -> Grid:
    """The grid covering what an origin can reach within the request's time limit.

    Parameters
    ----------
    network
        The network (its extent clips the grid).
    lat, lon
        The origin, degrees.
    request
        Its modes, speeds and ``max_time_s`` bound the reach (:func:`reach_radius_m`).
    cell_size_m
        Cell size in ground metres (lon/lat grids: ``cell_size_m / 111_195`` degrees of
        latitude and that over ``cos(lat)`` of longitude at the alignment point; web mercator
        grids without ``zoom``: ``cell_size_m / cos(lat)`` mercator metres).
    crs
        ``"EPSG:4326"`` or ``"EPSG:3857"``.
    zoom
        Use the pixels of this web mercator zoom level (9..12) instead; ``crs`` and
        ``cell_size_m`` are then ignored.
    align_to
        ``(lat, lon)`` of a cell centre of the lattice; default the origin.
    max_cells
        The most cells allowed.

    Returns
    -------
    Grid

    Raises
    ------
    GridTooLargeError
        The grid would have more than ``max_cells`` cells.
    """
    if not (math.isfinite(cell_size_m) and cell_size_m > 0):
        msg = f"cell_size_m must be a positive number, got {cell_size_m!r}"
        raise InvalidArgumentError(msg)
    box = reach_box(network, lat, lon, reach_radius_m(request))
    if zoom is not None:
        grid = Grid.web_mercator(
            box.west, box.south, box.east, box.north, zoom=zoom, max_cells=2**62
        )
        _check_cells(grid.nx, grid.ny, max_cells)
        return grid
    a_lat, a_lon = (lat, lon) if align_to is None else align_to
    if crs == "EPSG:4326":
        dy = cell_size_m / _M_PER_DEG
        dx = dy / max(math.cos(math.radians(a_lat)), 1e-6)
        x0, nx = _aligned_axis(box.west, box.east, a_lon, dx)
        y0, ny = _aligned_axis(box.south, box.north, a_lat, dy)
    else:
        size = cell_size_m / max(math.cos(math.radians(a_lat)), 1e-6)
        x0, nx = _aligned_axis(
            float(mercator_x(box.west)), float(mercator_x(box.east)), float(mercator_x(a_lon)), size
        )
        y0, ny = _aligned_axis(
            float(mercator_y(box.south)),
            float(mercator_y(box.north)),
            float(mercator_y(a_lat)),
            size,
        )
        dx = dy = size
    _check_cells(nx, ny, max_cells)
    return Grid(crs, x0, y0, dx, dy, nx, ny)


def _check_cells(nx: int, ny: int, max_cells: int) -> None:
    if nx * ny > max_cells:
        msg = (
            f"the grid needs {ny} x {nx} = {nx * ny} cells, more than the limit of {max_cells}; "
            "use larger cells or a shorter time limit"
        )
        raise GridTooLargeError(msg, n_targets=nx * ny, limit=max_cells)
