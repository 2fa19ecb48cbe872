"""Helpers for the GTFS tests: tiny synthetic feeds and an independent raw-CSV oracle."""

from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path

AGENCY = (
    "agency_id,agency_name,agency_url,agency_timezone\nA,Agency,http://a.example,Europe/Berlin\n"
)
STOPS = (
    "stop_id,stop_name,stop_lat,stop_lon\n"
    "S1,One,48.0,9.0\nS2,Two,48.01,9.01\nS3,Three,48.02,9.02\nS4,Four,48.03,9.03\n"
)
ROUTES = "route_id,agency_id,route_short_name,route_type\nR1,A,1,3\n"
TRIPS = "route_id,service_id,trip_id\nR1,WK,T1\nR1,WK,T2\n"
CALENDAR = (
    "service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date\n"
    "WK,1,1,1,1,1,0,0,20240101,20241231\n"
)
STOP_TIMES = (
    "trip_id,arrival_time,departure_time,stop_id,stop_sequence\n"
    "T1,08:00:00,08:00:00,S1,1\nT1,08:10:00,08:10:00,S2,2\nT1,08:20:00,08:21:00,S3,3\n"
    "T2,09:00:00,09:00:00,S1,1\nT2,09:10:00,09:10:00,S2,2\n"
)

BASE: dict[str, str] = {
    "agency.txt": AGENCY,
    "stops.txt": STOPS,
    "routes.txt": ROUTES,
    "trips.txt": TRIPS,
    "calendar.txt": CALENDAR,
    "stop_times.txt": STOP_TIMES,
}


def write_feed(
    root: Path,
    overrides: dict[str, str | bytes | None] | None = None,
    *,
    name: str = "feed",
    as_zip: bool = False,
    subfolder: str = "",
) -> Path:
    """Write the base feed with ``overrides`` (``None`` removes a file) to a folder or zip."""
    files: dict[str, str | bytes | None] = {**BASE, **(overrides or {})}
    if as_zip:
        path = root / f"{name}.zip"
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
            for fname, text in files.items():
                if text is not None:
                    zf.writestr(subfolder + fname, text)
        return path
    path = root / name
    (path / subfolder).mkdir(parents=True, exist_ok=True)
    for fname, text in files.items():
        if text is None:
            continue
        data = text if isinstance(text, bytes) else text.encode("utf-8")
        (path / subfolder / fname).write_bytes(data)
    return path


def raw_bytes(feed: Path, name: str) -> bytes | None:
    """Bytes of file ``name`` of a feed folder or zip (any subfolder), or None."""
    if feed.is_dir():
        path = feed / name
        return path.read_bytes() if path.exists() else None
    with zipfile.ZipFile(feed) as zf:
        members = [m for m in zf.namelist() if m.rsplit("/", 1)[-1] == name]
        return zf.read(members[0]) if members else None


def raw_rows(feed: Path, name: str) -> list[dict[str, str]] | None:
    """Data rows of a GTFS file read with the csv module (the oracle); blank rows skipped."""
    data = raw_bytes(feed, name)
    if data is None:
        return None
    text = data.decode("utf-8-sig", errors="replace")
    reader = csv.reader(io.StringIO(text))
    header = [h.strip() for h in next(reader, [])]
    rows = []
    for row in reader:
        if any(cell.strip() for cell in row):
            rows.append({h: (row[i].strip() if i < len(row) else "") for i, h in enumerate(header)})
    return rows


def hms(text: str) -> int:
    """Seconds of an H:MM:SS string (independent of the library)."""
    h, m, s = (int(x) for x in text.strip().split(":"))
    return h * 3600 + m * 60 + s
