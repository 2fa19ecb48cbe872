"""Scenario modifications: what each one changes, its checks and its JSON form.

Modifications follow Conveyal R5's scenario vocabulary.  Each is a frozen
dataclass with a ``type`` discriminator (its JSON ``"type"``), ``check()`` for
problems visible without a network, and ``validate(network)`` for every
problem, ids included.  Ids are feed-scoped (``"feedId:id"``) as everywhere in
otpa; times are service-day seconds (``"HH:MM:SS"`` in JSON, hours may exceed
24).  :class:`AddRoute` lives in ``_route_addition.py``; how each modification
is applied lives in the ``_apply_*`` modules.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, dataclass, fields
from typing import Any, ClassVar, TypeAlias

from otpa.analysis.scenario import _json as js
from otpa.analysis.scenario._draft import Draft
from otpa.analysis.scenario._modification_base import (
    MAX_DWELL_S,
    MAX_SCALE,
    ModificationBase,
    route_problems,
)
from otpa.analysis.scenario._route_addition import AddRoute, NewStop, StopSpec
from otpa.analysis.scenario.validate import (
    MIN_HEADWAY_S,
    check_ids,
    check_number,
    check_text,
    check_window,
    format_time,
)

__all__ = [
    "MODIFICATION_TYPES",
    "AddRoute",
    "AdjustDwellTime",
    "AdjustFrequency",
    "AdjustSpeed",
    "Modification",
    "NewStop",
    "RemoveRoutes",
    "RemoveStops",
    "RemoveTrips",
    "StopSpec",
    "parse_modification",
]


# -- removals -------------------------------------------------------------------------------
@dataclass(frozen=True)
class RemoveRoutes(ModificationBase):
    """Remove every trip of some routes (the routes stay known, with no service).

    Attributes
    ----------
    routes
        Feed-scoped route ids.
    """

    type: ClassVar[str] = "remove-routes"
    _readers: ClassVar[dict[str, js.Reader]] = {"routes": js.id_list}
    _tuple_fields: ClassVar[tuple[str, ...]] = ("routes",)

    routes: tuple[str, ...]

    def check(self) -> list[str]:
        """Problems visible without a network."""
        return [] if self.routes else ["routes must name at least one route"]

    def _network_problems(self, draft: Draft) -> list[str]:
        return route_problems(draft, self.routes, "routes")


@dataclass(frozen=True)
class RemoveTrips(ModificationBase):
    """Remove trips by id.

    An id may also be a frequency template (``frequencies.txt`` trip): then
    every trip expanded from it goes.

    Attributes
    ----------
    trips
        Feed-scoped trip (or template trip) ids.
    routes
        When given, every listed trip must run on one of these routes (a
        guard against removing the wrong trips).
    """

    type: ClassVar[str] = "remove-trips"
    _readers: ClassVar[dict[str, js.Reader]] = {
        "trips": js.id_list,
        "routes": js.optional(js.id_list),
    }
    _tuple_fields: ClassVar[tuple[str, ...]] = ("trips", "routes")

    trips: tuple[str, ...]
    routes: tuple[str, ...] | None = None

    def check(self) -> list[str]:
        """Problems visible without a network."""
        problems = [] if self.trips else ["trips must name at least one trip"]
        if self.routes is not None and not self.routes:
            problems.append("routes, when given, must name at least one route")
        return problems

    def _network_problems(self, draft: Draft) -> list[str]:
        problems = check_ids(draft, "trips", self.trips, "trips")
        if self.routes is None:
            return problems
        found = check_ids(draft, "routes", self.routes, "routes")
        if found:
            return problems + found
        allowed = {draft.route_index(r) for r in self.routes}
        trip_route = draft.trip_routes()
        route_ids = draft.routes["route_id"].astype(str).to_numpy()
        for trip_id in self.trips:
            for t in draft.trip_indices(trip_id):
                if int(trip_route[t]) not in allowed:
                    problems.append(
                        f"trips: trip {trip_id!r} runs on route {route_ids[trip_route[t]]!r}, "
                        f"not on one of routes {list(self.routes)}"
                    )
                    break
        return problems


@dataclass(frozen=True)
class RemoveStops(ModificationBase):
    """Trips skip some stops; their dwell there is saved too.

    As in R5, times before the first remaining stop are not shifted; after it
    each hop loses the dwell of the skipped stops plus ``seconds_saved_s``
    per skipped stop (never below 1 s).  Trips left with fewer than two stops
    are removed.

    Attributes
    ----------
    stops
        Feed-scoped ids of the stops to skip.
    route
        Only trips of this route skip them; None: every route.
    seconds_saved_s
        Extra running time saved at each skipped stop (braking, accelerating).
    """

    type: ClassVar[str] = "remove-stops"
    _readers: ClassVar[dict[str, js.Reader]] = {
        "stops": js.id_list,
        "route": js.optional(js.text),
        "seconds_saved_s": js.integer,
    }
    _tuple_fields: ClassVar[tuple[str, ...]] = ("stops",)

    stops: tuple[str, ...]
    route: str | None = None
    seconds_saved_s: int = 0

    def check(self) -> list[str]:
        """Problems visible without a network."""
        problems = [] if self.stops else ["stops must name at least one stop"]
        problems += check_number(
            self.seconds_saved_s, "seconds_saved_s", low=0, high=MAX_DWELL_S, unit=" s"
        )
        return problems

    def _network_problems(self, draft: Draft) -> list[str]:
        problems = check_ids(draft, "stops", self.stops, "stops")
        routes: set[int] | None = None
        where = "any route"
        if self.route is not None:
            found = route_problems(draft, (self.route,), "route")
            if found:
                return problems + found
            routes = {draft.route_index(self.route)}
            where = f"route {self.route!r}"
        if problems:
            return problems
        served = draft.served_stops(routes)
        return [
            f"stops: stop {s!r} is not served by {where}"
            for s in self.stops
            if draft.stop_index(s) not in served
        ]


# -- timetable changes ----------------------------------------------------------------------
@dataclass(frozen=True)
class AdjustFrequency(ModificationBase):
    """Replace a route's trips starting in a time window by a regular headway.

    Trips of ``route`` whose first departure lies in ``[start_time, end_time)``
    are removed.  For each service and direction among them, the most common
    stop sequence's earliest trip is the template: new trips copy its stop
    pattern, running and dwell times and service, departing its first stop at
    ``start_time + k * headway_s`` before ``end_time``.

    Attributes
    ----------
    route
        Feed-scoped route id.
    headway_s
        Seconds between departures (at least :data:`MIN_HEADWAY_S`).
    start_time, end_time
        The window, in service-day seconds.
    """

    type: ClassVar[str] = "adjust-frequency"
    _readers: ClassVar[dict[str, js.Reader]] = {
        "route": js.text,
        "headway_s": js.integer,
        "start_time": js.time_of_day,
        "end_time": js.time_of_day,
    }
    _time_fields: ClassVar[frozenset[str]] = frozenset({"start_time", "end_time"})

    route: str
    headway_s: int
    start_time: int
    end_time: int

    def check(self) -> list[str]:
        """Problems visible without a network."""
        return [
            *check_text(self.route, "route"),
            *check_number(self.headway_s, "headway_s", low=MIN_HEADWAY_S, high=86400, unit=" s"),
            *check_window(self.start_time, self.end_time),
        ]

    def _network_problems(self, draft: Draft) -> list[str]:
        problems = route_problems(draft, (self.route,), "route")
        if problems or check_window(self.start_time, self.end_time):
            return problems
        r = draft.route_index(self.route)
        for b in draft.route_blocks({r}):
            first = draft.blocks[b].departure[:, 0]
            if ((first >= self.start_time) & (first < self.end_time)).any():
                return []
        return [
            f"route {self.route!r} has no trips starting between "
            f"{format_time(self.start_time)} and {format_time(self.end_time)}"
        ]


@dataclass(frozen=True)
class AdjustSpeed(ModificationBase):
    """Run some routes faster or slower: hop times divided by ``scale``, dwells kept.

    Each trip keeps its first arrival; later times accumulate the scaled hops
    exactly and are rounded to the second (halves up), as R5 does.

    Attributes
    ----------
    routes
        Feed-scoped route ids.
    scale
        Speed factor: 2 halves the running time between stops.
    """

    type: ClassVar[str] = "adjust-speed"
    _readers: ClassVar[dict[str, js.Reader]] = {"routes": js.id_list, "scale": js.number}
    _tuple_fields: ClassVar[tuple[str, ...]] = ("routes",)

    routes: tuple[str, ...]
    scale: float

    def check(self) -> list[str]:
        """Problems visible without a network."""
        problems = [] if self.routes else ["routes must name at least one route"]
        return problems + check_number(
            self.scale, "scale", low=0.0, high=MAX_SCALE, low_inclusive=False
        )

    def _network_problems(self, draft: Draft) -> list[str]:
        return route_problems(draft, self.routes, "routes")


@dataclass(frozen=True)
class AdjustDwellTime(ModificationBase):
    """Set or scale dwell times (departure minus arrival) at some stops.

    Each trip keeps its first arrival and its hop times; later times move by
    the accumulated change of dwell.  Scaled dwells are rounded to the second
    (halves up).

    Attributes
    ----------
    routes
        Feed-scoped route ids whose trips change; None: every route.
    stops
        Feed-scoped ids of the stops whose dwell changes; None: every stop.
    dwell_s
        New dwell in seconds (give this or ``scale``).
    scale
        Factor applied to the existing dwells (give this or ``dwell_s``).
    """

    type: ClassVar[str] = "adjust-dwell-time"
    _readers: ClassVar[dict[str, js.Reader]] = {
        "routes": js.optional(js.id_list),
        "stops": js.optional(js.id_list),
        "dwell_s": js.optional(js.integer),
        "scale": js.optional(js.number),
    }
    _tuple_fields: ClassVar[tuple[str, ...]] = ("routes", "stops")

    routes: tuple[str, ...] | None = None
    stops: tuple[str, ...] | None = None
    dwell_s: int | None = None
    scale: float | None = None

    def check(self) -> list[str]:
        """Problems visible without a network."""
        problems = []
        if (self.dwell_s is None) == (self.scale is None):
            problems.append("give exactly one of dwell_s and scale")
        if self.dwell_s is not None:
            problems += check_number(self.dwell_s, "dwell_s", low=0, high=MAX_DWELL_S, unit=" s")
        if self.scale is not None:
            problems += check_number(self.scale, "scale", low=0.0, high=MAX_SCALE)
        for name in ("routes", "stops"):
            if getattr(self, name) == ():
                problems.append(f"{name}, when given, must not be empty (use null for all)")
        return problems

    def _network_problems(self, draft: Draft) -> list[str]:
        problems = []
        if self.routes:
            problems += route_problems(draft, self.routes, "routes")
        if self.stops:
            problems += check_ids(draft, "stops", self.stops, "stops")
        if problems:
            return problems
        routes = None if self.routes is None else {draft.route_index(r) for r in self.routes}
        served = draft.served_stops(routes)
        wanted = served if self.stops is None else {draft.stop_index(s) for s in self.stops}
        if not served & wanted:
            return ["no trip of the given routes calls at the given stops"]
        return []


Modification: TypeAlias = (
    RemoveRoutes
    | RemoveTrips
    | RemoveStops
    | AdjustFrequency
    | AdjustSpeed
    | AdjustDwellTime
    | AddRoute
)

#: JSON ``"type"`` -> modification class.
MODIFICATION_TYPES: dict[str, type[Modification]] = {
    cls.type: cls
    for cls in (
        RemoveRoutes,
        RemoveTrips,
        RemoveStops,
        AdjustFrequency,
        AdjustSpeed,
        AdjustDwellTime,
        AddRoute,
    )
}


def parse_modification(data: Any) -> tuple[Modification | None, list[str]]:
    """Read one modification's JSON object.

    Returns
    -------
    tuple
        ``(modification, [])``, or ``(None, problems)`` naming the unknown
        type, the missing and unknown fields, and each badly typed value.
    """
    if not isinstance(data, Mapping):
        return None, ["must be a JSON object"]
    kind = data.get("type")
    cls = MODIFICATION_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        known = ", ".join(sorted(MODIFICATION_TYPES))
        return None, [f"unknown type {kind!r} (known types: {known})"]
    names = {f.name: f for f in fields(cls)}
    problems = [f"unknown field {k!r}" for k in data if k != "type" and k not in names]
    problems += [
        f"missing field {name!r}"
        for name, f in names.items()
        if name not in data and f.default is MISSING
    ]
    values: dict[str, Any] = {}
    for name in names:
        if name not in data:
            continue
        try:
            values[name] = cls._readers[name](data[name])
        except js.FieldError as exc:
            problems.append(f"field {name!r} {exc}")
    if problems:
        return None, problems
    return cls(**values), []
