"""Shared mobility data: rental stations and vehicles (GBFS, OSM), parking, ride-hail estimates.

The data routing reads is immutable (:mod:`otpa.mobility.model`): each rental network's
feed becomes a :class:`RentalSnapshot`, and a router's :class:`RentalState` (every network's
latest snapshot) is swapped atomically in its :class:`MobilityStore` by the rental updaters.
A plan takes :func:`current_rental` once at its start.  Parking lots and static rental
stations come from the build's OSM features (:func:`parking_lots`, :func:`osm_rental_snapshot`).
"""

from otpa.mobility.model import (
    FORM_FACTORS,
    RENTAL_KINDS,
    FeedMessage,
    FreeVehicles,
    GeofencingZone,
    GeofencingZones,
    ParkingLots,
    PricingPlan,
    RentalSnapshot,
    RentalState,
    RentalStations,
    SystemInformation,
    VehicleTypes,
    ZoneRule,
    rental_kind_of,
)
from otpa.mobility.osm_features import PARKING_KINDS, osm_rental_snapshot, parking_lots
from otpa.mobility.store import MobilityStore, current_rental, mobility_store_for

__all__ = [
    "FORM_FACTORS",
    "PARKING_KINDS",
    "RENTAL_KINDS",
    "FeedMessage",
    "FreeVehicles",
    "GeofencingZone",
    "GeofencingZones",
    "MobilityStore",
    "ParkingLots",
    "PricingPlan",
    "RentalSnapshot",
    "RentalState",
    "RentalStations",
    "SystemInformation",
    "VehicleTypes",
    "ZoneRule",
    "current_rental",
    "mobility_store_for",
    "osm_rental_snapshot",
    "parking_lots",
    "rental_kind_of",
]
