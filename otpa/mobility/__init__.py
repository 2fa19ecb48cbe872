"""Shared mobility data: rental stations and vehicles (GBFS, OSM), parking, ride-hail estimates.

The data routing reads is immutable (:mod:`otpa.mobility.model`): each rental network's
feed becomes a :class:`RentalSnapshot`, and a router's :class:`RentalState` (every network's
latest snapshot) is swapped atomically in its :class:`MobilityStore` by the rental updaters.
A plan takes :func:`current_rental` once at its start.  Parking lots and static rental
stations come from the build's OSM features (:func:`parking_lots`, :func:`osm_rental_snapshot`).
"""

from otpa.mobility.gbfs import (
    GBFS_FILES,
    RENTAL_UPDATER_TYPES,
    GbfsError,
    discover,
    dropoff_region,
    load_gbfs,
    parse_gbfs,
    rental_applier,
)
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
from otpa.mobility.osm_features import (
    PARKING_KINDS,
    near_transit,
    osm_rental_snapshot,
    parking_lots,
)
from otpa.mobility.store import (
    MobilityStore,
    current_rental,
    live_station_count,
    mobility_store_for,
)
from otpa.mobility.tnc import (
    TNC_UPDATER_TYPE,
    EtaEstimate,
    RideEstimate,
    TncConfigError,
    TncError,
    TncProvider,
    configure_tnc,
    estimate_eta,
    estimate_ride,
    tnc_for,
    tnc_providers,
)
from otpa.mobility.updaters import (
    apply_router_config_once,
    rental_updater,
    start_rental_updaters,
    with_rental_updaters,
)

__all__ = [
    "FORM_FACTORS",
    "GBFS_FILES",
    "PARKING_KINDS",
    "RENTAL_KINDS",
    "RENTAL_UPDATER_TYPES",
    "TNC_UPDATER_TYPE",
    "EtaEstimate",
    "FeedMessage",
    "FreeVehicles",
    "GbfsError",
    "GeofencingZone",
    "GeofencingZones",
    "MobilityStore",
    "ParkingLots",
    "PricingPlan",
    "RentalSnapshot",
    "RentalState",
    "RentalStations",
    "RideEstimate",
    "SystemInformation",
    "TncConfigError",
    "TncError",
    "TncProvider",
    "VehicleTypes",
    "ZoneRule",
    "apply_router_config_once",
    "configure_tnc",
    "current_rental",
    "discover",
    "dropoff_region",
    "estimate_eta",
    "estimate_ride",
    "live_station_count",
    "load_gbfs",
    "mobility_store_for",
    "near_transit",
    "osm_rental_snapshot",
    "parking_lots",
    "parse_gbfs",
    "rental_applier",
    "rental_kind_of",
    "rental_updater",
    "start_rental_updaters",
    "tnc_for",
    "tnc_providers",
    "with_rental_updaters",
]
