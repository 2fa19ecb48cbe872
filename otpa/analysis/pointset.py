"""Point sets: identified places with opportunity counts, the targets of an analysis.

A :class:`PointSet` is a list of identified places with numeric opportunity counts (jobs,
schools, population...), read from CSV, GeoJSON or (Geo)DataFrames.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np
import numpy.typing as npt
import pandas as pd

from otpa.analysis.grid import Grid
from otpa.errors import OtpaError, UnknownIdError
from otpa.types import FloatArray, PathLike

if TYPE_CHECKING:
    import geopandas as gpd

__all__ = ["PointSet", "PointSetError"]

StrArray: TypeAlias = npt.NDArray[np.str_]

_LAT_NAMES = ("lat", "latitude", "y")
_LON_NAMES = ("lon", "lng", "longitude", "x")


class PointSetError(ValueError, OtpaError):
    """A point set cannot be built from the given input (bad coordinates, duplicate ids...)."""


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
