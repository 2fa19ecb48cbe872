"""``/otp/routers/{id}/profile`` and ``/rrtr`` over real HTTP, on the Atlanta network.

FEATURE UNDER TEST: OTP 1.x's profile response (options, segments, street segments,
stats) with values computed from the GTFS text (the helpers of
``tests/otpa/analysis/test_profile.py``); every bad parameter is a 400 naming it;
``analyst=true`` fills the analyst API's surface store; ``/rrtr`` reports repeated
against range RAPTOR as JSON.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from _fakes import Service

from otpa.index import TransitIndex
from otpa.network import TransportNetwork
from otpa.util.polyline import decode_polyline
from tests.fixtures.networks import built_network
from tests.otpa.analysis.otp1.test_profile import EIGHT, NINE, Feed, follow, stats

pytestmark = pytest.mark.http

PROFILE = "/otp/routers/atlanta/profile"
WEST_LAKE, ASHBY = "33.753326,-84.445330", "33.756477,-84.41723"
FIVE_POINTS = "33.753838,-84.391396"
WINDOW = "date=2021-09-15&startTime=8:00&endTime=09:00"


@pytest.fixture(scope="module")
def atlanta(data_root: Path) -> TransportNetwork:
    return built_network(data_root, "tiny/atlanta")


@pytest.fixture(scope="module")
def feed_text() -> Feed:
    from tests.conftest import require_data

    return Feed(require_data("tiny", "atlanta", "atlanta-blue-green-line.gtfs.zip"))


@pytest.fixture
def svc(make_service: Any, atlanta: TransportNetwork) -> Service:
    service: Service = make_service(networks={"atlanta": atlanta}, graphs_dir=None)
    return service


def _stats(values: list[int]) -> dict[str, int]:
    return asdict(stats(values))


def test_profile_between_two_stations(
    svc: Service, atlanta: TransportNetwork, feed_text: Feed
) -> None:
    resp = svc.get(
        f"{PROFILE}?from={WEST_LAKE}&to={ASHBY}&{WINDOW}&accessModes=WALK&directModes=WALK"
    )
    assert resp.status == 200, resp.text
    assert resp.header("Content-Type") == "application/json"
    transit, direct = resp.json()["options"]
    assert sorted(transit) == ["access", "egress", "stats", "summary", "transit"]
    (seg,) = transit["transit"]
    feed = "atlanta-blue-green-line"
    blue = f"{feed}:{feed_text.routes['BLUE']}"
    assert (seg["from"], seg["to"], seg["fromName"], seg["toName"], seg["mode"]) == (
        f"{feed}:28", f"{feed}:485", "WEST LAKE STATION", "ASHBY STATION", "SUBWAY",
    )  # fmt: skip
    assert (seg["walkTime"], seg["walkDistance"]) == (0, 0)
    (route,) = seg["routes"]
    assert (route["id"], route["shortName"], route["mode"]) == (blue, "BLUE", "SUBWAY")
    assert route["agencyName"] == "Metropolitan Atlanta Rapid Transit Authority"
    (access,), (egress,) = transit["access"], transit["egress"]
    assert (access["mode"], egress["mode"]) == ("WALK", "WALK")
    samples = [
        follow(feed_text, feed_text.routes["BLUE"], "28", "485", t, access["time"], egress["time"])
        for t in range(EIGHT, NINE, 60)
    ]
    found = [s for s in samples if s is not None]
    assert len(found) == 60
    assert transit["stats"] == _stats([s.total for s in found])
    assert seg["waitStats"] == _stats([s.wait for s in found])
    assert seg["rideStats"] == _stats([s.ride for s in found]) == {
        "min": 180, "avg": 180, "max": 180, "num": 60,
    }  # fmt: skip
    index = TransitIndex.of(atlanta)
    runs: dict[tuple[str, int, int], set[str]] = {}
    for s in found:
        pattern = index.get_trip(f"{feed}:{s.run.run_id}").pattern_id
        runs.setdefault((str(pattern), s.board_pos, s.alight_pos), set()).add(s.run.run_id)
    expected = [
        {"patternId": p, "fromIndex": i, "toIndex": j, "nTrips": len(r)}
        for (p, i, j), r in sorted(runs.items(), key=lambda kv: -len(kv[1]))
    ]
    assert seg["segmentPatterns"] == expected
    assert transit["summary"] == "routes BLUE"
    # the option without transit: the planner's walk, edge by edge with the walk steps
    assert "transit" not in direct
    assert "egress" not in direct
    assert direct["summary"] == "Non-transit options"
    (walk,) = direct["access"]
    assert walk["mode"] == "WALK"
    assert direct["stats"] == {"min": walk["time"], "avg": walk["time"], "max": walk["time"],
                               "num": 1}  # fmt: skip
    edges = walk["streetEdges"]
    assert edges[0]["relativeDirection"] == "DEPART"
    assert "streetName" in edges[0]
    for edge in edges:
        assert isinstance(edge["edgeId"], int)
        assert isinstance(edge["distance"], int)
        lats, _ = decode_polyline(edge["geometry"]["points"])
        assert len(lats) == edge["geometry"]["length"] >= 2


def test_defaults_today_and_unknown_router(svc: Service) -> None:
    # today is outside MARTA's 2021 feed: no transit, only the street trips
    resp = svc.get(f"{PROFILE}?from={FIVE_POINTS}&to={ASHBY}")
    assert resp.status == 200
    options = resp.json()["options"]
    assert [o["summary"] for o in options] == ["Non-transit options"]
    assert [a["mode"] for a in options[0]["access"]] == ["WALK", "BICYCLE"]
    # to defaults to from: OTP's analyst convention; the trip is then empty of transit
    assert svc.get(f"{PROFILE}?from={FIVE_POINTS}").status == 200
    assert svc.get("/otp/routers/nowhere/profile?from=1,2").status == 404


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("", "from"),
        ("from=abc", "from"),
        ("from=91,0", "from"),
        (f"from={FIVE_POINTS}&to=1,2,3", "to"),
        (f"from=10,10&to={ASHBY}", "from"),
        (f"from={FIVE_POINTS}&walkSpeed=9", "walkSpeed"),
        (f"from={FIVE_POINTS}&walkSpeed=fast", "walkSpeed"),
        (f"from={FIVE_POINTS}&bikeSpeed=0.5", "bikeSpeed"),
        (f"from={FIVE_POINTS}&carSpeed=40", "carSpeed"),
        (f"from={FIVE_POINTS}&streetTime=0", "streetTime"),
        (f"from={FIVE_POINTS}&maxWalkTime=481", "maxWalkTime"),
        (f"from={FIVE_POINTS}&maxBikeTime=1.5", "maxBikeTime"),
        (f"from={FIVE_POINTS}&minCarTime=31", "minCarTime"),
        (f"from={FIVE_POINTS}&maxBikeTime=5&minBikeTime=6", "minBikeTime"),
        (f"from={FIVE_POINTS}&suboptimal=31", "suboptimal"),
        (f"from={FIVE_POINTS}&limit=-1", "limit"),
        (f"from={FIVE_POINTS}&orderBy=FASTEST", "orderBy"),
        (f"from={FIVE_POINTS}&bikeSafe=1001", "bikeSafe"),
        (f"from={FIVE_POINTS}&bikeSafe=0&bikeSlope=0&bikeTime=0", "bikeSafe"),
        (f"from={FIVE_POINTS}&accessModes=BICYCLE_RENT", "accessModes"),
        (f"from={FIVE_POINTS}&egressModes=TELEPORT", "egressModes"),
        (f"from={FIVE_POINTS}&directModes=WALK,SUBWAY", "directModes"),
        (f"from={FIVE_POINTS}&transitModes=HOVERCRAFT", "transitModes"),
        (f"from={FIVE_POINTS}&date=2021-13-01", "date"),
        (f"from={FIVE_POINTS}&date=1999-12-31", "date"),
        (f"from={FIVE_POINTS}&date=yesterday", "date"),
        (f"from={FIVE_POINTS}&startTime=8h", "startTime"),
        (f"from={FIVE_POINTS}&endTime=08:61", "endTime"),
        (f"from={FIVE_POINTS}&startTime=9:00&endTime=8:00", "endTime"),
        (f"from={FIVE_POINTS}&startTime=6:00&endTime=10:00", "startTime to endTime"),
        (f"from={FIVE_POINTS}&analyst=maybe", "analyst"),
        (
            f"from={FIVE_POINTS}&startTime=6:00&endTime=8:30&accessModes=WALK,BICYCLE,CAR"
            "&egressModes=WALK,BICYCLE",
            "accessModes, egressModes",
        ),
    ],
)
def test_bad_parameters_are_400_naming_them(svc: Service, query: str, name: str) -> None:
    resp = svc.get(f"{PROFILE}?{query}")
    assert resp.status == 400, resp.text
    body = resp.json()
    assert (body["status"], body["error"]) == (400, "Bad Request")
    assert name in body["message"]


def test_analyst_mode_stores_min_avg_max_surfaces(svc: Service) -> None:
    query = f"{PROFILE}?from={FIVE_POINTS}&date=2021-09-15&startTime=08:00&endTime=08:10"
    resp = svc.get(f"{query}&analyst=true&precisionMeters=400")
    assert resp.status == 200, resp.text
    ids = resp.json()
    assert sorted(ids) == ["avg", "max", "min"]
    assert len(set(ids.values())) == 3
    for name, sid in ids.items():
        surface = svc.get(f"/otp/surfaces/{sid}")
        assert surface.status == 200
        assert surface.json()["id"] == sid
        assert surface.json()["params"]["statistic"] == name
        contours = svc.get(f"/otp/surfaces/{sid}/isochrone?spacing=10&nMax=2")
        assert contours.status == 200
        assert contours.json()["type"] == "FeatureCollection"
    listed = {s["id"] for s in svc.get("/otp/surfaces").json()}
    assert set(ids.values()) <= listed
    too_long = svc.get(f"{PROFILE}?from={FIVE_POINTS}&startTime=07:00&endTime=09:00&analyst=true")
    assert too_long.status == 400
    assert "startTime, endTime" in too_long.json()["message"]
    fine_grid = svc.get(f"{query}&analyst=true&precisionMeters=5")
    assert fine_grid.status == 400
    assert "precisionMeters" in fine_grid.json()["message"]


def test_rrtr_reports_repeated_and_range_raptor(svc: Service, atlanta: TransportNetwork) -> None:
    resp = svc.get("/otp/routers/atlanta/rrtr?fromStop=atlanta-blue-green-line:797")
    assert resp.status == 200, resp.text
    report = resp.json()
    assert report["routerId"] == "atlanta"
    assert (report["startTime"], report["endTime"], report["departures"]) == ("08:00", "09:00", 60)
    assert report["compared"] == 60 * atlanta.transit.n_stops
    assert report["agree"] is True
    assert report["agreeing"] == report["compared"]
    assert "firstDifference" not in report
    assert report["repeatedRaptorMs"] >= 0
    assert report["rangeRaptorMs"] >= 0
    dated = svc.get(f"/otp/routers/atlanta/rrtr?from={FIVE_POINTS}&date=2021-09-15").json()
    assert dated["date"] == "2021-09-15"
    assert dated["agree"] is True
    assert svc.get("/otp/routers/atlanta/rrtr").status == 400
    assert svc.get("/otp/routers/atlanta/rrtr?fromStop=atlanta-blue-green-line:nope").status == 404
    assert svc.get(f"/otp/routers/atlanta/rrtr?from={FIVE_POINTS}&date=15.9.2021").status == 400
    assert svc.get("/otp/routers/atlanta/rrtr?from=10,10").status == 400
