"""Maps for notebooks (ipyleaflet). The only otpa package that imports ipyleaflet."""

from __future__ import annotations

from otpa.viz.network_map import network_geojson, network_map

__all__ = ["network_geojson", "network_map"]
