"""The street data the OSM reader hands to the street graph builder.

This module is the contract between :mod:`otpa.osm` (which fills it) and
:mod:`otpa.street` (which turns it into a routable CSR graph). Everything is a
flat numpy array so it can be saved, memory-mapped and used from numba.

Terminology
-----------
*vertex*   an OSM node kept in the graph: way ends, nodes shared by two or more
           routable ways, barrier nodes, and nodes where a turn restriction is
           anchored.
*segment*  the piece of one OSM way between two consecutive vertices.  It is
           undirected; per-direction permissions say who may traverse it
           forward (``from -> to``, the way's node order) and backward.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from otpa.types import (
    Float32Array,
    FloatArray,
    Int16Array,
    Int32Array,
    IntArray,
    UInt8Array,
    UInt16Array,
)

__all__ = [
    "BICYCLE",
    "CAR",
    "ELEVATOR_ACCESSIBLE",
    "ELEVATOR_INACCESSIBLE",
    "ELEVATOR_NONE",
    "ELEVATOR_UNKNOWN",
    "FLAG_AREA",
    "FLAG_BOGUS_NAME",
    "FLAG_CONSTRUCTION_IGNORED",
    "FLAG_LINK",
    "FLAG_MOTORROAD",
    "FLAG_RESTRICTION_COPY",
    "FLAG_ROUNDABOUT",
    "FLAG_SLOPE_OVERRIDE",
    "FLAG_STAIRS",
    "FLAG_TOLL",
    "FLAG_WHEELCHAIR_NO",
    "WALK",
    "OsmFeature",
    "OsmStreetData",
    "TurnRestriction",
    "WayTags",
    "elevator_code",
]

# Traverse permission bits (per direction, per segment; per vertex for barriers).
WALK = np.uint8(1)
BICYCLE = np.uint8(2)
CAR = np.uint8(4)

# Elevator vertices (``vertex_elevator``, uint8): an OSM ``highway=elevator`` node by
# its ``wheelchair`` tag (OTP 2: yes/true/1 accessible, no/false/0 not, else unknown).
ELEVATOR_NONE = 0
ELEVATOR_ACCESSIBLE = 1
ELEVATOR_UNKNOWN = 2
ELEVATOR_INACCESSIBLE = 3


def elevator_code(wheelchair: str) -> int:
    """The ``ELEVATOR_*`` code of an elevator node with this ``wheelchair`` tag value.

    Examples
    --------
    >>> elevator_code("yes"), elevator_code(""), elevator_code("no")
    (1, 2, 3)
    """
    value = wheelchair.strip().lower()
    if value in ("yes", "true", "1"):
        return ELEVATOR_ACCESSIBLE
    if value in ("no", "false", "0"):
        return ELEVATOR_INACCESSIBLE
    return ELEVATOR_UNKNOWN


# Segment flags (bitmask, uint16).
FLAG_STAIRS = 1 << 0  # highway=steps
FLAG_AREA = 1 << 1  # edge crossing or bounding a pedestrian area (area=yes)
FLAG_ROUNDABOUT = 1 << 2  # junction=roundabout (or circular)
FLAG_BOGUS_NAME = 1 << 3  # no name/ref tag: the name is generated from the highway kind
FLAG_WHEELCHAIR_NO = 1 << 4  # wheelchair=no, or steps
FLAG_MOTORROAD = 1 << 5  # motorroad=yes / motorway classes
FLAG_TOLL = 1 << 6
FLAG_LINK = 1 << 7  # *_link highway classes
FLAG_CONSTRUCTION_IGNORED = 1 << 8  # reserved: never set on kept segments
FLAG_SLOPE_OVERRIDE = 1 << 9  # bridge/tunnel/embankment: DEM ignored (OTP slope override)
# Never set by the reader: otpa.street marks the one-way copies of via-way segments it adds
# for via-way turn restrictions (same geometry as the original; not a linking target).
FLAG_RESTRICTION_COPY = 1 << 10


@dataclass(frozen=True)
class TurnRestriction:
    """A ``type=restriction`` relation resolved to OSM ids.

    Attributes
    ----------
    from_way, to_way
        OSM way ids of the ``from`` and ``to`` members.
    via_vertex
        Index (into ``OsmStreetData.vertex_*``) of the ``via`` node.  Restrictions
        with a via *way* are kept with ``via_vertex = -1`` and ``via_ways`` set.
    kind
        ``"no"`` for ``no_*`` restrictions, ``"only"`` for ``only_*``.
    restriction
        The full tag value, e.g. ``"no_left_turn"``.
    modes
        Permission bits the restriction applies to (CAR | BICYCLE by default, as in
        OSM and OTP 1.x; ``except`` tags remove bits; ``restriction:motorcar``,
        ``restriction:bicycle`` etc. set them).
    via_ways
        OSM ids of the ``via`` ways, in relation order (empty for a via node).
    via_path
        For a via-way restriction: the vertex indices of the path along the via
        ways, from the vertex the ``from`` way joins it to the vertex where the
        ``to`` way leaves it (both included).
    via_segments
        For a via-way restriction: the segment indices (into ``OsmStreetData.seg_*``)
        of that path, one per step ``via_path[i] -> via_path[i + 1]``.
    """

    relation_id: int
    from_way: int
    to_way: int
    via_vertex: int
    kind: str
    restriction: str
    modes: int
    via_ways: tuple[int, ...] = ()
    via_path: tuple[int, ...] = ()
    via_segments: tuple[int, ...] = ()


@dataclass(frozen=True)
class OsmFeature:
    """A point feature kept for later use (park-and-ride, bike parking, bike rental)."""

    osm_id: int
    osm_type: str  # "node" | "way"
    lat: float
    lon: float
    name: str | None
    tags: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class WayTags:
    """Selected tags of the kept ways (for walk-comfort rules), each distinct subset once.

    Attributes
    ----------
    way_id
        Way ids, ascending (int64; synthetic multipolygon rings are negative).
    tag_set
        Per way, its index into ``tag_sets`` (int32).
    tag_sets
        The distinct tag subsets; ``tag_sets[0]`` is the empty one.
    """

    way_id: IntArray
    tag_set: Int32Array
    tag_sets: list[dict[str, str]]

    def lookup(self, way_ids: npt.ArrayLike) -> Int32Array:
        """Index into ``tag_sets`` of each way id (0, the empty set, for unknown ways)."""
        ids = np.asarray(way_ids, dtype=np.int64)
        if self.way_id.size == 0:
            return np.zeros(ids.shape, dtype=np.int32)
        pos = np.clip(np.searchsorted(self.way_id, ids), 0, self.way_id.size - 1)
        found = self.way_id[pos] == ids
        out: Int32Array = np.where(found, self.tag_set[pos], 0).astype(np.int32)
        return out


@dataclass(frozen=True)
class OsmStreetData:
    """Routable street segments read from one or more OSM files.

    Vertex arrays (length ``n_vertices``)
        ``vertex_osm_id`` (int64), ``vertex_lat``/``vertex_lon`` (float64 degrees),
        ``vertex_barrier`` (uint8): permission bits *blocked* at this node
        (e.g. ``CAR`` for a bollard); 0 for no barrier.  ``vertex_elevator``
        (uint8, or None when the data has no elevator): ``ELEVATOR_*`` of an OSM
        ``highway=elevator`` node by its ``wheelchair`` tag, ``ELEVATOR_NONE`` elsewhere.
    Segment arrays (length ``n_segments``)
        ``seg_from``/``seg_to`` (int32 vertex index, way node order),
        ``seg_way_id`` (int64), ``seg_length_m`` (float64, along the geometry),
        ``seg_perm_fwd``/``seg_perm_back`` (uint8 permission bits),
        ``seg_car_speed_mps`` (float32, OTP's default speed for the highway
        class or the ``maxspeed`` tag), ``seg_bike_safety_fwd``/``_back``
        (float32 multiplier >= some small positive value, 1.0 = neutral),
        ``seg_name`` (int32 index into ``names``), ``seg_highway`` (int16 index
        into ``highway_kinds``), ``seg_flags`` (uint16, ``FLAG_*`` bits).
    Geometry
        ``seg_geom_offsets`` (int64, length ``n_segments + 1``) into
        ``geom_lat``/``geom_lon`` (float64); each segment's geometry includes
        both end vertices.
    Strings
        ``names``: street names (``name``, else ``ref``, else a generated name
        for the kind, such as ``"path"`` or ``"service road"``, flagged with
        ``FLAG_BOGUS_NAME``).  ``highway_kinds``: highway tag values.
    Other
        ``restrictions``: turn restrictions; ``park_and_ride``, ``bike_parking``,
        ``bike_rental``: point features; ``places``: named places and points
        of interest (for the geocoder, see ``otpa/osm/_places.py``); ``bounds``: (min_lon,
        min_lat, max_lon, max_lat) of the vertices; ``way_tags``: the walk-relevant tags of
        the kept ways (:class:`WayTags`), or None.
    """

    vertex_osm_id: IntArray
    vertex_lat: FloatArray
    vertex_lon: FloatArray
    vertex_barrier: UInt8Array
    seg_from: Int32Array
    seg_to: Int32Array
    seg_way_id: IntArray
    seg_length_m: FloatArray
    seg_perm_fwd: UInt8Array
    seg_perm_back: UInt8Array
    seg_car_speed_mps: Float32Array
    seg_bike_safety_fwd: Float32Array
    seg_bike_safety_back: Float32Array
    seg_name: Int32Array
    seg_highway: Int16Array
    seg_flags: UInt16Array
    seg_geom_offsets: IntArray
    geom_lat: FloatArray
    geom_lon: FloatArray
    names: list[str]
    highway_kinds: list[str]
    restrictions: list[TurnRestriction] = field(default_factory=list)
    park_and_ride: list[OsmFeature] = field(default_factory=list)
    bike_parking: list[OsmFeature] = field(default_factory=list)
    bike_rental: list[OsmFeature] = field(default_factory=list)
    places: list[OsmFeature] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    way_tags: WayTags | None = None
    vertex_elevator: UInt8Array | None = None

    @property
    def n_vertices(self) -> int:
        """Number of vertices."""
        return int(self.vertex_lat.shape[0])

    @property
    def n_segments(self) -> int:
        """Number of segments."""
        return int(self.seg_from.shape[0])

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        """``(min_lon, min_lat, max_lon, max_lat)`` of the vertices."""
        return (
            float(self.vertex_lon.min()),
            float(self.vertex_lat.min()),
            float(self.vertex_lon.max()),
            float(self.vertex_lat.max()),
        )
