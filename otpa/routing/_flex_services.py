"""GTFS-Flex services of a network, prepared for routing (zones, rows, booking rules).

The transit model keeps each feed's flex data as plain values
(:attr:`otpa.transit.model.TransitModel.flex`); this module turns it, once per
model, into :class:`FlexTrip` objects whose rows know the transit stops they
serve: a stop row its stop, a zone row every stop with scheduled service inside
the zone, a location group its member stops and zones.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from otpa.gtfs.flex import BookingRule, FlexData, FlexStopTime
from otpa.transit.model import TransitModel
from otpa.types import FloatArray, Int32Array
from otpa.util.cache import OwnerCache

__all__ = ["FlexRow", "FlexServices", "FlexTrip", "flex_services", "points_in_polygons"]

#: rings of one polygon as (lon, lat) arrays: the outer ring first, then holes
Polygon = tuple[tuple[FloatArray, FloatArray], ...]


def _in_ring(lon: FloatArray, lat: FloatArray, rx: FloatArray, ry: FloatArray) -> np.ndarray:
    """Even-odd test of points against one closed ring (points x edges, in chunks)."""
    x0, y0, x1, y1 = rx[:-1], ry[:-1], rx[1:], ry[1:]
    out = np.zeros(lon.shape, dtype=bool)
    step = max(1, 400_000 // max(len(x0), 1))
    for a in range(0, len(lon), step):
        py = lat[a : a + step, None]
        px = lon[a : a + step, None]
        crosses = (y0 > py) != (y1 > py)
        with np.errstate(divide="ignore", invalid="ignore"):
            x_at = x0 + (py - y0) * (x1 - x0) / (y1 - y0)
        out[a : a + step] = np.count_nonzero(crosses & (px < x_at), axis=1) % 2 == 1
    return out


def points_in_polygons(
    lat: FloatArray, lon: FloatArray, polygons: tuple[Polygon, ...]
) -> np.ndarray:
    """Which points lie inside any of the polygons (holes excluded).

    Examples
    --------
    >>> sq = np.array([0.0, 2, 2, 0, 0]), np.array([0.0, 0, 2, 2, 0])
    >>> hole = np.array([0.5, 1, 1, 0.5, 0.5]), np.array([0.5, 0.5, 1, 1, 0.5])
    >>> points_in_polygons(np.array([1.5, 0.7, 3.0]), np.array([1.5, 0.7, 1.0]), ((sq, hole),))
    array([ True, False, False])
    """
    lat = np.asarray(lat, dtype=np.float64)
    lon = np.asarray(lon, dtype=np.float64)
    out = np.zeros(lat.shape, dtype=bool)
    for polygon in polygons:
        outer_x, outer_y = polygon[0]
        box = (
            (lon >= outer_x.min()) & (lon <= outer_x.max())
            & (lat >= outer_y.min()) & (lat <= outer_y.max())
        )  # fmt: skip
        if not box.any():
            continue
        idx = np.flatnonzero(box & ~out)
        inside = _in_ring(lon[idx], lat[idx], outer_x, outer_y)
        for hx, hy in polygon[1:]:
            inside &= ~_in_ring(lon[idx], lat[idx], hx, hy)
        out[idx[inside]] = True
    return out


@dataclass(frozen=True, eq=False)
class FlexRow:
    """One row of a flex trip with the places it serves."""

    row: FlexStopTime
    #: transit stops served (a stop row's stop; the stops with service inside a zone)
    stops: Int32Array
    #: zones served (a zone row's zone; the zones of a location group)
    polygons: tuple[Polygon, ...]
    #: feed-scoped id of the zone / group / stop
    place_id: str
    place_name: str | None
    #: bounding box of the zones: min lon, min lat, max lon, max lat
    bbox: tuple[float, float, float, float] = (math.inf, math.inf, -math.inf, -math.inf)

    @property
    def is_area(self) -> bool:
        """Served anywhere inside a zone (not only at stops)."""
        return bool(self.polygons)

    def contains(self, lat: float, lon: float) -> bool:
        """Whether a point lies inside one of the row's zones."""
        x0, y0, x1, y1 = self.bbox
        if not self.polygons or not (x0 <= lon <= x1 and y0 <= lat <= y1):
            return False
        return bool(points_in_polygons(np.array([lat]), np.array([lon]), self.polygons)[0])


@dataclass(frozen=True, eq=False)
class FlexTrip:
    """A flex trip: its model trip, the rows, booking rules and route flags."""

    trip: int  # index into the model's trips table
    trip_id: str  # feed-scoped
    route: int
    service: int
    tz: str
    rows: tuple[FlexRow, ...]
    rules: dict[str, BookingRule]
    eligibility_restricted: bool
    #: trip with timed stops and zones (a deviated route) rather than zones only (on demand)
    deviated: bool
    #: ``trips.txt`` safe_duration_factor and safe_duration_offset (seconds), if given
    safe_duration: tuple[float, float] | None = None

    def rule(self, rule_id: str | None) -> BookingRule | None:
        """A booking rule of the trip's feed by id."""
        return None if rule_id is None else self.rules.get(rule_id)


@dataclass(frozen=True, eq=False)
class FlexServices:
    """Every routable flex trip of a model."""

    trips: tuple[FlexTrip, ...]

    @property
    def empty(self) -> bool:
        """No flex trip."""
        return not self.trips


def _polygon(rings: Any) -> Polygon:
    return tuple(
        (
            np.asarray([p[0] for p in r], dtype=np.float64),
            np.asarray([p[1] for p in r], dtype=np.float64),
        )
        for r in rings
    )


def _bbox(polygons: tuple[Polygon, ...]) -> tuple[float, float, float, float]:
    if not polygons:
        return (math.inf, math.inf, -math.inf, -math.inf)
    xs = np.concatenate([p[0][0] for p in polygons])
    ys = np.concatenate([p[0][1] for p in polygons])
    return float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max())


def _build(model: TransitModel) -> FlexServices:
    stops = model.stops
    if not model.flex or len(stops) == 0:
        return FlexServices(())
    stop_index = {str(s): k for k, s in enumerate(stops["stop_id"].astype(str))}
    served = np.diff(np.asarray(model.stop_pattern_offsets)) > 0
    s_lat = stops["lat"].to_numpy(np.float64)
    s_lon = stops["lon"].to_numpy(np.float64)
    trip_index = {str(t): k for k, t in enumerate(model.trips["trip_id"].astype(str))}
    routes_raw = model.routes["raw_id"].astype(str).tolist() if "raw_id" in model.routes else []
    trips: list[FlexTrip] = []
    for feed, doc in model.flex.items():
        data = FlexData.from_json(doc)
        route_flags: dict[str, Any] = doc.get("routes") or {}
        zones = {z: tuple(_polygon(p) for p in v["polygons"]) for z, v in data.zones.items()}
        zone_stops: dict[str, Int32Array] = {}

        def stops_in(zone: str, _zones: Any = zones, _cache: Any = zone_stops) -> Int32Array:
            if zone not in _cache:
                inside = points_in_polygons(s_lat, s_lon, _zones[zone]) & served
                _cache[zone] = np.flatnonzero(inside).astype(np.int32)
            return np.asarray(_cache[zone])

        for trip_id, raw_rows in data.trips.items():
            scoped = f"{feed}:{trip_id}"
            t = trip_index.get(scoped)
            if t is None:
                continue
            rows: list[FlexRow] = []
            for r in raw_rows:
                if r.location_id is not None:
                    polys, st = zones.get(r.location_id, ()), stops_in(r.location_id)
                    pid, name = r.location_id, data.zones[r.location_id].get("name")
                elif r.group_id is not None:
                    members = data.groups.get(r.group_id, ())
                    polys = tuple(p for m in members if m in zones for p in zones[m])
                    parts = [stops_in(m) for m in members if m in zones]
                    parts.append(
                        np.array(
                            [
                                stop_index[f"{feed}:{m}"]
                                for m in members
                                if f"{feed}:{m}" in stop_index
                            ],
                            dtype=np.int32,
                        )
                    )
                    st = np.unique(np.concatenate(parts)).astype(np.int32)
                    pid, name = r.group_id, data.group_names.get(r.group_id)
                else:
                    k = stop_index.get(f"{feed}:{r.stop_id}")
                    if k is None:
                        continue
                    polys, st = (), np.array([k], dtype=np.int32)
                    pid, name = str(r.stop_id), None
                rows.append(FlexRow(r, st, polys, f"{feed}:{pid}", name, _bbox(polys)))
            if not rows or (len(rows) == 1 and not rows[0].is_area):
                continue
            row = model.trips.iloc[t]
            route = int(row["route_index"])
            raw_route = routes_raw[route] if route < len(routes_raw) else ""
            flags = route_flags.get(raw_route) or {}
            trips.append(
                FlexTrip(
                    trip=t,
                    trip_id=scoped,
                    route=route,
                    service=int(row["service_index"]),
                    tz=model.timezones[int(row["tz_index"])],
                    rows=tuple(rows),
                    rules=data.booking_rules,
                    eligibility_restricted=int(flags.get("eligibility_restricted", 0)) == 1,
                    deviated=any(not x.is_area for x in rows) and any(x.is_area for x in rows),
                    safe_duration=data.safe_durations.get(trip_id),
                )
            )
    return FlexServices(tuple(trips))


_CACHE: OwnerCache[str, FlexServices] = OwnerCache()


def flex_services(model: TransitModel) -> FlexServices:
    """The routable flex trips of a model (prepared once per model)."""
    return _CACHE.get_or_build(model, "flex", lambda: _build(model))
