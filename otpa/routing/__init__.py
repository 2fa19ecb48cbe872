"""Trip planning: requests, itineraries and the planner.

The front door is :func:`otpa.routing.plan` (also exported as ``otpa.plan``).
"""

from __future__ import annotations

from otpa.routing.errors import (
    InvalidRequestError,
    LocationNotAccessibleError,
    NoPathsAfterFilteringError,
    NoTransitTimesError,
    OutsideBoundsError,
    PathNotFoundError,
    PlanningError,
    TrivialPathError,
)
from otpa.routing.model import (
    DebugOutput,
    ElevationMetadata,
    EncodedPolyline,
    Fare,
    FareComponent,
    Itinerary,
    Leg,
    Money,
    Place,
    TripPlan,
    WalkStep,
    WrappedCurrency,
)
from otpa.routing.preferences import (
    AccessibilityPreferences,
    BikePreferences,
    CarPreferences,
    FlexPreferences,
    ItineraryPreferences,
    MicromobilityPreferences,
    Optimize,
    RentalPreferences,
    TransitPreferences,
    TriangleFactors,
    WalkPreferences,
    WheelchairPreferences,
)
from otpa.routing.request import (
    Location,
    PlanRequest,
    RequestModes,
    RouteSpec,
    RoutingPreferences,
    TransitFilters,
)

__all__ = [
    "AccessibilityPreferences",
    "BikePreferences",
    "CarPreferences",
    "DebugOutput",
    "ElevationMetadata",
    "EncodedPolyline",
    "Fare",
    "FareComponent",
    "FlexPreferences",
    "InvalidRequestError",
    "Itinerary",
    "ItineraryPreferences",
    "Leg",
    "Location",
    "LocationNotAccessibleError",
    "MicromobilityPreferences",
    "Money",
    "NoPathsAfterFilteringError",
    "NoTransitTimesError",
    "Optimize",
    "OutsideBoundsError",
    "PathNotFoundError",
    "Place",
    "PlanRequest",
    "PlanningError",
    "RentalPreferences",
    "RequestModes",
    "RouteSpec",
    "RoutingPreferences",
    "TransitFilters",
    "TransitPreferences",
    "TriangleFactors",
    "TripPlan",
    "TrivialPathError",
    "WalkPreferences",
    "WalkStep",
    "WheelchairPreferences",
    "WrappedCurrency",
]
