"""Real-time updaters: configuration, background polling, back-off and status.

The shared machinery of every real-time source (GTFS-RT trip updates today;
alerts, vehicle positions and vehicle rental later).  An updater is configured in
``router-config.json`` in OpenTripPlanner 1.x's format (:func:`parse_updaters`),
fetches its feed from a file or a URL (:func:`fetch_source`) and hands the bytes
to an *apply* function of the domain package that understands them
(:mod:`otpa.realtime` for trip updates).  :class:`PollingUpdater` runs that in a
background thread every ``frequencySec`` seconds, backs off on errors and keeps
a :class:`UpdaterStatus`; a failed fetch or apply never replaces the last good
state (the apply function swaps its snapshot only on success).
"""

from otpa.updaters.config import (
    UPDATER_TYPES,
    UnsupportedUpdaterError,
    UpdaterConfig,
    UpdaterConfigError,
    parse_updaters,
)
from otpa.updaters.polling import ApplyReport, PollingUpdater, UpdaterStatus, fetch_source

__all__ = [
    "UPDATER_TYPES",
    "ApplyReport",
    "PollingUpdater",
    "UnsupportedUpdaterError",
    "UpdaterConfig",
    "UpdaterConfigError",
    "UpdaterStatus",
    "fetch_source",
    "parse_updaters",
]
