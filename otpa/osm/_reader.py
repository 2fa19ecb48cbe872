"""``read_osm``: OSM PBF/XML files -> :class:`~otpa.osm.model.OsmStreetData`."""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from pathlib import Path

from otpa.osm._build import build_street_data
from otpa.osm._scan import scan_files
from otpa.osm._way_tags import WALK_TAG_KEYS
from otpa.osm.model import OsmStreetData
from otpa.types import PathLike

__all__ = ["read_osm"]


def _as_paths(paths: PathLike | Sequence[PathLike]) -> list[Path]:
    if isinstance(paths, (str, os.PathLike)):
        return [Path(paths)]
    return [Path(p) for p in paths]


def read_osm(
    paths: PathLike | Sequence[PathLike], *, keep_tags: Collection[str] = WALK_TAG_KEYS
) -> OsmStreetData:
    """Read routable streets from one or more OSM files.

    Parameters
    ----------
    paths
        One path or a sequence of paths to ``.osm.pbf``/``.pbf`` or ``.osm`` (XML) files
        (``.osm.gz``/``.osm.bz2`` work too).  Several files are merged: an object id seen
        again in a later file is ignored, and node locations are shared between files.
    keep_tags
        Tag keys kept per way in ``way_tags`` (default: what walk-comfort rules read).

    Returns
    -------
    OsmStreetData
        Vertices, segments, turn restrictions and point features, with OTP 1.x's
        default way properties (see ``otpa/osm/README.md``).

    Raises
    ------
    OsmError
        When a file is missing, unreadable or corrupt, or when the files hold no
        routable highway.
    """
    files = _as_paths(paths)
    data = scan_files(files)
    source = ", ".join(str(f) for f in files)
    return build_street_data(data, source, keep_tags)
