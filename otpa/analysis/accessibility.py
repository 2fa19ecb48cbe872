"""Cumulative and gravity accessibility: opportunities reachable, weighted by travel time.

``A[o, p, c, k] = sum_d w_c(t[o, d, p]) * O[d, k]`` where ``t`` is the travel time from
origin ``o`` to destination ``d`` at percentile ``p``, ``w_c`` the decay function for cutoff
``c`` (:mod:`otpa.analysis.decay`) and ``O[d, k]`` the opportunities of kind ``k`` at ``d``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import xarray as xr

from otpa.analysis._layout import POINT_DIM, is_grid, points_of
from otpa.analysis.decay import check_decay, decay_weights
from otpa.analysis.pointset import PointSet
from otpa.errors import ArgumentTypeError, InvalidArgumentError

__all__ = ["DEFAULT_CUTOFFS_S", "accessibility"]

#: Default cutoffs: 30, 45 and 60 minutes.
DEFAULT_CUTOFFS_S = (1800, 2700, 3600)
_TRAVEL_TIME_ONLY_ATTRS = ("units", "long_name", "kind")


def _travel_times(travel_time: xr.Dataset | xr.DataArray) -> tuple[xr.DataArray, str]:
    """The travel-time array and the dimension of its destinations."""
    if isinstance(travel_time, xr.Dataset):
        if "travel_time" not in travel_time:
            msg = "the Dataset has no 'travel_time' variable"
            raise InvalidArgumentError(msg)
        tt = travel_time["travel_time"].copy(deep=False)
        tt.attrs = {**travel_time.attrs, **tt.attrs}
    else:
        tt = travel_time
    if "destination" in tt.dims:
        return tt, "destination"
    if POINT_DIM in tt.dims:
        return tt, POINT_DIM
    if is_grid(tt):
        msg = (
            "accessibility needs destinations that are a point set (a matrix or a point-set "
            "surface); this is a grid surface"
        )
        raise InvalidArgumentError(msg)
    msg = f"not a travel-time matrix or point-set surface: dims are {tuple(tt.dims)}"
    raise InvalidArgumentError(msg)


def _opportunity_matrix(
    opportunities: PointSet, destination_ids: Sequence[str], columns: Sequence[str] | None
) -> tuple[np.ndarray[Any, Any], list[str]]:
    """Opportunities of the destinations, rows in destination order, NaN counted as 0."""
    available = [str(c) for c in opportunities.opportunities.columns]
    chosen = available if columns is None else [str(c) for c in columns]
    if not chosen:
        msg = f"point set {opportunities.name!r} has no opportunity columns"
        raise InvalidArgumentError(msg)
    unknown = [c for c in chosen if c not in available]
    if unknown:
        msg = f"no opportunity column(s) {unknown} in point set (columns: {available})"
        raise InvalidArgumentError(msg)
    index = {point_id: i for i, point_id in enumerate(opportunities.ids.tolist())}
    missing = [d for d in destination_ids if d not in index]
    if missing:
        msg = (
            f"{len(missing)} destination ids have no opportunities, e.g. {missing[0]!r}: the "
            "opportunity point set must hold every destination id"
        )
        raise InvalidArgumentError(msg)
    rows = np.fromiter((index[d] for d in destination_ids), dtype=np.intp)
    values = opportunities.opportunities[chosen].to_numpy(dtype=np.float64, na_value=np.nan)
    return np.nan_to_num(values[rows], nan=0.0), chosen


def accessibility(
    travel_time: xr.Dataset | xr.DataArray,
    opportunities: PointSet | None = None,
    *,
    cutoffs: Sequence[float] = DEFAULT_CUTOFFS_S,
    decay: str = "step",
    columns: Sequence[str] | None = None,
    **decay_params: float,
) -> xr.DataArray:
    """Opportunities reachable from each origin, weighted by a decay function.

    Parameters
    ----------
    travel_time
        A travel-time matrix (dims ``origin``, ``destination``, ``percentile``) or a
        point-set time surface (Dataset, or its ``travel_time`` over ``percentile``, ``point``).
        Dask-backed input stays lazy.
    opportunities
        The opportunities at the destinations, matched by id; it must hold every destination
        id (points that are not destinations count as unreachable). Optional for a point-set
        surface Dataset, which carries its own opportunity variables.
    cutoffs
        Decay cutoffs in seconds.
    decay
        ``"step"``, ``"linear"``, ``"logistic"`` or ``"exponential"``.
    columns
        Opportunity columns to use (default: all).
    **decay_params
        ``width_s`` (linear), ``std_s`` (logistic) or ``half_life_s`` (exponential).

    Returns
    -------
    xarray.DataArray
        ``"accessibility"`` over the travel times' other dims (``origin``, ``percentile``),
        then ``cutoff`` (seconds) and ``opportunity`` (column names). Missing opportunity
        values count as 0. ``attrs`` hold the travel times' request attrs and the decay.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from otpa.analysis._layout import matrix_array
    >>> ps = PointSet.from_frame(pd.DataFrame({"id": ["a", "b"], "lat": [0.0, 0.01],
    ...                                        "lon": [0.0, 0.0], "jobs": [5, 7]}))
    >>> tt = matrix_array(ps, ps, np.array([[[0.0], [900.0]], [[900.0], [np.nan]]]), [50],
    ...                   attrs={})
    >>> accessibility(tt, ps, cutoffs=[600, 1800]).sel(opportunity="jobs").values.tolist()
    [[[5.0, 12.0]], [[0.0, 5.0]]]
    """
    unknown = sorted(set(decay_params) - {"width_s", "std_s", "half_life_s"})
    if unknown:
        msg = f"unknown decay parameter(s) {unknown}"
        raise ArgumentTypeError(msg)
    cutoff_values = np.asarray(list(cutoffs), dtype=np.float64)
    if cutoff_values.ndim != 1 or cutoff_values.size == 0:
        msg = "give at least one cutoff"
        raise InvalidArgumentError(msg)
    decay_attrs: dict[str, Any] = {}
    for cutoff in cutoff_values:
        decay_attrs = check_decay(decay, float(cutoff), **decay_params)
    tt, dest_dim = _travel_times(travel_time)
    if opportunities is None:
        if not isinstance(travel_time, xr.Dataset) or dest_dim != POINT_DIM:
            msg = "opportunities are required unless travel_time is a point-set surface Dataset"
            raise InvalidArgumentError(msg)
        opportunities = points_of(travel_time)
    dest_ids = [str(i) for i in tt[dest_dim].values]
    matrix, chosen = _opportunity_matrix(opportunities, dest_ids, columns)
    opp = xr.DataArray(matrix, dims=(dest_dim, "opportunity"), coords={"opportunity": chosen})
    opp = opp.assign_coords({dest_dim: tt[dest_dim].values})

    per_cutoff = []
    for cutoff in cutoff_values:
        weights = xr.apply_ufunc(
            decay_weights,
            tt,
            kwargs={"cutoff_s": float(cutoff), "kind": decay, **decay_params},
            dask="parallelized",
            output_dtypes=[np.float64],
            keep_attrs=False,
        )
        per_cutoff.append(xr.dot(weights, opp, dim=dest_dim))
    integral = bool(np.all(cutoff_values == np.round(cutoff_values)))
    cutoff_coord = xr.DataArray(
        cutoff_values.astype(np.int64) if integral else cutoff_values,
        dims="cutoff",
        attrs={"units": "s", "long_name": "decay cutoff"},
    )
    others = [d for d in tt.dims if d != dest_dim]
    result: xr.DataArray = xr.concat(per_cutoff, dim=cutoff_coord).transpose(
        *others, "cutoff", "opportunity"
    )
    request_attrs = {k: v for k, v in tt.attrs.items() if k not in _TRAVEL_TIME_ONLY_ATTRS}
    decay_attrs.pop("decay")
    result.attrs = {
        **request_attrs,
        "long_name": "accessibility",
        "units": "opportunities",
        "decay": decay,
        **decay_attrs,
    }
    result.name = "accessibility"
    return result
