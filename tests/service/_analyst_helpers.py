"""Shared pieces of the analyst API tests: servers on real networks, tiles, requests."""

from __future__ import annotations

import datetime as dt
import io
import json
import math
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from _fakes import Response, Service
from PIL import Image

from otpa.analysis import AnalysisRequest
from service.config import ServiceConfig
from service.server import start_in_thread

#: Five Points station, the heart of MARTA, and a weekday of its feed.
FIVE_POINTS = (33.7539, -84.3916)
ATL_PARAMS = {
    "fromPlace": "33.7539,-84.3916",
    "date": "2021-09-15",
    "time": "8:00am",
    "mode": "WALK,TRANSIT",
}
ATL_QUERY = "fromPlace=33.7539,-84.3916&date=2021-09-15&time=8:00am&mode=WALK,TRANSIT"
ATL_DEPARTURE = dt.datetime(2021, 9, 15, 8, 0)


@contextmanager
def analyst_server(networks: Mapping[str, Any], **config: Any) -> Iterator[Service]:
    """A server on loopback with these networks and configuration fields."""
    url, stop = start_in_thread(ServiceConfig(port=0, **config), networks)
    try:
        yield Service(url.removesuffix("/otp/routers/default"), url, None, stop)
    finally:
        stop()


def atl_query(**params: str | int | float | None) -> str:
    """``ATL_QUERY`` with parameters replaced, added or (None) removed."""
    merged: dict[str, object] = {**ATL_PARAMS, **params}
    return "&".join(f"{k}={v}" for k, v in merged.items() if v is not None)


def get(svc: Service, path: str, status: int = 200, **headers: str) -> Response:
    """GET and check the status; error answers must be the service's JSON error body."""
    resp = svc.request("GET", path, headers=headers, timeout=120)
    assert resp.status == status, (resp.status, resp.body[:300])
    if status >= 400:
        body = resp.json()
        assert body["status"] == status, body
        assert body["message"], body
    return resp


def post(svc: Service, path: str, body: bytes = b"", status: int = 200, **headers: str) -> Response:
    """POST and check the status."""
    resp = svc.request("POST", path, body=body, headers=headers, timeout=120)
    assert resp.status == status, (resp.status, resp.body[:300])
    if status >= 400:
        assert resp.json()["status"] == status
    return resp


def tile_of(lat: float, lon: float, z: int) -> tuple[int, int]:
    """Column and row of the slippy tile holding a point (the textbook formulas)."""
    n = 2**z
    x = math.floor((lon + 180.0) / 360.0 * n)
    phi = math.radians(lat)
    y = math.floor((1.0 - math.log(math.tan(phi) + 1.0 / math.cos(phi)) / math.pi) / 2.0 * n)
    return x, y


def pixel_lon_lat(z: int, x: int, y: int) -> tuple[np.ndarray, np.ndarray]:
    """Longitudes of a tile's pixel columns and latitudes of its rows (row 0 north)."""
    n = 2**z
    offsets = (np.arange(256) + 0.5) / 256
    lon = (x + offsets) / n * 360.0 - 180.0
    lat = np.degrees(np.arctan(np.sinh(np.pi * (1 - 2 * (y + offsets) / n))))
    return lon, lat


def rgba(data: bytes) -> np.ndarray:
    """Decode an image to an RGBA array."""
    with Image.open(io.BytesIO(data)) as image:
        return np.asarray(image.convert("RGBA"))


def atlanta_request(**changes: Any) -> AnalysisRequest:
    """The analysis request of ``ATL_QUERY`` per the documented plan -> analysis mapping.

    Plan defaults: walking 1.33 m/s, cycling 5 m/s, OTP's 2 km walk limit, 4 transfers,
    no board slack.
    """
    fields: dict[str, Any] = {
        "departure": ATL_DEPARTURE,
        "modes": "WALK,TRANSIT",
        "walk_speed_mps": 1.33,
        "bike_speed_mps": 5.0,
        "max_walk_time_s": math.ceil(2000 / 1.33),
        "max_bike_time_s": math.ceil(2000 / 5.0),
        "max_rides": 5,
        "board_slack_s": 0,
    }
    fields.update(changes)
    return AnalysisRequest(**fields)


def write_point_sets(folder: Path) -> dict[str, int]:
    """Point-set files for the registry: a small CSV, a large CSV, a GeoJSON; id -> size."""
    rng = np.random.default_rng(5)
    folder.mkdir(parents=True, exist_ok=True)
    small = ["id,lat,lon,jobs,schools"]
    for i in range(12):
        small.append(f"s{i},{33.74 + i * 0.002},{-84.40 + i * 0.002},{i * 10},{i % 3}")
    (folder / "stations.csv").write_text("\n".join(small) + "\n")
    lat = rng.uniform(33.72, 33.79, 300)
    lon = rng.uniform(-84.44, -84.34, 300)
    big = ["id,lat,lon,jobs"] + [f"b{i},{lat[i]},{lon[i]},{i}" for i in range(300)]
    (folder / "big.csv").write_text("\n".join(big) + "\n")
    features = [
        {
            "type": "Feature",
            "id": f"z{i}",
            "geometry": {"type": "Point", "coordinates": [-84.39 + i * 0.01, 33.75]},
            "properties": {"structured": {"population": 100 * i}},
        }
        for i in range(3)
    ]
    document = {"type": "FeatureCollection", "features": features}
    (folder / "zones.geojson").write_text(json.dumps(document))
    (folder / "notes.txt").write_text("not a point set")
    return {"stations": 12, "big": 300, "zones": 3}
