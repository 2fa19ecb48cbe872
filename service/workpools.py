"""Three bounded worker pools for the CPU work of requests: ``light``, ``heavy``, ``analysis``.

Handlers run their slow library calls through
:meth:`service.handlers.base.BaseHandler.run_blocking`, which hands them to the
pool named by the handler's ``work_pool``:

* ``light`` -- server info, routers, the index API and GraphQL, geocoding, tiles;
* ``heavy`` -- trip plans, graph loads;
* ``analysis`` -- analyses (isochrones, time grids, surfaces and their tiles,
  profiles, point sets, scenario graphs): each can take seconds, so they get
  their own threads and never hold up plans.

Each pool has a fixed number of threads and a bounded queue (sizes in
:class:`service.config.ServiceConfig`), so cheap requests never queue behind
heavy ones, plans never queue behind analyses, and a burst never grows memory
without bound: when a pool holds ``workers + queue`` jobs, :meth:`WorkPool.submit`
raises :class:`PoolFullError` and the handler answers ``503`` with ``Retry-After``
(shed load, counted apart from errors).  So does a request that would queue past its
time limit: each pool keeps a moving average of its jobs' run times, and a job that
must wait for a thread, with more jobs ahead of it than the time it has left allows,
is shed at once instead of answering 504 when its limit is up.  Work stays in threads
of this process:
the searches share the loaded networks, the real-time snapshots and the
dashboard's state.

Examples
--------
>>> pools = WorkPools(light_workers=1, light_queue=0, heavy_workers=1, heavy_queue=0,
...                   analysis_workers=1, analysis_queue=0)
>>> pools.pool("heavy").submit(lambda: 6 * 7).result()
42
>>> pools.stats()["heavy"]["completed"]
1
>>> pools.close()
"""

from __future__ import annotations

import concurrent.futures
import threading
import time
from collections.abc import Callable
from typing import Any, Literal, TypeVar

__all__ = ["PoolFullError", "PoolName", "WorkPool", "WorkPools"]

T = TypeVar("T")
PoolName = Literal["light", "heavy", "analysis"]


class PoolFullError(RuntimeError):
    """A pool's threads are busy and its queue is full: the request is shed.

    Parameters
    ----------
    pool
        The pool's name.
    capacity
        Jobs it holds at most (threads plus queue).
    """

    def __init__(self, pool: str, capacity: int) -> None:
        super().__init__(f"the {pool} work pool is full ({capacity} requests in progress)")
        self.pool = pool
        self.capacity = capacity


#: Weight of the latest job in a pool's moving average of run times.
_EWMA_WEIGHT = 0.2


class WorkPool:
    """A thread pool that refuses work beyond ``workers + queue`` pending jobs.

    Parameters
    ----------
    name
        ``light``, ``heavy`` or ``analysis`` (thread names, messages, statistics).
    workers
        Threads.
    queue
        Jobs that may wait for a thread.
    """

    def __init__(self, name: str, workers: int, queue: int) -> None:
        self.name = name
        self.workers = workers
        self.queue = queue
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=workers, thread_name_prefix=f"otpa-{name}"
        )
        self._lock = threading.Lock()
        self._pending = 0
        self._shed = 0
        self._timed_out = 0
        self._stopped = 0
        self._completed = 0
        self._mean_run_s: float | None = None  # moving average of the jobs' run times
        self._started: dict[int, float] = {}  # running jobs' start times, by thread id

    @property
    def capacity(self) -> int:
        """Most jobs held at once (running and queued)."""
        return self.workers + self.queue

    def submit(
        self, fn: Callable[[], T], *, time_left_s: float | None = None
    ) -> concurrent.futures.Future[T]:
        """Queue ``fn``; raise :class:`PoolFullError` when the pool is full.

        Parameters
        ----------
        fn
            The job.
        time_left_s
            The time its request has left: a job that would have to wait for a thread
            and, by the pool's mean run time, could not finish in that time is refused
            (None: no limit).

        Raises
        ------
        PoolFullError
            When ``workers + queue`` jobs are already pending, or the job would queue
            past ``time_left_s`` (counted as shed).
        """
        with self._lock:
            if self._pending >= self.capacity or self._would_time_out(time_left_s):
                self._shed += 1
                raise PoolFullError(self.name, self.capacity)
            self._pending += 1
        try:
            future = self._executor.submit(self._timed, fn)
        except BaseException:
            self._release(None)
            raise
        future.add_done_callback(self._release)
        return future

    def _would_time_out(self, time_left_s: float | None) -> bool:
        """Whether a new job, queued behind the pending ones, would end past its limit."""
        ahead = self._pending - self.workers + 1  # jobs to start before it, itself included
        if time_left_s is None or ahead <= 0:
            return False  # a thread is free: always try
        mean = self._mean_run_s
        if mean is None:  # none finished yet: the running ones take at least this long
            now = time.monotonic()
            mean = max((now - t for t in self._started.values()), default=0.0)
        return (ahead / self.workers + 1.0) * mean > time_left_s

    def _timed(self, fn: Callable[[], T]) -> T:
        started = time.monotonic()
        thread = threading.get_ident()
        with self._lock:
            self._started[thread] = started
        try:
            return fn()
        finally:
            took = time.monotonic() - started
            with self._lock:
                self._started.pop(thread, None)
                mean = self._mean_run_s
                self._mean_run_s = (
                    took if mean is None else mean + _EWMA_WEIGHT * (took - mean)
                )

    def _release(self, future: concurrent.futures.Future[Any] | None) -> None:
        stopped = (
            future is not None
            and not future.cancelled()
            and isinstance(future.exception(), TimeoutError)
        )
        with self._lock:
            self._pending -= 1
            if future is not None and not future.cancelled():
                self._completed += 1
                self._stopped += stopped

    def count_timeout(self) -> None:
        """Count a job whose request ran out of time."""
        with self._lock:
            self._timed_out += 1

    def stats(self) -> dict[str, int]:
        """Threads, queue size, jobs pending now; shed, timed-out, stopped and completed jobs.

        ``timedOut``: requests answered at their time limit while their job was still
        queued or running; ``stopped``: jobs that stopped themselves at their deadline
        (they raised a :class:`TimeoutError`, such as otpa's ``SearchTimeoutError``);
        ``completed``: jobs that ran to their end (stopped ones included).
        """
        with self._lock:
            return {
                "workers": self.workers,
                "queue": self.queue,
                "pending": self._pending,
                "shed": self._shed,
                "timedOut": self._timed_out,
                "stopped": self._stopped,
                "completed": self._completed,
            }

    def close(self) -> None:
        """Stop taking work; queued jobs are dropped, running ones finish in their threads."""
        self._executor.shutdown(wait=False, cancel_futures=True)


class WorkPools:
    """The service's ``light``, ``heavy`` and ``analysis`` pools (see the module docstring).

    Parameters
    ----------
    light_workers, light_queue, heavy_workers, heavy_queue, analysis_workers, analysis_queue
        Threads and queue lengths of each pool.
    """

    def __init__(
        self,
        *,
        light_workers: int = 4,
        light_queue: int = 256,
        heavy_workers: int = 4,
        heavy_queue: int = 128,
        analysis_workers: int = 2,
        analysis_queue: int = 64,
    ) -> None:
        self._pools: dict[str, WorkPool] = {
            "light": WorkPool("light", light_workers, light_queue),
            "heavy": WorkPool("heavy", heavy_workers, heavy_queue),
            "analysis": WorkPool("analysis", analysis_workers, analysis_queue),
        }

    def pool(self, name: PoolName) -> WorkPool:
        """The pool called ``name``."""
        return self._pools[name]

    def stats(self) -> dict[str, dict[str, int]]:
        """:meth:`WorkPool.stats` of each pool, by name."""
        return {name: pool.stats() for name, pool in self._pools.items()}

    def close(self) -> None:
        """Close all pools."""
        for pool in self._pools.values():
            pool.close()
