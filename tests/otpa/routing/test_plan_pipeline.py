"""The plan around its searches: work a plan can do without is skipped, same answer."""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from otpa.network import TransportNetwork
from otpa.routing import Location, PlanRequest
from otpa.routing import _access as access_module
from otpa.routing import _transit_plan as transit_plan
from otpa.routing.errors import OutsideBoundsError, PathNotFoundError
from otpa.routing.model import Itinerary, Leg, Place, WalkStep, _direct_init
from otpa.routing.planner import plan
from otpa.routing.preferences import WalkPreferences
from otpa.routing.request import RequestModes
from otpa.util.geo import haversine_m
from tests.fixtures.networks import built_network

#: A Tuesday of the beatty sample feed's service (FULLW).
WHEN = dt.datetime(2010, 6, 1, 8, 0)
#: A hard walk limit: no stop within it of the places below.
LIMIT_M = 100.0


@pytest.fixture(scope="module")
def network(data_root: Path) -> TransportNetwork:
    return built_network(data_root, "tiny/beatty")


def _far_from_stops(net: TransportNetwork) -> list[tuple[tuple[float, float], ...]]:
    """Pairs of street vertices 300-3000 m apart, both over 4 x LIMIT_M from every stop."""
    g = net.street
    assert g is not None
    lat, lon = np.asarray(g.vertex_lat), np.asarray(g.vertex_lon)
    s_lat = net.transit.stops.lat.to_numpy(float)
    s_lon = net.transit.stops.lon.to_numpy(float)
    near = np.array(
        [float(np.min(haversine_m(a, b, s_lat, s_lon))) for a, b in zip(lat, lon, strict=True)]
    )
    far = np.flatnonzero(near > 4 * LIMIT_M)
    pairs = []
    for a in far[:20].tolist():
        d = np.asarray(haversine_m(lat[a], lon[a], lat[far], lon[far]))
        for b in far[(d > 300) & (d < 3000)][:1].tolist():
            pairs.append(((float(lat[a]), float(lon[a])), (float(lat[b]), float(lon[b]))))
    return pairs


def _request(a: tuple[float, float], b: tuple[float, float], modes: RequestModes) -> PlanRequest:
    return PlanRequest(
        from_place=Location(lat=a[0], lon=a[1]),
        to_place=Location(lat=b[0], lon=b[1]),
        date_time=WHEN,
        modes=modes,
        walk=replace(WalkPreferences(), max_distance_m=LIMIT_M, soft_limit=False),
    )


def test_no_stop_within_reach_skips_the_access_searches(
    network: TransportNetwork, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both ends provably far from every stop: no access or egress search runs (the
    destination's bound is checked first), and the answer is the walk."""
    calls: list[bool] = []
    searches: list[bool] = []
    inner = transit_plan.find_access
    inner_search = access_module.access_stops

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(kwargs["reverse"])
        return inner(*args, **kwargs)

    def counted_search(*args: Any, **kwargs: Any) -> Any:
        searches.append(kwargs["reverse"])
        return inner_search(*args, **kwargs)

    monkeypatch.setattr(transit_plan, "find_access", counted)
    monkeypatch.setattr(access_module, "access_stops", counted_search)
    walk = RequestModes(frozenset({"WALK"}), frozenset())
    planned = 0
    for a, b in _far_from_stops(network):
        try:
            walk_only = plan(network, _request(a, b, walk))
        except (PathNotFoundError, OutsideBoundsError):  # not on walkable, linked streets
            continue
        assert calls == []
        with_transit = plan(network, _request(a, b, RequestModes()))
        assert calls == []  # the destination has no stop to alight at: no search at all
        assert searches == []
        assert [it.legs[0].mode for it in with_transit.itineraries] == ["WALK"]
        assert repr(with_transit.itineraries) == repr(walk_only.itineraries)
        planned += 1
    assert planned >= 2


@pytest.mark.parametrize("cls", [Place, WalkStep, Leg, Itinerary])
def test_model_classes_build_what_the_dataclass_init_would(cls: type) -> None:
    """The direct ``__init__`` of the plan's model classes: the same instance as the one
    ``dataclass(frozen=True)`` generates (every field, in order, defaults), still frozen."""
    reference = dataclasses.dataclass(frozen=True)(
        type(cls.__name__, (), {"__annotations__": dict(cls.__annotations__)}
             | {f.name: f.default for f in dataclasses.fields(cls)
                if f.default is not dataclasses.MISSING})
    )  # fmt: skip
    required = [f.name for f in dataclasses.fields(cls) if f.default is dataclasses.MISSING]
    given = {name: f"value of {name}" for name in required}
    built, expected = cls(**given), reference(**given)
    assert list(vars(built)) == [f.name for f in dataclasses.fields(cls)]
    assert vars(built) == vars(expected)
    assert cls(*given.values()) == built  # positional too
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.lat = 0.0
    with pytest.raises(TypeError, match="missing"):
        cls()
    assert dataclasses.replace(built, **{required[0]: 1}) != built


def test_direct_init_refuses_fields_it_cannot_build() -> None:
    @dataclasses.dataclass(frozen=True)
    class Factory:
        items: list[int] = dataclasses.field(default_factory=list)

    with pytest.raises(TypeError, match="items"):
        _direct_init(Factory)


def test_the_destination_bound_is_computed_once(
    network: TransportNetwork, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A transit plan checks the destination's stop bound before any search and passes
    that on to its egress search (``bound_checked``): each end's bound is computed once,
    only after it was found false, and the itineraries are those of a search that checks
    again."""
    g = network.street
    assert g is not None
    rng = np.random.default_rng(3)
    verts = rng.choice(g.n_vertices, size=24, replace=False).tolist()
    lat, lon = np.asarray(g.vertex_lat), np.asarray(g.vertex_lon)
    reqs = [
        PlanRequest(
            from_place=Location(lat=float(lat[a]), lon=float(lon[a])),
            to_place=Location(lat=float(lat[b]), lon=float(lon[b])),
            date_time=WHEN,
        )
        for a, b in zip(verts[::2], verts[1::2], strict=True)
    ]
    checked: list[tuple[float, float]] = []
    bounds = access_module.no_stop_near
    inner = transit_plan.find_access

    def counted_bound(net: TransportNetwork, end: Any, radius: float) -> bool:
        checked.append((end.endpoint.lat, end.endpoint.lon))
        return bounds(net, end, radius)

    def unchecked(*args: Any, **kwargs: Any) -> Any:
        kwargs["bound_checked"] = False
        return inner(*args, **kwargs)

    def answers() -> list[str]:
        out = []
        for r in reqs:
            try:
                out.append(repr(plan(network, r).itineraries))
            except (PathNotFoundError, OutsideBoundsError) as e:
                out.append(type(e).__name__)
        return out

    monkeypatch.setattr(access_module, "no_stop_near", counted_bound)
    monkeypatch.setattr(transit_plan, "no_stop_near", counted_bound)
    new = answers()
    assert checked
    assert len(checked) == len(set(checked))  # each end's bound once a plan
    monkeypatch.setattr(transit_plan, "find_access", unchecked)
    assert answers() == new
    assert sum(len(a) > 30 for a in new) >= 3  # itineraries found, not only refusals
