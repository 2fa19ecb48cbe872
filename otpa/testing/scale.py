"""A synthetic region of any size for scale benchmarks: real OSM XML and GTFS files.

:func:`generate_scale_city` writes ``scale-city.osm`` and ``scale-city-gtfs.zip`` into a
folder; the normal build pipeline (``otpa build`` / :func:`otpa.network.build_network`)
reads them like any other inputs.  ``scale=1`` is about the size of the RNV feed
(Rhein-Neckar: ~2.4k stops, ~0.42 M stop times, ~0.17 M OSM nodes); every cost of the
region grows with the number of towns, which is ``round(TOWNS_PER_RNV * scale)``.

Structure (see ``otpa/testing/README.md``):

* **Towns** on a square lattice, ``town_blocks`` x ``town_blocks`` blocks of 100 m each
  (jittered by the seed), 4 km of countryside between neighbours.  Every block side has
  two shape nodes; OSM ways span two blocks.  Every 16th grid line is ``primary``, every
  8th ``secondary``, the rest ``residential``.
* **Intercity roads** (``primary``, 80 km/h) join neighbouring towns' edge midpoints.
* **Urban buses** on every 8th avenue and street of each town, one stop every 400 m,
  both directions; every 20 min early and late, every 10 min in the peaks, 15 min
  between (about 82 trips per direction and day).
* **Intercity rail**: one line along each row and each column of towns, calling at each
  town's central station (beside the town's middle intersection), every 30 min.
* Service every day, 2026-01-01 to 2027-12-31 (one ``calendar.txt`` row).

Everything is vectorised with numpy, so the ~10 M stop-time region (``scale=24``) is
written in well under a minute.  The same arguments give byte-identical files.
"""

from __future__ import annotations

import io
import math
import zipfile
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.csv as pacsv

from otpa.errors import InvalidArgumentError
from otpa.testing._demo_model import avenue_name, street_name, to_latlon
from otpa.types import PathLike

__all__ = [
    "SCALE_GTFS_FILENAME",
    "SCALE_OSM_FILENAME",
    "TOWNS_PER_RNV",
    "ScaleCity",
    "generate_scale_city",
]

SCALE_OSM_FILENAME = "scale-city.osm"
SCALE_GTFS_FILENAME = "scale-city-gtfs.zip"
#: Towns per unit of ``scale`` (with the default ``town_blocks``, 1 unit ~ RNV).
TOWNS_PER_RNV = 8
_TOWN_BLOCKS = 64
_BLOCK_M = 100.0
_GAP_M = 4000.0  # countryside between neighbouring towns
_SHAPE = 2  # shape nodes per block side
_WAY_BLOCKS = 2  # blocks per OSM way
_BUS_EVERY = 8  # a bus line on every 8th avenue and street
_STOP_EVERY = 4  # a stop every 4 blocks
_ROAD_STEP_M = 500.0
_H = 3600
_BUS_BANDS = (
    (5 * _H, 6 * _H + 1800, 1200), (6 * _H + 1800, 9 * _H, 600), (9 * _H, 15 * _H, 900),
    (15 * _H, 19 * _H, 600), (19 * _H, 24 * _H, 1200),
)  # fmt: skip
_RAIL_BANDS = ((5 * _H, 24 * _H, 1800),)
_BUS_MPS, _BUS_DWELL = 6.5, 20
_RAIL_MPS, _RAIL_DWELL = 30.0, 60
_ZIP_DATE = (2026, 1, 1, 0, 0, 0)
_TIMEZONE = "Europe/Amsterdam"

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class ScaleCity:
    """What :func:`generate_scale_city` wrote.

    Attributes
    ----------
    directory, osm_path, gtfs_path
        The output folder and the two files in it.
    scale, seed, town_blocks
        The arguments.
    n_towns, n_nodes, n_ways
        Towns, OSM nodes and OSM ways.
    n_stops, n_routes, n_trips, n_stop_times
        Rows of the GTFS tables.
    towns
        ``(lat, lon)`` of each town's middle (within metres of its middle intersection and
        ~60 m from its station), in town order (row-major on
        the lattice: town 1 is east of town 0 when there are two or more columns).
    stations
        ``stop_id`` of each town's central (rail) station, in town order.
    sample_date
        A day with service (2026-03-04, a Wednesday).
    timezone
        The agency timezone (``Europe/Amsterdam``).
    """

    directory: Path
    osm_path: Path
    gtfs_path: Path
    scale: float
    seed: int
    town_blocks: int
    n_towns: int
    n_nodes: int
    n_ways: int
    n_stops: int
    n_routes: int
    n_trips: int
    n_stop_times: int
    towns: tuple[tuple[float, float], ...]
    stations: tuple[str, ...]
    sample_date: date = date(2026, 3, 4)
    timezone: str = _TIMEZONE


@dataclass(frozen=True)
class _Lattice:
    """Town placement: ``n`` towns, ``cols`` per row, centres in metres."""

    n: int
    cols: int
    cx: FloatArray
    cy: FloatArray
    extent_m: float


def _check(scale: float, seed: int, town_blocks: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        msg = f"seed must be a non-negative integer, got {seed!r}"
        raise InvalidArgumentError(msg)
    if isinstance(scale, bool) or not isinstance(scale, int | float) or not scale > 0:
        msg = f"scale must be a positive number, got {scale!r}"
        raise InvalidArgumentError(msg)
    if (
        isinstance(town_blocks, bool)
        or not isinstance(town_blocks, int)
        or town_blocks < _BUS_EVERY
        or town_blocks % _BUS_EVERY
    ):
        msg = f"town_blocks must be a positive multiple of {_BUS_EVERY}, got {town_blocks!r}"
        raise InvalidArgumentError(msg)
    n_towns = max(1, round(TOWNS_PER_RNV * float(scale)))
    if n_towns > 10_000:
        msg = f"scale {scale} gives {n_towns} towns; at most 10,000"
        raise InvalidArgumentError(msg)
    return n_towns


def _lattice(n: int, blocks: int) -> _Lattice:
    cols = math.ceil(math.sqrt(n))
    rows = math.ceil(n / cols)
    extent = blocks * _BLOCK_M
    spacing = extent + _GAP_M
    t = np.arange(n)
    cx = (t % cols - (cols - 1) / 2.0) * spacing
    cy = (t // cols - (rows - 1) / 2.0) * spacing
    return _Lattice(n, cols, cx.astype(np.float64), cy.astype(np.float64), extent)


# --------------------------------------------------------------------------- streets


@dataclass(frozen=True)
class _Streets:
    ids: IntArray  # node ids (all)
    x: FloatArray
    y: FloatArray
    way_nodes: IntArray  # (n_ways, k) node ids
    way_class: npt.NDArray[np.int8]  # 0 residential, 1 secondary, 2 primary, 3 intercity
    way_name: list[str]
    road_ways: list[tuple[list[int], str]]  # intercity roads: node ids, name
    town_node: IntArray  # id of each town's middle intersection


def _template(b: int) -> tuple[FloatArray, FloatArray, IntArray, npt.NDArray[np.int8], list[str]]:
    """One town's nodes (metres, around 0) and ways (local node indices)."""
    n1 = b + 1
    k = np.arange(n1)
    # intersections, index i*n1 + j: avenue i (x), street j (y)
    ix = np.repeat(k, n1) * _BLOCK_M - b * _BLOCK_M / 2
    iy = np.tile(k, n1) * _BLOCK_M - b * _BLOCK_M / 2
    n_int = n1 * n1
    frac = np.arange(1, _SHAPE + 1) / (_SHAPE + 1)
    # vertical shape nodes: avenue i, between street j and j+1, s-th
    vi, vj, vs = np.meshgrid(k, np.arange(b), np.arange(_SHAPE), indexing="ij")
    vx = vi.ravel() * _BLOCK_M - b * _BLOCK_M / 2
    vy = (vj.ravel() + frac[vs.ravel()]) * _BLOCK_M - b * _BLOCK_M / 2
    # horizontal shape nodes: street j, between avenue i and i+1
    hj, hi, hs = np.meshgrid(k, np.arange(b), np.arange(_SHAPE), indexing="ij")
    hx = (hi.ravel() + frac[hs.ravel()]) * _BLOCK_M - b * _BLOCK_M / 2
    hy = hj.ravel() * _BLOCK_M - b * _BLOCK_M / 2
    n_v = vx.size
    x = np.concatenate([ix, vx, hx])
    y = np.concatenate([iy, vy, hy])

    def vnode(i: IntArray, j: IntArray, s: IntArray) -> IntArray:
        return n_int + (i * b + j) * _SHAPE + s

    def hnode(j: IntArray, i: IntArray, s: IntArray) -> IntArray:
        return n_int + n_v + (j * b + i) * _SHAPE + s

    pieces = b // _WAY_BLOCKS
    per_way = _WAY_BLOCKS * (_SHAPE + 1) + 1
    # position p along a way: block q = p // (S+1), offset r = p % (S+1) (0: intersection)
    p = np.arange(per_way)
    q, r = p // (_SHAPE + 1), p % (_SHAPE + 1)
    line, piece = np.meshgrid(k, np.arange(pieces), indexing="ij")
    line, piece = line.ravel()[:, None], piece.ravel()[:, None]
    blk = piece * _WAY_BLOCKS + q[None, :]
    at_int = r[None, :] == 0
    blk_c = np.minimum(blk, b - 1)
    s = np.maximum(r[None, :] - 1, 0)
    avenues = np.where(at_int, line * n1 + blk, vnode(line, blk_c, s))
    streets = np.where(at_int, blk * n1 + line, hnode(line, blk_c, s))
    way_nodes = np.concatenate([avenues, streets]).astype(np.int64)
    idx = np.concatenate([line.ravel(), line.ravel()])
    cls = np.where(idx % 16 == b // 2 % 16, 2, np.where(idx % _BUS_EVERY == 0, 1, 0))
    lines = line.ravel().tolist()
    names = [avenue_name(i) for i in lines] + [street_name(j) for j in lines]
    return x, y, way_nodes, cls.astype(np.int8), names


def _streets(lat: _Lattice, b: int, rng: np.random.Generator) -> _Streets:
    tx, ty, tways, tcls, tnames = _template(b)
    per = tx.size
    n = lat.n
    jitter = rng.uniform(-6.0, 6.0, size=(2, n, per))
    x = (lat.cx[:, None] + tx[None, :] + jitter[0]).ravel()
    y = (lat.cy[:, None] + ty[None, :] + jitter[1]).ravel()
    base = 1 + np.arange(n, dtype=np.int64) * per
    ids = (base[:, None] + np.arange(per)[None, :]).ravel()
    way_nodes = (base[:, None, None] + tways[None, :, :]).reshape(-1, tways.shape[1])
    way_class = np.tile(tcls, n)
    way_name = tnames * n
    mid = (b // 2) * (b + 1) + b // 2
    town_node = base + mid
    # intercity roads between lattice neighbours, from edge midpoint to edge midpoint
    east = b * (b + 1) + b // 2  # avenue b, street b/2
    west = b // 2  # avenue 0, street b/2
    north = (b // 2) * (b + 1) + b  # avenue b/2, street b
    south = (b // 2) * (b + 1)
    next_id = int(ids[-1]) + 1 if ids.size else 1
    extra_x: list[float] = []
    extra_y: list[float] = []
    roads: list[tuple[list[int], str]] = []
    links = [(t, t + 1, east, west) for t in range(n) if t % lat.cols < lat.cols - 1 and t + 1 < n]
    links += [(t, t + lat.cols, north, south) for t in range(n) if t + lat.cols < n]
    for a, c, ka, kc in links:
        ia, ic = int(base[a] + ka), int(base[c] + kc)
        pa_, pc = (a * per + ka), (c * per + kc)
        ax, ay, cx, cy = x[pa_], y[pa_], x[pc], y[pc]
        steps = max(1, round(math.hypot(cx - ax, cy - ay) / _ROAD_STEP_M))
        mid_ids = []
        for s in range(1, steps):
            extra_x.append(ax + (cx - ax) * s / steps)
            extra_y.append(ay + (cy - ay) * s / steps)
            mid_ids.append(next_id)
            next_id += 1
        roads.append(([ia, *mid_ids, ic], f"Road {a + 1}-{c + 1}"))
    if extra_x:
        ids = np.concatenate([ids, np.arange(int(ids[-1]) + 1, next_id, dtype=np.int64)])
        x = np.concatenate([x, np.asarray(extra_x)])
        y = np.concatenate([y, np.asarray(extra_y)])
    return _Streets(ids, x, y, way_nodes, way_class, way_name, roads, town_node)


_CLASS_TAGS = (
    '<tag k="highway" v="residential"/><tag k="maxspeed" v="30"/>',
    '<tag k="highway" v="secondary"/><tag k="maxspeed" v="50"/>',
    '<tag k="highway" v="primary"/><tag k="maxspeed" v="50"/><tag k="lanes" v="4"/>',
)


def _write_osm(path: Path, st: _Streets) -> tuple[int, int]:
    lat, lon = to_latlon(st.x, st.y)
    bounds = (lat.min() - 0.001, lon.min() - 0.0016, lat.max() + 0.001, lon.max() + 0.0016)
    with path.open("w", encoding="utf-8", newline="\n") as f:
        f.write("<?xml version='1.0' encoding='UTF-8'?>\n")
        f.write('<osm version="0.6" generator="otpa scale-city">\n')
        f.write(
            f' <bounds minlat="{bounds[0]:.7f}" minlon="{bounds[1]:.7f}" '
            f'maxlat="{bounds[2]:.7f}" maxlon="{bounds[3]:.7f}"/>\n'
        )
        chunk = 200_000
        for s in range(0, st.ids.size, chunk):
            rows = zip(
                st.ids[s : s + chunk].tolist(),
                np.round(lat[s : s + chunk], 7).tolist(),
                np.round(lon[s : s + chunk], 7).tolist(),
                strict=True,
            )
            node = ' <node id="{}" lat="{:.7f}" lon="{:.7f}"/>\n'.format
            f.write("".join([node(i, a, o) for i, a, o in rows]))
        way_id = 1
        for s in range(0, st.way_nodes.shape[0], chunk // 4):
            block = st.way_nodes[s : s + chunk // 4].tolist()
            cls = st.way_class[s : s + chunk // 4].tolist()
            parts = []
            for k, (nodes, c) in enumerate(zip(block, cls, strict=True)):
                nds = "".join([f'<nd ref="{r}"/>' for r in nodes])
                name = st.way_name[s + k]
                parts.append(
                    f' <way id="{way_id}">{nds}{_CLASS_TAGS[c]}<tag k="name" v="{name}"/></way>\n'
                )
                way_id += 1
            f.write("".join(parts))
        for nodes, name in st.road_ways:
            nds = "".join([f'<nd ref="{r}"/>' for r in nodes])
            f.write(
                f' <way id="{way_id}">{nds}<tag k="highway" v="primary"/>'
                f'<tag k="maxspeed" v="80"/><tag k="name" v="{name}"/></way>\n'
            )
            way_id += 1
        f.write("</osm>\n")
    return int(st.ids.size), way_id - 1


# --------------------------------------------------------------------------- transit


def _departures(bands: tuple[tuple[int, int, int], ...], offset: int) -> IntArray:
    return np.concatenate([np.arange(a + offset % h, b, h) for a, b, h in bands]).astype(np.int64)


def _hhmmss(t: IntArray) -> pa.Array:
    """Seconds after midnight -> ``HH:MM:SS`` strings (hours may pass 24), vectorised."""
    h, rem = np.divmod(t, 3600)
    m, s = np.divmod(rem, 60)
    out = np.empty((t.size, 8), dtype=np.uint8)
    out[:, 0], out[:, 1] = 48 + h // 10, 48 + h % 10
    out[:, 3], out[:, 4] = 48 + m // 10, 48 + m % 10
    out[:, 6], out[:, 7] = 48 + s // 10, 48 + s % 10
    out[:, 2] = out[:, 5] = ord(":")
    offsets = np.arange(0, 8 * t.size + 1, 8, dtype=np.int32)
    return pa.StringArray.from_buffers(
        t.size, pa.py_buffer(offsets.tobytes()), pa.py_buffer(out.tobytes())
    )


@dataclass
class _Feed:
    stop_id: list[str]
    stop_name: list[str]
    stop_x: list[FloatArray]
    stop_y: list[FloatArray]
    routes: list[tuple[str, str, str, int]]  # route_id, short, long, type
    trip_route: list[IntArray]  # route index per trip
    trip_dir: list[IntArray]
    trip_headsign: list[list[str]]
    st_trip: list[IntArray]
    st_stop: list[IntArray]  # stop index
    st_arr: list[IntArray]
    st_dep: list[IntArray]
    st_seq: list[IntArray]
    n_trips: int = 0


def _add_patterns(
    feed: _Feed,
    route: int,
    patterns: IntArray,
    hops: IntArray,
    deps: list[IntArray],
    dwell: int,
    headsigns: list[str],
) -> None:
    """Trips of ``patterns`` (``(p, k)`` stop indices, ``(k-1,)`` hop seconds)."""
    k = patterns.shape[1]
    arr_off = np.concatenate([[0], np.cumsum(hops) + dwell * np.arange(k - 1)])
    dep_off = arr_off + np.where(np.arange(k) == 0, 0, dwell)
    dep_off[-1] = arr_off[-1]
    for p in range(patterns.shape[0]):
        d = deps[p]
        n = d.size
        trips = feed.n_trips + np.arange(n, dtype=np.int64)
        feed.n_trips += n
        feed.trip_route.append(np.full(n, route, dtype=np.int64))
        feed.trip_dir.append(np.full(n, p % 2, dtype=np.int64))
        feed.trip_headsign.append([headsigns[p]] * n)
        feed.st_trip.append(np.repeat(trips, k))
        feed.st_stop.append(np.tile(patterns[p], n))
        feed.st_arr.append((d[:, None] + arr_off[None, :]).ravel())
        feed.st_dep.append((d[:, None] + dep_off[None, :]).ravel())
        feed.st_seq.append(np.tile(np.arange(1, k + 1, dtype=np.int64), n))


def _transit(lat: _Lattice, b: int, st: _Streets, rng: np.random.Generator) -> _Feed:
    feed = _Feed([], [], [], [], [], [], [], [], [], [], [], [], [])
    n1 = b + 1
    lines_idx = np.arange(0, b + 1, _BUS_EVERY)
    stops_along = np.arange(0, b + 1, _STOP_EVERY)
    k = stops_along.size
    n_stops = 0
    n_tmpl = n1 * n1 + 2 * b * n1 * _SHAPE
    hop = round(_STOP_EVERY * _BLOCK_M / _BUS_MPS)
    hops = np.full(k - 1, hop, dtype=np.int64)
    for t in range(lat.n):
        node0 = t * n_tmpl  # index into st.x of this town's first node
        # one stop per (line, position), 15 m beside the intersection
        for axis, word in ((0, "Avenue"), (1, "Street")):
            for li in lines_idx.tolist():
                if axis == 0:
                    ints = li * n1 + stops_along
                    sx = st.x[node0 + ints] + 15.0
                    sy = st.y[node0 + ints]
                    name_line = avenue_name(li)
                    cross = [street_name(int(j)) for j in stops_along]
                else:
                    ints = stops_along * n1 + li
                    sx = st.x[node0 + ints]
                    sy = st.y[node0 + ints] + 15.0
                    name_line = street_name(li)
                    cross = [avenue_name(int(i)) for i in stops_along]
                first = n_stops
                feed.stop_id.extend(f"t{t + 1}-{word[0].lower()}{li}-{j}" for j in range(k))
                feed.stop_name.extend(f"Town {t + 1} {name_line} / {c}" for c in cross)
                feed.stop_x.append(sx)
                feed.stop_y.append(sy)
                n_stops += k
                route = len(feed.routes)
                short = f"{t + 1}{'N' if axis == 0 else 'E'}{li // _BUS_EVERY + 1}"
                feed.routes.append((f"bus-{short}", short, f"Town {t + 1} {name_line}", 3))
                fwd = np.arange(first, first + k, dtype=np.int64)
                pats = np.stack([fwd, fwd[::-1]])
                off = [int(v) for v in rng.integers(0, 600, size=2)]
                deps = [_departures(_BUS_BANDS, o) for o in off]
                heads = [f"Town {t + 1} {c}" for c in (cross[-1], cross[0])]
                _add_patterns(feed, route, pats, hops, deps, _BUS_DWELL, heads)
    # central stations beside each town's middle intersection
    station0 = n_stops
    mid = (b // 2) * n1 + b // 2
    mids = np.arange(lat.n) * n_tmpl + mid
    feed.stop_id.extend(f"t{t + 1}-station" for t in range(lat.n))
    feed.stop_name.extend(f"Town {t + 1} Central Station" for t in range(lat.n))
    feed.stop_x.append(st.x[mids] + 40.0)
    feed.stop_y.append(st.y[mids] + 40.0)
    rows = [list(range(r, min(r + lat.cols, lat.n))) for r in range(0, lat.n, lat.cols)]
    cols = [list(range(c, lat.n, lat.cols)) for c in range(lat.cols)]
    sx_all = np.concatenate(feed.stop_x)
    sy_all = np.concatenate(feed.stop_y)
    for kind, groups in (("R", rows), ("C", cols)):
        for g, towns in enumerate(groups):
            if len(towns) < 2:
                continue
            seq = np.asarray(towns, dtype=np.int64) + station0
            dist = np.hypot(np.diff(sx_all[seq]), np.diff(sy_all[seq]))
            rhops = np.round(dist / _RAIL_MPS).astype(np.int64) + 60
            route = len(feed.routes)
            short = f"{'RE' if kind == 'R' else 'RB'}{g + 1}"
            long_name = f"Town {towns[0] + 1} - Town {towns[-1] + 1}"
            feed.routes.append((f"rail-{short}", short, long_name, 2))
            pats = np.stack([seq, seq[::-1]])
            off = [int(v) for v in rng.integers(0, 1800, size=2)]
            deps = [_departures(_RAIL_BANDS, o) for o in off]
            heads = [f"Town {towns[-1] + 1}", f"Town {towns[0] + 1}"]
            # reverse direction: same hops reversed; store per direction
            _add_patterns(feed, route, pats[:1], rhops, deps[:1], _RAIL_DWELL, heads[:1])
            _add_patterns(feed, route, pats[1:], rhops[::-1].copy(), deps[1:], _RAIL_DWELL,
                          heads[1:])  # fmt: skip
            feed.trip_dir[-1][:] = 1
    return feed


def _csv_bytes(table: pa.Table) -> bytes:
    sink = io.BytesIO()
    pacsv.write_csv(table, sink, pacsv.WriteOptions(quoting_style="none"))
    return sink.getvalue()


def _write_gtfs(path: Path, feed: _Feed) -> tuple[int, int, int, int]:
    sx, sy = np.concatenate(feed.stop_x), np.concatenate(feed.stop_y)
    slat, slon = to_latlon(sx, sy)
    stop_ids = np.asarray(feed.stop_id, dtype=object)
    members: dict[str, bytes] = {}
    members["agency.txt"] = (
        "agency_id,agency_name,agency_url,agency_timezone\n"
        f"scale,Scale Region Transit,https://example.invalid/,{_TIMEZONE}\n"
    ).encode()
    members["calendar.txt"] = (
        b"service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date\n"
        b"ALL,1,1,1,1,1,1,1,20260101,20271231\n"
    )
    members["stops.txt"] = _csv_bytes(
        pa.table({
            "stop_id": pa.array(feed.stop_id),
            "stop_name": pa.array(feed.stop_name),
            "stop_lat": pa.array(np.round(slat, 7)),
            "stop_lon": pa.array(np.round(slon, 7)),
        })
    )  # fmt: skip
    r = feed.routes
    members["routes.txt"] = _csv_bytes(
        pa.table({
            "route_id": [x[0] for x in r], "agency_id": ["scale"] * len(r),
            "route_short_name": [x[1] for x in r], "route_long_name": [x[2] for x in r],
            "route_type": pa.array([x[3] for x in r], pa.int32()),
        })
    )  # fmt: skip
    route_ids = np.asarray([x[0] for x in r], dtype=object)
    trip_route = np.concatenate(feed.trip_route)
    n_trips = trip_route.size
    trip_ids = np.char.add("T", np.arange(1, n_trips + 1).astype(str)).astype(object)
    members["trips.txt"] = _csv_bytes(
        pa.table({
            "route_id": pa.array(route_ids[trip_route]),
            "service_id": pa.array(["ALL"] * n_trips),
            "trip_id": pa.array(trip_ids),
            "trip_headsign": pa.array([h for hs in feed.trip_headsign for h in hs]),
            "direction_id": pa.array(np.concatenate(feed.trip_dir), pa.int8()),
        })
    )  # fmt: skip
    st_trip = np.concatenate(feed.st_trip)
    table = pa.table({
        "trip_id": pa.array(trip_ids).take(pa.array(st_trip)),
        "arrival_time": _hhmmss(np.concatenate(feed.st_arr)),
        "departure_time": _hhmmss(np.concatenate(feed.st_dep)),
        "stop_id": pa.array(stop_ids).take(pa.array(np.concatenate(feed.st_stop))),
        "stop_sequence": pa.array(np.concatenate(feed.st_seq), pa.int32()),
    })  # fmt: skip
    members["stop_times.txt"] = _csv_bytes(table)
    with zipfile.ZipFile(path, "w") as zf:
        for name in sorted(members):
            info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            data = members[name]
            zf.writestr(info, data, compresslevel=1 if len(data) > 8_000_000 else 6)
    return len(feed.stop_id), len(r), n_trips, int(st_trip.size)


def generate_scale_city(
    out_dir: PathLike,
    scale: float = 1.0,
    seed: int = 0,
    *,
    town_blocks: int = _TOWN_BLOCKS,
) -> ScaleCity:
    """Write a synthetic region of ``round(8 * scale)`` towns as OSM XML + GTFS.

    Parameters
    ----------
    out_dir
        Output folder, created if missing; ``scale-city.osm`` and
        ``scale-city-gtfs.zip`` are (over)written.
    scale
        Size relative to the RNV feed: ``1`` ~ 2.4k stops and 0.42 M stop times,
        ``24`` ~ 10 M stop times.  Every count grows in proportion to the towns.
    seed
        Drives the street jitter and the timetable offsets; the same arguments give
        byte-identical files.
    town_blocks
        Blocks per town side (a multiple of 8; default 64, i.e. 6.4 km towns).  Small
        values give tiny regions for tests.

    Returns
    -------
    ScaleCity
        Paths, counts, town centres and station ids.

    Raises
    ------
    otpa.errors.InvalidArgumentError
        On a bad ``scale``, ``seed`` or ``town_blocks``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     city = generate_scale_city(tmp, scale=0.25, town_blocks=8)
    >>> city.n_towns, city.n_routes, city.stations
    (2, 9, ('t1-station', 't2-station'))
    """
    n_towns = _check(scale, seed, town_blocks)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    lattice = _lattice(n_towns, town_blocks)
    streets = _streets(lattice, town_blocks, np.random.default_rng([int(seed), 1]))
    feed = _transit(lattice, town_blocks, streets, np.random.default_rng([int(seed), 2]))
    osm_path, gtfs_path = out / SCALE_OSM_FILENAME, out / SCALE_GTFS_FILENAME
    n_nodes, n_ways = _write_osm(osm_path, streets)
    n_stops, n_routes, n_trips, n_st = _write_gtfs(gtfs_path, feed)
    tlat, tlon = to_latlon(lattice.cx, lattice.cy)
    return ScaleCity(
        directory=out,
        osm_path=osm_path,
        gtfs_path=gtfs_path,
        scale=float(scale),
        seed=int(seed),
        town_blocks=town_blocks,
        n_towns=n_towns,
        n_nodes=n_nodes,
        n_ways=n_ways,
        n_stops=n_stops,
        n_routes=n_routes,
        n_trips=n_trips,
        n_stop_times=n_st,
        towns=tuple(
            (round(float(a), 7), round(float(o), 7)) for a, o in zip(tlat, tlon, strict=True)
        ),
        stations=tuple(f"t{t + 1}-station" for t in range(n_towns)),
    )
