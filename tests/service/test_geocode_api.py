"""Geocoding over HTTP: the router geocoder, /geocode backends, the municoder, named plan places."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import shutil
import threading
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tornado.web
from _fakes import Service

from otpa.geocode import Municipality, MunicipalityIndex
from otpa.network import TransportNetwork
from tests.conftest import require_data
from tests.fixtures.networks import built_network

pytestmark = [pytest.mark.http]

#: A box around central Atlanta (the municoder's boundary in these tests).
ATLANTA_BOX = {
    "type": "Polygon",
    "coordinates": [[[-84.6, 33.6], [-84.2, 33.6], [-84.2, 33.9], [-84.6, 33.9], [-84.6, 33.6]]],
}


@pytest.fixture(scope="module")
def atlanta_graphs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    net = built_network(require_data(), "tiny/atlanta")
    net = dataclasses.replace(
        net, municipalities=MunicipalityIndex([Municipality("Atlanta", ATLANTA_BOX, 8)])
    )
    base = tmp_path_factory.mktemp("geo-graphs") / "graphs"
    net.save(base / "atlanta" / "graph")
    return base


@pytest.fixture
def atl(make_service: Any, atlanta_graphs: Path, tmp_path: Path) -> Service:
    graphs = shutil.copytree(atlanta_graphs, tmp_path / "geo-graphs")
    return make_service(loader=None, graphs_dir=graphs)


def q(**params: str) -> str:
    return urllib.parse.urlencode(params)


def test_web_client_autocomplete_request(atl: Service) -> None:
    # the OTP 1.x web client's start/end field
    resp = atl.get("/otp/routers/default/geocode?" + q(query="ashby st", autocomplete="true"))
    assert resp.status == 200
    found = resp.json()
    assert 0 < len(found) <= 10
    assert found[0]["description"] in {"stop ASHBY STATION (908963)", "stop ASHBY STATION (908964)"}
    assert set(found[0]) == {"lat", "lng", "description", "id"}
    assert found[0]["id"].startswith("atlanta-blue-green-line:")


def test_stop_finder_shape_and_switches(atl: Service) -> None:
    base = "/otp/routers/atlanta/geocode?"
    stops_only = atl.get(base + q(query="Woodruff Park", corners="false")).json()
    assert all(r["description"].startswith("stop ") for r in stops_only)
    place = atl.get(base + q(query="woodruf park")).json()[0]  # misspelled
    assert place["description"] == "place Woodruff Park"
    assert "id" not in place
    corner = atl.get(
        base + q(query="Forsyth Street Southwest & Alabama Street Southwest", stops="false")
    ).json()[0]
    assert corner["description"] == "corner Alabama Street Southwest & Forsyth Street Southwest"
    by_code = atl.get(base + q(query="908963")).json()
    assert [r["description"] for r in by_code] == ["stop ASHBY STATION (908963)"]


@pytest.mark.parametrize(
    ("params", "status", "text"),
    [
        ({}, 400, "query is required"),
        ({"query": "   "}, 400, "query is required"),
        ({"query": "x" * 10_000}, 400, "longer than"),
        ({"query": "ashby", "autocomplete": "maybe"}, 400, "not a boolean"),
    ],
)
def test_router_geocode_bad_input(
    atl: Service, params: dict[str, str], status: int, text: str
) -> None:
    resp = atl.get("/otp/routers/default/geocode?" + q(**params))
    assert resp.status == status
    assert text in resp.json()["message"]


def test_unknown_router_404(atl: Service) -> None:
    assert atl.get("/otp/routers/nowhere/geocode?query=x").status == 404


# -- external geocoder ---------------------------------------------------------------------------


def test_external_builtin_backend(atl: Service) -> None:
    body = atl.get("/otp/geocode?" + q(address="Woodruff Park")).json()
    assert body["count"] == len(body["results"]) >= 1
    assert body["results"][0]["description"] == "Woodruff Park"
    assert set(body["results"][0]) == {"lat", "lng", "description"}
    outside = atl.get("/otp/geocode?" + q(address="Woodruff Park", bbox="40,-75,41,-74")).json()
    assert outside == {"results": [], "count": 0}


@pytest.mark.parametrize(
    ("params", "text"),
    [
        ({}, "no address"),
        ({"address": "Woodruff Park", "bbox": "33,-84,95,-83"}, "bad bbox"),
        ({"address": "Woodruff Park", "bbox": "34,-84,33,-83"}, "bad bbox"),
        ({"address": "Woodruff Park", "bbox": "a,b,c,d"}, "bad bbox"),
        ({"address": "Woodruff Park", "bbox": "1,2,3"}, "bad bbox"),
    ],
)
def test_external_bad_input(atl: Service, params: dict[str, str], text: str) -> None:
    resp = atl.get("/otp/geocode?" + q(**params))
    assert resp.status == 400
    assert text in resp.json()["message"]


class _FakeApi(tornado.web.RequestHandler):
    """Answers like Nominatim (/search) or Pelias (/v1/search); records the query."""

    def initialize(self, seen: list[dict[str, list[str]]], mode: str) -> None:
        self.seen, self.mode = seen, mode

    def get(self) -> None:
        args = {k: [v.decode() for v in vs] for k, vs in self.request.arguments.items()}
        self.seen.append({"path": [self.request.path], **args})
        if self.mode == "error":
            self.set_status(503)
            self.finish("overloaded")
        elif self.mode == "garbage":
            self.finish("<html>not json</html>")
        elif self.request.path == "/search":
            self.finish(
                json.dumps(
                    [
                        {
                            "lat": "49.4094",
                            "lon": "8.6937",
                            "display_name": "Bismarckplatz, Heidelberg",
                        }
                    ]
                )
            )
        else:
            feature = {
                "geometry": {"type": "Point", "coordinates": [8.6937, 49.4094]},
                "properties": {"label": "Bismarckplatz, Heidelberg, Germany"},
            }
            self.finish(json.dumps({"type": "FeatureCollection", "features": [feature]}))


@pytest.fixture
def fake_api() -> Iterator[tuple[str, list[dict[str, list[str]]], dict[str, str]]]:
    """A Tornado server speaking the Nominatim and Pelias search APIs on loopback."""
    seen: list[dict[str, list[str]]] = []
    mode = {"mode": "ok"}
    started = threading.Event()
    holder: dict[str, Any] = {}

    def serve() -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)

        class Handler(_FakeApi):
            def initialize(self) -> None:  # type: ignore[override]
                super().initialize(seen, mode["mode"])

        app = tornado.web.Application([(r"/search", Handler), (r"/v1/search", Handler)])
        server = app.listen(0, "127.0.0.1")
        holder["port"] = next(iter(server._sockets.values())).getsockname()[1]
        holder["loop"], holder["server"] = loop, server
        started.set()
        loop.run_forever()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    started.wait(10)
    yield f"http://127.0.0.1:{holder['port']}", seen, mode
    holder["loop"].call_soon_threadsafe(holder["server"].stop)
    holder["loop"].call_soon_threadsafe(holder["loop"].stop)
    thread.join(5)


def test_nominatim_backend(make_service: Any, fake_api: Any) -> None:
    url, seen, _ = fake_api
    svc = make_service(geocoder="nominatim", geocoder_url=url)
    body = svc.get("/otp/geocode?" + q(address="Bismarckplatz", bbox="49.3,8.5,49.5,8.8")).json()
    assert body == {
        "results": [{"lat": 49.4094, "lng": 8.6937, "description": "Bismarckplatz, Heidelberg"}],
        "count": 1,
    }
    assert seen[-1]["path"] == ["/search"]
    assert seen[-1]["q"] == ["Bismarckplatz"]
    assert seen[-1]["format"] == ["jsonv2"]
    assert seen[-1]["viewbox"] == ["8.5,49.5,8.8,49.3"]


def test_pelias_backend(make_service: Any, fake_api: Any) -> None:
    url, seen, _ = fake_api
    svc = make_service(geocoder="pelias", geocoder_url=url)
    body = svc.get("/otp/geocode?" + q(address="Bismarckplatz")).json()
    assert body["results"] == [
        {"lat": 49.4094, "lng": 8.6937, "description": "Bismarckplatz, Heidelberg, Germany"}
    ]
    assert seen[-1]["path"] == ["/v1/search"]
    assert seen[-1]["text"] == ["Bismarckplatz"]


@pytest.mark.parametrize("mode", ["error", "garbage", "down"])
def test_backend_failure_is_a_clean_502(make_service: Any, fake_api: Any, mode: str) -> None:
    url, _, state = fake_api
    state["mode"] = mode
    if mode == "down":
        url = "http://127.0.0.1:9"  # discard port: connection refused
    svc = make_service(geocoder="nominatim", geocoder_url=url, geocoder_timeout_s=3.0)
    resp = svc.get("/otp/geocode?" + q(address="Bismarckplatz"))
    assert resp.status == 502
    body = resp.json()
    assert body["count"] == 0
    assert "nominatim geocoder" in body["error"]


# -- municoder ----------------------------------------------------------------------------------


def test_municoder_json_and_jsonp(atl: Service) -> None:
    assert atl.get("/otp/municoder?location=33.755,-84.39").json() == {"name": "Atlanta"}
    assert atl.get("/otp/municoder?location=40.0,-75.0").json() == {}
    resp = atl.get("/otp/municoder?location=33.755,-84.39&callback=jQuery123.cb_1")
    assert resp.status == 200
    assert resp.header("Content-Type").startswith("application/javascript")
    assert resp.text == '/**/jQuery123.cb_1({"name":"Atlanta"});'


@pytest.mark.parametrize(
    "query",
    [
        "location=33.755,-84.39&callback=" + urllib.parse.quote("alert(document.cookie)//"),
        "location=33.755,-84.39&callback=" + urllib.parse.quote("</script><script>x"),
        "location=33.755,-84.39&callback=eval",
        "location=95,-84.39",
        "location=nowhere",
        "",
    ],
)
def test_municoder_bad_input(atl: Service, query: str) -> None:
    resp = atl.get("/otp/municoder?" + query)
    assert resp.status == 400
    assert resp.header("Content-Type").startswith("application/json")


# -- plan with place names ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rnv() -> TransportNetwork:
    return built_network(require_data(), "small/rnv")


def plan(svc: Service, **params: str) -> dict[str, Any]:
    resp = svc.request("GET", "/otp/routers/default/plan?" + q(mode="WALK", **params), timeout=120)
    assert resp.status == 200
    return resp.json()


def test_plan_from_place_names(make_service: Any, rnv: TransportNetwork) -> None:
    svc = make_service(networks={"rnv": rnv})
    body = plan(svc, fromPlace="Bismarckplatz", toPlace="Home::HD Hauptbahnhof")
    assert "error" not in body
    cluster = rnv.geocoder().search("Bismarckplatz", clusters=True, stops=False)[0]
    assert body["plan"]["from"]["name"] == "Bismarckplatz"
    assert body["plan"]["from"]["lat"] == pytest.approx(cluster.lat)
    assert body["plan"]["to"]["name"] == "Home"
    assert body["requestParameters"]["fromPlace"] == "Bismarckplatz"  # echoed as sent


@pytest.mark.parametrize(
    ("params", "message", "error_id"),
    [
        ({"fromPlace": "Xqzzyvw Plonk", "toPlace": "Bismarckplatz"}, "GEOCODE_FROM_NOT_FOUND", 440),
        ({"fromPlace": "Bismarckplatz", "toPlace": "Xqzzyvw Plonk"}, "GEOCODE_TO_NOT_FOUND", 450),
        ({"fromPlace": "Xqzzyvw", "toPlace": "Plonkwqz"}, "GEOCODE_FROM_TO_NOT_FOUND", 460),
        ({"fromPlace": "Hauptbahnhof", "toPlace": "Bismarckplatz"}, "GEOCODE_FROM_AMBIGUOUS", 340),
    ],
)
def test_plan_geocode_errors(
    make_service: Any, rnv: TransportNetwork, params: dict[str, str], message: str, error_id: int
) -> None:
    svc = make_service(networks={"rnv": rnv})
    error = plan(svc, **params)["error"]
    assert (error["message"], error["id"]) == (message, error_id)
    assert error["noPath"] is True


# -- configuration ---------------------------------------------------------------------------------


def test_geocoder_and_scripting_config(tmp_path: Path) -> None:
    from service.config import ConfigError, ServiceConfig, load_config

    path = tmp_path / "service.yml"
    path.write_text(
        "geocoder: pelias\ngeocoder_url: http://pelias.local:4000\ngeocoder_timeout_s: 2\n"
        "scripting_enabled: true\nscript_time_limit_s: 30\n"
        "script_memory_limit_bytes: 1073741824\n",
        encoding="utf-8",
    )
    config = load_config(path, env={})
    assert (config.geocoder, config.geocoder_url, config.geocoder_timeout_s) == (
        "pelias",
        "http://pelias.local:4000",
        2.0,
    )
    assert (config.scripting_enabled, config.script_time_limit_s) == (True, 30.0)
    assert config.script_memory_limit_bytes == 1024**3
    assert ServiceConfig().scripting_enabled is False
    for bad in (
        {"geocoder": "bing"},
        {"geocoder": "nominatim"},
        {"geocoder": "nominatim", "geocoder_url": "ftp://x"},
        {"geocoder_timeout_s": 0},
        {"script_time_limit_s": -1},
        {"script_memory_limit_bytes": 1024},
    ):
        with pytest.raises(ConfigError):
            ServiceConfig(**bad)
