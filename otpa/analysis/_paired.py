"""Two versions of a network, one set of street searches: base-vs-scenario matrices.

A scenario that only changes transit (removed routes or trips, new frequencies,
speeds or dwell times, a new route over existing stops) keeps the base network's
streets and the stops' street links, so each origin's street searches (its street
end, the street-only times to every destination and the access search) are the same
under both versions.  :func:`paired_travel_time_matrix` does them once per origin and
runs RAPTOR and the propagation once per version; every cell equals the one
:func:`~otpa.analysis.travel_time_matrix` computes for that version alone.  When the
streets or stops differ (new stops), or the request rents or parks on the way, each
version does its own searches.
"""

from __future__ import annotations

import datetime as dt
import os
from typing import Any

import dask.array as da
import numpy as np
import xarray as xr
from dask.delayed import delayed

from otpa.analysis._engine import (
    OriginResult,
    Prepared,
    origin_streets,
    origin_times,
    prepare,
    unreachable,
)
from otpa.analysis._layout import matrix_array
from otpa.analysis.matrix import run_rows
from otpa.analysis.pointset import PointSet
from otpa.analysis.request import AnalysisRequest
from otpa.analysis.surface import analysis_request
from otpa.errors import InvalidArgumentError
from otpa.network import TransportNetwork
from otpa.routing.deadline import check_deadline
from otpa.routing.errors import OutsideBoundsError
from otpa.types import Float32Array, FloatArray

__all__ = ["PAIR_DIM", "paired_travel_time_matrix", "shares_street_searches"]

#: Leading dimension of a paired matrix: ``"a"`` (first network), ``"b"`` (second).
PAIR_DIM = "scenario"


def shares_street_searches(a: Prepared, b: Prepared) -> bool:
    """Whether the street searches of an origin are the same under ``a`` and ``b``.

    True when both analyses link the same destinations over the same street graph with
    the same stop links (so the same access stops and egress table), with the same
    request, and neither rents or parks on the way.
    """
    if a.mobility or b.mobility or a.request != b.request:
        return False
    if a.network is b.network:
        return True
    na, nb = a.network, b.network
    if na.street is not nb.street or a.links is not b.links:
        return False
    if na.street is None:  # straight-line access over the stops' coordinates
        sa, sb = na.transit.stops, nb.transit.stops
        return bool(
            len(sa) == len(sb)
            and np.array_equal(sa["lat"].to_numpy(float), sb["lat"].to_numpy(float))
            and np.array_equal(sa["lon"].to_numpy(float), sb["lon"].to_numpy(float))
        )
    return bool(
        np.array_equal(np.asarray(na.stop_vertex), np.asarray(nb.stop_vertex))
        and np.array_equal(
            np.asarray(na.stop_link_distance_m, dtype=np.float64),
            np.asarray(nb.stop_link_distance_m, dtype=np.float64),
            equal_nan=True,
        )
    )


def _pair(
    preps: tuple[Prepared, Prepared], shared: bool, lat: float, lon: float
) -> tuple[Float32Array, Float32Array]:
    """``(n_destinations, n_percentiles)`` times of one origin under both versions."""
    out: list[OriginResult] = []
    if shared:
        try:
            streets = origin_streets(preps[0], lat, lon)
        except OutsideBoundsError:
            return unreachable(preps[0]).times.T, unreachable(preps[1]).times.T
        out = [origin_times(p, lat, lon, streets=streets) for p in preps]
    else:
        for p in preps:
            try:
                out.append(origin_times(p, lat, lon))
            except OutsideBoundsError:
                out.append(unreachable(p))
    return out[0].times.T, out[1].times.T


def _prepare_pair(
    networks: tuple[TransportNetwork, TransportNetwork],
    request: AnalysisRequest,
    d_lat: FloatArray,
    d_lon: FloatArray,
) -> tuple[tuple[Prepared, Prepared], bool]:
    preps = (
        prepare(networks[0], request, d_lat, d_lon),
        prepare(networks[1], request, d_lat, d_lon),
    )
    return preps, shares_street_searches(*preps)


def _paired_block(
    network_a: TransportNetwork,
    network_b: TransportNetwork,
    request: AnalysisRequest,
    d_lat: FloatArray,
    d_lon: FloatArray,
    o_lat: FloatArray,
    o_lon: FloatArray,
) -> Float32Array:
    """``(2, n_origins, n_destinations, n_percentiles)`` rows for some origins (a dask task)."""
    preps, shared = _prepare_pair((network_a, network_b), request, d_lat, d_lon)
    n_p = len(request.percentiles)
    out = np.empty((2, o_lat.shape[0], d_lat.shape[0], n_p), dtype=np.float32)
    for i in range(o_lat.shape[0]):
        out[0, i], out[1, i] = _pair(preps, shared, float(o_lat[i]), float(o_lon[i]))
    return out


def paired_travel_time_matrix(
    network_a: TransportNetwork,
    network_b: TransportNetwork,
    origins: PointSet,
    destinations: PointSet | None = None,
    departure: dt.datetime | None = None,
    *,
    request: AnalysisRequest | None = None,
    chunks: int | None = None,
    n_threads: int | None = None,
    **options: Any,
) -> xr.DataArray:
    """Travel-time matrices of the same analysis on two versions of a network.

    Equal, cell for cell, to :func:`~otpa.analysis.travel_time_matrix` on each
    network; faster when the second network is a transit-only scenario of the first
    (e.g. ``scenario.apply(network)`` removing routes or changing frequencies): the
    street searches of every origin are done once and shared.

    Parameters
    ----------
    network_a, network_b
        The two versions (e.g. the base network and a scenario applied to it).
    origins, destinations
        Point sets (``destinations`` defaults to ``origins``).
    departure
        First departure (naive: the networks' time zone).
    request
        All parameters at once; keyword ``options`` override its fields.
    chunks
        Origins per dask task: the result is then lazy, each task computing its origins
        under both versions (one block of ``(2, chunks, n_destinations,
        n_percentiles)``; ``data.to_delayed()`` lists one task per chunk).  None
        computes now, in threads.
    n_threads
        Threads of the in-memory computation (default: the machine's cores).
    **options
        :class:`~otpa.analysis.AnalysisRequest` fields.

    Returns
    -------
    xarray.DataArray
        ``travel_time`` in seconds over ``("scenario", "origin", "destination",
        "percentile")``, ``scenario`` being ``"a"`` and ``"b"`` (NaN: unreachable).

    Examples
    --------
    >>> scen = Scenario("no blue", (RemoveRoutes(("marta:BLUE",)),)).apply(net)  # doctest: +SKIP
    >>> both = paired_travel_time_matrix(net, scen, points, window=3600)  # doctest: +SKIP
    >>> (both.sel(scenario="b") - both.sel(scenario="a")).sel(percentile=50)  # doctest: +SKIP
    """
    req = analysis_request(departure, request, options)
    dest = origins if destinations is None else destinations
    n_o, n_d, n_p = len(origins), len(dest), len(req.percentiles)
    d_lat, d_lon = np.asarray(dest.lat), np.asarray(dest.lon)
    data: Any
    if chunks is None:
        check_deadline("linking the destinations")
        preps, shared = _prepare_pair((network_a, network_b), req, d_lat, d_lon)
        data = np.empty((2, n_o, n_d, n_p), dtype=np.float32)

        def row(i: int) -> None:
            data[0, i], data[1, i] = _pair(
                preps, shared, float(origins.lat[i]), float(origins.lon[i])
            )

        threads = n_threads if n_threads is not None else (os.cpu_count() or 1)
        run_rows(row, n_o, threads)
    else:
        if int(chunks) < 1:
            msg = "chunks must be a positive number of origins"
            raise InvalidArgumentError(msg)
        size = int(chunks)
        net_a, net_b = delayed(network_a, pure=True), delayed(network_b, pure=True)
        reqd = delayed(req, pure=True)
        dla, dlo = delayed(d_lat, pure=True), delayed(d_lon, pure=True)
        blocks = []
        for start in range(0, n_o, size):
            stop = min(start + size, n_o)
            task = delayed(_paired_block, pure=True)(
                net_a, net_b, reqd, dla, dlo,
                np.asarray(origins.lat[start:stop]), np.asarray(origins.lon[start:stop]),
            )  # fmt: skip
            blocks.append(
                da.from_delayed(task, shape=(2, stop - start, n_d, n_p), dtype=np.float32)
            )
        data = (
            da.concatenate(blocks, axis=1)
            if blocks
            else da.zeros((2, 0, n_d, n_p), dtype=np.float32)
        )
    # the labels of one version's matrix (over a lazy placeholder: nothing is computed)
    template = da.zeros((n_o, n_d, n_p), dtype=np.float32)
    attrs = req.attrs(network_a.time_zone)
    one = matrix_array(origins, dest, template, req.percentiles, attrs=attrs)
    return xr.DataArray(
        data,
        dims=(PAIR_DIM, *one.dims),
        coords={**one.coords, PAIR_DIM: ["a", "b"]},
        name=one.name,
        attrs=one.attrs,
    )
