"""Per-segment elevation profiles sampled along the street geometry (vectorised)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from otpa.elevation._geoid import geoid_undulation
from otpa.elevation._raster import as_paths, raster_crs_name, sample_raster
from otpa.elevation._slope_costs import slope_costs, sum_by
from otpa.elevation.model import GEOID_UNAVAILABLE_NO_GRID, EdgeElevation, ElevationMetadata
from otpa.errors import ElevationError
from otpa.types import BoolArray, FloatArray, IntArray, PathLike
from otpa.util.geo import haversine_m

__all__ = ["edge_elevation_profiles", "sample_distances"]


def sample_distances(length_m: FloatArray, spacing_m: float) -> tuple[IntArray, FloatArray]:
    """Profile sample positions like OTP's ``ElevationModule``: CSR offsets and distances.

    Samples sit at 0, ``spacing``, ``2 * spacing``... and at the length, leaving out an
    inner sample closer than half a spacing to the end.

    Examples
    --------
    >>> off, d = sample_distances(np.array([25.0, 3.0, 14.0]), 10.0)
    >>> off.tolist(), d.tolist()
    ([0, 4, 6, 8], [0.0, 10.0, 20.0, 25.0, 0.0, 3.0, 0.0, 14.0])
    """
    inner = np.floor((length_m - 0.5 * spacing_m) / spacing_m)
    inner = np.where(np.isfinite(inner), np.maximum(inner, 0.0), 0.0).astype(np.int64)
    counts = inner + 2
    offsets = np.zeros(length_m.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    total = int(offsets[-1])
    rank = np.arange(total, dtype=np.int64) - np.repeat(offsets[:-1], counts)
    dist = rank * spacing_m
    last = offsets[1:] - 1
    dist[last] = length_m
    return offsets, dist.astype(np.float64)


def _interpolate_points(
    seg_geom_offsets: IntArray,
    geom_lat: FloatArray,
    geom_lon: FloatArray,
    seg_length_m: FloatArray,
    sample_offsets: IntArray,
    sample_dist: FloatArray,
) -> tuple[FloatArray, FloatArray]:
    n_seg = seg_length_m.shape[0]
    n_pts = np.diff(seg_geom_offsets)
    seg_of_pt = np.repeat(np.arange(n_seg), n_pts)
    step = np.zeros(geom_lat.shape[0])
    step[1:] = haversine_m(geom_lat[:-1], geom_lon[:-1], geom_lat[1:], geom_lon[1:])
    step[seg_geom_offsets[:-1]] = 0.0
    cum = np.cumsum(step)
    local = cum - cum[seg_geom_offsets[:-1]][seg_of_pt]
    geom_len = local[seg_geom_offsets[1:] - 1]
    base = np.zeros(n_seg)
    base[1:] = np.cumsum(geom_len + 1.0)[:-1]
    key = base[seg_of_pt] + local

    counts = np.diff(sample_offsets)
    seg_of_sample = np.repeat(np.arange(n_seg), counts)
    length = seg_length_m[seg_of_sample]
    frac = np.divide(sample_dist, length, out=np.zeros_like(sample_dist), where=length > 0)
    target = np.clip(frac, 0.0, 1.0) * geom_len[seg_of_sample]
    idx = np.searchsorted(key, base[seg_of_sample] + target, side="right") - 1
    first = seg_geom_offsets[:-1][seg_of_sample]
    last = seg_geom_offsets[1:][seg_of_sample] - 1
    idx = np.clip(idx, first, np.maximum(last - 1, first))
    nxt = np.minimum(idx + 1, last)
    span = local[nxt] - local[idx]
    t = np.divide(target - local[idx], span, out=np.zeros_like(span), where=span > 0)
    t = np.clip(t, 0.0, 1.0)
    lat = geom_lat[idx] + t * (geom_lat[nxt] - geom_lat[idx])
    lon = geom_lon[idx] + t * (geom_lon[nxt] - geom_lon[idx])
    # The first and last samples are the segment's end vertices exactly.
    lat[sample_offsets[:-1]] = geom_lat[seg_geom_offsets[:-1]]
    lon[sample_offsets[:-1]] = geom_lon[seg_geom_offsets[:-1]]
    lat[sample_offsets[1:] - 1] = geom_lat[seg_geom_offsets[1:] - 1]
    lon[sample_offsets[1:] - 1] = geom_lon[seg_geom_offsets[1:] - 1]
    return lat, lon


def _per_segment(value: bool | npt.ArrayLike | None, n: int, name: str) -> BoolArray:
    if value is None:
        return np.zeros(n, dtype=bool)
    arr = np.broadcast_to(np.asarray(value, dtype=bool), (n,))
    if arr.shape != (n,):
        msg = f"{name} must have one value per segment"
        raise ElevationError(msg)
    return np.asarray(arr, dtype=bool)


def _geoid(geom_lat: FloatArray, geom_lon: FloatArray) -> tuple[float, str | None, str]:
    """``(undulation, grid name, status)`` at the centre of the segments' bounding box."""
    if geom_lat.size == 0:
        return 0.0, None, "geoid difference unavailable: no street segments"
    centre_lat = 0.5 * (float(np.min(geom_lat)) + float(np.max(geom_lat)))
    centre_lon = 0.5 * (float(np.min(geom_lon)) + float(np.max(geom_lon)))
    found = geoid_undulation(centre_lat, centre_lon)
    if found is None:
        return 0.0, None, GEOID_UNAVAILABLE_NO_GRID
    value, name = float(found[0]), found[1]
    if not np.isfinite(value):
        return 0.0, None, f"geoid difference unavailable: grid {name} has no value there"
    return value, name, f"EGM96 geoid height from {name}"


def _metadata(
    files: list[str],
    geom_lat: FloatArray,
    geom_lon: FloatArray,
    elev: FloatArray,
    geoid_elevation: bool,
) -> ElevationMetadata:
    difference, model, status = _geoid(geom_lat, geom_lon)
    nodata = float(np.mean(np.isnan(elev))) if elev.size else 0.0
    return ElevationMetadata(
        ellipsoid_to_geoid_difference=difference,
        geoid_elevation=geoid_elevation,
        source_crs=raster_crs_name(files[0]),
        nodata_fraction=nodata,
        geoid_model=model,
        geoid_status=status,
    )


def edge_elevation_profiles(
    paths: PathLike | Sequence[PathLike],
    seg_geom_offsets: npt.ArrayLike,
    geom_lat: npt.ArrayLike,
    geom_lon: npt.ArrayLike,
    seg_length_m: npt.ArrayLike,
    *,
    spacing_m: float = 10.0,
    slope_limit: bool | npt.ArrayLike | None = None,
    slope_override: bool | npt.ArrayLike | None = None,
    geoid_elevation: bool = False,
) -> EdgeElevation:
    """Sample elevation profiles along street segments and compute OTP's slope costs.

    Parameters
    ----------
    paths
        DEM rasters (any CRS); the first with a value wins where they overlap.
    seg_geom_offsets, geom_lat, geom_lon, seg_length_m
        Segment geometries as in :class:`otpa.osm.OsmStreetData` (CSR offsets into the
        coordinate arrays, each geometry including both ends) and segment lengths.
    spacing_m
        Distance between profile samples (OTP's ``distanceBetweenSamplesM``, 10 m).
    slope_limit
        Per segment (or one value): whether OTP's 35 % plausibility limit applies
        (OTP: the edge allows cars).  Default: no segment.
    slope_override
        Per segment (or one value): ignore the DEM (bridges, tunnels, embankments;
        ``FLAG_SLOPE_OVERRIDE``); such segments get neutral costs.  Default: none.
    geoid_elevation
        Recorded in the metadata (OTP's ``geoidElevation`` flag).

    Returns
    -------
    EdgeElevation
        Profiles, rise/fall, slopes and per-direction slope costs; see its docstring.

    Raises
    ------
    ElevationError
        When a raster cannot be read, or the arrays do not fit together.
    """
    if spacing_m <= 0.0:
        msg = f"spacing_m must be positive, got {spacing_m}"
        raise ElevationError(msg)
    files = [str(p) for p in as_paths(paths)]
    if not files:
        msg = "no elevation raster given"
        raise ElevationError(msg)
    offsets = np.asarray(seg_geom_offsets, dtype=np.int64)
    lat = np.asarray(geom_lat, dtype=np.float64)
    lon = np.asarray(geom_lon, dtype=np.float64)
    length = np.asarray(seg_length_m, dtype=np.float64)
    n = length.shape[0]
    if offsets.shape != (n + 1,) or offsets[-1] != lat.shape[0] or lat.shape != lon.shape:
        msg = "seg_geom_offsets, geom_lat/geom_lon and seg_length_m do not fit together"
        raise ElevationError(msg)
    if n and np.any(np.diff(offsets) < 2):
        msg = "every segment geometry needs at least two points"
        raise ElevationError(msg)
    limit = _per_segment(slope_limit, n, "slope_limit")
    override = _per_segment(slope_override, n, "slope_override")

    s_off, s_dist = sample_distances(length, spacing_m)
    s_lat, s_lon = _interpolate_points(offsets, lat, lon, length, s_off, s_dist)
    elev = sample_raster(files, s_lon, s_lat)

    counts = np.diff(s_off)
    seg_of_sample = np.repeat(np.arange(n), counts)
    missing = np.bincount(seg_of_sample, weights=np.isnan(elev), minlength=n) > 0
    has_profile = ~missing & ~override & (length > 1e-3)

    # Steps between consecutive samples of the same segment.
    step_start = np.ones(s_dist.shape[0], dtype=bool)
    step_start[s_off[1:] - 1] = False
    i0 = np.flatnonzero(step_start)
    edge = seg_of_sample[i0]
    use = has_profile[edge]
    i0, edge = i0[use], edge[use]
    run = s_dist[i0 + 1] - s_dist[i0]
    rise = elev[i0 + 1] - elev[i0]
    fwd = slope_costs(edge, run, rise, elev[i0], limit[edge], n)
    back = slope_costs(edge, run, -rise, elev[i0 + 1], limit[edge], n)

    rise_m = sum_by(edge, np.maximum(rise, 0.0), n)
    fall_m = sum_by(edge, np.maximum(-rise, 0.0), n)
    true_len = sum_by(edge, np.hypot(run, rise), n)
    flat_len = sum_by(edge, run, n)
    multiplier = np.divide(true_len, flat_len, out=np.ones(n), where=has_profile)

    elev_start = elev[s_off[:-1]]
    elev_end = elev[s_off[1:] - 1]
    mean_slope = np.divide(elev_end - elev_start, length, out=np.zeros(n), where=has_profile)

    def neutral(values: FloatArray, default: FloatArray | float) -> FloatArray:
        return np.where(has_profile, values, default)

    return EdgeElevation(
        elev_start=elev_start,
        elev_end=elev_end,
        rise_m=rise_m,
        fall_m=fall_m,
        max_slope=fwd.max_slope,
        mean_slope=mean_slope,
        has_profile=has_profile,
        flattened=fwd.flattened,
        length_multiplier=multiplier,
        slope_speed_effective_length_fwd_m=neutral(fwd.speed_length, length),
        slope_speed_effective_length_back_m=neutral(back.speed_length, length),
        slope_work_cost_fwd=neutral(fwd.work, length),
        slope_work_cost_back=neutral(back.work, length),
        slope_safety_cost_fwd_m=fwd.safety,
        slope_safety_cost_back_m=back.safety,
        effective_walk_length_fwd_m=neutral(fwd.walk_length, length),
        effective_walk_length_back_m=neutral(back.walk_length, length),
        profile_offsets=s_off,
        profile_dist_m=s_dist.astype(np.float32),
        profile_elev_m=elev.astype(np.float32),
        metadata=_metadata(files, lat, lon, elev, geoid_elevation),
    )
