"""``render_tile``: one ``z/x/y`` tile of a layer, as PNG, JPEG, GIF or GeoTIFF bytes."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

import numpy as np

from otpa.tiles._geometry import NetworkGeometry, Pieces, network_geometry
from otpa.tiles._mercator import TileError, check_tile, tile_bounds_3857
from otpa.tiles._raster import ClassPlane
from otpa.tiles.layers import LAYERS, LayerInfo, LegendEntry, street_style
from otpa.types import FloatArray, IntArray, UInt8Array
from otpa.util.cache import OwnerCache
from otpa.walkcomfort import walk_comfort_version

if TYPE_CHECKING:
    from otpa.network import TransportNetwork

__all__ = ["FORMATS", "MAX_SIZE", "MIN_SIZE", "render_pixels", "render_tile"]

#: Image formats :func:`render_tile` writes, with their MIME types.
FORMATS: dict[str, str] = {
    "png": "image/png",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "geotiff": "image/tiff; application=geotiff",
}
_ALIASES = {"jpg": "jpeg", "tif": "geotiff", "tiff": "geotiff"}
MIN_SIZE, MAX_SIZE = 16, 1024
#: Zoomed-out tiles (every piece of a city in one tile: hundreds of ms) are kept, per
#: network, for zooms up to this one...
CACHED_MAX_ZOOM = 12
#: ...at most this many per network (least recently used dropped first).
CACHED_TILES = 128
_TILE_CACHE: OwnerCache[tuple[object, ...], tuple[UInt8Array, UInt8Array]] = OwnerCache(
    max_entries=CACHED_TILES
)


def _rgba(hex_color: str, alpha: int = 255) -> tuple[int, int, int, int]:
    h = hex_color.lstrip("#")
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16), alpha


def _to_pixels(
    pieces: Pieces, idx: IntArray, scale: float, ox: float, oy: float
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    return (
        pieces.x0[idx] * scale - ox,
        pieces.y0[idx] * scale - oy,
        pieces.x1[idx] * scale - ox,
        pieces.y1[idx] * scale - oy,
    )


def _right_normals(
    x0: FloatArray, y0: FloatArray, x1: FloatArray, y1: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Unit vectors to the right of each piece's direction (screen y points down)."""
    dx, dy = x1 - x0, y1 - y0
    length = np.hypot(dx, dy)
    safe = np.where(length > 0, length, 1.0)
    return -dy / safe, dx / safe


def _draw_streets(
    plane: ClassPlane,
    network: TransportNetwork,
    geom: NetworkGeometry,
    layer: LayerInfo,
    view: tuple[float, float, float, float],
    z: int,
    casing_base: int,
) -> None:
    style = street_style(network, layer.key)
    if style is None:
        return
    scale, ox, oy, margin = view
    pieces = geom.streets
    size = plane.size
    idx = pieces.select(
        (ox - margin) / scale, (oy - margin) / scale,
        (ox + size + margin) / scale, (oy + size + margin) / scale,
    )  # fmt: skip
    if idx.size == 0:
        return
    seg = pieces.owner[idx]
    px0, py0, px1, py1 = _to_pixels(pieces, idx, scale, ox, oy)
    entries = layer.legend
    widths = np.array([e.width_at(z) for e in entries] + [0], dtype=np.float64)
    visible = np.array([z >= e.min_zoom for e in entries] + [False])
    runs: list[tuple[np.ndarray, FloatArray, FloatArray, FloatArray, FloatArray]] = []
    if layer.directed:
        # each direction on its right-hand side, half its width off the centre line
        # (the backward edge's right is the forward edge's left)
        nx, ny = _right_normals(px0, py0, px1, py1)
        for edges, sign in ((geom.seg_forward[seg], 1.0), (geom.seg_backward[seg], -1.0)):
            has = edges >= 0
            cls = np.full(seg.size, -1, dtype=np.int16)
            cls[has] = style.classes[edges[has]]
            d = sign * widths[cls] / 2.0
            ox_, oy_ = nx * d, ny * d
            if sign > 0:
                runs.append((cls, px0 + ox_, py0 + oy_, px1 + ox_, py1 + oy_))
            else:
                runs.append((cls, px1 + ox_, py1 + oy_, px0 + ox_, py0 + oy_))
    else:
        runs.append((style.classes[seg], px0, py0, px1, py1))
    parts = []
    for cls, x0, y0, x1, y1 in runs:
        keep = visible[cls]
        sx, sy, piece = plane.samples(
            x0[keep], y0[keep], x1[keep], y1[keep], float(widths.max() + 2)
        )
        parts.append((cls[keep][piece], sx, sy))
    classes = np.concatenate([p[0] for p in parts])
    sx = np.concatenate([p[1] for p in parts])
    sy = np.concatenate([p[2] for p in parts])
    order = np.argsort(classes, kind="stable")
    classes, sx, sy = classes[order], sx[order], sy[order]
    bounds = np.searchsorted(classes, np.arange(len(entries) + 1))
    # casings first (wider, under every line), then the lines in legend order
    for k, entry in enumerate(entries):
        if entry.casing is not None and visible[k]:
            a, b = bounds[k], bounds[k + 1]
            plane.stamp(sx[a:b], sy[a:b], casing_base + k, int(widths[k]) + 2)
    for k in range(len(entries)):
        if visible[k]:
            a, b = bounds[k], bounds[k + 1]
            plane.stamp(sx[a:b], sy[a:b], k, int(widths[k]))


def _draw_transit(
    plane: ClassPlane,
    geom: NetworkGeometry,
    extra: tuple[LegendEntry, ...],
    first_class: int,
    view: tuple[float, float, float, float],
    z: int,
) -> None:
    scale, ox, oy, margin = view
    size = plane.size
    box = ((ox - margin) / scale, (oy - margin) / scale,
           (ox + size + margin) / scale, (oy + size + margin) / scale)  # fmt: skip
    bus, rail, outline, stop = extra
    lines = geom.transit
    idx = lines.select(*box)
    if idx.size:
        x0, y0, x1, y1 = _to_pixels(lines, idx, scale, ox, oy)
        is_rail = lines.owner[idx] == 1
        for k, entry, m in ((0, bus, ~is_rail), (1, rail, is_rail)):
            if z >= entry.min_zoom and m.any():
                plane.lines(x0[m], y0[m], x1[m], y1[m], first_class + k, entry.width_at(z))
    if z >= stop.min_zoom:
        pts = geom.stops.select(*box)
        if pts.size:
            x = geom.stops.x[pts] * scale - ox
            y = geom.stops.y[pts] * scale - oy
            plane.stamp(x, y, first_class + 2, outline.width_at(z))
            plane.stamp(x, y, first_class + 3, stop.width_at(z))


def _check(layer: str, fmt: str, z: int, x: int, y: int, size: int) -> tuple[LayerInfo, str]:
    info = LAYERS.get(layer)
    if info is None:
        msg = f"unknown layer {layer!r}; layers: {', '.join(LAYERS)}"
        raise TileError(msg)
    name = _ALIASES.get(fmt.lower(), fmt.lower())
    if name not in FORMATS:
        msg = f"unsupported image format {fmt!r}; formats: {', '.join(FORMATS)}"
        raise TileError(msg)
    if not MIN_SIZE <= size <= MAX_SIZE:
        msg = f"tile size must be within {MIN_SIZE}..{MAX_SIZE} pixels, got {size}"
        raise TileError(msg)
    check_tile(z, x, y)
    return info, name


def render_pixels(
    network: TransportNetwork, layer: str, z: int, x: int, y: int, *, size: int = 256
) -> UInt8Array:
    """The RGBA pixels ``(size, size, 4)`` of a tile (row 0 north); see :func:`render_tile`."""
    info, _ = _check(layer, "png", z, x, y, size)
    plane, palette = _render(network, info, z, x, y, size)
    pixels: UInt8Array = palette[plane]
    return pixels


def _render(
    network: TransportNetwork, info: LayerInfo, z: int, x: int, y: int, size: int
) -> tuple[UInt8Array, UInt8Array]:
    """The tile as palette indices ``(size, size)`` and its RGBA palette (index 0: empty).

    Tiles up to :data:`CACHED_MAX_ZOOM` are cached per network (read-only arrays).
    """
    if z > CACHED_MAX_ZOOM:
        return _draw(network, info, z, x, y, size)
    version = walk_comfort_version(network) if info.key == "walk-comfort" else 0
    key = (info.key, z, x, y, size, version)

    def draw() -> tuple[UInt8Array, UInt8Array]:
        indices, palette = _draw(network, info, z, x, y, size)
        indices.setflags(write=False)
        palette.setflags(write=False)
        return indices, palette

    return _TILE_CACHE.get_or_build(network, key, draw)


def _draw(
    network: TransportNetwork, info: LayerInfo, z: int, x: int, y: int, size: int
) -> tuple[UInt8Array, UInt8Array]:
    geom = network_geometry(network)
    scale = float(size) * float(1 << z)
    widest = max(e.width_at(z) for e in (*info.legend, *info.extra)) + 2
    view = (scale, float(x * size), float(y * size), float(2 * widest))
    n_street = len(info.legend)
    empty = (0, 0, 0, 0) if info.background is None else _rgba(info.background)
    colors = [_rgba(e.color) for e in info.legend]
    colors += [_rgba(e.casing or e.color) for e in info.legend]
    colors += [_rgba(e.color) for e in info.extra]
    plane = ClassPlane(size)
    _draw_streets(plane, network, geom, info, view, z, casing_base=n_street)
    if info.extra:
        _draw_transit(plane, geom, info.extra, 2 * n_street, view, z)
    palette = np.array([empty, *colors], dtype=np.uint8)
    return (plane.plane + 1).astype(np.uint8), palette


def _encode(
    indices: UInt8Array,
    palette: UInt8Array,
    fmt: str,
    bounds: tuple[float, float, float, float],
) -> bytes:
    from PIL import Image

    if fmt == "geotiff":
        return _geotiff(palette[indices], bounds)
    buf = io.BytesIO()
    if fmt == "jpeg":
        rgba = palette[indices]
        alpha = rgba[..., 3:4].astype(np.float32) / 255.0
        rgb = rgba[..., :3] * alpha + 255.0 * (1.0 - alpha)  # on white
        Image.fromarray(rgb.astype(np.uint8), mode="RGB").save(buf, format="JPEG", quality=90)
        return buf.getvalue()
    image = Image.fromarray(indices, mode="P")
    image.putpalette(palette[:, :3].ravel().tobytes(), rawmode="RGB")
    transparent = palette[0, 3] == 0
    if fmt == "png":
        if transparent:
            image.info["transparency"] = bytes(palette[:, 3].tolist())
        image.save(buf, format="PNG", compress_level=1)
    else:
        if transparent:
            image.save(buf, format="GIF", transparency=0)
        else:
            image.save(buf, format="GIF")
    return buf.getvalue()


def _geotiff(rgba: UInt8Array, bounds: tuple[float, float, float, float]) -> bytes:
    """Four RGBA bands in EPSG:3857, georeferenced to the tile (rasterio, in memory)."""
    from rasterio.io import MemoryFile
    from rasterio.transform import Affine

    h, w = rgba.shape[:2]
    xmin, ymin, xmax, ymax = bounds
    transform = Affine((xmax - xmin) / w, 0.0, xmin, 0.0, -(ymax - ymin) / h, ymax)
    profile = {"driver": "GTiff", "width": w, "height": h, "count": 4, "dtype": "uint8",
               "crs": "EPSG:3857", "transform": transform, "photometric": "RGB"}  # fmt: skip
    with MemoryFile() as mem:
        with mem.open(**profile) as dst:
            dst.write(np.moveaxis(rgba, 2, 0))
        return bytes(mem.read())


def render_tile(
    network: TransportNetwork,
    layer: str,
    z: int,
    x: int,
    y: int,
    *,
    fmt: str = "png",
    size: int = 256,
) -> bytes:
    """Render tile ``z/x/y`` of a layer of a network.

    Parameters
    ----------
    network
        The network to draw.
    layer
        A key of :data:`otpa.tiles.LAYERS` (``basemap``, ``bike-safety``, ``traversal``,
        ``wheelchair``, ``elevation``, ``walk-comfort``).
    z, x, y
        The web mercator tile (row 0 at the top).
    fmt
        ``png`` (RGBA, transparent where nothing is drawn), ``jpeg`` (on white), ``gif``
        or ``geotiff`` (four RGBA bands in EPSG:3857); ``jpg``, ``tif``, ``tiff`` also work.
    size
        Pixels along a side (16 to 1024).

    Returns
    -------
    bytes
        The encoded image.

    Raises
    ------
    TileError
        Unknown layer or format, size out of range, or a tile that does not exist.

    Examples
    --------
    >>> render_tile(None, "roads", 0, 0, 0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    otpa.tiles._mercator.TileError: unknown layer 'roads'; layers: ...
    """
    info, name = _check(layer, fmt, z, x, y, size)
    indices, palette = _render(network, info, z, x, y, size)
    return _encode(indices, palette, name, tile_bounds_3857(z, x, y))
