"""Tiles of otpa.tiles on real networks: pixels at known edges carry their legend colour.

Every colour check is independent of the renderer's own code: edge midpoints are projected
with the textbook slippy-map formulas, the expected class is read from the raw edge
attributes with the thresholds of the documented legend, and only points far (12 px) from
any other street or transit line are checked, so the pixel can only come from that edge.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Iterator

import numpy as np
import pytest
from PIL import Image

from otpa.network import TransportNetwork
from otpa.osm.model import FLAG_RESTRICTION_COPY, FLAG_STAIRS, FLAG_WHEELCHAIR_NO
from otpa.tiles import FORMATS, LAYERS, TileError, render_pixels, render_tile
from tests.conftest import DATA_ROOT, require_data
from tests.fixtures.networks import built_network

pytestmark = pytest.mark.slow

Z = 17
MANNHEIM = (49.4875, 8.4660)


@pytest.fixture(scope="module")
def rnv() -> TransportNetwork:
    require_data("small", "rnv")
    return built_network(DATA_ROOT, "small/rnv")


def world_pixel(lat: np.ndarray, lon: np.ndarray, z: int) -> tuple[np.ndarray, np.ndarray]:
    """Global pixel coordinates at zoom ``z`` (textbook slippy-map formulas)."""
    n = 256 * 2**z
    phi = np.radians(lat)
    x = (lon + 180.0) / 360.0 * n
    y = (1.0 - np.log(np.tan(phi) + 1.0 / np.cos(phi)) / math.pi) / 2.0 * n
    return x, y


def rgb(hex_color: str) -> tuple[int, int, int, int]:
    return (int(hex_color[1:3], 16), int(hex_color[3:5], 16), int(hex_color[5:7], 16), 255)


class Probe:
    """Middles of long street pieces at zoom ``Z``, far from every other line."""

    def __init__(self, net: TransportNetwork) -> None:
        g = net.street
        assert g is not None
        self.g = g
        gx, gy = world_pixel(np.asarray(g.geom_lat), np.asarray(g.geom_lon), Z)
        offsets = np.asarray(g.seg_geom_offsets)
        seg_of_point = np.repeat(np.arange(g.n_segments), np.diff(offsets))
        same = seg_of_point[:-1] == seg_of_point[1:]
        a = np.flatnonzero(same)
        self.ax, self.ay, self.bx, self.by = gx[a], gy[a], gx[a + 1], gy[a + 1]
        self.seg = seg_of_point[a]
        # transit lines (stop to stop, as drawn without GTFS shapes) are obstacles too
        t = net.transit
        lat, lon = t.stops["lat"].to_numpy(float), t.stops["lon"].to_numpy(float)
        sx, sy = world_pixel(lat, lon, Z)
        pairs = []
        for p in range(t.n_patterns):
            seq = t.pattern_stops[t.pattern_stop_offsets[p] : t.pattern_stop_offsets[p + 1]]
            pairs.append(np.stack([seq[:-1], seq[1:]], axis=1))
        pr = np.unique(np.concatenate(pairs), axis=0)
        self.tx0, self.ty0, self.tx1, self.ty1 = (
            sx[pr[:, 0]],
            sy[pr[:, 0]],
            sx[pr[:, 1]],
            sy[pr[:, 1]],
        )
        self.stop_x, self.stop_y = sx, sy
        copy = (np.asarray(g.edge_flags) & FLAG_RESTRICTION_COPY) != 0
        self.copy_seg = set(np.asarray(g.edge_segment)[copy].tolist())

    @staticmethod
    def _dist(px: float, py: float, x0, y0, x1, y1) -> np.ndarray:  # type: ignore[no-untyped-def]
        dx, dy = x1 - x0, y1 - y0
        ll = dx * dx + dy * dy
        t = np.clip(((px - x0) * dx + (py - y0) * dy) / np.where(ll > 0, ll, 1), 0, 1)
        return np.hypot(x0 + t * dx - px, y0 + t * dy - py)

    def points(
        self, segments: np.ndarray, limit: int = 4
    ) -> Iterator[tuple[int, float, float, float, float]]:
        """``(segment, x, y, ux, uy)``: isolated middles of the segments' longest pieces.

        ``(ux, uy)`` is the unit direction along the segment's geometry (screen y down).
        """
        length = np.hypot(self.bx - self.ax, self.by - self.ay)
        found = 0
        wanted = np.zeros(self.g.n_segments, dtype=bool)
        wanted[segments] = True
        for i in np.flatnonzero(wanted[self.seg] & (length > 30))[::7]:
            s = int(self.seg[i])
            if s in self.copy_seg:
                continue
            mx, my = (self.ax[i] + self.bx[i]) / 2, (self.ay[i] + self.by[i]) / 2
            near = (np.abs(self.ax - mx) < 200) & (np.abs(self.ay - my) < 200)
            others = near & (self.seg != s)
            d = self._dist(
                mx, my, self.ax[others], self.ay[others], self.bx[others], self.by[others]
            )
            dt = self._dist(mx, my, self.tx0, self.ty0, self.tx1, self.ty1)
            ds = np.hypot(self.stop_x - mx, self.stop_y - my)
            if (d.size and d.min() < 12) or dt.min() < 12 or ds.min() < 12:
                continue
            if not (6 < mx % 256 < 250 and 6 < my % 256 < 250):
                continue
            ux, uy = (self.bx[i] - self.ax[i]) / length[i], (self.by[i] - self.ay[i]) / length[i]
            yield s, float(mx), float(my), float(ux), float(uy)
            found += 1
            if found >= limit:
                return


@pytest.fixture(scope="module")
def probe(rnv: TransportNetwork) -> Probe:
    return Probe(rnv)


def pixel(net: TransportNetwork, layer: str, x: float, y: float) -> tuple[int, int, int, int]:
    tx, ty = int(x // 256), int(y // 256)
    png = render_tile(net, layer, Z, tx, ty)
    with Image.open(io.BytesIO(png)) as im:
        rgba = np.asarray(im.convert("RGBA"))
    return tuple(int(v) for v in rgba[int(y - ty * 256), int(x - tx * 256)])  # type: ignore[return-value]


def legend_colour(layer: str, label: str) -> tuple[int, int, int, int]:
    """The colour of the legend entry called ``label``, or whose label starts with it."""
    info = LAYERS[layer]
    entries = [e for e in (*info.legend, *info.extra) if e.label]
    exact = [e for e in entries if e.label == label]
    (entry,) = exact or [e for e in entries if e.label.startswith((f"{label} ", f"{label},"))]
    return rgb(entry.color)


def check_undirected(
    net: TransportNetwork, probe: Probe, layer: str, expected: dict[str, np.ndarray]
) -> None:
    """Segments of each class (label prefix -> segment mask) show that class's colour."""
    for label, mask in expected.items():
        points = list(probe.points(np.flatnonzero(mask)))
        assert points, label
        for _, x, y, _, _ in points:
            assert pixel(net, layer, x, y) == legend_colour(layer, label), (layer, label)


def edge_side_point(
    x: float, y: float, ux: float, uy: float, forward: bool, layer: str
) -> tuple[float, float]:
    """Where a directed layer draws an edge: right of its direction, half a width off."""
    w = LAYERS[layer].legend[1].width_at(Z)
    nx, ny = (-uy, ux) if forward else (uy, -ux)
    return x + nx * w / 2, y + ny * w / 2


def check_directed(
    net: TransportNetwork, probe: Probe, layer: str, classify: Callable[[np.ndarray], np.ndarray]
) -> int:
    """Both edges of two-way segments show their own class on their right-hand side."""
    g = probe.g
    labels = classify(np.arange(g.n_edges))
    seg = np.asarray(g.edge_segment)
    backward = np.asarray(g.edge_backward).astype(bool)
    fwd = np.full(g.n_segments, -1)
    bwd = np.full(g.n_segments, -1)
    fwd[seg[~backward]] = np.flatnonzero(~backward)
    bwd[seg[backward]] = np.flatnonzero(backward)
    checked = 0
    for label in np.unique(labels):
        segs = np.unique(seg[labels == label])
        segs = segs[(fwd[segs] >= 0) & (bwd[segs] >= 0)]
        for s, x, y, ux, uy in probe.points(segs, limit=3):
            for edge, forward in ((fwd[s], True), (bwd[s], False)):
                px, py = edge_side_point(x, y, ux, uy, forward, layer)
                assert pixel(net, layer, px, py) == legend_colour(layer, str(labels[edge])), (
                    layer,
                    s,
                    forward,
                )
                checked += 1
    return checked


PERM_LABEL = {
    7: "walk, bicycle, car",
    1: "walk",
    2: "bicycle",
    3: "walk, bicycle",
    4: "car",
    5: "walk, car",
    6: "bicycle, car",
}


def test_traversal_colours_follow_each_edges_permissions(
    rnv: TransportNetwork, probe: Probe
) -> None:
    perm = np.asarray(probe.g.edge_perm) & 7
    checked = check_directed(
        rnv, probe, "traversal", lambda e: np.array([PERM_LABEL[int(p)] for p in perm[e]])
    )
    assert checked >= 12


def test_traversal_one_way_street_shows_each_direction_on_its_side(
    rnv: TransportNetwork, probe: Probe
) -> None:
    g = probe.g
    perm = np.asarray(g.edge_perm) & 7
    rev = np.asarray(g.edge_reverse)
    # car one way: all modes forward, no cars backward
    oneway = np.flatnonzero((perm == 7) & (rev >= 0) & (perm[np.maximum(rev, 0)] == 3))
    assert oneway.size > 20
    checked = 0
    for s, x, y, ux, uy in probe.points(np.asarray(g.edge_segment)[oneway], limit=4):
        edges = np.flatnonzero(np.asarray(g.edge_segment) == s)
        for e in edges:
            forward = not bool(g.edge_backward[e])
            px, py = edge_side_point(x, y, ux, uy, forward, "traversal")
            assert pixel(rnv, "traversal", px, py) == legend_colour(
                "traversal", PERM_LABEL[int(perm[e])]
            )
            checked += 1
    assert checked >= 4


def bike_label(safety: float, perm: int) -> str:
    if not perm & 2:
        return "no bicycles"
    if safety < 0.95:
        return "preferred"
    if safety < 1.05:
        return "neutral"
    if safety < 1.6:
        return "fair"
    return "poor" if safety < 3 else "hostile"


def test_bike_safety_colours_follow_the_safety_factor(rnv: TransportNetwork, probe: Probe) -> None:
    g = probe.g
    safety, perm = np.asarray(g.edge_bike_safety), np.asarray(g.edge_perm)
    labels = np.array([bike_label(float(s), int(p)) for s, p in zip(safety, perm, strict=True)])
    checked = check_directed(rnv, probe, "bike-safety", lambda e: labels[e])
    assert checked >= 12


def segment_any(g, values: np.ndarray) -> np.ndarray:  # type: ignore[no-untyped-def]
    out = np.zeros(g.n_segments, dtype=bool)
    out[np.asarray(g.edge_segment)[values]] = True
    return out


def test_wheelchair_colours_follow_steps_and_wheelchair_tags(
    rnv: TransportNetwork, probe: Probe
) -> None:
    g = probe.g
    flags = np.asarray(g.edge_flags)
    walk = segment_any(g, (np.asarray(g.edge_perm) & 1) != 0)
    blocked = segment_any(g, (flags & (FLAG_STAIRS | FLAG_WHEELCHAIR_NO)) != 0)
    expected = {"accessible": walk & ~blocked}
    if (walk & blocked).sum() and list(probe.points(np.flatnonzero(walk & blocked))):
        expected["not accessible"] = walk & blocked
    check_undirected(rnv, probe, "wheelchair", expected)
    # streets pedestrians may not use are not drawn
    car_only = ~walk
    for _, x, y, _, _ in probe.points(np.flatnonzero(car_only), limit=3):
        assert pixel(rnv, "wheelchair", x, y)[3] == 0


def test_basemap_colours_follow_the_street_class(rnv: TransportNetwork, probe: Probe) -> None:
    g = probe.g
    kinds = np.array(g.highway_kinds)[np.asarray(g.seg_highway)]
    expected = {
        "residential": np.isin(kinds, ["residential", "unclassified", "living_street"]),
        "tertiary": np.isin(kinds, ["tertiary", "tertiary_link"]),
        "secondary": np.isin(kinds, ["secondary", "secondary_link"]),
        "primary": np.isin(kinds, ["primary", "primary_link"]),
        "motorway": np.isin(kinds, ["motorway", "motorway_link"]),
    }
    check_undirected(rnv, probe, "basemap", expected)


def test_basemap_has_an_opaque_background_stops_and_transit_lines(rnv: TransportNetwork) -> None:
    t = rnv.transit
    lat, lon = float(t.stops["lat"].iloc[0]), float(t.stops["lon"].iloc[0])
    x, y = world_pixel(np.array([lat]), np.array([lon]), 16)
    rgba = render_pixels(rnv, "basemap", 16, int(x[0] // 256), int(y[0] // 256))
    assert (rgba[..., 3] == 255).all()
    colours = {tuple(c) for c in rgba.reshape(-1, 4).tolist()}
    assert rgb(LAYERS["basemap"].background or "") in colours
    assert legend_colour("basemap", "transit stop") in colours
    # the stop's own pixel is its white fill
    assert tuple(rgba[int(y[0] % 256), int(x[0] % 256)]) == legend_colour("basemap", "transit stop")
    assert {legend_colour("basemap", "bus"), legend_colour("basemap", "rail")} & colours


@pytest.mark.parametrize("layer", sorted(LAYERS))
@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_every_layer_and_format_renders_a_non_empty_image(
    rnv: TransportNetwork, layer: str, fmt: str
) -> None:
    x, y = world_pixel(np.array([MANNHEIM[0]]), np.array([MANNHEIM[1]]), 15)
    data = render_tile(rnv, layer, 15, int(x[0] // 256), int(y[0] // 256), fmt=fmt)
    if fmt == "geotiff":
        from rasterio.io import MemoryFile

        with MemoryFile(data) as mem, mem.open() as ds:
            assert ds.crs.to_epsg() == 3857
            assert (ds.width, ds.height, ds.count) == (256, 256, 4)
            left, _top = ds.transform @ (0, 0)
            tx = int(x[0] // 256)
            assert left == pytest.approx(-20037508.342789244 + tx * 40075016.68557849 / 2**15)
            pixels = np.moveaxis(ds.read(), 0, 2)
    else:
        with Image.open(io.BytesIO(data)) as im:
            assert im.format == {"png": "PNG", "jpeg": "JPEG", "gif": "GIF"}[fmt]
            assert im.size == (256, 256)
            pixels = np.asarray(im.convert("RGBA"))
    # a good share of the tile drawn (RNV has no DEM: elevation is all "no data")
    assert len({tuple(c) for c in pixels.reshape(-1, 4)[::7].tolist()}) >= 2
    drawn = (pixels[..., 3] > 0) & (pixels[..., :3].sum(axis=2) < 3 * 250)
    assert drawn.mean() > 0.05


def test_a_tile_away_from_the_network_is_empty(rnv: TransportNetwork) -> None:
    rgba = render_pixels(rnv, "traversal", 12, 0, 0)
    assert (rgba[..., 3] == 0).all()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("roads", 10, 0, 0), "unknown layer 'roads'"),
        (("traversal", -1, 0, 0), "tile zoom must be within 0..24"),
        (("traversal", 25, 0, 0), "tile zoom must be within 0..24"),
        (("traversal", 3, 8, 0), "tile 3/8/0 does not exist"),
        (("traversal", 3, 0, -1), "tile 3/0/-1 does not exist"),
    ],
)
def test_bad_tiles_raise_tile_errors(rnv: TransportNetwork, args: tuple, message: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(TileError, match=message):
        render_tile(rnv, *args)


def test_bad_format_and_size_raise(rnv: TransportNetwork) -> None:
    with pytest.raises(TileError, match="unsupported image format 'bmp'"):
        render_tile(rnv, "traversal", 10, 0, 0, fmt="bmp")
    with pytest.raises(ValueError, match="tile size"):
        render_tile(rnv, "traversal", 10, 0, 0, size=4096)


# -- elevation and wheelchair slopes need a DEM: Porto Alegre ----------------------------------


@pytest.fixture(scope="module")
def poa() -> TransportNetwork:
    require_data("small", "porto-alegre")
    return built_network(DATA_ROOT, "small/porto-alegre")


def segment_max_slope(g) -> np.ndarray:  # type: ignore[no-untyped-def]
    out = np.full(g.n_segments, -np.inf)
    np.maximum.at(out, np.asarray(g.edge_segment), np.abs(np.asarray(g.edge_max_slope)))
    return out


def test_elevation_colours_follow_the_steepest_slope(poa: TransportNetwork) -> None:
    g = poa.street
    assert g is not None
    assert g.edge_max_slope is not None
    probe = Probe(poa)
    slope = segment_max_slope(g)
    expected = {
        "slope below 2 %": slope < 0.02,
        "2 to 4 %": (slope >= 0.02) & (slope < 0.04),
        "4 to 6 %": (slope >= 0.04) & (slope < 0.06),
        "8 to 12 %": (slope >= 0.08) & (slope < 0.12),
    }
    check_undirected(poa, probe, "elevation", expected)


def test_wheelchair_marks_steep_segments_and_steps(poa: TransportNetwork) -> None:
    g = poa.street
    assert g is not None
    probe = Probe(poa)
    slope = segment_max_slope(g)
    walk = segment_any(g, (np.asarray(g.edge_perm) & 1) != 0)
    flags = np.asarray(g.edge_flags)
    blocked = segment_any(g, (flags & (FLAG_STAIRS | FLAG_WHEELCHAIR_NO)) != 0)
    expected = {
        "accessible": walk & ~blocked & (slope <= 1 / 12),
        "steep": walk & ~blocked & (slope > 1 / 12),
    }
    check_undirected(poa, probe, "wheelchair", expected)
