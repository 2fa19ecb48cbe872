"""The rental and parking data routing reads: immutable, array-backed, one snapshot per network.

Everything here is a frozen dataclass; numeric columns are numpy arrays (read-only),
text columns tuples.  A GBFS updater builds a whole :class:`RentalSnapshot` for its
network and publishes it in one swap (:mod:`otpa.mobility.store`), so a reader that
took a :class:`RentalState` keeps a consistent view for the whole of a plan.

Conventions
-----------
* Coordinates are WGS84 degrees (``lat``, ``lon`` float64 arrays).
* ``-1`` in an integer count means *unknown* (no such field in the feed, or a static
  OSM station): routing treats an unknown count as "available".
* Form factors and propulsion types are GBFS's values upper-cased
  (``BICYCLE``, ``CARGO_BICYCLE``, ``CAR``, ``MOPED``, ``SCOOTER``, ``SCOOTER_STANDING``,
  ``SCOOTER_SEATED``, ``OTHER``; ``HUMAN``, ``ELECTRIC_ASSIST``, ``ELECTRIC``,
  ``COMBUSTION``...), as OpenTripPlanner 2 names them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "FORM_FACTORS",
    "RENTAL_KINDS",
    "FeedMessage",
    "FreeVehicles",
    "GeofencingZone",
    "GeofencingZones",
    "ParkingLots",
    "PricingPlan",
    "RentalSnapshot",
    "RentalState",
    "RentalStations",
    "SystemInformation",
    "VehicleTypes",
    "ZoneRule",
    "rental_kind_of",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int32]
BoolArray = npt.NDArray[np.bool_]

#: GBFS form factors (upper case), as OTP 2's ``RentalFormFactor``.
FORM_FACTORS = (
    "BICYCLE",
    "CARGO_BICYCLE",
    "CAR",
    "MOPED",
    "SCOOTER",
    "SCOOTER_STANDING",
    "SCOOTER_SEATED",
    "OTHER",
)

#: The rental kinds of OTP 1.x's modes: ``BICYCLE`` (BICYCLE_RENT), ``CAR`` (CAR_RENT),
#: ``MICROMOBILITY`` (MICROMOBILITY_RENT, the ibi fork's ``vehicle-rental``).
RENTAL_KINDS = ("BICYCLE", "CAR", "MICROMOBILITY")


def rental_kind_of(form_factor: str) -> str:
    """The OTP 1.x rental kind of a GBFS form factor.

    >>> rental_kind_of("CARGO_BICYCLE"), rental_kind_of("CAR"), rental_kind_of("SCOOTER")
    ('BICYCLE', 'CAR', 'MICROMOBILITY')
    """
    if form_factor in ("BICYCLE", "CARGO_BICYCLE"):
        return "BICYCLE"
    if form_factor == "CAR":
        return "CAR"
    return "MICROMOBILITY"


def _ro(a: npt.ArrayLike, dtype: Any) -> Any:
    arr = np.array(a, dtype=dtype)
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True)
class FeedMessage:
    """One problem found reading a feed (``level``: ``error`` or ``warning``)."""

    level: str
    file: str
    message: str

    def __str__(self) -> str:
        return f"{self.level}: {self.file}: {self.message}"


@dataclass(frozen=True)
class SystemInformation:
    """GBFS ``system_information`` (the fields OTP uses)."""

    system_id: str
    name: str
    operator: str | None = None
    timezone: str | None = None
    language: str | None = None
    url: str | None = None


@dataclass(frozen=True)
class VehicleTypes:
    """GBFS ``vehicle_types``: one row per type.

    Attributes
    ----------
    ids, names
        ``vehicle_type_id`` and name (``None`` when absent).
    form_factor, propulsion
        Upper-case GBFS values (see the module notes).
    max_range_m
        ``max_range_meters`` (NaN when absent).
    """

    ids: tuple[str, ...] = ()
    names: tuple[str | None, ...] = ()
    form_factor: tuple[str, ...] = ()
    propulsion: tuple[str, ...] = ()
    max_range_m: FloatArray = field(default_factory=lambda: _ro([], np.float64))

    def __len__(self) -> int:
        return len(self.ids)

    def index(self) -> dict[str, int]:
        """Row of each ``vehicle_type_id``."""
        return {t: i for i, t in enumerate(self.ids)}

    def form_factor_of(self, type_id: str | None, default: str = "BICYCLE") -> str:
        """The form factor of a type id (``default`` for an unknown or missing one)."""
        if type_id is not None:
            for i, t in enumerate(self.ids):
                if t == type_id:
                    return self.form_factor[i]
        return default


@dataclass(frozen=True)
class RentalStations:
    """Docking stations (GBFS ``station_information`` + ``station_status``, or OSM).

    Attributes
    ----------
    ids, names
        Station id (unique within a network) and name.
    network
        Rental network (system) of each station.
    lat, lon
        Position.
    capacity
        Docks in all (-1: unknown).
    vehicles_available
        Vehicles ready to rent (``num_bikes_available`` / ``num_vehicles_available``; -1: unknown).
    spaces_available
        Free docks (``num_docks_available``; -1: unknown, treated as free).
    is_installed, is_renting, is_returning
        The GBFS status flags (missing: True).
    allow_pickup, allow_dropoff
        ``is_installed & is_renting`` and ``is_installed & is_returning``: the station lets
        a traveller rent / return at all (availability is separate, see :meth:`pickup_mask`).
    real_time
        Whether the counts come from a live feed (False for OSM stations).
    vehicle_type_ids
        Per station, the vehicle types it holds or accepts (empty: the network's default).
    vehicle_types_available
        Per station, count per vehicle type (``vehicle_types_available``; empty when absent).
    form_factor
        Per station, the form factor of what it rents (``BICYCLE`` unless its types say otherwise).
    address
        Per station, its ``address`` (None when the feed gives none).
    """

    ids: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    network: tuple[str, ...] = ()
    lat: FloatArray = field(default_factory=lambda: _ro([], np.float64))
    lon: FloatArray = field(default_factory=lambda: _ro([], np.float64))
    capacity: IntArray = field(default_factory=lambda: _ro([], np.int32))
    vehicles_available: IntArray = field(default_factory=lambda: _ro([], np.int32))
    spaces_available: IntArray = field(default_factory=lambda: _ro([], np.int32))
    is_installed: BoolArray = field(default_factory=lambda: _ro([], np.bool_))
    is_renting: BoolArray = field(default_factory=lambda: _ro([], np.bool_))
    is_returning: BoolArray = field(default_factory=lambda: _ro([], np.bool_))
    real_time: BoolArray = field(default_factory=lambda: _ro([], np.bool_))
    vehicle_type_ids: tuple[tuple[str, ...], ...] = ()
    vehicle_types_available: tuple[Mapping[str, int], ...] = ()
    form_factor: tuple[str, ...] = ()
    address: tuple[str | None, ...] = ()

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def allow_pickup(self) -> BoolArray:
        """Stations that rent at all (installed and renting)."""
        out: BoolArray = self.is_installed & self.is_renting
        return out

    @property
    def allow_dropoff(self) -> BoolArray:
        """Stations that take returns at all (installed and returning)."""
        out: BoolArray = self.is_installed & self.is_returning
        return out

    def pickup_mask(self) -> BoolArray:
        """Stations where a vehicle can be picked up now (renting; a vehicle there or unknown)."""
        out: BoolArray = self.allow_pickup & (self.vehicles_available != 0)
        return out

    def dropoff_mask(self) -> BoolArray:
        """Stations where a vehicle can be returned now (returning, and a dock free or unknown)."""
        out: BoolArray = self.allow_dropoff & (self.spaces_available != 0)
        return out

    @staticmethod
    def from_rows(rows: Sequence[Mapping[str, Any]]) -> RentalStations:
        """Stations from dicts with this class's field names (missing fields: defaults).

        >>> s = RentalStations.from_rows([{"id": "a", "name": "A", "network": "n",
        ...                                "lat": 1.0, "lon": 2.0, "vehicles_available": 0}])
        >>> bool(s.allow_pickup[0]), bool(s.pickup_mask()[0]), int(s.capacity[0])
        (True, False, -1)
        """
        return RentalStations(
            ids=tuple(str(r["id"]) for r in rows),
            names=tuple(str(r.get("name") or r["id"]) for r in rows),
            network=tuple(str(r["network"]) for r in rows),
            lat=_ro([r["lat"] for r in rows], np.float64),
            lon=_ro([r["lon"] for r in rows], np.float64),
            capacity=_ro([r.get("capacity", -1) for r in rows], np.int32),
            vehicles_available=_ro([r.get("vehicles_available", -1) for r in rows], np.int32),
            spaces_available=_ro([r.get("spaces_available", -1) for r in rows], np.int32),
            is_installed=_ro([r.get("is_installed", True) for r in rows], np.bool_),
            is_renting=_ro([r.get("is_renting", True) for r in rows], np.bool_),
            is_returning=_ro([r.get("is_returning", True) for r in rows], np.bool_),
            real_time=_ro([r.get("real_time", True) for r in rows], np.bool_),
            vehicle_type_ids=tuple(tuple(r.get("vehicle_type_ids", ())) for r in rows),
            vehicle_types_available=tuple(
                dict(r.get("vehicle_types_available", {})) for r in rows
            ),
            form_factor=tuple(str(r.get("form_factor", "BICYCLE")) for r in rows),
            address=tuple(r.get("address") for r in rows),
        )

    @staticmethod
    def concat(parts: Sequence[RentalStations]) -> RentalStations:
        """The stations of several parts, in order."""
        if not parts:
            return RentalStations()
        if len(parts) == 1:
            return parts[0]

        def tup(name: str) -> tuple[Any, ...]:
            return tuple(x for p in parts for x in getattr(p, name))

        def arr(name: str, dtype: Any) -> Any:
            return _ro(np.concatenate([getattr(p, name) for p in parts]), dtype)

        return RentalStations(
            ids=tup("ids"),
            names=tup("names"),
            network=tup("network"),
            lat=arr("lat", np.float64),
            lon=arr("lon", np.float64),
            capacity=arr("capacity", np.int32),
            vehicles_available=arr("vehicles_available", np.int32),
            spaces_available=arr("spaces_available", np.int32),
            is_installed=arr("is_installed", np.bool_),
            is_renting=arr("is_renting", np.bool_),
            is_returning=arr("is_returning", np.bool_),
            real_time=arr("real_time", np.bool_),
            vehicle_type_ids=tup("vehicle_type_ids"),
            vehicle_types_available=tup("vehicle_types_available"),
            form_factor=tup("form_factor"),
            address=tup("address"),
        )


@dataclass(frozen=True)
class FreeVehicles:
    """Free-floating vehicles (GBFS ``free_bike_status`` v1/v2, ``vehicle_status`` v3).

    Only vehicles without a ``station_id`` are kept here (a docked vehicle is counted at its
    station).  They move at every poll: routing links them per snapshot, never into the
    shared graph.

    Attributes
    ----------
    ids, network, vehicle_type_id
        ``bike_id``/``vehicle_id``, network and type (``None`` when the feed gives none).
    lat, lon
        Position.
    form_factor, propulsion
        Upper-case values from the vehicle's type (``BICYCLE``/``HUMAN`` without one).
    current_range_m
        ``current_range_meters`` (NaN when absent).
    is_reserved, is_disabled
        GBFS flags (missing: False).
    """

    ids: tuple[str, ...] = ()
    network: tuple[str, ...] = ()
    vehicle_type_id: tuple[str | None, ...] = ()
    lat: FloatArray = field(default_factory=lambda: _ro([], np.float64))
    lon: FloatArray = field(default_factory=lambda: _ro([], np.float64))
    form_factor: tuple[str, ...] = ()
    propulsion: tuple[str, ...] = ()
    current_range_m: FloatArray = field(default_factory=lambda: _ro([], np.float64))
    is_reserved: BoolArray = field(default_factory=lambda: _ro([], np.bool_))
    is_disabled: BoolArray = field(default_factory=lambda: _ro([], np.bool_))

    def __len__(self) -> int:
        return len(self.ids)

    def available_mask(self) -> BoolArray:
        """Vehicles that can be rented now (neither reserved nor disabled)."""
        out: BoolArray = ~(self.is_reserved | self.is_disabled)
        return out

    @staticmethod
    def concat(parts: Sequence[FreeVehicles]) -> FreeVehicles:
        """The vehicles of several parts, in order."""
        if not parts:
            return FreeVehicles()
        if len(parts) == 1:
            return parts[0]

        def tup(name: str) -> tuple[Any, ...]:
            return tuple(x for p in parts for x in getattr(p, name))

        def arr(name: str, dtype: Any) -> Any:
            return _ro(np.concatenate([getattr(p, name) for p in parts]), dtype)

        return FreeVehicles(
            ids=tup("ids"),
            network=tup("network"),
            vehicle_type_id=tup("vehicle_type_id"),
            lat=arr("lat", np.float64),
            lon=arr("lon", np.float64),
            form_factor=tup("form_factor"),
            propulsion=tup("propulsion"),
            current_range_m=arr("current_range_m", np.float64),
            is_reserved=arr("is_reserved", np.bool_),
            is_disabled=arr("is_disabled", np.bool_),
        )


@dataclass(frozen=True)
class ZoneRule:
    """One GBFS geofencing rule.

    Attributes
    ----------
    vehicle_type_ids
        Types it applies to (empty: all types).
    ride_start_allowed, ride_end_allowed
        A rental may start / end inside (GBFS v2 ``ride_allowed`` sets both).
    ride_through_allowed
        A rental may ride through.
    maximum_speed_kph
        Speed limit (None: none).
    station_parking
        Vehicles must be parked at stations inside (None: not stated).
    """

    vehicle_type_ids: tuple[str, ...] = ()
    ride_start_allowed: bool = True
    ride_end_allowed: bool = True
    ride_through_allowed: bool = True
    maximum_speed_kph: float | None = None
    station_parking: bool | None = None

    @property
    def ride_allowed(self) -> bool:
        """GBFS v2's ``ride_allowed``: a rental may start and end here."""
        return self.ride_start_allowed and self.ride_end_allowed

    def applies_to(self, vehicle_type_id: str | None) -> bool:
        """Whether the rule covers a vehicle type (a rule without types covers all)."""
        return not self.vehicle_type_ids or (vehicle_type_id in self.vehicle_type_ids)


#: The rule where no zone says anything.
ALLOW_ALL = ZoneRule()


def _points_in_ring(
    lat: FloatArray, lon: FloatArray, ring: FloatArray
) -> BoolArray:  # even-odd ray casting, vectorised over points
    x, y = lon[:, None], lat[:, None]
    x1, y1 = ring[:-1, 0][None, :], ring[:-1, 1][None, :]
    x2, y2 = ring[1:, 0][None, :], ring[1:, 1][None, :]
    crosses = (y1 > y) != (y2 > y)
    with np.errstate(divide="ignore", invalid="ignore"):
        xint = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
    hits = crosses & (x < xint)
    out: BoolArray = (np.count_nonzero(hits, axis=1) % 2) == 1
    return out


@dataclass(frozen=True)
class GeofencingZone:
    """One zone: a (multi)polygon and its rules.

    Attributes
    ----------
    name
        The feature's ``name`` (may be empty).
    polygons
        Per polygon, its rings (first the outer ring, then holes) as ``(n, 2)`` float64
        arrays of ``(lon, lat)``, closed.
    rules
        Its rules, in feed order (the first that covers a vehicle type applies).
    bbox
        ``(min_lon, min_lat, max_lon, max_lat)``.
    """

    name: str
    polygons: tuple[tuple[FloatArray, ...], ...]
    rules: tuple[ZoneRule, ...]
    bbox: tuple[float, float, float, float]

    def contains(self, lat: npt.ArrayLike, lon: npt.ArrayLike) -> BoolArray:
        """Which points lie inside (even-odd over each polygon's rings)."""
        la = np.atleast_1d(np.asarray(lat, dtype=np.float64))
        lo = np.atleast_1d(np.asarray(lon, dtype=np.float64))
        out = np.zeros(la.shape[0], dtype=np.bool_)
        x0, y0, x1, y1 = self.bbox
        cand = (lo >= x0) & (lo <= x1) & (la >= y0) & (la <= y1)
        if not cand.any():
            return out
        idx = np.flatnonzero(cand)
        for rings in self.polygons:
            inside = np.zeros(idx.shape[0], dtype=np.bool_)
            for ring in rings:
                inside ^= _points_in_ring(la[idx], lo[idx], ring)
            out[idx] |= inside
        return out

    def rule_for(self, vehicle_type_id: str | None) -> ZoneRule | None:
        """The first rule covering a vehicle type (None: the zone says nothing about it)."""
        for rule in self.rules:
            if rule.applies_to(vehicle_type_id):
                return rule
        return None


@dataclass(frozen=True)
class GeofencingZones:
    """A network's geofencing zones (GBFS ``geofencing_zones``) and global rules.

    Where zones overlap, the zone listed first applies (GBFS); where none covers a point,
    the global rules (v3 ``global_rules``) apply, and without those everything is allowed.
    """

    zones: tuple[GeofencingZone, ...] = ()
    global_rules: tuple[ZoneRule, ...] = ()

    def __len__(self) -> int:
        return len(self.zones)

    def _global(self, vehicle_type_id: str | None) -> ZoneRule:
        for rule in self.global_rules:
            if rule.applies_to(vehicle_type_id):
                return rule
        return ALLOW_ALL

    def rules_at(
        self, lat: npt.ArrayLike, lon: npt.ArrayLike, vehicle_type_id: str | None = None
    ) -> list[ZoneRule]:
        """The rule in force at each point for a vehicle type."""
        la = np.atleast_1d(np.asarray(lat, dtype=np.float64))
        lo = np.atleast_1d(np.asarray(lon, dtype=np.float64))
        default = self._global(vehicle_type_id)
        out: list[ZoneRule | None] = [None] * la.shape[0]
        for zone in self.zones:
            rule = zone.rule_for(vehicle_type_id)
            if rule is None:
                continue
            pending = np.array([r is None for r in out], dtype=np.bool_)
            if not pending.any():
                break
            inside = np.zeros(la.shape[0], dtype=np.bool_)
            inside[pending] = zone.contains(la[pending], lo[pending])
            for i in np.flatnonzero(inside):
                out[int(i)] = rule
        return [r if r is not None else default for r in out]

    def mask(
        self,
        lat: npt.ArrayLike,
        lon: npt.ArrayLike,
        what: str,
        vehicle_type_id: str | None = None,
    ) -> BoolArray:
        """Where ``what`` (``ride_start_allowed``, ``ride_end_allowed``,
        ``ride_through_allowed``) is allowed, per point."""
        return np.array(
            [bool(getattr(r, what)) for r in self.rules_at(lat, lon, vehicle_type_id)],
            dtype=np.bool_,
        )


@dataclass(frozen=True)
class PricingPlan:
    """GBFS ``system_pricing_plans`` entry.

    ``per_min`` and ``per_km`` are ``(start, rate, interval, end)`` segments (``end`` None:
    open-ended), as GBFS 2.2+ writes them.
    """

    plan_id: str
    name: str
    currency: str
    price: float
    is_taxable: bool = False
    description: str = ""
    per_min: tuple[tuple[float, float, float, float | None], ...] = ()
    per_km: tuple[tuple[float, float, float, float | None], ...] = ()


@dataclass(frozen=True)
class RentalSnapshot:
    """Everything one rental network's feed says, read at one time.

    Attributes
    ----------
    network
        Network name (the updater's ``network``, else the feed's ``system_id``).
    kind
        The updater type it came from: ``bike-rental``, ``vehicle-rental``, ``car-rental``
        (``osm`` for stations read from OSM at build time).
    system
        ``system_information``.
    stations, vehicles, vehicle_types, zones, pricing_plans
        The feed's data (empty where the feed has no such file).
    version
        GBFS version the feed declares (``1.0`` when it declares none).
    last_updated
        The newest ``last_updated`` of its files (epoch seconds; 0 unknown).
    messages
        Problems found while reading it (duplicate ids, a station at 0,0, a missing file...).
    """

    network: str
    kind: str
    system: SystemInformation
    stations: RentalStations = field(default_factory=RentalStations)
    vehicles: FreeVehicles = field(default_factory=FreeVehicles)
    vehicle_types: VehicleTypes = field(default_factory=VehicleTypes)
    zones: GeofencingZones = field(default_factory=GeofencingZones)
    pricing_plans: tuple[PricingPlan, ...] = ()
    version: str = "1.0"
    last_updated: float = 0.0
    messages: tuple[FeedMessage, ...] = ()
    #: the ibi fork's ``regionsGeoJson`` (:func:`otpa.mobility.gbfs.dropoff_region`): a
    #: free-floating vehicle is left only inside it (None: anywhere the zones allow)
    dropoff_region: GeofencingZone | None = None


@dataclass(frozen=True)
class RentalState:
    """The rental data of a router at one moment: every network's latest snapshot.

    Routing takes it once at the start of a plan (:func:`otpa.mobility.current_rental`).
    ``stations``/``vehicles`` are the snapshots' rows concatenated in network order.
    """

    snapshots: Mapping[str, RentalSnapshot] = field(default_factory=dict)
    version: int = 0

    @property
    def networks(self) -> tuple[str, ...]:
        """The network names, sorted."""
        return tuple(sorted(self.snapshots))

    @property
    def stations(self) -> RentalStations:
        """All stations of all networks (built once per state)."""
        cached = self.__dict__.get("_stations")
        if cached is None:
            cached = RentalStations.concat([self.snapshots[n].stations for n in self.networks])
            object.__setattr__(self, "_stations", cached)
        out: RentalStations = cached
        return out

    @property
    def vehicles(self) -> FreeVehicles:
        """All free-floating vehicles of all networks (built once per state)."""
        cached = self.__dict__.get("_vehicles")
        if cached is None:
            cached = FreeVehicles.concat([self.snapshots[n].vehicles for n in self.networks])
            object.__setattr__(self, "_vehicles", cached)
        out: FreeVehicles = cached
        return out

    def of_kind(self, kind: str) -> RentalState:
        """Only the snapshots of one updater kind (``bike-rental``...)."""
        snaps = {k: s for k, s in self.snapshots.items() if s.kind == kind}
        return RentalState(snaps, self.version)


@dataclass(frozen=True)
class ParkingLots:
    """Parking from OSM: park-and-ride lots or bike parking.

    Attributes
    ----------
    kind
        ``park_and_ride`` or ``bike_parking``.
    ids
        ``osm:node:<id>`` / ``osm:way:<id>``.
    names
        Name (``None`` when the OSM object has none).
    lat, lon
        Position (a way's centre).
    capacity
        ``capacity`` tag (-1: absent or not a number).
    """

    kind: str
    ids: tuple[str, ...] = ()
    names: tuple[str | None, ...] = ()
    lat: FloatArray = field(default_factory=lambda: _ro([], np.float64))
    lon: FloatArray = field(default_factory=lambda: _ro([], np.float64))
    capacity: IntArray = field(default_factory=lambda: _ro([], np.int32))

    def __len__(self) -> int:
        return len(self.ids)
