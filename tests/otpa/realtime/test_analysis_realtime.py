"""Travel-time analysis searches the real-time timetable, as ``otpa.plan`` does.

MMRI case 3b (``stop_times.txt``): 3b|1 leaves 3b1 at 00:01 and reaches 3b2 at 00:02
on 2014-01-01; ``3b.pb`` delays it by 600 s (00:11 -> 00:12) and 3b|2 (00:11 -> 00:12)
by 60 s.  From 3b1 at 00:01 with no boarding slack and no walk between the stops (the
access limit of 60 s is shorter than their 111 m), the scheduled answer is 60 s, the
real-time one 660 s (3b|1 at 00:11 -> 00:12).
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import numpy as np

from otpa.analysis import PointSet, compute_time_surface, travel_time_matrix
from otpa.network import BuildConfig, build_network
from otpa.realtime import trip_update_applier
from tests.conftest import require_data

AMS = ZoneInfo("Europe/Amsterdam")
# stops.txt: 3b1 (3.201, 3.2), 3b2 (3.202, 3.2)
POINTS = PointSet(np.array(["3b1", "3b2"]), np.array([3.201, 3.202]), np.array([3.2, 3.2]))
OPTIONS = {"board_slack_s": 0, "max_walk_time_s": 60, "max_rides": 1}


def test_surface_and_matrix_see_the_snapshot() -> None:
    data = require_data("tiny", "mmri")
    network = build_network(data / "3b", config=BuildConfig(max_transfer_distance_m=0.0))
    departure = dt.datetime(2014, 1, 1, 0, 1, tzinfo=AMS)

    def times(**extra: object) -> tuple[float, float]:
        surface = compute_time_surface(
            network, (3.201, 3.2), departure, target=POINTS, **OPTIONS, **extra
        )
        matrix = travel_time_matrix(network, POINTS, departure=departure, **OPTIONS, **extra)
        to_3b2 = float(surface["travel_time"].sel(percentile=50).values.ravel()[1])
        return to_3b2, float(matrix.sel(percentile=50).values[0, 1])

    assert times() == (60.0, 60.0)
    apply = trip_update_applier(network, "3b", "updater-0")
    report = apply((data / "3b.pb").read_bytes())
    assert report.applied == 2
    assert times() == (660.0, 660.0)
    assert times(ignore_realtime_updates=True) == (60.0, 60.0)
