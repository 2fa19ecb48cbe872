"""Validation of RAPTOR requests and transfer rules: clear errors for bad input."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from otpa.testing.timetable import parse_timetable
from otpa.transit.raptor.api import RaptorRequest, route
from otpa.transit.raptor.spi import TransferRules

TT = parse_timetable("R1 A 00:00 B 00:10 C 00:20")


def _request(**kw: object) -> RaptorRequest:
    base = {
        "access_stops": [0],
        "access_time_s": [0],
        "access_cost": [0.0],
        "egress_stops": [2],
        "egress_time_s": [0],
        "egress_cost": [0.0],
        "time": 0,
    }
    return RaptorRequest(**(base | kw))  # type: ignore[arg-type]


def test_arrays_are_coerced() -> None:
    req = _request(trip_stop_bans=[5, 1, 3])
    assert req.access_stops.dtype == np.int32
    assert req.access_cost.dtype == np.float64
    assert req.trip_stop_bans.tolist() == [1, 3, 5]
    assert req.transfer_offsets.shape == (0,)
    assert [TT.path(j) for j in route(TT.timetable, req)] == ["A ~ R1 00:00 00:20 ~ C"]


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"access_time_s": [0, 1]}, "access_time_s must have the length of access_stops"),
        ({"egress_cost": []}, "egress_cost must have the length of egress_stops"),
        ({"access_stops": [[0]]}, "access_stops must be one-dimensional"),
        ({"max_rounds": 0}, "max_rounds must be at least 1"),
        ({"board_slack_s": -1}, "board_slack_s must be non-negative"),
        ({"access_cost": [np.nan]}, "access_cost must be non-negative"),
        ({"wait_reluctance": -0.5}, "wait_reluctance must be non-negative"),
        # bounded before anything is allocated or cast to int32 (issue: a 3.45 TiB request)
        ({"max_rounds": 2**31 - 1}, "max_rounds must be non-negative and at most 32"),
        ({"access_time_s": [1e12]}, "access_time_s must be non-negative and at most 604800"),
        ({"egress_cost": [np.inf]}, "egress_cost must be non-negative and at most 1e\\+15"),
        ({"board_cost": 1e19}, "board_cost must be non-negative and at most 1e\\+15"),
        ({"time": 1 << 62}, "time must be within"),
        ({"criteria": "fast"}, "criteria must be 'arrival' or 'cost'"),
        (
            {
                "transfer_offsets": [0, 1, 1, 1],
                "transfer_to": [],
                "transfer_time_s": [],
                "transfer_cost": [],
            },
            "transfer_to must have transfer_offsets",
        ),
        (
            {"transfer_offsets": [1, 1, 1, 1]},
            "transfer_offsets must start at 0",
        ),
    ],
)
def test_bad_requests(kw: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("[", r"\[")):
        _request(**kw)


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"access_stops": [7]}, "access_stops holds stop indices outside 0..2"),
        ({"route_allowed": [1, 1]}, "route_allowed has length 2, expected 1"),
        ({"trip_allowed": []}, "trip_allowed has length 0, expected 1"),
        ({"stop_pass_allowed": [1]}, "stop_pass_allowed has length 1, expected 3"),
        (
            {
                "transfer_offsets": [0, 0, 0, 0, 0],
                "transfer_to": [],
                "transfer_time_s": [],
                "transfer_cost": [],
            },
            "transfer_offsets has length 5, expected 4",
        ),
    ],
)
def test_requests_that_do_not_fit_the_timetable(kw: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        route(TT.timetable, _request(**kw))


def test_rules_for_another_network() -> None:
    rules = TransferRules(
        key=np.asarray([0]),
        from_route=np.asarray([-1]),
        to_route=np.asarray([-1]),
        from_trip=np.asarray([-1]),
        to_trip=np.asarray([-1]),
        kind=np.asarray([3]),
        min_time_s=np.asarray([0]),
        n_stops=10,
    )
    with pytest.raises(ValueError, match="rules were built for 10 stops, the timetable has 3"):
        route(TT.timetable, _request(rules=rules))
    assert route(TT.timetable, _request(rules=dataclasses.replace(rules, n_stops=3)))


def test_bad_rules() -> None:
    args = {
        "from_route": [-1, -1],
        "to_route": [-1, -1],
        "from_trip": [-1, -1],
        "to_trip": [-1, -1],
        "min_time_s": [0, 0],
    }
    with pytest.raises(ValueError, match="key must be sorted"):
        TransferRules(key=np.asarray([5, 1]), kind=np.asarray([0, 0]), **args)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="kind must be 0, 1, 2 or 3"):
        TransferRules(key=np.asarray([1, 5]), kind=np.asarray([0, 4]), **args)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"from_route must be one-dimensional of length 1"):
        TransferRules(key=np.asarray([1]), kind=np.asarray([0]), **args)  # type: ignore[arg-type]


def test_timetable_language_errors() -> None:
    with pytest.raises(ValueError, match="times go backwards"):
        parse_timetable("R1 A 00:10 B 00:05")
    with pytest.raises(ValueError, match="overtake"):
        parse_timetable("R1 A 00:00 B 00:30\nR1 A 00:10 B 00:20")
    with pytest.raises(ValueError, match="same stops"):
        parse_timetable("R1 A 00:00 B 00:30\nR1 A 00:10 C 00:40")
    with pytest.raises(ValueError, match="bad time"):
        parse_timetable("R1 A 0010 B 00:20")
    with pytest.raises(KeyError, match="unknown stop 'Q'"):
        TT.stop("Q")


def _assert_same_fields(req: RaptorRequest, built: RaptorRequest) -> None:
    """Every field of ``req`` equals ``built``'s: same type, and arrays of the same dtype."""
    for f in dataclasses.fields(RaptorRequest):
        a, b = getattr(req, f.name), getattr(built, f.name)
        assert type(a) is type(b)
        if isinstance(a, np.ndarray):
            assert a.dtype == b.dtype
            assert a.tolist() == b.tolist()
        else:
            assert a == b


def test_with_access_swaps_only_the_access() -> None:
    base = _request(access_stops=[], access_time_s=[], access_cost=[], board_slack_s=60)
    req = base.with_access(np.array([1]), np.array([30]), np.array([45.0]))
    built = _request(access_stops=[1], access_time_s=[30], access_cost=[45.0], board_slack_s=60)
    _assert_same_fields(req, built)
    assert base.access_stops.shape == (0,)  # the base request is unchanged
    # ready at B at 00:01:30 (walk and slack): the trip leaves B at 00:10
    assert [TT.path(j) for j in route(TT.timetable, req)] == ["Access 30s ~ B ~ R1 00:10 00:20 ~ C"]
    with pytest.raises(ValueError, match="access_time_s must be non-negative"):
        base.with_access(np.array([0]), np.array([-1]), np.array([0.0]))
    with pytest.raises(ValueError, match="length of access_stops"):
        base.with_access(np.array([0, 1]), np.array([0]), np.array([0.0]))


def test_with_trip_allowed_swaps_only_the_trip_flags() -> None:
    tt = parse_timetable("R1 A 00:00 B 00:10 C 00:20\nR1 A 00:05 B 00:15 C 00:25")
    base = _request(board_slack_s=0)
    req = base.with_trip_allowed(np.array([0, 1], dtype=np.int64))
    built = _request(board_slack_s=0, trip_allowed=[0, 1])
    _assert_same_fields(req, built)
    assert base.trip_allowed is None  # the base request is unchanged
    # the first trip banned: the second one, five minutes later
    assert [tt.path(j) for j in route(tt.timetable, base)] == ["A ~ R1 00:00 00:20 ~ C"]
    assert [tt.path(j) for j in route(tt.timetable, req)] == ["A ~ R1 00:05 00:25 ~ C"]
    assert base.with_trip_allowed(None).trip_allowed is None
    with pytest.raises(ValueError, match="trip_allowed must be one-dimensional"):
        base.with_trip_allowed(np.ones((1, 2), dtype=np.uint8))
    with pytest.raises(ValueError, match="trip_allowed has length 3"):
        route(tt.timetable, base.with_trip_allowed(np.ones(3, dtype=np.uint8)))
