"""Scenario validation against a real network (MARTA rail, tiny/atlanta).

FEATURE UNDER TEST: a scenario reports every problem at once, each prefixed
with the modification's position and type; later modifications are checked
against the network the earlier ones produce; an invalid scenario raises
``ScenarioError`` (a ``ValueError``) carrying the same problems and leaves the
network alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

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
)
from otpa.network import TransportNetwork
from tests.fixtures.networks import built_network

BLUE, GREEN = "15787", "15789"  # routes.txt of the MARTA feed


@pytest.fixture(scope="module")
def network(data_root: Path) -> TransportNetwork:
    return built_network(data_root, "tiny/atlanta")


@pytest.fixture(scope="module")
def feed(network: TransportNetwork) -> str:
    (feed_id,) = network.transit.feeds["feed_id"].tolist()
    routes = set(network.transit.routes["raw_id"].astype(str))
    assert {BLUE, GREEN} <= routes
    return str(feed_id)


def test_every_problem_is_listed_with_its_modification(
    network: TransportNetwork, feed: str
) -> None:
    scenario = Scenario(
        "broken",
        (
            RemoveRoutes((f"{feed}:NOPE", BLUE)),
            AddRoute(name="N", mode="BUS", stops=(), headway_s=30, start_time=0, end_time=60,
                     speed_kmh=20),
            AdjustFrequency(f"{feed}:{BLUE}", headway_s=600, start_time=2 * 3600,
                            end_time=3 * 3600),
            RemoveStops((f"{feed}:nowhere", f"{feed}:470"), route=f"{feed}:NOPE"),
            AdjustDwellTime(stops=(f"{feed}:470",), dwell_s=30, scale=2.0),
            RemoveStops((f"{feed}:27",), route=f"{feed}:{GREEN}"),
        ),
    )  # fmt: skip
    expected = [
        f"modification 0 (remove-routes): routes: unknown route id '{feed}:NOPE'",
        "modification 0 (remove-routes): routes: unknown route id '15787' "
        "(ids are feed-scoped: 'feedId:id')",
        "modification 1 (add-route): headway_s must be in [60, 86400] s, got 30",
        "modification 1 (add-route): stops must list 2 to 2000 stops, got 0",
        f"modification 2 (adjust-frequency): route '{feed}:{BLUE}' has no trips starting "
        "between 02:00:00 and 03:00:00",
        f"modification 3 (remove-stops): stops: unknown stop id '{feed}:nowhere'",
        f"modification 3 (remove-stops): route: unknown route id '{feed}:NOPE'",
        "modification 4 (adjust-dwell-time): give exactly one of dwell_s and scale",
        f"modification 5 (remove-stops): stops: stop '{feed}:27' is not served by route "
        f"'{feed}:{GREEN}'",
    ]
    assert scenario.validate(network) == expected
    with pytest.raises(ScenarioError) as info:
        scenario.apply(network)
    assert list(info.value.problems) == expected
    assert isinstance(info.value, ValueError)
    assert "unknown route id" in str(info.value)
    # a modification can also be checked on its own
    assert scenario.modifications[4].validate(network) == ["give exactly one of dwell_s and scale"]
    assert RemoveRoutes((f"{feed}:{BLUE}",)).validate(network) == []


def test_later_modifications_see_the_earlier_ones(network: TransportNetwork, feed: str) -> None:
    added = AddRoute(
        name="Crosstown",
        mode="BUS",
        stops=(f"{feed}:470", NewStop(33.765, -84.40, "New stop")),
        headway_s=900,
        start_time=6 * 3600,
        end_time=9 * 3600,
        speed_kmh=25,
        route_id="X1",
    )
    ok = Scenario(
        "uses its own route",
        (added, AdjustSpeed((f"{feed}:X1",), 2.0), RemoveStops((f"{feed}:X1-2",))),
    )
    assert ok.validate(network) == []
    # the base network knows neither the route nor its stop
    assert AdjustSpeed((f"{feed}:X1",), 2.0).validate(network) == [
        f"routes: unknown route id '{feed}:X1'"
    ]
    # removing BLUE leaves nothing for a later change of BLUE
    gone = Scenario(
        "twice", (RemoveRoutes((f"{feed}:{BLUE}",)), AdjustSpeed((f"{feed}:{BLUE}",), 1.1))
    )
    assert gone.validate(network) == [
        f"modification 1 (adjust-speed): routes: route '{feed}:{BLUE}' has no trips"
    ]
    # an id the scenario already used cannot be added again
    twice = Scenario("same id", (added, added))
    assert twice.validate(network) == [
        f"modification 1 (add-route): route_id: route '{feed}:X1' exists already",
        f"modification 1 (add-route): stops: new stop id '{feed}:X1-2' is not unique",
    ]


def test_remove_trips_problems(network: TransportNetwork, feed: str) -> None:
    problems = Scenario(
        "trips", (RemoveTrips((f"{feed}:missing", f"{feed}:6548386")), RemoveTrips(()))
    ).validate(network)
    assert problems == [
        f"modification 0 (remove-trips): trips: unknown trip id '{feed}:missing'",
        "modification 1 (remove-trips): trips must name at least one trip",
    ]


def test_add_route_network_problems(network: TransportNetwork, feed: str) -> None:
    mod = AddRoute(
        name="N",
        mode="BUS",
        stops=(f"{feed}:470", f"{feed}:nope"),
        headway_s=600,
        start_time=0,
        end_time=3600,
        hop_times_s=(60,),
        agency_id=f"{feed}:NOBODY",
    )
    assert mod.validate(network) == [
        f"agency_id: unknown agency id '{feed}:NOBODY'",
        f"stops: unknown stop id '{feed}:nope'",
    ]


def test_invalid_scenarios_leave_the_network_alone(network: TransportNetwork, feed: str) -> None:
    before = (network.transit.n_trips, network.transit.n_patterns, len(network.transit.routes))
    with pytest.raises(ScenarioError):
        Scenario(
            "half good", (RemoveRoutes((f"{feed}:{BLUE}",)), RemoveRoutes((f"{feed}:NOPE",)))
        ).apply(network)
    assert (network.transit.n_trips, network.transit.n_patterns, len(network.transit.routes)) == (
        before
    )
    with pytest.raises(ScenarioError, match="name must be a non-empty string"):
        Scenario("", ()).apply(network)
