"""Rental stations and parking read from OSM at build time (``TransportNetwork.features``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from otpa.errors import InvalidArgumentError
from otpa.mobility.model import (
    BoolArray,
    ParkingLots,
    RentalSnapshot,
    RentalStations,
    SystemInformation,
)
from otpa.network import TransportNetwork
from otpa.util.cache import OwnerCache
from otpa.util.geo import haversine_m

__all__ = ["PARKING_KINDS", "near_transit", "osm_rental_snapshot", "parking_lots"]

#: The parking kinds of the build's OSM features.
PARKING_KINDS = ("park_and_ride", "bike_parking")

_CACHE: OwnerCache[str, Any] = OwnerCache()


def _capacity(tags: Mapping[str, Any]) -> int:
    raw = tags.get("capacity")
    try:
        value = int(str(raw).strip())
    except (TypeError, ValueError):
        return -1
    return value if value >= 0 else -1


def _fid(f: Mapping[str, Any]) -> str:
    return f"osm:{f.get('osm_type', 'node')}:{int(f['osm_id'])}"


def parking_lots(network: TransportNetwork, kind: str) -> ParkingLots:
    """The OSM park-and-ride lots (``kind="park_and_ride"``) or bike parking (``"bike_parking"``).

    Raises
    ------
    ValueError
        ``kind`` is neither.
    """
    if kind not in PARKING_KINDS:
        msg = f"parking kind must be one of {PARKING_KINDS}, got {kind!r}"
        raise InvalidArgumentError(msg)

    def build() -> ParkingLots:
        rows = network.features.get(kind, [])
        lat = np.array([float(f["lat"]) for f in rows], dtype=np.float64)
        lon = np.array([float(f["lon"]) for f in rows], dtype=np.float64)
        cap = np.array([_capacity(f.get("tags", {})) for f in rows], dtype=np.int32)
        for a in (lat, lon, cap):
            a.setflags(write=False)
        return ParkingLots(
            kind=kind,
            ids=tuple(_fid(f) for f in rows),
            names=tuple(f.get("name") for f in rows),
            lat=lat,
            lon=lon,
            capacity=cap,
        )

    out: ParkingLots = _CACHE.get_or_build(network, f"parking:{kind}", build)
    return out


def osm_rental_snapshot(network: TransportNetwork) -> RentalSnapshot | None:
    """The OSM ``amenity=bicycle_rental`` stations as a static snapshot (None: there are none).

    As OpenTripPlanner 1.x's static bike rental: a station of capacity ``c`` holds
    ``c - c // 2`` bikes and ``c // 2`` free docks (-1 both when no capacity is tagged,
    i.e. unknown and treated as available); its network is the ``network`` tag, else the
    ``operator`` tag, else ``osm``; ``real_time`` is False.
    """

    def build() -> RentalSnapshot | None:
        feats = network.features.get("bike_rental", [])
        if not feats:
            return None
        rows = []
        for f in feats:
            tags = f.get("tags", {})
            cap = _capacity(tags)
            spaces = cap // 2 if cap >= 0 else -1
            rows.append(
                {
                    "id": _fid(f),
                    "name": f.get("name") or tags.get("ref") or _fid(f),
                    "network": str(tags.get("network") or tags.get("operator") or "osm"),
                    "lat": float(f["lat"]),
                    "lon": float(f["lon"]),
                    "capacity": cap,
                    "vehicles_available": cap - spaces if cap >= 0 else -1,
                    "spaces_available": spaces,
                    "real_time": False,
                }
            )
        return RentalSnapshot(
            network="osm",
            kind="osm",
            system=SystemInformation(system_id="osm", name="OpenStreetMap bicycle rental"),
            stations=RentalStations.from_rows(rows),
        )

    out: RentalSnapshot | None = _CACHE.get_or_build(network, "rental", build)
    return out



def near_transit(network: TransportNetwork, lots: ParkingLots, max_distance_m: float) -> BoolArray:
    """Which lots have a transit stop within ``max_distance_m`` (great-circle distance).

    Used by ``/park_and_ride``'s ``maxTransitDistance``; a network without stops keeps none.
    """
    out = np.zeros(len(lots), dtype=np.bool_)
    stops = network.transit.stops
    if len(lots) == 0 or len(stops) == 0:
        return out
    slat = stops.lat.to_numpy(float)
    slon = stops.lon.to_numpy(float)
    ok = np.isfinite(slat) & np.isfinite(slon)
    slat, slon = slat[ok], slon[ok]
    for i in range(len(lots)):
        d = haversine_m(lots.lat[i], lots.lon[i], slat, slon)
        out[i] = bool(np.any(d <= max_distance_m))
    return out
