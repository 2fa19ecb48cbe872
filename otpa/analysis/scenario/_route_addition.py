"""``AddRoute``: a new route with a regular timetable, and the new stops it creates."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias

from otpa.analysis.scenario import _json as js
from otpa.analysis.scenario._draft import Draft
from otpa.analysis.scenario._modification_base import MAX_DWELL_S, ModificationBase
from otpa.analysis.scenario._new_ids import added_route_ids
from otpa.analysis.scenario.validate import (
    MAX_ROUTE_STOPS,
    MIN_HEADWAY_S,
    WEEKDAYS,
    check_ids,
    check_number,
    check_text,
    check_window,
)
from otpa.transit.modes import TRANSIT_MODES

__all__ = ["MAX_SPEED_KMH", "AddRoute", "NewStop", "StopSpec"]

#: Highest speed of an added route (km/h).
MAX_SPEED_KMH = 500.0


@dataclass(frozen=True)
class NewStop:
    """A stop an added route creates.

    Attributes
    ----------
    lat, lon
        Position in degrees; the stop is linked to the street network like the
        stops of a network build.
    name
        Stop name.
    stop_id
        Feed-scoped id; by default ``"<feed>:<route>-<k>"``.
    """

    lat: float
    lon: float
    name: str
    stop_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of the stop."""
        out: dict[str, Any] = {"lat": self.lat, "lon": self.lon, "name": self.name}
        if self.stop_id is not None:
            out["stop_id"] = self.stop_id
        return out


#: A stop of an added route: an existing stop id or a new stop.
StopSpec: TypeAlias = "str | NewStop"


def _stop_spec(value: Any) -> str | NewStop:
    if isinstance(value, str):
        return js.text(value)
    if not isinstance(value, dict):
        msg = "entries must be a stop id or an object with lat, lon and name"
        raise js.FieldError(msg)
    extra = set(value) - {"lat", "lon", "name", "stop_id"}
    missing = {"lat", "lon", "name"} - set(value)
    if extra or missing:
        msg = (
            f"a new stop needs exactly lat, lon, name (and optionally stop_id); "
            f"missing {sorted(missing)}, unknown {sorted(extra)}"
        )
        raise js.FieldError(msg)
    return NewStop(
        lat=js.number(value["lat"]),
        lon=js.number(value["lon"]),
        name=js.text(value["name"]),
        stop_id=js.optional(js.text)(value.get("stop_id")),
    )


def _stop_specs(value: Any) -> tuple[str | NewStop, ...]:
    if not isinstance(value, list):
        msg = "must be a list of stops"
        raise js.FieldError(msg)
    return tuple(_stop_spec(v) for v in value)


def _days(value: Any) -> str | tuple[str, ...]:
    if value == "all":
        return "all"
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        msg = f'must be "all" or a list of day names ({", ".join(WEEKDAYS)})'
        raise js.FieldError(msg)
    return tuple(v.lower() for v in value)


# -- the modification ------------------------------------------------------------------------------
@dataclass(frozen=True)
class AddRoute(ModificationBase):
    """A new route with a regular timetable.

    Trips leave the first stop at ``start_time + k * headway_s`` before
    ``end_time`` on the given days (across the network's service period).
    Hop times are given, or come from the straight-line distance between
    consecutive stops at ``speed_kmh``: ``floor(d / v + 1/2)`` seconds.  Every
    stop but the first and the last has ``dwell_s``.  New stops are linked to
    the street network and get walking transfers like the stops of a build.
    The new entities are ``<route>`` (agency's feed), a service
    ``<route>-service``, trips ``<route>-out@HH:MM:SS`` (and ``-back@`` when
    bidirectional) and stops ``<route>-<k>`` unless given ids.

    Attributes
    ----------
    name
        Route short and long name.
    mode
        OTP transit mode (``"BUS"``, ``"TRAM"``, ``"SUBWAY"``, ``"RAIL"``, ...).
    stops
        Existing stop ids and :class:`NewStop` entries, in calling order.
    headway_s
        Seconds between departures (at least :data:`MIN_HEADWAY_S`).
    start_time, end_time
        Service window in service-day seconds.
    days
        ``"all"`` or weekday names (``"monday"`` ...).
    speed_kmh
        Running speed between stops (give this or ``hop_times_s``).
    hop_times_s
        Running time of each hop, ``len(stops) - 1`` values.
    dwell_s
        Dwell at intermediate stops.
    agency_id
        Operating agency (feed-scoped); by default the network's first.
    route_id
        Id of the new route; ``"<feed>:<id>"`` (the agency's feed is added
        when no feed is given).  By default made from the name.
    bidirectional
        Also run the same service in the opposite direction.
    """

    type: ClassVar[str] = "add-route"
    _readers: ClassVar[dict[str, js.Reader]] = {
        "name": js.text,
        "mode": js.text,
        "stops": _stop_specs,
        "headway_s": js.integer,
        "start_time": js.time_of_day,
        "end_time": js.time_of_day,
        "days": _days,
        "speed_kmh": js.optional(js.number),
        "hop_times_s": js.optional(js.integer_list),
        "dwell_s": js.integer,
        "agency_id": js.optional(js.text),
        "route_id": js.optional(js.text),
        "bidirectional": js.boolean,
    }
    _time_fields: ClassVar[frozenset[str]] = frozenset({"start_time", "end_time"})
    _tuple_fields: ClassVar[tuple[str, ...]] = ("stops", "hop_times_s")

    name: str
    mode: str
    stops: tuple[str | NewStop, ...]
    headway_s: int
    start_time: int
    end_time: int
    days: str | tuple[str, ...] = "all"
    speed_kmh: float | None = None
    hop_times_s: tuple[int, ...] | None = None
    dwell_s: int = 0
    agency_id: str | None = None
    route_id: str | None = None
    bidirectional: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.days, list):
            object.__setattr__(self, "days", tuple(self.days))
        super().__post_init__()

    def check(self) -> list[str]:
        """Problems visible without a network."""
        problems = [
            *check_text(self.name, "name"),
            *check_number(self.headway_s, "headway_s", low=MIN_HEADWAY_S, high=86400, unit=" s"),
            *check_window(self.start_time, self.end_time),
            *check_number(self.dwell_s, "dwell_s", low=0, high=MAX_DWELL_S, unit=" s"),
        ]
        if self.mode not in TRANSIT_MODES:
            problems.append(f"mode must be one of {', '.join(TRANSIT_MODES)}, got {self.mode!r}")
        n = len(self.stops)
        if not 2 <= n <= MAX_ROUTE_STOPS:
            problems.append(f"stops must list 2 to {MAX_ROUTE_STOPS} stops, got {n}")
        problems += self._new_stop_problems()
        problems += self._timing_problems(n)
        problems += self._day_problems()
        return problems

    def _new_stop_problems(self) -> list[str]:
        problems = []
        for k, stop in enumerate(self.stops):
            if isinstance(stop, str):
                problems += check_text(stop, f"stops[{k}]")
                continue
            problems += check_number(stop.lat, f"stops[{k}].lat", low=-90, high=90)
            problems += check_number(stop.lon, f"stops[{k}].lon", low=-180, high=180)
            problems += check_text(stop.name, f"stops[{k}].name")
        return problems

    def _timing_problems(self, n: int) -> list[str]:
        if (self.speed_kmh is None) == (self.hop_times_s is None):
            return ["give exactly one of speed_kmh and hop_times_s"]
        if self.speed_kmh is not None:
            return check_number(
                self.speed_kmh, "speed_kmh", low=0.0, high=MAX_SPEED_KMH, low_inclusive=False
            )
        hops = self.hop_times_s or ()
        problems = []
        if len(hops) != max(n - 1, 0):
            problems.append(f"hop_times_s must give {max(n - 1, 0)} values (one per hop)")
        for k, h in enumerate(hops):
            problems += check_number(h, f"hop_times_s[{k}]", low=0, high=86400, unit=" s")
        return problems

    def _day_problems(self) -> list[str]:
        if self.days == "all":
            return []
        if isinstance(self.days, str) or not self.days:
            return [f'days must be "all" or a non-empty list of day names, got {self.days!r}']
        bad = [d for d in self.days if d not in WEEKDAYS]
        if bad:
            return [f"days: unknown day names {bad} (use {', '.join(WEEKDAYS)})"]
        return []

    def _network_problems(self, draft: Draft) -> list[str]:
        problems = []
        agencies = draft.base.transit.agencies
        if self.agency_id is not None:
            known = set(agencies["agency_id"].dropna().astype(str)) if len(agencies) else set()
            if self.agency_id not in known:
                problems.append(f"agency_id: unknown agency id {self.agency_id!r}")
        elif not len(agencies):
            problems.append("the network has no agency to run an added route")
        if draft.service_active.shape[1] == 0:
            problems.append("the network has no service calendar to add service to")
        existing = [s for s in self.stops if isinstance(s, str)]
        problems += check_ids(draft, "stops", existing, "stops")
        problems += self._boarding_problems(draft, existing)
        if problems:
            return problems
        ids = added_route_ids(draft, self)
        if draft.has_id("routes", ids.route_id):
            problems.append(f"route_id: route {ids.route_id!r} exists already")
        seen: set[str] = set()
        for stop_id in ids.new_stop_ids:
            if draft.has_id("stops", stop_id) or stop_id in seen:
                problems.append(f"stops: new stop id {stop_id!r} is not unique")
            seen.add(stop_id)
        return problems

    @staticmethod
    def _boarding_problems(draft: Draft, stop_ids: list[str]) -> list[str]:
        if "location_type" not in draft.stops.columns:
            return []
        kind = draft.stops["location_type"].to_numpy()
        out = []
        for stop_id in stop_ids:
            i = draft.stop_index(stop_id)
            if i >= 0 and int(kind[i]) not in (0, 4):
                out.append(f"stops: {stop_id!r} is a station or entrance, not a boarding stop")
        return out
