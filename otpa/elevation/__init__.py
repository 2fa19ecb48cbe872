"""Elevation: sample DEM rasters (any CRS) and derive OTP 1.x slope costs per street segment.

``sample_raster`` interpolates one or more GeoTIFFs bilinearly at WGS84 points;
``edge_elevation_profiles`` samples every segment every 10 m (like OTP's
``ElevationModule``) in one raster pass per file and computes rise/fall, slopes and
OTP's per-direction bike speed/work/safety and walking costs.  See
``otpa/elevation/README.md``.
"""

from __future__ import annotations

from otpa.elevation._geoid import find_geoid_grid, geoid_undulation
from otpa.elevation._profiles import edge_elevation_profiles
from otpa.elevation._raster import sample_raster
from otpa.elevation._slope_costs import slope_speed_coefficient, tobler_multiplier
from otpa.elevation.model import GEOID_UNAVAILABLE_NO_GRID, EdgeElevation, ElevationMetadata

__all__ = [
    "GEOID_UNAVAILABLE_NO_GRID",
    "EdgeElevation",
    "ElevationMetadata",
    "edge_elevation_profiles",
    "find_geoid_grid",
    "geoid_undulation",
    "sample_raster",
    "slope_speed_coefficient",
    "tobler_multiplier",
]
