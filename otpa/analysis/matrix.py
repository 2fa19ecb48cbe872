"""Travel-time matrices: many origins to many destinations, in memory or chunked with dask."""

from __future__ import annotations

import contextvars
import datetime as dt
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import dask.array as da
import numpy as np
import xarray as xr
from dask.delayed import delayed

from otpa.analysis._engine import Prepared, origin_times, prepare, unreachable
from otpa.analysis._layout import matrix_array
from otpa.analysis.pointset import PointSet
from otpa.analysis.request import AnalysisRequest
from otpa.analysis.surface import analysis_request
from otpa.errors import InvalidArgumentError
from otpa.network import TransportNetwork
from otpa.routing.deadline import check_deadline
from otpa.routing.errors import OutsideBoundsError
from otpa.types import Float32Array, FloatArray

__all__ = ["MAX_MATRIX_CELLS", "run_rows", "travel_time_matrix"]

#: Largest in-memory matrix (origins x destinations x percentiles); use ``chunks`` beyond.
MAX_MATRIX_CELLS = 400_000_000


def _one(prep: Prepared, lat: float, lon: float) -> Float32Array:
    try:
        result = origin_times(prep, lat, lon)
    except OutsideBoundsError:
        result = unreachable(prep)
    return result.times.T  # (n_destinations, n_percentiles)


_LOADED: dict[tuple[str, int, int], TransportNetwork] = {}
_LOAD_LOCK = threading.Lock()


def _network_at(path: str) -> TransportNetwork:
    """The saved graph at ``path``, opened once per process (and again if the file changes)."""
    st = os.stat(path)
    key = (os.path.realpath(path), st.st_mtime_ns, st.st_size)
    with _LOAD_LOCK:
        net = _LOADED.get(key)
        if net is None:
            for old in [k for k in _LOADED if k[0] == key[0]]:
                del _LOADED[old]
            net = _LOADED[key] = TransportNetwork.load(path)
        return net


def _block(
    network: TransportNetwork | str,
    request: AnalysisRequest,
    d_lat: FloatArray,
    d_lon: FloatArray,
    o_lat: FloatArray,
    o_lon: FloatArray,
) -> Float32Array:
    """Rows of the matrix for some origins (a dask task; links are cached per process).

    ``network`` is the network itself (a dask key every task shares: each worker
    receives it once) or the path of a saved graph that every worker opens itself.
    """
    net = _network_at(network) if isinstance(network, str) else network
    prep = prepare(net, request, d_lat, d_lon)
    out = np.empty((o_lat.shape[0], d_lat.shape[0], len(request.percentiles)), dtype=np.float32)
    for i in range(o_lat.shape[0]):
        out[i] = _one(prep, float(o_lat[i]), float(o_lon[i]))
    return out


def run_rows(
    row: Callable[[int], object], n: int, n_threads: int, *, progress: bool = False
) -> None:
    """Call ``row(i)`` for ``i < n`` in ``n_threads`` threads, under the caller's deadline.

    Each row runs in a copy of the caller's :mod:`contextvars` context, so the search
    deadline of :mod:`otpa.routing.deadline` applies in the threads too; a row that
    starts after it raises :class:`~otpa.routing.errors.SearchTimeoutError`, the rows
    not started yet are cancelled and the error is raised here (an origin's searches
    themselves are not interrupted).
    """

    def checked(i: int) -> object:
        check_deadline(f"origin {i + 1} of {n}")
        return row(i)

    with ThreadPoolExecutor(max(1, n_threads)) as pool:
        futures: list[Future[object]] = [
            pool.submit(contextvars.copy_context().run, checked, i) for i in range(n)
        ]
        done: Any = futures
        if progress:
            from tqdm.auto import tqdm

            done = tqdm(futures, total=n, desc="origins", unit="origin")
        try:
            for future in done:
                future.result()
        except BaseException:
            for future in futures:
                future.cancel()
            raise


def _in_memory(
    prep: Prepared, origins: PointSet, n_threads: int, progress: bool
) -> Float32Array:
    n_o = len(origins)
    n_d = prep.links.lat.shape[0]
    out = np.empty((n_o, n_d, len(prep.request.percentiles)), dtype=np.float32)

    def row(i: int) -> None:
        out[i] = _one(prep, float(origins.lat[i]), float(origins.lon[i]))

    run_rows(row, n_o, n_threads, progress=progress)
    return out


def travel_time_matrix(
    network: TransportNetwork | str | os.PathLike[str],
    origins: PointSet,
    destinations: PointSet | None = None,
    departure: dt.datetime | None = None,
    *,
    request: AnalysisRequest | None = None,
    chunks: int | None = None,
    n_threads: int | None = None,
    progress: bool = False,
    **options: Any,
) -> xr.DataArray:
    """Travel times between every origin and every destination.

    Each origin runs the computation of :func:`~otpa.analysis.compute_time_surface`
    over the destination points (range RAPTOR over the departure window, the
    planner's street searches), so every cell equals that surface's value.

    Parameters
    ----------
    network
        The network, or the path of a saved graph (:meth:`TransportNetwork.save`).  With
        ``chunks`` a network object becomes one key of the dask graph that every task
        shares, so a ``dask.distributed`` cluster ships it to each worker once (the
        scheduler sends it to one worker, the others copy it from there); a path is
        opened by each worker process itself, once (memory-mapped), and must name the
        same file on every worker (a shared file system).  See ``docs/scaling.md``.
    origins, destinations
        Point sets (``destinations`` defaults to ``origins``).
    departure
        First departure (naive: the network's time zone).
    request
        All parameters at once; keyword ``options`` override its fields.
    chunks
        Origins per dask task: the result is then a lazy dask-backed array that
        computes unchanged on a ``dask.distributed`` cluster (the network is shipped
        to each worker once, in the safe graph format, or opened from ``network``'s
        path).  Call ``.compute()`` (with
        ``dask.diagnostics.ProgressBar()`` or ``distributed.progress`` for a progress
        bar).  None computes now, in threads.
    n_threads
        Threads of the in-memory computation (default: the machine's cores).
    progress
        Show a progress bar while computing in memory.
    **options
        :class:`~otpa.analysis.AnalysisRequest` fields (``window``, ``max_time``,
        ``percentiles``, ``modes`` ...).

    Returns
    -------
    xarray.DataArray
        ``travel_time`` in seconds over ``("origin", "destination", "percentile")``
        (NaN: unreachable; an origin away from the network has a NaN row).

    Examples
    --------
    >>> ttm = travel_time_matrix(net, points, departure=dt.datetime(2019, 5, 13, 14),
    ...                          window=3600, chunks=64)  # doctest: +SKIP
    >>> ttm.sel(percentile=50).compute()  # doctest: +SKIP
    """
    path: str | None = None
    if isinstance(network, (str, os.PathLike)):
        path = str(Path(network).resolve())
        network = _network_at(path)
    req = analysis_request(departure, request, options)
    dest = origins if destinations is None else destinations
    n_o, n_d, n_p = len(origins), len(dest), len(req.percentiles)
    attrs = req.attrs(network.time_zone)
    if chunks is None:
        if n_o * n_d * n_p > MAX_MATRIX_CELLS:
            msg = (
                f"a {n_o} x {n_d} x {n_p} matrix is too large to compute in memory; "
                "pass chunks= to get a dask-backed result"
            )
            raise InvalidArgumentError(msg)
        check_deadline("linking the destinations")
        prep = prepare(network, req, dest.lat, dest.lon)
        threads = n_threads if n_threads is not None else (os.cpu_count() or 1)
        data: Any = _in_memory(prep, origins, threads, progress)
    else:
        if int(chunks) < 1:
            msg = "chunks must be a positive number of origins"
            raise InvalidArgumentError(msg)
        size = int(chunks)
        # traverse=False: dask would otherwise walk every field of the network (a
        # dataclass) looking for collections inside it, 1.75 CPU-s per call at 24x RNV
        net = delayed(network, pure=True, traverse=False) if path is None else path
        reqd = delayed(req, pure=True, traverse=False)
        d_lat = delayed(np.asarray(dest.lat), pure=True)
        d_lon = delayed(np.asarray(dest.lon), pure=True)
        blocks = []
        for start in range(0, n_o, size):
            stop = min(start + size, n_o)
            task = delayed(_block, pure=True)(
                net, reqd, d_lat, d_lon,
                np.asarray(origins.lat[start:stop]), np.asarray(origins.lon[start:stop]),
            )  # fmt: skip
            blocks.append(da.from_delayed(task, shape=(stop - start, n_d, n_p), dtype=np.float32))
        data = (
            da.concatenate(blocks, axis=0)
            if blocks
            else da.zeros((0, n_d, n_p), dtype=np.float32)
        )
    return matrix_array(origins, dest, data, req.percentiles, attrs=attrs)
