"""Preprocessed GTFS fares v1 rules of a transit model, and OTP 1.x money arithmetic.

The tables of :class:`~otpa.transit.model.TransitModel` (``fare_attributes``,
``fare_rules``, ``stops``, ``routes``) are turned once per model into
:class:`FareRuleSet` objects grouped per feed, with small indexes that narrow the
rule sets worth testing for a sequence of rides.  :func:`fare_index` caches the
result per model (:class:`otpa.util.cache.OwnerCache`), so a model is preprocessed
once and its preprocessing goes away with it.

Money follows OpenTripPlanner 1.x (``DefaultFareServiceImpl.getMoney``): prices
are Java ``float`` (IEEE single precision) values added in single precision, and
an amount becomes minor units with ``Math.round(cost * 10^digits)``, where an
unknown (infinite) amount comes out as ``-1`` (the ``(int)`` cast of
``Long.MAX_VALUE``).
"""

from __future__ import annotations

import math
import struct
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
import pandas as pd

from otpa.routing.model import Money, WrappedCurrency
from otpa.transit.model import TransitModel
from otpa.util.cache import OwnerCache

__all__ = [
    "FareIndex",
    "FareRuleSet",
    "fare_index",
    "float32",
    "money",
    "wrapped_currency",
]

#: ISO 4217 default fraction digits that are not 2, as ``java.util.Currency`` has them.
_FRACTION_DIGITS: dict[str, int] = {
    "ADP": 0, "BEF": 0, "BHD": 3, "BIF": 0, "BYB": 0, "BYR": 0, "CLF": 4, "CLP": 0,
    "DJF": 0, "ESP": 0, "GNF": 0, "GRD": 0, "IQD": 3, "ISK": 0, "ITL": 0, "JOD": 3,
    "JPY": 0, "KMF": 0, "KRW": 0, "KWD": 3, "LUF": 0, "LYD": 3, "MGF": 0, "OMR": 3,
    "PTE": 0, "PYG": 0, "ROL": 0, "RWF": 0, "TND": 3, "TPE": 0, "TRL": 0, "UGX": 0,
    "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XAG": -1, "XAU": -1, "XBA": -1, "XBB": -1,
    "XBC": -1, "XBD": -1, "XDR": -1, "XFO": -1, "XFU": -1, "XOF": 0, "XPD": -1, "XPF": 0,
    "XPT": -1, "XSU": -1, "XTS": -1, "XUA": -1, "XXX": -1,
}  # fmt: skip

#: ``Currency.getSymbol()`` under Java 8 (the runtime OTP 1.x targets) in locale en_US:
#: only the US dollar has a symbol, every other currency answers its ISO code.  (Java 9+
#: with CLDR data would answer "€", "£", "R$", "CA$"... instead.)
_SYMBOLS_EN_US: dict[str, str] = {"USD": "$"}

_NO_CURRENCY = "XXX"


@cache
def wrapped_currency(code: str | None) -> WrappedCurrency:
    """The currency of an ISO 4217 code, as OTP 1.x serialises ``java.util.Currency``.

    Parameters
    ----------
    code
        ISO 4217 code (``currency_type`` of ``fare_attributes.txt``); case is ignored.
        A missing code becomes ``"XXX"`` (no currency).

    Returns
    -------
    WrappedCurrency
        Code, symbol as Java 8 gives it in locale en_US, and default fraction digits
        (2 for codes Java does not list with another value).
    """
    iso = (code or "").strip().upper() or _NO_CURRENCY
    return WrappedCurrency(
        currency=iso,
        currency_code=iso,
        symbol=_SYMBOLS_EN_US.get(iso, iso),
        default_fraction_digits=_FRACTION_DIGITS.get(iso, 2),
    )


def float32(value: float) -> float:
    """``value`` rounded to IEEE single precision (a Java ``float``)."""
    if math.isinf(value) or math.isnan(value):
        return value
    out: float = struct.unpack("<f", struct.pack("<f", value))[0]
    return out


def money(currency: WrappedCurrency, cost: float) -> Money:
    """Minor units of an amount as OTP 1.x computes them.

    Parameters
    ----------
    currency
        The currency; its default fraction digits scale the amount.
    cost
        The amount in major units; ``inf`` stands for "no fare known".

    Returns
    -------
    Money
        ``Math.round(cost * 10^digits)`` cast to a Java ``int``: ``-1`` for an infinite
        amount, as OTP 1.x reports an itinerary whose rides are not all covered by fares.
    """
    if math.isnan(cost):
        return Money(cents=0, currency=currency)
    if math.isinf(cost):
        cents = -1 if cost > 0 else 0  # (int) Long.MAX_VALUE / (int) Long.MIN_VALUE
        return Money(cents=cents, currency=currency)
    scaled = cost * math.pow(10.0, currency.default_fraction_digits)
    return Money(cents=math.floor(scaled + 0.5), currency=currency)


@dataclass(frozen=True, slots=True)
class FareRuleSet:
    """One GTFS fare (``fare_id``) with all its ``fare_rules.txt`` rows merged (OTP 1.x).

    Attributes
    ----------
    ordinal
        Position of the fare in the model's ``fare_attributes`` table (ties between
        equal prices go to the lowest ordinal).
    fare_id
        Feed-scoped fare id.
    price
        Price in major units, rounded to a Java ``float``.
    currency
        Currency of the price.
    agency_id
        Feed-scoped agency the fare is limited to (``fare_attributes.agency_id``), or None.
    origin_destinations
        ``(origin_id, destination_id)`` pairs (either may be None); empty: no zone rule.
    contains
        Zones of ``contains_id`` rules; a ride sequence must visit exactly these zones.
    routes
        Routes of ``route_id`` rules; every route ridden must be one of them.
    transfers
        Transfers allowed, or None for unlimited.
    transfer_duration
        Seconds from the first boarding within which the last boarding must happen,
        or None for no limit.
    """

    ordinal: int
    fare_id: str
    price: float
    currency: WrappedCurrency
    agency_id: str | None
    origin_destinations: frozenset[tuple[str | None, str | None]]
    contains: frozenset[str | None]
    routes: frozenset[str]
    transfers: int | None
    transfer_duration: int | None

    def matches(
        self,
        *,
        agencies: set[str | None],
        start_zone: str | None,
        end_zone: str | None,
        zones: set[str | None],
        routes: set[str],
        transfers_used: int,
        trip_time: int,
    ) -> bool:
        """Whether this fare may be used for a sequence of rides.

        Parameters
        ----------
        agencies
            Agencies of the rides.
        start_zone, end_zone
            Zone of the first boarding stop and of the last alighting stop.
        zones
            Zones of every stop visited.
        routes
            Routes ridden.
        transfers_used
            Number of rides minus one.
        trip_time
            Seconds between the first and the last boarding.

        Returns
        -------
        bool
            True when the agency, zone, contains and route rules and the transfer
            limits all allow the rides (OTP 1.x ``FareRuleSet.matches`` semantics; a
            rule with only a destination matches rides that *start* in that zone, as
            in OTP).
        """
        if self.agency_id is not None and (len(agencies) != 1 or self.agency_id not in agencies):
            return False
        if self.origin_destinations:
            ods = self.origin_destinations
            if (
                (start_zone, end_zone) not in ods
                and (start_zone, None) not in ods
                and (None, start_zone) not in ods
            ):
                return False
        if self.contains and zones != self.contains:
            return False
        if self.routes and not routes <= self.routes:
            return False
        if self.transfers is not None and self.transfers < transfers_used:
            return False
        return self.transfer_duration is None or trip_time <= self.transfer_duration


@dataclass(frozen=True)
class _FeedRules:
    """Rule sets of one feed with the indexes that narrow the candidates."""

    rule_sets: tuple[FareRuleSet, ...]
    unconstrained: tuple[FareRuleSet, ...]  # neither zone pairs nor routes
    by_od: dict[tuple[str | None, str | None], tuple[FareRuleSet, ...]]
    by_route: dict[str, tuple[FareRuleSet, ...]]  # route rules but no zone pairs
    has_contains: bool

    def candidates(
        self, start_zone: str | None, end_zone: str | None, first_route: str
    ) -> list[FareRuleSet]:
        """Rule sets that may match rides from ``start_zone`` to ``end_zone``.

        A rule set with zone pairs needs one of the three pairs OTP tests; one with
        route rules (and no zone pairs) needs the first route ridden.  The result is
        in table order.
        """
        found: dict[int, FareRuleSet] = {rs.ordinal: rs for rs in self.unconstrained}
        for key in ((start_zone, end_zone), (start_zone, None), (None, start_zone)):
            for rs in self.by_od.get(key, ()):
                found[rs.ordinal] = rs
        for rs in self.by_route.get(first_route, ()):
            found[rs.ordinal] = rs
        return [found[k] for k in sorted(found)]


@dataclass
class FareIndex:
    """Fare rules of a transit model, ready for :func:`otpa.routing.fares.compute_fare`.

    Attributes
    ----------
    feeds
        Rule sets per feed index (only feeds with fares).
    route_feed
        Feed index of every route id.
    route_agency
        Agency id of the routes of feeds with fares.
    stop_zone
        ``zone_id`` of the stops of feeds with fares (None where the stop has none).
    """

    feeds: dict[int, _FeedRules]
    route_feed: dict[str, int]
    route_agency: dict[str, str | None]
    stop_zone: dict[str, str | None]
    _model: weakref.ReferenceType[TransitModel]
    _trips: dict[str, int] | None = field(default=None, repr=False)
    _stop_ids: list[str] = field(default_factory=list, repr=False)

    def rules_of(self, feed: int) -> _FeedRules | None:
        """Rule sets of a feed, or None when the feed has no fares."""
        return self.feeds.get(feed)

    def trip_stop_ids(self, trip_id: str, board: str, alight: str) -> tuple[str, ...]:
        """Stops a trip calls at from ``board`` to ``alight`` (empty if not found).

        Only trips of feeds with ``contains_id`` rules are looked up; the trip index
        is built on first use.
        """
        model = self._model()
        if model is None:
            return ()
        if self._trips is None:
            self._trips = self._index_trips(model)
        pattern = self._trips.get(trip_id, -1)
        if pattern < 0:
            return ()
        stops = [self._stop_ids[int(i)] for i in model.pattern_stop_indices(pattern)]
        if board not in stops:
            return ()
        a = stops.index(board)
        if alight not in stops[a + 1 :]:
            return ()
        b = stops.index(alight, a + 1)
        return tuple(stops[a : b + 1])

    def _index_trips(self, model: TransitModel) -> dict[str, int]:
        wanted = [feed for feed, rules in self.feeds.items() if rules.has_contains]
        trips = model.trips
        if not wanted or "pattern_index" not in trips.columns:
            return {}
        keep = np.isin(trips["feed"].to_numpy(dtype=np.int64), wanted)
        ids = trips["trip_id"].to_numpy(dtype=object)[keep]
        patterns = trips["pattern_index"].to_numpy(dtype=np.int64)[keep]
        self._stop_ids = [str(s) for s in model.stops["stop_id"].to_numpy(dtype=object)]
        return {str(t): int(p) for t, p in zip(ids, patterns, strict=True)}


_CACHE: OwnerCache[str, FareIndex] = OwnerCache()


def fare_index(model: TransitModel) -> FareIndex:
    """The (cached) fare rules of a transit model."""
    return _CACHE.get_or_build(model, "fares", lambda: _build_index(model))


def _text(value: Any) -> str | None:
    if value is None or value is pd.NA:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    s = str(value)
    return s if s else None


def _column(frame: pd.DataFrame, name: str, default: Any = None) -> list[Any]:
    if name not in frame.columns:
        return [default] * len(frame)
    return list(frame[name].astype(object).tolist())


def _limit(value: Any) -> int | None:
    """A non-negative integer limit, or None when unset (missing or negative)."""
    if value is None or value is pd.NA:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    if math.isnan(number) or number < 0:
        return None
    return int(number)


def _rule_sets(model: TransitModel, feed_ids: list[str]) -> dict[int, list[FareRuleSet]]:
    fa = model.fare_attributes
    fr = model.fare_rules
    ids = _column(fa, "fare_id")
    feeds = _column(fa, "feed", -1)
    prices = _column(fa, "price")
    currencies = _column(fa, "currency_type")
    agencies = _column(fa, "agency_id")
    transfers = _column(fa, "transfers")
    durations = _column(fa, "transfer_duration")

    pairs: dict[str, set[tuple[str | None, str | None]]] = {}
    contains: dict[str, set[str | None]] = {}
    routes: dict[str, set[str]] = {}
    for fare_id, route, origin, dest, within in zip(
        _column(fr, "fare_id"),
        _column(fr, "route_id"),
        _column(fr, "origin_id"),
        _column(fr, "destination_id"),
        _column(fr, "contains_id"),
        strict=True,
    ):
        key = _text(fare_id)
        if key is None:
            continue
        if _text(within) is not None:
            contains.setdefault(key, set()).add(_text(within))
        if _text(origin) is not None or _text(dest) is not None:
            pairs.setdefault(key, set()).add((_text(origin), _text(dest)))
        route_id = _text(route)
        if route_id is not None:
            routes.setdefault(key, set()).add(route_id)

    out: dict[int, list[FareRuleSet]] = {}
    for ordinal, fare_id in enumerate(ids):
        key = _text(fare_id)
        feed = _limit(feeds[ordinal])
        price = _price(prices[ordinal])
        if key is None or feed is None or feed >= len(feed_ids) or price is None:
            continue
        out.setdefault(feed, []).append(
            FareRuleSet(
                ordinal=ordinal,
                fare_id=key,
                price=price,
                currency=wrapped_currency(_text(currencies[ordinal])),
                agency_id=_text(agencies[ordinal]),
                origin_destinations=frozenset(pairs.get(key, ())),
                contains=frozenset(contains.get(key, ())),
                routes=frozenset(routes.get(key, ())),
                transfers=_limit(transfers[ordinal]),
                transfer_duration=_limit(durations[ordinal]),
            )
        )
    return out


def _price(value: Any) -> float | None:
    if value is None or value is pd.NA:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(number) else float32(number)


def _feed_rules(rule_sets: Iterable[FareRuleSet]) -> _FeedRules:
    all_sets = tuple(rule_sets)
    by_od: dict[tuple[str | None, str | None], list[FareRuleSet]] = {}
    by_route: dict[str, list[FareRuleSet]] = {}
    unconstrained: list[FareRuleSet] = []
    for rs in all_sets:
        if rs.origin_destinations:
            for od in rs.origin_destinations:
                by_od.setdefault(od, []).append(rs)
        elif rs.routes:
            for route in rs.routes:
                by_route.setdefault(route, []).append(rs)
        else:
            unconstrained.append(rs)
    return _FeedRules(
        rule_sets=all_sets,
        unconstrained=tuple(unconstrained),
        by_od={k: tuple(v) for k, v in by_od.items()},
        by_route={k: tuple(v) for k, v in by_route.items()},
        has_contains=any(rs.contains for rs in all_sets),
    )


def _build_index(model: TransitModel) -> FareIndex:
    feed_ids = [str(f) for f in _column(model.feeds, "feed_id")]
    grouped = _rule_sets(model, feed_ids)
    feeds = {feed: _feed_rules(sets) for feed, sets in grouped.items()}

    routes = model.routes
    route_ids = [_text(r) for r in _column(routes, "route_id")]
    route_feeds = [_limit(f) for f in _column(routes, "feed", -1)]
    route_feed = {
        r: f for r, f in zip(route_ids, route_feeds, strict=True) if r is not None and f is not None
    }

    agencies = model.agencies
    agency_feed = [_limit(f) for f in _column(agencies, "feed", -1)]
    agency_ids = [_text(a) for a in _column(agencies, "agency_id")]
    sole_agency: dict[int, str | None] = {}
    for feed, agency in zip(agency_feed, agency_ids, strict=True):
        if feed is not None:
            sole_agency[feed] = agency if feed not in sole_agency else None
    route_agency: dict[str, str | None] = {}
    for route, feed, agency in zip(
        route_ids, route_feeds, _column(routes, "agency_id"), strict=True
    ):
        if route is not None and feed in feeds:
            route_agency[route] = _text(agency) or sole_agency.get(feed)

    stops = model.stops
    stop_zone: dict[str, str | None] = {}
    if feeds and len(stops):
        in_fare_feeds = np.isin(np.asarray(_column(stops, "feed", -1), dtype=np.int64), list(feeds))
        ids = np.asarray(_column(stops, "stop_id"), dtype=object)[in_fare_feeds]
        zones = np.asarray(_column(stops, "zone_id"), dtype=object)[in_fare_feeds]
        stop_zone = {str(s): _text(z) for s, z in zip(ids, zones, strict=True)}
    return FareIndex(
        feeds=feeds,
        route_feed=route_feed,
        route_agency=route_agency,
        stop_zone=stop_zone,
        _model=weakref.ref(model),
    )
