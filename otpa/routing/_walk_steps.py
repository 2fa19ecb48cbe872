"""Walk steps (turn-by-turn instructions) of a street path, as OTP 1.x makes them.

OTP 1.x ``GraphPathToTripPlanConverter.generateWalkSteps``, edge by edge:

* a **new step** starts when the street name changes (ignoring a trailing
  ``" (...)"``; two generated -- bogus -- names in a row do not count as a
  change), when the path goes on to or off a roundabout, or on to a link (ramp);
* the first step is ``DEPART``; others get the **relative direction** of the turn
  from the last angle of the previous edge to the first angle of the new one
  (< 0.3 rad CONTINUE, < 0.7 SLIGHTLY, < 2 plain, else HARD; clockwise is right)
  and the **absolute direction** of their first angle (8 sectors from NORTH);
* a **roundabout** is one step ``CIRCLE_CLOCKWISE`` or ``CIRCLE_COUNTERCLOCKWISE``
  with ``exit`` = the ordinal of the exit taken: 1 plus the roundabout vertices
  passed where the mode could have left it.  Two deliberate departures from OTP
  1.x: the sense is the one the path actually turns on the roundabout (OTP infers
  it from the turn on to it, which is wrong after a left turn on to a
  counter-clockwise roundabout; its rule remains for roundabout steps that turn
  less than 0.5 rad), and exits are counted at the vertex passed (OTP counts the
  options one vertex late, at the start of the previous roundabout edge, and so
  misses an exit just before the one taken).  A path that starts on a roundabout
  follows it in its first (DEPART) step.  ``stayOn`` when the street after the
  roundabout has the name of the street before it.  Roundabout steps are never
  merged away as "zags";
* a turn off the straight line on the same street becomes a ``stayOn`` step when
  another street left the intersection at a plausible angle;
* "zags" -- a step shorter than 30 m between two steps on the same street -- are
  merged; two rights or two lefts in a row become ``UTURN_RIGHT``/``UTURN_LEFT``.

``lon``/``lat`` are the start of the step, ``distance`` the sum of its edges,
``bogusName`` and ``area`` from the first edge, ``elevation`` the
``(distance from the step start, height)`` pairs of its edges' profiles.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple, Protocol

import numpy as np
from numba import njit

from otpa.errors import InternalError
from otpa.osm.model import (
    BICYCLE,
    CAR,
    FLAG_AREA,
    FLAG_BOGUS_NAME,
    FLAG_LINK,
    FLAG_ROUNDABOUT,
    WALK,
)
from otpa.routing._path_kernel import assemble_path, edge_part
from otpa.routing._polyline import encode_into
from otpa.routing._step_kernel import RELATIVE, build_step_columns
from otpa.routing._street_geometry import GraphGeometry, _line_angles, graph_geometry
from otpa.routing.model import (
    AbsoluteDirection,
    RelativeDirection,
    WalkStep,
    field_template,
)
from otpa.street import StreetGraph
from otpa.types import (
    BoolArray,
    FloatArray,
    Int32Array,
    IntArray,
    UInt8Array,
    UInt16Array,
)
from otpa.util.cache import OwnerCache

if TYPE_CHECKING:
    from otpa.routing._street_types import StreetPath

__all__ = [
    "SegmentProfiles",
    "build_steps",
    "mode_bit",
    "path_profile",
    "relative_direction",
    "step_inputs",
    "steps_of_table",
    "tree_leg",
]

#: OTP 1.x ``MAX_ZAG_DISTANCE``.
MAX_ZAG_DISTANCE_M = 30.0
#: Turning (radians) on a roundabout that decides its sense; less keeps OTP's entry rule.
MIN_CIRCLE_TURN = 0.5
_ABSOLUTE = tuple(AbsoluteDirection)
_RIGHTS = (RelativeDirection.RIGHT, RelativeDirection.HARD_RIGHT)
_LEFTS = (RelativeDirection.LEFT, RelativeDirection.HARD_LEFT)
_CIRCLES = (RelativeDirection.CIRCLE_CLOCKWISE, RelativeDirection.CIRCLE_COUNTERCLOCKWISE)
_MODE_BIT = {"WALK": int(WALK), "BICYCLE": int(BICYCLE), "CAR": int(CAR)}


def mode_bit(mode: str) -> int:
    """The permission bit the step builder checks roundabout exits with (WALK by default)."""
    return _MODE_BIT.get(mode, int(WALK))


class SegmentProfiles(Protocol):
    """Elevation profiles per OSM segment (:class:`otpa.elevation.EdgeElevation` has them).

    Samples of segment ``i`` are ``profile_offsets[i]:profile_offsets[i + 1]``,
    at ``profile_dist_m`` metres along it (way order) with height ``profile_elev_m``.
    """

    @property
    def profile_offsets(self) -> np.ndarray:  # type: ignore[type-arg]
        """CSR offsets (``n_segments + 1``)."""

    @property
    def profile_dist_m(self) -> np.ndarray:  # type: ignore[type-arg]
        """Distance of each sample along its segment."""

    @property
    def profile_elev_m(self) -> np.ndarray:  # type: ignore[type-arg]
        """Height of each sample."""


def relative_direction(last: float, this: float, roundabout: bool) -> RelativeDirection:
    """OTP 1.x ``WalkStep.getRelativeDirection`` (angles in radians clockwise from north).

    Examples
    --------
    >>> relative_direction(0.0, math.pi / 2, False).value
    'RIGHT'
    >>> relative_direction(0.0, -math.pi / 2, True).value
    'CIRCLE_CLOCKWISE'
    """
    diff = this - last
    if diff < 0:
        diff += 2 * math.pi
    ccw = 2 * math.pi - diff
    if roundabout:
        return (
            RelativeDirection.CIRCLE_CLOCKWISE
            if diff > ccw
            else RelativeDirection.CIRCLE_COUNTERCLOCKWISE
        )
    if diff < 0.3 or ccw < 0.3:
        return RelativeDirection.CONTINUE
    if diff < 0.7:
        return RelativeDirection.SLIGHTLY_RIGHT
    if ccw < 0.7:
        return RelativeDirection.SLIGHTLY_LEFT
    if diff < 2:
        return RelativeDirection.RIGHT
    if ccw < 2:
        return RelativeDirection.LEFT
    if diff < math.pi:
        return RelativeDirection.HARD_RIGHT
    return RelativeDirection.HARD_LEFT


def _absolute(angle: float) -> AbsoluteDirection:
    octant = int(8 + math.floor(angle * 8 / (2 * math.pi) + 0.5)) % 8
    return _ABSOLUTE[octant]


def _abs_angle_diff(a: float, b: float) -> float:
    diff = a - b
    if diff < 0:
        diff += 2 * math.pi
    return min(diff, 2 * math.pi - diff)


def _no_parens(name: str) -> str:
    idx = name.find("(")
    return name if idx <= 0 else name[: idx - 1]


@dataclass
class _Step:
    name: str
    lon: float
    lat: float
    bogus: bool
    area: bool
    #: the name's key (:func:`_name_keys`: equal keys, equal names without parentheses)
    key: int
    relative: RelativeDirection = RelativeDirection.DEPART
    absolute: AbsoluteDirection | None = None
    distance: float = 0.0
    stay_on: bool = False
    exit: str | None = None
    elevation: list[tuple[float, float]] = field(default_factory=list)

    def set_directions(self, last: float, this: float, roundabout: bool) -> None:
        self.relative = relative_direction(last, this, roundabout)
        self.absolute = _absolute(this)

    def freeze(self) -> WalkStep:
        return WalkStep(
            distance=self.distance,
            relative_direction=self.relative,
            street_name=self.name,
            absolute_direction=self.absolute,
            lon=self.lon,
            lat=self.lat,
            stay_on=self.stay_on,
            area=self.area,
            bogus_name=self.bogus,
            exit=self.exit,
            # consecutive edges share their joint: keep each point once
            elevation=tuple(
                pt for i, pt in enumerate(self.elevation) if i == 0 or pt != self.elevation[i - 1]
            )
            if self.elevation
            else (),
        )


class _Edge(NamedTuple):
    """What the step builder needs of one path edge."""

    edge: int
    name: str
    key: int
    flags: int
    length: float
    first: float
    last: float
    lat: float
    lon: float
    walking: bool
    profile: list[tuple[float, float]]


_NAME_KEYS: OwnerCache[str, np.ndarray] = OwnerCache()  # type: ignore[type-arg]


def _name_keys(graph: StreetGraph) -> np.ndarray:  # type: ignore[type-arg]
    """Per name index, one integer per distinct ``_no_parens`` name (cached per graph)."""

    def build() -> np.ndarray:  # type: ignore[type-arg]
        ids: dict[str, int] = {}
        return np.array(
            [ids.setdefault(_no_parens(n), len(ids)) for n in graph.names], dtype=np.int64
        )

    return _NAME_KEYS.get_or_build(graph, "name_keys", build)


@dataclass
class _PathEdges:
    """The path's edges as columns (plain lists); :meth:`at` makes one :class:`_Edge`."""

    graph: StreetGraph
    geo: GraphGeometry
    edge: list[int]
    name_index: list[int]
    key: list[int]
    flags: list[int]
    length: list[float]
    first: list[float]
    last: list[float]
    lat: list[float]
    lon: list[float]
    walking: list[bool]
    profile: list[list[tuple[float, float]]]
    #: an edge that cannot start a step (see :func:`_edge_columns`)
    plain: list[bool]

    def at(self, i: int) -> _Edge:
        return _Edge(
            self.edge[i], self.graph.names[self.name_index[i]], self.key[i], self.flags[i],
            self.length[i],
            self.first[i], self.last[i], self.lat[i], self.lon[i], self.walking[i],
            self.profile[i],
        )  # fmt: skip


@njit(cache=True)  # type: ignore[misc]
def _edge_columns(
    edges: IntArray,
    start: float,
    end: float,
    first_angle: FloatArray,
    last_angle: FloatArray,
    edge_from: Int32Array,
    vertex_lat: FloatArray,
    vertex_lon: FloatArray,
    name_keys: IntArray,
    edge_name: Int32Array,
    edge_flags: UInt16Array,
    offsets: IntArray,
    geom_lat: FloatArray,
    geom_lon: FloatArray,
    edge_segment: Int32Array,
    edge_backward: UInt8Array,
    cum_m: FloatArray,
    seg_len_m: FloatArray,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, BoolArray]:
    """First and last angle, start point and *plain* flag of each edge of a path.

    Whole edges take the graph's angles and their start vertex; a partial first or
    last edge (``start > 0``, ``end < 1``) the angles and first point of its used part.

    Edge ``i > 0`` is *plain* when it has the name (without parentheses) and the
    bogus-name flag of edge ``i - 1``, neither is on a roundabout, it does not go on to
    a link, and the turn between them is CONTINUE.  By induction on :func:`build_steps`'
    loop, the step current after edge ``i - 1`` has edge ``i - 1``'s name (or both are
    bogus) and no roundabout is being followed, so :func:`_changes_step` is false, the
    edge is no roundabout and the turn asks for no new step: the loop only adds the
    edge's length and elevation to the step.
    """
    n = edges.shape[0]
    first = np.empty(n)
    last = np.empty(n)
    lat = np.empty(n)
    lon = np.empty(n)
    for i in range(n):
        e = edges[i]
        first[i] = first_angle[e]
        last[i] = last_angle[e]
        v = edge_from[e]
        lat[i] = vertex_lat[v]
        lon[i] = vertex_lon[v]
    for k in range(min(n, 2)):  # only the first and last edge can be partial
        i = 0 if k == 0 else n - 1
        s = start if i == 0 else 0.0
        t = end if i == n - 1 else 1.0
        if s > 0.0 or t < 1.0:
            seg = edge_segment[edges[i]]
            size = offsets[seg + 1] - offsets[seg] + 2
            p_lat = np.empty(size)
            p_lon = np.empty(size)
            m = edge_part(p_lat, p_lon, 0, edges[i], s, t, offsets, geom_lat, geom_lon,
                          edge_segment, edge_backward, cum_m, seg_len_m)  # fmt: skip
            first[i], last[i] = _line_angles(p_lat[:m], p_lon[:m])
            lat[i], lon[i] = p_lat[0], p_lon[0]
    plain = np.zeros(n, dtype=np.bool_)
    two_pi = 2 * math.pi
    for i in range(1, n):
        a, b = edges[i - 1], edges[i]
        fa, fb = edge_flags[a], edge_flags[b]
        if name_keys[edge_name[b]] != name_keys[edge_name[a]]:
            continue
        if ((fb & FLAG_BOGUS_NAME) != 0) != ((fa & FLAG_BOGUS_NAME) != 0):
            continue
        if (fb & FLAG_ROUNDABOUT) != 0 or (fa & FLAG_ROUNDABOUT) != 0:
            continue
        if (fb & FLAG_LINK) != 0 and (fa & FLAG_LINK) == 0:
            continue
        # relative_direction(last, this) == CONTINUE, with its arithmetic
        diff = first[i] - last[i - 1]
        if diff < 0:
            diff = diff + two_pi
        ccw = two_pi - diff
        plain[i] = diff < 0.3 or ccw < 0.3
    return first, last, lat, lon, plain


class _PathColumns(NamedTuple):
    geo: GraphGeometry
    edges: IntArray
    name_keys: IntArray
    name_index: Int32Array
    flags: UInt16Array
    first: FloatArray
    last: FloatArray
    lat: FloatArray
    lon: FloatArray
    plain: BoolArray


def _path_columns(graph: StreetGraph, path: StreetPath) -> _PathColumns:
    """The per-edge columns the Python step builder starts from (one compiled pass; the
    compiled builder computes them inside :func:`_step_table`)."""
    geo = graph_geometry(graph)
    edges = np.asarray(path.edges, dtype=np.int64)
    name_keys = _name_keys(graph)
    first, last, lat, lon, plain = _edge_columns(
        edges, float(path.start_fraction), float(path.end_fraction), geo.first_angle,
        geo.last_angle, graph.edge_from, graph.vertex_lat, graph.vertex_lon, name_keys,
        graph.edge_name, graph.edge_flags, graph.seg_geom_offsets, graph.geom_lat,
        graph.geom_lon, graph.edge_segment, graph.edge_backward, geo.cum_m, geo.seg_len_m,
    )  # fmt: skip
    name_index = np.asarray(graph.edge_name)[edges]
    flags = np.asarray(graph.edge_flags)[edges]
    return _PathColumns(geo, edges, name_keys, name_index, flags, first, last, lat, lon, plain)


def _edges(graph: StreetGraph, path: StreetPath, profiles: SegmentProfiles | None) -> _PathEdges:
    geo, edges, name_keys, name_index, flags, first, last, lat, lon, plain = _path_columns(
        graph, path
    )
    n = edges.size
    keys = name_keys[name_index]
    length = path.edge_distance_m.tolist() if path.edge_distance_m.size else [0.0] * n
    walking = path.walking.tolist() if path.walking.size else [False] * n
    if profiles is None and graph.vertex_elevation_m is None:
        none: list[tuple[float, float]] = []
        profile = [none] * n
    else:
        starts, ends = path.used_fractions()
        if profiles is None:
            profile = _vertex_profiles(graph, edges, starts, ends, length)
        else:
            profile = [
                _edge_profile(graph, int(e), float(starts[i]), float(ends[i]), profiles)
                for i, e in enumerate(edges)
            ]
    return _PathEdges(
        graph, geo, edges.tolist(), name_index.tolist(), keys.tolist(), flags.tolist(), length,
        first.tolist(),
        last.tolist(), lat.tolist(), lon.tolist(), walking, profile, plain.tolist(),
    )  # fmt: skip


def _vertex_profiles(
    graph: StreetGraph,
    edges: np.ndarray,  # type: ignore[type-arg]
    starts: np.ndarray,  # type: ignore[type-arg]
    ends: np.ndarray,  # type: ignore[type-arg]
    length: list[float],
) -> list[list[tuple[float, float]]]:
    """Per edge, ``[(0, height at its start), (length, height at its end)]``.

    Heights come from the graph's vertex elevations, interpolated along the edge for
    the partial first and last edges; an edge with an unknown end height has none.
    """
    heights = np.asarray(graph.vertex_elevation_m, dtype=np.float64)
    h_from = heights[np.asarray(graph.edge_from)[edges]]
    h_to = heights[np.asarray(graph.edge_to)[edges]]
    s, t = np.asarray(starts, dtype=np.float64), np.asarray(ends, dtype=np.float64)
    first = h_from + s * (h_to - h_from)
    last = h_from + t * (h_to - h_from)
    out: list[list[tuple[float, float]]] = []
    for a, b, d in zip(first.tolist(), last.tolist(), length, strict=True):
        if math.isfinite(a) and math.isfinite(b):
            out.append([(0.0, round(a, 1)), (float(d), round(b, 1))])
        else:
            out.append([])
    return out


def _is_exit(graph: StreetGraph, prev: int, nxt: int, bit: int) -> bool:
    """Whether the mode could leave the roundabout at the vertex between two of its edges."""
    v = int(graph.edge_to[prev])
    back = int(graph.edge_reverse[prev])
    lo, hi = int(graph.ban_indptr[prev]), int(graph.ban_indptr[prev + 1])
    banned = {int(graph.ban_to[j]) for j in range(lo, hi) if int(graph.ban_modes[j]) & bit}
    for f in range(int(graph.out_indptr[v]), int(graph.out_indptr[v + 1])):
        if f in (nxt, back) or f in banned:
            continue
        if int(graph.edge_perm[f]) & bit:
            return True
    return False


def _should_continue(
    graph: StreetGraph, geo: GraphGeometry, edge: _Edge, last_angle: float
) -> bool:
    """OTP's test for a "turn to stay on the same street" step at the edge's start vertex."""
    v = int(graph.edge_from[edge.edge])
    angle_diff = _abs_angle_diff(edge.first, last_angle)
    for f in range(int(graph.out_indptr[v]), int(graph.out_indptr[v + 1])):
        if graph.names[int(graph.edge_name[f])] == edge.name:
            continue  # same-named alternatives usually come from split streets
        alt_diff = _abs_angle_diff(float(geo.first_angle[f]), last_angle)
        if angle_diff > math.pi / 4 or alt_diff - angle_diff < math.pi / 16:
            return True
    return False


def _new_step(edge: _Edge) -> _Step:
    return _Step(
        name=edge.name,
        lon=edge.lon,
        lat=edge.lat,
        bogus=bool(edge.flags & FLAG_BOGUS_NAME),
        area=bool(edge.flags & FLAG_AREA),
        key=edge.key,
        elevation=list(edge.profile),
    )


def _remove_zag(steps: list[_Step]) -> _Step | None:
    """OTP's zag removal on the last three steps; the step to continue, or None."""
    if len(steps) < 3:
        return None
    three, two, last = steps[-3], steps[-2], steps[-1]
    if two.relative in _CIRCLES or last.relative in _CIRCLES:
        return None  # keep roundabout instructions
    if not (two.distance < MAX_ZAG_DISTANCE_M and last.key == three.key):
        return None
    same_side = (last.relative in _RIGHTS and two.relative in _RIGHTS) or (
        last.relative in _LEFTS and two.relative in _LEFTS
    )
    if same_side:
        # two rights or two lefts in quick succession: a U-turn
        del steps[-2]
        last.elevation = [*two.elevation, *((d + two.distance, h) for d, h in last.elevation)]
        last.distance += two.distance
        last.relative = (
            RelativeDirection.UTURN_LEFT
            if last.relative in _LEFTS
            else RelativeDirection.UTURN_RIGHT
        )
        last.stay_on = True
        return last
    # a short detour off the street and back: one step along the street
    del steps[-2:]
    three.elevation.extend((d + three.distance, h) for d, h in two.elevation)
    three.distance += two.distance
    three.elevation.extend((d + three.distance, h) for d, h in last.elevation)
    return three


def build_steps(
    graph: StreetGraph,
    path: StreetPath,
    *,
    profiles: SegmentProfiles | None = None,
    initial_angle: float | None = None,
) -> tuple[WalkStep, ...]:
    """The walk steps of a path (see the module docstring).

    Without elevation profiles the compiled builder
    (:func:`~otpa.routing._step_kernel.build_step_columns`) makes them.
    """
    if profiles is None and graph.vertex_elevation_m is None:
        return _compiled_steps(graph, path, initial_angle)
    return _python_steps(graph, path, profiles, initial_angle)


_EXACT_IDS: OwnerCache[str, np.ndarray] = OwnerCache()  # type: ignore[type-arg]


def _exact_ids(graph: StreetGraph) -> np.ndarray:  # type: ignore[type-arg]
    """Per name index, one integer per distinct name (cached per graph)."""

    def build() -> np.ndarray:  # type: ignore[type-arg]
        ids: dict[str, int] = {}
        return np.array([ids.setdefault(n, len(ids)) for n in graph.names], dtype=np.int64)

    return _EXACT_IDS.get_or_build(graph, "exact_ids", build)


#: ``seg_geom_offsets, geom_lat, geom_lon, edge_segment, edge_backward, cum_m, seg_len_m``
_Geometry = tuple[IntArray, FloatArray, FloatArray, Int32Array, UInt8Array, FloatArray, FloatArray]
#: The graph arrays of :func:`~otpa.routing._step_kernel.build_step_columns`.
_GraphArrays = tuple[
    Int32Array, Int32Array, Int32Array, IntArray, IntArray, Int32Array, UInt8Array,
    UInt8Array, IntArray, Int32Array, FloatArray,
]  # fmt: skip


@njit(cache=True)  # type: ignore[misc]
def _step_table(
    edges: IntArray,
    start: float,
    end: float,
    lengths: FloatArray,
    walking: BoolArray,
    initial_angle: float,
    has_initial: bool,
    bit: int,
    shortcut: bool,
    name_keys: IntArray,
    vertex_lat: FloatArray,
    vertex_lon: FloatArray,
    last_angle: FloatArray,
    edge_flags: UInt16Array,
    geometry: _Geometry,
    graph_arrays: _GraphArrays,
) -> tuple[IntArray, FloatArray]:
    """:func:`_edge_columns` and :func:`build_step_columns` of a path in one call.

    ``geometry``: ``seg_geom_offsets, geom_lat, geom_lon, edge_segment, edge_backward``
    and the ``cum_m, seg_len_m`` of the graph's ``GraphGeometry``; ``graph_arrays``:
    those of :func:`build_step_columns`.  Returns per step ``(relative, absolute,
    stay_on, exit, name index, area, bogus name)`` as integers (booleans 0/1, exit -1:
    none) and ``(distance, lat, lon)``, the last two of the edge that starts the step.
    ``shortcut`` off: no edge is *plain* (every edge through the whole state machine;
    the same steps, for tests).
    """
    edge_from, edge_name, first_angle = graph_arrays[0], graph_arrays[9], graph_arrays[10]
    offsets, geom_lat, geom_lon, edge_segment, edge_backward, cum_m, seg_len_m = geometry
    first, last, lat, lon, plain = _edge_columns(
        edges, start, end, first_angle, last_angle, edge_from, vertex_lat, vertex_lon,
        name_keys, edge_name, edge_flags, offsets, geom_lat, geom_lon, edge_segment,
        edge_backward, cum_m, seg_len_m,
    )  # fmt: skip
    if not shortcut:
        plain[:] = False
    name_index = edge_name[edges]
    flags = edge_flags[edges]
    keys = name_keys[name_index]
    s_edge, s_rel, s_abs, s_dist, s_stay, s_exit = build_step_columns(
        edges, keys, flags, lengths, first, last, walking, plain, initial_angle, has_initial,
        bit, graph_arrays,
    )  # fmt: skip
    ns = s_edge.shape[0]
    ints = np.empty((ns, 7), dtype=np.int64)
    floats = np.empty((ns, 3))
    for j in range(ns):
        k = s_edge[j]
        ints[j, 0] = s_rel[j]
        ints[j, 1] = s_abs[j]
        ints[j, 2] = 1 if s_stay[j] else 0
        ints[j, 3] = s_exit[j]
        ints[j, 4] = name_index[k]
        ints[j, 5] = 1 if (flags[k] & FLAG_AREA) != 0 else 0
        ints[j, 6] = 1 if (flags[k] & FLAG_BOGUS_NAME) != 0 else 0
        floats[j, 0] = s_dist[j]
        floats[j, 1] = lat[k]
        floats[j, 2] = lon[k]
    return ints, floats


#: What :func:`_step_table` reads of a graph besides the path (see :func:`step_inputs`).
StepInputs = tuple[
    IntArray, FloatArray, FloatArray, FloatArray, UInt16Array, _Geometry, _GraphArrays
]

_STEP_INPUTS: OwnerCache[str, StepInputs] = OwnerCache()


def step_inputs(graph: StreetGraph) -> StepInputs:
    """``name_keys, vertex_lat, vertex_lon, last_angle, edge_flags, geometry, graph_arrays``
    of :func:`_step_table` for a graph (gathered once per graph)."""

    def build() -> StepInputs:
        geo = graph_geometry(graph)
        graph_arrays = (
            graph.edge_from, graph.edge_to, graph.edge_reverse, graph.out_indptr,
            graph.ban_indptr, graph.ban_to, graph.ban_modes, graph.edge_perm,
            _exact_ids(graph), graph.edge_name, geo.first_angle,
        )  # fmt: skip
        geometry = (
            graph.seg_geom_offsets, graph.geom_lat, graph.geom_lon, graph.edge_segment,
            graph.edge_backward, geo.cum_m, geo.seg_len_m,
        )  # fmt: skip
        return (
            _name_keys(graph), graph.vertex_lat, graph.vertex_lon, geo.last_angle,
            graph.edge_flags, geometry, graph_arrays,
        )  # fmt: skip

    return _STEP_INPUTS.get_or_build(graph, "steps", build)


@njit(cache=True)  # type: ignore[misc]
def tree_leg(
    edges: Int32Array,
    start: float,
    end: float,
    turns: FloatArray,
    costs: tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, BoolArray],
    rise_m: FloatArray,
    fall_m: FloatArray,
    head: FloatArray,
    tail: FloatArray,
    link: FloatArray,
    link_at_end: bool,
    bit: int,
    name_keys: IntArray,
    vertex_lat: FloatArray,
    vertex_lon: FloatArray,
    last_angle: FloatArray,
    edge_flags: UInt16Array,
    geometry: _Geometry,
    graph_arrays: _GraphArrays,
) -> tuple[IntArray, FloatArray, FloatArray, FloatArray, FloatArray, UInt8Array]:
    """A street leg in one call: its assembled path, steps and encoded polyline.

    What ``assemble`` (``assemble_path`` of the path's ``edges`` in travel order, the
    shares ``start``/``end`` of its first and last edge, the turn cost ``turns`` paid on
    entering each edge; ``costs``: ``(weight, exit_cost, time_s, time_ceil_s, length_m,
    walking)``), :func:`build_steps` (:func:`_step_table`), the link to a stop (``link``:
    its ``(lat, lon)`` put after the polyline, or before it, or empty: none) and the
    encoded polyline compute, with the same arithmetic.

    Returns
    -------
    tuple
        The steps' integer and float columns (:func:`_step_table`), the polyline's
        latitudes and longitudes (the link included), the path's totals
        ``[start, end, duration, cost, distance, rise, fall]`` and the encoded polyline.
    """
    weight, exit_cost, time_s, time_ceil_s, length_m, walking = costs
    offsets, geom_lat, geom_lon, edge_segment, edge_backward, cum_m, seg_len_m = geometry
    kept, _, _, dist, walk, totals, lat, lon = assemble_path(
        edges, start, end, turns, weight, exit_cost, time_s, time_ceil_s, length_m, walking,
        rise_m, fall_m, offsets, geom_lat, geom_lon, edge_segment, edge_backward, cum_m,
        seg_len_m, head, tail,
    )  # fmt: skip
    ints, floats = _step_table(
        kept.astype(np.int64), totals[0], totals[1], dist, walk, 0.0, False, bit, True,
        name_keys, vertex_lat, vertex_lon, last_angle, edge_flags, geometry, graph_arrays,
    )  # fmt: skip
    if link.shape[0]:
        m = lat.shape[0]
        at = m if link_at_end else 0
        rest = 0 if link_at_end else 1
        lat2 = np.empty(m + 1)
        lon2 = np.empty(m + 1)
        lat2[at] = link[0]
        lon2[at] = link[1]
        lat2[rest : rest + m] = lat
        lon2[rest : rest + m] = lon
        lat, lon = lat2, lon2
    code = np.empty(14 * lat.shape[0], dtype=np.uint8)  # at most 7 bytes per value
    size = encode_into(lat, lon, code)
    return ints, floats, lat, lon, totals, code[:size]


#: The fields of a walk step in order: :func:`steps_of_table` fills the instance dict
#: with them as :func:`~otpa.routing.model.from_template` would from the class's
#: :func:`~otpa.routing.model.field_template`.
_STEP_FIELDS = (
    "distance", "relative_direction", "street_name", "absolute_direction", "lon", "lat",
    "stay_on", "area", "bogus_name", "exit", "elevation", "alerts",
)  # fmt: skip
_STEP = field_template(WalkStep)
if tuple(_STEP) != _STEP_FIELDS or _STEP["alerts"] is not None:  # pragma: no cover
    _msg = "WalkStep's fields changed: update steps_of_table"
    raise InternalError(_msg)
_BOOL = (False, True)
_new = object.__new__


def _compiled_steps(
    graph: StreetGraph, path: StreetPath, initial_angle: float | None, *, shortcut: bool = True
) -> tuple[WalkStep, ...]:
    """:func:`build_steps` of a path without elevation, by the compiled builder
    (:func:`_step_table`; ``shortcut``: its *plain* edges, on but in tests)."""
    edges = np.asarray(path.edges, dtype=np.int64)
    n = edges.size
    lengths = path.edge_distance_m if path.edge_distance_m.size else np.zeros(n)
    walking = path.walking if path.walking.size else np.zeros(n, dtype=bool)
    ints, floats = _step_table(
        edges, float(path.start_fraction), float(path.end_fraction),
        np.asarray(lengths, dtype=np.float64), np.asarray(walking, dtype=np.bool_),
        0.0 if initial_angle is None else float(initial_angle), initial_angle is not None,
        mode_bit(path.mode), shortcut, *step_inputs(graph),
    )  # fmt: skip
    return steps_of_table(graph, ints, floats)


def steps_of_table(graph: StreetGraph, ints: IntArray, floats: FloatArray) -> tuple[WalkStep, ...]:
    """The :class:`WalkStep` objects of :func:`_step_table`'s (or :func:`tree_leg`'s) columns.

    Each instance dict is filled once with every field in order (``_STEP_FIELDS``), as
    :func:`~otpa.routing.model.from_template` would fill it.
    """
    names, relative, absolute, yes = graph.names, RELATIVE, _ABSOLUTE, _BOOL
    steps = []
    for (rel, ab, stay, out, name, area, bogus), (dist, lat, lon) in zip(
        ints.tolist(), floats.tolist(), strict=True
    ):
        step = _new(WalkStep)
        step.__dict__.update(
            {
                "distance": dist,
                "relative_direction": relative[rel],
                "street_name": names[name],
                "absolute_direction": absolute[ab],
                "lon": lon,
                "lat": lat,
                "stay_on": yes[stay],
                "area": yes[area],
                "bogus_name": yes[bogus],
                "exit": None if out < 0 else str(out),
                "elevation": (),
                "alerts": None,
            }
        )
        steps.append(step)
    return tuple(steps)


def _python_steps(
    graph: StreetGraph,
    path: StreetPath,
    profiles: SegmentProfiles | None,
    initial_angle: float | None,
) -> tuple[WalkStep, ...]:
    """:func:`build_steps` edge by edge in Python (paths with elevation profiles)."""
    cols = _edges(graph, path, profiles)
    bit = _MODE_BIT.get(path.mode, int(WALK))
    steps: list[_Step] = []
    step: _Step | None = None
    last_angle = 0.0
    circle = _Circle()
    prev: _Edge | None = None
    plain, lengths, lasts, profile = cols.plain, cols.length, cols.last, cols.profile
    for i in range(len(plain)):
        if plain[i] and step is not None:  # only lengthens the step (_plain_edges)
            _lengthen(step, profile[i], lengths[i])
            last_angle = lasts[i]
            prev = None  # made from the index below when needed
            continue
        edge = cols.at(i)
        if prev is None and i > 0:
            prev = cols.at(i - 1)
        created = False
        roundabout = bool(edge.flags & FLAG_ROUNDABOUT)
        if step is None or prev is None:
            step = _new_step(edge)
            created = True
            steps.append(step)
            if initial_angle is None:
                step.absolute = _absolute(edge.first)
                step.relative = RelativeDirection.DEPART
            else:
                step.set_directions(initial_angle, edge.first, False)
            if roundabout:  # starting on a roundabout: the step follows it to its exit
                circle.enter(step, None, edge)
        elif _changes_step(step, prev, edge, roundabout, circle.on):
            circle.leave(edge)
            step = _new_step(edge)
            created = True
            steps.append(step)
            step.set_directions(last_angle, edge.first, roundabout)
            if roundabout:
                circle.enter(step, prev, edge)
        elif roundabout:
            circle.follow(prev, edge, _is_exit(graph, prev.edge, edge.edge, bit))
        elif relative_direction(
            last_angle, edge.first, False
        ) != RelativeDirection.CONTINUE and _should_continue(graph, cols.geo, edge, last_angle):
            # a turn to stay on the same street
            step = _new_step(edge)
            created = True
            steps.append(step)
            step.set_directions(last_angle, edge.first, False)
            step.stay_on = True
        if created and prev is not None and edge.walking == prev.walking:
            merged = _remove_zag(steps)
            if merged is not None:
                step = merged
        elif not created and edge.profile:
            step.elevation.extend((d + step.distance, h) for d, h in edge.profile)
        step.distance += edge.length
        last_angle = edge.last
        prev = edge
    circle.leave(None)
    return tuple(s.freeze() for s in steps)


def _lengthen(step: _Step, profile: list[tuple[float, float]], length: float) -> None:
    """Add an edge's elevation profile and length to a step (as the loop does)."""
    if profile:
        step.elevation.extend((d + step.distance, h) for d, h in profile)
    step.distance += length


def _changes_step(step: _Step, prev: _Edge, edge: _Edge, roundabout: bool, on: bool) -> bool:
    """OTP's new-step test: another street, on to or off a roundabout, on to a link."""
    renamed = step.key != edge.key and not (step.bogus and edge.flags & FLAG_BOGUS_NAME)
    link = bool(edge.flags & FLAG_LINK) and not prev.flags & FLAG_LINK
    return renamed or roundabout != on or link


def _wrap(angle: float) -> float:
    """An angle difference in ``(-pi, pi]``."""
    return angle - 2 * math.pi * math.ceil((angle - math.pi) / (2 * math.pi))


@dataclass
class _Circle:
    """The roundabout being followed: its step, exit count and how much the path turned."""

    step: _Step | None = None
    exits: int = 0
    before: int | None = None
    turned: float = 0.0

    @property
    def on(self) -> bool:
        return self.step is not None

    def enter(self, step: _Step, prev: _Edge | None, edge: _Edge) -> None:
        self.step, self.exits, self.turned = step, 1, _wrap(edge.last - edge.first)
        self.before = None if prev is None else prev.key

    def follow(self, prev: _Edge, edge: _Edge, passed_exit: bool) -> None:
        if passed_exit:
            self.exits += 1
        self.turned += _wrap(edge.first - prev.last) + _wrap(edge.last - edge.first)

    def leave(self, edge: _Edge | None) -> None:
        step = self.step
        if step is None:
            return
        if edge is not None:
            step.exit = str(self.exits)
            if edge.key == self.before:
                step.stay_on = True
        # the sense the path actually turned on the roundabout (OTP: from the entry turn)
        if step.relative is not RelativeDirection.DEPART and abs(self.turned) > MIN_CIRCLE_TURN:
            step.relative = (
                RelativeDirection.CIRCLE_CLOCKWISE
                if self.turned > 0
                else RelativeDirection.CIRCLE_COUNTERCLOCKWISE
            )
        self.step = None


# ------------------------------------------------------------------ elevation
def _edge_profile(
    graph: StreetGraph, e: int, start: float, end: float, profiles: SegmentProfiles
) -> list[tuple[float, float]]:
    """``(distance from the part's start, height)`` over the used part of edge ``e``."""
    seg = int(graph.edge_segment[e])
    src = int(graph.seg_source[seg])
    lo, hi = int(profiles.profile_offsets[src]), int(profiles.profile_offsets[src + 1])
    if hi - lo < 2:
        return []
    dist = np.asarray(profiles.profile_dist_m[lo:hi], dtype=np.float64)
    elev = np.asarray(profiles.profile_elev_m[lo:hi], dtype=np.float64)
    if not np.all(np.isfinite(elev)):
        return []
    total = float(dist[-1])
    s0, s1 = float(graph.seg_source_start[seg]), float(graph.seg_source_end[seg])
    if graph.edge_backward[e]:
        start, end = 1.0 - end, 1.0 - start
    d0 = (s0 + start * (s1 - s0)) * total
    d1 = (s0 + end * (s1 - s0)) * total
    inner = (dist > d0) & (dist < d1)
    d = np.concatenate(([d0], dist[inner], [d1]))
    h = np.interp(d, dist, elev)
    if graph.edge_backward[e]:
        d, h = d[::-1], h[::-1]
    along = np.abs(d - d[0])
    # scale the profile's distances to the edge's length
    length = float(graph.edge_length_m[e]) * abs(end - start)
    if along[-1] > 0:
        along = along * (length / along[-1])
    return [(float(a), float(b)) for a, b in zip(along, h, strict=True)]


def path_profile(
    graph: StreetGraph, path: StreetPath, profiles: SegmentProfiles | None
) -> tuple[FloatArray, FloatArray]:
    """Distance from the path's start and height of every profile sample along it."""
    if profiles is None or path.edges.size == 0:
        return np.zeros(0), np.zeros(0)
    starts, ends = path.used_fractions()
    dists: list[float] = []
    heights: list[float] = []
    offset = 0.0
    for i, e in enumerate(int(x) for x in path.edges):
        for d, h in _edge_profile(graph, e, float(starts[i]), float(ends[i]), profiles):
            if dists and offset + d <= dists[-1] + 1e-6:
                continue
            dists.append(offset + d)
            heights.append(h)
        offset += float(path.edge_distance_m[i])
    return np.array(dists), np.array(heights)
