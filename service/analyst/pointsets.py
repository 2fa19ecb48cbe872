"""Point sets of the analyst API: read from a folder, or uploaded.

The folder (``pointsets_dir``) holds ``<id>.csv`` (``id``, ``lat``, ``lon`` and numeric
opportunity columns) and ``<id>.json`` / ``<id>.geojson`` (a FeatureCollection of points or
polygons; numeric properties, OTP's ``structured`` object flattened) files; a file's stem is
its id (when a stem has both, the CSV wins). Files are read on first use and re-read when
they change. Uploaded sets live in memory, at most ``max_uploads`` of them, under ids no
file or other upload uses. Every set is validated by :class:`otpa.analysis.PointSet`'s
readers, so a set that is served can be evaluated.
"""

from __future__ import annotations

import io
import json
import re
import threading
from dataclasses import dataclass
from pathlib import Path

from otpa.analysis import PointSet, PointSetError
from otpa.errors import InvalidArgumentError

__all__ = [
    "EXTENSIONS",
    "PointSetConflictError",
    "PointSetRegistry",
    "is_valid_id",
    "parse_point_set",
]

#: File extensions read from the folder, in order of preference.
EXTENSIONS = (".csv", ".json", ".geojson")
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_GEOJSON_TYPES = ("application/json", "application/geo+json", "application/vnd.geo+json")


class PointSetConflictError(ValueError):
    """An upload's id is taken, or the registry holds as many uploads as it may."""


def is_valid_id(point_set_id: str) -> bool:
    """True for ids of letters, digits, ``_ . -`` (at most 64, not starting with a dot)."""
    return bool(_ID.match(point_set_id))


def parse_point_set(body: bytes, content_type: str | None, name: str) -> PointSet:
    """Read an uploaded point set: CSV, or GeoJSON (by content type, else by its first byte).

    Parameters
    ----------
    body
        The upload.
    content_type
        The request's ``Content-Type`` (parameters ignored).
    name
        The point set's id.

    Returns
    -------
    PointSet

    Raises
    ------
    otpa.analysis.PointSetError
        The body is not a valid point set (the reason is in the message).
    """
    kind = (content_type or "").split(";")[0].strip().lower()
    geojson = kind in _GEOJSON_TYPES or (kind not in ("text/csv",) and body.lstrip()[:1] == b"{")
    try:
        if geojson:
            document = json.loads(body.decode("utf-8"))
            if not isinstance(document, dict):
                msg = "a GeoJSON point set must be a FeatureCollection object"
                raise PointSetError(msg)
            return PointSet.from_geojson(document, name=name)
        return PointSet.from_csv(io.BytesIO(body), name=name)
    except PointSetError:
        raise
    except (ValueError, KeyError, TypeError) as exc:
        msg = f"cannot read the point set: {exc}"
        raise PointSetError(msg) from None


@dataclass(frozen=True)
class _Loaded:
    path: Path
    mtime_ns: int
    size: int
    points: PointSet


class PointSetRegistry:
    """Point sets by id: files of a folder (read lazily) and uploads (thread-safe).

    Parameters
    ----------
    folder
        The point-sets folder, or None.
    max_uploads
        Most uploaded sets kept.
    """

    def __init__(self, folder: Path | None, *, max_uploads: int = 32) -> None:
        self.folder = folder
        self.max_uploads = max_uploads
        self._loaded: dict[str, _Loaded] = {}
        self._uploads: dict[str, PointSet] = {}
        self._lock = threading.Lock()

    def _files(self) -> dict[str, Path]:
        """Point-set files of the folder by id (the preferred extension per stem)."""
        if self.folder is None or not self.folder.is_dir():
            return {}
        files: dict[str, Path] = {}
        for extension in reversed(EXTENSIONS):
            for path in self.folder.glob(f"*{extension}"):
                stem = path.name[: -len(extension)]
                if path.is_file() and is_valid_id(stem):
                    files[stem] = path
        return files

    def ids(self) -> list[str]:
        """Every point-set id, sorted (reads the folder's listing)."""
        with self._lock:
            uploads = set(self._uploads)
        return sorted(uploads | set(self._files()))

    def get(self, point_set_id: str) -> PointSet | None:
        """The point set with this id, or None (blocking: may read a file).

        Raises
        ------
        otpa.analysis.PointSetError
            The file exists but is not a valid point set.
        """
        with self._lock:
            uploaded = self._uploads.get(point_set_id)
        if uploaded is not None or not is_valid_id(point_set_id):
            return uploaded
        path = self._files().get(point_set_id)
        if path is None:
            return None
        stat = path.stat()
        with self._lock:
            cached = self._loaded.get(point_set_id)
        if cached and (cached.path, cached.mtime_ns, cached.size) == (
            path,
            stat.st_mtime_ns,
            stat.st_size,
        ):
            return cached.points
        if path.suffix == ".csv":
            points = PointSet.from_csv(path, name=point_set_id)
        else:
            points = PointSet.from_geojson(path, name=point_set_id)
        with self._lock:
            self._loaded[point_set_id] = _Loaded(path, stat.st_mtime_ns, stat.st_size, points)
        return points

    def add(self, point_set_id: str, points: PointSet) -> None:
        """Keep an uploaded point set under a new id.

        Raises
        ------
        PointSetConflictError
            The id is taken (by a file or an upload), or ``max_uploads`` sets are kept.
        ValueError
            The id is not valid.
        """
        if not is_valid_id(point_set_id):
            msg = f"invalid point set id {point_set_id!r}"
            raise InvalidArgumentError(msg)
        taken_by_file = point_set_id in self._files()
        with self._lock:
            if taken_by_file or point_set_id in self._uploads:
                msg = f"point set id {point_set_id!r} is already in use"
                raise PointSetConflictError(msg)
            if len(self._uploads) >= self.max_uploads:
                msg = f"the server keeps at most {self.max_uploads} uploaded point sets"
                raise PointSetConflictError(msg)
            self._uploads[point_set_id] = points
