"""Background reading of a feed's files, typed on demand by the (single) cleaning thread."""

from __future__ import annotations

import json
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from otpa.errors import GtfsError
from otpa.gtfs._convert import TypedTable, to_frame, type_table
from otpa.gtfs._csv import RawTable, read_raw_table
from otpa.gtfs._schema import REQUIRED_FILES, SPECS, FileSpec
from otpa.gtfs._source import FeedSource
from otpa.gtfs.report import ValidationIssue, ValidationReport

__all__ = ["FeedFiles"]


def _check_files(src: FeedSource) -> None:
    missing = [f for f in REQUIRED_FILES if f not in src]
    if "calendar.txt" not in src and "calendar_dates.txt" not in src:
        missing.append("calendar.txt or calendar_dates.txt")
    if missing:
        found = ", ".join(src.names) or "nothing"
        msg = (
            f"{src.path}: not a usable GTFS feed: missing required file(s) "
            f"{', '.join(missing)} (found: {found})"
        )
        raise GtfsError(msg)


def _check_columns(path: str, raw: RawTable, spec: FileSpec) -> None:
    names = set(raw.columns) | {c for a, c in spec.aliases.items() if a in raw.columns}
    missing = [c for c in spec.required_columns if c not in names]
    locations = {"stop_id", "location_id", "location_group_id"}
    if spec.name == "stop_times.txt" and not names & locations:
        missing.append("stop_id")
    if missing:
        msg = (
            f"{path}: {raw.file} line 1: missing required column(s) {', '.join(missing)} "
            f"(header: {', '.join(raw.columns) or 'empty'})"
        )
        raise GtfsError(msg)


#: stop_times first (the longest read), then the others in the order the cleaning needs them
_READ_ORDER = (
    "stop_times.txt", "feed_info.txt", "agency.txt", "stops.txt", "routes.txt", "calendar.txt",
    "calendar_dates.txt", "trips.txt", "frequencies.txt", "transfers.txt",
    "fare_attributes.txt", "fare_rules.txt", "shapes.txt",
)  # fmt: skip


class FeedFiles:
    """The known files of an open feed, read two at a time in worker threads (decompression
    and Arrow parsing release the GIL) while the caller cleans the tables already read.
    Use as a context manager.
    """

    def __init__(self, src: FeedSource, *, keep_extra: bool) -> None:
        _check_files(src)
        self.src = src
        self.keep_extra = keep_extra
        self._reports: dict[str, ValidationReport] = {}
        self._futures: dict[str, Future[RawTable]] = {}
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="otpa-gtfs")
        for name in (n for n in _READ_ORDER if n in src):
            self._reports[name] = ValidationReport()
            self._futures[name] = self._pool.submit(read_raw_table, src, name, self._reports[name])

    def __enter__(self) -> FeedFiles:
        return self

    def __exit__(self, *exc: object) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def typed(self, name: str, report: ValidationReport) -> TypedTable:
        """File ``name`` typed (empty, with every column, when absent)."""
        spec = SPECS[name]
        future = self._futures.get(name)
        if future is None:
            raw = RawTable(name, pa.table({}), np.zeros(0, np.int32))
        else:
            raw = future.result()
            _check_columns(str(self.src.path), raw, spec)
        return type_table(raw, spec, report, keep_extra=self.keep_extra)

    def read_issues(self) -> list[ValidationIssue]:
        """Issues found while reading, in file order (call once every file was used)."""
        return [i for name in SPECS if name in self._reports for i in self._reports[name]]

    def flex_extras(self, report: ValidationReport) -> dict[str, Any]:
        """``locations.geojson`` (dict) and the booking_rules / location_groups(_stops) frames."""
        extras: dict[str, Any] = {}
        if "locations.geojson" in self.src:
            try:
                extras["locations"] = json.loads(self.src.read_bytes("locations.geojson"))
            except (ValueError, UnicodeDecodeError) as exc:
                report.add("warning", "locations.geojson", f"unreadable GeoJSON ({exc}); ignored")
        for name in ("booking_rules", "location_groups", "location_group_stops"):
            if f"{name}.txt" in self.src:
                raw = read_raw_table(self.src, f"{name}.txt", report)
                extras[name] = to_frame(raw.table, {})
        return extras


def flex_location_ids(extras: dict[str, Any]) -> pa.Array:
    """Ids that stop_times may use instead of a stop: GeoJSON feature and location group ids."""
    ids: list[str] = []
    features = (extras.get("locations") or {}).get("features") or []
    ids.extend(str(f["id"]) for f in features if isinstance(f, dict) and "id" in f)
    groups: pd.DataFrame | None = extras.get("location_groups")
    if groups is not None and "location_group_id" in groups:
        ids.extend(str(g) for g in groups["location_group_id"].dropna())
    return pa.array(ids, pa.string())
