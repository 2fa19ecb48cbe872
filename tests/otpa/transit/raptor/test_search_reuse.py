"""FEATURE UNDER TEST: what a plan's later searches reuse from its first one, and the
journeys built from labels.

A plan bans the trips it found and searches again with a request derived by
``RaptorRequest.with_trip_allowed``; that request keeps its parent alive, so its
preparation is reused even when the caller holds only the newest request, and the
values the searches derive from everything but the trip flags (``Prepared.shared``)
are computed once.  Journeys and legs are built without the result classes'
``__init__``: they equal the ones it builds, field for field.
"""

from __future__ import annotations

import dataclasses
import gc

import numpy as np
import pytest
from _raptor_net import SMALL_LINES

from otpa.testing.timetable import TestTimetable, parse_timetable
from otpa.transit.raptor import _prepare, api
from otpa.transit.raptor._mc_kernel import time_rates, walk_rate
from otpa.transit.raptor._prepare import prepare
from otpa.transit.raptor.api import RaptorJourney, RaptorRequest, route

_LINES = SMALL_LINES + "R4 E 08:27 D 08:50\n"


@pytest.fixture(scope="module")
def tt() -> TestTimetable:
    return parse_timetable(_LINES)


def _request(tt: TestTimetable, arrive_by: bool) -> RaptorRequest:
    time = "09:30" if arrive_by else "07:55"
    walks = [("C", "E", 120), ("E", "C", 120)]
    return tt.request("A", "D", time, arrive_by=arrive_by, criteria="cost", transfers=walks)


@pytest.mark.parametrize("arrive_by", [False, True])
def test_a_derived_request_reuses_its_dropped_parents_search(
    tt: TestTimetable, arrive_by: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    req = _request(tt, arrive_by)
    first = prepare(tt.timetable, req)
    flags = np.ones(tt.timetable.n_route_trips, np.uint8)
    flags[0] = 0
    req = req.with_trip_allowed(flags)  # the plan loop's rebinding: the parent has no name
    gc.collect()
    calls: list[object] = []
    full = _prepare._prepare

    def counted(*args: object) -> _prepare.Prepared:
        calls.append(args)
        return full(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(_prepare, "_prepare", counted)
    again = prepare(tt.timetable, req)
    assert calls == []
    assert again.query.tr_to is first.query.tr_to
    assert again.shared is first.shared  # what the searches derive, shared too
    fresh = tt.request(
        "A", "D", "09:30" if arrive_by else "07:55", arrive_by=arrive_by, criteria="cost",
        transfers=[("C", "E", 120), ("E", "C", 120)], trip_allowed=flags,
    )  # fmt: skip
    assert route(tt.timetable, req) == route(tt.timetable, fresh)


@pytest.mark.parametrize("arrive_by", [False, True])
def test_shared_values_equal_a_fresh_search(tt: TestTimetable, arrive_by: bool) -> None:
    req = _request(tt, arrive_by)
    found = route(tt.timetable, req)
    assert found
    derived = req.with_trip_allowed(None)
    p = prepare(tt.timetable, derived)  # the first search's preparation, and what it kept
    assert p.shared is not None
    assert set(p.shared) == {"last_round", "least_label", "time_rates"}
    rates = time_rates(p.query, walk_rate(req.transfer_time_s, req.transfer_cost))
    assert p.shared["time_rates"] == rates
    assert p.shared["least_label"] == api._least_label(p.query)
    last = p.shared["last_round"]
    assert last.dtype == np.int32
    assert np.array_equal(last, api._last_rounds(p, derived))
    assert route(tt.timetable, derived) == found  # read, not rebuilt: the same journeys
    assert p.shared["last_round"] is last


def _rebuilt(obj: object) -> object:
    """``obj`` built again by its class's ``__init__`` (legs in a journey too)."""
    values = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}  # type: ignore[arg-type]
    if isinstance(obj, RaptorJourney):
        values["legs"] = tuple(_rebuilt(leg) for leg in obj.legs)
    return type(obj)(**values)


@pytest.mark.parametrize("arrive_by", [False, True])
@pytest.mark.parametrize("criteria", ["arrival", "cost"])
def test_journeys_equal_the_ones_their_classes_build(
    tt: TestTimetable, arrive_by: bool, criteria: str
) -> None:
    req = dataclasses.replace(_request(tt, arrive_by), criteria=criteria)  # type: ignore[arg-type]
    journeys = route(tt.timetable, req)
    assert journeys
    for j in journeys:
        built = _rebuilt(j)
        assert j == built
        assert list(vars(j)) == list(vars(built))  # the same fields, in the same order
        for leg, other in zip(j.legs, built.legs, strict=True):  # type: ignore[attr-defined]
            assert type(leg) is type(other)
            assert list(vars(leg).items()) == list(vars(other).items())
            assert all(type(v) in (int, bool) for v in vars(leg).values())
