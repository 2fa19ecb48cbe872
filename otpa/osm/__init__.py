"""Read OpenStreetMap files into routable street segments (:class:`OsmStreetData`).

The way-property rules (permissions, speeds, bike safety, generated names) follow
OpenTripPlanner 1.x's default set; ``otpa/osm/README.md`` lists them and the deviations.
"""

from __future__ import annotations

from otpa.osm._reader import read_osm
from otpa.osm._way_tags import WALK_TAG_KEYS
from otpa.osm.model import (
    BICYCLE,
    CAR,
    FLAG_AREA,
    FLAG_BOGUS_NAME,
    FLAG_CONSTRUCTION_IGNORED,
    FLAG_LINK,
    FLAG_MOTORROAD,
    FLAG_RESTRICTION_COPY,
    FLAG_ROUNDABOUT,
    FLAG_SLOPE_OVERRIDE,
    FLAG_STAIRS,
    FLAG_TOLL,
    FLAG_WHEELCHAIR_NO,
    WALK,
    OsmFeature,
    OsmStreetData,
    TurnRestriction,
    WayTags,
)

__all__ = [
    "BICYCLE",
    "CAR",
    "FLAG_AREA",
    "FLAG_BOGUS_NAME",
    "FLAG_CONSTRUCTION_IGNORED",
    "FLAG_LINK",
    "FLAG_MOTORROAD",
    "FLAG_RESTRICTION_COPY",
    "FLAG_ROUNDABOUT",
    "FLAG_SLOPE_OVERRIDE",
    "FLAG_STAIRS",
    "FLAG_TOLL",
    "FLAG_WHEELCHAIR_NO",
    "WALK",
    "WALK_TAG_KEYS",
    "OsmFeature",
    "OsmStreetData",
    "TurnRestriction",
    "WayTags",
    "read_osm",
]
