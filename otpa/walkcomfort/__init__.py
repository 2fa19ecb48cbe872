"""Walk comfort (ibi-group OTP 1.x): OSM-tag rules that make streets nicer or worse to walk.

>>> from otpa.walkcomfort import WalkComfortRules
>>> rules = WalkComfortRules.from_document({"rules": [
...     {"type": "equal", "key": "sidewalk", "value": ["both", "separate"], "factor": 0.9},
...     {"type": "greater", "key": "maxspeed", "value": 50, "factor": 1.4},
... ]})
>>> round(rules.factor_of({"sidewalk": "both", "maxspeed": "70"}), 6)
1.26

See ``otpa/walkcomfort/README.md``.
"""

from __future__ import annotations

from otpa.walkcomfort.model import (
    WalkComfort,
    attach_walk_comfort,
    edge_walk_comfort,
    segment_factors,
)
from otpa.walkcomfort.network import (
    WalkComfortUpdate,
    segment_walk_comfort,
    set_walk_comfort_rules,
    walk_comfort_version,
)
from otpa.walkcomfort.rules import (
    WALK_CONFIG_FILENAME,
    WalkComfortConfigError,
    WalkComfortRules,
    load_walk_config,
)

__all__ = [
    "WALK_CONFIG_FILENAME",
    "WalkComfort",
    "WalkComfortConfigError",
    "WalkComfortRules",
    "WalkComfortUpdate",
    "attach_walk_comfort",
    "edge_walk_comfort",
    "load_walk_config",
    "segment_factors",
    "segment_walk_comfort",
    "set_walk_comfort_rules",
    "walk_comfort_version",
]
