"""Comparing two scenarios: travel times and accessibility before and after, and their change.

A scenario comparison computes the same analysis (one request) on two versions of a
network, each the base network or a :class:`~otpa.analysis.scenario.Scenario` applied
to a copy of it, and puts both results and their difference in one Dataset.  The base
network is never modified.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

import xarray as xr

from otpa.analysis._paired import PAIR_DIM, paired_travel_time_matrix
from otpa.analysis.accessibility import DEFAULT_CUTOFFS_S, accessibility
from otpa.analysis.accessor import travel_time_difference
from otpa.analysis.grid import Grid
from otpa.analysis.matrix import travel_time_matrix
from otpa.analysis.pointset import PointSet
from otpa.analysis.request import AnalysisRequest
from otpa.analysis.scenario import Scenario
from otpa.analysis.surface import analysis_request, compute_time_surface
from otpa.errors import ArgumentTypeError, InvalidArgumentError
from otpa.network import TransportNetwork

__all__ = ["BASE_NAME", "SCENARIO_DIM", "compare_scenarios"]

#: Dimension holding the two compared versions, labelled ``"a"`` and ``"b"``.
SCENARIO_DIM = "scenario"
#: ``scenario_name`` of the base network (no scenario).
BASE_NAME = "base"


def _network(network: TransportNetwork, scenario: Scenario | None) -> TransportNetwork:
    return network if scenario is None else scenario.apply(network)


def _label(scenario: Scenario | None) -> tuple[str, str]:
    if scenario is None:
        return BASE_NAME, ""
    return scenario.name, scenario.id or ""


def _travel_times(
    network: TransportNetwork,
    origins: Any,
    target: Grid | PointSet,
    request: AnalysisRequest,
) -> xr.DataArray:
    """The travel-time surface (one origin) or matrix (a point set of origins)."""
    if isinstance(origins, PointSet):
        if not isinstance(target, PointSet):
            msg = "a matrix (a point set of origins) needs a point set of destinations"
            raise ArgumentTypeError(msg)
        return travel_time_matrix(network, origins, target, request=request)
    surface = compute_time_surface(network, origins, target=target, request=request)
    tt = surface["travel_time"]
    tt.attrs = {**surface.attrs, **tt.attrs}
    return tt


def _target(target: Grid | PointSet | None, opportunities: PointSet | None, network: Any) -> Any:
    if target is not None:
        if opportunities is not None and isinstance(target, Grid):
            msg = "accessibility needs point-set destinations: give a PointSet target"
            raise InvalidArgumentError(msg)
        return target
    return opportunities if opportunities is not None else Grid.for_network(network)


def compare_scenarios(
    network: TransportNetwork,
    scenario_a: Scenario | None,
    scenario_b: Scenario | None,
    origins: Any,
    departure: dt.datetime | None = None,
    *,
    target: Grid | PointSet | None = None,
    opportunities: PointSet | None = None,
    cutoffs: Sequence[float] = DEFAULT_CUTOFFS_S,
    decay: str = "step",
    request: AnalysisRequest | None = None,
    **options: Any,
) -> xr.Dataset:
    """Travel times (and accessibility) under two scenarios, and how they change.

    Parameters
    ----------
    network
        The base network (never modified).
    scenario_a, scenario_b
        The two versions compared: a scenario applied to ``network``, or None for the
        base network itself.  Differences are ``b - a``.
    origins
        One origin (``(lat, lon)``, a :class:`~otpa.routing.Location` or an OTP place
        string): time surfaces; or a :class:`PointSet` of origins: travel-time matrices.
    departure
        First departure (naive: the network's time zone).
    target
        Destinations: a :class:`Grid` or a :class:`PointSet` (default: ``opportunities``,
        else the network's grid).  Matrices need a point set.
    opportunities
        Opportunities at the destinations, matched by id: adds accessibility.
    cutoffs, decay
        Accessibility cutoffs (seconds) and decay function (see
        :func:`~otpa.analysis.accessibility`).
    request
        All analysis parameters at once; keyword ``options`` override its fields.
    **options
        :class:`AnalysisRequest` fields (``window``, ``max_time``, ``modes`` ...).

    Returns
    -------
    xarray.Dataset
        ``travel_time`` over ``scenario`` (``"a"``, ``"b"``; coordinate ``scenario_name``)
        and the dims of a surface (``percentile, y, x`` or ``percentile, point``) or a
        matrix (``origin, destination, percentile``); ``difference`` (seconds, ``b - a``,
        NaN where either is unreachable), ``newly_reachable`` and ``no_longer_reachable``.
        With ``opportunities``: ``accessibility`` over ``scenario`` and its dims (see
        :func:`~otpa.analysis.accessibility`) and ``accessibility_difference`` (``b - a``;
        unreachable destinations count as 0 opportunities).

    Raises
    ------
    otpa.analysis.scenario.ScenarioError
        If a scenario does not apply to the network.

    Examples
    --------
    >>> from otpa.analysis import RemoveRoutes, Scenario
    >>> no_blue = Scenario("no blue", (RemoveRoutes(("marta:BLUE",)),))
    >>> ds = compare_scenarios(net, None, no_blue, (33.7565, -84.4039),
    ...                        dt.datetime(2021, 9, 15, 8), opportunities=jobs)  # doctest: +SKIP
    >>> ds.accessibility_difference.sel(cutoff=1800)  # doctest: +SKIP
    """
    req = analysis_request(departure, request, options)
    where = _target(target, opportunities, network)
    versions = (scenario_a, scenario_b)
    nets = [_network(network, s) for s in versions]
    if isinstance(origins, PointSet) and isinstance(where, PointSet):
        # both matrices at once: a transit-only scenario shares each origin's street searches
        pair = paired_travel_time_matrix(nets[0], nets[1], origins, where, request=req)
        times = [pair.isel({PAIR_DIM: k}, drop=True) for k in (0, 1)]
    else:
        times = [_travel_times(net, origins, where, req) for net in nets]
    labels = [_label(s) for s in versions]
    coords = {
        SCENARIO_DIM: ["a", "b"],
        "scenario_name": (SCENARIO_DIM, [name for name, _ in labels]),
        "scenario_id": (SCENARIO_DIM, [sid for _, sid in labels]),
    }
    both = xr.concat(times, dim=SCENARIO_DIM, coords="minimal", compat="override")
    both = both.assign_coords(coords)
    both.attrs = {"units": "s", "long_name": "travel time"}
    change = travel_time_difference(times[0], times[1])
    out = xr.Dataset(
        {"travel_time": both, **{name: change[name] for name in change.data_vars}},
        attrs={k: v for k, v in times[0].attrs.items() if k not in ("units", "long_name")},
    )
    if opportunities is not None:
        access = [accessibility(tt, opportunities, cutoffs=cutoffs, decay=decay) for tt in times]
        out["accessibility"] = xr.concat(access, dim=SCENARIO_DIM).assign_coords(coords)
        out["accessibility_difference"] = (access[1] - access[0]).assign_attrs(
            units="opportunities", long_name="accessibility difference (b - a)"
        )
    out.attrs["scenario_a"] = labels[0][0]
    out.attrs["scenario_b"] = labels[1][0]
    return out
