"""``GET /otp/openapi.json``: the OpenAPI 3.1 document generated from the live application.

The document and the URL table are compared both ways, the document is validated
as OpenAPI 3.1, ``/plan``'s parameters are checked against the table that parses
them, and real answers of a server on the demo city validate against the
document's response schemas.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import jsonschema
import pytest
import tornado.web
from openapi_spec_validator import validate
from tornado.routing import URLSpec

from otpa.routing.preferences import PARAMETER_RANGES, ItineraryPreferences, WalkPreferences
from service.analyst.limits import AnalystLimits
from service.app import make_app
from service.config import ServiceConfig
from service.openapi import implemented_methods, openapi_document, path_template
from service.otp1.plan_params import PARAMETERS
from service.registry import RouterRegistry
from service.server import landing_url, start_in_thread

# what each OTP 1.x Java type must be in the document (independent of the generator's table)
JSON_TYPES = {
    "String": "string",
    "List<String>": "array",
    "Boolean": "boolean",
    "Integer": "integer",
    "Long": "integer",
    "Double": "number",
    "OptimizeType": "string",
    "QualifiedModeSet": "string",
}
# a value each path group's regex accepts, to turn a documented template into a real URL
SAMPLE = {"z": "3", "x": "4", "y": "5", "surfaceId": "7", "otherSurfaceId": "8", "format": "png"}


@pytest.fixture(scope="module")
def app() -> tornado.web.Application:
    return make_app(ServiceConfig(), RouterRegistry(None))


@pytest.fixture(scope="module")
def doc(app: tornado.web.Application) -> dict[str, Any]:
    return openapi_document(app)


def _rules(app: tornado.web.Application) -> list[URLSpec]:
    return [r for r in app.wildcard_router.rules if isinstance(r, URLSpec)]


def test_every_registered_route_is_documented_with_its_methods(
    app: tornado.web.Application, doc: dict[str, Any]
) -> None:
    rules = _rules(app)
    assert len(rules) > 60
    for rule in rules:
        template, groups = path_template(rule.regex.pattern)
        assert template in doc["paths"], rule.regex.pattern
        documented = set(doc["paths"][template])
        assert documented == set(implemented_methods(rule.target)), template
        for method in documented:
            names = [
                p["name"]
                for p in doc["paths"][template][method].get("parameters", [])
                if p.get("in") == "path"
            ]
            assert names == [name for name, _ in groups]
    assert len(doc["paths"]) == len(rules)  # no two rules collapse into one template


def test_every_documented_path_is_registered(
    app: tornado.web.Application, doc: dict[str, Any]
) -> None:
    rules = _rules(app)
    for template, item in doc["paths"].items():
        url = re.sub(r"\{(\w+)\}", lambda m: SAMPLE.get(m.group(1), "abc"), template)
        matching = [r for r in rules if r.regex.fullmatch(url)]
        assert matching, f"{template} ({url}) matches no URL rule"
        handler = matching[0].target
        for method in item:
            assert getattr(handler, method) is not getattr(tornado.web.RequestHandler, method)


def test_the_document_is_valid_openapi_3_1(doc: dict[str, Any]) -> None:
    assert doc["openapi"] == "3.1.0"
    validate(doc)  # raises on any violation of the OAS 3.1 schema and its rules


def test_plan_documents_every_query_parameter_of_the_parsing_table(doc: dict[str, Any]) -> None:
    op = doc["paths"]["/otp/routers/{routerId}/plan"]["get"]
    refs = [p["$ref"].rsplit("/", 1)[-1] for p in op["parameters"] if "$ref" in p]
    params = {r.removeprefix("plan."): doc["components"]["parameters"][r] for r in refs}
    query = [p for p in PARAMETERS if p.query]
    assert len(query) == 73
    assert {p.name for p in query} <= set(params)
    assert "carSpeed" not in params  # router-config only
    for p in query:
        schema = params[p.name]["schema"]
        assert params[p.name]["in"] == "query"
        assert schema["type"] == JSON_TYPES[p.otp_type], p.name
        if p.name in PARAMETER_RANGES and schema["type"] != "string":
            lo, hi, lo_excluded = PARAMETER_RANGES[p.name]
            assert schema["exclusiveMinimum" if lo_excluded else "minimum"] == lo, p.name
            assert schema.get("maximum", float("inf")) == hi, p.name
        else:
            assert "minimum" not in schema
            assert "maximum" not in schema
    assert params["numItineraries"]["schema"]["maximum"] == 20
    for p in query:  # a documented default is a valid value of its own schema
        schema = params[p.name]["schema"]
        if "default" in schema:
            jsonschema.Draft202012Validator(schema).validate(schema["default"])
    assert params["walkSpeed"]["schema"]["default"] == WalkPreferences().speed_mps
    assert params["numItineraries"]["schema"]["default"] == ItineraryPreferences().num_itineraries
    assert "default" not in params["mode"]["schema"]  # not a scalar: left to the text
    assert params["optimize"]["schema"]["enum"][0] == "QUICK"
    # refusals are 200s with the OTP error object, so no 400 is declared for /plan
    assert "400" not in op["responses"]
    ok = op["responses"]["200"]["content"]["application/json"]["schema"]
    assert ok == {"$ref": "#/components/schemas/Response"}


def test_analysis_bounds_come_from_the_service_limits(doc: dict[str, Any]) -> None:
    params = doc["paths"]["/otp/routers/{routerId}/isochrone"]["get"]["parameters"]
    cutoff = next(p for p in params if p.get("name") == "cutoffSec")
    assert cutoff["required"] is True
    assert cutoff["schema"]["maximum"] == AnalystLimits().max_time_s
    plan_refs = [p for p in params if p.get("$ref", "").startswith("#/components/parameters/plan.")]
    assert len(plan_refs) == 73  # the RR endpoints read every plan parameter


def test_an_unknown_path_group_is_refused() -> None:
    with pytest.raises(ValueError, match="no name"):
        path_template(r"/otp/widgets/([^/]+)/?$")
    lenient = path_template(r"/otp/widgets/([^/]+)/?$", strict=False)
    assert lenient == ("/otp/widgets/{param1}", [("param1", "[^/]+")])


# -- a live server on the demo city ----------------------------------------------------------------


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    from otpa.network import build_network
    from otpa.testing.demo import write_demo_city

    city = write_demo_city(Path(tmp_path_factory.mktemp("openapi-demo")))
    network = build_network(city.directory)
    url, stop = start_in_thread(ServiceConfig(port=0), {"demo": network}, builder=None)
    try:
        yield landing_url(url).rstrip("/"), network
    finally:
        stop()


def _get(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _check(doc: dict[str, Any], schema: dict[str, Any], value: Any) -> None:
    root = {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}
    root["components"] = doc["components"]
    jsonschema.Draft202012Validator(root).validate(value)


def _schema_of(doc: dict[str, Any], path: str, status: str = "200") -> dict[str, Any]:
    response = doc["paths"][path]["get"]["responses"][status]
    if "$ref" in response:
        response = doc["components"]["responses"][response["$ref"].rsplit("/", 1)[-1]]
    schema: dict[str, Any] = response["content"]["application/json"]["schema"]
    return schema


@pytest.mark.http
def test_served_document_and_real_answers_match_its_schemas(base: tuple[str, Any]) -> None:
    url, network = base
    status, doc = _get(f"{url}/otp/openapi.json")
    assert status == 200
    assert "/otp/openapi.json" in doc["paths"]
    assert _get(f"{url}/otp/openapi.json")[1] == doc  # cached: the same document

    lat, lon = network.center
    start, _ = network.transit_service_range
    tz = ZoneInfo("Europe/Amsterdam")
    day = (dt.datetime.fromtimestamp(start, tz) + dt.timedelta(days=7)).strftime("%Y-%m-%d")
    plan_path = "/otp/routers/{routerId}/plan"
    query = (
        f"fromPlace={lat - 0.004},{lon - 0.006}&toPlace={lat + 0.004},{lon + 0.006}"
        f"&date={day}&time=8:00am&mode=WALK,TRANSIT"
    )
    status, plan = _get(f"{url}/otp/routers/demo/plan?{query}")
    assert status == 200
    assert plan["plan"]["itineraries"]
    _check(doc, _schema_of(doc, plan_path), plan)
    status, refused = _get(f"{url}/otp/routers/demo/plan?{query}&numItineraries=0")
    assert status == 200
    assert refused["error"]["message"] == "BOGUS_PARAMETER"
    _check(doc, _schema_of(doc, plan_path), refused)
    with pytest.raises(jsonschema.ValidationError):  # the schema does reject a wrong body
        _check(doc, _schema_of(doc, plan_path), {"requestParameters": {}, "plan": {"date": 1}})

    for path in ("/otp/health", "/otp/health/ready"):
        status, health = _get(f"{url}{path}")
        assert status == 200
        _check(doc, _schema_of(doc, path), health)
    assert _schema_of(doc, "/otp/health/ready", "503") == {"$ref": "#/components/schemas/Health"}
    status, info = _get(f"{url}/otp/routers/demo")
    assert status == 200
    _check(doc, _schema_of(doc, "/otp/routers/{routerId}"), info)
    _check(doc, _schema_of(doc, "/otp/routers"), _get(f"{url}/otp/routers")[1])
    _check(doc, _schema_of(doc, "/otp"), _get(f"{url}/otp")[1])
    status, missing = _get(f"{url}/otp/routers/nowhere")
    assert status == 404
    _check(doc, _schema_of(doc, "/otp/routers/{routerId}", "404"), missing)
    index = "/otp/routers/{routerId}/index"
    for view in ("stops", "routes", "patterns"):
        for detail in ("false", "true"):  # short forms, then full beans
            status, items = _get(f"{url}/otp/routers/demo/index/{view}?detail={detail}")
            assert status == 200
            assert items
            _check(doc, _schema_of(doc, f"{index}/{view}"), items)
    status, route = _get(f"{url}/otp/routers/demo/index/routes/{items[0]['routeId']}")
    assert status == 200
    _check(doc, _schema_of(doc, f"{index}/routes/{{routeId}}"), route)
    with pytest.raises(jsonschema.ValidationError):  # a short form is not the full bean
        _check(doc, _schema_of(doc, f"{index}/routes/{{routeId}}"), {"id": route["id"]})
    route_id = items and _get(f"{url}/otp/routers/demo/index/routes")[1][0]["id"]
    status, trips = _get(f"{url}/otp/routers/demo/index/routes/{route_id}/trips")
    assert status == 200
    assert trips
    _check(doc, _schema_of(doc, f"{index}/routes/{{routeId}}/trips"), trips)


@pytest.mark.http
def test_the_landing_page_links_the_document(base: tuple[str, Any]) -> None:
    url, _ = base
    with urllib.request.urlopen(f"{url}/", timeout=10) as resp:
        page = resp.read().decode("utf-8")
    assert 'href="/otp/openapi.json"' in page
    assert "API document (OpenAPI 3.1)" in page
