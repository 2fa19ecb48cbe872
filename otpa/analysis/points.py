"""Analysis targets: regular grids of cells and sets of points with opportunities.

A :class:`Grid` is a regular lattice of cell centres in ``EPSG:4326`` (degrees) or
``EPSG:3857`` (web mercator metres, optionally aligned to a zoom level's pixels as R5 does).
A :class:`PointSet` is a list of identified places with numeric opportunity counts (jobs,
schools, population...), read from CSV, GeoJSON or (Geo)DataFrames.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import numpy as np
import numpy.typing as npt
import pandas as pd

from otpa.errors import OtpaError, UnknownIdError
from otpa.types import FloatArray, PathLike
from otpa.util.geo import EARTH_RADIUS_M

if TYPE_CHECKING:
    import geopandas as gpd

    from otpa.network import TransportNetwork

__all__ = [
    "MAX_GRID_CELLS",
    "WEB_MERCATOR_ZOOMS",
    "Grid",
    "GridCrs",
    "PointSet",
    "PointSetError",
]

#: Largest number of cells a grid constructor accepts unless told otherwise (``max_cells``).
MAX_GRID_CELLS = 4_000_000

#: Zoom levels accepted by :meth:`Grid.web_mercator` (R5/Conveyal's range).
WEB_MERCATOR_ZOOMS = range(9, 13)

GridCrs: TypeAlias = Literal["EPSG:4326", "EPSG:3857"]
StrArray: TypeAlias = npt.NDArray[np.str_]

#: Radius of the web mercator sphere (EPSG:3857), metres.
MERCATOR_RADIUS_M = 6_378_137.0
#: Latitude at which the web mercator world becomes square (degrees).
MERCATOR_MAX_LAT = 85.051_128_779_806_59
_MERCATOR_HALF_WORLD_M = math.pi * MERCATOR_RADIUS_M
#: Metres per degree of latitude on the sphere used by :mod:`otpa.util.geo`.
_M_PER_DEG = math.pi * EARTH_RADIUS_M / 180.0
_GRID_CRS = ("EPSG:4326", "EPSG:3857")

_LAT_NAMES = ("lat", "latitude", "y")
_LON_NAMES = ("lon", "lng", "longitude", "x")


class PointSetError(ValueError, OtpaError):
    """A point set cannot be built from the given input (bad coordinates, duplicate ids...)."""


# -- web mercator --------------------------------------------------------------------------
def mercator_x(lon: npt.ArrayLike) -> FloatArray:
    """Web mercator x (metres) of longitudes in degrees."""
    return np.radians(np.asarray(lon, dtype=np.float64)) * MERCATOR_RADIUS_M


def mercator_y(lat: npt.ArrayLike) -> FloatArray:
    """Web mercator y (metres) of latitudes in degrees (valid within ``±MERCATOR_MAX_LAT``)."""
    phi = np.radians(np.asarray(lat, dtype=np.float64))
    return np.log(np.tan(np.pi / 4.0 + phi / 2.0)) * MERCATOR_RADIUS_M


def mercator_lon(x: npt.ArrayLike) -> FloatArray:
    """Longitude in degrees of web mercator x (metres)."""
    return np.degrees(np.asarray(x, dtype=np.float64) / MERCATOR_RADIUS_M)


def mercator_lat(y: npt.ArrayLike) -> FloatArray:
    """Latitude in degrees of web mercator y (metres)."""
    ratio = np.asarray(y, dtype=np.float64) / MERCATOR_RADIUS_M
    return np.degrees(2.0 * np.arctan(np.exp(ratio)) - np.pi / 2.0)


# -- grids ---------------------------------------------------------------------------------
def _check_bounds(west: float, south: float, east: float, north: float, crs: str) -> None:
    values = {"west": west, "south": south, "east": east, "north": north}
    for name, value in values.items():
        if not math.isfinite(value):
            msg = f"grid bounds must be finite numbers, got {name}={value!r}"
            raise ValueError(msg)
    if west > east or south > north:
        msg = (
            f"grid bounds are inverted: west={west}, south={south}, east={east}, "
            f"north={north} (need west <= east and south <= north; grids do not cross the "
            "antimeridian)"
        )
        raise ValueError(msg)
    max_lat = MERCATOR_MAX_LAT if crs == "EPSG:3857" else 90.0
    if south < -max_lat or north > max_lat:
        msg = f"grid latitudes must lie within [-{max_lat}, {max_lat}] for {crs}"
        raise ValueError(msg)
    if west < -180.0 or east > 180.0:
        msg = f"grid longitudes must lie within [-180, 180], got west={west}, east={east}"
        raise ValueError(msg)


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
        raise ValueError(msg)


def _positive(name: str, value: float) -> float:
    if not (math.isfinite(value) and value > 0):
        msg = f"{name} must be a positive finite number, got {value!r}"
        raise ValueError(msg)
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
            raise ValueError(msg)
        for name in ("x0", "y0"):
            value = getattr(self, name)
            if not math.isfinite(value):
                msg = f"grid {name} must be finite, got {value!r}"
                raise ValueError(msg)
            object.__setattr__(self, name, float(value))
        object.__setattr__(self, "dx", _positive("grid cell size dx", self.dx))
        object.__setattr__(self, "dy", _positive("grid cell size dy", self.dy))
        for name in ("nx", "ny"):
            value = getattr(self, name)
            if int(value) != value or value < 1:
                msg = f"grid {name} must be a positive integer, got {value!r}"
                raise ValueError(msg)
            object.__setattr__(self, name, int(value))
        if self.zoom is not None:
            object.__setattr__(self, "zoom", int(self.zoom))
        y_min, y_max = self.y0, self.y0 + (self.ny - 1) * self.dy
        limit = 90.0 if self.crs == "EPSG:4326" else _MERCATOR_HALF_WORLD_M
        if y_min < -limit or y_max > limit:
            msg = f"grid cell centres fall outside the {self.crs} world (y from {y_min} to {y_max})"
            raise ValueError(msg)

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
                raise ValueError(msg)
            size = _positive("cell_size_m", cell_size_m) / mid_cos
            xw, xe = float(mercator_x(west)), float(mercator_x(east))
            ys, yn = float(mercator_y(south)), float(mercator_y(north))
            return cls._covering("EPSG:3857", xw, ys, xe, yn, size, size, max_cells)
        if crs != "EPSG:4326":
            msg = f"grid crs must be one of {_GRID_CRS}, got {crs!r}"
            raise ValueError(msg)
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
                raise ValueError(msg)
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
            raise ValueError(msg)
        _check_bounds(west, south, east, north, "EPSG:3857")
        pixel = 2.0 * _MERCATOR_HALF_WORLD_M / (256 * 2**zoom)
        col_w = math.floor((float(mercator_x(west)) + _MERCATOR_HALF_WORLD_M) / pixel)
        col_e = math.floor((float(mercator_x(east)) + _MERCATOR_HALF_WORLD_M) / pixel)
        row_s = math.floor((float(mercator_y(south)) + _MERCATOR_HALF_WORLD_M) / pixel)
        row_n = math.floor((float(mercator_y(north)) + _MERCATOR_HALF_WORLD_M) / pixel)
        nx, ny = col_e - col_w + 1, row_n - row_s + 1
        _check_count(nx, ny, max_cells)
        x0 = (col_w + 0.5) * pixel - _MERCATOR_HALF_WORLD_M
        y0 = (row_s + 0.5) * pixel - _MERCATOR_HALF_WORLD_M
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
            raise ValueError(msg)
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
            raise ValueError(msg)
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
            raise ValueError(msg)
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
            raise ValueError(msg)
        try:
            nx, ny = int(data["nx"]), int(data["ny"])
            values = [float(data[key]) for key in ("x0", "y0", "dx", "dy")]
        except (TypeError, ValueError) as exc:
            msg = f"grid description has a non-numeric value: {exc}"
            raise ValueError(msg) from exc
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


# -- point sets ----------------------------------------------------------------------------
def _find_column(frame: pd.DataFrame, wanted: str, candidates: Sequence[str], what: str) -> str:
    if wanted in frame.columns:
        return wanted
    by_lower = {str(c).lower(): str(c) for c in frame.columns}
    for name in (wanted.lower(), *candidates):
        if name in by_lower:
            return by_lower[name]
    msg = (
        f"no {what} column: looked for {wanted!r} and (any case) {', '.join(candidates)}; "
        f"columns are {[str(c) for c in frame.columns]}"
    )
    raise PointSetError(msg)


def _numeric_coordinate(values: pd.Series[Any], column: str, ids: StrArray) -> FloatArray:
    numbers = np.asarray(
        pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan),
        dtype=np.float64,
    )
    bad = ~np.isfinite(numbers)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        msg = (
            f"column {column!r} row {row} (id {str(ids[row])!r}): {values.iloc[row]!r} is not a "
            f"finite number ({int(bad.sum())} bad row(s))"
        )
        raise PointSetError(msg)
    return numbers


def _check_coordinates(lat: FloatArray, lon: FloatArray, ids: StrArray) -> None:
    for name, values, limit in (("lat", lat, 90.0), ("lon", lon, 180.0)):
        bad = ~np.isfinite(values) | (np.abs(values) > limit)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            msg = (
                f"{name} of row {row} (id {str(ids[row])!r}) is {float(values[row])!r}, outside "
                f"[-{limit:g}, {limit:g}] ({int(bad.sum())} bad row(s))"
            )
            raise PointSetError(msg)


def _check_ids(ids: StrArray) -> None:
    if ids.size == 0:
        msg = "a point set needs at least one point"
        raise PointSetError(msg)
    unique, counts = np.unique(ids, return_counts=True)
    if unique.size != ids.size:
        dup = str(unique[np.argmax(counts > 1)])
        msg = f"duplicate point id {dup!r} ({int((counts > 1).sum())} ids repeat)"
        raise PointSetError(msg)


def _is_numeric(series: pd.Series[Any]) -> bool:
    return bool(
        pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series)
    )


def _as_str_ids(values: Iterable[Any]) -> StrArray:
    items = list(values)
    for row, value in enumerate(items):
        if value is None or (isinstance(value, float) and math.isnan(value)):
            msg = f"id of row {row} is missing"
            raise PointSetError(msg)
    return np.array([str(v) for v in items], dtype=np.str_)


@dataclass(frozen=True, eq=False)
class PointSet:
    """Identified points (origins or destinations) with numeric opportunity columns.

    Parameters
    ----------
    ids
        Unique point ids (strings).
    lat, lon
        Coordinates in degrees (WGS84).
    opportunities
        Numeric columns indexed by id (jobs, population...), possibly without columns.
    name
        A label for the set.
    dropped_columns
        Input columns left out of ``opportunities`` because they were not numeric.

    Examples
    --------
    >>> frame = pd.DataFrame({"id": ["a", "b"], "lat": [0.0, 0.1], "lon": [1.0, 1.1],
    ...                       "jobs": [10, 20]})
    >>> ps = PointSet.from_frame(frame)
    >>> len(ps), list(ps.opportunities.columns)
    (2, ['jobs'])
    """

    ids: StrArray
    lat: FloatArray
    lon: FloatArray
    opportunities: pd.DataFrame = field(default_factory=pd.DataFrame)
    name: str = ""
    dropped_columns: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        ids = _as_str_ids(np.asarray(self.ids).ravel())
        lat = np.array(self.lat, dtype=np.float64).ravel()
        lon = np.array(self.lon, dtype=np.float64).ravel()
        if not (ids.size == lat.size == lon.size):
            msg = f"ids, lat and lon differ in length ({ids.size}, {lat.size}, {lon.size})"
            raise PointSetError(msg)
        _check_ids(ids)
        _check_coordinates(lat, lon, ids)
        for array in (ids, lat, lon):
            array.flags.writeable = False
        object.__setattr__(self, "ids", ids)
        object.__setattr__(self, "lat", lat)
        object.__setattr__(self, "lon", lon)
        object.__setattr__(self, "opportunities", self._aligned(self.opportunities, ids))
        object.__setattr__(self, "dropped_columns", tuple(self.dropped_columns))

    @staticmethod
    def _aligned(frame: pd.DataFrame, ids: StrArray) -> pd.DataFrame:
        index = pd.Index(ids, name="id")
        if frame.shape[1] == 0:
            return pd.DataFrame(index=index)
        for column in frame.columns:
            if not _is_numeric(frame[column]):
                msg = f"opportunity column {column!r} is not numeric ({frame[column].dtype})"
                raise PointSetError(msg)
        given = pd.Index([str(i) for i in frame.index])
        if given.has_duplicates:
            msg = "the opportunities frame has duplicate ids in its index"
            raise PointSetError(msg)
        if len(given) != len(index) or not given.isin(index).all():
            msg = "the opportunities frame's index does not hold exactly the point ids"
            raise PointSetError(msg)
        out = frame.copy()
        out.index = given
        out.columns = [str(c) for c in out.columns]
        out = out.reindex(index)
        out.index.name = "id"
        return out

    # -- constructors ----------------------------------------------------------------------
    @classmethod
    def from_frame(
        cls,
        frame: pd.DataFrame,
        *,
        id_column: str = "id",
        lat_column: str = "lat",
        lon_column: str = "lon",
        name: str = "",
    ) -> PointSet:
        """Build a point set from a table of points.

        Coordinate columns are looked up by the given names, then (in any case) among
        ``lat``/``latitude``/``y`` and ``lon``/``lng``/``longitude``/``x``. Without an id
        column the ids are the row numbers ``"0"``, ``"1"``... Numeric columns other than
        the id and coordinates become opportunity columns; others are dropped and listed in
        :attr:`dropped_columns`.

        Parameters
        ----------
        frame
            One row per point.
        id_column, lat_column, lon_column
            Column names.
        name
            Label of the set.

        Returns
        -------
        PointSet
            The point set.

        Raises
        ------
        PointSetError
            Empty input, missing or bad coordinates (the first bad row is named),
            duplicate or missing ids.
        """
        if len(frame) == 0:
            msg = "a point set needs at least one point (the table is empty)"
            raise PointSetError(msg)
        frame = frame.reset_index(drop=True)
        lat_name = _find_column(frame, lat_column, _LAT_NAMES, "latitude")
        lon_name = _find_column(frame, lon_column, _LON_NAMES, "longitude")
        if id_column in frame.columns:
            ids = _as_str_ids(frame[id_column])
            id_name: str | None = id_column
        else:
            ids = np.array([str(i) for i in range(len(frame))], dtype=np.str_)
            id_name = None
        lat = _numeric_coordinate(frame[lat_name], lat_name, ids)
        lon = _numeric_coordinate(frame[lon_name], lon_name, ids)
        rest = [c for c in frame.columns if c not in (lat_name, lon_name, id_name)]
        numeric = [c for c in rest if _is_numeric(frame[c])]
        dropped = tuple(str(c) for c in rest if c not in numeric)
        opportunities = frame[numeric].copy()
        opportunities.index = pd.Index(ids, name="id")
        return cls(ids, lat, lon, opportunities, name=name, dropped_columns=dropped)

    @classmethod
    def from_csv(
        cls,
        source: PathLike | Any,
        *,
        id_column: str = "id",
        lat_column: str = "lat",
        lon_column: str = "lon",
        name: str | None = None,
    ) -> PointSet:
        """Read a point set from a CSV file or buffer (see :meth:`from_frame`).

        Ids are read as text (leading zeros kept); lines starting with ``#`` are comments.

        Parameters
        ----------
        source
            Path or file-like object.
        id_column, lat_column, lon_column
            Column names.
        name
            Label; defaults to the file's stem.

        Returns
        -------
        PointSet
            The point set.
        """
        frame = pd.read_csv(source, dtype={id_column: str}, skipinitialspace=True, comment="#")
        if name is None:
            name = Path(source).stem if isinstance(source, str | Path) else ""
        return cls.from_frame(
            frame, id_column=id_column, lat_column=lat_column, lon_column=lon_column, name=name
        )

    @classmethod
    def from_geojson(
        cls, source: PathLike | Mapping[str, Any], *, name: str | None = None
    ) -> PointSet:
        """Read a point set from a GeoJSON FeatureCollection.

        Point features give their coordinates; Polygon and MultiPolygon features their
        representative point (a point guaranteed inside). Ids come from the feature ``id``,
        else an ``id`` property, else the feature's position. Numeric properties become
        opportunity columns; nested objects are flattened with ``:`` (OTP's ``structured``
        object contributes its members without a prefix, so ``{"structured": {"jobs": {"retail":
        3}}}`` gives ``jobs:retail``).

        Parameters
        ----------
        source
            Path, GeoJSON text, or the parsed mapping.
        name
            Label; defaults to the file's stem.

        Returns
        -------
        PointSet
            The point set.
        """
        if isinstance(source, Mapping):
            document: Any = source
        elif isinstance(source, str) and source.lstrip().startswith("{"):
            document = json.loads(source)
        else:
            path = Path(source)
            document = json.loads(path.read_text(encoding="utf-8"))
            if name is None:
                name = path.name.split(".")[0]
        features = document.get("features") if isinstance(document, Mapping) else None
        if not isinstance(features, list) or not features:
            msg = "GeoJSON point sets must be a FeatureCollection with at least one feature"
            raise PointSetError(msg)
        rows = [_feature_row(feature, index) for index, feature in enumerate(features)]
        frame = pd.DataFrame(rows)
        for column in frame.columns:
            if column not in ("id", "lat", "lon"):
                frame[column] = _maybe_numeric(frame[column])
        return cls.from_frame(frame, name=name or "")

    @classmethod
    def from_geodataframe(
        cls, gdf: gpd.GeoDataFrame, *, id_column: str = "id", name: str = ""
    ) -> PointSet:
        """Build a point set from a GeoDataFrame (reprojected to EPSG:4326).

        Non-point geometries use their representative point. A GeoDataFrame without a CRS is
        taken to be in EPSG:4326.

        Parameters
        ----------
        gdf
            One row per point.
        id_column
            Id column; row numbers when absent.
        name
            Label of the set.

        Returns
        -------
        PointSet
            The point set.
        """
        if len(gdf) == 0:
            msg = "a point set needs at least one point (the GeoDataFrame is empty)"
            raise PointSetError(msg)
        if gdf.crs is not None and not gdf.crs.equals("EPSG:4326"):
            gdf = gdf.to_crs("EPSG:4326")
        geometry = gdf.geometry
        if geometry.isna().any() or geometry.is_empty.any():
            row = int(np.flatnonzero((geometry.isna() | geometry.is_empty).to_numpy())[0])
            msg = f"row {row} of the GeoDataFrame has no geometry"
            raise PointSetError(msg)
        points = geometry.representative_point()
        frame = pd.DataFrame(gdf.drop(columns=gdf.geometry.name))
        frame["lat"] = points.y.to_numpy()
        frame["lon"] = points.x.to_numpy()
        return cls.from_frame(frame, id_column=id_column, name=name)

    @classmethod
    def from_grid(cls, grid: Grid, *, name: str = "grid") -> PointSet:
        """The cell centres of a grid as points with ids ``"r{row}c{col}"`` (C order).

        Parameters
        ----------
        grid
            The grid.
        name
            Label of the set.

        Returns
        -------
        PointSet
            A point set without opportunities.
        """
        rows, cols = np.indices(grid.shape)
        pairs = zip(rows.ravel().tolist(), cols.ravel().tolist(), strict=True)
        ids = [f"r{r}c{c}" for r, c in pairs]
        lat, lon = grid.points()
        return cls(np.array(ids, dtype=np.str_), lat, lon, name=name)

    # -- views -----------------------------------------------------------------------------
    def __len__(self) -> int:
        return int(self.ids.size)

    def __repr__(self) -> str:
        cols = list(self.opportunities.columns)
        return f"PointSet(name={self.name!r}, n={len(self)}, opportunities={cols})"

    def to_frame(self) -> pd.DataFrame:
        """One row per point: ``id``, ``lat``, ``lon`` and the opportunity columns.

        Returns
        -------
        pandas.DataFrame
            A new frame.
        """
        frame = pd.DataFrame({"id": self.ids, "lat": self.lat, "lon": self.lon})
        for column in self.opportunities.columns:
            frame[column] = self.opportunities[column].to_numpy()
        return frame

    def to_geojson(self) -> dict[str, Any]:
        """A GeoJSON FeatureCollection of Point features with the opportunities as properties.

        Returns
        -------
        dict
            JSON-safe mapping (NaN opportunity values become ``null``).
        """
        columns = list(self.opportunities.columns)
        values = [self.opportunities[c].to_numpy() for c in columns]
        features = []
        for i, point_id in enumerate(self.ids.tolist()):
            props = {c: _json_scalar(v[i]) for c, v in zip(columns, values, strict=True)}
            features.append(
                {
                    "type": "Feature",
                    "id": point_id,
                    "geometry": {
                        "type": "Point",
                        "coordinates": [float(self.lon[i]), float(self.lat[i])],
                    },
                    "properties": props,
                }
            )
        return {"type": "FeatureCollection", "features": features}

    def to_geodataframe(self) -> gpd.GeoDataFrame:
        """A GeoDataFrame (EPSG:4326) with ``id``, the opportunity columns and Point geometry.

        Returns
        -------
        geopandas.GeoDataFrame
            A new frame.
        """
        import geopandas as gpd  # heavy: only imported when asked for

        frame = self.to_frame()
        geometry = gpd.points_from_xy(frame.pop("lon"), frame.pop("lat"), crs="EPSG:4326")
        return gpd.GeoDataFrame(frame, geometry=geometry, crs="EPSG:4326")

    def positions(self, ids: Iterable[Any]) -> npt.NDArray[np.intp]:
        """Positions of the given ids in this set.

        Parameters
        ----------
        ids
            Point ids.

        Returns
        -------
        numpy.ndarray
            Integer positions, in the order given.

        Raises
        ------
        otpa.errors.UnknownIdError
            Some id is not in the set (the first unknown is named).
        """
        wanted = pd.Index([str(i) for i in ids])
        positions = pd.Index(self.ids).get_indexer(wanted)
        if (positions < 0).any():
            unknown = wanted[int(np.flatnonzero(positions < 0)[0])]
            msg = (
                f"point id {unknown!r} is not in point set {self.name!r} "
                f"({int((positions < 0).sum())} unknown ids)"
            )
            raise UnknownIdError(msg)
        return np.asarray(positions, dtype=np.intp)

    def subset(self, ids: Iterable[Any]) -> PointSet:
        """The points with the given ids, in the order given.

        Parameters
        ----------
        ids
            Point ids.

        Returns
        -------
        PointSet
            A new point set with the same name.
        """
        positions = self.positions(ids)
        return PointSet(
            self.ids[positions],
            self.lat[positions],
            self.lon[positions],
            self.opportunities.iloc[positions],
            name=self.name,
            dropped_columns=self.dropped_columns,
        )


def _json_scalar(value: Any) -> Any:
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _flatten(properties: Mapping[str, Any], prefix: str, out: dict[str, Any]) -> None:
    for key, value in properties.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            # OTP's "structured" object holds the magnitudes: no prefix for it
            inner = "" if (prefix == "" and key == "structured") else f"{name}:"
            _flatten(value, inner, out)
        else:
            out[name] = value


def _feature_row(feature: Any, index: int) -> dict[str, Any]:
    from shapely.geometry import shape

    if not isinstance(feature, Mapping):
        msg = f"feature {index} is not a GeoJSON object"
        raise PointSetError(msg)
    geometry = feature.get("geometry")
    if not isinstance(geometry, Mapping):
        msg = f"feature {index} has no geometry"
        raise PointSetError(msg)
    kind = geometry.get("type")
    if kind == "Point":
        coords = geometry.get("coordinates")
        if not isinstance(coords, list | tuple) or len(coords) < 2:
            msg = f"feature {index} has malformed Point coordinates {coords!r}"
            raise PointSetError(msg)
        lon, lat = coords[0], coords[1]
    elif kind in ("Polygon", "MultiPolygon"):
        point = shape(geometry).representative_point()
        lon, lat = point.x, point.y
    else:
        msg = f"feature {index} has a {kind} geometry; point sets take Point, Polygon, MultiPolygon"
        raise PointSetError(msg)
    properties = feature.get("properties") or {}
    row: dict[str, Any] = {}
    _flatten(properties, "", row)
    point_id = feature.get("id", row.pop("id", None))
    row.pop("id", None)
    row.pop("lat", None)
    row.pop("lon", None)
    row["id"] = str(index) if point_id is None else str(point_id)
    row["lat"] = lat
    row["lon"] = lon
    return row


def _maybe_numeric(series: pd.Series[Any]) -> pd.Series[Any]:
    """Numbers stay numbers (missing -> NaN); any text or bool leaves the column non-numeric."""
    values = series.dropna()
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return pd.to_numeric(series)
    return series.astype(object)
