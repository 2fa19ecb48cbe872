"""Issue 10's crashes, 500s and resource bombs, each as the exact request, on Atlanta (MARTA).

Every request gets a refusal (on ``/plan`` OTP's PlannerError in a 200, elsewhere a 4xx
JSON error) and the server keeps answering.  A hypothesis test then draws every numeric
plan parameter from the whole range of numbers (huge, tiny, negative, NaN, infinite,
5000-digit integers) and checks the same.
"""

from __future__ import annotations

import json
import socket
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest
from _analyst_helpers import ATL_QUERY, FIVE_POINTS, analyst_server, atl_query, get, tile_of
from _fakes import Service
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import service.http_limits
from otpa.network import TransportNetwork
from otpa.routing.preferences import PARAMETER_RANGES
from service.otp1.plan_params import PARAMETERS
from tests.conftest import DATA_ROOT, require_data
from tests.fixtures.networks import built_network

pytestmark = pytest.mark.http

#: The issue's plan: Five Points to Vine City / Ashby, a weekday of the feed.
PLAN = (
    "/otp/routers/atlanta/plan?fromPlace=33.7538,-84.3924&toPlace=33.7565,-84.4172"
    "&date=2021-09-16&time=8:00am"
)
HUGE = "9" * 5000


@pytest.fixture(scope="module")
def atlanta() -> TransportNetwork:
    require_data("tiny", "atlanta")
    return built_network(DATA_ROOT, "tiny/atlanta")


@pytest.fixture(scope="module")
def svc(atlanta: TransportNetwork) -> Iterator[Service]:
    with analyst_server({"atlanta": atlanta}) as service:
        yield service


def refused_plan(svc: Service, extra: str, parameter: str) -> dict[str, object]:
    """A plan refused as OTP 1.x clients read it: 200, BOGUS_PARAMETER naming ``parameter``."""
    resp = get(svc, f"{PLAN}&{extra}")
    error = resp.json()["error"]
    assert (error["id"], error["message"]) == (413, "BOGUS_PARAMETER"), error
    assert error["details"]["parameter"] == parameter, error
    return error  # type: ignore[no-any-return]


def assert_plans(svc: Service) -> None:
    """The server is alive and still plans the issue's trip (a walk, rail, a walk)."""
    body = get(svc, PLAN).json()
    assert "error" not in body, body.get("error")
    modes = [leg["mode"] for leg in body["plan"]["itineraries"][0]["legs"]]
    assert "RAIL" in modes or "SUBWAY" in modes, modes


# -- 1. the segfault -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("parameter", "value"),
    [
        ("walkReluctance", "1e19"),
        ("walkReluctance", "1e16"),
        ("waitReluctance", "1e19"),
        ("waitReluctance", "1e308"),
        ("waitAtBeginningFactor", "1e19"),
        ("waitAtBeginningFactor", "1e308"),
    ],
)
def test_cost_factor_out_of_range_is_refused(svc: Service, parameter: str, value: str) -> None:
    error = refused_plan(svc, f"{parameter}={value}", parameter)
    assert "between 0 and 1000" in str(error["details"])  # type: ignore[index]
    assert_plans(svc)


def test_largest_valid_factors_plan(svc: Service) -> None:
    """At the top of their ranges the factors still plan (the kernels hold such costs)."""
    extreme = (
        "walkReluctance=1000&waitReluctance=1000&waitAtBeginningFactor=1000"
        "&walkBoardCost=10000000&transferPenalty=10000000&maxTransfers=7"
    )
    body = get(svc, f"{PLAN}&{extreme}").json()
    assert "plan" in body or body["error"]["message"] == "PATH_NOT_FOUND"
    assert_plans(svc)


# -- 2. the memory bomb --------------------------------------------------------------------


@pytest.mark.parametrize("value", ["8", "1000000", "2147483647"])
def test_max_transfers_is_capped(svc: Service, value: str) -> None:
    error = refused_plan(svc, f"maxTransfers={value}", "maxTransfers")
    assert "between 0 and 7" in str(error["details"])  # type: ignore[index]


@pytest.mark.parametrize(
    "path",
    [
        f"/otp/routers/atlanta/isochrone?{ATL_QUERY}&cutoffSec=600",
        f"/otp/routers/atlanta/isochroneOld?{ATL_QUERY}&walkTime=10",
        f"/otp/routers/atlanta/simpleIsochrone?{ATL_QUERY}&requestTimespanHours=1",
        f"/otp/routers/atlanta/timegrid?{ATL_QUERY}&maxTimeSec=600",
        "/otp/routers/atlanta/analyst/tile/{z}/{x}/{y}.png?" + ATL_QUERY,
    ],
)
@pytest.mark.parametrize("value", ["1000000", "2147483647"])
def test_max_transfers_bomb_on_analysis_endpoints(svc: Service, path: str, value: str) -> None:
    x, y = tile_of(*FIVE_POINTS, 12)
    url = path.format(z=12, x=x, y=y) + f"&maxTransfers={value}"
    assert "maxTransfers" in get(svc, url, 400).json()["message"]


# -- 3. the other 500s ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "parameter"),
    [
        (f"numItineraries={HUGE}", "numItineraries"),
        (f"boardSlack={HUGE}", "boardSlack"),
        (f"minTransferTime=-{HUGE}", "minTransferTime"),
        (f"walkBoardCost={HUGE}", "walkBoardCost"),
        (f"searchTimeout={HUGE}", "searchTimeout"),
        (f"maxTransfers=000{HUGE}", "maxTransfers"),
        (f"intermediatePlaces=33.7538,-84.3924%20edgeId={HUGE}", "intermediatePlaces"),
        (f"intermediatePlaces=33.7538,-84.3924%20heading={HUGE}", "intermediatePlaces"),
        ("transferPenalty=-1", "transferPenalty"),
        ("nonpreferredTransferPenalty=-1", "nonpreferredTransferPenalty"),
        ("walkSpeed=1e-9", "walkSpeed"),
    ],
)
def test_plan_parameters_that_crashed(svc: Service, extra: str, parameter: str) -> None:
    refused_plan(svc, extra, parameter)


@pytest.mark.parametrize(
    ("date_time", "parameter"),
    [
        (f"date=2021-09-{HUGE}", "date"),
        (f"date={HUGE}-09-16", "date"),
        (f"date=2021-09-16&time=8:{HUGE}am", None),  # unreadable time of day: the current one
        ("date=9999-12-31&time=23:59", "date"),
        ("time=9999-12-31T23:59:59", "time"),
        ("time=0001-01-01T00:00:00%2B14:00", "time"),
    ],
)
def test_dates_out_of_range(svc: Service, date_time: str, parameter: str | None) -> None:
    base = PLAN.split("&date=")[0]
    resp = get(svc, f"{base}&{date_time}")
    error = resp.json().get("error")
    if parameter is None:
        assert error is None or error["message"] != "BOGUS_PARAMETER"
    else:
        assert error is not None
        assert (error["message"], error["details"]["parameter"]) == ("BOGUS_PARAMETER", parameter)


@pytest.mark.parametrize(
    "extra",
    ["walkSpeed=1e-9", "date=9999-12-31", "date=0001-01-01"],
)
@pytest.mark.parametrize("endpoint", ["isochrone?cutoffSec=600&", "timegrid?maxTimeSec=600&"])
def test_analysis_parameters_that_crashed(svc: Service, endpoint: str, extra: str) -> None:
    name, _, value = extra.partition("=")
    query = atl_query(**{name: value})
    assert name in get(svc, f"/otp/routers/atlanta/{endpoint}{query}", 400).json()["message"]


@pytest.mark.parametrize("date", ["9999-12-31", "0001-01-01"])
def test_rrtr_dates(svc: Service, date: str) -> None:
    lat, lon = FIVE_POINTS
    message = get(svc, f"/otp/routers/atlanta/rrtr?from={lat},{lon}&date={date}", 400).json()
    assert "date" in message["message"]


@pytest.mark.parametrize(
    "extra",
    [
        "startTime=253402300800",
        "startTime=9223372036854775807",
        "startTime=99999999999999999999",
        "timeRange=999999999999",
        "startTime=" + "9" * 400,
        "timeRange=" + "9" * 400,
        "numberOfDepartures=" + "9" * 400,
    ],
)
def test_stoptimes_parameters(svc: Service, extra: str) -> None:
    stops = get(svc, "/otp/routers/atlanta/index/stops").json()
    stop = urllib.parse.quote(stops[0]["id"])
    name = extra.partition("=")[0]
    path = f"/otp/routers/atlanta/index/stops/{stop}/stoptimes?{extra}"
    assert name in get(svc, path, 400).json()["message"]
    get(svc, f"/otp/routers/atlanta/index/stops/{stop}/stoptimes")


@pytest.mark.parametrize("size", ["width", "height"])
def test_legend_with_a_400_digit_size(svc: Service, size: str) -> None:
    resp = get(svc, f"/otp/analyst/legend.png?{size}={'9' * 400}", 400)
    assert size in resp.json()["message"]


@pytest.mark.parametrize("origin", ["90,180", "-90,-180"])
@pytest.mark.parametrize("endpoint", ["isochrone?cutoffSec=600&", "timegrid?maxTimeSec=600&"])
def test_origins_off_the_earth_grid(svc: Service, endpoint: str, origin: str) -> None:
    query = atl_query(fromPlace=origin)
    assert "fromPlace" in get(svc, f"/otp/routers/atlanta/{endpoint}{query}", 400).json()["message"]


GRAPHQL = "/otp/routers/atlanta/index/graphql"


@pytest.mark.parametrize(
    "body",
    [
        '{"query": "{ agencies { id } }", "variables": ' + "[" * 5000 + "]" * 5000 + "}",
        '{"query": "{ agencies { id } }", "variables": ' + json.dumps("[" * 5000) + "}",
        "[" * 5000 + "]" * 5000,
        '{"query": "{ agencies { id } }", "variables": {"a": ' + "[" * 100 + "]" * 100 + "}}",
    ],
)
def test_graphql_deep_json_is_400(svc: Service, body: str) -> None:
    resp = svc.request(
        "POST", GRAPHQL, body=body.encode(), headers={"Content-Type": "application/json"}
    )
    assert resp.status == 400, resp.body[:200]
    get(svc, "/otp")


def test_graphql_8_mb_body_is_413(svc: Service) -> None:
    body = b'{"query": "' + b" " * (8 * 1024**2) + b'{ agencies { id } }"}'
    resp = svc.request(
        "POST", GRAPHQL, body=body, headers={"Content-Type": "application/json"}, timeout=60
    )
    assert resp.status == 413
    assert resp.json()["status"] == 413
    ok = svc.request("POST", GRAPHQL, body=b'{"query": "{ agencies { id } }"}',
                     headers={"Content-Type": "application/json"})  # fmt: skip
    assert ok.status == 201


def test_oversized_body_with_expect_continue_is_413_at_once(svc: Service) -> None:
    """curl's ``Expect: 100-continue``: the 413 comes instead of "100 Continue"."""
    host, port = urllib.parse.urlsplit(svc.base).netloc.split(":")
    with socket.create_connection((host, int(port)), timeout=20) as sock:
        sock.sendall(
            f"POST {GRAPHQL} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {8 * 1024**2}\r\nExpect: 100-continue\r\n\r\n".encode()
        )
        answer = b""
        while chunk := sock.recv(4096):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 413 Payload Too Large\r\n"), answer[:200]
    assert b"100 (Continue)" not in answer


def test_declared_body_never_sent_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    """A GET declaring ``Content-Length: 5`` and sending nothing loses its connection."""
    monkeypatch.setattr(service.http_limits, "BODY_TIMEOUT_S", 1.0)
    with analyst_server({}) as server:
        host, port = urllib.parse.urlsplit(server.base).netloc.split(":")
        with socket.create_connection((host, int(port)), timeout=20) as sock:
            sock.sendall(b"GET /otp HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n")
            started = time.monotonic()
            assert sock.recv(1024) == b""  # closed by the server, without an answer
            assert time.monotonic() - started < 15
        assert server.get("/otp").status == 200


# -- the property test ---------------------------------------------------------------------

#: Every numeric plan parameter (OTP type Integer, Long or Double, and the percentage).
NUMERIC = sorted(
    p.name
    for p in PARAMETERS
    if p.query and (p.otp_type in ("Integer", "Long", "Double") or p.name == "minTransitDistance")
)
_ODD = [HUGE, "-" + HUGE, "0" * 5000 + "1", "1e19", "1e308", "1e-9", "1e-400", "-1", "0",
        "NaN", "nan", "Infinity", "-inf", "0x10", "1_000", "", " 3 "]  # fmt: skip
numbers = st.one_of(
    st.sampled_from(_ODD),
    st.integers(min_value=-(10**40), max_value=10**40).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.floats(min_value=-2000, max_value=2000).map(repr),
)


def test_every_numeric_parameter_has_a_documented_range() -> None:
    assert [n for n in NUMERIC if n not in PARAMETER_RANGES] == []
    docs = (Path(__file__).parents[2] / "docs" / "service.md").read_text()
    for name in PARAMETER_RANGES:
        assert f"| `{name}` |" in docs, name


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.dictionaries(st.sampled_from(NUMERIC), numbers, min_size=1, max_size=4))
def test_any_numbers_never_crash_the_planner(svc: Service, values: dict[str, str]) -> None:
    query = urllib.parse.urlencode(values)
    resp = svc.request("GET", f"{PLAN}&mode=WALK,TRANSIT&{query}", timeout=60)
    assert resp.status == 200, (values, resp.body[:300])
    body = resp.json()
    assert "plan" in body or body["error"]["message"] in (
        "BOGUS_PARAMETER", "PATH_NOT_FOUND", "NO_TRANSIT_TIMES", "TOO_CLOSE",
        "UNDERSPECIFIED_TRIANGLE", "TRIANGLE_NOT_AFFINE", "OUTSIDE_BOUNDS",
    ), (values, body["error"])  # fmt: skip
    assert get(svc, "/otp").status == 200
