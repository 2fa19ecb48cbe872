"""Wheelchair accessibility costs from router-config and ``accessibilityScore`` on the wire."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest
from _plan_fakes import PLAN, TZ

from otpa.routing import AccessibilityPreferences, WheelchairPreferences
from service.otp1.plan_params import RoutingDefaults, plan_request_from_query
from service.otp1.plan_response import itinerary_json

NOW = dt.datetime(2026, 3, 4, 8, 0, tzinfo=dt.UTC)
QUERY = {"fromPlace": ["53.30,4.20"], "toPlace": ["53.31,4.22"], "wheelchair": ["true"]}


def test_otp2_defaults_prefer_accessible_trips_and_stops() -> None:
    wheel = plan_request_from_query(QUERY, time_zone="UTC", now=NOW).wheelchair
    assert wheel.enabled
    # OTP 2's costs: 600 s unknown, 3600 s inaccessible (elevators 20 s / 3600 s)
    assert wheel.trip == wheel.stop == AccessibilityPreferences(False, 600.0, 3600.0)
    assert wheel.elevator == AccessibilityPreferences(False, 20.0, 3600.0)


def test_router_config_wheelchair_accessibility() -> None:
    config = {
        "walkSpeed": 1.2,
        "wheelchairAccessibility": {
            "trip": {"onlyConsiderAccessible": True},
            "stop": {"unknownCost": 100, "inaccessibleCost": 7200},
        },
    }
    defaults = RoutingDefaults.from_router_config(config)
    assert defaults.ignored == ()
    # elevator costs apply to wheelchair walks through OSM elevator nodes
    with_elevator = {"wheelchairAccessibility": {"elevator": {"unknownCost": 30}}}
    elevator_defaults = RoutingDefaults.from_router_config(with_elevator)
    assert elevator_defaults.ignored == ()
    elevator_request = plan_request_from_query(
        QUERY, time_zone="UTC", now=NOW, defaults=elevator_defaults
    )
    assert elevator_request.wheelchair.elevator == AccessibilityPreferences(False, 30.0, 3600.0)
    request = plan_request_from_query(QUERY, time_zone="UTC", now=NOW, defaults=defaults)
    assert request.walk.speed_mps == 1.2
    assert request.wheelchair == WheelchairPreferences(
        enabled=True,
        trip=AccessibilityPreferences(True, 600.0, 3600.0),
        stop=AccessibilityPreferences(False, 100.0, 7200.0),
    )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([], "wheelchairAccessibility must be a JSON object"),
        ({"trip": 1}, "wheelchairAccessibility.trip must be a JSON object"),
        ({"stop": {"onlyConsiderAccessible": "yes"}}, "stop.onlyConsiderAccessible"),
        ({"elevator": {"unknownCost": -1}}, "elevator.unknownCost"),
    ],
)
def test_bad_wheelchair_accessibility_config(value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        RoutingDefaults.from_router_config({"wheelchairAccessibility": value})


def test_itinerary_accessibility_score_only_for_wheelchair_requests() -> None:
    itinerary = dataclasses.replace(PLAN.itineraries[0], accessibility_score=0.5)
    plain = plan_request_from_query({**QUERY, "wheelchair": ["false"]}, time_zone="UTC", now=NOW)
    chair = plan_request_from_query(QUERY, time_zone="UTC", now=NOW)
    assert "accessibilityScore" not in itinerary_json(itinerary, plain, TZ)
    assert itinerary_json(itinerary, chair, TZ)["accessibilityScore"] == 0.5
