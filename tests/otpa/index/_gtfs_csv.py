"""Independent expectations for the index tests, read from the GTFS files with the csv module.

Nothing here uses otpa's GTFS reader: rows come from ``csv.DictReader`` over the
raw bytes of each feed (see ``tests.fixtures.networks.gtfs_sources``), and the
service days, frequency departures and stop patterns are derived directly from
the GTFS reference's definitions.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import NamedTuple
from zoneinfo import ZoneInfo

from tests.conftest import DATA_ROOT
from tests.fixtures.networks import gtfs_sources

#: Feed ids the build gives these feeds (file name without .zip / .gtfs).
FEED_IDS = {
    "atlanta-blue-green-line.gtfs.zip": "atlanta-blue-green-line",
    "rnv.zip": "rnv",
    "poa_eptc.zip": "poa_eptc",
    "poa_trensurb.zip": "poa_trensurb",
    "vvs-bus-751-only.gtfs.zip": "vvs-bus-751-only",
    "vvs-bus-764-only.gtfs.zip": "vvs-bus-764-only",
}


def parse_time(text: str) -> int:
    """``H:MM:SS`` (hours may exceed 23) -> seconds."""
    h, m, s = text.strip().split(":")
    return int(h) * 3600 + int(m) * 60 + int(s)


def value(text: str | None) -> str | None:
    """A CSV cell as the index reports it: stripped, empty -> None."""
    if text is None:
        return None
    text = text.strip()
    return text or None


class StopTime(NamedTuple):
    """One row of stop_times.txt (times as written)."""

    stop_id: str
    sequence: int
    arrival: str
    departure: str
    pickup: str
    drop_off: str


@dataclass
class CsvFeed:
    """One feed's files, parsed lazily with the csv module."""

    name: str
    files: dict[str, bytes]
    _tables: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    _cache: dict[str, object] = field(default_factory=dict)

    @property
    def feed_id(self) -> str:
        return FEED_IDS[self.name]

    def scoped(self, raw: str) -> str:
        return f"{self.feed_id}:{raw.strip()}"

    def rows(self, name: str) -> list[dict[str, str]]:
        if name not in self._tables:
            data = self.files.get(name)
            if data is None:
                self._tables[name] = []
            else:
                reader = csv.DictReader(io.StringIO(data.decode("utf-8-sig")))
                self._tables[name] = [
                    {(k or "").strip(): (v or "") for k, v in row.items()}
                    for row in reader
                    if any((v or "").strip() for v in row.values())
                ]
        return self._tables[name]

    def active_services(self, date: dt.date) -> set[str]:
        """Service ids running on ``date`` (calendar.txt + calendar_dates.txt)."""
        weekday = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")[
            date.weekday()
        ]
        ymd = date.strftime("%Y%m%d")
        active = {
            r["service_id"].strip()
            for r in self.rows("calendar.txt")
            if r["start_date"].strip() <= ymd <= r["end_date"].strip() and r[weekday].strip() == "1"
        }
        for r in self.rows("calendar_dates.txt"):
            if r["date"].strip() == ymd:
                if r["exception_type"].strip() == "1":
                    active.add(r["service_id"].strip())
                else:
                    active.discard(r["service_id"].strip())
        return active

    def timezone(self) -> str:
        return self.rows("agency.txt")[0]["agency_timezone"].strip()

    def service_day_start(self, date: dt.date) -> int:
        """GTFS service day start: noon minus 12 h in the agency's time zone."""
        noon = dt.datetime(date.year, date.month, date.day, 12, tzinfo=ZoneInfo(self.timezone()))
        return int(noon.timestamp()) - 12 * 3600

    def stop_times_by_trip(self) -> dict[str, list[StopTime]]:
        """Rows of stop_times.txt per trip, in stop_sequence order (csv.reader: it is big)."""
        if "stop_times" not in self._cache:
            reader = csv.reader(io.StringIO(self.files["stop_times.txt"].decode("utf-8-sig")))
            header = [h.strip() for h in next(reader)]
            col = {h: i for i, h in enumerate(header)}
            pick, drop = col.get("pickup_type"), col.get("drop_off_type")
            c_trip, c_stop, c_seq = col["trip_id"], col["stop_id"], col["stop_sequence"]
            c_arr, c_dep = col["arrival_time"], col["departure_time"]
            out: dict[str, list[StopTime]] = defaultdict(list)
            for row in reader:
                if not row:
                    continue
                out[row[c_trip].strip()].append(
                    StopTime(
                        row[c_stop].strip(),
                        int(row[c_seq]),
                        row[c_arr],
                        row[c_dep],
                        (row[pick].strip() if pick is not None else "") or "0",
                        (row[drop].strip() if drop is not None else "") or "0",
                    )
                )
            for rows in out.values():
                rows.sort(key=lambda r: r.sequence)
            self._cache["stop_times"] = out
        return self._cache["stop_times"]  # type: ignore[no-any-return]

    def departures(self, trip_id: str, rows: list[StopTime]) -> list[tuple[int, int]]:
        """``(shift, template first departure)`` of each run of a trip: one for a
        scheduled trip, one per frequencies.txt departure otherwise."""
        first = parse_time(rows[0].departure)
        periods = [r for r in self.rows("frequencies.txt") if r["trip_id"].strip() == trip_id]
        if not periods:
            return [(0, first)]
        runs: set[int] = set()
        for p in periods:
            start, end = parse_time(p["start_time"]), parse_time(p["end_time"])
            headway = int(p["headway_secs"])
            runs.update(range(start, end, headway))
        return [(t - first, first) for t in sorted(runs)]

    def stop_calls(
        self, stop_id: str, date: dt.date, *, pickups_only: bool = False
    ) -> Counter[tuple[str, int, int]]:
        """``(scoped trip id, arrival, departure)`` of every call at a stop on a service day
        (with ``pickups_only``, of the calls where riders may board: ``pickup_type`` not 1)."""
        active = self.active_services(date)
        trips = {r["trip_id"].strip(): r for r in self.rows("trips.txt")}
        calls: Counter[tuple[str, int, int]] = Counter()
        for trip_id, rows in self.stop_times_by_trip().items():
            if trips[trip_id]["service_id"].strip() not in active:
                continue
            for r in rows:
                if r.stop_id != stop_id or (pickups_only and r.pickup == "1"):
                    continue
                arr, dep = parse_time(r.arrival), parse_time(r.departure)
                for shift, _ in self.departures(trip_id, rows):
                    calls[(self.scoped(trip_id), arr + shift, dep + shift)] += 1
        return calls

    def stop_patterns(
        self,
    ) -> dict[tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]], list[str]]:
        """Trips grouped by route and stop pattern (stops, pickup and drop-off types)."""
        trips = {r["trip_id"].strip(): r for r in self.rows("trips.txt")}
        groups: dict[tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]], list[str]] = (
            defaultdict(list)
        )
        for trip_id, rows in self.stop_times_by_trip().items():
            key = (
                trips[trip_id]["route_id"].strip(),
                tuple(r.stop_id for r in rows),
                tuple(r.pickup for r in rows),
                tuple(r.drop_off for r in rows),
            )
            groups[key].append(trip_id)
        return groups

    def shapes(self) -> dict[str, list[tuple[float, float]]]:
        """``(lat, lon)`` points of every shape, in shape_pt_sequence order."""
        points: dict[str, list[tuple[int, float, float]]] = defaultdict(list)
        for r in self.rows("shapes.txt"):
            points[r["shape_id"].strip()].append(
                (int(r["shape_pt_sequence"]), float(r["shape_pt_lat"]), float(r["shape_pt_lon"]))
            )
        return {k: [(la, lo) for _, la, lo in sorted(v)] for k, v in points.items()}


@cache
def csv_feeds(name: str) -> tuple[CsvFeed, ...]:
    """The feeds of a data set (``"tiny/atlanta"``), parsed with the csv module."""
    folder = Path(DATA_ROOT, *name.split("/"))
    return tuple(CsvFeed(n, files) for n, files in gtfs_sources(folder) if n in FEED_IDS)
