"""GTFS-Flex v2: zones, location groups, flex stop times and booking rules, validated.

:func:`read_flex` turns the flex parts of a feed (``locations.geojson``,
``location_groups.txt`` / ``location_group_stops.txt``, the flex rows of
``stop_times.txt``, ``booking_rules.txt``) into a :class:`FlexData` of plain
values, reporting what is questionable in the feed's validation report.  A bad
part never stops the rest of the feed: an unreadable ``locations.geojson``
leaves the feed without zones, a zone that is not a polygon is left out, a row
that names an unknown location or has no usable time is dropped (its trip too
when fewer than two rows remain, unless the one left is a zone: rides within it).

Older drafts of the specification are read too: ``min_arrival_time`` /
``max_departure_time`` and ``start_pickup_dropoff_window`` are the window
(aliases of the reader), ``location_groups.txt`` with a ``location_id`` column
lists the members, prior notice given as ``HH:MM:SS``, duration offsets in
minutes or ``HH:MM:SS``.

Times are seconds after the service day's midnight (noon minus 12 h), as in the
rest of :mod:`otpa.gtfs`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import pandas as pd

from otpa.errors import GtfsError
from otpa.gtfs.report import Severity, ValidationReport

__all__ = ["BookingRule", "FlexData", "FlexStopTime", "parse_duration_s", "read_flex"]

#: At most this many issues of one kind are listed one by one; the rest are counted.
_MAX_LISTED = 20


@dataclass(frozen=True)
class BookingRule:
    """One row of ``booking_rules.txt``.

    ``booking_type``: 0 real time, 1 up to ``prior_notice_min`` minutes before the
    pickup on the same day, 2 up to ``prior_notice_last_time`` on the day
    ``prior_notice_last_day`` days before the service day.
    """

    rule_id: str
    booking_type: int = 0
    prior_notice_min: float = 0.0
    prior_notice_max: float | None = None
    prior_notice_last_day: int | None = None
    prior_notice_last_time_s: int | None = None
    prior_notice_start_day: int | None = None
    prior_notice_start_time_s: int | None = None
    message: str | None = None
    pickup_message: str | None = None
    drop_off_message: str | None = None
    phone_number: str | None = None
    info_url: str | None = None
    booking_url: str | None = None


@dataclass(frozen=True)
class FlexStopTime:
    """One row of a flex trip.

    Exactly one of ``stop_id`` (a stop of ``stops.txt``), ``location_id`` (a zone of
    ``locations.geojson``) and ``group_id`` (a location group) is set.  ``start_s`` /
    ``end_s`` are the pickup/drop-off window, or the scheduled arrival / departure of
    a timed row.  Duration offsets are seconds.  ``continuous_pickup`` /
    ``continuous_drop_off`` are None where the row leaves them empty (the route's
    values of ``routes.txt`` apply, GTFS's rule).
    """

    stop_sequence: int
    start_s: int
    end_s: int
    stop_id: str | None = None
    location_id: str | None = None
    group_id: str | None = None
    timed: bool = False
    pickup_type: int = 0
    drop_off_type: int = 0
    continuous_pickup: int | None = None
    continuous_drop_off: int | None = None
    pickup_booking_rule_id: str | None = None
    drop_off_booking_rule_id: str | None = None
    mean_duration_factor: float = 1.0
    mean_duration_offset_s: float = 0.0
    safe_duration_factor: float = 1.0
    safe_duration_offset_s: float = 0.0
    stop_headsign: str | None = None


@dataclass(frozen=True)
class FlexData:
    """The flex parts of one feed (raw ids, not feed-scoped).

    Attributes
    ----------
    zones
        Polygon zones by location id: ``{"name": str | None, "polygons": [[ring, ...], ...]}``
        with rings as ``[[lon, lat], ...]`` (GeoJSON order).
    groups
        Location group id -> member ids (stops or zones).
    group_names
        Location group id -> name.
    booking_rules
        By ``booking_rule_id``.
    trips
        Flex trip id -> its usable rows in ``stop_sequence`` order (at least two, or one
        zone or group row: rides inside that area).
    safe_durations
        Flex trip id -> ``(safe_duration_factor, safe_duration_offset)`` (seconds) of
        ``trips.txt``, for the trips that give either.
    """

    zones: dict[str, dict[str, Any]] = field(default_factory=dict)
    groups: dict[str, tuple[str, ...]] = field(default_factory=dict)
    group_names: dict[str, str | None] = field(default_factory=dict)
    booking_rules: dict[str, BookingRule] = field(default_factory=dict)
    trips: dict[str, tuple[FlexStopTime, ...]] = field(default_factory=dict)
    safe_durations: dict[str, tuple[float, float]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """A JSON-able dict (:meth:`from_json` reads it back)."""
        return {
            "zones": self.zones,
            "groups": {k: list(v) for k, v in self.groups.items()},
            "group_names": self.group_names,
            "booking_rules": {k: asdict(v) for k, v in self.booking_rules.items()},
            "trips": {k: [asdict(r) for r in v] for k, v in self.trips.items()},
            "safe_durations": {k: list(v) for k, v in self.safe_durations.items()},
        }

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> FlexData:
        """The data of :meth:`to_json`."""
        return cls(
            zones=dict(doc.get("zones") or {}),
            groups={k: tuple(v) for k, v in (doc.get("groups") or {}).items()},
            group_names=dict(doc.get("group_names") or {}),
            booking_rules={
                k: BookingRule(**v) for k, v in (doc.get("booking_rules") or {}).items()
            },
            trips={
                k: tuple(FlexStopTime(**r) for r in v) for k, v in (doc.get("trips") or {}).items()
            },
            safe_durations={
                k: (float(v[0]), float(v[1])) for k, v in (doc.get("safe_durations") or {}).items()
            },
        )


def parse_duration_s(value: Any, *, minutes: bool = True) -> float | None:
    """Seconds of a duration written as a number (minutes, or seconds) or ``[H]H:MM[:SS]``.

    Examples
    --------
    >>> parse_duration_s("120"), parse_duration_s("24:00:00"), parse_duration_s("00:10:00")
    (7200.0, 86400.0, 600.0)
    >>> parse_duration_s(""), parse_duration_s("soon")
    (None, None)
    """
    text = _text(value)
    if text is None:
        return None
    if ":" in text:
        parts = text.split(":")
        try:
            nums = [int(p) for p in parts]
        except ValueError:
            return None
        if len(nums) not in (2, 3) or any(n < 0 for n in nums):
            return None
        h, m, s = (*nums, 0) if len(nums) == 2 else nums
        return float(h * 3600 + m * 60 + s)
    try:
        number = float(text)
    except ValueError:
        return None
    if not math.isfinite(number) or number < 0:
        return None
    return number * 60.0 if minutes else number


def _text(value: Any) -> str | None:
    if value is None or value is pd.NA:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    s = str(value).strip()
    return s or None


def _int(value: Any) -> int | None:
    text = _text(value)
    if text is None:
        return None
    try:
        return int(float(text))
    except ValueError:
        return None


class _Issues:
    """Report issues of one kind, listing the first ones and counting the rest."""

    def __init__(self, report: ValidationReport) -> None:
        self.report = report
        self.counts: dict[tuple[str, str], int] = {}

    def add(self, severity: Severity, file: str, message: str, kind: str) -> None:
        key = (file, kind)
        n = self.counts[key] = self.counts.get(key, 0) + 1
        if n <= _MAX_LISTED:
            self.report.add(severity, file, message)

    def close(self) -> None:
        for (file, kind), n in self.counts.items():
            if n > _MAX_LISTED:
                msg = f"{n - _MAX_LISTED} more issue(s) of this kind: {kind}"
                self.report.add("warning", file, msg)


# -- zones -----------------------------------------------------------------------------


def _ring(positions: Any) -> list[list[float]]:
    ring = [[float(p[0]), float(p[1])] for p in positions]
    ok = all(math.isfinite(v) for p in ring for v in p)
    if len(ring) < 4 or not ok or not all(-180 <= x <= 180 and -90 <= y <= 90 for x, y in ring):
        msg = "a ring needs at least 4 finite longitude/latitude positions"
        raise GtfsError(msg)
    return ring


def _zones(doc: Any, issues: _Issues) -> dict[str, dict[str, Any]]:
    file = "locations.geojson"
    if doc is None:
        return {}
    features = doc.get("features") if isinstance(doc, Mapping) else None
    if not isinstance(doc, Mapping) or doc.get("type") != "FeatureCollection":
        issues.add("warning", file, f"{file} is not a GeoJSON FeatureCollection; ignored", "type")
        return {}
    if not isinstance(features, list):
        issues.add("warning", file, "'features' is not a list (no zones read)", "features")
        return {}
    zones: dict[str, dict[str, Any]] = {}
    for k, feature in enumerate(features):
        fid = feature.get("id") if isinstance(feature, Mapping) else None
        if fid is None:
            issues.add("warning", file, f"feature {k} has no id; skipped", "no id")
            continue
        geometry = feature.get("geometry")
        kind = geometry.get("type") if isinstance(geometry, Mapping) else None
        try:
            coords: Any = geometry.get("coordinates") if isinstance(geometry, Mapping) else None
            if kind == "Polygon":
                coords = [coords]
            elif kind != "MultiPolygon":
                msg = f"geometry is {kind or 'missing'}, not a Polygon or MultiPolygon"
                raise GtfsError(msg)
            polygons = [[_ring(r) for r in polygon] for polygon in coords]
            if not polygons or not all(polygons):
                msg = "a polygon without rings"
                raise GtfsError(msg)
        except (TypeError, ValueError, IndexError, KeyError) as exc:
            msg = f"zone {fid!s} is not a valid polygon ({exc}); skipped"
            issues.add("warning", file, msg, "invalid geometry")
            continue
        props = feature.get("properties")
        name = props.get("stop_name") if isinstance(props, Mapping) else None
        if str(fid) in zones:
            issues.add("warning", file, f"duplicate zone id {fid!s}; first kept", "dup")
            continue
        zones[str(fid)] = {"name": None if name is None else str(name), "polygons": polygons}
    return zones


# -- location groups -------------------------------------------------------------------


def _groups(
    groups: pd.DataFrame | None,
    group_stops: pd.DataFrame | None,
    known: set[str],
    issues: _Issues,
) -> tuple[dict[str, tuple[str, ...]], dict[str, str | None]]:
    members: dict[str, list[str]] = {}
    names: dict[str, str | None] = {}
    for frame, file in ((groups, "location_groups.txt"), (group_stops, "location_group_stops.txt")):
        if frame is None or "location_group_id" not in frame:
            continue
        member_col = next((c for c in ("location_id", "stop_id") if c in frame), None)
        for _, row in frame.iterrows():
            gid = _text(row["location_group_id"])
            if gid is None:
                continue
            members.setdefault(gid, [])
            if "location_group_name" in frame and gid not in names:
                names[gid] = _text(row["location_group_name"])
            member = _text(row[member_col]) if member_col else None
            if member is None:
                continue
            if member not in known:
                msg = f"group {gid} names unknown location or stop {member!r}; ignored"
                issues.add("warning", file, msg, "unknown member")
                continue
            members[gid].append(member)
    return {g: tuple(m) for g, m in members.items()}, {g: names.get(g) for g in members}


# -- booking rules ---------------------------------------------------------------------


def _booking_rules(frame: pd.DataFrame | None, issues: _Issues) -> dict[str, BookingRule]:
    file = "booking_rules.txt"
    rules: dict[str, BookingRule] = {}
    if frame is None:
        return rules
    frame = frame.rename(columns=lambda c: str(c).lstrip("\ufeff").strip())
    for _, row in frame.iterrows():
        rid = _text(row.get("booking_rule_id"))
        if rid is None:
            issues.add("warning", file, "a rule without booking_rule_id; skipped", "id")
            continue
        btype = _int(row.get("booking_type"))
        if btype not in (0, 1, 2):
            msg = f"rule {rid} has booking_type {row.get('booking_type')!r}; read as 0"
            issues.add("warning", file, msg, "type")
            btype = 0
        notice_s = parse_duration_s(row.get("prior_notice_duration_min"))
        notice_max_s = parse_duration_s(row.get("prior_notice_duration_max"))
        last_day = _int(row.get("prior_notice_last_day"))
        last_time = parse_duration_s(row.get("prior_notice_last_time"), minutes=False)
        if btype == 1 and notice_s is None:
            msg = f"rule {rid} (same-day booking) has no prior_notice_duration_min; 0 used"
            issues.add("warning", file, msg, "no notice")
        if btype == 2 and last_day is None and notice_s is None:
            msg = f"rule {rid} (prior-day booking) has no prior_notice_last_day; none used"
            issues.add("warning", file, msg, "no last day")
        rules[rid] = BookingRule(
            rule_id=rid,
            booking_type=btype,
            prior_notice_min=(notice_s or 0.0) / 60.0,
            prior_notice_max=None if notice_max_s is None else notice_max_s / 60.0,
            prior_notice_last_day=last_day,
            prior_notice_last_time_s=None if last_time is None else int(last_time),
            prior_notice_start_day=_int(row.get("prior_notice_start_day")),
            prior_notice_start_time_s=_maybe_int(
                parse_duration_s(row.get("prior_notice_start_time"), minutes=False)
            ),
            message=_text(row.get("message")),
            pickup_message=_text(row.get("pickup_message")),
            drop_off_message=_text(row.get("drop_off_message")),
            phone_number=_text(row.get("phone_number")),
            info_url=_text(row.get("info_url")),
            booking_url=_text(row.get("booking_url")),
        )
    return rules


def _maybe_int(value: float | None) -> int | None:
    return None if value is None else int(value)


# -- stop times ------------------------------------------------------------------------


def _factor(value: Any) -> float:
    text = _text(value)
    try:
        f = float(text) if text is not None else 1.0
    except ValueError:
        return 1.0
    return f if math.isfinite(f) and f > 0 else 1.0


def _row(
    row: Mapping[str, Any],
    trip: str,
    places: tuple[set[str], dict[str, Any], dict[str, tuple[str, ...]]],
    rules: Mapping[str, BookingRule],
    issues: _Issues,
) -> FlexStopTime | None:
    file = "stop_times.txt"
    stops, zones, groups = places
    seq = int(row["stop_sequence"])
    where = f"trip {trip} stop_sequence {seq}"
    ref: dict[str, str | None] = {"stop_id": None, "location_id": None, "group_id": None}
    for col in ("location_group_id", "location_id", "stop_id"):
        value = _text(row.get(col))
        if value is None:
            continue
        if value in groups:
            ref["group_id"] = value
        elif value in zones:
            ref["location_id"] = value
        elif value in stops and col == "stop_id":
            ref["stop_id"] = value
        else:
            msg = f"{where}: {col} {value!r} is no stop, zone or location group; row dropped"
            issues.add("error", file, msg, "unknown location")
            return None
        break
    else:
        issues.add("error", file, f"{where}: no stop or location; row dropped", "no location")
        return None
    ws, we = (
        _int(row.get("start_pickup_drop_off_window")),
        _int(row.get("end_pickup_drop_off_window")),
    )
    arr, dep = _int(row.get("arrival_time")), _int(row.get("departure_time"))
    timed = ws is None and we is None
    if not timed:
        if ws is None or we is None:
            msg = f"{where}: only one end of the pickup/drop-off window; row dropped"
            issues.add("error", file, msg, "half window")
            return None
        start, end = ws, we
    elif arr is not None:
        start, end = arr, dep if dep is not None else arr
    elif dep is not None:
        start = end = dep
    else:
        msg = f"{where}: neither times nor a pickup/drop-off window; row dropped"
        issues.add("warning", file, msg, "untimed")
        return None
    if start > end:
        msg = f"{where}: window starts after it ends ({start} s > {end} s); row dropped"
        issues.add("error", file, msg, "reversed window")
        return None
    continuous = (_int(row.get("continuous_pickup")), _int(row.get("continuous_drop_off")))
    if not timed and any(c in (0, 2, 3) for c in continuous):
        msg = (
            f"{where}: continuous pickup/drop-off with a pickup/drop-off window "
            "(GTFS-Flex forbids the combination); the continuous values are ignored"
        )
        issues.add("warning", file, msg, "continuous window")
        continuous = (None, None)
    pick_rule = _text(row.get("pickup_booking_rule_id"))
    drop_rule = _text(row.get("drop_off_booking_rule_id"))
    for rule in (pick_rule, drop_rule):
        if rule is not None and rule not in rules:
            msg = f"{where}: unknown booking rule {rule!r}; the row is used without it"
            issues.add("warning", file, msg, "unknown rule")
    return FlexStopTime(
        stop_sequence=seq,
        start_s=start,
        end_s=end,
        timed=timed,
        pickup_type=_int(row.get("pickup_type")) or 0,
        drop_off_type=_int(row.get("drop_off_type")) or 0,
        continuous_pickup=continuous[0],
        continuous_drop_off=continuous[1],
        pickup_booking_rule_id=pick_rule if pick_rule in rules else None,
        drop_off_booking_rule_id=drop_rule if drop_rule in rules else None,
        mean_duration_factor=_factor(row.get("mean_duration_factor")),
        mean_duration_offset_s=parse_duration_s(row.get("mean_duration_offset")) or 0.0,
        safe_duration_factor=_factor(row.get("safe_duration_factor")),
        safe_duration_offset_s=parse_duration_s(row.get("safe_duration_offset")) or 0.0,
        stop_headsign=_text(row.get("stop_headsign")),
        **ref,
    )


def _safe_durations(
    trips: pd.DataFrame | None, flex_trips: Mapping[str, Any], issues: _Issues
) -> dict[str, tuple[float, float]]:
    """``trips.txt`` ``safe_duration_factor`` / ``safe_duration_offset`` (seconds) of flex trips.

    An empty factor is 1, an empty offset 0; a value that is no finite number (or a
    factor that is not positive, an offset below 0) is reported and the trip keeps none.
    """
    file = "trips.txt"
    out: dict[str, tuple[float, float]] = {}
    if trips is None or not len(trips):
        return out
    cols = [c for c in ("safe_duration_factor", "safe_duration_offset") if c in trips]
    if not cols:
        return out
    for rec in trips[["trip_id", *cols]].to_dict("records"):
        trip = str(rec["trip_id"])
        raw = (_text(rec.get("safe_duration_factor")), _text(rec.get("safe_duration_offset")))
        if raw == (None, None):
            continue
        try:
            factor = 1.0 if raw[0] is None else float(raw[0])
            offset = 0.0 if raw[1] is None else float(raw[1])
        except ValueError:
            factor = offset = math.nan
        if not (math.isfinite(factor) and factor > 0 and math.isfinite(offset) and offset >= 0):
            msg = f"trip {trip}: safe_duration_factor/offset {raw[0]!r}/{raw[1]!r} unusable"
            issues.add("warning", file, msg, "safe duration")
            continue
        if trip in flex_trips:
            out[trip] = (factor, offset)
    return out


def _overlaps(trip: str, rows: tuple[FlexStopTime, ...], issues: _Issues) -> None:
    """Windows of one location in one trip that overlap (identical ones are a zone's pair)."""
    by_place: dict[str, list[FlexStopTime]] = {}
    for r in rows:
        if not r.timed:
            by_place.setdefault(str(r.location_id or r.group_id or r.stop_id), []).append(r)
    for place, served in by_place.items():
        for a_i, a in enumerate(served):
            for b in served[a_i + 1 :]:
                same = (a.start_s, a.end_s) == (b.start_s, b.end_s)
                if not same and a.start_s < b.end_s and b.start_s < a.end_s:
                    msg = (
                        f"trip {trip} serves {place} in overlapping windows "
                        f"(stop_sequence {a.stop_sequence} and {b.stop_sequence}); both kept"
                    )
                    issues.add("warning", "stop_times.txt", msg, "overlapping windows")


def read_flex(
    *,
    locations: Any,
    location_groups: pd.DataFrame | None,
    location_group_stops: pd.DataFrame | None,
    booking_rules: pd.DataFrame | None,
    flex_stop_times: pd.DataFrame,
    stop_ids: set[str],
    report: ValidationReport,
    trips: pd.DataFrame | None = None,
) -> FlexData:
    """Validate and normalise the GTFS-Flex parts of a feed.

    Parameters
    ----------
    locations
        ``locations.geojson`` as parsed JSON (or ``None``).
    location_groups, location_group_stops, booking_rules
        Those files as text frames, or ``None`` when absent.
    flex_stop_times
        The flex rows of ``stop_times.txt`` (:attr:`GtfsFeed.flex_stop_times`).
    stop_ids
        The feed's stop ids.
    report
        Where questionable data is reported (the feed still builds).
    trips
        ``trips.txt`` (its ``safe_duration_factor`` / ``safe_duration_offset``), or ``None``.

    Returns
    -------
    FlexData
        Usable zones, groups, booking rules and flex trips.

    Examples
    --------
    >>> import pandas as pd
    >>> from otpa.gtfs.report import Severity, ValidationReport
    >>> st = pd.DataFrame({"trip_id": ["t", "t"], "stop_sequence": [1, 2],
    ...     "stop_id": ["s", "nowhere"], "start_pickup_drop_off_window": [3600, 3600],
    ...     "end_pickup_drop_off_window": [7200, 7200]})
    >>> ring = [[0, 0], [1, 0], [1, 1], [0, 0]]
    >>> zones = {"type": "FeatureCollection", "features": [
    ...     {"type": "Feature", "id": "z", "geometry": {"type": "Polygon", "coordinates": [ring]}}]}
    >>> report = ValidationReport()
    >>> data = read_flex(locations=zones, location_groups=None, location_group_stops=None,
    ...     booking_rules=None, flex_stop_times=st, stop_ids={"s"}, report=report)
    >>> sorted(data.zones), data.trips
    (['z'], {})
    >>> [i.message for i in report]  # doctest: +NORMALIZE_WHITESPACE
    ["stop_times.txt: trip t stop_sequence 2: stop_id 'nowhere' is no stop, zone or
      location group; row dropped", 'stop_times.txt: flex trip t has fewer than two usable
      rows; not routable']

    A trip of one zone row alone is kept: its rides go within that zone.
    """
    issues = _Issues(report)
    zones = _zones(locations, issues)
    groups, group_names = _groups(
        location_groups, location_group_stops, stop_ids | set(zones), issues
    )
    rules = _booking_rules(booking_rules, issues)
    flex_trips: dict[str, tuple[FlexStopTime, ...]] = {}
    places = (stop_ids, zones, groups)
    if len(flex_stop_times):
        frame = flex_stop_times.sort_values(["trip_id", "stop_sequence"], kind="stable")
        records = frame.to_dict("records")
        by_trip: dict[str, list[dict[str, Any]]] = {}
        for rec in records:
            by_trip.setdefault(str(rec["trip_id"]), []).append(rec)
        for trip, recs in by_trip.items():
            rows = tuple(
                r for r in (_row(rec, trip, places, rules, issues) for rec in recs) if r is not None
            )
            one_zone = len(rows) == 1 and rows[0].stop_id is None  # pickup and drop-off there
            if len(rows) < 2 and not one_zone:
                msg = f"flex trip {trip} has fewer than two usable rows; not routable"
                issues.add("warning", "stop_times.txt", msg, "unroutable trip")
                continue
            _overlaps(trip, rows, issues)
            flex_trips[trip] = rows
    safe = _safe_durations(trips, flex_trips, issues)
    issues.close()
    return FlexData(zones, groups, group_names, rules, flex_trips, safe)
