"""Plans across transfers.txt rules that board a ride before the street walk ends.

The feed (``tests/fixtures/rule_feed.py``): R1 A 08:00 -> B 08:10, a timed transfer
B -> C, R2 C 08:11 -> D 08:20; R3 E 08:00 -> F 08:10, a 60 s minimum time F -> G from
R3 to R4, R4 G 08:12 -> H 08:20.  Both walks take 301 s (400 m), longer than the rules
allow.  As in OpenTripPlanner 1.x (a timed transfer takes no time, a minimum-time rule
its ``min_transfer_time``) the walk leg ends when the rule lets the rider board: legs
follow one another, and duration = walkTime + transitTime + waitingTime.
"""

from __future__ import annotations

import datetime as dt
import itertools
from zoneinfo import ZoneInfo

import pytest

from otpa.network import TransportNetwork, build_network
from otpa.routing import ItineraryPreferences, Location, PlanRequest
from otpa.routing.model import Itinerary
from otpa.routing.planner import plan
from tests.fixtures.rule_feed import write_rule_feed

BERLIN = ZoneInfo("Europe/Berlin")


@pytest.fixture(scope="module")
def network(tmp_path_factory: pytest.TempPathFactory) -> TransportNetwork:
    return build_network(write_rule_feed(tmp_path_factory.mktemp("rules") / "rules"))


def _at(clock: str) -> dt.datetime:
    h, m = clock.split(":")
    return dt.datetime(2024, 3, 5, int(h), int(m), tzinfo=BERLIN)


def _itinerary(network: TransportNetwork, a: str, b: str, when: str, arrive_by: bool) -> Itinerary:
    req = PlanRequest(
        from_place=Location(label=f"rules:{a}"),
        to_place=Location(label=f"rules:{b}"),
        date_time=_at(when),
        arrive_by=arrive_by,
        itineraries=ItineraryPreferences(num_itineraries=1),
    )
    [it] = plan(network, req).itineraries
    legs = it.legs
    assert all(leg.start_time <= leg.end_time for leg in legs)
    assert all(x.end_time <= y.start_time for x, y in itertools.pairwise(legs))
    assert it.duration == it.walk_time + it.transit_time + it.waiting_time
    return it


@pytest.mark.parametrize(
    ("a", "b", "walk", "walk_back", "walk_s"),
    [
        # timed: the walk takes no time, at R1's arrival (arrive-by: R2's departure)
        ("A", "D", ("08:10", "08:10"), ("08:11", "08:11"), 0),
        # minimum time 60 s: the walk takes the minimum time, right after R3 (arrive-by:
        # right before R4)
        ("E", "H", ("08:10", "08:11"), ("08:11", "08:12"), 60),
    ],
)
@pytest.mark.parametrize("arrive_by", [False, True])
def test_the_walk_ends_when_the_rule_lets_the_rider_board(
    network: TransportNetwork,
    a: str,
    b: str,
    walk: tuple[str, str],
    walk_back: tuple[str, str],
    walk_s: int,
    arrive_by: bool,
) -> None:
    it = _itinerary(network, a, b, "08:30" if arrive_by else "07:55", arrive_by)
    w0, w1 = walk_back if arrive_by else walk
    board = "08:11" if a == "A" else "08:12"
    times = [(leg.mode, leg.start_time, leg.end_time) for leg in it.legs]
    assert times == [
        ("BUS", _at("08:00"), _at("08:10")),
        ("WALK", _at(w0), _at(w1)),
        ("BUS", _at(board), _at("08:20")),
    ]
    assert it.legs[1].distance == pytest.approx(400.0, abs=1.0)  # the walk's path
    assert (it.duration, it.walk_time) == (20 * 60, walk_s)
    assert it.transit_time == 600 + (_at("08:20") - _at(board)).seconds
    assert it.waiting_time == 20 * 60 - walk_s - it.transit_time == 60
