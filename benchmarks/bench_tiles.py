"""Benchmark: map tiles of ``otpa.tiles`` on dense RNV areas, against per-edge Pillow drawing.

Usage::

    .venv/bin/python benchmarks/bench_tiles.py [--data DIR] [--graph FILE] [--repeat 5]

What it measures, all in one run, on the RNV network (built once and cached as
``benchmarks/results/graphs/tiles_rnv.graph``):

* ``render_tile`` for every layer on the 3x3 blocks of tiles around central Mannheim and
  Heidelberg old town at zooms 13 to 17 (PNG, 256 px): p50/p95/max per layer and zoom after a
  warm-up (the first tile of a network also projects its geometry: ``first_tile_ms``).
* Baseline 1, ``pil_loop``: the same tiles of the ``wheelchair`` layer (undirected, one class
  per segment) drawn with one ``ImageDraw.line`` call per street segment, given the same
  numpy tile selection and the same projected coordinates, the same colours and widths,
  encoded as PNG: what the numpy rasteriser replaces.
* Baseline 2, ``naive``: a plain Python loop over every segment of the network (bounding
  box test, projection of its points with ``math``, one ``ImageDraw.line``), on the zoom-15
  tiles only (it takes seconds per tile).

Ratios are ours / baseline on p50 (< 1: otpa faster).  A JSON record goes to
``benchmarks/results/tiles_rnv.json``.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from PIL import Image, ImageDraw  # noqa: E402

from otpa.network import TransportNetwork, build_network  # noqa: E402
from otpa.tiles import LAYERS, render_tile, world_xy  # noqa: E402
from otpa.tiles.layers import street_style  # noqa: E402

RESULTS = HERE / "results"
CENTRES = {"mannheim": (49.4875, 8.4660), "heidelberg": (49.4114, 8.7075)}
ZOOMS = (13, 14, 15, 16, 17)


def _network(data: Path, graph: Path | None) -> TransportNetwork:
    cached = graph or RESULTS / "graphs" / "tiles_rnv.graph"
    if cached.exists():
        return TransportNetwork.load(cached)
    net = build_network(data / "small" / "rnv")
    cached.parent.mkdir(parents=True, exist_ok=True)
    net.save(cached)
    return net


def _tiles(z: int) -> list[tuple[int, int, int]]:
    out = []
    for lat, lon in CENTRES.values():
        x, y = world_xy([lat], [lon])
        cx, cy = int(x[0] * 2**z), int(y[0] * 2**z)
        out += [(z, cx + dx, cy + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
    return out


def _stats(ms: list[float]) -> dict[str, float]:
    a = np.asarray(ms)
    return {
        "p50_ms": round(float(np.median(a)), 3),
        "p95_ms": round(float(np.percentile(a, 95)), 3),
        "max_ms": round(float(a.max()), 3),
        "n": int(a.size),
    }


def _time(fn: Any, *args: Any, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn(*args)
        out.append((time.perf_counter() - t) * 1000.0)
    return out


def _rgba(hex_color: str) -> tuple[int, int, int, int]:
    return (int(hex_color[1:3], 16), int(hex_color[3:5], 16), int(hex_color[5:7], 16), 255)


class PilLoop:
    """``wheelchair`` tiles drawn segment by segment with Pillow (same selection, coordinates)."""

    def __init__(self, net: TransportNetwork) -> None:
        from otpa.tiles._geometry import network_geometry

        g = net.street
        assert g is not None
        self.geom = network_geometry(net)
        self.classes = street_style(net, "wheelchair").classes  # type: ignore[union-attr]
        self.gx, self.gy = world_xy(np.asarray(g.geom_lat), np.asarray(g.geom_lon))
        self.offsets = np.asarray(g.seg_geom_offsets)
        self.legend = LAYERS["wheelchair"].legend
        self.g = g

    def tile(self, z: int, x: int, y: int) -> bytes:
        scale = 256.0 * 2**z
        ox, oy = x * 256.0, y * 256.0
        m = 24.0
        pieces = self.geom.streets
        idx = pieces.select((ox - m) / scale, (oy - m) / scale,
                            (ox + 256 + m) / scale, (oy + 256 + m) / scale)  # fmt: skip
        image = Image.new("RGBA", (256, 256), (0, 0, 0, 0))
        draw = ImageDraw.Draw(image)
        for seg in np.unique(pieces.owner[idx]).tolist():
            cls = int(self.classes[seg])
            if cls < 0:
                continue
            a, b = int(self.offsets[seg]), int(self.offsets[seg + 1])
            xs = self.gx[a:b] * scale - ox
            ys = self.gy[a:b] * scale - oy
            entry = self.legend[cls]
            draw.line(list(zip(xs.tolist(), ys.tolist(), strict=True)),
                      fill=_rgba(entry.color), width=entry.width_at(z))  # fmt: skip
        buf = io.BytesIO()
        image.save(buf, format="PNG", compress_level=1)
        return buf.getvalue()

    def naive(self, z: int, x: int, y: int) -> bytes:
        """No numpy at all: every segment tested and projected in Python."""
        g = self.g
        lat, lon = g.geom_lat, g.geom_lon
        n = 2**z
        image = Image.new("RGBA", (256, 256), (0, 0, 0, 0))
        draw = ImageDraw.Draw(image)
        offsets = self.offsets.tolist()
        lats, lons = np.asarray(lat).tolist(), np.asarray(lon).tolist()
        classes = self.classes.tolist()
        for seg in range(g.n_segments):
            cls = classes[seg]
            if cls < 0:
                continue
            pts = []
            for i in range(offsets[seg], offsets[seg + 1]):
                phi = math.radians(lats[i])
                px = ((lons[i] + 180.0) / 360.0 * n - x) * 256.0
                py = (
                    (1.0 - math.log(math.tan(phi) + 1.0 / math.cos(phi)) / math.pi) / 2.0 * n - y
                ) * 256.0
                pts.append((px, py))
            xs = [p[0] for p in pts]
            ys = [p[1] for p in pts]
            if max(xs) < -24 or min(xs) > 280 or max(ys) < -24 or min(ys) > 280:
                continue
            entry = self.legend[cls]
            draw.line(pts, fill=_rgba(entry.color), width=entry.width_at(z))
        buf = io.BytesIO()
        image.save(buf, format="PNG", compress_level=1)
        return buf.getvalue()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    p.add_argument("--graph", type=Path, default=None, help="a saved RNV graph to use")
    p.add_argument("--repeat", type=int, default=5, help="renders of each tile")
    args = p.parse_args()
    net = _network(args.data, args.graph)
    record: dict[str, Any] = {"machine": platform.node(), "cpus": os.cpu_count(),
                              "loadavg_start": os.getloadavg()}  # fmt: skip
    t = time.perf_counter()
    render_tile(net, "traversal", *_tiles(15)[4])
    record["first_tile_ms"] = round((time.perf_counter() - t) * 1000.0, 1)
    for layer in LAYERS:  # warm the per-layer classes
        render_tile(net, layer, *_tiles(15)[4])
    ours: dict[str, dict[str, Any]] = {}
    for layer in LAYERS:
        ours[layer] = {}
        for z in ZOOMS:
            ms = [
                v
                for tile in _tiles(z)
                for v in _time(render_tile, net, layer, *tile, repeat=args.repeat)
            ]
            ours[layer][str(z)] = _stats(ms)
    record["ours"] = ours
    base = PilLoop(net)
    pil: dict[str, Any] = {}
    for z in ZOOMS:
        ms = [v for tile in _tiles(z) for v in _time(base.tile, *tile, repeat=args.repeat)]
        pil[str(z)] = _stats(ms)
    record["pil_loop"] = pil
    naive_tiles = _tiles(15)[:3]
    record["naive_z15"] = _stats(
        [v for tile in naive_tiles for v in _time(base.naive, *tile, repeat=1)]
    )
    record["ratio_vs_pil_loop"] = {
        z: round(ours["wheelchair"][z]["p50_ms"] / pil[z]["p50_ms"], 3) for z in pil
    }
    record["ratio_vs_naive_z15"] = round(
        ours["wheelchair"]["15"]["p50_ms"] / record["naive_z15"]["p50_ms"], 4
    )
    record["loadavg_end"] = os.getloadavg()
    print(f"first tile (projects the network): {record['first_tile_ms']} ms")
    print(f"{'layer':14s}" + "".join(f"   z{z} p50/p95" for z in ZOOMS))
    for layer, by_zoom in ours.items():
        cells = "".join(f"  {s['p50_ms']:6.1f}/{s['p95_ms']:6.1f}" for s in by_zoom.values())
        print(f"{layer:14s}{cells}")
    cells = "".join(f"  {s['p50_ms']:6.1f}/{s['p95_ms']:6.1f}" for s in pil.values())
    print(f"{'PIL loop':14s}{cells}   (wheelchair layer)")
    print(f"ratio wheelchair / PIL loop (p50): {record['ratio_vs_pil_loop']}")
    print(f"naive Python loop, z15: p50 {record['naive_z15']['p50_ms']:.0f} ms; "
          f"ratio {record['ratio_vs_naive_z15']}")  # fmt: skip
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "tiles_rnv.json").write_text(json.dumps(record, indent=1))


if __name__ == "__main__":
    main()
