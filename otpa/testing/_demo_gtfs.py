"""GTFS timetable generation and zip writing for the demo city (private).

Service runs roughly 05:00-24:30 on weekdays and 06:00-24:30 at weekends;
running times come from the distance between stops, a cruising speed, an
acceleration/braking allowance, and dwell times, with weekday peak traffic
slowing buses down.  Output is deterministic: rows in generation order, zip
members in name order with a fixed timestamp.
"""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from otpa.testing._demo_model import CityPlan, Line, Pattern, to_latlon
from otpa.types import FloatArray, IntArray

__all__ = ["FEED_END", "FEED_START", "HOLIDAYS", "TIMEZONE", "GtfsCounts", "write_gtfs"]

TIMEZONE = "Europe/Amsterdam"
FEED_START = "20260101"
FEED_END = "20271231"
#: Public holidays on weekdays: weekday service removed, weekend service added.
HOLIDAYS = ("20260101", "20260406", "20261225", "20270101", "20270329")
ZIP_DATE = (2026, 1, 1, 0, 0, 0)
_FAST_ZIP_BYTES = 8_000_000

_H = 3600
# (from, to, headway) in seconds after midnight; departures from the first stop
_BANDS: dict[tuple[str, str], tuple[tuple[int, int, int], ...]] = {
    ("bus", "WKD"): (
        (5 * _H, 6 * _H + 1800, 900), (6 * _H + 1800, 9 * _H + 1800, 480),
        (9 * _H + 1800, 15 * _H + 1800, 600), (15 * _H + 1800, 19 * _H, 480),
        (19 * _H, 22 * _H, 900), (22 * _H, 24 * _H + 1801, 1200),
    ),
    ("bus", "WKE"): (
        (6 * _H, 9 * _H, 1800), (9 * _H, 20 * _H, 1200), (20 * _H, 24 * _H + 1801, 1800),
    ),
    ("rail", "WKD"): (
        (5 * _H, 6 * _H + 1800, 1200), (6 * _H + 1800, 9 * _H + 1800, 600),
        (9 * _H + 1800, 15 * _H + 1800, 900), (15 * _H + 1800, 19 * _H, 600),
        (19 * _H, 24 * _H + 1801, 1200),
    ),
    ("rail", "WKE"): (
        (6 * _H, 10 * _H, 1800), (10 * _H, 20 * _H, 1200), (20 * _H, 24 * _H + 1801, 1800),
    ),
}  # fmt: skip
_PEAKS = ((7 * _H, 9 * _H), (16 * _H, 18 * _H + 1800))


@dataclass(frozen=True)
class _Running:
    """Speed model of one mode."""

    cruise_mps: float
    loss_s: float  # acceleration + braking per hop
    dwell_s: float
    peak_factor: float


_RUNNING = {
    "bus": _Running(8.0, 12.0, 20.0, 1.2),
    "shuttle": _Running(9.0, 12.0, 60.0, 1.0),
    "rail": _Running(19.5, 35.0, 40.0, 1.0),
}
_SHUTTLE_WINDOW = (7 * _H, 20 * _H, 600)


@dataclass(frozen=True)
class GtfsCounts:
    """Row counts of the written feed."""

    n_stops: int
    n_routes: int
    n_trips: int
    n_stop_times: int


def _csv(header: Sequence[str], rows: Iterable[Sequence[object]]) -> bytes:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buf.getvalue().encode("utf-8")


def _hms_table(max_s: int) -> list[str]:
    """``HH:MM:SS`` for every second up to ``max_s`` (hours may pass 24)."""
    return [f"{t // 3600:02d}:{t // 60 % 60:02d}:{t % 60:02d}" for t in range(max_s + 1)]


def _departures(bands: Sequence[tuple[int, int, int]], offset: int) -> IntArray:
    """First-stop departure times following the headway bands."""
    out: list[int] = []
    t = bands[0][0] + offset
    for start, end, headway in bands:
        t = max(t, start)
        while t < end:
            out.append(t)
            t += headway
    return np.asarray(out, dtype=np.int64)


def _offsets(pattern: Pattern, run: _Running, factor: float) -> tuple[IntArray, IntArray]:
    """Arrival and departure offsets (s) from the first departure, per stop."""
    dist: FloatArray = np.asarray(pattern.dist_m, dtype=np.float64)
    hops = (np.diff(dist) / run.cruise_mps + run.loss_s) * factor
    dwell = np.full(dist.size, run.dwell_s)
    dwell[0] = dwell[-1] = 0.0
    arr = np.concatenate([[0.0], np.cumsum(hops + dwell[:-1])])
    dep = arr + dwell
    return np.round(arr).astype(np.int64), np.round(dep).astype(np.int64)


def _is_peak(t: IntArray) -> np.ndarray:
    peak = np.zeros(t.shape, dtype=bool)
    for a, b in _PEAKS:
        peak |= (t >= a) & (t < b)
    return peak


class _Writer:
    """Collects trips and stop times for all lines."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng([seed, 3])
        self.hms = _hms_table(30 * _H)
        self.trips: list[tuple[str, str, str, str, int, str]] = []
        self.stop_times: list[str] = []
        self.frequencies: list[tuple[str, str, str, int, int]] = []

    def line(self, line: Line) -> None:
        if line.mode == "shuttle":
            self._shuttle(line)
            return
        for service in ("WKD", "WKE"):
            bands = _BANDS[(line.mode, service)]
            for pat in line.patterns:
                offset = 60 * int(self.rng.integers(0, 8))
                deps = _departures(bands, offset)
                run = _RUNNING[line.mode]
                peak = _is_peak(deps) if service == "WKD" else np.zeros(deps.shape, dtype=bool)
                normal = _offsets(pat, run, 1.0)
                slow = _offsets(pat, run, run.peak_factor)
                arr = np.where(peak[:, None], slow[0][None, :], normal[0][None, :]) + deps[:, None]
                dep = np.where(peak[:, None], slow[1][None, :], normal[1][None, :]) + deps[:, None]
                shape_id = f"{line.route_id}_{pat.direction_id}" if pat.shape else ""
                for k in range(deps.size):
                    trip_id = f"{line.route_id}_{service}_{pat.direction_id}_{k + 1:03d}"
                    self.trips.append(
                        (line.route_id, service, trip_id, pat.headsign, pat.direction_id, shape_id)
                    )
                    self._rows(trip_id, pat, arr[k].tolist(), dep[k].tolist(), bool(pat.shape))

    def _shuttle(self, line: Line) -> None:
        pat = line.patterns[0]
        start, end, headway = _SHUTTLE_WINDOW
        arr, dep = _offsets(pat, _RUNNING["shuttle"], 1.0)
        trip_id = f"{line.route_id}_WKD_loop"
        self.trips.append((line.route_id, "WKD", trip_id, pat.headsign, 0, ""))
        self._rows(trip_id, pat, (arr + start).tolist(), (dep + start).tolist(), False)
        self.frequencies.append((trip_id, self.hms[start], self.hms[end], headway, 0))

    def _rows(self, trip_id: str, pat: Pattern, arr: list[int], dep: list[int], dist: bool) -> None:
        hms = self.hms
        dists = [f"{d:.1f}" if dist else "" for d in pat.dist_m]
        self.stop_times.extend(
            f"{trip_id},{hms[a]},{hms[d]},{s},{q},{sd}\n"
            for q, (a, d, s, sd) in enumerate(zip(arr, dep, pat.stop_ids, dists, strict=True), 1)
        )


def _stops_rows(plan: CityPlan) -> list[tuple[object, ...]]:
    lat, lon = to_latlon(np.array([s.x for s in plan.stops]), np.array([s.y for s in plan.stops]))
    rows: list[tuple[object, ...]] = []
    for k, s in enumerate(plan.stops):
        code = "" if s.location_type == 1 else str(1001 + k)
        wheel = 1
        rows.append(
            (
                s.stop_id,
                code,
                s.name,
                f"{lat[k]:.7f}",
                f"{lon[k]:.7f}",
                s.zone_id,
                s.location_type,
                s.parent_station,
                wheel,
                s.platform_code,
            )
        )
    return rows


def _shape_rows(plan: CityPlan) -> list[tuple[object, ...]]:
    rows: list[tuple[object, ...]] = []
    for line in plan.lines:
        for pat in line.patterns:
            if not pat.shape:
                continue
            pts = np.array(pat.shape)
            lat, lon = to_latlon(pts[:, 0], pts[:, 1])
            sid = f"{line.route_id}_{pat.direction_id}"
            rows.extend(
                (sid, f"{la:.7f}", f"{lo:.7f}", q, f"{d:.1f}")
                for q, (la, lo, d) in enumerate(zip(lat, lon, pts[:, 2], strict=True), 1)
            )
    return rows


def _fare_files(plan: CityPlan) -> dict[str, bytes]:
    attrs = [
        ("bus", "2.50", "EUR", 0, "", "DEMO", 5400),
        ("rail_z1", "3.00", "EUR", 0, 0, "DEMO", ""),
        ("rail_z12", "4.50", "EUR", 0, 0, "DEMO", ""),
    ]
    rules: list[tuple[str, str, str, str]] = []
    for line in plan.lines:
        if line.mode == "rail":
            rules.append(("rail_z1", line.route_id, "1", "1"))
            rules.extend(
                ("rail_z12", line.route_id, a, b) for a, b in (("1", "2"), ("2", "1"), ("2", "2"))
            )
        else:
            rules.append(("bus", line.route_id, "", ""))
    header = (
        "fare_id",
        "price",
        "currency_type",
        "payment_method",
        "transfers",
        "agency_id",
        "transfer_duration",
    )
    return {
        "fare_attributes.txt": _csv(header, attrs),
        "fare_rules.txt": _csv(("fare_id", "route_id", "origin_id", "destination_id"), rules),
    }


def _static_files(plan: CityPlan, version: str) -> dict[str, bytes]:
    url = "https://example.com/otpa-demo-city"
    files = {
        "agency.txt": _csv(
            ("agency_id", "agency_name", "agency_url", "agency_timezone", "agency_lang"),
            [("DEMO", "Demo City Transit", url, TIMEZONE, "en")],
        ),
        "feed_info.txt": _csv(
            (
                "feed_id",
                "feed_publisher_name",
                "feed_publisher_url",
                "feed_lang",
                "feed_start_date",
                "feed_end_date",
                "feed_version",
            ),
            [("demo", "otpa demo city generator", url, "en", FEED_START, FEED_END, version)],
        ),
        "calendar.txt": _csv(
            (
                "service_id",
                "monday",
                "tuesday",
                "wednesday",
                "thursday",
                "friday",
                "saturday",
                "sunday",
                "start_date",
                "end_date",
            ),
            [
                ("WKD", 1, 1, 1, 1, 1, 0, 0, FEED_START, FEED_END),
                ("WKE", 0, 0, 0, 0, 0, 1, 1, FEED_START, FEED_END),
            ],
        ),
        "calendar_dates.txt": _csv(
            ("service_id", "date", "exception_type"),
            [row for d in HOLIDAYS for row in (("WKD", d, 2), ("WKE", d, 1))],
        ),
        "routes.txt": _csv(
            (
                "route_id",
                "agency_id",
                "route_short_name",
                "route_long_name",
                "route_type",
                "route_color",
                "route_text_color",
            ),
            [
                (
                    ln.route_id,
                    "DEMO",
                    ln.short_name,
                    ln.long_name,
                    2 if ln.mode == "rail" else 3,
                    ln.color,
                    "000000" if ln.mode == "shuttle" else "FFFFFF",
                )
                for ln in plan.lines
            ],
        ),
        "stops.txt": _csv(
            (
                "stop_id",
                "stop_code",
                "stop_name",
                "stop_lat",
                "stop_lon",
                "zone_id",
                "location_type",
                "parent_station",
                "wheelchair_boarding",
                "platform_code",
            ),
            _stops_rows(plan),
        ),
        "shapes.txt": _csv(
            (
                "shape_id",
                "shape_pt_lat",
                "shape_pt_lon",
                "shape_pt_sequence",
                "shape_dist_traveled",
            ),
            _shape_rows(plan),
        ),
        "transfers.txt": _csv(
            ("from_stop_id", "to_stop_id", "transfer_type", "min_transfer_time"),
            [(a, b, 2, t) for a, b, t in plan.transfers],
        ),
    }
    files.update(_fare_files(plan))
    return files


def write_gtfs(plan: CityPlan, path: Path, *, seed: int, version: str) -> GtfsCounts:
    """Write the feed to ``path`` (a zip) and return its row counts."""
    writer = _Writer(seed)
    for line in plan.lines:
        writer.line(line)
    files = _static_files(plan, version)
    files["trips.txt"] = _csv(
        (
            "route_id",
            "service_id",
            "trip_id",
            "trip_headsign",
            "direction_id",
            "shape_id",
            "wheelchair_accessible",
            "bikes_allowed",
        ),
        [(*t, 1, 1 if t[0].startswith("R") else 2) for t in writer.trips],
    )
    header = "trip_id,arrival_time,departure_time,stop_id,stop_sequence,shape_dist_traveled\n"
    files["stop_times.txt"] = (header + "".join(writer.stop_times)).encode("utf-8")
    files["frequencies.txt"] = _csv(
        ("trip_id", "start_time", "end_time", "headway_secs", "exact_times"), writer.frequencies
    )
    with zipfile.ZipFile(path, "w") as zf:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.create_system = 3
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            # fast deflate for the huge stop_times of large cities; still deterministic
            level = 6 if len(files[name]) < _FAST_ZIP_BYTES else 1
            zf.writestr(info, files[name], compresslevel=level)
    return GtfsCounts(
        n_stops=len(plan.stops),
        n_routes=len(plan.lines),
        n_trips=len(writer.trips),
        n_stop_times=len(writer.stop_times),
    )
