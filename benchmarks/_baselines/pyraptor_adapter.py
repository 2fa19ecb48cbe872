"""pyraptor baseline: GTFS -> the Dutch NS layout pyraptor's reader expects, and a query runner.

pyraptor 1.3.10 (``pyraptor.gtfs.timetable.read_gtfs_timetable``) reads a GTFS *folder* and
assumes NS conventions: services only in ``calendar_dates.txt``, agencies selected by
``agency_name``, ``trips.trip_short_name``/``trip_long_name``, ``stops.parent_station``
(stops without one are dropped), ``platform_code`` and ``stop_code`` columns.  Stations
are formed by ``stop_name``; transfers are only between the stops of one station (a
fixed 120 s), there are no walking transfers between stations.

:func:`convert_gtfs` (standard library only, runs in any interpreter) writes such a folder
for one service date: ``calendar.txt`` is expanded into ``calendar_dates.txt`` rows for
that date, only that day's trips are kept, every stop gets a synthetic parent station
(same-named stops more than :data:`STATION_RADIUS_M` apart become separate stations so
that pyraptor does not teleport between towns), and ``platform_code``/``stop_code`` are
``"P" + stop id``.

Run as a script *with the pyraptor venv's interpreter* it times pyraptor's own
earliest-arrival query (``RaptorAlgorithm.run``) per stop-to-stop pair::

    results/pyraptor-venv/bin/python _baselines/pyraptor_adapter.py \\
        --gtfs-dir DIR --queries Q.json --out OUT.json [--time 08:00:00] [--rounds 5]

Known bug worked around (see shared/docs/peers.md): when labels settle before the round
limit, ``run`` breaks out early and ``bag_round_stop[rounds]`` keeps only empty labels, so
``query_raptor.run_raptor`` finds no journey.  The runner takes the best arrival at the
target over *all* rounds; it also records what the unpatched last-round lookup gives.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import io
import json
import math
import sys
import time
import zipfile
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "STATION_RADIUS_M",
    "ConvertResult",
    "active_services",
    "busiest_weekday",
    "convert_gtfs",
]

#: Same-named stops farther than this from a station's first stop start a new station.
STATION_RADIUS_M = 400.0
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


@dataclass(frozen=True)
class ConvertResult:
    """What :func:`convert_gtfs` wrote."""

    folder: Path
    date: str
    agencies: tuple[str, ...]
    trips: int
    stop_times: int
    served_stop_ids: frozenset[str]
    stations: int


def _rows(zf: zipfile.ZipFile, name: str) -> Iterator[dict[str, str]]:
    if name not in zf.namelist():
        return
    with zf.open(name) as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8-sig", newline="")
        yield from csv.DictReader(text)


def _calendar_services(zf: zipfile.ZipFile) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    return list(_rows(zf, "calendar.txt")), list(_rows(zf, "calendar_dates.txt"))


def active_services(gtfs_zip: Path, date: str) -> set[str]:
    """Service ids running on ``date`` (``YYYYMMDD``), from calendar and calendar_dates."""
    with zipfile.ZipFile(gtfs_zip) as zf:
        calendar, dates = _calendar_services(zf)
    return _active(calendar, dates, date)


def _active(calendar: list[dict[str, str]], dates: list[dict[str, str]], date: str) -> set[str]:
    day = dt.datetime.strptime(date, "%Y%m%d").date()
    weekday = _WEEKDAYS[day.weekday()]
    active = {
        r["service_id"]
        for r in calendar
        if r["start_date"] <= date <= r["end_date"] and r.get(weekday, "0").strip() == "1"
    }
    for r in dates:
        if r["date"] != date:
            continue
        if r["exception_type"].strip() == "1":
            active.add(r["service_id"])
        elif r["exception_type"].strip() == "2":
            active.discard(r["service_id"])
    return active


def busiest_weekday(gtfs_zip: Path) -> str:
    """The Tuesday, Wednesday or Thursday with the most trips (earliest on ties), ``YYYYMMDD``."""
    with zipfile.ZipFile(gtfs_zip) as zf:
        calendar, dates = _calendar_services(zf)
        trips_per_service = Counter(r["service_id"] for r in _rows(zf, "trips.txt"))
    days = {r["date"] for r in dates}
    for r in calendar:
        start = dt.datetime.strptime(r["start_date"], "%Y%m%d").date()
        end = dt.datetime.strptime(r["end_date"], "%Y%m%d").date()
        days.update(
            (start + dt.timedelta(days=i)).strftime("%Y%m%d") for i in range((end - start).days + 1)
        )
    best: tuple[int, str] | None = None
    for day in sorted(days):
        if dt.datetime.strptime(day, "%Y%m%d").weekday() not in (1, 2, 3):
            continue
        n = sum(trips_per_service[s] for s in _active(calendar, dates, day))
        if best is None or n > best[0]:
            best = (n, day)
    if best is None:
        msg = f"no Tuesday-Thursday in the service period of {gtfs_zip}"
        raise ValueError(msg)
    return best[1]


def _haversine_m(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6_371_000.0 * math.asin(math.sqrt(min(1.0, a)))


def _station_names(stops: list[dict[str, str]]) -> dict[str, str]:
    """Stop id -> station name: same-named stops clustered within STATION_RADIUS_M."""
    by_name: dict[str, list[dict[str, str]]] = defaultdict(list)
    for s in stops:
        by_name[s["stop_name"]].append(s)
    out: dict[str, str] = {}
    for name, group in by_name.items():
        centres: list[tuple[float, float]] = []
        for s in group:
            lat, lon = float(s["stop_lat"]), float(s["stop_lon"])
            for i, (clat, clon) in enumerate(centres):
                if _haversine_m(lat, lon, clat, clon) <= STATION_RADIUS_M:
                    out[s["stop_id"]] = name if i == 0 else f"{name} #{i + 1}"
                    break
            else:
                centres.append((lat, lon))
                i = len(centres) - 1
                out[s["stop_id"]] = name if i == 0 else f"{name} #{i + 1}"
    return out


def _write(path: Path, fields: list[str], rows: list[dict[str, Any]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)


def convert_gtfs(gtfs_zip: Path, out_dir: Path, date: str) -> ConvertResult:
    """Write the NS-layout GTFS folder pyraptor reads, for the service date ``date``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(gtfs_zip) as zf:
        calendar, dates = _calendar_services(zf)
        services = _active(calendar, dates, date)
        agencies = list(_rows(zf, "agency.txt"))
        routes = list(_rows(zf, "routes.txt"))
        trips = [r for r in _rows(zf, "trips.txt") if r["service_id"] in services]
        trip_ids = {r["trip_id"] for r in trips}
        stop_times = [r for r in _rows(zf, "stop_times.txt") if r["trip_id"] in trip_ids]
        stops = list(_rows(zf, "stops.txt"))
    single_agency = agencies[0].get("agency_id", "") if len(agencies) == 1 else ""
    for r in routes:
        r.setdefault("agency_id", single_agency)
        if not r.get("agency_id"):
            r["agency_id"] = single_agency
        r.setdefault("route_short_name", "")
        r.setdefault("route_long_name", "")
    for a in agencies:
        a.setdefault("agency_id", single_agency)
    for r in trips:
        r["trip_short_name"] = ""  # read as Int64 by pyraptor (NS train numbers)
        r["trip_long_name"] = r.get("trip_headsign", "")
    stations = _station_names(stops)
    for s in stops:
        s["stop_name"] = stations[s["stop_id"]]
        s["parent_station"] = f"station:{s['stop_name']}"
        s["platform_code"] = f"P{s['stop_id']}"  # non-numeric: pyraptor calls .str on it
        s["stop_code"] = f"P{s['stop_id']}"
    _write(out_dir / "agency.txt", ["agency_id", "agency_name", "agency_url", "agency_timezone"],
           agencies)  # fmt: skip
    _write(
        out_dir / "routes.txt",
        ["route_id", "agency_id", "route_short_name", "route_long_name", "route_type"],
        routes,
    )
    _write(
        out_dir / "trips.txt",
        ["route_id", "service_id", "trip_id", "trip_short_name", "trip_long_name"],
        trips,
    )
    _write(
        out_dir / "calendar_dates.txt",
        ["service_id", "date", "exception_type"],
        [{"service_id": s, "date": date, "exception_type": 1} for s in sorted(services)],
    )
    _write(
        out_dir / "stop_times.txt",
        ["trip_id", "stop_sequence", "stop_id", "arrival_time", "departure_time"],
        stop_times,
    )
    _write(
        out_dir / "stops.txt",
        ["stop_id", "stop_name", "stop_lat", "stop_lon", "parent_station", "platform_code",
         "stop_code"],
        stops,
    )  # fmt: skip
    return ConvertResult(
        folder=out_dir,
        date=date,
        agencies=tuple(a["agency_name"] for a in agencies),
        trips=len(trips),
        stop_times=len(stop_times),
        served_stop_ids=frozenset(r["stop_id"] for r in stop_times),
        stations=len(set(stations.values())),
    )


# --------------------------------------------------------------------------- runner
# Everything below runs in the pyraptor venv (pandas 1.5.3, numpy < 2).


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="time pyraptor earliest-arrival queries")
    p.add_argument("--gtfs-dir", type=Path, required=True, help="folder from convert_gtfs")
    p.add_argument("--queries", type=Path, required=True, help='JSON {"date", "pairs": [[o, d]]}')
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--time", default="08:00:00", help="departure time hh:mm:ss")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--budget-s", type=float, default=600.0, help="stop querying after this")
    p.add_argument("--cache", type=Path, help="folder for pyraptor's pickled timetable (reused)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Build pyraptor's timetable with its own reader, then time one query per pair."""
    args = _parse_args(argv)
    from loguru import logger

    logger.remove()  # pyraptor logs every round at INFO; do not time log formatting
    from pyraptor.dao.timetable import read_timetable, write_timetable
    from pyraptor.gtfs.timetable import gtfs_to_pyraptor_timetable, read_gtfs_timetable
    from pyraptor.model.raptor import RaptorAlgorithm
    from pyraptor.util import LARGE_NUMBER, str2sec

    spec = json.loads(args.queries.read_text())
    agencies = list(spec["agencies"])
    t0 = time.perf_counter()
    cached = args.cache is not None and (args.cache / "timetable.pcl").exists()
    if cached:
        timetable = read_timetable(str(args.cache))
    else:
        gtfs = read_gtfs_timetable(str(args.gtfs_dir), spec["date"], agencies)
        timetable = gtfs_to_pyraptor_timetable(gtfs)
        if args.cache is not None:
            write_timetable(str(args.cache), timetable)
    setup_s = time.perf_counter() - t0
    dep = str2sec(args.time)
    records: list[dict[str, Any]] = []
    started = time.perf_counter()
    for origin, destination in spec["pairs"]:
        if time.perf_counter() - started > args.budget_s:
            break
        rec: dict[str, Any] = {"from": origin, "to": destination}
        try:
            o, d = timetable.stops.get(origin), timetable.stops.get(destination)
        except ValueError as exc:
            rec["error"] = str(exc)
            records.append(rec)
            continue
        t = time.perf_counter()
        bags = RaptorAlgorithm(timetable).run([o], dep, args.rounds)
        best = min(bags[k][d].earliest_arrival_time for k in bags)  # bug workaround
        rec["seconds"] = time.perf_counter() - t
        rec["arrival_s"] = None if best >= LARGE_NUMBER else int(best)
        last = bags[args.rounds][d].earliest_arrival_time
        rec["last_round_arrival_s"] = None if last >= LARGE_NUMBER else int(last)
        records.append(rec)
    out = {
        "setup_s": setup_s,
        "setup_from_cache": cached,
        "departure_s": dep,
        "rounds": args.rounds,
        "stops": len(timetable.stops),
        "stations": len(timetable.stations),
        "routes": len(timetable.routes),
        "trips": len(timetable.trips),
        "transfers": len(timetable.transfers),
        "queries": records,
        "python": sys.version.split()[0],
    }
    args.out.write_text(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
