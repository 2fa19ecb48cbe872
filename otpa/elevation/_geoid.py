"""EGM96 geoid undulation from a grid file found on this machine (never downloaded).

OTP records the difference between the WGS84 ellipsoid and the EGM96 geoid at the centre
of the graph (it computes it with GeoTools' built-in EGM96 coefficients).  No Python
package installed here ships EGM96 data, and ``pyproj.sync`` needs the network, so this
module looks for a 15' EGM96 grid file that PROJ data packages install:

* ``$OTPA_GEOID_GRID`` (an explicit file);
* ``egm96_15.gtx`` or ``us_nga_egm96_15.tif`` in ``$PROJ_DATA``/``$PROJ_LIB``, pyproj's
  data and user directories, ``/usr/share/proj`` and ``/usr/local/share/proj``.

Debian/Ubuntu's ``proj-data`` package installs ``/usr/share/proj/egm96_15.gtx`` (4 MB).
Without such a file the undulation is unknown: :func:`geoid_undulation` returns ``None``
and callers record ``0.0`` with ``geoid_model = None`` rather than a made-up value.

The ``.gtx`` format: a 40-byte big-endian header (south-west latitude and longitude, the
latitude and longitude steps as doubles, then row and column counts as int32) followed by
big-endian float32 heights, rows from south to north.  Values are interpolated
bilinearly, wrapping around in longitude.
"""

from __future__ import annotations

import os
import struct
from functools import cache
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyproj

from otpa.elevation._raster import sample_raster
from otpa.errors import ElevationError
from otpa.types import FloatArray

__all__ = ["GEOID_GRID_NAMES", "find_geoid_grid", "geoid_undulation", "read_gtx"]

#: Grid file names searched for, best first.
GEOID_GRID_NAMES = ("egm96_15.gtx", "us_nga_egm96_15.tif")


def _search_dirs() -> list[Path]:
    dirs: list[Path] = []
    for var in ("PROJ_DATA", "PROJ_LIB"):
        dirs.extend(Path(p) for p in os.environ.get(var, "").split(os.pathsep) if p)
    for name in ("get_data_dir", "get_user_data_dir"):
        getter = getattr(pyproj.datadir, name, None)
        if getter is None:
            continue
        try:
            dirs.extend(Path(p) for p in str(getter()).split(os.pathsep) if p)
        except (pyproj.exceptions.DataDirError, OSError):
            continue
    dirs.extend([Path("/usr/share/proj"), Path("/usr/local/share/proj")])
    return dirs


def find_geoid_grid() -> Path | None:
    """The first EGM96 grid file found (see the module docstring), or ``None``."""
    explicit = os.environ.get("OTPA_GEOID_GRID")
    if explicit:
        path = Path(explicit)
        return path if path.is_file() else None
    for name in GEOID_GRID_NAMES:
        for folder in _search_dirs():
            candidate = folder / name
            if candidate.is_file():
                return candidate
    return None


@cache
def read_gtx(path: Path) -> tuple[tuple[float, float, float, float], FloatArray]:
    """Header ``(lat0, lon0, dlat, dlon)`` and the height grid (rows south to north)."""
    try:
        raw = path.read_bytes()
        lat0, lon0, dlat, dlon, rows, cols = struct.unpack(">4d2i", raw[:40])
        grid = np.frombuffer(raw, dtype=">f4", count=rows * cols, offset=40)
    except (OSError, struct.error, ValueError) as exc:
        msg = f"cannot read geoid grid {path}: {exc}"
        raise ElevationError(msg) from exc
    values = grid.astype(np.float64).reshape(rows, cols)
    values[values <= -88.0] = np.nan  # GTX nodata is -88.8888
    return (lat0, lon0, dlat, dlon), values


def _gtx_undulation(path: Path, lat: FloatArray, lon: FloatArray) -> FloatArray:
    (lat0, lon0, dlat, dlon), grid = read_gtx(path)
    rows, cols = grid.shape
    wraps = abs(cols * dlon - 360.0) < 1e-6
    fy = np.clip((lat - lat0) / dlat, 0.0, rows - 1.0)
    fx = ((lon - lon0) % 360.0) / dlon
    r0 = np.minimum(np.floor(fy).astype(np.int64), rows - 2)
    c0 = np.floor(fx).astype(np.int64)
    ty, tx = fy - r0, fx - c0
    c1 = (c0 + 1) % cols if wraps else np.minimum(c0 + 1, cols - 1)
    c0 = c0 % cols if wraps else np.minimum(c0, cols - 1)
    return np.asarray(
        (1 - ty) * ((1 - tx) * grid[r0, c0] + tx * grid[r0, c1])
        + ty * ((1 - tx) * grid[r0 + 1, c0] + tx * grid[r0 + 1, c1]),
        dtype=np.float64,
    )


def geoid_undulation(
    lat: npt.ArrayLike, lon: npt.ArrayLike, grid: Path | None = None
) -> tuple[FloatArray, str] | None:
    """EGM96 geoid height above the WGS84 ellipsoid (metres), and the grid's file name.

    Parameters
    ----------
    lat, lon
        WGS84 degrees (broadcast together).
    grid
        A grid file; default: :func:`find_geoid_grid`.

    Returns
    -------
    tuple or None
        ``(undulation, grid file name)``, or ``None`` when no grid is available offline.
    """
    path = grid if grid is not None else find_geoid_grid()
    if path is None:
        return None
    la, lo = np.broadcast_arrays(
        np.asarray(lat, dtype=np.float64), np.asarray(lon, dtype=np.float64)
    )
    if path.suffix.lower() == ".gtx":
        values = _gtx_undulation(path, la.ravel(), lo.ravel())
    else:
        values = sample_raster(path, lo.ravel(), la.ravel())
    return values.reshape(la.shape), path.name
