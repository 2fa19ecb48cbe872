"""The working copy of a network that scenario modifications edit.

A :class:`Draft` holds the transit side at the level of GTFS stop times: the
entity tables (stops, routes, trips), the service calendar and the timetable as
:class:`PatternBlock` matrices (trips of one route calling at the same stops,
one row per trip).  Modifications replace tables and blocks, never writing into
an array of the base network (its arrays may be read-only memory maps).
:meth:`Draft.to_network` then rebuilds trip patterns with the network build's
own pattern builder, which regroups the blocks and splits overtaking trips,
and returns a new :class:`~otpa.network.TransportNetwork` sharing everything
that did not change (the street graph, unless stops were added).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np
import pandas as pd

from otpa.errors import InvalidArgumentError, UnknownNameError
from otpa.network import TransportNetwork
from otpa.network.config import BuildConfig
from otpa.transit.model import TransitModel
from otpa.transit.patterns import patterns_of
from otpa.types import BoolArray, FloatArray, Int32Array, IntArray, UInt8Array

__all__ = ["Draft", "PatternBlock", "append_rows"]

#: Defaults of integer columns for appended rows (others default to 0 or missing).
_INT_DEFAULTS = {
    "direction_id": -1,
    "sort_order": -1,
    "parent_index": -1,
    "pattern_index": -1,
    "agency_index": -1,
}


def _frozen(a: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    view = a.view()
    view.flags.writeable = False
    return view


@dataclass(frozen=True)
class PatternBlock:
    """Trips of one route calling at the same stops, as ``(n_trips, n_stops)`` matrices.

    Attributes
    ----------
    route
        Route index.
    stops, pickup, dropoff
        Stop index and GTFS pick-up/drop-off type of each position.
    trips
        Trip index (into :attr:`Draft.trips`) of each row.
    arrival, departure
        Service-day seconds, one row per trip.
    sequence
        GTFS ``stop_sequence`` of each call.
    """

    route: int
    stops: Int32Array
    pickup: UInt8Array
    dropoff: UInt8Array
    trips: IntArray
    arrival: Int32Array
    departure: Int32Array
    sequence: Int32Array

    @property
    def n_trips(self) -> int:
        """Number of trips (rows)."""
        return int(self.trips.shape[0])

    @property
    def n_stops(self) -> int:
        """Number of stop positions (columns)."""
        return int(self.stops.shape[0])

    def take(self, rows: IntArray | BoolArray) -> PatternBlock:
        """The block restricted to some trips (rows)."""
        return replace(
            self,
            trips=self.trips[rows],
            arrival=self.arrival[rows],
            departure=self.departure[rows],
            sequence=self.sequence[rows],
        )

    def with_times(self, arrival: IntArray, departure: IntArray) -> PatternBlock:
        """The block with new times (same trips and stops)."""
        return replace(
            self,
            arrival=np.asarray(arrival, dtype=np.int32),
            departure=np.asarray(departure, dtype=np.int32),
        )


def _block(model: TransitModel, pattern: int) -> PatternBlock:
    a, b = int(model.pattern_stop_offsets[pattern]), int(model.pattern_stop_offsets[pattern + 1])
    arrival, departure = model.pattern_times(pattern)
    n_trips, n_stops = arrival.shape
    t0 = int(model.pattern_time_offsets[pattern])
    sequence = model.stop_sequence[t0 : t0 + n_trips * n_stops].reshape(n_trips, n_stops)
    return PatternBlock(
        route=int(model.pattern_route[pattern]),
        stops=_frozen(model.pattern_stops[a:b]),
        pickup=_frozen(model.pattern_pickup[a:b]),
        dropoff=_frozen(model.pattern_dropoff[a:b]),
        trips=np.asarray(model.pattern_trip_indices(pattern), dtype=np.int64),
        arrival=_frozen(arrival),
        departure=_frozen(departure),
        sequence=_frozen(sequence),
    )


def append_rows(frame: pd.DataFrame, n: int, values: Mapping[str, Any]) -> pd.DataFrame:
    """A new frame: ``frame`` plus ``n`` rows, keeping every column's dtype.

    Columns missing from ``values`` get a missing value, or for integer
    columns (which cannot hold one) the column's default from
    :data:`_INT_DEFAULTS`, else 0.
    """
    unknown = set(values) - set(frame.columns)
    if unknown:
        msg = f"unknown columns {sorted(unknown)}"
        raise UnknownNameError(msg)
    new: dict[str, Any] = {}
    for column in frame.columns:
        dtype = frame[column].dtype
        if column in values:
            value = values[column]
            many = isinstance(value, list | tuple | np.ndarray | pd.Series)
            data = list(value) if many else [value] * n
        elif pd.api.types.is_integer_dtype(dtype) and not pd.api.types.is_extension_array_dtype(
            dtype
        ):
            data = [_INT_DEFAULTS.get(str(column), 0)] * n
        elif pd.api.types.is_float_dtype(dtype):
            data = [np.nan] * n
        elif pd.api.types.is_bool_dtype(dtype):
            data = [False] * n
        else:
            data = [None] * n
        new[column] = pd.Series(pd.array(data, dtype=dtype) if n else pd.array([], dtype=dtype))
    added = pd.DataFrame(new, columns=frame.columns)
    if len(frame) == 0:
        return added.reset_index(drop=True)
    return pd.concat([frame, added], ignore_index=True)


class Draft:
    """An editable copy of a network's transit side (see the module docstring).

    Parameters
    ----------
    network
        The base network; it is never changed.
    """

    def __init__(self, network: TransportNetwork) -> None:
        model = network.transit
        self.base = network
        self.stops: pd.DataFrame = model.stops
        self.routes: pd.DataFrame = model.routes
        self.trips: pd.DataFrame = model.trips
        self.removed: BoolArray = np.zeros(len(model.trips), dtype=bool)
        self.service_ids: list[str] = list(model.service_ids)
        self.service_active: BoolArray = model.service_active
        self.blocks: list[PatternBlock] = [_block(model, p) for p in range(model.n_patterns)]
        self.street = network.street
        self.stop_vertex: Int32Array = network.stop_vertex
        self.stop_link_distance_m: FloatArray = network.stop_link_distance_m
        self.transfer_offsets: IntArray = network.transfer_offsets
        self.transfer_to: Int32Array = network.transfer_to
        self.transfer_distance_m: FloatArray = network.transfer_distance_m
        self.warnings: list[str] = []
        self._indexes: dict[str, dict[str, list[int]]] = {}

    # -- configuration ------------------------------------------------------------------
    @property
    def config(self) -> BuildConfig:
        """The build options the base network was built with (defaults if unknown)."""
        saved = self.base.meta.get("config") or {}
        names = {f.name for f in fields(BuildConfig)}
        return BuildConfig(**{k: v for k, v in saved.items() if k in names})

    # -- tables ---------------------------------------------------------------------------
    def set_tables(
        self,
        *,
        stops: pd.DataFrame | None = None,
        routes: pd.DataFrame | None = None,
        trips: pd.DataFrame | None = None,
    ) -> None:
        """Replace entity tables (appending trips extends :attr:`removed`)."""
        if stops is not None:
            self.stops = stops
        if routes is not None:
            self.routes = routes
        if trips is not None:
            extra = len(trips) - len(self.removed)
            if extra < 0:
                msg = "trips can only be appended to a draft, not dropped"
                raise InvalidArgumentError(msg)
            self.removed = np.r_[self.removed, np.zeros(extra, dtype=bool)]
            self.trips = trips
        self._indexes.clear()

    def _lookup(self, table: str, column: str) -> dict[str, list[int]]:
        key = f"{table}.{column}"
        if key not in self._indexes:
            frame: pd.DataFrame = getattr(self, table)
            lookup: dict[str, list[int]] = {}
            if column in frame.columns:
                values = frame[column].astype(object).where(frame[column].notna(), None)
                for i, value in enumerate(values.tolist()):
                    if value is not None:
                        lookup.setdefault(str(value), []).append(i)
            self._indexes[key] = lookup
        return self._indexes[key]

    def stop_index(self, stop_id: str) -> int:
        """Index of a stop id (-1 if unknown)."""
        return self._lookup("stops", "stop_id").get(stop_id, [-1])[0]

    def route_index(self, route_id: str) -> int:
        """Index of a route id (-1 if unknown)."""
        return self._lookup("routes", "route_id").get(route_id, [-1])[0]

    def trip_indices(self, trip_id: str) -> IntArray:
        """Trips (not removed) with this id, or expanded from this frequency template id."""
        found = self._lookup("trips", "trip_id").get(trip_id, [])
        found = found + self._lookup("trips", "template_trip_id").get(trip_id, [])
        trips = np.unique(np.asarray(found, dtype=np.int64))
        out: IntArray = trips[~self.removed[trips]]
        return out

    def has_id(self, table: str, entity_id: str) -> bool:
        """Whether ``stops``, ``routes`` or ``trips`` has a row with this id."""
        column = {"stops": "stop_id", "routes": "route_id", "trips": "trip_id"}[table]
        return entity_id in self._lookup(table, column)

    def service_index(self, service_id: str) -> int:
        """Index of a service id (-1 if unknown)."""
        try:
            return self.service_ids.index(service_id)
        except ValueError:
            return -1

    def trip_routes(self) -> IntArray:
        """Route index of every trip."""
        out: IntArray = self.trips["route_index"].to_numpy(dtype=np.int64)
        return out

    def route_blocks(self, routes: set[int] | None) -> list[int]:
        """Positions in :attr:`blocks` of the blocks of ``routes`` (all when None)."""
        return [
            i
            for i, b in enumerate(self.blocks)
            if b.n_trips and (routes is None or b.route in routes)
        ]

    def served_stops(self, routes: set[int] | None) -> set[int]:
        """Stops called at by a trip of ``routes`` (all routes when None)."""
        out: set[int] = set()
        for i in self.route_blocks(routes):
            out.update(int(s) for s in self.blocks[i].stops)
        return out

    def remove_trips(self, trips: IntArray) -> None:
        """Mark trips removed and drop them from the blocks."""
        if len(trips) == 0:
            return
        removed = self.removed.copy()
        removed[trips] = True
        self.removed = removed
        kept = []
        for block in self.blocks:
            alive = ~removed[block.trips]
            if alive.all():
                kept.append(block)
            elif alive.any():
                kept.append(block.take(alive))
        self.blocks = kept

    # -- result ---------------------------------------------------------------------------
    def to_network(self, meta: Mapping[str, Any] | None = None) -> TransportNetwork:
        """A new network from the draft (the base network is left as it was).

        Parameters
        ----------
        meta
            Entries added to (or replacing those of) the base network's metadata.
        """
        base = self.base
        model = base.transit
        alive = ~self.removed
        new_index = np.cumsum(alive) - 1
        trips = self.trips.loc[alive].reset_index(drop=True).copy()
        blocks = [b for b in self.blocks if b.n_trips and b.n_stops]
        st = _stop_times(blocks, new_index)
        pats = patterns_of(trips["route_index"].to_numpy(np.int32), st)
        trips["pattern_index"] = pats.trip_pattern
        transit = replace(
            model,
            stops=self.stops,
            routes=self.routes,
            trips=trips,
            transfer_rules=_remap_rules(model.transfer_rules, alive, new_index),
            service_ids=list(self.service_ids),
            service_active=self.service_active,
            **pats.model_fields(len(self.stops)),
        )
        # the GTFS file counts of the build no longer describe the result
        new_meta = {k: v for k, v in base.meta.items() if k != "gtfs_counts"}
        new_meta.update(meta or {})
        return TransportNetwork(
            transit=transit,
            street=self.street,
            stop_vertex=self.stop_vertex,
            stop_link_distance_m=self.stop_link_distance_m,
            transfer_offsets=self.transfer_offsets,
            transfer_to=self.transfer_to,
            transfer_distance_m=self.transfer_distance_m,
            features=dict(base.features),
            meta=new_meta,
        )


def _stop_times(blocks: list[PatternBlock], new_index: IntArray) -> dict[str, np.ndarray[Any, Any]]:
    """Stop-time columns of every block, sorted by (trip, stop_sequence) as the builder wants."""
    cols: dict[str, list[np.ndarray[Any, Any]]] = {
        k: [] for k in ("trip", "stop", "arr", "dep", "seq", "pick", "drop")
    }
    for b in blocks:
        n_trips, n_stops = b.n_trips, b.n_stops
        cols["trip"].append(np.repeat(new_index[b.trips], n_stops))
        cols["stop"].append(np.tile(b.stops, n_trips))
        cols["pick"].append(np.tile(b.pickup, n_trips))
        cols["drop"].append(np.tile(b.dropoff, n_trips))
        cols["arr"].append(b.arrival.ravel())
        cols["dep"].append(b.departure.ravel())
        cols["seq"].append(b.sequence.ravel())
    out = {
        k: np.concatenate(v).astype(np.int64) if v else np.zeros(0, np.int64)
        for k, v in cols.items()
    }
    order = np.lexsort((out["seq"], out["trip"]))
    return {k: v[order] for k, v in out.items()}


def _remap_rules(rules: pd.DataFrame, alive: BoolArray, new_index: IntArray) -> pd.DataFrame:
    """transfers.txt rules with trip indices renumbered; rules naming a removed trip go."""
    if not len(rules) or not {"from_trip", "to_trip"} <= set(rules.columns):
        return rules
    out = rules.copy()
    keep = np.ones(len(out), dtype=bool)
    for column in ("from_trip", "to_trip"):
        trip = out[column].to_numpy(dtype=np.int64)
        named = trip >= 0
        safe = np.where(named, trip, 0)
        keep &= ~named | alive[safe]
        out[column] = np.where(named, new_index[safe], trip).astype(rules[column].dtype)
    return out.loc[keep].reset_index(drop=True)
