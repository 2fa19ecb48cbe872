"""``/otp/pointsets``: sets from the configured folder, uploads, OTP's output shapes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _analyst_helpers import analyst_server, get, post, write_point_sets
from _fakes import ALICE, BOB, Service, basic

from service.config import ServiceConfig


def post_as_alice(
    svc: Service, path: str, body: bytes = b"", status: int = 200, **headers: str
) -> object:
    """POST as a user with the ROUTERS role (uploads change server state)."""
    return post(svc, path, body, status, **headers, **basic(*ALICE))

pytestmark = pytest.mark.http

LIMIT = 4096


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    write_point_sets(tmp_path / "pointsets")
    return tmp_path / "pointsets"


@pytest.fixture
def svc(folder: Path, users: Any) -> Iterator[Service]:
    with analyst_server(
        {}, pointsets_dir=folder, max_pointset_bytes=LIMIT, users=users
    ) as service:
        yield service


def _ids(svc: Service) -> list[str]:
    return [entry["id"] for entry in get(svc, "/otp/pointsets").json()]


def test_folder_sets_are_listed_by_file_stem(svc: Service) -> None:
    assert _ids(svc) == ["big", "stations", "zones"]


def test_small_sets_are_feature_collections_large_ones_a_count(svc: Service) -> None:
    small = get(svc, "/otp/pointsets/stations").json()
    assert small["type"] == "FeatureCollection"
    assert small["properties"]["id"] == "stations"
    assert set(small["properties"]["schema"]) == {"jobs", "schools"}
    assert len(small["features"]) == 12
    first = small["features"][0]
    assert first["id"] == "s0"
    assert first["geometry"] == {"type": "Point", "coordinates": [-84.40, 33.74]}
    assert small["features"][5]["properties"]["structured"] == {"jobs": 50, "schools": 2}
    assert get(svc, "/otp/pointsets/big").json() == {"id": "big", "n": 300}
    zones = get(svc, "/otp/pointsets/zones").json()
    populations = [f["properties"]["structured"]["population"] for f in zones["features"]]
    assert populations == [0, 100, 200]
    body = get(svc, "/otp/pointsets/nothing", 404).json()
    assert "nothing" in body["message"]
    get(svc, "/otp/pointsets/notes", 404)  # a .txt file is not a point set


def test_upload_csv_and_geojson(svc: Service) -> None:
    csv = b"id,lat,lon,jobs\na,33.75,-84.39,3\nb,33.76,-84.38,4\n"
    created = post_as_alice(svc, "/otp/pointsets?id=mine", csv, 201, **{"Content-Type": "text/csv"})
    assert created.json() == {"id": "mine", "n": 2}
    assert "mine" in _ids(svc)
    features = get(svc, "/otp/pointsets/mine").json()["features"]
    assert [f["properties"]["structured"]["jobs"] for f in features] == [3, 4]
    geojson = {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "geometry": {
                    "type": "Polygon",
                    "coordinates": [[[-84.4, 33.7], [-84.3, 33.7], [-84.3, 33.8], [-84.4, 33.7]]],
                },
                "properties": {"id": "tri", "homes": 12},
            }
        ],
    }
    body = json.dumps(geojson).encode()
    geo = {"Content-Type": "application/geo+json"}
    created = post_as_alice(svc, "/otp/pointsets", body, 201, **geo)
    generated = created.json()["id"]
    assert generated.startswith("upload-")
    shape = get(svc, f"/otp/pointsets/{generated}").json()
    assert shape["features"][0]["id"] == "tri"
    assert shape["features"][0]["properties"]["structured"] == {"homes": 12}


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b"id,latitude_wrong,lon\na,1,2\n", "text/csv"),
        (b"id,lat,lon\na,95,2\n", "text/csv"),
        (b"id,lat,lon\na,1,2\na,3,4\n", "text/csv"),
        (b"id,lat,lon\n", "text/csv"),
        (b'{"type": "FeatureCollection", "features": []}', "application/json"),
        (b'{"type": "FeatureCollection", "features": [{"type": "Feature"', "application/json"),
        (b"[1, 2, 3]", "application/json"),
        (b"\xff\xfe\x00garbage", "text/csv"),
        (b"   ", "text/csv"),
    ],
)
def test_bad_uploads_are_400_and_change_nothing(
    svc: Service, body: bytes, content_type: str
) -> None:
    before = _ids(svc)
    kind = {"Content-Type": content_type}
    resp = post_as_alice(svc, "/otp/pointsets?id=broken", body, 400, **kind)
    assert resp.json()["message"]
    assert _ids(svc) == before
    get(svc, "/otp/pointsets/broken", 404)


def test_upload_conflicts_size_and_names(svc: Service) -> None:
    csv = b"id,lat,lon\na,33.75,-84.39\n"
    headers = {"Content-Type": "text/csv"}
    before = _ids(svc)
    post_as_alice(svc, "/otp/pointsets?id=stations", csv, 409, **headers)  # a folder set's id
    post_as_alice(svc, "/otp/pointsets?id=../etc", csv, 400, **headers)
    large = b"id,lat,lon\n" + b"".join(f"p{i},33.75,-84.39\n".encode() for i in range(400))
    assert len(large) > LIMIT
    post_as_alice(svc, "/otp/pointsets?id=large", large, 413, **headers)
    assert _ids(svc) == before
    post_as_alice(svc, "/otp/pointsets?id=once", csv, 201, **headers)
    post_as_alice(svc, "/otp/pointsets?id=once", csv, 409, **headers)
    assert _ids(svc) == sorted([*before, "once"])


def test_without_a_folder_only_uploads_exist() -> None:
    with analyst_server({}) as svc:
        assert get(svc, "/otp/pointsets").json() == []
        get(svc, "/otp/pointsets/stations", 404)
    assert ServiceConfig().pointsets_dir is None


def test_uploads_need_the_routers_role(svc: Service) -> None:
    csv = b"id,lat,lon\na,33.75,-84.39\n"
    headers = {"Content-Type": "text/csv"}
    assert svc.request("POST", "/otp/pointsets?id=anon", body=csv, headers=headers).status == 401
    wrong = {**headers, **basic(*BOB)}
    assert svc.request("POST", "/otp/pointsets?id=bob", body=csv, headers=wrong).status == 403
    assert "anon" not in {p["id"] for p in get(svc, "/otp/pointsets").json()}
