"""Results of the elevation sampler: per-segment profiles, slope costs and metadata."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from otpa.types import BoolArray, Float32Array, FloatArray, IntArray

__all__ = ["GEOID_UNAVAILABLE_NO_GRID", "EdgeElevation", "ElevationMetadata"]


@dataclass(frozen=True)
class ElevationMetadata:
    """What is known about the heights, as OTP reports it with each plan.

    Attributes
    ----------
    ellipsoid_to_geoid_difference
        EGM96 geoid height N (metres, positive where the geoid lies above the WGS84
        ellipsoid) at the centre of the sampled segments: OTP's
        ``Graph.ellipsoidToGeoidDifference``.  Adding it to a DEM (orthometric) height
        gives an ellipsoidal height.  ``0.0`` when no geoid grid is available offline;
        then ``geoid_model`` is ``None`` and ``geoid_status`` says why (never a
        made-up value).
    geoid_elevation
        OTP's ``geoidElevation`` flag: whether elevations handed to clients should have
        ``ellipsoid_to_geoid_difference`` applied.  Stored as given by the caller.
    source_crs
        CRS of the (first) DEM, as a string (``"EPSG:4326"``...).
    nodata_fraction
        Share of the profile sample points that fell outside every raster or on nodata.
    geoid_model
        The grid file used for the undulation (``"egm96_15.gtx"``...), or ``None``.
    geoid_status
        How ``ellipsoid_to_geoid_difference`` was obtained, for people reading the
        metadata: ``"EGM96 geoid height from egm96_15.gtx"``, or a sentence starting
        ``"geoid difference unavailable: "`` saying why the ``0.0`` is not a measured
        value (:data:`GEOID_UNAVAILABLE_NO_GRID` when no grid is installed).
    """

    ellipsoid_to_geoid_difference: float
    geoid_elevation: bool
    source_crs: str
    nodata_fraction: float
    geoid_model: str | None = None
    geoid_status: str = ""

    @property
    def geoid_available(self) -> bool:
        """Whether ``ellipsoid_to_geoid_difference`` comes from a geoid grid."""
        return self.geoid_model is not None

    def to_dict(self) -> dict[str, Any]:
        """The metadata as a JSON-ready dict (all fields)."""
        return asdict(self)


#: ``geoid_status`` when no EGM96 grid file is installed (see ``otpa/elevation/README.md``).
GEOID_UNAVAILABLE_NO_GRID = (
    "geoid difference unavailable: grid not installed (no egm96_15.gtx or "
    "us_nga_egm96_15.tif found; set OTPA_GEOID_GRID or install a PROJ data package)"
)


@dataclass(frozen=True)
class EdgeElevation:
    """Elevation profile and slope costs of every street segment (arrays of ``n_segments``).

    Heights are metres from the DEM; distances metres along the segment in the way's node
    order ("forward").  A segment with any sample outside the rasters or on nodata, or
    with ``slope_override`` set (bridges, tunnels), gets *neutral* costs: no rise, fall
    or slope, effective lengths equal to its length, like an edge without a profile in OTP.

    Attributes
    ----------
    elev_start, elev_end
        Height at the first and last vertex (NaN outside the rasters).
    rise_m, fall_m
        Sum of the positive / the absolute negative height changes along the forward
        profile (going backward, rise and fall swap).
    max_slope
        Largest ``|rise / run|`` over the profile steps (OTP's ``maxSlope``; steps are at
        least half the sample spacing, a segment shorter than the spacing is one step).
        Slopes above the plausibility limit are flattened to 0 as OTP does, see
        ``flattened``.
    mean_slope
        Net grade ``(elev_end - elev_start) / length`` (signed, forward).
    has_profile
        Whether the costs come from a profile (``False``: neutral costs).
    flattened
        OTP's ``flattened``: some step was steeper than the limit and counted as flat.
    length_multiplier
        True (3-D) length over flat length (OTP's ``lengthMultiplier``).
    slope_speed_effective_length_fwd_m, slope_speed_effective_length_back_m
        OTP's ``slopeSpeedEffectiveLength``: the flat length a cyclist would cover in the
        time the slope makes this segment take (``sum(run / speed_coefficient)``).
    slope_work_cost_fwd, slope_work_cost_back
        OTP's work cost in metres-equivalent (``slopeWorkFactor * length``):
        ``sum(hypotenuse * (1 + 4000 * max(slope, 0) ** 3))``, the "FLAT"/triangle
        optimisation's hill term.
    slope_safety_cost_fwd_m, slope_safety_cost_back_m
        OTP's ``slopeSafetyCost``: ``sum(max(hypotenuse * (speed_coefficient - 1) / 4, 0))``;
        OTP adds it divided by the length to the bike safety factor.
    effective_walk_length_fwd_m, effective_walk_length_back_m
        Walking length stretched by Tobler's hiking function (OTP 1.x
        ``effectiveWalkFactor * length``, factor capped at 3).
    profile_offsets, profile_dist_m, profile_elev_m
        CSR forward profiles: samples of segment ``i`` are
        ``profile_offsets[i]:profile_offsets[i + 1]`` (always at least the two ends).
    metadata
        :class:`ElevationMetadata`.
    """

    elev_start: FloatArray
    elev_end: FloatArray
    rise_m: FloatArray
    fall_m: FloatArray
    max_slope: FloatArray
    mean_slope: FloatArray
    has_profile: BoolArray
    flattened: BoolArray
    length_multiplier: FloatArray
    slope_speed_effective_length_fwd_m: FloatArray
    slope_speed_effective_length_back_m: FloatArray
    slope_work_cost_fwd: FloatArray
    slope_work_cost_back: FloatArray
    slope_safety_cost_fwd_m: FloatArray
    slope_safety_cost_back_m: FloatArray
    effective_walk_length_fwd_m: FloatArray
    effective_walk_length_back_m: FloatArray
    profile_offsets: IntArray
    profile_dist_m: Float32Array
    profile_elev_m: Float32Array
    metadata: ElevationMetadata

    @property
    def n_segments(self) -> int:
        """Number of segments."""
        return int(self.elev_start.shape[0])
