"""What the street graph builder needs from an elevation model (a Protocol).

:class:`otpa.elevation.model.EdgeElevation` satisfies it.
"""

from __future__ import annotations

from typing import Protocol

from otpa.types import FloatArray

__all__ = ["ELEVATION_FIELDS", "ELEVATION_SOURCES", "LENGTH_LIKE_ELEVATION", "SegmentElevation"]

#: Per-edge elevation array name (``edge_<name>`` on the graph) -> the
#: :class:`SegmentElevation` attributes giving its forward and backward values.
ELEVATION_SOURCES: dict[str, tuple[str, str]] = {
    "max_slope": ("max_slope", "max_slope"),
    "rise_m": ("rise_m", "fall_m"),
    "fall_m": ("fall_m", "rise_m"),
    "slope_speed_effective_length_m": (
        "slope_speed_effective_length_fwd_m",
        "slope_speed_effective_length_back_m",
    ),
    "slope_work_cost": ("slope_work_cost_fwd", "slope_work_cost_back"),
    "slope_safety_cost_m": ("slope_safety_cost_fwd_m", "slope_safety_cost_back_m"),
    "effective_walk_length_m": ("effective_walk_length_fwd_m", "effective_walk_length_back_m"),
}
#: Names of the per-edge elevation arrays.
ELEVATION_FIELDS = tuple(ELEVATION_SOURCES)
#: The ones that scale with length when an edge is split (``max_slope`` is copied).
LENGTH_LIKE_ELEVATION = tuple(k for k in ELEVATION_FIELDS if k != "max_slope")


class SegmentElevation(Protocol):
    """Per-segment elevation summaries (length ``n_segments`` of the OSM data).

    Arrays are indexed like the ``seg_*`` arrays of
    :class:`otpa.osm.model.OsmStreetData`; ``*_fwd*`` values describe the
    segment in way node order, ``*_back*`` values the other way; ``rise_m`` and
    ``fall_m`` are forward (they swap going backward).
    """

    @property
    def max_slope(self) -> FloatArray:
        """Largest absolute slope along the segment (OTP's ``maxSlope``)."""

    @property
    def rise_m(self) -> FloatArray:
        """Total climb in metres, forward."""

    @property
    def fall_m(self) -> FloatArray:
        """Total descent in metres, forward."""

    @property
    def slope_speed_effective_length_fwd_m(self) -> FloatArray:
        """OTP's ``slopeSpeedEffectiveLength``, forward."""

    @property
    def slope_speed_effective_length_back_m(self) -> FloatArray:
        """OTP's ``slopeSpeedEffectiveLength``, backward."""

    @property
    def slope_work_cost_fwd(self) -> FloatArray:
        """OTP's slope work cost, forward."""

    @property
    def slope_work_cost_back(self) -> FloatArray:
        """OTP's slope work cost, backward."""

    @property
    def slope_safety_cost_fwd_m(self) -> FloatArray:
        """OTP's ``slopeSafetyCost``, forward."""

    @property
    def slope_safety_cost_back_m(self) -> FloatArray:
        """OTP's ``slopeSafetyCost``, backward."""

    @property
    def effective_walk_length_fwd_m(self) -> FloatArray:
        """Walking length stretched by the slope (OTP 1.x ``effectiveWalkFactor * length``)."""

    @property
    def effective_walk_length_back_m(self) -> FloatArray:
        """Walking length stretched by the slope, backward."""
