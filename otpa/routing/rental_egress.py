"""Renting on the way out of transit, for one-to-many analyses (surfaces, matrices).

The planner rents on the egress side with a backward chain from each destination
(walk -> rent at a station with a vehicle -> ride -> return at a station with a free
dock -> walk, :mod:`otpa.routing._rental_search`).  One chain per destination is too
much for a grid of thousands of points, so an analysis splits the same trip at the
return station:

* ``stop_to_station[s, j]``: seconds from alighting at stop ``s`` to having returned
  the vehicle at return station ``j`` -- the best over pick-up stations ``k`` of walking
  from the stop to ``k`` (its link included, at most the access radius), renting
  (OTP 1.x's 60 s, 120 s for a car, plus ``bikeSwitchTime`` for bicycles), riding
  ``k -> j`` (``j != k``, at most the 45 minutes of an access or egress) and returning
  (30 s / 120 s for a car, plus the switch);
* ``(indptr, station, time_s)``: per destination, the return stations within walking
  distance and the seconds of that walk (read off each station's walking tree as the
  planner reads a destination).

A free-floating vehicle ``k`` (GBFS ``free_bike_status``/``vehicle_status``) is left
wherever its zones allow, not at a station, so the trip is split where it is taken
instead: its column holds the seconds from alighting at each stop to having taken it
(the walk to it, at most the access radius, and renting), and its destinations the
seconds from taking it to arriving -- the ride (geofencing: no riding through the
network's closed zones), leaving it at any vertex its zones allow (not where it was
taken) and the walk on, as the planner's backward chain of a free-floating vehicle.

Every search is the planner's phase search with the planner's options and costs
(micromobility physics for ``MICROMOBILITY_RENT``), run once per station; a destination's
egress time is then ``min_j (min_s arrival[s] + stop_to_station[s, j]) + walk[j, p]``,
which :func:`otpa.analysis` evaluates per departure.  Within each phase the path is the
planner's (best generalized cost); across stations the fastest combination is taken, as
the analysis takes the earliest arrival.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from otpa.mobility import current_rental
from otpa.network import TransportNetwork
from otpa.routing._access import access_radius
from otpa.routing._micromobility import micromobility_costs
from otpa.routing._mobility_places import (
    LinkedPlaces,
    geofence_masks,
    linked_free_vehicles,
    linked_rental_stations,
)
from otpa.routing._mobility_plan import MAX_ACCESS_EGRESS_S, phase_tree, street_options_by_mode
from otpa.routing._phase_search import phase_from_vertices
from otpa.routing._rental_search import Switch, rent_switches
from otpa.routing._snap import SnapArrays
from otpa.routing._street_costs import EdgeCosts
from otpa.routing._street_types import StreetOptions
from otpa.routing.request import PlanRequest
from otpa.routing.street_tree import tree_times
from otpa.street import StreetGraph
from otpa.types import BoolArray, FloatArray, Int32Array, IntArray

__all__ = ["RentalEgress", "rental_egress"]


@dataclass(frozen=True, eq=False)
class RentalEgress:
    """Renting after transit, split at the return station (see the module docstring).

    Attributes
    ----------
    stop_to_station
        ``(n_stops, n_stations)`` seconds from alighting to the vehicle returned (``inf``);
        for a free-floating vehicle's column, to the vehicle taken.
    indptr, station, time_s
        Per destination (CSR), the return stations and the seconds walked from each; for
        a free-floating vehicle, the seconds from taking it to arriving.
    """

    stop_to_station: FloatArray
    indptr: IntArray
    station: Int32Array
    time_s: FloatArray

    @property
    def n_stations(self) -> int:
        """The number of return stations (columns of :attr:`stop_to_station`)."""
        return int(self.stop_to_station.shape[1])

    def station_arrivals(self, arrivals: FloatArray) -> FloatArray:
        """``(n_departures, n_stations)``: when the vehicle is returned at each station.

        ``arrivals``: ``(n_departures, n_stops)`` ride arrivals at the stops (``inf``).
        """
        arr = np.asarray(arrivals, dtype=np.float64)
        out = np.full((arr.shape[0], self.n_stations), np.inf)
        for j in range(self.n_stations):
            col = self.stop_to_station[:, j]
            via = np.flatnonzero(np.isfinite(col))
            if via.size:
                out[:, j] = np.min(arr[:, via] + col[via][None, :], axis=1)
        return out


def _kinds(request: PlanRequest) -> list[str]:
    r = request.rental
    return [k for k, on in (("BICYCLE", r.bike_rental), ("CAR", r.car_rental),
                            ("MICROMOBILITY", r.vehicle_rental)) if on]  # fmt: skip


_Modes = tuple[StreetOptions, StreetOptions, EdgeCosts | None]
#: the stops with a street vertex, those vertices, the seconds of their links, all stops
_Ends = tuple[IntArray, IntArray, FloatArray, int]


def _docked_columns(
    graph: StreetGraph,
    places: LinkedPlaces,
    modes: _Modes,
    switches: tuple[Switch, Switch],
    ends: _Ends,
    max_walk: float,
    snaps: SnapArrays,
    columns: list[FloatArray],
    walks: list[FloatArray],
) -> None:
    """Append a column (stops -> vehicle returned) and its destinations per return station.

    ``modes``: walking, riding and the ride's edge costs (None: the riding options').
    """
    walk, ride_opts, costs = modes
    pickup, dropoff = switches
    rows_all, stop_v, link_t, n_stops = ends
    pick = np.unique(places.vertex[places.pickup])
    drop = np.unique(places.vertex[places.dropoff])
    if pick.size == 0 or drop.size == 0:
        return
    to_station = np.full((n_stops, drop.size), np.inf)
    zero = np.zeros(1)
    for k in pick:
        seed = np.array([k], dtype=np.int64)
        back = phase_from_vertices(graph, walk, seed, zero, zero, reverse=True,
                                   max_time_s=MAX_ACCESS_EGRESS_S,
                                   max_distance_m=max_walk)  # fmt: skip
        w = back.time_s[stop_v] + link_t
        reach = np.isfinite(w)
        if not reach.any():
            continue
        ride = phase_from_vertices(graph, ride_opts, seed, zero, zero, reverse=False,
                                   max_time_s=MAX_ACCESS_EGRESS_S, costs=costs)  # fmt: skip
        r = ride.time_s[drop] + pickup.time_s + dropoff.time_s
        r[drop == k] = math.inf  # a vehicle is not returned where it was taken
        r[r - dropoff.time_s - pickup.time_s > MAX_ACCESS_EGRESS_S] = math.inf
        total = w[reach][:, None] + r[None, :]
        rows = rows_all[reach]
        to_station[rows] = np.minimum(to_station[rows], total)
    for i, j in enumerate(drop):
        out = phase_from_vertices(graph, walk, np.array([j], dtype=np.int64), zero, zero,
                                  reverse=False, max_time_s=MAX_ACCESS_EGRESS_S,
                                  max_distance_m=max_walk)  # fmt: skip
        columns.append(to_station[:, i])
        walks.append(tree_times(phase_tree(out), snaps).time_s)


def _floating_columns(
    graph: StreetGraph,
    vehicles: LinkedPlaces,
    fence: tuple[BoolArray | None, BoolArray | None],
    modes: _Modes,
    switches: tuple[Switch, Switch],
    ends: _Ends,
    max_walk: float,
    snaps: SnapArrays,
    columns: list[FloatArray],
    walks: list[FloatArray],
) -> None:
    """Append a column (stops -> vehicle taken) and its destinations per free vehicle vertex.

    ``fence``: the network's closed edges and the vertices where a vehicle may be left;
    ``modes``: walking, riding and the ride's edge costs (None: the riding options').
    """
    walk, ride_opts, costs = modes
    pickup, dropoff = switches
    rows, stop_v, link_t, n_stops = ends
    no_ride, drop_ok = fence
    zero = np.zeros(1)
    for k in np.unique(vehicles.vertex[vehicles.pickup]):
        seed = np.array([k], dtype=np.int64)
        back = phase_from_vertices(graph, walk, seed, zero, zero, reverse=True,
                                   max_time_s=MAX_ACCESS_EGRESS_S,
                                   max_distance_m=max_walk)  # fmt: skip
        w = back.time_s[stop_v] + link_t
        if not np.isfinite(w).any():
            continue
        ride = phase_from_vertices(graph, ride_opts, seed, zero, zero, reverse=False,
                                   max_time_s=MAX_ACCESS_EGRESS_S, no_ride=no_ride,
                                   costs=costs)  # fmt: skip
        # left anywhere its zones allow, but not where it was taken
        ok = np.isfinite(ride.cost) & ~ride.at_seed
        if drop_ok is not None:
            ok &= drop_ok
        left = np.flatnonzero(ok)
        if left.size == 0:
            continue
        out = phase_from_vertices(
            graph, walk, left, ride.cost[left] + dropoff.cost,
            ride.time_s[left] + dropoff.time_s, reverse=False,
            max_time_s=MAX_ACCESS_EGRESS_S + dropoff.time_s, max_distance_m=max_walk,
        )  # fmt: skip
        column = np.full(n_stops, np.inf)
        column[rows] = w + pickup.time_s
        columns.append(column)
        walks.append(tree_times(phase_tree(out), snaps).time_s)


def rental_egress(
    network: TransportNetwork, request: PlanRequest, snaps: SnapArrays
) -> RentalEgress | None:
    """Renting from the stops to destinations snapped at ``snaps`` (WALK snaps).

    Parameters
    ----------
    network
        The network (its live rental data, :func:`otpa.mobility.current_rental`).
    request
        ``BICYCLE_RENT``, ``CAR_RENT`` or ``MICROMOBILITY_RENT`` with transit; its walk,
        bike (switch time), micromobility and ``companies`` preferences are read.
    snaps
        The destinations on the streets (the analysis' WALK snaps).

    Returns
    -------
    RentalEgress or None
        None without streets, stops, rental kinds or two usable stations.
    """
    graph = network.street
    kinds = _kinds(request)
    if graph is None or not kinds or not request.modes.transit:
        return None
    stop_vertex = np.asarray(network.stop_vertex, dtype=np.int64)
    stops = np.flatnonzero(stop_vertex >= 0)
    if stops.size == 0:
        return None
    options = street_options_by_mode(request)
    walk = options["WALK"]
    link = np.nan_to_num(np.asarray(network.stop_link_distance_m, dtype=np.float64)[stops])
    link_t = np.ceil(link / walk.speed_mps)
    max_walk = access_radius(request)
    state = current_rental(network)
    companies = tuple(c for c in request.rental.companies if c != "NOAPI")
    columns: list[FloatArray] = []  # per return station: seconds from each stop
    walks: list[FloatArray] = []  # per return station: seconds to each destination
    n_stops = int(stop_vertex.shape[0])
    ends = (stops, stop_vertex[stops], link_t, n_stops)
    for kind in kinds:
        extra = Switch(0.0, 0.0)
        if kind == "BICYCLE":
            extra = Switch(float(request.bike.switch_time_s), float(request.bike.switch_cost))
        switches = rent_switches(kind, extra)
        costs = None
        if kind == "MICROMOBILITY":
            costs = micromobility_costs(graph, options["BICYCLE"], request.micromobility)
        modes = (walk, options[kind], costs)
        stations = linked_rental_stations(network, state, kind, companies)
        _docked_columns(graph, stations, modes, switches, ends, max_walk, snaps, columns, walks)
        for name, vehicles in linked_free_vehicles(network, state, kind, companies).items():
            snap = state.snapshots[name]
            fence = geofence_masks(graph, snap.zones, region=snap.dropoff_region)
            _floating_columns(
                graph, vehicles, fence, modes, switches, ends, max_walk, snaps, columns, walks
            )
    if not columns:
        return None
    to_all = np.stack(columns, axis=1)
    walk_t = np.stack(walks, axis=0)  # (n_stations, n_points)
    useful = np.isfinite(to_all).any(axis=0)
    to_all, walk_t = to_all[:, useful], walk_t[useful]
    pts_station = [np.flatnonzero(np.isfinite(walk_t[:, p])) for p in range(walk_t.shape[1])]
    indptr = np.zeros(len(pts_station) + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([a.size for a in pts_station])
    station = (np.concatenate(pts_station) if pts_station else np.zeros(0)).astype(np.int32)
    point = np.repeat(np.arange(len(pts_station)), np.diff(indptr))
    return RentalEgress(to_all, indptr, station, walk_t[station, point])
