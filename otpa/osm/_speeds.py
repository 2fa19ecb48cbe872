"""Car speeds: OSM ``maxspeed`` tags, else OTP 1.x's default speed per highway class.

OTP 1.x ``DefaultWayPropertySetSource`` speeds (m/s; "based on personal experience,
primarily in California")::

    motorway 29      motorway_link 15     trunk 24.6       trunk_link 15
    primary 20       primary_link 11.2    secondary 15     secondary_link 11.2
    tertiary 11.2    tertiary_link 11.2   residential 11.2 unclassified 11.2
    road 11.2        service 6.7          track 4.5        living_street 2.2
    pedestrian 2.2   anything else 11.2 (OTP's ``defaultSpeed``)

``maxspeed`` parsing (OTP's ``getMetersSecondFromSpeed`` plus the common OSM forms):

* ``"50"`` km/h; units ``km/h``, ``kmh``, ``kph``, ``kmph``, ``mph``, ``knots``;
* lists ``"50;30"`` and lane lists ``"50|30"``: the first value (``maxspeed:lanes``: the
  largest, as OTP);
* ``walk`` -> 7 km/h; ``none``, ``signals``, ``variable``... -> no value (class default);
* implicit country zones ``CC:urban`` 50, ``CC:rural`` (by country, 90 if unknown),
  ``CC:living_street``/``CC:pedestrian`` 7, ``CC:zone30``/``CC:zone:30`` 30,
  ``CC:bicycle_road`` 30, ``CC:motorway``/``CC:trunk`` (by country; none for DE).

Precedence as OTP: ``maxspeed:motorcar``, ``maxspeed:forward`` (backward direction:
``maxspeed:backward``), ``maxspeed:lanes``, ``maxspeed``.  A zero or unparsable speed
falls back to the class default.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["DEFAULT_SPEED_MPS", "HIGHWAY_SPEEDS_MPS", "car_speed_mps", "parse_maxspeed_mps"]

#: OTP 1.x default car speeds per highway class (m/s).
HIGHWAY_SPEEDS_MPS: dict[str, float] = {
    "motorway": 29.0,
    "motorway_link": 15.0,
    "trunk": 24.6,
    "trunk_link": 15.0,
    "primary": 20.0,
    "primary_link": 11.2,
    "secondary": 15.0,
    "secondary_link": 11.2,
    "tertiary": 11.2,
    "tertiary_link": 11.2,
    "living_street": 2.2,
    "pedestrian": 2.2,
    "residential": 11.2,
    "unclassified": 11.2,
    "service": 6.7,
    "track": 4.5,
    "road": 11.2,
}

#: OTP 1.x ``defaultSpeed`` (m/s, ~25 mph).
DEFAULT_SPEED_MPS = 11.2

_KMH = 1.0 / 3.6
_UNITS = {
    "": _KMH,
    "kmh": _KMH,
    "km/h": _KMH,
    "kmph": _KMH,
    "kph": _KMH,
    "mph": 0.44704,
    "knots": 0.514444,
    "kn": 0.514444,
}
_SPEED_RE = re.compile(r"^\s*([0-9]+(?:[.,][0-9]+)?)\s*(km/h|kmh|kmph|kph|mph|knots|kn)?\s*$")
_ZONE_RE = re.compile(r"^zone:?(\d+)$")

# Rural and motorway limits (km/h) of implicit ``CC:rural`` / ``CC:motorway`` values.
_RURAL_KMH = {
    "DE": 100.0,
    "AT": 100.0,
    "CH": 80.0,
    "FR": 80.0,
    "BE": 70.0,
    "NL": 80.0,
    "LU": 90.0,
    "IT": 90.0,
    "ES": 90.0,
    "PT": 90.0,
    "PL": 90.0,
    "CZ": 90.0,
    "DK": 80.0,
    "SE": 70.0,
    "NO": 80.0,
    "FI": 80.0,
    "GB": 96.56,
    "UK": 96.56,
    "IE": 80.0,
    "BR": 60.0,
}
_MOTORWAY_KMH = {
    "AT": 130.0,
    "CH": 120.0,
    "FR": 130.0,
    "BE": 120.0,
    "NL": 100.0,
    "LU": 130.0,
    "IT": 130.0,
    "ES": 120.0,
    "PT": 120.0,
    "PL": 140.0,
    "CZ": 130.0,
    "DK": 130.0,
    "SE": 110.0,
    "NO": 90.0,
    "FI": 120.0,
    "GB": 112.65,
    "UK": 112.65,
    "IE": 120.0,
    "BR": 110.0,
}
_GB_NSL = {"nsl_single": 96.56, "nsl_dual": 112.65, "nsl_restricted": 48.28}


def _zone_kmh(country: str, zone: str) -> float | None:
    zone = zone.lower()
    if zone == "urban":
        return 50.0
    if zone == "rural":
        return _RURAL_KMH.get(country, 90.0)
    if zone in ("living_street", "pedestrian", "walk"):
        return 7.0
    if zone in ("bicycle_road", "cyclestreet"):
        return 30.0
    if zone in ("motorway", "trunk"):
        return _MOTORWAY_KMH.get(country)
    if zone in _GB_NSL:
        return _GB_NSL[zone]
    match = _ZONE_RE.match(zone)
    if match:
        return float(match.group(1))
    return None


def parse_maxspeed_mps(value: str | None) -> float | None:
    """Parse one ``maxspeed`` value into m/s, or ``None`` when it gives no number.

    Examples
    --------
    >>> round(parse_maxspeed_mps("50"), 3), round(parse_maxspeed_mps("30 mph"), 3)
    (13.889, 13.411)
    >>> round(parse_maxspeed_mps("DE:urban") * 3.6), parse_maxspeed_mps("none")
    (50, None)
    >>> round(parse_maxspeed_mps("50;30") * 3.6), round(parse_maxspeed_mps("walk") * 3.6)
    (50, 7)
    """
    if value is None:
        return None
    first = re.split(r"[;|]", value, maxsplit=1)[0].strip()
    if not first:
        return None
    match = _SPEED_RE.match(first.lower())
    if match:
        number = float(match.group(1).replace(",", "."))
        return number * _UNITS[match.group(2) or ""]
    if first.lower() == "walk":
        return 7.0 * _KMH
    country, sep, zone = first.partition(":")
    if sep and len(country) == 2 and country.isalpha():
        kmh = _zone_kmh(country.upper(), zone)
        return None if kmh is None else kmh * _KMH
    return None


def _lanes_max(value: str | None) -> float | None:
    if value is None:
        return None
    speeds = [s for s in (parse_maxspeed_mps(v) for v in value.split("|")) if s is not None]
    return max(speeds) if speeds else None


def car_speed_mps(tags: Mapping[str, str], highway: str, *, backward: bool = False) -> float:
    """Car speed (m/s) of a way in one direction (OTP ``getCarSpeedForWay``).

    Examples
    --------
    >>> car_speed_mps({}, "motorway"), car_speed_mps({"maxspeed": "0"}, "service")
    (29.0, 6.7)
    """
    speed = parse_maxspeed_mps(tags.get("maxspeed:motorcar"))
    if speed is None:
        key = "maxspeed:backward" if backward else "maxspeed:forward"
        speed = parse_maxspeed_mps(tags.get(key))
    if speed is None:
        speed = _lanes_max(tags.get("maxspeed:lanes"))
    if speed is None:
        speed = parse_maxspeed_mps(tags.get("maxspeed"))
    if speed is not None and speed > 1e-4:
        return speed
    return HIGHWAY_SPEEDS_MPS.get(highway, DEFAULT_SPEED_MPS)
