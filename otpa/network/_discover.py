"""Find the input files of a network build in a directory."""

from __future__ import annotations

import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from otpa.errors import NetworkBuildError

__all__ = ["BuildInputs", "discover_inputs"]

_GTFS_MARKERS = ("stops.txt", "stop_times.txt", "routes.txt", "trips.txt")


@dataclass(frozen=True)
class BuildInputs:
    """The files a build will read, and what was skipped and why."""

    gtfs: list[Path] = field(default_factory=list)
    osm: list[Path] = field(default_factory=list)
    elevation: list[Path] = field(default_factory=list)
    config: Path | None = None
    skipped: list[tuple[Path, str]] = field(default_factory=list)
    boundaries: Path | None = None

    @property
    def all_files(self) -> list[Path]:
        """Every input path that will be read."""
        return [*self.gtfs, *self.osm, *self.elevation]


def _zip_is_gtfs(path: Path) -> bool:
    try:
        with zipfile.ZipFile(path) as zf:
            names = {Path(n).name for n in zf.namelist()}
    except zipfile.BadZipFile:
        msg = f"{path}: the zip archive is corrupt or truncated"
        raise NetworkBuildError(msg) from None
    return "stops.txt" in names or "stop_times.txt" in names


def _dir_is_gtfs(path: Path) -> bool:
    return any((path / name).is_file() for name in _GTFS_MARKERS)


def discover_inputs(directory: Path) -> BuildInputs:
    """Classify the files of ``directory`` (not recursive, but GTFS folders count).

    * GTFS: ``*.zip`` archives holding ``stops.txt`` or ``stop_times.txt``, and
      sub-folders holding GTFS text files; ``directory`` itself when it holds them.
    * OSM: ``*.pbf``, ``*.osm`` (and ``*.osm.xml``).
    * Elevation: ``*.tif``, ``*.tiff``.
    * ``build-config.json``;
    * ``boundaries.geojson``: municipality boundaries for the municoder.

    Zip archives that are not GTFS (e.g. fare configurations) are skipped and
    reported; corrupt archives raise.

    Raises
    ------
    otpa.errors.NetworkBuildError
        If ``directory`` is missing, or a zip archive is corrupt.
    """
    if not directory.is_dir():
        msg = f"{directory} is not a directory"
        raise NetworkBuildError(msg)
    gtfs: list[Path] = []
    osm: list[Path] = []
    elevation: list[Path] = []
    skipped: list[tuple[Path, str]] = []
    if _dir_is_gtfs(directory):
        gtfs.append(directory)
    for path in sorted(directory.iterdir()):
        name = path.name.lower()
        if name.startswith("."):
            continue
        if path.is_dir():
            if _dir_is_gtfs(path):
                gtfs.append(path)
        elif name.endswith(".zip"):
            if _zip_is_gtfs(path):
                gtfs.append(path)
            else:
                skipped.append((path, "zip archive without stops.txt: not a GTFS feed"))
        elif name.endswith((".pbf", ".osm", ".osm.xml")):
            osm.append(path)
        elif name.endswith((".tif", ".tiff")):
            elevation.append(path)
    config = directory / "build-config.json"
    boundaries = directory / "boundaries.geojson"
    return BuildInputs(
        gtfs=gtfs,
        osm=osm,
        elevation=elevation,
        config=config if config.is_file() else None,
        skipped=skipped,
        boundaries=boundaries if boundaries.is_file() else None,
    )
