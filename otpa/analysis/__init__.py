"""Accessibility analysis: time surfaces, travel-time matrices, accessibility, isochrones.

Results are xarray objects with fixed dimension names and ``units`` attributes (see
``README.md`` next to this file); importing the package registers the ``.otpa``
accessor on xarray objects.  OpenTripPlanner 1.x's analyst and profile emulation (for
the service's OTP 1.x endpoints) lives in :mod:`otpa.analysis.otp1`; the names of it
exported here (``profile_route``, ``surface_geotiff``, the timegrid codec) stay
available from this package.

Examples
--------
>>> import datetime as dt
>>> from otpa.analysis import PointSet, compute_time_surface, travel_time_matrix
>>> ds = compute_time_surface(net, (-30.03, -51.22), dt.datetime(2019, 5, 13, 14))  # doctest: +SKIP
>>> iso = ds.otpa.isochrones([900, 1800, 2700])  # doctest: +SKIP
"""

from otpa.analysis import accessor as _accessor  # registers ds.otpa
from otpa.analysis._layout import grid_of, points_of
from otpa.analysis._paired import paired_travel_time_matrix
from otpa.analysis.accessibility import accessibility
from otpa.analysis.accessor import travel_time_difference
from otpa.analysis.compare import compare_scenarios
from otpa.analysis.decay import DECAY_KINDS, decay_weights
from otpa.analysis.grid import MAX_GRID_CELLS, Grid
from otpa.analysis.indicator import indicator
from otpa.analysis.isochrones import isochrone_shapefile_zip, isochrones, isochrones_geojson
from otpa.analysis.matrix import travel_time_matrix
from otpa.analysis.otp1.profile import ProfileRequest, profile_route
from otpa.analysis.otp1.raster import surface_geotiff
from otpa.analysis.otp1.timegrid import decode_timegrid, encode_timegrid
from otpa.analysis.pointset import PointSet, PointSetError
from otpa.analysis.request import AnalysisRequest
from otpa.analysis.scenario import (
    AddRoute,
    AdjustDwellTime,
    AdjustFrequency,
    AdjustSpeed,
    NewStop,
    RemoveRoutes,
    RemoveStops,
    RemoveTrips,
    Scenario,
    ScenarioError,
    ScenarioStore,
)
from otpa.analysis.surface import compute_time_surface

__all__ = [
    "DECAY_KINDS",
    "MAX_GRID_CELLS",
    "AddRoute",
    "AdjustDwellTime",
    "AdjustFrequency",
    "AdjustSpeed",
    "AnalysisRequest",
    "Grid",
    "NewStop",
    "PointSet",
    "PointSetError",
    "ProfileRequest",
    "RemoveRoutes",
    "RemoveStops",
    "RemoveTrips",
    "Scenario",
    "ScenarioError",
    "ScenarioStore",
    "accessibility",
    "compare_scenarios",
    "compute_time_surface",
    "decay_weights",
    "decode_timegrid",
    "encode_timegrid",
    "grid_of",
    "indicator",
    "isochrone_shapefile_zip",
    "isochrones",
    "isochrones_geojson",
    "paired_travel_time_matrix",
    "points_of",
    "profile_route",
    "surface_geotiff",
    "travel_time_difference",
    "travel_time_matrix",
]

del _accessor
