"""What tiles draw, projected once per network: line pieces and points in world coordinates.

Every polyline (street segment, transit pattern) is cut into its straight pieces between
consecutive vertices, projected to normalised web mercator (:func:`world_xy`) and sorted
by their western end, so the pieces that may touch a tile are one ``searchsorted`` range
filtered by a vectorised bounding-box test (:meth:`Pieces.select`).  The projection is
computed once per network and kept while the network lives (:func:`network_geometry`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from otpa.osm.model import FLAG_RESTRICTION_COPY
from otpa.tiles._mercator import world_xy
from otpa.types import FloatArray, Int32Array, IntArray
from otpa.util.cache import OwnerCache

if TYPE_CHECKING:
    from otpa.network import TransportNetwork
    from otpa.street import StreetGraph
    from otpa.transit.model import TransitModel

__all__ = ["NetworkGeometry", "Pieces", "Points", "network_geometry"]

#: Transit modes drawn as rail.
_RAIL_MODES = frozenset({"TRAM", "SUBWAY", "RAIL", "MONORAIL", "FUNICULAR", "CABLE_CAR"})


@dataclass(frozen=True)
class Pieces:
    """Straight line pieces in world coordinates, sorted by ``min(x0, x1)``.

    Attributes
    ----------
    x0, y0, x1, y1
        Ends of each piece.
    owner
        The polyline each piece belongs to (a street segment, a transit line).
    max_width
        Largest ``|x1 - x0|`` (bounds the ``searchsorted`` window).
    """

    x0: FloatArray
    y0: FloatArray
    x1: FloatArray
    y1: FloatArray
    owner: Int32Array
    max_width: float

    @classmethod
    def from_polylines(
        cls, lat: FloatArray, lon: FloatArray, offsets: IntArray, owner: Int32Array
    ) -> Pieces:
        """Pieces of polylines given as a CSR (``offsets``) over ``lat``/``lon``.

        Parameters
        ----------
        lat, lon
            Vertices of every polyline, one after the other.
        offsets
            Polyline ``i`` is vertices ``offsets[i]:offsets[i + 1]``.
        owner
            Id stored for the pieces of each polyline.
        """
        x, y = world_xy(lat, lon)
        counts = np.diff(offsets)
        if x.size < 2:
            empty = np.zeros(0)
            return cls(empty, empty, empty, empty, np.zeros(0, np.int32), 0.0)
        keep = np.ones(x.size - 1, dtype=bool)
        ends = offsets[1:] - 1  # last vertex of each polyline starts no piece
        keep[ends[(ends >= 0) & (ends < keep.size)]] = False
        starts = np.flatnonzero(keep)
        piece_owner = np.repeat(owner, np.maximum(counts - 1, 0))
        x0, y0, x1, y1 = x[starts], y[starts], x[starts + 1], y[starts + 1]
        order = np.argsort(np.minimum(x0, x1), kind="stable")
        x0, y0, x1, y1 = x0[order], y0[order], x1[order], y1[order]
        width = float(np.abs(x1 - x0).max()) if x0.size else 0.0
        return cls(x0, y0, x1, y1, piece_owner[order].astype(np.int32), width)

    @property
    def xmin(self) -> FloatArray:
        """``min(x0, x1)`` per piece (sorted ascending); computed once."""
        cached: FloatArray | None = self.__dict__.get("_xmin")
        if cached is None:
            cached = np.minimum(self.x0, self.x1)
            object.__setattr__(self, "_xmin", cached)
        return cached

    def select(self, xmin: float, ymin: float, xmax: float, ymax: float) -> IntArray:
        """Indices of the pieces whose bounding box meets the box (world coordinates)."""
        lo = int(np.searchsorted(self.xmin, xmin - self.max_width, side="left"))
        hi = int(np.searchsorted(self.xmin, xmax, side="right"))
        x0, x1 = self.x0[lo:hi], self.x1[lo:hi]
        y0, y1 = self.y0[lo:hi], self.y1[lo:hi]
        hit = (
            (np.maximum(x0, x1) >= xmin)
            & (np.minimum(y0, y1) <= ymax)
            & (np.maximum(y0, y1) >= ymin)
        )
        return np.flatnonzero(hit) + lo


@dataclass(frozen=True)
class Points:
    """Points in world coordinates, sorted by ``x``; ``owner`` is each one's id."""

    x: FloatArray
    y: FloatArray
    owner: Int32Array

    def select(self, xmin: float, ymin: float, xmax: float, ymax: float) -> IntArray:
        """Indices of the points inside the box."""
        lo = int(np.searchsorted(self.x, xmin, side="left"))
        hi = int(np.searchsorted(self.x, xmax, side="right"))
        y = self.y[lo:hi]
        return np.flatnonzero((y >= ymin) & (y <= ymax)) + lo


@dataclass(frozen=True)
class NetworkGeometry:
    """A network's drawable geometry.

    Attributes
    ----------
    streets
        Pieces of the street segments (``owner``: segment id); via-way restriction
        copies are left out (they lie on their originals).
    seg_forward, seg_backward
        The edge running along / against each segment's geometry (-1: none).
    transit
        Pieces of the transit patterns (``owner``: 1 for rail, 0 for other modes).
    stops
        Transit stops (``owner``: stop index).
    """

    streets: Pieces
    seg_forward: Int32Array
    seg_backward: Int32Array
    transit: Pieces
    stops: Points


def _street_pieces(street: StreetGraph | None) -> tuple[Pieces, Int32Array, Int32Array]:
    if street is None or street.n_segments == 0:
        empty = np.zeros(0)
        none = np.zeros(0, np.int32)
        return Pieces(empty, empty, empty, empty, none, 0.0), none, none
    n_seg = street.n_segments
    fwd = np.full(n_seg, -1, dtype=np.int32)
    bwd = np.full(n_seg, -1, dtype=np.int32)
    edges = np.arange(street.n_edges, dtype=np.int32)
    backward = np.asarray(street.edge_backward).astype(bool)
    fwd[street.edge_segment[~backward]] = edges[~backward]
    bwd[street.edge_segment[backward]] = edges[backward]
    copy = np.zeros(n_seg, dtype=bool)
    copy[street.edge_segment] = (np.asarray(street.edge_flags) & FLAG_RESTRICTION_COPY) != 0
    offsets = np.asarray(street.seg_geom_offsets, dtype=np.int64)
    owner = np.arange(n_seg, dtype=np.int32)
    pieces = Pieces.from_polylines(
        np.asarray(street.geom_lat), np.asarray(street.geom_lon), offsets, owner
    )
    if copy.any():
        keep = ~copy[pieces.owner]
        pieces = Pieces(
            pieces.x0[keep], pieces.y0[keep], pieces.x1[keep], pieces.y1[keep],
            pieces.owner[keep], pieces.max_width,
        )  # fmt: skip
    return pieces, fwd, bwd


def _transit_pieces(transit: TransitModel) -> Pieces:
    """Stop-to-stop lines of every pattern, or its first trip's GTFS shape when it has one."""
    stops = transit.stops
    stop_lat = stops["lat"].to_numpy(dtype=np.float64)
    stop_lon = stops["lon"].to_numpy(dtype=np.float64)
    route_mode = transit.routes["mode"].astype("string").fillna("BUS").to_numpy(dtype=object)
    shape_index = {sid: i for i, sid in enumerate(transit.shape_ids)}
    trip_shape = (
        transit.trips["shape_id"].astype("string").fillna("").to_numpy(dtype=object)
        if "shape_id" in transit.trips.columns
        else None
    )
    lats: list[FloatArray] = []
    lons: list[FloatArray] = []
    owners: list[int] = []
    seen_shapes: set[int] = set()
    for p in range(transit.n_patterns):
        rail = int(str(route_mode[transit.pattern_route[p]]) in _RAIL_MODES)
        shape = -1
        if trip_shape is not None:
            first_trip = int(transit.pattern_trips[transit.pattern_trip_offsets[p]])
            shape = shape_index.get(str(trip_shape[first_trip]), -1)
        if shape >= 0:
            if shape in seen_shapes:
                continue
            seen_shapes.add(shape)
            a, b = int(transit.shape_offsets[shape]), int(transit.shape_offsets[shape + 1])
            lats.append(np.asarray(transit.shape_lat[a:b], dtype=np.float64))
            lons.append(np.asarray(transit.shape_lon[a:b], dtype=np.float64))
        else:
            seq = transit.pattern_stops[
                transit.pattern_stop_offsets[p] : transit.pattern_stop_offsets[p + 1]
            ]
            lats.append(stop_lat[seq])
            lons.append(stop_lon[seq])
        owners.append(rail)
    if not lats:
        return Pieces.from_polylines(
            np.zeros(0), np.zeros(0), np.zeros(1, np.int64), np.zeros(0, np.int32)
        )
    lat = np.concatenate(lats)
    lon = np.concatenate(lons)
    ok = np.isfinite(lat) & np.isfinite(lon)
    counts = np.array([a.size for a in lats])
    offsets = np.zeros(len(lats) + 1, dtype=np.int64)
    if not ok.all():  # drop vertices without coordinates, keep the CSR consistent
        poly = np.repeat(np.arange(len(lats)), counts)
        counts = np.bincount(poly[ok], minlength=len(lats))
        lat, lon = lat[ok], lon[ok]
    np.cumsum(counts, out=offsets[1:])
    return Pieces.from_polylines(lat, lon, offsets, np.asarray(owners, dtype=np.int32))


def _stop_points(transit: TransitModel) -> Points:
    lat = transit.stops["lat"].to_numpy(dtype=np.float64)
    lon = transit.stops["lon"].to_numpy(dtype=np.float64)
    ok = np.flatnonzero(np.isfinite(lat) & np.isfinite(lon))
    x, y = world_xy(lat[ok], lon[ok])
    order = np.argsort(x, kind="stable")
    return Points(x[order], y[order], ok[order].astype(np.int32))


_CACHE: OwnerCache[str, NetworkGeometry] = OwnerCache()


def network_geometry(network: TransportNetwork) -> NetworkGeometry:
    """The drawable geometry of a network, projected on first use and cached with it."""
    return _CACHE.get_or_build(network, "geometry", lambda: _network_geometry(network))


def _network_geometry(network: TransportNetwork) -> NetworkGeometry:
    streets, fwd, bwd = _street_pieces(network.street)
    return NetworkGeometry(
        streets=streets,
        seg_forward=fwd,
        seg_backward=bwd,
        transit=_transit_pieces(network.transit),
        stops=_stop_points(network.transit),
    )
