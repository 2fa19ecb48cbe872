"""Query parameters of the analyst API, and the plan query -> analysis request mapping.

The "RR" endpoints (isochrones, timegrid, analyst tiles, ``POST /surfaces``) take every
plan parameter (``fromPlace``, ``date``, ``time``, ``mode``, ``walkSpeed``,
``walkReluctance``, ``maxWalkDistance``, ``alightSlack``, ``minTransferTime``,
``optimize``/triangle, ``maxSlope``, ``bannedRoutes``, ``wheelchair``...). They are read
by the plan's own parser (:func:`service.otp1.plan_params.plan_request_from_query`), and
the plan's :class:`~otpa.routing.RoutingPreferences` become the analysis request's
preferences whole (:func:`analysis_request_for`), so a parameter means the same thing
here as for ``/plan``: the speeds and slacks are the planner's defaults (OTP 1.x's, e.g.
walking at 1.33 m/s), not the analysis library's R5 defaults, and an RR endpoint answers
for the same trip ``/plan`` would plan.  What only an analysis has: the walk limit
(``maxWalkDistance``, OTP's 2 km when unlimited) becomes a hard access limit, the time
to walk (cycle) it; with ``wheelchair=true`` only trips and stops marked accessible are
used (travel times cannot weigh accessibility costs).  ``arriveBy=true`` is refused
(surfaces are computed forward from the origin).

Every reader raises :class:`~service.otp1.errors.ApiError` 400 naming the parameter.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from otpa.analysis import AnalysisRequest
from otpa.analysis.surface import origin_coordinate
from otpa.errors import ArgumentTypeError, InvalidArgumentError
from otpa.network import TransportNetwork
from otpa.routing import PlanRequest
from otpa.routing.errors import InvalidRequestError, OutsideBoundsError
from service.otp1.errors import ApiError
from service.otp1.plan_params import plan_request_from_query

__all__ = [
    "DEFAULT_MODES",
    "MAX_ORIGIN_OFFSET_DEG",
    "AnalysisQuery",
    "Query",
    "analysis_query",
    "analysis_request_for",
    "bool_param",
    "choice_param",
    "first",
    "float_param",
    "int_list_param",
    "int_param",
    "lat_lon_param",
    "name_param",
    "optional_float_param",
]

Query = Mapping[str, Sequence[str]]
#: OTP 1.x's default ``mode``.
DEFAULT_MODES = "WALK,TRANSIT"
_TRUE = frozenset({"true", "1", "yes"})
_FALSE = frozenset({"false", "0", "no"})
#: How far (degrees, about 110 km) an analysis origin may lie outside the network's bounds.
MAX_ORIGIN_OFFSET_DEG = 1.0
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_MAX_DIGITS = 100


def first(query: Query, name: str) -> str | None:
    """The first value of a parameter; None when absent or empty (OTP: empty = absent)."""
    values = query.get(name)
    if not values or values[0].strip() == "":
        return None
    return values[0].strip()


def _bad(name: str, raw: str, expected: str) -> ApiError:
    return ApiError(400, f"Query parameter {name}={raw!r} is not {expected}.")


def _range(name: str, value: float, lo: float | None, hi: float | None) -> None:
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        low = "-inf" if lo is None else f"{lo:g}"
        high = "inf" if hi is None else f"{hi:g}"
        shown = f"{value:g}" if isinstance(value, float) else _short(str(value))
        raise ApiError(400, f"Query parameter {name}={shown} is out of range [{low}, {high}].")


def _short(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


def _whole(name: str, raw: str) -> int:
    """Read a whole number; more than 100 digits is not one any parameter can hold."""
    if len(raw) > _MAX_DIGITS:
        raise _bad(name, _short(raw), "a whole number of at most 100 digits")
    try:
        return int(raw)
    except ValueError:
        raise _bad(name, _short(raw), "a whole number") from None


def int_param(
    query: Query, name: str, default: int, *, lo: int | None = None, hi: int | None = None
) -> int:
    """A whole-number parameter within ``[lo, hi]``."""
    raw = first(query, name)
    if raw is None:
        return default
    value = _whole(name, raw)
    _range(name, value, lo, hi)
    return value


def optional_float_param(
    query: Query, name: str, *, lo: float | None = None, hi: float | None = None
) -> float | None:
    """A finite number parameter within ``[lo, hi]``; None when absent."""
    raw = first(query, name)
    if raw is None:
        return None
    try:
        value = float(raw)
    except ValueError:
        raise _bad(name, _short(raw), "a number") from None
    if not math.isfinite(value):
        raise _bad(name, _short(raw), "a finite number")
    _range(name, value, lo, hi)
    return value


def float_param(
    query: Query, name: str, default: float, *, lo: float | None = None, hi: float | None = None
) -> float:
    """A finite number parameter within ``[lo, hi]``."""
    value = optional_float_param(query, name, lo=lo, hi=hi)
    return default if value is None else value


def bool_param(query: Query, name: str, default: bool) -> bool:
    """A boolean parameter (``true/false/1/0/yes/no``, any case)."""
    raw = first(query, name)
    if raw is None:
        return default
    value = raw.lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise _bad(name, raw, "a boolean (true or false)")


def choice_param(query: Query, name: str, choices: Sequence[str], default: str) -> str:
    """One of ``choices`` (matched without case), returned as spelled in ``choices``."""
    raw = first(query, name)
    if raw is None:
        return default
    for choice in choices:
        if raw.upper() == choice.upper():
            return choice
    raise _bad(name, raw, f"one of {', '.join(choices)}")


def int_list_param(query: Query, name: str, *, lo: int, hi: int, max_count: int) -> list[int]:
    """A repeatable whole-number parameter (``?c=1&c=2``, also ``?c=1,2``), sorted, unique."""
    values: set[int] = set()
    for raw_value in query.get(name, ()):
        for part in raw_value.split(","):
            text = part.strip()
            if not text:
                continue
            value = _whole(name, text)
            _range(name, value, lo, hi)
            values.add(value)
    if len(values) > max_count:
        raise ApiError(
            400, f"Query parameter {name}: at most {max_count} values, got {len(values)}."
        )
    return sorted(values)


def lat_lon_param(query: Query, name: str) -> tuple[float, float] | None:
    """A ``lat,lon`` parameter (OTP's ``coordinateOrigin``)."""
    raw = first(query, name)
    if raw is None:
        return None
    parts = [p.strip() for p in raw.split(",")]
    try:
        lat, lon = (float(p) for p in parts)
    except ValueError:
        raise _bad(name, raw, "a 'lat,lon' pair") from None
    if not (-90.0 <= lat <= 90.0 and -180.0 <= lon <= 180.0):
        raise _bad(name, raw, "a 'lat,lon' pair on Earth")
    return lat, lon


def name_param(query: Query, name: str, default: str) -> str:
    """A file-name-safe identifier (letters, digits, ``_ . -``; at most 64 characters)."""
    raw = first(query, name)
    if raw is None:
        return default
    if not _NAME.match(raw):
        raise _bad(name, raw, "a name of letters, digits, '_', '.', '-' (at most 64)")
    return raw


# -- the plan query -> analysis mapping ------------------------------------------------------


@dataclass(frozen=True)
class AnalysisQuery:
    """An RR endpoint's query, read.

    Attributes
    ----------
    plan
        The plan request the query describes (every plan parameter).
    request
        The analysis request with the same parameters.
    origin
        ``(lat, lon)`` of ``fromPlace`` (a stop id resolves to the stop).
    """

    plan: PlanRequest
    request: AnalysisRequest
    origin: tuple[float, float]


def analysis_request_for(
    plan: PlanRequest,
    *,
    modes: str,
    max_time_s: int,
    window_s: int = 0,
    step_s: int = 60,
    percentiles: tuple[int, ...] = (50,),
) -> AnalysisRequest:
    """The analysis request with a plan request's parameters (see the module docstring).

    Raises
    ------
    ApiError
        400 for parameters the analysis cannot honour.
    """
    walk_m = plan.walk.effective_max_distance_m
    try:
        return AnalysisRequest(
            departure=plan.date_time,
            modes=modes,
            window_s=window_s,
            step_s=step_s,
            max_time_s=max_time_s,
            percentiles=percentiles,
            preferences=plan.preferences,
            max_walk_time_s=math.ceil(walk_m / plan.walk.speed_mps),
            max_bike_time_s=math.ceil(walk_m / plan.bike.speed_mps),
        )
    except (InvalidArgumentError, ArgumentTypeError, InvalidRequestError) as exc:
        raise ApiError(400, f"Invalid analysis request: {exc}.") from None


def analysis_query(
    query: Query,
    network: TransportNetwork,
    *,
    max_time_s: int,
    window_s: int = 0,
    step_s: int = 60,
    percentiles: tuple[int, ...] = (50,),
) -> AnalysisQuery:
    """Read an RR endpoint's plan parameters into an analysis request and an origin.

    Parameters
    ----------
    query
        The query parameters.
    network
        The router's network (time zone, stop ids).
    max_time_s
        The travel-time limit of the analysis.
    window_s, step_s, percentiles
        The departure window (default one departure) and the percentiles.

    Returns
    -------
    AnalysisQuery

    Raises
    ------
    ApiError
        400 when ``fromPlace`` is missing, ``arriveBy`` is asked, or a value is unusable.
    otpa.routing.errors.InvalidRequestError
        For plan parameters the plan parser refuses (a 400 naming the parameter).
    otpa.routing.errors.OutsideBoundsError
        When ``fromPlace`` is a stop id that does not exist, or lies more than
        :data:`MAX_ORIGIN_OFFSET_DEG` outside the network.
    """
    time_zone = str(network.time_zone)
    plan = plan_request_from_query(
        query,
        time_zone=time_zone,
        now=dt.datetime.now(ZoneInfo(time_zone)),
        feed_ids=network.feed_ids,
    )
    if plan.from_place is None:
        raise ApiError(400, "Query parameter fromPlace is required (the origin, 'lat,lon').")
    if plan.arrive_by:
        raise ApiError(
            400, "Query parameter arriveBy=true is not supported: surfaces depart from fromPlace."
        )
    modes = first(query, "mode") or DEFAULT_MODES
    request = analysis_request_for(
        plan,
        modes=modes,
        max_time_s=max_time_s,
        window_s=window_s,
        step_s=step_s,
        percentiles=percentiles,
    )
    origin = origin_coordinate(network, plan.from_place)
    _check_near_network(network, origin)
    return AnalysisQuery(plan=plan, request=request, origin=origin)


def _check_near_network(network: TransportNetwork, origin: tuple[float, float]) -> None:
    """Refuse an origin more than :data:`MAX_ORIGIN_OFFSET_DEG` outside the network's bounds.

    Nothing is reachable from there, and a grid around it may not even fit on Earth
    (``fromPlace=90,180``).
    """
    lat, lon = origin
    min_lon, min_lat, max_lon, max_lat = network.bounds
    m = MAX_ORIGIN_OFFSET_DEG
    if not (min_lat - m <= lat <= max_lat + m and min_lon - m <= lon <= max_lon + m):
        msg = f"{lat:g},{lon:g} is more than {m:g} degree outside the network"
        raise OutsideBoundsError(msg, missing=("from",))
