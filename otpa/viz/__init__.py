"""Maps for notebooks (ipyleaflet). The only otpa package that imports ipyleaflet."""

from __future__ import annotations

from otpa.viz.itinerary_map import itinerary_geojson, itinerary_map
from otpa.viz.network_map import network_geojson, network_map

__all__ = ["itinerary_geojson", "itinerary_map", "network_geojson", "network_map"]
