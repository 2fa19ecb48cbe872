"""GTFS fares v1 for itineraries, computed as OpenTripPlanner 1.x's default fare service.

This follows ``DefaultFareServiceImpl`` (with the ``DefaultFareServiceFactory`` of
the ibi-group fork, which honours ``fare_attributes.agency_id``):

* The transit legs of an itinerary become *rides*.  Consecutive legs on the same
  route form one ride, as in OTP (its rides change only when the route does).
* For every range of consecutive rides the cheapest single fare covering all of
  them is looked up.  A fare may cover a range when the rides are all of its own
  feed (OTP never prices rides of two feeds together), and its merged
  ``fare_rules.txt`` rows allow them:

  - ``agency_id`` (when set): every ride is of that agency;
  - zone pairs: ``(first boarding zone, last alighting zone)`` is one of them, or
    ``(origin, empty)`` with the boarding zone, or ``(empty, destination)`` with the
    *boarding* zone (OTP's reading, kept for compatibility);
  - ``contains_id``: the set of zones of all stops visited equals the set of them;
  - ``route_id``: every route ridden is one of them;
  - ``transfers``: at most that many rides after the first (empty: unlimited);
  - ``transfer_duration``: the last boarding is at most that many seconds after
    the first.

* A dynamic programme over ride ranges (OTP's modified Floyd-Warshall, with its
  tie-breaking and single-precision sums) finds the cheapest way to split the rides
  into fare components.

The result has one fare type, ``"regular"``.  Its ``details`` list the components
from the first ride on, skipping rides no fare covers; when some ride has no fare
the total is ``-1`` minor units, as OTP 1.x reports it.  ``compute_fare`` returns
None (OTP's ``null``: the itinerary has no ``fare``) when there are no rides or no
ride is covered by any fare, e.g. on feeds without ``fare_attributes.txt``.

Each component also carries ``leg_index`` (the itinerary leg of its first ride) and
``is_transfer=False``, the fields the ibi-group fork added to ``FareComponent``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from otpa.routing._fare_rules import FareIndex, FareRuleSet, fare_index, float32, money
from otpa.routing.model import Fare, FareComponent
from otpa.transit.model import TransitModel

__all__ = ["FareRide", "compute_fare"]

_REGULAR = "regular"
_INF = math.inf


@dataclass(frozen=True)
class FareRide:
    """One transit leg of an itinerary, as the fare computation needs it.

    Attributes
    ----------
    leg_index
        Index of the leg in the itinerary (all legs counted, street legs included).
    route_id
        Feed-scoped route id (``"feed:id"``).
    agency_id
        Feed-scoped agency id of the route (the model's route agency wins when known).
    trip_id
        Feed-scoped trip id.
    board_stop_id, alight_stop_id
        Feed-scoped stops where the leg boards and alights.
    stop_ids
        Every stop visited from boarding to alighting, both included (for
        ``contains_id`` rules; when only the ends are given, the stops between are
        read from the trip's pattern where the feed has ``contains_id`` rules).
    start_time, end_time
        Departure from the boarding stop and arrival at the alighting stop, epoch
        seconds.
    """

    leg_index: int
    route_id: str
    agency_id: str
    trip_id: str
    board_stop_id: str
    alight_stop_id: str
    stop_ids: tuple[str, ...]
    start_time: int
    end_time: int


@dataclass(frozen=True, slots=True)
class _Ride:
    """Rides on one route (OTP's ``Ride``): consecutive legs on a route are merged."""

    leg_index: int
    feed: int
    route: str
    agency: str | None
    start_zone: str | None
    end_zone: str | None
    zones: frozenset[str | None]
    start_time: int
    end_time: int


def compute_fare(model: TransitModel, rides: Sequence[FareRide]) -> Fare | None:
    """The fare of an itinerary's transit rides (OTP 1.x ``DefaultFareServiceImpl``).

    Parameters
    ----------
    model
        The transit model whose ``fare_attributes`` and ``fare_rules`` apply.  Its
        preprocessed rules are cached per model.
    rides
        The itinerary's transit legs, in travel order.

    Returns
    -------
    Fare or None
        ``Fare(fare={"regular": total}, details={"regular": components})``; the total
        is ``-1`` minor units when some ride is not covered by any fare.  None when
        there are no rides or no fare covers any of them.
    """
    if not rides:
        return None
    index = fare_index(model)
    if not index.feeds:
        return None
    merged = _merge(index, rides)
    result, nxt, fares, reach = _search(index, merged)
    n = len(merged)
    components: list[FareComponent] = []
    first: FareRuleSet | None = None
    start = 0
    while start < n:
        while start < n and reach[start] < 0:
            start += 1
        if start >= n:
            break
        via = nxt[start][reach[start]]
        rule_set = fares[start][via]
        if rule_set is None:  # cannot happen: a reachable cell has a single fare
            break
        if first is None:
            first = rule_set
        components.append(
            FareComponent(
                fare_id=rule_set.fare_id,
                price=money(rule_set.currency, result[start][via]),
                routes=tuple(r.route for r in merged[start : via + 1]),
                leg_index=merged[start].leg_index,
                is_transfer=False,
            )
        )
        start = via + 1
    if first is None:
        return None
    total = money(first.currency, result[0][n - 1])
    return Fare(fare={_REGULAR: total}, details={_REGULAR: tuple(components)})


def _merge(index: FareIndex, rides: Sequence[FareRide]) -> list[_Ride]:
    """OTP rides: a new ride starts whenever the route changes."""
    out: list[_Ride] = []
    for ride in rides:
        zone = index.stop_zone.get
        start_zone = zone(ride.board_stop_id)
        end_zone = zone(ride.alight_stop_id)
        feed = index.route_feed.get(ride.route_id, -1)
        rules = index.rules_of(feed)
        zones: frozenset[str | None] = frozenset()
        if rules is not None and rules.has_contains:
            stops = set(ride.stop_ids) | {ride.board_stop_id, ride.alight_stop_id}
            stops.update(index.trip_stop_ids(ride.trip_id, ride.board_stop_id, ride.alight_stop_id))
            zones = frozenset(zone(s) for s in stops)
        if out and out[-1].route == ride.route_id:
            prev = out[-1]
            out[-1] = _Ride(
                leg_index=prev.leg_index,
                feed=prev.feed,
                route=prev.route,
                agency=prev.agency,
                start_zone=prev.start_zone,
                end_zone=end_zone,
                zones=prev.zones | zones,
                start_time=prev.start_time,
                end_time=ride.end_time,
            )
            continue
        agency = index.route_agency.get(ride.route_id) or ride.agency_id or None
        out.append(
            _Ride(
                leg_index=ride.leg_index,
                feed=feed,
                route=ride.route_id,
                agency=agency,
                start_zone=start_zone,
                end_zone=end_zone,
                zones=zones,
                start_time=ride.start_time,
                end_time=ride.end_time,
            )
        )
    return out


def _best_fare(index: FareIndex, rides: Sequence[_Ride]) -> tuple[float, FareRuleSet | None]:
    """Cheapest single fare for a range of rides (OTP ``getBestFareAndId``)."""
    first = rides[0]
    rules = index.rules_of(first.feed)
    if rules is None or any(r.feed != first.feed for r in rides):
        return _INF, None
    last = rides[-1]
    agencies = {r.agency for r in rides}
    routes = {r.route for r in rides}
    zones: set[str | None] = set()
    if rules.has_contains:
        for r in rides:
            zones |= r.zones
    best: FareRuleSet | None = None
    best_price = _INF
    for rule_set in rules.candidates(first.start_zone, last.end_zone, first.route):
        if rule_set.price < best_price and rule_set.matches(
            agencies=agencies,
            start_zone=first.start_zone,
            end_zone=last.end_zone,
            zones=zones,
            routes=routes,
            transfers_used=len(rides) - 1,
            trip_time=last.start_time - first.start_time,
        ):
            best, best_price = rule_set, rule_set.price
    return best_price, best


def _search(
    index: FareIndex, rides: Sequence[_Ride]
) -> tuple[list[list[float]], list[list[int]], list[list[FareRuleSet | None]], list[int]]:
    """OTP's dynamic programme over ride ranges (``performSearch``).

    Returns
    -------
    tuple
        ``result[i][j]``: lowest cost of rides ``i..j``; ``nxt[i][j]``: last ride of
        the first component of that cost; ``fares[i][j]``: cheapest single fare of
        rides ``i..j``; ``reach[i]``: last ride that rides from ``i`` on can be priced
        to (-1: none).
    """
    n = len(rides)
    result = [[_INF] * n for _ in range(n)]
    nxt = [[0] * n for _ in range(n)]
    fares: list[list[FareRuleSet | None]] = [[None] * n for _ in range(n)]
    reach = [-1] * n
    for length in range(n):
        for j in range(n - length):
            end = j + length
            cost, rule_set = _best_fare(index, rides[j : end + 1])
            if cost < 0:  # OTP logs "negative cost" and ignores the fare
                cost = _INF
            if cost < _INF:
                reach[j] = end
                nxt[j][end] = end
            result[j][end] = cost
            fares[j][end] = rule_set
            for k in range(length):
                via = float32(result[j][j + k] + result[j + k + 1][end])
                if result[j][end] > via:
                    result[j][end] = via
                    reach[j] = end
                    nxt[j][end] = nxt[j][j + k]
    return result, nxt, fares, reach
