"""Rental stations and park-and-ride lots: ``bike_rental``, ``car_rental``, ``vehicle_rental``,
``park_and_ride`` under ``/otp/routers/{routerId}/``.

OTP 1.x's (ibi fork's) shapes, fed live by the GBFS updaters (:mod:`otpa.mobility`):

* ``bike_rental`` — ``{stations: [BikeRentalStation], errorsByNetwork,
  systemInformationDataByNetwork}`` from the ``bike-rental`` feeds (docked stations, and
  free-floating bikes with ``isFloatingBike``), or the build's OSM
  ``amenity=bicycle_rental`` stations while no such feed is live; ``{stations: []}`` without any;
* ``car_rental`` / ``vehicle_rental`` — ``CarRentalStation`` / ``VehicleRentalStation`` from
  the ``car-rental`` / ``vehicle-rental`` feeds; ``company`` keeps the stations of those
  networks (a comma list);
* ``park_and_ride`` — ``[{name, x, y}]`` of the OSM park-and-ride lots; ``maxTransitDistance``
  (metres) keeps the lots with a transit stop that close.

``lowerLeft`` and ``upperRight`` (``lat,lon`` each) bound the answer; they go together.
Counts a feed does not give are ``2147483647`` (OTP's ``Integer.MAX_VALUE``).  XML is
offered where OTP 1.x offered it (the three rental lists).  Differences from OTP 1.x: an
unknown router is a 404 and a malformed or half-given box a 400 (OTP answered 500).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import tornado.web
from tornado.routing import URLSpec

from otpa.mobility import (
    FeedMessage,
    RentalSnapshot,
    RentalState,
    current_rental,
    mobility_store_for,
    near_transit,
    parking_lots,
)
from otpa.network import TransportNetwork
from service.handlers.base import BaseHandler
from service.openapi import Operation, Param
from service.otp1.errors import ApiError
from service.otp1.profile_models import parse_lat_lon

__all__ = [
    "BikeRentalHandler",
    "CarRentalHandler",
    "ParkAndRideHandler",
    "VehicleRentalHandler",
    "rental_urls",
]

#: OTP's ``Integer.MAX_VALUE``: a count the feed does not give.
UNSET = 2147483647

_BOX = (
    Param("lowerLeft", {"type": "string"}, "lat,lon of the box's lower-left corner"),
    Param("upperRight", {"type": "string"}, "lat,lon of the box's upper-right corner"),
    Param("locale", {"type": "string"}, "accepted; names are the feed's"),
)
_COMPANY = Param("company", {"type": "string"}, "keep these networks (comma list)")

_SEVERITY_BY_FILE = {
    "system_information": "SYSTEM_INFORMATION",
    "station_information": "ALL_STATIONS",
    "station_status": "ALL_STATIONS",
    "free_bike_status": "ALL_FLOATING_VEHICLES",
    "vehicle_status": "ALL_FLOATING_VEHICLES",
}


def _severity(m: FeedMessage) -> str:
    if m.level == "warning" and m.file in ("station_information", "station_status"):
        return "INDIVIDUAL_DOCKING_STATION"
    if m.level == "warning" and m.file in ("free_bike_status", "vehicle_status"):
        return "INDIVIDUAL_VEHICLE"
    return _SEVERITY_BY_FILE.get(m.file, "FEED_WIDE")


def _count(value: int) -> int:
    return UNSET if value < 0 else int(value)


def _system_json(snap: RentalSnapshot) -> dict[str, Any]:
    s = snap.system
    return {
        "systemId": s.system_id,
        "name": s.name,
        "operator": s.operator,
        "timezone": s.timezone,
        "language": s.language,
        "url": s.url,
    }


class _Box:
    """The ``lowerLeft``/``upperRight`` filter (everything when neither is given)."""

    def __init__(self, handler: BaseHandler) -> None:
        ll = handler.get_query_argument("lowerLeft", None)
        ur = handler.get_query_argument("upperRight", None)
        if (ll is None) != (ur is None):
            msg = "Query parameters lowerLeft and upperRight go together (lat,lon each)."
            raise ApiError(400, msg)
        self.box: tuple[float, float, float, float] | None = None
        if ll is not None and ur is not None:
            la0, lo0 = parse_lat_lon("lowerLeft", ll)
            la1, lo1 = parse_lat_lon("upperRight", ur)
            self.box = (min(la0, la1), min(lo0, lo1), max(la0, la1), max(lo0, lo1))

    def mask(self, lat: np.ndarray, lon: np.ndarray) -> np.ndarray:
        if self.box is None:
            return np.ones(lat.shape[0], dtype=np.bool_)
        la0, lo0, la1, lo1 = self.box
        out: np.ndarray = (lat >= la0) & (lat <= la1) & (lon >= lo0) & (lon <= lo1)
        return out


def _companies(handler: BaseHandler) -> frozenset[str] | None:
    raw = handler.get_query_argument("company", None)
    if raw is None or not raw.strip():
        return None
    return frozenset(c.strip() for c in raw.split(",") if c.strip())


StationWriter = Callable[[RentalSnapshot, int, bool], dict[str, Any]]


def rental_listing(
    network: TransportNetwork,
    kinds: Sequence[str],
    write: StationWriter,
    box: _Box,
    companies: frozenset[str] | None,
    *,
    floating: bool = True,
) -> dict[str, Any]:
    """The body of a rental list: stations of the snapshots of ``kinds``, errors, systems.

    ``write(snapshot, row, is_floating)`` makes one station object (a docked station's row,
    or a free-floating vehicle's).
    """
    state: RentalState = current_rental(network, include_osm="osm" in kinds)
    snaps = [state.snapshots[n] for n in state.networks if state.snapshots[n].kind in kinds]
    if companies is not None:
        snaps = [s for s in snaps if s.network in companies]
    stations: list[dict[str, Any]] = []
    errors: dict[str, list[dict[str, str]]] = {}
    systems: dict[str, dict[str, Any]] = {}
    for snap in snaps:
        st = snap.stations
        keep = box.mask(st.lat, st.lon)
        stations.extend(write(snap, int(i), False) for i in np.flatnonzero(keep))
        if floating:
            fv = snap.vehicles
            keep = box.mask(fv.lat, fv.lon) & fv.available_mask()
            stations.extend(write(snap, int(i), True) for i in np.flatnonzero(keep))
        if snap.kind != "osm":
            systems[snap.network] = _system_json(snap)
        if snap.messages:
            errors[snap.network] = [
                {"message": f"{m.file}: {m.message}", "severity": _severity(m)}
                for m in snap.messages
            ]
    live = {s.network for s in snaps}
    for name, messages in mobility_store_for(network).errors().items():
        if companies is None or name in companies:
            errors.setdefault(name, []).extend(
                {"message": m, "severity": "FEED_WIDE"} for m in messages
            )
            live.add(name)
    out: dict[str, Any] = {"stations": stations}
    if live:
        out["errorsByNetwork"] = errors
        out["systemInformationDataByNetwork"] = systems
    return out


def _bike_station(snap: RentalSnapshot, i: int, floating: bool) -> dict[str, Any]:
    if floating:
        fv = snap.vehicles
        return {
            "id": fv.ids[i],
            "name": fv.ids[i],
            "x": float(fv.lon[i]),
            "y": float(fv.lat[i]),
            "bikesAvailable": 1,
            "spacesAvailable": 0,
            "allowDropoff": False,
            "allowPickup": True,
            "isFloatingBike": True,
            "isCarStation": False,
            "networks": [snap.network],
            "realTimeData": True,
            "lastReportedEpochSeconds": int(snap.last_updated),
        }
    st = snap.stations
    return {
        "id": st.ids[i],
        "name": st.names[i],
        "x": float(st.lon[i]),
        "y": float(st.lat[i]),
        "bikesAvailable": _count(int(st.vehicles_available[i])),
        "spacesAvailable": _count(int(st.spaces_available[i])),
        "allowDropoff": bool(st.allow_dropoff[i]),
        "allowPickup": bool(st.allow_pickup[i]),
        "isFloatingBike": False,
        "isCarStation": False,
        "networks": [st.network[i]],
        "realTimeData": bool(st.real_time[i]),
        "lastReportedEpochSeconds": int(snap.last_updated),
    }


def _fuel(propulsion: str) -> str:
    if propulsion.startswith("ELECTRIC"):
        return "electric"
    if propulsion.startswith("COMBUSTION") or propulsion in ("HYBRID", "PLUG_IN_HYBRID"):
        return "gasoline"
    return "unknown"


def _station_propulsion(snap: RentalSnapshot, i: int) -> str:
    index = snap.vehicle_types.index()
    for tid in snap.stations.vehicle_type_ids[i]:
        if tid in index:
            return snap.vehicle_types.propulsion[index[tid]]
    return "UNKNOWN"


def _car_station(snap: RentalSnapshot, i: int, floating: bool) -> dict[str, Any]:
    if floating:
        fv = snap.vehicles
        return {
            "id": fv.ids[i],
            "name": fv.ids[i],
            "x": float(fv.lon[i]),
            "y": float(fv.lat[i]),
            "allowDropoff": False,
            "allowPickup": True,
            "networks": [snap.network],
            "lastReportedEpochSeconds": int(snap.last_updated),
            "carsAvailable": 1,
            "spacesAvailable": 0,
            "isFloatingCar": True,
            "fuelType": _fuel(fv.propulsion[i]),
        }
    st = snap.stations
    return {
        "id": st.ids[i],
        "name": st.names[i],
        "x": float(st.lon[i]),
        "y": float(st.lat[i]),
        "allowDropoff": bool(st.allow_dropoff[i]),
        "allowPickup": bool(st.allow_pickup[i]),
        "networks": [st.network[i]],
        "lastReportedEpochSeconds": int(snap.last_updated),
        "carsAvailable": _count(int(st.vehicles_available[i])),
        "spacesAvailable": _count(int(st.spaces_available[i])),
        "isFloatingCar": False,
        "fuelType": _fuel(_station_propulsion(snap, i)),
        "address": st.address[i] if i < len(st.address) else None,
    }


def _vehicle_station(snap: RentalSnapshot, i: int, floating: bool) -> dict[str, Any]:
    if floating:
        fv = snap.vehicles
        return {
            "id": fv.ids[i],
            "name": fv.ids[i],
            "x": float(fv.lon[i]),
            "y": float(fv.lat[i]),
            "allowDropoff": False,
            "allowPickup": True,
            "networks": [snap.network],
            "lastReportedEpochSeconds": int(snap.last_updated),
            "vehiclesAvailable": 1,
            "spacesAvailable": 0,
            "isFloatingVehicle": True,
        }
    st = snap.stations
    return {
        "id": st.ids[i],
        "name": st.names[i],
        "x": float(st.lon[i]),
        "y": float(st.lat[i]),
        "allowDropoff": bool(st.allow_dropoff[i]),
        "allowPickup": bool(st.allow_pickup[i]),
        "networks": [st.network[i]],
        "lastReportedEpochSeconds": int(snap.last_updated),
        "vehiclesAvailable": _count(int(st.vehicles_available[i])),
        "spacesAvailable": _count(int(st.spaces_available[i])),
        "isFloatingVehicle": False,
    }


def _xml_variant(body: Mapping[str, Any]) -> dict[str, Any]:
    """The body for XML: maps keyed by network (names that need not be XML names) as lists."""
    out = {"stations": body["stations"]}
    if "errorsByNetwork" in body:
        out["errorsByNetwork"] = [
            {"network": n, "errors": e} for n, e in body["errorsByNetwork"].items()
        ]
        out["systemInformationDataByNetwork"] = [
            {"network": n, **d} for n, d in body["systemInformationDataByNetwork"].items()
        ]
    return out


class _RentalHandler(BaseHandler):
    kinds: ClassVar[tuple[str, ...]] = ()
    root: ClassVar[str] = ""
    with_company: ClassVar[bool] = True
    #: how one station or vehicle is written (read from the class: no method binding)
    writer: ClassVar[StationWriter]

    def get(self, router_id: str) -> None:
        """The stations in the box (all without one)."""
        _, network = self.registry.lookup(router_id)
        box = _Box(self)
        companies = _companies(self) if self.with_company else None
        body = rental_listing(network, self.kinds, type(self).writer, box, companies)
        self.respond(self.root, body, lambda: _xml_variant(body))


class BikeRentalHandler(_RentalHandler):
    """``GET /otp/routers/{routerId}/bike_rental``."""

    kinds = ("bike-rental", "osm")
    root = "BikeRentalStationList"
    writer = _bike_station
    with_company = False
    openapi: ClassVar[dict[str, Operation]] = {
        "get": Operation(
            "Bike rental stations (GBFS bike-rental feeds, else OSM), in a box",
            query=_BOX,
            response="BikeRentalStationList",
            xml=True,
        )
    }

class CarRentalHandler(_RentalHandler):
    """``GET /otp/routers/{routerId}/car_rental``."""

    kinds = ("car-rental",)
    root = "CarRentalStationList"
    writer = _car_station
    openapi: ClassVar[dict[str, Operation]] = {
        "get": Operation(
            "Car rental stations and free-floating cars (GBFS car-rental feeds), in a box",
            query=(*_BOX, _COMPANY),
            response="CarRentalStationList",
            xml=True,
        )
    }

class VehicleRentalHandler(_RentalHandler):
    """``GET /otp/routers/{routerId}/vehicle_rental``."""

    kinds = ("vehicle-rental",)
    root = "VehicleRentalStationList"
    writer = _vehicle_station
    openapi: ClassVar[dict[str, Operation]] = {
        "get": Operation(
            "Micromobility rental stations and free-floating vehicles (GBFS vehicle-rental feeds)",
            query=(*_BOX, _COMPANY),
            response="VehicleRentalStationList",
            xml=True,
        )
    }

def park_and_ride_listing(
    network: TransportNetwork, box: _Box, max_transit_distance_m: float | None
) -> list[dict[str, Any]]:
    """``[{name, x, y}]`` of the park-and-ride lots in the box (and near transit)."""
    lots = parking_lots(network, "park_and_ride")
    keep = box.mask(lots.lat, lots.lon)
    if max_transit_distance_m is not None:
        keep &= near_transit(network, lots, max_transit_distance_m)
    return [
        {"name": lots.names[i] or "Park and ride", "x": float(lots.lon[i]), "y": float(lots.lat[i])}
        for i in (int(j) for j in np.flatnonzero(keep))
    ]


class ParkAndRideHandler(BaseHandler):
    """``GET /otp/routers/{routerId}/park_and_ride``."""

    openapi: ClassVar[dict[str, Operation]] = {
        "get": Operation(
            "Park-and-ride lots (OSM), in a box; maxTransitDistance keeps those near a stop",
            query=(
                *_BOX[:2],
                Param(
                    "maxTransitDistance",
                    {"type": "number", "minimum": 0},
                    "metres: keep lots with a transit stop this close",
                    empty_is_absent=True,
                ),
            ),
            response="array:ParkAndRide",
        )
    }

    async def get(self, router_id: str) -> None:
        """The park-and-ride lots."""
        _, network = self.registry.lookup(router_id)
        box = _Box(self)
        raw = self.get_query_argument("maxTransitDistance", None)
        dist: float | None = None
        if raw is not None and raw.strip():
            try:
                dist = float(raw)
            except ValueError:
                dist = math.nan
            if not math.isfinite(dist) or dist < 0:
                msg = f"Query parameter maxTransitDistance={raw!r} is not a distance in metres."
                raise ApiError(400, msg)
        body = await self.run_blocking(park_and_ride_listing, network, box, dist)
        self.write_json(body)


def rental_urls(args: Mapping[str, Any]) -> list[URLSpec]:
    """The URL rules of the rental and park-and-ride endpoints."""
    return [
        tornado.web.url(r"/otp/routers/([^/]+)/bike_rental/?", BikeRentalHandler, dict(args)),
        tornado.web.url(r"/otp/routers/([^/]+)/car_rental/?", CarRentalHandler, dict(args)),
        tornado.web.url(r"/otp/routers/([^/]+)/vehicle_rental/?", VehicleRentalHandler, dict(args)),
        tornado.web.url(r"/otp/routers/([^/]+)/park_and_ride/?", ParkAndRideHandler, dict(args)),
    ]
