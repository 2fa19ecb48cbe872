"""OTP's analyst indicator: one-minute histograms of the opportunities a surface reaches.

For every opportunity column of a point set, ``counts[m]`` is the number of points reached
in minute ``m`` (travel time in ``[60 m, 60 (m + 1))`` seconds) and ``sums[m]`` the sum of
the column over those points (OTP's ``Histogram``). Cumulative sums over the bins give the
classic "opportunities within m minutes" accessibility. Unreachable points and missing
values count nowhere.

The histograms end at the last non-empty bin. OTP's dropped that last bin (its arrays had
``max bin`` entries instead of ``max bin + 1``); here it is kept, so the bins always add up
to every reached point.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd
import xarray as xr

from otpa.analysis._layout import is_grid
from otpa.analysis.pointset import PointSet
from otpa.analysis.sampling import sample_surface
from otpa.errors import InvalidArgumentError
from otpa.routing.deadline import check_deadline
from otpa.types import FloatArray, IntArray

__all__ = ["Histogram", "Indicator", "histogram", "indicator", "point_travel_times"]


@dataclass(frozen=True, eq=False)
class Histogram:
    """Reached points and opportunities per one-minute bin.

    Attributes
    ----------
    counts
        Points reached in each minute (int64).
    sums
        Sum of the opportunity column over those points (float64).
    """

    counts: IntArray
    sums: FloatArray


@dataclass(frozen=True, eq=False)
class Indicator:
    """A surface evaluated at a point set.

    Attributes
    ----------
    times
        Travel time to each point, seconds (NaN: unreachable), in point-set order.
    histograms
        One :class:`Histogram` per opportunity column.
    """

    times: FloatArray
    histograms: dict[str, Histogram]


def histogram(times_s: npt.ArrayLike, weights: npt.ArrayLike) -> Histogram:
    """One-minute histogram of travel times, weighted for the sums.

    Parameters
    ----------
    times_s
        Travel times in seconds (NaN or negative: not counted).
    weights
        One weight per time (NaN counts as 0 in the sums).

    Returns
    -------
    Histogram

    Examples
    --------
    >>> h = histogram([0.0, 59.0, 60.0, 185.0, float("nan")], [1, 2, 3, 4, 5])
    >>> h.counts.tolist(), h.sums.tolist()
    ([2, 1, 0, 1], [3.0, 3.0, 0.0, 4.0])
    """
    t = np.asarray(times_s, dtype=np.float64)
    w = np.nan_to_num(np.asarray(weights, dtype=np.float64), nan=0.0)
    if t.shape != w.shape:
        msg = f"times and weights must have the same shape, got {t.shape} and {w.shape}"
        raise InvalidArgumentError(msg)
    reached = np.isfinite(t) & (t >= 0)
    bins = np.floor(t[reached] / 60.0).astype(np.int64)
    n_bins = int(bins.max()) + 1 if bins.size else 0
    counts = np.bincount(bins, minlength=n_bins).astype(np.int64)
    sums = np.bincount(bins, weights=w[reached], minlength=n_bins).astype(np.float64)
    return Histogram(counts, sums)


def point_travel_times(
    surface: xr.Dataset, points: PointSet, *, percentile: int | None = None
) -> FloatArray:
    """Travel times of a surface at the points of a set, in point-set order.

    A grid surface is read at the cell each point falls in; a point-set surface is matched
    by point id (points it does not hold are unreachable).

    Parameters
    ----------
    surface
        A grid or point-set time surface.
    points
        The points.
    percentile
        Which percentile; default the first one.

    Returns
    -------
    numpy.ndarray
        float64 seconds, NaN unreachable.
    """
    if is_grid(surface):
        sampled = sample_surface(surface, points.lat, points.lon, percentile=percentile)
        return sampled.astype(np.float64)
    tt = surface["travel_time"]
    if "percentile" in tt.dims:
        tt = tt.isel(percentile=0) if percentile is None else tt.sel(percentile=int(percentile))
    ids = pd.Index(np.asarray(surface["point"].values).astype(str))
    where = ids.get_indexer(pd.Index(points.ids))
    values = np.asarray(tt.values, dtype=np.float64)
    return np.where(where >= 0, values[np.maximum(where, 0)], np.nan)


def indicator(surface: xr.Dataset, points: PointSet, *, percentile: int | None = None) -> Indicator:
    """Evaluate a surface at a point set: travel times and per-column histograms.

    Parameters
    ----------
    surface
        A grid or point-set time surface.
    points
        The destinations and their opportunity columns.
    percentile
        Which percentile; default the first one.

    Returns
    -------
    Indicator
    """
    times = point_travel_times(surface, points, percentile=percentile)
    histograms: dict[str, Histogram] = {}
    for column in points.opportunities.columns:
        check_deadline(f"the histogram of {column}")  # the request's time limit, if any
        values = points.opportunities[column].to_numpy(dtype=np.float64)
        histograms[str(column)] = histogram(times, values)
    return Indicator(times, histograms)
