"""The cost bounds of the analyst API: every request's work is bounded before it starts.

A request over a bound is answered 400 with a message naming the parameter (OTP 1.x had no
bounds and ran out of memory or time instead).
"""

from __future__ import annotations

from dataclasses import dataclass

from service.config import ServiceConfig

__all__ = ["AnalystLimits"]


@dataclass(frozen=True)
class AnalystLimits:
    """Bounds on analyst requests.

    Attributes
    ----------
    max_cells
        Grid cells one request may compute (isochrones, timegrids, surfaces).
    max_time_s
        Longest travel-time limit (``maxTimeSec``, ``cutoffSec``, ``cutoffMinutes``...).
    max_cutoffs
        Most isochrone cutoffs or contours in one request.
    min_precision_m, max_precision_m
        Grid cell size range (``precisionMeters``; OTP's minimum is 10 m).
    max_offroad_m
        Largest ``offRoadDistanceMeters``.
    max_departures
        Most departure times one request samples (``simpleIsochrone``'s window).
    max_points
        Most points one request evaluates (street vertices of ``isochroneOld``).
    tile_zooms
        Zoom levels ``/analyst/tile`` computes (each tile runs a search).
    tile_cells
        Cells along a computed tile's side (each cell is a block of pixels).
    surface_tile_zooms
        Zoom levels of tiles read from stored surfaces (cheap).
    max_raster_pixels
        Largest ``/surfaces/{id}/raster`` (width x height).
    legend_width, legend_height
        Legend size ranges, pixels.
    max_surfaces
        Stored surfaces (LRU).
    max_pointset_bytes
        Largest point-set upload.
    max_uploaded_pointsets
        Most point sets kept from uploads.
    max_simple_radius_m
        Largest ``radiusMeters`` of ``simpleIsochrone``.
    """

    max_cells: int = 250_000
    max_time_s: int = 4 * 3600
    max_cutoffs: int = 12
    min_precision_m: int = 10
    max_precision_m: int = 5000
    max_offroad_m: int = 1000
    max_departures: int = 96
    max_points: int = 200_000
    tile_zooms: tuple[int, int] = (8, 20)
    tile_cells: int = 128
    surface_tile_zooms: tuple[int, int] = (0, 22)
    max_raster_pixels: int = 4_000_000
    legend_width: tuple[int, int] = (140, 2000)
    legend_height: tuple[int, int] = (25, 2000)
    max_surfaces: int = 64
    max_pointset_bytes: int = 16 * 1024**2
    max_uploaded_pointsets: int = 32
    max_simple_radius_m: int = 20_000

    @classmethod
    def from_config(cls, config: ServiceConfig) -> AnalystLimits:
        """The limits of a service configuration (its analyst keys, defaults for the rest)."""
        return cls(
            max_cells=config.max_analysis_cells,
            max_surfaces=config.max_surfaces,
            max_pointset_bytes=config.max_pointset_bytes,
        )
