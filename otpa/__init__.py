"""otpa: a Python-first multimodal trip planner and transit accessibility platform.

The public API is the names in ``__all__``; everything else is internal.
"""

from __future__ import annotations

from otpa._version import __version__
from otpa.network import TransportNetwork, build_network
from otpa.routing import (
    BikePreferences,
    CarPreferences,
    Itinerary,
    ItineraryPreferences,
    Leg,
    Location,
    Optimize,
    PlanRequest,
    RequestModes,
    RouteSpec,
    TransitFilters,
    TransitPreferences,
    TriangleFactors,
    TripPlan,
    WalkPreferences,
    WheelchairPreferences,
)
from otpa.routing.parse import parse_location, parse_modes
from otpa.routing.planner import plan

__all__ = [
    "BikePreferences",
    "CarPreferences",
    "Itinerary",
    "ItineraryPreferences",
    "Leg",
    "Location",
    "Optimize",
    "PlanRequest",
    "RequestModes",
    "RouteSpec",
    "TransitFilters",
    "TransitPreferences",
    "TransportNetwork",
    "TriangleFactors",
    "TripPlan",
    "WalkPreferences",
    "WheelchairPreferences",
    "__version__",
    "build_network",
    "parse_location",
    "parse_modes",
    "plan",
]
