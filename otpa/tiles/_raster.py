"""A small numpy line rasteriser: clip, sample and stamp many line pieces at once.

Lines are drawn without a per-line Python loop: every piece is clipped to the tile
(Liang–Barsky, vectorised), sampled every half pixel, and each sample stamps the pixel
offsets of a disc of the line's width.  Layers are drawn in order into one class plane
(``int16`` per pixel, -1 = empty): a later class overwrites an earlier one, so the
legend's order is the drawing order.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from otpa.types import FloatArray, IntArray

__all__ = ["ClassPlane", "clip_pieces", "disc_offsets", "sample_pieces"]

_STEP_PX = 0.5


@cache
def disc_offsets(width: int) -> tuple[IntArray, IntArray]:
    """Pixel offsets ``(dx, dy)`` of a disc ``width`` pixels across (a square up to 2)."""
    w = max(int(width), 1)
    lo = -(w // 2)
    r = np.arange(lo, lo + w)
    dx, dy = np.meshgrid(r, r)
    if w >= 3:
        c = (w - 1) / 2.0 + lo
        keep = (dx - c) ** 2 + (dy - c) ** 2 <= (w / 2.0) ** 2 + 0.25
        dx, dy = dx[keep], dy[keep]
    return dx.ravel().astype(np.int64), dy.ravel().astype(np.int64)


def clip_pieces(
    x0: FloatArray, y0: FloatArray, x1: FloatArray, y1: FloatArray, lo: float, hi: float
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, IntArray]:
    """Clip pieces to the square ``[lo, hi]²`` (Liang–Barsky); also return the kept indices."""
    dx, dy = x1 - x0, y1 - y0
    t0 = np.zeros_like(x0)
    t1 = np.ones_like(x0)
    with np.errstate(divide="ignore", invalid="ignore"):
        for p, q in ((-dx, x0 - lo), (dx, hi - x0), (-dy, y0 - lo), (dy, hi - y0)):
            r = q / p
            parallel = p == 0
            outside = parallel & (q < 0)
            t0 = np.where(~parallel & (p < 0), np.maximum(t0, r), t0)
            t1 = np.where(~parallel & (p > 0), np.minimum(t1, r), t1)
            t1 = np.where(outside, -1.0, t1)
    keep = np.flatnonzero(t0 <= t1)
    a, b = t0[keep], t1[keep]
    kx0, ky0, kdx, kdy = x0[keep], y0[keep], dx[keep], dy[keep]
    return kx0 + a * kdx, ky0 + a * kdy, kx0 + b * kdx, ky0 + b * kdy, keep


def sample_pieces(
    x0: FloatArray, y0: FloatArray, x1: FloatArray, y1: FloatArray
) -> tuple[FloatArray, FloatArray, IntArray]:
    """Points every half pixel along each piece (both ends included); their piece index."""
    length = np.hypot(x1 - x0, y1 - y0)
    n = np.where(length < _STEP_PX, 1, np.floor(length / _STEP_PX).astype(np.int64) + 2)
    piece = np.repeat(np.arange(n.size), n)
    start = np.cumsum(n) - n
    k = np.arange(piece.size) - start[piece]
    t = k / np.maximum(n - 1, 1)[piece]
    return x0[piece] + t * (x1 - x0)[piece], y0[piece] + t * (y1 - y0)[piece], piece


class ClassPlane:
    """One class index per pixel (-1: nothing drawn), drawn into in legend order.

    Points are stamped by dilation: the pixels hit by a class's points are marked on a
    padded boolean plane, which is then OR-ed with itself shifted by each offset of the
    disc, so the cost depends on the tile size and the line width, not on the number of
    points.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.plane = np.full((size, size), -1, dtype=np.int16)

    def stamp(self, x: FloatArray, y: FloatArray, cls: int, width: int) -> None:
        """Stamp a disc of ``width`` pixels at each point (pixel coordinates) with ``cls``."""
        if x.size == 0:
            return
        dx, dy = disc_offsets(width)
        pad = max(int(width), 1)
        s = self.size
        px = np.floor(x).astype(np.int64)
        py = np.floor(y).astype(np.int64)
        ok = (px >= -pad) & (px < s + pad) & (py >= -pad) & (py < s + pad)
        px, py = px[ok], py[ok]
        if px.size == 0:
            return
        # work in the window the points can reach (classes are often sparse in a tile)
        c0 = max(int(px.min()) - pad, 0)
        c1 = min(int(px.max()) + pad + 1, s)
        r0 = max(int(py.min()) - pad, 0)
        r1 = min(int(py.max()) + pad + 1, s)
        if c0 >= c1 or r0 >= r1:
            return
        w, h = c1 - c0, r1 - r0
        # hit[i + pad, j + pad] marks window pixel (r0 + i, c0 + j)
        hit = np.zeros((h + 2 * pad, w + 2 * pad), dtype=bool)
        hy, hx = py - r0 + pad, px - c0 + pad
        inside = (hx >= 0) & (hx < w + 2 * pad) & (hy >= 0) & (hy < h + 2 * pad)
        hit[hy[inside], hx[inside]] = True
        if dx.size == 1:
            covered = hit[pad : pad + h, pad : pad + w]
        else:
            covered = np.zeros((h, w), dtype=bool)
            for ox, oy in zip(dx.tolist(), dy.tolist(), strict=True):
                covered |= hit[pad - oy : pad - oy + h, pad - ox : pad - ox + w]
        self.plane[r0:r1, c0:c1][covered] = cls

    def lines(
        self,
        x0: FloatArray,
        y0: FloatArray,
        x1: FloatArray,
        y1: FloatArray,
        cls: int,
        width: int,
    ) -> None:
        """Draw pieces (pixel coordinates) ``width`` pixels wide with class ``cls``."""
        sx, sy, _ = self.samples(x0, y0, x1, y1, float(width))
        self.stamp(sx, sy, cls, width)

    def samples(
        self, x0: FloatArray, y0: FloatArray, x1: FloatArray, y1: FloatArray, margin: float
    ) -> tuple[FloatArray, FloatArray, IntArray]:
        """Points every half pixel along the pieces clipped to the tile plus ``margin``.

        Returns the points and, for each, the index of its piece in the input.
        """
        cx0, cy0, cx1, cy1, kept = clip_pieces(x0, y0, x1, y1, -margin, self.size + margin)
        sx, sy, piece = sample_pieces(cx0, cy0, cx1, cy1)
        return sx, sy, kept[piece]
