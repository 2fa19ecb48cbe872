"""The analyst endpoints read every plan parameter into the analysis request's preferences.

``service.analyst.params.analysis_request_for`` hands the plan's
:class:`~otpa.routing.RoutingPreferences` to the analysis whole: the parameters that
were once read and dropped (``alightSlack``, ``minTransferTime``, ``walkReluctance``,
``maxSlope``, ``optimize`` and the triangle) reach the plan request the analysis
searches with (tests/otpa/analysis/test_preferences_agree.py shows they then mean
what they mean for ``/plan``).
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from otpa.routing import Optimize, PlanRequest, TriangleFactors
from service.analyst.params import analysis_request_for
from service.otp1.errors import ApiError
from service.otp1.plan_params import plan_request_from_query

TZ = "America/New_York"
NOW = dt.datetime(2021, 9, 15, 8, 0, tzinfo=ZoneInfo(TZ))


def _plan(**params: str) -> PlanRequest:
    query = {"fromPlace": ["33.7585,-84.4043"], **{k: [v] for k, v in params.items()}}
    return plan_request_from_query(query, time_zone=TZ, now=NOW)


def test_every_preference_reaches_the_analysis() -> None:
    plan = _plan(
        mode="BICYCLE,TRANSIT",
        alightSlack="120",
        boardSlack="60",
        minTransferTime="600",
        walkReluctance="5",
        wheelchair="true",
        maxSlope="0.05",
        optimize="TRIANGLE",
        triangleSafetyFactor="0.5",
        triangleSlopeFactor="0.2",
        triangleTimeFactor="0.3",
        bannedRoutes="MARTA__BLUE",
        walkSpeed="1.2",
    )
    request = analysis_request_for(plan, modes="BICYCLE,TRANSIT", max_time_s=3600)
    assert request.preferences == plan.preferences
    searched = request.plan_request()
    assert searched.transit.alight_slack_s == 120
    assert searched.transit.min_transfer_time_s == 600
    assert searched.walk.reluctance == 5.0
    assert searched.walk.speed_mps == 1.2
    assert searched.wheelchair.enabled
    assert searched.wheelchair.max_slope == 0.05
    assert searched.bike.optimize is Optimize.TRIANGLE
    assert searched.bike.triangle == TriangleFactors(0.5, 0.2, 0.3)
    assert searched.filters == plan.filters
    assert searched.filters.banned_routes
    # what only an analysis has: a hard access limit; only accessible trips and stops
    assert searched.walk.soft_limit is False
    assert searched.wheelchair.trip.only_consider_accessible
    assert searched.wheelchair.stop.only_consider_accessible


def test_an_unusable_analysis_is_a_400() -> None:
    with pytest.raises(ApiError) as caught:
        analysis_request_for(_plan(), modes="WALK,TRANSIT", max_time_s=0)
    assert caught.value.status_code == 400
    assert "max_time" in str(caught.value)
