"""Build configuration (``build-config.json``), validated early; unknown keys warn."""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from otpa.errors import NetworkBuildError, OtpaWarning
from otpa.street import WALK_SPEED_MPS
from otpa.types import PathLike

__all__ = ["BuildConfig", "load_build_config"]

# OTP 1.x build-config keys we accept but that change nothing here.
_ACCEPTED_OTP_KEYS = frozenset(
    {
        "fetchElevationUS",
        "elevationBucket",
        "htmlAnnotations",
        "osmWayPropertySet",
        "staticBikeRental",
        "staticParkAndRide",
        "staticBikeParking",
        "stationTransfers",
        "parentStopLinking",
        "useTransfersTxt",
        "platformEntriesLinking",
        "matchBusRoutesToStreets",
        "fareServiceFactory",
        "customNamer",
        "banDiscouragedWalking",
        "banDiscouragedBiking",
        "readCachedElevations",
        "writeCachedElevations",
        "multiThreadElevationCalculations",
        "boardingLocationTags",
    }
)


@dataclass(frozen=True)
class BuildConfig:
    """Options for :func:`otpa.network.build_network`.

    Attributes
    ----------
    max_transfer_distance_m
        Longest walking transfer between stops (OTP ``maxTransferDistance``).
    island_without_stops_max_size, island_with_stops_max_size
        Street islands smaller than these (in vertices) are pruned.
    stop_link_max_distance_m
        Stops farther than this from any walkable street stay unlinked.
    area_visibility
        Build walk edges across pedestrian areas (OTP ``areaVisibility``).
    time_zone
        Time zone of a network without transit (transit networks use their
        agencies' zone).
    walk_speed_mps
        Walking speed used for the precomputed transfer times.
    straight_line_transfers
        Networks without streets only: also let travellers walk in a straight
        line between any two stops closer than ``max_transfer_distance_m``
        (``build-config.json`` ``straightLineTransfers``).  Off by default: as
        in OTP 1.x, without streets a traveller moves between stops only along
        transfers.txt rows and between the stops of one parent station.
    municipality_admin_level
        OSM ``admin_level`` of the ``boundary=administrative`` relations kept as
        municipality boundaries for the municoder (a ``boundaries.geojson`` file
        in the build folder is used instead when present).
    """

    max_transfer_distance_m: float = 2000.0
    island_without_stops_max_size: int = 40
    island_with_stops_max_size: int = 5
    stop_link_max_distance_m: float = 1000.0
    area_visibility: bool = True
    time_zone: str | None = None
    walk_speed_mps: float = WALK_SPEED_MPS
    straight_line_transfers: bool = False
    municipality_admin_level: int = 8

    def to_dict(self) -> dict[str, Any]:
        """The options as a JSON-serialisable dict."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


_KEYS = {
    "maxTransferDistance": "max_transfer_distance_m",
    "islandWithoutStopsMaxSize": "island_without_stops_max_size",
    "islandWithStopsMaxSize": "island_with_stops_max_size",
    "stopLinkMaxDistance": "stop_link_max_distance_m",
    "areaVisibility": "area_visibility",
    "timeZone": "time_zone",
    "walkSpeed": "walk_speed_mps",
    "straightLineTransfers": "straight_line_transfers",
    "municipalityAdminLevel": "municipality_admin_level",
}


def load_build_config(path: PathLike | None) -> BuildConfig:
    """Read ``build-config.json`` (OTP 1.x key names), or defaults when ``path`` is None.

    Raises
    ------
    otpa.errors.NetworkBuildError
        If the file is not valid JSON or a value has the wrong type.
    """
    if path is None or not Path(path).exists():
        return BuildConfig()
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except ValueError as exc:
        msg = f"{path}: not valid JSON ({exc})"
        raise NetworkBuildError(msg) from None
    if not isinstance(raw, dict):
        msg = f"{path}: expected a JSON object"
        raise NetworkBuildError(msg)
    defaults = BuildConfig()
    values: dict[str, Any] = {}
    for key, value in raw.items():
        name = _KEYS.get(key)
        if name is None:
            if key not in _ACCEPTED_OTP_KEYS:
                warnings.warn(
                    f"{path}: unknown build-config key {key!r} ignored", OtpaWarning, stacklevel=2
                )
            continue
        expected = type(getattr(defaults, name))
        if name == "time_zone":
            ok = isinstance(value, str)
        elif expected is bool:
            ok = isinstance(value, bool)
        else:
            ok = isinstance(value, int | float) and not isinstance(value, bool) and value >= 0
        if not ok:
            kind = "string" if name == "time_zone" else f"non-negative {expected.__name__}"
            msg = f"{path}: {key} must be a {kind}"
            raise NetworkBuildError(msg)
        values[name] = expected(value) if name != "time_zone" else value
    return BuildConfig(**values)
