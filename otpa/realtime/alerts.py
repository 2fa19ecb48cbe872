"""Service alerts: GTFS-RT ``Alert`` entities and alert patches, indexed by what they inform.

An :class:`Alert` names the entities it informs (:class:`InformedEntity`: an agency,
a route, a trip, a stop, or a route or trip at a stop, all as feed-scoped ids
``feed:id``), its texts (translated: :class:`TranslatedText`) and its active periods.
:func:`alerts_from_feed` reads the alerts of a parsed GTFS-RT feed and checks every
informed entity against the network (OTP 1.x's ``AlertsUpdateHandler`` selectors);
an :class:`AlertSet` indexes alerts by entity and answers which alerts apply to a
transit leg (:meth:`AlertSet.for_leg`) or to one stop, route or trip.

Matching a leg (OTP 1.x: the patches of the leg's board, hop and alight edges): the
leg's agency, route and trip, its board and alight stops, and its route and trip at
those stops.  An alert is shown when one of its active periods overlaps the leg
(an alert without periods is always active), unless filtering is disabled
(``disableAlertFiltering``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from google.transit import gtfs_realtime_pb2

from otpa.realtime.feeds import FeedOutcome, feed_index
from otpa.transit.model import TransitModel
from otpa.util.cache import OwnerCache

__all__ = [
    "Alert",
    "AlertResult",
    "AlertSet",
    "InformedEntity",
    "TranslatedText",
    "alerts_from_feed",
    "entity_known",
    "route_agency",
]

#: The largest epoch second an active period may name (GTFS-RT uses uint64).
_MAX_EPOCH_S = 253402300799  # 9999-12-31T23:59:59Z


@dataclass(frozen=True)
class TranslatedText:
    """A text in one or more languages (GTFS-RT ``TranslatedString``).

    Attributes
    ----------
    translations
        ``(language, text)`` pairs; language ``None``: the text without a language.
    """

    translations: tuple[tuple[str | None, str], ...] = ()

    @classmethod
    def of(cls, text: str | None, language: str | None = None) -> TranslatedText:
        """One text (or none, when ``text`` is None or empty)."""
        return cls(((language, text),)) if text else cls()

    def __bool__(self) -> bool:
        return bool(self.translations)

    def text(self, locale: str | None = None) -> str | None:
        """The text in ``locale`` (``en``, ``en_US``, ``nl-NL``...).

        The translation of the locale's language, else the one without a language,
        else the first one (OTP 1.x's ``TranslatedString.toString(locale)``).
        """
        if not self.translations:
            return None
        if locale:
            wanted = locale.replace("-", "_").lower()
            lang = wanted.split("_")[0]
            for want in (wanted, lang):
                for language, text in self.translations:
                    if language is not None and language.replace("-", "_").lower() == want:
                        return text
            for language, text in self.translations:
                if (
                    language is not None
                    and language.replace("-", "_").lower().split("_")[0] == lang
                ):
                    return text
        for language, text in self.translations:
            if language is None:
                return text
        return self.translations[0][1]


@dataclass(frozen=True)
class InformedEntity:
    """What an alert is about (one GTFS-RT ``EntitySelector``), with feed-scoped ids.

    A selector with a trip is about the trip (at ``stop``, when given); else with a
    route, the route (at ``stop``); else a stop; else an agency; else a route type.
    """

    agency: str | None = None
    route: str | None = None
    trip: str | None = None
    stop: str | None = None
    route_type: int | None = None
    direction_id: int | None = None

    @property
    def key(self) -> tuple[str, ...]:
        """The index key: ``("trip", trip[, stop])``, ``("route", ...)``, ``("stop", s)``..."""
        if self.trip is not None:
            return ("trip", self.trip) if self.stop is None else ("trip", self.trip, self.stop)
        if self.route is not None:
            return ("route", self.route) if self.stop is None else ("route", self.route, self.stop)
        if self.stop is not None:
            return ("stop", self.stop)
        if self.agency is not None:
            return ("agency", self.agency)
        return ("route_type", str(self.route_type))


@dataclass(frozen=True)
class Alert:
    """One service alert (OTP 1.x ``Alert`` with the entities it informs).

    Attributes
    ----------
    id
        The feed entity id, or the patch id.
    header, description, url
        The texts (``alertHeaderText``, ``alertDescriptionText``, ``alertUrl``).
    periods
        Active periods ``(start, end)`` in epoch seconds (``None``: open); empty: always.
    entities
        The entities it informs.
    source
        Where it comes from (``updater-0``, ``patch``...).
    feed_id
        The GTFS feed its ids belong to.
    cause, effect
        GTFS-RT ``Cause`` and ``Effect`` names (``UNKNOWN_CAUSE``...).
    """

    id: str
    header: TranslatedText = field(default_factory=TranslatedText)
    description: TranslatedText = field(default_factory=TranslatedText)
    url: TranslatedText = field(default_factory=TranslatedText)
    periods: tuple[tuple[int | None, int | None], ...] = ()
    entities: tuple[InformedEntity, ...] = ()
    source: str = ""
    feed_id: str | None = None
    cause: str | None = None
    effect: str | None = None

    @property
    def effective_start(self) -> dt.datetime | None:
        """The earliest start of the active periods (UTC), None when open or unknown."""
        starts = [s for s, _ in self.periods]
        if not starts or any(s is None for s in starts):
            return None
        return dt.datetime.fromtimestamp(min(s for s in starts if s is not None), dt.UTC)

    @property
    def effective_end(self) -> dt.datetime | None:
        """The latest end of the active periods (UTC), None when open or unknown."""
        ends = [e for _, e in self.periods]
        if not ends or any(e is None for e in ends):
            return None
        return dt.datetime.fromtimestamp(max(e for e in ends if e is not None), dt.UTC)

    def active(self, start_s: float, end_s: float) -> bool:
        """Whether an active period overlaps ``[start_s, end_s]`` (epoch seconds)."""
        if not self.periods:
            return True
        for a, b in self.periods:
            if (a is None or a <= end_s) and (b is None or b >= start_s):
                return True
        return False


class AlertSet:
    """Immutable alerts indexed by the entities they inform.

    Parameters
    ----------
    alerts
        The alerts (an alert informing several entities is indexed under each).
    """

    def __init__(self, alerts: Iterable[Alert] = ()) -> None:
        self._alerts: tuple[Alert, ...] = tuple(alerts)
        index: dict[tuple[str, ...], list[Alert]] = {}
        for alert in self._alerts:
            for entity in alert.entities:
                bucket = index.setdefault(entity.key, [])
                if alert not in bucket:
                    bucket.append(alert)
        self._index: Mapping[tuple[str, ...], tuple[Alert, ...]] = {
            k: tuple(v) for k, v in index.items()
        }

    def __len__(self) -> int:
        return len(self._alerts)

    def __iter__(self) -> Iterator[Alert]:
        return iter(self._alerts)

    def __bool__(self) -> bool:
        return bool(self._alerts)

    def get(self, *key: str) -> tuple[Alert, ...]:
        """The alerts of one index key, e.g. ``get("route", "feed:1")``, ``get("stop", s)``."""
        return self._index.get(tuple(key), ())

    def for_leg(
        self,
        *,
        agency: str | None,
        route: str | None,
        trip: str | None,
        stops: Iterable[str],
        route_type: int | None,
        start_s: float,
        end_s: float,
        filtered: bool = True,
    ) -> tuple[Alert, ...]:
        """The alerts that apply to a transit leg, each once, in index order.

        Parameters
        ----------
        agency, route, trip
            The leg's feed-scoped agency, route and trip ids.
        stops
            Its board and alight stops (feed-scoped).
        route_type
            The leg's GTFS ``route_type``.
        start_s, end_s
            The leg's start and end (epoch seconds).
        filtered
            Keep only the alerts active during the leg (False: ``disableAlertFiltering``).
        """
        if not self._index:
            return ()
        keys: list[tuple[str, ...]] = []
        if agency is not None:
            keys.append(("agency", agency))
        if route_type is not None:
            keys.append(("route_type", str(route_type)))
        if route is not None:
            keys.append(("route", route))
        if trip is not None:
            keys.append(("trip", trip))
        for stop in stops:
            keys.append(("stop", stop))
            if route is not None:
                keys.append(("route", route, stop))
            if trip is not None:
                keys.append(("trip", trip, stop))
        out: list[Alert] = []
        for key in keys:
            for alert in self._index.get(key, ()):
                if alert in out:
                    continue
                if filtered and not alert.active(start_s, end_s):
                    continue
                out.append(alert)
        return tuple(out)

    def merged(self, other: Iterable[Alert]) -> AlertSet:
        """A new set with ``other`` added."""
        return AlertSet((*self._alerts, *other))


@dataclass
class AlertResult(FeedOutcome):
    """The outcome of one alerts feed: its alerts and what happened to each entity."""

    alerts: list[Alert] = field(default_factory=list)


@dataclass(frozen=True)
class _Ids:
    agencies: frozenset[str]
    routes: frozenset[str]
    trips: frozenset[str]
    stops: frozenset[str]
    route_types: frozenset[int]
    feeds: tuple[str, ...]


_IDS: OwnerCache[str, _Ids] = OwnerCache()
_ROUTE_AGENCY: OwnerCache[str, Mapping[str, str]] = OwnerCache()


def _ids(model: TransitModel) -> _Ids:
    def build() -> _Ids:
        return _Ids(
            agencies=frozenset(str(x) for x in model.agencies["agency_id"]),
            routes=frozenset(str(x) for x in model.routes["route_id"]),
            trips=frozenset(str(x) for x in model.trips["trip_id"]),
            stops=frozenset(str(x) for x in model.stops["stop_id"]),
            route_types=frozenset(int(x) for x in model.routes["route_type"]),
            feeds=tuple(str(x) for x in model.feeds["feed_id"]),
        )

    return _IDS.get_or_build(model, "ids", build)


def route_agency(model: TransitModel) -> Mapping[str, str]:
    """Feed-scoped agency id by feed-scoped route id (cached per model)."""

    def build() -> Mapping[str, str]:
        return {
            str(r): str(a)
            for r, a in zip(model.routes["route_id"], model.routes["agency_id"], strict=True)
        }

    return _ROUTE_AGENCY.get_or_build(model, "route_agency", build)


def _translated(ts: Any) -> TranslatedText:
    return TranslatedText(
        tuple(
            (t.language or None, str(t.text))
            for t in ts.translation
            if t.text  # an empty translation says nothing
        )
    )


def entity_known(model: TransitModel, entity: InformedEntity) -> str | None:
    """Why an informed entity matches nothing in the network, or None when it matches."""
    ids = _ids(model)
    for kind, value, known in (
        ("agency", entity.agency, ids.agencies),
        ("route", entity.route, ids.routes),
        ("trip", entity.trip, ids.trips),
        ("stop", entity.stop, ids.stops),
    ):
        if value is not None and value not in known:
            return f"unknown {kind}: {value!r} is not a {kind} of the network"
    if (
        entity.route_type is not None
        and entity.agency is None
        and entity.route is None
        and entity.trip is None
        and entity.stop is None
        and entity.route_type not in ids.route_types
    ):
        return f"unknown route type: no route has route_type {entity.route_type}"
    return None


def alerts_from_feed(
    model: TransitModel, message: Any, feed_id: str | None, source: str
) -> AlertResult:
    """The alerts of a parsed GTFS-RT feed, each informed entity checked against the network.

    Parameters
    ----------
    model
        The network's transit model.
    message
        A GTFS-RT ``FeedMessage`` (:func:`otpa.realtime.parse_feed`).
    feed_id
        The feed the entity ids refer to (see :func:`otpa.realtime.trip_updates`).
    source
        The source name stored on the alerts.

    Returns
    -------
    AlertResult
        ``applied``: alerts kept (at least one informed entity matched); ``unmatched``:
        informed entities that match nothing (an alert with none left is dropped);
        ``invalid``: alerts without any informed entity or with a bad active period.

    Raises
    ------
    otpa.realtime.FeedError
        ``feed_id`` matches no feed of the network.
    """
    feed = _ids(model).feeds[feed_index(model, feed_id)]
    return _parse_alerts(model, message, feed, source)


def _scoped(feed: str, raw: str) -> str:
    return f"{feed}:{raw}"


def _parse_alerts(model: TransitModel, message: Any, feed: str, source: str) -> AlertResult:
    out = AlertResult()
    cause_names = gtfs_realtime_pb2.Alert.Cause
    effect_names = gtfs_realtime_pb2.Alert.Effect
    for entity in message.entity:
        if not entity.HasField("alert"):
            continue
        out.count("alerts")
        alert = entity.alert
        name = f"entity {entity.id!r}"
        if not alert.informed_entity:
            out.problem("invalid", name, "no informed entity: the alert informs nothing")
            continue
        periods: list[tuple[int | None, int | None]] = []
        bad_period = False
        for p in alert.active_period:
            a = int(p.start) if p.HasField("start") and p.start else None
            b = int(p.end) if p.HasField("end") and p.end else None
            if (
                (a is not None and a > _MAX_EPOCH_S)
                or (b is not None and b > _MAX_EPOCH_S)
                or (a is not None and b is not None and b < a)
            ):
                bad_period = True
            periods.append((a, b))
        if bad_period:
            out.problem("invalid", name, "invalid active period: it ends before it starts")
            continue
        entities: list[InformedEntity] = []
        for sel in alert.informed_entity:
            trip = sel.trip.trip_id if sel.HasField("trip") and sel.trip.trip_id else None
            route = sel.route_id or (
                sel.trip.route_id if sel.HasField("trip") and sel.trip.route_id else ""
            )
            informed = InformedEntity(
                agency=_scoped(feed, sel.agency_id) if sel.agency_id else None,
                route=_scoped(feed, route) if route and trip is None else None,
                trip=_scoped(feed, trip) if trip else None,
                stop=_scoped(feed, sel.stop_id) if sel.stop_id else None,
                route_type=int(sel.route_type) if sel.HasField("route_type") else None,
                direction_id=int(sel.direction_id) if sel.HasField("direction_id") else None,
            )
            if (
                informed.agency is None
                and informed.route is None
                and informed.trip is None
                and informed.stop is None
                and informed.route_type is None
            ):
                out.problem("unmatched", name, "empty selector: an informed entity names nothing")
                continue
            why = entity_known(model, informed)
            if why is not None:
                out.problem("unmatched", name, why)
                continue
            entities.append(informed)
        if not entities:
            out.count("dropped")
            continue
        out.alerts.append(
            Alert(
                id=str(entity.id),
                header=_translated(alert.header_text),
                description=_translated(alert.description_text),
                url=_translated(alert.url),
                periods=tuple(periods),
                entities=tuple(entities),
                source=source,
                feed_id=feed,
                cause=cause_names.Name(alert.cause) if alert.HasField("cause") else None,
                effect=effect_names.Name(alert.effect) if alert.HasField("effect") else None,
            )
        )
        out.applied += 1
    return out
