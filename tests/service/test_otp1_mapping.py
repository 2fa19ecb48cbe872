"""Pure mapping helpers: XML serializer, Accept negotiation, JSON nulls, versions, GeoJSON."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from http import HTTPStatus
from types import MappingProxyType

import numpy as np
import orjson
import pytest

from service.otp1.errors import error_body
from service.otp1.router_info import polygon_geojson, travel_options
from service.otp1.serialize import drop_nulls, dumps_json
from service.otp1.server_info import maven_version, read_cpu_info
from service.otp1.xml import prefers_xml, to_xml


def test_to_xml_structure() -> None:
    doc = to_xml(
        "Response",
        {
            "plan": {"itineraries": [{"duration": 60}, {"duration": 90}], "x": None},
            "flag": True,
            "text": "a < b & c",
            "coords": [[1.5, 2.0], [3.0, 4.0]],
        },
    )
    assert doc.startswith(b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>')
    root = ET.fromstring(doc)
    assert root.tag == "Response"
    assert [e.text for e in root.findall("plan/itineraries/duration")] == ["60", "90"]
    assert root.find("plan/x") is None
    assert root.findtext("flag") == "true"
    assert root.findtext("text") == "a < b & c"
    assert [[i.text for i in c.findall("item")] for c in root.findall("coords")] == [
        ["1.5", "2.0"],
        ["3.0", "4.0"],
    ]


def test_to_xml_rejects_bad_names() -> None:
    with pytest.raises(ValueError, match="valid XML element name"):
        to_xml("R", {"1abc": 1})


def test_to_xml_strips_control_chars() -> None:
    ET.fromstring(to_xml("R", {"s": "a\x00b\x1fc"}))


@pytest.mark.parametrize(
    ("accept", "xml"),
    [
        (None, False),
        ("", False),
        ("*/*", False),
        ("application/json", False),
        ("application/xml", True),
        ("text/xml", True),
        ("application/xml, application/json", False),
        ("application/xml, application/json;q=0.4", True),
        ("application/*", False),
        ("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", False),
        ("text/plain", False),
    ],
)
def test_prefers_xml(accept: str | None, xml: bool) -> None:
    assert prefers_xml(accept) is xml


def test_null_omission() -> None:
    assert drop_nulls({"a": None, "b": [None, {"c": None}], "d": math.nan}) == {"b": [None, {}]}
    assert dumps_json({"a": 1.5, "b": None, "c": "é"}) == '{"a":1.5,"c":"é"}'.encode()


def test_null_omission_nested_and_special_values() -> None:
    """Scalars inside dicts and lists, float subclasses, mappings and tuples at any depth."""
    value = {
        "n": None,
        "s": "x",
        "i": 3,
        "b": False,
        "f": 2.5,
        "inf": -math.inf,
        "np": np.float64(1.25),
        "npnan": np.float64("nan"),
        "npint": np.int64(7),
        "t": (1, None, math.nan, {"z": None, "y": (None,)}),
        "m": MappingProxyType({"k": None, "v": [math.inf, 1.0, {"deep": math.nan}]}),
        "l": [{"a": None}, [None, 2.0], "s"],
    }
    out = drop_nulls(value)
    assert out == {
        "s": "x",
        "i": 3,
        "b": False,
        "f": 2.5,
        "np": 1.25,
        "npint": np.int64(7),
        "t": [1, None, None, {"y": [None]}],
        "m": {"v": [None, 1.0, {}]},
        "l": [{}, [None, 2.0], "s"],
    }
    assert list(out) == ["s", "i", "b", "f", "np", "npint", "t", "m", "l"]  # order kept
    assert type(out["np"]) is float
    assert type(out["t"]) is list


@pytest.mark.parametrize(
    "value",
    [
        {"a": 1.5, "t": (1, 2.0), "np": np.float64(0.1), "s": "x", "d": {"e": [True, "y"]}},
        {"a": 1, "nan": math.nan, "deep": {"inf": math.inf, "k": 2}},  # written as null: walked
        {"name": "nullstrasse", "b": None, "c": [None]},  # "null" inside a string
        MappingProxyType({"k": 1, "v": {"w": None}}),  # no dict: orjson refuses, walked
        {"big": 2**70, "n": None},  # beyond orjson: the standard library's encoder
        [None, {"a": None, "b": (None, 1)}],
    ],
)
def test_dumps_json_is_the_walk_encoded(value: object) -> None:
    """Encoded as it is when nothing needs dropping, else walked first: the same bytes."""
    walked = drop_nulls(value)
    try:
        expected = orjson.dumps(walked, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY)
    except TypeError:
        expected = json.dumps(walked, separators=(",", ":")).encode()
    assert dumps_json(value) == expected
    assert b"null" not in dumps_json({"x": math.nan, "y": None, "z": {"w": -math.inf}})


def test_error_body_shape() -> None:
    assert error_body(404, "gone") == {"status": 404, "error": "Not Found", "message": "gone"}
    assert error_body(413, "big")["error"] == HTTPStatus(413).phrase


@pytest.mark.parametrize(
    ("version", "parts", "uid"),
    [
        ("0.1.0", (0, 1, 0, ""), 1000),
        ("1.5.0-SNAPSHOT", (1, 5, 0, "SNAPSHOT"), -1005000),
        ("0.2.0.dev3", (0, 2, 0, "dev3"), -2000),
        ("2.1", (2, 1, 0, ""), 2001000),
        ("not a version", (0, 0, 0, "ParseFailure"), 0),
    ],
)
def test_maven_version(version: str, parts: tuple, uid: int) -> None:
    v = maven_version(version)
    assert (v["major"], v["minor"], v["incremental"], v["qualifier"]) == parts
    assert v["uid"] == uid
    assert v["longVersionString"].endswith(f"qualifier: {parts[3]}\ncommit: UNKNOWN\n")


def test_read_cpu_info(tmp_path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(
        "processor: 0\nmodel name\t: Fast CPU\nprocessor: 1\nmodel name\t: Fast CPU\n"
    )
    assert read_cpu_info(cpuinfo) == ("Fast CPU", 2)
    name, cores = read_cpu_info(tmp_path / "missing")
    assert name == "unknown"
    assert cores >= 1


def test_travel_options_full_order() -> None:
    names = [
        o["name"]
        for o in travel_options(
            ["TRAM"], has_bike_sharing=True, has_bike_ride=True, has_park_ride=True
        )
    ]
    assert names == [
        "TRANSIT",
        "TRAM",
        "WALK",
        "BICYCLE",
        "CAR",
        "BICYCLERENT",
        "TRANSIT_BICYCLE",
        "TRANSIT_BICYCLERENT",
        "PARKRIDE",
        "BIKERIDE",
        "KISSRIDE",
    ]


def test_polygon_degenerate() -> None:
    assert polygon_geojson([]) is None
    assert polygon_geojson([(1, 2)]) == {"type": "Point", "coordinates": [1.0, 2.0]}
    assert polygon_geojson([(1, 2), (3, 4)])["type"] == "LineString"
