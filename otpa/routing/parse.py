"""Parsers for the strings of OpenTripPlanner 1.x plan requests.

OTP 1.x clients send places, dates, times, modes and id lists as strings in
formats OTP defined by its implementation.  These pure functions read them
exactly as OTP 1.x did (its quirks included, where clients rely on them) and
return the library's request types, so notebooks and the HTTP service share
one reading:

====================================  ===============================================
Function                              OTP 1.x parameter(s)
====================================  ===============================================
:func:`parse_location`                ``fromPlace``, ``toPlace``, ``intermediatePlaces``
:func:`parse_date_time`               ``date`` + ``time`` (+ ``invalidDateStrategy``)
:func:`parse_modes`                   ``mode``
:func:`rental_preferences`            what the qualified modes switch on
:func:`parse_route_specs`             ``bannedRoutes``, ``whiteListedRoutes``, ...
:func:`parse_agency_ids`              ``bannedAgencies``, ``preferredAgencies``, ...
:func:`parse_stop_ids`                ``bannedStops``, ``bannedStopsHard``
:func:`parse_banned_trips`            ``bannedTrips``
:func:`parse_feed_scoped_id`          ``startTransitStopId``, ``startTransitTripId``
====================================  ===============================================

Unreadable input raises :class:`~otpa.routing.errors.InvalidRequestError`
naming the parameter; ``code="BOGUS_PARAMETER"`` marks what OTP 1.x answered
with its ``BOGUS_PARAMETER`` planner error (bad dates, route or stop specs).
"""

from __future__ import annotations

import calendar
import datetime as dt
import math
import re
from collections.abc import Collection, Iterable, Sequence
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from otpa.errors import InvalidArgumentError
from otpa.routing.errors import InvalidRequestError
from otpa.routing.preferences import RentalPreferences
from otpa.routing.request import STREET_MODES, Location, RequestModes, RouteSpec
from otpa.transit.modes import TRANSIT_MODES

__all__ = [
    "MAX_YEAR",
    "MIN_YEAR",
    "QUALIFIERS",
    "TRAVERSE_MODES",
    "parse_agency_ids",
    "parse_banned_trips",
    "parse_date_time",
    "parse_feed_scoped_id",
    "parse_location",
    "parse_modes",
    "parse_route_specs",
    "parse_stop_ids",
    "rental_preferences",
]

#: OTP 1.x ``TraverseMode`` names, in OTP's order.
TRAVERSE_MODES = (
    "WALK",
    "BICYCLE",
    "CAR",
    "TRAM",
    "SUBWAY",
    "RAIL",
    "BUS",
    "FERRY",
    "CABLE_CAR",
    "GONDOLA",
    "FUNICULAR",
    "TRANSIT",
    "LEG_SWITCH",
    "AIRPLANE",
    "MICROMOBILITY",
)
#: Mode qualifiers (``BICYCLE_RENT``, ``CAR_PARK``...).
QUALIFIERS = ("RENT", "HAVE", "PARK", "HAIL", "KEEP")

BOGUS = "BOGUS_PARAMETER"
_INT_MAX = 2**31 - 1
_INT_DIGITS = 10  # digits of the largest Java int (longer ones are out of range)
#: Years a plan may be asked for: a day's arithmetic (service days, windows) never
#: leaves the range of ``datetime``.
MIN_YEAR, MAX_YEAR = 1000, 9998
_JAVA_INT = re.compile(r"[+-]?[0-9]+")

# -- small Java look-alikes ---------------------------------------------------------------------


def _java_split(text: str, sep: str) -> list[str]:
    """``String.split`` with a literal separator: trailing empty strings are dropped."""
    parts = text.split(sep)
    if len(parts) == 1:
        return parts
    while parts and parts[-1] == "":
        parts.pop()
    return parts


#: What ``String.trim`` strips: every character up to U+0020.
_JAVA_BLANKS = "".join(chr(c) for c in range(33))


def _java_trim(text: str) -> str:
    """``String.trim``: strip every character up to U+0020 from both ends."""
    return text.strip(_JAVA_BLANKS)


def _java_int(text: str) -> int | None:
    """``Integer.parseInt``: an optionally signed decimal int, or None."""
    digits = text.lstrip("+-").lstrip("0") or "0"
    if not _JAVA_INT.fullmatch(text) or len(digits) > _INT_DIGITS:
        return None
    value = -int(digits) if text.startswith("-") else int(digits)
    return value if -_INT_MAX - 1 <= value <= _INT_MAX else None


# -- places -------------------------------------------------------------------------------------

_DOUBLE = r"-?[0-9]+(?:\.[0-9]+)?"
_LAT_LON = re.compile(rf"[^0-9+.\-]*({_DOUBLE})(?:\s*,\s*|\s+)({_DOUBLE})", re.ASCII)
_HEADING = re.compile(rf"heading=({_DOUBLE})", re.ASCII)
_EDGE_ID = re.compile(r"edgeId=([0-9]+)", re.ASCII)


def parse_location(text: str, *, parameter: str = "fromPlace") -> Location:
    """Read an OTP 1.x place string (``fromPlace``, ``toPlace``, ``intermediatePlaces``).

    ``name::place`` gives the place a display name (OTP's ``orig``).  The
    place holds a coordinate when two decimals separated by a comma (spaces
    allowed) or by whitespace appear in it (the first such pair counts, as
    OTP's regular expression found it); ``heading=NN`` and ``edgeId=NN`` are
    picked out anywhere.  A place without a coordinate is a label: a stop id
    (``feedId:stopId``) or a street vertex label (``osm:node:123``).

    Parameters
    ----------
    text
        The place string.
    parameter
        The query parameter it came from (named in errors).

    Returns
    -------
    Location

    Raises
    ------
    InvalidRequestError
        With ``code="OUTSIDE_BOUNDS"`` when the place is empty or its
        coordinate is not on Earth (OTP 1.x found no vertex for such places);
        without a code when ``edgeId`` is not a 32-bit integer.

    Examples
    --------
    >>> parse_location("45.52,-122.68")
    Location(lat=45.52, lon=-122.68, label=None, name='', heading=None, edge_id=None)
    >>> loc = parse_location("Home::45.52 -122.68 heading=90")
    >>> (loc.name, loc.lat, loc.lon, loc.heading)
    ('Home', 45.52, -122.68, 90.0)
    >>> parse_location("TriMet:8371").label
    'TriMet:8371'
    """
    name, sep, place = text.partition("::")
    if not sep:
        name, place = "", text
    heading_match = _HEADING.search(place)
    heading = float(heading_match.group(1)) if heading_match else None
    if heading is not None and not math.isfinite(heading):
        msg = f"{parameter}: heading is not a finite number"
        raise InvalidRequestError(msg, parameter=parameter)
    edge_match = _EDGE_ID.search(place)
    edge_id = _java_int(edge_match.group(1)) if edge_match else None
    if edge_match and edge_id is None:
        msg = f"{parameter}: edgeId={edge_match.group(1)} is not a 32-bit integer"
        raise InvalidRequestError(msg, parameter=parameter)
    coord = _LAT_LON.search(place)
    try:
        if coord:
            lat, lon = float(coord.group(1)), float(coord.group(2))
            return Location(lat=lat, lon=lon, name=name, heading=heading, edge_id=edge_id)
        return Location(label=place, name=name, heading=heading, edge_id=edge_id)
    except ValueError as exc:
        msg = f"{parameter}: {text!r} is not a usable place ({exc})"
        raise InvalidRequestError(msg, parameter=parameter, code="OUTSIDE_BOUNDS") from None


# -- dates and times ----------------------------------------------------------------------------

# SimpleDateFormat patterns OTP 1.x tried on the date (after ``_ - : /`` became ``.``), in order.
_DF_LIST = (
    "yyyy.MM.dd.HH.mm.ss",
    "yyyy.MM.dd.HH.mm",
    "yyyy.MM.dd.HH.mm.ss.SS",
    "M.d.yy h.mm a",
    "M.d.yyyy h.mm a",
    "M.d.yyyy h.mma",
    "M.d.yyyy h.mm",
    "M.d.yyyy k.mm",
    "M.d.yyyy",
    "yyyy.M.d",
    "h.mm a",
)
_SMALL_DF_LIST = ("M.d.yy", "yy.M.d", "h.mm a")
_SANITY_CUTOFF_YEAR = 1000
_DIGITS = re.compile(r"[0-9]+")
_EIGHT_DIGITS = re.compile(r"[0-9]{8}")
_CENTURY_HINT = re.compile(r"20[0-9][0-9]")
_DATE_SEPARATORS = str.maketrans(dict.fromkeys("_-:/", "."))
_MONTH_DAY_YEAR = re.compile(r"([0-9]{1,2})\.([0-9]{1,2})\.([1-9][0-9]{3})", re.ASCII)
_FIELD_RANGES = {"H": (0, 23), "k": (1, 24), "h": (1, 12), "m": (0, 59), "s": (0, 59)}
_FIELD_RANGES["S"] = (0, 999)


def _compile_pattern(pattern: str) -> tuple[tuple[str, int], ...]:
    tokens: list[tuple[str, int]] = []
    for match in re.finditer(r"([A-Za-z])\1*|.", pattern):
        token = match.group(0)
        if token[0].isalpha():
            tokens.append((token[0], len(token)))
        else:
            tokens.append(("'", ord(token)))
    return tuple(tokens)


_DF_TOKENS = {p: _compile_pattern(p) for p in (*_DF_LIST, *_SMALL_DF_LIST)}


def _years_before(when: dt.datetime, years: int) -> dt.datetime:
    try:
        return when.replace(year=when.year - years)
    except ValueError:  # 29 February
        return when.replace(year=when.year - years, day=28)


def _scan_fields(pattern: str, text: str) -> dict[str, int] | None:
    """Read ``text`` against one SimpleDateFormat pattern (non-lenient, prefix match).

    Returns the numeric fields by pattern letter, plus ``"y#"``: the number of
    digits of the year and ``"y*"``: the pattern's year width (``yy`` or ``yyyy``).
    """
    fields: dict[str, int] = {}
    pos = 0
    for letter, arg in _DF_TOKENS[pattern]:
        if letter == "'":
            if pos >= len(text) or text[pos] != chr(arg):
                return None
            pos += 1
            continue
        while pos < len(text) and text[pos] in " \t":  # SimpleDateFormat skips blanks
            pos += 1
        if letter == "a":
            if text[pos : pos + 2].upper() not in ("AM", "PM"):
                return None
            pos += 2
            continue
        match = _DIGITS.match(text, pos)
        digits = match.group(0).lstrip("0") or "0" if match else ""
        if match is None or len(digits) > _INT_DIGITS:
            return None  # no number, or one no calendar field can hold
        pos = match.end()
        fields[letter] = int(digits)
        if letter == "y":
            fields["y#"], fields["y*"] = len(match.group(0)), arg
    return fields


def _resolve_date(fields: dict[str, int], now: dt.datetime) -> dt.date | None:
    for letter, (low, high) in _FIELD_RANGES.items():
        if letter in fields and not low <= fields[letter] <= high:
            return None
    year, month, day = fields.get("y", 1970), fields.get("M", 1), fields.get("d", 1)
    ambiguous = fields.get("y*", 4) <= 2 and fields.get("y#") == 2
    start = _years_before(now.replace(tzinfo=None), 80)
    if ambiguous:  # SimpleDateFormat's two-digit year window: 80 years back, 20 ahead
        year += (start.year // 100) * 100 + (100 if year < start.year % 100 else 0)
    if not (1 <= month <= 12 and 1 <= year <= 9999):
        return None
    if not 1 <= day <= calendar.monthrange(year, month)[1]:
        return None
    parsed = dt.date(year, month, day)
    if ambiguous and dt.datetime.combine(parsed, dt.time()) < start:
        if year + 100 > 9999:
            return None
        parsed = parsed.replace(year=year + 100)
    return parsed


def _otp_parse_date(text: str, now: dt.datetime) -> dt.date | None:
    """OTP 1.x ``DateUtils.parseDate``: the first pattern that reads a year >= 1000."""
    normalized = _java_trim(text).translate(_DATE_SEPARATORS)
    common = _MONTH_DAY_YEAR.fullmatch(normalized) if len(normalized) > 8 else None
    if common is not None:
        # ``MM-dd-yyyy`` (the form OTP's clients send): the patterns before "M.d.yyyy"
        # all want more fields than the text has, so that one reads it first
        month, day, year = (int(x) for x in common.groups())
        fields = {"M": month, "d": day, "y": year, "y#": 4, "y*": 4}
        parsed = _resolve_date(fields, now)
        if parsed is not None and parsed.year >= _SANITY_CUTOFF_YEAR:
            return parsed
    return _date_by_patterns(normalized, now)


def _date_by_patterns(normalized: str, now: dt.datetime) -> dt.date | None:
    """``DateUtils.parseDate`` on a trimmed text with ``_ - : /`` read as ``.``."""
    patterns: tuple[str, ...] = _DF_LIST
    if len(normalized) <= 8:
        if _EIGHT_DIGITS.fullmatch(normalized):
            normalized = f"{normalized[:4]}.{normalized[4:6]}.{normalized[6:]}"
        elif not _CENTURY_HINT.search(normalized):
            patterns = _SMALL_DF_LIST
    for pattern in patterns:
        fields = _scan_fields(pattern, normalized)
        parsed = _resolve_date(fields, now) if fields is not None else None
        if parsed is not None and parsed.year >= _SANITY_CUTOFF_YEAR:
            return parsed
    return None


def _clean_number(text: str) -> int | None:
    """OTP's ``DateUtils.trim`` then ``Integer.parseInt``."""
    return _java_int(_java_trim(text).replace("%20;", "").replace("%20", ""))


def _otp_parse_time(text: str) -> tuple[int, int, int] | None:
    """OTP 1.x ``DateUtils.parseTime``: hours, minutes, seconds (not range-checked), or None."""
    hms = _java_split(text.upper(), ":")
    if len(hms) < 2:  # OTP meant to read seconds past midnight here, but always failed
        return None
    add_hours, am_pm, minutes = 0, False, hms[1]
    if minutes.endswith(("AM", "PM")):  # AM/PM is only recognised after the minutes
        am_pm = True
        add_hours = 12 if "PM" in minutes else 0
        cut = minutes.rfind(" ")
        if cut < 1:
            cut = minutes.rfind("AM")
            if cut < 1:
                cut = minutes.rfind("PM")
        if cut < 0:
            return None
        minutes = minutes[:cut]
    hour, minute = _clean_number(hms[0]), _clean_number(minutes)
    second = _clean_number(hms[2]) if len(hms) > 2 else 0
    if hour is None or minute is None or second is None:
        return None
    if am_pm and hour == 12:
        hour = 0
    return hour + add_hours, minute, second


_XSD_TZ = r"(?P<tz>Z|[+-](?:(?:0[0-9]|1[0-3]):[0-5][0-9]|14:00))?"
_XSD_YEAR = r"(?P<year>-?(?:[1-9][0-9]{4,}|[0-9]{4}))"
_XSD_TIME = r"(?P<hour>[0-9]{2}):(?P<minute>[0-9]{2}):(?P<second>[0-9]{2})(?:\.(?P<frac>[0-9]+))?"
_XSD_FORMS = tuple(
    re.compile(form + _XSD_TZ, re.ASCII)
    for form in (
        rf"{_XSD_YEAR}-(?P<month>[0-9]{{2}})-(?P<day>[0-9]{{2}})T{_XSD_TIME}",  # dateTime
        _XSD_TIME,  # time
        rf"{_XSD_YEAR}-(?P<month>[0-9]{{2}})-(?P<day>[0-9]{{2}})",  # date
        rf"{_XSD_YEAR}-(?P<month>[0-9]{{2}})",  # gYearMonth
        _XSD_YEAR,  # gYear
        r"--(?P<month>[0-9]{2})-(?P<day>[0-9]{2})",  # gMonthDay
        r"--(?P<month>[0-9]{2})(?:--)?",  # gMonth
        r"---(?P<day>[0-9]{2})",  # gDay
    )
)


def _xsd_date_time(text: str, zone: ZoneInfo) -> dt.datetime | None:
    """An XML-Schema date/time lexical value as ``XMLGregorianCalendar`` read it, or None.

    Unset fields take ``GregorianCalendar``'s cleared values (1970-01-01
    00:00:00); without an offset the value is read in ``zone``.
    """
    match = next((m for form in _XSD_FORMS if (m := form.fullmatch(text))), None)
    if match is None:
        return None
    parts = match.groupdict()
    year = int(parts.get("year") or 1970)
    month = int(parts.get("month") or 1)
    day = int(parts.get("day") or 1)
    hour, minute, second = (int(parts.get(k) or 0) for k in ("hour", "minute", "second"))
    frac = parts.get("frac") or ""
    days_in_month = calendar.monthrange(year if parts.get("year") else 2000, month)[1]
    if not (1 <= year <= 9999 and 1 <= month <= 12 and 1 <= day <= days_in_month):
        return None
    if minute > 59 or second > 59 or hour > 24:
        return None
    if hour == 24 and (minute or second or frac.strip("0")):
        return None
    millis = int((frac + "000")[:3])
    try:  # the calendar is lenient: 24:00:00 is midnight of the next day, --02-29 is 1 March
        naive = dt.datetime(year, month, 1) + dt.timedelta(
            days=day - 1, hours=hour, minutes=minute, seconds=second, milliseconds=millis
        )
    except OverflowError:
        return None
    offset = parts.get("tz")
    try:  # near year 1 or 9999 the moment may not exist in ``zone``
        if not offset:
            return _localize(naive, zone)
        if offset == "Z":
            tzinfo = dt.UTC
        else:
            sign = -1 if offset[0] == "-" else 1
            delta = dt.timedelta(hours=int(offset[1:3]), minutes=int(offset[4:6]))
            tzinfo = dt.timezone(sign * delta)
        return naive.replace(tzinfo=tzinfo).astimezone(zone)
    except (OverflowError, ValueError, OSError):
        return None


def _localize(naive: dt.datetime, zone: ZoneInfo) -> dt.datetime:
    """Read a wall-clock time in ``zone`` (a time in a DST gap moves forward, as Java's did)."""
    return dt.datetime.fromtimestamp(naive.replace(tzinfo=zone).timestamp(), zone)


def _at_time_of_day(
    day: dt.date, hms: tuple[int, int, int] | None, now: dt.datetime
) -> dt.datetime:
    if hms is None:  # OTP: no usable time -> the current wall-clock time of day
        clock = dt.timedelta(hours=now.hour, minutes=now.minute, seconds=now.second)
        clock += dt.timedelta(microseconds=now.microsecond // 1000 * 1000)
    else:  # Java's lenient calendar: 25:00 is 01:00 the next day
        clock = dt.timedelta(hours=hms[0], minutes=hms[1], seconds=hms[2])
    return dt.datetime.combine(day, dt.time()) + clock


def _zone(tz: str) -> ZoneInfo:
    try:
        return ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        msg = f"unknown time zone {tz!r}"
        raise InvalidArgumentError(msg) from None


def parse_date_time(
    date: str | None,
    time: str | None,
    tz: str,
    *,
    now: dt.datetime,
    invalid_date_strategy: str | None = None,
) -> dt.datetime:
    """Read OTP 1.x's ``date`` and ``time`` parameters into one moment.

    The rules are OTP 1.x's (``RoutingResource`` and ``DateUtils``):

    * neither given: ``now``;
    * ``time`` without ``date``: an XML-Schema lexical value
      (``2019-05-01T13:02:00``, ``2019-05-01T13:02:00-07:00``, ``2019-05-01``,
      even ``13:02:00``, which means 1970-01-01); without an offset it is
      read in ``tz``.  Anything else (``1:02pm``) is invalid;
    * ``date`` given: ``_ - : /`` become ``.``, then ``YYYYMMDD``, or
      ``M.d.yy``, ``yy.M.d``, ``h.mm a`` for short dates without ``20dd``,
      else the first of ``yyyy.MM.dd.HH.mm.ss``, ``yyyy.MM.dd.HH.mm``,
      ``yyyy.MM.dd.HH.mm.ss.SS``, ``M.d.yy h.mm a``, ``M.d.yyyy h.mm a``,
      ``M.d.yyyy h.mma``, ``M.d.yyyy h.mm``, ``M.d.yyyy k.mm``, ``M.d.yyyy``,
      ``yyyy.M.d``, ``h.mm a`` that reads a year >= 1000 (so ``MM-DD-YYYY``,
      ``MM/DD/YYYY``, ``YYYY-MM-DD``, ``M/d/yy`` all work);
    * the time of day then comes from ``time`` split on ``:`` (``H:mm``,
      ``HH:mm:ss``, ``h:mma``, ``h:mm am``, ``hh:mmpm``; ``12:xxam`` is
      00:xx; values overflow into the next day as in Java's lenient
      calendar), or, when ``time`` is missing or unreadable, from ``now``.

    Parameters
    ----------
    date, time
        The raw parameters (None when absent).
    tz
        The network's time zone (IANA name).
    now
        The current time (injected, so results are reproducible).
    invalid_date_strategy
        ``"USE_CURRENT"`` (any case): an unreadable ``date`` means today.

    Returns
    -------
    datetime.datetime
        An aware datetime in ``tz``.

    Raises
    ------
    InvalidRequestError
        ``code="BOGUS_PARAMETER"``, naming ``date`` (unreadable date) or
        ``time`` (``time`` alone that is not an XML-Schema value).
    ValueError
        If ``tz`` is not a known time zone.

    Examples
    --------
    >>> import datetime as dt
    >>> now = dt.datetime(2026, 3, 4, 8, 30, tzinfo=dt.UTC)
    >>> parse_date_time("05-01-2019", "1:02pm", "America/Los_Angeles", now=now).isoformat()
    '2019-05-01T13:02:00-07:00'
    >>> parse_date_time("20190501", "13:02:03", "UTC", now=now).isoformat()
    '2019-05-01T13:02:03+00:00'
    >>> parse_date_time(None, "2019-05-01T13:02:00Z", "Europe/Amsterdam", now=now).isoformat()
    '2019-05-01T15:02:00+02:00'
    >>> parse_date_time("2019-05-01", None, "UTC", now=now).isoformat()
    '2019-05-01T08:30:00+00:00'
    """
    zone = _zone(tz)
    local_now = now.astimezone(zone) if now.tzinfo is not None else now.replace(tzinfo=zone)
    if date is None and time is None:
        return local_now
    if date is None:
        assert time is not None
        parsed = _xsd_date_time(time, zone)
        if parsed is None:
            msg = (
                f"time {time!r} without a date must be an ISO 8601 (XML Schema) date-time "
                "such as 2019-05-01T13:02:00 or 2019-05-01T13:02:00-07:00"
            )
            raise InvalidRequestError(msg, parameter="time", code=BOGUS)
        return _in_years(parsed, "time")
    day = _otp_parse_date(date, local_now)
    if day is None:
        if (invalid_date_strategy or "").upper() != "USE_CURRENT":
            msg = f"date {date!r} is not a date OTP understands (e.g. 2019-05-01, 05-01-2019)"
            raise InvalidRequestError(msg, parameter="date", code=BOGUS)
        day = local_now.date()
    if not MIN_YEAR <= day.year <= MAX_YEAR:
        msg = f"date: {day} is outside the years {MIN_YEAR} to {MAX_YEAR}"
        raise InvalidRequestError(msg, parameter="date", code=BOGUS)
    hms = _otp_parse_time(time) if time is not None else None
    try:
        moment = _localize(_at_time_of_day(day, hms, local_now), zone)
    except (OverflowError, ValueError, OSError):
        msg = f"date {date!r} and time {time!r} give a moment out of range"
        raise InvalidRequestError(msg, parameter="time", code=BOGUS) from None
    return _in_years(moment, "date")


def _in_years(moment: dt.datetime, parameter: str) -> dt.datetime:
    if not MIN_YEAR <= moment.year <= MAX_YEAR:
        msg = f"{parameter}: {moment.date()} is outside the years {MIN_YEAR} to {MAX_YEAR}"
        raise InvalidRequestError(msg, parameter=parameter, code=BOGUS)
    return moment


# -- modes --------------------------------------------------------------------------------------


def _qualified_modes(text: str) -> list[tuple[str, tuple[str, ...]]]:
    items: list[tuple[str, tuple[str, ...]]] = []
    for item in _java_split(text, ","):
        tokens = [_java_trim(t) for t in _java_split(item, "_")]
        width = 2 if len(tokens) > 1 and f"{tokens[0]}_{tokens[1]}" in TRAVERSE_MODES else 1
        mode = "_".join(tokens[:width])
        qualifiers = tuple(tokens[width:])
        if mode not in TRAVERSE_MODES:
            msg = f"mode: unknown mode {mode!r} in {text!r}; use {', '.join(TRAVERSE_MODES)}"
            raise InvalidRequestError(msg, parameter="mode")
        bad = [q for q in qualifiers if q not in QUALIFIERS]
        if bad:
            msg = f"mode: unknown qualifier {bad[0]!r} in {item!r}; use {', '.join(QUALIFIERS)}"
            raise InvalidRequestError(msg, parameter="mode")
        items.append((mode, qualifiers))
    return items


def parse_modes(text: str) -> RequestModes:
    """Read OTP 1.x's ``mode`` parameter (a ``QualifiedModeSet``).

    A comma list of modes, each optionally qualified (``BICYCLE_RENT``,
    ``CAR_PARK``, ``CAR_HAIL``, ``CAR_RENT``, ``MICROMOBILITY_RENT``;
    ``_HAVE``/``_KEEP`` are accepted and change nothing).  ``TRANSIT`` means
    every transit mode.  No mode implies walking, except as OTP 1.x added it:
    renting a bicycle or micromobility vehicle, and driving with transit
    (kiss-and-ride, park-and-ride, ride hailing, car rental).  Unlike OTP 1.x,
    ``CABLE_CAR`` is understood (OTP split it into ``CABLE`` + qualifier
    ``CAR`` and failed).  ``LEG_SWITCH`` is accepted and ignored.

    Parameters
    ----------
    text
        The parameter value, e.g. ``"TRANSIT,WALK"``.

    Returns
    -------
    RequestModes
        Street modes, transit modes and the qualified modes, one
        ``MODE_QUALIFIER`` string per qualifier (``"BICYCLE_RENT"``).

    Raises
    ------
    InvalidRequestError
        Unknown mode or qualifier (names are case-sensitive, as in OTP).

    Examples
    --------
    >>> m = parse_modes("BUS,WALK")
    >>> sorted(m.street), sorted(m.transit_modes)
    (['WALK'], ['BUS'])
    >>> m = parse_modes("BICYCLE_RENT")
    >>> sorted(m.street), m.transit, sorted(m.qualifiers)
    (['BICYCLE', 'WALK'], False, ['BICYCLE_RENT'])
    """
    items = _qualified_modes(text)
    base = {mode for mode, _ in items}
    street = set(base & STREET_MODES)
    transit = set(TRANSIT_MODES) if "TRANSIT" in base else base & set(TRANSIT_MODES)
    for mode, qualifiers in items:
        renting = "RENT" in qualifiers and mode in ("BICYCLE", "MICROMOBILITY")
        if renting or (mode == "CAR" and transit):
            street.add("WALK")
    qualified = {f"{mode}_{q}" for mode, qualifiers in items for q in qualifiers}
    return RequestModes(
        street=frozenset(street),
        transit_modes=frozenset(transit),
        qualifiers=frozenset(qualified),
    )


def rental_preferences(modes: RequestModes, companies: Sequence[str] = ()) -> RentalPreferences:
    """What OTP 1.x's qualified modes switch on: rentals, park-and-ride, ride hailing.

    As OTP 1.x: ``BICYCLE_RENT`` allows bike rental; ``MICROMOBILITY_RENT``
    vehicle rental; with transit only, ``BICYCLE_PARK`` is bike-and-ride,
    ``CAR_PARK`` park-and-ride, ``CAR_HAIL`` ride hailing, ``CAR_RENT`` car
    rental and a plain ``CAR`` kiss-and-ride.  ``companies`` is kept only for
    ride hailing (default ``NOAPI``), car rental, micromobility rental and bike
    rental (the rental networks a rider may use).

    Parameters
    ----------
    modes
        Parsed modes (:func:`parse_modes`).
    companies
        OTP's ``companies`` parameter, split on commas.

    Returns
    -------
    RentalPreferences

    Examples
    --------
    >>> r = rental_preferences(parse_modes("CAR_PARK,TRANSIT"))
    >>> r.park_and_ride, r.kiss_and_ride
    (True, False)
    >>> rental_preferences(parse_modes("CAR_HAIL,TRANSIT")).companies
    ('NOAPI',)
    """
    q = modes.qualifiers
    transit = modes.transit
    car = "CAR" in modes.street
    car_special = bool({"CAR_PARK", "CAR_HAIL", "CAR_RENT"} & q)
    ride_hail = transit and "CAR_HAIL" in q
    car_rental = transit and "CAR_RENT" in q
    vehicle_rental = "MICROMOBILITY_RENT" in q
    kept: tuple[str, ...] = ()
    if ride_hail or car_rental or vehicle_rental or "CAR_HAIL" in q or "BICYCLE_RENT" in q:
        kept = tuple(companies) or (("NOAPI",) if "CAR_HAIL" in q else ())
    return RentalPreferences(
        bike_rental="BICYCLE_RENT" in q,
        car_rental=car_rental,
        vehicle_rental=vehicle_rental,
        bike_park=transit and "BICYCLE_PARK" in q,
        park_and_ride=transit and "CAR_PARK" in q,
        kiss_and_ride=transit and car and not car_special,
        ride_hail=ride_hail,
        companies=kept,
    )


# -- id lists -----------------------------------------------------------------------------------


def _unique(values: Iterable[RouteSpec]) -> tuple[RouteSpec, ...]:
    return tuple(dict.fromkeys(values))


def _split_route_spec(element: str, feed_ids: Collection[str]) -> list[str]:
    """Split one route spec into ``[agency, name]`` or ``[agency, name, route id]``.

    Feed ids may contain underscores (ids derived from file names such as
    ``poa_eptc``): a spec starting with a known feed id and an underscore is
    split after the feed id (the longest such id), and ``agency__routeId``
    splits at its first unescaped double underscore.  Otherwise the spec is
    split on unescaped underscores into at most three parts, as OTP 1.x did.
    """
    for feed in sorted(feed_ids, key=len, reverse=True):
        if "_" in feed and element.startswith(feed + "_"):
            return [feed, *re.split(r"(?<!\\)_", element[len(feed) + 1 :], maxsplit=1)]
    double = re.search(r"(?<!\\)__", element)
    if double is not None and double.start() > 0:
        return [element[: double.start()], "", element[double.end() :]]
    return re.split(r"(?<!\\)_", element, maxsplit=2)


def parse_route_specs(
    text: str, parameter: str = "bannedRoutes", *, feed_ids: Collection[str] = ()
) -> tuple[RouteSpec, ...]:
    """Read an OTP 1.x route-spec list (``bannedRoutes``, ``preferredRoutes``...).

    Comma-separated specs ``agency_routeName``, ``agency__routeId`` (two
    underscores) or ``_routeName``, split on unescaped underscores into at
    most three parts.  ``\\_`` escapes an underscore: it stays an underscore
    in agency and route ids and becomes a space in route names.  Empty
    entries are skipped.  The agency part may be a feed id containing
    underscores: ``poa_eptc__281`` is route id ``281`` of feed ``poa_eptc``,
    and with the network's ``feed_ids`` given, ``poa_eptc_T1`` is route name
    ``T1`` of that feed.

    Parameters
    ----------
    text
        The parameter value.
    parameter
        The query parameter (named in errors).
    feed_ids
        Feed ids of the network, matched before the underscores are split.

    Returns
    -------
    tuple of RouteSpec
        In the order given, duplicates removed.

    Raises
    ------
    InvalidRequestError
        ``code="BOGUS_PARAMETER"`` for a spec of any other shape.

    Examples
    --------
    >>> for spec in parse_route_specs("TriMet_100,TriMet__42,_MAX Red"):
    ...     print(spec)
    RouteSpec(agency='TriMet', route_id=None, name='100')
    RouteSpec(agency='TriMet', route_id='42', name=None)
    RouteSpec(agency=None, route_id=None, name='MAX Red')
    >>> parse_route_specs(r"my\\_agency_Blue\\_Line")
    (RouteSpec(agency='my_agency', route_id=None, name='Blue Line'),)
    """
    specs: list[RouteSpec] = []
    for element in _java_split(text, ","):
        if not element:
            continue
        parts = _split_route_spec(element, feed_ids)
        if len(parts) not in (2, 3):
            msg = f"{parameter}: wrong route spec format: {element!r}"
            raise InvalidRequestError(msg, parameter=parameter, code=BOGUS)
        agency = parts[0].replace("\\_", "_") or None
        name = parts[1].replace("\\_", " ") or None
        route_id = parts[2].replace("\\_", "_") or None if len(parts) == 3 else None
        if agency and route_id and not name:
            specs.append(RouteSpec(agency=agency, route_id=route_id))
        elif agency and name and not route_id:
            specs.append(RouteSpec(agency=agency, name=name))
        elif name and not agency and not route_id:
            specs.append(RouteSpec(name=name))
        else:
            msg = f"{parameter}: wrong route spec format: {element!r}"
            raise InvalidRequestError(msg, parameter=parameter, code=BOGUS)
    return _unique(specs)


def parse_agency_ids(text: str) -> frozenset[str]:
    """Read a comma list of agency ids (``bannedAgencies``...); empty entries are dropped.

    Examples
    --------
    >>> sorted(parse_agency_ids("TriMet,,C-TRAN"))
    ['C-TRAN', 'TriMet']
    """
    return frozenset(part for part in text.split(",") if part)


def parse_stop_ids(text: str, parameter: str = "bannedStops") -> frozenset[str]:
    """Read a comma list of feed-scoped stop ids ``feedId:stopId`` (``bannedStops``...).

    Raises
    ------
    InvalidRequestError
        ``code="BOGUS_PARAMETER"`` for an entry without a colon.

    Examples
    --------
    >>> sorted(parse_stop_ids("TriMet:2107,TriMet:2108"))
    ['TriMet:2107', 'TriMet:2108']
    """
    stops: set[str] = set()
    for entry in _java_split(text, ","):
        if not entry:
            continue
        if ":" not in entry:
            msg = f"{parameter}: wrong stop spec format: {entry!r} (use feedId:stopId)"
            raise InvalidRequestError(msg, parameter=parameter, code=BOGUS)
        stops.add(entry)
    return frozenset(stops)


def parse_banned_trips(text: str) -> dict[str, tuple[int, ...]]:
    """Read OTP 1.x's ``bannedTrips``: ``feed:trip`` or ``feed:trip:i:j...``, comma-separated.

    A trip alone is banned entirely (empty tuple); trailing integers are the
    pattern stop indexes (0-based) where boarding and alighting are banned.
    Entries with fewer than two colon-separated parts are skipped, as OTP did.

    Raises
    ------
    InvalidRequestError
        When a stop index is not a non-negative integer (no code: OTP 1.x
        failed with a server error here).

    Examples
    --------
    >>> parse_banned_trips("TriMet:24601,TriMet:24602:0:1:17")
    {'TriMet:24601': (), 'TriMet:24602': (0, 1, 17)}
    """
    banned: dict[str, tuple[int, ...]] = {}
    for entry in _java_split(text, ","):
        parts = _java_split(entry, ":")
        if len(parts) < 2:
            continue
        indexes = [_java_int(p) for p in parts[2:]]
        if any(i is None or i < 0 for i in indexes):
            msg = f"bannedTrips: stop indexes of {entry!r} must be integers >= 0"
            raise InvalidRequestError(msg, parameter="bannedTrips")
        banned[f"{parts[0]}:{parts[1]}"] = tuple(i for i in indexes if i is not None)
    return banned


def parse_feed_scoped_id(text: str, parameter: str = "startTransitStopId") -> str:
    """Read OTP 1.x's ``feed_id`` form (``startTransitStopId``...) into ``feed:id``.

    The colon form ``feed:id`` is accepted as well (a value with a colon is
    read in that form; otherwise the first underscore separates the feed).

    Raises
    ------
    InvalidRequestError
        ``code="BOGUS_PARAMETER"`` when there is no separator.

    Examples
    --------
    >>> parse_feed_scoped_id("TriMet_8371"), parse_feed_scoped_id("TriMet:8_371")
    ('TriMet:8371', 'TriMet:8_371')
    """
    separator = ":" if ":" in text else "_"
    feed, found, entity = text.partition(separator)
    if not found:
        msg = f"{parameter}: {text!r} is not a feed-scoped id (use feedId_id or feedId:id)"
        raise InvalidRequestError(msg, parameter=parameter, code=BOGUS)
    return f"{feed}:{entity}"
