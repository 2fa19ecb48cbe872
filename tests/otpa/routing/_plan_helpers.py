"""Independent GTFS look-ups for the planning acceptance tests.

Everything here reads the GTFS text files with the :mod:`csv` module only, so
the expected values of the planning tests never come from otpa itself:
service calendars, frequency expansion (``start + k * headway < end``),
rides between two stops, fare attributes by zone pair.  A few small helpers
pick legs out of itineraries and compare them with an expected ride.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import zipfile
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from zoneinfo import ZoneInfo

from otpa.network import TransportNetwork
from otpa.routing import Itinerary, Leg

__all__ = [
    "ROUTE_TYPE_MODE",
    "GtfsText",
    "Ride",
    "StopTime",
    "TripRun",
    "assert_ride",
    "describe",
    "feed_id_of",
    "gtfs_text",
    "hms",
    "raw_id",
    "read_rows",
    "service_time",
    "transit_legs",
]

#: GTFS basic route types -> OTP 1.x mode names.
ROUTE_TYPE_MODE = {
    0: "TRAM",
    1: "SUBWAY",
    2: "RAIL",
    3: "BUS",
    4: "FERRY",
    5: "CABLE_CAR",
    6: "GONDOLA",
    7: "FUNICULAR",
}


def read_rows(source: Path, name: str) -> list[dict[str, str]]:
    """Rows of one GTFS file of a feed folder or zip; ``[]`` when the file is absent."""
    if source.is_dir():
        path = source / name
        if not path.is_file():
            return []
        text = path.read_text(encoding="utf-8-sig")
    else:
        with zipfile.ZipFile(source) as zf:
            members = {Path(n).name: n for n in zf.namelist()}
            if name not in members:
                return []
            text = zf.read(members[name]).decode("utf-8-sig")
    rows = []
    for row in csv.DictReader(io.StringIO(text)):
        rows.append({k.strip(): (v or "").strip() for k, v in row.items() if k is not None})
    return rows


def hms(value: str) -> int:
    """Seconds of a GTFS ``H:MM:SS`` time (hours may exceed 24)."""
    h, m, s = (int(x) for x in value.split(":"))
    return h * 3600 + m * 60 + s


def service_time(date: dt.date, seconds: int, tz: str) -> dt.datetime:
    """The instant ``seconds`` after the start of ``date``'s service day ("noon minus 12 h")."""
    zone = ZoneInfo(tz)
    noon = dt.datetime(date.year, date.month, date.day, 12, tzinfo=zone)
    return dt.datetime.fromtimestamp(noon.timestamp() - 12 * 3600 + seconds, zone)


def raw_id(scoped: str | None) -> str | None:
    """``"feed:id"`` -> ``"id"`` (ids themselves may contain ``:`` only after the feed)."""
    if scoped is None:
        return None
    return scoped.split(":", 1)[1] if ":" in scoped else scoped


def feed_id_of(network: TransportNetwork, source: Path) -> str:
    """The feed id the network gave to the feed read from ``source``."""
    feeds = network.transit.feeds
    for feed_id, path in zip(feeds["feed_id"], feeds["path"], strict=True):
        if Path(str(path)).resolve() == source.resolve():
            return str(feed_id)
    msg = f"no feed of {source} in the network (feeds: {list(feeds['feed_id'])})"
    raise AssertionError(msg)


@dataclass(frozen=True)
class StopTime:
    """One call of a trip run: stop and service-day seconds."""

    stop_id: str
    arrival: int
    departure: int


@dataclass(frozen=True)
class TripRun:
    """A trip as it runs on one service day (a frequency trip yields one run per departure)."""

    trip_id: str
    route_id: str
    service_id: str
    calls: tuple[StopTime, ...]


@dataclass(frozen=True)
class Ride:
    """Boarding one run at ``board`` and leaving it at ``alight`` (service-day seconds)."""

    trip_id: str
    route_id: str
    board: str
    alight: str
    departure: int
    arrival: int


class GtfsText:
    """The text files of one GTFS feed, read with :mod:`csv` (no otpa code involved)."""

    def __init__(self, source: Path) -> None:
        self.source = source
        self.agency = read_rows(source, "agency.txt")
        self.stops = {r["stop_id"]: r for r in read_rows(source, "stops.txt")}
        self.routes = {r["route_id"]: r for r in read_rows(source, "routes.txt")}
        self.trips = {r["trip_id"]: r for r in read_rows(source, "trips.txt")}
        self.calendar = read_rows(source, "calendar.txt")
        self.calendar_dates = read_rows(source, "calendar_dates.txt")
        self.fare_attributes = {r["fare_id"]: r for r in read_rows(source, "fare_attributes.txt")}
        self.fare_rules = read_rows(source, "fare_rules.txt")
        self.frequencies: dict[str, list[tuple[int, int, int]]] = defaultdict(list)
        for r in read_rows(source, "frequencies.txt"):
            self.frequencies[r["trip_id"]].append(
                (hms(r["start_time"]), hms(r["end_time"]), int(r["headway_secs"]))
            )
        calls: dict[str, list[tuple[int, StopTime]]] = defaultdict(list)
        for r in read_rows(source, "stop_times.txt"):
            calls[r["trip_id"]].append(
                (
                    int(r["stop_sequence"]),
                    StopTime(r["stop_id"], hms(r["arrival_time"]), hms(r["departure_time"])),
                )
            )
        self.stop_times = {
            trip: tuple(st for _, st in sorted(rows, key=lambda x: x[0]))
            for trip, rows in calls.items()
        }

    @property
    def time_zone(self) -> str:
        """The agencies' time zone."""
        return self.agency[0]["agency_timezone"]

    def services_on(self, date: dt.date) -> set[str]:
        """Service ids running on ``date`` (calendar.txt plus calendar_dates.txt)."""
        ymd = date.strftime("%Y%m%d")
        day = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")[
            date.weekday()
        ]
        active = {
            r["service_id"]
            for r in self.calendar
            if r["start_date"] <= ymd <= r["end_date"] and r[day] == "1"
        }
        for r in self.calendar_dates:
            if r["date"] == ymd:
                if r["exception_type"] == "1":
                    active.add(r["service_id"])
                elif r["exception_type"] == "2":
                    active.discard(r["service_id"])
        return active

    def runs(self, date: dt.date) -> list[TripRun]:
        """Every trip run of the service day ``date``, frequency trips expanded."""
        services = self.services_on(date)
        out: list[TripRun] = []
        for trip_id, trip in self.trips.items():
            if trip["service_id"] not in services or trip_id not in self.stop_times:
                continue
            calls = self.stop_times[trip_id]
            periods = self.frequencies.get(trip_id)
            if not periods:
                out.append(TripRun(trip_id, trip["route_id"], trip["service_id"], calls))
                continue
            first = calls[0].departure
            for start, end, headway in periods:
                t = start
                while t < end:
                    shift = t - first
                    shifted = tuple(
                        StopTime(c.stop_id, c.arrival + shift, c.departure + shift) for c in calls
                    )
                    out.append(TripRun(trip_id, trip["route_id"], trip["service_id"], shifted))
                    t += headway
        return out

    def rides(
        self,
        date: dt.date,
        board: str,
        alight: str,
        *,
        keep: Callable[[TripRun], bool] | None = None,
    ) -> list[Ride]:
        """Every ride from ``board`` to a later call at ``alight`` on ``date``, by departure."""
        out = []
        for run in self.runs(date):
            if keep is not None and not keep(run):
                continue
            for i, a in enumerate(run.calls):
                if a.stop_id != board:
                    continue
                for b in run.calls[i + 1 :]:
                    if b.stop_id == alight:
                        out.append(
                            Ride(run.trip_id, run.route_id, board, alight, a.departure, b.arrival)
                        )
                        break
        out.sort(key=lambda r: (r.departure, r.arrival))
        return out

    def first_ride_after(
        self,
        date: dt.date,
        board: str,
        alight: str,
        ready: int,
        *,
        keep: Callable[[TripRun], bool] | None = None,
    ) -> Ride:
        """The ride reaching ``alight`` first among those leaving ``board`` at or after ``ready``.

        Ties on arrival go to the later departure (the shorter ride).
        """
        rides = [r for r in self.rides(date, board, alight, keep=keep) if r.departure >= ready]
        assert rides, f"no ride {board} -> {alight} after {ready} s on {date}"
        return min(rides, key=lambda r: (r.arrival, -r.departure))

    def last_ride_before(
        self,
        date: dt.date,
        board: str,
        alight: str,
        deadline: int,
        *,
        keep: Callable[[TripRun], bool] | None = None,
    ) -> Ride:
        """The ride leaving ``board`` last among those reaching ``alight`` by ``deadline``.

        Ties on departure go to the earlier arrival.
        """
        rides = [r for r in self.rides(date, board, alight, keep=keep) if r.arrival <= deadline]
        assert rides, f"no ride {board} -> {alight} arriving by {deadline} s on {date}"
        return max(rides, key=lambda r: (r.departure, -r.arrival))

    def route_mode(self, route_id: str) -> str:
        """OTP mode name of a route (basic GTFS route types)."""
        return ROUTE_TYPE_MODE[int(self.routes[route_id]["route_type"])]

    def zone_fare(self, origin_zone: str, destination_zone: str) -> tuple[str, int, str]:
        """``(fare_id, cents, currency)`` of the cheapest fare for a zone pair (no route rules)."""
        found = []
        for r in self.fare_rules:
            if (
                (r.get("origin_id", ""), r.get("destination_id", ""))
                == (
                    origin_zone,
                    destination_zone,
                )
                and not r.get("route_id")
                and not r.get("contains_id")
            ):
                attr = self.fare_attributes[r["fare_id"]]
                cents = round(float(attr["price"]) * 100)
                found.append((cents, r["fare_id"], attr["currency_type"]))
        assert found, f"no fare rule for zones {origin_zone} -> {destination_zone}"
        cents, fare_id, currency = min(found)
        return fare_id, cents, currency

    def route_fare(self, route_id: str) -> tuple[str, int, str]:
        """``(fare_id, cents, currency)`` of the cheapest fare with a rule for ``route_id`` only."""
        found = []
        for r in self.fare_rules:
            if r.get("route_id") == route_id and not any(
                r.get(k) for k in ("origin_id", "destination_id", "contains_id")
            ):
                attr = self.fare_attributes[r["fare_id"]]
                found.append(
                    (round(float(attr["price"]) * 100), r["fare_id"], attr["currency_type"])
                )
        assert found, f"no fare rule for route {route_id}"
        cents, fare_id, currency = min(found)
        return fare_id, cents, currency


@cache
def gtfs_text(source: Path) -> GtfsText:
    """A feed's text files, read once per session."""
    return GtfsText(source)


def transit_legs(itinerary: Itinerary) -> list[Leg]:
    """The transit legs of an itinerary, in order."""
    return [leg for leg in itinerary.legs if leg.transit_leg]


def describe(itineraries: Iterable[Itinerary]) -> str:
    """A compact text form of itineraries for assertion messages."""
    lines = []
    for k, it in enumerate(itineraries):
        parts = [
            f"{leg.mode}[{raw_id(leg.trip_id) or ''}] "
            f"{raw_id(leg.from_place.stop_id) or leg.from_place.name} "
            f"{leg.start_time:%d %H:%M:%S} -> "
            f"{raw_id(leg.to_place.stop_id) or leg.to_place.name} {leg.end_time:%d %H:%M:%S}"
            for leg in it.legs
        ]
        lines.append(f"#{k}: " + " | ".join(parts))
    return "\n".join(lines)


def assert_ride(leg: Leg, ride: Ride, feed_id: str, date: dt.date, tz: str, gtfs: GtfsText) -> None:
    """A transit leg is exactly ``ride``: stops, times, trip, route and mode."""
    got = (
        leg.transit_leg,
        leg.from_place.stop_id,
        leg.to_place.stop_id,
        leg.start_time,
        leg.end_time,
        raw_id(leg.trip_id),
        raw_id(leg.route_id),
        leg.mode,
    )
    want = (
        True,
        f"{feed_id}:{ride.board}",
        f"{feed_id}:{ride.alight}",
        service_time(date, ride.departure, tz),
        service_time(date, ride.arrival, tz),
        ride.trip_id,
        ride.route_id,
        gtfs.route_mode(ride.route_id),
    )
    assert got == want, f"leg {got} != expected ride {want}"
