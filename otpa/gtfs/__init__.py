"""Reading GTFS feeds into typed, validated pandas tables.

>>> from otpa.gtfs import read_gtfs
>>> feed = read_gtfs("caltrain_gtfs.zip")  # doctest: +SKIP
>>> feed.stop_times[["trip_id", "arrival_time", "stop_index"]]  # doctest: +SKIP
"""

from __future__ import annotations

from otpa.gtfs.calendar import ServiceCalendar
from otpa.gtfs.feed import GtfsFeed
from otpa.gtfs.frequencies import expand_frequencies
from otpa.gtfs.ids import default_feed_id, scoped_id
from otpa.gtfs.reader import read_gtfs
from otpa.gtfs.report import ValidationIssue, ValidationReport

__all__ = [
    "GtfsFeed",
    "ServiceCalendar",
    "ValidationIssue",
    "ValidationReport",
    "default_feed_id",
    "expand_frequencies",
    "read_gtfs",
    "scoped_id",
]
