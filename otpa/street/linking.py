"""Link points (stops, origins) to the street graph by splitting edges.

Strategy
--------
1. *Candidates*: every straight piece of every segment usable by ``modes`` (except
   the copies made for via-way turn restrictions, ``FLAG_RESTRICTION_COPY``: they
   repeat an original segment's geometry, which is the one linked and snapped to) is
   sampled at most :data:`SAMPLE_SPACING_M` apart in a global equirectangular
   projection and the samples go into a :class:`scipy.spatial.cKDTree` (built
   once per graph and mode mask, cached).  For a point whose nearest sample is
   ``d`` away, every piece that could be nearest has a sample within
   ``f² d + spacing / 2`` (``f`` bounds the projection's scale error over the
   data's latitudes), so one ball query per point finds all candidates.
2. *Projection*: each point is projected exactly onto its candidate pieces in
   a projection centred on the point; the nearest wins (ties: lowest piece).
3. *Splitting*: a projection within ``snap_m`` (along the geometry) of a
   segment end reuses that vertex; otherwise the segment is cut there and a
   new vertex is appended (projections on one segment closer than ``snap_m`` to
   each other share it).  A cut segment keeps its index for its first piece;
   the other pieces are appended.  Pieces copy the segment's attributes, with
   lengths (and length-like elevation values) in proportion to their share of
   the geometry, and turn bans are re-pointed to the pieces at the via vertex.

The graph is immutable, so :func:`link_points` returns a new graph; existing
vertex ids stay valid in it (new vertices are appended), edge ids do not.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
from numba import njit
from scipy.spatial import cKDTree

from otpa.errors import InvalidArgumentError
from otpa.osm.model import FLAG_RESTRICTION_COPY
from otpa.street._elevation import ELEVATION_FIELDS, LENGTH_LIKE_ELEVATION
from otpa.street._nearest_kernel import best_piece
from otpa.street._segments import SegmentTable, assemble, table_from_graph
from otpa.street._split_kernel import split_geometry
from otpa.street.graph import StreetGraph
from otpa.types import BoolArray, FloatArray, IntArray
from otpa.util.cache import OwnerCache
from otpa.util.geo import EARTH_RADIUS_M, haversine_m

__all__ = [
    "SAMPLE_SPACING_M",
    "GeometryPositions",
    "LinkIndex",
    "LinkResult",
    "Projection",
    "geometry_positions",
    "link_index",
    "link_points",
    "nearest_piece",
    "nearest_pieces",
]

#: Largest distance between two candidate samples along a segment (metres).
SAMPLE_SPACING_M = 20.0
_M_PER_DEG = EARTH_RADIUS_M * math.pi / 180.0


class LinkResult(NamedTuple):
    """Result of :func:`link_points`."""

    graph: StreetGraph
    vertices: IntArray
    distances_m: FloatArray


@dataclass(frozen=True)
class LinkIndex:
    """The candidate index of one mode mask: samples of the usable pieces in a k-d tree."""

    lat0: float
    lon0: float
    cos0: float
    lat_min: float
    lat_max: float
    sub: IntArray  # geometry index of the start of each usable piece
    sample_sub: IntArray  # index into ``sub`` of each sample
    tree: cKDTree


@dataclass(frozen=True)
class GeometryPositions:
    """Distance along its segment's geometry of every geometry point."""

    cum_m: FloatArray  # at each geometry point, from its segment's start
    seg_len_m: FloatArray  # geometric length of each segment
    piece_len_m: FloatArray  # of the piece starting at each geometry point (0 at ends)
    seg_of_point: IntArray


def geometry_positions(graph: StreetGraph) -> GeometryPositions:
    """Positions along their segments of the graph's geometry points (cached on the graph)."""
    key = "link_along"
    if key not in graph._cache:
        lat, lon = np.asarray(graph.geom_lat), np.asarray(graph.geom_lon)
        off = np.asarray(graph.seg_geom_offsets)
        counts = np.diff(off)
        seg_of_point = np.repeat(np.arange(graph.n_segments, dtype=np.int64), counts)
        piece = np.zeros(lat.size, dtype=np.float64)
        if lat.size > 1:
            piece[:-1] = haversine_m(lat[:-1], lon[:-1], lat[1:], lon[1:])
        piece[off[1:] - 1] = 0.0  # the last point of a segment starts no piece
        cum = np.zeros(lat.size, dtype=np.float64)
        np.cumsum(piece[:-1], out=cum[1:])
        cum -= np.repeat(cum[off[:-1]], counts)
        seg_len = cum[off[1:] - 1]
        graph._cache[key] = GeometryPositions(cum, seg_len, piece, seg_of_point)
    along: GeometryPositions = graph._cache[key]
    return along


def _usable_segments(graph: StreetGraph, modes: int) -> BoolArray:
    """Segments ``modes`` may use, less the via-way restriction copies (same geometry)."""
    perm = np.zeros(graph.n_segments, dtype=np.uint8)
    np.bitwise_or.at(perm, np.asarray(graph.edge_segment), np.asarray(graph.edge_perm))
    copy = np.zeros(graph.n_segments, dtype=bool)
    copy[np.asarray(graph.edge_segment)] = (
        np.asarray(graph.edge_flags) & np.uint16(FLAG_RESTRICTION_COPY)
    ) != 0
    usable: BoolArray = ((perm & np.uint8(modes)) != 0) & ~copy
    return usable


def link_index(graph: StreetGraph, modes: int) -> LinkIndex:
    """The candidate index of the segments ``modes`` (permission bits) may use (cached)."""
    key = f"link_index_{modes}"
    if key not in graph._cache:
        along = geometry_positions(graph)
        lat, lon = np.asarray(graph.geom_lat), np.asarray(graph.geom_lon)
        usable = _usable_segments(graph, modes)
        is_piece = along.piece_len_m > 0.0
        is_piece[np.asarray(graph.seg_geom_offsets[1:]) - 1] = False
        # keep zero-length pieces out; a segment with only such pieces keeps its first
        zero_seg = along.seg_len_m == 0.0
        is_piece[np.asarray(graph.seg_geom_offsets[:-1])[zero_seg]] = True
        sub = np.flatnonzero(is_piece & usable[along.seg_of_point])
        lat_min, lat_max = float(lat.min()), float(lat.max())
        lat0 = 0.5 * (lat_min + lat_max)
        lon0 = 0.5 * (float(lon.min()) + float(lon.max()))
        cos0 = math.cos(math.radians(lat0))
        x = (lon - lon0) * (cos0 * _M_PER_DEG)
        y = (lat - lat0) * _M_PER_DEG
        x1, y1, x2, y2 = x[sub], y[sub], x[sub + 1], y[sub + 1]
        length = np.hypot(x2 - x1, y2 - y1)
        n_samp = np.maximum(2, np.ceil(length / SAMPLE_SPACING_M).astype(np.int64) + 1)
        sample_sub = np.repeat(np.arange(sub.size, dtype=np.int64), n_samp)
        starts = np.repeat(np.cumsum(n_samp) - n_samp, n_samp)
        t = (np.arange(sample_sub.size) - starts) / (n_samp[sample_sub] - 1)
        sx = x1[sample_sub] + t * (x2 - x1)[sample_sub]
        sy = y1[sample_sub] + t * (y2 - y1)[sample_sub]
        tree = cKDTree(np.column_stack([sx, sy]), balanced_tree=False, compact_nodes=False)
        graph._cache[key] = LinkIndex(lat0, lon0, cos0, lat_min, lat_max, sub, sample_sub, tree)
    index: LinkIndex = graph._cache[key]
    return index


class Projection(NamedTuple):
    """Points projected onto their nearest usable piece (:func:`nearest_pieces`)."""

    point: IntArray  # index of the linked point
    sub: IntArray  # global geometry index of the piece
    t: FloatArray
    dist_m: FloatArray


def _scale_error(index: LinkIndex, lat: FloatArray) -> float:
    return _scale_bound(index, float(lat.min()), float(lat.max()))


def _scale_bound(index: LinkIndex, lat_lo: float, lat_hi: float) -> float:
    """The projection's scale error over the index's latitudes and ``[lat_lo, lat_hi]``."""
    lo = min(index.lat_min, lat_lo)
    hi = max(index.lat_max, lat_hi)
    c_hi = max(math.cos(math.radians(lo)), math.cos(math.radians(hi)))
    if lo <= 0.0 <= hi:
        c_hi = 1.0
    c_lo = min(math.cos(math.radians(lo)), math.cos(math.radians(hi)))
    c_lo = max(c_lo, 1e-6)
    return max(c_hi / index.cos0, index.cos0 / c_lo)


def nearest_pieces(
    graph: StreetGraph, index: LinkIndex, lat: FloatArray, lon: FloatArray, max_d: float
) -> Projection:
    """Nearest usable piece of every point within ``max_d`` metres."""
    empty = Projection(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0), np.zeros(0))
    if index.sub.size == 0 or lat.size == 0:
        return empty
    f = _scale_error(index, lat)
    half = 0.5 * SAMPLE_SPACING_M
    px = (lon - index.lon0) * (index.cos0 * _M_PER_DEG)
    py = (lat - index.lat0) * _M_PER_DEG
    xy = np.column_stack([px, py])
    d_s, _ = index.tree.query(xy, k=1, distance_upper_bound=f * max_d + 2 * half)
    ok = np.flatnonzero(np.isfinite(d_s))
    if ok.size == 0:
        return empty
    radius = np.minimum(f * f * d_s[ok] + half, f * max_d + half) * (1 + 1e-9) + 1e-6
    hits = index.tree.query_ball_point(xy[ok], radius, return_sorted=False)
    n_hits = np.fromiter((len(h) for h in hits), dtype=np.int64, count=ok.size)
    samples = np.fromiter(itertools.chain.from_iterable(hits), dtype=np.int64, count=n_hits.sum())
    point = np.repeat(ok, n_hits)
    cand = index.sample_sub[samples]
    pair = np.unique(point * np.int64(index.sub.size) + cand)
    point = pair // index.sub.size
    k = index.sub[pair % index.sub.size]
    g_lat, g_lon = np.asarray(graph.geom_lat), np.asarray(graph.geom_lon)
    plat, plon = lat[point], lon[point]
    cp = np.cos(np.radians(plat)) * _M_PER_DEG
    ax = (g_lon[k] - plon) * cp
    ay = (g_lat[k] - plat) * _M_PER_DEG
    dx = (g_lon[k + 1] - plon) * cp - ax
    dy = (g_lat[k + 1] - plat) * _M_PER_DEG - ay
    len2 = dx * dx + dy * dy
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(len2 > 0, -(ax * dx + ay * dy) / len2, 0.0)
    t = np.clip(t, 0.0, 1.0)
    dist = np.hypot(ax + t * dx, ay + t * dy)
    order = np.lexsort((k, dist, point))
    first = np.ones(order.size, dtype=bool)
    first[1:] = point[order][1:] != point[order][:-1]
    best = order[first]
    best = best[dist[best] <= max_d]
    return Projection(point[best], k[best], t[best], dist[best])


_Ints = npt.NDArray[np.integer[Any]]


@dataclass(frozen=True)
class _SampleGrid:
    """A link index's samples in square cells of ``cell`` metres (row ``ix * ny + iy``).

    ``x``, ``y``: the samples' coordinates (the k-d tree's, same values) in cell order,
    ``sample_sub``: their pieces (as :attr:`LinkIndex.sample_sub`), ``offsets``: each
    cell's range in them (both int32 while the samples fit).  Read-only.
    """

    x0: float
    y0: float
    cell: float
    nx: int
    ny: int
    offsets: _Ints
    x: FloatArray
    y: FloatArray
    sample_sub: _Ints


#: Per link index: its samples in cells, for one point's queries (:func:`nearest_piece`).
_GRIDS: OwnerCache[str, _SampleGrid] = OwnerCache()


def _sample_grid(index: LinkIndex) -> _SampleGrid:
    """The cells of ``index``'s samples (once per index): as many cells as samples at most
    (plus a row and a column), none narrower than :data:`SAMPLE_SPACING_M`."""

    def build() -> _SampleGrid:
        data = np.asarray(index.tree.data, dtype=np.float64)
        x, y = data[:, 0], data[:, 1]
        x0, y0 = float(x.min()), float(y.min())
        w, h = float(x.max()) - x0, float(y.max()) - y0
        cell = max(SAMPLE_SPACING_M, math.sqrt(w * h / x.size))
        nx, ny = int(w // cell) + 1, int(h // cell) + 1
        ix = np.clip(np.floor((x - x0) / cell), 0, nx - 1).astype(np.int64)
        iy = np.clip(np.floor((y - y0) / cell), 0, ny - 1).astype(np.int64)
        row = ix * ny + iy
        order = np.argsort(row, kind="stable")
        # 32-bit rows where the samples fit (the grid is about the index's size again)
        int_t = np.int32 if x.size < np.iinfo(np.int32).max else np.int64
        offsets: _Ints = np.zeros(nx * ny + 1, dtype=int_t)
        np.cumsum(np.bincount(row, minlength=nx * ny), out=offsets[1:])
        gx = np.ascontiguousarray(x[order])
        gy = np.ascontiguousarray(y[order])
        sample_sub: _Ints = np.asarray(index.sample_sub)[order].astype(int_t)
        for a in (offsets, gx, gy, sample_sub):
            a.flags.writeable = False  # shared by every thread's snaps
        return _SampleGrid(x0, y0, cell, nx, ny, offsets, gx, gy, sample_sub)

    return _GRIDS.get_or_build(index, "grid", build)


#: Metres below a ring's distance that a sample outside it may lie (the cells' float
#: rounding is below a micrometre at any coordinate on Earth).
_CELL_MARGIN_M = 1e-3


@njit(cache=True, nogil=True, inline="always")  # type: ignore[misc]
def _nearer(
    offsets: _Ints,
    gx: FloatArray,
    gy: FloatArray,
    first: int,
    last: int,
    px: float,
    py: float,
    best: float,
) -> float:
    """The least of ``best`` and the squared distances of the samples of cells
    ``first..last`` (consecutive rows) to ``(px, py)``."""
    for j in range(offsets[first], offsets[last + 1]):
        dx = gx[j] - px
        dy = gy[j] - py
        d2 = dx * dx + dy * dy
        if d2 < best:
            best = d2
    return best


@njit(cache=True, nogil=True)  # type: ignore[misc]
def _nearest_sq(
    offsets: _Ints,
    gx: FloatArray,
    gy: FloatArray,
    x0: float,
    y0: float,
    cell: float,
    nx: int,
    ny: int,
    px: float,
    py: float,
    upper: float,
) -> float:
    """The least squared distance ``dx * dx + dy * dy`` (the k-d tree's) of a sample to
    ``(px, py)``, or at least ``upper ** 2`` when no sample is nearer than ``upper``.

    Cells ring by ring around the point's cell (from the first ring that reaches the
    grid), until no cell left can hold a nearer sample (one ring further than the true
    distance needs: the cells' rounding).
    """
    cx = math.floor((px - x0) / cell)
    cy = math.floor((py - y0) / cell)
    best = math.inf
    # the rings nearer than the grid's edge hold no cell (a point far outside it)
    r = max(0, -cx, cx - (nx - 1), -cy, cy - (ny - 1))
    while True:
        lo_x, hi_x, lo_y, hi_y = cx - r, cx + r, cy - r, cy + r
        for ix in range(max(lo_x, 0), min(hi_x, nx - 1) + 1):
            if abs(ix - cx) == r:  # a side of the ring: all its cells
                if max(lo_y, 0) <= min(hi_y, ny - 1):
                    best = _nearer(offsets, gx, gy, ix * ny + max(lo_y, 0),
                                   ix * ny + min(hi_y, ny - 1), px, py, best)  # fmt: skip
            else:  # between: the ring's top and bottom cells
                if 0 <= lo_y < ny:
                    best = _nearer(offsets, gx, gy, ix * ny + lo_y, ix * ny + lo_y, px, py, best)
                if 0 <= hi_y < ny and hi_y != lo_y:
                    best = _nearer(offsets, gx, gy, ix * ny + hi_y, ix * ny + hi_y, px, py, best)
        reach = r * cell - _CELL_MARGIN_M  # no unsearched sample is nearer than this
        if (reach > 0.0 and best <= reach * reach) or reach >= upper:
            return best
        if lo_x <= 0 and hi_x >= nx - 1 and lo_y <= 0 and hi_y >= ny - 1:
            return best  # every cell searched
        r += 1


@njit(cache=True, nogil=True)  # type: ignore[misc]
def _grid_nearest(
    offsets: _Ints,
    gx: FloatArray,
    gy: FloatArray,
    x0: float,
    y0: float,
    cell: float,
    nx: int,
    ny: int,
    px: float,
    py: float,
    upper: float,
    f: float,
    max_d: float,
    half: float,
) -> IntArray:
    """The candidate samples of :func:`nearest_piece` (positions in the grid's arrays;
    none when no sample is nearer than ``upper`` to ``(px, py)``).

    With ``d`` the nearest sample's distance (:func:`_nearest_sq`): every sample within
    ``min(f² d + half, f max_d + half) (1 + 1e-9) + 1e-6`` of the point (the k-d tree's
    ball: squared distances ``<=`` its square), the cells searched one wider on each side.
    """
    best = _nearest_sq(offsets, gx, gy, x0, y0, cell, nx, ny, px, py, upper)
    if not best < upper * upper:
        return np.zeros(0, dtype=np.int64)
    d_s = math.sqrt(best)
    radius = min(f * f * d_s + half, f * max_d + half) * (1 + 1e-9) + 1e-6
    r2 = radius * radius
    ix0 = max(math.floor((px - radius - x0) / cell) - 1, 0)
    ix1 = min(math.floor((px + radius - x0) / cell) + 1, nx - 1)
    iy0 = max(math.floor((py - radius - y0) / cell) - 1, 0)
    iy1 = min(math.floor((py + radius - y0) / cell) + 1, ny - 1)
    if iy0 > iy1:
        return np.zeros(0, dtype=np.int64)
    room = 0  # the samples of the cells searched: at least as many as the candidates
    for ix in range(ix0, ix1 + 1):
        room += offsets[ix * ny + iy1 + 1] - offsets[ix * ny + iy0]
    out = np.empty(room, dtype=np.int64)
    n = 0
    for ix in range(ix0, ix1 + 1):
        for j in range(offsets[ix * ny + iy0], offsets[ix * ny + iy1 + 1]):
            dx = gx[j] - px
            dy = gy[j] - py
            if dx * dx + dy * dy <= r2:
                out[n] = j
                n += 1
    return out[:n]


def nearest_piece(
    graph: StreetGraph, index: LinkIndex, lat: float, lon: float, max_d: float
) -> tuple[int, float, float] | None:
    """:func:`nearest_pieces` of one point: ``(sub, t, dist_m)``, or None out of reach.

    The same answer as :func:`nearest_pieces`, without its bookkeeping for many points:
    the candidates come from the index's samples in cells (:func:`_grid_nearest`, one
    compiled call instead of two k-d tree queries).  Its nearest sample is the tree's
    (the same distance); its candidates are the same samples but at distances within
    rounding of the ball's radius, and those are no piece's nearest point (the radius
    has a margin of 1e-9 of itself and a micrometre), so the nearest piece, by the same
    projection, is the same.
    """
    if index.sub.size == 0:
        return None
    lat, lon = float(lat), float(lon)
    f = _scale_bound(index, lat, lat)
    half = 0.5 * SAMPLE_SPACING_M
    px = (lon - index.lon0) * (index.cos0 * _M_PER_DEG)
    py = (lat - index.lat0) * _M_PER_DEG
    if not (math.isfinite(px) and math.isfinite(py) and math.isfinite(f * max_d)):
        return _nearest_piece_tree(graph, index, lat, lon, max_d)
    grid = _sample_grid(index)
    samples = _grid_nearest(
        grid.offsets, grid.x, grid.y, grid.x0, grid.y0, grid.cell,
        grid.nx, grid.ny, px, py, f * max_d + 2 * half, f, float(max_d), half,
    )  # fmt: skip
    if samples.size == 0:
        return None
    return _best_of(graph, index, samples, grid.sample_sub, lat, lon, max_d)


def _best_of(
    graph: StreetGraph,
    index: LinkIndex,
    samples: IntArray,
    sample_sub: _Ints,
    lat: float,
    lon: float,
    max_d: float,
) -> tuple[int, float, float] | None:
    """The nearest of the candidate pieces ``index.sub[sample_sub[samples]]`` (None: too far)."""
    # numpy's cosine (as nearest_pieces takes it), the projection compiled
    cp = float(np.cos(np.radians(np.array([lat])))[0] * _M_PER_DEG)
    k, t, dist = best_piece(
        samples,
        sample_sub,  # type: ignore[arg-type]  # (int32 or int64: compiled for either)
        index.sub,
        np.asarray(graph.geom_lat),
        np.asarray(graph.geom_lon),
        float(lat),
        float(lon),
        cp,
        _M_PER_DEG,
    )
    if not dist <= max_d:
        return None
    return int(k), float(t), float(dist)


def _nearest_piece_tree(
    graph: StreetGraph, index: LinkIndex, lat: float, lon: float, max_d: float
) -> tuple[int, float, float] | None:
    """:func:`nearest_piece` by the k-d tree's queries (a coordinate or limit not finite)."""
    f = _scale_error(index, np.array([lat]))
    half = 0.5 * SAMPLE_SPACING_M
    px = (lon - index.lon0) * (index.cos0 * _M_PER_DEG)
    py = (lat - index.lat0) * _M_PER_DEG
    xy = np.array([[px, py]])
    d_s, _ = index.tree.query(xy, k=1, distance_upper_bound=f * max_d + 2 * half)
    if not np.isfinite(d_s[0]):
        return None
    radius = np.minimum(f * f * d_s + half, f * max_d + half) * (1 + 1e-9) + 1e-6
    hits = index.tree.query_ball_point(xy, radius, return_sorted=False)
    samples = np.asarray(hits[0], dtype=np.int64)
    if samples.size == 0:
        return None
    return _best_of(graph, index, samples, index.sample_sub, lat, lon, max_d)


def link_points(
    graph: StreetGraph,
    lat: npt.ArrayLike,
    lon: npt.ArrayLike,
    *,
    modes: int | np.integer[Any] = 1,
    max_distance_m: float = 1000.0,
    snap_m: float = 1.0,
) -> LinkResult:
    """Link points to the nearest edge usable by ``modes``, splitting it there.

    Parameters
    ----------
    graph
        The street graph (unchanged).
    lat, lon
        Point coordinates in degrees (1-d, same length).
    modes
        Permission bits; a segment qualifies when either direction allows any
        of them (default WALK).
    max_distance_m
        Points farther than this from every qualifying segment are not linked.
    snap_m
        Reuse a segment end vertex when the projection is this close to it
        along the geometry; merge projections this close on one segment.

    Returns
    -------
    LinkResult
        ``(graph, vertices, distances_m)``: the new graph, the vertex of each
        point (``-1`` when not linked) and the straight-line distance from
        the point to that vertex (``inf`` when not linked).
    """
    plat = np.atleast_1d(np.asarray(lat, dtype=np.float64))
    plon = np.atleast_1d(np.asarray(lon, dtype=np.float64))
    if plat.shape != plon.shape or plat.ndim != 1:
        msg = "lat and lon must be 1-d arrays of the same length"
        raise InvalidArgumentError(msg)
    n_pts = plat.size
    vertices = np.full(n_pts, -1, dtype=np.int64)
    distances = np.full(n_pts, np.inf)
    finite = np.isfinite(plat) & np.isfinite(plon)
    if n_pts == 0 or graph.n_segments == 0 or not finite.any():
        return LinkResult(graph, vertices, distances)
    fin = np.flatnonzero(finite)
    proj = nearest_pieces(
        graph, link_index(graph, int(modes)), plat[fin], plon[fin], float(max_distance_m)
    )
    point = fin[proj.point]
    along = geometry_positions(graph)
    off = np.asarray(graph.seg_geom_offsets)
    seg = along.seg_of_point[proj.sub]
    t = proj.t
    pos = along.cum_m[proj.sub] + t * along.piece_len_m[proj.sub]
    total = along.seg_len_m[seg]
    to_start = (pos <= snap_m) & (pos <= total - pos)
    to_end = ~to_start & (total - pos <= snap_m)
    vertices[point[to_start]] = graph.seg_from[seg[to_start]]
    vertices[point[to_end]] = graph.seg_to[seg[to_end]]
    cut = ~(to_start | to_end)
    new_graph = graph
    if cut.any():
        g_lat, g_lon = np.asarray(graph.geom_lat), np.asarray(graph.geom_lon)
        k, tc = proj.sub[cut], t[cut]
        # a projection at the end of a piece is the start of the next one
        at_end = tc >= 1.0
        k = np.where(at_end, k + 1, k)
        tc = np.where(at_end, 0.0, tc)
        c_lat = g_lat[k] + tc * (g_lat[np.minimum(k + 1, g_lat.size - 1)] - g_lat[k])
        c_lon = g_lon[k] + tc * (g_lon[np.minimum(k + 1, g_lon.size - 1)] - g_lon[k])
        c_seg, c_pos, c_point = seg[cut], pos[cut], point[cut]
        order = np.lexsort((c_pos, c_seg))
        c_seg, c_pos, c_point = c_seg[order], c_pos[order], c_point[order]
        k, tc, c_lat, c_lon = k[order], tc[order], c_lat[order], c_lon[order]
        new_group = np.ones(c_seg.size, dtype=bool)
        new_group[1:] = (c_seg[1:] != c_seg[:-1]) | (np.diff(c_pos) > snap_m)
        group = np.cumsum(new_group) - 1
        vertices[c_point] = graph.n_vertices + group
        heads = np.flatnonzero(new_group)
        table = table_from_graph(graph)
        new_table = _split(
            table,
            g_seg=c_seg[heads],
            g_sub=k[heads] - off[c_seg[heads]],
            g_t=tc[heads],
            g_lat=c_lat[heads],
            g_lon=c_lon[heads],
            g_frac=c_pos[heads] / along.seg_len_m[c_seg[heads]],
        )
        new_graph = assemble(
            new_table,
            names=graph.names,
            highway_kinds=graph.highway_kinds,
            n_original_vertices=graph.n_original_vertices,
            report=graph.report,
        )
    linked = np.flatnonzero(vertices >= 0)
    v = vertices[linked]
    distances[linked] = haversine_m(
        plat[linked], plon[linked], new_graph.vertex_lat[v], new_graph.vertex_lon[v]
    )
    return LinkResult(new_graph, vertices, distances)


def _split(
    table: SegmentTable,
    *,
    g_seg: IntArray,
    g_sub: IntArray,
    g_t: FloatArray,
    g_lat: FloatArray,
    g_lon: FloatArray,
    g_frac: FloatArray,
) -> SegmentTable:
    """Cut segments at split points (one new vertex each; sorted along segments)."""
    n_s, n_v, n_g = table.n_segments, table.n_vertices, int(g_seg.size)
    first = np.ones(n_g, dtype=bool)
    first[1:] = g_seg[1:] != g_seg[:-1]
    last = np.ones(n_g, dtype=bool)
    last[:-1] = g_seg[1:] != g_seg[:-1]
    gid = np.arange(n_g)
    new_v = n_v + gid
    ending_here = np.where(first, g_seg, n_s + gid - 1)  # the piece that ends at split g
    prev_frac = np.zeros(n_g)
    prev_frac[~first] = g_frac[np.flatnonzero(~first) - 1]

    parent = np.concatenate([np.arange(n_s), g_seg])
    # share [lo, hi] of its parent's geometry each new segment covers
    lo = np.zeros(n_s + n_g)
    hi = np.ones(n_s + n_g)
    hi[ending_here] = g_frac
    lo[ending_here] = prev_frac
    lo[n_s + gid[last]] = g_frac[last]
    frac = hi - lo
    src_lo, src_hi = table.seg_source_start[parent], table.seg_source_end[parent]
    seg_from = np.concatenate([table.seg_from, np.zeros(n_g, np.int32)])
    seg_to = np.concatenate([table.seg_to, np.zeros(n_g, np.int32)])
    seg_to[n_s + gid[last]] = table.seg_to[g_seg[last]]
    seg_to[ending_here] = new_v
    seg_from[n_s + gid] = new_v
    geom_off, geom_lat, geom_lon = split_geometry(
        table.seg_geom_offsets, table.geom_lat, table.geom_lon,
        g_seg.astype(np.int64), g_sub.astype(np.int64), g_t, g_lat, g_lon,
    )  # fmt: skip

    elev = None
    if table.dir_elevation is not None:
        elev = {}
        for name in ELEVATION_FIELDS:
            arr = table.dir_elevation[name][parent]
            if name in LENGTH_LIKE_ELEVATION:
                arr = arr * frac[:, None]
            elev[name] = arr

    # Bans: an entering forward direction now enters through the last piece; a
    # leaving backward direction now leaves through the last piece.
    last_piece = np.arange(n_s, dtype=np.int64)
    last_piece[g_seg[last]] = n_s + gid[last]
    ban_from = table.ban_from_raw
    ban_to = table.ban_to_raw
    fwd_in = (ban_from & 1) == 0
    ban_from = np.where(fwd_in, 2 * last_piece[ban_from >> 1], ban_from)
    back_out = (ban_to & 1) == 1
    ban_to = np.where(back_out, 2 * last_piece[ban_to >> 1] + 1, ban_to)

    return replace(
        table,
        vertex_lat=np.concatenate([table.vertex_lat, g_lat]),
        vertex_lon=np.concatenate([table.vertex_lon, g_lon]),
        vertex_osm_id=np.concatenate([table.vertex_osm_id, np.full(n_g, -1, np.int64)]),
        vertex_barrier=np.concatenate([table.vertex_barrier, np.zeros(n_g, np.uint8)]),
        vertex_elevator=(
            None
            if table.vertex_elevator is None
            else np.concatenate([table.vertex_elevator, np.zeros(n_g, np.uint8)])
        ),
        seg_from=seg_from.astype(np.int32),
        seg_to=seg_to.astype(np.int32),
        seg_way_id=table.seg_way_id[parent],
        seg_length_m=table.seg_length_m[parent] * frac,
        seg_highway=table.seg_highway[parent],
        seg_source=table.seg_source[parent],
        seg_source_start=src_lo + (src_hi - src_lo) * lo,
        seg_source_end=src_lo + (src_hi - src_lo) * hi,
        seg_car_speed_mps=table.seg_car_speed_mps[parent],
        seg_name=table.seg_name[parent],
        seg_flags=table.seg_flags[parent],
        seg_geom_offsets=geom_off,
        geom_lat=geom_lat,
        geom_lon=geom_lon,
        dir_perm=table.dir_perm[parent],
        dir_bike_safety=table.dir_bike_safety[parent],
        dir_elevation=elev,
        ban_from_raw=ban_from,
        ban_to_raw=ban_to,
    )
