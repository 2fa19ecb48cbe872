"""Scenarios: ordered modifications of a network's transit, applied to a copy.

Modelled on Conveyal R5's scenarios.  A :class:`Scenario` lists modifications
(:class:`RemoveRoutes`, :class:`RemoveTrips`, :class:`RemoveStops`,
:class:`AdjustFrequency`, :class:`AdjustSpeed`, :class:`AdjustDwellTime`,
:class:`AddRoute`); :meth:`Scenario.validate` reports every problem and
:meth:`Scenario.apply` returns a new :class:`~otpa.network.TransportNetwork`,
leaving the base network untouched.  :class:`ScenarioStore` keeps scenarios
as JSON documents per router.

>>> from otpa.analysis.scenario import RemoveRoutes, Scenario
>>> scenario = Scenario("no blue line", (RemoveRoutes(("marta:BLUE",)),))
>>> modified = scenario.apply(network)  # doctest: +SKIP
"""

from __future__ import annotations

from otpa.analysis.scenario.errors import ScenarioError
from otpa.analysis.scenario.modifications import (
    MODIFICATION_TYPES,
    AddRoute,
    AdjustDwellTime,
    AdjustFrequency,
    AdjustSpeed,
    Modification,
    NewStop,
    RemoveRoutes,
    RemoveStops,
    RemoveTrips,
    StopSpec,
)
from otpa.analysis.scenario.scenario import Scenario
from otpa.analysis.scenario.store import ScenarioStore

__all__ = [
    "MODIFICATION_TYPES",
    "AddRoute",
    "AdjustDwellTime",
    "AdjustFrequency",
    "AdjustSpeed",
    "Modification",
    "NewStop",
    "RemoveRoutes",
    "RemoveStops",
    "RemoveTrips",
    "Scenario",
    "ScenarioError",
    "ScenarioStore",
    "StopSpec",
]
