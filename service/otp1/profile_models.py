"""``/profile`` and ``/rrtr``: query parameters in, OTP 1.x JSON out.

Parameters follow OpenTripPlanner 1.x's ``ProfileResource`` (names, defaults, ranges;
durations in minutes); a value that is not readable or out of range is a 400 naming
the parameter (OTP answered 500).  The response is OTP's ``ProfileResponse``:
``{"options": [Option]}`` with ``Segment``, ``StreetSegment``, ``StreetEdgeInfo`` and
``Stats`` beans, null fields omitted.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from otpa.analysis.otp1.profile import (
    MAX_SEARCHES,
    MAX_WINDOW_S,
    ORDER_BY,
    PROFILE_STREET_MODES,
    ProfileOption,
    ProfileRequest,
    ProfileResult,
    RaptorComparison,
    Stats,
    StreetSegment,
    TransitSegment,
)
from otpa.errors import InvalidArgumentError, UnknownIdError
from otpa.index import TransitIndex
from otpa.transit.modes import TRANSIT_MODES
from otpa.util.polyline import encode_polyline
from service.otp1.errors import ApiError
from service.otp1.index_models import route_short

__all__ = [
    "ProfileQuery",
    "parse_lat_lon",
    "profile_json",
    "profile_query",
    "query_parameter_schemas",
    "rrtr_json",
]

Query = Mapping[str, Sequence[str]]
JsonDict = dict[str, Any]

_TIME = re.compile(r"^(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?$")
_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_MIN_YEAR, _MAX_YEAR = 2000, 2100
_MAX_HOUR = 47
#: ``name: (default, low, high, ProfileRequest field)``; floats in m/s.
_SPEEDS = {
    "walkSpeed": (1.4, 0.5, 7.0, "walk_speed_mps"),
    "bikeSpeed": (4.1, 1.0, 21.0, "bike_speed_mps"),
    "carSpeed": (20.0, 1.0, 36.0, "car_speed_mps"),
}
#: Whole minutes, stored in seconds.
_MINUTES: dict[str, tuple[int, int, int | None, str]] = {
    "streetTime": (90, 1, 480, "street_time_s"),
    "maxWalkTime": (15, 1, 480, "max_walk_time_s"),
    "maxBikeTime": (20, 1, 480, "max_bike_time_s"),
    "maxCarTime": (30, 1, 480, "max_car_time_s"),
    "suboptimal": (5, 0, 30, "suboptimal_s"),
}
_COUNTS: dict[str, tuple[int, int, int | None, str]] = {
    "limit": (15, 0, None, "limit"),
    "bikeSafe": (1, 0, 1000, "bike_safe"),
    "bikeSlope": (1, 0, 1000, "bike_slope"),
    "bikeTime": (1, 0, 1000, "bike_time"),
}
_MODE_LISTS = {
    "accessModes": ("WALK,BICYCLE", "access_modes"),
    "egressModes": ("WALK", "egress_modes"),
    "directModes": ("WALK,BICYCLE", "direct_modes"),
}


def query_parameter_schemas() -> dict[str, dict[str, Any]]:
    """Return the JSON Schema of each ``/profile`` query parameter, from the tables above.

    Examples
    --------
    >>> query_parameter_schemas()["walkSpeed"]
    {'type': 'number', 'default': 1.4, 'minimum': 0.5, 'maximum': 7.0}
    """
    out: dict[str, dict[str, Any]] = {
        "from": {"type": "string", "description": "lat,lon"},
        "to": {"type": "string", "description": "lat,lon (default: from)"},
        "date": {"type": "string", "description": "YYYY-MM-DD"},
        "startTime": {"type": "string", "default": "07:30"},
        "endTime": {"type": "string", "default": "08:30"},
        "orderBy": {"type": "string", "enum": list(ORDER_BY), "default": "AVG"},
        "transitModes": {"type": "string", "default": "TRANSIT"},
        "banAgency": {"type": "string"},
    }
    for name, (speed, low, high, _) in _SPEEDS.items():
        out[name] = {"type": "number", "default": speed, "minimum": low, "maximum": high}
    for name, (default, lo, hi, _) in {**_MINUTES, **_COUNTS}.items():
        out[name] = {"type": "integer", "default": default, "minimum": lo}
        if hi is not None:
            out[name]["maximum"] = hi
    for name in ("minBikeTime", "minCarTime"):
        out[name] = {"type": "integer", "default": 1, "minimum": 0}
    for name, (modes, _) in _MODE_LISTS.items():
        out[name] = {"type": "string", "default": modes}
    return out


def _bad(name: str, raw: str, why: str) -> ApiError:
    """A 400 naming the parameter, its value and what is wrong with it."""
    return ApiError(400, f"Query parameter {name}={raw[:100]!r} {why}.")


@dataclass(frozen=True)
class _Reader:
    """The first non-empty value of each query parameter."""

    query: Query

    def raw(self, name: str) -> str | None:
        values = self.query.get(name) or ()
        value = values[0].strip() if values else ""
        return value or None

    def number(
        self,
        name: str,
        default: float,
        lo: float,
        hi: float | None,
        convert: Callable[[str], float],
    ) -> float:
        raw = self.raw(name)
        if raw is None:
            return default
        try:
            value = convert(raw)
        except ValueError:
            kind = "an integer" if convert is int else "a number"
            raise _bad(name, raw, f"is not {kind}") from None
        if not math.isfinite(value) or value < lo or (hi is not None and value > hi):
            upper = "" if hi is None else f" and {hi:g}"
            limits = f"at least {lo:g}" if hi is None else f"between {lo:g}{upper}"
            raise _bad(name, raw, f"must be {limits}")
        return value

    def boolean(self, name: str) -> bool:
        raw = self.raw(name)
        if raw is None or raw.lower() in ("false", "0", "no"):
            return False
        if raw.lower() in ("true", "1", "yes"):
            return True
        raise _bad(name, raw, "is not a boolean (true or false)")


def parse_lat_lon(name: str, raw: str) -> tuple[float, float]:
    """``"lat,lon"`` (OTP ``LatLon``) -> ``(lat, lon)``; 400 naming ``name`` otherwise."""
    parts = raw.split(",")
    try:
        lat, lon = (float(p) for p in parts)
    except ValueError:
        raise _bad(name, raw, "is not a coordinate 'lat,lon'") from None
    if not (math.isfinite(lat) and math.isfinite(lon) and abs(lat) <= 90 and abs(lon) <= 180):
        raise _bad(name, raw, "is outside latitude -90..90 or longitude -180..180")
    return lat, lon


def _clock(reader: _Reader, name: str, default: int) -> int:
    raw = reader.raw(name)
    if raw is None:
        return default
    m = _TIME.match(raw)
    if m is None:
        raise _bad(name, raw, "is not a time HH[:mm[:ss]]")
    h, mi, s = (int(g) if g else 0 for g in m.groups())
    if h > _MAX_HOUR or mi > 59 or s > 59:
        raise _bad(name, raw, f"is not a time of the service day (up to {_MAX_HOUR}:59:59)")
    return h * 3600 + mi * 60 + s


def _date(reader: _Reader, today: dt.date) -> dt.date:
    raw = reader.raw("date")
    if raw is None or raw.lower() == "today":
        return today
    m = _DATE.match(raw)
    try:
        if m is None:
            raise ValueError
        value = dt.date(*(int(g) for g in m.groups()))
    except ValueError:
        raise _bad(name="date", raw=raw, why="is not a date YYYY-MM-DD (or today)") from None
    if not _MIN_YEAR <= value.year <= _MAX_YEAR:
        raise _bad(name="date", raw=raw, why=f"must be in the years {_MIN_YEAR} to {_MAX_YEAR}")
    return value


def _street_modes(reader: _Reader, name: str, default: str) -> tuple[str, ...]:
    raw = reader.raw(name) or default
    modes = [m.strip().upper() for m in raw.split(",") if m.strip()]
    bad = [m for m in modes if m not in PROFILE_STREET_MODES]
    if bad:
        why = f"has unsupported modes {bad} (use {', '.join(PROFILE_STREET_MODES)})"
        raise _bad(name, raw, why)
    return tuple(dict.fromkeys(modes))


def _transit_modes(reader: _Reader) -> frozenset[str]:
    raw = reader.raw("transitModes") or "TRANSIT"
    out: set[str] = set()
    for mode in (m.strip().upper() for m in raw.split(",") if m.strip()):
        if mode == "TRANSIT":
            out |= set(TRANSIT_MODES)
        elif mode in TRANSIT_MODES:
            out.add(mode)
        elif mode not in PROFILE_STREET_MODES:
            raise _bad(name="transitModes", raw=raw, why=f"has an unknown mode {mode}")
    return frozenset(out)


@dataclass(frozen=True)
class ProfileQuery:
    """A parsed ``/profile`` query: the library request and the service's own switches."""

    request: ProfileRequest
    analyst: bool
    scenario: str | None


def profile_query(query: Query, *, today: dt.date) -> ProfileQuery:
    """Read and check the query parameters of ``/profile`` (400 :class:`ApiError` if bad).

    Parameters
    ----------
    query
        Parameter name -> values, as received.
    today
        The router's current date (``date`` defaults to it).
    """
    r = _Reader(query)
    raw_from = r.raw("from")
    if raw_from is None:
        raise ApiError(400, "Query parameter from is required (lat,lon).")
    origin = parse_lat_lon("from", raw_from)
    raw_to = r.raw("to")
    destination = origin if raw_to is None else parse_lat_lon("to", raw_to)
    fields: dict[str, Any] = {"date": _date(r, today)}
    fields["start_time_s"] = _clock(r, "startTime", 7 * 3600 + 1800)
    fields["end_time_s"] = _clock(r, "endTime", 8 * 3600 + 1800)
    window = fields["end_time_s"] - fields["start_time_s"]
    if window <= 0:
        raise ApiError(400, "Query parameter endTime must be later than startTime.")
    if window > MAX_WINDOW_S:
        msg = f"The time window (startTime to endTime) is limited to {MAX_WINDOW_S // 60} minutes."
        raise ApiError(400, msg)
    for name, (speed, low, high, key) in _SPEEDS.items():
        fields[key] = r.number(name, speed, low, high, float)
    for name, (default, lo, hi, key) in {**_MINUTES, **_COUNTS}.items():
        value = int(r.number(name, default, lo, hi, int))
        fields[key] = value * 60 if name in _MINUTES else value
    for name, top, key in (("minBikeTime", "max_bike_time_s", "min_bike_time_s"),
                           ("minCarTime", "max_car_time_s", "min_car_time_s")):  # fmt: skip
        fields[key] = 60 * int(r.number(name, 1, 0, fields[top] // 60, int))
    order = (r.raw("orderBy") or "AVG").upper()
    if order not in ORDER_BY:
        why = f"must be one of {', '.join(ORDER_BY)}"
        raise _bad(name="orderBy", raw=r.raw("orderBy") or "", why=why)
    if fields["bike_safe"] + fields["bike_slope"] + fields["bike_time"] == 0:
        raise ApiError(400, "Query parameters bikeSafe, bikeSlope and bikeTime cannot all be 0.")
    for name, (modes, key) in _MODE_LISTS.items():
        fields[key] = _street_modes(r, name, modes)
    searches = (
        len(range(fields["start_time_s"], fields["end_time_s"], 60))
        * len(fields["access_modes"])
        * len(fields["egress_modes"])
    )
    if searches > MAX_SEARCHES:
        msg = (
            f"Request too large (startTime, endTime, accessModes, egressModes): {searches} "
            f"departure minutes x access modes x egress modes, more than {MAX_SEARCHES}."
        )
        raise ApiError(400, msg)
    banned = r.raw("banAgency")
    try:
        request = ProfileRequest(
            from_lat=origin[0],
            from_lon=origin[1],
            to_lat=destination[0],
            to_lon=destination[1],
            order_by=order,  # type: ignore[arg-type]
            transit_modes=_transit_modes(r),
            banned_agencies=frozenset(a.strip() for a in (banned or "").split(",") if a.strip()),
            **fields,
        )
    except InvalidArgumentError as exc:  # what the checks above let through (never expected)
        raise ApiError(400, f"Invalid profile request: {exc}.") from None
    return ProfileQuery(request, r.boolean("analyst"), r.raw("scenario"))


# -- response -------------------------------------------------------------------------------


def _stats(s: Stats) -> JsonDict:
    return {"min": s.min, "avg": s.avg, "max": s.max, "num": s.num}


def _street_segment(seg: StreetSegment) -> JsonDict:
    edges = []
    for e in seg.edges:
        edges.append(
            {
                "edgeId": e.edge_id,
                "distance": int(e.distance_m),
                "geometry": {"points": encode_polyline(e.lat, e.lon), "length": len(e.lat)},
                "mode": e.mode,
                "streetName": e.street_name,
                "relativeDirection": None if e.relative_direction is None
                else e.relative_direction.value,
                "absoluteDirection": None if e.absolute_direction is None
                else e.absolute_direction.value,
                "stayOn": e.stay_on,
                "area": e.area,
                "bogusName": e.bogus_name,
            }
        )  # fmt: skip
    return {"mode": seg.mode, "time": seg.time_s, "streetEdges": edges}


def _route(index: TransitIndex, route_id: str) -> JsonDict:
    route = index.get_route(route_id)
    agency = None
    if route.agency_id is not None:
        try:
            agency = index.get_agency(route.agency_id)
        except UnknownIdError:
            agency = None
    return route_short(route, agency)


def _segment(index: TransitIndex, seg: TransitSegment) -> JsonDict:
    return {
        "from": seg.from_stop_id,
        "to": seg.to_stop_id,
        "walkTime": seg.walk_time_s,
        "walkDistance": int(seg.walk_distance_m),
        "waitStats": _stats(seg.wait),
        "mode": seg.mode,
        "fromName": seg.from_name,
        "toName": seg.to_name,
        "rideStats": _stats(seg.ride),
        "routes": [_route(index, seg.route_id)],
        "segmentPatterns": [
            {
                "patternId": p.pattern_id,
                "fromIndex": p.from_index,
                "toIndex": p.to_index,
                "nTrips": p.n_trips,
            }
            for p in seg.patterns
        ],
    }


def _option(index: TransitIndex, option: ProfileOption) -> JsonDict:
    return {
        "transit": [_segment(index, s) for s in option.transit] or None,
        "access": [_street_segment(s) for s in option.access] or None,
        "egress": [_street_segment(s) for s in option.egress] or None,
        "stats": _stats(option.stats),
        "summary": option.summary,
    }


def profile_json(result: ProfileResult, index: TransitIndex) -> JsonDict:
    """OTP 1.x's ``ProfileResponse`` of a profile search."""
    return {"options": [_option(index, o) for o in result.options]}


def _hms(seconds: int) -> str:
    return f"{seconds // 3600:02d}:{seconds % 3600 // 60:02d}"


def rrtr_json(report: RaptorComparison, router_id: str, stop_ids: Sequence[str]) -> JsonDict:
    """The ``/rrtr`` report: timings of repeated and range RAPTOR and their agreement."""
    first = report.first_difference
    difference = None
    if first is not None:
        minute, stop = first
        difference = {
            "departure": _hms(report.start_time_s + 60 * minute),
            "stopId": stop_ids[stop],
        }
    speedup = report.repeated_s / report.range_s if report.range_s > 0 else None
    return {
        "routerId": router_id,
        "date": report.date.isoformat(),
        "startTime": _hms(report.start_time_s),
        "endTime": _hms(report.end_time_s),
        "departures": report.departures,
        "accessStops": report.access_stops,
        "repeatedRaptorMs": round(report.repeated_s * 1000, 3),
        "rangeRaptorMs": round(report.range_s * 1000, 3),
        "speedup": None if speedup is None else round(speedup, 2),
        "compared": report.compared,
        "agreeing": report.agreeing,
        "reached": report.reached,
        "agree": report.agreeing == report.compared,
        "firstDifference": difference,
    }
