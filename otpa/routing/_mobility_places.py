"""Where a trip may change vehicle: rental stations and vehicles, parking lots.

The routing side of shared mobility reads these as plain tuples of
:class:`VehiclePlace`, each linked to one street vertex (the nearer end of the
nearest edge a cyclist may ride or walk, found with the vectorised snap, so the
shared graph is never split).  The places come from the network's OSM features
(``amenity=bicycle_rental``, ``amenity=bicycle_parking``, park-and-ride lots), or
from a rental snapshot handed in by the caller (``otpa.mobility`` feeds):
availability is a property of the snapshot, the street graph never changes.

OSM rental stations carry no availability: as OTP 1.x's static bike rental, they
always have a bike to rent and a dock to return one to.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from otpa.network import TransportNetwork
from otpa.routing._snap import snap_many
from otpa.types import Int32Array

__all__ = [
    "LinkedPlaces",
    "VehiclePlace",
    "link_places",
    "osm_bike_parkings",
    "osm_park_and_rides",
    "osm_rental_stations",
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


def _osm_places(features: Sequence[Mapping[str, Any]], kind: str) -> tuple[VehiclePlace, ...]:
    out = []
    for f in features:
        tags = f.get("tags") or {}
        network = tags.get("network") or tags.get("operator")
        name = f.get("name") or tags.get("name") or kind
        out.append(
            VehiclePlace(
                id=f"osm:{f.get('osm_type', 'node')}:{f.get('osm_id')}",
                name=str(name),
                lat=float(f["lat"]),
                lon=float(f["lon"]),
                networks=(str(network),) if network and kind == "rental" else (),
            )
        )
    return tuple(out)


def osm_rental_stations(network: TransportNetwork) -> tuple[VehiclePlace, ...]:
    """The OSM bike rental stations of a network (availability unknown: always usable)."""
    return _osm_places(network.features.get("bike_rental", []), "rental")


def osm_bike_parkings(network: TransportNetwork) -> tuple[VehiclePlace, ...]:
    """The OSM bike parkings of a network."""
    return _osm_places(network.features.get("bike_parking", []), "Bike parking")


def osm_park_and_rides(network: TransportNetwork) -> tuple[VehiclePlace, ...]:
    """The OSM park-and-ride lots of a network."""
    return _osm_places(network.features.get("park_and_ride", []), "Park and ride")
