"""Map tiles drawn from a network's own data: the offline basemap and the inspector layers.

>>> from otpa.tiles import LAYERS, render_tile
>>> sorted(LAYERS)[:3]
['basemap', 'bike-safety', 'elevation']

See ``otpa/tiles/README.md`` for the design.
"""

from __future__ import annotations

from otpa.tiles._mercator import MAX_ZOOM, TileError, check_tile, tile_bounds_3857, world_xy
from otpa.tiles.layers import LAYERS, LayerInfo, LegendEntry
from otpa.tiles.render import FORMATS, render_pixels, render_tile

__all__ = [
    "FORMATS",
    "LAYERS",
    "MAX_ZOOM",
    "LayerInfo",
    "LegendEntry",
    "TileError",
    "check_tile",
    "render_pixels",
    "render_tile",
    "tile_bounds_3857",
    "world_xy",
]
