"""Regular grids of analysis cells.

A :class:`Grid` is a regular lattice of cell centres in ``EPSG:4326`` (degrees) or
``EPSG:3857`` (web mercator metres, optionally aligned to a zoom level's pixels as R5 does).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import numpy as np

from otpa.analysis.mercator import (
    MERCATOR_HALF_WORLD_M,
    MERCATOR_MAX_LAT,
    mercator_lat,
    mercator_lon,
    mercator_x,
    mercator_y,
)
from otpa.errors import InvalidArgumentError
from otpa.types import FloatArray
from otpa.util.geo import EARTH_RADIUS_M

if TYPE_CHECKING:
    from otpa.network import TransportNetwork

__all__ = ["MAX_GRID_CELLS", "WEB_MERCATOR_ZOOMS", "Grid", "GridCrs"]

#: Largest number of cells a grid constructor accepts unless told otherwise (``max_cells``).
MAX_GRID_CELLS = 4_000_000

#: Zoom levels accepted by :meth:`Grid.web_mercator` (R5/Conveyal's range).
WEB_MERCATOR_ZOOMS = range(9, 13)

GridCrs: TypeAlias = Literal["EPSG:4326", "EPSG:3857"]

#: Metres per degree of latitude on the sphere used by :mod:`otpa.util.geo`.
_M_PER_DEG = math.pi * EARTH_RADIUS_M / 180.0
_GRID_CRS = ("EPSG:4326", "EPSG:3857")


def _check_bounds(west: float, south: float, east: float, north: float, crs: str) -> None:
    values = {"west": west, "south": south, "east": east, "north": north}
    for name, value in values.items():
        if not math.isfinite(value):
            msg = f"grid bounds must be finite numbers, got {name}={value!r}"
            raise InvalidArgumentError(msg)
    if west > east or south > north:
        msg = (
            f"grid bounds are inverted: west={west}, south={south}, east={east}, "
            f"north={north} (need west <= east and south <= north; grids do not cross the "
            "antimeridian)"
        )
        raise InvalidArgumentError(msg)
    max_lat = MERCATOR_MAX_LAT if crs == "EPSG:3857" else 90.0
    if south < -max_lat or north > max_lat:
        msg = f"grid latitudes must lie within [-{max_lat}, {max_lat}] for {crs}"
        raise InvalidArgumentError(msg)
    if west < -180.0 or east > 180.0:
        msg = f"grid longitudes must lie within [-180, 180], got west={west}, east={east}"
        raise InvalidArgumentError(msg)


def _n_cells_along(span: float, size: float) -> int:
    # the tolerance keeps a span that is a whole number of cells (up to rounding) from
    # gaining an extra row of cells
    return max(1, math.ceil(span / size - 1e-9))


def _check_count(nx: int, ny: int, max_cells: int) -> None:
    if nx * ny > max_cells:
        msg = (
            f"grid of {ny} x {nx} = {nx * ny} cells exceeds the limit of {max_cells} cells; "
            "use larger cells or smaller bounds"
        )
        raise InvalidArgumentError(msg)


def _positive(name: str, value: float) -> float:
    if not (math.isfinite(value) and value > 0):
        msg = f"{name} must be a positive finite number, got {value!r}"
        raise InvalidArgumentError(msg)
    return float(value)


@dataclass(frozen=True, eq=False)
class Grid:
    """A regular grid of cell centres in EPSG:4326 or EPSG:3857.

    Cells are indexed ``[row, col]`` with rows along ``y`` and columns along ``x``; both
    coordinate axes **increase** (row 0 is the southernmost row). Flattened arrays use C order
    (y-major), matching ``array.reshape(grid.shape)``.

    Parameters
    ----------
    crs
        ``"EPSG:4326"`` (x = longitude, y = latitude, degrees) or ``"EPSG:3857"``
        (web mercator metres).
    x0, y0
        Coordinates of the centre of cell ``[0, 0]`` (south-west corner cell), in CRS units.
    dx, dy
        Cell size along x and y, in CRS units.
    nx, ny
        Number of columns and rows.
    zoom
        Web mercator zoom level when the grid is aligned to that zoom's pixels, else None.

    Examples
    --------
    >>> grid = Grid.from_bounds(-51.25, -30.1, -51.15, -30.0, cell_size_m=500.0)
    >>> grid.shape
    (23, 20)
    >>> lat, lon = grid.points()
    >>> lat.shape
    (460,)
    """

    crs: GridCrs
    x0: float
    y0: float
    dx: float
    dy: float
    nx: int
    ny: int
    zoom: int | None = None

    def __post_init__(self) -> None:
        if self.crs not in _GRID_CRS:
            msg = f"grid crs must be one of {_GRID_CRS}, got {self.crs!r}"
            raise InvalidArgumentError(msg)
        for name in ("x0", "y0"):
            value = getattr(self, name)
            if not math.isfinite(value):
                msg = f"grid {name} must be finite, got {value!r}"
                raise InvalidArgumentError(msg)
            object.__setattr__(self, name, float(value))
        object.__setattr__(self, "dx", _positive("grid cell size dx", self.dx))
        object.__setattr__(self, "dy", _positive("grid cell size dy", self.dy))
        for name in ("nx", "ny"):
            value = getattr(self, name)
            if int(value) != value or value < 1:
                msg = f"grid {name} must be a positive integer, got {value!r}"
                raise InvalidArgumentError(msg)
            object.__setattr__(self, name, int(value))
        if self.zoom is not None:
            object.__setattr__(self, "zoom", int(self.zoom))
        y_min, y_max = self.y0, self.y0 + (self.ny - 1) * self.dy
        limit = 90.0 if self.crs == "EPSG:4326" else MERCATOR_HALF_WORLD_M
        if y_min < -limit or y_max > limit:
            msg = f"grid cell centres fall outside the {self.crs} world (y from {y_min} to {y_max})"
            raise InvalidArgumentError(msg)

    # -- constructors ----------------------------------------------------------------------
    @classmethod
    def from_bounds(
        cls,
        west: float,
        south: float,
        east: float,
        north: float,
        *,
        cell_size_m: float = 200.0,
        cell_size_deg: float | tuple[float, float] | None = None,
        crs: GridCrs = "EPSG:4326",
        max_cells: int = MAX_GRID_CELLS,
    ) -> Grid:
        """Cover lon/lat bounds with square-ish cells.

        The grid starts at the south-west corner of the bounds and gets as many cells as
        needed to cover them (the last row and column may reach past ``east``/``north``).

        Parameters
        ----------
        west, south, east, north
            Bounds in degrees (EPSG:4326), whatever the grid's CRS.
        cell_size_m
            Cell size in ground metres at the grid's mid-latitude. For EPSG:4326 it becomes
            ``cell_size_m / 111_195`` degrees of latitude and that divided by
            ``cos(mid_lat)`` degrees of longitude; for EPSG:3857 it becomes
            ``cell_size_m / cos(mid_lat)`` mercator metres both ways.
        cell_size_deg
            EPSG:4326 only: the cell size in degrees, one value or ``(dlon, dlat)``;
            overrides ``cell_size_m``.
        crs
            ``"EPSG:4326"`` or ``"EPSG:3857"``.
        max_cells
            Largest number of cells accepted.

        Returns
        -------
        Grid
            The grid.

        Raises
        ------
        ValueError
            Non-finite or inverted bounds, non-positive cell size, too many cells.
        """
        _check_bounds(west, south, east, north, crs)
        mid_cos = math.cos(math.radians((south + north) / 2.0))
        if crs == "EPSG:3857":
            if cell_size_deg is not None:
                msg = "cell_size_deg applies to EPSG:4326 grids only"
                raise InvalidArgumentError(msg)
            size = _positive("cell_size_m", cell_size_m) / mid_cos
            xw, xe = float(mercator_x(west)), float(mercator_x(east))
            ys, yn = float(mercator_y(south)), float(mercator_y(north))
            return cls._covering("EPSG:3857", xw, ys, xe, yn, size, size, max_cells)
        if crs != "EPSG:4326":
            msg = f"grid crs must be one of {_GRID_CRS}, got {crs!r}"
            raise InvalidArgumentError(msg)
        if cell_size_deg is not None:
            dlon, dlat = (
                (cell_size_deg, cell_size_deg)
                if isinstance(cell_size_deg, int | float)
                else cell_size_deg
            )
            dx = _positive("cell_size_deg", dlon)
            dy = _positive("cell_size_deg", dlat)
        else:
            if mid_cos < 1e-6:
                msg = "cannot size cells in metres at the poles; give cell_size_deg"
                raise InvalidArgumentError(msg)
            dy = _positive("cell_size_m", cell_size_m) / _M_PER_DEG
            dx = dy / mid_cos
        return cls._covering("EPSG:4326", west, south, east, north, dx, dy, max_cells)

    @classmethod
    def _covering(
        cls,
        crs: GridCrs,
        xmin: float,
        ymin: float,
        xmax: float,
        ymax: float,
        dx: float,
        dy: float,
        max_cells: int,
    ) -> Grid:
        nx = _n_cells_along(xmax - xmin, dx)
        ny = _n_cells_along(ymax - ymin, dy)
        _check_count(nx, ny, max_cells)
        return cls(crs, xmin + dx / 2.0, ymin + dy / 2.0, dx, dy, nx, ny)

    @classmethod
    def web_mercator(
        cls,
        west: float,
        south: float,
        east: float,
        north: float,
        *,
        zoom: int,
        max_cells: int = MAX_GRID_CELLS,
    ) -> Grid:
        """The pixels of a web mercator zoom level covering lon/lat bounds (as R5 does).

        One cell is one pixel of 256-pixel tiles: ``2 * pi * 6378137 / (256 * 2**zoom)``
        metres (about 153 m at zoom 10). Cells are aligned to the global pixel lattice, so
        grids of the same zoom share cell boundaries.

        Parameters
        ----------
        west, south, east, north
            Bounds in degrees.
        zoom
            Zoom level, 9 to 12 (R5's range).
        max_cells
            Largest number of cells accepted.

        Returns
        -------
        Grid
            An EPSG:3857 grid with ``zoom`` set.
        """
        if zoom not in WEB_MERCATOR_ZOOMS:
            msg = (
                f"web mercator zoom must be within {WEB_MERCATOR_ZOOMS.start}.."
                f"{WEB_MERCATOR_ZOOMS.stop - 1}, got {zoom!r}"
            )
            raise InvalidArgumentError(msg)
        _check_bounds(west, south, east, north, "EPSG:3857")
        pixel = 2.0 * MERCATOR_HALF_WORLD_M / (256 * 2**zoom)
        col_w = math.floor((float(mercator_x(west)) + MERCATOR_HALF_WORLD_M) / pixel)
        col_e = math.floor((float(mercator_x(east)) + MERCATOR_HALF_WORLD_M) / pixel)
        row_s = math.floor((float(mercator_y(south)) + MERCATOR_HALF_WORLD_M) / pixel)
        row_n = math.floor((float(mercator_y(north)) + MERCATOR_HALF_WORLD_M) / pixel)
        nx, ny = col_e - col_w + 1, row_n - row_s + 1
        _check_count(nx, ny, max_cells)
        x0 = (col_w + 0.5) * pixel - MERCATOR_HALF_WORLD_M
        y0 = (row_s + 0.5) * pixel - MERCATOR_HALF_WORLD_M
        return cls("EPSG:3857", x0, y0, pixel, pixel, nx, ny, zoom=zoom)

    @classmethod
    def around(
        cls,
        lat: float,
        lon: float,
        radius_m: float,
        *,
        cell_size_m: float = 200.0,
        crs: GridCrs = "EPSG:4326",
        max_cells: int = MAX_GRID_CELLS,
    ) -> Grid:
        """A grid covering a square of half-side ``radius_m`` ground metres around a point.

        Parameters
        ----------
        lat, lon
            Centre in degrees.
        radius_m
            Half the side of the covered square, metres.
        cell_size_m
            Cell size in ground metres (see :meth:`from_bounds`).
        crs
            ``"EPSG:4326"`` or ``"EPSG:3857"``.
        max_cells
            Largest number of cells accepted.

        Returns
        -------
        Grid
            The grid.
        """
        _positive("radius_m", radius_m)
        dlat = radius_m / _M_PER_DEG
        coslat = math.cos(math.radians(lat))
        if not (math.isfinite(lat) and math.isfinite(lon)) or coslat < 1e-6:
            msg = f"cannot build a grid around lat={lat!r}, lon={lon!r}"
            raise InvalidArgumentError(msg)
        dlon = dlat / coslat
        return cls.from_bounds(
            lon - dlon,
            lat - dlat,
            lon + dlon,
            lat + dlat,
            cell_size_m=cell_size_m,
            crs=crs,
            max_cells=max_cells,
        )

    @classmethod
    def for_network(
        cls,
        network: TransportNetwork,
        *,
        cell_size_m: float = 200.0,
        crs: GridCrs = "EPSG:4326",
        buffer_m: float = 1000.0,
        max_cells: int = MAX_GRID_CELLS,
    ) -> Grid:
        """A grid covering a network's stops and street vertices plus a buffer.

        Parameters
        ----------
        network
            The transport network (its ``transit.stops`` ``lat``/``lon`` columns and, when it
            has streets, ``street.vertex_lat``/``vertex_lon``).
        cell_size_m
            Cell size in ground metres (see :meth:`from_bounds`).
        crs
            ``"EPSG:4326"`` or ``"EPSG:3857"``.
        buffer_m
            Margin added on every side, metres.
        max_cells
            Largest number of cells accepted.

        Returns
        -------
        Grid
            The grid.
        """
        if not (math.isfinite(buffer_m) and buffer_m >= 0):
            msg = f"buffer_m must be a non-negative finite number, got {buffer_m!r}"
            raise InvalidArgumentError(msg)
        stops = network.transit.stops
        lats = [np.asarray(stops["lat"], dtype=np.float64)]
        lons = [np.asarray(stops["lon"], dtype=np.float64)]
        if network.street is not None:
            lats.append(np.asarray(network.street.vertex_lat, dtype=np.float64))
            lons.append(np.asarray(network.street.vertex_lon, dtype=np.float64))
        lat = np.concatenate(lats)
        lon = np.concatenate(lons)
        ok = np.isfinite(lat) & np.isfinite(lon)
        if not ok.any():
            msg = "the network has no located stops or street vertices to cover"
            raise InvalidArgumentError(msg)
        south, north = float(lat[ok].min()), float(lat[ok].max())
        west, east = float(lon[ok].min()), float(lon[ok].max())
        dlat = buffer_m / _M_PER_DEG
        dlon = dlat / max(math.cos(math.radians((south + north) / 2.0)), 1e-6)
        max_lat = MERCATOR_MAX_LAT if crs == "EPSG:3857" else 90.0
        return cls.from_bounds(
            max(west - dlon, -180.0),
            max(south - dlat, -max_lat),
            min(east + dlon, 180.0),
            min(north + dlat, max_lat),
            cell_size_m=cell_size_m,
            crs=crs,
            max_cells=max_cells,
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, max_cells: int = MAX_GRID_CELLS) -> Grid:
        """Rebuild a grid from :meth:`to_dict` output (for example a JSON request body).

        Parameters
        ----------
        data
            Mapping with keys ``crs``, ``x0``, ``y0``, ``dx``, ``dy``, ``nx``, ``ny`` and
            optionally ``zoom``.
        max_cells
            Largest number of cells accepted.

        Returns
        -------
        Grid
            The grid.
        """
        required = ("crs", "x0", "y0", "dx", "dy", "nx", "ny")
        missing = [key for key in required if key not in data]
        if missing:
            msg = f"grid description lacks {', '.join(missing)}"
            raise InvalidArgumentError(msg)
        try:
            nx, ny = int(data["nx"]), int(data["ny"])
            values = [float(data[key]) for key in ("x0", "y0", "dx", "dy")]
        except (TypeError, ValueError) as exc:
            msg = f"grid description has a non-numeric value: {exc}"
            raise InvalidArgumentError(msg) from exc
        if nx >= 1 and ny >= 1:
            _check_count(nx, ny, max_cells)
        zoom = data.get("zoom")
        x0, y0, dx, dy = values
        crs: Any = str(data["crs"])
        return cls(crs, x0, y0, dx, dy, nx, ny, None if zoom is None else int(zoom))

    # -- geometry --------------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, int]:
        """``(ny, nx)``: rows, columns."""
        return (self.ny, self.nx)

    @property
    def n_cells(self) -> int:
        """Number of cells."""
        return self.nx * self.ny

    @property
    def cell_size(self) -> tuple[float, float]:
        """``(dx, dy)`` in CRS units (degrees for EPSG:4326, metres for EPSG:3857)."""
        return (self.dx, self.dy)

    @property
    def x(self) -> FloatArray:
        """Cell-centre x coordinates (increasing), CRS units."""
        return self.x0 + self.dx * np.arange(self.nx, dtype=np.float64)

    @property
    def y(self) -> FloatArray:
        """Cell-centre y coordinates (increasing: row 0 is the southernmost), CRS units."""
        return self.y0 + self.dy * np.arange(self.ny, dtype=np.float64)

    def _lon_1d(self) -> FloatArray:
        return self.x if self.crs == "EPSG:4326" else mercator_lon(self.x)

    def _lat_1d(self) -> FloatArray:
        return self.y if self.crs == "EPSG:4326" else mercator_lat(self.y)

    @property
    def lat(self) -> FloatArray:
        """Cell-centre latitudes in degrees, shape ``(ny, nx)``."""
        return np.broadcast_to(self._lat_1d()[:, None], self.shape).copy()

    @property
    def lon(self) -> FloatArray:
        """Cell-centre longitudes in degrees, shape ``(ny, nx)``."""
        return np.broadcast_to(self._lon_1d()[None, :], self.shape).copy()

    def points(self) -> tuple[FloatArray, FloatArray]:
        """Cell centres as flat ``(lat, lon)`` arrays in C (y-major) order.

        Returns
        -------
        tuple of numpy.ndarray
            Latitudes and longitudes in degrees, each of length :attr:`n_cells`.
        """
        return self.lat.ravel(), self.lon.ravel()

    @property
    def edges(self) -> tuple[float, float, float, float]:
        """``(xmin, ymin, xmax, ymax)``: the outer cell edges, CRS units."""
        return (
            self.x0 - self.dx / 2.0,
            self.y0 - self.dy / 2.0,
            self.x0 + (self.nx - 0.5) * self.dx,
            self.y0 + (self.ny - 0.5) * self.dy,
        )

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        """``(west, south, east, north)`` in degrees: the area the cells cover (outer edges)."""
        xmin, ymin, xmax, ymax = self.edges
        if self.crs == "EPSG:4326":
            return (xmin, ymin, xmax, ymax)
        return (
            float(mercator_lon(xmin)),
            float(mercator_lat(ymin)),
            float(mercator_lon(xmax)),
            float(mercator_lat(ymax)),
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe description, the inverse of :meth:`from_dict`.

        Returns
        -------
        dict
            ``crs``, ``x0``, ``y0``, ``dx``, ``dy``, ``nx``, ``ny``, ``zoom``.
        """
        return {
            "crs": self.crs,
            "x0": self.x0,
            "y0": self.y0,
            "dx": self.dx,
            "dy": self.dy,
            "nx": self.nx,
            "ny": self.ny,
            "zoom": self.zoom,
        }

    def same_as(self, other: Grid) -> bool:
        """True when ``other`` describes exactly the same cells."""
        return self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return (
            f"Grid(crs={self.crs!r}, shape={self.shape}, cell_size={self.cell_size}, "
            f"bounds={tuple(round(b, 6) for b in self.bounds)}"
            + ("" if self.zoom is None else f", zoom={self.zoom}")
            + ")"
        )
