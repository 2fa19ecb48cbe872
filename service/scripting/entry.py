"""What a script sees: the ``otp`` entry object (run in the sandboxed child process).

Like OTP 1.x's ``OtpsEntryPoint``: routers, point sets, trip planning, time
surfaces and CSV output, over the public :mod:`otpa` API.  A script sets its
answer with ``otp.set_retval(value)`` (``setRetval`` also works) or by
returning a CSV built with ``otp.create_csv_output()``; a plain ``retval``
variable at the end of the script is used too.

This module runs as ``python -m service.scripting.entry <scratch dir>``: it
reads ``script.py`` and ``job.json`` from the scratch directory, runs the
script with ``otp`` in its globals and writes ``result.json``.  It imports no
HTTP code.
"""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import io
import json
import math
import os
import resource
import signal
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from otpa.errors import UnknownIdError

__all__ = ["CsvOutput", "ScriptEntry", "main"]

_MAX_RETVAL_CHARS = 16 * 1024**2


class CsvOutput:
    """Rows for a CSV answer (OTP's ``otp.createCSVOutput()``)."""

    def __init__(self) -> None:
        self.header: list[str] | None = None
        self.rows: list[list[Any]] = []

    def set_header(self, header: Sequence[Any]) -> None:
        """Column names."""
        self.header = [str(h) for h in header]

    def add_row(self, row: Sequence[Any]) -> None:
        """One row of values."""
        self.rows.append(list(row))

    setHeader = set_header  # noqa: N815  (OTP's names)
    addRow = add_row  # noqa: N815

    def text(self) -> str:
        """The CSV text."""
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        if self.header is not None:
            writer.writerow(self.header)
        writer.writerows(self.rows)
        return buf.getvalue()


class ScriptEntry:
    """The ``otp`` object of a script (see the module docstring).

    Parameters
    ----------
    graphs
        Router id -> saved graph file.
    pointsets_dir
        Folder of point sets (``*.csv``, ``*.geojson``), or None.
    """

    def __init__(self, graphs: dict[str, str], pointsets_dir: str | None) -> None:
        self._graphs = graphs
        self._pointsets = Path(pointsets_dir) if pointsets_dir else None
        self._networks: dict[str, Any] = {}
        self.retval: Any = None

    # -- routers --------------------------------------------------------------------------------
    @property
    def routers(self) -> list[str]:
        """Ids of the routers a script may use (the first is the default)."""
        return list(self._graphs)

    def get_router(self, router_id: str | None = None) -> Any:
        """The :class:`otpa.TransportNetwork` of a router (the default one when None)."""
        from otpa.network import TransportNetwork

        if not self._graphs:
            msg = "no routers are loaded"
            raise UnknownIdError(msg)
        rid = router_id if router_id not in (None, "", "default") else next(iter(self._graphs))
        if rid not in self._graphs:
            msg = f"unknown router {rid!r}; routers: {', '.join(self._graphs)}"
            raise UnknownIdError(msg)
        if rid not in self._networks:
            self._networks[rid] = TransportNetwork.load(self._graphs[rid], verify=False)
        return self._networks[rid]

    getRouter = get_router  # noqa: N815

    # -- planning -------------------------------------------------------------------------------
    def plan(
        self,
        from_lat: float,
        from_lon: float,
        to_lat: float,
        to_lon: float,
        *,
        when: dt.datetime | str | None = None,
        modes: str = "WALK,TRANSIT",
        router: str | None = None,
    ) -> Any:
        """Plan one trip with :func:`otpa.plan`; returns the :class:`otpa.TripPlan`.

        ``when`` is a datetime or ISO string in the network's time zone (default: now).
        """
        import otpa

        network = self.get_router(router)
        if isinstance(when, str):
            when = dt.datetime.fromisoformat(when)
        request = otpa.PlanRequest(
            from_place=otpa.Location(lat=from_lat, lon=from_lon),
            to_place=otpa.Location(lat=to_lat, lon=to_lon),
            date_time=when or dt.datetime.now(),
            modes=otpa.parse_modes(modes),
        )
        return otpa.plan(network, request)

    def time_surface(
        self, lat: float, lon: float, router: str | None = None, **options: Any
    ) -> Any:
        """:func:`otpa.analysis.compute_time_surface` from a point (an xarray Dataset)."""
        from otpa.analysis import compute_time_surface

        return compute_time_surface(self.get_router(router), (lat, lon), **options)

    # -- point sets and output ------------------------------------------------------------------
    def load_pointset(self, name: str) -> Any:
        """A point set of the point-set folder: ``<name>`` + ``.csv``, ``.json`` or ``.geojson``."""
        from otpa.analysis import PointSet

        if self._pointsets is None:
            msg = "the service has no point-set folder"
            raise UnknownIdError(msg)
        readers = (
            (".csv", PointSet.from_csv),
            (".json", PointSet.from_geojson),
            (".geojson", PointSet.from_geojson),
        )
        for suffix, reader in readers:
            path = self._pointsets / f"{Path(name).name}{suffix}"
            if path.is_file():
                return reader(path)
        msg = f"no point set {name!r}"
        raise UnknownIdError(msg)

    loadPointSet = load_pointset  # noqa: N815

    def create_csv_output(self) -> CsvOutput:
        """A CSV answer to fill (set it as the return value, or return it)."""
        return CsvOutput()

    createCSVOutput = create_csv_output  # noqa: N815

    def set_retval(self, value: Any) -> None:
        """The script's answer (text, JSON-able data or a :class:`CsvOutput`)."""
        self.retval = value

    setRetval = set_retval  # noqa: N815


def _answer(value: Any) -> dict[str, Any]:
    if value is None:
        return {"ok": True, "content_type": "text/plain", "body": ""}
    if isinstance(value, CsvOutput):
        return {"ok": True, "content_type": "text/csv", "body": value.text()}
    if isinstance(value, str):
        return {"ok": True, "content_type": "text/plain", "body": value}
    try:
        return {"ok": True, "content_type": "application/json", "body": json.dumps(value)}
    except (TypeError, ValueError):
        return {"ok": True, "content_type": "text/plain", "body": str(value)}


def _read_only_numba_cache() -> None:
    """Let an unprivileged child load otpa's compiled kernels from the in-tree cache.

    numba only uses a ``__pycache__`` it can write to; the sandbox's file system
    is read-only, so without this every kernel would be compiled again
    (minutes).  Cache files are read as they are; new ones are not saved.
    """
    try:
        from numba.core import caching
    except ImportError:  # pragma: no cover - numba is a dependency
        return

    class ReadOnlyInTreeLocator(caching.InTreeCacheLocator):  # type: ignore[misc]
        def ensure_cache_path(self) -> None:
            if not os.path.isdir(self.get_cache_path()):
                raise OSError(self.get_cache_path())

    caching.CacheImpl._locator_classes.insert(0, ReadOnlyInTreeLocator)
    save = caching.Cache.save_overload

    def save_overload(self: Any, sig: Any, data: Any) -> None:
        with contextlib.suppress(OSError):
            save(self, sig, data)

    caching.Cache.save_overload = save_overload  # type: ignore[method-assign]


def _start_clock(limit_s: float) -> None:
    """The script's own time limit, from now: CPU seconds (hard) and an alarm (wall clock)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = math.ceil(usage.ru_utime + usage.ru_stime + limit_s)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    signal.alarm(max(1, math.ceil(limit_s)))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the job of a scratch directory (see the module docstring)."""
    args = list(sys.argv[1:] if argv is None else argv)
    scratch = Path(args[0])
    job = json.loads((scratch / "job.json").read_text(encoding="utf-8"))
    source = (scratch / "script.py").read_text(encoding="utf-8", errors="replace")
    otp = ScriptEntry(job["graphs"], job.get("pointsets_dir"))
    _read_only_numba_cache()  # the source tree is read-only in the sandbox
    if job.get("time_limit_s"):
        _start_clock(float(job["time_limit_s"]))
    scope: dict[str, Any] = {"__name__": "__main__", "otp": otp}
    try:
        exec(compile(source, job.get("filename", "script.py"), "exec"), scope)
        value = otp.retval if otp.retval is not None else scope.get("retval")
        result = _answer(value)
    except MemoryError:
        result = {"ok": False, "limit": "memory", "error": "MemoryError"}
    except BaseException as exc:
        tb = traceback.extract_tb(exc.__traceback__)
        lines = [f"line {f.lineno}" for f in tb if f.filename == job.get("filename", "script.py")]
        where = f" ({lines[-1]})" if lines else ""
        result = {"ok": False, "error": f"{type(exc).__name__}: {exc}{where}"}
    text = json.dumps(result)
    if len(text) > _MAX_RETVAL_CHARS:
        text = json.dumps({"ok": False, "limit": "output", "error": "answer too large"})
    (scratch / "result.json").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
