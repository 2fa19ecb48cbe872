"""Real-time transit data: GTFS-RT trip updates, alerts and vehicle positions as snapshots.

A ``stop-time-updater`` (configured in ``router-config.json``, run by
:mod:`otpa.updaters`) parses each GTFS-RT feed (:func:`parse_feed`), matches its
trip updates against the network's trips and service days (:func:`trip_updates`,
OpenTripPlanner 1.x's propagation rules) and publishes a new
:class:`TimetableSnapshot` in the network's :class:`RealtimeStore`.  A plan reads
:func:`current_snapshot` once at its start and searches the snapshot's RAPTOR
timetable (:meth:`TimetableSnapshot.raptor_timetable`).  ``real-time-alerts`` updaters
and alert patches (:mod:`otpa.realtime.patches`) put :class:`Alert` objects into the
snapshot's :class:`AlertSet`; ``vehicle-positions`` updaters publish a :class:`VehicleSet`
(:func:`current_vehicles`).
"""

from otpa.realtime.alerts import (
    Alert,
    AlertResult,
    AlertSet,
    InformedEntity,
    TranslatedText,
    alerts_from_feed,
    route_agency,
)
from otpa.realtime.index_times import (
    added_trip,
    added_trip_times,
    realtime_stop_times,
    realtime_trip_times,
)
from otpa.realtime.patches import (
    MAX_PATCHES,
    PATCH_SOURCE,
    AlertPatchError,
    AlertPatchFile,
    patch_from_json,
    patch_to_json,
    patches_from_json,
)
from otpa.realtime.snapshot import TimetableSnapshot, TripRealtime
from otpa.realtime.store import (
    RealtimeStore,
    alert_applier,
    current_snapshot,
    current_vehicles,
    start_updaters,
    store_for,
    trip_update_applier,
    vehicle_position_applier,
)
from otpa.realtime.trip_updates import (
    AddedTrip,
    FeedError,
    TripUpdateResult,
    parse_feed,
    trip_updates,
)
from otpa.realtime.vehicles import VehiclePosition, VehicleSet, vehicle_positions

__all__ = [
    "MAX_PATCHES",
    "PATCH_SOURCE",
    "AddedTrip",
    "Alert",
    "AlertPatchError",
    "AlertPatchFile",
    "AlertResult",
    "AlertSet",
    "FeedError",
    "InformedEntity",
    "RealtimeStore",
    "TimetableSnapshot",
    "TranslatedText",
    "TripRealtime",
    "TripUpdateResult",
    "VehiclePosition",
    "VehicleSet",
    "added_trip",
    "added_trip_times",
    "alert_applier",
    "alerts_from_feed",
    "current_snapshot",
    "current_vehicles",
    "parse_feed",
    "patch_from_json",
    "patch_to_json",
    "patches_from_json",
    "realtime_stop_times",
    "realtime_trip_times",
    "route_agency",
    "start_updaters",
    "store_for",
    "trip_update_applier",
    "trip_updates",
    "vehicle_position_applier",
    "vehicle_positions",
]
