"""What the reader knows about each GTFS file: required columns, column types, defaults.

Column kinds
------------
``str``
    Text / ids: pandas ``string[pyarrow]`` dtype, missing -> ``<NA>``.
``float``
    float64, missing -> NaN.
``int``
    Integers of the given width.  With a ``default`` the column is a plain numpy int (missing
    -> the GTFS default); without one it is a pandas nullable ``Int`` column (missing ->
    ``<NA>``), used where "missing" means something.
``time``
    Seconds after service-day midnight, int32 (nullable Int32 where a time may be missing).
``date``
    ``YYYYMMDD`` as int32.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

__all__ = ["SPECS", "ColumnSpec", "FileSpec"]

Kind = Literal["str", "float", "int", "time", "date"]


@dataclass(frozen=True)
class ColumnSpec:
    """Type of one column (see the module docstring)."""

    kind: Kind = "str"
    width: Literal[8, 16, 32] = 32
    default: int | None = None
    #: rows without a value are dropped by the cleaner, so the column is a plain numpy int
    required: bool = False

    @property
    def nullable(self) -> bool:
        """Whether the pandas column is a nullable ``Int`` (optional ints without default)."""
        return self.kind in ("int", "time", "date") and self.default is None and not self.required


@dataclass(frozen=True)
class FileSpec:
    """One GTFS file."""

    name: str
    columns: dict[str, ColumnSpec]
    required_columns: tuple[str, ...] = ()
    required_file: bool = False
    #: older / alternative column names -> canonical name
    aliases: dict[str, str] = field(default_factory=dict)


S = ColumnSpec()
F = ColumnSpec("float")
DATE = ColumnSpec("date")
DATE_REQUIRED = ColumnSpec("date", required=True)


def _i(
    width: Literal[8, 16, 32] = 8, default: int | None = None, *, required: bool = False
) -> ColumnSpec:
    return ColumnSpec("int", width, default, required)


def _t(*, required: bool = False) -> ColumnSpec:
    return ColumnSpec("time", 32, None, required)


def _strs(*names: str) -> dict[str, ColumnSpec]:
    return dict.fromkeys(names, S)


_WEEK = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

SPECS: dict[str, FileSpec] = {
    spec.name: spec
    for spec in (
        FileSpec(
            "agency.txt",
            _strs("agency_id", "agency_name", "agency_url", "agency_timezone", "agency_lang")
            | _strs("agency_phone", "agency_fare_url", "agency_email"),
            ("agency_timezone",),
            required_file=True,
        ),
        FileSpec(
            "stops.txt",
            _strs("stop_id", "stop_code", "stop_name", "tts_stop_name", "stop_desc")
            | {"stop_lat": F, "stop_lon": F}
            | _strs("zone_id", "stop_url")
            | {"location_type": _i(8, 0)}
            | _strs("parent_station", "stop_timezone")
            | {"wheelchair_boarding": _i(8, 0)}
            | _strs("level_id", "platform_code"),
            ("stop_id", "stop_lat", "stop_lon"),
            required_file=True,
        ),
        FileSpec(
            "routes.txt",
            _strs("route_id", "agency_id", "route_short_name", "route_long_name", "route_desc")
            | {"route_type": _i(32, required=True)}
            | _strs("route_url", "route_color", "route_text_color")
            | {"route_sort_order": _i(32), "continuous_pickup": _i(8, 1)}
            | {"continuous_drop_off": _i(8, 1)}
            | _strs("network_id")
            | {"eligibility_restricted": _i(8)},
            ("route_id", "route_type"),
            required_file=True,
        ),
        FileSpec(
            "trips.txt",
            _strs("route_id", "service_id", "trip_id", "trip_headsign", "trip_short_name")
            | {"direction_id": _i(8)}
            | _strs("block_id", "shape_id")
            | {"wheelchair_accessible": _i(8, 0), "bikes_allowed": _i(8, 0)}
            # GTFS-Flex safe travel time of on-demand trips (offset in seconds); the flag
            # stop messages of GTFS-Flex v1 (OTP 1.x's flexFlagStop*Message)
            | _strs("safe_duration_factor", "safe_duration_offset")
            | _strs("continuous_pickup_message", "continuous_drop_off_message"),
            ("route_id", "service_id", "trip_id"),
            required_file=True,
        ),
        FileSpec(
            "stop_times.txt",
            _strs("trip_id")
            | {"arrival_time": _t(), "departure_time": _t()}
            | _strs("stop_id", "location_group_id", "location_id")
            | {"stop_sequence": _i(32, required=True)}
            | _strs("stop_headsign")
            | {"start_pickup_drop_off_window": _t(), "end_pickup_drop_off_window": _t()}
            | {"pickup_type": _i(8, 0), "drop_off_type": _i(8, 0)}
            | {"continuous_pickup": _i(8), "continuous_drop_off": _i(8)}
            | {"shape_dist_traveled": F, "timepoint": _i(8, 1)}
            | _strs("pickup_booking_rule_id", "drop_off_booking_rule_id")
            # GTFS-Flex duration factors: numbers, offsets in minutes or HH:MM:SS (drafts)
            | _strs("mean_duration_factor", "mean_duration_offset")
            | _strs("safe_duration_factor", "safe_duration_offset"),
            ("trip_id", "stop_sequence"),
            required_file=True,
            aliases={
                "start_pickup_dropoff_window": "start_pickup_drop_off_window",
                "end_pickup_dropoff_window": "end_pickup_drop_off_window",
                "min_arrival_time": "start_pickup_drop_off_window",
                "max_departure_time": "end_pickup_drop_off_window",
                "dropoff_booking_rule_id": "drop_off_booking_rule_id",
            },
        ),
        FileSpec(
            "calendar.txt",
            _strs("service_id")
            | dict.fromkeys(_WEEK, _i(8, 0))
            | {"start_date": DATE_REQUIRED, "end_date": DATE_REQUIRED},
            ("service_id", *_WEEK, "start_date", "end_date"),
        ),
        FileSpec(
            "calendar_dates.txt",
            _strs("service_id") | {"date": DATE_REQUIRED, "exception_type": _i(8, required=True)},
            ("service_id", "date", "exception_type"),
        ),
        FileSpec(
            "frequencies.txt",
            _strs("trip_id")
            | {"start_time": _t(required=True), "end_time": _t(required=True)}
            | {"headway_secs": _i(32, required=True)}
            | {"exact_times": _i(8, 0)},
            ("trip_id", "start_time", "end_time", "headway_secs"),
        ),
        FileSpec(
            "transfers.txt",
            _strs("from_stop_id", "to_stop_id", "from_route_id", "to_route_id")
            | _strs("from_trip_id", "to_trip_id")
            | {"transfer_type": _i(8, 0), "min_transfer_time": _i(32)},
        ),
        FileSpec(
            "shapes.txt",
            _strs("shape_id")
            | {"shape_pt_lat": F, "shape_pt_lon": F, "shape_pt_sequence": _i(32, required=True)}
            | {"shape_dist_traveled": F},
            ("shape_id", "shape_pt_lat", "shape_pt_lon", "shape_pt_sequence"),
        ),
        FileSpec(
            "fare_attributes.txt",
            _strs("fare_id")
            | {"price": F}
            | _strs("currency_type")
            | {"payment_method": _i(8), "transfers": _i(8)}
            | _strs("agency_id")
            | {"transfer_duration": _i(32)},
            ("fare_id", "price", "currency_type"),
        ),
        FileSpec(
            "fare_rules.txt",
            _strs("fare_id", "route_id", "origin_id", "destination_id", "contains_id"),
            ("fare_id",),
        ),
        FileSpec(
            "feed_info.txt",
            _strs("feed_publisher_name", "feed_publisher_url", "feed_lang", "default_lang")
            | {"feed_start_date": DATE, "feed_end_date": DATE}
            | _strs("feed_version", "feed_contact_email", "feed_contact_url", "feed_id"),
        ),
    )
}

REQUIRED_FILES = tuple(name for name, spec in SPECS.items() if spec.required_file)
