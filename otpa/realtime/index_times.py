"""Real-time fields of the index API's stop times (OTP's ``TripTimeShort``)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping, Sequence
from zoneinfo import ZoneInfo

from otpa.index import StopTimesInPattern, TripTime
from otpa.network import TransportNetwork
from otpa.realtime.snapshot import TimetableSnapshot
from otpa.transit.model import TransitModel
from otpa.util.cache import OwnerCache

__all__ = ["realtime_stop_times", "realtime_trip_times"]

_TRIP_INDEX: OwnerCache[str, Mapping[str, int]] = OwnerCache()


def _trip_index(model: TransitModel) -> Mapping[str, int]:
    def build() -> Mapping[str, int]:
        ids = model.trips["trip_id"].astype(str).tolist()
        return {trip_id: i for i, trip_id in enumerate(ids)}

    return _TRIP_INDEX.get_or_build(model, "trip_index", build)


def realtime_trip_times(
    network: TransportNetwork, snapshot: TimetableSnapshot | None, times: Sequence[TripTime]
) -> list[TripTime]:
    """The times with the snapshot's real-time state (``UPDATED``/``CANCELED``) filled in.

    Parameters
    ----------
    network
        The network the times are of.
    snapshot
        The real-time snapshot; None: the times as they are (scheduled).
    times
        Trip times from :class:`~otpa.index.TransitIndex`; times not tied to a service
        day (``service_day == 0``, a trip's stop times) show today's state, as OTP 1.x.

    Returns
    -------
    list of TripTime
    """
    if snapshot is None or len(snapshot) == 0:
        return list(times)
    trips = _trip_index(network.transit)
    tz = ZoneInfo(network.time_zone)
    today = dt.datetime.now(tz).date()
    out: list[TripTime] = []
    for t in times:
        trip = trips.get(t.trip_id)
        rt = None
        if trip is not None:
            date = (
                dt.datetime.fromtimestamp(t.service_day + 12 * 3600, tz).date()
                if t.service_day
                else today
            )
            rt = snapshot.trip(trip, date)
        if rt is None:
            out.append(t)
        elif rt.canceled:
            out.append(dataclasses.replace(t, realtime_state="CANCELED", realtime=True))
        else:
            i = t.stop_index
            out.append(
                dataclasses.replace(
                    t,
                    realtime=True,
                    realtime_state="UPDATED",
                    realtime_arrival=int(rt.arrival_s[i]),
                    realtime_departure=int(rt.departure_s[i]),
                )
            )
    return out


def realtime_stop_times(
    network: TransportNetwork,
    snapshot: TimetableSnapshot | None,
    found: Sequence[StopTimesInPattern],
) -> list[StopTimesInPattern]:
    """:func:`realtime_trip_times` applied to every pattern's times."""
    if snapshot is None or len(snapshot) == 0:
        return list(found)
    return [
        dataclasses.replace(f, times=tuple(realtime_trip_times(network, snapshot, f.times)))
        for f in found
    ]
