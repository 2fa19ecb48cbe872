"""Where a trip may change vehicle: rental stations and vehicles, parking lots.

The routing side of shared mobility reads these as plain tuples of
:class:`VehiclePlace`, each linked to one street vertex (the nearer end of the
nearest edge a cyclist may ride or walk, found with the vectorised snap, so the
shared graph is never split).  Rental stations and free-floating vehicles come from
the :class:`otpa.mobility.RentalState` a plan took at its start (GBFS feeds, or the
build's OSM stations), parking lots from the build's OSM features
(:func:`otpa.mobility.parking_lots`): availability is a property of the snapshot,
the street graph never changes.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from otpa.mobility import (
    GeofencingZone,
    GeofencingZones,
    RentalState,
    parking_lots,
    rental_kind_of,
)
from otpa.network import TransportNetwork
from otpa.routing._snap import snap_many
from otpa.street import StreetGraph
from otpa.types import BoolArray, FloatArray, Int32Array
from otpa.util.cache import OwnerCache

__all__ = [
    "LinkedPlaces",
    "VehiclePlace",
    "free_vehicles",
    "geofence_masks",
    "link_places",
    "linked_free_vehicles",
    "linked_parking",
    "linked_rental_stations",
    "parking_places",
    "rental_stations",
]

#: A place farther than this from any street is not usable (metres).
LINK_MAX_M = 500.0


@dataclass(frozen=True)
class VehiclePlace:
    """A rental station or free-floating vehicle, or a parking lot.

    Attributes
    ----------
    id
        Station, vehicle or lot id (``osm:node:N`` for OSM features).
    name
        Display name.
    lat, lon
        Position.
    networks
        Rental networks (systems) it belongs to; empty for parking.
    vehicles_available
        Vehicles that can be picked up (None: unknown, always some).
    spaces_available
        Free docks or spaces (None: unknown, always some).
    allow_pickup, allow_dropoff
        Whether vehicles may be rented from or returned to it.
    floating
        A free-floating vehicle (returned anywhere allowed, not here).
    """

    id: str
    name: str
    lat: float
    lon: float
    networks: tuple[str, ...] = ()
    vehicles_available: int | None = None
    spaces_available: int | None = None
    allow_pickup: bool = True
    allow_dropoff: bool = True
    floating: bool = False

    @property
    def can_pick_up(self) -> bool:
        """True when a vehicle may be rented here now."""
        n = self.vehicles_available
        return self.allow_pickup and (n is None or n > 0)

    @property
    def can_drop_off(self) -> bool:
        """True when a vehicle may be returned here now."""
        return (
            not self.floating
            and self.allow_dropoff
            and (self.spaces_available is None or self.spaces_available > 0)
        )


@dataclass(frozen=True, eq=False)
class LinkedPlaces:
    """Places with their street vertices (``vertex == -1``: not near a usable street)."""

    places: tuple[VehiclePlace, ...]
    vertex: Int32Array

    def usable(self, mask: Iterable[bool]) -> np.ndarray:
        """Indices of the places selected by ``mask`` that are linked to a street."""
        m = np.fromiter(mask, dtype=bool, count=len(self.places)) & (self.vertex >= 0)
        return np.flatnonzero(m)

    # The places (and their availability) never change: a feed update publishes a new
    # state, whose places are linked anew.  Linked places are cached with their state or
    # lots, so these are worked out once, not at every plan.
    @cached_property
    def pickup(self) -> np.ndarray:
        """Indices of the linked places where a vehicle may be taken now (read-only)."""
        out = self.usable(p.can_pick_up for p in self.places)
        out.setflags(write=False)
        return out

    @cached_property
    def dropoff(self) -> np.ndarray:
        """Indices of the linked places where a vehicle may be left now (read-only)."""
        out = self.usable(p.can_drop_off for p in self.places)
        out.setflags(write=False)
        return out

    def _first_at(self, selected: np.ndarray) -> dict[int, VehiclePlace]:
        table: dict[int, VehiclePlace] = {}
        for i, v in zip(selected.tolist(), self.vertex[selected].tolist(), strict=True):
            table.setdefault(v, self.places[i])
        return table

    @cached_property
    def pickup_at(self) -> dict[int, VehiclePlace]:
        """Per street vertex, the first :attr:`pickup` place linked to it (do not modify)."""
        return self._first_at(self.pickup)

    @cached_property
    def dropoff_at(self) -> dict[int, VehiclePlace]:
        """Per street vertex, the first :attr:`dropoff` place linked to it (do not modify)."""
        return self._first_at(self.dropoff)


def link_places(network: TransportNetwork, places: Sequence[VehiclePlace]) -> LinkedPlaces:
    """Link places to the street vertex nearest to them along the nearest usable edge."""
    graph = network.street
    n = len(places)
    vertex = np.full(n, -1, dtype=np.int32)
    if graph is None or n == 0:
        return LinkedPlaces(tuple(places), vertex)
    lat = np.array([p.lat for p in places], dtype=np.float64)
    lon = np.array([p.lon for p in places], dtype=np.float64)
    snaps = snap_many(graph, lat, lon, "BICYCLE", LINK_MAX_M)
    ok = snaps.edge >= 0
    e = snaps.edge[ok]
    near_start = snaps.fraction[ok] < 0.5
    vertex[ok] = np.where(
        near_start, np.asarray(graph.edge_from)[e], np.asarray(graph.edge_to)[e]
    ).astype(np.int32)
    return LinkedPlaces(tuple(places), vertex)


def _count(value: int) -> int | None:
    return None if int(value) < 0 else int(value)


def rental_stations(
    state: RentalState, kind: str = "BICYCLE", networks: Collection[str] = ()
) -> tuple[VehiclePlace, ...]:
    """The docking stations of ``kind`` (an OTP rental kind) in a rental state.

    ``networks``: keep only these rental networks (OTP's ``companies``; empty: all).
    Availability is the feed's (-1, unknown, counts as available).
    """
    st = state.stations
    pickup, dropoff = st.allow_pickup, st.allow_dropoff
    out = []
    for i in range(len(st)):
        if rental_kind_of(st.form_factor[i]) != kind:
            continue
        if networks and st.network[i] not in networks:
            continue
        out.append(
            VehiclePlace(
                id=st.ids[i],
                name=st.names[i] or st.ids[i],
                lat=float(st.lat[i]),
                lon=float(st.lon[i]),
                networks=(st.network[i],),
                vehicles_available=_count(st.vehicles_available[i]),
                spaces_available=_count(st.spaces_available[i]),
                allow_pickup=bool(pickup[i]),
                allow_dropoff=bool(dropoff[i]),
            )
        )
    return tuple(out)


#: Per rental state: ``(id(graph), kind, networks) -> (graph, linked stations)``.
_LINKED: OwnerCache[
    tuple[int, str, tuple[str, ...]], tuple[StreetGraph | None, LinkedPlaces]
] = OwnerCache(max_entries=8)


def linked_rental_stations(
    network: TransportNetwork, state: RentalState, kind: str = "BICYCLE",
    networks: Collection[str] = (),
) -> LinkedPlaces:  # fmt: skip
    """:func:`link_places` of :func:`rental_stations`, once per rental state.

    A state never changes (a feed update publishes a new one), so the stations and
    their street vertices are kept with it instead of being built for every plan.
    """
    graph = network.street
    # the entry holds ``graph``, so its id is not reused while the entry lives
    key = (id(graph), kind, tuple(networks))
    cached = _LINKED.get(state, key)
    if cached is not None and cached[0] is graph:
        return cached[1]
    linked = link_places(network, rental_stations(state, kind, networks))
    _LINKED.get_or_build(state, key, lambda: (graph, linked))
    return linked


#: Per rental state: ``(id(graph), kind, networks) -> (graph, linked vehicles by network)``.
_FLOATING: OwnerCache[
    tuple[int, str, tuple[str, ...]], tuple[StreetGraph | None, dict[str, LinkedPlaces]]
] = OwnerCache(max_entries=8)


def linked_free_vehicles(
    network: TransportNetwork, state: RentalState, kind: str = "BICYCLE",
    networks: Collection[str] = (),
) -> dict[str, LinkedPlaces]:  # fmt: skip
    """:func:`free_vehicles` by rental network, linked, once per rental state.

    Vehicles move at every poll, and every poll publishes a new state: linking them
    with their state links them once per snapshot, never into the shared graph.
    """
    graph = network.street
    key = (id(graph), kind, tuple(networks))
    cached = _FLOATING.get(state, key)
    if cached is not None and cached[0] is graph:
        return cached[1]
    floating = free_vehicles(state, kind, networks)
    linked = {
        name: link_places(network, [p for p in floating if p.networks[0] == name])
        for name in sorted({p.networks[0] for p in floating})
    }
    _FLOATING.get_or_build(state, key, lambda: (graph, linked))
    return linked


def free_vehicles(
    state: RentalState, kind: str = "BICYCLE", networks: Collection[str] = ()
) -> tuple[VehiclePlace, ...]:
    """The available free-floating vehicles of ``kind`` in a rental state."""
    fv = state.vehicles
    ok = fv.available_mask()
    out = []
    for i in range(len(fv)):
        if not ok[i] or rental_kind_of(fv.form_factor[i]) != kind:
            continue
        if networks and fv.network[i] not in networks:
            continue
        out.append(
            VehiclePlace(
                id=fv.ids[i],
                name=fv.ids[i],
                lat=float(fv.lat[i]),
                lon=float(fv.lon[i]),
                networks=(fv.network[i],),
                vehicles_available=1,
                spaces_available=0,
                allow_dropoff=False,
                floating=True,
            )
        )
    return tuple(out)


def parking_places(network: TransportNetwork, kind: str) -> tuple[VehiclePlace, ...]:
    """The OSM parking lots of ``kind`` (``park_and_ride`` or ``bike_parking``)."""
    lots = parking_lots(network, kind)
    default = "Park and ride" if kind == "park_and_ride" else "Bike parking"
    return tuple(
        VehiclePlace(
            id=lots.ids[i],
            name=lots.names[i] or default,
            lat=float(lots.lat[i]),
            lon=float(lots.lon[i]),
        )
        for i in range(len(lots))
    )


#: Per parking-lot table: ``id(graph) -> (graph, linked lots)``.
_PARKING: OwnerCache[int, tuple[StreetGraph | None, LinkedPlaces]] = OwnerCache(max_entries=2)


def linked_parking(network: TransportNetwork, kind: str) -> LinkedPlaces:
    """:func:`link_places` of :func:`parking_places`, once per network and kind."""
    graph = network.street
    lots = parking_lots(network, kind)
    cached = _PARKING.get(lots, id(graph))
    if cached is not None and cached[0] is graph:
        return cached[1]
    linked = link_places(network, parking_places(network, kind))
    _PARKING.get_or_build(lots, id(graph), lambda: (graph, linked))
    return linked


def _zone_rules(
    zones: GeofencingZones, lat: FloatArray, lon: FloatArray, vehicle_type_id: str | None
) -> tuple[BoolArray, BoolArray]:
    """Per point: may a vehicle ride through, may it be left there (first zone wins)."""
    n = lat.shape[0]
    # a point in no zone (NaN is in no bounding box) gets the global rule
    default = zones.rules_at([np.nan], [np.nan], vehicle_type_id)[0]
    through = np.full(n, default.ride_through_allowed, dtype=bool)
    end = np.full(n, default.ride_end_allowed, dtype=bool)
    pending = np.ones(n, dtype=bool)
    for zone in zones.zones:
        rule = zone.rule_for(vehicle_type_id)
        if rule is None:
            continue
        idx = np.flatnonzero(pending)
        if idx.size == 0:
            break
        inside = np.zeros(n, dtype=bool)
        inside[idx] = zone.contains(lat[idx], lon[idx])
        through[inside] = rule.ride_through_allowed
        end[inside] = rule.ride_end_allowed
        pending &= ~inside
    return through, end


#: Per street graph: ``(id(zones), id(region), vehicle type) -> (zones, region, masks)``.
_GEOFENCE: OwnerCache[
    tuple[int, int, str | None],
    tuple[GeofencingZones, GeofencingZone | None, tuple[BoolArray | None, BoolArray | None]],
] = OwnerCache(max_entries=4)


def geofence_masks(
    graph: StreetGraph,
    zones: GeofencingZones,
    vehicle_type_id: str | None = None,
    region: GeofencingZone | None = None,
) -> tuple[BoolArray | None, BoolArray | None]:
    """Edges a rented vehicle may not enter, and vertices where it may be left.

    An edge is closed when its start, end or middle lies where riding through is not
    allowed.  ``region``: the network's drop-off region (the ibi fork's
    ``regionsGeoJson``): a vehicle is left only at vertices inside it too.  ``(None,
    None)`` when the network has neither zones, global rules nor a region.
    """
    if not len(zones) and not zones.global_rules and region is None:
        return None, None
    # the entry holds ``zones`` and ``region``, so their ids are not reused while it lives
    key = (id(zones), id(region), vehicle_type_id)
    cached = _GEOFENCE.get(graph, key)
    if cached is not None and cached[0] is zones and cached[1] is region:
        return cached[2]
    v_lat = np.asarray(graph.vertex_lat, dtype=np.float64)
    v_lon = np.asarray(graph.vertex_lon, dtype=np.float64)
    no_ride: BoolArray | None = None
    end_v: BoolArray | None = None
    if len(zones) or zones.global_rules:
        through_v, end_v = _zone_rules(zones, v_lat, v_lon, vehicle_type_id)
        ef, et = np.asarray(graph.edge_from), np.asarray(graph.edge_to)
        m_lat, m_lon = (v_lat[ef] + v_lat[et]) / 2.0, (v_lon[ef] + v_lon[et]) / 2.0
        through_m, _ = _zone_rules(zones, m_lat, m_lon, vehicle_type_id)
        no_ride = ~(through_v[ef] & through_v[et] & through_m)
    if region is not None:
        inside = np.asarray(region.contains(v_lat, v_lon), dtype=bool)
        end_v = inside if end_v is None else end_v & inside
    result = (no_ride, end_v)
    _GEOFENCE.get_or_build(graph, key, lambda: (zones, region, result))
    return result
