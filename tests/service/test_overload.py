"""Overload and time limits: bounded work pools shed with 503, requests stop at their limit.

The planner is swapped for one that blocks (``otpa.plan`` is looked up per request),
so the tests control exactly how long the heavy work runs; likewise the isochrone
computation for the analysis pool.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from _fakes import Response, Service

import otpa
from otpa.analysis import surface as analysis_surface
from otpa.routing import ItineraryPreferences, Location, PlanRequest, RequestModes, _transit_plan
from otpa.routing.deadline import deadline_passed
from otpa.routing.errors import PathNotFoundError
from otpa.testing.demo import demo_network, write_demo_city
from service.handlers import analyst_isochrones
from service.handlers.index import IndexHandler
from service.workpools import PoolFullError, WorkPool

pytestmark = pytest.mark.http

MakeService = Callable[..., Service]
PLAN = "/otp/routers/demo/plan?fromPlace=52.52,13.40&toPlace=52.53,13.41"
ISOCHRONE = "/otp/routers/demo/isochrone?fromPlace=53.2999,4.2003&cutoffSec=600"


@pytest.fixture(scope="module")
def demo() -> Any:
    return demo_network()


def _start(make_service: MakeService, demo: Any, **config: Any) -> Service:
    return make_service(graphs_dir=None, routers=(), networks={"demo": demo}, **config)


def _work(svc: Service, pool: str) -> dict[str, int]:
    return svc.get("/otp/health").json()["work"][pool]


def _wait_pending(svc: Service, pool: str, n: int) -> None:
    deadline = time.monotonic() + 10
    while _work(svc, pool)["pending"] < n:
        assert time.monotonic() < deadline, "the job never reached the pool"
        time.sleep(0.01)


class BlockingPlanner:
    """Blocks until released, then finds no path; records the requests it saw."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.requests: list[PlanRequest] = []

    def __call__(self, network: Any, request: PlanRequest) -> Any:
        self.requests.append(request)
        self.release.wait(10)
        raise PathNotFoundError("none")


@pytest.fixture
def planner(monkeypatch: pytest.MonkeyPatch) -> Iterator[BlockingPlanner]:
    blocking = BlockingPlanner()
    monkeypatch.setattr(otpa, "plan", blocking)
    yield blocking
    blocking.release.set()


def test_full_heavy_pool_sheds_with_503_while_light_requests_are_answered(
    make_service: MakeService, demo: Any, planner: BlockingPlanner
) -> None:
    svc = _start(make_service, demo, heavy_workers=1, heavy_queue=1)
    answers: list[Response] = []
    threads = [threading.Thread(target=lambda: answers.append(svc.get(PLAN))) for _ in range(2)]
    for t in threads:
        t.start()
    _wait_pending(svc, "heavy", 2)  # one running, one queued: the pool is full

    shed = svc.get(PLAN)
    assert shed.status == 503
    assert shed.header("Retry-After") == "1"
    assert shed.json()["status"] == 503
    assert "busy" in shed.json()["message"]
    # cheap requests run in the light pool: they do not queue behind the plans
    assert svc.get("/otp/routers").status == 200
    assert svc.get("/otp/routers/demo/index/routes").status == 200

    planner.release.set()
    for t in threads:
        t.join(10)
    assert [a.status for a in answers] == [200, 200]
    assert {a.json()["error"]["message"] for a in answers} == {"PATH_NOT_FOUND"}
    work = _work(svc, "heavy")
    assert (work["shed"], work["pending"], work["completed"]) == (1, 0, 2)
    assert _work(svc, "light")["shed"] == 0


def test_plans_do_not_queue_behind_analyses(
    make_service: MakeService,
    demo: Any,
    planner: BlockingPlanner,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    planner.release.set()  # plans answer at once (PATH_NOT_FOUND)
    release = threading.Event()

    def slow_isochrones(*args: Any) -> Any:
        release.wait(10)
        return {"type": "FeatureCollection", "features": []}

    monkeypatch.setattr(analyst_isochrones, "_isochrones", slow_isochrones)
    svc = _start(
        make_service, demo, heavy_workers=1, heavy_queue=1, analysis_workers=1, analysis_queue=1
    )
    answers: list[Response] = []
    threads = [
        threading.Thread(target=lambda: answers.append(svc.get(ISOCHRONE))) for _ in range(2)
    ]
    for t in threads:
        t.start()
    try:
        _wait_pending(svc, "analysis", 2)  # the analysis pool is full
        assert svc.get(ISOCHRONE).status == 503  # a third analysis is shed...
        started = time.monotonic()
        for _ in range(3):  # ...while plans, more than the heavy pool holds at once, answer
            resp = svc.get(PLAN)
            assert resp.status == 200
            assert resp.json()["error"]["message"] == "PATH_NOT_FOUND"
        assert time.monotonic() - started < 5  # promptly, not at the analyses' end
        assert _work(svc, "analysis")["pending"] == 2  # the analyses are still running
    finally:
        release.set()
        for t in threads:
            t.join(10)
    assert [a.json()["features"] for a in answers] == [[], []]
    heavy, analysis = _work(svc, "heavy"), _work(svc, "analysis")
    assert (heavy["shed"], heavy["completed"]) == (0, 3)
    assert (analysis["shed"], analysis["pending"], analysis["completed"]) == (1, 0, 2)


def test_plan_past_the_time_limit_answers_request_timeout(
    make_service: MakeService, demo: Any, planner: BlockingPlanner
) -> None:
    svc = _start(make_service, demo, request_time_limit_s=0.3)
    started = time.monotonic()
    resp = svc.get(PLAN)
    assert time.monotonic() - started < 5  # answered at the limit, not when the search ends
    assert resp.status == 200  # /plan's refusals are OTP error objects in a 200
    error = resp.json()["error"]
    assert (error["id"], error["message"]) == (408, "REQUEST_TIMEOUT")
    assert _work(svc, "heavy")["timedOut"] == 1
    # the search was told how long it had: searchTimeout capped by the time left
    assert 0 < planner.requests[0].itineraries.search_timeout_ms <= 300


def test_search_timeout_is_passed_on_and_capped(
    make_service: MakeService, demo: Any, planner: BlockingPlanner
) -> None:
    planner.release.set()
    svc = _start(make_service, demo, request_time_limit_s=20)
    svc.get(PLAN + "&searchTimeout=150")
    svc.get(PLAN + "&searchTimeout=600000")  # 10 minutes: more than the server allows
    asked = [r.itineraries.search_timeout_ms for r in planner.requests]
    assert asked[0] == 150
    assert 15_000 < asked[1] <= 20_000


def test_other_work_past_the_time_limit_answers_504(
    make_service: MakeService, demo: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()

    def slow(self: IndexHandler, *args: Any) -> Any:
        release.wait(10)
        raise AssertionError("not reached in time")

    monkeypatch.setattr(IndexHandler, "_answer", slow)
    svc = _start(make_service, demo, request_time_limit_s=0.3)
    try:
        resp = svc.get("/otp/routers/demo/index/routes")
    finally:
        release.set()
    assert resp.status == 504
    body = resp.json()
    assert body["status"] == 504
    assert "0.3 s" in body["message"]
    assert "Traceback" not in resp.text
    assert _work(svc, "light")["timedOut"] == 1


def test_search_timeout_stops_the_search_for_more_itineraries(tmp_path: Any) -> None:
    city = write_demo_city(tmp_path / "city")
    network = demo_network()
    (olat, olon), (dlat, dlon) = city.places["Westgate"], city.places["Harbour"]
    when = dt.datetime.combine(city.sample_date, dt.time(8, 0))
    def plan(**itineraries: Any) -> int:
        request = PlanRequest(
            Location(lat=olat, lon=olon),
            Location(lat=dlat, lon=dlon),
            when,
            modes=RequestModes(street=frozenset({"WALK"})),
            itineraries=ItineraryPreferences(**itineraries),
        )
        return len(otpa.plan(network, request).itineraries)

    assert plan() >= 2  # several distinct transit itineraries without a budget
    assert plan(search_timeout_ms=0) == 1  # no time left after the first search


def test_a_plan_past_the_time_limit_stops_and_frees_its_thread(
    make_service: MakeService, demo: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    # the real planner, with access and egress searches that take 0.2 s each: a 0.3 s
    # limit passes during them, so the plan must stop before its RAPTOR searches
    searches: list[int] = []
    real_find_access, real_route = _transit_plan.find_access, _transit_plan.route

    def slow_access(*args: Any, **kwargs: Any) -> Any:
        time.sleep(0.2)
        return real_find_access(*args, **kwargs)

    def route(*args: Any) -> Any:
        searches.append(1)
        return real_route(*args)

    monkeypatch.setattr(_transit_plan, "find_access", slow_access)
    monkeypatch.setattr(_transit_plan, "route", route)
    city = write_demo_city(tmp_path / "city")
    (olat, olon), (dlat, dlon) = city.places["Westgate"], city.places["Harbour"]
    query = (
        f"/otp/routers/demo/plan?fromPlace={olat},{olon}&toPlace={dlat},{dlon}"
        f"&date={city.sample_date.isoformat()}&time=8:00am&mode=WALK,TRANSIT"
    )
    svc = _start(make_service, demo, request_time_limit_s=0.3)
    resp = svc.get(query)
    assert resp.status == 200
    error = resp.json()["error"]
    assert (error["id"], error["message"]) == (408, "REQUEST_TIMEOUT")
    deadline = time.monotonic() + 10
    while (heavy := _work(svc, "heavy"))["pending"]:  # the worker thread is free again...
        assert time.monotonic() < deadline, "the search went on past its limit"
        time.sleep(0.02)
    assert heavy["stopped"] == 1  # ...because the plan stopped itself at the limit
    assert searches == []  # before its RAPTOR searches


def test_a_job_that_would_queue_past_its_time_limit_is_shed_at_once() -> None:
    pool = WorkPool("analysis", workers=1, queue=8)
    try:
        pool.submit(lambda: time.sleep(0.05)).result()  # the pool's jobs take ~0.05 s
        release = threading.Event()
        running = pool.submit(lambda: release.wait(10))  # the only thread is busy
        # behind it, a job with 10 ms left cannot finish in time: 503 now, not 504 later
        with pytest.raises(PoolFullError):
            pool.submit(lambda: 1, time_left_s=0.01)
        queued = pool.submit(lambda: 2, time_left_s=30.0)  # one with time enough waits
        no_limit = pool.submit(lambda: 3)
        release.set()
        assert (running.result(), queued.result(), no_limit.result()) == (True, 2, 3)
        assert pool.stats()["shed"] == 1
    finally:
        pool.close()


def test_before_any_job_ends_the_running_ones_tell_how_long_jobs_take() -> None:
    pool = WorkPool("analysis", workers=1, queue=8)
    try:
        release = threading.Event()
        running = pool.submit(lambda: release.wait(10))
        time.sleep(0.2)  # it has run 0.2 s: a job behind it needs at least that long
        with pytest.raises(PoolFullError):
            pool.submit(lambda: 1, time_left_s=0.1)
        release.set()
        assert running.result() is True
        assert pool.stats()["shed"] == 1
    finally:
        pool.close()


@pytest.fixture
def slow_linking(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """An analysis whose linking step lasts until its deadline; records the steps run."""
    steps: list[str] = []
    real_prepare = analysis_surface.prepare

    def prepare(*args: Any, **kwargs: Any) -> Any:
        steps.append("link")
        prep = real_prepare(*args, **kwargs)
        while not deadline_passed():  # the request's time limit passes meanwhile
            time.sleep(0.01)
        return prep

    def origin_times(*args: Any, **kwargs: Any) -> Any:
        steps.append("transit")
        raise AssertionError("the analysis went on past its time limit")

    monkeypatch.setattr(analysis_surface, "prepare", prepare)
    monkeypatch.setattr(analysis_surface, "origin_times", origin_times)
    return steps


def _wait_idle(svc: Service, pool: str) -> dict[str, int]:
    deadline = time.monotonic() + 10
    while (work := _work(svc, pool))["pending"]:
        assert time.monotonic() < deadline, "the analysis went on past its limit"
        time.sleep(0.02)
    return work


def test_an_analysis_past_the_time_limit_stops_and_answers_504(
    make_service: MakeService, demo: Any, slow_linking: list[str]
) -> None:
    svc = _start(make_service, demo, request_time_limit_s=1.0)
    resp = svc.get(ISOCHRONE)
    assert resp.status == 504
    body = resp.json()
    assert (body["status"], body["error"]) == (504, "Gateway Timeout")
    assert body["message"].startswith(
        "The analysis took longer than the server's limit of 1 s and was stopped"
    )
    assert "Traceback" not in resp.text
    analysis = _wait_idle(svc, "analysis")  # the worker thread is free again...
    assert analysis["stopped"] == 1  # ...because the analysis stopped itself at the limit
    assert slow_linking == ["link"]  # before its transit search


def test_search_timeout_limits_an_analysis(
    make_service: MakeService, demo: Any, slow_linking: list[str]
) -> None:
    svc = _start(make_service, demo, request_time_limit_s=30)
    started = time.monotonic()
    resp = svc.get(ISOCHRONE + "&searchTimeout=300")
    assert time.monotonic() - started < 10  # the request's own limit, not the server's
    assert resp.status == 504
    assert resp.json()["message"].startswith(
        "The analysis took longer than its time limit of 0.3 s (searchTimeout) and was stopped"
    )
    assert _wait_idle(svc, "analysis")["stopped"] == 1
    assert slow_linking == ["link"]
