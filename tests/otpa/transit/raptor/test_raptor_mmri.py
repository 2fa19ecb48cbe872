"""The MMRI transit cases of OpenTripPlanner 1.x (``src/test/java/org/opentripplanner/mmri``).

Expected legs are OTP 1.x's (unix times from its tests).  The requests mirror
its ``GtfsTest.plan``: walkBoardCost 30, waitReluctance 1, maxTransfers 2,
transfers.txt as the only walking paths between stops (no street network:
``TransferEdge``s of ``min_transfer_time`` seconds, or one second per metre),
``bannedStopsHard`` for excluded stops; OTP returns its cheapest itinerary,
so the cheapest journey of the "cost" search is compared.
"""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np
import pytest
from _raptor_net import csr, point_request, stop_index, transit_legs

from otpa.network import TransportNetwork
from otpa.transit.raptor.api import TransferLeg, route
from otpa.transit.raptor_data import raptor_timetable, transfer_rules
from tests.conftest import require_data
from tests.fixtures.networks import built_network

TZ = "Europe/Amsterdam"


def _rule_walks(net: TransportNetwork) -> list[tuple[int, int, int]]:
    """OTP 1.x TransferGraphLinker: one edge per transfers.txt pair that is not forbidden."""
    m = net.transit
    edges = []
    lat, lon = m.stops["lat"].to_numpy(), m.stops["lon"].to_numpy()
    for row in m.transfer_rules.itertuples():
        a, b = int(row.from_stop), int(row.to_stop)
        if a == b or row.transfer_type == 3:
            continue
        if row.transfer_type == 2:
            secs = int(row.min_transfer_time)
        else:
            p1, p2 = math.radians(lat[a]), math.radians(lat[b])
            h = (
                math.sin((p2 - p1) / 2) ** 2
                + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lon[b] - lon[a]) / 2) ** 2
            )
            secs = int(2 * 6371010 * math.asin(math.sqrt(h)))
        edges.append((a, b, secs))
    return edges


def plan(
    case: str,
    when: int,
    origin: str,
    destination: str,
    *,
    banned_route: str | None = None,
    banned_stop: str | None = None,
    transfer_penalty: float = 0.0,
) -> tuple[list[tuple[int, int, str, str]], bool]:
    """OTP 1.x ``plan(dateTime, from, to, ...)``: negative times are arrive-by.

    Returns the rides of the cheapest journey as ``(start, end, from, to)`` in unix
    seconds, and whether it walks between rides.
    """
    net = built_network(require_data("tiny", "mmri").parent.parent, f"tiny/mmri/{case}")
    m = net.transit
    arrive_by, when = when < 0, abs(when)
    date = dt.datetime.fromtimestamp(when, ZoneInfo(TZ)).date()
    tt = raptor_timetable(m, date, TZ)
    o, d = stop_index(m, origin), stop_index(m, destination)
    walks = _rule_walks(net)
    access = {o: 0} | {b: s for a, b, s in walks if a == o}
    egress = {d: 0} | {a: s for a, b, s in walks if b == d}
    route_allowed = None
    if banned_route is not None:
        raw = m.routes["raw_id"].astype(str).to_numpy()
        gtfs_route = np.asarray(tt.route_gtfs_route)
        route_allowed = (raw[gtfs_route] != banned_route).astype(np.uint8)
    stop_pass = None
    if banned_stop is not None:
        stop_pass = np.ones(m.n_stops, np.uint8)
        stop_pass[stop_index(m, banned_stop)] = 0
    req = point_request(
        access,
        egress,
        when - tt.epoch,
        arrive_by=arrive_by,
        max_rounds=3,
        board_cost=30.0,
        wait_reluctance=1.0,
        transfer_penalty=transfer_penalty,
        rules=transfer_rules(m),
        route_allowed=route_allowed,
        stop_pass_allowed=stop_pass,
        criteria="cost",
        **csr(m.n_stops, walks),
    )
    journeys = route(tt, req)
    assert journeys, "no journey"
    best = min(journeys, key=lambda j: j.cost)
    legs = [(s + tt.epoch, e + tt.epoch, a, b) for s, e, a, b in transit_legs(tt, m, best)]
    walks_between = any(isinstance(leg, TransferLeg) for leg in best.legs)
    return legs, walks_between


# 2014-01-01 00:00 in Amsterdam
T0 = 1388530800


def m(minutes: int) -> int:
    return T0 + 60 * minutes


@pytest.fixture(autouse=True)
def _data(data_root: Path) -> None:
    require_data("tiny", "mmri")


def test_1a1_all_modes_and_agencies() -> None:
    legs, walked = plan("1a", T0, "1a1", "1a6")
    assert legs == [
        (m(1), m(2), "1a1", "1a2"),
        (m(3), m(4), "1a3", "1a4"),
        (m(5), m(6), "1a5", "1a6"),
    ]
    assert walked


@pytest.mark.parametrize(
    ("when", "expected"),
    [
        (+1388530920, (1388530980, 1388531040)),  # 1g1
        (-1388530980, (1388530860, 1388530920)),  # 1g2: arrive by
        (+1388617380, (1388703660, 1388703720)),  # 1g3: no service on Jan 2
        (-1388617440, (1388531100, 1388531160)),  # 1g4: back to Jan 1
        (+1388703780, (1388703780, 1388703840)),  # 1g5
        (-1388703840, (1388703780, 1388703840)),  # 1g6
    ],
)
def test_1g_time(when: int, expected: tuple[int, int]) -> None:
    legs, _ = plan("1g", when, "1g1", "1g2")
    assert legs == [(*expected, "1g1", "1g2")]


def test_2a1_optimization() -> None:
    assert plan("2a1", m(1), "2a1", "2a2")[0] == [(m(1), m(2), "2a1", "2a2")]
    assert plan("2a1", m(3), "2a1", "2a2")[0] == [(m(5), m(6), "2a1", "2a2")]


@pytest.mark.parametrize(
    ("when", "first", "last"),
    [
        (+m(1), (m(1), m(2)), (m(8), m(9))),  # 2a3
        (+m(2), (m(4), m(5)), (m(10), m(11))),  # 2a4
        (-m(11), (m(4), m(5)), (m(10), m(11))),  # 2a5: arrive by
    ],
)
def test_2a2_transfer_time(when: int, first: tuple[int, int], last: tuple[int, int]) -> None:
    legs, walked = plan("2a2", when, "2a3", "2a6")
    assert legs == [(*first, "2a3", "2a4"), (*last, "2a5", "2a6")]
    assert walked


def test_2c_preferences() -> None:
    legs, _ = plan("2c", m(1), "2c1", "2c3")
    assert legs == [(m(1), m(2), "2c1", "2c2"), (m(3), m(4), "2c2", "2c3")]
    # preferLeastTransfers: transferPenalty 300 makes the walk-bus-walk cheaper
    legs, _ = plan("2c", m(1), "2c1", "2c3", transfer_penalty=300.0)
    assert legs == [(m(2), m(6), "2c4", "2c5")]


def test_2d_stop_to_stop_timed_transfer() -> None:
    legs, _ = plan("2d", m(1), "2d1", "2d4")
    assert legs == [(m(1), m(3), "2d1", "2d3"), (m(3), m(4), "2d3", "2d4")]


@pytest.mark.parametrize(
    ("case", "at"),
    [
        ("2e1", "2e13"),  # first preferred (timed) transfer
        ("2e2", "2e24"),  # second preferred (timed) transfer
        ("2e3", "2e34"),  # first transfer stop forbidden
        ("2e4", "2e43"),  # second transfer stop forbidden
        ("3g1", "3g14"),  # first transfer stop forbidden (unpreferred)
        ("3g2", "3g23"),  # second transfer stop forbidden (unpreferred)
    ],
)
def test_transfer_preferences(case: str, at: str) -> None:
    first, second = f"{case}1", f"{case}6"
    legs, _ = plan(case, m(1), first, second)
    leaves_first = m(2) if at.endswith("3") else m(3)
    assert legs == [(m(1), leaves_first, first, at), (leaves_first + 60, m(5), at, second)]


def test_3d_excluded_route() -> None:
    assert plan("3d", m(1), "3d1", "3d2", banned_route="3d|1")[0] == [(m(1), m(3), "3d1", "3d2")]


def test_3f_excluded_stop() -> None:
    assert plan("3f", m(1), "3f1", "3f3")[0] == [(m(1), m(3), "3f1", "3f3")]
    assert plan("3f", m(1), "3f1", "3f3", banned_stop="3f2")[0] == [(m(1), m(4), "3f1", "3f3")]
