"""FEATURE UNDER TEST: a request that differs only in its trip flags reuses a prepared search.

``RaptorRequest.with_trip_allowed`` (a plan's later searches, the trips found banned)
prepares only the trip flags again: the query equals a full preparation, field by
field, forwards and arrive-by; another timetable, or an on-board start, prepares in full.
"""

from __future__ import annotations

import numpy as np
import pytest
from _raptor_net import SMALL_LINES

from otpa.testing.timetable import TestTimetable, parse_timetable
from otpa.transit.raptor import _prepare
from otpa.transit.raptor._onboard import OnBoard
from otpa.transit.raptor._prepare import Prepared, prepare
from otpa.transit.raptor.api import route

_LINES = SMALL_LINES


@pytest.fixture(scope="module")
def tt() -> TestTimetable:
    return parse_timetable(_LINES)


def _same(a: Prepared, b: Prepared) -> None:
    assert a.reverse == b.reverse
    assert (a.stay, a.onboard, b.stay, b.onboard) == (None, None, None, None)
    if a.edge_map is None or b.edge_map is None:
        assert a.edge_map is b.edge_map
    else:
        assert np.array_equal(a.edge_map, b.edge_map)
    pairs = [*zip(a.timetable, b.timetable, strict=True), *zip(a.query, b.query, strict=True)]
    for name, (x, y) in zip([*a.timetable._fields, *a.query._fields], pairs, strict=True):
        if isinstance(x, np.ndarray):
            assert isinstance(y, np.ndarray), name
            assert x.dtype == y.dtype, name
            assert np.array_equal(x, y), name
            assert x.flags.writeable == y.flags.writeable, name
        else:
            assert x == y, name


@pytest.mark.parametrize("arrive_by", [False, True])
def test_a_request_with_other_trips_prepares_as_a_new_one(
    tt: TestTimetable, arrive_by: bool
) -> None:
    time = "09:30" if arrive_by else "07:55"
    req = tt.request("A", "D", time, arrive_by=arrive_by, criteria="cost")
    first = prepare(tt.timetable, req)
    n_trips = tt.timetable.n_route_trips
    for flags in (np.ones(n_trips, np.uint8), np.r_[0, np.ones(n_trips - 1, np.uint8)], None):
        other = req.with_trip_allowed(flags)
        reused = prepare(tt.timetable, other)
        assert reused.query.tr_to is first.query.tr_to  # built from the first search
        _same(reused, _prepare._prepare(tt.timetable, other, None))
        assert route(tt.timetable, other) == route(
            tt.timetable, tt.request("A", "D", time, arrive_by=arrive_by, criteria="cost",
                                     trip_allowed=flags)
        )  # fmt: skip
        again = other.with_trip_allowed(np.zeros(n_trips, np.uint8))  # derived twice
        _same(prepare(tt.timetable, again), _prepare._prepare(tt.timetable, again, None))


def test_a_wrong_length_of_trip_flags_is_refused(tt: TestTimetable) -> None:
    req = tt.request("A", "D", "07:55")
    prepare(tt.timetable, req)
    with pytest.raises(ValueError, match="trip_allowed"):
        prepare(tt.timetable, req.with_trip_allowed(np.ones(2, np.uint8)))


def test_another_timetable_or_an_onboard_start_prepares_in_full(
    tt: TestTimetable, monkeypatch: pytest.MonkeyPatch
) -> None:
    req = tt.request("A", "D", "07:55")
    prepare(tt.timetable, req)
    other_tt = parse_timetable(_LINES).timetable
    calls: list[object] = []
    full = _prepare._prepare

    def counted(*args: object) -> Prepared:
        calls.append(args)
        return full(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(_prepare, "_prepare", counted)
    prepare(other_tt, req.with_trip_allowed(None))
    assert len(calls) == 1
    onboard = tt.request("A", "D", "08:05", onboard=OnBoard(0, 1, 0))
    prepare(tt.timetable, onboard)
    prepare(tt.timetable, onboard.with_trip_allowed(None))
    assert len(calls) == 3
