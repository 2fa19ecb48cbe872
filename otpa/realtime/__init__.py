"""Real-time transit data: GTFS-RT trip updates applied as immutable timetable snapshots.

A ``stop-time-updater`` (configured in ``router-config.json``, run by
:mod:`otpa.updaters`) parses each GTFS-RT feed (:func:`parse_feed`), matches its
trip updates against the network's trips and service days (:func:`trip_updates`,
OpenTripPlanner 1.x's propagation rules) and publishes a new
:class:`TimetableSnapshot` in the network's :class:`RealtimeStore`.  A plan reads
:func:`current_snapshot` once at its start and searches the snapshot's RAPTOR
timetable (:meth:`TimetableSnapshot.raptor_timetable`).
"""

from otpa.realtime.index_times import realtime_stop_times, realtime_trip_times
from otpa.realtime.snapshot import TimetableSnapshot, TripRealtime
from otpa.realtime.store import (
    RealtimeStore,
    current_snapshot,
    start_updaters,
    store_for,
    trip_update_applier,
)
from otpa.realtime.trip_updates import FeedError, TripUpdateResult, parse_feed, trip_updates

__all__ = [
    "FeedError",
    "RealtimeStore",
    "TimetableSnapshot",
    "TripRealtime",
    "TripUpdateResult",
    "current_snapshot",
    "parse_feed",
    "realtime_stop_times",
    "realtime_trip_times",
    "start_updaters",
    "store_for",
    "trip_update_applier",
    "trip_updates",
]
