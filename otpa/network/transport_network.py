"""``TransportNetwork``: streets + transit + the links between them, saved safely."""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from otpa.network._container import read_container, write_container
from otpa.transit.model import TransitModel
from otpa.transit.modes import TRANSIT_MODES
from otpa.types import FloatArray, Int32Array, IntArray, PathLike
from otpa.walkcomfort import WalkComfort, attach_walk_comfort

if TYPE_CHECKING:
    from otpa.geocode import GeocodeIndex, MunicipalityIndex
    from otpa.street import StreetGraph

__all__ = ["QUANTIZED_MEMBERS", "TransportNetwork"]

#: Saved-graph members rounded on save (steps per unit): street lengths, the
#: length-like elevation measures and walking-transfer distances are kept to the
#: millimetre, far below the precision of the map data.  Rounding is monotone,
#: so equal values stay equal and sorted transfers stay sorted, and it is
#: idempotent, so loading and saving again changes nothing.  Everything else
#: (coordinates, times, ids, slopes...) is stored exactly.
QUANTIZED_MEMBERS: dict[str, int] = dict.fromkeys(
    (
        "links.transfer_distance_m",
        "street.seg_length_m",
        "street.edge_length_m",
        "street.edge_rise_m",
        "street.edge_fall_m",
        "street.edge_slope_speed_effective_length_m",
        "street.edge_slope_work_cost",
        "street.edge_slope_safety_cost_m",
        "street.edge_effective_walk_length_m",
    ),
    1000,
)


@dataclass(frozen=True, eq=False)
class TransportNetwork:
    """A routable multimodal network: street graph, transit model and links.

    Build one with :func:`otpa.network.build_network`, save it with
    :meth:`save` and open it again, memory-mapped, with :meth:`load`.

    Attributes
    ----------
    transit
        Stops, routes, trips and timetables.
    street
        The street graph, or None for a transit-only network.
    stop_vertex
        Street vertex each stop is linked to (-1: unlinked).
    stop_link_distance_m
        Straight-line distance from each stop to its link point.
    transfer_offsets, transfer_to, transfer_distance_m
        Walking transfers between stops (CSR over the origin stop).
    features
        Point features kept from OSM: ``park_and_ride``, ``bike_parking``,
        ``bike_rental`` (lists of dicts with ``lat``, ``lon``, ``name``...).
    meta
        Build metadata (build time, inputs, config, warnings, elevation metadata).
    walk_comfort
        The ways' walk-relevant OSM tags and the walk-comfort rules in force
        (:mod:`otpa.walkcomfort`), or None; its factors apply to the street graph's
        walking costs.
    geocode
        The built-in geocoder's index (stops, clusters, corners, places), or None
        for graphs saved before it existed (see :meth:`geocoder`).
    municipalities
        Municipality boundaries for the municoder, or None.
    """

    transit: TransitModel
    street: StreetGraph | None
    stop_vertex: Int32Array
    stop_link_distance_m: FloatArray
    transfer_offsets: IntArray
    transfer_to: Int32Array
    transfer_distance_m: FloatArray
    features: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    walk_comfort: WalkComfort | None = None
    geocode: GeocodeIndex | None = None
    municipalities: MunicipalityIndex | None = None
    _lazy: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.street is not None and self.walk_comfort is not None:
            attach_walk_comfort(self.street, self.walk_comfort)

    # -- persistence ------------------------------------------------------------------
    def save(self, path: PathLike, *, compress: bool = True) -> Path:
        """Write the network to one file (atomic: a temporary file, then a rename).

        Parameters
        ----------
        path
            Destination file, conventionally ``<dir>/graph``.
        compress
            Write the compact form (the default): arrays encoded and
            compressed, and the metre-valued measures of :data:`QUANTIZED_MEMBERS`
            rounded to the millimetre.  False writes every array exactly and
            uncompressed, so that loading maps all of them from the file
            (several times larger; useful for very large graphs shared by
            many processes).

        Returns
        -------
        pathlib.Path
            The file written.
        """
        arrays, documents = self.transit.to_members()
        if self.street is not None:
            street_arrays, street_docs = self.street.to_members()
            arrays.update(street_arrays)
            documents.update(street_docs)
        arrays.update(
            {
                "links.stop_vertex": self.stop_vertex,
                "links.stop_link_distance_m": self.stop_link_distance_m,
                "links.transfer_offsets": self.transfer_offsets,
                "links.transfer_to": self.transfer_to,
                "links.transfer_distance_m": self.transfer_distance_m,
            }
        )
        documents["features"] = self.features
        if self.walk_comfort is not None:
            walk_arrays, walk_docs = self.walk_comfort.to_members()
            arrays.update(walk_arrays)
            documents.update(walk_docs)
        if self.geocode is not None:
            geo_arrays, geo_docs = self.geocode.to_members()
            arrays.update(geo_arrays)
            documents.update(geo_docs)
        if self.municipalities is not None:
            documents["municipalities"] = self.municipalities.to_document()
        meta = dict(self.meta)
        meta["has_street"] = self.street is not None
        return write_container(
            path,
            arrays=arrays,
            documents=documents,
            meta=meta,
            compress=compress,
            quantize=QUANTIZED_MEMBERS,
        )

    @classmethod
    def load(cls, path: PathLike, *, verify: bool = True) -> TransportNetwork:
        """Open a saved network (format versions 1 and 2).

        Arrays stored uncompressed are memory-mapped, not copied; compressed
        ones are decoded into read-only arrays of the same dtypes.

        Parameters
        ----------
        path
            A file written by :meth:`save`.
        verify
            Check the checksums of every member (recommended for files from
            elsewhere, e.g. uploads).

        Raises
        ------
        FileNotFoundError
            If ``path`` does not exist.
        otpa.errors.GraphFormatError
            If the file is corrupt, truncated, not a graph or of a newer format.
        """
        from otpa.errors import GraphFormatError
        from otpa.geocode import GeocodeIndex, MunicipalityIndex
        from otpa.street import StreetGraph

        container = read_container(path, verify=verify)
        arrays, docs = container.arrays, container.documents
        try:
            transit = TransitModel.from_members(arrays, docs)
            street = (
                StreetGraph.from_members(arrays, docs) if container.meta.get("has_street") else None
            )
            network = cls(
                transit=transit,
                street=street,
                stop_vertex=arrays["links.stop_vertex"],
                stop_link_distance_m=arrays["links.stop_link_distance_m"],
                transfer_offsets=arrays["links.transfer_offsets"],
                transfer_to=arrays["links.transfer_to"],
                transfer_distance_m=arrays["links.transfer_distance_m"],
                features=docs.get("features", {}),
                meta=dict(container.meta),
                walk_comfort=WalkComfort.from_members(arrays, docs),
                geocode=GeocodeIndex.from_members(arrays, docs),
                municipalities=MunicipalityIndex.from_document(docs["municipalities"])
                if isinstance(docs.get("municipalities"), list)
                else None,
            )
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            msg = f"{path} is not a usable otpa graph: missing or malformed content ({exc})"
            raise GraphFormatError(msg) from None
        return network

    def geocoder(self) -> GeocodeIndex:
        """The geocoder index: the stored one, else one built now from the network (cached).

        Graphs saved before the geocoder existed have no stored index; theirs
        is built on first use from the stops, the street names and the places.
        """
        if self.geocode is not None:
            return self.geocode
        cached: GeocodeIndex | None = self._lazy.get("geocode")
        if cached is None:
            from otpa.network._geocoding import build_geocode_index

            cached = build_geocode_index(self.transit, self.street, self.features.get("places", []))
            self._lazy["geocode"] = cached
        return cached

    # -- descriptive properties (RouterInfo and summaries) ----------------------------
    @property
    def build_time_ms(self) -> int:
        """Epoch milliseconds at which the network was built."""
        return int(self.meta.get("build_time_ms", 0))

    def _coordinates(self) -> tuple[FloatArray, FloatArray]:
        stops = self.transit.stops
        lats = [stops.lat.to_numpy(float)]
        lons = [stops.lon.to_numpy(float)]
        if self.street is not None:
            lats.append(np.asarray(self.street.vertex_lat))
            lons.append(np.asarray(self.street.vertex_lon))
        lat, lon = np.concatenate(lats), np.concatenate(lons)
        ok = np.isfinite(lat) & np.isfinite(lon)
        return lat[ok], lon[ok]

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        """``(min_lon, min_lat, max_lon, max_lat)`` of stops and street vertices."""
        b = self.meta.get("bounds")
        if b is not None:
            return (float(b[0]), float(b[1]), float(b[2]), float(b[3]))
        lat, lon = self._coordinates()
        if lat.size == 0:
            return (0.0, 0.0, 0.0, 0.0)
        return (float(lon.min()), float(lat.min()), float(lon.max()), float(lat.max()))

    @property
    def convex_hull(self) -> list[tuple[float, float]]:
        """Closed ring of ``(lon, lat)`` around the network."""
        hull = self.meta.get("convex_hull")
        if hull is not None:
            return [(float(x), float(y)) for x, y in hull]
        return compute_convex_hull(*self._coordinates())

    @property
    def center(self) -> tuple[float, float]:
        """``(lat, lon)``: mean of transit stops if any, else the centre of the bounds."""
        stops = self.transit.stops
        if len(stops):
            lat = stops.lat.to_numpy(float)
            lon = stops.lon.to_numpy(float)
            ok = np.isfinite(lat) & np.isfinite(lon)
            if ok.any():
                return (float(lat[ok].mean()), float(lon[ok].mean()))
        b = self.bounds
        return ((b[1] + b[3]) / 2.0, (b[0] + b[2]) / 2.0)

    @cached_property
    def time_zone(self) -> str:
        """The network's time zone: the first agency's, else the configured one, else UTC."""
        agencies = self.transit.agencies
        if len(agencies) and agencies.timezone.notna().any():
            return str(agencies.timezone.dropna().iloc[0])
        return str(self.meta.get("time_zone") or "UTC")

    @property
    def transit_service_range(self) -> tuple[int, int] | None:
        """Epoch seconds of the first service day's start and the last one's end, or None."""
        dates = self.transit.service_dates
        if dates is None or self.transit.is_empty:
            return None
        first, last = dates
        tz = self.time_zone
        start = self.transit.service_day_start(first, tz)
        end = self.transit.service_day_start(last + dt.timedelta(days=1), tz)
        return start, end

    @property
    def feed_ids(self) -> tuple[str, ...]:
        """Ids of the GTFS feeds, in feed order (stop, route and trip ids are ``feed:id``)."""
        return tuple(str(f) for f in self.transit.feeds["feed_id"].to_list())

    @property
    def transit_modes(self) -> list[str]:
        """OTP mode names of the routes present, in OTP's order."""
        present = set(self.transit.routes["mode"].dropna().astype(str))
        return [m for m in TRANSIT_MODES if m in present]

    @property
    def has_park_ride(self) -> bool:
        """Whether the network has park-and-ride facilities."""
        return bool(self.features.get("park_and_ride"))

    @property
    def has_bike_park(self) -> bool:
        """Whether the network has bike parking."""
        return bool(self.features.get("bike_parking"))

    @property
    def bike_rental_station_count(self) -> int:
        """Number of bike rental stations."""
        return len(self.features.get("bike_rental", []))

    def summary(self) -> dict[str, int]:
        """Counts of the network's main entities."""
        t = self.transit
        return {
            "feeds": len(t.feeds),
            "agencies": len(t.agencies),
            "stops": int(self.meta.get("gtfs_counts", {}).get("stops", t.n_stops)),
            "routes": len(t.routes),
            "trips": int(self.meta.get("gtfs_counts", {}).get("trips", t.n_trips)),
            "scheduled_trips": t.n_trips,
            "patterns": t.n_patterns,
            "transfers": int(self.transfer_to.shape[0]),
            "street_vertices": 0 if self.street is None else self.street.n_vertices,
            "street_edges": 0 if self.street is None else self.street.n_edges,
            "warnings": len(self.meta.get("warnings", [])),
            # OSM point features (parking, rental): the build keeps them in ``features``
            "park_and_ride": len(self.features.get("park_and_ride", [])),
            "bike_parking": len(self.features.get("bike_parking", [])),
            "bike_rental": len(self.features.get("bike_rental", [])),
        }

    # -- shipping to other processes (dask.distributed workers) -------------------------
    def to_bytes(self) -> bytes:
        """The network in the saved-graph format, uncompressed and exact, as bytes."""
        import tempfile

        with tempfile.TemporaryDirectory(prefix="otpa-net-") as tmp:
            path = self.save(Path(tmp) / "graph", compress=False)
            return path.read_bytes()

    @classmethod
    def from_bytes(cls, data: bytes, *, verify: bool = True) -> TransportNetwork:
        """Open a network from :meth:`to_bytes` (or a saved graph file's bytes)."""
        import tempfile

        with tempfile.TemporaryDirectory(prefix="otpa-net-") as tmp:
            path = Path(tmp) / "graph"
            path.write_bytes(data)
            # mapped members stay valid after the file is removed (POSIX semantics)
            return cls.load(path, verify=verify)

    def __reduce__(self) -> tuple[Any, tuple[bytes]]:
        # pickling (dask.distributed shipping a network to its workers) goes through
        # the safe graph format: nothing but arrays and JSON is ever unpickled from it
        return (_network_from_bytes, (self.to_bytes(),))

    def __dask_tokenize__(self) -> tuple[str, int]:
        # hashing every array to name a task would cost more than the task
        return ("otpa.TransportNetwork", id(self))

    def __repr__(self) -> str:
        s = self.summary()
        return (
            f"<TransportNetwork stops={s['stops']} routes={s['routes']} trips={s['trips']} "
            f"patterns={s['patterns']} street_vertices={s['street_vertices']} "
            f"street_edges={s['street_edges']}>"
        )


def compute_convex_hull(lat: FloatArray, lon: FloatArray) -> list[tuple[float, float]]:
    """Closed convex-hull ring of ``(lon, lat)`` points (degenerate inputs give the points)."""
    from scipy.spatial import ConvexHull, QhullError

    pts = np.unique(np.column_stack([lon, lat]), axis=0)
    if len(pts) >= 3:
        try:
            hull = ConvexHull(pts)
            ring = pts[hull.vertices]
        except QhullError:
            ring = pts
    else:
        ring = pts
    out = [(float(x), float(y)) for x, y in ring]
    if out:
        out.append(out[0])
    return out


def _network_from_bytes(data: bytes) -> TransportNetwork:
    return TransportNetwork.from_bytes(data)


def now_ms() -> int:
    """Current epoch time in milliseconds."""
    return int(time.time() * 1000)
