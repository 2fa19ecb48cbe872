"""The routable street graph: directed edges in CSR numpy arrays.

A :class:`StreetGraph` is immutable once built (:func:`otpa.street.build_street_graph`).
Its arrays are read-only; operations that change the topology, such as
:meth:`StreetGraph.link_points`, return a new graph.

Layout
------
Vertices (``n_vertices``)
    ``vertex_lat``, ``vertex_lon`` (float64 degrees), ``vertex_osm_id`` (int64,
    ``-1`` for vertices created by splitting an edge), ``vertex_barrier``
    (uint8 permission bits *blocked* at the vertex).  Vertices
    ``0 .. n_original_vertices - 1`` come from OSM; linking appends new ones,
    so vertex ids of a graph stay valid in the graphs derived from it.
Segments (``n_segments``)
    The undirected pieces of OSM ways the edges come from: ``seg_from``,
    ``seg_to``, ``seg_way_id``, ``seg_length_m``, ``seg_highway`` (index into
    :attr:`StreetGraph.highway_kinds`) and the geometry CSR
    ``seg_geom_offsets`` into ``geom_lat``/``geom_lon`` (both end vertices
    included, in ``seg_from -> seg_to`` order).  ``seg_source`` is the index
    of the :class:`~otpa.osm.model.OsmStreetData` segment (and of its
    elevation profile) a segment comes from, and ``seg_source_start`` /
    ``seg_source_end`` the fractions of that segment's length it covers (0 and
    1 unless it was split by linking).
Edges (``n_edges``), sorted by ``edge_from``
    ``edge_from``, ``edge_to``, ``edge_length_m``, ``edge_perm`` (WALK=1,
    BICYCLE=2, CAR=4), ``edge_car_speed_mps``, ``edge_bike_safety``,
    ``edge_name`` (index into :attr:`StreetGraph.names`), ``edge_flags``
    (``FLAG_*`` of :mod:`otpa.osm.model`), ``edge_segment``, ``edge_backward``
    (1 when the edge runs ``seg_to -> seg_from``; its geometry is the segment's
    reversed), ``edge_reverse`` (the opposite edge of the same segment or -1),
    and, when the graph was built with elevation, ``edge_max_slope``,
    ``edge_rise_m``, ``edge_fall_m`` (in travel direction),
    ``edge_slope_speed_effective_length_m``, ``edge_slope_work_cost``,
    ``edge_slope_safety_cost_m`` and ``edge_effective_walk_length_m`` (float64,
    see :class:`otpa.street.SegmentElevation`); ``vertex_elevation_m`` (float32, NaN
    where the DEM has no value), the height of every vertex, sampled from the DEM
    once the graph is final (walk steps read their elevation profile from it).
    ``vertex_elevator`` (uint8 ``ELEVATOR_*`` of :mod:`otpa.osm.model`, or None when
    no vertex is an OSM ``highway=elevator`` node): the elevators, by their
    ``wheelchair`` tag (wheelchair walking pays or avoids passing through them).
Adjacency
    ``out_indptr`` (int64, ``n_vertices + 1``): the out-edges of ``v`` are
    ``out_indptr[v]:out_indptr[v + 1]`` (edge ids, since edges are sorted by
    ``edge_from``).  ``in_indptr`` and ``in_edges`` (int32 edge ids, sorted by
    ``edge_to``) give the in-edges.
Turn restrictions
    Banned edge pairs ``(from_edge, to_edge)`` with the modes they apply to, as
    a CSR over ``from_edge``: ``ban_indptr`` (int64, ``n_edges + 1``),
    ``ban_to`` (int32, sorted within each row) and ``ban_modes`` (uint8).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from otpa.errors import GraphFormatError, InvalidArgumentError
from otpa.street._elevation import ELEVATION_FIELDS
from otpa.types import (
    Float32Array,
    FloatArray,
    Int16Array,
    Int32Array,
    IntArray,
    UInt8Array,
    UInt16Array,
)

if TYPE_CHECKING:
    from otpa.street.linking import LinkResult

__all__ = ["FORMAT_VERSION", "BuildReport", "StreetGraph"]

#: Version of the array layout written by :meth:`StreetGraph.to_arrays`.
FORMAT_VERSION = 1
_MEMBER_PREFIX = "street."

# name -> (dtype, length key); length keys: v vertices, s segments, g geometry
# points, e edges, b banned pairs, "x+1" one more than x.
_ARRAY_SPECS: dict[str, tuple[str, str]] = {
    "vertex_lat": ("float64", "v"),
    "vertex_lon": ("float64", "v"),
    "vertex_osm_id": ("int64", "v"),
    "vertex_barrier": ("uint8", "v"),
    "seg_from": ("int32", "s"),
    "seg_to": ("int32", "s"),
    "seg_way_id": ("int64", "s"),
    "seg_length_m": ("float64", "s"),
    "seg_highway": ("int16", "s"),
    "seg_source": ("int64", "s"),
    "seg_source_start": ("float64", "s"),
    "seg_source_end": ("float64", "s"),
    "seg_geom_offsets": ("int64", "s+1"),
    "geom_lat": ("float64", "g"),
    "geom_lon": ("float64", "g"),
    "edge_from": ("int32", "e"),
    "edge_to": ("int32", "e"),
    "edge_length_m": ("float64", "e"),
    "edge_perm": ("uint8", "e"),
    "edge_car_speed_mps": ("float32", "e"),
    "edge_bike_safety": ("float32", "e"),
    "edge_name": ("int32", "e"),
    "edge_flags": ("uint16", "e"),
    "edge_segment": ("int32", "e"),
    "edge_backward": ("uint8", "e"),
    "edge_reverse": ("int32", "e"),
    "out_indptr": ("int64", "v+1"),
    "in_indptr": ("int64", "v+1"),
    "in_edges": ("int32", "e"),
    "ban_indptr": ("int64", "e+1"),
    "ban_to": ("int32", "b"),
    "ban_modes": ("uint8", "b"),
}
_ELEVATION_SPECS: dict[str, tuple[str, str]] = {
    f"edge_{name}": ("float64", "e") for name in ELEVATION_FIELDS
}
#: Arrays that may each be absent (graphs saved before they existed load without them).
#: ``vertex_elevator`` is absent when the graph has no elevator (and in graphs saved
#: before elevators were kept): no vertex is an elevator.
_OPTIONAL_SPECS: dict[str, tuple[str, str]] = {
    "vertex_elevation_m": ("float32", "v"),
    "vertex_elevator": ("uint8", "v"),
}


#: Arrays :meth:`StreetGraph.to_members` may leave out because they are recomputed
#: exactly on load, in an order where each one only needs stored or earlier ones.
_DERIVED = ("in_indptr", "in_edges", "edge_length_m", "edge_reverse")


def _same_bits(a: npt.NDArray[Any], b: npt.NDArray[Any]) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _derive_member(name: str, arrays: Mapping[str, npt.NDArray[Any]]) -> npt.NDArray[Any]:
    """Recompute a member of :data:`_DERIVED` from the other arrays.

    Raises
    ------
    GraphFormatError
        If an array it needs is missing or holds out-of-range indices.
    """
    try:
        if name == "in_indptr":
            n_vertices = int(arrays["vertex_lat"].shape[0])
            edge_to = _indices(arrays["edge_to"], n_vertices)
            indptr = np.zeros(n_vertices + 1, dtype=np.int64)
            np.cumsum(np.bincount(edge_to, minlength=n_vertices), out=indptr[1:])
            return indptr
        if name == "in_edges":
            return np.argsort(arrays["edge_to"], kind="stable").astype(np.int32)
        if name == "edge_length_m":
            seg_length_m: npt.NDArray[Any] = np.asarray(arrays["seg_length_m"])
            lengths: npt.NDArray[Any] = seg_length_m[
                _indices(arrays["edge_segment"], seg_length_m.shape[0])
            ]
            return lengths
        if name == "edge_reverse":
            return _reverse_edges(np.asarray(arrays["edge_segment"]))
    except (KeyError, ValueError, IndexError, TypeError) as exc:
        msg = f"cannot recompute street graph array {name!r}: {exc}"
        raise GraphFormatError(msg) from None
    msg = f"street graph array {name!r} cannot be recomputed"
    raise GraphFormatError(msg)


def _indices(values: npt.NDArray[Any], n: int) -> npt.NDArray[Any]:
    """``values`` if they are integers in ``[0, n)``, else ValueError."""
    values = np.asarray(values)
    if values.dtype.kind not in "iu" or (values.size and (values.min() < 0 or values.max() >= n)):
        msg = f"indices out of range [0, {n})"
        raise InvalidArgumentError(msg)
    return values


def _reverse_edges(edge_segment: npt.NDArray[Any]) -> Int32Array:
    """The other edge of the same segment (``-1`` for one-way segments).

    Without sorting: a segment's two edge ids sum to ``total``, so the other
    one is ``total - e`` (sums of ids are exact in float64).
    """
    n = edge_segment.shape[0]
    segments = _indices(edge_segment, int(edge_segment.max()) + 1 if n else 0)
    ids = np.arange(n, dtype=np.int64)
    count = np.bincount(segments)
    total = np.bincount(segments, weights=ids).astype(np.int64)
    reverse = np.where(count[segments] == 2, total[segments] - ids, -1)
    return reverse.astype(np.int32)


@dataclass(frozen=True)
class BuildReport:
    """What the builder removed or could not use.

    Attributes
    ----------
    islands_walk, islands_bicycle, islands_car
        Connected components (islands) from which island pruning removed the mode.
    segments_restricted
        Segments that lost some modes to island pruning but kept others.
    segments_removed
        Segments that lost every mode and were removed.
    vertices_removed
        Vertices left without segments and removed (isolated vertices included).
    restrictions_resolved
        Turn restrictions turned into banned edge pairs (via-way ones included).
    restrictions_unresolved
        Restrictions whose ways were not found at the via vertex or along the via
        path (or were pruned), or that no restricted mode can drive.
    restrictions_via_way_skipped
        Always 0 since via-way restrictions are modelled; graphs built before
        counted them here.
    restrictions_via_way
        Via-way restrictions modelled (also counted in ``restrictions_resolved``).
    restriction_copy_segments
        One-way segment copies added for them (``FLAG_RESTRICTION_COPY``).
    """

    islands_walk: int = 0
    islands_bicycle: int = 0
    islands_car: int = 0
    segments_restricted: int = 0
    segments_removed: int = 0
    vertices_removed: int = 0
    restrictions_resolved: int = 0
    restrictions_unresolved: int = 0
    restrictions_via_way_skipped: int = 0
    restrictions_via_way: int = 0
    restriction_copy_segments: int = 0

    def to_dict(self) -> dict[str, int]:
        """The report as a JSON-ready dict."""
        return dataclasses.asdict(self)


def _readonly(a: npt.NDArray[Any]) -> npt.NDArray[Any]:
    view = a.view()
    view.flags.writeable = False
    return view


@dataclass(frozen=True, eq=False)
class StreetGraph:
    """A directed, immutable street graph (see the module docstring for the layout).

    Build one with :func:`otpa.street.build_street_graph`; load one with
    :meth:`from_arrays`.
    """

    vertex_lat: FloatArray
    vertex_lon: FloatArray
    vertex_osm_id: IntArray
    vertex_barrier: UInt8Array
    seg_from: Int32Array
    seg_to: Int32Array
    seg_way_id: IntArray
    seg_length_m: FloatArray
    seg_highway: Int16Array
    seg_source: IntArray
    seg_source_start: FloatArray
    seg_source_end: FloatArray
    seg_geom_offsets: IntArray
    geom_lat: FloatArray
    geom_lon: FloatArray
    edge_from: Int32Array
    edge_to: Int32Array
    edge_length_m: FloatArray
    edge_perm: UInt8Array
    edge_car_speed_mps: Float32Array
    edge_bike_safety: Float32Array
    edge_name: Int32Array
    edge_flags: UInt16Array
    edge_segment: Int32Array
    edge_backward: UInt8Array
    edge_reverse: Int32Array
    out_indptr: IntArray
    in_indptr: IntArray
    in_edges: Int32Array
    ban_indptr: IntArray
    ban_to: Int32Array
    ban_modes: UInt8Array
    names: tuple[str, ...]
    highway_kinds: tuple[str, ...]
    n_original_vertices: int
    report: BuildReport = field(default_factory=BuildReport)
    edge_max_slope: FloatArray | None = None
    edge_rise_m: FloatArray | None = None
    edge_fall_m: FloatArray | None = None
    edge_slope_speed_effective_length_m: FloatArray | None = None
    edge_slope_work_cost: FloatArray | None = None
    edge_slope_safety_cost_m: FloatArray | None = None
    edge_effective_walk_length_m: FloatArray | None = None
    vertex_elevation_m: Float32Array | None = None
    vertex_elevator: UInt8Array | None = None
    _cache: dict[str, Any] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        for name in (*_ARRAY_SPECS, *_ELEVATION_SPECS, *_OPTIONAL_SPECS):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, _readonly(value))
        object.__setattr__(self, "names", tuple(self.names))
        object.__setattr__(self, "highway_kinds", tuple(self.highway_kinds))
        self._validate()

    # ------------------------------------------------------------------ sizes
    @property
    def n_vertices(self) -> int:
        """Number of vertices."""
        return int(self.vertex_lat.shape[0])

    @property
    def n_edges(self) -> int:
        """Number of directed edges."""
        return int(self.edge_from.shape[0])

    @property
    def n_segments(self) -> int:
        """Number of undirected segments."""
        return int(self.seg_from.shape[0])

    @property
    def n_turn_bans(self) -> int:
        """Number of banned ``(from_edge, to_edge)`` pairs."""
        return int(self.ban_to.shape[0])

    @property
    def has_elevation(self) -> bool:
        """Whether the per-edge elevation arrays are present."""
        return self.edge_max_slope is not None

    # ---------------------------------------------------------------- access
    def out_edges(self, vertex: int) -> Int32Array:
        """Edge ids leaving ``vertex``."""
        lo, hi = int(self.out_indptr[vertex]), int(self.out_indptr[vertex + 1])
        return np.arange(lo, hi, dtype=np.int32)

    def in_edges_of(self, vertex: int) -> Int32Array:
        """Edge ids entering ``vertex``."""
        lo, hi = int(self.in_indptr[vertex]), int(self.in_indptr[vertex + 1])
        return np.asarray(self.in_edges[lo:hi])

    def edge_geometry(self, edge: int) -> tuple[FloatArray, FloatArray]:
        """``(lat, lon)`` of an edge's polyline in travel direction (copies)."""
        seg = int(self.edge_segment[edge])
        lo, hi = int(self.seg_geom_offsets[seg]), int(self.seg_geom_offsets[seg + 1])
        lat = np.array(self.geom_lat[lo:hi])
        lon = np.array(self.geom_lon[lo:hi])
        if self.edge_backward[edge]:
            return lat[::-1].copy(), lon[::-1].copy()
        return lat, lon

    def turn_bans(self) -> tuple[Int32Array, Int32Array, UInt8Array]:
        """Banned pairs as flat arrays ``(from_edge, to_edge, modes)``."""
        counts = np.diff(self.ban_indptr)
        from_edge = np.repeat(np.arange(self.n_edges, dtype=np.int32), counts)
        return from_edge, np.asarray(self.ban_to), np.asarray(self.ban_modes)

    def has_turn_bans(self, mode: int | np.integer[Any]) -> bool:
        """Whether any banned pair applies to the permission bit(s) ``mode``."""
        key = f"has_bans_{int(mode)}"
        if key not in self._cache:
            self._cache[key] = bool(np.any(self.ban_modes & np.uint8(mode)))
        return bool(self._cache[key])

    # --------------------------------------------------------------- linking
    def link_points(
        self,
        lat: npt.ArrayLike,
        lon: npt.ArrayLike,
        *,
        modes: int | np.integer[Any] = 1,
        max_distance_m: float = 1000.0,
        snap_m: float = 1.0,
    ) -> LinkResult:
        """Link points to their nearest usable edge, splitting edges as needed.

        See :func:`otpa.street.linking.link_points`.
        """
        from otpa.street.linking import link_points  # import cycle

        return link_points(
            self, lat, lon, modes=modes, max_distance_m=max_distance_m, snap_m=snap_m
        )

    # --------------------------------------------------------- serialisation
    def to_arrays(self) -> dict[str, npt.NDArray[Any]]:
        """All arrays by name (views, no copies); see :meth:`meta`."""
        out: dict[str, npt.NDArray[Any]] = {name: getattr(self, name) for name in _ARRAY_SPECS}
        if self.has_elevation:
            for name in _ELEVATION_SPECS:
                out[name] = getattr(self, name)
        for name in _OPTIONAL_SPECS:
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out

    def meta(self) -> dict[str, Any]:
        """JSON-ready metadata that goes with :meth:`to_arrays`."""
        return {
            "format": "otpa-street-graph",
            "version": FORMAT_VERSION,
            "names": list(self.names),
            "highway_kinds": list(self.highway_kinds),
            "n_original_vertices": self.n_original_vertices,
            "has_elevation": self.has_elevation,
            "report": self.report.to_dict(),
        }

    @classmethod
    def from_arrays(
        cls, arrays: Mapping[str, npt.NDArray[Any]], meta: Mapping[str, Any]
    ) -> StreetGraph:
        """Rebuild a graph from :meth:`to_arrays` and :meth:`meta` output without copying.

        Raises
        ------
        GraphFormatError
            If the metadata has the wrong format or version, or an array is
            missing or has the wrong dtype or length.
        """
        if meta.get("format") != "otpa-street-graph":
            msg = f"not a street graph: format={meta.get('format')!r}"
            raise GraphFormatError(msg)
        if meta.get("version") != FORMAT_VERSION:
            msg = f"unsupported street graph version {meta.get('version')!r}"
            raise GraphFormatError(msg)
        specs = dict(_ARRAY_SPECS)
        if meta.get("has_elevation"):
            specs.update(_ELEVATION_SPECS)
        kwargs: dict[str, Any] = {}
        for name, (dtype, _) in specs.items():
            if name not in arrays:
                msg = f"street graph array {name!r} is missing"
                raise GraphFormatError(msg)
            arr = np.asarray(arrays[name])
            if arr.dtype != np.dtype(dtype) or arr.ndim != 1:
                msg = f"street graph array {name!r} has dtype {arr.dtype}, shape {arr.shape}"
                raise GraphFormatError(msg)
            kwargs[name] = arr
        for name in _OPTIONAL_SPECS:
            if name in arrays:
                kwargs[name] = np.asarray(arrays[name])
        try:
            report = BuildReport(**meta.get("report", {}))
            return cls(
                names=tuple(str(s) for s in meta["names"]),
                highway_kinds=tuple(str(s) for s in meta["highway_kinds"]),
                n_original_vertices=int(meta["n_original_vertices"]),
                report=report,
                **kwargs,
            )
        except (KeyError, TypeError) as exc:
            msg = f"bad street graph metadata: {exc}"
            raise GraphFormatError(msg) from exc

    def to_members(self) -> tuple[dict[str, npt.NDArray[Any]], dict[str, Any]]:
        """Arrays (``street.<name>``) and JSON documents (``street.meta``) for a container.

        Arrays that :meth:`from_members` recomputes bit for bit from the others
        (the in-edge CSR, edge lengths, reverse edges; see ``_derive_member``)
        are left out and listed in ``street.meta["derived"]``.
        """
        own = self.to_arrays()
        derived = [name for name in _DERIVED if _same_bits(_derive_member(name, own), own[name])]
        for name in derived:
            del own[name]
        meta = {**self.meta(), "derived": derived}
        arrays = {f"{_MEMBER_PREFIX}{k}": v for k, v in own.items()}
        return arrays, {f"{_MEMBER_PREFIX}meta": meta}

    @classmethod
    def from_members(
        cls, arrays: Mapping[str, npt.NDArray[Any]], documents: Mapping[str, Any]
    ) -> StreetGraph:
        """Rebuild from :meth:`to_members` output (stored arrays are used without copying)."""
        meta = documents.get(f"{_MEMBER_PREFIX}meta")
        if not isinstance(meta, Mapping):
            msg = "the street graph metadata document is missing"
            raise GraphFormatError(msg)
        n = len(_MEMBER_PREFIX)
        own = {k[n:]: v for k, v in arrays.items() if k.startswith(_MEMBER_PREFIX)}
        derived = meta.get("derived", [])
        if not isinstance(derived, list) or not set(derived) <= set(_DERIVED):
            msg = f"bad list of derived street graph arrays: {derived!r}"
            raise GraphFormatError(msg)
        for name in _DERIVED:  # in dependency order
            if name in derived:
                own[name] = _derive_member(name, own)
        return cls.from_arrays(own, meta)

    # ------------------------------------------------------------ validation
    def _validate(self) -> None:
        n_v, n_s, n_e = self.n_vertices, self.n_segments, self.n_edges
        sizes = {
            "v": n_v,
            "v+1": n_v + 1,
            "s": n_s,
            "s+1": n_s + 1,
            "g": int(self.geom_lat.shape[0]),
            "e": n_e,
            "e+1": n_e + 1,
            "b": int(self.ban_to.shape[0]),
        }
        specs = dict(_ARRAY_SPECS)
        if self.has_elevation:
            specs.update(_ELEVATION_SPECS)
        specs.update({k: v for k, v in _OPTIONAL_SPECS.items() if getattr(self, k) is not None})
        for name, (dtype, key) in specs.items():
            arr = getattr(self, name)
            if arr is None or arr.dtype != np.dtype(dtype) or arr.shape != (sizes[key],):
                got = None if arr is None else (arr.dtype, arr.shape)
                msg = f"street graph array {name!r}: expected {dtype}[{sizes[key]}], got {got}"
                raise GraphFormatError(msg)
        if not 0 <= self.n_original_vertices <= n_v:
            msg = f"n_original_vertices={self.n_original_vertices} out of range"
            raise GraphFormatError(msg)
        ends = (
            (self.out_indptr, n_e),
            (self.in_indptr, n_e),
            (self.ban_indptr, sizes["b"]),
            (self.seg_geom_offsets, sizes["g"]),
        )
        for indptr, total in ends:
            if indptr[0] != 0 or indptr[-1] != total:
                msg = "street graph CSR pointers are inconsistent"
                raise GraphFormatError(msg)
