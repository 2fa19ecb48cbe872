"""Renting, parking and dropping off on the street: the phases of a trip and their legs.

The state machine of OTP 1.x (before renting -> renting -> after renting; driving
-> car parked; cycling -> bike parked) runs as chained one-to-many street
searches (:mod:`otpa.routing._phase_search`):

* **bike rental** -- walk from the origin; at a station with a bike (``allowPickup``)
  rent one (OTP 1.x ``bikeRentalPickupTime`` 60 s / cost 120, plus
  ``bikeSwitchTime``/``bikeSwitchCost``); cycle; at a station with a free dock
  (``allowDropoff``) return it (30 s / 30, plus the switch); walk on.  Stations of
  the same vertex are one switch place.
* **park and ride** -- drive from the origin, park at a park-and-ride lot
  (``carParkTime`` 120 s / ``carParkCost`` 120), walk (the soft ``maxPreTransitTime``
  on driving and walking together is the planner's, per stop).
* **bike and ride** -- cycle, park at a bike parking (``bikeParkTime`` 60 s / 120), walk.
* **kiss and ride** -- be driven, get out anywhere (``carDropoffTime`` 120 s), walk.

A chain's last phase gives the cost of every vertex, so the transit stops (access),
the destination (a street-only trip) or, backwards, the stops before the
destination (egress) are all read from the same labels; :class:`ChainRoute`
recovers where the vehicle was taken and left for the legs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from otpa.errors import InvalidArgumentError
from otpa.routing._mobility_places import LinkedPlaces, VehiclePlace
from otpa.routing._phase_search import Phase, phase_from_end, phase_from_vertices
from otpa.routing._street_costs import EdgeCosts, edge_costs
from otpa.routing._street_search import Seeds
from otpa.routing._street_types import Snap, StreetOptions
from otpa.street import StreetGraph
from otpa.types import BoolArray, FloatArray

__all__ = [
    "BIKE_PARK",
    "BIKE_RENTAL",
    "CAR_PARK",
    "CAR_PARK_SWITCH",
    "FLOATING_RENTAL",
    "HAIL",
    "KISS_AND_RIDE",
    "OWN_VEHICLE",
    "Chain",
    "ChainRoute",
    "Switch",
    "rent_switches",
    "run_chain",
]


@dataclass(frozen=True)
class Switch:
    """Changing vehicle: its time (seconds) and generalized cost (OTP 1.x defaults)."""

    time_s: float
    cost: float


#: OTP 1.x ``bikeRentalPickupTime/Cost`` and ``bikeRentalDropoffTime/Cost``.
RENT_PICKUP = Switch(60.0, 120.0)
RENT_DROPOFF = Switch(30.0, 30.0)
#: OTP 1.x ``carRentalPickupTime/Cost`` and ``carRentalDropoffTime/Cost``.
CAR_RENT_PICKUP = Switch(120.0, 120.0)
CAR_RENT_DROPOFF = Switch(120.0, 30.0)


def rent_switches(vehicle_mode: str, extra: Switch) -> tuple[Switch, Switch]:
    """Renting and returning a vehicle of ``vehicle_mode``, plus ``extra`` each time."""
    base = (CAR_RENT_PICKUP, CAR_RENT_DROPOFF) if vehicle_mode == "CAR" else (
        RENT_PICKUP, RENT_DROPOFF)  # fmt: skip
    return (
        Switch(base[0].time_s + extra.time_s, base[0].cost + extra.cost),
        Switch(base[1].time_s + extra.time_s, base[1].cost + extra.cost),
    )
#: OTP 1.x ``bikeParkTime/Cost``, ``carParkTime/Cost`` and ``carDropoffTime``.
BIKE_PARK_SWITCH = Switch(60.0, 120.0)
CAR_PARK_SWITCH = Switch(120.0, 120.0)
CAR_DROPOFF_SWITCH = Switch(120.0, 120.0)

BIKE_RENTAL = "BIKE_RENTAL"
#: free-floating vehicles: taken where they stand, left at any vertex the zones allow
FLOATING_RENTAL = "FLOATING_RENTAL"
#: one's own micromobility vehicle all the way (one phase, the vehicle's own costs)
OWN_VEHICLE = "OWN_VEHICLE"
CAR_PARK = "CAR_PARK"
BIKE_PARK = "BIKE_PARK"
KISS_AND_RIDE = "KISS_AND_RIDE"
#: a hailed car (CAR_HAIL): driven like kiss and ride, after the car's wait
HAIL = "HAIL"


@dataclass(frozen=True, eq=False)
class Chain:
    """The phases of one kind of vehicle change, in search order.

    ``switch_places[k]``: for the switch into phase ``k + 1``, the place used at each
    switch vertex (None: any vertex, a drop-off by car).
    """

    kind: str
    phases: tuple[Phase, ...]
    modes: tuple[str, ...]
    switch_places: tuple[dict[int, VehiclePlace] | None, ...]
    switches: tuple[Switch, ...]
    reverse: bool

    @property
    def last(self) -> Phase:
        """The phase whose labels are the chain's result."""
        return self.phases[-1]

    def route(self, vertex: int) -> ChainRoute | None:
        """Where the vehicle was changed on the way to (``reverse``: from) ``vertex``."""
        v = int(vertex)
        if not math.isfinite(float(self.last.cost[v])):
            return None
        switches: list[int] = []
        for phase in reversed(self.phases[1:]):
            s = phase.source(v)
            if s < 0:
                return None
            switches.append(s)
            v = s
        switches.reverse()  # search order
        places = [
            None if table is None else table.get(s)
            for s, table in zip(switches, self.switch_places, strict=True)
        ]
        return ChainRoute(self, tuple(switches), tuple(places), int(vertex))


@dataclass(frozen=True, eq=False)
class ChainRoute:
    """One trip through a chain: its switch vertices and places, in search order."""

    chain: Chain
    switches: tuple[int, ...]
    places: tuple[VehiclePlace | None, ...]
    end_vertex: int

    def travel_order(self) -> list[tuple[str, int | None, int | None, int]]:
        """``(mode, from switch, to switch, phase index)`` per leg in travel order.

        A ``None`` end is the trip's own end (the origin, or the destination when
        reversed); the chain's far end is ``end_vertex``.
        """
        ends: list[int | None] = [None, *self.switches, self.end_vertex]
        legs = [
            (self.chain.modes[k], ends[k], ends[k + 1], k) for k in range(len(self.chain.phases))
        ]
        if self.chain.reverse:
            legs = [(m, b, a, k) for m, a, b, k in reversed(legs)]
        return legs


def _switch_seeds(
    previous: Phase,
    places: LinkedPlaces,
    selected: np.ndarray,
    switch: Switch,
    table: dict[int, VehiclePlace],
) -> tuple[np.ndarray, FloatArray, FloatArray, dict[int, VehiclePlace]]:
    """Seeds at the ``selected`` places' vertices after ``switch``, and ``table``.

    ``table`` maps each vertex to the first selected place there (the linked places'
    cached :attr:`~LinkedPlaces.pickup_at` or :attr:`~LinkedPlaces.dropoff_at`: a subset
    of those places maps its vertices alike).
    """
    vertices = places.vertex[selected].astype(np.int64)
    w = previous.cost[vertices] + switch.cost
    t = previous.time_s[vertices] + switch.time_s
    return vertices, w, t, table


def run_chain(
    graph: StreetGraph,
    kind: str,
    where: Snap | int,
    options: dict[str, StreetOptions],
    places: LinkedPlaces,
    *,
    reverse: bool,
    switch_extra: Switch = Switch(0.0, 0.0),
    max_walk_m: float,
    max_time_s: float = math.inf,
    max_vehicle_time_s: float = math.inf,
    no_ride: BoolArray | None = None,
    drop_ok: BoolArray | None = None,
    vehicle_mode: str = "BICYCLE",
    vehicle_costs: EdgeCosts | None = None,
    toward: tuple[Phase, float, float] | None = None,
) -> Chain | None:
    """Run the phases of ``kind`` from ``where`` (``reverse``: towards it).

    Parameters
    ----------
    graph
        The street graph.
    kind
        :data:`BIKE_RENTAL`, :data:`CAR_PARK`, :data:`BIKE_PARK` or :data:`KISS_AND_RIDE`.
    where
        The trip's origin (or, ``reverse``, its destination) on the streets.
    options
        Street options by mode (``"WALK"``, ``"BICYCLE"``, ``"CAR"``).
    places
        The linked stations or lots (ignored for kiss and ride).
    reverse
        Chain backwards from the destination (egress).  Only bike rental has a
        backward chain (a car or bike is parked on the way out, not picked up).
    switch_extra
        Added to each rental switch (``bikeSwitchTime``/``bikeSwitchCost``).
    max_walk_m
        Distance limit of each walking phase.
    max_time_s
        Limit on the whole chain's time.
    max_vehicle_time_s
        Limit on the time spent before leaving the vehicle (``maxPreTransitTime``).
    no_ride
        Edges the rented vehicle may not enter (geofencing).
    drop_ok
        Vertices where a free-floating vehicle may be left (None: anywhere).
    vehicle_mode
        The street mode of the rented vehicle.
    vehicle_costs
        Its edge costs when not those of ``options[vehicle_mode]`` (micromobility).
    toward
        For a street-only docked rental: the backward walking phase from the destination
        and the destination's ``lat, lon``.  The ride is then an A* search that stops at
        the best return station (the walk from it included), and the last phase walks
        from that station only.

    Returns
    -------
    Chain or None
        None when no switch place is usable.
    """
    walk = options["WALK"]
    extra = switch_extra
    if kind == OWN_VEHICLE:
        a = phase_from_end(graph, where, options[vehicle_mode], reverse=reverse,
                           max_time_s=max_time_s, costs=vehicle_costs)  # fmt: skip
        return Chain(kind, (a,), (vehicle_mode,), (), (), reverse)
    if kind == BIKE_RENTAL:
        pick, drop = places.pickup, places.dropoff
        if pick.size == 0 or drop.size == 0:
            return None
        pickup, dropoff = rent_switches(vehicle_mode, extra)
        first, second = (drop, pick) if reverse else (pick, drop)
        s1, s2 = (dropoff, pickup) if reverse else (pickup, dropoff)
        a = phase_from_end(
            graph, where, walk, reverse=reverse, max_time_s=max_time_s, max_distance_m=max_walk_m
        )
        v1, w1, t1, table1 = _switch_seeds(
            a, places, first, s1, places.dropoff_at if reverse else places.pickup_at
        )
        targets, goal = None, None
        if toward is not None and not reverse:
            targets = _return_targets(graph, options[vehicle_mode], vehicle_costs, places,
                                      second, s2, toward[0])  # fmt: skip
            goal = (toward[1], toward[2])
        b = phase_from_vertices(
            graph, options[vehicle_mode], v1, w1, t1, reverse=reverse,
            max_time_s=max_time_s, no_ride=no_ride, costs=vehicle_costs,
            targets=targets, goal=goal,
        )  # fmt: skip
        if targets is not None:  # only the best return station
            j = b.result.best_target
            if j < 0:
                return None
            best_v = int(graph.edge_from[int(targets.edge[j])])
            second = second[places.vertex[second] == best_v]
        v2, w2, t2, table2 = _switch_seeds(
            b, places, second, s2, places.pickup_at if reverse else places.dropoff_at
        )
        # a bike is not returned where it was taken
        w2 = np.where(b.at_seed[v2], np.inf, w2)
        c = phase_from_vertices(
            graph, walk, v2, w2, t2, reverse=reverse,
            max_time_s=max_time_s, max_distance_m=max_walk_m,
        )  # fmt: skip
        modes = ("WALK", vehicle_mode, "WALK")
        return Chain(kind, (a, b, c), modes, (table1, table2), (s1, s2), reverse)
    if kind == FLOATING_RENTAL:
        return _floating(
            graph, where, options, places, reverse=reverse, extra=extra, max_walk_m=max_walk_m,
            max_time_s=max_time_s, no_ride=no_ride, drop_ok=drop_ok, vehicle_mode=vehicle_mode,
            vehicle_costs=vehicle_costs,
        )  # fmt: skip
    if reverse:
        msg = f"{kind} has no backward chain"
        raise InvalidArgumentError(msg)
    if kind in (CAR_PARK, BIKE_PARK):
        lots = places.dropoff
        if lots.size == 0:
            return None
        mode = "CAR" if kind == CAR_PARK else "BICYCLE"
        switch = CAR_PARK_SWITCH if kind == CAR_PARK else BIKE_PARK_SWITCH
        a = phase_from_end(
            graph, where, options[mode], reverse=False,
            max_time_s=min(max_time_s, max_vehicle_time_s),
        )  # fmt: skip
        v1, w1, t1, table1 = _switch_seeds(a, places, lots, switch, places.dropoff_at)
        c = phase_from_vertices(
            graph, walk, v1, w1, t1, reverse=False,
            max_time_s=max_time_s, max_distance_m=max_walk_m,
        )  # fmt: skip
        return Chain(kind, (a, c), (mode, "WALK"), (table1,), (switch,), reverse)
    if kind in (KISS_AND_RIDE, HAIL):
        a = phase_from_end(
            graph, where, options["CAR"], reverse=False,
            max_time_s=min(max_time_s, max_vehicle_time_s),
        )  # fmt: skip
        reached = np.flatnonzero(np.isfinite(a.cost))
        w = a.cost[reached] + CAR_DROPOFF_SWITCH.cost
        t = a.time_s[reached] + CAR_DROPOFF_SWITCH.time_s
        c = phase_from_vertices(
            graph, walk, reached, w, t, reverse=False,
            max_time_s=max_time_s, max_distance_m=max_walk_m,
        )  # fmt: skip
        return Chain(kind, (a, c), ("CAR", "WALK"), (None,), (CAR_DROPOFF_SWITCH,), reverse)
    msg = f"unknown vehicle change {kind!r}"
    raise InvalidArgumentError(msg)



def _floating(
    graph: StreetGraph,
    where: Snap | int,
    options: dict[str, StreetOptions],
    places: LinkedPlaces,
    *,
    reverse: bool,
    extra: Switch,
    max_walk_m: float,
    max_time_s: float,
    no_ride: BoolArray | None,
    drop_ok: BoolArray | None,
    vehicle_mode: str,
    vehicle_costs: EdgeCosts | None,
) -> Chain | None:
    """Walk, take a free-floating vehicle where it stands, ride, leave it where allowed, walk."""
    walk = options["WALK"]
    pick = places.pickup
    if pick.size == 0:
        return None
    pickup, dropoff = rent_switches(vehicle_mode, extra)
    allowed = np.ones(graph.n_vertices, dtype=bool) if drop_ok is None else drop_ok
    a = phase_from_end(
        graph, where, walk, reverse=reverse, max_time_s=max_time_s, max_distance_m=max_walk_m
    )

    def anywhere(phase: Phase, *, taken_at: bool) -> tuple[np.ndarray, FloatArray, FloatArray]:
        # ``taken_at``: the phase's seeds are where the vehicle was taken (not left there)
        ok = np.isfinite(phase.cost) & allowed
        if taken_at:
            ok &= ~phase.at_seed
        v = np.flatnonzero(ok)
        return v, phase.cost[v] + dropoff.cost, phase.time_s[v] + dropoff.time_s

    if reverse:
        # left anywhere the zones allow, the destination's own vertex included
        v1, w1, t1 = anywhere(a, taken_at=False)
        table1: dict[int, VehiclePlace] | None = None
        s1 = dropoff
    else:
        v1, w1, t1, table1 = _switch_seeds(a, places, pick, pickup, places.pickup_at)
        s1 = pickup
    b = phase_from_vertices(
        graph, options[vehicle_mode], v1, w1, t1, reverse=reverse,
        max_time_s=max_time_s, no_ride=no_ride, costs=vehicle_costs,
    )  # fmt: skip
    table2: dict[int, VehiclePlace] | None
    if reverse:
        v2, w2, t2, table2 = _switch_seeds(b, places, pick, pickup, places.pickup_at)
        w2 = np.where(b.at_seed[v2], np.inf, w2)  # not taken where it is left
        s2 = pickup
    else:
        v2, w2, t2 = anywhere(b, taken_at=True)
        table2, s2 = None, dropoff
    c = phase_from_vertices(
        graph, walk, v2, w2, t2, reverse=reverse, max_time_s=max_time_s, max_distance_m=max_walk_m
    )
    modes = ("WALK", vehicle_mode, "WALK")
    return Chain(FLOATING_RENTAL, (a, b, c), modes, (table1, table2), (s1, s2), reverse)


def _return_targets(
    graph: StreetGraph,
    options: StreetOptions,
    costs: EdgeCosts | None,
    places: LinkedPlaces,
    drop: np.ndarray,
    dropoff: Switch,
    back: Phase,
) -> Seeds:
    """Target edges of the return stations: leaving each, with the rest of the trip's weight.

    The weight is returning the vehicle plus walking from the station to the destination
    (``back``'s label); every usable edge leaving the station's vertex stands for it.
    """
    c = edge_costs(graph, options) if costs is None else costs
    rows: list[tuple[int, float, float, float]] = []
    seen: set[int] = set()
    for i in drop:
        v = int(places.vertex[int(i)])
        rest = float(back.cost[v])
        if v in seen or not np.isfinite(rest):
            continue
        seen.add(v)
        for g in range(int(graph.out_indptr[v]), int(graph.out_indptr[v + 1])):
            if np.isfinite(c.weight[g]):  # any way out (no U-turn onto the arrival edge)
                rows.append((g, rest + dropoff.cost, float(back.time_s[v]) + dropoff.time_s, 0.0))
    return Seeds.of(rows)
