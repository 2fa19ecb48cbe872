"""Maps for notebooks (ipyleaflet). The only otpa package that imports ipyleaflet."""

from __future__ import annotations

from otpa.viz.colors import ColorScale, palette, travel_time_scale
from otpa.viz.itinerary_map import itinerary_geojson, itinerary_map
from otpa.viz.network_map import network_geojson, network_map
from otpa.viz.result_geojson import (
    cell_polygons,
    isochrone_geojson,
    surface_geojson,
    values_geojson,
)
from otpa.viz.surface_map import choropleth_map, difference_map, isochrone_map, surface_map

__all__ = [
    "ColorScale",
    "cell_polygons",
    "choropleth_map",
    "difference_map",
    "isochrone_geojson",
    "isochrone_map",
    "itinerary_geojson",
    "itinerary_map",
    "network_geojson",
    "network_map",
    "palette",
    "surface_geojson",
    "surface_map",
    "travel_time_scale",
    "values_geojson",
]
