"""Over HTTP: ``/plan`` across transfers.txt rules that board before the street walk ends.

The real planner on the feed of ``tests/fixtures/rule_feed.py`` (2024-03-05,
Europe/Berlin, UTC+1): R1 A 08:00 -> B 08:10, a timed transfer B -> C (the walk takes
301 s), R2 C 08:11 -> D 08:20; R3 E 08:00 -> F 08:10, a 60 s minimum time F -> G from
R3 to R4, R4 G 08:12 -> H 08:20.  The walk leg ends when the rule lets the rider board
(OTP 1.x: a timed transfer takes no time, a minimum-time rule its min_transfer_time), so
the legs follow one another and ``duration = walkTime + transitTime + waitingTime``.
"""

from __future__ import annotations

import datetime as dt
import itertools
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from _fakes import Service
from _plan_fakes import serve_plan

from otpa.network import TransportNetwork, build_network
from tests.fixtures.rule_feed import write_rule_feed

pytestmark = pytest.mark.http

BERLIN = ZoneInfo("Europe/Berlin")


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    folder: Path = tmp_path_factory.mktemp("rules") / "rules"
    network: TransportNetwork = build_network(write_rule_feed(folder))
    yield from serve_plan(None, {"rules": network})


def _ms(clock: str) -> int:
    h, m = clock.split(":")
    return int(dt.datetime(2024, 3, 5, int(h), int(m), tzinfo=BERLIN).timestamp() * 1000)


def _itinerary(service: Service, a: str, b: str, clock: str, arrive_by: bool) -> dict[str, Any]:
    query = {
        "fromPlace": f"rules:{a}",
        "toPlace": f"rules:{b}",
        "date": "2024-03-05",
        "time": clock,
        "arriveBy": "true" if arrive_by else "false",
        "numItineraries": "1",
    }
    resp = service.get(f"/otp/routers/rules/plan?{urllib.parse.urlencode(query)}")
    assert resp.status == 200
    body: dict[str, Any] = resp.json()
    assert "error" not in body, body["error"]
    [it] = body["plan"]["itineraries"]
    return dict(it)


@pytest.mark.parametrize(
    ("a", "b", "walk", "walk_back", "board"),
    [
        ("A", "D", ("08:10", "08:10"), ("08:11", "08:11"), "08:11"),  # timed: no time
        ("E", "H", ("08:10", "08:11"), ("08:11", "08:12"), "08:12"),  # minimum time 60 s
    ],
)
@pytest.mark.parametrize("arrive_by", [False, True])
def test_legs_follow_one_another_across_a_rule(
    service: Service,
    a: str,
    b: str,
    walk: tuple[str, str],
    walk_back: tuple[str, str],
    board: str,
    arrive_by: bool,
) -> None:
    it = _itinerary(service, a, b, "08:30" if arrive_by else "07:55", arrive_by)
    legs = it["legs"]
    w0, w1 = walk_back if arrive_by else walk
    assert [(leg["mode"], leg["startTime"], leg["endTime"]) for leg in legs] == [
        ("BUS", _ms("08:00"), _ms("08:10")),
        ("WALK", _ms(w0), _ms(w1)),
        ("BUS", _ms(board), _ms("08:20")),
    ]
    assert all(x["endTime"] <= y["startTime"] for x, y in itertools.pairwise(legs))
    assert [leg["duration"] for leg in legs] == [
        (leg["endTime"] - leg["startTime"]) / 1000 for leg in legs
    ]
    walk_s = (_ms(w1) - _ms(w0)) // 1000
    transit_s = 600 + (_ms("08:20") - _ms(board)) // 1000
    assert (it["startTime"], it["endTime"], it["duration"]) == (_ms("08:00"), _ms("08:20"), 1200)
    assert (it["walkTime"], it["transitTime"], it["waitingTime"]) == (walk_s, transit_s, 60)
    assert it["walkTime"] + it["transitTime"] + it["waitingTime"] == it["duration"]
