"""GET /otp: ServerInfo."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from _fakes import Service

import otpa

pytestmark = pytest.mark.http

MAVEN_FIELDS = [
    "version",
    "major",
    "minor",
    "incremental",
    "qualifier",
    "commit",
    "describe",
    "commit_time",
    "build_time",
    "uid",
    "shortVersionString",
    "longVersionString",
]


@pytest.mark.parametrize("path", ["/otp", "/otp/"])
def test_server_info_fields(service: Service, path: str) -> None:
    resp = service.get(path)
    assert resp.status == 200
    assert resp.header("Content-Type") == "application/json"
    info = resp.json()
    assert list(info) == ["serverVersion", "cpuName", "nCores"]
    version = info["serverVersion"]
    assert list(version) == MAVEN_FIELDS
    assert version["version"] == otpa.__version__
    major, minor, incremental = (int(p) for p in otpa.__version__.split(".")[:3])
    assert (version["major"], version["minor"], version["incremental"]) == (
        major,
        minor,
        incremental,
    )
    assert version["uid"] == 1_000_000 * major + 1_000 * minor + incremental
    assert version["shortVersionString"].startswith(f"otpa {otpa.__version__} ")
    assert version["longVersionString"].startswith(f"version: {otpa.__version__}\nmajor: ")
    assert isinstance(info["cpuName"], str)
    assert info["cpuName"]
    assert isinstance(info["nCores"], int)
    assert info["nCores"] >= 1


def test_server_info_xml(service: Service) -> None:
    resp = service.get("/otp", Accept="application/xml")
    assert resp.status == 200
    assert resp.header("Content-Type") == "application/xml"
    root = ET.fromstring(resp.body)
    assert root.tag == "ServerInfo"
    assert root.findtext("serverVersion/version") == otpa.__version__
    assert root.findtext("nCores") is not None


def test_server_info_prefers_json_for_browsers(service: Service) -> None:
    accept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    resp = service.get("/otp", Accept=accept)
    assert resp.header("Content-Type") == "application/json"
